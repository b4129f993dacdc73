// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: a context's end.
 *
 * A context ends when its owning process exits, whoever still holds its
 * file, or at the file's release at the latest (fbinder_ctx_end()): the
 * top of the driver's layers, it takes apart what every layer below holds
 * for the context, and tells the holders of its nodes.
 */
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "internal.h"

static int fbinder_ctx_owner_wake(struct wait_queue_entry *wait, unsigned int mode,
				  int sync, void *key);
static void fbinder_ctx_owner_work(struct work_struct *work);

/*
 * From its creation on, the context watches its owner's pid for the
 * owner's exit.  The opener is alive: its exit cannot have been notified
 * yet.
 */
void fbinder_ctx_watch_owner(struct fbinder_ctx *ctx)
{
	INIT_WORK(&ctx->owner_work, fbinder_ctx_owner_work);
	init_waitqueue_func_entry(&ctx->owner_wait, fbinder_ctx_owner_wake);
	add_wait_queue(fbinder_pid_exit_wq(ctx->pid), &ctx->owner_wait);
}

/*
 * The context ends (its owner exited, or its file was released): every call
 * into it fails, every reference it holds goes, its nodes die and their
 * holders are told, and its buffer is freed, now or by the last sender
 * still copying into it, never waited for.  Only the struct is left, for
 * whoever still holds a reference.  The first call does it all; later ones
 * return at once.
 *
 * Dead, nothing new reaches it: a send, a reply, a handle or a release
 * notice for it checks dead under the lock, and none of its own ioctls
 * runs any more.  So what it holds, as much as its opener made, goes
 * FBINDER_BATCH objects per hold of the device lock (fbinder_hold_step_relock()).
 * The end counts as one of its senders meanwhile: its messages' buffers
 * stay until it is done with them.
 */
static void fbinder_ctx_end(struct fbinder_ctx *ctx)
{
	struct fbinder_device *dev = ctx->dev;
	struct fbinder_thread *thread, *next;
	struct fbinder_buffer *unused;
	struct fbinder_work *work;
	struct fbinder_hold b;
	LIST_HEAD(threads);
	struct rb_node *rb;
	bool free_buffer;
	LIST_HEAD(dying);
	LIST_HEAD(async);

	spin_lock(&dev->lock);
	spin_lock(&ctx->lock);
	if (ctx->dead) {
		spin_unlock(&ctx->lock);
		spin_unlock(&dev->lock);
		return;
	}
	ctx->dead = true;
	ctx->active_senders++;
	/* held oneway messages go with the rest of its queue, below */
	fbinder_ctx_thaw_clocked(ctx);
	spin_unlock(&ctx->lock);
	list_del_init(&ctx->dev_entry);
	/* handle 0 is free for a new manager now, not once its turn came */
	if (dev->ctx_mgr && dev->ctx_mgr->owner == ctx)
		WRITE_ONCE(dev->ctx_mgr, NULL);
	spin_unlock(&dev->lock);

	/* its own links first, a batch at a time */
	fbinder_ctx_drop_deaths(ctx);

	spin_lock(&dev->lock);
	spin_lock(&ctx->lock);
	fbinder_hold_start_clocked(&b, ctx);
	/* out of every list now, so waiting_entry can collect them */
	while ((rb = rb_first(&ctx->threads))) {
		thread = rb_entry(rb, struct fbinder_thread, rb_node);
		fbinder_thread_detach_locked(thread);
		list_add(&thread->waiting_entry, &threads);
		fbinder_hold_step_crelock(&b);
	}
	list_for_each_entry(thread, &threads, waiting_entry)
		while (fbinder_thread_drop_work_locked(thread, &unused))
			fbinder_hold_step_crelock(&b);
	while ((work = list_first_entry_or_null(&ctx->todo, struct fbinder_work,
						entry))) {
		list_del_init(&work->entry);
		if (work->type == FBINDER_WORK_TXN)
			fbinder_txn_discard_locked(container_of(work, struct fbinder_txn,
								work));
		else if (work->type == FBINDER_WORK_RELEASE)
			fbinder_node_notice_done_locked(container_of(work,
								     struct fbinder_node,
								     work));
		/* a death notice went with its link, above */
		fbinder_hold_step_crelock(&b);
	}
	fbinder_ctx_drop_nodes_relock(ctx, &dying, &async, &b);
	while ((work = list_first_entry_or_null(&async, struct fbinder_work,
						entry))) {
		list_del_init(&work->entry);
		fbinder_txn_discard_locked(container_of(work, struct fbinder_txn,
							work));
		fbinder_hold_step_crelock(&b);
	}
	/* the rest is the graph's: the lock of the nodes' owners is taken */
	spin_unlock(&ctx->lock);
	b.ctx = NULL;
	while (fbinder_ctx_drop_region_locked(ctx, &dying))
		fbinder_hold_step_relock(&b);
	fbinder_ctx_drop_handles_relock(ctx, &b);
	/* a sender's copy may wait on its own stalled page fault */
	spin_lock(&ctx->lock);
	free_buffer = fbinder_ctx_senders_done_clocked(ctx);
	spin_unlock(&ctx->lock);
	fbinder_hold_end_locked(&b);
	spin_unlock(&dev->lock);
	/* then the holders of its nodes hear, a batch at a time */
	fbinder_nodes_fire_deaths(dev, &dying);

	/* threads still raised (handling a call) get their own settings back */
	list_for_each_entry_safe(thread, next, &threads, waiting_entry)
		fbinder_thread_free(thread);

	remove_wait_queue(fbinder_pid_exit_wq(ctx->pid), &ctx->owner_wait);
	if (free_buffer)
		fbinder_ctx_free_buffer(ctx);
}

/* True once no thread of the owning process is left to use the context. */
static bool fbinder_ctx_owner_gone(struct fbinder_ctx *ctx)
{
	struct task_struct *task = get_pid_task(ctx->pid, PIDTYPE_TGID);
	bool gone;

	if (!task)
		return true;
	gone = !atomic_read(&task->signal->live);
	put_task_struct(task);
	return gone;
}

/*
 * The owner's pid was woken (fbinder_pid_exit_wq()), under the tasklist and
 * wait-queue locks: a worker checks whether the process is gone and ends
 * the context.  The entry leaves the queue before the file's reference can
 * go (fbinder_ctx_end() before the put in fbinder_ctx_release()), so ctx is alive.
 */
static int fbinder_ctx_owner_wake(struct wait_queue_entry *wait, unsigned int mode,
				  int sync, void *key)
{
	struct fbinder_ctx *ctx = container_of(wait, struct fbinder_ctx, owner_wait);

	kref_get(&ctx->refs);
	if (!queue_work(system_wq, &ctx->owner_work))
		fbinder_ctx_put(ctx);	/* already queued, with its reference */
	return 0;
}

static void fbinder_ctx_owner_work(struct work_struct *work)
{
	struct fbinder_ctx *ctx = container_of(work, struct fbinder_ctx, owner_work);

	if (fbinder_ctx_owner_gone(ctx))
		fbinder_ctx_end(ctx);
	fbinder_ctx_put(ctx);
}

/*
 * A descriptor of the context is closed.  When its owner closes it because
 * the owner's last thread is exiting (exit_files(); signal->live counts the
 * threads not yet in do_exit()), the context ends here, whoever else holds
 * the file: a forked child, a process it was passed to, a unix socket it
 * is in flight on.  An owner that exits without a descriptor of it (it
 * closed them, or shares its table with another process) ends it from
 * fbinder_ctx_owner_work() instead.
 */
void fbinder_ctx_flush(struct fbinder_ctx *ctx)
{
	if (ctx->pid == task_tgid(current) &&
	    !atomic_read(&current->signal->live))
		fbinder_ctx_end(ctx);
}

/* The file's last reference went: end the context if its owner did not. */
void fbinder_ctx_release(struct fbinder_ctx *ctx)
{
	fbinder_ctx_end(ctx);
	/* a check queued before the end holds a reference of its own */
	if (cancel_work_sync(&ctx->owner_work))
		fbinder_ctx_put(ctx);
	fbinder_ctx_put(ctx);
}
