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
 * Two copies on purpose: written in parallel with tr_binder.c (see there).
 * Its helpers are fb_*: fbinder_* names are the driver's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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
	const unsigned char *map;
	int64_t pending_free;		/* reply buffer to free, or -1 */
	unsigned char rbuf[512];
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
};

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
	if (ioctl(s.fd, FBINDER_IOC_SET_CONTEXT_MGR, &mgr) < 0)
		die_errno("FBINDER_IOC_SET_CONTEXT_MGR");
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

	(void)idx;
	if (!c)
		die("malloc");
	c->fd = fb_open_map(map_size ? map_size : FB_MAP, &c->map);
	c->pending_free = -1;
	return c;
}

static int fb_call(void *cp, const void *req, size_t len, size_t want,
		   const void **reply, size_t *rlen)
{
	struct fb_conn *c = cp;
	unsigned char w[64];
	struct fbinder_txn_data tr = { .handle = 0, .code = 1 };
	struct fbinder_write_read wr = { 0 };
	size_t wlen = 0;

	(void)want;
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
				c->pending_free = (int64_t)m.data;
				return 0;
			}
			if (cmd == FBINDER_RET_FAILED) {
				memcpy(&e, c->rbuf + pos, sizeof(e));
				return e.error;
			}
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
				.handle = 0, .count = (uint32_t)k,
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
			struct fbinder_txn_data tr = { .handle = 0, .code = 2,
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
	.server = fb_server, .open = fb_client_open,
	.call = fb_call, .oneway = fb_oneway,
};
