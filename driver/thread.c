// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: a context's thread records.
 *
 * A thread gets its record on its first ioctl of the context (found by pid
 * afterwards), and loses it at FBINDER_IOC_THREAD_EXIT, at the context's
 * end, or when a later record's sweep finds the thread gone.  A record
 * that goes fails the calls its thread handled and drops what waited for
 * it (the transactions' ends, txn.c).
 */
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "internal.h"
#include "stats.h"

/* Records of other threads a new record looks at, to free exited ones. */
#define FBINDER_THREAD_REAP	4

/* Records of pids after *pid match. */
static int fbinder_thread_after_cmp(const void *pid, const struct rb_node *n)
{
	return rb_entry(n, struct fbinder_thread, rb_node)->pid <= *(const pid_t *)pid;
}

/* The first record after pid, or the first of all. */
static struct rb_node *fbinder_thread_after_locked(struct fbinder_ctx *ctx, pid_t pid)
{
	lockdep_assert_held(&ctx->dev->lock);
	return rb_find_first(&pid, &ctx->threads, fbinder_thread_after_cmp) ?:
	       rb_first(&ctx->threads);
}

static void fbinder_thread_reap_locked(struct fbinder_thread *thread,
				       struct list_head *gone);
static void fbinder_thread_free_gone(struct fbinder_ctx *ctx, struct list_head *gone);

/*
 * A thread that exits without FBINDER_IOC_THREAD_EXIT leaves its record: each
 * new record looks at the next FBINDER_THREAD_REAP others, round the tree, and
 * frees those whose thread is gone, as FBINDER_IOC_THREAD_EXIT would have.  A
 * sweep visits every record within (records / FBINDER_THREAD_REAP) new ones,
 * so the records stay below about three times the threads alive at once,
 * and the lock is held for a few records only.  A thread that is gone
 * cannot be inside an ioctl, so nothing uses the record but the lock's
 * holders.
 */
static void fbinder_ctx_reap_threads_locked(struct fbinder_ctx *ctx,
					    struct list_head *gone)
{
	struct rb_node *rb = fbinder_thread_after_locked(ctx, ctx->reap_next);
	struct fbinder_thread *thread;
	struct rb_node *next;
	int i;

	lockdep_assert_held(&ctx->dev->lock);
	lockdep_assert_held(&ctx->lock);
	for (i = 0; i < FBINDER_THREAD_REAP && rb; i++) {
		thread = rb_entry(rb, struct fbinder_thread, rb_node);
		next = rb_next(rb);
		ctx->reap_next = thread->pid;
		if (!pid_has_task(thread->tpid, PIDTYPE_PID))
			fbinder_thread_reap_locked(thread, gone);
		rb = next ?: rb_first(&ctx->threads);
	}
}

static int fbinder_thread_cmp(const void *pid, const struct rb_node *n)
{
	return fbinder_cmp(*(const pid_t *)pid, rb_entry(n, struct fbinder_thread, rb_node)->pid);
}

/*
 * The calling thread's record if it has one, under its context's
 * threads_lock alone: every ioctl starts here, and the device lock stays
 * for the records' changes.  The record is the caller's own (its pid),
 * which only the caller or the context's end frees, as when the device
 * lock found it.
 */
static struct fbinder_thread *fbinder_thread_find(struct fbinder_ctx *ctx)
{
	struct fbinder_thread *thread = NULL;
	pid_t pid = current->pid;
	struct rb_node *rb;

	spin_lock(&ctx->threads_lock);
	rb = rb_find(&pid, &ctx->threads, fbinder_thread_cmp);
	if (rb && rb_entry(rb, struct fbinder_thread, rb_node)->tpid == task_pid(current))
		thread = rb_entry(rb, struct fbinder_thread, rb_node);
	spin_unlock(&ctx->threads_lock);
	return thread;
}

/* The calling thread's record, created on its first ioctl. */
struct fbinder_thread *fbinder_thread_get(struct fbinder_ctx *ctx)
{
	struct fbinder_thread *thread, *new = NULL;
	struct rb_node **p, *parent;
	pid_t pid = current->pid;
	LIST_HEAD(gone);

	thread = fbinder_thread_find(ctx);
	if (thread)
		return thread;
again:
	spin_lock(&ctx->dev->lock);
	spin_lock(&ctx->lock);
search:
	p = &ctx->threads.rb_node;
	parent = NULL;
	while (*p) {
		parent = *p;
		thread = rb_entry(parent, struct fbinder_thread, rb_node);
		if (pid < thread->pid) {
			p = &parent->rb_left;
		} else if (pid > thread->pid) {
			p = &parent->rb_right;
		} else if (thread->tpid != task_pid(current)) {
			/* an exited thread's, whose number came back */
			fbinder_thread_reap_locked(thread, &gone);
			goto search;
		} else {
			spin_unlock(&ctx->lock);
			spin_unlock(&ctx->dev->lock);
			fbinder_thread_free_gone(ctx, &gone);
			if (new) {
				put_pid(new->tpid);
				kfree(new);
			}
			return thread;
		}
	}
	if (!new) {
		spin_unlock(&ctx->lock);
		spin_unlock(&ctx->dev->lock);
		fbinder_thread_free_gone(ctx, &gone);
		new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
		if (!new)
			return NULL;
		new->tpid = get_task_pid(current, PIDTYPE_PID);
		goto again;
	}
	new->ctx = ctx;
	new->pid = pid;
	INIT_LIST_HEAD(&new->todo);
	INIT_LIST_HEAD(&new->waiting_entry);
	init_waitqueue_head(&new->wait);
	spin_lock(&ctx->threads_lock);
	rb_link_node(&new->rb_node, parent, p);
	rb_insert_color(&new->rb_node, &ctx->threads);
	spin_unlock(&ctx->threads_lock);
	ctx->nr_threads++;
	fbinder_stat_inc(FBINDER_STAT_LIVE_THREADS);
	fbinder_ctx_reap_threads_locked(ctx, &gone);
	spin_unlock(&ctx->lock);
	spin_unlock(&ctx->dev->lock);
	fbinder_thread_free_gone(ctx, &gone);
	return new;
}

static bool fbinder_thread_awaits_reply(struct fbinder_thread *thread)
{
	struct fbinder_txn *t = thread->stack;

	for (; t; t = fbinder_stack_next(thread, t))
		if (t->from == thread)
			return true;
	return false;
}

/*
 * The thread's own settings, from before the driver raised it for the calls
 * it handles or a oneway message; false when it was not raised.
 */
static bool fbinder_thread_own_prio_clocked(struct fbinder_thread *thread,
					    struct fbinder_prio *own)
{
	struct fbinder_txn *t;
	bool raised = false;

	lockdep_assert_held(&thread->ctx->lock);
	if (thread->oneway_prio_set) {
		*own = thread->oneway_saved;
		raised = true;
	}
	/* the oldest raised call saved the settings from before them all */
	for (t = thread->stack; t; t = fbinder_stack_next(thread, t)) {
		if (t->to_thread == thread && t->prio_raised) {
			*own = t->saved_prio;
			raised = true;
		}
	}
	return raised;
}

/*
 * The thread leaves its context: the calls it handles fail to their
 * callers, and nothing is queued to it any more (no call on its stack
 * names it).  Its raise ends with them: what it must get back is kept as
 * if a oneway message had raised it, for fbinder_thread_free(), which the
 * caller runs once it dropped the lock, after the work left on its todo
 * (fbinder_thread_drop_work_locked()).
 */
void fbinder_thread_detach_locked(struct fbinder_thread *thread)
{
	lockdep_assert_held(&thread->ctx->dev->lock);
	lockdep_assert_held(&thread->ctx->lock);
	thread->oneway_prio_set =
		fbinder_thread_own_prio_clocked(thread, &thread->oneway_saved);
	fbinder_thread_unwind_locked(thread);
	list_del_init(&thread->waiting_entry);
	spin_lock(&thread->ctx->threads_lock);
	rb_erase(&thread->rb_node, &thread->ctx->threads);
	spin_unlock(&thread->ctx->threads_lock);
	thread->ctx->nr_threads--;
}

/*
 * Drops the first work left on a detached thread's todo (a reply, a
 * failure, a call routed back to it: fbinder_txn_discard_locked()); false
 * when none was left.  *buf is the buffer its message was in, or NULL: the
 * caller frees it once it dropped the lock, unless the context ended (its
 * buffers go with it).
 */
bool fbinder_thread_drop_work_locked(struct fbinder_thread *thread,
				     struct fbinder_buffer **buf)
{
	struct fbinder_work *work;

	lockdep_assert_held(&thread->ctx->dev->lock);
	lockdep_assert_held(&thread->ctx->lock);
	*buf = NULL;
	work = list_first_entry_or_null(&thread->todo, struct fbinder_work, entry);
	if (!work)
		return false;
	list_del_init(&work->entry);
	if (work->type == FBINDER_WORK_TXN || work->type == FBINDER_WORK_FAILED)
		*buf = fbinder_txn_discard_locked(container_of(work, struct fbinder_txn,
							       work));
	return true;
}

/*
 * A raised thread gets its own settings back: the caller may be another
 * task (the context's release), while the thread runs on in user space.
 * An exiting task needs nothing.  Then the record goes.
 */
void fbinder_thread_free(struct fbinder_thread *thread)
{
	struct task_struct *task = thread->task;

	if (task) {
		if (thread->oneway_prio_set && !(task->flags & PF_EXITING))
			fbinder_prio_restore(task, &thread->oneway_saved);
		put_task_struct(task);
	}
	put_pid(thread->tpid);
	/* epoll entries on wait detach; RCU lets them finish looking */
	wake_up_pollfree(&thread->wait);
	kfree_rcu(thread, rcu);
	fbinder_stat_dec(FBINDER_STAT_LIVE_THREADS);
}

/*
 * The record of a thread that is gone (the sweep, a reused thread id)
 * leaves the tree for gone, by its waiting_entry: the caller ends it with
 * fbinder_thread_free_gone() once it dropped the lock.
 */
static void fbinder_thread_reap_locked(struct fbinder_thread *thread,
				       struct list_head *gone)
{
	lockdep_assert_held(&thread->ctx->dev->lock);
	lockdep_assert_held(&thread->ctx->lock);
	fbinder_thread_detach_locked(thread);
	list_add(&thread->waiting_entry, gone);
}

/*
 * The reaped records: the work left for their threads goes, and the
 * buffers of their replies and routed calls with it, as if the thread had
 * read and freed them (the context lives on: a reply may fill its whole
 * buffer).  Their tasks exited, so there is no priority to give back and
 * nothing sleeps; then the records go.
 */
static void fbinder_thread_free_gone(struct fbinder_ctx *ctx, struct list_head *gone)
{
	struct fbinder_thread *thread, *next;
	struct fbinder_buffer *buf;
	bool more;

	list_for_each_entry_safe(thread, next, gone, waiting_entry) {
		do {
			spin_lock(&ctx->dev->lock);
			spin_lock(&ctx->lock);
			more = fbinder_thread_drop_work_locked(thread, &buf);
			spin_unlock(&ctx->lock);
			spin_unlock(&ctx->dev->lock);
			if (buf)
				fbinder_buffer_discard(ctx, buf);
		} while (more);
		fbinder_thread_free(thread);
	}
}

/*
 * FBINDER_IOC_THREAD_EXIT: calls the thread was handling fail to their callers,
 * and it gets its own priority back as if it had replied.
 */
int fbinder_thread_exit(struct fbinder_ctx *ctx)
{
	struct fbinder_thread *thread;
	int ret = 0;

	thread = fbinder_thread_get(ctx);
	if (!thread)
		return -ENOMEM;
	spin_lock(&ctx->dev->lock);
	spin_lock(&ctx->lock);
	if (fbinder_thread_awaits_reply(thread) || !list_empty(&thread->todo))
		ret = -EBUSY;
	else
		fbinder_thread_detach_locked(thread);
	spin_unlock(&ctx->lock);
	spin_unlock(&ctx->dev->lock);
	if (!ret)
		fbinder_thread_free(thread);
	return ret;
}
