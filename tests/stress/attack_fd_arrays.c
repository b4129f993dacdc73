// SPDX-License-Identifier: MIT
/*
 * attack_fd_arrays: malformed descriptor arrays (FBINDER_OBJ_FDA,
 * docs/security.md G9), from uid 65534 to a root service that accepts
 * descriptors (root to see its own context in FBINDER_IOC_INFO, as
 * attack_gather_lists).  Each is a call that must fail with its errno,
 * consume nothing of the write stream and queue nothing: an array reaching
 * past its buffer or starting after it, misaligned, a count whose size
 * wraps 32 bits, a parent that is no buffer object, the array's own object,
 * a later object or none, an array over an object, over or before the
 * previous array, unknown flags, more descriptors than FBINDER_MAX_FDS
 * (in one array, and with a single descriptor before or after it), a bad
 * or a fastbinder descriptor in the middle of the array, and an array to
 * an object that takes no descriptors.  Every good descriptor in those
 * arrays is the write end of a fresh pipe: once the attacker closes its
 * own, the read end sees EOF, so the refused send kept no reference.
 * After each, a ping finds that the service received none of them, that
 * its buffer holds the ping alone and that its descriptor table is as it
 * was (nothing installed).  A reply carrying an array to a call that
 * accepts no descriptors fails that call with EPERM.
 */
#include "fbt_proto.h"

#include <dirent.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0xfdaa7ULL
#define NOFD_COOKIE	0x70fdULL
#define C_BAD		66	/* must never arrive */
#define C_PING		1
#define C_GET_NOFD	2
#define C_BAD_REPLY	3
#define C_END		4
#define DATA		2048
#define BUF		256	/* the buffer of most attacks: 64 bytes here */

/* A reply of an array of one of our descriptors, to a call that takes none. */
static void bad_reply(struct fbt_ctx *p, const struct fbt_ret *r)
{
	struct {
		struct fbinder_ptr_object buf;
		struct fbinder_fda_object a;
		__s32 arr[2];
	} d = {
		.buf = { .type = FBINDER_OBJ_PTR, .length = 8, .ptr = 32 },
		.a = { .type = FBINDER_OBJ_FDA, .count = 1 },
		.arr = { 0, 0 },	/* our stdin */
	};
	__u64 offs[2] = { 0, 16 };
	int ret;

	ret = fbt_reply(p, &r->msg, 0, &d, sizeof(d), offs, 2);
	CHECK(ret == -EPERM, "S: a reply with an array to a call without descriptors: %s, "
	      "want EPERM", strerror(-ret));
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	struct fbinder_object nofd = { .type = FBINDER_OBJ_LOCAL, .cookie = NOFD_COOKIE };
	__u32 queued = 0, buffers = 0, pings = 0;
	__u64 off = 0;
	int start = -1, now;
	struct fbt_ret r;
	int ret;

	(void)arg;
	alarm(60);
	for (;;) {
		if (fbt_next(p, &r))
			die("S: read");
		if (r.cmd != FBINDER_RET_TRANSACTION)
			continue;
		switch (r.msg.code) {
		case C_PING:
			/* nothing rejected reached us: only this ping, no descriptor */
			ret = fbt_own_queue(p->fd, &queued, &buffers);
			now = fbt_count_fds(0);
			if (start < 0)
				start = now;
			CHECK(ret == 0 && queued == 0 && buffers == 1 && now == start,
			      "S: at ping %u: %s, %u queued, %u slots in use, %d descriptors; "
			      "want 0, 1, %d", pings, strerror(-ret), queued, buffers, now, start);
			pings++;
			CHECK(fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "S: reply");
			break;
		case C_GET_NOFD:
			/* an object of ours that takes no descriptors */
			CHECK(fbt_reply(p, &r.msg, 0, &nofd, sizeof(nofd), &off, 1) == 0,
			      "S: reply with the object");
			break;
		case C_BAD_REPLY:
			bad_reply(p, &r);
			break;
		case C_END:
			CHECK(fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "S: reply");
			printf("# S: %u pings, no rejected message or descriptor arrived\n", pings);
			return fbt_child_status();
		default:
			CHECK(0, "S: a rejected message arrived: code %u, %llu bytes",
			      r.msg.code, (unsigned long long)r.msg.data_size);
			fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0);
			break;
		}
	}
}

static unsigned char data[DATA];
static int pipe_r = -1, pipe_w = -1;	/* the good descriptor of this attack */

static void ping(struct fbt_ctx *c, const char *what)
{
	struct fbt_ret reply;
	int ret;

	ret = fbt_call(c, 0, C_PING, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "ping after %s: %s", what,
	      strerror(-ret));
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(c, reply.msg.data);
}

/* EOF on the read end within timeout_ms: no write end is left anywhere. */
static bool sees_eof(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char ch;

	if (poll(&pfd, 1, timeout_ms) != 1)
		return false;
	return read(fd, &ch, 1) == 0;
}

static void fresh_pipe(void)
{
	int p[2];

	if (pipe(p))
		die("pipe");
	pipe_r = p[0];
	pipe_w = p[1];
}

/*
 * A call of DATA bytes in two pieces with the objects at offs, to handle,
 * that must fail with want; then the pipe's EOF and the ping.
 */
static void reject_to(struct fbt_ctx *c, __u32 handle, const char *what, int want,
		      const __u64 *offs, __u32 n)
{
	struct fbinder_iovec iov[2] = {
		{ (uintptr_t)data, 200 }, { (uintptr_t)data + 200, DATA - 200 },
	};
	struct fbinder_txn_sg sg = {
		.handle = handle, .code = C_BAD, .iov = (uintptr_t)iov, .iov_count = 2,
		.offsets = (uintptr_t)offs, .offsets_count = n,
	};
	struct fbt_ret reply;
	size_t done = 1;
	struct fbt_w w;
	int ret;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_SEND_SG, &sg, sizeof(sg));
	ret = fbt_wr(c, &w, &done, false);
	CHECK(ret == want && done == 0, "%s: %s, consumed %zu; want %s, 0", what,
	      strerror(-ret), done, strerror(-want));
	if (ret == want)
		printf("# %s: %s\n", what, strerror(-want));
	/* sent after all: its answer, so that the next attack is a call of its own */
	while (!ret && fbt_next(c, &reply) == 0) {
		if (reply.cmd == FBINDER_RET_REPLY)
			fbt_free_buffer(c, reply.msg.data);
		if (reply.cmd == FBINDER_RET_REPLY || reply.cmd == FBINDER_RET_FAILED)
			break;
	}
	close(pipe_w);
	CHECK(sees_eof(pipe_r, 2000), "%s: the refused send kept a reference to the pipe",
	      what);
	close(pipe_r);
	ping(c, what);
	fresh_pipe();
}

static void reject(struct fbt_ctx *c, const char *what, int want, const __u64 *offs,
		   __u32 n)
{
	reject_to(c, 0, what, want, offs, n);
}

static void put_ptr(size_t at, __u64 ptr, __u32 length)
{
	struct fbinder_ptr_object o = {
		.type = FBINDER_OBJ_PTR, .length = length, .ptr = ptr,
	};

	memcpy(data + at, &o, sizeof(o));
}

static void put_fda(size_t at, __u16 parent, __u32 parent_offset, __u32 count,
		    __u16 flags)
{
	struct fbinder_fda_object o = {
		.type = FBINDER_OBJ_FDA, .flags = flags, .parent = parent,
		.count = count, .parent_offset = parent_offset,
	};

	memcpy(data + at, &o, sizeof(o));
}

static void put_fd(size_t at)
{
	struct fbinder_object o = { .type = FBINDER_OBJ_FD, .fd = pipe_w };

	memcpy(data + at, &o, sizeof(o));
}

/* count descriptors at pos of the data, all the pipe's write end. */
static void put_fds(size_t pos, __u32 count)
{
	__s32 fd = pipe_w;
	__u32 i;

	for (i = 0; i < count; i++)
		memcpy(data + pos + i * sizeof(fd), &fd, sizeof(fd));
}

static void put_fd_at(size_t pos, __s32 fd)
{
	memcpy(data + pos, &fd, sizeof(fd));
}

static void bad_arrays(struct fbt_ctx *c)
{
	__u64 offs[3] = { 0, 16, 32 };

	/* a buffer of 64 bytes at BUF, the array's object at 16 */
	memset(data, 0, sizeof(data));
	put_ptr(0, BUF, 64);
	put_fds(BUF, 16);
	put_fda(16, 0, 56, 3, 0);
	reject(c, "an array reaching past its buffer", -EINVAL, offs, 2);
	put_fda(16, 0, 68, 0, 0);
	reject(c, "an array starting past its buffer", -EINVAL, offs, 2);
	put_fda(16, 0, 2, 2, 0);
	reject(c, "an array at an unaligned offset", -EINVAL, offs, 2);
	put_fda(16, 0, 0, 0x40000001u, 0);
	reject(c, "2^30+1 descriptors (4 bytes each: wraps 32 bits)", -EINVAL, offs, 2);
	put_fda(16, 0, 0, 0xffffffffu, 0);
	reject(c, "2^32-1 descriptors", -EINVAL, offs, 2);
	put_fda(16, 0, 0, 2, 0x2);
	reject(c, "unknown flags", -EINVAL, offs, 2);

	/* parents */
	put_fda(16, 1, 0, 2, 0);
	reject(c, "the array's own object as its parent", -EINVAL, offs, 2);
	put_fda(16, 7, 0, 2, 0);
	reject(c, "a parent past the objects", -EINVAL, offs, 2);
	put_fda(0, 1, 0, 2, 0);
	put_ptr(16, BUF, 64);
	reject(c, "a parent after the array's object", -EINVAL, offs, 2);
	put_fd(0);
	put_fda(16, 0, 0, 2, 0);
	reject(c, "a descriptor object as the parent", -EINVAL, offs, 2);
	put_ptr(0, BUF, 64);
	put_fda(16, 0, 0, 2, 0);
	put_fda(32, 1, 0, 2, 0);
	reject(c, "an array object as the parent", -EINVAL, offs, 3);

	/* where the array lies */
	put_ptr(0, 0, 64);
	put_fda(16, 0, 16, 2, 0);
	reject(c, "an array over its own object", -EINVAL, offs, 2);
	put_fda(16, 0, 0, 2, 0);
	reject(c, "an array over its parent's object", -EINVAL, offs, 2);
	put_ptr(0, BUF, 64);
	put_fds(BUF, 16);
	put_fda(16, 0, 0, 2, 0);
	put_fda(32, 0, 4, 2, 0);
	reject(c, "an array over the previous array", -EINVAL, offs, 3);
	put_fda(16, 0, 8, 2, 0);
	put_fda(32, 0, 0, 1, 0);
	reject(c, "an array before the previous array", -EINVAL, offs, 3);

	/* the bound, FBINDER_MAX_FDS, with the single descriptors */
	put_ptr(0, 512, 1024);
	put_fds(512, 256);
	put_fda(16, 0, 0, FBINDER_MAX_FDS + 1, 0);
	reject(c, "254 descriptors in one array", -EMSGSIZE, offs, 2);
	put_fda(16, 0, 0, FBINDER_MAX_FDS, 0);
	put_fds(512, 256);
	put_fd(32);
	reject(c, "253 in an array, then a descriptor object", -EMSGSIZE, offs, 3);
	put_fd(16);
	put_fda(32, 0, 0, FBINDER_MAX_FDS, 0);
	put_fds(512, 256);
	reject(c, "a descriptor object, then 253 in an array", -EMSGSIZE, offs, 3);
	put_fda(16, 0, 0, 200, 0);
	put_fda(32, 0, 800, 54, 0);
	put_fds(512, 256);
	reject(c, "200 and 54 descriptors in two arrays", -EMSGSIZE, offs, 3);

	/* the descriptors themselves */
	put_ptr(0, BUF, 64);
	put_fda(16, 0, 0, 3, 0);
	put_fds(BUF, 16);
	put_fd_at(BUF + 4, -1);
	reject(c, "descriptor -1 in the middle of an array", -EBADF, offs, 2);
	put_fds(BUF, 16);
	put_fd_at(BUF + 4, 100000);
	reject(c, "a closed descriptor in the middle of an array", -EBADF, offs, 2);
	put_fds(BUF, 16);
	put_fd_at(BUF + 4, c->fd);
	reject(c, "a fastbinder context in the middle of an array", -EINVAL, offs, 2);
	put_fds(BUF, 16);
}

int main(void)
{
	__u64 offs[2] = { 0, 16 };
	struct fbt_ret reply;
	struct fbt_ctx c;
	__u32 nofd = 0;
	pid_t spid;
	int ret;

	alarm(60);
	spid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_FDS, s_main, NULL);
	fbt_become_nobody();	/* the attacker */
	fbt_ctx_open(&c, MB);
	fresh_pipe();
	ping(&c, "the start");

	bad_arrays(&c);

	/* an object of the same service that takes no descriptors */
	ret = fbt_call(&c, 0, C_GET_NOFD, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY && reply.msg.offsets_count == 1,
	      "get the object without descriptors: %s", strerror(-ret));
	if (!ret && reply.cmd == FBINDER_RET_REPLY) {
		if (reply.msg.offsets_count == 1)
			nofd = fbt_obj(&c, &reply.msg, 0)->handle;
		CHECK(fbt_acquire(&c, nofd) == 0, "acquire it");
		fbt_free_buffer(&c, reply.msg.data);
	}
	put_ptr(0, BUF, 64);
	put_fda(16, 0, 0, 3, 0);
	put_fds(BUF, 16);
	reject_to(&c, nofd, "an array to an object that takes no descriptors", -EPERM,
		  offs, 2);
	CHECK(fbt_release(&c, nofd) == 0, "release it");

	ret = fbt_call(&c, 0, C_BAD_REPLY, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_FAILED && reply.err.error == -EPERM,
	      "a call answered with an array it did not accept: %s, %s %d; want FAILED -EPERM",
	      strerror(-ret), fbt_ret_name(reply.cmd), reply.err.error);
	ping(&c, "the refused reply");
	ret = fbt_call(&c, 0, C_END, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "end: %s", strerror(-ret));
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, reply.msg.data);
	CHECK(fbt_wait(spid) == 0, "the service's checks failed (see above)");
	close(pipe_r);
	close(pipe_w);
	fbt_ctx_close(&c);
	return fbt_done();
}
