// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time self-test of the handle id allocator (debug builds only).
 *
 * Ids come round again only after 2^32 handles, far too many for a test
 * from user space.  This places handles at chosen ids in a context of its
 * own, sets the counter, and checks the next ids fbinder_handle_alloc_id_locked()
 * hands out (each then held, as a send would hold it): the first id at or
 * after the counter that no handle holds, wrapping from 0xffffffff to 1,
 * never 0, and a long run of ids in use walked past.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/slab.h>

#include "../internal.h"

#define ST_WANT		3
#define ST_USED		5
#define ST_RUN		10000

struct st_case {
	const char *name;
	u32 start;		/* the counter */
	u32 used[ST_USED];	/* ids in use; 0 ends the list */
	u32 run_from, run_len;	/* and a run of ids in use */
	u32 want[ST_WANT];	/* the next ids, in order */
};

static const struct st_case st_cases[] = {
	{ "fresh", 1, { }, 0, 0, { 1, 2, 3 } },
	{ "skip", 5, { 5, 6, 7, 9 }, 0, 0, { 8, 10, 11 } },
	{ "wrap", 0xfffffffe, { }, 0, 0, { 0xfffffffe, 0xffffffff, 1 } },
	{ "wrap and skip", 0xfffffffe, { 0xffffffff, 1, 2, 4 }, 0, 0,
	  { 0xfffffffe, 3, 5 } },
	{ "skip, wrap, skip", 0xfffffffd, { 0xfffffffd, 0xffffffff, 1 }, 0, 0,
	  { 0xfffffffe, 2, 3 } },
	{ "counter 0", 0, { 1 }, 0, 0, { 2, 3, 4 } },
	{ "a long run", 0xffffffff, { 0xffffffff }, 1, ST_RUN,
	  { ST_RUN + 1, ST_RUN + 2, ST_RUN + 3 } },
};

static int st_case(struct fbinder_device *dev, const struct st_case *c)
{
	u32 nused = 0, n, i, got[ST_WANT];
	struct fbinder_handle *hs;
	struct fbinder_ctx *ctx;
	int ret = 0;

	while (nused < ST_USED && c->used[nused])
		nused++;
	n = nused + c->run_len + ST_WANT;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	hs = kvcalloc(n, sizeof(*hs), GFP_KERNEL);
	if (!ctx || !hs) {
		ret = -ENOMEM;
		goto out;
	}
	ctx->dev = dev;
	ctx->handles = RB_ROOT;
	ctx->next_handle = c->start;
	for (i = 0; i < nused; i++)
		hs[i].id = c->used[i];
	for (i = 0; i < c->run_len; i++)
		hs[nused + i].id = c->run_from + i;

	spin_lock(&dev->lock);
	for (i = 0; i < nused + c->run_len; i++)
		fbinder_handle_insert_id_locked(ctx, &hs[i]);
	for (i = 0; i < ST_WANT; i++) {
		struct fbinder_handle *h = &hs[nused + c->run_len + i];

		h->id = fbinder_handle_alloc_id_locked(ctx);
		got[i] = h->id;
		fbinder_handle_insert_id_locked(ctx, h);
	}
	spin_unlock(&dev->lock);

	for (i = 0; i < ST_WANT; i++) {
		if (got[i] != c->want[i]) {
			pr_err("handle self-test: %s: id %u is %#x, want %#x\n",
			       c->name, i, got[i], c->want[i]);
			ret = -EINVAL;
		}
	}
out:
	kvfree(hs);
	kfree(ctx);
	return ret;
}

int fbinder_handle_selftest(void)
{
	struct fbinder_device *dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	int ret = 0, err;
	size_t i;

	if (!dev)
		return -ENOMEM;
	spin_lock_init(&dev->lock);
	for (i = 0; i < ARRAY_SIZE(st_cases); i++) {
		err = st_case(dev, &st_cases[i]);
		if (err && !ret)
			ret = err;
	}
	kfree(dev);
	if (!ret)
		pr_info("handle self-test: %zu cases: pass\n",
			ARRAY_SIZE(st_cases));
	return ret;
}
