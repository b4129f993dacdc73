/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fastbinder: a message's objects, translated (xlate.c), for the send
 * (txn.c): what a send holds while it translates, and the steps it calls.
 */
#ifndef _FBINDER_XLATE_H
#define _FBINDER_XLATE_H

#include "internal.h"

/* Pins taken while translating, released at commit or undo. */
struct fbinder_xlate {
	struct fbinder_ctx *from;
	struct fbinder_ctx *to;
	struct fbinder_buffer *buf;
	size_t data_size;
	u32 count;			/* objects translated so far */
	struct fbinder_node **exported;	/* sender's nodes sent as LOCAL */
	u64 *offsets;			/* the sender's, read once */
	u32 nr_exported;
	struct fbinder_buffer_fd *fds;	/* files sent, until commit */
	u32 nr_fds;
	bool fds_ok;			/* the receiver takes descriptors */
	struct fbinder_node *spare_node;
	struct fbinder_handle *spare_handle;
	bool prio_denied;		/* this object's minimum: beyond rights */
	u64 ptr_end;			/* end of the last FBINDER_OBJ_PTR's buffer */
	u32 nr_fda;			/* FBINDER_OBJ_FDA objects */
	u32 fda_fds;			/* descriptors of their arrays */
	u64 fda_end;			/* end of the last one's array */
};

int fbinder_copy_objects(struct fbinder_xlate *x, struct iov_iter *data,
			 const u64 *offsets, u32 count);
void fbinder_xlate_unpin_exported(struct fbinder_xlate *x, bool commit);
void fbinder_buffer_drop_refs(struct fbinder_ctx *ctx, struct fbinder_buffer *buf,
			      size_t data_size, u32 count);

/*
 * Copies the payload into the slot (x->buf), translating its count
 * objects at offsets.  Inline: most messages carry none, and theirs is one
 * copy.
 */
static inline int fbinder_copy_payload(struct fbinder_xlate *x, struct iov_iter *data,
				       const u64 *offsets, u32 count)
{
	if (!count)
		return fbinder_alloc_copy_from_iter(&x->to->alloc, x->buf, 0,
						    data, x->data_size);
	return fbinder_copy_objects(x, data, offsets, count);
}

/*
 * Unpins the sender's nodes the message exported; commit counts them as
 * exports.  Inline: only a message with objects has any.
 */
static inline void fbinder_xlate_finish(struct fbinder_xlate *x, bool commit)
{
	if (x->nr_exported)
		fbinder_xlate_unpin_exported(x, commit);
}

#endif /* _FBINDER_XLATE_H */
