// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: process contexts and their threads.
 *
 * A context is one open file of a fastbinder device; threads are found by
 * pid the first time they issue an ioctl.  Work is queued either on the
 * context (any idle thread may take it) or on one thread (a reply, or a
 * nested call routed back to the thread that waits).
 */
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "internal.h"
#include "stats.h"

static unsigned int fbinder_default_max_threads;
module_param_named(default_max_threads, fbinder_default_max_threads, uint, 0644);
MODULE_PARM_DESC(default_max_threads,
		 "Pool threads a context may be asked to start before it sets its own maximum (default 0)");

static int fbinder_ctx_owner_wake(struct wait_queue_entry *wait, unsigned int mode,
				  int sync, void *key);
static void fbinder_ctx_owner_work(struct work_struct *work);

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
	INIT_WORK(&ctx->owner_work, fbinder_ctx_owner_work);
	init_waitqueue_func_entry(&ctx->owner_wait, fbinder_ctx_owner_wake);

	spin_lock(&dev->lock);
	/* under the lock: the list is in id order, a walk resumes by it */
	ctx->debug_id = atomic64_inc_return(&fbinder_ctx_ids);
	list_add_tail(&ctx->dev_entry, &dev->contexts);
	spin_unlock(&dev->lock);
	/* the opener is alive: its exit cannot have been notified yet */
	add_wait_queue(fbinder_pid_exit_wq(ctx->pid), &ctx->owner_wait);
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

/*
 * Under the thread's context lock, or in an RCU read-side section
 * (fbinder_ctx_unlock_wake).  Nothing to do when nobody waits on the
 * thread's queue: it is running (a caller switched out right after its
 * send, say), and it looks for its work under its context lock before it
 * sleeps.  No barrier is needed: a sleeper is on the queue before it drops
 * the context lock in which it found no work (fbinder_wait_crelock()), a
 * poller before it takes that lock to look (fbinder_poll()), and the work
 * was queued under the lock before this wake-up: either they see the work
 * or this sees them.
 */
void fbinder_wake_thread(struct fbinder_thread *thread, bool sync)
{
	/* no barrier: ordered by the context lock, see above */
	if (!waitqueue_active(&thread->wait))
		return;
	if (sync)
		wake_up_interruptible_sync(&thread->wait);
	else
		wake_up_interruptible(&thread->wait);
}

/*
 * Work for one thread: a reply, a failure, or a call routed back to it.
 * Returns the thread to wake with fbinder_ctx_unlock_wake() (internal.h).
 */
struct fbinder_thread *fbinder_thread_queue_clocked(struct fbinder_thread *thread,
						    struct fbinder_work *work)
{
	lockdep_assert_held(&thread->ctx->lock);
	list_add_tail(&work->entry, &thread->todo);
	return thread;
}

void fbinder_thread_enqueue_clocked(struct fbinder_thread *thread, struct fbinder_work *work,
				    bool sync)
{
	lockdep_assert_held(&thread->ctx->lock);
	fbinder_wake_thread(fbinder_thread_queue_clocked(thread, work), sync);
}

/*
 * Work for the context: takes exactly one idle thread off the waiting list
 * and returns it, for fbinder_ctx_unlock_wake() (internal.h), or NULL; wakes the
 * pollers.
 */
struct fbinder_thread *fbinder_ctx_queue_clocked(struct fbinder_ctx *ctx, struct fbinder_work *work)
{
	struct fbinder_thread *idle;

	lockdep_assert_held(&ctx->lock);
	list_add_tail(&work->entry, &ctx->todo);
	idle = list_first_entry_or_null(&ctx->waiting, struct fbinder_thread,
					waiting_entry);
	if (idle)
		list_del_init(&idle->waiting_entry);
	/*
	 * Only when someone polls: an empty wait queue would still cost an
	 * irq-saving lock round trip on every call.  No barrier needed: a
	 * poller adds itself before it takes fbinder_ctx.lock to look for work,
	 * and we hold that lock, so either it sees this work or we see it.
	 */
	if (waitqueue_active(&ctx->poll_wait))
		wake_up_interruptible(&ctx->poll_wait);
	return idle;
}

/* The same, waking the idle thread at once (the lock still held). */
void fbinder_ctx_enqueue_clocked(struct fbinder_ctx *ctx, struct fbinder_work *work, bool sync)
{
	struct fbinder_thread *idle;

	lockdep_assert_held(&ctx->lock);
	idle = fbinder_ctx_queue_clocked(ctx, work);
	if (idle)
		fbinder_wake_thread(idle, sync);
}

/*
 * Wakes every thread asleep waiting for work of the whole context; with
 * kick, its read returns EAGAIN instead of looking for work again.
 * Threads that wait for a reply sleep on.
 */
void fbinder_ctx_wake_waiting_clocked(struct fbinder_ctx *ctx, bool kick)
{
	struct fbinder_thread *thread, *next;

	lockdep_assert_held(&ctx->lock);
	list_for_each_entry_safe(thread, next, &ctx->waiting, waiting_entry) {
		list_del_init(&thread->waiting_entry);
		if (kick)
			thread->kicked = true;
		fbinder_wake_thread(thread, false);
	}
}

/*
 * FBINDER_IOC_WAKE_IDLE: every idle thread returns from its read with
 * EAGAIN, so a library can stop its loopers without a signal.
 */
void fbinder_ctx_wake_idle(struct fbinder_ctx *ctx)
{
	spin_lock(&ctx->lock);
	fbinder_ctx_wake_waiting_clocked(ctx, true);
	spin_unlock(&ctx->lock);
}

/*
 * A thread that waits for a reply takes only its own work, so a nested
 * call can always find it and it never picks up an unrelated call.
 */
bool fbinder_thread_wants_ctx_work(struct fbinder_thread *thread)
{
	struct fbinder_txn *top = thread->stack;

	return !top || top->to_thread == thread;
}

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
static void fbinder_thread_detach_locked(struct fbinder_thread *thread)
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
static bool fbinder_thread_drop_work_locked(struct fbinder_thread *thread,
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
static void fbinder_thread_free(struct fbinder_thread *thread)
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

/* Before the buffer goes: files of undelivered messages, and the count. */
static void fbinder_ctx_drop_buffer(struct fbinder_buffer *buf, void *unused)
{
	fbinder_buffer_drop_fds(buf);
	fbinder_stat_dec(FBINDER_STAT_LIVE_BUFFERS);
}

/*
 * The buffer of an ended context: the files of its undelivered messages
 * (a unix socket among them may hold this very file), its slots and pages.
 * Called once, by the end or by the last sender after it.
 */
void fbinder_ctx_free_buffer(struct fbinder_ctx *ctx)
{
	struct fbinder_hold b;

	/* the buffers' sender records go with them */
	spin_lock(&ctx->dev->lock);
	spin_lock(&ctx->lock);
	fbinder_hold_start_clocked(&b, ctx);
	fbinder_ctx_drop_senders_relock(ctx, &b);
	fbinder_hold_end_locked(&b);
	spin_unlock(&ctx->lock);
	spin_unlock(&ctx->dev->lock);
	fbinder_alloc_for_each(&ctx->alloc, fbinder_ctx_drop_buffer, NULL);
	fbinder_alloc_release(&ctx->alloc);
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
	fbinder_ctx_drop_nodes_relock(ctx, &dying, &b);
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
