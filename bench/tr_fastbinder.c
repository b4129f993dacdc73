// SPDX-License-Identifier: MIT
/*
 * tr_fastbinder.c - fastbinder through the raw ABI (uapi/linux/fastbinder.h).
 *
 * The hot path the ABI was designed for: a client call is one WRITE_READ
 * (free of the previous reply + FBINDER_CMD_SEND, then the wait for the reply);
 * a server turn is one WRITE_READ (FBINDER_CMD_REPLY straight from the received
 * buffer, FBINDER_CMD_FREE_BUFFER, then the wait for the next call).  The
 * server is the context manager, clients call handle 0.  Oneway messages
 * sent n per call go as one FBINDER_CMD_SEND_BATCH, one slot and one read
 * for the lot.
 *
 * The scale workload's pairs cannot all be handle 0: there a broker process
 * is the context manager, each pair's server sends it its object, and each
 * client asks it for its pair's server once (setup only; the broker sleeps
 * while the pairs run).
 *
 * scale-nested: each call carries the client's own object, which its server
 * calls back while it handles the call (a nested call, which the driver
 * routes to the client's thread waiting for the reply); that thread
 * answers it, then waits on.
 *
 * Two copies on purpose: written in parallel with tr_binder.c (see there).
 * Its helpers are fb_*: fbinder_* names are the driver's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/fastbinder.h>

#include "bench.h"
#include "fbt_wstream.h"

/*
 * The receiver's oneway share (or queue) is full: sleep 100 us rather than
 * spin, so the failing sends do not compete with the receiver for its locks
 * (thousands of messages are queued: the receiver never runs dry).
 */
static void backoff(void)
{
	struct timespec ts = { 0, 100 * 1000 };

	nanosleep(&ts, NULL);
}

#define FB_DEV		"/dev/fastbinder"
#define FB_MAP		(8u << 20)	/* 4 MiB payloads fit */
#define RBUF_MSGS	256

struct fb_conn {
	int fd;
	uint32_t handle;		/* the server: 0, or a scale pair's */
	const unsigned char *map;
	int64_t pending_free;		/* reply buffer to free, or -1 */
	unsigned char rbuf[512];
	/*
	 * scale-objects: the request, then the server's handle as an object,
	 * which the server gets as its LOCAL object and echoes back: the
	 * client's handle again.  scale-nested: the client's own object, which
	 * the server gets as a handle and calls back
	 */
	unsigned char objbuf[64 + sizeof(struct fbinder_object)];
	uint64_t cookie;		/* scale-nested: the client's object */
	uint64_t obj_at;		/* its offset: the offsets array */
	size_t req_len;			/* the caller's bytes before it */
	struct fbinder_batch_msg batch[BENCH_BATCH];	/* oneway batches */
};

static int fb_open_map(size_t map_size, const unsigned char **map)
{
	struct fbinder_version v;
	void *m;
	int fd;

	fd = open(FB_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die_errno("open %s", FB_DEV);
	if (ioctl(fd, FBINDER_IOC_VERSION, &v) < 0 || v.abi_version != FBINDER_ABI_VERSION)
		die("fastbinder ABI version mismatch");
	m = mmap(NULL, map_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die_errno("mmap fastbinder");
	*map = m;
	return fd;
}

/* ---- the scale workload's broker ---- */

#define BROKER_REGISTER	0x5201	/* a pair's server: u32 pair, its object */
#define BROKER_LOOKUP	0x5202	/* a client: u32 pair; the reply: a handle */

struct broker_msg {
	uint32_t pair;
	uint32_t pad;
	struct fbinder_object obj;
};

static pid_t broker_pid;

/* One WRITE_READ, retried on EINTR; what it read, in bytes. */
static size_t fb_wr(int fd, const void *w, size_t wlen, void *r, size_t rcap)
{
	struct fbinder_write_read wr = {
		.write_buffer = (uintptr_t)w, .write_size = wlen,
		.read_buffer = (uintptr_t)r, .read_size = rcap,
	};

	while (ioctl(fd, FBINDER_IOC_WRITE_READ, &wr) < 0)
		if (errno != EINTR && errno != EAGAIN)
			die_errno("fastbinder WRITE_READ");
	return wr.read_consumed;
}

/*
 * A call to handle 0 carrying msg (and its object, if obj); returns the
 * handle the reply carries, or 0; the reply's buffer is freed.
 */
static uint32_t broker_call(int fd, const unsigned char *map, uint32_t code,
			    const struct broker_msg *msg, bool obj)
{
	uint64_t off = offsetof(struct broker_msg, obj);
	struct fbinder_txn_data tr = { .handle = 0, .code = code };
	unsigned char w[64], r[256];
	uint32_t handle = 0;
	size_t wlen, got, pos;

	tr.data = (uintptr_t)msg;
	tr.data_size = sizeof(*msg);
	if (obj) {
		tr.offsets = (uintptr_t)&off;
		tr.offsets_count = 1;
	}
	wlen = fbt_put_cmd(w, 0, FBINDER_CMD_SEND, &tr, sizeof(tr));
	for (;;) {
		struct fbinder_txn_msg m;
		uint32_t cmd;

		got = fb_wr(fd, w, wlen, r, sizeof(r));
		wlen = 0;
		for (pos = 0; pos + 4 + sizeof(m) <= got; pos += 4 + sizeof(m)) {
			memcpy(&cmd, r + pos, 4);
			if (cmd == FBINDER_RET_FAILED)
				die("fastbinder broker call 0x%x failed", code);
			if (cmd != FBINDER_RET_REPLY)
				die("fastbinder broker call: return 0x%x", cmd);
			memcpy(&m, r + pos + 4, sizeof(m));
			if (m.offsets_count == 1 && m.data_size >= sizeof(struct fbinder_object)) {
				struct fbinder_object o;

				memcpy(&o, map + m.data, sizeof(o));
				if (o.type == FBINDER_OBJ_HANDLE)
					handle = o.handle;
			}
			/* keep the handle past the reply's buffer */
			if (handle)
				wlen = fbt_put_cmd(w, 0, FBINDER_CMD_ACQUIRE, &handle,
						   sizeof(handle));
			wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_FREE_BUFFER, &m.data,
					   sizeof(m.data));
			fb_wr(fd, w, wlen, NULL, 0);
			return handle;
		}
	}
}

/* The broker: handle 0; keeps each pair's server, hands it out. */
static void __attribute__((noreturn)) broker(int ready_fd)
{
	struct fbinder_context_mgr mgr = { .cookie = 0xb0 };
	uint32_t handles[BENCH_MAX_CLIENTS] = { 0 };
	const unsigned char *map;
	unsigned char w[128], r[512];
	int fd = fb_open_map(1u << 20, &map);
	size_t wlen;

	if (ioctl(fd, FBINDER_IOC_SET_CONTEXT_MGR, &mgr) < 0)
		die_errno("fastbinder broker: SET_CONTEXT_MGR");
	signal_ready(ready_fd);
	wlen = fbt_put_cmd(w, 0, FBINDER_CMD_ENTER_LOOPER, NULL, 0);
	for (;;) {
		size_t got = fb_wr(fd, w, wlen, r, sizeof(r)), pos = 0;

		wlen = 0;
		while (pos + 4 <= got) {
			struct fbinder_txn_data tr = { .code = 0 };
			struct broker_msg in, out = { 0 };
			struct fbinder_txn_msg m;
			uint64_t off = offsetof(struct broker_msg, obj);
			uint32_t cmd;

			memcpy(&cmd, r + pos, 4);
			pos += 4;
			if (cmd == FBINDER_RET_SPAWN_LOOPER)
				continue;
			if (cmd != FBINDER_RET_TRANSACTION)
				die("fastbinder broker: return 0x%x", cmd);
			memcpy(&m, r + pos, sizeof(m));
			pos += sizeof(m);
			memset(&in, 0, sizeof(in));
			memcpy(&in, map + m.data,
			       m.data_size < sizeof(in) ? m.data_size : sizeof(in));
			if (in.pair >= BENCH_MAX_CLIENTS)
				die("fastbinder broker: pair %u", in.pair);
			wlen = 0;
			if (m.code == BROKER_REGISTER && m.offsets_count == 1 &&
			    in.obj.type == FBINDER_OBJ_HANDLE) {
				handles[in.pair] = in.obj.handle;
				wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_ACQUIRE,
						   &in.obj.handle, sizeof(in.obj.handle));
				tr.data = (uintptr_t)&out;
				tr.data_size = sizeof(out);
			} else if (m.code == BROKER_LOOKUP && handles[in.pair]) {
				out.obj.type = FBINDER_OBJ_HANDLE;
				out.obj.handle = handles[in.pair];
				tr.data = (uintptr_t)&out.obj;
				tr.data_size = sizeof(out.obj);
				off = 0;
				tr.offsets = (uintptr_t)&off;
				tr.offsets_count = 1;
			} else {
				die("fastbinder broker: message 0x%x for pair %u",
				    m.code, in.pair);
			}
			wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_REPLY, &tr, sizeof(tr));
			wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_FREE_BUFFER, &m.data,
					   sizeof(m.data));
			fb_wr(fd, w, wlen, NULL, 0);
			wlen = 0;
		}
	}
}

/* A scale measurement: start the broker. */
static int fb_prepare(int nclients, size_t max_msg)
{
	int p[2];
	char b;

	(void)nclients;
	(void)max_msg;
	if (!bench_pairs)
		return 0;
	if (pipe(p))
		return -errno;
	broker_pid = fork();
	if (broker_pid < 0)
		return -errno;
	if (broker_pid == 0) {
		close(p[0]);
		alarm(300);
		broker(p[1]);
	}
	close(p[1]);
	if (read(p[0], &b, 1) != 1) {
		close(p[0]);
		return -EIO;
	}
	close(p[0]);
	return 0;
}

static void fb_unprepare(void)
{
	if (broker_pid > 0) {
		kill(broker_pid, SIGKILL);
		waitpid(broker_pid, NULL, 0);
	}
	broker_pid = 0;
}

/* ---- server ---- */

/* Each message of a delivered batch, checked against the batch's data. */
static void fb_rx_batch(struct oneway_rx *rx, const unsigned char *map,
			     const struct fbinder_txn_msg *m)
{
	const size_t head = sizeof(struct fbinder_batch);
	const size_t ent = sizeof(struct fbinder_batch_msg);
	uint64_t end = m->data + m->data_size;
	struct fbinder_batch_msg e;
	struct fbinder_batch b;
	uint32_t i;

	if (m->data_size < head)
		die("fastbinder server: a batch of %llu bytes",
		    (unsigned long long)m->data_size);
	memcpy(&b, map + m->data, head);
	if (!b.count || b.count > (m->data_size - head) / ent)
		die("fastbinder server: a batch of %u messages", b.count);
	for (i = 0; i < b.count; i++) {
		memcpy(&e, map + m->data + head + (size_t)i * ent, ent);
		if (e.data < m->data + head + (uint64_t)b.count * ent ||
		    e.data > end || e.data_size > end - e.data)
			die("fastbinder server: batch entry %u out of its data", i);
		oneway_rx_msg(rx, map + e.data, e.data_size);
	}
}

struct fb_srv {
	int fd;
	const unsigned char *map;
	const struct srv_cfg *cfg;
	struct oneway_rx rx;
	uint32_t client;		/* scale-nested: the client's handle, or 0 */
};

/*
 * scale-nested: the call m carries the client's object as a handle; one
 * call back into it, its reply checked.  The first call's handle is kept
 * (acquired once), so the next ones find it known and bring the same
 * handle.  Returns the offset of the reply's buffer, to free.
 */
static uint64_t fb_nested_call(struct fb_srv *s, const struct fbinder_txn_msg *m)
{
	struct fbinder_txn_data tr = { .code = 3 };
	struct fbinder_object o;
	unsigned char w[64], r[256];
	uint64_t off, stamp;
	size_t wlen = 0;

	if (m->offsets_count != 1)
		die("fastbinder server: scale-nested call with %llu objects",
		    (unsigned long long)m->offsets_count);
	memcpy(&off, s->map + m->offsets, sizeof(off));
	if (off > m->data_size || m->data_size - off < sizeof(o))
		die("fastbinder server: scale-nested object out of the data");
	memcpy(&o, s->map + m->data + off, sizeof(o));
	if (o.type != FBINDER_OBJ_HANDLE || (s->client && o.handle != s->client))
		die("fastbinder server: scale-nested object type %u handle %u, not %u",
		    o.type, o.handle, s->client);
	if (!s->client) {
		s->client = o.handle;
		wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_ACQUIRE, &o.handle,
				   sizeof(o.handle));
	}
	stamp = bench_head(s->map + m->data, off);
	tr.handle = o.handle;
	tr.data = (uintptr_t)&stamp;
	tr.data_size = sizeof(stamp);
	wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_SEND, &tr, sizeof(tr));
	for (;;) {
		size_t got = fb_wr(s->fd, w, wlen, r, sizeof(r)), pos = 0;

		wlen = 0;
		while (pos + 4 <= got) {
			struct fbinder_txn_msg rm;
			uint32_t cmd;

			memcpy(&cmd, r + pos, 4);
			pos += 4;
			if (cmd == FBINDER_RET_SPAWN_LOOPER)
				continue;
			if (cmd == FBINDER_RET_FAILED)
				die("fastbinder server: the nested call failed");
			if (cmd != FBINDER_RET_REPLY)
				die("fastbinder server: nested call: return 0x%x", cmd);
			memcpy(&rm, r + pos, sizeof(rm));
			if (rm.data_size != sizeof(stamp) ||
			    memcmp(s->map + rm.data, &stamp, sizeof(stamp)))
				die("fastbinder server: wrong reply to the nested call");
			return rm.data;
		}
	}
}

static void fb_serve(void *arg, int idx)
{
	struct fb_srv *s = arg;
	size_t wcap = 64 + RBUF_MSGS * (4 + sizeof(uint64_t));
	size_t rcap = RBUF_MSGS * (4 + sizeof(struct fbinder_txn_msg));
	unsigned char *w = malloc(wcap), *r = malloc(rcap);
	uint64_t ack;
	size_t wlen;

	(void)idx;
	if (!w || !r)
		die("malloc");
	wlen = fbt_put_cmd(w, 0, FBINDER_CMD_ENTER_LOOPER, NULL, 0);
	for (;;) {
		struct fbinder_write_read wr = {
			.write_buffer = (uintptr_t)w, .write_size = wlen,
			.read_buffer = (uintptr_t)r, .read_size = rcap,
		};
		size_t pos = 0;

		while (ioctl(s->fd, FBINDER_IOC_WRITE_READ, &wr) < 0) {
			if (errno != EINTR && errno != EAGAIN)
				die_errno("fastbinder server WRITE_READ");
		}
		wlen = 0;
		while (pos + 4 <= wr.read_consumed) {
			uint32_t cmd;
			struct fbinder_txn_msg m;

			memcpy(&cmd, r + pos, 4);
			pos += 4;
			if (cmd == FBINDER_RET_SPAWN_LOOPER)
				continue;
			if (cmd != FBINDER_RET_TRANSACTION)
				die("fastbinder server: unexpected return 0x%x", cmd);
			memcpy(&m, r + pos, sizeof(m));
			pos += sizeof(m);
			if (m.flags & FBINDER_TXN_BATCH) {
				fb_rx_batch(&s->rx, s->map, &m);
			} else if (m.flags & FBINDER_TXN_ONEWAY) {
				oneway_rx_msg(&s->rx, s->map + m.data,
					      m.data_size);
			} else if (bench_nested) {
				struct fbinder_txn_data tr = { .code = 0 };
				uint64_t nested = fb_nested_call(s, &m), off;

				/* the echo, without the object */
				memcpy(&off, s->map + m.offsets, sizeof(off));
				wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_FREE_BUFFER,
						   &nested, sizeof(nested));
				tr.data = (uintptr_t)(s->map + m.data);
				tr.data_size = off;
				wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_REPLY, &tr, sizeof(tr));
			} else {
				struct fbinder_txn_data tr = { .code = 0 };
				size_t rlen;
				const void *rep = server_reply(s->cfg,
					s->map + m.data, m.data_size, &ack, &rlen);

				/*
				 * An ack is not read from the request: free that
				 * first, or the client's next 4 MiB call may come
				 * while this one still holds half of the buffer,
				 * a lone sender's share (ENOSPC, docs/security.md).
				 */
				if (rep == &ack)
					wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_FREE_BUFFER,
							   &m.data, sizeof(m.data));
				tr.data = (uintptr_t)rep;
				tr.data_size = rlen;
				/* scale-objects: the echo sends the object back, a handle again */
				if (rep == s->map + m.data && m.offsets_count) {
					tr.offsets = (uintptr_t)(s->map + m.offsets);
					tr.offsets_count = m.offsets_count;
				}
				wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_REPLY, &tr, sizeof(tr));
				if (rep == &ack)
					continue;
			}
			wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_FREE_BUFFER, &m.data,
				       sizeof(m.data));
		}
	}
}

static void fb_server(const struct srv_cfg *cfg)
{
	struct fbinder_context_mgr mgr = { .cookie = 0x1234 };
	struct fb_srv s = { .cfg = cfg };
	char go;

	s.fd = fb_open_map(cfg->map_size ? cfg->map_size : FB_MAP, &s.map);
	if (cfg->pair >= 0) {
		struct broker_msg reg = { .pair = (uint32_t)cfg->pair };

		reg.obj.type = FBINDER_OBJ_LOCAL;
		reg.obj.cookie = 0x1234 + (uint64_t)cfg->pair;
		broker_call(s.fd, s.map, BROKER_REGISTER, &reg, true);
	} else if (ioctl(s.fd, FBINDER_IOC_SET_CONTEXT_MGR, &mgr) < 0) {
		die_errno("FBINDER_IOC_SET_CONTEXT_MGR");
	}
	s.rx.done_fd = cfg->done_fd;
	signal_ready(cfg->ready_fd);
	if (cfg->mode == MODE_IDLE && read(cfg->go_fd, &go, 1) != 1)
		die("go pipe");
	run_threads(cfg->nthreads, fb_serve, &s);
	_exit(0);
}

/* ---- client ---- */

static void *fb_client_open(int idx, size_t map_size)
{
	struct fb_conn *c = calloc(1, sizeof(*c));

	if (!c)
		die("malloc");
	c->fd = fb_open_map(map_size ? map_size : FB_MAP, &c->map);
	c->pending_free = -1;
	c->cookie = 0xc0de0000u + (uint64_t)idx;
	if (bench_pairs) {
		struct broker_msg q = { .pair = (uint32_t)idx };

		c->handle = broker_call(c->fd, c->map, BROKER_LOOKUP, &q, false);
		if (!c->handle)
			die("fastbinder: no server for pair %d", idx);
	}
	return c;
}

static int fb_call(void *cp, const void *req, size_t len, size_t want,
		   const void **reply, size_t *rlen)
{
	struct fb_conn *c = cp;
	unsigned char w[64];
	struct fbinder_txn_data tr = { .handle = c->handle, .code = 1 };
	struct fbinder_write_read wr = { 0 };
	size_t wlen = 0;

	(void)want;
	if (bench_objects || bench_nested) {
		/*
		 * scale-objects: a handle of the server's own node, which the
		 * server gets as LOCAL; scale-nested: the client's own object
		 */
		struct fbinder_object obj = { .type = FBINDER_OBJ_HANDLE, .handle = c->handle };
		size_t at = (len + 7) & ~(size_t)7;

		if (bench_nested)
			obj = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL,
						       .cookie = c->cookie };

		if (at > sizeof(c->objbuf) - sizeof(obj))
			return -EMSGSIZE;
		memcpy(c->objbuf, req, len);
		memset(c->objbuf + len, 0, at - len);
		memcpy(c->objbuf + at, &obj, sizeof(obj));
		c->obj_at = at;
		c->req_len = len;
		req = c->objbuf;
		len = at + sizeof(obj);
		tr.offsets = (uintptr_t)&c->obj_at;
		tr.offsets_count = 1;
	}
	if (c->pending_free >= 0) {
		uint64_t off = (uint64_t)c->pending_free;

		wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_FREE_BUFFER, &off, sizeof(off));
		c->pending_free = -1;
	}
	tr.data = (uintptr_t)req;
	tr.data_size = len;
	wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_SEND, &tr, sizeof(tr));
	wr.write_buffer = (uintptr_t)w;
	wr.write_size = wlen;
	wr.read_buffer = (uintptr_t)c->rbuf;
	wr.read_size = sizeof(c->rbuf);
	for (;;) {
		size_t pos = 0;

		if (ioctl(c->fd, FBINDER_IOC_WRITE_READ, &wr) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		while (pos + 4 <= wr.read_consumed) {
			uint32_t cmd;
			struct fbinder_txn_msg m;
			struct fbinder_txn_error e;

			memcpy(&cmd, c->rbuf + pos, 4);
			pos += 4;
			if (cmd == FBINDER_RET_REPLY) {
				memcpy(&m, c->rbuf + pos, sizeof(m));
				*reply = c->map + m.data;
				*rlen = m.data_size;
				/* the echo of the object is the transport's, not the caller's */
				if ((bench_objects &&
				     *rlen == c->obj_at + sizeof(struct fbinder_object)) ||
				    (bench_nested && *rlen == c->obj_at))
					*rlen = c->req_len;
				c->pending_free = (int64_t)m.data;
				return 0;
			}
			if (cmd == FBINDER_RET_FAILED) {
				memcpy(&e, c->rbuf + pos, sizeof(e));
				return e.error;
			}
			if (cmd == FBINDER_RET_TRANSACTION && bench_nested) {
				struct fbinder_txn_data rt = { .code = 0 };

				/* the server's call back: echo it, then wait on */
				memcpy(&m, c->rbuf + pos, sizeof(m));
				pos += sizeof(m);
				if (m.cookie != c->cookie || (m.flags & FBINDER_TXN_ONEWAY))
					die("fastbinder client: a call for 0x%llx, flags 0x%x",
					    (unsigned long long)m.cookie, m.flags);
				rt.data = (uintptr_t)(c->map + m.data);
				rt.data_size = m.data_size;
				wlen = fbt_put_cmd(w, 0, FBINDER_CMD_REPLY, &rt, sizeof(rt));
				wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_FREE_BUFFER, &m.data,
						   sizeof(m.data));
				wr.write_buffer = (uintptr_t)w;
				wr.write_size = wlen;
				wr.write_consumed = 0;
				continue;
			}
			if (cmd == FBINDER_RET_SPAWN_LOOPER)
				continue;
			die("fastbinder client: unexpected return 0x%x", cmd);
		}
		wr.read_consumed = 0;
	}
}

/*
 * n messages to handle 0: one FBINDER_CMD_SEND_BATCH when batched (at most
 * BENCH_BATCH of them), else an FBINDER_CMD_SEND each.
 */
static int fb_oneway(void *cp, const void *const *msgs, size_t len, int n,
		     bool batch)
{
	struct fb_conn *c = cp;
	unsigned char w[64];
	int i = 0;

	if (n > BENCH_BATCH)
		return -EINVAL;
	while (i < n) {
		int k = batch ? n - i : 1, j;
		struct fbinder_write_read wr = { 0 };
		size_t wlen;

		if (k > 1) {
			struct fbinder_batch_send bs = {
				.handle = c->handle, .count = (uint32_t)k,
				.msgs = (uintptr_t)c->batch,
			};

			for (j = 0; j < k; j++) {
				c->batch[j] = (struct fbinder_batch_msg){ .code = 2 };
				c->batch[j].data = (uintptr_t)msgs[i + j];
				c->batch[j].data_size = len;
			}
			wlen = fbt_put_cmd(w, 0, FBINDER_CMD_SEND_BATCH, &bs,
					   sizeof(bs));
		} else {
			struct fbinder_txn_data tr = { .handle = c->handle, .code = 2,
					     .flags = FBINDER_TXN_ONEWAY };

			tr.data = (uintptr_t)msgs[i];
			tr.data_size = len;
			wlen = fbt_put_cmd(w, 0, FBINDER_CMD_SEND, &tr, sizeof(tr));
		}
		wr.write_buffer = (uintptr_t)w;
		wr.write_size = wlen;
		for (;;) {
			if (ioctl(c->fd, FBINDER_IOC_WRITE_READ, &wr) == 0)
				break;
			/* the receiver's oneway share or queue is full: let
			 * it drain, then send the (whole) batch again */
			if (errno == ENOSPC || errno == EDQUOT || errno == EINTR)
				backoff();
			else
				return -errno;
		}
		i += k;
	}
	return 0;
}

const struct transport tr_fastbinder = {
	.name = "fastbinder", .label = "fastbinder",
	.prepare = fb_prepare, .unprepare = fb_unprepare,
	.server = fb_server, .open = fb_client_open,
	.call = fb_call, .oneway = fb_oneway,
};
