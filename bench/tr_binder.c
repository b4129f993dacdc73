// SPDX-License-Identifier: MIT
/*
 * tr_binder.c - Android binder (Debian's binder_linux.ko, /dev/binder)
 * through raw BINDER_WRITE_READ ioctls, <linux/android/binder.h>.
 *
 * The server claims the context manager and maps 4 MiB (binder's cap);
 * clients BC_TRANSACTION to handle 0.  A client call is BC_FREE_BUFFER of
 * the previous reply + BC_TRANSACTION and a read until BR_REPLY; a server
 * turn is BC_REPLY (straight from the received buffer) + BC_FREE_BUFFER and
 * a read until the next BR_TRANSACTION.  Binder queues a
 * BR_TRANSACTION_COMPLETE for the replier, so that read returns at once
 * and the server needs a second ioctl per call: that is binder's protocol,
 * not the benchmark's doing.
 *
 * Two copies on purpose: this file and tr_fastbinder.c are written in
 * parallel (open and map, the server's setup and loop, the client's call),
 * so the two protocols can be read side by side and neither pays for a
 * shared layer the other does not need.  A change to one's shape is made
 * to the other's too.
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

#include <linux/android/binder.h>

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

#define BD_DEV		"/dev/binder"
#define BD_MAP		(4u << 20)	/* binder's largest mapping */
#define RBUF_SZ		4096

struct bd_conn {
	int fd;
	uintptr_t pending_free;		/* reply buffer to free, or 0 */
	unsigned char rbuf[RBUF_SZ];
	unsigned char *wbuf;
};

static int bd_open_map(size_t map_size)
{
	struct binder_version v;
	int fd;

	fd = open(BD_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die_errno("open %s", BD_DEV);
	if (ioctl(fd, BINDER_VERSION, &v) < 0 ||
	    v.protocol_version != BINDER_CURRENT_PROTOCOL_VERSION)
		die("binder protocol version mismatch");
	if (mmap(NULL, map_size, PROT_READ, MAP_PRIVATE | MAP_NORESERVE, fd,
		 0) == MAP_FAILED)
		die_errno("mmap binder");
	return fd;
}

/* ---- server ---- */

struct bd_srv {
	int fd;
	const struct srv_cfg *cfg;
	struct oneway_rx rx;
};

static void bd_serve(void *arg, int idx)
{
	struct bd_srv *s = arg;
	unsigned char w[256], r[RBUF_SZ];
	uint64_t ack;
	size_t wlen;

	(void)idx;
	wlen = fbt_put_cmd(w, 0, BC_ENTER_LOOPER, NULL, 0);
	for (;;) {
		struct binder_write_read wr = {
			.write_buffer = (uintptr_t)w, .write_size = wlen,
			.read_buffer = (uintptr_t)r, .read_size = sizeof(r),
		};
		size_t pos = 0;

		while (ioctl(s->fd, BINDER_WRITE_READ, &wr) < 0) {
			if (errno != EINTR && errno != EAGAIN)
				die_errno("binder server WRITE_READ");
		}
		wlen = 0;
		while (pos + 4 <= wr.read_consumed) {
			uint32_t cmd;
			struct binder_transaction_data tr;
			binder_uintptr_t buf;

			memcpy(&cmd, r + pos, 4);
			pos += 4;
			if (cmd != BR_TRANSACTION) {
				if (cmd == BR_NOOP ||
				    cmd == BR_TRANSACTION_COMPLETE ||
				    cmd == BR_SPAWN_LOOPER) {
					pos += _IOC_SIZE(cmd);
					continue;
				}
				die("binder server: unexpected return 0x%x", cmd);
			}
			memcpy(&tr, r + pos, sizeof(tr));
			pos += sizeof(tr);
			buf = tr.data.ptr.buffer;
			if (tr.flags & TF_ONE_WAY) {
				oneway_rx_msg(&s->rx, (const void *)(uintptr_t)buf,
					      tr.data_size);
			} else {
				struct binder_transaction_data rep;
				size_t rlen;
				const void *p = server_reply(s->cfg,
					(const void *)(uintptr_t)buf,
					tr.data_size, &ack, &rlen);

				memset(&rep, 0, sizeof(rep));
				rep.data_size = rlen;
				rep.data.ptr.buffer = (uintptr_t)p;
				wlen = fbt_put_cmd(w, wlen, BC_REPLY, &rep, sizeof(rep));
			}
			wlen = fbt_put_cmd(w, wlen, BC_FREE_BUFFER, &buf, sizeof(buf));
		}
	}
}

static void bd_server(const struct srv_cfg *cfg)
{
	struct bd_srv s = { .cfg = cfg };
	int zero = 0, tries;
	char go;

	s.fd = bd_open_map(cfg->map_size ? cfg->map_size : BD_MAP);
	/* the previous manager's release is deferred to a workqueue */
	for (tries = 0; ioctl(s.fd, BINDER_SET_CONTEXT_MGR, &zero) < 0; tries++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (errno != EBUSY || tries > 300)
			die_errno("BINDER_SET_CONTEXT_MGR");
		nanosleep(&ts, NULL);
	}
	s.rx.done_fd = cfg->done_fd;
	signal_ready(cfg->ready_fd);
	if (cfg->mode == MODE_IDLE && read(cfg->go_fd, &go, 1) != 1)
		die("go pipe");
	run_threads(cfg->nthreads, bd_serve, &s);
	_exit(0);
}

/* ---- client ---- */

static void *bd_client_open(int idx, size_t map_size)
{
	struct bd_conn *c = calloc(1, sizeof(*c));

	(void)idx;
	if (!c)
		die("malloc");
	c->fd = bd_open_map(map_size ? map_size : BD_MAP);
	c->wbuf = malloc(BENCH_BATCH * (4 + sizeof(struct binder_transaction_data)));
	if (!c->wbuf)
		die("malloc");
	return c;
}

static int bd_call(void *cp, const void *req, size_t len, size_t want,
		   const void **reply, size_t *rlen)
{
	struct bd_conn *c = cp;
	unsigned char w[128];
	struct binder_transaction_data tr;
	struct binder_write_read wr = { 0 };
	size_t wlen = 0;

	(void)want;
	if (c->pending_free) {
		binder_uintptr_t b = c->pending_free;

		wlen = fbt_put_cmd(w, wlen, BC_FREE_BUFFER, &b, sizeof(b));
		c->pending_free = 0;
	}
	memset(&tr, 0, sizeof(tr));
	tr.target.handle = 0;
	tr.code = 1;
	tr.data_size = len;
	tr.data.ptr.buffer = (uintptr_t)req;
	wlen = fbt_put_cmd(w, wlen, BC_TRANSACTION, &tr, sizeof(tr));
	wr.write_buffer = (uintptr_t)w;
	wr.write_size = wlen;
	wr.read_buffer = (uintptr_t)c->rbuf;
	wr.read_size = sizeof(c->rbuf);
	for (;;) {
		size_t pos = 0;

		if (ioctl(c->fd, BINDER_WRITE_READ, &wr) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		while (pos + 4 <= wr.read_consumed) {
			uint32_t cmd;

			memcpy(&cmd, c->rbuf + pos, 4);
			pos += 4;
			if (cmd == BR_REPLY) {
				memcpy(&tr, c->rbuf + pos, sizeof(tr));
				*reply = (const void *)(uintptr_t)tr.data.ptr.buffer;
				*rlen = tr.data_size;
				c->pending_free = tr.data.ptr.buffer;
				return 0;
			}
			if (cmd == BR_FAILED_REPLY || cmd == BR_DEAD_REPLY)
				return -EPIPE;
			if (cmd != BR_NOOP && cmd != BR_TRANSACTION_COMPLETE)
				die("binder client: unexpected return 0x%x", cmd);
			pos += _IOC_SIZE(cmd);
		}
		wr.read_consumed = 0;
	}
}

/* Counts BR_TRANSACTION_COMPLETEs; returns -1 on BR_FAILED_REPLY. */
static int bd_read_completes(const unsigned char *r, size_t n, int *done)
{
	size_t pos = 0;

	while (pos + 4 <= n) {
		uint32_t cmd;

		memcpy(&cmd, r + pos, 4);
		pos += 4;
		if (cmd == BR_TRANSACTION_COMPLETE)
			(*done)++;
		else if (cmd == BR_FAILED_REPLY)
			return -1;
		else if (cmd != BR_NOOP && cmd != BR_ONEWAY_SPAM_SUSPECT)
			die("binder oneway: unexpected return 0x%x", cmd);
		pos += _IOC_SIZE(cmd);
	}
	return 0;
}

static int bd_oneway(void *cp, const void *const *msgs, size_t len, int n,
		     bool batch)
{
	struct bd_conn *c = cp;
	int i = 0;

	while (i < n) {
		int k = batch ? n - i : 1, j, done = 0;
		size_t wlen = 0;
		struct binder_write_read wr = { 0 };

		for (j = 0; j < k; j++) {
			struct binder_transaction_data tr;

			memset(&tr, 0, sizeof(tr));
			tr.code = 2;
			tr.flags = TF_ONE_WAY;
			tr.data_size = len;
			tr.data.ptr.buffer = (uintptr_t)msgs[i + j];
			wlen = fbt_put_cmd(c->wbuf, wlen, BC_TRANSACTION, &tr,
				       sizeof(tr));
		}
		wr.write_buffer = (uintptr_t)c->wbuf;
		wr.write_size = wlen;
		wr.read_buffer = (uintptr_t)c->rbuf;
		wr.read_size = sizeof(c->rbuf);
		if (ioctl(c->fd, BINDER_WRITE_READ, &wr) < 0 && errno != EINTR)
			return -errno;
		/*
		 * Every message sent yields one BR_TRANSACTION_COMPLETE (the
		 * read buffer holds all 64); on BR_FAILED_REPLY (async space
		 * full) binder stopped at the failed one: let the receiver
		 * drain and send the rest again.
		 */
		if (bd_read_completes(c->rbuf, wr.read_consumed, &done) < 0)
			backoff();
		else if (done != k)
			die("binder oneway: %d completions for %d messages",
			    done, k);
		i += done;
	}
	return 0;
}

const struct transport tr_binder = {
	.name = "binder", .label = "binder",
	.server = bd_server, .open = bd_client_open,
	.call = bd_call, .oneway = bd_oneway,
};
