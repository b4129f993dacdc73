// SPDX-License-Identifier: MIT
/*
 * gather.c - calls and oneway messages whose request ends with a blob
 * gathered from the caller's buffers (bl_call_iov(), bl_send_oneway_iov()).
 *
 * The message is the head parcel's bytes, the blob item's 8-byte header,
 * the caller's buffers and the blob's padding, as pieces of one
 * FBINDER_CMD_SEND_SG: the driver copies each straight into the receiver's
 * buffer, so the caller's bytes are copied once, as a parcel's are, and
 * never into a parcel first.  The receiver cannot tell it from a parcel
 * with the blob written in.  A driver without FBINDER_FEATURE_SEND_SG gets
 * the same message marshalled into one parcel (a second copy).
 */
#include <string.h>

#include "internal.h"

/* Pieces kept on the stack; more are allocated. */
#define SMALL	8

static const uint8_t zeros[BL_PARCEL_ALIGN];

/* The pieces of one gathered request. */
struct pieces {
	struct fbinder_iovec small[SMALL];
	struct fbinder_iovec *v;
	uint32_t n;
	uint32_t blob_hdr[2];		/* the blob item's tag and length */
	size_t size;			/* of the whole message */
};

static void put_piece(struct pieces *ps, const void *base, size_t len)
{
	ps->v[ps->n].base = (uintptr_t)base;
	ps->v[ps->n].len = len;
	ps->n++;
}

/*
 * Checks the request and lists its pieces: head's bytes, the blob header,
 * the caller's buffers, the padding.  -EINVAL, -EMSGSIZE, -ENOMEM, or
 * head's sticky error; pieces_fini() after success only.
 */
static int pieces_init(struct pieces *ps, const struct bl_parcel *head,
		       const struct iovec *iov, int iovcnt)
{
	size_t len = 0, hsize = head ? head->size : 0;
	uint32_t max;
	int i;

	if (iovcnt < 0 || iovcnt > BL_IOV_MAX || (!iov && iovcnt))
		return -EINVAL;
	if (head && head->error)
		return head->error;
	if (head && (bl_parcel_open_arrays(head) || head->offsets_count > UINT32_MAX))
		return -EINVAL;
	for (i = 0; i < iovcnt; i++) {
		if (!iov[i].iov_base && iov[i].iov_len)
			return -EINVAL;
		/* as bl_parcel_write_blob() would: the blob and the whole parcel */
		if (iov[i].iov_len > BL_PARCEL_MAX_SIZE - len)
			return -EMSGSIZE;
		len += iov[i].iov_len;
	}
	if (len > BL_PARCEL_MAX_SIZE - 16 || hsize > BL_PARCEL_MAX_SIZE - 16 - len)
		return -EMSGSIZE;
	ps->blob_hdr[0] = BL_WIRE_TAG(BL_TYPE_BLOB);
	ps->blob_hdr[1] = (uint32_t)len;
	ps->size = hsize + sizeof(ps->blob_hdr) + (len + 7) / 8 * 8;
	max = (uint32_t)iovcnt + 3;
	ps->v = ps->small;
	if (max > SMALL) {
		ps->v = bl__realloc(NULL, max * sizeof(*ps->v));
		if (!ps->v)
			return -ENOMEM;
	}
	ps->n = 0;
	if (hsize)
		put_piece(ps, head->data, hsize);
	put_piece(ps, ps->blob_hdr, sizeof(ps->blob_hdr));
	for (i = 0; i < iovcnt; i++)
		if (iov[i].iov_len)
			put_piece(ps, iov[i].iov_base, iov[i].iov_len);
	if (len % BL_PARCEL_ALIGN)
		put_piece(ps, zeros, BL_PARCEL_ALIGN - len % BL_PARCEL_ALIGN);
	return 0;
}

static void pieces_fini(struct pieces *ps)
{
	if (ps->v != ps->small)
		bl__free(ps->v);
}

/*
 * The old driver's way: the pieces copied into one parcel, head's offsets
 * with them.  The parcel is to bl_parcel_fini().
 */
static int marshal(const struct pieces *ps, const struct bl_parcel *head,
		   struct bl_parcel *p)
{
	size_t objects = head ? head->offsets_count : 0;
	uint32_t i;
	int ret;

	bl_parcel_init(p);
	ret = bl_parcel_reserve(p, ps->size, objects);
	if (ret)
		return ret;
	for (i = 0; i < ps->n; i++) {
		memcpy(p->data + p->size, (const void *)(uintptr_t)ps->v[i].base,
		       ps->v[i].len);
		p->size += ps->v[i].len;
	}
	if (objects)
		memcpy(p->offsets, head->offsets, objects * sizeof(*p->offsets));
	p->offsets_count = objects;
	return 0;
}

static bool gathers(const struct bl_context *ctx)
{
	return ctx->features & FBINDER_FEATURE_SEND_SG;
}

int bl_call_iov(struct bl_context *ctx, uint32_t handle, uint32_t code,
		const struct bl_parcel *head, const struct iovec *iov, int iovcnt,
		struct bl_reply *reply, int timeout_ms)
{
	struct bl_parcel flat;
	struct pieces ps;
	int ret;

	if (reply)
		memset(reply, 0, sizeof(*reply));
	if (!ctx)
		return -EINVAL;
	ret = pieces_init(&ps, head, iov, iovcnt);
	if (ret)
		return ret;
	if (gathers(ctx)) {
		struct bl__gather g = { ps.v, ps.n };

		/* the caller chose whom to call; the reply's fds close with it */
		ret = bl__call_frame(ctx, handle, code, FBINDER_TXN_ACCEPT_FDS, head,
				     &g, reply, timeout_ms, NULL, -1);
	} else {
		ret = marshal(&ps, head, &flat);
		if (!ret)
			ret = bl__call(ctx, handle, code, FBINDER_TXN_ACCEPT_FDS, &flat,
				       reply, timeout_ms, NULL);
		bl_parcel_fini(&flat);
	}
	pieces_fini(&ps);
	return ret;
}

/* One FBINDER_CMD_SEND_SG, oneway, in its own WRITE_READ. */
static int send_gathered(struct bl_context *ctx, uint32_t handle, uint32_t code,
			 const struct bl_parcel *head, const struct pieces *ps)
{
	struct fbinder_txn_sg sg = {
		.handle = handle, .code = code, .flags = bl__oneway_flags(ctx),
		.iov = (uintptr_t)ps->v, .iov_count = ps->n,
	};
	uint32_t cmd = FBINDER_CMD_SEND_SG;
	uint8_t buf[sizeof(cmd) + sizeof(sg)];
	struct fbinder_write_read wr;
	int ret;

	if (head) {
		sg.offsets = (uintptr_t)head->offsets;
		sg.offsets_count = (uint32_t)head->offsets_count;
	}
	memcpy(buf, &cmd, sizeof(cmd));
	memcpy(buf + sizeof(cmd), &sg, sizeof(sg));
	bl__objects_exported(ctx, head, 1);
	/* a signal before the command ran (EINTR, nothing consumed): again */
	do {
		memset(&wr, 0, sizeof(wr));
		wr.write_buffer = (uintptr_t)buf;
		wr.write_size = sizeof(buf);
		ret = bl__oneway_result(bl__write_read(ctx->fd, &wr));
	} while (ret == -EINTR && !wr.write_consumed);
	if (ret)
		bl__objects_exported(ctx, head, -1);
	return ret;
}

int bl_send_oneway_iov(struct bl_context *ctx, uint32_t handle, uint32_t code,
		       const struct bl_parcel *head, const struct iovec *iov,
		       int iovcnt)
{
	struct bl_parcel flat;
	struct pieces ps;
	int ret;

	bl__last_sent_frozen = false;
	if (!ctx)
		return -EINVAL;
	ret = pieces_init(&ps, head, iov, iovcnt);
	if (ret)
		return ret;
	if (gathers(ctx)) {
		ret = send_gathered(ctx, handle, code, head, &ps);
	} else {
		ret = marshal(&ps, head, &flat);
		if (!ret)
			ret = bl_send_oneway(ctx, handle, code, &flat);
		bl_parcel_fini(&flat);
	}
	pieces_fini(&ps);
	return ret;
}
