// SPDX-License-Identifier: MIT
/*
 * fd_array_calls: descriptor arrays through libbinderlite
 * (bl_parcel_write_fd_array(), bl_reader_read_fd_array(), the driver's
 * FBINDER_OBJ_FDA).  A call carries three memfds in one array item, a
 * single descriptor item after it and a string; the service reads each
 * memfd's bytes exactly through its own descriptors.  The same array in
 * the head of a bl_call_iov() with a gathered blob after it arrives the
 * same.  The service's descriptors of a message are closed by the library
 * once its handler returned (checked at the next call), as a single
 * descriptor's are; a reply's array is the caller's until bl_reply_fini()
 * closes it.  A service object that takes no descriptors refuses the
 * array (-EPERM).  The service claims handle 0 as root, then both sides
 * run as uid 65534.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <binderlite.h>

#include "fbt_bl.h"
#include "fbt.h"

#define C_ARRAY		1	/* u32 n, fd array of n, fd, string: reply ok */
#define C_GATHER	2	/* fd array of 3, then the blob */
#define C_CLOSED	3	/* were the last message's descriptors closed? */
#define C_REPLY		4	/* reply: an fd array of two memfds */
#define C_NOFD		5	/* reply: an object that takes no descriptors */
#define LEN		4096
#define BLOB		70000

static int last[8], nlast;
static int replied[2] = { -1, -1 };	/* sent once the handler returned */

static uint8_t byte_at(uint32_t seed, size_t i)
{
	return (uint8_t)(seed * 7 + i * 13 + (i >> 8));
}

static int memfd_with(uint32_t seed)
{
	static uint8_t b[LEN];
	int fd = memfd_create("fd_array_calls", MFD_CLOEXEC);
	size_t i;

	if (fd < 0)
		die("memfd_create");
	for (i = 0; i < LEN; i++)
		b[i] = byte_at(seed, i);
	if (write(fd, b, LEN) != LEN)
		die("write memfd");
	return fd;
}

static bool memfd_ok(int fd, uint32_t seed)
{
	static uint8_t b[LEN];
	size_t i;

	if (pread(fd, b, LEN, 0) != LEN)
		return false;
	for (i = 0; i < LEN; i++)
		if (b[i] != byte_at(seed, i))
			return false;
	return true;
}

/* Three memfds of seeds 1..3 in an array item; their descriptors kept. */
static bool array_ok(struct bl_reader *req)
{
	int fds[8];
	uint32_t n = 0, i;

	if (bl_reader_read_fd_array(req, fds, 8, &n) || n != 3)
		return false;
	for (i = 0; i < n; i++) {
		last[nlast++] = fds[i];
		if (!memfd_ok(fds[i], i + 1))
			return false;
	}
	return true;
}

static int32_t nofd_handler(struct bl_object *obj, uint32_t code, struct bl_reader *req,
			    struct bl_parcel *reply, const struct bl_call_info *info)
{
	(void)obj;
	(void)code;
	(void)req;
	(void)reply;
	(void)info;
	return 0;
}

static int32_t svc_handler(struct bl_object *obj, uint32_t code,
			   struct bl_reader *req, struct bl_parcel *reply,
			   const struct bl_call_info *info)
{
	const struct bl_call_info *unused = info;
	const char *s = NULL;
	const uint8_t *b = NULL;
	struct bl_object *nofd;
	size_t len = 0, i;
	uint32_t n = 0;
	int fd = -1;
	bool ok;

	(void)obj;
	(void)unused;
	/* the previous reply's descriptors went with it: ours can go now */
	for (i = 0; i < 2; i++) {
		if (replied[i] >= 0)
			close(replied[i]);
		replied[i] = -1;
	}
	switch (code) {
	case C_ARRAY:
		nlast = 0;
		ok = !bl_reader_read_u32(req, &n) && n == 3 && array_ok(req) && !bl_reader_read_fd(req, &fd) && memfd_ok(fd, 4) &&
		     !bl_reader_read_string(req, &s, NULL) && !strcmp(s, "after");
		last[nlast++] = fd;
		break;
	case C_GATHER:
		nlast = 0;
		ok = array_ok(req) && !bl_reader_read_blob(req, (const void **)&b, &len) &&
		     len == BLOB;
		for (i = 0; ok && i < len; i++)
			ok = b[i] == byte_at(9, i);
		break;
	case C_CLOSED:
		ok = nlast > 0;
		for (i = 0; i < (size_t)nlast; i++)
			ok = ok && fcntl(last[i], F_GETFD) < 0 && errno == EBADF;
		break;
	case C_REPLY:
		replied[0] = memfd_with(5);
		replied[1] = memfd_with(6);
		/* the driver takes its references when the reply goes, after us */
		ok = !bl_parcel_write_fd_array(reply, replied, 2);
		if (!ok)
			return -EIO;
		return 0;
	case C_NOFD:
		if (bl_object_new(bl_object_context(obj), nofd_handler, NULL, NULL, &nofd))
			return -ENOMEM;
		ok = !bl_parcel_write_obj(reply, nofd);
		bl_object_unref(nofd);
		return ok ? 0 : -EIO;
	default:
		return -EOPNOTSUPP;
	}
	return ok ? 0 : -EBADMSG;
}

static int simple(struct bl_context *ctx, uint32_t code)
{
	struct bl_reply rep;
	int ret = bl_call(ctx, 0, code, NULL, &rep, BL_NO_TIMEOUT);

	if (ret)
		return ret;
	ret = rep.status;
	bl_reply_fini(&rep);
	return ret;
}

static void client(struct bl_context *ctx)
{
	int fds[3] = { memfd_with(1), memfd_with(2), memfd_with(3) }, one = memfd_with(4);
	struct bl_parcel p = BL_PARCEL_INIT;
	static uint8_t blob[BLOB];
	struct iovec iov[2] = { { blob, 1000 }, { blob + 1000, BLOB - 1000 } };
	struct bl_reply rep;
	uint32_t n = 0, h = 0;
	int got[4], ret, i;
	size_t j;

	CHECK(bl_context_features(ctx) & FBINDER_FEATURE_FDA, "no FBINDER_FEATURE_FDA");
	bl_parcel_write_u32(&p, 3);
	bl_parcel_write_fd_array(&p, fds, 3);
	bl_parcel_write_fd(&p, one);
	bl_parcel_write_string(&p, "after");
	ret = bl_call(ctx, 0, C_ARRAY, &p, &rep, BL_NO_TIMEOUT);
	CHECK(ret == 0 && rep.status == 0, "a call with an array of three memfds: %s, status %d",
	      strerror(-ret), ret ? 0 : rep.status);
	if (!ret)
		bl_reply_fini(&rep);
	CHECK(simple(ctx, C_CLOSED) == 0, "the service's four descriptors outlived its handler");
	bl_parcel_fini(&p);

	for (j = 0; j < BLOB; j++)
		blob[j] = byte_at(9, j);
	bl_parcel_init(&p);
	bl_parcel_write_fd_array(&p, fds, 3);
	ret = bl_call_iov(ctx, 0, C_GATHER, &p, iov, 2, &rep, BL_NO_TIMEOUT);
	CHECK(ret == 0 && rep.status == 0, "the array in a gathered call's head: %s, status %d",
	      strerror(-ret), ret ? 0 : rep.status);
	if (!ret)
		bl_reply_fini(&rep);
	CHECK(simple(ctx, C_CLOSED) == 0, "the gathered call's descriptors outlived its handler");
	bl_parcel_fini(&p);

	ret = bl_call(ctx, 0, C_REPLY, NULL, &rep, BL_NO_TIMEOUT);
	CHECK(ret == 0 && rep.status == 0, "a reply with an array: %s", strerror(-ret));
	if (!ret) {
		ret = bl_reader_read_fd_array(&rep.reader, got, 4, &n);
		CHECK(ret == 0 && n == 2 && memfd_ok(got[0], 5) && memfd_ok(got[1], 6),
		      "the reply's array: %s, %u descriptors", strerror(-ret), n);
		bl_reply_fini(&rep);
		for (i = 0; !ret && i < (int)n; i++)
			CHECK(fcntl(got[i], F_GETFD) < 0 && errno == EBADF,
			      "the reply's descriptor %d outlived bl_reply_fini()", i);
	}

	/* an object of the service without FBINDER_OBJF_ACCEPTS_FDS */
	ret = bl_call(ctx, 0, C_NOFD, NULL, &rep, BL_NO_TIMEOUT);
	CHECK(ret == 0 && rep.status == 0 && !bl_reader_read_handle(&rep.reader, &h),
	      "get the object without descriptors: %s", strerror(-ret));
	if (!ret) {
		CHECK(bl_handle_acquire(ctx, h) == 0, "acquire it");
		bl_reply_fini(&rep);
		bl_parcel_init(&p);
		bl_parcel_write_fd_array(&p, fds, 3);
		ret = bl_call(ctx, h, C_ARRAY, &p, &rep, BL_NO_TIMEOUT);
		CHECK(ret == -EPERM, "an array to an object that takes none: %s, want EPERM",
		      strerror(-ret));
		if (!ret)
			bl_reply_fini(&rep);
		bl_parcel_fini(&p);
		bl_handle_release(ctx, h);
	}
	for (i = 0; i < 3; i++)
		close(fds[i]);
	close(one);
}

int main(void)
{
	struct bl_context *ctx;
	int ready[2], status, ret;
	char c;
	pid_t svc;

	alarm(60);
	if (pipe(ready))
		die("pipe");
	svc = fork();
	if (svc < 0)
		die("fork");
	if (!svc) {
		close(ready[0]);
		fbt_bl_serve_as_manager(svc_handler, true, ready[1]);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		die("service did not start");
	close(ready[0]);
	fbt_become_nobody();
	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		die("bl_context_open: %s", strerror(-ret));
	client(ctx);
	bl_context_close(ctx);
	kill(svc, SIGKILL);
	waitpid(svc, &status, 0);
	return fbt_done();
}
