// SPDX-License-Identifier: MIT
/*
 * fbbench - fastbinder against Android binder, AF_UNIX sockets, pipes and a
 * futex ring, every workload in one boot (docs/performance.md).
 *
 *   fbbench [-1] [-I] [-n] [-P pairs] [-q] [-s bytes] [-t transport,...] [-w workload,...]
 *
 * Workloads: rt (round trip 4 B..1 MiB), bw (1 and 4 MiB out + 8-byte ack),
 * oneway (128 B, 1 vs 64 per call), clients (1 vs 2 clients, 2 server
 * threads), scale (1, 2, ... disjoint client/server pairs, pair i pinned to
 * vCPU i, 4 B calls and 128 B oneway: fastbinder, pipe pair, futex ring),
 * mem (resident pages of an idle receiver, 1 MiB mapping), idl (a call
 * through fbidl's generated stubs against the same call written by hand
 * on libbinderlite: bench/wl_idl.c), gather (a 64 B header and a 64 KiB
 * payload gathered by bl_call_iov() against one buffer and against
 * marshalling them first: bench/wl_gather.c); scale-calls, scale-oneway,
 * scale-objects (fastbinder's calls carrying a handle) and scale-nested
 * (fastbinder's calls, each calling the client back while it is handled)
 * are the parts of scale, -P N its runs of N pairs only.
 * rt1 is rt with the client and the server pinned to vCPU 0.  -q makes
 * every measurement shorter (a smoke test); -1 pins every measurement to
 * vCPU 0 (an experiment: no cross-vCPU wake-ups); -n skips the context
 * figures (for profiling), -s N measures round trips of N bytes only (one
 * of the five sizes).  -I is the deterministic mode, for a guest run
 * under QEMU's -icount shift=0,sleep=off on one vCPU: a guest nanosecond is
 * one executed instruction, so "us" read as k instructions; rt1, clients
 * and scale (which need two vCPUs; scale with -P 1 runs, for
 * bench-sections) are left out, runs are shorter, oneway rates leave
 * out the time the vCPU was idle, and the tables and targets are the
 * deterministic ones (docs/performance.md).
 *
 * Output on stdout: progress lines, "BENCH-CTX {json}", one "BENCH-JSON
 * {json}" per measurement (a latency workload's with the median and the
 * mean per call of the same samples), "BENCH-PLOT transport size
 * median_us p99_us" lines, and the tables (markdown) between
 * BENCH-TABLE-BEGIN and BENCH-TABLE-END.  bench/run.sh turns them into
 * build/bench/.  The exit status is 1 if any measurement failed (a wrong
 * echo included).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

unsigned char *bench_pattern;
int bench_pairs;
bool bench_objects;
bool bench_nested;

/* ---- helpers ---- */

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void die(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fbbench[%d]: %s\n", getpid(), buf);
	_exit(2);
}

void die_errno(const char *fmt, ...)
{
	int e = errno;
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	die("%s: %s", buf, strerror(e));
}

void write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die_errno("write to pipe");
		p += n;
		len -= (size_t)n;
	}
}

void signal_ready(int fd)
{
	write_full(fd, "r", 1);
}

void bench_stamp(void *msg, size_t len, uint64_t seq)
{
	unsigned char *p = msg;

	if (len >= 16) {
		memcpy(p, &seq, 8);
		memcpy(p + len - 8, &seq, 8);
	} else {
		memcpy(p, &seq, len < 8 ? len : 8);
	}
}

uint64_t bench_head(const void *msg, size_t len)
{
	uint64_t v = 0;

	memcpy(&v, msg, len < 8 ? len : 8);
	return v;
}

bool bench_check_sparse(const void *msg, size_t len)
{
	const unsigned char *p = msg;
	size_t off;

	if (len < 16)
		return true;
	if (memcmp(p, p + len - 8, 8))
		return false;
	for (off = 4096 + 8; off + 8 <= len - 8; off += 4096)
		if (memcmp(p + off, bench_pattern + off, 8))
			return false;
	return true;
}

bool bench_check_full(const void *msg, size_t len, uint64_t seq)
{
	const unsigned char *p = msg;

	if (len < 16 || len > BENCH_MAX_MSG)
		return false;
	return !memcmp(p, &seq, 8) && !memcmp(p + len - 8, &seq, 8) &&
	       !memcmp(p + 8, bench_pattern + 8, len - 16);
}

bool oneway_rx_msg(struct oneway_rx *rx, const void *msg, size_t len)
{
	uint64_t res;

	if (len >= 16 && bench_head(msg, len) == BENCH_END) {
		res = rx->failed || !bench_check_full(msg, len, BENCH_END) ?
		      UINT64_MAX : rx->expect;
		write_full(rx->done_fd, &res, sizeof(res));
		rx->expect = 0;
		rx->failed = false;
		return true;
	}
	if (!bench_check_full(msg, len, rx->expect))
		rx->failed = true;
	rx->expect++;
	return false;
}

const void *server_reply(const struct srv_cfg *cfg, const void *req,
			 size_t len, uint64_t *ackbuf, size_t *rlen)
{
	if (cfg->mode == MODE_ECHO) {
		*rlen = len;
		return req;
	}
	*ackbuf = len == cfg->size && bench_check_sparse(req, len) ?
		  bench_head(req, len) : UINT64_MAX;
	*rlen = sizeof(*ackbuf);
	return ackbuf;
}

struct thread_arg {
	void (*fn)(void *arg, int idx);
	void *arg;
	int idx;
};

static void *thread_main(void *p)
{
	struct thread_arg *ta = p;

	ta->fn(ta->arg, ta->idx);
	return NULL;
}

void run_threads(int n, void (*fn)(void *arg, int idx), void *arg)
{
	static struct thread_arg ta[8];
	pthread_t th;
	int i;

	for (i = 1; i < n && i < 8; i++) {
		ta[i] = (struct thread_arg){ fn, arg, i };
		if (pthread_create(&th, NULL, thread_main, &ta[i]))
			die("pthread_create");
	}
	fn(arg, 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000ull),
			       (long)(t % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * make bench-contention's window: with FBBENCH_LOCK_STAT naming
 * /proc/sys/kernel/lock_stat, the kernel's lock statistics are collected
 * while the pairs of a scale workload send (from their common start to
 * nine tenths of the budget), not while they set up or end.
 */
static void lock_stat_window(uint64_t start_at, double budget)
{
	const char *path = getenv("FBBENCH_LOCK_STAT");
	const char *onoff[] = { "1\n", "0\n" };
	int i, fd;

	if (!path)
		return;
	for (i = 0; i < 2; i++) {
		sleep_until(start_at + (uint64_t)(i * budget * 0.9e9));
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, onoff[i], 2) != 2)
			die_errno("%s", path);
		close(fd);
	}
}

/* ---- measurements ---- */

/*
 * WL_CLIENTS: 1 or 2 clients against one server with 2 threads (the brief's
 * scaling view).  WL_SCALE_RT, WL_SCALE_OW: N disjoint client/server pairs,
 * pair i pinned to vCPU i, 4 B echo calls or 128 B oneway messages, 1 per
 * call (issue 35: what the pairs share shows as a ratio below the pipe
 * pair's).  WL_SCALE_OBJ: fastbinder's scale calls, each carrying a handle
 * object (the server's own, back to it), the path of a message with
 * objects (no peer passes objects: its ratio is to its own 1 pair only).
 * WL_SCALE_NEST: fastbinder's scale calls, each carrying the client's own
 * object, which the server calls back once while it handles the call (a
 * nested call to the waiting client thread); its rate counts the outer
 * calls, each four messages.
 */
enum workload { WL_RT, WL_RT1, WL_BW, WL_ONEWAY1, WL_ONEWAY64, WL_CLIENTS,
		WL_SCALE_RT, WL_SCALE_OW, WL_SCALE_OBJ, WL_SCALE_NEST };

static const char *const wl_names[] = {
	[WL_RT] = "roundtrip", [WL_RT1] = "roundtrip-1cpu", [WL_BW] = "bandwidth",
	[WL_ONEWAY1] = "oneway-1", [WL_ONEWAY64] = "oneway-64",
	[WL_CLIENTS] = "clients", [WL_SCALE_RT] = "scale-calls",
	[WL_SCALE_OW] = "scale-oneway", [WL_SCALE_OBJ] = "scale-objects",
	[WL_SCALE_NEST] = "scale-nested",
};

static bool is_scale(enum workload wl)
{
	return wl == WL_SCALE_RT || wl == WL_SCALE_OW || wl == WL_SCALE_OBJ ||
	       wl == WL_SCALE_NEST;
}

/* Every process of a one-vCPU measurement runs on vCPU 0. */
static bool pin_all;	/* -1: every measurement on vCPU 0 */

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die_errno("sched_setaffinity %d", cpu);
}

/* pair: the pair of a scale workload (its vCPU), else -1 */
static void pin_self(enum workload wl, int pair)
{
	if (is_scale(wl) && pair >= 0)
		pin_cpu(pair);
	else if (wl == WL_RT1 || pin_all)
		pin_cpu(0);
}

static const struct transport *const all_tr[] = {
	&tr_fastbinder, &tr_binder, &tr_stream, &tr_seqpacket, &tr_pipe,
	&tr_futex,
};
#define NTR	((int)(sizeof(all_tr) / sizeof(all_tr[0])))

/* What a client process reports. */
struct cres {
	int err;
	char msg[160];
	uint64_t iters;
	double median_us, mean_us, p99_us;
	double seconds;		/* timed total */
	double count;		/* calls or messages */
	double switches;	/* context switches per call or message */
};

static bool quick;
static double budget_s = 1.2;	/* per (transport, size): all rounds together */
static bool icount;		/* -I: 1 guest ns = 1 instruction, one vCPU */
static int reps = 5;		/* runs of a throughput workload, median kept */
static size_t only_size;	/* -s: round trips of this payload only */

/* The number in the first line of path that fmt (one %llu) matches, or 0. */
static uint64_t proc_number(const char *path, const char *fmt)
{
	FILE *f = fopen(path, "r");
	char line[256];
	unsigned long long v = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * Nanoseconds vCPU 0 spent idle (NO_HZ accounting, /proc/timer_list), or 0
 * when unknown.  Under -icount,sleep=off the guest clock jumps over idle
 * time to the next timer, so a rate that includes idle periods (a oneway
 * sender backing off while the receiver drains and sleeps) would count them
 * as instructions.  Read on vCPU 0 itself, which is then busy, so the
 * figure is up to date.
 */
static uint64_t idle_ns(void)
{
	return icount ? proc_number("/proc/timer_list", " .idle_sleeptime : %llu nsecs") : 0;
}

/*
 * Context switches of the whole system so far (/proc/stat "ctxt").  Per
 * call or message they tell a shorter path from a different interleaving
 * of sender and receiver: in the deterministic mode a oneway rate moves
 * with the number of times the receiver was woken, which the scheduler
 * decides.
 */
static uint64_t ctx_switches(void)
{
	return proc_number("/proc/stat", "ctxt %llu");
}

#define MAX_SAMPLES	200000

/* A client's latency samples, shared with the orchestrator (MAP_SHARED). */
static uint64_t *shared_samples;

static void client_fail(struct cres *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void client_fail(struct cres *r, const char *fmt, ...)
{
	va_list ap;

	if (r->err)
		return;
	r->err = 1;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
}

/* Round trips (echo or ack) for the time budget, every reply checked. */
static void client_calls(const struct transport *t, void *c, enum workload wl,
			 size_t size, uint64_t until, struct cres *r)
{
	bool echo = wl != WL_BW;
	int min_iters = quick ? 5 : 20;
	size_t want = echo ? size : 8;
	uint64_t *samples = malloc(MAX_SAMPLES * sizeof(*samples));
	unsigned char *buf = malloc(size);
	uint64_t seq = 1, start, total = 0, n = 0, sw0 = 0;
	int warm = size >= (1u << 20) ? 3 : 20;

	if (!samples || !buf)
		die("malloc");
	memcpy(buf, bench_pattern, size);
	start = now_ns();
	for (;;) {
		const void *rep;
		size_t rlen;
		uint64_t t0, t1;
		int err;

		bench_stamp(buf, size, seq);
		t0 = now_ns();
		err = t->call(c, buf, size, want, &rep, &rlen);
		t1 = now_ns();
		if (err) {
			client_fail(r, "call %zu B: %s", size, strerror(-err));
			break;
		}
		if (echo ? rlen != size || memcmp(rep, buf, size)
			 : rlen != 8 || bench_head(rep, 8) != bench_head(buf, size)) {
			client_fail(r, "wrong reply at call %llu (%zu B)",
				    (unsigned long long)seq, rlen);
			break;
		}
		seq++;
		if (warm) {
			warm--;
			if (!warm) {
				sw0 = ctx_switches();
				start = now_ns();
			}
			continue;
		}
		if (wl == WL_CLIENTS || wl == WL_SCALE_RT || wl == WL_SCALE_OBJ ||
		    wl == WL_SCALE_NEST) {
			if (t1 > until)
				break;
			n++;
			total = t1 - start;	/* the timed window so far */
			continue;
		}
		samples[n++] = t1 - t0;
		total += t1 - t0;
		if (n >= MAX_SAMPLES ||
		    (t1 - start > until && n >= (uint64_t)min_iters))
			break;
	}
	r->iters = n;
	r->count = (double)n;
	if (n)
		r->switches = (double)(ctx_switches() - sw0) / n;
	if (wl == WL_CLIENTS || wl == WL_SCALE_RT || wl == WL_SCALE_OBJ ||
	    wl == WL_SCALE_NEST) {
		r->seconds = total / 1e9;	/* warm-up to the last call */
	} else if (n) {
		memcpy(shared_samples, samples, n * sizeof(*samples));
		qsort(samples, n, sizeof(*samples), cmp_u64);
		r->median_us = samples[n / 2] / 1e3;
		r->mean_us = (double)total / n / 1e3;
		r->p99_us = samples[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1] / 1e3;
		r->seconds = total / 1e9;
	}
	free(samples);
	free(buf);
}

/* Oneway 128 B messages for the budget, then the end marker. */
static void client_oneway(const struct transport *t, void *c, bool batch,
			  uint64_t budget, int done_fd, struct cres *r)
{
	unsigned char *bufs = malloc(BENCH_BATCH * BENCH_ONEWAY_SZ);
	const void *ptrs[BENCH_BATCH];
	uint64_t seq = 0, start, got, idle0 = idle_ns(), sw0 = ctx_switches();
	int i, err;

	if (!bufs)
		die("malloc");
	for (i = 0; i < BENCH_BATCH; i++) {
		memcpy(bufs + i * BENCH_ONEWAY_SZ, bench_pattern, BENCH_ONEWAY_SZ);
		ptrs[i] = bufs + i * BENCH_ONEWAY_SZ;
	}
	start = now_ns();
	do {
		for (i = 0; i < BENCH_BATCH; i++)
			bench_stamp(bufs + i * BENCH_ONEWAY_SZ, BENCH_ONEWAY_SZ,
				    seq + (uint64_t)i);
		err = t->oneway(c, ptrs, BENCH_ONEWAY_SZ, BENCH_BATCH, batch);
		if (err) {
			client_fail(r, "oneway: %s", strerror(-err));
			return;
		}
		seq += BENCH_BATCH;
	} while (now_ns() - start < budget);
	bench_stamp(bufs, BENCH_ONEWAY_SZ, BENCH_END);
	err = t->oneway(c, ptrs, BENCH_ONEWAY_SZ, 1, false);
	if (err) {
		client_fail(r, "oneway end: %s", strerror(-err));
		return;
	}
	if (read(done_fd, &got, sizeof(got)) != sizeof(got)) {
		client_fail(r, "no count from the server");
		return;
	}
	r->seconds = (now_ns() - start - (idle_ns() - idle0)) / 1e9;
	if (seq)
		r->switches = (double)(ctx_switches() - sw0) / seq;
	if (got != seq)
		client_fail(r, "server checked %llu of %llu messages",
			    (unsigned long long)got, (unsigned long long)seq);
	r->iters = seq;
	r->count = (double)seq;
	free(bufs);
}

struct result {
	const struct transport *t;
	enum workload wl;
	size_t size;
	int nclients;
	bool ok;
	char note[160];
	uint64_t iters;
	/*
	 * Latency: the median and the mean of the per-call samples.  A small
	 * round trip takes one of two paths (the caller sleeps before the
	 * reply or not), so its median jumps between them from run to run
	 * while the mean moves smoothly with their lengths and shares.
	 */
	double median_us, mean_us, p99_us;
	double mb_per_s, msgs_per_s;
	double switches;	/* context switches per call or message */
	double pair_min, pair_max;	/* clients, scale: the slowest, fastest client */
	double vs_one;		/* scale: msgs_per_s / the 1-pair figure, or 0 */
	double vs_pipe;		/* scale, fastbinder: vs_one / the pipe pair's */
};

static struct result results[512];
static int nresults;
static int failures;

/* Waits for a byte (or a u64) on fd; false after timeout_ms or EOF. */
static bool wait_read(int fd, void *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, timeout_ms) != 1)
		return false;
	return read(fd, buf, len) == (ssize_t)len;
}

static void kill_wait(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/*
 * One measurement: a fresh server, nclients client processes, their
 * reports combined.  A scale workload runs nclients disjoint pairs instead:
 * server and client i (one thread each) on vCPU i, sharing nothing but
 * the transport's kernel code, started together after the last one is
 * ready.  Returns the result (also stored).
 */
static struct result *measure(const struct transport *t, enum workload wl,
			      size_t size, int nclients, int nthreads,
			      double budget)
{
	struct result *res = &results[nresults++];
	bool pairs = is_scale(wl);
	int nsrv = pairs ? nclients : 1;
	int ready[2], done[BENCH_MAX_CLIENTS][2], rep[2];
	struct srv_cfg cfg = { .size = size, .nthreads = nthreads, .pair = -1 };
	struct cres cr[BENCH_MAX_CLIENTS];
	pid_t srv[BENCH_MAX_CLIENTS], cl[BENCH_MAX_CLIENTS];
	uint64_t start_at = 0;
	char b;
	int i, err, nsrv_up = 0, ncl = 0;

	memset(res, 0, sizeof(*res));
	memset(cr, 0, sizeof(cr));
	res->t = t;
	res->wl = wl;
	res->size = size;
	res->nclients = nclients;
	cfg.mode = wl == WL_BW ? MODE_ACK :
		   wl == WL_ONEWAY1 || wl == WL_ONEWAY64 || wl == WL_SCALE_OW ?
		   MODE_ONEWAY : MODE_ECHO;
	bench_pairs = pairs ? nclients : 0;
	bench_objects = wl == WL_SCALE_OBJ;
	bench_nested = wl == WL_SCALE_NEST;
	if (t->prepare && (err = t->prepare(nclients, size)) < 0) {
		snprintf(res->note, sizeof(res->note), "prepare: %s",
			 strerror(-err));
		bench_pairs = 0;
		return res;
	}
	if (pipe2(ready, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
		die_errno("pipe");
	for (i = 0; i < nsrv; i++)
		if (pipe2(done[i], O_CLOEXEC))
			die_errno("pipe");
	cfg.ready_fd = ready[1];
	for (i = 0; i < nsrv; i++) {
		cfg.done_fd = done[i][1];
		cfg.pair = pairs ? i : -1;
		srv[i] = fork();
		if (srv[i] < 0)
			die_errno("fork");
		if (srv[i] == 0) {
			alarm(120);
			pin_self(wl, cfg.pair);
			t->server(&cfg);
		}
		nsrv_up++;
		if (!wait_read(ready[0], &b, 1, 20000)) {
			snprintf(res->note, sizeof(res->note), "server %d did not start", i);
			goto out_server;
		}
	}
	if (wl == WL_CLIENTS || pairs)
		start_at = now_ns() + 300000000ull;
	for (i = 0; i < nclients; i++) {
		cl[i] = fork();
		if (cl[i] < 0)
			die_errno("fork");
		if (cl[i] == 0) {
			struct cres r = { 0 };
			void *c;

			alarm(60);
			pin_self(wl, pairs ? i : -1);
			c = t->open(i, 0);
			switch (wl) {
			case WL_RT:
			case WL_RT1:
			case WL_BW:
				client_calls(t, c, wl, size, (uint64_t)(budget * 1e9), &r);
				break;
			case WL_CLIENTS:
			case WL_SCALE_RT:
			case WL_SCALE_OBJ:
			case WL_SCALE_NEST:
				sleep_until(start_at);
				client_calls(t, c, wl, size,
					     start_at + (uint64_t)(budget * 1e9), &r);
				break;
			case WL_SCALE_OW:
				sleep_until(start_at);
				client_oneway(t, c, false, (uint64_t)(budget * 1e9),
					      done[i][0], &r);
				break;
			case WL_ONEWAY1:
			case WL_ONEWAY64:
				client_oneway(t, c, wl == WL_ONEWAY64,
					      (uint64_t)(budget * 1e9),
					      done[0][0], &r);
				break;
			}
			write_full(rep[1], &r, sizeof(r));
			_exit(0);
		}
		ncl++;
	}
	if (pairs)
		lock_stat_window(start_at, budget);
	for (i = 0; i < nclients; i++) {
		if (!wait_read(rep[0], &cr[i], sizeof(cr[i]), 90000)) {
			snprintf(res->note, sizeof(res->note),
				 "client %d did not report", i);
			goto out_clients;
		}
	}
	res->ok = true;
	for (i = 0; i < nclients; i++) {
		if (cr[i].err) {
			res->ok = false;
			snprintf(res->note, sizeof(res->note), "%s", cr[i].msg);
		}
		res->iters += cr[i].iters;
	}
	res->switches = cr[0].switches;
	switch (wl) {
	case WL_RT:
	case WL_RT1:
	case WL_BW:
		res->median_us = cr[0].median_us;
		res->mean_us = cr[0].mean_us;
		res->p99_us = cr[0].p99_us;
		if (cr[0].seconds > 0) {
			res->mb_per_s = size * cr[0].count / cr[0].seconds / 1e6;
			res->msgs_per_s = cr[0].count / cr[0].seconds;
		}
		break;
	case WL_CLIENTS:
	case WL_SCALE_RT:
	case WL_SCALE_OW:
	case WL_SCALE_OBJ:
	case WL_SCALE_NEST:
		/* each client's rate over its own timed span, summed */
		res->pair_min = -1;
		for (i = 0; i < nclients; i++) {
			double one = cr[i].seconds > 0 ? cr[i].count / cr[i].seconds : 0;

			res->msgs_per_s += one;
			if (res->pair_min < 0 || one < res->pair_min)
				res->pair_min = one;
			if (one > res->pair_max)
				res->pair_max = one;
		}
		break;
	case WL_ONEWAY1:
	case WL_ONEWAY64:
		if (cr[0].seconds > 0)
			res->msgs_per_s = cr[0].count / cr[0].seconds;
		res->mb_per_s = res->msgs_per_s * BENCH_ONEWAY_SZ / 1e6;
		break;
	}
out_clients:
	for (i = 0; i < ncl; i++)
		waitpid(cl[i], NULL, 0);
out_server:
	for (i = 0; i < nsrv_up; i++)
		kill_wait(srv[i]);
	close(ready[0]);
	close(ready[1]);
	for (i = 0; i < nsrv; i++) {
		close(done[i][0]);
		close(done[i][1]);
	}
	close(rep[0]);
	close(rep[1]);
	if (t->unprepare)
		t->unprepare();
	bench_pairs = 0;
	bench_objects = false;
	bench_nested = false;
	if (!res->ok)
		failures++;
	return res;
}

static const char *fmt_size(size_t s, char *buf, size_t len)
{
	if (s >= (1u << 20))
		snprintf(buf, len, "%zu MiB", s >> 20);
	else if (s >= 1024)
		snprintf(buf, len, "%zu KiB", s >> 10);
	else
		snprintf(buf, len, "%zu B", s);
	return buf;
}

static void report_progress(const struct result *r)
{
	char sz[32];

	fmt_size(r->size, sz, sizeof(sz));
	if (!r->ok) {
		printf("bench: %-16s %-10s %-7s c%d FAILED: %s\n", r->t->name,
		       wl_names[r->wl], sz, r->nclients, r->note);
	} else if (r->wl == WL_RT || r->wl == WL_RT1 || r->wl == WL_BW) {
		printf("bench: %-16s %-10s %-7s median %9.1f us  mean %9.1f us  p99 %9.1f us  %8.1f MB/s  (%llu calls)\n",
		       r->t->name, wl_names[r->wl], sz, r->median_us, r->mean_us,
		       r->p99_us, r->mb_per_s, (unsigned long long)r->iters);
	} else if (is_scale(r->wl)) {
		printf("bench: %-16s %-12s %-5s p%d %10.0f msgs/s  (pairs %.0f..%.0f)\n",
		       r->t->name, wl_names[r->wl], sz, r->nclients,
		       r->msgs_per_s, r->pair_min, r->pair_max);
	} else {
		printf("bench: %-16s %-10s %-7s c%d %10.0f msgs/s  (%llu)\n",
		       r->t->name, wl_names[r->wl], sz, r->nclients,
		       r->msgs_per_s, (unsigned long long)r->iters);
	}
	fflush(stdout);
}

/* ---- memory: resident pages of an idle receiver ---- */

/* fastbinder debugfs: " context pid P mapping N bytes, K pages resident" */
static long fb_pages(pid_t pid)
{
	FILE *f = fopen("/sys/kernel/debug/fastbinder/state", "r");
	char line[256];
	long pages = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int p;
		size_t bytes;
		long k;

		if (sscanf(line, " context pid %d mapping %zu bytes, %ld pages resident",
			   &p, &bytes, &k) == 3 && p == pid)
			pages = k;
	}
	fclose(f);
	return pages;
}

/* binder debugfs stats: "proc P" ... "  pages: active:lru:free" */
static long binder_pages(pid_t pid)
{
	FILE *f = fopen("/sys/kernel/debug/binder/stats", "r");
	char line[256];
	bool in = false;
	long pages = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int p, a, l, fr;

		if (sscanf(line, "proc %d", &p) == 1)
			in = p == pid;
		else if (in && sscanf(line, " pages: %d:%d:%d", &a, &l, &fr) == 3)
			pages = a + l;
	}
	fclose(f);
	return pages;
}

struct memres {
	long idle, queued, after;
	bool ok;
	char note[120];
};

/* 192 KiB: within a lone sender's share of the oneway half (docs/security.md) */
#define MEM_MSGS	48
#define MEM_MSG_SZ	4096

static void measure_mem(const struct transport *t, long (*pages)(pid_t),
			struct memres *m)
{
	int ready[2], done[2], go[2];
	struct srv_cfg cfg = { .mode = MODE_IDLE, .size = MEM_MSG_SZ,
			       .map_size = 1u << 20, .nthreads = 1, .pair = -1 };
	pid_t srv, cl;
	uint64_t got;
	char b;
	int st;

	memset(m, 0, sizeof(*m));
	m->idle = m->queued = m->after = -1;
	if (pipe2(ready, O_CLOEXEC) || pipe2(done, O_CLOEXEC) ||
	    pipe2(go, O_CLOEXEC))
		die_errno("pipe");
	cfg.ready_fd = ready[1];
	cfg.done_fd = done[1];
	cfg.go_fd = go[0];
	srv = fork();
	if (srv == 0) {
		alarm(60);
		t->server(&cfg);
	}
	if (!wait_read(ready[0], &b, 1, 20000)) {
		snprintf(m->note, sizeof(m->note), "server did not start");
		goto out;
	}
	usleep(100000);
	m->idle = pages(srv);
	cl = fork();
	if (cl == 0) {
		unsigned char *buf = malloc(MEM_MSG_SZ);
		const void *p[1] = { buf };
		void *c;
		int i;

		alarm(60);
		if (!buf)
			die("malloc");
		c = t->open(0, 0);
		memcpy(buf, bench_pattern, MEM_MSG_SZ);
		for (i = 0; i <= MEM_MSGS; i++) {
			bench_stamp(buf, MEM_MSG_SZ, i == MEM_MSGS ? BENCH_END : (uint64_t)i);
			if (t->oneway(c, p, MEM_MSG_SZ, 1, false))
				_exit(1);
		}
		_exit(0);
	}
	waitpid(cl, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(m->note, sizeof(m->note), "burst sender failed");
		goto out;
	}
	m->queued = pages(srv);
	write_full(go[1], "g", 1);
	if (!wait_read(done[0], &got, sizeof(got), 20000) || got != MEM_MSGS) {
		snprintf(m->note, sizeof(m->note), "receiver checked %lld of %d",
			 (long long)got, MEM_MSGS);
		goto out;
	}
	usleep(100000);
	m->after = pages(srv);
	m->ok = m->idle >= 0 && m->queued >= 0 && m->after >= 0;
	if (!m->ok)
		snprintf(m->note, sizeof(m->note), "page counts not found in debugfs");
out:
	kill_wait(srv);
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
	close(done[1]);
	close(go[0]);
	close(go[1]);
	if (!m->ok)
		failures++;
}

/* ---- context figures ---- */

struct context {
	char kernel[128];
	long vcpus;
	double getppid_ns;
	double memcpy_4k_gbs, memcpy_1m_gbs;
};

static double memcpy_gbs(size_t size, size_t total)
{
	unsigned char *a = malloc(size), *b = malloc(size);
	uint64_t t0;
	size_t done;
	double best = 0;
	int rep;

	if (!a || !b)
		die("malloc");
	memset(a, 1, size);
	memset(b, 2, size);
	for (rep = 0; rep < 3; rep++) {
		t0 = now_ns();
		for (done = 0; done < total; done += size) {
			memcpy(b, a, size);
			__asm__ volatile("" : : "r"(b) : "memory");
		}
		double gbs = total / ((now_ns() - t0) / 1e9) / 1e9;

		if (gbs > best)
			best = gbs;
	}
	free(a);
	free(b);
	return best;
}

static void context_figures(struct context *cx)
{
	struct utsname u;
	uint64_t t0;
	int i, n = 200000;

	uname(&u);
	snprintf(cx->kernel, sizeof(cx->kernel), "%s", u.release);
	cx->vcpus = sysconf(_SC_NPROCESSORS_ONLN);
	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	cx->getppid_ns = (double)(now_ns() - t0) / n;
	cx->memcpy_4k_gbs = memcpy_gbs(4096, 256u << 20);
	cx->memcpy_1m_gbs = memcpy_gbs(1u << 20, 512u << 20);
}

/* ---- output ---- */


static const size_t rt_sizes[] = { 4, 128, 4096, 65536, 1u << 20 };
static const size_t bw_sizes[] = { 1u << 20, 4u << 20 };

static const struct result *find(const struct transport *t, enum workload wl,
				 size_t size, int nclients)
{
	const struct result *best = NULL;
	int i;

	for (i = 0; i < nresults; i++) {
		const struct result *r = &results[i];

		if (r->t == t && r->wl == wl && r->size == size &&
		    r->nclients == nclients && r->ok)
			best = r;
	}
	return best;
}

/* "icount": a guest us is 1000 instructions; "wallclock": real time */
static const char *mode_name(void)
{
	return icount ? "icount" : "wallclock";
}

static void json_result(const struct result *r)
{
	char extra[160] = "";

	/* scale: pairs, the slowest and fastest pair, and the ratios */
	if (is_scale(r->wl) && r->ok) {
		int n = snprintf(extra, sizeof(extra),
				 ", \"pairs\": %d, \"pair_min\": %.0f, \"pair_max\": %.0f",
				 r->nclients, r->pair_min, r->pair_max);

		if (r->vs_one > 0)
			n += snprintf(extra + n, sizeof(extra) - (size_t)n,
				      ", \"vs_1_pair\": %.3f", r->vs_one);
		if (r->vs_pipe > 0)
			snprintf(extra + n, sizeof(extra) - (size_t)n,
				 ", \"vs_1_pair_over_pipe\": %.3f", r->vs_pipe);
	}
	printf("BENCH-JSON {\"mode\": \"%s\", \"transport\": \"%s\", \"workload\": \"%s\", \"size\": %zu, "
	       "\"clients\": %d, \"median_us\": %.2f, \"mean_us\": %.3f, \"p99_us\": %.2f, "
	       "\"mb_per_s\": %.1f, \"msgs_per_s\": %.0f, \"iterations\": %llu, "
	       "\"switches_per_op\": %.3f%s, \"ok\": %s%s%s%s}\n",
	       mode_name(), r->t->name, wl_names[r->wl], r->size, r->nclients, r->median_us,
	       r->mean_us, r->p99_us, r->mb_per_s, r->msgs_per_s,
	       (unsigned long long)r->iters, r->switches, extra, r->ok ? "true" : "false",
	       r->ok ? "" : ", \"error\": \"", r->ok ? "" : r->note,
	       r->ok ? "" : "\"");
}

static bool enabled(const char *list, const char *name)
{
	const char *p = list;
	size_t n = strlen(name);

	if (!list)
		return true;
	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

/* "0.62x" of fastbinder's figure against a peer's, or "-" */
static void ratio(char *buf, size_t len, double fb, double peer)
{
	if (fb > 0 && peer > 0)
		snprintf(buf, len, "%.2fx", fb / peer);
	else
		snprintf(buf, len, "-");
}

static void print_cell(double v, const char *fmt)
{
	if (v > 0)
		printf(fmt, v);
	else
		printf(" n/a |");
}

/*
 * Latency workloads, interleaved: `rounds` rounds, each running every
 * transport in turn for its share of the budget, so that a burst of
 * contention on the emulating host hits every transport alike.  The
 * samples of all rounds are pooled into one result per transport.
 */
static void measure_rounds(const bool *have, enum workload wl, size_t size,
			   int rounds)
{
	uint64_t *pool[NTR];
	size_t npool[NTR];
	struct result acc[NTR];
	int i, rd;

	for (i = 0; i < NTR; i++) {
		pool[i] = NULL;
		npool[i] = 0;
		memset(&acc[i], 0, sizeof(acc[i]));
		acc[i].ok = true;
	}
	for (rd = 0; rd < rounds; rd++) {
		for (i = 0; i < NTR; i++) {
			struct result *r;
			double seconds;

			if (!have[i] || !acc[i].ok ||
			    (wl == WL_BW && all_tr[i] == &tr_binder && size > (1u << 20)))
				continue;
			r = measure(all_tr[i], wl, size, 1, 1, budget_s / rounds);
			nresults--;
			if (!r->ok) {
				acc[i] = *r;
				report_progress(r);
				continue;
			}
			pool[i] = realloc(pool[i], (npool[i] + r->iters) * sizeof(uint64_t));
			if (!pool[i])
				die("realloc");
			memcpy(pool[i] + npool[i], shared_samples, r->iters * sizeof(uint64_t));
			npool[i] += r->iters;
			seconds = acc[i].mb_per_s;	/* running total of seconds */
			acc[i] = *r;
			acc[i].mb_per_s = seconds + (r->msgs_per_s > 0 ? r->iters / r->msgs_per_s : 0);
		}
	}
	for (i = 0; i < NTR; i++) {
		struct result *r;

		if (!have[i] || (!npool[i] && acc[i].ok))
			continue;
		r = &results[nresults++];
		*r = acc[i];
		if (r->ok) {
			double seconds = acc[i].mb_per_s;
			uint64_t sum = 0;
			size_t k;

			qsort(pool[i], npool[i], sizeof(uint64_t), cmp_u64);
			for (k = 0; k < npool[i]; k++)
				sum += pool[i][k];
			r->iters = npool[i];
			r->median_us = pool[i][npool[i] / 2] / 1e3;
			r->mean_us = (double)sum / npool[i] / 1e3;
			r->p99_us = pool[i][(npool[i] * 99) / 100] / 1e3;
			r->msgs_per_s = seconds > 0 ? npool[i] / seconds : 0;
			r->mb_per_s = r->msgs_per_s * size / 1e6;
			report_progress(r);
		}
		free(pool[i]);
	}
}

/*
 * Throughput workloads: reps interleaved rounds, the median run of each
 * transport kept.
 */
static void measure_median(const bool *have, enum workload wl, size_t size,
			    int nclients, int nthreads, double budget)
{
	struct result runs[NTR][5], tmp;
	int okc[NTR], i, rep, a, b;

	for (i = 0; i < NTR; i++)
		okc[i] = 0;
	for (rep = 0; rep < reps; rep++) {
		for (i = 0; i < NTR; i++) {
			struct result *r;

			if (!have[i] || okc[i] < rep)
				continue;	/* failed before */
			r = measure(all_tr[i], wl, size, nclients, nthreads, budget);
			report_progress(r);
			runs[i][rep] = *r;
			nresults--;
			if (r->ok)
				okc[i]++;
			else
				results[nresults++] = *r;
		}
	}
	for (i = 0; i < NTR; i++) {
		if (okc[i] != reps)
			continue;
		for (a = 0; a < reps; a++)
			for (b = a + 1; b < reps; b++)
				if (runs[i][b].msgs_per_s < runs[i][a].msgs_per_s) {
					tmp = runs[i][a];
					runs[i][a] = runs[i][b];
					runs[i][b] = tmp;
				}
		results[nresults++] = runs[i][reps / 2];
	}
}

/* The scale workload's pair counts: 1, 2, 4, ... up to the vCPUs. */
static int scale_ns[4], scale_nn;
static int only_pairs;		/* -P: these many pairs only */

/*
 * The scale workload (issue 35): fastbinder, the pipe pair and the futex
 * ring, 1 and more disjoint pinned pairs, calls and oneway, every
 * combination once per round in turn, the median of reps (at least 5)
 * rounds kept; then each N-pair figure over the same transport's 1-pair
 * one, and fastbinder's ratio over the pipe pair's.
 */
static void measure_scale(const bool *have, const bool *kinds, double budget)
{
	static struct result runs[4][4][NTR][9];
	const enum workload wls[4] = { WL_SCALE_RT, WL_SCALE_OW, WL_SCALE_OBJ,
				       WL_SCALE_NEST };
	int nrep = reps < 5 ? 5 : reps > 9 ? 9 : reps;
	int okc[4][4][NTR] = { { { 0 } } };
	long vcpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long sent[4][NTR] = { { 0 } };
	int k, n, i, rep, a, b;

	scale_nn = 0;
	for (n = 1; n <= vcpus && n <= BENCH_MAX_CLIENTS && scale_nn < 4; n *= 2)
		if (!only_pairs || n == only_pairs)
			scale_ns[scale_nn++] = n;
	if (only_pairs && !scale_nn)
		printf("bench: scale: %d pairs need %d vCPUs, there are %ld\n",
		       only_pairs, only_pairs, vcpus);
	for (rep = 0; rep < nrep; rep++)
		for (k = 0; k < 4; k++)
			for (n = 0; n < scale_nn; n++)
				for (i = 0; i < NTR; i++) {
					const struct transport *t = all_tr[i];
					struct result *r;

					if (!kinds[k] || !have[i] || okc[k][n][i] < rep ||
					    (t != &tr_fastbinder && t != &tr_pipe &&
					     t != &tr_futex) ||
					    ((wls[k] == WL_SCALE_OBJ || wls[k] == WL_SCALE_NEST) &&
					     t != &tr_fastbinder))
						continue;
					r = measure(t, wls[k],
						    wls[k] == WL_SCALE_OW ? BENCH_ONEWAY_SZ : 4,
						    scale_ns[n], 1, budget);
					report_progress(r);
					runs[k][n][i][rep] = *r;
					nresults--;
					if (r->ok)
						okc[k][n][i]++;
					else
						results[nresults++] = *r;
					/*
					 * a call is two messages, request and reply; a
					 * nested one four, with the call back's two
					 */
					sent[k][i] += r->iters * (wls[k] == WL_SCALE_OW ? 1 :
								  wls[k] == WL_SCALE_NEST ? 4 : 2);
				}
	/* what bench-contention divides by (timed windows only) */
	for (k = 0; k < 4; k++)
		for (i = 0; i < NTR; i++)
			if (sent[k][i])
				printf("BENCH-SCALE-SENT %s %s %llu\n", wl_names[wls[k]],
				       all_tr[i]->name, sent[k][i]);
	for (k = 0; k < 4; k++)
		for (n = 0; n < scale_nn; n++)
			for (i = 0; i < NTR; i++) {
				struct result tmp, *x = runs[k][n][i];

				if (okc[k][n][i] != nrep)
					continue;
				for (a = 0; a < nrep; a++)
					for (b = a + 1; b < nrep; b++)
						if (x[b].msgs_per_s < x[a].msgs_per_s) {
							tmp = x[a];
							x[a] = x[b];
							x[b] = tmp;
						}
				results[nresults++] = x[nrep / 2];
			}
}

/* After measure_scale: the ratios, for the JSON and the tables. */
static void scale_ratios(void)
{
	int i;

	for (i = 0; i < nresults; i++) {
		struct result *r = &results[i];
		const struct result *one = find(r->t, r->wl, r->size, 1);

		if (is_scale(r->wl) && r->ok && r->nclients > 1 && one &&
		    one->msgs_per_s > 0)
			r->vs_one = r->msgs_per_s / one->msgs_per_s;
	}
	for (i = 0; i < nresults; i++) {
		struct result *r = &results[i];
		const struct result *p = find(&tr_pipe, r->wl, r->size, r->nclients);

		if (r->t == &tr_fastbinder && r->vs_one > 0 && p && p->vs_one > 0)
			r->vs_pipe = r->vs_one / p->vs_one;
	}
}

static bool any(enum workload wl)
{
	int i;

	for (i = 0; i < nresults; i++)
		if (results[i].wl == wl)
			return true;
	return false;
}

static const struct result *fbres(enum workload wl, size_t size, int nc)
{
	return find(&tr_fastbinder, wl, size, nc);
}

static double med(const struct result *r) { return r ? r->median_us : 0; }
static double mbs(const struct result *r) { return r ? r->mb_per_s : 0; }
static double rate(const struct result *r) { return r ? r->msgs_per_s : 0; }

static int targets_met, targets_total;

static void target(const char *what, const char *need, const char *measured,
		   bool known, bool met)
{
	targets_total++;
	if (known && met)
		targets_met++;
	printf("| %s | %s | %s | %s |\n", what, need, measured,
	       !known ? "not measured" : met ? "**met**" : "missed");
}

static void print_mem_table(const struct memres *mem, const bool *mem_done)
{
	int i;

	if (!mem_done[0] && !mem_done[1])
		return;
	printf("### Memory: pages resident in the receive buffer (1 MiB mapping)\n\n");
	printf("| | idle | %d x 4 KiB oneway queued | after they were read and freed |\n|---|---|---|---|\n", MEM_MSGS);
	for (i = 0; i < 2; i++) {
		if (!mem_done[i])
			continue;
		if (mem[i].ok)
			printf("| %s | %ld | %ld | %ld |\n", i ? "binder" : "fastbinder",
			       mem[i].idle, mem[i].queued, mem[i].after);
		else
			printf("| %s | failed: %s | | |\n", i ? "binder" : "fastbinder",
			       mem[i].note);
	}
	printf("\n");
}

/* Deterministic mode: k instructions per transfer, instructions per message. */
static double kinstr_bw(const struct result *r, size_t size)
{
	return r && r->mb_per_s > 0 ? size / r->mb_per_s : 0;
}

static double instr_msg(const struct result *r)
{
	return r && r->msgs_per_s > 0 ? 1e9 / r->msgs_per_s : 0;
}

/* A header row of the transports, then of the fb / peer ratios. */
static void table_head(const char *first, const bool *have, bool ratios)
{
	int i;

	printf("| %s |", first);
	for (i = 0; i < NTR; i++)
		if (have[i])
			printf(" %s |", all_tr[i]->label);
	for (i = 1; ratios && i < NTR; i++)
		if (have[i])
			printf(" fb / %s |", all_tr[i]->label);
	printf("\n|---|");
	for (i = 0; i < NTR; i++)
		if (have[i])
			printf("---|%s", i && ratios ? "---|" : "");
	printf("\n");
}

/*
 * The tables of the deterministic mode (-I): path lengths, and the
 * targets judged on them (docs/performance.md, "Where it must land").
 */
static void print_tables_icount(const bool *have, const struct memres *mem,
				const bool *mem_done)
{
	char sz[32], r[32], m[200];
	int i, j;

	printf("BENCH-TABLE-BEGIN\n");
	printf("Deterministic mode (QEMU -icount shift=0,sleep=off, one vCPU): "
	       "every figure is a count of executed guest instructions "
	       "(user and kernel, both processes, the scheduler included).\n\n");
	if (any(WL_RT)) {
		printf("### Round trip (echo), k instructions per call, median (p99)\n\n");
		table_head("payload", have, true);
		for (j = 0; j < (int)(sizeof(rt_sizes) / sizeof(rt_sizes[0])); j++) {
			double f = med(fbres(WL_RT, rt_sizes[j], 1));

			printf("| %s |", fmt_size(rt_sizes[j], sz, sizeof(sz)));
			for (i = 0; i < NTR; i++) {
				const struct result *x = find(all_tr[i], WL_RT, rt_sizes[j], 1);

				if (!have[i])
					continue;
				if (x)
					printf(" %.1f (%.1f) |", x->median_us, x->p99_us);
				else
					printf(" n/a |");
			}
			for (i = 1; i < NTR; i++) {
				if (!have[i])
					continue;
				ratio(r, sizeof(r), f, med(find(all_tr[i], WL_RT, rt_sizes[j], 1)));
				printf(" %s |", r);
			}
			printf("\n");
		}
		printf("\nfb / peer below 1 means fastbinder executes fewer instructions.\n\n");
	}
	if (any(WL_BW)) {
		printf("### Bandwidth (payload out, 8-byte ack), k instructions per transfer\n\n");
		table_head("payload", have, true);
		for (j = 0; j < 2; j++) {
			double f = kinstr_bw(fbres(WL_BW, bw_sizes[j], 1), bw_sizes[j]);

			printf("| %s |", fmt_size(bw_sizes[j], sz, sizeof(sz)));
			for (i = 0; i < NTR; i++)
				if (have[i])
					print_cell(kinstr_bw(find(all_tr[i], WL_BW, bw_sizes[j], 1),
							     bw_sizes[j]), " %.1f |");
			for (i = 1; i < NTR; i++) {
				if (!have[i])
					continue;
				ratio(r, sizeof(r), f,
				      kinstr_bw(find(all_tr[i], WL_BW, bw_sizes[j], 1), bw_sizes[j]));
				printf(" %s |", r);
			}
			printf("\n");
		}
		printf("\n");
	}
	if (any(WL_ONEWAY1) || any(WL_ONEWAY64)) {
		printf("### Oneway 128 B messages, instructions per message (idle time left out)\n\n");
		table_head("sent", have, false);
		for (j = WL_ONEWAY1; j <= WL_ONEWAY64; j++) {
			printf("| %s |", j == WL_ONEWAY1 ? "1 per call" : "64 per call");
			for (i = 0; i < NTR; i++)
				if (have[i])
					print_cell(instr_msg(find(all_tr[i], j, BENCH_ONEWAY_SZ, 1)),
						   " %.0f |");
			printf("\n");
		}
		printf("\nContext switches per message, the same runs (how often the receiver was woken):\n\n");
		table_head("sent", have, false);
		for (j = WL_ONEWAY1; j <= WL_ONEWAY64; j++) {
			printf("| %s |", j == WL_ONEWAY1 ? "1 per call" : "64 per call");
			for (i = 0; i < NTR; i++) {
				const struct result *ow = find(all_tr[i], j, BENCH_ONEWAY_SZ, 1);

				if (have[i])
					print_cell(ow && ow->ok ? ow->switches : 0, " %.3f |");
			}
			printf("\n");
		}
		printf("\n");
	}
	print_mem_table(mem, mem_done);

	printf("### Targets (deterministic mode, ratios within this run)\n\n"
	       "| measure | fastbinder must reach | measured | |\n|---|---|---|---|\n");
	for (j = 0; j < 3; j++) {
		size_t s = j == 0 ? 4 : j == 1 ? 128 : 4096;
		double f = med(fbres(WL_RT, s, 1));
		double p = med(find(&tr_pipe, WL_RT, s, 1));
		double u = med(find(&tr_stream, WL_RT, s, 1));

		char what[48];

		snprintf(m, sizeof(m), "%.1fk: %.2fx pipe pair (%.1fk), %.2fx socketpair",
			 f, p > 0 ? f / p : 0, p, u > 0 ? f / u : 0);
		snprintf(what, sizeof(what), "round trip %s", fmt_size(s, sz, sizeof(sz)));
		target(what, "at most the pipe pair's", m,
		       f > 0 && p > 0, f <= p);
	}
	for (j = 0; j < 2; j++) {
		size_t s = j ? 1u << 20 : 65536;
		double lim = j ? 1.03 : 1.1;
		double f = med(fbres(WL_RT, s, 1));
		double q = med(find(&tr_futex, WL_RT, s, 1));
		char need[64], what[48];

		snprintf(m, sizeof(m), "%.1fk: %.3fx futex ring (%.1fk)", f,
			 q > 0 ? f / q : 0, q);
		snprintf(need, sizeof(need), "at most %.2fx the futex ring's", lim);
		snprintf(what, sizeof(what), "round trip %s", fmt_size(s, sz, sizeof(sz)));
		target(what, need, m, f > 0 && q > 0,
		       f <= lim * q);
	}
	for (j = WL_ONEWAY64; j >= WL_ONEWAY1; j--) {
		double f = instr_msg(fbres(j, BENCH_ONEWAY_SZ, 1));
		double lim = j == WL_ONEWAY64 ? 2500 : 5000;

		snprintf(m, sizeof(m), "%.0f per message", f);
		target(j == WL_ONEWAY64 ? "oneway 128 B, 64 per call" : "oneway 128 B, 1 per call",
		       j == WL_ONEWAY64 ? "at most 2.5k instructions per message" :
		       "at most 5k instructions per message", m, f > 0, f <= lim);
	}
	snprintf(m, sizeof(m), "%ld page(s)", mem_done[0] ? mem[0].idle : -1L);
	target("idle context, 1 MiB mapping", "at most 1 page", m,
	       mem_done[0] && mem[0].ok, mem[0].idle <= 1);
	printf("\n%d of %d targets met.\n", targets_met, targets_total);
	printf("BENCH-TABLE-END\n");
}

/* The scale workload: rates per pair count, ratios to 1 pair, to the pipe pair's. */
static void print_scale_table(void)
{
	const struct transport *const tr[3] = { &tr_fastbinder, &tr_pipe, &tr_futex };
	int k, n, i;

	if (!any(WL_SCALE_RT) && !any(WL_SCALE_OW) && !any(WL_SCALE_OBJ) &&
	    !any(WL_SCALE_NEST))
		return;
	printf("### Scale: N disjoint pairs, pair i (client and server) pinned to vCPU i, msgs/s (median of %d interleaved runs)\n\n",
	       reps < 5 ? 5 : reps > 9 ? 9 : reps);
	printf("| workload | pairs | fastbinder | pipe pair | futex ring | fb N/1 | pipe N/1 | futex N/1 | fb N/1 / pipe N/1 |\n"
	       "|---|---|---|---|---|---|---|---|---|\n");
	for (k = 0; k < 4; k++) {
		static const char *const label[4] = { "call 4 B", "oneway 128 B, 1 per call",
						       "call 4 B with a handle",
						       "call 4 B, called back nested" };
		static const enum workload wls[4] = { WL_SCALE_RT, WL_SCALE_OW,
						      WL_SCALE_OBJ, WL_SCALE_NEST };
		enum workload wl = wls[k];
		size_t sz = k == 1 ? BENCH_ONEWAY_SZ : 4;

		if (!any(wl))
			continue;
		for (n = 0; n < scale_nn; n++) {
			const struct result *f = find(&tr_fastbinder, wl, sz, scale_ns[n]);

			printf("| %s | %d |", label[k], scale_ns[n]);
			for (i = 0; i < 3; i++)
				print_cell(rate(find(tr[i], wl, sz, scale_ns[n])), " %.0f |");
			for (i = 0; i < 3; i++) {
				const struct result *x = find(tr[i], wl, sz, scale_ns[n]);

				if (n == 0)
					printf(x ? " 1 |" : " n/a |");
				else
					print_cell(x ? x->vs_one : 0, " %.3f |");
			}
			if (n == 0)
				printf(find(&tr_pipe, wl, sz, 1) ? " 1 |" : " n/a |");
			else
				print_cell(f ? f->vs_pipe : 0, " %.3f |");
			printf("\n");
		}
	}
	printf("\nThe pipe pair's and the futex ring's pairs share nothing, so their N/1 is the ideal under\n"
	       "this host; fastbinder's pairs take no lock they share while they send (make\n"
	       "bench-contention), so theirs should be the same.  The slowest and fastest pair of each\n"
	       "run are in results.json (pair_min, pair_max).  A nested call's rate counts the outer\n"
	       "calls (each is four messages: its call back's two and its own).\n\n");
}

static void print_tables(const bool *have, const struct memres *mem,
			 const bool *mem_done)
{
	const struct transport *fb = &tr_fastbinder;
	char sz[32], r[32], m[200];
	int i, j, w;

	printf("BENCH-TABLE-BEGIN\n");
	for (w = WL_RT; w <= WL_RT1; w++) {
		if (!find(fb, w, 4, 1) && !find(&tr_stream, w, 4, 1))
			continue;
		printf("### Round trip (echo), median us (p99)%s\n\n| payload |",
		       w == WL_RT ? "" : ", client and server pinned to one vCPU");
		for (i = 0; i < NTR; i++)
			if (have[i])
				printf(" %s |", all_tr[i]->label);
		for (i = 1; i < NTR; i++)
			if (have[i])
				printf(" fb / %s |", all_tr[i]->label);
		printf("\n|---|");
		for (i = 0; i < NTR; i++)
			if (have[i])
				printf("---|%s", i ? "---|" : "");
		printf("\n");
		for (j = 0; j < (int)(sizeof(rt_sizes) / sizeof(rt_sizes[0])); j++) {
			const struct result *f = fbres(w, rt_sizes[j], 1);

			printf("| %s |", fmt_size(rt_sizes[j], sz, sizeof(sz)));
			for (i = 0; i < NTR; i++) {
				const struct result *x = find(all_tr[i], w, rt_sizes[j], 1);

				if (!have[i])
					continue;
				if (x)
					printf(" %.1f (%.1f) |", x->median_us, x->p99_us);
				else
					printf(" n/a |");
			}
			for (i = 1; i < NTR; i++) {
				if (!have[i])
					continue;
				ratio(r, sizeof(r), med(f),
				      med(find(all_tr[i], w, rt_sizes[j], 1)));
				printf(" %s |", r);
			}
			printf("\n");
	}
	printf("\nfb / peer below 1 means fastbinder is faster.\n\n");
	}

	if (any(WL_BW)) {
		printf("### Bandwidth (payload out, 8-byte ack), MB/s\n\n| payload |");
		for (i = 0; i < NTR; i++)
			if (have[i])
				printf(" %s |", all_tr[i]->label);
		for (i = 1; i < NTR; i++)
			if (have[i])
				printf(" fb / %s |", all_tr[i]->label);
		printf("\n|---|");
		for (i = 0; i < NTR; i++)
			if (have[i])
				printf("---|%s", i ? "---|" : "");
		printf("\n");
		for (j = 0; j < 2; j++) {
			const struct result *f = fbres(WL_BW, bw_sizes[j], 1);

			printf("| %s |", fmt_size(bw_sizes[j], sz, sizeof(sz)));
			for (i = 0; i < NTR; i++)
				if (have[i])
					print_cell(mbs(find(all_tr[i], WL_BW, bw_sizes[j], 1)), " %.0f |");
			for (i = 1; i < NTR; i++) {
				if (!have[i])
					continue;
				ratio(r, sizeof(r), mbs(f), mbs(find(all_tr[i], WL_BW, bw_sizes[j], 1)));
				printf(" %s |", r);
			}
			printf("\n");
	}
	printf("\nfb / peer above 1 means fastbinder moves more.  Binder cannot carry 4 MiB (its mapping is at most 4 MiB).\n\n");
	}
	if (any(WL_ONEWAY1) || any(WL_ONEWAY64)) {

		printf("### Oneway 128 B messages, msgs/s (median of %d runs)\n\n| sent |", reps);
		for (i = 0; i < NTR; i++)
			if (have[i])
				printf(" %s |", all_tr[i]->label);
		printf("\n|---|");
		for (i = 0; i < NTR; i++)
			if (have[i])
				printf("---|");
		printf("\n");
		for (j = WL_ONEWAY1; j <= WL_ONEWAY64 + 1; j++) {
			printf("| %s |", j == WL_ONEWAY1 ? "1 per call" :
			       j == WL_ONEWAY64 ? "64 per call" : "gain 64 vs 1");
			for (i = 0; i < NTR; i++) {
				if (!have[i])
					continue;
				if (j <= WL_ONEWAY64) {
					print_cell(rate(find(all_tr[i], j, BENCH_ONEWAY_SZ, 1)), " %.0f |");
				} else {
					ratio(r, sizeof(r),
					      rate(find(all_tr[i], WL_ONEWAY64, BENCH_ONEWAY_SZ, 1)),
					      rate(find(all_tr[i], WL_ONEWAY1, BENCH_ONEWAY_SZ, 1)));
					printf(" %s |", r);
				}
			}
			printf("\n");
	}

	printf("\n");
	}
	if (any(WL_CLIENTS)) {
		printf("### Clients: 128 B echo calls/s, one server with 2 threads, unpinned (median of %d runs)\n\n| clients |", reps);
		for (i = 0; i < NTR; i++)
			if (have[i])
				printf(" %s |", all_tr[i]->label);
		printf("\n|---|");
		for (i = 0; i < NTR; i++)
			if (have[i])
				printf("---|");
		printf("\n");
		for (j = 1; j <= 3; j++) {
			printf("| %s |", j == 1 ? "1" : j == 2 ? "2" : "2 vs 1");
			for (i = 0; i < NTR; i++) {
				if (!have[i])
					continue;
				if (j < 3) {
					print_cell(rate(find(all_tr[i], WL_CLIENTS, 128, j)), " %.0f |");
				} else {
					ratio(r, sizeof(r), rate(find(all_tr[i], WL_CLIENTS, 128, 2)),
					      rate(find(all_tr[i], WL_CLIENTS, 128, 1)));
					printf(" %s |", r);
				}
			}
			printf("\n");
	}

	printf("\n");
	}
	print_scale_table();
	print_mem_table(mem, mem_done);

	/* the targets of docs/performance.md */
	printf("### Targets (docs/performance.md)\n\n| measure | fastbinder must reach | measured | |\n|---|---|---|---|\n");
	for (j = 0; j < 2; j++) {
		size_t s = j ? 128 : 4;
		double f = med(fbres(WL_RT, s, 1));
		double b = med(find(&tr_binder, WL_RT, s, 1));
		double u = med(find(&tr_stream, WL_RT, s, 1));

		snprintf(m, sizeof(m), "%.2fx binder, %.2fx socketpair",
			 b > 0 ? f / b : 0, u > 0 ? f / u : 0);
		target(j ? "round trip 128 B" : "round trip 4 B",
		       "below binder and socketpair (< 1x)", m,
		       f > 0 && b > 0 && u > 0, f < b && f < u);
	}
	{
		double f = med(fbres(WL_RT, 65536, 1));
		double u = med(find(&tr_stream, WL_RT, 65536, 1));

		snprintf(m, sizeof(m), "%.2fx socketpair", u > 0 ? f / u : 0);
		target("round trip 64 KiB", "at most 0.7x socketpair", m,
		       f > 0 && u > 0, f <= 0.7 * u);
	}
	{
		double f = mbs(fbres(WL_BW, 1u << 20, 1));
		double u = mbs(find(&tr_stream, WL_BW, 1u << 20, 1));
		double b = mbs(find(&tr_binder, WL_BW, 1u << 20, 1));

		snprintf(m, sizeof(m), "%.2fx socketpair, %.2fx binder",
			 u > 0 ? f / u : 0, b > 0 ? f / b : 0);
		target("bandwidth 1 MiB", "at least 1.5x socketpair and 1x binder",
		       m, f > 0 && u > 0 && b > 0, f >= 1.5 * u && f >= b);
	}
	{
		double f1 = rate(fbres(WL_ONEWAY1, BENCH_ONEWAY_SZ, 1));
		double f64 = rate(fbres(WL_ONEWAY64, BENCH_ONEWAY_SZ, 1));
		double b64 = rate(find(&tr_binder, WL_ONEWAY64, BENCH_ONEWAY_SZ, 1));

		snprintf(m, sizeof(m), "%.2fx its 1-per-call rate, %.2fx binder's batched",
			 f1 > 0 ? f64 / f1 : 0, b64 > 0 ? f64 / b64 : 0);
		target("oneway 128 B, 64 per call", "at least 2x 1-per-call and 3x binder batched",
		       m, f1 > 0 && f64 > 0 && b64 > 0, f64 >= 2 * f1 && f64 >= 3 * b64);
	}
	for (j = 0; j < 2; j++) {
		const struct result *f = fbres(j ? WL_SCALE_OW : WL_SCALE_RT,
					       j ? BENCH_ONEWAY_SZ : 4, 2);
		const struct result *p = find(&tr_pipe, j ? WL_SCALE_OW : WL_SCALE_RT,
					      j ? BENCH_ONEWAY_SZ : 4, 2);

		snprintf(m, sizeof(m), "%.3fx (fastbinder %.2fx, pipe pair %.2fx)",
			 f ? f->vs_pipe : 0, f ? f->vs_one : 0, p ? p->vs_one : 0);
		target(j ? "2 disjoint pinned pairs, oneway 128 B" :
		       "2 disjoint pinned pairs, calls 4 B",
		       "2-pair/1-pair ratio at least 0.97x the pipe pair's", m,
		       f && f->vs_pipe > 0, f && f->vs_pipe >= 0.97);
	}
	snprintf(m, sizeof(m), "%ld page(s)", mem_done[0] ? mem[0].idle : -1L);
	target("idle context, 1 MiB mapping", "at most 1 page", m,
	       mem_done[0] && mem[0].ok, mem[0].idle <= 1);
	printf("\n%d of %d targets met.\n", targets_met, targets_total);
	printf("BENCH-TABLE-END\n");
}

int main(int argc, char **argv)
{
	const char *tr_list = NULL, *wl_list = NULL;
	bool have[NTR];
	struct memres mem[2];
	bool mem_done[2] = { false, false }, no_ctx = false;
	struct context cx;
	int opt, i, j;
	uint64_t x = 0x9e3779b97f4a7c15ull, t_start = now_ns();

	while ((opt = getopt(argc, argv, "1InP:qs:t:w:")) != -1) {
		switch (opt) {
		case 'P': only_pairs = atoi(optarg); break;
		case 'I': icount = true; break;
		case 's': only_size = strtoul(optarg, NULL, 0); break;
		case 'q': quick = true; break;
		case 't': tr_list = optarg; break;
		case 'w': wl_list = optarg; break;
		case '1': pin_all = true; break;
		case 'n': no_ctx = true; break;
		default:
			fprintf(stderr, "usage: fbbench [-1] [-I] [-n] [-P pairs] [-q] [-s bytes] [-t transport,...] [-w rt,rt1,bw,oneway,oneway1,oneway64,clients,scale,scale-calls,scale-oneway,scale-objects,scale-nested,mem,region,idl,gather]\n");
			return 2;
		}
	}
	/*
	 * Deterministic mode: a round-trip median repeats within a tenth of a
	 * percent, so short runs are enough; a oneway flood on one vCPU
	 * depends on where timer ticks preempt it (a few percent), so the
	 * median of three.  rt1, clients and scale need a second vCPU: left out.
	 */
	budget_s = icount ? (quick ? 0.1 : 0.3) : quick ? 0.3 : 1.2;
	if (icount) {
		reps = 3;
		pin_all = true;
		if (!wl_list)
			wl_list = "rt,bw,oneway,mem,region,idl,gather";
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	shared_samples = mmap(NULL, MAX_SAMPLES * sizeof(uint64_t),
			      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			      -1, 0);
	if (shared_samples == MAP_FAILED)
		die_errno("mmap");
	signal(SIGPIPE, SIG_IGN);
	bench_pattern = malloc(BENCH_PATTERN);
	if (!bench_pattern)
		die("malloc");
	for (i = 0; i < (int)BENCH_PATTERN; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		bench_pattern[i] = (unsigned char)(x >> 24);
	}

	memset(&cx, 0, sizeof(cx));
	if (!no_ctx)
		context_figures(&cx);
	printf("bench: kernel %s, %ld vCPUs, getppid %.0f ns, memcpy %.1f GB/s (4 KiB) %.1f GB/s (1 MiB)\n",
	       cx.kernel, cx.vcpus, cx.getppid_ns, cx.memcpy_4k_gbs, cx.memcpy_1m_gbs);
	printf("BENCH-CTX {\"mode\": \"%s\", \"kernel\": \"%s\", \"vcpus\": %ld, \"getppid_ns\": %.1f, "
	       "\"memcpy_4k_gb_per_s\": %.2f, \"memcpy_1m_gb_per_s\": %.2f}\n",
	       mode_name(), cx.kernel, cx.vcpus, cx.getppid_ns, cx.memcpy_4k_gbs, cx.memcpy_1m_gbs);

	for (i = 0; i < NTR; i++) {
		have[i] = enabled(tr_list, all_tr[i]->name);
		if (have[i] && all_tr[i] == &tr_fastbinder &&
		    access("/dev/fastbinder", R_OK | W_OK)) {
			printf("bench: /dev/fastbinder missing, fastbinder skipped\n");
			have[i] = false;
			failures++;
		}
		if (have[i] && all_tr[i] == &tr_binder &&
		    access("/dev/binder", R_OK | W_OK)) {
			printf("bench: /dev/binder missing (insmod binder_linux.ko devices=binder), binder skipped\n");
			have[i] = false;
		}
	}

	/* round trips: both processes free to use both vCPUs, then on one */
	if (enabled(wl_list, "rt"))
		for (j = 0; j < (int)(sizeof(rt_sizes) / sizeof(rt_sizes[0])); j++)
			if (!only_size || rt_sizes[j] == only_size)
				measure_rounds(have, WL_RT, rt_sizes[j], quick || icount ? 2 : 8);
	if (enabled(wl_list, "rt1"))
		for (j = 0; j < (int)(sizeof(rt_sizes) / sizeof(rt_sizes[0])); j++)
			if (!only_size || rt_sizes[j] == only_size)
				measure_rounds(have, WL_RT1, rt_sizes[j], quick ? 2 : 5);
	if (enabled(wl_list, "bw"))
		for (j = 0; j < 2; j++)
			measure_rounds(have, WL_BW, bw_sizes[j], quick || icount ? 2 : 5);
	/* oneway: both; oneway1 or oneway64: one of them (a profile of one) */
	for (j = WL_ONEWAY1; j <= WL_ONEWAY64; j++)
		if (enabled(wl_list, "oneway") ||
		    enabled(wl_list, j == WL_ONEWAY1 ? "oneway1" : "oneway64"))
			measure_median(have, j, BENCH_ONEWAY_SZ, 1, 1, budget_s * 0.5);
	if (enabled(wl_list, "clients"))
		for (j = 1; j <= 2; j++)
			measure_median(have, WL_CLIENTS, 128, j, 2, budget_s * 0.8);
	{
		bool kinds[4] = { enabled(wl_list, "scale") || enabled(wl_list, "scale-calls"),
				  enabled(wl_list, "scale") || enabled(wl_list, "scale-oneway"),
				  enabled(wl_list, "scale") || enabled(wl_list, "scale-objects"),
				  enabled(wl_list, "scale") || enabled(wl_list, "scale-nested") };

		/* one pinned pair is a deterministic path too (bench-sections) */
		if ((kinds[0] || kinds[1] || kinds[2] || kinds[3]) &&
		    (!icount || only_pairs == 1)) {
			measure_scale(have, kinds, budget_s * 0.5);
			scale_ratios();
		}
	}
	if (enabled(wl_list, "mem")) {
		for (i = 0; i < 2; i++) {
			const struct transport *t = i ? &tr_binder : &tr_fastbinder;

			if (!have[i ? 1 : 0])
				continue;
			measure_mem(t, i ? binder_pages : fb_pages, &mem[i]);
			mem_done[i] = true;
			printf("bench: %-16s memory: idle %ld pages, %ld with %d x 4 KiB queued, %ld after%s%s\n",
			       t->name, mem[i].idle, mem[i].queued, MEM_MSGS,
			       mem[i].after, mem[i].ok ? "" : " FAILED: ",
			       mem[i].ok ? "" : mem[i].note);
			printf("BENCH-JSON {\"transport\": \"%s\", \"workload\": \"memory\", \"size\": %u, "
			       "\"idle_pages\": %ld, \"queued_pages\": %ld, \"after_pages\": %ld, "
			       "\"median_us\": null, \"mean_us\": null, \"p99_us\": null, "
			       "\"mb_per_s\": null, \"msgs_per_s\": null, \"iterations\": %d, "
			       "\"ok\": %s}\n",
			       t->name, 1u << 20, mem[i].idle, mem[i].queued,
			       mem[i].after, MEM_MSGS, mem[i].ok ? "true" : "false");
		}
	}

	if (enabled(wl_list, "region"))
		failures += bench_region(icount, quick, mode_name());
	if (enabled(wl_list, "idl"))
		failures += bench_idl(icount, quick, mode_name());
	if (enabled(wl_list, "gather"))
		failures += bench_gather(icount, quick, mode_name());

	for (i = 0; i < nresults; i++)
		json_result(&results[i]);
	for (i = 0; i < nresults; i++)
		if ((results[i].wl == WL_RT || results[i].wl == WL_RT1) && results[i].ok)
			printf("BENCH-PLOT %s%s %zu %.2f %.2f\n", results[i].t->name,
			       results[i].wl == WL_RT1 ? "@1cpu" : "",
			       results[i].size, results[i].median_us, results[i].p99_us);
	if (icount)
		print_tables_icount(have, mem, mem_done);
	else
		print_tables(have, mem, mem_done);
	printf("bench: %d measurements, %d failed, %.0f s\n", nresults, failures,
	       (now_ns() - t_start) / 1e9);
	return failures ? 1 : 0;
}
