// SPDX-License-Identifier: MIT
/*
 * soak: sustained mixed traffic for a fixed number of operations, with
 * memory sampled once warm and at the end: no growth.
 *
 * A server process S (two loopers) and a client process with NTHREADS
 * threads run FBINDER_SOAK_OPS operations (default 20000, scaled by FBINDER_SCALE):
 * checked echo calls of 0..64 KiB (the slot allocator and lazy pages),
 * oneway batches, objects handed out and dropped (nodes created, release
 * notices), fds passed both ways, death links made and cancelled, nested
 * calls; and two of the resource attacks of docs/security.md (G6): a burst
 * of LINK_BURST death links on one object dropped with its last reference
 * (the batched drop), and write streams longer than one ioctl's budget
 * (EINTR, go on).  At 25% (warm) and at 100% the threads stop at a barrier and the
 * parent samples /proc/meminfo (Slab, SUnreclaim, MemAvailable),
 * /proc/slabinfo when present, and the live_* counters of debugfs stats.
 *
 * Fails when the live counters differ between the two quiescent points,
 * when unreclaimable slab grew by more than FBINDER_SOAK_SLAB_KB (1024; a KASAN
 * kernel keeps freed objects in quarantine, so check-debug raises it), when
 * MemAvailable fell by more than FBINDER_SOAK_AVAIL_KB (8192), when a reply was
 * wrong, or when the live counters are not zero after everything closed.
 */
#define _GNU_SOURCE
#include "fbt_proto.h"
#include "fbt_stress.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x50a4ULL
#define NTHREADS	3
#define MAXMSG		(64 * 1024)
#define LINK_BURST	512
#define STREAM_PAIRS	3000	/* 6000 commands: more than one ioctl runs */

enum { C_ECHO = 1, C_GIVE, C_OBJ, C_FD, C_NEST, C_BACK, C_FLOOD };

static const char *const live_names[] = {
	"live_contexts", "live_threads", "live_nodes", "live_handles",
	"live_buffers", "live_transactions", "live_death_links",
};
#define NLIVE (sizeof(live_names) / sizeof(live_names[0]))

/* ---------------------------------------------------------------- S */

static _Atomic unsigned long long s_next_cookie = 0x10000;

static void close_fds(struct fbt_ctx *p, const struct fbinder_txn_msg *m)
{
	__u64 i;

	for (i = 0; i < m->offsets_count; i++)
		if (fbt_obj(p, m, i)->type == FBINDER_OBJ_FD)
			close(fbt_obj(p, m, i)->fd);
}

static int s_nested(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	(void)p; (void)r; (void)arg;
	return 0;
}

static int s_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	static __thread unsigned char buf[MAXMSG];
	const struct fbinder_txn_msg *m = &r->msg;
	struct fbinder_object o = { 0 };
	__u64 off = 0;
	struct fbt_ret rr;
	int ret;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;	/* RELEASE notices: nothing to free here */
	if (m->flags & FBINDER_TXN_ONEWAY) {
		fbt_free_buffer(p, m->data);
		return 0;
	}
	switch (m->code) {
	case C_ECHO:
		memcpy(buf, fbt_data(p, m), m->data_size);
		fbt_reply(p, m, 0, buf, m->data_size, NULL, 0);
		break;
	case C_GIVE:
		o.type = FBINDER_OBJ_LOCAL;
		o.cookie = atomic_fetch_add(&s_next_cookie, 1);
		fbt_reply(p, m, 0, &o, sizeof(o), &off, 1);
		break;
	case C_FD: {
		int pf[2];

		close_fds(p, m);
		if (pipe(pf) < 0)
			die("S: pipe");
		o.type = FBINDER_OBJ_FD;
		o.fd = pf[0];
		fbt_reply(p, m, 0, &o, sizeof(o), &off, 1);
		close(pf[0]);
		close(pf[1]);
		break;
	}
	case C_NEST: {
		__u32 h = fbt_obj(p, m, 0)->handle;

		ret = fbt_call(p, h, C_BACK, NULL, 0, NULL, 0, &rr, s_nested, NULL);
		if (!ret && rr.cmd == FBINDER_RET_REPLY)
			fbt_free_buffer(p, rr.msg.data);
		fbt_reply(p, m, ret || rr.cmd != FBINDER_RET_REPLY, NULL, 0, NULL, 0);
		break;
	}
	default:	/* C_OBJ: a call to a handed-out object */
		fbt_reply(p, m, (__u32)m->cookie, NULL, 0, NULL, 0);
		break;
	}
	return 0;
}

static void *s_looper(void *arg)
{
	struct fbt_ctx *t = fbt_ctx_thread(arg, true);

	fbt_serve(t, s_handle, NULL);
	return NULL;
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	pthread_t th;

	(void)arg;
	if (pthread_create(&th, NULL, s_looper, p))
		die("pthread_create");
	s_looper(p);
	return 0;
}

/* ------------------------------------------------------------ client */

struct client {
	struct fbt_ctx ctx;			/* the client's context */
	unsigned long per_thread;
	pthread_barrier_t bar;
	unsigned long phase_at;		/* ops per thread at the warm sample */
	_Atomic unsigned long long calls, oneways, objects, fds, nested, links;
	_Atomic unsigned long long bursts, streams;
	_Atomic int errors;
};

static struct client cl;

static void fail(const char *what, long a)
{
	if (atomic_fetch_add(&cl.errors, 1) < 5)
		printf("not ok: %s (%ld)\n", what, a);
}

static int c_nested(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	(void)arg;
	if (r->cmd == FBINDER_RET_TRANSACTION && r->msg.code == C_BACK) {
		atomic_fetch_add(&cl.nested, 1);
		fbt_reply(p, &r->msg, 0, NULL, 0, NULL, 0);
		return 0;
	}
	fail("unexpected nested work", (long)r->cmd);
	return 0;
}

static void call_ok(struct fbt_ctx *t, int ret, struct fbt_ret *r, const char *what)
{
	if (ret || r->cmd != FBINDER_RET_REPLY) {
		fail(what, ret ? ret : (long)r->err.error);
		return;
	}
	atomic_fetch_add(&cl.calls, 1);
	(void)t;
}

/* A new object of S's, the handle acquired; 0 when the call failed. */
static __u32 give_object(struct fbt_ctx *t)
{
	struct fbt_ret r;
	__u32 h;
	int ret;

	ret = fbt_call(t, 0, C_GIVE, NULL, 0, NULL, 0, &r, NULL, NULL);
	call_ok(t, ret, &r, "give");
	if (ret || r.cmd != FBINDER_RET_REPLY)
		return 0;
	h = fbt_obj(t, &r.msg, 0)->handle;
	if (fbt_acquire(t, h))
		fail("acquire", h);
	fbt_free_buffer(t, r.msg.data);
	return h;
}

/* An object handed out, LINK_BURST deaths linked to it, its last ref dropped. */
static void link_burst(struct fbt_ctx *t)
{
	struct fbt_w w;
	/* a cookie names one link of the context: each burst its own */
	__u64 base = 0xe00000000ULL + LINK_BURST * atomic_fetch_add(&cl.bursts, 1);
	__u32 h;
	int n = 0, ret;

	h = give_object(t);
	if (!h)
		return;
	while (n < LINK_BURST) {
		fbt_w_reset(&w);
		for (; n < LINK_BURST && w.len + 32 <= sizeof(w.buf); n++) {
			struct fbinder_death d = { .handle = h, .cookie = base + n };

			fbt_w_cmd(&w, FBINDER_CMD_LINK_DEATH, &d, sizeof(d));
		}
		ret = fbt_wr(t, &w, NULL, false);
		if (ret) {
			fail("link burst", ret);
			break;
		}
	}
	fbt_w_reset(&w);
	fbt_w_u32(&w, FBINDER_CMD_RELEASE, h);
	if (fbt_wr(t, &w, NULL, false))
		fail("release after the burst", h);
}

/* ACQUIRE/RELEASE pairs on handle 0 beyond one ioctl's command budget. */
static void long_stream(struct fbt_ctx *t)
{
	static __thread __u32 cmds[STREAM_PAIRS * 4];
	struct fbinder_write_read wr = { 0 };
	int k, calls = 0;

	for (k = 0; k < STREAM_PAIRS; k++) {
		cmds[4 * k] = FBINDER_CMD_ACQUIRE;
		cmds[4 * k + 1] = 0;
		cmds[4 * k + 2] = FBINDER_CMD_RELEASE;
		cmds[4 * k + 3] = 0;
	}
	wr.write_buffer = (uintptr_t)cmds;
	wr.write_size = sizeof(cmds);
	while (wr.write_consumed < wr.write_size && calls++ < 100) {
		if (ioctl(t->fd, FBINDER_IOC_WRITE_READ, &wr) < 0 && errno != EINTR) {
			fail("long stream", -errno);
			return;
		}
	}
	if (wr.write_consumed != wr.write_size)
		fail("long stream not done after 100 calls", (long)wr.write_consumed);
	else if (calls < 2)
		fail("long stream ran in one call, beyond the budget", calls);
	else
		atomic_fetch_add(&cl.streams, 1);
}

static void one_op(struct fbt_ctx *t, struct fbt_rng *rng, unsigned char *buf)
{
	unsigned int op = fbt_rnd(rng, 100);
	struct fbt_ret r;
	int ret;

	if (op < 2) {
		link_burst(t);
		return;
	}
	if (op < 4) {
		long_stream(t);
		return;
	}
	if (op < 45) {
		size_t n = fbt_rnd(rng, 4) ? fbt_rnd(rng, 512) : fbt_rnd(rng, MAXMSG + 1);
		__u32 s = (__u32)fbt_rnd64(rng);

		fbt_fill(buf, n, s);
		ret = fbt_call(t, 0, C_ECHO, buf, n, NULL, 0, &r, NULL, NULL);
		call_ok(t, ret, &r, "echo");
		if (!ret && r.cmd == FBINDER_RET_REPLY) {
			if (r.msg.data_size != n || fbt_verify(fbt_data(t, &r.msg), n, s) >= 0)
				fail("echo payload", (long)n);
			fbt_free_buffer(t, r.msg.data);
		}
	} else if (op < 60) {	/* a batch of oneways, then wait for them to drain */
		struct fbt_w w;
		int k;

		fbt_w_reset(&w);
		for (k = 0; k < 16; k++)
			fbt_w_send(&w, 0, C_FLOOD, FBINDER_TXN_ONEWAY, buf, 64 + 8 * k, NULL, 0);
		ret = fbt_wr(t, &w, NULL, false);
		if (ret && ret != -ENOSPC)
			fail("oneway batch", ret);
		else if (!ret)
			atomic_fetch_add(&cl.oneways, 16);
	} else if (op < 75) {	/* an object handed out, used, linked, dropped */
		struct fbinder_death d;
		struct fbt_w w;
		__u32 h;

		h = give_object(t);
		if (!h)
			return;
		d = (struct fbinder_death){ .handle = h, .cookie = 0xd00000000ULL + h };
		fbt_w_reset(&w);
		fbt_w_cmd(&w, FBINDER_CMD_LINK_DEATH, &d, sizeof(d));
		if (fbt_wr(t, &w, NULL, false))
			fail("link death", h);
		ret = fbt_call(t, h, C_OBJ, buf, 32, NULL, 0, &r, NULL, NULL);
		call_ok(t, ret, &r, "object call");
		if (!ret && r.cmd == FBINDER_RET_REPLY)
			fbt_free_buffer(t, r.msg.data);
		fbt_w_reset(&w);
		if (fbt_rnd(rng, 2))
			fbt_w_cmd(&w, FBINDER_CMD_UNLINK_DEATH, &d, sizeof(d));
		fbt_w_u32(&w, FBINDER_CMD_RELEASE, h);	/* the last ref: links go too */
		if (fbt_wr(t, &w, NULL, false))
			fail("unlink/release", h);
		atomic_fetch_add(&cl.objects, 1);
		atomic_fetch_add(&cl.links, 1);
	} else if (op < 88) {	/* fds both ways */
		struct fbinder_object o[2] = { { .type = FBINDER_OBJ_FD }, { .type = FBINDER_OBJ_FD } };
		__u64 offs[2] = { 0, 16 };
		int pf[2];

		if (pipe(pf) < 0)
			die("pipe");
		o[0].fd = pf[0];
		o[1].fd = pf[1];
		ret = fbt_call_flags(t, 0, C_FD, FBINDER_TXN_ACCEPT_FDS, o, sizeof(o), offs, 2, &r,
				     NULL, NULL);
		close(pf[0]);
		close(pf[1]);
		call_ok(t, ret, &r, "fd");
		if (!ret && r.cmd == FBINDER_RET_REPLY) {
			close_fds(t, &r.msg);
			fbt_free_buffer(t, r.msg.data);
			atomic_fetch_add(&cl.fds, 1);
		}
	} else {	/* nested: S calls back into this thread */
		struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL, .cookie = 0xc11e };
		__u64 off = 0;

		ret = fbt_call(t, 0, C_NEST, &o, sizeof(o), &off, 1, &r, c_nested, NULL);
		call_ok(t, ret, &r, "nested");
		if (!ret && r.cmd == FBINDER_RET_REPLY) {
			if (r.msg.code)
				fail("nested reply code", r.msg.code);
			fbt_free_buffer(t, r.msg.data);
		}
	}
}

static void *c_thread(void *arg)
{
	static __thread unsigned char buf[MAXMSG];
	unsigned long i, idx = (uintptr_t)arg;
	struct fbt_rng rng;
	struct fbt_ctx *t = fbt_ctx_thread(&cl.ctx, false);

	fbt_rng_seed(&rng, fbt_mix(fbt_env_ull("FBINDER_SOAK_SEED", 42), idx));
	for (i = 0; i < cl.per_thread; i++) {
		if (i == cl.phase_at) {
			pthread_barrier_wait(&cl.bar);	/* warm: sample */
			pthread_barrier_wait(&cl.bar);	/* sampled: go on */
		}
		one_op(t, &rng, buf);
	}
	pthread_barrier_wait(&cl.bar);	/* end: sample */
	pthread_barrier_wait(&cl.bar);
	free(t);
	return NULL;
}

/* Takes the context-wide work: release notices of the nested-call object. */
static int c_loop(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	(void)arg;
	if (r->cmd == FBINDER_RET_TRANSACTION) {
		fail("unexpected transaction", (long)r->msg.code);
		if (r->msg.flags & FBINDER_TXN_ONEWAY)
			fbt_free_buffer(p, r->msg.data);
		else
			fbt_reply(p, &r->msg, 1, NULL, 0, NULL, 0);
	}
	return 0;
}

static void *c_looper(void *arg)
{
	struct fbt_ctx *t = malloc(sizeof(*t));
	struct fbt_w w;

	(void)arg;
	if (!t)
		die("malloc");
	fbt_ctx_attach(t, &cl.ctx);
	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_ENTER_LOOPER, NULL, 0);
	fbt_wr(t, &w, NULL, false);
	fbt_serve(t, c_loop, NULL);	/* until FBINDER_IOC_WAKE_IDLE: EAGAIN */
	free(t);
	return NULL;
}

struct sample {
	struct fbt_mem mem;
	long long live[NLIVE];
};

static void take_sample(struct sample *s, const char *when)
{
	size_t i;

	/* Deferred frees (RCU, workqueues) and oneways still being drained. */
	usleep(200000);
	fbt_mem_settle();
	for (i = 0; i < NLIVE; i++)
		if (fbt_stat(live_names[i], &s->live[i]))
			s->live[i] = -1;
	fbt_mem_sample(&s->mem);
	printf("# %-5s Slab %lld KiB, SUnreclaim %lld KiB, MemAvailable %lld KiB, slabinfo %lld KiB;"
	       " live contexts %lld threads %lld nodes %lld handles %lld buffers %lld txns %lld links %lld\n",
	       when, s->mem.slab_kb, s->mem.sunreclaim_kb, s->mem.avail_kb, s->mem.slabinfo_kb,
	       s->live[0], s->live[1], s->live[2], s->live[3], s->live[4], s->live[5], s->live[6]);
	fflush(stdout);
}

int main(void)
{
	unsigned long ops = fbt_env_ull("FBINDER_SOAK_OPS", fbt_scaled(20000, 1000));
	long long slab_tol = (long long)fbt_env_ull("FBINDER_SOAK_SLAB_KB", 1024);
	long long avail_tol = (long long)fbt_env_ull("FBINDER_SOAK_AVAIL_KB", 8192);
	struct sample warm, end;
	pthread_t th[NTHREADS], lth;
	long long t0, t1, t1b, t2;
	size_t i;
	pid_t spid;

	signal(SIGPIPE, SIG_IGN);
	cl.per_thread = ops / NTHREADS;
	cl.phase_at = cl.per_thread / 4;
	printf("# soak: %lu operations on %d threads, warm-up %lu\n", cl.per_thread * NTHREADS,
	       NTHREADS, cl.phase_at * NTHREADS);
	spid = fbt_spawn_manager_ex(4 * MB, MGR_COOKIE, FBT_MGR_FDS, s_main, NULL);
	fbt_ctx_open(&cl.ctx, 4 * MB);
	pthread_barrier_init(&cl.bar, NULL, NTHREADS + 1);
	if (pthread_create(&lth, NULL, c_looper, NULL))
		die("pthread_create");
	t0 = fbt_now_ms();
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, c_thread, (void *)(uintptr_t)i))
			die("pthread_create");

	pthread_barrier_wait(&cl.bar);
	t1 = fbt_now_ms();
	take_sample(&warm, "warm");
	t1b = fbt_now_ms();
	pthread_barrier_wait(&cl.bar);
	pthread_barrier_wait(&cl.bar);
	t2 = fbt_now_ms();
	take_sample(&end, "end");
	pthread_barrier_wait(&cl.bar);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);

	printf("# %lu ops in %.1f s (%.0f ops/s): %llu calls, %llu oneways, %llu objects, %llu fd exchanges, %llu nested, %llu death links\n",
	       cl.per_thread * NTHREADS, (t2 - t0 - (t1b - t1)) / 1000.0,
	       (cl.per_thread * NTHREADS) * 1000.0 / (double)(t2 - t0 - (t1b - t1) + 1),
	       (unsigned long long)cl.calls, (unsigned long long)cl.oneways,
	       (unsigned long long)cl.objects, (unsigned long long)cl.fds,
	       (unsigned long long)cl.nested, (unsigned long long)cl.links);
	printf("# attacks: %llu bursts of %d death links, %llu streams of %d commands\n",
	       (unsigned long long)cl.bursts, LINK_BURST,
	       (unsigned long long)cl.streams, 2 * STREAM_PAIRS);
	CHECK(atomic_load(&cl.errors) == 0, "%d operations failed", atomic_load(&cl.errors));
	for (i = 0; i < NLIVE; i++)
		CHECK(warm.live[i] == end.live[i], "%s: %lld when warm, %lld at the end",
		      live_names[i], warm.live[i], end.live[i]);
	CHECK(end.mem.sunreclaim_kb - warm.mem.sunreclaim_kb <= slab_tol,
	      "SUnreclaim grew by %lld KiB (tolerance %lld KiB)",
	      end.mem.sunreclaim_kb - warm.mem.sunreclaim_kb, slab_tol);
	CHECK(warm.mem.avail_kb - end.mem.avail_kb <= avail_tol,
	      "MemAvailable fell by %lld KiB (tolerance %lld KiB)",
	      warm.mem.avail_kb - end.mem.avail_kb, avail_tol);
	printf("# growth warm -> end: Slab %+lld KiB, SUnreclaim %+lld KiB, MemAvailable %+lld KiB\n",
	       end.mem.slab_kb - warm.mem.slab_kb, end.mem.sunreclaim_kb - warm.mem.sunreclaim_kb,
	       end.mem.avail_kb - warm.mem.avail_kb);

	/* Stop the looper: an idle looper returns EAGAIN. */
	for (i = 0; i < 100 && pthread_tryjoin_np(lth, NULL); i++) {
		ioctl(cl.ctx.fd, FBINDER_IOC_WAKE_IDLE);
		usleep(10000);
	}
	CHECK(i < 100, "the looper did not stop on FBINDER_IOC_WAKE_IDLE");
	fbt_ctx_close(&cl.ctx);
	kill(spid, SIGKILL);
	fbt_wait(spid);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts did not return to zero");
	return fbt_done();
}
