// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: scatter-gather sends and buffer objects.
 *
 * FBINDER_CMD_SEND_SG and FBINDER_CMD_REPLY_SG are FBINDER_CMD_SEND and
 * FBINDER_CMD_REPLY with the data in pieces: the iovec table is read once,
 * checked and summed here, before the send starts, and the copy step
 * (fbinder_send_copy() in txn.c, no lock held) reads the pieces through an
 * iov_iter straight into the receiver's slot, as it reads a single buffer:
 * still one copy, and the same object rules, since the objects are found
 * by their offsets in the gathered data whatever piece they sit in.
 *
 * An FBINDER_OBJ_PTR object names a buffer inside the message by its
 * offset, so it is checked against the message alone: inside the data,
 * aligned, and after the buffer of the message's previous one, so that no
 * two buffers overlap.  The receiver gets the buffer's address in its
 * mapping.  Binder's parent links are not needed: binder copies its
 * buffers apart from the data, here they are part of it, and a pointer
 * inside a buffer is an object at its offset like any other.
 *
 * An FBINDER_OBJ_FDA object names an array of descriptors inside the
 * buffer of an earlier FBINDER_OBJ_PTR object (binder's parent link: its
 * index in the offsets and an offset in its buffer).  The buffer is
 * checked here; the descriptors are fd.c's, taken once the whole message
 * is copied (the array may lie after the object), and the array may cover
 * no object, since the receiver's descriptors are written over it at
 * delivery and a buffer's objects are read back when it is freed.
 */
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/uaccess.h>

#include "internal.h"

/*
 * Reads the iovecs of sg (once: what is checked is what is copied), checks
 * them and sets g's iterator over them at the first byte; g->size is the
 * message's data size.  -EINVAL for a bad count or reserved field,
 * -EMSGSIZE past max_map_size, -EFAULT for a range that is not user memory.
 * fbinder_gather_free() in any case.
 */
int fbinder_gather_read(struct fbinder_gather *g, const struct fbinder_txn_sg *sg)
{
	u64 max = READ_ONCE(fbinder_max_map_size), total = 0;
	u32 i, nr = sg->iov_count;
	struct fbinder_iovec *uv, v;

	/* the uapi's array is read at once and turned into iovecs in place */
	static_assert(sizeof(struct iovec) <= sizeof(struct fbinder_iovec));
	g->iov = NULL;
	g->size = 0;
	if (sg->reserved || nr > FBINDER_SG_MAX_IOV)
		return -EINVAL;
	uv = g->fast;
	if (nr > FBINDER_GATHER_FAST) {
		uv = kmalloc_array(nr, sizeof(*uv), GFP_KERNEL_ACCOUNT);
		if (!uv)
			return -ENOMEM;
	}
	g->iov = (struct iovec *)uv;
	if (copy_from_user(uv, u64_to_user_ptr(sg->iov), nr * sizeof(*uv)))
		return -EFAULT;
	for (i = 0; i < nr; i++) {
		v = uv[i];
		/* checked as it grows: the sum never wraps */
		if (v.len > max || total > max - v.len)
			return -EMSGSIZE;
		if (v.base + v.len < v.base ||
		    !access_ok(u64_to_user_ptr(v.base), v.len))
			return -EFAULT;
		g->iov[i].iov_base = u64_to_user_ptr(v.base);
		g->iov[i].iov_len = v.len;
		total += v.len;
	}
	g->size = total;
	/* one piece or none: the iterator's cheaper kind */
	if (nr > 1)
		iov_iter_init(&g->iter, ITER_SOURCE, g->iov, nr, total);
	else
		iov_iter_ubuf(&g->iter, ITER_SOURCE, nr ? g->iov[0].iov_base : NULL,
			      total);
	return 0;
}

void fbinder_gather_free(struct fbinder_gather *g)
{
	if (g->iov != (struct iovec *)g->fast)
		kfree(g->iov);
	g->iov = NULL;
}

/*
 * Checks an FBINDER_OBJ_PTR object of a message of data_size bytes and
 * makes its offset the buffer's address in the receiver's mapping, base
 * being the message's own address there.  *end is the end of the previous
 * buffer of the message, moved past this one.  -EINVAL for a buffer not
 * aligned, reaching outside the data, or starting before *end.
 */
int fbinder_xlate_ptr(struct fbinder_object *obj, u64 data_size, u64 base, u64 *end)
{
	struct fbinder_ptr_object *p = (struct fbinder_ptr_object *)obj;

	static_assert(sizeof(*p) == sizeof(*obj));
	if (!IS_ALIGNED(p->ptr, sizeof(u64)) || p->ptr > data_size ||
	    p->length > data_size - p->ptr || p->ptr < *end)
		return -EINVAL;
	*end = p->ptr + p->length;
	p->ptr += base;
	return 0;
}

/*
 * Finds the array of an FBINDER_OBJ_FDA object, the index-th of the
 * message, in its parent's buffer: *pos its offset in the data.  The
 * parent is read back from the slot, as translated (its address there,
 * base being the message's).  -EINVAL for a parent that is not an earlier
 * FBINDER_OBJ_PTR object, or an array misaligned or not inside its buffer.
 */
int fbinder_fda_array(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
		      const struct fbinder_fda_object *fda, const u64 *offsets,
		      u32 index, u64 base, u64 *pos)
{
	struct fbinder_ptr_object p;
	u64 bytes = (u64)fda->count * sizeof(s32);
	int ret;

	if (fda->parent >= index)
		return -EINVAL;
	ret = fbinder_alloc_read(alloc, buf, offsets[fda->parent], &p, sizeof(p));
	if (ret)
		return ret;
	if (p.type != FBINDER_OBJ_PTR || !IS_ALIGNED(fda->parent_offset, sizeof(s32)) ||
	    fda->parent_offset > p.length || bytes > p.length - fda->parent_offset)
		return -EINVAL;
	*pos = p.ptr - base + fda->parent_offset;
	return 0;
}

/*
 * Whether [start, start + len) meets one of the count objects at offsets
 * (checked: in order, 16 bytes apart at least).
 */
bool fbinder_range_hits_object(const u64 *offsets, u32 count, u64 start, u64 len)
{
	u32 lo = 0, hi = count, mid;

	if (!len)
		return false;
	/* the first object ending after start */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (offsets[mid] + sizeof(struct fbinder_object) <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < count && offsets[lo] < start + len;
}
