// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time self-test of the receive-buffer allocator (debug builds only).
 *
 * It drives the pure algorithm on an fbinder_alloc that has slots and pages but
 * no mapping.  Four slots, each of one of five sizes (the 8-byte minimum,
 * sub-page, exactly one page, page-crossing, multi-page), are allocated and
 * freed in every interleaving of the eight operations (slot ids are
 * allocated in order; every size combination), and after every step it
 * checks the whole state:
 *
 *   - the slots tile the mapping in address order, sizes multiples of 8,
 *     no two free slots adjacent (so freeing coalesced), at most one slot
 *     cached (alloc->cached, whole, in allocated_tree, marked free);
 *   - free_tree holds exactly the free slots, by size then offset, and
 *     allocated_tree exactly the allocated ones and the cached one, by
 *     offset;
 *   - the slot fbinder_alloc_new() returned is the cached one when that has
 *     the size asked for, else the best fit among the gaps (the cached slot
 *     merged with its free neighbours), found by hand;
 *   - a page covered by an allocated slot or the cached one is present and
 *     in use (it may still be on the lru), any other page is absent or
 *     cached on the lru;
 *     pages_resident counts them;
 *   - free_oneway_space is half the mapping less the oneway slots.
 *
 * Then it checks the error codes, the oneway share, page reuse from the
 * lru, the cached slot, fbinder_alloc_take_user() and the in-kernel copies.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../alloc.h"

#define ST_PAGES	16
#define ST_SIZE		(ST_PAGES * PAGE_SIZE)
#define ST_SLOTS	4
#define ST_ONEWAY_ID	1	/* this slot id is sent oneway */

struct st_req {
	size_t data;
	size_t offsets;
};

static const struct st_req st_reqs[] = {
	{ 1, 0 },			/* the 8-byte minimum */
	{ 3001, 16 },			/* sub-page, padded */
	{ PAGE_SIZE, 0 },		/* exactly one page */
	{ PAGE_SIZE + 900, 8 },		/* crosses a page boundary */
	{ 3 * PAGE_SIZE - 8, 24 },	/* several pages */
};

struct st_run {
	struct fbinder_alloc *alloc;
	unsigned long scenarios;
	unsigned long steps;
	bool failed;
};

static size_t st_slot_size(const struct st_req *r)
{
	return max_t(size_t, ALIGN(r->data, 8) + ALIGN(r->offsets, 8), 8);
}

static bool st_fail(struct st_run *run, const char *what, size_t arg)
{
	if (!run->failed)
		pr_err("alloc self-test: %s (%zu) after %lu steps\n",
		       what, arg, run->steps);
	run->failed = true;
	return false;
}

/* Is page i of the mapping covered by an allocated slot? */
static bool st_page_used(struct fbinder_alloc *a, size_t i)
{
	size_t start = i * PAGE_SIZE, end = start + PAGE_SIZE;
	struct fbinder_buffer *b;

	/* the cached slot keeps its pages in use */
	list_for_each_entry(b, &a->buffers, entry)
		if ((!b->free || b == a->cached) && b->offset < end &&
		    b->offset + b->size > start)
			return true;
	return false;
}

static bool st_check_locked(struct st_run *run, struct fbinder_alloc *a)
{
	size_t off = 0, nfree = 0, nalloc = 0, ncached = 0, oneway = 0;
	size_t resident = 0, n, i;
	struct fbinder_buffer *b, *prev = NULL;
	struct rb_node *rb;
	struct fbinder_page *p;
	bool used;

	list_for_each_entry(b, &a->buffers, entry) {
		if (b->offset != off || !b->size || b->size % 8)
			return st_fail(run, "slots do not tile", b->offset);
		if (prev && prev->free && b->free && prev != a->cached &&
		    b != a->cached)
			return st_fail(run, "adjacent free slots", b->offset);
		if (b == a->cached)
			ncached++;
		else if (b->free)
			nfree++;
		else
			nalloc++;
		if (!b->free && b->oneway)
			oneway += b->size;
		off += b->size;
		prev = b;
	}
	if (off != a->size)
		return st_fail(run, "slots do not cover the mapping", off);
	if (a->cached && (ncached != 1 || !a->cached->free))
		return st_fail(run, "cached slot not on the list or not free", ncached);

	n = 0;
	prev = NULL;
	for (rb = rb_first(&a->free_tree); rb; rb = rb_next(rb), n++) {
		b = rb_entry(rb, struct fbinder_buffer, rb_node);
		if (!b->free || b == a->cached)
			return st_fail(run, "allocated or cached slot in free_tree",
				       b->offset);
		if (prev && (prev->size > b->size ||
			     (prev->size == b->size &&
			      prev->offset >= b->offset)))
			return st_fail(run, "free_tree out of order",
				       b->offset);
		prev = b;
	}
	if (n != nfree)
		return st_fail(run, "free_tree count", n);

	n = 0;
	prev = NULL;
	for (rb = rb_first(&a->allocated_tree); rb; rb = rb_next(rb), n++) {
		b = rb_entry(rb, struct fbinder_buffer, rb_node);
		if (b->free && b != a->cached)
			return st_fail(run, "free slot in allocated_tree",
				       b->offset);
		if (prev && prev->offset >= b->offset)
			return st_fail(run, "allocated_tree out of order",
				       b->offset);
		prev = b;
	}
	if (n != nalloc + ncached)
		return st_fail(run, "allocated_tree count", n);
	if (a->nr_slots != nalloc)
		return st_fail(run, "nr_slots", a->nr_slots);
	/* a page per FBINDER_SLOTS_PER_PAGE slots, the first one kept */
	if (a->slot_pages != max_t(size_t, DIV_ROUND_UP(nalloc, FBINDER_SLOTS_PER_PAGE),
				   min_t(size_t, a->slot_pages, 1)))
		return st_fail(run, "slot_pages", a->slot_pages);

	if (a->free_oneway_space != a->size / 2 - oneway)
		return st_fail(run, "free_oneway_space", a->free_oneway_space);

	for (i = 0; i < a->size / PAGE_SIZE; i++) {
		p = &a->pages[i];
		used = st_page_used(a, i);
		if (p->page)
			resident++;
		if (used && (!p->page || !p->in_use))
			return st_fail(run, "used page absent or cached", i);
		if (!used && p->page && (p->in_use || list_empty(&p->lru)))
			return st_fail(run, "unused page neither freed nor cached",
				       i);
	}
	if (resident != a->pages_resident)
		return st_fail(run, "pages_resident", a->pages_resident);
	return true;
}

static bool st_check(struct st_run *run)
{
	bool ok;

	mutex_lock(&run->alloc->lock);
	ok = st_check_locked(run, run->alloc);
	mutex_unlock(&run->alloc->lock);
	return ok;
}

/*
 * The offset fbinder_alloc_new() must pick for size bytes, or -1 if nothing
 * fits: the cached slot if it has that size, else the best fit among the
 * gaps, each a run of free slots and the cached one (which a request of
 * another size merges first).
 */
static long st_expected_fit(struct fbinder_alloc *a, size_t size)
{
	size_t gap = 0, gap_off = 0, best_size = 0;
	struct fbinder_buffer *b;
	long best = -1;

	mutex_lock(&a->lock);
	if (a->cached && a->cached->size == size) {
		best = a->cached->offset;
		goto out;
	}
	list_for_each_entry(b, &a->buffers, entry) {
		if (!b->free) {
			gap = 0;
			continue;
		}
		if (!gap)
			gap_off = b->offset;
		gap += b->size;
		/* a run ends at an allocated slot or at the end */
		if (!list_is_last(&b->entry, &a->buffers) &&
		    list_next_entry(b, entry)->free)
			continue;
		if (gap >= size && (best < 0 || gap < best_size)) {
			best = gap_off;
			best_size = gap;
		}
	}
out:
	mutex_unlock(&a->lock);
	return best;
}

static struct fbinder_buffer *st_alloc(struct st_run *run, const struct st_req *r,
				       bool oneway)
{
	long expect = st_expected_fit(run->alloc, st_slot_size(r));
	struct fbinder_buffer *buf;

	buf = fbinder_alloc_new(run->alloc, r->data, r->offsets, oneway, false);
	run->steps++;
	if (IS_ERR(buf)) {
		if (expect >= 0 || PTR_ERR(buf) != -ENOSPC)
			st_fail(run, "allocation failed", -PTR_ERR(buf));
		return NULL;
	}
	if (expect < 0 || buf->offset != expect)
		st_fail(run, "not the best fit", buf->offset);
	else if (buf->size != st_slot_size(r))
		st_fail(run, "slot size", buf->size);
	return buf;
}

/* One sequence of operations on ST_SLOTS ids, with one size per id. */
static void st_scenario(struct st_run *run, const u8 *seq,
			const u8 *sizes)
{
	struct fbinder_buffer *live[ST_SLOTS] = { };
	bool done[ST_SLOTS] = { };
	int step, id;

	run->scenarios++;
	for (step = 0; step < 2 * ST_SLOTS && !run->failed; step++) {
		id = seq[step];
		if (!done[id]) {
			done[id] = true;
			live[id] = st_alloc(run, &st_reqs[sizes[id]],
					    id == ST_ONEWAY_ID);
		} else if (live[id]) {
			fbinder_alloc_free(run->alloc, live[id]);
			live[id] = NULL;
			run->steps++;
		}
		st_check(run);
	}
	for (id = 0; id < ST_SLOTS; id++)
		if (live[id])
			fbinder_alloc_free(run->alloc, live[id]);
	/* everything coalesced back into one free slot, but the cached one */
	if (!run->failed && !list_is_singular(&run->alloc->buffers) &&
	    !run->alloc->cached)
		st_fail(run, "free slots not coalesced", 0);
	st_check(run);
}

/* Every size combination for one interleaving. */
static void st_all_sizes(struct st_run *run, const u8 *seq)
{
	u8 sizes[ST_SLOTS] = { };
	int i;

	for (;;) {
		st_scenario(run, seq, sizes);
		if (run->failed)
			return;
		for (i = 0; i < ST_SLOTS; i++) {
			if (++sizes[i] < ARRAY_SIZE(st_reqs))
				break;
			sizes[i] = 0;
		}
		if (i == ST_SLOTS)
			return;
		cond_resched();
	}
}

/*
 * Every interleaving of "allocate id" and "free id" for ST_SLOTS ids where
 * the ids are first allocated in order 0, 1, 2, ...: (2n - 1)!! of them.
 */
static void st_interleavings(struct st_run *run, u8 *seq, int pos,
			     u8 *uses, int next_new)
{
	int id;

	if (pos == 2 * ST_SLOTS) {
		st_all_sizes(run, seq);
		return;
	}
	for (id = 0; id < ST_SLOTS && !run->failed; id++) {
		if (uses[id] == 2 || (uses[id] == 0 && id != next_new))
			continue;
		seq[pos] = id;
		uses[id]++;
		st_interleavings(run, seq, pos + 1, uses,
				 id == next_new ? next_new + 1 : next_new);
		uses[id]--;
	}
}

static bool st_expect_err(struct st_run *run, struct fbinder_buffer *buf, int err)
{
	if (!IS_ERR(buf) || PTR_ERR(buf) != err)
		return st_fail(run, "wrong error", -err);
	return true;
}

/* Errors, the oneway share, page reuse, take_user, the copies. */
static void st_edges(struct st_run *run)
{
	struct fbinder_alloc *a = run->alloc;
	struct fbinder_buffer *ow[3], *sync, *buf, *taken[2];
	u8 pattern[64], back[64];
	u64 off[2];
	struct page *page;
	size_t index;
	bool freed;
	int i;

	st_expect_err(run, fbinder_alloc_new(a, ST_SIZE + 1, 0, false, false), -EMSGSIZE);
	st_expect_err(run, fbinder_alloc_new(a, SIZE_MAX, 0, false, false), -EMSGSIZE);
	st_expect_err(run, fbinder_alloc_new(a, 8, SIZE_MAX - 7, false, false), -EMSGSIZE);
	st_expect_err(run, fbinder_alloc_new(a, ST_SIZE / 2 + 8, 0, true, false),
		      -EMSGSIZE);

	/* oneway slots may hold half the mapping, no more */
	for (i = 0; i < 3; i++) {
		ow[i] = fbinder_alloc_new(a, 10000, 0, true, false);
		if (IS_ERR(ow[i]))
			st_fail(run, "oneway allocation", i);
	}
	if (run->failed)
		return;
	st_expect_err(run, fbinder_alloc_new(a, 10000, 0, true, false), -ENOSPC);
	sync = fbinder_alloc_new(a, 20000, 0, false, false);
	if (IS_ERR(sync))
		st_fail(run, "synchronous slot beside oneway ones", 20000);
	st_check(run);
	if (run->failed)
		return;
	fbinder_alloc_free(a, ow[1]);
	ow[1] = fbinder_alloc_new(a, 10000, 0, true, false);
	if (IS_ERR(ow[1]))
		st_fail(run, "oneway after a free", 10000);
	if (run->failed)
		return;
	/* the rest of the mapping is too small now */
	st_expect_err(run, fbinder_alloc_new(a, ST_SIZE - 20000, 0, false, false),
		      -ENOSPC);
	st_check(run);
	for (i = 0; i < 3; i++)
		fbinder_alloc_free(a, ow[i]);
	fbinder_alloc_free(a, sync);
	st_check(run);

	/* a full buffer */
	buf = fbinder_alloc_new(a, ST_SIZE, 0, false, false);
	if (IS_ERR(buf))
		return (void)st_fail(run, "whole-buffer slot", ST_SIZE);
	st_expect_err(run, fbinder_alloc_new(a, 0, 0, false, false), -ENOSPC);
	fbinder_alloc_free(a, buf);

	/* a freed page stays cached and is reused, not reallocated */
	buf = fbinder_alloc_new(a, PAGE_SIZE, 0, false, false);
	if (IS_ERR(buf))
		return (void)st_fail(run, "page slot", PAGE_SIZE);
	index = buf->offset / PAGE_SIZE;
	page = a->pages[index].page;
	fbinder_alloc_free(a, buf);
	if (!page || list_empty(&a->pages[index].lru))
		st_fail(run, "freed page not cached", index);
	buf = fbinder_alloc_new(a, PAGE_SIZE, 0, false, false);
	if (IS_ERR(buf))
		return (void)st_fail(run, "page slot", PAGE_SIZE);
	if (buf->offset != index * PAGE_SIZE || a->pages[index].page != page ||
	    !a->pages[index].in_use)
		st_fail(run, "cached page not reused", index);
	fbinder_alloc_free(a, buf);

	/* fbinder_alloc_take_user() finds a delivered slot once */
	buf = fbinder_alloc_new(a, 100, 8, false, false);
	if (IS_ERR(buf))
		return (void)st_fail(run, "small slot", 100);
	off[0] = buf->offset;
	off[1] = buf->offset + 8;
	if (fbinder_alloc_take_user(a, &off[0], 1, taken, false, &freed))
		st_fail(run, "took a slot not delivered", buf->offset);
	fbinder_alloc_deliver(a, &buf, 1);
	if (fbinder_alloc_take_user(a, &off[1], 1, taken, false, &freed))
		st_fail(run, "took a slot at a wrong offset", buf->offset);
	/* the run stops at the offset that names no slot */
	if (fbinder_alloc_take_user(a, off, 2, taken, false, &freed) != 1 ||
	    taken[0] != buf || freed)
		st_fail(run, "delivered slot not taken", buf->offset);
	if (fbinder_alloc_take_user(a, &off[0], 1, taken, false, &freed))
		st_fail(run, "slot taken twice", buf->offset);
	fbinder_alloc_free(a, buf);

	/* a bare slot is freed with its take; one with objects is not */
	sync = fbinder_alloc_new(a, 16, 8, false, false);
	buf = fbinder_alloc_new(a, 16, 0, false, false);
	if (IS_ERR(sync) || IS_ERR(buf))
		return (void)st_fail(run, "bare slots", 0);
	sync->offsets_size = 8;		/* one object */
	off[0] = sync->offset;
	off[1] = buf->offset;
	taken[0] = sync;
	taken[1] = buf;
	fbinder_alloc_deliver(a, taken, 2);
	if (fbinder_alloc_take_user(a, off, 2, taken, true, &freed) != 2 || freed ||
	    taken[0] != sync || taken[1] != buf)
		st_fail(run, "slot with objects freed with its take", sync->offset);
	fbinder_alloc_free(a, sync);
	fbinder_alloc_deliver(a, &buf, 1);
	if (fbinder_alloc_take_user(a, &off[1], 1, taken, true, &freed) != 1 ||
	    !freed || !buf->free || a->nr_slots)
		st_fail(run, "bare slot not freed with its take", buf->offset);
	if (fbinder_alloc_take_user(a, &off[1], 1, taken, true, &freed) || freed)
		st_fail(run, "freed slot taken again", buf->offset);
	st_check(run);

	/* in-kernel copies across a page boundary, and their bounds */
	sync = fbinder_alloc_new(a, PAGE_SIZE - 40, 0, false, false);
	buf = fbinder_alloc_new(a, 200, 0, false, false);
	if (IS_ERR(sync) || IS_ERR(buf))
		return (void)st_fail(run, "copy slots", 0);
	if (buf->offset / PAGE_SIZE == (buf->offset + 199) / PAGE_SIZE)
		st_fail(run, "copy slot does not cross a page", buf->offset);
	for (index = 0; index < sizeof(pattern); index++)
		pattern[index] = index * 7 + 1;
	if (fbinder_alloc_write(a, buf, 0, pattern, sizeof(pattern)) ||
	    fbinder_alloc_read(a, buf, 0, back, sizeof(back)) ||
	    memcmp(pattern, back, sizeof(back)))
		st_fail(run, "copy round trip", 0);
	if (fbinder_alloc_read(a, buf, buf->size - 8, back, 16) != -EINVAL ||
	    fbinder_alloc_write(a, buf, SIZE_MAX, pattern, 1) != -EINVAL ||
	    fbinder_alloc_read(a, buf, buf->size, back, 0))
		st_fail(run, "copy bounds", buf->size);
	fbinder_alloc_free(a, buf);
	fbinder_alloc_free(a, sync);
	st_check(run);
}

static void st_count_slot(struct fbinder_buffer *buf, void *arg)
{
	(*(size_t *)arg)++;
}

/*
 * The cached slot: kept whole by a small free, taken back by a request of
 * its size only, merged first by any other request (so a gap it splits is
 * whole again for a large one), invisible to take_user and for_each, its
 * page handed back like a free slot's, its oneway share returned.
 */
static void st_cache(struct st_run *run)
{
	struct fbinder_alloc *a = run->alloc;
	struct fbinder_buffer *x, *y, *z, *buf;
	size_t visits = 0;
	bool freed;
	u64 off;

	x = fbinder_alloc_new(a, 100, 0, false, false);
	y = fbinder_alloc_new(a, 100, 0, false, false);
	if (IS_ERR(x) || IS_ERR(y))
		return (void)st_fail(run, "cache slots", 0);
	off = y->offset;
	fbinder_alloc_deliver(a, &y, 1);
	if (fbinder_alloc_take_user(a, &off, 1, &buf, false, &freed) != 1 ||
	    buf != y || freed)
		return (void)st_fail(run, "cache slot not taken", off);
	fbinder_alloc_free(a, y);
	if (a->cached != y || !y->free || a->nr_slots != 1)
		st_fail(run, "small free not cached", y->offset);
	if (fbinder_alloc_take_user(a, &off, 1, &buf, true, &freed) || freed)
		st_fail(run, "cached slot taken by user space", off);
	fbinder_alloc_for_each(a, st_count_slot, &visits);
	if (visits != 1)
		st_fail(run, "for_each met the cached slot", visits);
	st_check(run);
	/* its size takes it back as it is */
	buf = fbinder_alloc_new(a, 97, 0, false, false);
	if (buf != y || buf->offset != off || buf->free || a->cached)
		st_fail(run, "cached slot not reused", off);
	st_check(run);
	/* another size merges it and takes the best fit */
	fbinder_alloc_free(a, y);
	buf = fbinder_alloc_new(a, 50, 0, false, false);
	if (IS_ERR(buf) || buf->offset != off || buf->size != 56 || a->cached)
		st_fail(run, "cached slot not merged for another size", off);
	st_check(run);
	fbinder_alloc_free(a, buf);
	fbinder_alloc_free(a, x);
	st_check(run);
	if (run->failed)
		return;

	/* a cached slot splitting the free space does not make it too small */
	x = fbinder_alloc_new(a, 8, 0, false, false);
	y = fbinder_alloc_new(a, 8, 0, false, false);
	z = fbinder_alloc_new(a, ST_SIZE - 16, 0, false, false);
	if (IS_ERR(x) || IS_ERR(y) || IS_ERR(z))
		return (void)st_fail(run, "filling slots", 0);
	fbinder_alloc_free(a, y);
	fbinder_alloc_free(a, z);	/* merges y, caches nothing */
	fbinder_alloc_free(a, x);	/* cached, in front of the rest */
	st_check(run);
	buf = fbinder_alloc_new(a, ST_SIZE, 0, false, false);
	if (IS_ERR(buf) || buf->offset)
		return (void)st_fail(run, "whole buffer behind a cached slot", 0);
	fbinder_alloc_free(a, buf);
	st_check(run);

	/* a oneway message in the cached slot counts in the oneway half */
	x = fbinder_alloc_new(a, 200, 0, true, false);
	if (IS_ERR(x))
		return (void)st_fail(run, "oneway slot", 200);
	fbinder_alloc_free(a, x);
	if (a->cached != x || a->free_oneway_space != ST_SIZE / 2)
		st_fail(run, "cached oneway slot still counted", a->free_oneway_space);
	y = fbinder_alloc_new(a, 200, 0, true, false);
	if (y != x || a->free_oneway_space != ST_SIZE / 2 - y->size)
		st_fail(run, "reused oneway slot not counted", a->free_oneway_space);
	st_check(run);
	fbinder_alloc_free(a, y);
	/* its page stays in use while it is cached */
	if (!a->pages[0].in_use)
		st_fail(run, "cached slot let its page go", 0);
	st_check(run);
	/* a request of another size merges it: the page is cached on the lru */
	x = fbinder_alloc_new(a, 2 * PAGE_SIZE, 0, false, false);
	if (IS_ERR(x))
		return (void)st_fail(run, "slot after the cached one", 0);
	fbinder_alloc_free(a, x);	/* too big to cache */
	if (a->cached || a->pages[0].in_use || list_empty(&a->pages[0].lru))
		st_fail(run, "merged cached slot holds its page", 0);
	st_check(run);
}

int fbinder_alloc_selftest(void)
{
	struct st_run run = { };
	struct fbinder_alloc *a;
	u8 seq[2 * ST_SLOTS], uses[ST_SLOTS] = { };
	int ret;

	a = kmalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	fbinder_alloc_init(a);
	run.alloc = a;

	/* no buffer yet */
	st_expect_err(&run, fbinder_alloc_new(a, 8, 0, false, false), -ESRCH);
	ret = fbinder_alloc_setup_unmapped(a, ST_SIZE);
	if (ret) {
		kfree(a);
		return ret;
	}
	/* an idle buffer holds no page at all */
	if (a->pages_resident)
		st_fail(&run, "idle buffer has pages", a->pages_resident);
	st_check(&run);
	st_edges(&run);
	if (!run.failed)
		st_cache(&run);
	if (!run.failed)
		st_interleavings(&run, seq, 0, uses, 0);
	if (!run.failed)
		st_edges(&run);
	fbinder_alloc_release(a);
	kfree(a);

	if (run.failed)
		return -EINVAL;
	pr_info("alloc self-test: %lu scenarios, %lu steps: pass\n",
		run.scenarios, run.steps);
	return 0;
}
