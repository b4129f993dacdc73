// SPDX-License-Identifier: MIT
/*
 * call.c - handles, synchronous calls with an optional timeout, oneway
 * sends and batches of them (binderlite.h section 4).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "internal.h"

int bl_handle_acquire(struct bl_context *ctx, uint32_t handle)
{
	if (!ctx)
		return -EINVAL;
	return bl__command(ctx, FBINDER_CMD_ACQUIRE, &handle, sizeof(handle));
}

int bl_handle_release(struct bl_context *ctx, uint32_t handle)
{
	if (!ctx)
		return -EINVAL;
	return bl__command(ctx, FBINDER_CMD_RELEASE, &handle, sizeof(handle));
}

void bl_reply_fini(struct bl_reply *reply)
{
	if (!reply || !reply->has_buffer)
		return;
	bl__close_fds(&reply->reader);
	bl__command(reply->ctx, FBINDER_CMD_FREE_BUFFER, &reply->buffer,
		    sizeof(reply->buffer));
	reply->has_buffer = false;
}

static void fill_txn(struct fbinder_txn_data *tr, uint32_t handle, uint32_t code,
		     uint32_t flags, const struct bl_parcel *p)
{
	memset(tr, 0, sizeof(*tr));
	tr->handle = handle;
	tr->code = code;
	tr->flags = flags;
	if (p) {
		tr->data = (uintptr_t)p->data;
		tr->data_size = p->size;
		tr->offsets = (uintptr_t)p->offsets;
		tr->offsets_count = (uint32_t)p->offsets_count;
	}
}

static int check_request(const struct bl_parcel *p)
{
	if (p && p->error)
		return p->error;	/* a write into it failed: bl_parcel_error() */
	if (p && (bl_parcel_open_arrays(p) || p->offsets_count > UINT32_MAX))
		return -EINVAL;
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Waits for the frame's reply with a deadline.  poll() on the device
 * reports only this thread's own work while it waits for a reply, so a
 * read after POLLIN does not block.  At the deadline FBINDER_CMD_ABANDON lets
 * the call go on without us; EBUSY means its reply (or a call back to us)
 * came just now: read that first.
 */
static int wait_reply_timed(struct bl_io *io, int timeout_ms, int cancel_fd)
{
	int64_t deadline = now_ms() + timeout_ms;
	struct pollfd pfd[2] = {
		{ .fd = io->ctx->fd, .events = POLLIN },
		{ .fd = cancel_fd, .events = POLLIN },	/* ignored when -1 */
	};
	int ret;

	while (io->want_reply) {
		int64_t left = deadline - now_ms();
		int wait = timeout_ms == BL_NO_TIMEOUT ? -1 :
			   left > 0 ? (int)left : 0;
		int err = -ETIMEDOUT;

		if (io->wlen) {
			/* answers to calls that came back to us go out first */
			ret = bl__io_run(io, false);
			if (ret < 0)
				return ret;
			continue;
		}
		ret = wait ? poll(pfd, 2, wait) : 0;
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return -errno;
		if (ret > 0 && (pfd[1].revents & POLLIN) &&
		    !(pfd[0].revents & POLLIN)) {
			err = -ECANCELED;	/* bl_async_destroy() */
			ret = 0;
		}
		if (ret == 0) {
			ret = bl__command(io->ctx, FBINDER_CMD_ABANDON, NULL, 0);
			if (!ret) {
				io->want_reply = false;
				return err;
			}
			if (ret != -EBUSY)
				return ret;
		}
		ret = bl__io_run(io, true);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int bl__call(struct bl_context *ctx, uint32_t handle, uint32_t code,
	     uint32_t flags, const struct bl_parcel *request,
	     struct bl_reply *reply, int timeout_ms, uint32_t *euid)
{
	return bl__call_cancel(ctx, handle, code, flags, request, reply,
			       timeout_ms, euid, -1);
}

int bl__call_cancel(struct bl_context *ctx, uint32_t handle, uint32_t code,
		    uint32_t flags, const struct bl_parcel *request,
		    struct bl_reply *reply, int timeout_ms, uint32_t *euid,
		    int cancel_fd)
{
	return bl__call_frame(ctx, handle, code, flags, request, NULL, reply,
			      timeout_ms, euid, cancel_fd);
}

/* The request's send: its own data, or gathered from g's pieces. */
static void put_request(struct bl_io *io, uint32_t handle, uint32_t code,
			uint32_t flags, const struct bl_parcel *request,
			const struct bl__gather *g)
{
	struct fbinder_txn_data tr;
	struct fbinder_txn_sg sg;

	if (!g) {
		fill_txn(&tr, handle, code, flags, request);
		bl__io_put(io, FBINDER_CMD_SEND, &tr);
		return;
	}
	memset(&sg, 0, sizeof(sg));
	sg.handle = handle;
	sg.code = code;
	sg.flags = flags;
	sg.iov = (uintptr_t)g->iov;
	sg.iov_count = g->count;
	if (request) {
		sg.offsets = (uintptr_t)request->offsets;
		sg.offsets_count = (uint32_t)request->offsets_count;
	}
	bl__io_put(io, FBINDER_CMD_SEND_SG, &sg);
}

int bl__call_frame(struct bl_context *ctx, uint32_t handle, uint32_t code,
		   uint32_t flags, const struct bl_parcel *request,
		   const struct bl__gather *g, struct bl_reply *reply,
		   int timeout_ms, uint32_t *euid, int cancel_fd)
{
	struct bl_io *io;
	int ret;

	if (reply)
		memset(reply, 0, sizeof(*reply));
	if (!ctx || (timeout_ms < 0 && timeout_ms != BL_NO_TIMEOUT))
		return -EINVAL;
	ret = check_request(request);
	if (ret)
		return ret;
	/* 2 KiB of buffers: too much for the stacks of small threads */
	io = bl__realloc(NULL, sizeof(*io));
	if (!io)
		return -ENOMEM;
	bl__io_init(io, ctx);
	put_request(io, handle, code, flags, request, g);
	io->request = request;
	io->want_reply = true;
	bl__objects_exported(ctx, request, 1);

	if (timeout_ms == BL_NO_TIMEOUT && cancel_fd < 0) {
		/* the send and the wait in one system call */
		while (io->want_reply) {
			ret = bl__io_run(io, true);
			if (ret < 0)
				break;
		}
	} else {
		ret = bl__io_run(io, false);
		if (ret >= 0)
			ret = wait_reply_timed(io, timeout_ms, cancel_fd);
	}
	/* answers to nested calls still queued (none after a reply) */
	if (io->wlen)
		bl__io_run(io, false);
	if (ret >= 0)
		ret = io->error;
	if (!ret && io->got_reply) {
		struct bl_reply r = {
			.status = (int32_t)io->msg.code,
			.ctx = ctx,
			.buffer = io->msg.data,
			.has_buffer = true,
		};

		if (bl__msg_reader(ctx, &io->msg, &r.reader)) {
			bl__msg_close_fds(ctx, &io->msg, NULL);
			memset(&r.reader, 0, sizeof(r.reader));
			ret = -EBADMSG;
		}
		if (reply && !ret)
			*reply = r;
		else
			bl_reply_fini(&r);
		if (euid)
			*euid = io->msg.sender_euid;
	} else if (!ret) {
		ret = -EPROTO;
	}
	bl__io_fini(io);
	bl__free(io);
	return ret;
}

int bl_call(struct bl_context *ctx, uint32_t handle, uint32_t code,
	    const struct bl_parcel *request, struct bl_reply *reply,
	    int timeout_ms)
{
	/* the caller chose whom to call; the reply's fds close with it */
	return bl__call(ctx, handle, code, FBINDER_TXN_ACCEPT_FDS, request, reply,
			timeout_ms, NULL);
}

/* A message that may go in a FBINDER_CMD_SEND_BATCH: one without objects. */
static bool batchable(const struct bl_oneway *m)
{
	return !m->request || !m->request->offsets_count;
}

/* How many of msgs, from the first, go in one FBINDER_CMD_SEND_BATCH. */
static size_t batch_run(const struct bl_oneway *msgs, size_t count)
{
	size_t n = 0;

	while (n < count && n < FBINDER_MAX_BATCH &&
	       msgs[n].handle == msgs[0].handle && batchable(&msgs[n]))
		n++;
	return n;
}

/* The messages the commands in the first consumed bytes of cmds carried. */
static size_t msgs_in(const uint8_t *cmds, size_t consumed)
{
	struct fbinder_batch_send bs;
	size_t pos = 0, n = 0;
	uint32_t cmd;

	while (consumed - pos >= sizeof(cmd)) {
		memcpy(&cmd, cmds + pos, sizeof(cmd));
		pos += sizeof(cmd);
		if (cmd == FBINDER_CMD_SEND_BATCH) {
			memcpy(&bs, cmds + pos, sizeof(bs));
			n += bs.count;
		} else {
			n++;
		}
		pos += _IOC_SIZE(cmd);
	}
	return n;
}

/*
 * The commands for msgs[0..count): each run of two or more consecutive
 * messages without objects to one handle as FBINDER_CMD_SEND_BATCH (one
 * slot and one queue entry in the receiver), the rest, and the first plain
 * ones, as FBINDER_CMD_SEND.  The batches' entries go to bm.  Returns the
 * stream's length.
 */
static size_t put_oneways(const struct bl_oneway *msgs, size_t count,
			  size_t plain, uint32_t flags,
			  struct fbinder_batch_msg *bm, uint8_t *cmds)
{
	size_t i, j, n, wlen = 0;

	for (i = 0; i < count; i += n) {
		uint32_t cmd = FBINDER_CMD_SEND;
		struct fbinder_batch_send bs;
		struct fbinder_txn_data tr;

		n = i < plain ? 1 : batch_run(msgs + i, count - i);
		if (n < 2) {
			n = 1;
			fill_txn(&tr, msgs[i].handle, msgs[i].code, flags,
				 msgs[i].request);
			memcpy(cmds + wlen, &cmd, sizeof(cmd));
			memcpy(cmds + wlen + sizeof(cmd), &tr, sizeof(tr));
			wlen += sizeof(cmd) + sizeof(tr);
			continue;
		}
		for (j = i; j < i + n; j++) {
			const struct bl_parcel *p = msgs[j].request;

			memset(&bm[j], 0, sizeof(bm[j]));
			bm[j].code = msgs[j].code;
			if (p) {
				bm[j].data = (uintptr_t)p->data;
				bm[j].data_size = p->size;
			}
		}
		cmd = FBINDER_CMD_SEND_BATCH;
		bs.handle = msgs[i].handle;
		bs.count = (uint32_t)n;
		bs.msgs = (uintptr_t)&bm[i];
		memcpy(cmds + wlen, &cmd, sizeof(cmd));
		memcpy(cmds + wlen + sizeof(cmd), &bs, sizeof(bs));
		wlen += sizeof(cmd) + sizeof(bs);
	}
	return wlen;
}

/*
 * All in one WRITE_READ; the driver stops at the first failing command.  A
 * batch is all or nothing, and may not fit where its messages one by one
 * would (ENOSPC, EMSGSIZE: the receiver's share, or a mapping smaller than
 * the batch): its messages then go again one by one, so that as many go as
 * without batches and a caller's retry always makes progress.
 */
int bl_send_oneway_batch(struct bl_context *ctx, const struct bl_oneway *msgs,
			 size_t count, size_t *sent)
{
	const size_t one = sizeof(uint32_t) + sizeof(struct fbinder_txn_data);
	struct fbinder_write_read wr;
	struct fbinder_batch_msg *bm;
	size_t i, went = 0, plain = 0;
	uint8_t *buf, *cmds;
	int ret = 0;

	if (sent)
		*sent = 0;
	bl__last_sent_frozen = false;
	if (!ctx || !msgs || !count || count > BL_ONEWAY_BATCH_MAX)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		ret = check_request(msgs[i].request);
		if (ret)
			return ret;
	}
	/* the batches' entries first (aligned), then the command stream */
	buf = bl__realloc(NULL, count * (sizeof(*bm) + one));
	if (!buf)
		return -ENOMEM;
	bm = (struct fbinder_batch_msg *)(void *)buf;
	cmds = buf + count * sizeof(*bm);
	for (i = 0; i < count; i++)
		bl__objects_exported(ctx, msgs[i].request, 1);
	for (;;) {
		uint32_t cmd;

		memset(&wr, 0, sizeof(wr));
		wr.write_buffer = (uintptr_t)cmds;
		wr.write_size = put_oneways(msgs + went, count - went, plain,
					    bl__oneway_flags(ctx), bm + went,
					    cmds);
		/* cut short by a signal (EINTR): go on from write_consumed */
		do {
			ret = bl__oneway_result(bl__write_read(ctx->fd, &wr));
		} while (ret == -EINTR);
		if (!ret) {
			went = count;
			break;
		}
		went += msgs_in(cmds, wr.write_consumed);
		if (wr.write_consumed >= wr.write_size ||
		    (ret != -ENOSPC && ret != -EMSGSIZE))
			break;
		memcpy(&cmd, cmds + wr.write_consumed, sizeof(cmd));
		if (cmd != FBINDER_CMD_SEND_BATCH)
			break;
		plain = msgs_in(cmds + wr.write_consumed,
				sizeof(cmd) + _IOC_SIZE(cmd));
	}
	for (i = went; i < count; i++)
		bl__objects_exported(ctx, msgs[i].request, -1);
	bl__free(buf);
	if (sent)
		*sent = went;
	return ret;
}

int bl_send_oneway(struct bl_context *ctx, uint32_t handle, uint32_t code,
		   const struct bl_parcel *request)
{
	struct bl_oneway m = {
		.handle = handle, .code = code, .request = request
	};

	return bl_send_oneway_batch(ctx, &m, 1, NULL);
}
