// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: transactions.
 *
 * A send resolves its target under its own context's lock, then the
 * target's, and pins what it needs (fbinder_send_prepare()), then drops
 * them to reserve a slot in the target's buffer, copy the payload once from
 * the sender's memory and translate the objects in it (fbinder_send_copy(),
 * xlate.c).  It takes the target's lock again to commit: queue the work and
 * wake one thread (fbinder_send_commit()).  A failure at any step goes to
 * the one undo, fbinder_send_abort(), which gives back every reference
 * taken, so a failed command leaves no trace.
 *
 * Transaction stacks: a thread's stack links the calls it handles
 * (to_thread == thread, next is to_parent) and the call it awaits
 * (from == thread, next is from_parent).  A call made while handling
 * another goes to a thread of the target process that is already in the
 * chain, if there is one: that thread waits for a reply and so is idle.
 *
 * Fair share.  A receiver's queue (FBINDER_MAX_QUEUED calls and oneway
 * messages), its buffer and the oneway half of it are shared among the
 * users that send to it (struct fbinder_sender, by euid: an unprivileged user
 * can open any number of contexts and processes, but not get more uids).
 * A message is accepted only if what its user holds there afterwards is no
 * more than was free for everyone before it, and, in the oneway half, no
 * more than half of what the other users leave of it: alone, a user gets
 * half of the queue, about half of the buffer and a quarter of it in
 * oneway messages (binder flags a oneway "spammer" at about half the
 * oneway space, but lets it go on), and however many users flood, a
 * newcomer still finds room.  And across receivers: the slots a sending
 * user's messages hold in contexts of other users (opened with another
 * euid) count in its fbinder_user.sent, which may not pass half of
 * max_user_pages (-EDQUOT), so one sender cannot take a receiving user to
 * its page cap and keep that user's other contexts from everyone.  The
 * count is taken before the slot is (so a refused sender costs nothing),
 * released as the message is read and as its slot is freed.  Replies
 * are never counted nor refused for it: each answers a call the receiver
 * made itself, so it bounds them.
 */
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "internal.h"
#include "stats.h"
#include "trace.h"
#include "txn_pool.h"
#include "xlate.h"

/*
 * Transaction ids, unique in the module (uapi): each CPU numbers its own
 * sends, and the id is that number times nr_cpu_ids plus the CPU's, so no
 * two CPUs make the same one and no send writes another CPU's cache line.
 * 2^64 / nr_cpu_ids ids a CPU: decades at millions of calls a second.
 */
static DEFINE_PER_CPU(u64, fbinder_txn_seq);

static u64 fbinder_txn_new_id(void)
{
	int cpu = get_cpu();
	u64 seq = __this_cpu_inc_return(fbinder_txn_seq);

	put_cpu();
	return seq * nr_cpu_ids + cpu;
}

/*
 * Once nothing points at t any more: with the lock of its receiver
 * (to_ctx) held if it still names a buffer there.  It goes back to a
 * spare pool (txn_pool.c); a call a route may still be reading
 * (chained: fbinder_route_clocked()) after a grace period instead.
 */
void fbinder_txn_free(struct fbinder_txn *t)
{
	if (t->buffer)
		t->buffer->txn = NULL;
	if (t->to_ctx)
		fbinder_ctx_put(t->to_ctx);
	if (t->from_ctx)
		fbinder_ctx_put(t->from_ctx);
	put_pid(t->sender_pid);
	fbinder_stat_dec(FBINDER_STAT_LIVE_TRANSACTIONS);
	if (unlikely(t->chained))
		kfree_rcu(t, rcu);
	else if (!fbinder_txn_spare_put(t))
		kfree(t);
}

#define fbinder_sender_of(n)	rb_entry((n), struct fbinder_sender, rb_node)

/* ctx->senders: by uid */
static int fbinder_sender_find_cmp(const void *uid, const struct rb_node *n)
{
	return fbinder_cmp(__kuid_val(*(const kuid_t *)uid),
			   __kuid_val(fbinder_sender_of(n)->uid));
}

static int fbinder_sender_add_cmp(struct rb_node *a, const struct rb_node *b)
{
	return fbinder_cmp(__kuid_val(fbinder_sender_of(a)->uid),
			   __kuid_val(fbinder_sender_of(b)->uid));
}

/* A sender record goes, with its count on its user. */
static void fbinder_sender_free(struct fbinder_sender *s)
{
	if (!s)
		return;
	fbinder_user_put(s->user);
	kfree(s);
}

/*
 * The record of the sending user uid in ctx: the one in the tree, else
 * *spare (which holds uid's fbinder_user when ctx is another user's) put
 * in.  NULL when there is neither: the idle record of another user is not
 * taken over, as its fbinder_user is not uid's.
 */
static struct fbinder_sender *fbinder_sender_get_clocked(struct fbinder_ctx *ctx, kuid_t uid,
							 struct fbinder_sender **spare)
{
	struct fbinder_sender *s;
	struct rb_node *n;

	lockdep_assert_held(&ctx->lock);
	n = rb_find(&uid, &ctx->senders, fbinder_sender_find_cmp);
	if (n) {
		s = fbinder_sender_of(n);
		if (s == ctx->idle_sender)
			ctx->idle_sender = NULL;
		return s;
	}
	s = *spare;
	if (!s)
		return NULL;
	*spare = NULL;
	s->uid = uid;
	rb_find_add(&s->rb_node, &ctx->senders, fbinder_sender_add_cmp);
	return s;
}

/*
 * Takes back what a message counted.  A record that holds nothing stays in
 * the tree as the context's one idle record, and the one idle before goes:
 * a sender that calls again and again would otherwise put its record in
 * and take it out of the tree on every call.
 */
static void fbinder_share_uncharge_clocked(struct fbinder_ctx *ctx, struct fbinder_sender *s,
					   u32 queued, size_t bytes, bool oneway)
{
	lockdep_assert_held(&ctx->lock);
	s->queued -= queued;
	ctx->senders_queued -= queued;
	s->bytes -= bytes;
	ctx->senders_bytes -= bytes;
	if (bytes && s->user)
		fbinder_user_uncharge_sent(s->user, bytes);
	if (oneway) {
		s->oneway -= bytes;
		ctx->senders_oneway -= bytes;
	}
	if (s->queued || s->bytes || s == ctx->idle_sender)
		return;
	if (ctx->idle_sender) {
		rb_erase(&ctx->idle_sender->rb_node, &ctx->senders);
		fbinder_sender_free(ctx->idle_sender);
	}
	ctx->idle_sender = s;
}

/*
 * The fair-share rule (top of file) for a message of size bytes from the
 * sending user s: -EDQUOT over its share of the queue, -ENOSPC of the
 * buffer or of the oneway half.  In the oneway half a user may hold no
 * more than half of what the other users leave of it, whatever the size
 * of its messages: alone a quarter of the buffer, so one big message
 * cannot take the whole half from the others; a oneway message bigger
 * than that quarter never fits (-EMSGSIZE).  A message too big for the
 * buffer at all passes, for fbinder_alloc_new() to say -EMSGSIZE (or
 * -ESRCH, unmapped).
 */
static int fbinder_share_check_clocked(struct fbinder_ctx *ctx, struct fbinder_sender *s,
				       size_t size, bool oneway)
{
	size_t map = fbinder_alloc_size(&ctx->alloc), half = map / 2, others;

	lockdep_assert_held(&ctx->lock);
	if (s->queued >= FBINDER_MAX_QUEUED - ctx->senders_queued)
		return -EDQUOT;
	if (size > map || (oneway && size > half))
		return 0;
	if (oneway && size > half / 2)
		return -EMSGSIZE;
	if (s->bytes + size > map - min(map, ctx->senders_bytes))
		return -ENOSPC;
	others = ctx->senders_oneway - s->oneway;
	if (oneway && s->oneway + size > (half - min(half, others)) / 2)
		return -ENOSPC;
	return 0;
}

/*
 * Counts a message from the sending user uid to "to" in its fair share,
 * leaving its record in *sender.  Drops the target's lock to allocate a
 * record when the user has none there; the caller is one of the target's
 * active senders, so a release waits for it.
 */
static int fbinder_share_charge_crelock(struct fbinder_ctx *to, kuid_t uid, size_t size,
					bool oneway, struct fbinder_sender **sender)
	__must_hold(&to->lock)
{
	struct fbinder_sender *s, *spare = NULL;
	int ret;

	lockdep_assert_held(&to->lock);
	for (;;) {
		if (to->dead) {
			fbinder_sender_free(spare);
			return -EOWNERDEAD;
		}
		s = fbinder_sender_get_clocked(to, uid, &spare);
		if (s)
			break;
		spin_unlock(&to->lock);
		spare = kzalloc(sizeof(*spare), GFP_KERNEL_ACCOUNT);
		/* to->euid is fixed from the open on */
		if (spare && !uid_eq(uid, to->euid)) {
			spare->user = fbinder_user_get(uid);
			if (!spare->user) {
				kfree(spare);
				spare = NULL;
			}
		}
		spin_lock(&to->lock);
		if (!spare)
			return -ENOMEM;
	}
	fbinder_sender_free(spare);
	ret = fbinder_share_check_clocked(to, s, size, oneway);
	/* and the sending user's bytes in other users' receivers together */
	if (!ret && s->user && !fbinder_user_charge_sent(s->user, size))
		ret = -EDQUOT;
	if (ret) {
		fbinder_share_uncharge_clocked(to, s, 0, 0, false);
		return ret;
	}
	s->queued++;
	to->senders_queued++;
	s->bytes += size;
	to->senders_bytes += size;
	if (oneway) {
		s->oneway += size;
		to->senders_oneway += size;
	}
	*sender = s;
	return 0;
}

/* t joins (+1) or leaves (-1) its receiver's queue: its counts follow. */
void fbinder_txn_count_clocked(struct fbinder_txn *t, int delta)
{
	struct fbinder_sender *s = t->buffer ? t->buffer->sender : NULL;

	lockdep_assert_held(&t->to_ctx->lock);
	t->to_ctx->nr_queued += delta;
	if (s) {
		s->queued += delta;
		t->to_ctx->senders_queued += delta;
	}
}

/* The context is gone and so are its buffers: forget who held them. */
void fbinder_ctx_drop_senders_relock(struct fbinder_ctx *ctx, struct fbinder_hold *b)
	__must_hold(&ctx->dev->lock)
{
	struct fbinder_sender *s;
	struct rb_node *rb;

	lockdep_assert_held(&ctx->dev->lock);
	lockdep_assert_held(&ctx->lock);
	ctx->idle_sender = NULL;
	while ((rb = rb_first(&ctx->senders))) {
		rb_erase(rb, &ctx->senders);
		s = rb_entry(rb, struct fbinder_sender, rb_node);
		if (s->user)
			fbinder_user_uncharge_sent(s->user, s->bytes);
		fbinder_sender_free(s);
		fbinder_hold_step_crelock(b);
	}
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
 * Under the caller's lock: a call ends with error, and its caller gets
 * FBINDER_RET_FAILED, unless it gave up on the call (from cleared under
 * this lock).  False when nothing was queued (error 0, or no caller): the
 * call is then the caller's to free.
 */
static bool fbinder_call_fail_clocked(struct fbinder_txn *call, int error)
{
	lockdep_assert_held(&call->from_ctx->lock);
	if (!error || !call->from)
		return false;
	call->work.type = FBINDER_WORK_FAILED;
	call->error = error;
	fbinder_stat_inc(FBINDER_STAT_DEAD_REPLIES);
	fbinder_thread_enqueue_clocked(call->from, &call->work, false);
	return true;
}

/*
 * Tell a waiting caller its call ended without a reply.  The handler's
 * context lock is held (its buffer, its stack); the caller's is taken
 * inside it, which only a holder of the device lock may do (internal.h).
 */
void fbinder_txn_fail_locked(struct fbinder_txn *call, int error)
{
	struct fbinder_ctx *caller = call->from_ctx;
	bool queued;

	lockdep_assert_held(&call->to_ctx->dev->lock);
	lockdep_assert_held(&call->to_ctx->lock);
	if (call->buffer) {
		call->buffer->txn = NULL;
		call->buffer = NULL;
	}
	spin_lock_nested(&caller->lock, SINGLE_DEPTH_NESTING);
	queued = fbinder_call_fail_clocked(call, error);
	spin_unlock(&caller->lock);
	if (!queued)
		fbinder_txn_free(call);
}

/*
 * The same for a call its handler already let go of
 * (fbinder_reply_pop_clocked(), a failed delivery): only its caller's side
 * is left to change, so no lock is held; error 0 only frees it.
 */
void fbinder_call_fail(struct fbinder_txn *call, int error)
{
	struct fbinder_ctx *caller = call->from_ctx;
	bool queued;

	spin_lock(&caller->lock);
	queued = fbinder_call_fail_clocked(call, error);
	spin_unlock(&caller->lock);
	if (!queued)
		fbinder_txn_free(call);
}

/*
 * Work taken off a todo list of a context or thread that is going away: a
 * call fails to its caller, the rest is freed.  Returns the buffer its
 * message was in (in t->to_ctx's), unlinked, or NULL: the caller frees it
 * (fbinder_buffer_discard()) once it dropped the lock, unless that context
 * ended (its buffers go with it).
 */
struct fbinder_buffer *fbinder_txn_discard_locked(struct fbinder_txn *t)
{
	struct fbinder_buffer *buf = t->buffer;

	lockdep_assert_held(&t->to_ctx->dev->lock);
	/* a failure waits on its caller's list: the caller's lock is held */
	if (t->work.type == FBINDER_WORK_FAILED) {
		fbinder_txn_free(t);
		return NULL;
	}
	lockdep_assert_held(&t->to_ctx->lock);
	fbinder_txn_count_clocked(t, -1);
	if (buf) {
		buf->txn = NULL;
		t->buffer = NULL;
	}
	if (t->is_reply) {
		fbinder_txn_free(t->call);
		fbinder_txn_free(t);
	} else if (!(t->flags & FBINDER_TXN_ONEWAY)) {
		fbinder_call_done_clocked(t);
		fbinder_txn_fail_locked(t, -EOWNERDEAD);
	} else {
		fbinder_txn_free(t);
	}
	return buf;
}

/*
 * The thread is going away: calls it handles fail to their callers, and
 * replies to calls it awaits will be dropped.  Both links of a call it
 * awaits go: the call it handled below it is failed and freed here, and a
 * nested call routed from the awaited call's handler must not walk into
 * it (fbinder_route_clocked).
 */
void fbinder_thread_unwind_locked(struct fbinder_thread *thread)
{
	struct fbinder_txn *t = thread->stack, *next;

	lockdep_assert_held(&thread->ctx->dev->lock);
	lockdep_assert_held(&thread->ctx->lock);
	while (t) {
		next = fbinder_stack_next(thread, t);
		if (t->to_thread == thread) {
			t->to_thread = NULL;
			t->to_parent = NULL;
			fbinder_call_done_clocked(t);
			fbinder_txn_fail_locked(t, -EOWNERDEAD);
		} else {
			WRITE_ONCE(t->from, NULL);
			WRITE_ONCE(t->from_parent, NULL);
		}
		t = next;
	}
	thread->stack = NULL;
}

/*
 * A thread of target already in the chain of the call a thread handles
 * (below, its stack under the call it sends now),
 * which waits for the reply to its call there.  The chain crosses other
 * contexts, whose threads may give up their calls meanwhile
 * (fbinder_abandon_call(), their end): it is read under RCU (internal.h,
 * Locking).  A thread of target found waits there: its call's caller
 * fields change under target's lock, held.
 */
static struct fbinder_thread *fbinder_route_clocked(struct fbinder_txn *below,
						    struct fbinder_ctx *target)
{
	struct fbinder_thread *from = NULL;
	struct fbinder_txn *t;

	lockdep_assert_held(&target->lock);
	rcu_read_lock();
	for (t = below; t; t = READ_ONCE(t->from_parent)) {
		from = READ_ONCE(t->from);
		if (from && from->ctx == target)
			break;
	}
	rcu_read_unlock();
	return t ? from : NULL;
}

/*
 * A new transaction of the calling thread, whose context is from, from the
 * spares or the slab.  No lock held.
 */
static struct fbinder_txn *fbinder_txn_new(struct fbinder_ctx *from,
					   const struct fbinder_txn_data *tr,
					   bool reply)
{
	struct fbinder_txn *t;

	t = fbinder_txn_spare_take();
	if (!t) {
		t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
		if (!t)
			return NULL;
	}
	t->work.type = FBINDER_WORK_TXN;
	INIT_LIST_HEAD(&t->work.entry);
	t->code = tr->code;
	/* the sender's request, not the receiver's business */
	t->flags = tr->flags & ~FBINDER_TXN_FROZEN_REPORT;
	t->is_reply = reply;
	/* the caller's thread group: only it may use from (fbinder_file_ctx()) */
	t->sender_pid = get_pid(from->pid);
	t->sender_euid = current_euid();
	/* only a call's handler inherits (fbinder_take_work_clocked()) */
	if (!reply && !(tr->flags & FBINDER_TXN_ONEWAY))
		fbinder_prio_of_caller(&t->caller_prio);
	fbinder_stat_inc(FBINDER_STAT_LIVE_TRANSACTIONS);
	return t;
}

/*
 * Pops the call the thread is handling, the one a reply answers; NULL when
 * it handles none.  Inline, as the commit below: on every reply's path.
 */
static __always_inline struct fbinder_txn *
fbinder_reply_pop_clocked(struct fbinder_thread *thread)
{
	struct fbinder_txn *call = thread->stack;

	lockdep_assert_held(&thread->ctx->lock);
	if (!call || call->to_thread != thread)
		return NULL;
	thread->stack = call->to_parent;
	call->to_thread = NULL;
	call->to_parent = NULL;
	fbinder_call_done_clocked(call);
	if (call->buffer) {
		call->buffer->txn = NULL;
		call->buffer = NULL;
	}
	return call;
}

/*
 * Queues the finished message: the only step visible to others.  Under
 * the target's context lock; a call the thread sends while it handles
 * another may go to a thread of the chain (fbinder_route_clocked()).
 * *wake is the thread to wake once the lock is dropped
 * (fbinder_ctx_unlock_wake()), or NULL.  Returns 0, an error,
 * or FBINDER_WR_FROZEN: a oneway message queued for a frozen target,
 * which holds it until the thaw (freeze.c).  Inline in both its callers:
 * a call of its own cost every send its frame.
 */
static __always_inline int fbinder_send_commit_clocked(struct fbinder_thread *thread,
						       struct fbinder_txn *t,
						       struct fbinder_thread **wake)
{
	struct fbinder_ctx *target = t->to_ctx;
	struct fbinder_node *node = t->node;
	struct fbinder_thread *to = NULL;
	int frozen = 0;

	lockdep_assert_held(&target->lock);
	if (target->dead)
		return -EOWNERDEAD;
	if (t->is_reply && !t->call->from)
		return -ECONNRESET;
	/* frozen since the target was found: a call fails, a oneway waits */
	if (unlikely(target->frozen) && !t->is_reply)
		frozen = fbinder_frozen_send_clocked(target, t->flags & FBINDER_TXN_ONEWAY);
	if (frozen < 0)
		return frozen;
	/* a call or oneway message was counted in its sender's share */
	target->nr_queued++;

	if (t->is_reply) {
		to = t->call->from;
		fbinder_stat_inc(FBINDER_STAT_REPLIES);
		*wake = fbinder_thread_queue_clocked(to, &t->work);
		return 0;
	}

	t->buffer->target_node = node;
	/* the send's pin becomes the buffer's reference */
	node->buf_refs++;
	node->tmp_refs--;
	node->calls++;
	target->received++;
	if (t->flags & FBINDER_TXN_ONEWAY) {
		fbinder_stat_inc(FBINDER_STAT_ONEWAYS);
		if (node->async_out) {
			list_add_tail(&t->work.entry, &node->async_todo);
		} else {
			node->async_out = 1;
			if (!fbinder_ctx_hold_clocked(target, &t->work))
				*wake = fbinder_ctx_queue_clocked(target, &t->work);
		}
		return frozen;
	}

	fbinder_stat_inc(FBINDER_STAT_CALLS);
	target->calls_in++;
	if (t->from_parent && t->from_parent->to_thread == thread)
		to = fbinder_route_clocked(t->from_parent, target);
	t->buffer->txn = t;
	if (to)
		*wake = fbinder_thread_queue_clocked(to, &t->work);
	else
		*wake = fbinder_ctx_queue_clocked(target, &t->work);
	return 0;
}

struct fbinder_restore_prio {
	bool raised;
	struct fbinder_prio prio;
};

static void fbinder_restore_prio(const struct fbinder_restore_prio *restore)
{
	if (restore->raised)
		fbinder_prio_restore(current, &restore->prio);
}

/*
 * What the thread gets back once it answered (or failed) call, just popped
 * off its stack: its settings from before the call.  A oneway message's
 * raise taken while it handled the call ends with the call too: a read
 * ends such a raise before it takes a call (fbinder_read()), so it can only sit
 * above the call, and must not outlive it.
 */
static void fbinder_reply_restore_clocked(struct fbinder_thread *thread,
					  struct fbinder_txn *call,
					  struct fbinder_restore_prio *restore)
{
	lockdep_assert_held(&thread->ctx->lock);
	restore->raised = false;
	if (thread->oneway_prio_set) {
		restore->raised = true;
		restore->prio = thread->oneway_saved;
		thread->oneway_prio_set = false;
	}
	if (call->prio_raised) {
		restore->raised = true;
		restore->prio = call->saved_prio;
	}
}

/*
 * One FBINDER_CMD_SEND or FBINDER_CMD_REPLY on its way: what fbinder_send_prepare() and
 * fbinder_send_copy() took, for fbinder_send_commit() to hand over to the receiver
 * or fbinder_send_abort() to give back.
 */
struct fbinder_send {
	struct fbinder_thread *thread;
	struct fbinder_txn_data tr;		/* the sender's, read once */
	bool reply;
	bool oneway;
	bool pushed;			/* the call is on the thread's stack */
	bool frozen_report;		/* FBINDER_TXN_FROZEN_REPORT */
	bool counted;			/* in its context's sent */
	size_t offsets_size;		/* bytes */
	struct fbinder_txn *t;	/* once allocated, until queued */
	struct fbinder_xlate x;		/* x.to: the target, once pinned */
	struct fbinder_sender *sender;	/* the fair share it was counted in */
	struct fbinder_buffer *buf;		/* the slot, until queued */
	struct fbinder_restore_prio restore;	/* a replier's own priority */
	struct fbinder_batch *batch;	/* FBINDER_CMD_SEND_BATCH's, read once */
	/* the sender's label, for a node that asks (FBINDER_OBJF_TXN_SECCTX) */
	char *secctx;			/* the LSM's, until copied, or NULL */
	u32 secctx_lsm_len;		/* its length, as the LSM gave it */
	u32 secctx_len;			/* bytes of it before its NUL */
	size_t secctx_size;		/* its place in the slot; 0: none */
	struct fbinder_gather *gather;	/* FBINDER_CMD_SEND_SG's data, read once */
	int error;			/* its iovecs' check, failed before prepare */
};

/* The slot of the message: data, offsets, and the label if any. */
static size_t fbinder_send_slot_size(const struct fbinder_send *s)
{
	return fbinder_alloc_slot_size(s->tr.data_size,
				       s->offsets_size + s->secctx_size);
}

/* Gives the LSM's label back; nothing when there is none. */
static void fbinder_secctx_put(struct fbinder_send *s)
{
	if (!s->secctx)
		return;
	fbinder_secctx_release(s->secctx, s->secctx_lsm_len);
	s->secctx = NULL;
}

/*
 * The sending thread's security label, taken for a target node that asks
 * for it: its place in the slot (struct fbinder_secctx, the label, a NUL,
 * padding to 8 bytes) in secctx_size, and FBINDER_TXN_SECCTX on the
 * message.  No LSM that provides labels: an empty one.  The label is used
 * up to its first NUL within the length the LSM gave, and one of
 * FBINDER_SECCTX_MAX bytes or more (its NUL included) fails the send:
 * a label cut short could read as another.  The LSM may allocate and
 * sleep: no lock held (the target is pinned by then: active_senders, the
 * node's tmp_refs).
 */
static int fbinder_secctx_take(struct fbinder_send *s)
{
	char *label = NULL;
	u32 len = 0;
	int ret;

	ret = fbinder_secctx_get(&label, &len);
	if (ret == -EOPNOTSUPP) {
		label = NULL;
		len = 0;
		ret = 0;
	}
	if (ret)
		return ret;
	s->secctx = label;
	s->secctx_lsm_len = len;
	s->secctx_len = label ? strnlen(label, len) : 0;
	if (s->secctx_len >= FBINDER_SECCTX_MAX)
		return -EMSGSIZE;
	s->secctx_size = sizeof(struct fbinder_secctx) +
			 ALIGN(s->secctx_len + 1, sizeof(u64));
	s->t->flags |= FBINDER_TXN_SECCTX;
	return 0;
}

/*
 * Writes the label taken by fbinder_secctx_take() at pos of the
 * slot, and gives the LSM's copy back.
 */
static int fbinder_secctx_copy(struct fbinder_send *s, struct fbinder_alloc *alloc,
			       struct fbinder_buffer *buf, size_t pos)
{
	struct fbinder_secctx head = { .size = s->secctx_len };
	int ret;

	ret = fbinder_alloc_write(alloc, buf, pos, &head, sizeof(head));
	pos += sizeof(head);
	if (!ret && s->secctx_len)
		ret = fbinder_alloc_write(alloc, buf, pos, s->secctx, s->secctx_len);
	/* the NUL and the padding */
	if (!ret)
		ret = fbinder_alloc_clear(alloc, buf, pos + s->secctx_len,
					  s->secctx_size - sizeof(head) - s->secctx_len);
	fbinder_secctx_put(s);
	return ret;
}

/*
 * A call or oneway message: under the sender's context lock, the handle's
 * node, the sender counted, and a call pushed on its stack; then, under
 * the lock of the node's owner, the node pinned and the target pinned as
 * a sender of it (fbinder_ctx.active_senders).  No lock shared beyond the
 * two: between the two holds the node and its owner may go, so they are
 * read under RCU (both are freed after a grace period), the owner taken
 * only while its count is not zero, and the node checked alive under its
 * owner's lock, which its end and its free take.  There too the message
 * is counted in its sender's fair share.
 */
static int fbinder_send_target(struct fbinder_send *s)
{
	struct fbinder_thread *thread = s->thread;
	struct fbinder_ctx *ctx = thread->ctx, *target = NULL;
	struct fbinder_txn *t = s->t;
	struct fbinder_node *node;
	int ret = 0;

	rcu_read_lock();
	spin_lock(&ctx->lock);
	node = fbinder_handle_to_node_clocked(ctx, s->tr.handle);
	if (!node) {
		ret = -ENOENT;
	} else if (node->region) {
		ret = -EINVAL;	/* a region takes copies, not calls */
	} else {
		target = READ_ONCE(node->owner);
		if (READ_ONCE(node->state) != FBINDER_NODE_LIVE || !target)
			ret = -EOWNERDEAD;
		else if (target == ctx)
			ret = -EINVAL;
		else if (!s->oneway && thread->stack &&
			 thread->stack->to_thread != thread)
			ret = -EPROTO;
		else if (!kref_get_unless_zero(&target->refs))
			ret = -EOWNERDEAD;
	}
	if (!ret) {
		ctx->sent++;
		s->counted = true;
	}
	if (!ret && !s->oneway) {
		kref_get(&ctx->refs);
		t->from_ctx = ctx;
		t->from = thread;
		t->from_parent = thread->stack;
		/* a route may walk into it from t now: it is freed after a grace period */
		if (thread->stack)
			thread->stack->chained = true;
		thread->stack = t;
		s->pushed = true;
	}
	spin_unlock(&ctx->lock);
	if (ret) {
		rcu_read_unlock();
		return ret;
	}
	t->to_ctx = target;	/* its reference, for fbinder_txn_free() */
	spin_lock(&target->lock);
	/* its end and its free take this lock: under it, it is what it was */
	if (target->dead || node->owner != target ||
	    node->state != FBINDER_NODE_LIVE || RB_EMPTY_NODE(&node->rb_node)) {
		spin_unlock(&target->lock);
		rcu_read_unlock();
		return -EOWNERDEAD;
	}
	rcu_read_unlock();
	/* a call to a frozen context fails before any copy */
	if (unlikely(target->frozen) && !s->oneway) {
		ret = fbinder_frozen_send_clocked(target, false);
		spin_unlock(&target->lock);
		return ret;
	}
	node->tmp_refs++;
	t->node = node;
	t->id = fbinder_txn_new_id();
	s->x.to = target;
	target->active_senders++;
	/* the label may sleep: taken with the target pinned, its lock dropped */
	if (unlikely(node->txn_secctx)) {
		spin_unlock(&target->lock);
		ret = fbinder_secctx_take(s);
		spin_lock(&target->lock);
		if (ret) {
			spin_unlock(&target->lock);
			return ret;
		}
	}
	ret = fbinder_share_charge_crelock(target, t->sender_euid,
					   fbinder_send_slot_size(s),
					   s->oneway, &s->sender);
	/* the receiver's choice of descriptors: the node's */
	s->x.fds_ok = node->accepts_fds;
	spin_unlock(&target->lock);
	return ret;
}

/*
 * A reply: under the replier's context lock, the call it answers popped
 * off its stack; then, under the caller's, the caller found waiting and
 * its context pinned as a sender of it.  A reply is not counted in a
 * fair share: it answers a call the receiver made.
 */
static int fbinder_reply_target(struct fbinder_send *s)
{
	struct fbinder_thread *thread = s->thread;
	struct fbinder_ctx *ctx = thread->ctx, *target;
	struct fbinder_txn *t = s->t, *call;

	spin_lock(&ctx->lock);
	call = fbinder_reply_pop_clocked(thread);
	/* the replier gets its own priority back once done */
	if (call)
		fbinder_reply_restore_clocked(thread, call, &s->restore);
	spin_unlock(&ctx->lock);
	if (!call)
		return -EPROTO;
	t->call = call;
	t->id = call->id;
	target = call->from_ctx;
	spin_lock(&target->lock);
	if (!call->from) {
		spin_unlock(&target->lock);
		return -ECONNRESET;	/* caller gone: drop the reply */
	}
	kref_get(&target->refs);
	t->to_ctx = target;
	s->x.to = target;
	target->active_senders++;
	spin_unlock(&target->lock);
	/* the receiver's choice of descriptors: the caller's flag */
	s->x.fds_ok = call->flags & FBINDER_TXN_ACCEPT_FDS;
	return 0;
}

/*
 * Checks the command, then finds the target and pins it
 * (fbinder_ctx.active_senders) and counts the message in its sender's
 * fair share.  A reply pops its call here, and the replier's priority
 * from before the call is kept for fbinder_send_release().
 */
static int fbinder_send_prepare(struct fbinder_send *s)
{
	const struct fbinder_txn_data *tr = &s->tr;

	/* a reply that fails this early still ends its call (abort) */
	if (s->error)
		return s->error;
	if ((!s->batch &&
	     tr->flags & ~(FBINDER_TXN_ONEWAY | FBINDER_TXN_ACCEPT_FDS |
			   FBINDER_TXN_FROZEN_REPORT)) ||
	    (s->reply && tr->flags) ||
	    (tr->flags & FBINDER_TXN_ONEWAY && tr->flags & FBINDER_TXN_ACCEPT_FDS) ||
	    (tr->flags & FBINDER_TXN_FROZEN_REPORT && !(tr->flags & FBINDER_TXN_ONEWAY)))
		return -EINVAL;
	s->frozen_report = tr->flags & FBINDER_TXN_FROZEN_REPORT;
	if (tr->offsets_count > FBINDER_MAX_OBJECTS ||
	    tr->data_size > fbinder_max_map_size)
		return -EMSGSIZE;
	if (tr->offsets_count) {
		s->x.exported = kvmalloc_array(tr->offsets_count,
					       sizeof(*s->x.exported) +
					       sizeof(*s->x.offsets),
					       GFP_KERNEL_ACCOUNT);
		if (!s->x.exported)
			return -ENOMEM;
		s->x.offsets = (u64 *)(s->x.exported + tr->offsets_count);
	}

	s->t = fbinder_txn_new(s->thread->ctx, tr, s->reply);
	if (!s->t)
		return -ENOMEM;
	return s->reply ? fbinder_reply_target(s) : fbinder_send_target(s);
}

/* Bytes of a batch's header: struct fbinder_batch and its entries. */
static size_t fbinder_batch_table_size(u32 count)
{
	return sizeof(struct fbinder_batch) +
	       (size_t)count * sizeof(struct fbinder_batch_msg);
}

/*
 * A batch's payloads, each from the sender's pointer to the next 8-byte
 * boundary after the header, then the header with each entry's pointer
 * turned into the payload's offset in the receiver's mapping.
 */
static int fbinder_copy_batch(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
			      struct fbinder_batch *b)
{
	size_t pos = fbinder_batch_table_size(b->count), len;
	struct fbinder_batch_msg *m;
	int ret;

	for (m = b->msgs; m < b->msgs + b->count; m++) {
		len = m->data_size;
		ret = fbinder_alloc_copy_from_user(alloc, buf, pos,
						   u64_to_user_ptr(m->data), len);
		if (ret)
			return ret;
		m->data = buf->offset + pos;
		pos += ALIGN(len, sizeof(u64));
	}
	return fbinder_alloc_write(alloc, buf, 0, b,
				   fbinder_batch_table_size(b->count));
}

/*
 * Reserves the slot in the target's buffer and copies the message into it:
 * the offsets (read once: what is checked is what the receiver gets), then
 * the data around the objects, each translated (fbinder_copy_payload()); or
 * a batch's payloads and header (fbinder_copy_batch()).  No lock held.
 */
static int fbinder_send_copy(struct fbinder_send *s)
{
	const struct fbinder_txn_data *tr = &s->tr;
	struct fbinder_alloc *alloc = &s->x.to->alloc;
	size_t data_end = ALIGN(tr->data_size, sizeof(u64));
	size_t end = data_end + s->offsets_size + s->secctx_size;
	struct fbinder_buffer *buf;
	struct iov_iter data;
	int ret;

	buf = fbinder_timed(FBINDER_SEC_SEND_SLOT,
			    fbinder_alloc_new(alloc, tr->data_size,
					      s->offsets_size + s->secctx_size,
					      s->oneway, s->reply));
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	fbinder_stat_inc(FBINDER_STAT_LIVE_BUFFERS);
	s->buf = buf;
	buf->data_size = tr->data_size;
	buf->offsets_size = s->offsets_size;
	s->x.buf = buf;
	s->x.data_size = tr->data_size;
	/* the rest of a minimum-size slot */
	if (buf->size > end) {
		ret = fbinder_alloc_clear(alloc, buf, end, buf->size - end);
		if (ret)
			return ret;
	}
	/* after the offsets, where the receiver finds it (uapi) */
	if (unlikely(s->secctx_size)) {
		ret = fbinder_secctx_copy(s, alloc, buf, data_end + s->offsets_size);
		if (ret)
			return ret;
	}
	if (s->batch)
		return fbinder_copy_batch(alloc, buf, s->batch);
	/* most messages carry no objects: no copy of an empty array */
	if (s->offsets_size) {
		if (copy_from_user(s->x.offsets, u64_to_user_ptr(tr->offsets),
				   s->offsets_size))
			return -EFAULT;
		ret = fbinder_alloc_write(alloc, buf, data_end, s->x.offsets,
					  s->offsets_size);
		if (ret)
			return ret;
	}
	if (s->gather)
		data = s->gather->iter;
	else
		iov_iter_ubuf(&data, ITER_SOURCE, u64_to_user_ptr(tr->data),
			      tr->data_size);
	return fbinder_copy_payload(&s->x, &data, s->x.offsets, tr->offsets_count);
}

/*
 * Queues the message (fbinder_send_commit_clocked()) and hands the buffer,
 * its files and the references its objects hold over to the receiver;
 * wakes the thread chosen once the lock is dropped.
 */
static int fbinder_send_commit(struct fbinder_send *s)
{
	struct fbinder_txn *t = s->t;
	struct fbinder_ctx *to = s->x.to;
	struct fbinder_thread *wake = NULL;
	bool sync;
	int ret;

	t->buffer = s->buf;
	spin_lock(&to->lock);
	ret = fbinder_send_commit_clocked(s->thread, t, &wake);
	if (ret < 0) {
		t->buffer = NULL;
		spin_unlock(&to->lock);
		return ret;
	}
	if (!s->frozen_report)
		ret = 0;
	trace_fastbinder_send(t, wake);
	trace_fastbinder_reply(t, wake);
	s->buf->sender = s->sender;
	s->buf->fds = s->x.fds;
	s->buf->nr_fds = s->x.nr_fds;
	s->x.fds = NULL;
	s->x.nr_fds = 0;
	/* never the last after the end: the commit found it alive */
	fbinder_ctx_senders_done_clocked(to);
	/*
	 * A call or reply wakes its handler synchronously: we sleep.  t may
	 * be freed by its receiver once the lock is dropped.
	 */
	sync = !(t->flags & FBINDER_TXN_ONEWAY);
	s->t = NULL;
	s->buf = NULL;
	s->pushed = false;
	fbinder_ctx_unlock_wake(to, wake, sync);
	fbinder_xlate_finish(&s->x, true);
	return ret;
}

/*
 * The one way out of a send or reply that failed, at any step: undoes what
 * the steps took, in reverse, and records the failure.  A reply ends its
 * call either way: the caller gets FBINDER_RET_FAILED with the error instead of
 * waiting for good, even when the reply failed before it found its call
 * (bad arguments, no memory).  A reply whose caller died meanwhile (its
 * buffer gone: EOWNERDEAD, ESRCH) is dropped and succeeds, as when the
 * caller was gone before (docs/abi.md).  Returns what the command returns.
 * Each step takes the one context lock it needs, as the send did: the
 * device lock only for an object's or a node's last reference.
 */
static int fbinder_send_abort(struct fbinder_send *s, int ret)
{
	struct fbinder_thread *thread = s->thread;
	struct fbinder_ctx *ctx = thread->ctx;
	struct fbinder_txn *t = s->t, *call;
	struct fbinder_ctx *to = s->x.to;
	struct fbinder_node *node = t ? t->node : NULL;
	bool free_buffer = false, call_from = false, record;

	/* fbinder_send_copy(): the label, the files, the objects' references, the slot */
	fbinder_secctx_put(s);
	fbinder_buffer_put_fds(s->x.fds, s->x.nr_fds);
	s->x.fds = NULL;
	s->x.nr_fds = 0;
	if (s->buf) {
		fbinder_buffer_drop_refs(to, s->buf, s->tr.data_size, s->x.count);
		/* a failed send leaves nothing for the receiver to read */
		fbinder_alloc_clear(&to->alloc, s->buf, 0, s->buf->size);
		fbinder_alloc_free(&to->alloc, s->buf);
		fbinder_stat_dec(FBINDER_STAT_LIVE_BUFFERS);
		s->buf = NULL;
	}
	fbinder_xlate_finish(&s->x, false);

	/* fbinder_send_prepare(): the push, the reply's call, the count */
	spin_lock(&ctx->lock);
	if (s->pushed) {
		thread->stack = t->from_parent;
		WRITE_ONCE(t->from, NULL);
		WRITE_ONCE(t->from_parent, NULL);
		s->pushed = false;
	}
	call = t ? t->call : NULL;
	if (!t && s->reply) {
		/* failed before it was allocated: the call still ends */
		call = fbinder_reply_pop_clocked(thread);
		if (call)
			fbinder_reply_restore_clocked(thread, call, &s->restore);
	}
	if (s->counted)
		ctx->sent--;
	spin_unlock(&ctx->lock);
	/* popped: only its caller's side (from) can change, under its lock */
	if (call) {
		spin_lock(&call->from_ctx->lock);
		call_from = !!call->from;
		spin_unlock(&call->from_ctx->lock);
	}
	if (t && call && !call_from)
		ret = -ECONNRESET;
	/* the target while it is still pinned */
	record = ret != -ECONNRESET && (t || call_from);
	if (record) {
		spin_lock(&ctx->lock);
		ctx->failed++;
		spin_unlock(&ctx->lock);
		fbinder_record_failure(ret, s->reply ? FBINDER_FAILED_REPLY :
					       FBINDER_FAILED_SEND,
				       ctx, node ? to : NULL, node, s->tr.code);
	}
	if (to) {
		spin_lock(&to->lock);
		if (s->sender)
			fbinder_share_uncharge_clocked(to, s->sender, 1,
						       fbinder_send_slot_size(s),
						       s->oneway);
		/* the target ended while we copied: its buffer is ours */
		free_buffer = fbinder_ctx_senders_done_clocked(to);
		if (free_buffer)
			kref_get(&to->refs);	/* t's goes below */
		/* the pin of fbinder_send_target(), unless it is the node's last */
		if (node && fbinder_node_unpin_clocked(to, node))
			node = NULL;
		spin_unlock(&to->lock);
		if (node)
			fbinder_node_drop(node, false);
		if (t)
			t->node = NULL;
	}
	if (call)
		fbinder_call_fail(call, call_from && ret != -ECONNRESET ? ret : 0);
	if (t)
		fbinder_txn_free(t);
	s->t = NULL;
	if (free_buffer) {
		fbinder_ctx_free_buffer(to);
		fbinder_ctx_put(to);
	}
	return ret == -ECONNRESET ? 0 : ret;
}

/* What a send holds whether it succeeded or not. */
static void fbinder_send_release(struct fbinder_send *s)
{
	/* only objects allocate translation state (fbinder_send_prepare()) */
	if (s->tr.offsets_count) {
		kvfree(s->x.exported);
		kfree(s->x.spare_node);
		kfree(s->x.spare_handle);
	}
	fbinder_restore_prio(&s->restore);
}

/* Prepare, copy, commit, or abort at the first step that fails. */
static int fbinder_send_run(struct fbinder_send *s)
{
	u64 start = fbinder_section_start();
	int ret;

	ret = fbinder_timed(FBINDER_SEC_SEND_PREPARE, fbinder_send_prepare(s));
	if (!ret)
		ret = fbinder_timed(FBINDER_SEC_SEND_COPY, fbinder_send_copy(s));
	if (!ret)
		ret = fbinder_timed(FBINDER_SEC_SEND_COMMIT, fbinder_send_commit(s));
	if (ret < 0)
		ret = fbinder_send_abort(s, ret);
	fbinder_send_release(s);
	fbinder_section_end(FBINDER_SEC_SEND, start);
	return ret;
}

/*
 * FBINDER_CMD_SEND and FBINDER_CMD_REPLY, the command's payload at arg
 * read straight into the send's struct (not copied twice per message).
 * A payload that faults fails the command before anything is done.  A
 * reply whose caller is gone is dropped and succeeds; a reply that cannot
 * be delivered still ends the call, which fails to the caller with the
 * same error.
 */
int fbinder_send(struct fbinder_thread *thread, const void __user *arg, bool reply)
{
	struct fbinder_send s = {
		.thread = thread,
		.reply = reply,
		.x = { .from = thread->ctx },
	};

	if (copy_from_user(&s.tr, arg, sizeof(s.tr)))
		return -EFAULT;
	s.oneway = s.tr.flags & FBINDER_TXN_ONEWAY;
	s.offsets_size = (size_t)s.tr.offsets_count * sizeof(u64);
	return fbinder_send_run(&s);
}

/*
 * FBINDER_CMD_SEND_SG and FBINDER_CMD_REPLY_SG: a send or reply whose data
 * is gathered from the sender's iovecs (gather.c).  A reply whose iovecs
 * are bad still ends its call, as FBINDER_CMD_REPLY's bad arguments do.
 */
int fbinder_send_sg(struct fbinder_thread *thread, const struct fbinder_txn_sg *sg,
		    bool reply)
{
	struct fbinder_gather g;
	struct fbinder_send s = {
		.thread = thread,
		.tr = {
			.handle = sg->handle,
			.code = sg->code,
			.flags = sg->flags,
			.offsets_count = sg->offsets_count,
			.offsets = sg->offsets,
		},
		.reply = reply,
		.oneway = sg->flags & FBINDER_TXN_ONEWAY,
		.offsets_size = (size_t)sg->offsets_count * sizeof(u64),
		.x = { .from = thread->ctx },
		.gather = &g,
	};
	int ret;

	s.error = fbinder_gather_read(&g, sg);
	s.tr.data_size = g.size;
	ret = fbinder_send_run(&s);
	fbinder_gather_free(&g);
	return ret;
}

/*
 * Reads a batch's entries (once: what is checked is what the receiver
 * gets) and works out the size of the message they make.
 */
static int fbinder_batch_read(struct fbinder_send *s,
			      const struct fbinder_batch_send *bs)
{
	u64 size, len, max = READ_ONCE(fbinder_max_map_size);
	struct fbinder_batch *b;
	u32 i;

	if (!bs->count || bs->count > FBINDER_MAX_BATCH)
		return -EINVAL;
	size = fbinder_batch_table_size(bs->count);
	b = kmalloc(size, GFP_KERNEL_ACCOUNT);
	if (!b)
		return -ENOMEM;
	s->batch = b;
	b->count = bs->count;
	b->reserved = 0;
	if (copy_from_user(b->msgs, u64_to_user_ptr(bs->msgs),
			   size - sizeof(*b)))
		return -EFAULT;
	for (i = 0; i < b->count; i++) {
		len = b->msgs[i].data_size;
		if (b->msgs[i].reserved)
			return -EINVAL;
		/* checked as it grows: neither the sum nor its padding wraps */
		if (len > max || size > max - len || size + len > U64_MAX - 7)
			return -EMSGSIZE;
		size = ALIGN(size + len, sizeof(u64));
	}
	if (size > max)
		return -EMSGSIZE;
	s->tr.data_size = size;
	return 0;
}

/*
 * FBINDER_CMD_SEND_BATCH: a run of oneway messages without objects to one
 * node, sent as one message (struct fbinder_batch, then the payloads): one
 * slot, one share charge, one place in the queue and one read and free for
 * the receiver instead of one each.  All go or none.
 */
int fbinder_send_batch(struct fbinder_thread *thread,
		       const struct fbinder_batch_send *bs)
{
	struct fbinder_send s = {
		.thread = thread,
		.tr = {
			.handle = bs->handle,
			.flags = FBINDER_TXN_ONEWAY | FBINDER_TXN_BATCH,
		},
		.oneway = true,
		.x = { .from = thread->ctx },
	};
	int ret;

	ret = fbinder_batch_read(&s, bs);
	if (!ret)
		ret = fbinder_send_run(&s);
	kfree(s.batch);
	return ret;
}

/*
 * The transaction-layer part of freeing a buffer, under its context's lock:
 * unlinks it from its call, lets its node's next oneway message go, drops
 * the node's reference.  The first thread to wake is left in *wake for
 * fbinder_ctx_unlock_wake(); any further one (a run of frees that releases
 * messages of several nodes) is woken at once.  Returns the node when its
 * reference is its last message reference: the caller drops that one
 * under the device lock (fbinder_node_drop_locked()), where the node may go.
 */
static struct fbinder_node *fbinder_free_buffer_clocked(struct fbinder_ctx *ctx,
							struct fbinder_buffer *buf,
							struct fbinder_thread **wake)
{
	struct fbinder_txn *next;
	struct fbinder_node *node;

	lockdep_assert_held(&ctx->lock);
	if (buf->sender) {
		fbinder_share_uncharge_clocked(ctx, buf->sender, 0, buf->size,
					       buf->oneway);
		buf->sender = NULL;
	}
	if (buf->txn) {
		buf->txn->buffer = NULL;
		buf->txn = NULL;
	}
	node = buf->target_node;
	buf->target_node = NULL;
	/* the node's next oneway message may go once all out are freed */
	if (node && buf->oneway && node->async_out && !--node->async_out) {
		next = list_first_entry_or_null(&node->async_todo,
						struct fbinder_txn,
						work.entry);
		if (next) {
			list_del_init(&next->work.entry);
			node->async_out = 1;
			if (fbinder_ctx_hold_clocked(ctx, &next->work))
				next = NULL;
		}
		if (next) {
			if (*wake)
				fbinder_ctx_enqueue_clocked(ctx, &next->work, false);
			else
				*wake = fbinder_ctx_queue_clocked(ctx, &next->work);
		}
	}
	if (node && fbinder_node_put_fast_clocked(node, &node->buf_refs))
		node = NULL;
	return node;
}

/*
 * Frees a buffer whose message never reached user space (it could not be
 * delivered), as FBINDER_CMD_FREE_BUFFER would.  No lock held; nothing else
 * reaches the buffer any more: user space never owned it.
 */
void fbinder_buffer_discard(struct fbinder_ctx *ctx, struct fbinder_buffer *buf)
{
	struct fbinder_thread *wake = NULL;
	struct fbinder_node *last;

	fbinder_buffer_drop_refs(ctx, buf, buf->data_size,
				 buf->offsets_size / sizeof(u64));
	spin_lock(&ctx->lock);
	last = fbinder_free_buffer_clocked(ctx, buf, &wake);
	fbinder_ctx_unlock_wake(ctx, wake, false);
	if (last)
		fbinder_node_drop(last, true);
	fbinder_buffer_drop_fds(buf);
	trace_fastbinder_buffer_free(ctx, buf);
	fbinder_alloc_free(&ctx->alloc, buf);
	fbinder_stat_dec(FBINDER_STAT_LIVE_BUFFERS);
}

/*
 * FBINDER_CMD_FREE_BUFFER, for a run of n (at most FBINDER_FREE_BATCH) consecutive
 * commands: frees the buffers in order, and stops at the first offset that
 * names no delivered buffer (-EINVAL).  The run takes the allocator's lock
 * twice (to take the buffers, then to free them) and the context lock once
 * to unlink them, plus the device lock once per object they carry, to
 * drop its reference (fbinder_buffer_drop_refs()); a run of bare buffers (replies without
 * objects or files, fbinder_buffer_bare()) is taken and freed in one hold
 * of the allocator's lock and nothing else, unless the free is traced.
 * Returns 0 or that error; *freed says how many were freed.
 */
int fbinder_free_buffers(struct fbinder_ctx *ctx, const u64 *offsets, u32 n,
			 u32 *freed)
{
	/* only the nr entries taken are used: no INIT_STACK_ALL_ZERO */
	struct fbinder_buffer *bufs[FBINDER_FREE_BATCH] __uninitialized;
	struct fbinder_node *last[FBINDER_FREE_BATCH] __uninitialized;
	struct fbinder_thread *wake = NULL;
	bool done;
	int ret = 0;
	u32 i, nr;

	n = min_t(u32, n, FBINDER_FREE_BATCH);
	nr = fbinder_alloc_take_user(&ctx->alloc, offsets, n, bufs,
				     !trace_fastbinder_buffer_free_enabled(), &done);
	if (nr < n)
		ret = -EINVAL;
	*freed = nr;
	if (done)
		fbinder_stat_sub(FBINDER_STAT_LIVE_BUFFERS, nr);
	if (!nr || done)
		return ret;

	for (i = 0; i < nr; i++)
		if (bufs[i]->offsets_size)
			fbinder_buffer_drop_refs(ctx, bufs[i], bufs[i]->data_size,
						 bufs[i]->offsets_size / sizeof(u64));
	spin_lock(&ctx->lock);
	for (i = 0; i < nr; i++)
		last[i] = fbinder_free_buffer_clocked(ctx, bufs[i], &wake);
	fbinder_ctx_unlock_wake(ctx, wake, false);
	for (i = 0; i < nr; i++)
		if (last[i])
			fbinder_node_drop(last[i], true);

	for (i = 0; i < nr; i++) {
		fbinder_buffer_drop_fds(bufs[i]);
		trace_fastbinder_buffer_free(ctx, bufs[i]);
		fbinder_stat_dec(FBINDER_STAT_LIVE_BUFFERS);
	}
	fbinder_alloc_free_batch(&ctx->alloc, bufs, nr);
	return ret;
}
