// SPDX-License-Identifier: MIT
/*
 * tr_futex.c - the practical floor: a shared-memory ring per direction with
 * futex wait/wake, blocking, never spinning.
 *
 * A ring is a power-of-two byte array of records (u32 length, u32 pad,
 * payload padded to 8 bytes; a length of RING_WRAP sends the reader back to
 * the start).  head and tail are free-running 32-bit positions, and they
 * are the futex words: the reader sleeps on tail, the writer (when the ring
 * is full) on head.  Each side says it is going to sleep with a flag, and
 * the other side issues FUTEX_WAKE only when the flag is set, so a message
 * costs a system call only when its reader actually sleeps.  One copy in
 * (the writer), one copy out: an echo server copies the request straight
 * from the request ring into the reply ring, and the client reads the
 * reply in place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

#define RING_WRAP	0xffffffffu
#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)

struct ring {
	_Atomic uint32_t tail;		/* written by the producer */
	_Atomic uint32_t cons_sleep;
	char pad1[56];
	_Atomic uint32_t head;		/* written by the consumer */
	_Atomic uint32_t prod_sleep;
	char pad2[56];
	unsigned char data[];
};

struct fconn {
	struct ring *req, *rep;
};

static size_t g_cap;
static int g_nconn;
static void *g_shm;
static size_t g_shm_size;
static struct fconn g_conn[BENCH_MAX_CLIENTS];

static void futex_wait(_Atomic uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static int fx_prepare(int nclients, size_t max_msg)
{
	size_t one, i;
	unsigned char *p;

	g_cap = 1u << 20;
	while (g_cap < 2 * (max_msg + 16))
		g_cap <<= 1;
	one = sizeof(struct ring) + g_cap;
	g_shm_size = one * 2 * (size_t)nclients;
	g_shm = mmap(NULL, g_shm_size, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g_shm == MAP_FAILED)
		return -errno;
	p = g_shm;
	for (i = 0; i < (size_t)nclients; i++) {
		g_conn[i].req = (struct ring *)(p + one * 2 * i);
		g_conn[i].rep = (struct ring *)(p + one * (2 * i + 1));
	}
	g_nconn = nclients;
	return 0;
}

static void fx_unprepare(void)
{
	munmap(g_shm, g_shm_size);
	g_nconn = 0;
}

/* ---- producer side ---- */

/* Makes the records written so far visible; wakes a sleeping reader. */
static void ring_publish(struct ring *r, uint32_t tail)
{
	atomic_store(&r->tail, tail);
	if (atomic_load(&r->cons_sleep))
		futex_wake(&r->tail);
}

/*
 * Room for a record of len bytes at *ptail (the producer's unpublished
 * tail); returns where its payload goes.  Publishes and sleeps when full.
 */
static unsigned char *ring_reserve(struct ring *r, uint32_t *ptail, size_t len)
{
	uint32_t need = (uint32_t)(8 + ALIGN8(len)), t = *ptail;
	uint32_t idx = t & (uint32_t)(g_cap - 1), extra = 0;

	if (g_cap - idx < need)
		extra = (uint32_t)g_cap - idx;
	for (;;) {
		uint32_t h = atomic_load(&r->head);

		if (g_cap - (t - h) >= (size_t)extra + need)
			break;
		if (atomic_load(&r->tail) != t)
			ring_publish(r, t);	/* the reader must see them */
		atomic_store(&r->prod_sleep, 1);
		if (atomic_load(&r->head) == h)
			futex_wait(&r->head, h);
		atomic_store(&r->prod_sleep, 0);
	}
	if (extra) {
		uint32_t wrap = RING_WRAP;

		memcpy(r->data + idx, &wrap, sizeof(wrap));
		t += extra;
		idx = 0;
	}
	memcpy(r->data + idx, &(uint32_t){ (uint32_t)len }, sizeof(uint32_t));
	*ptail = t + need;
	return r->data + idx + 8;
}

/* ---- consumer side ---- */

/* Hands consumed space back; wakes a writer waiting for room. */
static void ring_release(struct ring *r, uint32_t head)
{
	atomic_store(&r->head, head);
	if (atomic_load(&r->prod_sleep))
		futex_wake(&r->head);
}

/* The next record at *phead, waiting for one; *phead skips wrap marks. */
static const unsigned char *ring_next(struct ring *r, uint32_t *phead,
				      size_t *len)
{
	for (;;) {
		uint32_t h = *phead, t = atomic_load(&r->tail), l;
		uint32_t idx = h & (uint32_t)(g_cap - 1);

		if (h == t) {
			if (atomic_load(&r->head) != h)
				ring_release(r, h);
			atomic_store(&r->cons_sleep, 1);
			if (atomic_load(&r->tail) == h)
				futex_wait(&r->tail, h);
			atomic_store(&r->cons_sleep, 0);
			continue;
		}
		memcpy(&l, r->data + idx, sizeof(l));
		if (l == RING_WRAP) {
			*phead = h + ((uint32_t)g_cap - idx);
			continue;
		}
		*len = l;
		return r->data + idx + 8;
	}
}

static void ring_consume(uint32_t *phead, size_t len)
{
	*phead += (uint32_t)(8 + ALIGN8(len));
}

/* ---- server ---- */

static void fx_serve(void *arg, int idx)
{
	const struct srv_cfg *cfg = arg;
	struct oneway_rx rx = { .done_fd = cfg->done_fd };
	uint32_t rhead = 0, wtail = 0, n = 0;
	uint64_t ack;

	if (idx >= g_nconn)
		for (;;)
			pause();
	for (;;) {
		struct fconn *c = &g_conn[idx];
		size_t len, rlen;
		const unsigned char *m = ring_next(c->req, &rhead, &len);

		if (cfg->mode == MODE_ONEWAY) {
			oneway_rx_msg(&rx, m, len);
			ring_consume(&rhead, len);
			if (++n % BENCH_BATCH == 0)
				ring_release(c->req, rhead);
			continue;
		} else {
			const void *rep = server_reply(cfg, m, len, &ack, &rlen);
			unsigned char *dst = ring_reserve(c->rep, &wtail, rlen);

			memcpy(dst, rep, rlen);
			ring_publish(c->rep, wtail);
		}
		ring_consume(&rhead, len);
		ring_release(c->req, rhead);
	}
}

static void fx_server(const struct srv_cfg *cfg)
{
	signal_ready(cfg->ready_fd);
	if (cfg->pair >= 0)
		fx_serve((void *)cfg, cfg->pair);	/* never returns */
	run_threads(cfg->nthreads, fx_serve, (void *)cfg);
	_exit(0);
}

/* ---- client ---- */

struct fx_client {
	struct fconn *c;
	uint32_t wtail, rhead;
	size_t pending;		/* length of the reply read in place */
	bool has_pending;
};

static void *fx_open(int idx, size_t map_size)
{
	struct fx_client *c = calloc(1, sizeof(*c));

	(void)map_size;
	if (!c)
		die("malloc");
	c->c = &g_conn[idx];
	return c;
}

static int fx_call(void *cp, const void *req, size_t len, size_t want,
		   const void **reply, size_t *rlen)
{
	struct fx_client *c = cp;
	unsigned char *dst;

	(void)want;
	if (c->has_pending) {
		ring_consume(&c->rhead, c->pending);
		ring_release(c->c->rep, c->rhead);
		c->has_pending = false;
	}
	dst = ring_reserve(c->c->req, &c->wtail, len);
	memcpy(dst, req, len);
	ring_publish(c->c->req, c->wtail);
	*reply = ring_next(c->c->rep, &c->rhead, rlen);
	c->pending = *rlen;
	c->has_pending = true;
	return 0;
}

static int fx_oneway(void *cp, const void *const *msgs, size_t len, int n,
		     bool batch)
{
	struct fx_client *c = cp;
	int i;

	for (i = 0; i < n; i++) {
		unsigned char *dst = ring_reserve(c->c->req, &c->wtail, len);

		memcpy(dst, msgs[i], len);
		if (!batch)
			ring_publish(c->c->req, c->wtail);
	}
	if (batch)
		ring_publish(c->c->req, c->wtail);
	return 0;
}

const struct transport tr_futex = {
	.name = "futex-ring", .label = "futex ring",
	.prepare = fx_prepare, .unprepare = fx_unprepare,
	.server = fx_server, .open = fx_open, .call = fx_call,
	.oneway = fx_oneway,
};
