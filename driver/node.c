// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: nodes (objects a context exports) and handles (a context's
 * references to other contexts' nodes).
 *
 * A node is created the first time its owner sends it.  It stays in the
 * owner's tree while any handle of another context, or any of the owner's
 * own buffers, refers to it.  When the last one goes, the owner is sent
 * FBINDER_RET_RELEASE with the number of sends it retires (fbinder_node.exports), and
 * the node leaves the tree: a later send of the same cookie makes a new one.
 * That count lets user space free its object without a handshake.
 *
 * Handle ids count up and wrap from 0xffffffff to 1, skipping the ids
 * still in use (fbinder_handle_alloc_id_locked()): an id comes back in a
 * context only after every other id was handed out there once more, so
 * a stale id cannot reach another object short of 2^32 - 2 new handles in
 * between, and ids never run out.  Handle 0 is the device's context
 * manager, held by no handle record.
 */
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/uidgid.h>

#include "internal.h"
#include "stats.h"

unsigned int fbinder_max_handles = 65536;
module_param_named(max_handles, fbinder_max_handles, uint, 0644);
MODULE_PARM_DESC(max_handles, "Most handles one context may hold (default 65536)");

static int fbinder_manager_uid = -1;
module_param_named(manager_uid, fbinder_manager_uid, int, 0444);
MODULE_PARM_DESC(manager_uid,
		 "Effective uid (initial user namespace) that may claim handle 0 without CAP_SYS_ADMIN (default -1: none)");
/* Where a new context's ids start: tests start near 2^32 to see them wrap. */
unsigned int fbinder_handle_id_start = 1;
module_param_named(handle_id_start, fbinder_handle_id_start, uint, 0644);
MODULE_PARM_DESC(handle_id_start,
		 "First handle id of a new context, for tests of the id wrap (default 1)");

/*
 * Nodes a context owns: in its tree, or out of it with a release notice
 * the owner has not read yet (an owner that never reads keeps them all).
 * Each is kernel memory its owner makes at will, one per cookie it sends,
 * so they are bounded per context and, since one user may open any
 * number of contexts, per user (the context's euid at open).  Both are
 * read at each node's creation: the send that would create one more
 * fails with EDQUOT.
 */
unsigned int fbinder_max_nodes = 65536;
module_param_named(max_nodes, fbinder_max_nodes, uint, 0644);
MODULE_PARM_DESC(max_nodes,
		 "Most nodes one context may own, those with an unread release notice included (default 65536)");

unsigned int fbinder_max_user_nodes = 262144;
module_param_named(max_user_nodes, fbinder_max_user_nodes, uint, 0644);
MODULE_PARM_DESC(max_user_nodes,
		 "Most nodes the contexts of one user may own together (default 262144)");

/* The count of max_user_nodes, one per euid with a context. */
struct fbinder_node_user {
	struct hlist_node entry;	/* fbinder_node_users */
	kuid_t uid;
	u32 refs;			/* its contexts, under fbinder_node_users_lock */
	atomic_t nodes;			/* they own, as fbinder_ctx.nr_owned */
};

static DEFINE_HASHTABLE(fbinder_node_users, 6);
/* A leaf: taken alone, or inside the spinlocks by the last put of a context. */
static DEFINE_SPINLOCK(fbinder_node_users_lock);

struct fbinder_node_user *fbinder_node_user_get(kuid_t uid)
{
	struct fbinder_node_user *u, *new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);

	if (!new)
		return NULL;
	spin_lock(&fbinder_node_users_lock);
	hash_for_each_possible(fbinder_node_users, u, entry, __kuid_val(uid)) {
		if (uid_eq(u->uid, uid)) {
			u->refs++;
			spin_unlock(&fbinder_node_users_lock);
			kfree(new);
			return u;
		}
	}
	new->uid = uid;
	new->refs = 1;
	hash_add(fbinder_node_users, &new->entry, __kuid_val(uid));
	spin_unlock(&fbinder_node_users_lock);
	return new;
}

void fbinder_node_user_put(struct fbinder_node_user *u)
{
	spin_lock(&fbinder_node_users_lock);
	if (--u->refs) {
		u = NULL;
	} else {
		WARN_ON_ONCE(atomic_read(&u->nodes));
		hash_del(&u->entry);
	}
	spin_unlock(&fbinder_node_users_lock);
	kfree(u);
}

static atomic64_t fbinder_node_ids = ATOMIC64_INIT(0);

struct fbinder_node *fbinder_node_new(void)
{
	struct fbinder_node *node = kzalloc(sizeof(*node), GFP_KERNEL_ACCOUNT);

	if (!node)
		return NULL;
	node->work.type = FBINDER_WORK_RELEASE;
	INIT_LIST_HEAD(&node->work.entry);
	INIT_LIST_HEAD(&node->async_todo);
	INIT_LIST_HEAD(&node->deaths);
	RB_CLEAR_NODE(&node->rb_node);
	return node;
}

/* The id debugfs shows for a new node (regions' too). */
u64 fbinder_node_new_id(void)
{
	return atomic64_inc_return(&fbinder_node_ids);
}

struct fbinder_handle *fbinder_handle_new(void)
{
	return kzalloc(sizeof(struct fbinder_handle), GFP_KERNEL_ACCOUNT);
}

/* The trees of a context, for rb_find() and rb_add(). */
#define fbinder_node_of(n)		rb_entry((n), struct fbinder_node, rb_node)
#define fbinder_handle_of_id(n)	rb_entry((n), struct fbinder_handle, rb_id)
#define fbinder_handle_of_node(n)	rb_entry((n), struct fbinder_handle, rb_node)

static int fbinder_node_cmp(const void *cookie, const struct rb_node *n)
{
	return fbinder_cmp(*(const u64 *)cookie, fbinder_node_of(n)->cookie);
}

static bool fbinder_node_less(struct rb_node *a, const struct rb_node *b)
{
	return fbinder_node_of(a)->cookie < fbinder_node_of(b)->cookie;
}

static int fbinder_handle_id_cmp(const void *id, const struct rb_node *n)
{
	return fbinder_cmp(*(const u32 *)id, fbinder_handle_of_id(n)->id);
}

static bool fbinder_handle_id_less(struct rb_node *a, const struct rb_node *b)
{
	return fbinder_handle_of_id(a)->id < fbinder_handle_of_id(b)->id;
}

/* Handles of at least id match. */
static int fbinder_handle_id_from_cmp(const void *id, const struct rb_node *n)
{
	return fbinder_handle_of_id(n)->id < *(const u32 *)id;
}

static int fbinder_handle_node_cmp(const void *node, const struct rb_node *n)
{
	return fbinder_cmp((unsigned long)node,
			   (unsigned long)fbinder_handle_of_node(n)->node);
}

static bool fbinder_handle_node_less(struct rb_node *a, const struct rb_node *b)
{
	return fbinder_handle_of_node(a)->node < fbinder_handle_of_node(b)->node;
}

static struct fbinder_node *fbinder_node_find(struct fbinder_ctx *ctx, u64 cookie)
{
	struct rb_node *n = rb_find(&cookie, &ctx->nodes, fbinder_node_cmp);

	return n ? fbinder_node_of(n) : NULL;
}

struct fbinder_node *fbinder_node_lookup_locked(struct fbinder_ctx *ctx, u64 cookie)
{
	lockdep_assert_held(&ctx->dev->lock);
	return fbinder_node_find(ctx, cookie);
}

/*
 * The same under ctx's own lock: its nodes tree changes under both locks.
 * A node found there is live and ctx owns it: it leaves the tree as it
 * stops being either (fbinder_node_check_olocked(), the end).
 */
struct fbinder_node *fbinder_node_lookup_clocked(struct fbinder_ctx *ctx, u64 cookie)
{
	lockdep_assert_held(&ctx->lock);
	return fbinder_node_find(ctx, cookie);
}

/*
 * The live node of ctx for cookie; inserts *spare (and clears it) when
 * there is none.  NULL when there is none and no spare; -EDQUOT when ctx
 * or its user owns as many nodes as it may.
 */
struct fbinder_node *fbinder_node_get_or_insert_locked(struct fbinder_ctx *ctx, u64 cookie,
						       struct fbinder_node **spare)
{
	struct fbinder_node_user *u = ctx->node_user;
	struct fbinder_node *node;

	lockdep_assert_held(&ctx->dev->lock);
	node = fbinder_node_lookup_locked(ctx, cookie);
	if (node || !*spare)
		return node;
	if (ctx->nr_owned >= READ_ONCE(fbinder_max_nodes))
		return ERR_PTR(-EDQUOT);
	/* other devices' locks guard the user's other contexts: atomic */
	if (atomic_inc_return(&u->nodes) > READ_ONCE(fbinder_max_user_nodes)) {
		atomic_dec(&u->nodes);
		return ERR_PTR(-EDQUOT);
	}
	ctx->nr_owned++;
	node = *spare;
	*spare = NULL;
	node->owner = ctx;
	node->dev = ctx->dev;
	node->cookie = cookie;
	node->state = FBINDER_NODE_LIVE;
	node->debug_id = fbinder_node_new_id();
	/* the tree changes under ctx's lock too: a buffer's free looks there */
	spin_lock(&ctx->lock);
	rb_add(&node->rb_node, &ctx->nodes, fbinder_node_less);
	ctx->nr_nodes++;
	spin_unlock(&ctx->lock);
	fbinder_stat_inc(FBINDER_STAT_LIVE_NODES);
	return node;
}

static void fbinder_node_free_locked(struct fbinder_node *node)
{
	lockdep_assert_held(&node->dev->lock);
	if (node->region)
		fbinder_region_free_locked(node);
	list_del_init(&node->work.entry);
	/* a sender may have found it just before (fbinder_send_target()) */
	kfree_rcu(node, rcu);
	fbinder_stat_dec(FBINDER_STAT_LIVE_NODES);
}

/* The node leaves its owner's count (fbinder_ctx.nr_owned): freed or dead. */
static void fbinder_node_unown_locked(struct fbinder_node *node)
{
	lockdep_assert_held(&node->dev->lock);
	node->owner->nr_owned--;
	atomic_dec(&node->owner->node_user->nodes);
}

/*
 * Called after any of a node's counts dropped, under the device lock and
 * the lock of its owner, if it has one: its message counts (buf_refs,
 * tmp_refs) change under that lock alone too.
 */
void fbinder_node_check_olocked(struct fbinder_node *node)
{
	lockdep_assert_held(&node->dev->lock);
	if (node->owner && !node->region)
		lockdep_assert_held(&node->owner->lock);
	if (node->region) {
		/* no release notice: a region's owner names it by handle */
		if (fbinder_region_check_locked(node))
			fbinder_node_free_locked(node);
		return;
	}
	switch (node->state) {
	case FBINDER_NODE_LIVE:
		if (node->is_ctx_mgr || node->handle_count || node->buf_refs ||
		    node->tmp_refs)
			return;
		rb_erase(&node->rb_node, &node->owner->nodes);
		node->owner->nr_nodes--;
		RB_CLEAR_NODE(&node->rb_node);
		/* an ending owner reads no notice (fbinder_ctx_end()) */
		if (!node->exports || node->owner->dead) {
			fbinder_node_unown_locked(node);
			fbinder_node_free_locked(node);
			return;
		}
		WRITE_ONCE(node->state, FBINDER_NODE_RELEASING);
		fbinder_stat_inc(FBINDER_STAT_RELEASE_NOTICES);
		fbinder_ctx_enqueue_clocked(node->owner, &node->work, false);
		return;
	case FBINDER_NODE_RELEASING:
		return;
	case FBINDER_NODE_DEAD:
		if (!node->handle_count && !node->tmp_refs &&
		    !node->link_refs)
			fbinder_node_free_locked(node);
		return;
	}
}

/*
 * Adds delta (1 or -1) to one of node's counts (count, or none), then,
 * after a drop, checks it (fbinder_node_check_olocked()).  A drop of a
 * count already at zero (a dead node's buf_refs) only checks.
 */
static void fbinder_node_count_olocked(struct fbinder_node *node, u32 *count, int delta)
{
	lockdep_assert_held(&node->dev->lock);
	if (count && delta > 0)
		(*count)++;
	else if (count && *count)
		(*count)--;
	if (delta <= 0)
		fbinder_node_check_olocked(node);
}

/*
 * The same under the device lock alone: the owner's lock is taken around
 * it, as a live node's counts change under it too, where a fast path
 * reads them (fbinder_node_put_fast_clocked()).
 */
static void fbinder_node_count_locked(struct fbinder_node *node, u32 *count, int delta)
{
	struct fbinder_ctx *owner = node->owner;

	lockdep_assert_held(&node->dev->lock);
	if (!owner || node->region) {
		fbinder_node_count_olocked(node, count, delta);
	} else {
		spin_lock(&owner->lock);
		fbinder_node_count_olocked(node, count, delta);
		spin_unlock(&owner->lock);
	}
}

/* fbinder_node_check_olocked(), under the device lock alone. */
void fbinder_node_check_locked(struct fbinder_node *node)
{
	lockdep_assert_held(&node->dev->lock);
	fbinder_node_count_locked(node, NULL, 0);
}

/*
 * Drops one of a node's message references (buf true: a buffer's,
 * buf_refs; else a pin, tmp_refs), under the device lock alone: the last
 * one, which a fast path leaves to this (fbinder_node_put_fast_clocked()),
 * or one a slow path holds.
 */
void fbinder_node_drop_locked(struct fbinder_node *node, bool buf)
{
	lockdep_assert_held(&node->dev->lock);
	fbinder_node_count_locked(node, buf ? &node->buf_refs : &node->tmp_refs, -1);
}

/* The same, with no lock held. */
void fbinder_node_drop(struct fbinder_node *node, bool buf)
{
	struct fbinder_device *dev = node->dev;

	spin_lock(&dev->lock);
	fbinder_node_drop_locked(node, buf);
	spin_unlock(&dev->lock);
}

/* fbinder_node_unpin_clocked(), its lock not held, and done either way. */
void fbinder_node_unpin(struct fbinder_ctx *owner, struct fbinder_node *node)
{
	bool done;

	spin_lock(&owner->lock);
	done = fbinder_node_unpin_clocked(owner, node);
	spin_unlock(&owner->lock);
	if (!done)
		fbinder_node_drop(node, false);
}

/* The release notice was read by its owner, or dropped with it. */
void fbinder_node_notice_done_locked(struct fbinder_node *node)
{
	lockdep_assert_held(&node->dev->lock);
	fbinder_node_unown_locked(node);
	fbinder_node_free_locked(node);
}

/*
 * The owner is gone: its nodes die, one per step of b.  The oneway
 * messages still waiting for them move to *async, for the caller to
 * discard (the transactions' business, fbinder_txn_discard_locked()).  A
 * node that holders linked to goes on *dying, pinned, and its holders hear
 * of the death from fbinder_nodes_fire_deaths() once the caller dropped
 * the lock: any number of contexts may have linked to one node.  A dead
 * node never sends its release notice, so its work entry is free for that
 * list.
 */
void fbinder_ctx_drop_nodes_relock(struct fbinder_ctx *ctx, struct list_head *dying,
				   struct list_head *async, struct fbinder_hold *b)
	__must_hold(&ctx->dev->lock)
{
	struct fbinder_device *dev = ctx->dev;
	struct rb_node *rb;

	lockdep_assert_held(&dev->lock);
	lockdep_assert_held(&ctx->lock);
	while ((rb = rb_first(&ctx->nodes))) {
		struct fbinder_node *node = rb_entry(rb, struct fbinder_node, rb_node);

		list_splice_tail_init(&node->async_todo, async);
		rb_erase(rb, &ctx->nodes);
		ctx->nr_nodes--;
		RB_CLEAR_NODE(rb);
		if (dev->ctx_mgr == node)
			WRITE_ONCE(dev->ctx_mgr, NULL);
		node->is_ctx_mgr = false;
		fbinder_node_unown_locked(node);
		WRITE_ONCE(node->state, FBINDER_NODE_DEAD);
		WRITE_ONCE(node->owner, NULL);
		node->buf_refs = 0;	/* the buffers die with the context */
		node->async_out = 0;
		if (!list_empty(&node->deaths)) {
			node->tmp_refs++;
			list_add_tail(&node->work.entry, dying);
		}
		fbinder_node_check_olocked(node);
		fbinder_hold_step_crelock(b);
	}
}

static struct fbinder_handle *fbinder_handle_find(struct fbinder_ctx *ctx, u32 id)
{
	struct rb_node *n = rb_find(&id, &ctx->handles, fbinder_handle_id_cmp);

	return n ? fbinder_handle_of_id(n) : NULL;
}

struct fbinder_handle *fbinder_handle_lookup_locked(struct fbinder_ctx *ctx, u32 id)
{
	lockdep_assert_held(&ctx->dev->lock);
	return fbinder_handle_find(ctx, id);
}

/* The same under ctx's own lock (the trees change under both). */
struct fbinder_handle *fbinder_handle_lookup_clocked(struct fbinder_ctx *ctx, u32 id)
{
	lockdep_assert_held(&ctx->lock);
	return fbinder_handle_find(ctx, id);
}

/* The node a handle of ctx names, or NULL for a handle it does not have. */
struct fbinder_node *fbinder_handle_to_node_locked(struct fbinder_ctx *ctx, u32 id)
{
	struct fbinder_handle *h;

	lockdep_assert_held(&ctx->dev->lock);
	if (id == FBINDER_CONTEXT_MGR_HANDLE)
		return ctx->dev->ctx_mgr;
	h = fbinder_handle_lookup_locked(ctx, id);
	return h ? h->node : NULL;
}

/*
 * The same under ctx's own lock, for a send: its handles trees change
 * under both locks.  Handle 0's node is read under RCU (the caller's
 * read-side section): it may be going, which the caller checks under its
 * owner's lock.
 */
struct fbinder_node *fbinder_handle_to_node_clocked(struct fbinder_ctx *ctx, u32 id)
{
	struct fbinder_handle *h;

	lockdep_assert_held(&ctx->lock);
	if (id == FBINDER_CONTEXT_MGR_HANDLE)
		return READ_ONCE(ctx->dev->ctx_mgr);
	h = fbinder_handle_find(ctx, id);
	return h ? h->node : NULL;
}

static struct fbinder_handle *fbinder_handle_find_node(struct fbinder_ctx *ctx,
						       struct fbinder_node *node)
{
	struct rb_node *n = rb_find(node, &ctx->handles_by_node, fbinder_handle_node_cmp);

	return n ? fbinder_handle_of_node(n) : NULL;
}

static struct fbinder_handle *fbinder_handle_by_node_locked(struct fbinder_ctx *ctx,
							    struct fbinder_node *node)
{
	lockdep_assert_held(&ctx->dev->lock);
	return fbinder_handle_find_node(ctx, node);
}

/* The same under ctx's own lock (the trees change under both). */
struct fbinder_handle *fbinder_handle_by_node_clocked(struct fbinder_ctx *ctx,
						      struct fbinder_node *node)
{
	lockdep_assert_held(&ctx->lock);
	return fbinder_handle_find_node(ctx, node);
}

/*
 * The next handle id of ctx: the counter's, or the first id after it not
 * in use, wrapping from 0xffffffff to 1.  Fewer ids are in use than exist
 * (nr_handles < max_handles, a u32), so there always is one.  Walking past
 * ids in use (at most nr_handles steps) happens only where the counter
 * comes round to them again, 2^32 - 2 ids later.
 */
u32 fbinder_handle_alloc_id_locked(struct fbinder_ctx *ctx)
{
	u32 id = ctx->next_handle ?: 1;
	struct rb_node *next;

	lockdep_assert_held(&ctx->dev->lock);
	/* the handle with the smallest id >= id, if any */
	next = rb_find_first(&id, &ctx->handles, fbinder_handle_id_from_cmp);
	while (next && fbinder_handle_of_id(next)->id == id) {
		next = rb_next(next);
		if (!++id) {
			id = 1;
			next = rb_first(&ctx->handles);
		}
	}
	ctx->next_handle = id + 1 ?: 1;
	return id;
}

/* Puts h in ctx->handles by its id, which no other handle there has. */
void fbinder_handle_insert_id_locked(struct fbinder_ctx *ctx, struct fbinder_handle *h)
{
	lockdep_assert_held(&ctx->dev->lock);
	rb_add(&h->rb_id, &ctx->handles, fbinder_handle_id_less);
}

/*
 * ctx's handle for node, created from *spare when it has none.  *out is
 * NULL for the context manager (handle 0, not counted).  -EAGAIN asks the
 * caller for a spare; -EDQUOT when ctx holds too many handles.
 */
int fbinder_handle_for_node_locked(struct fbinder_ctx *ctx, struct fbinder_node *node,
				   struct fbinder_handle **spare, struct fbinder_handle **out)
{
	struct fbinder_handle *h;

	lockdep_assert_held(&ctx->dev->lock);
	*out = NULL;
	if (node == ctx->dev->ctx_mgr)
		return 0;
	h = fbinder_handle_by_node_locked(ctx, node);
	if (h) {
		*out = h;
		return 0;
	}
	if (ctx->nr_handles >= fbinder_max_handles)
		return -EDQUOT;
	if (!*spare)
		return -EAGAIN;
	h = *spare;
	*spare = NULL;
	h->ctx = ctx;
	h->node = node;
	INIT_LIST_HEAD(&h->deaths);
	/* the trees change under ctx's lock too: a send looks there */
	spin_lock(&ctx->lock);
	rb_add(&h->rb_node, &ctx->handles_by_node, fbinder_handle_node_less);
	h->id = fbinder_handle_alloc_id_locked(ctx);
	fbinder_handle_insert_id_locked(ctx, h);
	spin_unlock(&ctx->lock);

	ctx->nr_handles++;
	fbinder_node_count_locked(node, &node->handle_count, 1);
	fbinder_stat_inc(FBINDER_STAT_LIVE_HANDLES);
	*out = h;
	return 0;
}

static void fbinder_handle_destroy_locked(struct fbinder_handle *h)
{
	struct fbinder_node *node = h->node;

	lockdep_assert_held(&h->ctx->dev->lock);
	h->ctx->nr_handles--;
	kfree(h);
	fbinder_stat_dec(FBINDER_STAT_LIVE_HANDLES);
	fbinder_node_count_locked(node, &node->handle_count, -1);
}

/* The handle leaves its holder's trees: nothing finds it any more. */
static void fbinder_handle_unlink_clocked(struct fbinder_handle *h)
{
	lockdep_assert_held(&h->ctx->lock);
	rb_erase(&h->rb_id, &h->ctx->handles);
	rb_erase(&h->rb_node, &h->ctx->handles_by_node);
}

/*
 * The unlinked handle goes, and its death links with it.  A holder may
 * have linked up to max_death_links cookies to one handle: when more are
 * left than one batch, the handle waits on ctx->dying_handles for
 * fbinder_ctx_drop_dying_handles().  Returns true then.
 */
static bool fbinder_handle_free_unlinked_locked(struct fbinder_handle *h)
{
	lockdep_assert_held(&h->ctx->dev->lock);
	if (fbinder_handle_drop_deaths_locked(h, NULL)) {
		list_add_tail(&h->dying_entry, &h->ctx->dying_handles);
		return true;
	}
	fbinder_handle_destroy_locked(h);
	return false;
}

static bool fbinder_handle_free_locked(struct fbinder_handle *h)
{
	lockdep_assert_held(&h->ctx->dev->lock);
	spin_lock(&h->ctx->lock);
	fbinder_handle_unlink_clocked(h);
	spin_unlock(&h->ctx->lock);
	return fbinder_handle_free_unlinked_locked(h);
}

/*
 * Called after any of a handle's counts dropped.  True when the caller
 * must call fbinder_ctx_drop_dying_handles() once it dropped the lock.
 * The counts change under the holder's lock, where they do not reach zero
 * under that lock alone (a buffer's free, a send): so the handle is found
 * unused and unlinked in one hold of it.
 */
bool fbinder_handle_check_locked(struct fbinder_handle *h)
{
	bool unused;

	lockdep_assert_held(&h->ctx->dev->lock);
	spin_lock(&h->ctx->lock);
	unused = !h->user_refs && !h->buf_refs;
	if (unused)
		fbinder_handle_unlink_clocked(h);
	spin_unlock(&h->ctx->lock);
	return unused && fbinder_handle_free_unlinked_locked(h);
}

/*
 * The links of handles freed with many (fbinder_handle_free_locked()) go a
 * batch per hold of the device lock, then the handles.  Whoever freed
 * them calls this before it returns to user space.
 */
void fbinder_ctx_drop_dying_handles(struct fbinder_ctx *ctx)
{
	struct fbinder_device *dev = ctx->dev;
	struct fbinder_handle *h;
	struct fbinder_hold b;
	LIST_HEAD(freed);

	spin_lock(&dev->lock);
	fbinder_hold_start_locked(&b, dev);
	while ((h = list_first_entry_or_null(&ctx->dying_handles,
					     struct fbinder_handle, dying_entry))) {
		if (!fbinder_handle_drop_deaths_locked(h, &freed)) {
			list_del(&h->dying_entry);
			fbinder_handle_destroy_locked(h);
		}
		fbinder_hold_end_locked(&b);
		spin_unlock(&dev->lock);
		fbinder_death_free_list(&freed);
		cond_resched();
		spin_lock(&dev->lock);
		fbinder_hold_start_locked(&b, dev);
	}
	fbinder_hold_end_locked(&b);
	spin_unlock(&dev->lock);
}

/*
 * At the context's end, one handle per step of b.  Its links are gone
 * already (fbinder_ctx_drop_deaths()), those of a handle freed just
 * before too (fbinder_ctx_drop_dying_handles() ran before its ioctl returned).
 */
void fbinder_ctx_drop_handles_relock(struct fbinder_ctx *ctx, struct fbinder_hold *b)
	__must_hold(&ctx->dev->lock)
{
	struct fbinder_handle *h;
	struct rb_node *rb;

	lockdep_assert_held(&ctx->dev->lock);
	while ((rb = rb_first(&ctx->handles))) {
		fbinder_handle_free_locked(rb_entry(rb, struct fbinder_handle, rb_id));
		fbinder_hold_step_relock(b);
	}
	while ((h = list_first_entry_or_null(&ctx->dying_handles,
					     struct fbinder_handle, dying_entry))) {
		if (!fbinder_handle_drop_deaths_locked(h, NULL)) {
			list_del(&h->dying_entry);
			fbinder_handle_destroy_locked(h);
		}
		fbinder_hold_step_relock(b);
	}
}

/*
 * What FBINDER_CMD_ACQUIRE and FBINDER_CMD_RELEASE count on: the handle,
 * or NULL.  Handle 0 is permanent, so there is nothing to count (*ret 0),
 * unless the device has no context manager (*ret -ENOENT, as for an id
 * that names no handle).
 */
static struct fbinder_handle *fbinder_handle_ref_target_locked(struct fbinder_ctx *ctx,
							       u32 id, int *ret)
{
	struct fbinder_handle *h;

	lockdep_assert_held(&ctx->dev->lock);
	if (id == FBINDER_CONTEXT_MGR_HANDLE) {
		*ret = ctx->dev->ctx_mgr ? 0 : -ENOENT;
		return NULL;
	}
	h = fbinder_handle_lookup_locked(ctx, id);
	*ret = h ? 0 : -ENOENT;
	return h;
}

int fbinder_handle_acquire(struct fbinder_ctx *ctx, u32 id)
{
	struct fbinder_handle *h;
	int ret;

	spin_lock(&ctx->dev->lock);
	h = fbinder_handle_ref_target_locked(ctx, id, &ret);
	spin_lock(&ctx->lock);
	if (h && h->user_refs == U32_MAX)
		ret = -EOVERFLOW;
	else if (h)
		h->user_refs++;
	spin_unlock(&ctx->lock);
	spin_unlock(&ctx->dev->lock);
	return ret;
}

int fbinder_handle_release(struct fbinder_ctx *ctx, u32 id)
{
	bool dying = false;
	struct fbinder_handle *h;
	int ret;

	spin_lock(&ctx->dev->lock);
	h = fbinder_handle_ref_target_locked(ctx, id, &ret);
	spin_lock(&ctx->lock);
	if (h && !h->user_refs)
		ret = -EINVAL;
	else if (h)
		h->user_refs--;
	spin_unlock(&ctx->lock);
	if (h && !ret)
		dying = fbinder_handle_check_locked(h);
	spin_unlock(&ctx->dev->lock);
	if (dying)
		fbinder_ctx_drop_dying_handles(ctx);
	return ret;
}

/*
 * Handle 0 answers every lookup, so claiming it takes privilege:
 * CAP_SYS_ADMIN in the device's user namespace (the initial one for a
 * devices= device, the one owning the mount for a fastbinderfs one), or
 * the euid that the module parameter manager_uid names.  The configured
 * uid is tried first, so a manager running as it leaves no capability
 * check in the audit log.
 */
static bool fbinder_may_claim(struct fbinder_device *dev, kuid_t euid)
{
	kuid_t uid = fbinder_manager_uid < 0 ? INVALID_UID :
		     make_kuid(&init_user_ns, fbinder_manager_uid);

	return (uid_valid(uid) && uid_eq(euid, uid)) ||
	       ns_capable(dev->user_ns, CAP_SYS_ADMIN);
}

/*
 * FBINDER_IOC_SET_CONTEXT_MGR.  The first claim pins its euid on the device
 * (binder's context_mgr_uid): once that manager is gone, only the same
 * euid, still privileged, may claim again, so nobody else can take the
 * name service over by waiting for a restart.
 */
int fbinder_set_context_mgr(struct fbinder_ctx *ctx, u64 cookie, u32 flags)
{
	struct fbinder_device *dev = ctx->dev;
	kuid_t euid = current_euid();
	struct fbinder_node *spare;
	struct fbinder_node *node;
	int ret = 0;

	if (!fbinder_may_claim(dev, euid))
		return -EPERM;
	spare = fbinder_node_new();
	if (!spare)
		return -ENOMEM;
	spin_lock(&dev->lock);
	if (uid_valid(dev->ctx_mgr_uid) && !uid_eq(dev->ctx_mgr_uid, euid)) {
		ret = -EPERM;
	} else if (dev->ctx_mgr) {
		ret = -EBUSY;
	} else {
		node = fbinder_node_get_or_insert_locked(ctx, cookie, &spare);
		if (IS_ERR(node)) {
			ret = PTR_ERR(node);
			goto out;
		}
		/* like a send's, the flags count when they create the node */
		if (!spare) {
			node->accepts_fds = flags & FBINDER_OBJF_ACCEPTS_FDS;
			node->txn_secctx = flags & FBINDER_OBJF_TXN_SECCTX;
		}
		spin_lock(&ctx->lock);
		node->is_ctx_mgr = true;
		node->exports++;
		spin_unlock(&ctx->lock);
		WRITE_ONCE(dev->ctx_mgr, node);
		dev->ctx_mgr_uid = euid;
	}
out:
	spin_unlock(&dev->lock);
	kfree(spare);
	return ret;
}
