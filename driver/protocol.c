// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: FBINDER_IOC_WRITE_READ, the write stream of commands and the read
 * stream of returns.
 *
 * The read side takes one work item at a time under the device lock,
 * updates the thread's state, drops the lock and copies the return out.
 * If that copy faults, the state change is undone and the work goes back
 * to the head of its list: nothing queued is ever lost.  The one exception
 * is a message this process cannot take (its descriptors do not fit): it
 * fails to its sender instead of blocking the queue (fbinder_undeliverable()).
 */
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include "internal.h"
#include "stats.h"
#include "trace.h"

/* The largest return: a code and a struct fbinder_txn_msg. */
#define FBINDER_READ_MIN	(sizeof(u32) + sizeof(struct fbinder_txn_msg))

/*
 * Commands one WRITE_READ runs at most.  A longer stream, like one that
 * meets a pending signal, ends the ioctl with -EINTR and write_consumed at
 * the first command not run: the caller calls again to go on.  No stream,
 * however long (a small file mapped over and over makes gigabytes of
 * them), keeps a task in the kernel, deaf to SIGKILL.
 */
#define FBINDER_WRITE_MAX_CMDS	4096

static int fbinder_looper_cmd(struct fbinder_thread *thread, u32 cmd)
{
	struct fbinder_ctx *ctx = thread->ctx;
	const u32 in_pool = FBINDER_LOOPER_REGISTERED | FBINDER_LOOPER_ENTERED;
	int ret = 0;

	spin_lock(&ctx->lock);
	switch (cmd) {
	case FBINDER_CMD_REGISTER_LOOPER:
	case FBINDER_CMD_ENTER_LOOPER:
		if (thread->looper & in_pool) {
			ret = -EINVAL;
			break;
		}
		if (cmd == FBINDER_CMD_ENTER_LOOPER) {
			thread->looper = FBINDER_LOOPER_ENTERED;
			break;
		}
		thread->looper = FBINDER_LOOPER_REGISTERED;
		if (ctx->requested_threads) {
			ctx->requested_threads--;
			ctx->started_threads++;
		}
		break;
	case FBINDER_CMD_EXIT_LOOPER:
		if (!(thread->looper & in_pool))
			ret = -EINVAL;
		else
			thread->looper = FBINDER_LOOPER_EXITED;
		break;
	}
	spin_unlock(&ctx->lock);
	return ret;
}

/*
 * Returns 0, a negative errno, or FBINDER_WR_FROZEN (a send, see txn.c).
 * Inline: one call site, the path of every send, which a call of its own
 * lengthened by its frame.
 */
static __always_inline int fbinder_write_one(struct fbinder_thread *thread, u32 cmd,
					     const void __user *payload)
{
	/* each copied in whole before any use: no INIT_STACK_ALL_ZERO */
	struct fbinder_batch_send batch __uninitialized;
	struct fbinder_death death __uninitialized;
	struct fbinder_txn_sg sg __uninitialized;
	u64 offset;
	u32 handle;

	switch (cmd) {
	case FBINDER_CMD_SEND:
	case FBINDER_CMD_REPLY:
		return fbinder_send(thread, payload, cmd == FBINDER_CMD_REPLY);
	case FBINDER_CMD_SEND_BATCH:
		if (copy_from_user(&batch, payload, sizeof(batch)))
			return -EFAULT;
		return fbinder_send_batch(thread, &batch);
	case FBINDER_CMD_SEND_SG:
	case FBINDER_CMD_REPLY_SG:
		if (copy_from_user(&sg, payload, sizeof(sg)))
			return -EFAULT;
		return fbinder_send_sg(thread, &sg, cmd == FBINDER_CMD_REPLY_SG);
	case FBINDER_CMD_ACQUIRE:
	case FBINDER_CMD_RELEASE:
		if (copy_from_user(&handle, payload, sizeof(handle)))
			return -EFAULT;
		if (cmd == FBINDER_CMD_ACQUIRE)
			return fbinder_handle_acquire(thread->ctx, handle);
		return fbinder_handle_release(thread->ctx, handle);
	case FBINDER_CMD_REGISTER_LOOPER:
	case FBINDER_CMD_ENTER_LOOPER:
	case FBINDER_CMD_EXIT_LOOPER:
		return fbinder_looper_cmd(thread, cmd);
	case FBINDER_CMD_LINK_DEATH:
	case FBINDER_CMD_UNLINK_DEATH:
		if (copy_from_user(&death, payload, sizeof(death)))
			return -EFAULT;
		if (cmd == FBINDER_CMD_LINK_DEATH)
			return fbinder_death_link(thread->ctx, &death);
		return fbinder_death_unlink(thread->ctx, &death);
	case FBINDER_CMD_DEATH_DONE:
		if (copy_from_user(&offset, payload, sizeof(offset)))
			return -EFAULT;
		return fbinder_death_done(thread->ctx, offset);
	case FBINDER_CMD_ABANDON:
		return fbinder_abandon_call(thread);
	case FBINDER_CMD_REGION_READ:
	case FBINDER_CMD_REGION_WRITE:
		return fbinder_region_copy(thread->ctx, (void __user *)payload,
					   cmd == FBINDER_CMD_REGION_WRITE);
	default:
		return -EINVAL;
	}
}

/*
 * A run of FBINDER_CMD_FREE_BUFFER commands at write_consumed (the first one
 * checked by the caller): their offsets are read ahead and the buffers
 * freed together (fbinder_free_buffers), as if one command after the other.
 * The read-ahead stops at anything else, including a fault, which the
 * command loop then reports in its turn.
 */
static int fbinder_write_frees(struct fbinder_thread *thread, struct fbinder_write_read *wr,
			       u32 *budget)
{
	const size_t step = sizeof(u32) + _IOC_SIZE(FBINDER_CMD_FREE_BUFFER);
	u32 max = min_t(u32, *budget, FBINDER_FREE_BATCH);
	/* only the n entries read are used: no zeroing by INIT_STACK_ALL_ZERO */
	u64 offsets[FBINDER_FREE_BATCH] __uninitialized;
	u64 pos = wr->write_consumed;
	u32 n = 0, freed, cmd;
	u8 __user *p;
	int ret;

	while (n < max && wr->write_size - pos >= step) {
		p = u64_to_user_ptr(wr->write_buffer + pos);
		if (n && (get_user(cmd, (u32 __user *)p) ||
			  cmd != FBINDER_CMD_FREE_BUFFER))
			break;
		if (copy_from_user(&offsets[n], p + sizeof(u32),
				   sizeof(offsets[n]))) {
			if (!n)
				return -EFAULT;
			break;
		}
		n++;
		pos += step;
	}
	ret = fbinder_timed(FBINDER_SEC_FREE,
			    fbinder_free_buffers(thread->ctx, offsets, n, &freed));
	wr->write_consumed += freed * step;
	*budget -= freed;
	return ret;
}

/*
 * Runs commands until the stream ends or one fails, or -EINTR before the
 * next one when a signal is pending or FBINDER_WRITE_MAX_CMDS ran.
 * Returns 0, or FBINDER_WR_FROZEN when a oneway message that asked
 * (FBINDER_TXN_FROZEN_REPORT) was queued for a frozen target.
 */
static int fbinder_write(struct fbinder_thread *thread, struct fbinder_write_read *wr)
{
	u32 budget = FBINDER_WRITE_MAX_CMDS;
	int frozen = 0;

	while (wr->write_consumed < wr->write_size) {
		u64 left = wr->write_size - wr->write_consumed;
		u8 __user *p = u64_to_user_ptr(wr->write_buffer +
					       wr->write_consumed);
		u32 cmd;
		int ret;

		if (!budget || signal_pending(current))
			return -EINTR;
		/* between commands: a stream of one (most) pays no call */
		if (budget != FBINDER_WRITE_MAX_CMDS)
			fbinder_timed_void(FBINDER_SEC_RESCHED, cond_resched());
		if (left < sizeof(cmd))
			return -EINVAL;
		if (get_user(cmd, (u32 __user *)p))
			return -EFAULT;
		if (left - sizeof(cmd) < _IOC_SIZE(cmd))
			return -EINVAL;
		if (cmd == FBINDER_CMD_FREE_BUFFER) {
			ret = fbinder_write_frees(thread, wr, &budget);
			if (ret)
				return ret;
			continue;
		}
		ret = fbinder_write_one(thread, cmd, p + sizeof(cmd));
		if (ret < 0)
			return ret;
		frozen |= ret;
		wr->write_consumed += sizeof(cmd) + _IOC_SIZE(cmd);
		budget--;
	}
	return frozen;
}

/* One return before it is copied out: a code, then its payload. */
struct fbinder_ret {
	u32 cmd;
	union {
		struct fbinder_txn_msg msg;
		struct fbinder_txn_error err;
		struct fbinder_node_release rel;
		u64 cookie;
	} u;
};

/*
 * A work item taken, and what taking it changed: fbinder_take_work_clocked()
 * records each change here as it makes it, and fbinder_untake_work()
 * undoes exactly the changes recorded, so a failed copy leaves no trace.
 */
struct fbinder_taken {
	struct fbinder_work *work;
	struct list_head *list;		/* where it was */
	struct fbinder_txn *old_stack;	/* the thread's, before */
	bool pinned_batch;		/* it began the oneway batch, pinned */
	bool counted;			/* it left the queue's counts */
	bool async_out;			/* it counted in its node's async_out */
	bool handled;			/* the call names its handler */
	struct fbinder_buffer *buffer;	/* of a message, to hand over */
	bool raise;			/* run at prio once delivered */
	struct fbinder_prio prio;
};

/*
 * A reply or failure is taken only when its call is the top of the stack:
 * one that arrives while the thread handles a nested call waits for it.
 */
static bool fbinder_work_ready(struct fbinder_thread *thread, struct fbinder_work *work)
{
	struct fbinder_txn *t;

	if (work->type == FBINDER_WORK_FAILED)
		return container_of(work, struct fbinder_txn, work) ==
		       thread->stack;
	if (work->type != FBINDER_WORK_TXN)
		return true;
	t = container_of(work, struct fbinder_txn, work);
	return !t->is_reply || t->call == thread->stack;
}

static struct fbinder_work *fbinder_pick_work_clocked(struct fbinder_thread *thread,
						      struct fbinder_node *batch,
						      struct list_head **list)
{
	struct fbinder_ctx *ctx = thread->ctx;
	struct fbinder_work *work;

	lockdep_assert_held(&ctx->lock);
	/*
	 * After a oneway message, only more of the same node's: a call taken
	 * now would be raised on top of the message's raise, which must end
	 * first (at the next read, or with the call the thread handles).
	 */
	if (batch) {
		*list = &batch->async_todo;
		return list_first_entry_or_null(*list, struct fbinder_work, entry);
	}
	*list = &thread->todo;
	list_for_each_entry(work, &thread->todo, entry)
		if (fbinder_work_ready(thread, work))
			return work;
	*list = &ctx->todo;
	if (fbinder_thread_wants_ctx_work(thread) && !list_empty(*list))
		return list_first_entry(*list, struct fbinder_work, entry);
	return NULL;
}

/*
 * The sender's euid in the reader's user namespace.  The initial one maps
 * every valid kuid to itself (its map is the identity, kernel/user.c):
 * that common case skips the search of the map on every message.
 */
static u32 fbinder_euid_for_reader(kuid_t euid)
{
	struct user_namespace *ns = current_user_ns();

	if (ns == &init_user_ns && uid_valid(euid))
		return __kuid_val(euid);
	return from_kuid_munged(ns, euid);
}

/*
 * The sender's pid in the reader's pid namespace, 0 if it is not in it.
 * Only the owning thread group reads a context (fbinder_file_ctx()), and
 * its threads share one namespace, that of reader->pid.  In the initial
 * one every pid has its number at level 0: no lookup of the reader's own.
 */
static pid_t fbinder_pid_for_reader(struct fbinder_ctx *reader, struct pid *pid)
{
	struct pid_namespace *ns = ns_of_pid(reader->pid);

	if (ns == &init_pid_ns)
		return pid_nr(pid);
	return pid_nr_ns(pid, ns);
}

static void fbinder_fill_msg_clocked(struct fbinder_txn *t,
				     struct fbinder_txn_msg *msg)
{
	struct fbinder_buffer *buf = t->buffer;

	lockdep_assert_held(&t->to_ctx->lock);
	/* every field named, and the struct has no padding: all bytes set */
	*msg = (struct fbinder_txn_msg) {
		.txn_id = t->id,
		.cookie = t->is_reply ? 0 : t->node->cookie,
		.code = t->code,
		.flags = t->flags,
		.sender_pid = fbinder_pid_for_reader(t->to_ctx, t->sender_pid),
		.sender_euid = fbinder_euid_for_reader(t->sender_euid),
		.data = buf->offset,
		.data_size = buf->data_size,
		.offsets = buf->offset + ALIGN(buf->data_size, sizeof(u64)),
		.offsets_count = buf->offsets_size / sizeof(u64),
	};
}

/*
 * Takes work off its list and makes the thread's state say so.  Returns
 * true when the thread must stop reading to handle it.
 */
static bool fbinder_take_work_clocked(struct fbinder_thread *thread, struct fbinder_taken *tk,
				      struct fbinder_node **batch, struct fbinder_ret *ret)
{
	struct fbinder_work *work = tk->work;
	struct fbinder_death_link *death;
	struct fbinder_txn *t;
	struct fbinder_node *node;

	lockdep_assert_held(&thread->ctx->lock);
	list_del_init(&work->entry);
	tk->old_stack = thread->stack;
	tk->pinned_batch = false;
	tk->counted = false;
	tk->async_out = false;
	tk->handled = false;
	tk->buffer = NULL;
	tk->raise = false;

	switch (work->type) {
	case FBINDER_WORK_RELEASE:
		node = container_of(work, struct fbinder_node, work);
		ret->cmd = FBINDER_RET_RELEASE;
		ret->u.rel.cookie = node->cookie;
		ret->u.rel.exports = node->exports;
		return false;
	case FBINDER_WORK_DEAD:
		death = container_of(work, struct fbinder_death_link, work);
		death->state = FBINDER_DEATH_DELIVERED;
		ret->cmd = FBINDER_RET_DEAD;
		ret->u.cookie = death->cookie;
		return false;
	case FBINDER_WORK_FAILED:
		t = container_of(work, struct fbinder_txn, work);
		thread->stack = t->from_parent;
		ret->cmd = FBINDER_RET_FAILED;
		ret->u.err.txn_id = t->id;
		ret->u.err.error = t->error;
		ret->u.err.reserved = 0;
		return true;
	default:
		break;
	}

	t = container_of(work, struct fbinder_txn, work);
	fbinder_txn_count_clocked(t, -1);
	tk->counted = true;
	tk->buffer = t->buffer;
	fbinder_fill_msg_clocked(t, &ret->u.msg);
	if (t->is_reply) {
		thread->stack = t->call->from_parent;
		ret->cmd = FBINDER_RET_REPLY;
		return true;
	}
	ret->cmd = FBINDER_RET_TRANSACTION;
	if (t->flags & FBINDER_TXN_ONEWAY) {
		if (tk->list == &t->node->async_todo) {
			t->node->async_out++;
			tk->async_out = true;
		}
		if (!*batch) {
			/* never from zero: the message holds a buf_ref */
			*batch = t->node;
			t->node->tmp_refs++;
			tk->pinned_batch = true;
		}
		/* oneway work runs at the node's minimum, not the sender's */
		if (t->node->has_min_prio) {
			fbinder_prio_of_current(&tk->prio);
			tk->raise = fbinder_prio_higher(&t->node->min_prio,
							&tk->prio);
			tk->prio = t->node->min_prio;
		}
		return false;
	}
	fbinder_prio_of_current(&t->saved_prio);
	tk->prio = t->saved_prio;
	if (fbinder_prio_higher(&t->caller_prio, &tk->prio))
		tk->prio = t->caller_prio;
	if (t->node->has_min_prio && fbinder_prio_higher(&t->node->min_prio,
							 &tk->prio))
		tk->prio = t->node->min_prio;
	t->prio_raised = !fbinder_prio_equal(&tk->prio, &t->saved_prio);
	tk->raise = t->prio_raised;
	t->to_thread = thread;
	t->to_parent = thread->stack;
	tk->handled = true;
	thread->stack = t;
	return true;
}

/*
 * The oneway batch the taken work began ends with it: its node's pin goes
 * under the context lock (the node is the context's own), unless it is
 * the node's last reference, left in *last for fbinder_node_drop() once
 * the caller dropped the lock.
 */
static void fbinder_taken_unpin_batch_clocked(struct fbinder_thread *thread,
					      struct fbinder_taken *tk,
					      struct fbinder_node **batch,
					      struct fbinder_node **last)
{
	lockdep_assert_held(&thread->ctx->lock);
	if (!tk->pinned_batch)
		return;
	if (!fbinder_node_unpin_clocked(thread->ctx, *batch))
		*last = *batch;
	*batch = NULL;
	tk->pinned_batch = false;
}

/*
 * Undoes fbinder_take_work_clocked() for any work but a death notice:
 * every change recorded in tk, then the work goes back to the head of its
 * list.  *last as for fbinder_taken_unpin_batch_clocked().
 */
static void fbinder_untake_work_clocked(struct fbinder_thread *thread,
					struct fbinder_taken *tk, struct fbinder_node **batch,
					struct fbinder_node **last)
{
	struct fbinder_txn *t;

	lockdep_assert_held(&thread->ctx->lock);
	thread->stack = tk->old_stack;
	fbinder_taken_unpin_batch_clocked(thread, tk, batch, last);
	if (tk->counted) {
		t = container_of(tk->work, struct fbinder_txn, work);
		if (tk->handled) {
			t->to_thread = NULL;
			t->to_parent = NULL;
		}
		if (tk->async_out)
			t->node->async_out--;
		fbinder_txn_count_clocked(t, 1);
	}
	list_add(&tk->work->entry, tk->list);
}

bool fbinder_thread_has_work_clocked(struct fbinder_thread *thread)
{
	struct list_head *list;

	lockdep_assert_held(&thread->ctx->lock);
	return fbinder_pick_work_clocked(thread, NULL, &list);
}

/*
 * FBINDER_CMD_ABANDON: the thread stops waiting for the reply to the call it
 * made last (a library's timeout).  The call goes on without a caller, as
 * if the caller had exited: its reply or failure is dropped.  Work of the
 * call already queued to the thread must be read first (EBUSY), so no
 * reply and no call routed back is lost.
 */
int fbinder_abandon_call(struct fbinder_thread *thread)
{
	struct fbinder_txn *t;
	struct fbinder_work *work;
	int ret = 0;

	spin_lock(&thread->ctx->lock);
	t = thread->stack;
	if (!t || t->from != thread) {
		ret = -EINVAL;
		goto out;
	}
	list_for_each_entry(work, &thread->todo, entry) {
		if (fbinder_work_ready(thread, work)) {
			ret = -EBUSY;
			goto out;
		}
	}
	thread->stack = t->from_parent;
	/* a route may be reading them (fbinder_route_clocked()) */
	WRITE_ONCE(t->from, NULL);
	WRITE_ONCE(t->from_parent, NULL);
	fbinder_stat_inc(FBINDER_STAT_ABANDONED);
out:
	spin_unlock(&thread->ctx->lock);
	return ret;
}

/*
 * The return reached user space: let go of what it was made from.  A
 * release notice frees its node, under the device lock (fbinder_read());
 * the rest under the context's.
 */
static void fbinder_finish_work_clocked(struct fbinder_thread *thread,
					struct fbinder_work *work)
{
	struct fbinder_txn *t;

	lockdep_assert_held(&thread->ctx->lock);
	switch (work->type) {
	case FBINDER_WORK_FAILED:
		fbinder_txn_free(container_of(work, struct fbinder_txn, work));
		return;
	default:
		break;
	}
	t = container_of(work, struct fbinder_txn, work);
	if (t->is_reply) {
		fbinder_txn_free(t->call);
		fbinder_txn_free(t);
	} else if (t->flags & FBINDER_TXN_ONEWAY) {
		fbinder_txn_free(t);
	}
}

static int fbinder_put_ret(struct fbinder_write_read *wr, const struct fbinder_ret *ret)
{
	u8 __user *p = u64_to_user_ptr(wr->read_buffer + wr->read_consumed);
	unsigned long left;

	if (put_user(ret->cmd, (u32 __user *)p))
		return -EFAULT;
	/*
	 * A message with a constant size: a copy of a variable size runs the
	 * hardened-usercopy check of its (stack) source on every return.
	 */
	if (ret->cmd == FBINDER_RET_TRANSACTION || ret->cmd == FBINDER_RET_REPLY)
		left = copy_to_user(p + sizeof(ret->cmd), &ret->u.msg,
				    sizeof(ret->u.msg));
	else
		left = copy_to_user(p + sizeof(ret->cmd), &ret->u,
				    _IOC_SIZE(ret->cmd));
	if (left)
		return -EFAULT;
	wr->read_consumed += sizeof(ret->cmd) + _IOC_SIZE(ret->cmd);
	return 0;
}

/*
 * Sleeps until work may be there.  Called with the context lock held,
 * right where the caller found nothing to take, and returns with it held
 * again, so a wait costs one lock round trip on each side of the sleep.
 */
static int fbinder_wait_crelock(struct fbinder_thread *thread)
	__must_hold(&thread->ctx->lock)
{
	struct fbinder_ctx *ctx = thread->ctx;
	DEFINE_WAIT(wait);
	bool ctx_work;

	lockdep_assert_held(&ctx->lock);
	ctx_work = fbinder_thread_wants_ctx_work(thread);
	if (ctx_work)
		list_add(&thread->waiting_entry, &ctx->waiting);
	prepare_to_wait(&thread->wait, &wait, TASK_INTERRUPTIBLE);
	spin_unlock(&ctx->lock);

	fbinder_timed_void(FBINDER_SEC_SLEEP, schedule());
	finish_wait(&thread->wait, &wait);

	spin_lock(&ctx->lock);
	list_del_init(&thread->waiting_entry);
	if (thread->kicked) {
		thread->kicked = false;
		return -EAGAIN;
	}
	if (signal_pending(current)) {
		/* pass on a wake-up meant for any thread */
		struct fbinder_thread *idle;

		idle = list_first_entry_or_null(&ctx->waiting, struct fbinder_thread,
						waiting_entry);
		if (ctx_work && idle && !list_empty(&ctx->todo)) {
			list_del_init(&idle->waiting_entry);
			wake_up_interruptible(&idle->wait);
		}
		return -EINTR;
	}
	return 0;
}

/* Asks for one more pool thread when this one goes busy and none is idle. */
static void fbinder_maybe_spawn(struct fbinder_thread *thread, struct fbinder_write_read *wr)
{
	struct fbinder_ctx *ctx = thread->ctx;
	u32 cmd = FBINDER_RET_SPAWN_LOOPER;
	bool spawn;

	if (wr->read_size - wr->read_consumed < sizeof(cmd))
		return;
	/*
	 * Only pool threads ask, and only when the pool may grow: looper is
	 * the thread's own (written by its own commands), and a stale
	 * max_threads only delays a request to the next read.
	 */
	if (!(thread->looper & (FBINDER_LOOPER_REGISTERED | FBINDER_LOOPER_ENTERED)) ||
	    !READ_ONCE(ctx->max_threads))
		return;
	spin_lock(&ctx->lock);
	spawn = !ctx->requested_threads && list_empty(&ctx->waiting) &&
		ctx->started_threads < ctx->max_threads &&
		(thread->looper & (FBINDER_LOOPER_REGISTERED | FBINDER_LOOPER_ENTERED));
	if (spawn)
		ctx->requested_threads++;
	spin_unlock(&ctx->lock);
	if (!spawn)
		return;
	if (put_user(cmd, (u32 __user *)u64_to_user_ptr(wr->read_buffer +
							wr->read_consumed))) {
		spin_lock(&ctx->lock);
		ctx->requested_threads--;
		spin_unlock(&ctx->lock);
		return;
	}
	wr->read_consumed += sizeof(cmd);
	fbinder_stat_inc(FBINDER_STAT_SPAWN_REQUESTS);
	trace_fastbinder_spawn_looper(ctx);
}

/*
 * The return of taken work could not be copied out: the work goes back.  A
 * message's needs the context lock alone.  A death notice's state is the
 * one change tk cannot undo: another thread may have unlinked it meanwhile
 * and freed tk->work, so its link is found again by its cookie, in the
 * holder's links, which the device lock guards.
 */
static void fbinder_untake_work(struct fbinder_thread *thread, struct fbinder_taken *tk,
				struct fbinder_node **batch, const struct fbinder_ret *ret)
{
	struct fbinder_ctx *ctx = thread->ctx;
	struct fbinder_node *last = NULL;

	if (ret->cmd == FBINDER_RET_DEAD) {
		spin_lock(&ctx->dev->lock);
		spin_lock(&ctx->lock);
		fbinder_death_requeue_locked(ctx, ret->u.cookie);
		spin_unlock(&ctx->lock);
		spin_unlock(&ctx->dev->lock);
		return;
	}
	spin_lock(&ctx->lock);
	fbinder_untake_work_clocked(thread, tk, batch, &last);
	spin_unlock(&ctx->lock);
	if (last)
		fbinder_node_drop(last, false);
}

/*
 * A taken call or oneway message goes: the thread's state as before.  A
 * call is returned, let go of by its handler, for the caller to fail to
 * its own caller once it dropped the lock (fbinder_call_fail()); *last as
 * for fbinder_taken_unpin_batch_clocked().
 */
static struct fbinder_txn *fbinder_drop_taken_clocked(struct fbinder_thread *thread,
						      struct fbinder_taken *tk,
						      struct fbinder_node **batch,
						      struct fbinder_node **last)
{
	struct fbinder_txn *t = container_of(tk->work, struct fbinder_txn,
						work);

	lockdep_assert_held(&thread->ctx->lock);
	thread->stack = tk->old_stack;
	fbinder_taken_unpin_batch_clocked(thread, tk, batch, last);
	if (t->flags & FBINDER_TXN_ONEWAY) {
		fbinder_txn_free(t);
		return NULL;
	}
	t->to_thread = NULL;
	t->to_parent = NULL;
	fbinder_call_done_clocked(t);
	if (t->buffer) {
		t->buffer->txn = NULL;
		t->buffer = NULL;
	}
	return t;
}

/* fbinder_deliver(): the message is gone, nothing was returned for it. */
#define FBINDER_DROPPED	1

/*
 * The message's descriptors cannot be installed in this process (EMFILE:
 * its table is full, or no memory).  Put back at the head of its queue it
 * would fail every read and hold up everything behind it for good, so it
 * is not delivered at all: a call fails to its caller with the error, a
 * oneway message is dropped, both recorded in debugfs "failed", and the
 * reading thread goes on to the next work (FBINDER_DROPPED).  A reply ends its
 * call here: the very thread that waits for it reads FBINDER_RET_FAILED with
 * the error instead (0).  The buffer is freed in every case.
 */
static int fbinder_undeliverable(struct fbinder_thread *thread, struct fbinder_write_read *wr,
				 struct fbinder_taken *tk, struct fbinder_ret *ret,
				 struct fbinder_node **batch, int error)
{
	struct fbinder_txn *t = container_of(tk->work, struct fbinder_txn,
						work);
	struct fbinder_buffer *buf = tk->buffer;
	struct fbinder_node *last = NULL;
	struct fbinder_txn *call = NULL;
	bool reply = t->is_reply;
	struct fbinder_ret failed;
	int err;

	if (reply) {
		failed.cmd = FBINDER_RET_FAILED;
		failed.u.err.txn_id = t->id;
		failed.u.err.error = error;
		failed.u.err.reserved = 0;
		err = fbinder_put_ret(wr, &failed);
		if (err) {
			fbinder_untake_work(thread, tk, batch, ret);
			return err;
		}
		*ret = failed;
	}
	/* a message's node is the reader's own, pinned by the buffer */
	fbinder_record_failure_pid(error, FBINDER_FAILED_DELIVER, t->sender_pid,
				   t->sender_euid, t->node ? thread->ctx : NULL,
				   t->node, t->code);
	spin_lock(&thread->ctx->lock);
	if (reply) {
		/* fbinder_finish_work_clocked() frees the reply and its call */
		t->buffer = NULL;
		fbinder_stat_inc(FBINDER_STAT_DEAD_REPLIES);
	} else {
		call = fbinder_drop_taken_clocked(thread, tk, batch, &last);
	}
	spin_unlock(&thread->ctx->lock);
	if (call)
		fbinder_call_fail(call, error);
	if (last)
		fbinder_node_drop(last, false);
	fbinder_buffer_discard(thread->ctx, buf);
	tk->buffer = NULL;
	return reply ? 0 : FBINDER_DROPPED;
}

/*
 * Hands a taken work item to user space: reserves descriptors for the
 * files it carries, copies the return out, then commits (installs the
 * files, adjusts the priority).  If the copy faults, the work goes back
 * where it was; a message whose descriptors do not fit is not delivered
 * (fbinder_undeliverable()).  The caller lets go of the work
 * (fbinder_finish_work_clocked) under its next hold of the context lock, and
 * then lets user space free the buffer (fbinder_own_buffers).  Returns 0,
 * FBINDER_DROPPED or a negative errno.
 */
static int fbinder_deliver(struct fbinder_thread *thread, struct fbinder_write_read *wr,
			   struct fbinder_taken *tk, struct fbinder_ret *ret,
			   struct fbinder_node **batch)
{
	struct fbinder_ctx *ctx = thread->ctx;
	int *fdnums = NULL;
	int err;

	/* most messages carry no files: no call for them */
	if (tk->buffer && tk->buffer->nr_fds) {
		err = fbinder_fds_reserve(&ctx->alloc, tk->buffer, &fdnums);
		if (err)
			return fbinder_undeliverable(thread, wr, tk, ret, batch,
						     err);
	}
	err = fbinder_put_ret(wr, ret);
	if (err) {
		if (fdnums)
			fbinder_fds_unreserve(fdnums, tk->buffer->nr_fds);
		fbinder_untake_work(thread, tk, batch, ret);
		return err;
	}
	if (tk->buffer)
		fbinder_fds_install(tk->buffer, fdnums);
	trace_fastbinder_received(ret->cmd, &ret->u.msg);
	trace_fastbinder_dead(ret->cmd, ret->u.cookie);
	if (tk->raise) {
		/* the context's release may have to lower it, from elsewhere */
		if (thread->task != current) {
			if (thread->task)
				put_task_struct(thread->task);
			thread->task = get_task_struct(current);
		}
		if (ret->cmd == FBINDER_RET_TRANSACTION &&
		    ret->u.msg.flags & FBINDER_TXN_ONEWAY &&
		    !thread->oneway_prio_set) {
			fbinder_prio_of_current(&thread->oneway_saved);
			thread->oneway_prio_set = true;
		}
		fbinder_prio_raise_current(&tk->prio);
	}
	return 0;
}

/* Buffers delivered by one read, handed to user space together. */
#define FBINDER_READ_BATCH	32

/*
 * Delivered buffers become user space's to free, once the transactions they
 * came with are finished: nothing points at them any more when a free from
 * another thread may take them.
 */
static void fbinder_own_buffers(struct fbinder_ctx *ctx, struct fbinder_buffer **bufs,
				u32 *nr)
{
	if (!*nr)
		return;
	fbinder_alloc_deliver(&ctx->alloc, bufs, *nr);
	*nr = 0;
}

/*
 * A release notice reached its owner: the node goes, under the device lock
 * (its tree, the owner's counts).  Nothing else reaches it any more.
 */
static void fbinder_finish_release(struct fbinder_ctx *ctx, struct fbinder_work *work)
{
	spin_lock(&ctx->dev->lock);
	fbinder_node_notice_done_locked(container_of(work, struct fbinder_node, work));
	spin_unlock(&ctx->dev->lock);
}

/*
 * Fills the read stream.  Each pass of the loop holds the context lock
 * once: it finishes the work delivered by the previous pass, picks and
 * takes the next (or sleeps right there when there is none), and drops the
 * lock to copy the return out.  A read that ends with a call skips the
 * pass that would only find it needs no finishing.
 */
static int fbinder_read(struct fbinder_thread *thread, struct fbinder_write_read *wr,
			bool nonblock)
{
	struct fbinder_ctx *ctx = thread->ctx;
	u64 start = wr->read_consumed;
	/* only the nr_owned entries set are used: no INIT_STACK_ALL_ZERO */
	struct fbinder_buffer *owned[FBINDER_READ_BATCH] __uninitialized;
	struct fbinder_work *done = NULL;
	struct fbinder_node *batch = NULL;
	bool stop = false, more = false;
	/*
	 * Both set whole by fbinder_pick_work_clocked() and
	 * fbinder_take_work_clocked() before any use, every byte copied out
	 * included: no INIT_STACK_ALL_ZERO.
	 */
	struct fbinder_taken tk __uninitialized;
	struct fbinder_ret ret __uninitialized;
	u32 nr_owned = 0;
	int err = 0;

	if (wr->read_size - wr->read_consumed < FBINDER_READ_MIN)
		return -EINVAL;
	/* a oneway message's raised priority lasts until the next read */
	if (thread->oneway_prio_set) {
		fbinder_prio_restore(current, &thread->oneway_saved);
		thread->oneway_prio_set = false;
	}
	for (;;) {
		/*
		 * Every pass, the first too: right after a send woke its
		 * peer, the peer may run here, before this thread waits, and
		 * its next message then finds this thread runnable instead of
		 * asleep: no wake-up.  docs/performance.md has what skipping
		 * it on the first pass cost.
		 */
		fbinder_timed_void(FBINDER_SEC_RESCHED, cond_resched());
		if (done && done->type == FBINDER_WORK_RELEASE) {
			fbinder_finish_release(ctx, done);
			done = NULL;
		}
		spin_lock(&ctx->lock);
		if (done) {
			fbinder_timed_void(FBINDER_SEC_FINISH,
					   fbinder_finish_work_clocked(thread, done));
			done = NULL;
		}
		if (stop || wr->read_size - wr->read_consumed < FBINDER_READ_MIN)
			break;
		/* a large read buffer does not keep a signal waiting either */
		if (wr->read_consumed != start && signal_pending(current))
			break;
		/* after a oneway message, only more of the same node's */
		if (more && list_empty(&batch->async_todo))
			break;
		tk.work = fbinder_pick_work_clocked(thread, batch, &tk.list);
		while (!tk.work && wr->read_consumed == start) {
			if (nonblock) {
				err = -EAGAIN;
				break;
			}
			err = fbinder_wait_crelock(thread);
			if (err)
				break;
			tk.work = fbinder_pick_work_clocked(thread, batch, &tk.list);
		}
		if (!tk.work)
			break;
		stop = fbinder_timed(FBINDER_SEC_TAKE,
				     fbinder_take_work_clocked(thread, &tk, &batch, &ret));
		spin_unlock(&ctx->lock);

		/* every owned buffer's work was finished above */
		if (nr_owned == FBINDER_READ_BATCH)
			fbinder_own_buffers(ctx, owned, &nr_owned);
		err = fbinder_timed(FBINDER_SEC_DELIVER,
				    fbinder_deliver(thread, wr, &tk, &ret, &batch));
		if (err == FBINDER_DROPPED) {
			/* as if it never came: on to the next work */
			err = 0;
			stop = false;
			continue;
		}
		if (err) {
			spin_lock(&ctx->lock);
			break;
		}
		/*
		 * A death notice stays with its link until FBINDER_CMD_DEATH_DONE,
		 * which another thread may already have sent: do not touch it.
		 */
		if (ret.cmd != FBINDER_RET_DEAD)
			done = tk.work;
		if (tk.buffer)
			owned[nr_owned++] = tk.buffer;
		more = ret.cmd == FBINDER_RET_TRANSACTION && batch && !stop;
		/*
		 * The read ends with a call, whose work stays on the stack
		 * with nothing to finish: no last pass under the lock.
		 */
		if (stop && tk.handled && !batch)
			goto unlocked;
	}
	if (batch && fbinder_node_put_fast_clocked(batch, &batch->tmp_refs))
		batch = NULL;
	spin_unlock(&ctx->lock);
	if (batch)
		fbinder_node_drop(batch, false);
unlocked:
	fbinder_own_buffers(ctx, owned, &nr_owned);
	if (wr->read_consumed != start)
		fbinder_maybe_spawn(thread, wr);
	return wr->read_consumed != start ? 0 : err;
}

int fbinder_write_read(struct fbinder_thread *thread, unsigned long arg, bool nonblock)
{
	struct fbinder_write_read __user *ubuf = (void __user *)arg;
	/* copied in whole before any use: no INIT_STACK_ALL_ZERO */
	struct fbinder_write_read wr __uninitialized;
	int ret = 0;

	if (copy_from_user(&wr, ubuf, sizeof(wr)))
		return -EFAULT;
	if (wr.write_consumed > wr.write_size ||
	    wr.read_consumed > wr.read_size)
		return -EINVAL;
	if (wr.write_size > wr.write_consumed)
		ret = fbinder_write(thread, &wr);
	/* a read's failure says more than the write's FBINDER_WR_FROZEN */
	if (ret >= 0 && wr.read_size > wr.read_consumed)
		ret = fbinder_timed(FBINDER_SEC_READ,
				    fbinder_read(thread, &wr, nonblock)) ?: ret;
	/* back: only the two fields a call changes */
	if (put_user(wr.write_consumed, &ubuf->write_consumed) ||
	    put_user(wr.read_consumed, &ubuf->read_consumed))
		return -EFAULT;
	return ret;
}
