// SPDX-License-Identifier: MIT
/*
 * buffer_mapping: the receive buffer is mapped once, read-only, within
 * max_map_size, and only its owner process may use the context.
 * mprotect() to writable is EACCES; a write to the mapping is SIGSEGV,
 * a read of a page no message occupies SIGBUS.  Those run as uid 65534
 * (fbt_become_nobody(), in a child of the root test).
 *
 * Then the shrinker against munmap and exit (docs/security.md, G1): root
 * empties the driver's page cache again and again (drop_caches) while
 * unprivileged workers fill their buffers with replies, free them (their
 * pages stay mapped, cached on the lru), and unmap the buffer or exit with
 * it mapped.  Every reply must read back exactly what was sent (a page the
 * shrinker freed but left mapped would show stale bytes), and the kernel
 * must stay quiet (the suite fails on any oops, KASAN or lockdep report).
 * First, once and in order: a cached page the shrinker took is unmapped
 * (reading it raises SIGBUS), in each of several contexts after one
 * drop_caches.
 */
#include "fbt_proto.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB (1024 * 1024)

static size_t max_map_size(void)
{
	char *s = fbt_slurp("/sys/module/fastbinder/parameters/max_map_size");
	size_t v = 16 * MB;

	if (s && *s)
		v = strtoull(s, NULL, 0);
	free(s);
	return v;
}

static void *try_map(int fd, size_t size, int prot, int flags)
{
	return mmap(NULL, size, prot, flags, fd, 0);
}

#define EXPECT_MAP_FAIL(p, want, what)                                          \
	CHECK((p) == MAP_FAILED && errno == (want),                            \
	      "%s: got %s, want %s", what,                                     \
	      (p) == MAP_FAILED ? strerror(errno) : "a mapping", strerror(want))

/* A read-only mapping works, MAP_PRIVATE and MAP_SHARED alike, up to max_map_size. */
static void test_readonly_map(void)
{
	size_t max = max_map_size();
	int flags[2] = { MAP_PRIVATE, MAP_SHARED };
	void *m;
	int i, fd;

	for (i = 0; i < 2; i++) {
		fd = fbt_open();
		m = try_map(fd, MB, PROT_READ, flags[i]);
		CHECK(m != MAP_FAILED, "PROT_READ %s map of 1 MiB: %s",
		      i ? "MAP_SHARED" : "MAP_PRIVATE", strerror(errno));
		if (m != MAP_FAILED)
			munmap(m, MB);
		close(fd);
	}

	fd = fbt_open();
	m = try_map(fd, max, PROT_READ, MAP_PRIVATE);
	CHECK(m != MAP_FAILED, "map of exactly max_map_size (%zu): %s", max,
	      strerror(errno));
	if (m != MAP_FAILED)
		munmap(m, max);
	close(fd);
	printf("# read-only maps of 1 MiB and %zu bytes work\n", max);
}

/* Writable mappings are refused with EPERM, and the refusal uses up nothing. */
static void test_writable_map_refused(void)
{
	int fd = fbt_open();
	void *m;

	m = try_map(fd, MB, PROT_READ | PROT_WRITE, MAP_SHARED);
	EXPECT_MAP_FAIL(m, EPERM, "PROT_READ|PROT_WRITE MAP_SHARED");
	m = try_map(fd, MB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	EXPECT_MAP_FAIL(m, EPERM, "PROT_READ|PROT_WRITE MAP_PRIVATE");
	m = try_map(fd, MB, PROT_WRITE, MAP_SHARED);
	EXPECT_MAP_FAIL(m, EPERM, "PROT_WRITE MAP_SHARED");

	m = try_map(fd, MB, PROT_READ, MAP_PRIVATE);
	CHECK(m != MAP_FAILED, "read-only map after refused writable maps: %s",
	      strerror(errno));
	if (m != MAP_FAILED)
		munmap(m, MB);
	close(fd);
	printf("# writable maps refused with EPERM\n");
}

/* mprotect() cannot make the mapping writable (or executable-writable). */
static void test_mprotect_refused(void)
{
	int fd = fbt_open();
	void *m = try_map(fd, MB, PROT_READ, MAP_SHARED);
	int ret;

	if (m == MAP_FAILED)
		die("mmap");
	ret = mprotect(m, MB, PROT_READ | PROT_WRITE);
	CHECK(ret < 0 && errno == EACCES,
	      "mprotect(PROT_READ|PROT_WRITE) returned %d (%s), want EACCES",
	      ret, ret < 0 ? strerror(errno) : "success");
	ret = mprotect(m, 4096, PROT_WRITE);
	CHECK(ret < 0 && errno == EACCES, "mprotect(PROT_WRITE) of one page: %d (%s), want EACCES",
	      ret, ret < 0 ? strerror(errno) : "success");
	munmap(m, MB);
	close(fd);
	printf("# mprotect to writable refused\n");
}

/* A context maps its buffer once: a second mmap is EBUSY, even of another size. */
static void test_second_map_busy(void)
{
	int fd = fbt_open();
	void *m1 = try_map(fd, MB, PROT_READ, MAP_PRIVATE), *m2;

	CHECK(m1 != MAP_FAILED, "first map: %s", strerror(errno));
	m2 = try_map(fd, MB, PROT_READ, MAP_PRIVATE);
	EXPECT_MAP_FAIL(m2, EBUSY, "second mmap of the same context");
	m2 = try_map(fd, 64 * 1024, PROT_READ, MAP_SHARED);
	EXPECT_MAP_FAIL(m2, EBUSY, "second mmap, other size");
	if (m1 != MAP_FAILED)
		munmap(m1, MB);
	close(fd);
	printf("# second mmap refused with EBUSY\n");
}

/* A mapping over max_map_size is EINVAL, and the context can still map within it. */
static void test_oversize_map(void)
{
	size_t max = max_map_size();
	int fd = fbt_open();
	void *m;

	m = try_map(fd, max + 4096, PROT_READ, MAP_PRIVATE);
	EXPECT_MAP_FAIL(m, EINVAL, "mmap of max_map_size + 1 page");
	m = try_map(fd, 2 * max, PROT_READ, MAP_PRIVATE);
	EXPECT_MAP_FAIL(m, EINVAL, "mmap of twice max_map_size");
	m = try_map(fd, MB, PROT_READ, MAP_PRIVATE);
	CHECK(m != MAP_FAILED, "1 MiB map after refused oversize maps: %s",
	      strerror(errno));
	if (m != MAP_FAILED)
		munmap(m, MB);
	close(fd);
	printf("# oversize mmap refused with EINVAL\n");
}

/*
 * In a child: context A is the manager, B sends it a oneway message, A
 * reads it (the page is now populated), then writes to it: SIGSEGV.
 */
static int write_to_mapping(void *arg)
{
	static struct fbt_ctx a, b;
	static const char hello[] = "populated page";
	struct fbt_ret r;
	volatile char *p;
	int ret;

	(void)arg;
	fbt_ctx_open(&a, MB);
	fbt_ctx_open(&b, MB);
	ret = fbt_set_mgr(a.fd, 0xa11ce);
	if (ret)
		return 10;
	fbt_become_nobody();	/* root only to claim handle 0 */
	if (fbt_oneway(&b, 0, 1, hello, sizeof(hello), NULL, 0))
		return 11;
	if (fbt_next(&a, &r) || r.cmd != FBINDER_RET_TRANSACTION)
		return 12;
	p = (volatile char *)fbt_data(&a, &r.msg);
	if (memcmp((const char *)p, hello, sizeof(hello)))
		return 13;
	p[0] = 'X';	/* must fault */
	return 0;
}

static int write_to_idle_mapping(void *arg)
{
	void *m;
	int fd = fbt_open();

	(void)arg;
	m = try_map(fd, MB, PROT_READ, MAP_SHARED);
	if (m == MAP_FAILED)
		return 10;
	((volatile char *)m)[8192] = 1;	/* must fault */
	return 0;
}

/* A read of a page no message occupies: SIGBUS (nothing is mapped there). */
static int read_idle_mapping(void *arg)
{
	volatile const char *m;
	int fd = fbt_open();

	(void)arg;
	m = try_map(fd, MB, PROT_READ, MAP_SHARED);
	if (m == MAP_FAILED)
		return 10;
	return m[3 * 4096 + 5] == 0x7f ? 11 : 12;	/* must fault */
}

static void test_read_sigbus(void)
{
	int st = fbt_wait(fbt_fork(read_idle_mapping, NULL));

	CHECK(st == 128 + SIGBUS,
	      "read of an unfilled page: child status %d, want killed by SIGBUS (%d)", st,
	      128 + SIGBUS);
	printf("# a read of an unfilled page raises SIGBUS\n");
}

/*
 * A write to the mapping kills the writer with SIGSEGV, populated page or
 * not.  populated: the status of write_to_mapping(), run first as root.
 */
static void test_write_segv(int populated)
{
	int st = fbt_wait(fbt_fork(write_to_idle_mapping, NULL));

	CHECK(st == 128 + SIGSEGV,
	      "write to an idle mapping: child status %d, want killed by SIGSEGV (%d)",
	      st, 128 + SIGSEGV);
	st = populated;
	CHECK(st == 128 + SIGSEGV,
	      "write to a received message: child status %d, want killed by SIGSEGV (%d)",
	      st, 128 + SIGSEGV);
	printf("# writes to the mapping fault\n");
}

static int other_process(void *arg)
{
	int fd = *(int *)arg, ret, bad = 0;
	struct fbinder_version v;
	__u32 max = 1;

	ret = ioctl(fd, FBINDER_IOC_VERSION, &v);
	if (!(ret < 0 && errno == EPERM)) {
		printf("not ok: FBINDER_IOC_VERSION from another process: %d (%s), want EPERM\n",
		       ret, ret < 0 ? strerror(errno) : "success");
		bad = 1;
	}
	ret = fbt_write_read(fd, NULL, 0, NULL, NULL, 0, NULL);
	if (ret != -EPERM) {
		printf("not ok: WRITE_READ from another process: %s, want EPERM\n",
		       strerror(-ret));
		bad = 1;
	}
	ret = ioctl(fd, FBINDER_IOC_SET_MAX_THREADS, &max);
	if (!(ret < 0 && errno == EPERM)) {
		printf("not ok: SET_MAX_THREADS from another process: %d (%s), want EPERM\n",
		       ret, ret < 0 ? strerror(errno) : "success");
		bad = 1;
	}
	fflush(stdout);
	return bad;
}

/* Every ioctl on a context from a process other than its owner (a forked child) is EPERM. */
static void test_other_process_eperm(void)
{
	struct fbt_ctx p;
	struct fbinder_version v;
	int st;

	fbt_ctx_open(&p, MB);
	st = fbt_wait(fbt_fork(other_process, &p.fd));
	CHECK(st == 0, "forked child could use its parent's context (status %d)", st);
	/* The owner still can. */
	CHECK(ioctl(p.fd, FBINDER_IOC_VERSION, &v) == 0 && v.abi_version == FBINDER_ABI_VERSION,
	      "owner's FBINDER_IOC_VERSION after the child's attempts: %s", strerror(errno));
	fbt_ctx_close(&p);
	printf("# ioctls from another process refused with EPERM\n");
}

static int mapping_tests(void *arg)
{
	/* the only step that needs root: it claims handle 0, then drops */
	int populated = fbt_wait(fbt_fork(write_to_mapping, NULL));

	(void)arg;
	if (geteuid() == 0)
		fbt_become_nobody();
	test_readonly_map();
	test_writable_map_refused();
	test_mprotect_refused();
	test_second_map_busy();
	test_oversize_map();
	test_write_segv(populated);
	test_read_sigbus();
	test_other_process_eperm();
	return fbt_done();
}

/* ---- the shrinker against munmap and exit ---- */

#define SHRINK_MS	3000
#define SHRINK_WORKERS	3
#define FILL_MAX	(16 * 4096)

enum { C_FILL = 1 };

struct fill_req {
	__u32 size;
	__u32 seed;
};

/* The manager answers C_FILL with size bytes of the seed's pattern. */
static int fill_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	static unsigned char buf[FILL_MAX];
	struct fill_req req;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION || (r->msg.flags & FBINDER_TXN_ONEWAY))
		return 0;
	memset(&req, 0, sizeof(req));
	if (r->msg.data_size == sizeof(req))
		memcpy(&req, fbt_data(p, &r->msg), sizeof(req));
	if (req.size > FILL_MAX)
		req.size = 0;
	fbt_fill(buf, req.size, req.seed);
	return fbt_reply(p, &r->msg, 0, buf, req.size, NULL, 0) ? -1 : 0;
}

static int fill_manager(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	return fbt_serve(p, fill_handler, NULL) ? 1 : 0;
}

/* Root: run the shrinker over and over until killed. */
static int dropper(void *arg)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	(void)arg;
	if (fd < 0)
		die("open drop_caches");
	for (;;)
		if (pwrite(fd, "2", 1, 0) != 1)
			die("write drop_caches");
}

/*
 * Unprivileged: a few buffers in turn, each filled with replies that are
 * read and freed (their pages stay mapped and cached), then unmapped while
 * the shrinker runs; the last one stays mapped when the worker exits.
 */
static int shrink_worker(void *arg)
{
	unsigned int round = (unsigned int)(uintptr_t)arg, i, k;
	struct fill_req req;
	struct fbt_ret reply;
	struct fbt_ctx p;
	long bad;
	int ret;

	fbt_become_nobody();
	for (i = 0; i < 4; i++) {
		fbt_ctx_open(&p, MB);
		for (k = 0; k < 6; k++) {
			req.size = 4096 * (1 + (round * 7 + i * 5 + k * 3) % 16) - 8 * k;
			req.seed = round << 16 | i << 8 | k;
			ret = fbt_call(&p, 0, C_FILL, &req, sizeof(req), NULL, 0,
				       &reply, NULL, NULL);
			CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "fill: %s %s",
			      strerror(-ret), fbt_ret_name(reply.cmd));
			if (ret || reply.cmd != FBINDER_RET_REPLY)
				break;
			CHECK(reply.msg.data_size == req.size, "fill size %llu, expected %u",
			      (unsigned long long)reply.msg.data_size, req.size);
			bad = fbt_verify(fbt_data(&p, &reply.msg), req.size, req.seed);
			CHECK(bad < 0, "reply byte %ld differs from what was sent", bad);
			CHECK(fbt_free_buffer(&p, reply.msg.data) == 0, "free");
		}
		if (i == 3)
			break;		/* exit with it mapped */
		if (i & 1) {
			fbt_ctx_close(&p);	/* munmap, then close */
		} else {
			CHECK(close(p.fd) == 0, "close");	/* close, then munmap */
			munmap((void *)p.map, p.map_size);
		}
	}
	return fbt_child_status();
}

static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	siglongjmp(bus_jmp, sig);
}

#define N_RECLAIMED	6	/* workers whose cached pages one drop_caches takes */

/* Fills 16 pages, frees them, lets root drop caches, reads one: SIGBUS. */
static int reclaimed_worker(void *arg)
{
	int *sync = arg;	/* [0] to root, [1] from root */
	struct fill_req req = { .size = FILL_MAX, .seed = 77 };
	volatile const unsigned char *m;
	struct fbt_ret reply;
	struct fbt_ctx p;
	char c = 'f';
	int sig;

	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	if (fbt_call(&p, 0, C_FILL, &req, sizeof(req), NULL, 0, &reply, NULL, NULL) ||
	    reply.cmd != FBINDER_RET_REPLY || reply.msg.data != 0)
		die("fill");
	CHECK(fbt_verify(fbt_data(&p, &reply.msg), req.size, req.seed) < 0, "fill content");
	CHECK(fbt_free_buffer(&p, reply.msg.data) == 0, "free");
	if (write(sync[0], &c, 1) != 1 || read(sync[1], &c, 1) != 1)
		die("sync with root");
	m = p.map;
	signal(SIGBUS, on_bus);
	sig = sigsetjmp(bus_jmp, 1);
	if (!sig)
		c = m[8 * 4096];
	CHECK(sig == SIGBUS,
	      "a cached page read after the shrinker ran: %s, expected SIGBUS",
	      sig ? strsignal(sig) : "still mapped");
	signal(SIGBUS, SIG_DFL);
	fbt_ctx_close(&p);
	return fbt_child_status();
}

/*
 * Several workers, so one drop_caches must reach every context's own lru
 * (the shrinker walks the mapped contexts in turn), not only the first.
 */
static void test_shrink_unmaps(void)
{
	int to_root[2], from_root[2], sync[2], i;
	pid_t mgr, w[N_RECLAIMED];
	char c[N_RECLAIMED];

	mgr = fbt_spawn_manager(MB, 0xf110, fill_manager, NULL);
	if (pipe(to_root) || pipe(from_root))
		die("pipe");
	sync[0] = to_root[1];
	sync[1] = from_root[0];
	for (i = 0; i < N_RECLAIMED; i++)
		w[i] = fbt_fork(reclaimed_worker, sync);
	for (i = 0; i < N_RECLAIMED; i++)
		if (read(to_root[0], &c[i], 1) != 1)
			die("worker did not fill");
	fbt_drop_caches();
	if (write(from_root[1], c, N_RECLAIMED) != N_RECLAIMED)
		die("tell workers");
	for (i = 0; i < N_RECLAIMED; i++)
		CHECK(fbt_wait(w[i]) == 0, "the shrinker did not unmap worker %d's cached page", i);
	close(to_root[0]);
	close(to_root[1]);
	close(from_root[0]);
	close(from_root[1]);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	printf("# a cached page the shrinker took is unmapped (SIGBUS), in each of %d contexts\n",
	       N_RECLAIMED);
}

static void test_shrink_race(void)
{
	unsigned int round = 0, i, runs = 0;
	pid_t mgr, drop, w[SHRINK_WORKERS];
	long long end;

	mgr = fbt_spawn_manager(MB, 0xf111, fill_manager, NULL);
	drop = fbt_fork(dropper, NULL);
	end = fbt_now_ms() + SHRINK_MS;
	while (fbt_now_ms() < end) {
		for (i = 0; i < SHRINK_WORKERS; i++)
			w[i] = fbt_fork(shrink_worker, (void *)(uintptr_t)round++);
		for (i = 0; i < SHRINK_WORKERS; i++)
			CHECK(fbt_wait(w[i]) == 0, "shrink worker failed");
		runs++;
	}
	kill(drop, SIGKILL);
	fbt_wait(drop);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	printf("# %u rounds of %d workers unmapped and exited while drop_caches ran the shrinker\n",
	       runs, SHRINK_WORKERS);
}

int main(void)
{
	if (geteuid() != 0) {
		CHECK(mapping_tests(NULL) == 0, "the mapping checks failed");
		fbt_skip("not root: the shrinker race needs drop_caches");
		return fbt_done();
	}
	CHECK(fbt_wait(fbt_fork(mapping_tests, NULL)) == 0,
	      "the mapping checks (as uid %d) failed", FBT_NOBODY_UID);
	test_shrink_unmaps();
	test_shrink_race();
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
