// SPDX-License-Identifier: MIT
/*
 * failslab: allocations fail at random inside the driver during a
 * workload (debug kernel only: make check-debug adds the stress/ debug list).
 *
 * failslab and fail_page_alloc are switched on with task-filter=Y, and the
 * workload's threads set /proc/thread-self/make-it-fail only around their
 * own fastbinder system calls (open, mmap, WRITE_READ, close), so the
 * failures land in the driver and not in fork() or page faults of the test
 * itself.  A server S and a client C (each one thread) run calls with
 * checked payloads, oneway batches, objects handed out and dropped, death
 * links, fds passed both ways, and contexts closed and reopened; finally S
 * is SIGKILLed with injection on (its release path runs with it too).
 *
 * Passes when every failure came back as an errno of the expected kind
 * (ENOMEM and the errors a failed allocation explains: EFAULT from a
 * failed page-in, FBINDER_RET_FAILED -ENOMEM to the caller, ...), every reply
 * that did arrive was correct, nothing hung, failures were really
 * injected, and the live_* counters are zero once everything is closed
 * (the suite's kmemleak scan and dmesg-clean check the rest).
 *
 * FBINDER_FAILSLAB_OPS (default 1500, scaled by FBINDER_SCALE), FBINDER_FAILSLAB_PCT (10).
 */
#define _GNU_SOURCE
#include "fbt_proto.h"
#include "fbt_stress.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0xfa11ULL
#define FI		"/sys/kernel/debug"
#define TIMES		1000000

enum { C_ECHO = 1, C_GIVE, C_OBJ, C_FD };

static pid_t s_pid;
static _Atomic unsigned long progress;

static void dump_file(const char *path)
{
	char *s = fbt_slurp(path);

	printf("# ---- %s\n%s", path, s ? s : "(unreadable)\n");
	free(s);
}

/* No progress for a minute: show where everything sleeps, then fail. */
static void *watchdog(void *arg)
{
	unsigned long last = (unsigned long)-1, same = 0;
	char path[64];

	(void)arg;
	for (;;) {
		sleep(5);
		if (atomic_load(&progress) != last) {
			last = atomic_load(&progress);
			same = 0;
			continue;
		}
		if (++same < 12)
			continue;
		printf("not ok: no progress for 60 s after %lu operations: a hang\n", last);
		dump_file(FBT_DEBUGFS "/state");
		dump_file(FBT_DEBUGFS "/stats");
		snprintf(path, sizeof(path), "/proc/%d/stack", (int)getpid());
		dump_file(path);
		snprintf(path, sizeof(path), "/proc/%d/stack", (int)s_pid);
		dump_file(path);
		dump_file(FBT_DEBUGFS "/failed");
		fflush(stdout);
		kill(s_pid, SIGKILL);
		_exit(1);
	}
	return NULL;
}

struct shared {
	_Atomic unsigned long long errs[160];	/* per errno, both processes */
	_Atomic unsigned long long ok_calls, failed_calls, bad_replies, unexpected;
	char msg[200];
};

static struct shared *sh;
static int mif = -1;	/* /proc/thread-self/make-it-fail */

static void put_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die("write %s to %s", val, path);
	close(fd);
}

static long long get_file(const char *path)
{
	char *s = fbt_slurp(path);
	long long v;

	if (!s)
		die("read %s", path);
	v = strtoll(s, NULL, 10);
	free(s);
	return v;
}

static void inject(bool on)
{
	if (pwrite(mif, on ? "1" : "0", 1, 0) != 1)
		die("make-it-fail");
}

static void note_err(int err, const char *what, bool expected)
{
	if (err > 0 && err < 160)
		atomic_fetch_add(&sh->errs[err], 1);
	if (!expected && atomic_fetch_add(&sh->unexpected, 1) == 0)
		snprintf(sh->msg, sizeof(sh->msg), "%s: %s", what, strerror(err));
}

/* Errors a failed allocation can explain (besides the workload's own). */
static bool alloc_err(int err)
{
	return err == ENOMEM || err == EFAULT || err == EAGAIN || err == EINTR ||
	       err == EMFILE || err == ENFILE;
}

/* One WRITE_READ with injection on. */
static int wr_fi(int fd, const void *w, size_t wlen, size_t *wdone, void *r, size_t rlen,
		 size_t *rdone)
{
	int ret;

	inject(true);
	ret = fbt_write_read(fd, (void *)w, wlen, wdone, r, rlen, rdone);
	inject(false);
	return ret;
}

/* A command without read, retried until it takes (injection on). */
static void must(int fd, const struct fbt_w *w, const char *what)
{
	size_t done;
	int i, ret = 0;

	for (i = 0; i < 1000; i++) {
		ret = wr_fi(fd, w->buf, w->len, &done, NULL, 0, NULL);
		if (!ret)
			return;
		note_err(-ret, what, alloc_err(-ret));
		if (done)
			return;	/* an earlier command took, a later one failed */
	}
	note_err(-ret, what, false);
}

/* ---------------------------------------------------------------- S */

static int s_body(struct fbt_ctx *p, void *arg)
{
	unsigned char rbuf[4096];
	const char *tpath = "/proc/thread-self/make-it-fail";
	unsigned long long next_cookie = 0x1000;

	(void)arg;
	mif = open(tpath, O_WRONLY | O_CLOEXEC);
	if (mif < 0)
		die("open %s", tpath);
	for (;;) {
		size_t rdone = 0, pos = 0;
		int ret = wr_fi(p->fd, NULL, 0, NULL, rbuf, sizeof(rbuf), &rdone);

		if (ret) {
			note_err(-ret, "S read", alloc_err(-ret));
			continue;
		}
		while (pos < rdone) {
			struct fbt_ret r;
			const struct fbinder_txn_msg *m = &r.msg;
			struct fbinder_object o = { 0 };
			unsigned char out[1024];
			size_t n = 0, nobj = 0, wdone = 0;
			__u64 off = 0, i;
			struct fbt_w w;

			pos += fbt_parse_one(rbuf + pos, rdone - pos, &r);
			if (r.cmd != FBINDER_RET_TRANSACTION)
				continue;
			for (i = 0; i < m->offsets_count; i++)
				if (fbt_obj(p, m, i)->type == FBINDER_OBJ_FD)
					close(fbt_obj(p, m, i)->fd);
			fbt_w_reset(&w);
			if (!(m->flags & FBINDER_TXN_ONEWAY)) {
				if (m->code == C_ECHO && m->data_size <= sizeof(out)) {
					n = m->data_size;
					memcpy(out, fbt_data(p, m), n);
				} else if (m->code == C_GIVE) {
					o.type = FBINDER_OBJ_LOCAL;
					o.cookie = next_cookie++;
					memcpy(out, &o, sizeof(o));
					n = sizeof(o);
					nobj = 1;
				} else if (m->code == C_FD) {
					o.type = FBINDER_OBJ_FD;
					o.fd = 1;
					memcpy(out, &o, sizeof(o));
					n = sizeof(o);
					nobj = 1;
				}
				fbt_w_reply(&w, 0, out, n, &off, nobj);
			}
			fbt_w_free(&w, m->data);
			ret = wr_fi(p->fd, w.buf, w.len, &wdone, NULL, 0, NULL);
			if (ret) {
				note_err(-ret, "S reply/free", alloc_err(-ret));
				if (wdone < w.len) {	/* the free still has to happen */
					fbt_w_reset(&w);
					fbt_w_free(&w, m->data);
					must(p->fd, &w, "S free");
				}
			}
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- C */

struct cctx {
	struct fbt_ctx p;
	bool open;
};

static int c_open(struct cctx *c)
{
	void *m;
	int fd;

	memset(&c->p, 0, sizeof(c->p));
	inject(true);
	fd = open(FBT_DEV, O_RDWR | O_CLOEXEC);
	inject(false);
	if (fd < 0) {
		note_err(errno, "open", alloc_err(errno));
		return -1;
	}
	inject(true);
	m = mmap(NULL, MB, PROT_READ, MAP_PRIVATE, fd, 0);
	inject(false);
	if (m == MAP_FAILED) {
		note_err(errno, "mmap", alloc_err(errno));
		close(fd);
		return -1;
	}
	c->p.fd = fd;
	c->p.map = m;
	c->p.map_size = MB;
	c->open = true;
	return 0;
}

static void c_close(struct cctx *c)
{
	munmap((void *)c->p.map, c->p.map_size);
	inject(true);
	close(c->p.fd);
	inject(false);
	c->open = false;
}

/*
 * A synchronous call with injection on: the send, then reads until the
 * reply or the failure.  0 and *r, or -errno when the send failed.
 */
static int c_call(struct cctx *c, __u32 handle, __u32 code, const void *data, size_t size,
		  const __u64 *offs, size_t n, struct fbt_ret *r)
{
	unsigned char rbuf[512];
	struct fbt_w w;
	size_t wdone = 0, rdone, pos;
	bool sent = false;
	int ret, tries = 0;

	fbt_w_reset(&w);
	/* replies may carry descriptors (C_FD) */
	fbt_w_send(&w, handle, code, FBINDER_TXN_ACCEPT_FDS, data, size, offs, n);
	for (;;) {
		rdone = 0;
		ret = wr_fi(c->p.fd, sent ? NULL : w.buf, sent ? 0 : w.len, &wdone, rbuf,
			    sizeof(rbuf), &rdone);
		if (!sent && wdone == w.len)
			sent = true;
		if (ret) {
			if (!sent) {
				note_err(-ret, "send", alloc_err(-ret) || -ret == EOWNERDEAD ||
					 -ret == ENOENT);
				return ret;
			}
			note_err(-ret, "read reply", alloc_err(-ret));
			if (++tries > 10000) {
				note_err(-ret, "reply never came", false);
				return ret;
			}
			continue;
		}
		for (pos = 0; pos < rdone;) {
			pos += fbt_parse_one(rbuf + pos, rdone - pos, r);
			if (r->cmd == FBINDER_RET_REPLY || r->cmd == FBINDER_RET_FAILED) {
				if (pos != rdone)
					note_err(EPROTO, "returns after the reply", false);
				if (r->cmd == FBINDER_RET_FAILED) {
					atomic_fetch_add(&sh->failed_calls, 1);
					note_err(-r->err.error, "FBINDER_RET_FAILED",
						 alloc_err(-r->err.error) ||
						 r->err.error == -EOWNERDEAD);
				}
				return 0;
			}
			note_err(EPROTO, fbt_ret_name(r->cmd), false);
		}
	}
}

static void c_free(struct cctx *c, __u64 off)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_free(&w, off);
	must(c->p.fd, &w, "free");
}

static void c_op(struct cctx *c, struct fbt_rng *rng)
{
	unsigned int op = fbt_rnd(rng, 100);
	unsigned char buf[1024];
	struct fbt_ret r;
	int ret;

	if (op < 40) {
		size_t n = fbt_rnd(rng, sizeof(buf));
		__u32 s = (__u32)fbt_rnd64(rng);

		fbt_fill(buf, n, s);
		ret = c_call(c, 0, C_ECHO, buf, n, NULL, 0, &r);
		if (!ret && r.cmd == FBINDER_RET_REPLY) {
			if (r.msg.data_size != n || fbt_verify(fbt_data(&c->p, &r.msg), n, s) >= 0)
				atomic_fetch_add(&sh->bad_replies, 1);
			else
				atomic_fetch_add(&sh->ok_calls, 1);
			c_free(c, r.msg.data);
		}
	} else if (op < 55) {
		struct fbt_w w;
		int k;

		fbt_w_reset(&w);
		for (k = 0; k < 8; k++)
			fbt_w_send(&w, 0, C_ECHO, FBINDER_TXN_ONEWAY, buf, 8 * k, NULL, 0);
		ret = wr_fi(c->p.fd, w.buf, w.len, NULL, NULL, 0, NULL);
		if (ret)
			note_err(-ret, "oneway", alloc_err(-ret) || -ret == ENOSPC);
	} else if (op < 75) {
		struct fbinder_death d;
		struct fbt_w w;
		__u32 h;

		ret = c_call(c, 0, C_GIVE, NULL, 0, NULL, 0, &r);
		if (ret || r.cmd != FBINDER_RET_REPLY)
			return;
		if (r.msg.offsets_count != 1 || fbt_obj(&c->p, &r.msg, 0)->type != FBINDER_OBJ_HANDLE) {
			atomic_fetch_add(&sh->bad_replies, 1);
			c_free(c, r.msg.data);
			return;
		}
		h = fbt_obj(&c->p, &r.msg, 0)->handle;
		fbt_w_reset(&w);
		fbt_w_u32(&w, FBINDER_CMD_ACQUIRE, h);
		must(c->p.fd, &w, "acquire");
		c_free(c, r.msg.data);
		d = (struct fbinder_death){ .handle = h, .cookie = h };
		fbt_w_reset(&w);
		fbt_w_cmd(&w, FBINDER_CMD_LINK_DEATH, &d, sizeof(d));
		ret = wr_fi(c->p.fd, w.buf, w.len, NULL, NULL, 0, NULL);
		if (ret)
			note_err(-ret, "link death", alloc_err(-ret));
		ret = c_call(c, h, C_OBJ, buf, 16, NULL, 0, &r);
		if (!ret && r.cmd == FBINDER_RET_REPLY)
			c_free(c, r.msg.data);
		fbt_w_reset(&w);
		fbt_w_u32(&w, FBINDER_CMD_RELEASE, h);
		must(c->p.fd, &w, "release");
	} else if (op < 92) {
		struct fbinder_object o[2] = { { .type = FBINDER_OBJ_FD }, { .type = FBINDER_OBJ_FD } };
		__u64 offs[2] = { 0, 16 };
		int pf[2];

		if (pipe(pf) < 0)
			die("pipe");
		o[0].fd = pf[0];
		o[1].fd = pf[1];
		ret = c_call(c, 0, C_FD, o, sizeof(o), offs, 2, &r);
		close(pf[0]);
		close(pf[1]);
		if (!ret && r.cmd == FBINDER_RET_REPLY) {
			if (r.msg.offsets_count == 1 && fbt_obj(&c->p, &r.msg, 0)->type == FBINDER_OBJ_FD)
				close(fbt_obj(&c->p, &r.msg, 0)->fd);
			else
				atomic_fetch_add(&sh->bad_replies, 1);
			c_free(c, r.msg.data);
		}
	} else {
		c_close(c);
		c_open(c);
	}
}

int main(void)
{
	unsigned long ops = fbt_env_ull("FBINDER_FAILSLAB_OPS", fbt_scaled(1500, 100));
	unsigned long long pct = fbt_env_ull("FBINDER_FAILSLAB_PCT", 10);
	long long slab_left, page_left, t0;
	struct fbt_rng rng;
	struct cctx c = { 0 };
	char pbuf[32];
	unsigned long i;
	pid_t spid;
	int e;

	if (access(FI "/failslab/probability", W_OK) || access(FI "/fail_page_alloc/probability", W_OK))
		die("no failslab/fail_page_alloc in debugfs: this test needs the debug kernel");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	memset(sh, 0, sizeof(*sh));
	fbt_rng_seed(&rng, fbt_seed("FBINDER_FAILSLAB_SEED"));

	snprintf(pbuf, sizeof(pbuf), "%llu", pct);
	put_file(FI "/failslab/task-filter", "Y");
	put_file(FI "/failslab/ignore-gfp-wait", "N");
	put_file(FI "/failslab/cache-filter", "N");
	put_file(FI "/fail_page_alloc/task-filter", "Y");
	put_file(FI "/fail_page_alloc/ignore-gfp-wait", "N");
	put_file(FI "/fail_page_alloc/ignore-gfp-highmem", "N");
	put_file(FI "/fail_page_alloc/min-order", "0");
	for (e = 0; e < 2; e++) {
		const char *d = e ? FI "/fail_page_alloc" : FI "/failslab";
		char path[128];

		snprintf(path, sizeof(path), "%s/verbose", d);
		put_file(path, "0");
		snprintf(path, sizeof(path), "%s/interval", d);
		put_file(path, "1");
		snprintf(path, sizeof(path), "%s/times", d);
		put_file(path, "1000000");
		snprintf(path, sizeof(path), "%s/probability", d);
		put_file(path, pbuf);
	}
	printf("# failslab + fail_page_alloc at %llu%% for the workload's own calls, %lu operations\n",
	       pct, ops);

	spid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_FDS, s_body, NULL);
	s_pid = spid;
	{
		pthread_t wd;

		if (pthread_create(&wd, NULL, watchdog, NULL))
			die("pthread_create");
	}
	mif = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (mif < 0)
		die("open /proc/thread-self/make-it-fail");
	t0 = fbt_now_ms();
	for (i = 0; i < ops; i++) {
		if (!c.open && c_open(&c))
			continue;
		c_op(&c, &rng);
		atomic_fetch_add(&progress, 1);
		if (i % 100 == 99) {
			printf("# %lu operations, %.1f s\n", i + 1, (fbt_now_ms() - t0) / 1000.0);
			fflush(stdout);
		}
	}
	if (c.open)
		c_close(&c);
	/* S dies with injection on whenever it sat in a system call. */
	kill(spid, SIGKILL);
	CHECK(fbt_wait(spid) == 128 + SIGKILL, "S was not killed (it died earlier?)");

	slab_left = get_file(FI "/failslab/times");
	page_left = get_file(FI "/fail_page_alloc/times");
	put_file(FI "/failslab/probability", "0");
	put_file(FI "/fail_page_alloc/probability", "0");

	printf("# %.1f s; injected: %lld slab, %lld page failures; calls: %llu correct, %llu FBINDER_RET_FAILED\n",
	       (fbt_now_ms() - t0) / 1000.0, TIMES - slab_left, TIMES - page_left,
	       (unsigned long long)sh->ok_calls, (unsigned long long)sh->failed_calls);
	printf("# errors seen:");
	for (e = 1; e < 160; e++)
		if (sh->errs[e])
			printf(" %s %llu;", strerror(e), (unsigned long long)sh->errs[e]);
	printf("\n");
	CHECK(TIMES - slab_left > 0 && TIMES - page_left > 0, "nothing was injected");
	CHECK(sh->errs[ENOMEM] > 0, "no ENOMEM came back");
	CHECK(sh->ok_calls > 0, "no call succeeded");
	CHECK(sh->bad_replies == 0, "%llu wrong replies", (unsigned long long)sh->bad_replies);
	CHECK(sh->unexpected == 0, "%llu unexpected errors, first: %s",
	      (unsigned long long)sh->unexpected, sh->msg);
	CHECK(fbt_wait_live_zero(10000) == 0, "live counts did not return to zero");
	return fbt_done();
}
