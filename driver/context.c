// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: contexts, their creation, references and list.
 *
 * A context is one open file of a fastbinder device: created at open, put
 * on its device's list (which debugfs, FBINDER_IOC_INFO and the freeze
 * queries walk: fbinder_ctx_iter_next()), and freed with its last
 * reference.  Its end is end.c's, its thread records thread.c's, its
 * queues queue.c's.
 */
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "compat.h"
#include "internal.h"
#include "stats.h"

static unsigned int fbinder_default_max_threads;
module_param_named(default_max_threads, fbinder_default_max_threads, uint, 0644);
MODULE_PARM_DESC(default_max_threads,
		 "Pool threads a context may be asked to start before it sets its own maximum (default 0)");

static atomic64_t fbinder_ctx_ids = ATOMIC64_INIT(0);

struct fbinder_ctx *fbinder_ctx_create(struct fbinder_device *dev)
{
	struct fbinder_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);

	if (!ctx)
		return NULL;
	ctx->dev = dev;
	kref_init(&ctx->refs);
	ctx->pid = get_task_pid(current, PIDTYPE_TGID);
	ctx->euid = current_euid();
	ctx->node_user = fbinder_node_user_get(ctx->euid);
	if (!ctx->node_user) {
		put_pid(ctx->pid);
		kfree(ctx);
		return NULL;
	}
	fbinder_alloc_init(&ctx->alloc);
	ctx->threads = RB_ROOT;
	spin_lock_init(&ctx->lock);
	spin_lock_init(&ctx->threads_lock);
	ctx->nodes = RB_ROOT;
	ctx->handles = RB_ROOT;
	ctx->handles_by_node = RB_ROOT;
	ctx->deaths = RB_ROOT;
	ctx->senders = RB_ROOT;
	INIT_LIST_HEAD(&ctx->dying_handles);
	INIT_LIST_HEAD(&ctx->regions);
	ctx->next_handle = fbinder_handle_id_start ?: 1;
	INIT_LIST_HEAD(&ctx->todo);
	INIT_LIST_HEAD(&ctx->waiting);
	init_waitqueue_head(&ctx->poll_wait);
	INIT_LIST_HEAD(&ctx->held);
	init_waitqueue_head(&ctx->freeze_wait);
	ctx->max_threads = min_t(u32, fbinder_default_max_threads, FBINDER_MAX_THREADS);

	spin_lock(&dev->lock);
	/* under the lock: the list is in id order, a walk resumes by it */
	ctx->debug_id = atomic64_inc_return(&fbinder_ctx_ids);
	list_add_tail(&ctx->dev_entry, &dev->contexts);
	spin_unlock(&dev->lock);
	fbinder_stat_inc(FBINDER_STAT_LIVE_CONTEXTS);
	return ctx;
}

void fbinder_ctx_free(struct kref *kref)
{
	struct fbinder_ctx *ctx = container_of(kref, struct fbinder_ctx, refs);

	fbinder_node_user_put(ctx->node_user);
	put_pid(ctx->pid);
	/* a sender may have read a node's owner just before it ended */
	kfree_rcu(ctx, rcu);
	fbinder_stat_dec(FBINDER_STAT_LIVE_CONTEXTS);
}

static struct fbinder_ctx *fbinder_ctx_iter_next_locked(struct fbinder_ctx_iter *it)
{
	struct list_head *head = &it->dev->contexts;
	struct fbinder_ctx *ctx;

	lockdep_assert_held(&it->dev->lock);
	if (!it->pos)
		return list_first_entry_or_null(head, struct fbinder_ctx, dev_entry);
	if (!list_empty(&it->pos->dev_entry))
		return list_is_last(&it->pos->dev_entry, head) ? NULL :
		       list_next_entry(it->pos, dev_entry);
	list_for_each_entry(ctx, head, dev_entry)
		if (ctx->debug_id > it->id)
			return ctx;
	return NULL;
}

/*
 * A walk over one device's contexts (struct fbinder_ctx_iter): the next
 * one match() accepts, looking at no more than FBINDER_CTX_ITER_BATCH
 * others under one hold of the device lock (what an opener creates must
 * not make others wait, docs/security.md G6).  Returns it pinned
 * (fbinder_ctx_put()), or NULL at the end, where the walk let go of its
 * position.  The list is in id order (fbinder_ctx_create()), the position
 * is pinned between steps, and a position that left the list meanwhile
 * resumes at the first context after its id.
 */
struct fbinder_ctx *fbinder_ctx_iter_next(struct fbinder_ctx_iter *it,
					  bool (*match)(const struct fbinder_ctx *ctx,
							const void *arg),
					  const void *arg)
{
	struct fbinder_ctx *ctx, *old;
	int k;

	for (;;) {
		old = it->pos;
		spin_lock(&it->dev->lock);
		for (k = 0; k < FBINDER_CTX_ITER_BATCH; k++) {
			ctx = fbinder_ctx_iter_next_locked(it);
			if (!ctx || match(ctx, arg))
				break;
			it->pos = ctx;	/* pinned below, if the last */
			it->id = ctx->debug_id;
		}
		if (ctx && k < FBINDER_CTX_ITER_BATCH) {
			it->pos = ctx;
			it->id = ctx->debug_id;
		}
		if (it->pos && it->pos != old)
			kref_get(&it->pos->refs);
		spin_unlock(&it->dev->lock);
		if (old && old != it->pos)
			fbinder_ctx_put(old);
		if (!ctx) {
			if (it->pos)
				fbinder_ctx_put(it->pos);
			it->pos = NULL;
			return NULL;
		}
		if (k < FBINDER_CTX_ITER_BATCH) {
			kref_get(&ctx->refs);	/* the caller's */
			return ctx;
		}
		cond_resched();
	}
}

/* A walk stopped before its end lets go of its position. */
void fbinder_ctx_iter_stop(struct fbinder_ctx_iter *it)
{
	if (it->pos)
		fbinder_ctx_put(it->pos);
	it->pos = NULL;
}
