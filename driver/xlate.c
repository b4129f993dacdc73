// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: a message's objects, translated.
 *
 * A send copies its payload into the receiver's slot around its objects
 * and writes each object only once it is checked and translated into what
 * the receiver sees (fbinder_copy_objects()): the sender's node becomes the
 * receiver's handle of it, a handle the receiver's own node or its handle
 * of the same node, a file a reference installed at the read.  The
 * references a buffer's objects hold are dropped when it is freed, or when
 * the send fails (fbinder_buffer_drop_refs()).  The common cases (a node
 * or handle the receiver already knows) take the two contexts' locks one
 * after the other; a node or handle to create, or a last reference, the
 * object graph's device lock (internal.h, Locking).
 */
#include <linux/file.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "internal.h"
#include "xlate.h"

/* Allocates the spare node and handle a translation step may consume. */
static int fbinder_xlate_refill(struct fbinder_xlate *x)
{
	if (!x->spare_node)
		x->spare_node = fbinder_node_new();
	if (!x->spare_handle)
		x->spare_handle = fbinder_handle_new();
	return x->spare_node && x->spare_handle ? 0 : -ENOMEM;
}

/* A buffer's reference on its receiver's handle: under the holder's lock. */
static void fbinder_handle_count_buf(struct fbinder_handle *h)
{
	spin_lock(&h->ctx->lock);
	h->buf_refs++;
	spin_unlock(&h->ctx->lock);
}

/* The same, dropped; false when there was none. */
static bool fbinder_handle_uncount_buf(struct fbinder_handle *h)
{
	bool had;

	spin_lock(&h->ctx->lock);
	had = h->buf_refs;
	if (had)
		h->buf_refs--;
	spin_unlock(&h->ctx->lock);
	return had;
}

/*
 * Makes obj, as the sender wrote it, into what the receiver sees, taking
 * the references the buffer holds.  Returns -EAGAIN when it needs a
 * spare node or handle allocated first (fbinder_xlate_refill).
 */
static int fbinder_xlate_one_locked(struct fbinder_xlate *x, struct fbinder_object *obj)
{
	struct fbinder_node *node;
	struct fbinder_handle *h;
	int ret;

	lockdep_assert_held(&x->from->dev->lock);
	if (x->to->dead)
		return -EOWNERDEAD;
	switch (obj->type) {
	case FBINDER_OBJ_LOCAL:
		/* a minimum the owner may not have fails the node's creation */
		if (x->prio_denied && !fbinder_node_lookup_locked(x->from, obj->cookie))
			return -EPERM;
		if (!x->spare_node)
			return -EAGAIN;
		node = fbinder_node_get_or_insert_locked(x->from, obj->cookie,
							 &x->spare_node);
		if (IS_ERR(node))
			return PTR_ERR(node);
		/* the send that creates a node sets its minimum priority */
		if (!x->spare_node) {
			node->has_min_prio =
				fbinder_prio_from_flags(obj->flags, &node->min_prio);
			node->accepts_fds = obj->flags & FBINDER_OBJF_ACCEPTS_FDS;
			node->txn_secctx = obj->flags & FBINDER_OBJF_TXN_SECCTX;
		}
		break;
	case FBINDER_OBJ_HANDLE:
		if (obj->flags)
			return -EINVAL;
		node = fbinder_handle_to_node_locked(x->from, obj->handle);
		if (!node)
			return -ENOENT;
		if (node->region)
			return -EINVAL;	/* travels as FBINDER_OBJ_REGION only */
		if (node->owner == x->to) {
			/* a count its fast paths change too: under its lock */
			spin_lock(&x->to->lock);
			node->buf_refs++;
			spin_unlock(&x->to->lock);
			obj->type = FBINDER_OBJ_LOCAL;
			obj->cookie = node->cookie;
			return 0;
		}
		break;
	case FBINDER_OBJ_REGION:
		if (obj->flags)
			return -EINVAL;
		node = fbinder_handle_to_node_locked(x->from, obj->handle);
		if (!node)
			return -ENOENT;
		if (!node->region)
			return -EINVAL;
		/* a handle for every receiver, its owner too: no cookie names it */
		ret = fbinder_handle_for_node_locked(x->to, node, &x->spare_handle, &h);
		if (ret)
			return ret;
		fbinder_handle_count_buf(h);
		obj->handle = h->id;
		return 0;
	default:
		return -EINVAL;
	}

	ret = fbinder_handle_for_node_locked(x->to, node, &x->spare_handle, &h);
	if (ret) {
		if (obj->type == FBINDER_OBJ_LOCAL)
			fbinder_node_check_locked(node);
		return ret;
	}
	if (obj->type == FBINDER_OBJ_LOCAL) {
		spin_lock(&x->from->lock);
		node->tmp_refs++;
		spin_unlock(&x->from->lock);
		x->exported[x->nr_exported++] = node;
	}
	if (h)
		fbinder_handle_count_buf(h);
	memset(obj, 0, sizeof(*obj));
	obj->type = FBINDER_OBJ_HANDLE;
	obj->handle = h ? h->id : FBINDER_CONTEXT_MGR_HANDLE;
	return 0;
}

/*
 * obj becomes the receiver's handle of node, counted, when it holds one:
 * false when it holds none, or node is handle 0's (written as 0, by
 * fbinder_xlate_one_locked()).
 */
static bool fbinder_xlate_held_clocked(struct fbinder_ctx *to, struct fbinder_node *node,
				       struct fbinder_object *obj)
{
	struct fbinder_handle *h;

	lockdep_assert_held(&to->lock);
	if (node == READ_ONCE(to->dev->ctx_mgr))
		return false;
	h = fbinder_handle_by_node_clocked(to, node);
	if (!h)
		return false;
	h->buf_refs++;
	memset(obj, 0, sizeof(*obj));
	obj->type = FBINDER_OBJ_HANDLE;
	obj->handle = h->id;
	return true;
}

/*
 * A handle, with no lock shared beyond the two contexts, where that is
 * the common case: the receiver's own node travels as its LOCAL object,
 * and a node the receiver holds a handle of as that handle.  The node is
 * found under the sender's lock and counted under the receiver's, read
 * under RCU in between, as a send finds its target
 * (fbinder_send_target()).  False for any other case (a new handle,
 * handle 0, a region, a node going): fbinder_xlate_one_locked() decides.
 */
static bool fbinder_xlate_handle_fast(struct fbinder_xlate *x, struct fbinder_object *obj)
{
	struct fbinder_ctx *to = x->to;
	struct fbinder_ctx *owner = NULL;
	struct fbinder_node *node;
	bool done = false;

	rcu_read_lock();
	spin_lock(&x->from->lock);
	node = fbinder_handle_to_node_clocked(x->from, obj->handle);
	if (node && node->region)
		node = NULL;
	else if (node)
		owner = READ_ONCE(node->owner);
	spin_unlock(&x->from->lock);
	if (!node)
		goto out;
	spin_lock(&to->lock);
	if (to->dead) {
		/* fbinder_xlate_one_locked() says so */
	} else if (owner == to) {
		/* in its owner's tree: live, and counted there (node.c) */
		if (node->owner == to && !RB_EMPTY_NODE(&node->rb_node)) {
			node->buf_refs++;
			obj->type = FBINDER_OBJ_LOCAL;
			obj->cookie = node->cookie;
			done = true;
		}
	} else {
		/* a handle of the receiver's keeps the node, dead or not */
		done = fbinder_xlate_held_clocked(to, node, obj);
	}
	spin_unlock(&to->lock);
out:
	rcu_read_unlock();
	return done;
}

/*
 * The sender's own node, already exported, to a receiver that holds a
 * handle of it: that handle, with no lock shared beyond the two contexts.
 * The node is pinned under the sender's lock (as in its tree, live), the
 * handle counted under the receiver's.  False for any other case (a node
 * or handle to create, handle 0): fbinder_xlate_one_locked() decides.
 */
static bool fbinder_xlate_local_fast(struct fbinder_xlate *x, struct fbinder_object *obj)
{
	struct fbinder_ctx *to = x->to;
	struct fbinder_node *node;
	bool done;

	spin_lock(&x->from->lock);
	node = x->from->dead ? NULL : fbinder_node_lookup_clocked(x->from, obj->cookie);
	if (node)
		node->tmp_refs++;
	spin_unlock(&x->from->lock);
	if (!node)
		return false;
	spin_lock(&to->lock);
	done = !to->dead && fbinder_xlate_held_clocked(to, node, obj);
	spin_unlock(&to->lock);
	if (done)
		x->exported[x->nr_exported++] = node;
	else
		fbinder_node_unpin(x->from, node);
	return done;
}

static int fbinder_read_offset(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
			       size_t data_size, u32 i, u64 *off)
{
	return fbinder_alloc_read(alloc, buf, ALIGN(data_size, sizeof(u64)) +
				  i * sizeof(u64), off, sizeof(*off));
}

/*
 * Takes a reference on the sender's file; the receiver installs it.  Only
 * a receiver that asked for descriptors gets any, and a bounded number: a
 * message must always fit a sane descriptor table.
 */
static int fbinder_xlate_fd(struct fbinder_xlate *x, u64 off, struct fbinder_object *obj,
			    u32 count)
{
	struct file *file;
	int ret;

	if (!x->fds_ok)
		return -EPERM;
	if (obj->flags & ~FBINDER_OBJF_NO_CLOEXEC)
		return -EINVAL;
	if (x->nr_fds + x->fda_fds >= FBINDER_MAX_FDS)
		return -EMSGSIZE;
	if (!x->fds) {
		x->fds = kvmalloc_array(min_t(u32, count, FBINDER_MAX_FDS),
					sizeof(*x->fds), GFP_KERNEL_ACCOUNT);
		if (!x->fds)
			return -ENOMEM;
	}
	ret = fbinder_fd_take(obj->fd, &file);
	if (ret)
		return ret;
	x->fds[x->nr_fds].offset = off + offsetof(struct fbinder_object, fd);
	x->fds[x->nr_fds].file = file;
	x->fds[x->nr_fds].cloexec = !(obj->flags & FBINDER_OBJF_NO_CLOEXEC);
	x->nr_fds++;
	obj->fd = -1;
	return 0;
}

/*
 * Checks an FBINDER_OBJ_FDA object against its parent, and its array
 * against the previous one's and the message's bound of descriptors, its
 * FBINDER_OBJ_FD objects counted: the files are taken once the whole
 * message is copied (fbinder_xlate_fdas()).  The object goes as sent.
 */
static int fbinder_xlate_fda(struct fbinder_xlate *x, const struct fbinder_object *obj,
			     const u64 *offsets, u64 base)
{
	const struct fbinder_fda_object *fda = (const void *)obj;
	u64 pos;
	int ret;

	static_assert(sizeof(*fda) == sizeof(*obj));
	if (!x->fds_ok)
		return -EPERM;
	if (fda->flags & ~FBINDER_OBJF_NO_CLOEXEC)
		return -EINVAL;
	ret = fbinder_fda_array(&x->to->alloc, x->buf, fda, offsets, x->count,
				base, &pos);
	if (ret)
		return ret;
	/* in order and apart: each descriptor's place is rewritten once */
	if (pos < x->fda_end)
		return -EINVAL;
	if (fda->count > FBINDER_MAX_FDS - x->nr_fds - x->fda_fds)
		return -EMSGSIZE;
	x->fda_end = pos + (u64)fda->count * sizeof(s32);
	x->fda_fds += fda->count;
	x->nr_fda++;
	return 0;
}

/*
 * The files of the message's fd arrays, its data all copied: each array
 * checked to cover no object (the receiver's descriptors are written over
 * it), then read from the slot, what the receiver got.
 */
static int fbinder_xlate_fdas(struct fbinder_xlate *x, const u64 *offsets, u32 count,
			      u64 base)
{
	struct fbinder_alloc *alloc = &x->to->alloc;
	struct fbinder_fda_object fda;
	struct fbinder_buffer_fd *fds;
	u32 i, left = x->nr_fda;
	u64 pos;
	int ret;

	if (!x->fda_fds)
		return 0;
	/* room for them all after the FBINDER_OBJ_FD objects' */
	fds = kvmalloc_array(x->nr_fds + x->fda_fds, sizeof(*fds), GFP_KERNEL_ACCOUNT);
	if (!fds)
		return -ENOMEM;
	if (x->nr_fds)
		memcpy(fds, x->fds, x->nr_fds * sizeof(*fds));
	kvfree(x->fds);
	x->fds = fds;
	for (i = 0; i < count && left; i++) {
		ret = fbinder_alloc_read(alloc, x->buf, offsets[i], &fda, sizeof(fda));
		if (ret)
			return ret;
		if (fda.type != FBINDER_OBJ_FDA)
			continue;
		left--;
		ret = fbinder_fda_array(alloc, x->buf, &fda, offsets, i, base, &pos);
		if (ret)
			return ret;
		if (fbinder_range_hits_object(offsets, count, pos,
					      (u64)fda.count * sizeof(s32)))
			return -EINVAL;
		ret = fbinder_fds_take_array(alloc, x->buf, pos, fda.count,
					     !(fda.flags & FBINDER_OBJF_NO_CLOEXEC),
					     x->fds, &x->nr_fds);
		if (ret)
			return ret;
	}
	return 0;
}

/* HANDLE and FD objects use 32 bits of the union: the rest must be 0. */
static bool fbinder_obj_upper_clear(const struct fbinder_object *obj)
{
	struct fbinder_object o = { .handle = obj->handle };

	return o.cookie == obj->cookie;
}

/*
 * Copies the payload (from data, an iterator at its first byte: one user
 * buffer, or a scatter-gather send's pieces) into the slot around its
 * objects, and each object only once it is checked and translated: the
 * receiver can read its mapping at any time, and must never see what the
 * sender wrote in an object (a cookie is often a heap address).  The
 * offsets, checked in order, are in the slot already (fbinder_send).
 */
int fbinder_copy_objects(struct fbinder_xlate *x, struct iov_iter *data,
			 const u64 *offsets, u32 count)
{
	struct fbinder_alloc *alloc = &x->to->alloc;
	struct fbinder_device *dev = x->from->dev;
	u64 base = alloc->user_base + x->buf->offset;
	u64 off, pos = 0;
	struct fbinder_object obj;
	struct fbinder_prio min;
	int ret;

	while (x->count < count) {
		off = offsets[x->count];
		if (!IS_ALIGNED(off, sizeof(u64)) || off < pos ||
		    off > x->data_size ||
		    x->data_size - off < sizeof(obj))
			return -EINVAL;
		ret = fbinder_alloc_copy_from_iter(alloc, x->buf, pos, data,
						   off - pos);
		if (ret)
			return ret;
		if (!copy_from_iter_full(&obj, sizeof(obj), data))
			return -EFAULT;
		if (obj.type == FBINDER_OBJ_LOCAL &&
		    !fbinder_prio_flags_valid(obj.flags & ~(FBINDER_OBJF_ACCEPTS_FDS |
							    FBINDER_OBJF_TXN_SECCTX)))
			return -EINVAL;
		if ((obj.type == FBINDER_OBJ_HANDLE || obj.type == FBINDER_OBJ_FD ||
		     obj.type == FBINDER_OBJ_REGION) &&
		    !fbinder_obj_upper_clear(&obj))
			return -EINVAL;
		/* judged here, unlocked: a capability check may audit */
		x->prio_denied = obj.type == FBINDER_OBJ_LOCAL &&
				 fbinder_prio_from_flags(obj.flags, &min) &&
				 !fbinder_prio_allowed(&min);
		if (obj.type == FBINDER_OBJ_FD)
			ret = fbinder_xlate_fd(x, off, &obj, count);
		else if (obj.type == FBINDER_OBJ_PTR)
			ret = fbinder_xlate_ptr(&obj, x->data_size, base, &x->ptr_end);
		else if (obj.type == FBINDER_OBJ_FDA)
			ret = fbinder_xlate_fda(x, &obj, offsets, base);
		else if (obj.type == FBINDER_OBJ_HANDLE && !obj.flags &&
			 fbinder_xlate_handle_fast(x, &obj))
			ret = 0;
		else if (obj.type == FBINDER_OBJ_LOCAL && fbinder_xlate_local_fast(x, &obj))
			ret = 0;
		else
			ret = -EAGAIN;
		while (ret == -EAGAIN) {
			spin_lock(&dev->lock);
			ret = fbinder_xlate_one_locked(x, &obj);
			spin_unlock(&dev->lock);
			if (ret == -EAGAIN && fbinder_xlate_refill(x))
				ret = -ENOMEM;
		}
		if (ret)
			return ret;
		ret = fbinder_alloc_write(alloc, x->buf, off, &obj, sizeof(obj));
		if (ret)
			return ret;
		pos = off + sizeof(obj);
		x->count++;
	}
	/* and the padding after the data (fbinder_alloc_copy_from_iter()) */
	ret = fbinder_alloc_copy_from_iter(alloc, x->buf, pos, data,
					   x->data_size - pos);
	if (ret || !x->nr_fda)
		return ret;
	return fbinder_xlate_fdas(x, offsets, count, base);
}

/*
 * An object's reference in ctx under ctx's lock alone, unless it is the
 * last of its node (fbinder_node_put_fast_clocked()) or of its handle,
 * either of which may free it.  False leaves it to the device lock.
 */
static bool fbinder_buffer_put_fast(struct fbinder_ctx *ctx, const struct fbinder_object *obj)
{
	struct fbinder_handle *h;
	struct fbinder_node *node;
	bool done = true;

	spin_lock(&ctx->lock);
	/* a dead context's nodes and handles are gone, with their counts */
	if (ctx->dead) {
		/* nothing left to count */
	} else if (obj->type == FBINDER_OBJ_LOCAL) {
		node = fbinder_node_lookup_clocked(ctx, obj->cookie);
		done = !node || fbinder_node_put_fast_clocked(node, &node->buf_refs);
	} else {
		h = fbinder_handle_lookup_clocked(ctx, obj->handle);
		if (h && h->buf_refs && (h->user_refs || h->buf_refs > 1))
			h->buf_refs--;
		else
			done = !h || !h->buf_refs;
	}
	spin_unlock(&ctx->lock);
	return done;
}

/*
 * Drops the references a buffer's first count objects hold in its own
 * context.  Used when a buffer is freed, and to undo a failed send.
 */
void fbinder_buffer_drop_refs(struct fbinder_ctx *ctx, struct fbinder_buffer *buf,
			      size_t data_size, u32 count)
{
	struct fbinder_device *dev = ctx->dev;
	struct fbinder_object obj;
	struct fbinder_handle *h;
	struct fbinder_node *node;
	bool dying = false;
	u64 off;
	u32 i;

	for (i = 0; i < count; i++) {
		if (fbinder_read_offset(&ctx->alloc, buf, data_size, i, &off) ||
		    fbinder_alloc_read(&ctx->alloc, buf, off, &obj, sizeof(obj)))
			continue;
		if ((obj.type == FBINDER_OBJ_LOCAL || obj.type == FBINDER_OBJ_HANDLE ||
		     obj.type == FBINDER_OBJ_REGION) &&
		    fbinder_buffer_put_fast(ctx, &obj))
			continue;
		spin_lock(&dev->lock);
		if (ctx->dead) {
			/* its handles and nodes are gone already */
		} else if (obj.type == FBINDER_OBJ_LOCAL) {
			node = fbinder_node_lookup_locked(ctx, obj.cookie);
			if (node)
				fbinder_node_drop_locked(node, true);
		} else if (obj.type == FBINDER_OBJ_HANDLE ||
			   obj.type == FBINDER_OBJ_REGION) {
			h = fbinder_handle_lookup_locked(ctx, obj.handle);
			if (h && fbinder_handle_uncount_buf(h))
				dying |= fbinder_handle_check_locked(h);
		}
		spin_unlock(&dev->lock);
	}
	if (dying)
		fbinder_ctx_drop_dying_handles(ctx);
}

/*
 * Unpins the sender's exported nodes; commit counts them as exports.  The
 * device lock and the sender's context lock (their owner's) held.
 */
static void fbinder_xlate_finish_locked(struct fbinder_xlate *x, bool commit)
{
	u32 i;

	lockdep_assert_held(&x->from->dev->lock);
	lockdep_assert_held(&x->from->lock);
	for (i = 0; i < x->nr_exported; i++) {
		struct fbinder_node *node = x->exported[i];

		if (commit)
			node->exports++;
		node->tmp_refs--;
		fbinder_node_check_olocked(node);
	}
	x->nr_exported = 0;
}

/*
 * The same, taking the locks (fbinder_xlate_finish(), xlate.h: only a
 * message with objects has any).  A node whose pin is not its last
 * reference needs its owner's lock alone.
 */
void fbinder_xlate_unpin_exported(struct fbinder_xlate *x, bool commit)
{
	u32 i, left = 0;

	spin_lock(&x->from->lock);
	for (i = 0; i < x->nr_exported; i++) {
		struct fbinder_node *node = x->exported[i];

		if (fbinder_node_unpin_clocked(x->from, node)) {
			if (commit)
				node->exports++;
		} else {
			x->exported[left++] = node;
		}
	}
	spin_unlock(&x->from->lock);
	x->nr_exported = left;
	if (!left)
		return;
	spin_lock(&x->from->dev->lock);
	spin_lock(&x->from->lock);
	fbinder_xlate_finish_locked(x, commit);
	spin_unlock(&x->from->lock);
	spin_unlock(&x->from->dev->lock);
}
