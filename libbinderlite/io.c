// SPDX-License-Identifier: MIT
/*
 * io.c - the WRITE_READ engine every loop frame shares: queue commands,
 * run one ioctl, recover from a failed command, and hand each return of
 * the read stream to its owner (call.c, looper.c, object.c, death.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* (cppcheck cannot evaluate __has_include) */
#if defined(__has_include) && !defined(__CPPCHECK__)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define BL_MEMCHECK 1
#endif
#endif

#include "internal.h"

size_t bl__wbuf_limit;

/*
 * The largest command: FBINDER_CMD_SEND or FBINDER_CMD_REPLY with its struct fbinder_txn_data,
 * or FBINDER_CMD_SEND_SG with its struct fbinder_txn_sg of the same size.
 */
#define BL_CMD_MAX	(sizeof(uint32_t) + sizeof(struct fbinder_txn_data))
_Static_assert(sizeof(struct fbinder_txn_sg) <= sizeof(struct fbinder_txn_data),
	       "BL_CMD_MAX holds a gathered send");

/*
 * Every FBINDER_IOC_WRITE_READ.  valgrind's memcheck knows only the struct the
 * ioctl number names, not the buffers it points to: tell it that the
 * driver reads the command stream (which must be initialised) and wrote
 * read_consumed bytes of the read buffer.  Without these a loop frame's
 * read buffer (on the stack) looks uninitialised to memcheck after every
 * read.  The client requests cost a few instructions outside valgrind, and
 * nothing where <valgrind/memcheck.h> is missing.
 */
int bl__write_read(int fd, struct fbinder_write_read *wr)
{
	int ret;

#ifdef BL_MEMCHECK
	if (wr->write_size > wr->write_consumed)
		(void)VALGRIND_CHECK_MEM_IS_DEFINED(
			(const uint8_t *)(uintptr_t)wr->write_buffer +
			wr->write_consumed, wr->write_size - wr->write_consumed);
#endif
	ret = ioctl(fd, FBINDER_IOC_WRITE_READ, wr);
#ifdef BL_MEMCHECK
	if (wr->read_consumed)
		VALGRIND_MAKE_MEM_DEFINED((void *)(uintptr_t)wr->read_buffer,
					  wr->read_consumed);
#endif
	return ret;
}

void bl__io_init(struct bl_io *io, struct bl_context *ctx)
{
	io->ctx = ctx;
	io->wlen = 0;
	io->wcap = BL_WBUF;
	if (bl__wbuf_limit && bl__wbuf_limit < BL_WBUF)
		io->wcap = bl__wbuf_limit < BL_CMD_MAX ? BL_CMD_MAX
						       : bl__wbuf_limit;
	bl_parcel_init(&io->reply);
	io->reply_queued = false;
	io->request = NULL;
	io->looper = false;
	io->want_reply = false;
	io->got_reply = false;
	io->error = 0;
	io->handled = 0;
	io->close_fds = NULL;
	io->close_count = 0;
	io->close_cap = 0;
}

static void io_close_deferred(struct bl_io *io)
{
	size_t i;

	for (i = 0; i < io->close_count; i++)
		close(io->close_fds[i]);
	io->close_count = 0;
}

void bl__io_fini(struct bl_io *io)
{
	io_close_deferred(io);
	bl__free(io->close_fds);
	io->close_fds = NULL;
	io->close_cap = 0;
	bl_parcel_fini(&io->reply);
}

static void close_fd(int fd, struct bl_io *defer)
{
	if (defer && defer->close_count == defer->close_cap) {
		size_t cap = defer->close_cap ? defer->close_cap * 2 : 8;
		int *v = bl__realloc(defer->close_fds, cap * sizeof(*v));

		if (v) {
			defer->close_fds = v;
			defer->close_cap = cap;
		}
	}
	/* out of memory: closing now beats leaking it */
	if (defer && defer->close_count < defer->close_cap)
		defer->close_fds[defer->close_count++] = fd;
	else
		close(fd);
}

/*
 * The descriptors of the FBINDER_OBJ_FDA object at entry i: in the buffer
 * of its parent, whose pointer is an address in data, as the driver wrote
 * it.  Bounds-checked again: the message is the peer's to shape.
 */
static void close_fda_in(const uint8_t *data, size_t size, const uint64_t *offsets,
			 size_t i, const struct fbinder_fda_object *arr,
			 struct bl_io *defer)
{
	struct fbinder_ptr_object buf;
	uint64_t off = offsets[arr->parent > i ? i : arr->parent], at;
	int32_t fd;
	uint32_t k;

	if (arr->parent >= i || off > size || size - off < sizeof(buf))
		return;
	memcpy(&buf, data + off, sizeof(buf));
	if (buf.type != FBINDER_OBJ_PTR || buf.ptr < (uintptr_t)data ||
	    buf.ptr - (uintptr_t)data > size)
		return;
	at = buf.ptr - (uintptr_t)data + arr->parent_offset;
	for (k = 0; k < arr->count && at <= size && (size - at) / sizeof(fd) > k; k++) {
		memcpy(&fd, data + at + k * sizeof(fd), sizeof(fd));
		if (fd >= 0)
			close_fd(fd, defer);
	}
}

/*
 * Every FBINDER_OBJ_FD the offsets name, and every descriptor of an
 * FBINDER_OBJ_FDA array, each bounds-checked on its own: this also runs
 * on messages a reader refused, whose descriptors were installed all the
 * same.
 */
static void close_fds_in(const uint8_t *data, size_t size,
			 const uint64_t *offsets, size_t count,
			 struct bl_io *defer)
{
	struct fbinder_object obj;
	size_t i;

	for (i = 0; i < count; i++) {
		uint64_t off = offsets[i];

		if (off > size || size - off < sizeof(obj))
			continue;
		memcpy(&obj, data + off, sizeof(obj));
		if (obj.type == FBINDER_OBJ_FD && obj.fd >= 0)
			close_fd(obj.fd, defer);
		else if (obj.type == FBINDER_OBJ_FDA)
			close_fda_in(data, size, offsets, i, (const void *)&obj, defer);
	}
}

void bl__close_fds(const struct bl_reader *r)
{
	if (r->data && r->offsets)
		close_fds_in(r->data, r->size, r->offsets, r->offsets_count,
			     NULL);
}

void bl__msg_close_fds(struct bl_context *ctx, const struct fbinder_txn_msg *msg,
		       struct bl_io *defer)
{
	size_t map = ctx->map_size;

	if (!msg->offsets_count || msg->data > map ||
	    msg->data_size > map - msg->data || msg->offsets > map ||
	    msg->offsets % 8 ||
	    msg->offsets_count > (map - msg->offsets) / sizeof(uint64_t))
		return;
	close_fds_in(ctx->map + msg->data, msg->data_size,
		     (const uint64_t *)(const void *)(ctx->map + msg->offsets),
		     msg->offsets_count, defer);
}

void bl__io_flush(struct bl_io *io)
{
	/* nothing to read: it returns once every command went (or failed) */
	if (io->wlen)
		bl__io_run(io, false);
}

void bl__io_put(struct bl_io *io, uint32_t cmd, const void *payload)
{
	size_t size = _IOC_SIZE(cmd);

	if (io->wlen + sizeof(cmd) + size > io->wcap)
		bl__io_flush(io);
	memcpy(io->wbuf + io->wlen, &cmd, sizeof(cmd));
	if (size)
		memcpy(io->wbuf + io->wlen + sizeof(cmd), payload, size);
	io->wlen += sizeof(cmd) + size;
	if (cmd == FBINDER_CMD_REPLY)
		io->reply_queued = true;
}

int bl__command(struct bl_context *ctx, uint32_t cmd, const void *payload,
		size_t size)
{
	uint8_t buf[4 + sizeof(struct fbinder_txn_data)];
	struct fbinder_write_read wr = { 0 };

	if (size > sizeof(buf) - sizeof(cmd) || size != _IOC_SIZE(cmd))
		return -EINVAL;
	memcpy(buf, &cmd, sizeof(cmd));
	if (size)
		memcpy(buf + sizeof(cmd), payload, size);
	wr.write_buffer = (uintptr_t)buf;
	wr.write_size = sizeof(cmd) + size;
	if (bl__write_read(ctx->fd, &wr) < 0)
		return -errno;
	return 0;
}

/*
 * A command of the frame failed.  Whatever it carried is over: a send
 * whose objects were counted as exports is uncounted, a call the frame
 * waited for ends with the error.  Failed frees and acknowledgements only
 * mean the driver had already dropped what they named.
 */
static void io_command_failed(struct bl_io *io, uint32_t cmd, int err)
{
	switch (cmd) {
	case FBINDER_CMD_SEND:
	case FBINDER_CMD_SEND_SG:
		if (io->request)
			bl__objects_exported(io->ctx, io->request, -1);
		io->request = NULL;
		if (io->want_reply) {
			io->want_reply = false;
			io->error = err;
		}
		break;
	case FBINDER_CMD_REPLY:
		/* the caller was told with FBINDER_RET_FAILED */
		bl__objects_exported(io->ctx, &io->reply, -1);
		break;
	default:
		break;
	}
}

/*
 * The driver appends FBINDER_RET_SPAWN_LOOPER after the work that made it ask:
 * start that thread before running the handler, not after it.
 */
static void io_spawn_first(struct bl_io *io, const uint8_t *p, size_t len)
{
	size_t pos = 0;

	while (len - pos >= sizeof(uint32_t)) {
		uint32_t cmd;

		memcpy(&cmd, p + pos, sizeof(cmd));
		pos += sizeof(cmd);
		if (len - pos < _IOC_SIZE(cmd))
			return;
		if (cmd == FBINDER_RET_SPAWN_LOOPER)
			bl__spawn_looper(io->ctx);
		pos += _IOC_SIZE(cmd);
	}
}

static int io_dispatch(struct bl_io *io, const uint8_t *p, size_t len)
{
	struct fbinder_node_release rel;
	struct fbinder_txn_error fail;
	struct fbinder_txn_msg msg;
	uint64_t cookie;
	size_t pos = 0;
	int n = 0;

	while (len - pos >= sizeof(uint32_t)) {
		uint32_t cmd;
		size_t size;

		memcpy(&cmd, p + pos, sizeof(cmd));
		pos += sizeof(cmd);
		size = _IOC_SIZE(cmd);
		if (len - pos < size)
			return -EPROTO;
		switch (cmd) {
		case FBINDER_RET_TRANSACTION:
			memcpy(&msg, p + pos, sizeof(msg));
			bl__dispatch_txn(io, &msg);
			break;
		case FBINDER_RET_REPLY:
			memcpy(&msg, p + pos, sizeof(msg));
			if (io->want_reply) {
				io->msg = msg;
				io->want_reply = false;
				io->got_reply = true;
			} else {
				/* nobody waits for it (cannot happen) */
				bl__msg_close_fds(io->ctx, &msg, NULL);
				bl__io_put(io, FBINDER_CMD_FREE_BUFFER, &msg.data);
			}
			break;
		case FBINDER_RET_FAILED:
			memcpy(&fail, p + pos, sizeof(fail));
			if (io->want_reply) {
				io->want_reply = false;
				io->error = fail.error < 0 ? fail.error
							   : -EPROTO;
			}
			break;
		case FBINDER_RET_RELEASE:
			memcpy(&rel, p + pos, sizeof(rel));
			bl__object_released(io->ctx, rel.cookie, rel.exports);
			break;
		case FBINDER_RET_DEAD:
			memcpy(&cookie, p + pos, sizeof(cookie));
			bl__death_fired(io, cookie);
			break;
		case FBINDER_RET_SPAWN_LOOPER:
			break;		/* done by io_spawn_first() */
		default:
			return -EPROTO;
		}
		pos += size;
		n++;
	}
	return n;
}

int bl__io_run(struct bl_io *io, bool read)
{
	struct fbinder_write_read wr = { 0 };
	int err;

	wr.write_buffer = (uintptr_t)io->wbuf;
	wr.write_size = io->wlen;
	wr.read_buffer = (uintptr_t)io->rbuf;
	for (;;) {
		/* a frame whose call failed to go out has nothing to wait for */
		bool reading = read && (io->looper || io->want_reply);

		wr.read_size = reading ? BL_RBUF : 0;
		if (wr.write_consumed == wr.write_size && !reading) {
			err = 0;
			break;
		}
		err = bl__write_read(io->ctx->fd, &wr) < 0 ? -errno : 0;
		/*
		 * A signal, or the driver's bound on commands per call, cut
		 * the stream short before write_consumed, or a signal ended
		 * the wait: nothing was lost, go on from there.
		 */
		if (err == -EINTR)
			continue;
		if (err && wr.write_consumed < wr.write_size) {
			uint32_t cmd;

			/* that command failed; the ones before it took effect */
			memcpy(&cmd, io->wbuf + wr.write_consumed, sizeof(cmd));
			io_command_failed(io, cmd, err);
			wr.write_consumed += sizeof(cmd) + _IOC_SIZE(cmd);
			if (wr.write_consumed > wr.write_size)
				wr.write_consumed = wr.write_size;
			continue;
		}
		break;
	}
	io->wlen = 0;
	/* the replies that could carry them are out */
	io_close_deferred(io);
	/* the reply parcel went out with this ioctl (or failed): reusable */
	if (io->reply_queued) {
		bl_parcel_reset(&io->reply);
		io->reply_queued = false;
	}
	io->request = NULL;
	if (err)
		return err;
	io_spawn_first(io, io->rbuf, wr.read_consumed);
	return io_dispatch(io, io->rbuf, wr.read_consumed);
}

/* A received message's payload, checked against the mapping. */
void bl__msg_label(const uint8_t *map, size_t map_size,
		   const struct fbinder_txn_msg *msg, struct bl_call_info *info)
{
	struct fbinder_secctx h;
	uint64_t at;

	info->sender_label = NULL;
	info->sender_label_size = 0;
	if (!(msg->flags & FBINDER_TXN_SECCTX) || msg->offsets > map_size ||
	    msg->offsets % 8 ||
	    msg->offsets_count > (map_size - msg->offsets) / sizeof(uint64_t))
		return;
	at = msg->offsets + msg->offsets_count * sizeof(uint64_t);
	if (map_size - at < sizeof(h))
		return;
	memcpy(&h, map + at, sizeof(h));
	at += sizeof(h);
	/* the label and its NUL inside the mapping, whatever size says */
	if (h.size >= FBINDER_SECCTX_MAX || h.size >= map_size - at ||
	    map[at + h.size] != '\0')
		return;
	info->sender_label = (const char *)(map + at);
	info->sender_label_size = h.size;
}

int bl__msg_reader(struct bl_context *ctx, const struct fbinder_txn_msg *msg,
		   struct bl_reader *r)
{
	size_t map = ctx->map_size;

	if (msg->data > map || msg->data_size > map - msg->data ||
	    msg->offsets > map || msg->offsets % 8 ||
	    msg->offsets_count > (map - msg->offsets) / sizeof(uint64_t))
		return -EBADMSG;
	return bl_reader_init(r, ctx->map + msg->data, msg->data_size,
			      (const uint64_t *)(const void *)
			      (ctx->map + msg->offsets),
			      msg->offsets_count);
}
