// SPDX-License-Identifier: MIT
/*
 * fd_arrays: FBINDER_OBJ_FDA objects, arrays of descriptors inside a
 * buffer of the message (docs/abi.md, "Descriptor arrays").  The driver
 * reports FBINDER_FEATURE_FDA.  A gathered call carries a buffer of four
 * descriptors (two pipes' read ends, two memfds) named by two arrays, the
 * first of three with close-on-exec, the second of one without, and a
 * single FBINDER_OBJ_FD object between them; the arrays lie after their
 * objects in the data.  The receiver finds its own descriptors written in
 * place in the buffer (the bytes around them as sent, the array objects
 * as sent), five more entries in /proc/self/fd, each flag as asked, and
 * reads through each what the sender wrote, byte for byte (a pipe to its
 * EOF).  The descriptors stay open after the buffer is freed, as an
 * FBINDER_OBJ_FD object's do.  A plain FBINDER_CMD_SEND whose array lies
 * before its objects (the same file twice) arrives the same way, and a
 * gathered reply carries an array back to a caller that accepts
 * descriptors.  Sender and receiver run as uid 65534.
 */
#include "fbt_proto.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0xfda0ULL
#define C_ARRAY		1
#define C_BEFORE	2
#define C_END		3
#define MEMFD_LEN	4096
#define PIPE_LEN	64
#define DATA		96
#define BUF_OFF		64	/* the buffer of four descriptors */
#define SENTINEL	80	/* 16 bytes after it, as sent */

/* The first call's data before its buffer: four objects. */
struct hdr {
	struct fbinder_ptr_object buf;	/* at 0: the four descriptors at 64 */
	struct fbinder_fda_object a;	/* at 16: descriptors 0..2 */
	struct fbinder_object one;	/* at 32: a single descriptor */
	struct fbinder_fda_object b;	/* at 48: descriptor 3 */
};

_Static_assert(sizeof(struct hdr) == BUF_OFF, "the header is 64 bytes");

static const __u64 call_offs[] = { 0, 16, 32, 48 };

static int memfd_with(__u32 seed)
{
	static unsigned char b[MEMFD_LEN];
	int fd = (int)syscall(SYS_memfd_create, "fd_arrays", 0);

	if (fd < 0)
		die("memfd_create");
	fbt_fill(b, sizeof(b), seed);
	if (write(fd, b, sizeof(b)) != (ssize_t)sizeof(b))
		die("write memfd");
	return fd;
}

/* A pipe holding PIPE_LEN bytes of seed, its write end closed: its read end. */
static int pipe_with(__u32 seed)
{
	unsigned char b[PIPE_LEN];
	int p[2];

	if (pipe(p))
		die("pipe");
	fbt_fill(b, sizeof(b), seed);
	if (write(p[1], b, sizeof(b)) != (ssize_t)sizeof(b))
		die("write pipe");
	close(p[1]);
	return p[0];
}

/* What the receiver reads through fd is the sender's bytes, exactly. */
static void check_memfd(int fd, __u32 seed, const char *what)
{
	static unsigned char b[MEMFD_LEN];
	ssize_t n = pread(fd, b, sizeof(b), 0);

	CHECK(n == (ssize_t)sizeof(b) && fbt_verify(b, sizeof(b), seed) < 0,
	      "%s: fd %d read %zd bytes, not the memfd's %d of seed %u", what, fd, n,
	      MEMFD_LEN, seed);
}

static void check_pipe(int fd, __u32 seed, const char *what)
{
	unsigned char b[PIPE_LEN + 1];
	ssize_t n = read(fd, b, sizeof(b));

	CHECK(n == PIPE_LEN && fbt_verify(b, PIPE_LEN, seed) < 0 && read(fd, b, 1) == 0,
	      "%s: fd %d read %zd bytes, not the pipe's %d of seed %u then EOF", what,
	      fd, n, PIPE_LEN, seed);
}

static bool cloexec(int fd)
{
	return fcntl(fd, F_GETFD) & FD_CLOEXEC;
}

/* The first call, as the receiver sees it; its five descriptors in fds. */
static void check_array(struct fbt_ctx *p, const struct fbinder_txn_msg *m, int fds[5])
{
	const unsigned char *d = fbt_data(p, m);
	const __u64 *offs;
	struct hdr h;
	__s32 arr[4];
	int i, j;

	for (i = 0; i < 5; i++)
		fds[i] = -1;
	CHECK(m->data_size == DATA && m->offsets_count == 4,
	      "S: a call of %llu bytes, %llu objects; want %d, 4",
	      (unsigned long long)m->data_size, (unsigned long long)m->offsets_count, DATA);
	if (m->data_size != DATA || m->offsets_count != 4)
		return;
	offs = fbt_offsets(p, m);
	for (i = 0; i < 4; i++)
		CHECK(offs[i] == call_offs[i], "S: offset %d is %llu", i,
		      (unsigned long long)offs[i]);
	memcpy(&h, d, sizeof(h));
	CHECK(h.buf.type == FBINDER_OBJ_PTR && h.buf.length == 16 &&
	      h.buf.ptr == (__u64)(uintptr_t)(d + BUF_OFF),
	      "S: the buffer object: type %u length %u ptr %#llx", h.buf.type,
	      h.buf.length, (unsigned long long)h.buf.ptr);
	CHECK(h.a.type == FBINDER_OBJ_FDA && h.a.flags == 0 && h.a.parent == 0 &&
	      h.a.count == 3 && h.a.parent_offset == 0,
	      "S: array a not as sent: type %u flags %u parent %u count %u at %u",
	      h.a.type, h.a.flags, h.a.parent, h.a.count, h.a.parent_offset);
	CHECK(h.b.type == FBINDER_OBJ_FDA && h.b.flags == FBINDER_OBJF_NO_CLOEXEC &&
	      h.b.parent == 0 && h.b.count == 1 && h.b.parent_offset == 12,
	      "S: array b not as sent: type %u flags %u parent %u count %u at %u",
	      h.b.type, h.b.flags, h.b.parent, h.b.count, h.b.parent_offset);
	CHECK(fbt_verify(d + SENTINEL, DATA - SENTINEL, 5) < 0,
	      "S: the bytes after the array changed");
	memcpy(arr, d + BUF_OFF, sizeof(arr));
	for (i = 0; i < 4; i++)
		fds[i] = arr[i];
	CHECK(h.one.type == FBINDER_OBJ_FD, "S: the single object is type %u", h.one.type);
	fds[4] = h.one.fd;
	for (i = 0; i < 5; i++) {
		CHECK(fds[i] >= 0 && fcntl(fds[i], F_GETFD) >= 0,
		      "S: descriptor %d is %d, not open here", i, fds[i]);
		for (j = 0; j < i; j++)
			CHECK(fds[i] != fds[j], "S: descriptors %d and %d are both %d", j, i,
			      fds[i]);
	}
	for (i = 0; i < 5; i++)
		if (fds[i] < 0 || fcntl(fds[i], F_GETFD) < 0)
			return;
	CHECK(cloexec(fds[0]) && cloexec(fds[1]) && cloexec(fds[2]) && !cloexec(fds[3]) &&
	      cloexec(fds[4]),
	      "S: close-on-exec %d %d %d %d %d, want 1 1 1 0 1", cloexec(fds[0]),
	      cloexec(fds[1]), cloexec(fds[2]), cloexec(fds[3]), cloexec(fds[4]));
	check_pipe(fds[0], 21, "S: array a[0], a pipe");
	check_memfd(fds[1], 11, "S: array a[1], a memfd");
	check_pipe(fds[2], 22, "S: array a[2], a pipe");
	check_memfd(fds[3], 12, "S: array b[0], a memfd");
	check_memfd(fds[4], 13, "S: the single descriptor");
}

/* A gathered reply: a buffer of one descriptor after its two objects. */
static int reply_array(struct fbt_ctx *p, const struct fbinder_txn_msg *m, int fd)
{
	struct {
		struct fbinder_ptr_object buf;
		struct fbinder_fda_object a;
	} h = {
		.buf = { .type = FBINDER_OBJ_PTR, .length = 8, .ptr = 32 },
		.a = { .type = FBINDER_OBJ_FDA, .count = 1 },
	};
	__s32 arr[2] = { fd, 0 };
	struct fbinder_iovec iov[2] = {
		{ (uintptr_t)&h, sizeof(h) }, { (uintptr_t)arr, sizeof(arr) },
	};
	__u64 offs[2] = { 0, 16 };
	struct fbinder_txn_sg sg = {
		.code = 9, .iov = (uintptr_t)iov, .iov_count = 2,
		.offsets = (uintptr_t)offs, .offsets_count = 2,
	};
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_REPLY_SG, &sg, sizeof(sg));
	fbt_w_free(&w, m->data);
	return fbt_wr(p, &w, NULL, false);
}

/* The second call: the array at 0, before its buffer object and its own. */
static void check_before(struct fbt_ctx *p, const struct fbinder_txn_msg *m)
{
	const unsigned char *d = fbt_data(p, m);
	__s32 arr[2];

	CHECK(m->data_size == 40 && m->offsets_count == 2, "S: second call of %llu bytes",
	      (unsigned long long)m->data_size);
	if (m->data_size != 40)
		return;
	memcpy(arr, d, sizeof(arr));
	CHECK(arr[0] >= 0 && arr[1] >= 0 && arr[0] != arr[1],
	      "S: the array before its objects holds %d %d", arr[0], arr[1]);
	if (arr[0] < 0 || arr[1] < 0)
		return;
	check_memfd(arr[0], 11, "S: the array before its objects, [0]");
	check_memfd(arr[1], 11, "S: the array before its objects, [1]");
	close(arr[0]);
	close(arr[1]);
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	int fds[5], before, i, ret;
	struct fbt_ret r;

	(void)arg;
	alarm(60);
	for (;;) {
		before = fbt_count_fds(0);
		if (fbt_next(p, &r))
			die("S: read");
		if (r.cmd != FBINDER_RET_TRANSACTION)
			continue;
		switch (r.msg.code) {
		case C_ARRAY:
			CHECK(fbt_count_fds(0) == before + 5, "S: %d descriptors, want %d + 5",
			      fbt_count_fds(0), before);
			check_array(p, &r.msg, fds);
			ret = reply_array(p, &r.msg, fds[1]);
			CHECK(ret == 0, "S: the reply with an array: %s", strerror(-ret));
			/* freed: the descriptors stay, as a single object's do */
			for (i = 0; i < 5; i++) {
				CHECK(fds[i] < 0 || fcntl(fds[i], F_GETFD) >= 0,
				      "S: descriptor %d closed with the buffer", i);
				if (fds[i] >= 0)
					close(fds[i]);
			}
			CHECK(fbt_count_fds(0) == before, "S: %d descriptors after closing, want %d",
			      fbt_count_fds(0), before);
			break;
		case C_BEFORE:
			check_before(p, &r.msg);
			CHECK(fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "S: reply");
			break;
		case C_END:
			CHECK(fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "S: reply");
			return fbt_child_status();
		default:
			CHECK(0, "S: code %u", r.msg.code);
			return 1;
		}
	}
}

static void array_call(struct fbt_ctx *c)
{
	struct hdr h = {
		.buf = { .type = FBINDER_OBJ_PTR, .length = 16, .ptr = BUF_OFF },
		.a = { .type = FBINDER_OBJ_FDA, .parent = 0, .count = 3 },
		.one = { .type = FBINDER_OBJ_FD },
		.b = { .type = FBINDER_OBJ_FDA, .flags = FBINDER_OBJF_NO_CLOEXEC,
		       .parent = 0, .count = 1, .parent_offset = 12 },
	};
	unsigned char sentinel[DATA - SENTINEL];
	__s32 arr[4];
	struct fbinder_iovec iov[4];
	struct fbinder_txn_sg sg = {
		.code = C_ARRAY, .flags = FBINDER_TXN_ACCEPT_FDS,
		.iov_count = 4, .offsets = (uintptr_t)call_offs, .offsets_count = 4,
	};
	int before = fbt_count_fds(0), mine[5], i, ret, got;
	const struct fbinder_ptr_object *o;
	struct fbt_ret reply;
	struct fbt_w w;
	__s32 back;

	mine[0] = pipe_with(21);
	mine[1] = memfd_with(11);
	mine[2] = pipe_with(22);
	mine[3] = memfd_with(12);
	mine[4] = memfd_with(13);
	for (i = 0; i < 4; i++)
		arr[i] = mine[i];
	h.one.fd = mine[4];
	fbt_fill(sentinel, sizeof(sentinel), 5);
	/* the header in two pieces, the array, the bytes after it */
	iov[0] = (struct fbinder_iovec){ (uintptr_t)&h, 40 };
	iov[1] = (struct fbinder_iovec){ (uintptr_t)&h + 40, sizeof(h) - 40 };
	iov[2] = (struct fbinder_iovec){ (uintptr_t)arr, sizeof(arr) };
	iov[3] = (struct fbinder_iovec){ (uintptr_t)sentinel, sizeof(sentinel) };
	sg.iov = (uintptr_t)iov;
	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_SEND_SG, &sg, sizeof(sg));
	ret = fbt_wr(c, &w, NULL, true);
	while (!ret) {
		ret = fbt_next(c, &reply);
		if (!ret && (reply.cmd == FBINDER_RET_REPLY || reply.cmd == FBINDER_RET_FAILED))
			break;
	}
	for (i = 0; i < 5; i++)
		close(mine[i]);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY && reply.msg.code == 9,
	      "a call with two arrays: %s, %s", strerror(-ret), fbt_ret_name(reply.cmd));
	if (ret || reply.cmd != FBINDER_RET_REPLY)
		return;
	printf("# 4 descriptors in two arrays and one object: delivered, read back\n");
	CHECK(reply.msg.data_size == 40 && reply.msg.offsets_count == 2,
	      "the reply: %llu bytes", (unsigned long long)reply.msg.data_size);
	if (reply.msg.data_size == 40) {
		o = fbt_data(c, &reply.msg);
		memcpy(&back, (const unsigned char *)o + 32, sizeof(back));
		got = back;
		CHECK(got >= 0 && cloexec(got), "the reply's array holds %d", got);
		if (got >= 0) {
			check_memfd(got, 11, "the reply's array: the first memfd back");
			close(got);
		}
	}
	CHECK(fbt_free_buffer(c, reply.msg.data) == 0, "free the reply");
	CHECK(fbt_count_fds(0) == before, "the caller holds %d descriptors, had %d",
	      fbt_count_fds(0), before);
}

static void before_call(struct fbt_ctx *c)
{
	struct {
		__s32 arr[2];
		struct fbinder_ptr_object buf;
		struct fbinder_fda_object a;
	} d = {
		.buf = { .type = FBINDER_OBJ_PTR, .length = 8, .ptr = 0 },
		.a = { .type = FBINDER_OBJ_FDA, .count = 2 },
	};
	__u64 offs[2] = { 8, 24 };
	struct fbt_ret reply;
	int fd = memfd_with(11), ret;

	d.arr[0] = fd;
	d.arr[1] = fd;
	ret = fbt_call(c, 0, C_BEFORE, &d, sizeof(d), offs, 2, &reply, NULL, NULL);
	close(fd);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY,
	      "a plain send with its array before its objects: %s %s", strerror(-ret),
	      fbt_ret_name(reply.cmd));
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		CHECK(fbt_free_buffer(c, reply.msg.data) == 0, "free");
}

int main(void)
{
	struct fbinder_version ver = { 0 };
	struct fbt_ret reply;
	struct fbt_ctx c;
	pid_t spid;
	int ret;

	alarm(60);
	spid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY | FBT_MGR_FDS, s_main,
				    NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&c, MB);
	CHECK(ioctl(c.fd, FBINDER_IOC_VERSION, &ver) == 0 &&
	      ver.features & FBINDER_FEATURE_FDA,
	      "FBINDER_IOC_VERSION features %#llx lack FBINDER_FEATURE_FDA",
	      (unsigned long long)ver.features);

	array_call(&c);
	before_call(&c);

	ret = fbt_call(&c, 0, C_END, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "end: %s", strerror(-ret));
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, reply.msg.data);
	CHECK(fbt_wait(spid) == 0, "the service's checks failed (see above)");
	fbt_ctx_close(&c);
	return fbt_done();
}
