// SPDX-License-Identifier: MIT
/*
 * tr_sock.c - AF_UNIX socketpair (SOCK_STREAM, SOCK_SEQPACKET) and a pipe
 * pair, the peers a user would pick instead of binder.
 *
 * One connection per client, made before the fork; server thread i serves
 * connection i.  Calls are a blocking write of the request and a blocking
 * read of the whole reply (MSG_WAITALL on a stream).  Batched oneway
 * messages use writev() (stream, pipe) or sendmmsg() (seqpacket); the
 * receiver reads as much as is there in one call (recvmmsg() for
 * seqpacket).  Stream sockets and pipes keep their default buffer sizes;
 * seqpacket needs buffers larger than its largest message, so they are
 * raised to fit (SO_SNDBUFFORCE/SO_RCVBUFFORCE, root in the VM).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bench.h"

enum kind { K_STREAM, K_SEQPACKET, K_PIPE };

struct sconn {
	int cfd_w, cfd_r;	/* client: write requests, read replies */
	int sfd_r, sfd_w;	/* server: read requests, write replies */
};

static enum kind g_kind;
static int g_nconn;
static struct sconn g_conn[BENCH_MAX_CLIENTS];

static int sk_prepare(enum kind k, int nclients, size_t max_msg)
{
	int i;

	g_kind = k;
	g_nconn = nclients;
	for (i = 0; i < nclients; i++) {
		struct sconn *c = &g_conn[i];
		int sv[2], req[2], rep[2];

		if (k == K_PIPE) {
			if (pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
				return -errno;
			c->cfd_w = req[1];
			c->sfd_r = req[0];
			c->sfd_w = rep[1];
			c->cfd_r = rep[0];
			continue;
		}
		if (socketpair(AF_UNIX, (k == K_STREAM ? SOCK_STREAM :
					 SOCK_SEQPACKET) | SOCK_CLOEXEC, 0, sv))
			return -errno;
		if (k == K_SEQPACKET) {
			int sz = (int)(2 * max_msg + 65536), j;

			for (j = 0; j < 2; j++)
				if (setsockopt(sv[j], SOL_SOCKET, SO_SNDBUFFORCE,
					       &sz, sizeof(sz)) ||
				    setsockopt(sv[j], SOL_SOCKET, SO_RCVBUFFORCE,
					       &sz, sizeof(sz)))
					return -errno;
		}
		c->cfd_w = c->cfd_r = sv[0];
		c->sfd_r = c->sfd_w = sv[1];
	}
	return 0;
}

static void sk_unprepare(void)
{
	int i;

	for (i = 0; i < g_nconn; i++) {
		struct sconn *c = &g_conn[i];

		close(c->cfd_w);
		close(c->sfd_r);
		if (g_kind == K_PIPE) {
			close(c->cfd_r);
			close(c->sfd_w);
		}
	}
	g_nconn = 0;
}

static int prep_stream(int n, size_t m) { return sk_prepare(K_STREAM, n, m); }
static int prep_seqpacket(int n, size_t m) { return sk_prepare(K_SEQPACKET, n, m); }
static int prep_pipe(int n, size_t m) { return sk_prepare(K_PIPE, n, m); }

/* The whole buffer, however many writes it takes. */
static int send_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Exactly len bytes of a byte stream. */
static int recv_all(int fd, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = g_kind == K_STREAM ? recv(fd, p, len, MSG_WAITALL)
					       : read(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One request or reply: a packet, or want bytes of a stream. */
static ssize_t recv_msg(int fd, void *buf, size_t cap, size_t want)
{
	ssize_t n;

	if (g_kind != K_SEQPACKET) {
		int err = recv_all(fd, buf, want);

		return err ? err : (ssize_t)want;
	}
	do
		n = recv(fd, buf, cap, 0);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* ---- server ---- */

struct sk_srv {
	const struct srv_cfg *cfg;
};

static void sk_serve_oneway(const struct srv_cfg *cfg, int fd)
{
	size_t cap = 64 * 1024, have = 0;
	unsigned char *buf = malloc(cap + BENCH_ONEWAY_SZ);
	struct oneway_rx rx = { .done_fd = cfg->done_fd };

	if (!buf)
		die("malloc");
	if (g_kind == K_SEQPACKET) {
		struct mmsghdr mm[BENCH_BATCH];
		struct iovec iov[BENCH_BATCH];
		int i, n;

		for (i = 0; i < BENCH_BATCH; i++) {
			iov[i].iov_base = buf + i * 512;
			iov[i].iov_len = 512;
			memset(&mm[i], 0, sizeof(mm[i]));
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		for (;;) {
			n = recvmmsg(fd, mm, BENCH_BATCH, MSG_WAITFORONE, NULL);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				die_errno("recvmmsg");
			}
			for (i = 0; i < n; i++)
				oneway_rx_msg(&rx, iov[i].iov_base, mm[i].msg_len);
		}
	}
	/* a byte stream: whatever is there, cut into messages */
	for (;;) {
		ssize_t n = read(fd, buf + have, cap - have);
		size_t pos = 0;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die_errno("read");
		}
		if (n == 0)
			die("oneway peer closed");
		have += (size_t)n;
		while (have - pos >= cfg->size) {
			oneway_rx_msg(&rx, buf + pos, cfg->size);
			pos += cfg->size;
		}
		memmove(buf, buf + pos, have - pos);
		have -= pos;
	}
}

static void sk_serve(void *arg, int idx)
{
	struct sk_srv *s = arg;
	const struct srv_cfg *cfg = s->cfg;
	unsigned char *buf;
	uint64_t ack;

	if (idx >= g_nconn)
		for (;;)
			pause();	/* a second looper with nothing to serve */
	if (cfg->mode == MODE_ONEWAY)
		sk_serve_oneway(cfg, g_conn[idx].sfd_r);
	buf = malloc(cfg->size + 64);
	if (!buf)
		die("malloc");
	for (;;) {
		ssize_t n = recv_msg(g_conn[idx].sfd_r, buf, cfg->size + 64,
				     cfg->size);
		const void *rep;
		size_t rlen;
		int err;

		if (n < 0)
			die("server recv: %s", strerror((int)-n));
		rep = server_reply(cfg, buf, (size_t)n, &ack, &rlen);
		err = send_all(g_conn[idx].sfd_w, rep, rlen);
		if (err)
			die("server send: %s", strerror(-err));
	}
}

static void sk_server(const struct srv_cfg *cfg)
{
	struct sk_srv s = { .cfg = cfg };

	signal_ready(cfg->ready_fd);
	run_threads(cfg->nthreads, sk_serve, &s);
	_exit(0);
}

/* ---- client ---- */

struct sk_client {
	struct sconn *c;
	unsigned char *rbuf;
};

static void *sk_open(int idx, size_t map_size)
{
	struct sk_client *c = calloc(1, sizeof(*c));

	(void)map_size;
	if (!c)
		die("malloc");
	c->c = &g_conn[idx];
	c->rbuf = malloc(BENCH_MAX_MSG + 64);
	if (!c->rbuf)
		die("malloc");
	return c;
}

static int sk_call(void *cp, const void *req, size_t len, size_t want,
		   const void **reply, size_t *rlen)
{
	struct sk_client *c = cp;
	ssize_t n;
	int err;

	err = send_all(c->c->cfd_w, req, len);
	if (err)
		return err;
	n = recv_msg(c->c->cfd_r, c->rbuf, BENCH_MAX_MSG + 64, want);
	if (n < 0)
		return (int)n;
	*reply = c->rbuf;
	*rlen = (size_t)n;
	return 0;
}

static int sk_oneway(void *cp, const void *const *msgs, size_t len, int n,
		     bool batch)
{
	struct sk_client *c = cp;
	struct iovec iov[BENCH_BATCH];
	struct mmsghdr mm[BENCH_BATCH];
	int i, err;

	if (!batch) {
		for (i = 0; i < n; i++) {
			err = send_all(c->c->cfd_w, msgs[i], len);
			if (err)
				return err;
		}
		return 0;
	}
	if (n > BENCH_BATCH)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		iov[i].iov_base = (void *)msgs[i];
		iov[i].iov_len = len;
		memset(&mm[i], 0, sizeof(mm[i]));
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	if (g_kind == K_SEQPACKET) {
		int done = 0;

		while (done < n) {
			int k = sendmmsg(c->c->cfd_w, mm + done, n - done, 0);

			if (k < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			done += k;
		}
		return 0;
	}
	for (;;) {
		ssize_t w = writev(c->c->cfd_w, iov, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if ((size_t)w != len * (size_t)n)
			die("short writev: %zd", w);	/* blocking: never */
		return 0;
	}
}

const struct transport tr_stream = {
	.name = "unix-stream", .label = "socketpair stream",
	.prepare = prep_stream, .unprepare = sk_unprepare,
	.server = sk_server, .open = sk_open, .call = sk_call,
	.oneway = sk_oneway,
};

const struct transport tr_seqpacket = {
	.name = "unix-seqpacket", .label = "socketpair seqpacket",
	.prepare = prep_seqpacket, .unprepare = sk_unprepare,
	.server = sk_server, .open = sk_open, .call = sk_call,
	.oneway = sk_oneway,
};

const struct transport tr_pipe = {
	.name = "pipe", .label = "pipe pair",
	.prepare = prep_pipe, .unprepare = sk_unprepare,
	.server = sk_server, .open = sk_open, .call = sk_call,
	.oneway = sk_oneway,
};
