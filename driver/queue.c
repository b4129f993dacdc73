// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: the todo lists and the wake-ups.
 *
 * Work is queued either on a context (any idle thread of it may take it:
 * a call, a oneway message, a release or death notice) or on one thread
 * (a reply, a failure, or a nested call routed back to the thread that
 * waits).  The layer below everything else that queues: the object graph
 * posts its notices here, the transactions their messages.
 */
#include <linux/wait.h>

#include "internal.h"

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
