// SPDX-License-Identifier: MIT
/*
 * proto_mmap: the receive buffer is mapped once, read-only, within
 * max_map_size, and only its owner process may use the context.
 * mprotect() to writable is EACCES; a write to the mapping is SIGSEGV,
 * a read of a page no message occupies SIGBUS.
 */
#include "fbproto.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB (1024 * 1024)

static size_t max_map_size(void)
{
	char *s = fbp_slurp("/sys/module/fastbinder/parameters/max_map_size");
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
		fd = fb_open();
		m = try_map(fd, MB, PROT_READ, flags[i]);
		CHECK(m != MAP_FAILED, "PROT_READ %s map of 1 MiB: %s",
		      i ? "MAP_SHARED" : "MAP_PRIVATE", strerror(errno));
		if (m != MAP_FAILED)
			munmap(m, MB);
		close(fd);
	}

	fd = fb_open();
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
	int fd = fb_open();
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
	int fd = fb_open();
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
	int fd = fb_open();
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
	int fd = fb_open();
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
	static struct fbp a, b;
	static const char hello[] = "populated page";
	struct fbp_ret r;
	volatile char *p;
	int ret;

	(void)arg;
	fbp_open(&a, MB);
	fbp_open(&b, MB);
	ret = fbp_set_mgr(a.fd, 0xa11ce);
	if (ret)
		return 10;
	fb_become_nobody();	/* root only to claim handle 0 */
	if (fbp_oneway(&b, 0, 1, hello, sizeof(hello), NULL, 0))
		return 11;
	if (fbp_next(&a, &r) || r.cmd != FB_RET_TRANSACTION)
		return 12;
	p = (volatile char *)fbp_data(&a, &r.msg);
	if (memcmp((const char *)p, hello, sizeof(hello)))
		return 13;
	p[0] = 'X';	/* must fault */
	return 0;
}

static int write_to_idle_mapping(void *arg)
{
	void *m;
	int fd = fb_open();

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
	int fd = fb_open();

	(void)arg;
	m = try_map(fd, MB, PROT_READ, MAP_SHARED);
	if (m == MAP_FAILED)
		return 10;
	return m[3 * 4096 + 5] == 0x7f ? 11 : 12;	/* must fault */
}

static void test_read_sigbus(void)
{
	int st = fb_wait(fb_fork(read_idle_mapping, NULL));

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
	int st = fb_wait(fb_fork(write_to_idle_mapping, NULL));

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
	struct fb_version v;
	__u32 max = 1;

	ret = ioctl(fd, FB_IOC_VERSION, &v);
	if (!(ret < 0 && errno == EPERM)) {
		printf("not ok: FB_IOC_VERSION from another process: %d (%s), want EPERM\n",
		       ret, ret < 0 ? strerror(errno) : "success");
		bad = 1;
	}
	ret = fb_write_read(fd, NULL, 0, NULL, NULL, 0, NULL);
	if (ret != -EPERM) {
		printf("not ok: WRITE_READ from another process: %s, want EPERM\n",
		       strerror(-ret));
		bad = 1;
	}
	ret = ioctl(fd, FB_IOC_SET_MAX_THREADS, &max);
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
	struct fbp p;
	struct fb_version v;
	int st;

	fbp_open(&p, MB);
	st = fb_wait(fb_fork(other_process, &p.fd));
	CHECK(st == 0, "forked child could use its parent's context (status %d)", st);
	/* The owner still can. */
	CHECK(ioctl(p.fd, FB_IOC_VERSION, &v) == 0 && v.abi_version == FB_ABI_VERSION,
	      "owner's FB_IOC_VERSION after the child's attempts: %s", strerror(errno));
	fbp_close(&p);
	printf("# ioctls from another process refused with EPERM\n");
}

int main(void)
{
	/* the only step that needs root: it claims handle 0, then drops */
	int populated = fb_wait(fb_fork(write_to_mapping, NULL));

	fb_become_nobody();
	test_readonly_map();
	test_writable_map_refused();
	test_mprotect_refused();
	test_second_map_busy();
	test_oversize_map();
	test_write_segv(populated);
	test_read_sigbus();
	test_other_process_eperm();
	return fb_done();
}
