// SPDX-License-Identifier: MIT
/*
 * fuzz_ioctl: a syzkaller-style fuzzer of the whole ioctl/mmap surface,
 * with valid traffic running beside it that must keep getting correct
 * replies.
 *
 * Cast:
 *   M   the context manager (handle 0): a registry the fuzzers use to find
 *       each other (M_REG stores the handles a message carries, M_GET hands
 *       out stored ones), answers everything else, links deaths.
 *   VS  the valid server: echoes checked payloads; only C knows its handle
 *       (handed over once through M, with a secret token).
 *   C   the valid client: calls VS with random payloads, checks every reply.
 *   W*  FBINDER_FUZZ_PROCS fuzz processes x FBINDER_FUZZ_THREADS threads: random and
 *       mutated WRITE_READ streams (valid commands, oneway batches among
 *       them, with corrupted fields,
 *       random handles, offsets, sizes, cookies, pointers, truncated
 *       buffers), random other ioctls, random mmap/mprotect/munmap/mremap,
 *       memory regions created over scratch, narrowed, revoked, sent and
 *       copied through (random handles, offsets, iovecs), random closes
 *       and reopens, forks that use the parent's context,
 *       thread exits; each replies to (or ignores) what it receives.  The
 *       parent SIGKILLs random workers and respawns them.
 *
 * Only M stays root (it claims handle 0): VS, C and every worker run as
 * uid 65534 (fbt_become_nobody()); the root parent reads debugfs.
 *
 * Passes when C never saw a wrong or failed reply and never stalled, no
 * worker reported a malformed read stream, and once everything is gone the
 * live_* counters in debugfs stats are back to zero.
 *
 * Before it fuzzes, it replays the bugs it found (see regressions()).
 *
 * FBINDER_FUZZ_SECONDS (20), FBINDER_FUZZ_PROCS (4), FBINDER_FUZZ_THREADS (3): the size.
 * FBINDER_FUZZ_SEED=N replays a run's random choices (the seed is printed; the
 * interleaving of threads is the scheduler's, so a replay is close, not
 * exact).  FBINDER_SCALE scales the stall limit on slow kernels.
 */
#define _GNU_SOURCE
#include "fbt_proto.h"
#include "fbt_stress.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MB		(1024 * 1024)
#define MGR_COOKIE	0xf022ULL
#define VS_COOKIE	0x5e2eULL
#define MAX_PROCS	32
#define MAX_THREADS	16
#define NCTX		2
#define NHANDLES	32
#define NOFFS		32
#define PAYLOAD		4096
#define VMAGIC		0x7a11d000u

enum { M_REG = 1, M_GET, M_REG_VALID, M_GET_VALID, V_ECHO };

struct shared {
	_Atomic unsigned long long ops[MAX_PROCS];
	_Atomic unsigned long long valid_calls, valid_errors, fuzz_msgs;
	_Atomic long long valid_last_ms;
	_Atomic int stop_valid;
	_Atomic int bad_worker;
	_Atomic unsigned long long wr_errno[140];	/* WRITE_READ results by errno */
	char valid_msg[256];
};

static struct shared *sh;
static uint64_t seed, token;

/* ------------------------------------------------------------------ M */

struct mstate {
	pthread_mutex_t lock;
	__u32 handles[NHANDLES];
	__u64 next_link;
	__u32 valid_handle;
	struct fbt_rng rng;
};

static struct mstate ms = { .lock = PTHREAD_MUTEX_INITIALIZER, .next_link = 1 };

/*
 * The descriptors an FBINDER_OBJ_FDA object of a received message brought:
 * its parent's buffer is at the address the driver wrote, in the message.
 */
static void close_fda(const unsigned char *data, __u64 size, const __u64 *offs, __u64 i,
		      const struct fbinder_fda_object *a)
{
	const struct fbinder_ptr_object *p;
	__u64 at, j;
	__s32 fd;

	if (a->parent >= i || offs[a->parent] > size ||
	    size - offs[a->parent] < sizeof(*p))
		return;
	p = (const void *)(data + offs[a->parent]);
	if (p->type != FBINDER_OBJ_PTR || p->ptr < (uintptr_t)data ||
	    p->ptr - (uintptr_t)data > size)
		return;
	at = p->ptr - (uintptr_t)data + a->parent_offset;
	for (j = 0; j < a->count && at + 4 * (j + 1) <= size; j++) {
		memcpy(&fd, data + at + 4 * j, sizeof(fd));
		if (fd >= 0)
			close(fd);
	}
}

/* Close every descriptor a received message installed in this process. */
static void close_msg_fds(const unsigned char *map, size_t map_size,
			  const struct fbinder_txn_msg *m)
{
	const __u64 *offs;
	__u64 i;

	if (!map || m->offsets > map_size || m->offsets_count > (map_size - m->offsets) / 8 ||
	    m->data > map_size || m->data_size > map_size - m->data)
		return;
	offs = (const __u64 *)(map + m->offsets);
	for (i = 0; i < m->offsets_count; i++) {
		const struct fbinder_object *o;

		if (offs[i] > m->data_size || m->data_size - offs[i] < sizeof(*o))
			continue;
		o = (const void *)(map + m->data + offs[i]);
		if (o->type == FBINDER_OBJ_FD)
			close(o->fd);
		else if (o->type == FBINDER_OBJ_FDA)
			close_fda(map + m->data, m->data_size, offs, i, (const void *)o);
	}
}

static void m_store(struct fbt_ctx *p, __u32 h)
{
	struct fbt_w w;
	unsigned int slot;
	__u32 old;

	if (fbt_acquire(p, h))
		return;
	pthread_mutex_lock(&ms.lock);
	slot = fbt_rnd(&ms.rng, NHANDLES);
	old = ms.handles[slot];
	ms.handles[slot] = h;
	fbt_w_reset(&w);
	if (fbt_rnd(&ms.rng, 2)) {
		struct fbinder_death d = { .handle = h, .cookie = ms.next_link++ };

		fbt_w_cmd(&w, FBINDER_CMD_LINK_DEATH, &d, sizeof(d));
	}
	pthread_mutex_unlock(&ms.lock);
	if (w.len)
		fbt_wr(p, &w, NULL, false);	/* EEXIST, ENOENT, ... are fine */
	if (old && old != h)
		fbt_release(p, old);
}

static int m_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_txn_msg *m = &r->msg;
	struct fbinder_object o[2] = { { 0 } };
	__u64 offs[2] = { 0, sizeof(o[0]) };
	size_t nobj = 0;
	__u64 tok = 0;
	__u64 i;

	(void)arg;
	if (r->cmd == FBINDER_RET_DEAD) {
		struct fbt_w w;

		fbt_w_reset(&w);
		fbt_w_cmd(&w, FBINDER_CMD_DEATH_DONE, &r->cookie, sizeof(r->cookie));
		fbt_wr(p, &w, NULL, false);
		return 0;
	}
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (m->data_size >= 8 && m->data_size <= p->map_size && m->data <= p->map_size - 8)
		memcpy(&tok, p->map + m->data, 8);
	if (m->code == M_REG_VALID && tok == token && m->offsets_count == 1) {
		const struct fbinder_object *vo = fbt_obj(p, m, 0);

		if (vo->type == FBINDER_OBJ_HANDLE && !fbt_acquire(p, vo->handle))
			ms.valid_handle = vo->handle;
	} else if (m->code == M_GET_VALID && tok == token) {
		o[0] = (struct fbinder_object){ .type = FBINDER_OBJ_HANDLE, .handle = ms.valid_handle };
		nobj = 1;
	} else if (m->code == M_REG && m->offsets_count <= 4096) {
		/* Keep the handles among the first few valid objects. */
		const __u64 *ofs;

		close_msg_fds(p->map, p->map_size, m);
		if (m->offsets <= p->map_size &&
		    m->offsets_count <= (p->map_size - m->offsets) / 8) {
			ofs = (const __u64 *)(p->map + m->offsets);
			for (i = 0; i < m->offsets_count && i < 4; i++) {
				const struct fbinder_object *ob;

				if (ofs[i] > m->data_size || m->data_size - ofs[i] < sizeof(*ob))
					break;
				ob = (const void *)(p->map + m->data + ofs[i]);
				if (ob->type == FBINDER_OBJ_HANDLE)
					m_store(p, ob->handle);
			}
		}
	} else {
		close_msg_fds(p->map, p->map_size, m);
		if (m->code == M_GET) {
			pthread_mutex_lock(&ms.lock);
			for (i = 0; i < 2; i++) {
				__u32 h = ms.handles[fbt_rnd(&ms.rng, NHANDLES)];

				if (h)
					o[nobj++] = (struct fbinder_object){ .type = FBINDER_OBJ_HANDLE,
									.handle = h };
			}
			pthread_mutex_unlock(&ms.lock);
		}
	}
	if (m->flags & FBINDER_TXN_ONEWAY)
		fbt_free_buffer(p, m->data);
	else
		fbt_reply(p, m, 0, o, nobj * sizeof(o[0]), offs, nobj);
	return 0;
}

static void *m_looper(void *arg)
{
	struct fbt_ctx *t = fbt_ctx_thread(arg, true);

	for (;;) {
		struct fbt_ret r;
		int ret = fbt_next(t, &r);

		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret)
			die("M: read: %s", strerror(-ret));
		m_handle(t, &r, NULL);
	}
	return NULL;
}

static int m_main(struct fbt_ctx *p, void *arg)
{
	pthread_t th[2];
	int i;

	(void)arg;
	fbt_rng_seed(&ms.rng, fbt_mix(seed, 1));
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, m_looper, p))
			die("pthread_create");
	m_looper(p);
	return 0;
}

/* ---------------------------------------------------------- VS and C */

struct vhdr {
	__u64 token;
	__u32 magic, seed, size, pad;
};

static int vs_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	static __thread unsigned char out[PAYLOAD + sizeof(struct vhdr)];
	const struct fbinder_txn_msg *m = &r->msg;
	struct vhdr h;
	__u32 code = 0;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (m->flags & FBINDER_TXN_ONEWAY) {
		fbt_free_buffer(p, m->data);
		return 0;
	}
	memset(&h, 0, sizeof(h));
	if (m->data_size >= sizeof(h))
		memcpy(&h, fbt_data(p, m), sizeof(h));
	if (m->data_size < sizeof(h) || h.token != token || h.magic != VMAGIC ||
	    h.size > PAYLOAD || m->data_size != sizeof(h) + h.size || m->offsets_count)
		code = 2;
	else if (fbt_verify((const unsigned char *)fbt_data(p, m) + sizeof(h), h.size, h.seed) >= 0)
		code = 1;
	h.seed ^= 0xa5a5a5a5u;
	memcpy(out, &h, sizeof(h));
	fbt_fill(out + sizeof(h), h.size <= PAYLOAD ? h.size : 0, h.seed);
	fbt_reply(p, m, code, out, sizeof(h) + (h.size <= PAYLOAD ? h.size : 0), NULL, 0);
	return 0;
}

static void *vs_looper(void *arg)
{
	struct fbt_ctx *t = fbt_ctx_thread(arg, true);

	for (;;) {
		struct fbt_ret r;
		int ret = fbt_next(t, &r);

		if (ret == -EINTR)
			continue;
		if (ret)
			die("VS: read: %s", strerror(-ret));
		vs_handle(t, &r, NULL);
	}
	return NULL;
}

static int vs_main(void *arg)
{
	struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL, .cookie = VS_COOKIE };
	struct { __u64 token; struct fbinder_object o; } msg = { token, o };
	__u64 off = 8;
	struct fbt_ctx p;
	struct fbt_ret r;
	pthread_t th;
	int ret;

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&p, 4 * MB);
	ret = fbt_call(&p, 0, M_REG_VALID, &msg, sizeof(msg), &off, 1, &r, NULL, NULL);
	if (ret || r.cmd != FBINDER_RET_REPLY)
		die("VS: register with M: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	fbt_free_buffer(&p, r.msg.data);
	if (pthread_create(&th, NULL, vs_looper, &p))
		die("pthread_create");
	vs_looper(&p);
	return 0;
}

static void valid_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void valid_fail(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&sh->valid_errors, 1) == 0) {
		va_start(ap, fmt);
		vsnprintf(sh->valid_msg, sizeof(sh->valid_msg), fmt, ap);
		va_end(ap);
	}
}

static int c_main(void *arg)
{
	static unsigned char buf[PAYLOAD + sizeof(struct vhdr)];
	struct fbt_rng rng;
	struct fbt_ctx p;
	struct fbt_ret r;
	__u32 vh = 0;
	int ret, i;

	(void)arg;
	fbt_become_nobody();
	fbt_rng_seed(&rng, fbt_mix(seed, 2));
	fbt_ctx_open(&p, 1 * MB);
	for (i = 0; i < 200 && !vh; i++) {
		ret = fbt_call(&p, 0, M_GET_VALID, &token, sizeof(token), NULL, 0, &r, NULL, NULL);
		if (ret || r.cmd != FBINDER_RET_REPLY)
			die("C: M_GET_VALID: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
		if (r.msg.offsets_count == 1 && fbt_obj(&p, &r.msg, 0)->type == FBINDER_OBJ_HANDLE &&
		    fbt_obj(&p, &r.msg, 0)->handle) {
			vh = fbt_obj(&p, &r.msg, 0)->handle;
			fbt_acquire(&p, vh);
		}
		fbt_free_buffer(&p, r.msg.data);
		if (!vh)
			usleep(20000);
	}
	if (!vh)
		die("C: never got the valid server's handle");
	atomic_store(&sh->valid_last_ms, fbt_now_ms());
	while (!atomic_load(&sh->stop_valid)) {
		struct vhdr h = { .token = token, .magic = VMAGIC };
		const unsigned char *d;

		h.seed = (__u32)fbt_rnd64(&rng);
		h.size = fbt_rnd(&rng, 4) ? fbt_rnd(&rng, 256) : fbt_rnd(&rng, PAYLOAD + 1);
		memcpy(buf, &h, sizeof(h));
		fbt_fill(buf + sizeof(h), h.size, h.seed);
		ret = fbt_call(&p, vh, V_ECHO, buf, sizeof(h) + h.size, NULL, 0, &r, NULL, NULL);
		if (ret == -EINTR)
			continue;
		if (ret) {
			valid_fail("call: %s", strerror(-ret));
			continue;
		}
		if (r.cmd != FBINDER_RET_REPLY) {
			valid_fail("call: %s error %d", fbt_ret_name(r.cmd), r.err.error);
			continue;
		}
		d = fbt_data(&p, &r.msg);
		if (r.msg.code != 0 || r.msg.data_size != sizeof(h) + h.size)
			valid_fail("reply code %u size %llu, want 0 and %zu", r.msg.code,
				   (unsigned long long)r.msg.data_size, sizeof(h) + h.size);
		else if (fbt_verify(d + sizeof(h), h.size, h.seed ^ 0xa5a5a5a5u) >= 0)
			valid_fail("reply payload of %u bytes corrupted at %ld", h.size,
				   fbt_verify(d + sizeof(h), h.size, h.seed ^ 0xa5a5a5a5u));
		else {
			atomic_fetch_add(&sh->valid_calls, 1);
			atomic_store(&sh->valid_last_ms, fbt_now_ms());
		}
		ret = fbt_free_buffer(&p, r.msg.data);
		if (ret)
			valid_fail("free reply: %s", strerror(-ret));
	}
	fbt_ctx_close(&p);
	return 0;
}

/* ------------------------------------------------------------ workers */

struct wctx {
	_Atomic int fd;
	_Atomic(unsigned char *) map;
	_Atomic size_t map_size;
};

struct wproc {
	int idx;
	struct wctx ctx[NCTX];
	int pipefd[2], nullfd;
	unsigned char *scratch, *guard;	/* scratch ends where guard starts */
	size_t scratch_size;
	_Atomic __u32 handles[NCTX][NHANDLES];	/* learned, per context */
	_Atomic __u64 offs[NOFFS];
	_Atomic __u64 cookies[8];
	int nthreads;
	pthread_t th[MAX_THREADS];
	_Atomic pid_t tids[MAX_THREADS];
};

static struct wproc wp;

struct thr {
	struct fbt_rng rng;
	int slot;
	bool clean;	/* this stream: valid commands only, real handles */
	unsigned long long ops;
	unsigned char rbuf[8192];
	unsigned char wbuf[2048];
	struct fbinder_iovec rviov[2];	/* a region copy's caller side */
	struct fbinder_batch_msg batch[4];	/* a oneway batch's entries */
	struct fbinder_iovec sgv[4];	/* a gathered send's pieces */
	unsigned char info_arg[sizeof(struct fbinder_info) + 8];	/* op_info's */
	unsigned char payload[PAYLOAD];
	__u64 poffs[16];
};

static __thread sigjmp_buf *fault_jmp;

static void on_fault(int sig)
{
	if (fault_jmp)
		siglongjmp(*fault_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_kick(int sig)
{
	(void)sig;	/* just interrupts a blocking wait */
}

#define R(n)		fbt_rnd(&t->rng, (n))
#define CHANCE(pct)	(R(100) < (pct))

static void count_op(struct thr *t)
{
	t->ops++;
	atomic_fetch_add_explicit(&sh->ops[wp.idx], 1, memory_order_relaxed);
}

static struct wctx *pick_ctx(struct thr *t)
{
	return &wp.ctx[R(NCTX)];
}

static int pick_fd(struct thr *t, struct wctx *c)
{
	switch (R(12)) {
	case 0: return -1;
	case 1: return (int)R(64);
	case 2: return wp.pipefd[R(2)];
	case 3: return wp.nullfd;
	default: return atomic_load(&c->fd);
	}
}

static __u32 pick_handle(struct thr *t, struct wctx *c)
{
	_Atomic __u32 *learned = wp.handles[c - wp.ctx];
	__u32 h;

	if (t->clean) {
		h = atomic_load(&learned[R(NHANDLES)]);
		return R(3) && h ? h : 0;
	}
	switch (R(10)) {
	case 0: case 1: case 2:
		return 0;
	case 3:
		return R(16);
	case 4:
		return (__u32)fbt_rnd64(&t->rng);
	default:
		h = atomic_load(&learned[R(NHANDLES)]);
		return h ? h : R(8);
	}
}

static void learn_handle(const struct wctx *c, __u32 h)
{
	static _Atomic unsigned int next;

	if (h)
		atomic_store(&wp.handles[c - wp.ctx][atomic_fetch_add(&next, 1) % NHANDLES], h);
}

static void learn_off(__u64 off)
{
	static _Atomic unsigned int next;

	atomic_store(&wp.offs[atomic_fetch_add(&next, 1) % NOFFS], off);
}

static __u64 pick_cookie(struct thr *t)
{
	switch (R(6)) {
	case 0: return fbt_rnd64(&t->rng);
	case 1: return 0;
	default: return 0xc0de0000ULL + R(8);
	}
}

/* A pointer for the kernel to read (or write) up to len bytes at. */
static __u64 pick_ptr(struct thr *t, void *good, size_t len)
{
	if (t->clean)
		return (uintptr_t)good;
	switch (R(24)) {
	case 0: return 0;
	case 1: return 0xffff888000000000ULL + R(4096);
	case 2: return (uintptr_t)wp.guard;
	case 3: return (uintptr_t)wp.guard - R(len + 1);	/* runs into the guard page */
	case 4: return (uintptr_t)atomic_load(&wp.ctx[0].map);
	case 5: return fbt_rnd64(&t->rng);
	case 6: return (uintptr_t)good + 1 + R(7);
	default: return (uintptr_t)good;
	}
}

static __u64 pick_size(struct thr *t, __u64 good)
{
	if (t->clean)
		return good;
	switch (R(20)) {
	case 0: return 0;
	case 1: return fbt_rnd64(&t->rng);
	case 2: return good + 1 + R(64);
	case 3: return ~0ULL - R(16);
	case 4: return good ? good - 1 - R((__u32)good) % (good) : 0;
	case 5: return 1ULL << R(64);
	default: return good;
	}
}

/* Random payload with up to 8 objects; fills t->poffs; returns its size. */
/*
 * Every write-stream command and every ioctl of uapi/linux/fastbinder.h,
 * for the mutations that keep a real number and break its size or payload.
 * A new one goes here, and gets a structured op of its own if it takes a
 * struct (tests/fuzz/fuzz_uapi_coverage.sh fails while one is missing).
 */
static const __u32 all_cmds[] = {
	FBINDER_CMD_SEND, FBINDER_CMD_REPLY, FBINDER_CMD_FREE_BUFFER,
	FBINDER_CMD_ACQUIRE, FBINDER_CMD_RELEASE, FBINDER_CMD_REGISTER_LOOPER,
	FBINDER_CMD_ENTER_LOOPER, FBINDER_CMD_EXIT_LOOPER, FBINDER_CMD_LINK_DEATH,
	FBINDER_CMD_UNLINK_DEATH, FBINDER_CMD_DEATH_DONE, FBINDER_CMD_ABANDON,
	FBINDER_CMD_REGION_READ, FBINDER_CMD_REGION_WRITE, FBINDER_CMD_SEND_BATCH,
	FBINDER_CMD_SEND_SG, FBINDER_CMD_REPLY_SG,
};

static const unsigned long all_iocs[] = {
	FBINDER_IOC_VERSION, FBINDER_IOC_WRITE_READ, FBINDER_IOC_SET_MAX_THREADS,
	FBINDER_IOC_SET_CONTEXT_MGR, FBINDER_IOC_THREAD_EXIT, FBINDER_IOC_WAKE_IDLE,
	FBINDER_IOC_REGION_CREATE, FBINDER_IOC_REGION_NARROW, FBINDER_IOC_REGION_INFO,
	FBINDER_IOC_REGION_REVOKE, FBINDER_IOC_INFO, FBINDER_IOC_VERSION_V4,
	FBINDER_IOC_FREEZE, FBINDER_IOC_FROZEN_INFO,
};

static __u32 pick_rights(struct thr *t)
{
	static const __u32 rights[] = {
		0, FBINDER_REGION_READ, FBINDER_REGION_WRITE,
		FBINDER_REGION_READ | FBINDER_REGION_WRITE,
	};

	return rights[R(ARRAY_SIZE(rights))];
}

static size_t gen_payload(struct thr *t, struct wctx *c, __u32 *nobj)
{
	size_t size = 16 * (1 + R(12)) + (CHANCE(20) ? R(PAYLOAD - 256) : 0);
	__u32 n = CHANCE(50) ? 0 : 1 + R(8), i;

	if (CHANCE(50))
		memset(t->payload, 0, size);
	else
		for (i = 0; i < size; i++)
			t->payload[i] = (unsigned char)R(256);
	for (i = 0; i < n; i++) {
		struct fbinder_object o = { 0 };
		size_t at = (size_t)i * 16;

		if (at + sizeof(o) > size)
			break;
		switch (R(8)) {
		case 6:	/* a region handle, or any handle as one */
			if (CHANCE(30)) {
				/* a buffer: length in flags, offset in the union */
				o.type = FBINDER_OBJ_PTR;
				o.flags = t->clean ? 0 : (__u32)R(size + 16);
				o.cookie = t->clean ? 0 : CHANCE(80) ? R(size + 16) & ~7ULL :
					   fbt_rnd64(&t->rng);
				break;
			}
			if (CHANCE(30)) {
				/* descriptors in an earlier object's buffer, whatever it is */
				struct fbinder_fda_object a = {
					.type = FBINDER_OBJ_FDA,
					.flags = CHANCE(80) ? 0 : (__u16)R(4),
					.parent = (__u16)R(i + 2),
					.count = CHANCE(90) ? R(6) : (__u32)fbt_rnd64(&t->rng),
					.parent_offset = CHANCE(80) ? R(64) & ~3U : R(size + 16),
				};

				memcpy(&o, &a, sizeof(o));
				break;
			}
			o.type = FBINDER_OBJ_REGION;
			o.handle = pick_handle(t, c);
			break;
		case 0: case 4: case 5:
			o.type = FBINDER_OBJ_LOCAL;
			o.cookie = pick_cookie(t);
			if (CHANCE(10))	/* never a raise: the fuzzers must not starve C */
				o.flags = FBINDER_OBJF_MIN_PRIO | (CHANCE(50) ? R(20) : R(0x400));
			if (CHANCE(50))	/* descriptors may reach it */
				o.flags |= FBINDER_OBJF_ACCEPTS_FDS;
			if (CHANCE(30))	/* its messages carry the sender's label */
				o.flags |= FBINDER_OBJF_TXN_SECCTX;
			break;
		case 1:
			o.type = FBINDER_OBJ_HANDLE;
			o.handle = pick_handle(t, c);
			break;
		case 2:
			o.type = FBINDER_OBJ_FD;
			o.fd = pick_fd(t, c);
			o.flags = R(3);
			break;
		case 3:
			o.type = FBINDER_OBJ_HANDLE;
			o.handle = atomic_load(&wp.handles[c - wp.ctx][R(NHANDLES)]);
			break;
		default:
			if (t->clean) {
				o.type = FBINDER_OBJ_LOCAL;
				o.cookie = pick_cookie(t);
				break;
			}
			o.type = R(6);
			o.flags = (__u32)fbt_rnd64(&t->rng) & (CHANCE(50) ? 0 : ~0u);
			o.cookie = fbt_rnd64(&t->rng);
			break;
		}
		if (o.flags & FBINDER_OBJF_PRIO_RT)
			o.flags &= ~FBINDER_OBJF_MIN_PRIO;	/* RT minimums: see above */
		memcpy(t->payload + at, &o, sizeof(o));
		t->poffs[i] = at;
	}
	if (i && !t->clean && CHANCE(15)) {	/* corrupt the offsets */
		__u32 k = R(i);

		switch (R(4)) {
		case 0: t->poffs[k] += 1 + R(7); break;
		case 1: t->poffs[k] = fbt_rnd64(&t->rng); break;
		case 2: t->poffs[k] = k ? t->poffs[k - 1] : size; break;
		default: t->poffs[k] = size - R(16); break;
		}
	}
	*nobj = i;
	return size;
}

static size_t put(unsigned char *buf, size_t len, size_t cap, const void *p, size_t n)
{
	if (len + n > cap)
		return len;
	memcpy(buf + len, p, n);
	return len + n;
}

/* A write stream of random commands, most of them valid-looking. */
static size_t gen_stream(struct thr *t, struct wctx *c)
{
	size_t len = 0, cap = sizeof(t->wbuf);
	int n = 1 + R(5), k;

	for (k = 0; k < n; k++) {
		__u32 cmd;

		switch (t->clean && R(2) ? R(5) : R(20)) {
		case 0: case 1: case 2: case 3: case 4: {
			struct fbinder_txn_data tx = { 0 };
			__u32 nobj;
			size_t sz = gen_payload(t, c, &nobj);

			cmd = R(5) ? FBINDER_CMD_SEND : FBINDER_CMD_REPLY;
			tx.handle = pick_handle(t, c);
			tx.code = CHANCE(50) ? R(8) : (__u32)fbt_rnd64(&t->rng);
			tx.flags = CHANCE(70) ? FBINDER_TXN_ONEWAY |
						(CHANCE(20) ? FBINDER_TXN_FROZEN_REPORT : 0) :
				   CHANCE(90) || t->clean ? (CHANCE(50) ? FBINDER_TXN_ACCEPT_FDS : 0) :
				   /* the read-only flags, from a sender */
				   CHANCE(30) ? (R(2) ? FBINDER_TXN_BATCH : FBINDER_TXN_SECCTX) |
						(__u32)R(2) * FBINDER_TXN_ONEWAY :
				   (__u32)fbt_rnd64(&t->rng);
			tx.data = pick_ptr(t, t->payload, sz);
			tx.data_size = pick_size(t, sz);
			tx.offsets = pick_ptr(t, t->poffs, nobj * 8);
			tx.offsets_count = t->clean ? nobj : CHANCE(5) ? (__u32)fbt_rnd64(&t->rng) :
					   CHANCE(5) ? nobj + 1 : nobj;
			if (CHANCE(25)) {
				/* the same message gathered from up to 4 pieces */
				struct fbinder_txn_sg sg = {
					.handle = tx.handle, .code = tx.code, .flags = tx.flags,
					.offsets_count = tx.offsets_count, .offsets = tx.offsets,
					.iov = (uintptr_t)t->sgv, .iov_count = 1 + R(4),
				};
				size_t at = 0, piece;
				__u32 j;

				for (j = 0; j < sg.iov_count; j++) {
					piece = j + 1 == sg.iov_count ? sz - at : R(sz - at + 1);
					t->sgv[j] = (struct fbinder_iovec){
						(uintptr_t)t->payload + at, piece,
					};
					at += piece;
				}
				if (!t->clean && CHANCE(20)) {
					j = R(sg.iov_count);
					t->sgv[j].base = pick_ptr(t, t->payload, sz);
					t->sgv[j].len = pick_size(t, t->sgv[j].len);
				}
				if (!t->clean && CHANCE(5))
					sg.iov_count = (__u32)fbt_rnd64(&t->rng);
				if (!t->clean && CHANCE(5))
					sg.reserved = 1;
				cmd = cmd == FBINDER_CMD_SEND ? FBINDER_CMD_SEND_SG :
								FBINDER_CMD_REPLY_SG;
				len = put(t->wbuf, len, cap, &cmd, 4);
				len = put(t->wbuf, len, cap, &sg, sizeof(sg));
				break;
			}
			len = put(t->wbuf, len, cap, &cmd, 4);
			len = put(t->wbuf, len, cap, &tx, sizeof(tx));
			break;
		}
		case 5: case 6: {
			__u64 off = CHANCE(70) ? atomic_load(&wp.offs[R(NOFFS)]) : fbt_rnd64(&t->rng) & 0xfffff8;

			cmd = FBINDER_CMD_FREE_BUFFER;
			len = put(t->wbuf, len, cap, &cmd, 4);
			len = put(t->wbuf, len, cap, &off, 8);
			break;
		}
		case 7: case 8: {
			__u32 h = pick_handle(t, c);

			cmd = R(2) ? FBINDER_CMD_ACQUIRE : FBINDER_CMD_RELEASE;
			len = put(t->wbuf, len, cap, &cmd, 4);
			len = put(t->wbuf, len, cap, &h, 4);
			break;
		}
		case 9: case 10: {
			struct fbinder_death d = { .handle = pick_handle(t, c), .cookie = pick_cookie(t) };

			if (CHANCE(5))
				d.reserved = 1;
			cmd = R(2) ? FBINDER_CMD_LINK_DEATH : FBINDER_CMD_UNLINK_DEATH;
			len = put(t->wbuf, len, cap, &cmd, 4);
			len = put(t->wbuf, len, cap, &d, sizeof(d));
			break;
		}
		case 11: {
			__u64 ck = pick_cookie(t);

			cmd = FBINDER_CMD_DEATH_DONE;
			len = put(t->wbuf, len, cap, &cmd, 4);
			len = put(t->wbuf, len, cap, &ck, 8);
			break;
		}
		case 12: {
			static const __u32 bare[] = { FBINDER_CMD_REGISTER_LOOPER, FBINDER_CMD_ENTER_LOOPER,
						      FBINDER_CMD_EXIT_LOOPER, FBINDER_CMD_ABANDON };

			cmd = bare[R(4)];
			len = put(t->wbuf, len, cap, &cmd, 4);
			break;
		}
		case 13: {	/* a real command with a wrong size, or garbage */
			unsigned char junk[96];
			size_t i, jl = R(sizeof(junk));
			__u32 real = all_cmds[R(ARRAY_SIZE(all_cmds))];

			cmd = CHANCE(50) ? (__u32)fbt_rnd64(&t->rng) :
			      _IOC(_IOC_DIR(real), 'c', _IOC_NR(real), R(80));
			for (i = 0; i < jl; i++)
				junk[i] = (unsigned char)R(256);
			len = put(t->wbuf, len, cap, &cmd, 4);
			len = put(t->wbuf, len, cap, junk, jl);
			break;
		}
		case 16: case 17: {	/* region copies, the caller's side in scratch */
			struct fbinder_region_copy rc = {
				.handle = pick_handle(t, c),
				.iov_count = CHANCE(90) ? 1 + R(2) : (__u32)fbt_rnd64(&t->rng),
				.offset = pick_size(t, R(4096)),
				.done = CHANCE(80) ? 0 : pick_size(t, R(64)),
			};
			struct fbinder_iovec *v = t->rviov;
			int j;

			for (j = 0; j < 2; j++) {
				v[j].len = R(3000);
				v[j].base = CHANCE(90) ? (uintptr_t)wp.scratch + R(wp.scratch_size - v[j].len) :
					    pick_ptr(t, wp.scratch, v[j].len);
			}
			rc.iov = CHANCE(95) ? (uintptr_t)v : pick_ptr(t, v, 2 * sizeof(*v));
			cmd = R(2) ? FBINDER_CMD_REGION_READ : FBINDER_CMD_REGION_WRITE;
			len = put(t->wbuf, len, cap, &cmd, 4);
			len = put(t->wbuf, len, cap, &rc, sizeof(rc));
			break;
		}
		case 18: {	/* a oneway batch: entries with random sizes and pointers */
			struct fbinder_batch_send bs = {
				.handle = pick_handle(t, c),
				.count = CHANCE(90) ? 1 + R(4) : (__u32)fbt_rnd64(&t->rng),
			};
			int j;

			for (j = 0; j < 4; j++) {
				__u64 sz = R(PAYLOAD);

				t->batch[j] = (struct fbinder_batch_msg){
					.code = R(8),
					.reserved = CHANCE(95) ? 0 : 1,
					.data = pick_ptr(t, t->payload, sz),
					.data_size = pick_size(t, sz),
				};
			}
			bs.msgs = CHANCE(95) ? (uintptr_t)t->batch :
				  pick_ptr(t, t->batch, sizeof(t->batch));
			cmd = FBINDER_CMD_SEND_BATCH;
			len = put(t->wbuf, len, cap, &cmd, 4);
			len = put(t->wbuf, len, cap, &bs, sizeof(bs));
			break;
		}
		default: {	/* M's registry: publish own objects, learn others' */
			struct fbinder_txn_data tx = { .handle = 0, .code = R(2) ? M_REG : M_GET };
			struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL, .cookie = pick_cookie(t) };

			memcpy(t->payload, &o, sizeof(o));
			t->poffs[0] = 0;
			tx.flags = CHANCE(50) ? FBINDER_TXN_ONEWAY : 0;
			tx.data = (uintptr_t)t->payload;
			tx.data_size = sizeof(o);
			tx.offsets = (uintptr_t)t->poffs;
			tx.offsets_count = tx.code == M_REG;
			cmd = FBINDER_CMD_SEND;
			len = put(t->wbuf, len, cap, &cmd, 4);
			len = put(t->wbuf, len, cap, &tx, sizeof(tx));
			break;
		}
		}
	}
	/* Mutations: flipped bytes, then maybe a truncated stream. */
	if (len && !t->clean && CHANCE(15)) {
		int f = 1 + R(4);

		while (f--)
			t->wbuf[R(len)] ^= (unsigned char)(1 + R(255));
	}
	return len;
}

/* Close the descriptors and learn the handles a message brought. */
static __attribute__((noinline)) void scan_objects(const struct wctx *c, const unsigned char *map,
						   size_t map_size, const struct fbinder_txn_msg *m)
{
	sigjmp_buf jb;

	fault_jmp = &jb;	/* another thread may unmap it meanwhile */
	if (!sigsetjmp(jb, 1) && map && m->offsets <= map_size && m->offsets_count <= 64 &&
	    m->offsets_count <= (map_size - m->offsets) / 8 &&
	    m->data <= map_size && m->data_size <= map_size - m->data) {
		const __u64 *offs = (const __u64 *)(map + m->offsets);
		__u64 i;

		for (i = 0; i < m->offsets_count; i++) {
			const struct fbinder_object *o;

			if (offs[i] > m->data_size || m->data_size - offs[i] < sizeof(*o))
				continue;
			o = (const void *)(map + m->data + offs[i]);
			if (o->type == FBINDER_OBJ_FD)
				close(o->fd);
			else if (o->type == FBINDER_OBJ_FDA)
				close_fda(map + m->data, m->data_size, offs, i,
					  (const void *)o);
			else if (o->type == FBINDER_OBJ_HANDLE || o->type == FBINDER_OBJ_REGION)
				learn_handle(c, o->handle);
		}
	}
	fault_jmp = NULL;
}

/* Handle a read stream in t->rbuf of ctx c: reply, free, close fds, learn. */
static void handle_returns(struct thr *t, struct wctx *c, int fd, size_t rdone)
{
	unsigned char *map = atomic_load(&c->map);
	size_t map_size = atomic_load(&c->map_size);
	size_t pos = 0, n;
	struct fbt_ret r;

	while (pos < rdone) {
		size_t wl = 0;
		unsigned char w[128];
		__u32 cmd;

		n = fbt_parse_one(t->rbuf + pos, rdone - pos, &r);
		if (!n) {
			atomic_store(&sh->bad_worker, 1);
			errno = 0;
			die("worker %d: %zu stray bytes in the read stream", wp.idx, rdone - pos);
		}
		pos += n;
		atomic_fetch_add_explicit(&sh->fuzz_msgs, 1, memory_order_relaxed);
		switch (r.cmd) {
		case FBINDER_RET_TRANSACTION:
		case FBINDER_RET_REPLY:
			learn_off(r.msg.data);
			scan_objects(c, map, map_size, &r.msg);
			if (r.cmd == FBINDER_RET_TRANSACTION && !(r.msg.flags & FBINDER_TXN_ONEWAY) &&
			    CHANCE(85)) {
				struct fbinder_txn_data tx = { .code = R(4) };
				__u32 nobj = 0;
				size_t sz = CHANCE(70) ? R(64) : gen_payload(t, c, &nobj);

				tx.data = (uintptr_t)t->payload;
				tx.data_size = sz;
				tx.offsets = (uintptr_t)t->poffs;
				tx.offsets_count = nobj;
				cmd = FBINDER_CMD_REPLY;
				wl = put(w, wl, sizeof(w), &cmd, 4);
				wl = put(w, wl, sizeof(w), &tx, sizeof(tx));
			}
			if (CHANCE(90)) {
				cmd = FBINDER_CMD_FREE_BUFFER;
				wl = put(w, wl, sizeof(w), &cmd, 4);
				wl = put(w, wl, sizeof(w), &r.msg.data, 8);
			}
			break;
		case FBINDER_RET_DEAD:
			if (CHANCE(85)) {
				cmd = FBINDER_CMD_DEATH_DONE;
				wl = put(w, wl, sizeof(w), &cmd, 4);
				wl = put(w, wl, sizeof(w), &r.cookie, 8);
			}
			break;
		case FBINDER_RET_SPAWN_LOOPER:
			if (CHANCE(30)) {
				cmd = FBINDER_CMD_REGISTER_LOOPER;
				wl = put(w, wl, sizeof(w), &cmd, 4);
			}
			break;
		default:
			break;
		}
		if (wl) {
			fbt_write_read(fd, w, wl, NULL, NULL, 0, NULL);
			count_op(t);
		}
	}
}

static void op_write_read(struct thr *t)
{
	struct wctx *c = pick_ctx(t);
	int fd = atomic_load(&c->fd);
	struct fbinder_write_read wr = { 0 };
	bool good_read = false;
	size_t wlen;
	int ret;

	t->clean = CHANCE(50);
	wlen = gen_stream(t, c);

	wr.write_buffer = pick_ptr(t, t->wbuf, wlen);
	wr.write_size = CHANCE(85) || t->clean ? wlen : CHANCE(50) ? R(wlen + 1) : pick_size(t, wlen);
	if (!t->clean && CHANCE(5))
		wr.write_consumed = R(wlen + 8);
	switch (t->clean ? 2 + R(4) : R(6)) {
	case 0:
		break;	/* write only */
	case 1:
		wr.read_buffer = pick_ptr(t, t->rbuf, sizeof(t->rbuf));
		wr.read_size = pick_size(t, R(2) ? 68 : sizeof(t->rbuf));
		if (wr.read_size > sizeof(t->rbuf) && wr.read_buffer == (uintptr_t)t->rbuf)
			wr.read_size = sizeof(t->rbuf);
		if (CHANCE(5))
			wr.read_consumed = R(80);
		break;
	default:
		wr.read_buffer = (uintptr_t)t->rbuf;
		wr.read_size = CHANCE(10) ? R(68) : 68 + R(sizeof(t->rbuf) - 67);
		good_read = true;
		break;
	}
	ret = ioctl(fd, FBINDER_IOC_WRITE_READ, CHANCE(3) ? (void *)pick_ptr(t, &wr, 48) : &wr);
	count_op(t);
	atomic_fetch_add_explicit(&sh->wr_errno[ret < 0 && errno < 140 ? errno : 0], 1,
				  memory_order_relaxed);
	t->clean = false;
	if (good_read && wr.read_buffer == (uintptr_t)t->rbuf && wr.read_consumed <= wr.read_size &&
	    wr.read_consumed)
		handle_returns(t, c, fd, wr.read_consumed);
}

static void op_drain(struct thr *t)
{
	struct wctx *c = pick_ctx(t);
	int fd = atomic_load(&c->fd);
	size_t rdone = 0;
	int ret;

	ret = fbt_write_read(fd, NULL, 0, NULL, t->rbuf, sizeof(t->rbuf), &rdone);
	count_op(t);
	if (!ret && rdone <= sizeof(t->rbuf))
		handle_returns(t, c, fd, rdone);
}

/*
 * FBINDER_IOC_INFO with every kind, entry sizes around and off the real
 * ones, now and then a wait for failures (on_kick interrupts it).  The
 * driver writes up to count * entry_size bytes: into scratch, or, with a
 * wild count, only at pointers that cannot be the worker's own memory.
 */
static void op_info(struct thr *t, int fd)
{
	static const __u32 whats[] = {
		FBINDER_INFO_COUNTERS, FBINDER_INFO_CONTEXTS, FBINDER_INFO_NODES,
		FBINDER_INFO_FAILURES, FBINDER_INFO_HANDLES,
	};
	bool wild = !t->clean && CHANCE(10);
	struct fbinder_info in = {
		.what = CHANCE(90) ? whats[R(ARRAY_SIZE(whats))] : R(64),
		.flags = CHANCE(95) ? 0 : CHANCE(50) ? FBINDER_INFO_WAIT : R(4),
		.version = CHANCE(90) ? 0 : (__u32)fbt_rnd64(&t->rng),
		.entry_size = CHANCE(70) ? 8 * R(16) : R(CHANCE(50) ? 256 : 1024),
		.count = wild ? (__u32)fbt_rnd64(&t->rng) : R(8),
		.seq = CHANCE(50) ? 0 : fbt_rnd64(&t->rng),
		.reserved = { CHANCE(95) ? 0 : 1, 0 },
	};
	size_t need = (size_t)in.entry_size * in.count;

	if (wild) {
		static const __u64 bad[] = { 0, 0xffff888000000000ULL, 1, ~0ULL };

		in.entries = CHANCE(50) ? bad[R(ARRAY_SIZE(bad))] :
			     (uintptr_t)atomic_load(&wp.ctx[0].map);
	} else {
		in.entries = (uintptr_t)wp.scratch + R(wp.scratch_size - need + 1);
	}
	/* room behind it: pick_ptr() may misalign it by up to 7 bytes */
	memcpy(t->info_arg, &in, sizeof(in));
	ioctl(fd, FBINDER_IOC_INFO, CHANCE(95) ? (void *)t->info_arg :
	      (void *)(uintptr_t)pick_ptr(t, t->info_arg, sizeof(in)));
}

static void op_ioctl(struct thr *t)
{
	struct wctx *c = pick_ctx(t);
	int fd = CHANCE(90) ? atomic_load(&c->fd) : pick_fd(t, c);
	unsigned char arg[64];
	unsigned long req;
	size_t i;

	for (i = 0; i < sizeof(arg); i++)
		arg[i] = (unsigned char)R(CHANCE(50) ? 2 : 256);
	switch (R(16)) {
	case 14: case 15:
		op_info(t, fd);
		count_op(t);
		return;
	case 10: {	/* a region over scratch, the handle learned */
		struct fbinder_region_create rc = {
			.addr = (uintptr_t)wp.scratch + R(wp.scratch_size / 2),
			.size = CHANCE(90) ? 1 + R(wp.scratch_size / 2) : fbt_rnd64(&t->rng),
			.rights = CHANCE(90) ? pick_rights(t) : R(8),
		};

		if (!ioctl(fd, FBINDER_IOC_REGION_CREATE, &rc))
			learn_handle(c, rc.handle);
		count_op(t);
		return;
	}
	case 11: {
		struct fbinder_region_narrow rn = {
			.handle = pick_handle(t, c), .rights = pick_rights(t),
			.offset = pick_size(t, R(64)), .size = pick_size(t, R(4096)),
			.reserved = CHANCE(95) ? 0 : 1,
		};

		if (!ioctl(fd, FBINDER_IOC_REGION_NARROW, &rn))
			learn_handle(c, rn.new_handle);
		count_op(t);
		return;
	}
	case 8: {	/* freeze or thaw ourselves or a neighbour, briefly */
		struct fbinder_freeze fz = {
			.pid = (__u32)(getpid() + (int)R(3) - 1),
			.enable = CHANCE(45) ? 1 : CHANCE(95) ? 0 : R(4),
			.timeout_ms = CHANCE(95) ? R(20) : (__u32)fbt_rnd64(&t->rng),
			.reserved = CHANCE(95) ? 0 : 1,
		};
		struct fbinder_frozen_info fi = { .pid = fz.pid };

		ioctl(fd, CHANCE(70) ? FBINDER_IOC_FREEZE : FBINDER_IOC_FROZEN_INFO,
		      CHANCE(70) ? (void *)&fz : (void *)&fi);
		count_op(t);
		return;
	}
	case 12: req = FBINDER_IOC_REGION_INFO; break;	/* random struct */
	case 13: {
		__u32 h = pick_handle(t, c);

		ioctl(fd, FBINDER_IOC_REGION_REVOKE, &h);
		count_op(t);
		return;
	}
	case 0: req = FBINDER_IOC_VERSION; break;
	case 1: req = FBINDER_IOC_SET_MAX_THREADS; break;
	case 2: req = FBINDER_IOC_SET_CONTEXT_MGR; break;
	case 3: req = FBINDER_IOC_THREAD_EXIT; break;
	case 4: req = FBINDER_IOC_WAKE_IDLE; break;
	case 5: {	/* a real ioctl with any direction and size */
		unsigned long real = all_iocs[R(ARRAY_SIZE(all_iocs))];

		req = _IOC(R(4), FBINDER_IOC_MAGIC, _IOC_NR(real), R(64));
		break;
	}
	case 6: req = (__u32)fbt_rnd64(&t->rng); break;
	case 7: req = FBINDER_IOC_WRITE_READ; break;	/* random struct */
	default: req = _IOC(R(4), FBINDER_IOC_MAGIC, R(_IOC_NR(FBINDER_IOC_INFO) + 2),
			    sizeof(struct fbinder_write_read)); break;
	}
	if (req == FBINDER_IOC_WRITE_READ) {
		/* random pointers only into scratch (the kernel may write there) */
		struct fbinder_write_read *wr = (void *)arg;

		wr->write_buffer = pick_ptr(t, wp.scratch, 256);
		wr->read_buffer = (uintptr_t)wp.guard - R(256);
		wr->write_size = R(300);
		wr->read_size = R(300);
	}
	ioctl(fd, req, CHANCE(90) ? (void *)arg : (void *)(uintptr_t)pick_ptr(t, arg, 64));
	count_op(t);
}

static void op_mmap(struct thr *t)
{
	struct wctx *c = pick_ctx(t);
	int fd = atomic_load(&c->fd);
	unsigned char *map = atomic_load(&c->map);
	size_t msz = atomic_load(&c->map_size);
	sigjmp_buf jb;
	void *m;

	switch (R(8)) {
	case 0: case 1: case 2: {
		static const size_t sizes[] = { 0, 1, 4096, 4097, 65536, 1 << 20, 17 << 20,
						(size_t)1 << 40 };
		size_t sz = CHANCE(70) ? (size_t)4096 * (1 + R(256)) : sizes[R(8)];
		int prot = CHANCE(70) ? PROT_READ : (int)R(8);
		int flags = CHANCE(50) ? MAP_PRIVATE : CHANCE(70) ? MAP_SHARED : (int)R(0x40);
		off_t off = CHANCE(85) ? 0 : (off_t)4096 * R(4);

		m = mmap(NULL, sz, prot, flags, fd, off);
		if (m != MAP_FAILED) {
			unsigned char *expect = NULL;

			if (atomic_compare_exchange_strong(&c->map, &expect, (unsigned char *)m))
				atomic_store(&c->map_size, sz);
			else if (CHANCE(50))
				munmap(m, sz);	/* else leak it to the process exit */
		}
		break;
	}
	case 3:
		if (map)
			mprotect(map, msz, (int)R(8));
		break;
	case 4:
		if (map)	/* a part: must fail; the whole: it is gone */
			if (!munmap(map + (CHANCE(50) ? 0 : 4096), CHANCE(70) ? 4096 : msz) &&
			    CHANCE(50))
				atomic_store(&c->map, NULL);
		break;
	case 5:
		if (map) {
			m = mremap(map, msz, 4096 * (1 + R(64)), R(2) ? MREMAP_MAYMOVE : 0);
			(void)m;
		}
		break;
	default:
		if (map) {	/* read a random page: SIGBUS/SIGSEGV are fine */
			volatile unsigned char x;

			fault_jmp = &jb;
			if (!sigsetjmp(jb, 1))
				x = map[R(msz)];
			fault_jmp = NULL;
			(void)x;
		}
		break;
	}
	count_op(t);
}

static void open_ctx(struct thr *t, struct wctx *c)
{
	int fd = open(FBT_DEV, O_RDWR | (CHANCE(80) ? O_NONBLOCK : 0) | (CHANCE(50) ? O_CLOEXEC : 0));
	void *m = MAP_FAILED;
	size_t sz = 4096 * (1 + R(CHANCE(50) ? 64 : 512));

	if (fd < 0)
		return;
	if (CHANCE(90))
		m = mmap(NULL, sz, PROT_READ, R(2) ? MAP_PRIVATE : MAP_SHARED, fd, 0);
	atomic_store(&c->map, m == MAP_FAILED ? NULL : (unsigned char *)m);
	atomic_store(&c->map_size, sz);
	atomic_store(&c->fd, fd);
}

static void op_fds(struct thr *t)
{
	struct wctx *c = pick_ctx(t);

	switch (R(6)) {
	case 0: case 1: {	/* close (and forget the mapping: left to exit) */
		int fd = atomic_exchange(&c->fd, -1);

		atomic_store(&c->map, NULL);
		if (fd >= 0)
			close(fd);
		open_ctx(t, c);
		break;
	}
	case 2: {	/* close a random descriptor: maybe one in use */
		int fd = 3 + R(40);

		if (fd != wp.pipefd[0] && fd != wp.pipefd[1] && fd != wp.nullfd)
			close(fd);
		break;
	}
	case 3: {	/* a fork uses the parent's context: EPERM */
		pid_t pid = fork();

		if (pid == 0) {
			struct fbinder_write_read wr = { 0 };
			int fd = atomic_load(&c->fd);

			ioctl(fd, FBINDER_IOC_WRITE_READ, &wr);
			ioctl(fd, FBINDER_IOC_THREAD_EXIT);
			mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
			if (R(2))
				close(fd);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		break;
	}
	case 4: {	/* poll with no wait */
		struct pollfd p = { .fd = atomic_load(&c->fd), .events = POLLIN | POLLOUT };

		poll(&p, 1, 0);
		break;
	}
	default: {	/* descriptors in flight, to someone */
		struct fbinder_object o[3] = {
			{ .type = FBINDER_OBJ_FD, .fd = wp.pipefd[R(2)] },
			{ .type = FBINDER_OBJ_FD, .fd = wp.nullfd, .flags = FBINDER_OBJF_NO_CLOEXEC },
			{ .type = FBINDER_OBJ_FD, .fd = atomic_load(&c->fd) },	/* EINVAL */
		};
		__u64 offs[3] = { 0, 16, 32 };
		struct fbinder_txn_data tx = { .handle = pick_handle(t, c), .flags = FBINDER_TXN_ONEWAY,
				     .data = (uintptr_t)o, .data_size = sizeof(o),
				     .offsets = (uintptr_t)offs, .offsets_count = CHANCE(70) ? 2 : 3 };
		unsigned char w[4 + sizeof(tx)];
		__u32 cmd = FBINDER_CMD_SEND;

		memcpy(w, &cmd, 4);
		memcpy(w + 4, &tx, sizeof(tx));
		fbt_write_read(atomic_load(&c->fd), w, sizeof(w), NULL, NULL, 0, NULL);
		break;
	}
	}
	count_op(t);
}

static void *w_thread(void *arg);

static void spawn_thread(int slot)
{
	pthread_attr_t a;

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&wp.th[slot], &a, w_thread, (void *)(intptr_t)slot))
		wp.th[slot] = 0;
	pthread_attr_destroy(&a);
}

static void *w_thread(void *arg)
{
	static _Atomic unsigned long long gen;
	struct thr *t = malloc(sizeof(*t));
	unsigned long long i;

	if (!t)
		die("malloc");
	memset(t, 0, sizeof(*t));
	t->slot = (int)(intptr_t)arg;
	atomic_store(&wp.tids[t->slot], (pid_t)syscall(SYS_gettid));
	fbt_rng_seed(&t->rng, fbt_mix(seed, 1000 + wp.idx * 1000003ULL +
				      atomic_fetch_add(&gen, 1) * 7919 + t->slot));
	for (i = 0;; i++) {
		unsigned int op = R(100);

		if (op < 40)
			op_write_read(t);
		else if (op < 58)
			op_drain(t);
		else if (op < 70)
			op_ioctl(t);
		else if (op < 80)
			op_mmap(t);
		else if (op < 96)
			op_fds(t);
		else if (i > 50 && op < 97) {	/* this thread goes, another comes */
			if (CHANCE(50))
				ioctl(atomic_load(&pick_ctx(t)->fd), FBINDER_IOC_THREAD_EXIT);
			spawn_thread(t->slot);
			free(t);
			return NULL;
		} else if (op == 99 && CHANCE(2)) {
			_exit(0);	/* the whole process, closing everything */
		}
	}
	return NULL;
}

static int w_main(void *arg)
{
	struct rlimit rl = { 256, 256 };
	struct sigaction sa = { 0 };
	struct thr boot;
	int i;

	wp.idx = (int)(intptr_t)arg;
	fbt_become_nobody();
	fbt_rng_seed(&boot.rng, fbt_mix(seed, 500 + wp.idx));
	setrlimit(RLIMIT_NOFILE, &rl);
	if (nice(3) < 0) {
		/* keep going at the default priority */
	}
	sa.sa_handler = on_fault;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sa.sa_handler = on_kick;
	sa.sa_flags = 0;	/* no SA_RESTART: a blocking wait returns EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(wp.pipefd) < 0)
		die("pipe");
	wp.nullfd = open("/dev/null", O_RDWR);
	wp.scratch_size = 8192;
	wp.scratch = mmap(NULL, wp.scratch_size + 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (wp.scratch == MAP_FAILED)
		die("mmap scratch");
	wp.guard = wp.scratch + wp.scratch_size;
	mprotect(wp.guard, 4096, PROT_NONE);
	for (i = 0; i < NCTX; i++) {
		atomic_store(&wp.ctx[i].fd, -1);
		open_ctx(&boot, &wp.ctx[i]);
	}
	wp.nthreads = (int)fbt_env_ull("FBINDER_FUZZ_THREADS", 3);
	if (wp.nthreads < 1 || wp.nthreads > MAX_THREADS)
		wp.nthreads = 3;
	for (i = 0; i < wp.nthreads; i++)
		spawn_thread(i);
	/* The kicker: interrupt blocking waits so no thread sleeps for good. */
	for (;;) {
		usleep(20000 + 1000 * fbt_rnd(&boot.rng, 30));
		for (i = 0; i < wp.nthreads; i++) {
			pid_t tid = atomic_load(&wp.tids[i]);

			if (tid > 0)
				syscall(SYS_tgkill, getpid(), tid, SIGUSR1);
		}
	}
	return 0;
}

/* ------------------------------------------------------- regressions */

/*
 * Bugs the fuzzer and the fault-injection run found, replayed first as
 * plain deterministic checks.
 *
 * 1. A reply that failed before it found its call (flags set, too many
 *    objects, or no memory for the transaction: failslab) left the call on
 *    the replier's stack: the caller waited for good, and the replier's
 *    next reply answered the stale call.  Now every failed reply ends the
 *    call: the caller gets FBINDER_RET_FAILED with the reply's error.
 */
enum { REG_BADFLAGS = 100, REG_TOOMANY, REG_OK };

static int reg_pipe;

static int reg_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct fbinder_txn_data tx = { 0 };
	struct fbt_w w;
	int res[2];

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (r->msg.code == REG_OK) {
		fbt_reply(p, &r->msg, 0, "ok", 2, NULL, 0);
		return 1;
	}
	if (r->msg.code == REG_BADFLAGS)
		tx.flags = FBINDER_TXN_ONEWAY;
	else
		tx.offsets_count = 4097;
	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_REPLY, &tx, sizeof(tx));
	res[0] = fbt_wr(p, &w, NULL, false);
	/* the call is over: a second reply has nothing to answer */
	fbt_w_reset(&w);
	fbt_w_reply(&w, 0, NULL, 0, NULL, 0);
	res[1] = fbt_wr(p, &w, NULL, false);
	fbt_free_buffer(p, r->msg.data);
	if (write(reg_pipe, res, sizeof(res)) != sizeof(res))
		die("write");
	return 0;
}

static int reg_server(struct fbt_ctx *p, void *arg)
{
	reg_pipe = *(int *)arg;
	return fbt_serve(p, reg_handle, NULL) ? 1 : 0;
}

/* A call that must end (reply or failure) within 5 s. */
static int reg_call(struct fbt_ctx *c, __u32 code, struct fbt_ret *r)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	struct fbt_w w;
	int ret;

	fbt_w_reset(&w);
	fbt_w_send(&w, 0, code, 0, NULL, 0, NULL, 0);
	ret = fbt_wr(c, &w, NULL, false);
	if (ret)
		return ret;
	if (poll(&pfd, 1, 5000) != 1) {
		fbt_w_reset(&w);
		fbt_w_cmd(&w, FBINDER_CMD_ABANDON, NULL, 0);
		fbt_wr(c, &w, NULL, false);
		return -ETIMEDOUT;
	}
	return fbt_next(c, r);
}

static void regressions(void)
{
	static const struct { __u32 code; int err; const char *what; } cases[] = {
		{ REG_BADFLAGS, EINVAL, "reply with flags" },
		{ REG_TOOMANY, EMSGSIZE, "reply with 4097 objects" },
	};
	struct fbt_ctx c;
	struct fbt_ret r;
	int pfd[2], res[2], ret;
	size_t i;
	pid_t pid;

	if (pipe(pfd) < 0)
		die("pipe");
	pid = fbt_spawn_manager(MB, 0x7e9, reg_server, &pfd[1]);
	close(pfd[1]);
	fbt_ctx_open(&c, MB);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ret = reg_call(&c, cases[i].code, &r);
		CHECK(ret == 0 && r.cmd == FBINDER_RET_FAILED && r.err.error == -cases[i].err,
		      "regression 1, %s: caller got %s %s error %d, want FBINDER_RET_FAILED -%s",
		      cases[i].what, strerror(-ret), fbt_ret_name(r.cmd), r.err.error,
		      strerror(cases[i].err));
		if (read(pfd[0], res, sizeof(res)) != sizeof(res))
			die("read");
		CHECK(res[0] == -cases[i].err && res[1] == -EPROTO,
		      "regression 1, %s: replier got %s then %s, want %s then EPROTO",
		      cases[i].what, strerror(-res[0]), strerror(-res[1]),
		      strerror(cases[i].err));
	}
	ret = reg_call(&c, REG_OK, &r);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY && r.msg.data_size == 2,
	      "regression 1: a good call afterwards: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	fbt_ctx_close(&c);
	CHECK(fbt_wait(pid) == 0, "regression server exit");
	close(pfd[0]);
	printf("# regressions replayed\n");
}

/* ------------------------------------------------------------- parent */

static pid_t spawn_worker(int idx)
{
	return fbt_fork(w_main, (void *)(intptr_t)idx);
}

int main(void)
{
	unsigned long long secs = fbt_env_ull("FBINDER_FUZZ_SECONDS", 20);
	int nproc = (int)fbt_env_ull("FBINDER_FUZZ_PROCS", 4);
	long long stall_ms = (long long)(15000 * (fbt_scale() < 1 ? 1 / fbt_scale() : 1));
	unsigned long long total = 0, kills = 0, exits = 0, calls;
	pid_t mpid, vspid, cpid, w[MAX_PROCS];
	long long start, end, now, last;
	struct fbt_rng rng;
	int i, st;

	if (nproc < 1 || nproc > MAX_PROCS)
		nproc = 4;
	regressions();
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts after the regressions");
	seed = fbt_seed("FBINDER_FUZZ_SEED");
	printf("# fuzz_ioctl: seed %llu (replay: FBINDER_FUZZ_SEED=%llu), %llu s, %d processes x %llu threads\n",
	       (unsigned long long)seed, (unsigned long long)seed, secs, nproc,
	       fbt_env_ull("FBINDER_FUZZ_THREADS", 3));
	fflush(stdout);
	fbt_rng_seed(&rng, seed);
	token = fbt_rnd64(&rng) | 1;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap shared");
	memset(sh, 0, sizeof(*sh));
	signal(SIGPIPE, SIG_IGN);

	mpid = fbt_spawn_manager_ex(8 * MB, MGR_COOKIE, FBT_MGR_FDS, m_main, NULL);
	vspid = fbt_fork(vs_main, NULL);
	cpid = fbt_fork(c_main, NULL);
	for (i = 0; i < nproc; i++)
		w[i] = spawn_worker(i);

	start = fbt_now_ms();
	end = start + (long long)secs * 1000;
	last = start;
	while ((now = fbt_now_ms()) < end) {
		long long lv = atomic_load(&sh->valid_last_ms);
		pid_t pid;

		usleep(50000 + 1000 * fbt_rnd(&rng, 300));
		/* Workers that exited on their own (or crashed) come back. */
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			if (pid == mpid || pid == vspid || pid == cpid) {
				CHECK(0, "%s (pid %d) died: status 0x%x",
				      pid == mpid ? "M" : pid == vspid ? "VS" : "C", (int)pid, st);
				if (pid == mpid)
					mpid = 0;
				else if (pid == vspid)
					vspid = 0;
				else
					cpid = 0;
				goto out;
			}
			for (i = 0; i < nproc; i++)
				if (w[i] == pid) {
					if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
						CHECK(0, "worker %d exited with %d", i, WEXITSTATUS(st));
					exits++;
					w[i] = spawn_worker(i);
				}
		}
		if (fbt_rnd(&rng, 3) == 0) {
			i = (int)fbt_rnd(&rng, nproc);
			kill(w[i], SIGKILL);
			kills++;
		}
		if (lv && now - lv > stall_ms) {
			CHECK(0, "valid traffic stalled: no reply for %lld ms", now - lv);
			break;
		}
		if (!lv && now - start > stall_ms) {
			CHECK(0, "valid traffic never started");
			break;
		}
		if (now - last >= 5000) {
			unsigned long long ops = 0;

			for (i = 0; i < nproc; i++)
				ops += atomic_load(&sh->ops[i]);
			printf("# %lld s: %llu fuzz ops, %llu valid calls, %llu kills\n",
			       (now - start) / 1000, ops, (unsigned long long)atomic_load(&sh->valid_calls),
			       kills);
			fflush(stdout);
			last = now;
		}
	}
out:
	now = fbt_now_ms();
	for (i = 0; i < nproc; i++)
		kill(w[i], SIGKILL);
	for (i = 0; i < nproc; i++)
		fbt_wait(w[i]);
	atomic_store(&sh->stop_valid, 1);
	if (cpid) {
		long long deadline = fbt_now_ms() + stall_ms;

		while (waitpid(cpid, &st, WNOHANG) == 0 && fbt_now_ms() < deadline)
			usleep(20000);
		if (fbt_now_ms() >= deadline) {
			CHECK(0, "valid client did not finish its last call");
			kill(cpid, SIGKILL);
			fbt_wait(cpid);
		} else {
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "valid client: status 0x%x", st);
		}
	}
	if (vspid) {
		kill(vspid, SIGKILL);
		fbt_wait(vspid);
	}
	if (mpid) {
		kill(mpid, SIGKILL);
		fbt_wait(mpid);
	}

	for (i = 0; i < nproc; i++)
		total += atomic_load(&sh->ops[i]);
	calls = atomic_load(&sh->valid_calls);
	printf("# fuzz ops: %llu in %.1f s = %.0f ops/s; %llu returns handled; %llu kills, %llu exits\n",
	       total, (now - start) / 1000.0, total * 1000.0 / (double)(now - start + 1),
	       (unsigned long long)atomic_load(&sh->fuzz_msgs), kills, exits);
	printf("# valid calls: %llu correct (%.0f/s), %llu wrong\n", calls,
	       calls * 1000.0 / (double)(now - start + 1),
	       (unsigned long long)atomic_load(&sh->valid_errors));
	printf("# fuzzed WRITE_READ results:");
	for (i = 0; i < 140; i++)
		if (sh->wr_errno[i])
			printf(" %s %llu;", i ? strerror(i) : "ok",
			       (unsigned long long)sh->wr_errno[i]);
	printf("\n");
	CHECK(atomic_load(&sh->valid_errors) == 0, "valid traffic failed: %s (seed %llu)",
	      sh->valid_msg, (unsigned long long)seed);
	CHECK(calls > 0, "no valid call completed");
	CHECK(!atomic_load(&sh->bad_worker), "a worker saw a malformed read stream");
	CHECK(fbt_wait_live_zero(10000) == 0, "live counts did not return to zero (seed %llu)",
	      (unsigned long long)seed);
	if (fbt_failures)
		printf("# replay: FBINDER_FUZZ_SEED=%llu\n", (unsigned long long)seed);
	return fbt_done();
}
