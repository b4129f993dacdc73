/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fastbinder: the driver's shared structures.
 *
 * Locking
 * =======
 * Two kinds of spinlock guard the driver's state, taken in this order:
 *
 *   fbinder_device.lock: the object graph of one device.  Every context's
 *     handles trees and nodes tree (both with its context lock too) and
 *     handle fields (a handle's counts, user_refs and buf_refs, with its
 *     holder's lock too, under which alone a send or a free may change
 *     them while they stay above zero), its death links and nr_owned;
 *     the nodes' lives (state, owner: with the owner's lock too)
 *     and their graph counts (handle_count, link_refs, exports,
 *     is_ctx_mgr: all but link_refs with the owner's lock too, exports
 *     under that lock alone at a send's commit); regions; the context
 *     manager (read under RCU too); the contexts list.  A message takes
 *     it only for an object that makes or may free a node or handle: a
 *     handle of the receiver's own node, or a node
 *     (the sender's, or any) that the receiver holds a handle of, travels
 *     under the two contexts' locks, and an object's free that is not
 *     the last reference of its node or handle takes the receiver's lock
 *     alone (xlate.c); a failed send only for such an object or a node's
 *     last reference; a failed delivery (its return not copied out, its
 *     files not installed: protocol.c) only for a node's last reference
 *     or a death notice's link; every end takes it.
 *
 *   fbinder_ctx.lock (the context lock): the queues of one context.  Its
 *     todo list and idle threads, its threads' todo lists, stacks, looper
 *     state and wake-up flags, nr_queued, requested and started threads,
 *     its fair-share records, active_senders, received, sent, failed, dead (with
 *     the device lock too); the message counts of the nodes it owns (buf_refs,
 *     tmp_refs, async_out, async_todo, calls); a transaction's handler
 *     fields (to_thread, to_parent, buffer) under its receiver's, and its
 *     caller fields (from, from_parent) under its caller's
 *     (a route reads a chain's under RCU, below); its freeze state
 *     (frozen, sync_recv, async_recv, calls_in, held).  A death link's state
 *     and queue entry under its holder's.  A message without objects
 *     takes the two contexts' locks one after the other, never nested:
 *     two context locks are held together only under the device lock
 *     (spin_lock_nested()), which serialises every such pair.
 *
 * Both are held only for bookkeeping: no allocation, no user copy, no
 * sleep; so reclaim may take them.  And never for work that grows with
 * what an opener made: a loop that frees such objects drops them every
 * FBINDER_BATCH of them (struct fbinder_hold, below).
 *
 * A send finds its target under its own context lock (the handle), then
 * takes the target's: between the two, the node and its owner are read
 * under RCU, as both are freed after a grace period (kfree_rcu()), and
 * the node is checked alive under its owner's lock, which its end and its
 * free hold.
 *
 * A call sent while handling another goes to a thread of the target
 * already waiting in the handled call's chain, if there is one
 * (fbinder_route_clocked()).  The chain crosses contexts whose locks the
 * send does not hold, so it is read under RCU: a link (from_parent) is
 * set once at the push and later only cleared, a call a link pointed at
 * (chained) is freed after a grace period, and so is a thread record.
 * So the links read were all there at the walk's first read, and the
 * route is the one a walk at that moment would have found.  The walk
 * runs under the target's lock, which guards the found thread's calls:
 * the answer to the call it waits for, which could only come after a
 * cut the walk did not see, needs that lock, so it is queued after the
 * routed call, as if the cut had come after the route.
 *
 * A fast path (a context lock alone) never takes a node's last reference
 * of any kind, which would free the node, the graph's business: it leaves
 * that one to the device lock (fbinder_node_put_fast_clocked()).  So the
 * counts it reads for that choice change under the owner's lock
 * everywhere, handle_count and is_ctx_mgr included.
 *
 *   fbinder_alloc.lock (mutex, one per context): the slots and pages of that
 *     context's buffer.  Taken by alloc.c only (the others call its
 *     operations, alloc.h), never with a spinlock held; the mapping's
 *     faults, mmap and close take it inside the mm's mmap lock.
 *
 * Leaf locks nest inside them, and no lock is taken inside a leaf lock:
 * fbinder_ctx.threads_lock inside both: the threads tree is changed under
 * it and both of the above, and read under any, so an ioctl finds its
 * thread's record under it alone (fbinder_thread_find()); each CPU's
 * spare transactions' and spare slot structs' local locks (spare_pool.c:
 * a local_lock_t, taken on its own CPU only, by no one else; the slot
 * structs' inside fbinder_alloc.lock); fbinder_failure_lock
 * (stats.c); the wait queues' own locks (fbinder_thread.wait,
 * fbinder_ctx.poll_wait, the failure readers' queue of stats.c), taken by
 * wake-ups under a context lock; fbinder_allocs_lock inside
 * fbinder_alloc.lock (the shrinker holds it and only trylocks
 * fbinder_alloc.lock, see alloc.c);
 * fbinder_users_lock (alloc.c), taken alone or inside the spinlocks by
 * fbinder_user_put() (a sender record's user); fbinder_node_users_lock
 * (node.c), taken alone or inside them (a context's last put).  The hot
 * paths wake the one thread they chose just after dropping the context
 * lock instead (fbinder_ctx_unlock_wake), so the woken thread does not
 * find it held.
 *
 * fbinder_devices_lock (mutex, device.c) guards the list of devices, taken
 * with no other lock of the driver held: a walker that sleeps pins one
 * device at a time and lets the mutex go (fbinder_device_next()).
 *
 * A function's name says which lock it needs, and it asserts that with
 * lockdep_assert_held() (make lint checks both, scripts/lint-locking.sh):
 *
 *   _locked   fbinder_device.lock held, from entry to return (and the
 *             context locks its body asserts);
 *   _relock   fbinder_device.lock held at entry and at return, but dropped and
 *             taken again inside (to allocate or to sleep): what the caller
 *             found before the call may have changed after it;
 *   _clocked  the context lock of the context it works on held;
 *   _crelock  the same, dropped and taken again inside;
 *   _olocked  the device lock and the lock of the node's owner held;
 *   _alocked  fbinder_alloc.lock held (alloc.c).
 *
 * Memory that must outlive an unlock (a node a sender is translating into,
 * a context a sender copies into, and that context's buffer, a call's
 * caller's context) is pinned by a count taken under a lock:
 * fbinder_node.tmp_refs, fbinder_ctx.refs (fbinder_txn.to_ctx, from_ctx),
 * fbinder_ctx.active_senders.
 *
 * Lifetimes
 * =========
 *   fbinder_device  kref: its creator holds one (the module for a devices=
 *              one, its fastbinderfs inode for one made at run time), every
 *              open file another, a walker of the list a third.  A context
 *              uses its device only while its file is open or another file
 *              of the device is (a sender), so the file's reference covers
 *              it.  The last put takes it off the list and frees it after a
 *              grace period (the shrinker).
 *   fbinder_ctx     kref: the file holds one, every in-flight user another.
 *              The context ends (fbinder_ctx_end(): dead, its threads, work,
 *              nodes, handles and links gone) when its owning process
 *              exits, whoever still holds the file: at the owner's ->flush
 *              of it while its last thread exits, or, when the owner held
 *              no descriptor of it then, off the wake-up of the owner's
 *              pid (fbinder_pid_exit_wq()); at ->release at the latest, which
 *              then only drops the file's reference.  The end marks it
 *              dead, then frees what it holds in batches, the lock dropped
 *              in between: nothing new reaches a dead context.  Its buffer
 *              goes at the end too, or, when senders are still copying
 *              into it (active_senders, in which the end counts itself
 *              until done), with the last of them: the end never waits
 *              for another process (its page faults may stall).
 *   fbinder_thread  lives until FBINDER_IOC_THREAD_EXIT, the context's end, or a
 *              sweep finds its thread gone (fbinder_thread_get()), which
 *              frees the buffers of the replies and routed calls left for
 *              it; a transaction points at it only while it is on its stack.
 *              Once raised it holds a reference on its task, so the
 *              release (which may run in another task) can lower it.
 *              An epoll set may hold an entry on its wait queue (polled
 *              through the thread that added the file): it is told with
 *              wake_up_pollfree() and the memory goes after an RCU grace
 *              period.
 *   fbinder_node    freed once it is out of its owner's tree and no handle,
 *              buffer or temporary user refers to it (fbinder_node_check),
 *              and its owner read its release notice or ended; it counts
 *              against max_nodes and max_user_nodes until then (nr_owned).
 *   fbinder_handle  freed when its own and its buffers' references reach zero;
 *              one with more death links than a batch leaves its id at
 *              once and goes once they went (fbinder_ctx_drop_dying_handles()),
 *              before the ioctl that freed it returns.
 *   fbinder_region  with its node (fbinder_node.region): while a handle of
 *              it, a region narrowed from it (nr_children), a copy or
 *              a revoke (tmp_refs) or a death link refers to it; dead
 *              from its revoke or its owner's end on.  A copy moves
 *              bytes only inside a window counted in fbinder_region.copying
 *              of its whole chain, which revoke waits to drain.  A live
 *              root's mm_struct (mmgrab()) is dropped by a work item
 *              once the root dies or goes (region.c), a copy's own hold
 *              at the copy's end.
 *   fbinder_txn  a call lives until its caller consumed the reply or the
 *              failure; a oneway message until it is delivered.  Then it
 *              goes back to a CPU's spares (txn_pool.c) or to the slab.
 */
#ifndef _FBINDER_INTERNAL_H
#define _FBINDER_INTERNAL_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/rbtree.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/fastbinder.h>

#include "alloc.h"
#include "prio.h"
#include "sections.h"

#define FBINDER_MAX_OBJECTS		4096	/* objects in one message */
#define FBINDER_MAX_QUEUED		4096	/* calls and oneways queued to a context */
#define FBINDER_MAX_THREADS		1024	/* FBINDER_IOC_SET_MAX_THREADS ceiling */
#define FBINDER_BATCH			64	/* objects a teardown frees per lock hold */

extern unsigned int fbinder_max_handles;	/* module parameter */
extern unsigned int fbinder_handle_id_start;	/* module parameter */
extern unsigned int fbinder_max_death_links;	/* module parameter */
extern unsigned int fbinder_max_nodes;		/* module parameter */
extern unsigned int fbinder_max_user_nodes;	/* module parameter */

struct fbinder_node_user;

struct fbinder_device {
	struct miscdevice misc;		/* a devices= one's; unused in fastbinderfs */
	struct kref refs;		/* its creator's (the list, fs.c's inode), each file's */
	struct user_namespace *user_ns;	/* whose CAP_SYS_ADMIN claims handle 0 */
	struct rcu_head rcu;		/* freed after a grace period: list readers may use RCU */
	spinlock_t lock;		/* the object graph, see above */
	struct fbinder_node *ctx_mgr;	/* handle 0, or NULL */
	kuid_t ctx_mgr_uid;		/* euid of the first claim, or invalid */
	struct list_head contexts;	/* fbinder_ctx.dev_entry, for debugfs */
	struct list_head entry;		/* fbinder_devices, until freed */
	char name[32];
};

/* A unit of work on a todo list. */
enum fbinder_work_type {
	FBINDER_WORK_TXN,		/* a call, a oneway message or a reply */
	FBINDER_WORK_FAILED,		/* a call that ended without a reply */
	FBINDER_WORK_RELEASE,	/* a node nobody refers to any more */
	FBINDER_WORK_DEAD,		/* a linked node's owner died */
	FBINDER_WORK_SPAWN,		/* not queued; see fbinder_read */
};

struct fbinder_work {
	struct list_head entry;
	enum fbinder_work_type type;
};

struct fbinder_ctx {
	struct fbinder_device *dev;
	struct kref refs;
	struct pid *pid;		/* the owning thread group */
	kuid_t euid;
	u64 debug_id;			/* FBINDER_IOC_INFO's name for it */
	spinlock_t lock;		/* its queues, see above */
	bool dead;			/* ended, see Lifetimes */
	struct fbinder_alloc alloc;

	struct rb_root threads;		/* fbinder_thread by pid */
	spinlock_t threads_lock;	/* threads changes under it and dev->lock */
	struct rb_root nodes;		/* fbinder_node by cookie */
	struct rb_root handles;		/* fbinder_handle by id */
	struct rb_root handles_by_node;	/* fbinder_handle by node address */
	struct rb_root deaths;		/* fbinder_death_link by cookie */
	u32 nr_deaths;			/* links in deaths */
	u32 next_handle;		/* next handle id, if free (node.c) */
	u32 nr_handles;
	struct list_head dying_handles;	/* fbinder_handle.dying_entry */
	struct list_head regions;	/* live regions it owns, fbinder_region.owner_entry */
	u32 nr_regions;			/* in regions */

	struct list_head todo;		/* work any thread may take */
	struct list_head waiting;	/* idle threads, fbinder_thread.waiting_entry */
	wait_queue_head_t poll_wait;	/* pollers of the whole context */
	u32 nr_queued;			/* transactions on any todo list */
	struct rb_root senders;		/* fbinder_sender by uid */
	struct fbinder_sender *idle_sender;	/* in senders, holding nothing, or NULL */
	u32 senders_queued;		/* sums of their counts */
	size_t senders_bytes;
	size_t senders_oneway;
	u32 active_senders;		/* copying into alloc right now */
	/* freeze.c */
	bool frozen;			/* FBINDER_IOC_FREEZE: calls refused, oneways held */
	bool sync_recv;			/* a call came since the freeze */
	bool async_recv;		/* a oneway message came since the freeze */
	u32 calls_in;			/* calls queued to it or handled, unanswered */
	struct list_head held;		/* oneway messages held until the thaw */
	wait_queue_head_t freeze_wait;	/* freezers waiting for calls_in to drain */

	pid_t reap_next;		/* the sweep for exited threads' records */
	u32 max_threads;
	u32 requested_threads;		/* asked for, not registered yet */
	u32 started_threads;		/* registered because we asked */
	/* for FBINDER_IOC_INFO: received and sent under lock, the rest the device's */
	u32 nr_threads;			/* in threads */
	u32 nr_nodes;			/* in nodes */
	/* its nodes in nodes or with a release notice unread: max_nodes */
	u32 nr_owned;
	struct fbinder_node_user *node_user;	/* its euid's: max_user_nodes */
	u64 received;			/* calls and oneways queued to it */
	u64 sent;			/* calls and oneways its threads sent */
	u64 failed;			/* its failed sends and replies */

	struct list_head dev_entry;
	struct wait_queue_entry owner_wait;	/* on fbinder_pid_exit_wq(pid) */
	struct work_struct owner_work;	/* the end once the owner is gone */
	struct rcu_head rcu;		/* a send may still look (txn.c) */
};

#define FBINDER_LOOPER_REGISTERED	0x1
#define FBINDER_LOOPER_ENTERED	0x2
#define FBINDER_LOOPER_EXITED	0x4

struct fbinder_thread {
	struct fbinder_ctx *ctx;
	struct rb_node rb_node;
	pid_t pid;
	struct pid *tpid;		/* counted: tells when the thread is gone */
	struct list_head todo;		/* work for this thread only */
	wait_queue_head_t wait;
	struct list_head waiting_entry;	/* on ctx->waiting while asleep */
	struct fbinder_txn *stack;		/* newest call it handles or awaits */
	u32 looper;			/* FBINDER_LOOPER_* */
	bool kicked;			/* FBINDER_IOC_WAKE_IDLE woke it */
	/*
	 * Owned by the thread itself, no lock (the context's release reads
	 * them: no ioctl of the context runs then):
	 */
	bool oneway_prio_set;		/* raised for a oneway message */
	struct fbinder_prio oneway_saved;	/* its own, to restore */
	struct task_struct *task;	/* counted; set when first raised */
	struct rcu_head rcu;		/* epoll may still look at wait */
};

enum fbinder_node_state {
	FBINDER_NODE_LIVE,		/* in its owner's tree */
	FBINDER_NODE_RELEASING,	/* release notice queued to the owner */
	FBINDER_NODE_DEAD,		/* owner gone */
};

struct fbinder_node {
	union {
		struct fbinder_work work;	/* the release notice */
		struct rcu_head rcu;		/* a send may still look (txn.c) */
	};
	struct rb_node rb_node;		/* owner->nodes */
	struct fbinder_ctx *owner;		/* NULL once dead */
	struct fbinder_device *dev;		/* whose lock guards it */
	u64 cookie;
	u64 debug_id;
	enum fbinder_node_state state;
	bool is_ctx_mgr;
	u32 handle_count;		/* handles of other contexts */
	u32 buf_refs;			/* owner's buffers naming it */
	u32 tmp_refs;			/* senders working on it */
	u64 exports;			/* FBINDER_OBJ_LOCAL sends since last notice */
	u32 async_out;			/* oneway messages queued or unfreed */
	struct list_head async_todo;	/* oneway messages waiting for it */
	struct list_head deaths;	/* fbinder_death_link.node_entry */
	u32 link_refs;			/* death links naming it */
	bool has_min_prio;
	struct fbinder_prio min_prio;	/* for its handlers */
	bool accepts_fds;		/* FBINDER_OBJF_ACCEPTS_FDS */
	bool txn_secctx;		/* FBINDER_OBJF_TXN_SECCTX */
	u64 calls;			/* calls and oneways queued to it */
	struct fbinder_region *region;	/* a memory region's node, or NULL */
};

/*
 * A memory region (region.c): a node that no cookie names, outside its
 * owner's nodes tree, whose handles copy to or from a range of the
 * owner's address space.  A region narrowed from another names it as
 * parent and holds it (nr_children); a live root holds the address space
 * (mmgrab(): the mm_struct, never its pages) in mm_hold, and lets go of it
 * as it dies.  All under the device lock but start, size, rights and
 * depth, fixed at creation; mm is used only while the chain is usable.
 */
struct fbinder_region {
	struct fbinder_node *node;		/* whose region this is */
	struct fbinder_node *parent;		/* narrowed from it, or NULL */
	struct mm_struct *mm;			/* the root owner's, while live */
	struct fbinder_region_mm *mm_hold;	/* a live root's hold of mm */
	unsigned long start;			/* in mm */
	u64 size;
	u32 rights;				/* FBINDER_REGION_* */
	u32 depth;				/* 1 for a root */
	int dead_err;				/* why it died: -EKEYREVOKED, -EOWNERDEAD */
	u32 nr_children;			/* regions narrowed from it, not freed */
	u32 copying;				/* copies in their window through it */
	struct list_head owner_entry;		/* owner->regions while live */
	struct list_head children;		/* live ones narrowed from it */
	struct list_head child_entry;		/* parent's children while live */
	struct llist_node free_entry;		/* freed after the lock (region.c) */
};

struct fbinder_handle {
	struct fbinder_ctx *ctx;
	struct rb_node rb_id;		/* ctx->handles */
	struct rb_node rb_node;		/* ctx->handles_by_node */
	u32 id;
	struct fbinder_node *node;
	u32 user_refs;			/* FBINDER_CMD_ACQUIRE minus RELEASE */
	u32 buf_refs;			/* unfreed buffers carrying it */
	struct list_head deaths;	/* fbinder_death_link.handle_entry */
	struct list_head dying_entry;	/* ctx->dying_handles, once freed */
};

enum fbinder_death_state {
	FBINDER_DEATH_LINKED,	/* on the node's list, waiting */
	FBINDER_DEATH_QUEUED,	/* notice on the holder's todo */
	FBINDER_DEATH_DELIVERED,	/* read, not acknowledged yet */
};

/* A holder's request to be told when a node dies. */
struct fbinder_death_link {
	struct fbinder_work work;		/* the FBINDER_RET_DEAD notice */
	struct rb_node rb_node;		/* holder->deaths */
	struct list_head node_entry;	/* node->deaths while LINKED */
	struct list_head handle_entry;	/* handle->deaths; empty for 0 */
	struct fbinder_ctx *holder;
	struct fbinder_node *node;
	struct fbinder_handle *handle;	/* NULL for handle 0 */
	u64 cookie;
	enum fbinder_death_state state;
};

/*
 * What one sending user's messages hold of a receiver's queue and buffer
 * (fbinder_ctx.senders), for the fair-share rule of txn.c.  Freed when they hold
 * nothing.  Each message's buffer points at its record (fbinder_buffer.sender).
 */
struct fbinder_sender {
	struct rb_node rb_node;		/* receiver->senders */
	kuid_t uid;			/* the sender's euid */
	/* uid's, counted, when the receiver is another user's: bytes count in sent */
	struct fbinder_user *user;
	u32 queued;			/* messages not read yet */
	size_t bytes;			/* slots not freed yet */
	size_t oneway;			/* of which oneway */
};

/* A file travelling in a buffer, installed when the receiver reads it. */
struct fbinder_buffer_fd {
	u64 offset;			/* of its descriptor's 4 bytes in the buffer */
	struct file *file;		/* counted reference */
	bool cloexec;
};

struct fbinder_txn {
	union {
		struct fbinder_work work;
		struct fbinder_spare spare;	/* a spare (txn_pool.c) */
		struct rcu_head rcu;		/* a chained call's free */
	};
	u64 id;
	u32 code;
	u32 flags;
	int error;			/* FBINDER_WORK_FAILED */
	bool is_reply;
	bool chained;		/* a call was pushed on it: routes read it */
	struct fbinder_txn *call;		/* a reply: the call it answers */

	struct fbinder_ctx *from_ctx;		/* a call's caller's, counted */
	struct fbinder_thread *from;		/* the waiting caller, or NULL */
	struct fbinder_txn *from_parent;	/* caller's stack below this call */
	struct fbinder_thread *to_thread;	/* the handler once delivered */
	struct fbinder_txn *to_parent;	/* handler's stack below this call */

	struct fbinder_ctx *to_ctx;		/* counted reference */
	struct fbinder_node *node;		/* target; 0 for replies */
	struct fbinder_buffer *buffer;	/* in to_ctx's buffer, or NULL */
	struct pid *sender_pid;
	kuid_t sender_euid;
	struct fbinder_prio caller_prio;	/* what the handler inherits */
	struct fbinder_prio saved_prio;	/* the handler's own, to restore */
	bool prio_raised;		/* the handler runs at a raised one */
};

/* -1, 0 or 1 as a is below, equal to or above b: rb_find()'s comparisons. */
static inline int fbinder_cmp(u64 a, u64 b)
{
	return (a > b) - (a < b);
}

/* The entry below t on thread's transaction stack. */
static inline struct fbinder_txn *
fbinder_stack_next(struct fbinder_thread *thread, struct fbinder_txn *t)
{
	return t->to_thread == thread ? t->to_parent : t->from_parent;
}

/*
 * A loop that frees objects an opener made, as many as it likes (a
 * context's end, a node's deaths, a holder's links), holds
 * fbinder_device.lock (and a context's lock inside it, if ctx is set:
 * fbinder_hold_start_clocked()) for FBINDER_BATCH of them at most, then
 * drops them and reschedules: fbinder_hold_step_relock() (or _crelock())
 * after each object.  Each
 * such hold is timed and counted; debugfs "max_hold_ns" keeps the longest,
 * "max_hold_objects" the most objects one freed.
 */
struct fbinder_hold {
	struct fbinder_device *dev;
	struct fbinder_ctx *ctx;	/* whose lock is held inside, or NULL */
	u64 start;			/* of this hold, ns */
	u32 n;				/* objects freed in it */
};

void fbinder_hold_start_locked(struct fbinder_hold *b, struct fbinder_device *dev);
void fbinder_hold_start_clocked(struct fbinder_hold *b, struct fbinder_ctx *ctx);
bool fbinder_hold_step_relock(struct fbinder_hold *b);
bool fbinder_hold_step_crelock(struct fbinder_hold *b);
void fbinder_hold_end_locked(struct fbinder_hold *b);

/* context.c */
#define FBINDER_CTX_ITER_BATCH	32	/* contexts looked at under one hold */

/* A walk over one device's contexts, fbinder_ctx_iter_next(). */
struct fbinder_ctx_iter {
	struct fbinder_device *dev;
	struct fbinder_ctx *pos;	/* pinned between steps, or NULL */
	u64 id;				/* pos's */
};

struct fbinder_ctx *fbinder_ctx_iter_next(struct fbinder_ctx_iter *it,
					  bool (*match)(const struct fbinder_ctx *ctx,
							const void *arg),
					  const void *arg);
void fbinder_ctx_iter_stop(struct fbinder_ctx_iter *it);
struct fbinder_ctx *fbinder_ctx_create(struct fbinder_device *dev);
void fbinder_ctx_free(struct kref *kref);

/*
 * May be called with spinlocks held (not ctx's own): freeing sleeps
 * nowhere.  Inline, as the next: a message's path takes both.
 */
static inline void fbinder_ctx_put(struct fbinder_ctx *ctx)
{
	kref_put(&ctx->refs, fbinder_ctx_free);
}

/*
 * A sender finished with ctx's buffer.  True when the context ended
 * meanwhile and this was the last sender: the caller then frees the buffer
 * (fbinder_ctx_free_buffer()) once it has dropped the lock.
 */
static inline bool fbinder_ctx_senders_done_clocked(struct fbinder_ctx *ctx)
{
	lockdep_assert_held(&ctx->lock);
	return !--ctx->active_senders && ctx->dead;
}

/* end.c */
void fbinder_ctx_watch_owner(struct fbinder_ctx *ctx);
void fbinder_ctx_flush(struct fbinder_ctx *ctx);
void fbinder_ctx_release(struct fbinder_ctx *ctx);

/* thread.c */
struct fbinder_thread *fbinder_thread_get(struct fbinder_ctx *ctx);
int fbinder_thread_exit(struct fbinder_ctx *ctx);
void fbinder_thread_detach_locked(struct fbinder_thread *thread);
bool fbinder_thread_drop_work_locked(struct fbinder_thread *thread,
				     struct fbinder_buffer **buf);
void fbinder_thread_free(struct fbinder_thread *thread);

/* queue.c */
void fbinder_ctx_wake_waiting_clocked(struct fbinder_ctx *ctx, bool kick);
void fbinder_ctx_wake_idle(struct fbinder_ctx *ctx);
void fbinder_ctx_enqueue_clocked(struct fbinder_ctx *ctx, struct fbinder_work *work,
				 bool sync);
void fbinder_thread_enqueue_clocked(struct fbinder_thread *thread,
				    struct fbinder_work *work, bool sync);
struct fbinder_thread *fbinder_ctx_queue_clocked(struct fbinder_ctx *ctx,
						 struct fbinder_work *work);
struct fbinder_thread *fbinder_thread_queue_clocked(struct fbinder_thread *thread,
						    struct fbinder_work *work);
void fbinder_wake_thread(struct fbinder_thread *thread, bool sync);

/*
 * Unlocks the context (or the device), then wakes the thread a
 * *_queue_clocked() call chose, if any: the woken thread's first step is
 * to take its context's lock, so it should not find the waker still
 * holding it.  The thread may be freed
 * once the lock is dropped (its context released, FBINDER_IOC_THREAD_EXIT);
 * its memory goes after an RCU grace period (kfree_rcu), so the wake-up
 * runs in an RCU read-side section, and a wake-up of a queue nobody waits
 * on any more is a no-op.  A sleeper put itself on thread->wait before it
 * dropped the lock in which it found no work, so it cannot miss this.
 * A macro so that sparse sees the unlock in the caller (the lock functions
 * of PREEMPT_RT carry no context annotation); its arguments are evaluated
 * before the unlock, while what they read is still protected.
 */
#define fbinder_ctx_unlock_wake(ctx, to, sync)			\
do {								\
	struct fbinder_thread *__wake = (to);			\
	bool __sync = (sync);					\
								\
	rcu_read_lock();					\
	spin_unlock(&(ctx)->lock);				\
	if (__wake)						\
		fbinder_timed_void(FBINDER_SEC_WAKE,			\
				   fbinder_wake_thread(__wake, __sync));	\
	rcu_read_unlock();					\
} while (0)
bool fbinder_thread_wants_ctx_work(struct fbinder_thread *thread);

/* freeze.c */
long fbinder_freeze_ioctl(struct fbinder_ctx *ctx, unsigned int cmd, void __user *uarg);
int fbinder_frozen_send_clocked(struct fbinder_ctx *target, bool oneway);
void fbinder_ctx_thaw_clocked(struct fbinder_ctx *ctx);

/*
 * A oneway message for ctx waits on its held list while it is frozen:
 * true if so, else the caller queues it as usual.
 */
static inline bool fbinder_ctx_hold_clocked(struct fbinder_ctx *ctx,
					    struct fbinder_work *work)
{
	lockdep_assert_held(&ctx->lock);
	if (likely(!ctx->frozen))
		return false;
	list_add_tail(&work->entry, &ctx->held);
	return true;
}

/*
 * A call to the context is answered or failed: a freezer waits for the
 * last one (FBINDER_IOC_FREEZE).
 */
static inline void fbinder_call_done_clocked(struct fbinder_txn *call)
{
	struct fbinder_ctx *ctx = call->to_ctx;

	lockdep_assert_held(&ctx->lock);
	if (!--ctx->calls_in && unlikely(ctx->frozen))
		wake_up_all(&ctx->freeze_wait);
}

/* node.c */
struct fbinder_node_user *fbinder_node_user_get(kuid_t uid);
void fbinder_node_user_put(struct fbinder_node_user *u);
struct fbinder_node *fbinder_node_new(void);
u64 fbinder_node_new_id(void);
struct fbinder_handle *fbinder_handle_new(void);
struct fbinder_node *fbinder_node_get_or_insert_locked(struct fbinder_ctx *ctx, u64 cookie,
						       struct fbinder_node **spare);
struct fbinder_node *fbinder_node_lookup_locked(struct fbinder_ctx *ctx, u64 cookie);
struct fbinder_node *fbinder_node_lookup_clocked(struct fbinder_ctx *ctx, u64 cookie);
void fbinder_node_check_locked(struct fbinder_node *node);
void fbinder_node_check_olocked(struct fbinder_node *node);
void fbinder_node_drop_locked(struct fbinder_node *node, bool buf);
void fbinder_node_drop(struct fbinder_node *node, bool buf);

/*
 * Drops one of a live node's message references (*count: its buf_refs or
 * tmp_refs) under its owner's context lock alone, unless it is the node's
 * last reference of any kind (fbinder_node_check_olocked()): that one may
 * free the node, which takes the device lock, so it is left to the caller
 * (fbinder_node_drop()), and false returned.  What it reads changes under
 * the owner's lock everywhere.
 */
static inline bool fbinder_node_put_fast_clocked(struct fbinder_node *node, u32 *count)
{
	lockdep_assert_held(&node->owner->lock);
	if (!node->is_ctx_mgr && !node->handle_count &&
	    node->buf_refs + node->tmp_refs <= 1)
		return false;
	(*count)--;
	return true;
}

/*
 * Unpins a node of owner (tmp_refs: a sender's own node, or a send's
 * target) under owner's lock alone; false when that is the node's last
 * reference or owner ended (the node is dead): the device lock's then
 * (fbinder_node_drop(), or fbinder_node_unpin() for both steps).
 */
static inline bool fbinder_node_unpin_clocked(struct fbinder_ctx *owner,
					      struct fbinder_node *node)
{
	lockdep_assert_held(&owner->lock);
	return node->owner == owner &&
	       fbinder_node_put_fast_clocked(node, &node->tmp_refs);
}

void fbinder_node_unpin(struct fbinder_ctx *owner, struct fbinder_node *node);
void fbinder_node_notice_done_locked(struct fbinder_node *node);
struct fbinder_handle *fbinder_handle_lookup_locked(struct fbinder_ctx *ctx, u32 id);
struct fbinder_handle *fbinder_handle_lookup_clocked(struct fbinder_ctx *ctx, u32 id);
struct fbinder_handle *fbinder_handle_by_node_clocked(struct fbinder_ctx *ctx,
						      struct fbinder_node *node);
struct fbinder_node *fbinder_handle_to_node_locked(struct fbinder_ctx *ctx, u32 id);
struct fbinder_node *fbinder_handle_to_node_clocked(struct fbinder_ctx *ctx, u32 id);
u32 fbinder_handle_alloc_id_locked(struct fbinder_ctx *ctx);
void fbinder_handle_insert_id_locked(struct fbinder_ctx *ctx, struct fbinder_handle *h);
#ifdef CONFIG_FASTBINDER_SELFTEST
int fbinder_handle_selftest(void);
#endif
int fbinder_handle_for_node_locked(struct fbinder_ctx *ctx, struct fbinder_node *node,
				   struct fbinder_handle **spare,
				   struct fbinder_handle **out);
bool fbinder_handle_check_locked(struct fbinder_handle *handle);
void fbinder_ctx_drop_dying_handles(struct fbinder_ctx *ctx);
int fbinder_handle_acquire(struct fbinder_ctx *ctx, u32 id);
int fbinder_handle_release(struct fbinder_ctx *ctx, u32 id);
int fbinder_set_context_mgr(struct fbinder_ctx *ctx, u64 cookie, u32 flags);
void fbinder_ctx_drop_nodes_relock(struct fbinder_ctx *ctx, struct list_head *dying,
				   struct list_head *async, struct fbinder_hold *b);
void fbinder_ctx_drop_handles_relock(struct fbinder_ctx *ctx, struct fbinder_hold *b);

/* death.c */
int fbinder_death_link(struct fbinder_ctx *ctx, const struct fbinder_death *req);
int fbinder_death_unlink(struct fbinder_ctx *ctx, const struct fbinder_death *req);
int fbinder_death_done(struct fbinder_ctx *ctx, u64 cookie);
void fbinder_death_requeue_locked(struct fbinder_ctx *ctx, u64 cookie);
void fbinder_nodes_fire_deaths(struct fbinder_device *dev, struct list_head *dying);
bool fbinder_handle_drop_deaths_locked(struct fbinder_handle *h,
				       struct list_head *freed);
void fbinder_death_free_list(struct list_head *freed);
void fbinder_ctx_drop_deaths(struct fbinder_ctx *ctx);

/* region.c */
long fbinder_region_ioctl(struct fbinder_ctx *ctx, unsigned int cmd, void __user *uarg);
int fbinder_region_copy(struct fbinder_ctx *ctx, struct fbinder_region_copy __user *ucopy,
			bool to_region);
bool fbinder_region_check_locked(struct fbinder_node *node);
void fbinder_region_free_locked(struct fbinder_node *node);
bool fbinder_region_kill_child_locked(struct fbinder_node *node, struct list_head *dying);
bool fbinder_ctx_drop_region_locked(struct fbinder_ctx *ctx, struct list_head *dying);
void fbinder_regions_exit(void);
long fbinder_region_mms_held(void);

/* device.c */
bool fbinder_device_name_valid(const char *name);
struct fbinder_device *fbinder_device_new(const char *name, struct user_namespace *ns);
void fbinder_device_put(struct fbinder_device *dev);
/*
 * Every device, each pinned in turn, so the body may sleep:
 * for (dev = fbinder_device_next(NULL); dev; dev = fbinder_device_next(dev));
 * one that leaves the loop early puts the device it holds.
 */
struct fbinder_device *fbinder_device_next(struct fbinder_device *prev);
extern const struct file_operations fbinder_fops;

/* A file of a fastbinder device (fd.c refuses to send one). */
static inline bool fbinder_is_fastbinder_file(struct file *file)
{
	return file->f_op == &fbinder_fops;
}

/* fs.c */
int fbinder_fs_init(void);
void fbinder_fs_exit(void);
struct fbinder_device *fbinder_fs_device(struct inode *inode);

/* fd.c */
void fbinder_buffer_put_fds(struct fbinder_buffer_fd *fds, u32 nr);

/*
 * A buffer going away undelivered closes the files it carried.  Inline:
 * every freed buffer comes here, and nearly all carry none.
 */
static inline void fbinder_buffer_drop_fds(struct fbinder_buffer *buf)
{
	if (!buf->fds)
		return;
	fbinder_buffer_put_fds(buf->fds, buf->nr_fds);
	buf->fds = NULL;
	buf->nr_fds = 0;
}

int fbinder_fd_take(int fd, struct file **file);
int fbinder_fds_take_array(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
			   u64 pos, u32 count, bool cloexec,
			   struct fbinder_buffer_fd *fds, u32 *nr);
int fbinder_fds_reserve(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
			int **fdnums);
void fbinder_fds_unreserve(int *fdnums, u32 nr);
void fbinder_fds_install(struct fbinder_buffer *buf, int *fdnums);

/* txn.c */
int fbinder_send(struct fbinder_thread *thread, const void __user *arg, bool reply);
int fbinder_send_batch(struct fbinder_thread *thread,
		       const struct fbinder_batch_send *bs);
#define FBINDER_FREE_BATCH	32	/* FREE_BUFFER commands handled together */
int fbinder_free_buffers(struct fbinder_ctx *ctx, const u64 *offsets, u32 n,
			 u32 *freed);
void fbinder_txn_count_clocked(struct fbinder_txn *t, int delta);
void fbinder_ctx_drop_senders_relock(struct fbinder_ctx *ctx, struct fbinder_hold *b);
void fbinder_ctx_free_buffer(struct fbinder_ctx *ctx);
void fbinder_txn_fail_locked(struct fbinder_txn *call, int error);
void fbinder_call_fail(struct fbinder_txn *call, int error);
struct fbinder_buffer *fbinder_txn_discard_locked(struct fbinder_txn *txn);
void fbinder_thread_unwind_locked(struct fbinder_thread *thread);
void fbinder_txn_free(struct fbinder_txn *txn);
void fbinder_buffer_discard(struct fbinder_ctx *ctx, struct fbinder_buffer *buf);

/* gather.c: a scatter-gather send's data, read once before the send */
#define FBINDER_GATHER_FAST	4	/* pieces read into the struct itself */
struct fbinder_gather {
	struct iovec *iov;		/* the sender's pieces, checked */
	struct iov_iter iter;		/* over them, at the first byte */
	u64 size;			/* their sum: the message's data size */
	/* a short list (the common header and payload) needs no allocation */
	struct fbinder_iovec fast[FBINDER_GATHER_FAST];
};

int fbinder_gather_read(struct fbinder_gather *g, const struct fbinder_txn_sg *sg);
void fbinder_gather_free(struct fbinder_gather *g);
int fbinder_xlate_ptr(struct fbinder_object *obj, u64 data_size, u64 base, u64 *end);
int fbinder_fda_array(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
		      const struct fbinder_fda_object *fda, const u64 *offsets,
		      u32 index, u64 base, u64 *pos);
bool fbinder_range_hits_object(const u64 *offsets, u32 count, u64 start, u64 len);
int fbinder_send_sg(struct fbinder_thread *thread, const struct fbinder_txn_sg *sg,
		    bool reply);

/* protocol.c */
int fbinder_write_read(struct fbinder_thread *thread, unsigned long arg, bool nonblock);
bool fbinder_thread_has_work_clocked(struct fbinder_thread *thread);
int fbinder_abandon_call(struct fbinder_thread *thread);

/* debugfs.c */
void fbinder_debugfs_init(void);
void fbinder_debugfs_exit(void);

/* stats.c (the counters themselves: stats.h) */
void fbinder_record_failure(int error, enum fbinder_failure_what what,
			    struct fbinder_ctx *from, struct fbinder_ctx *to,
			    struct fbinder_node *target, u32 code);
void fbinder_record_failure_pid(int error, enum fbinder_failure_what what,
				struct pid *from, kuid_t from_uid,
				struct fbinder_ctx *to, struct fbinder_node *target,
				u32 code);

/* info.c */
long fbinder_info(void __user *arg);

#endif /* _FBINDER_INTERNAL_H */
