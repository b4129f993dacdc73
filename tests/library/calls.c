// SPDX-License-Identifier: MIT
/*
 * calls.c - libbinderlite end to end, through the library alone: a call
 * with every parcel type (a pipe end included), handler status codes,
 * objects in both directions with a nested call back into the caller's
 * waiting thread, oneway order, a batch of 64 oneway sends in one
 * syscall, a timeout (and the thread usable afterwards), release of an
 * exported object to its destroy callback, and a death callback; the
 * object API (bl_object_ref(), bl_object_context(), bl_object_from_cookie()
 * on an object that came back, bl_object_set_min_priority(): its checks,
 * its refusal to an unprivileged process, and, as root, the raised
 * handler); every public call that allocates, with each of its
 * allocations failing in turn (bl__realloc_hook): -ENOMEM and nothing
 * leaked (valgrind_user runs this test under memcheck); and a
 * service whose write buffer holds less than one request's answer
 * (bl__wbuf_limit), whose every FBINDER_CMD_REPLY and FBINDER_CMD_FREE_BUFFER must
 * still go out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fbt_bl.h"
#include "fbt.h"
/* bl__wbuf_limit, the library's write-buffer test hook (static library) */
#include "../../libbinderlite/internal.h"

enum {
	M_ECHO_ALL = 1,		/* every type back, and "ping" into the fd */
	M_STATUS,		/* returns the i32 it got as status */
	M_CALLBACK,		/* calls the object it got; returns a child */
	M_RECORD,		/* oneway: log an i32 */
	M_GET_LOG,		/* the log: u32 n, n x i32 */
	M_SLEEP,		/* sleeps i32 ms, replies i32 99 */
	M_KEEP,			/* keeps the handle it got */
	M_DROP,			/* releases the kept handle */
	M_GIVE_KEPT,		/* the kept handle, back */
};

#define SVC "test.calls"
#define SVC_SMALL "test.calls.small_wbuf"
/*
 * The small service's write buffer: an FBINDER_CMD_FREE_BUFFER (12 bytes) and
 * an FBINDER_CMD_REPLY (44) do not fit together, nor do five frees of the
 * oneway messages one read delivers; its receive buffer is small enough
 * that leaked slots fill it within a few rounds.
 */
#define SMALL_WBUF	48
#define SMALL_MAP	(64 * 1024)

/* ---- the service ---------------------------------------------------------- */

static int32_t svc_log[256];
static uint32_t svc_log_n;
static uint32_t svc_kept;

static int32_t child_handler(struct bl_object *obj, uint32_t code,
			     struct bl_reader *req, struct bl_parcel *reply,
			     const struct bl_call_info *info)
{
	int32_t ret;

	(void)obj; (void)req; (void)info;
	ret = bl_parcel_write_string(reply, "child here");
	return ret ? ret : (int32_t)code;
}

static int32_t echo_all(struct bl_reader *r, struct bl_parcel *w)
{
	uint8_t u8; int8_t i8; uint16_t u16; int16_t i16; uint32_t u32;
	int32_t i32; uint64_t u64; int64_t i64; bool b; double d;
	const char *s; const void *blob; size_t len, blen;
	struct bl_reader sub;
	uint32_t count;
	int fd, ret;

	ret = bl_reader_read_u8(r, &u8);
	if (!ret)
		ret = bl_reader_read_i8(r, &i8);
	if (!ret)
		ret = bl_reader_read_u16(r, &u16);
	if (!ret)
		ret = bl_reader_read_i16(r, &i16);
	if (!ret)
		ret = bl_reader_read_u32(r, &u32);
	if (!ret)
		ret = bl_reader_read_i32(r, &i32);
	if (!ret)
		ret = bl_reader_read_u64(r, &u64);
	if (!ret)
		ret = bl_reader_read_i64(r, &i64);
	if (!ret)
		ret = bl_reader_read_bool(r, &b);
	if (!ret)
		ret = bl_reader_read_double(r, &d);
	if (!ret)
		ret = bl_reader_read_string(r, &s, &len);
	if (!ret)
		ret = bl_reader_read_blob(r, &blob, &blen);
	if (!ret)
		ret = bl_reader_enter_array(r, &sub, &count);
	if (!ret)
		ret = bl_reader_read_fd(r, &fd);
	if (ret)
		return ret;
	if (write(fd, "ping", 4) != 4)
		return -EIO;
	ret = bl_parcel_write_u8(w, u8);
	if (!ret)
		ret = bl_parcel_write_i8(w, i8);
	if (!ret)
		ret = bl_parcel_write_u16(w, u16);
	if (!ret)
		ret = bl_parcel_write_i16(w, i16);
	if (!ret)
		ret = bl_parcel_write_u32(w, u32);
	if (!ret)
		ret = bl_parcel_write_i32(w, i32);
	if (!ret)
		ret = bl_parcel_write_u64(w, u64);
	if (!ret)
		ret = bl_parcel_write_i64(w, i64);
	if (!ret)
		ret = bl_parcel_write_bool(w, b);
	if (!ret)
		ret = bl_parcel_write_double(w, d);
	if (!ret)
		ret = bl_parcel_write_string_len(w, s, len);
	if (!ret)
		ret = bl_parcel_write_blob(w, blob, blen);
	if (!ret)
		ret = bl_parcel_begin_array(w);
	for (uint32_t i = 0; !ret && i < count; i++) {
		int32_t v;

		ret = bl_reader_read_i32(&sub, &v);
		if (!ret)
			ret = bl_parcel_write_i32(w, v * 2);
	}
	/*
	 * The descriptor belongs to the request: the library closes it after
	 * the reply, which takes its own reference when sent, has gone.
	 */
	if (!ret)
		ret = bl_parcel_end_array(w);
	if (!ret)
		ret = bl_parcel_write_fd(w, fd);
	return ret;
}

static int32_t svc_handler(struct bl_object *obj, uint32_t code,
			   struct bl_reader *req, struct bl_parcel *reply,
			   const struct bl_call_info *info)
{
	struct bl_context *ctx = info->ctx;
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_object *child;
	struct bl_reply r;
	uint32_t h;
	int32_t v;
	int ret;

	(void)obj;
	switch (code) {
	case M_ECHO_ALL:
		return echo_all(req, reply);
	case M_STATUS:
		ret = bl_reader_read_i32(req, &v);
		if (!ret)
			ret = v;
		return ret;
	case M_CALLBACK:
		ret = bl_reader_read_handle(req, &h);
		if (ret)
			return ret;
		bl_parcel_write_string(&p, "from service");
		ret = bl_call(ctx, h, 7, &p, &r, BL_NO_TIMEOUT);
		bl_parcel_fini(&p);
		if (ret)
			return ret;
		{
			const char *s;

			ret = bl_reader_read_string(&r.reader, &s, NULL);
			if (!ret)
				ret = bl_parcel_write_string(reply, s);
		}
		v = r.status;
		bl_reply_fini(&r);
		if (ret)
			return ret;
		/* and an object of ours the other way */
		ret = bl_object_new(ctx, child_handler, NULL, NULL, &child);
		if (ret)
			return ret;
		ret = bl_parcel_write_obj(reply, child);
		bl_object_unref(child);
		return ret ? ret : v;
	case M_RECORD:
		if (!bl_reader_read_i32(req, &v) && svc_log_n < 256)
			svc_log[svc_log_n++] = v;
		return 0;
	case M_GET_LOG:
		ret = bl_parcel_write_u32(reply, svc_log_n);
		for (uint32_t i = 0; !ret && i < svc_log_n; i++)
			ret = bl_parcel_write_i32(reply, svc_log[i]);
		svc_log_n = 0;
		return ret;
	case M_SLEEP:
		ret = bl_reader_read_i32(req, &v);
		if (ret)
			return ret;
		usleep((useconds_t)v * 1000);
		return bl_parcel_write_i32(reply, 99);
	case M_KEEP:
		ret = bl_reader_read_handle(req, &svc_kept);
		if (!ret)
			ret = bl_handle_acquire(ctx, svc_kept);
		return ret;
	case M_DROP:
		return bl_handle_release(ctx, svc_kept);
	case M_GIVE_KEPT:
		/*
		 * Kept: a handle only read from the request would be gone by
		 * the time the reply goes (the request's buffer is freed first)
		 */
		return bl_parcel_write_handle(reply, svc_kept);
	default:
		return -EOPNOTSUPP;
	}
}

/* arg: NULL, or the small service's name (a small write buffer and map) */
static int svc_main(void *arg)
{
	const char *small = arg;
	struct bl_context *ctx;
	struct bl_object *obj;
	int ret;

	if (small) {
		bl__wbuf_limit = SMALL_WBUF;
		ret = bl_context_open(NULL, SMALL_MAP, &ctx);
		if (ret)
			die("open: %s", strerror(-ret));
	} else {
		ctx = fbt_bl_open();
	}
	/* it takes descriptors (a pipe end in M_ECHO_ALL) */
	ret = bl_object_new(ctx, svc_handler, NULL, NULL, &obj);
	if (!ret)
		ret = bl_object_set_accept_fds(obj, true);
	if (!ret)
		ret = bl_sm_add(ctx, small ? small : SVC, obj);
	if (ret) {
		fprintf(stderr, "service: %s\n", strerror(-ret));
		return 1;
	}
	bl_object_unref(obj);
	return bl_loop(ctx) ? 1 : 0;
}

/* ---- the client ------------------------------------------------------------ */

static pid_t client_tid;
static int cb_ran_on_caller;

static int32_t cb_handler(struct bl_object *obj, uint32_t code,
			  struct bl_reader *req, struct bl_parcel *reply,
			  const struct bl_call_info *info)
{
	const char *s;
	int32_t ret;

	(void)obj; (void)info;
	cb_ran_on_caller = syscall(SYS_gettid) == client_tid;
	if (code != 7 || bl_reader_read_string(req, &s, NULL) ||
	    strcmp(s, "from service"))
		return -EINVAL;
	ret = bl_parcel_write_string(reply, "from client");
	return ret ? ret : 17;
}

static int pipe_read_end = -1;

static void test_every_type(struct bl_context *ctx, uint32_t h)
{
	static const uint8_t blob[5] = { 1, 2, 0, 4, 5 };
	struct bl_parcel p = BL_PARCEL_INIT;
	uint8_t u8; int8_t i8; uint16_t u16; int16_t i16; uint32_t u32;
	int32_t i32, v; uint64_t u64; int64_t i64; bool b; double d;
	const char *s; const void *bl; size_t blen;
	struct bl_reader sub;
	struct bl_reply r;
	uint32_t count;
	char buf[16];
	int pfd[2], fd = -1, ret;

	if (pipe2(pfd, O_CLOEXEC))
		die("pipe");
	bl_parcel_write_u8(&p, 200); bl_parcel_write_i8(&p, -100);
	bl_parcel_write_u16(&p, 60000); bl_parcel_write_i16(&p, -30000);
	bl_parcel_write_u32(&p, 4000000000u); bl_parcel_write_i32(&p, -2000000000);
	bl_parcel_write_u64(&p, 0xfedcba9876543210ull);
	bl_parcel_write_i64(&p, -(1ll << 62)); bl_parcel_write_bool(&p, true);
	bl_parcel_write_double(&p, 3.25); bl_parcel_write_string(&p, "héllo");
	bl_parcel_write_blob(&p, blob, sizeof(blob));
	bl_parcel_begin_array(&p);
	bl_parcel_write_i32(&p, 1); bl_parcel_write_i32(&p, -2);
	bl_parcel_write_i32(&p, 3);
	bl_parcel_end_array(&p);
	CHECK(bl_parcel_write_fd(&p, pfd[1]) == 0, "write fd");

	ret = bl_call(ctx, h, M_ECHO_ALL, &p, &r, BL_NO_TIMEOUT);
	bl_parcel_fini(&p);
	CHECK(ret == 0, "echo call: %d", ret);
	if (ret)
		return;
	CHECK(r.status == 0, "echo status %d", r.status);
	ret = bl_reader_read_u8(&r.reader, &u8);
	if (!ret)
		ret = bl_reader_read_i8(&r.reader, &i8);
	if (!ret)
		ret = bl_reader_read_u16(&r.reader, &u16);
	if (!ret)
		ret = bl_reader_read_i16(&r.reader, &i16);
	if (!ret)
		ret = bl_reader_read_u32(&r.reader, &u32);
	if (!ret)
		ret = bl_reader_read_i32(&r.reader, &i32);
	if (!ret)
		ret = bl_reader_read_u64(&r.reader, &u64);
	if (!ret)
		ret = bl_reader_read_i64(&r.reader, &i64);
	if (!ret)
		ret = bl_reader_read_bool(&r.reader, &b);
	if (!ret)
		ret = bl_reader_read_double(&r.reader, &d);
	if (!ret)
		ret = bl_reader_read_string(&r.reader, &s, NULL);
	if (!ret)
		ret = bl_reader_read_blob(&r.reader, &bl, &blen);
	if (!ret)
		ret = bl_reader_enter_array(&r.reader, &sub, &count);
	CHECK(ret == 0, "reading the echo: %d", ret);
	if (!ret) {
		CHECK(u8 == 200 && i8 == -100 && u16 == 60000 && i16 == -30000,
		      "small ints %u %d %u %d", u8, i8, u16, i16);
		CHECK(u32 == 4000000000u && i32 == -2000000000, "32-bit ints");
		CHECK(u64 == 0xfedcba9876543210ull && i64 == -(1ll << 62),
		      "64-bit ints");
		CHECK(b && d == 3.25, "bool, double");
		CHECK(!strcmp(s, "héllo"), "string '%s'", s);
		CHECK(blen == 5 && !memcmp(bl, blob, 5), "blob");
		CHECK(count == 3, "array count %u", count);
		CHECK(!bl_reader_read_i32(&sub, &v) && v == 2, "array[0]");
		CHECK(!bl_reader_read_i32(&sub, &v) && v == -4, "array[1]");
		CHECK(!bl_reader_read_i32(&sub, &v) && v == 6, "array[2]");
		CHECK(bl_reader_read_i32(&sub, &v) == -ENODATA, "array end");
		ret = bl_reader_read_fd(&r.reader, &fd);
		CHECK(ret == 0 && fd >= 0 && fd != pfd[1], "fd back: %d %d",
		      ret, fd);
		if (!ret)
			CHECK(write(fd, "pong", 4) == 4, "write via returned fd");
		CHECK(bl_reader_read_u8(&r.reader, &u8) == -ENODATA, "end");
	}
	bl_reply_fini(&r);
	/* the reply's descriptor went with it */
	if (fd >= 0)
		CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF,
		      "bl_reply_fini() closed the reply's descriptor");
	close(pfd[1]);
	/* the service wrote through its copy, we through ours */
	CHECK(read(pfd[0], buf, sizeof(buf)) == 8 && !memcmp(buf, "pingpong", 8),
	      "pipe got ping and pong");
	/* the service closes its descriptor at its next call: see there */
	pipe_read_end = pfd[0];
}

static int call_i32(struct bl_context *ctx, uint32_t h, uint32_t code,
		    int32_t arg, int timeout, struct bl_reply *r)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	int ret;

	bl_parcel_write_i32(&p, arg);
	ret = bl_call(ctx, h, code, &p, r, timeout);
	bl_parcel_fini(&p);
	return ret;
}

static void test_status(struct bl_context *ctx, uint32_t h)
{
	struct bl_reply r;

	char c;

	CHECK(call_i32(ctx, h, M_STATUS, 42, BL_NO_TIMEOUT, &r) == 0 &&
	      r.status == 42, "status 42");
	bl_reply_fini(&r);
	/* no write end of the pipe is left anywhere: nothing leaked */
	CHECK(read(pipe_read_end, &c, 1) == 0, "every write end closed");
	close(pipe_read_end);
	CHECK(call_i32(ctx, h, M_STATUS, -EDOM, BL_NO_TIMEOUT, &r) == 0 &&
	      r.status == -EDOM, "status -EDOM");
	bl_reply_fini(&r);
	CHECK(bl_call(ctx, h, 999, NULL, &r, BL_NO_TIMEOUT) == 0 &&
	      r.status == -EOPNOTSUPP, "unknown code");
	bl_reply_fini(&r);
	CHECK(bl_call(ctx, 77777, 1, NULL, &r, BL_NO_TIMEOUT) == -ENOENT,
	      "a handle never given");
}

static void test_objects(struct bl_context *ctx, uint32_t h)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_object *cb;
	struct bl_reply r, r2;
	const char *s;
	uint32_t child;
	int ret;

	client_tid = syscall(SYS_gettid);
	CHECK(bl_object_new(ctx, cb_handler, NULL, NULL, &cb) == 0, "new");
	bl_parcel_write_obj(&p, cb);
	ret = bl_call(ctx, h, M_CALLBACK, &p, &r, BL_NO_TIMEOUT);
	bl_parcel_fini(&p);
	CHECK(ret == 0 && r.status == 17, "callback call %d status %d", ret,
	      r.status);
	CHECK(cb_ran_on_caller, "the nested call ran on the waiting thread");
	if (!ret) {
		CHECK(!bl_reader_read_string(&r.reader, &s, NULL) &&
		      !strcmp(s, "from client"), "callback's answer");
		ret = bl_reader_read_handle(&r.reader, &child);
		CHECK(ret == 0, "child handle: %d", ret);
		if (!ret) {
			ret = bl_call(ctx, child, 5, NULL, &r2, BL_NO_TIMEOUT);
			CHECK(ret == 0 && r2.status == 5, "call the child");
			CHECK(!ret && !bl_reader_read_string(&r2.reader, &s, NULL) &&
			      !strcmp(s, "child here"), "child's answer");
			bl_reply_fini(&r2);
		}
		bl_reply_fini(&r);
		/* the buffer held the child's only handle reference */
		CHECK(bl_call(ctx, child, 5, NULL, &r2, 1000) == -ENOENT,
		      "child handle gone with the buffer");
	}
	bl_object_unref(cb);
}

/*
 * Collects the service's log until n entries came (a call may overtake
 * oneway messages still queued), then makes sure no more come.
 */
static void check_log(struct bl_context *ctx, uint32_t h, uint32_t n,
		      const char *what)
{
	int64_t until = fbt_now_ms() + 5000;
	uint32_t got = 0, count;
	bool order = true, settled = false;
	struct bl_reply r;
	int32_t v;

	while (fbt_now_ms() < until) {
		/* timed: a reply the service never sent fails, not hangs */
		int ret = bl_call(ctx, h, M_GET_LOG, NULL, &r, 5000);

		if (ret) {
			CHECK(ret == 0, "%s: log call: %d", what, ret);
			break;
		}
		if (bl_reader_read_u32(&r.reader, &count))
			count = 0;
		for (uint32_t i = 0; i < count; i++, got++)
			if (bl_reader_read_i32(&r.reader, &v) ||
			    v != (int32_t)got)
				order = false;
		bl_reply_fini(&r);
		if (got >= n) {
			if (settled)
				break;
			/* once more, a little later: nothing extra may come */
			settled = true;
			usleep(50 * 1000);
		} else {
			usleep(2000);
		}
	}
	CHECK(got == n, "%s: %u of %u arrived", what, got, n);
	CHECK(order, "%s: in order", what);
}

static void test_oneway(struct bl_context *ctx, uint32_t h)
{
	struct bl_parcel p[64];
	struct bl_oneway m[64];
	size_t sent = 0;
	int ret = 0;

	for (int i = 0; i < 100 && !ret; i++) {
		bl_parcel_init(&p[0]);
		bl_parcel_write_i32(&p[0], i);
		ret = bl_send_oneway(ctx, h, M_RECORD, &p[0]);
		bl_parcel_fini(&p[0]);
	}
	CHECK(ret == 0, "100 oneway sends: %d", ret);
	check_log(ctx, h, 100, "oneway one by one");

	for (int i = 0; i < 64; i++) {
		bl_parcel_init(&p[i]);
		bl_parcel_write_i32(&p[i], i);
		m[i] = (struct bl_oneway){ h, M_RECORD, &p[i] };
	}
	ret = bl_send_oneway_batch(ctx, m, 64, &sent);
	CHECK(ret == 0 && sent == 64, "batch of 64: %d, %zu sent", ret, sent);
	check_log(ctx, h, 64, "batch of 64");
	/* a bad handle in the middle: the first 10 go, the rest do not */
	m[10].handle = 999999;
	ret = bl_send_oneway_batch(ctx, m, 64, &sent);
	CHECK(ret == -ENOENT && sent == 10, "batch stops at a bad handle: "
	      "%d, %zu sent", ret, sent);
	check_log(ctx, h, 10, "partial batch");
	for (int i = 0; i < 64; i++)
		bl_parcel_fini(&p[i]);
}

/*
 * The small service: 12 rounds of a batch of 16 oneway messages of 512
 * bytes (one read takes several of them: their frees overflow the write
 * buffer) and the timed calls of check_log() (a free and a reply
 * overflow it).  A dropped reply times out; dropped frees fill the 64 KiB
 * receive buffer in a round or two, and the sends fail.
 */
static void test_small_wbuf(struct bl_context *ctx)
{
	static uint8_t pad[512];
	struct bl_parcel p[16];
	struct bl_oneway m[16];
	struct bl_reply r;
	pid_t svc;
	size_t sent;
	uint32_t h;
	int ret = 0;

	svc = fbt_fork(svc_main, SVC_SMALL);
	CHECK(bl_sm_get(ctx, SVC_SMALL, 5000, &h) == 0, "small service");
	for (int i = 0; i < 16; i++) {
		bl_parcel_init(&p[i]);
		bl_parcel_write_i32(&p[i], i);
		bl_parcel_write_blob(&p[i], pad, sizeof(pad));
		m[i] = (struct bl_oneway){ h, M_RECORD, &p[i] };
	}
	for (int round = 0; round < 12 && !ret; round++) {
		ret = bl_send_oneway_batch(ctx, m, 16, &sent);
		CHECK(ret == 0 && sent == 16, "small wbuf, round %d: %d, %zu "
		      "sent", round, ret, sent);
		check_log(ctx, h, 16, "small wbuf");
	}
	for (int i = 0; i < 16; i++)
		bl_parcel_fini(&p[i]);
	ret = call_i32(ctx, h, M_STATUS, 7, 5000, &r);
	CHECK(ret == 0 && r.status == 7, "small wbuf, a call: %d", ret);
	if (!ret)
		bl_reply_fini(&r);
	fbt_bl_kill(svc);
	bl_handle_release(ctx, h);
}

static void test_timeout(struct bl_context *ctx, uint32_t h)
{
	struct bl_reply r;
	int64_t t0 = fbt_now_ms(), dt;
	int32_t v = 0;
	int ret;

	ret = call_i32(ctx, h, M_SLEEP, 1500, 200, &r);
	dt = fbt_now_ms() - t0;
	CHECK(ret == -ETIMEDOUT, "timed out: %d", ret);
	CHECK(dt >= 190 && dt < 1400, "after %lld ms", (long long)dt);
	/* the thread can call again; the late reply is not mistaken for it */
	ret = call_i32(ctx, h, M_SLEEP, 1, 5000, &r);
	CHECK(ret == 0 && !bl_reader_read_i32(&r.reader, &v) && v == 99,
	      "a call after the timeout: %d", ret);
	if (!ret)
		bl_reply_fini(&r);
	ret = call_i32(ctx, h, M_STATUS, 5, 5000, &r);
	CHECK(ret == 0 && r.status == 5, "a timed call in time: %d", ret);
	if (!ret)
		bl_reply_fini(&r);
}

static sem_t destroyed, died;
static uint32_t died_handle;

static void on_destroy(struct bl_object *obj)
{
	(void)obj;
	sem_post(&destroyed);
}

/* cppcheck-suppress constParameter ; the type is bl_death_fn */
static void on_death(struct bl_context *ctx, uint32_t handle, void *data)
{
	(void)ctx;
	CHECK(data == &died, "death userdata");
	died_handle = handle;
	sem_post(&died);
}

static bool sem_wait_ms(sem_t *s, int ms)
{
	int64_t until = fbt_now_ms() + ms;

	while (fbt_now_ms() < until) {
		if (!sem_trywait(s))
			return true;
		usleep(2000);
	}
	return false;
}

static void test_release(struct bl_context *ctx, uint32_t h)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_object *o;
	struct bl_reply r;

	bl_object_new(ctx, cb_handler, on_destroy, NULL, &o);
	bl_parcel_write_obj(&p, o);
	CHECK(bl_call(ctx, h, M_KEEP, &p, &r, BL_NO_TIMEOUT) == 0 &&
	      r.status == 0, "keep");
	bl_reply_fini(&r);
	bl_parcel_fini(&p);
	CHECK(bl_object_is_exported(o), "exported while the service holds it");
	bl_object_unref(o);
	CHECK(!sem_wait_ms(&destroyed, 100), "not destroyed while held");
	CHECK(bl_call(ctx, h, M_DROP, NULL, &r, BL_NO_TIMEOUT) == 0 &&
	      r.status == 0, "drop");
	bl_reply_fini(&r);
	CHECK(sem_wait_ms(&destroyed, 5000), "destroyed once released");
}

static atomic_int destroy_count;

static void count_destroy(struct bl_object *obj)
{
	(void)obj;
	atomic_fetch_add(&destroy_count, 1);
}

/*
 * The object calls no other test reaches, as uid 65534: a reference of
 * the caller's more, the context, the cookie of an object that came back,
 * and the minimum priority's checks (RLIMIT_NICE is 0 here, so the first
 * send of an object with a minimum is refused: test_min_priority() runs
 * one as root).
 */
static void test_object_api(struct bl_context *ctx, uint32_t h)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_object *o, *back = NULL, *pr;
	struct bl_reply r;
	uint64_t cookie = 0;
	int ret;

	atomic_store(&destroy_count, 0);
	CHECK(bl_object_new(ctx, cb_handler, count_destroy, NULL, &o) == 0,
	      "object for the API");
	CHECK(bl_object_context(o) == ctx, "bl_object_context()");
	CHECK(!bl_object_context(NULL) && !bl_object_ref(NULL), "NULL objects");
	CHECK(bl_object_ref(o) == o, "bl_object_ref() returns the object");
	bl_object_unref(o);
	CHECK(atomic_load(&destroy_count) == 0,
	      "alive after one of two unrefs");

	CHECK(bl_parcel_write_obj(&p, o) == 0, "write the object");
	ret = bl_call(ctx, h, M_KEEP, &p, &r, 5000);
	bl_parcel_fini(&p);
	CHECK(ret == 0 && r.status == 0, "the service keeps it: %d", ret);
	if (!ret)
		bl_reply_fini(&r);
	ret = bl_call(ctx, h, M_GIVE_KEPT, NULL, &r, 5000);
	CHECK(ret == 0 && r.status == 0, "and gives it back: %d %d", ret,
	      ret ? 0 : r.status);
	if (!ret) {
		CHECK(bl_reader_read_local(&r.reader, &cookie) == 0,
		      "it came back as ours");
		bl_reply_fini(&r);
	}
	ret = bl_object_from_cookie(ctx, cookie, &back);
	CHECK(ret == 0 && back == o, "bl_object_from_cookie(): %d", ret);
	bl_object_unref(back);
	/* inside the object: no object starts there */
	back = o;
	CHECK(bl_object_from_cookie(ctx, cookie + 8, &back) == -ENOENT &&
	      !back, "an unknown cookie");
	CHECK(bl_object_from_cookie(NULL, cookie, &back) == -EINVAL &&
	      bl_object_from_cookie(ctx, cookie, NULL) == -EINVAL,
	      "bl_object_from_cookie() misuse");
	bl_object_unref(o);
	CHECK(bl_call(ctx, h, M_DROP, NULL, &r, 5000) == 0 && r.status == 0,
	      "the service drops it");
	bl_reply_fini(&r);
	/* the last reference, and the driver's release (on the pool) */
	for (int i = 0; i < 500 && !atomic_load(&destroy_count); i++)
		usleep(10 * 1000);
	CHECK(atomic_load(&destroy_count) == 1, "destroyed once: %d",
	      atomic_load(&destroy_count));

	CHECK(bl_object_set_min_priority(NULL, false, 0) == -EINVAL,
	      "min priority of NULL");
	CHECK(bl_object_new(ctx, cb_handler, NULL, NULL, &pr) == 0, "new");
	CHECK(bl_object_set_min_priority(pr, false, -21) == -EINVAL &&
	      bl_object_set_min_priority(pr, false, 20) == -EINVAL &&
	      bl_object_set_min_priority(pr, true, 0) == -EINVAL &&
	      bl_object_set_min_priority(pr, true, 100) == -EINVAL,
	      "min priority out of range");
	CHECK(bl_object_set_min_priority(pr, true, 99) == 0 &&
	      bl_object_set_min_priority(pr, false, -5) == 0,
	      "min priority in range (the last one counts)");
	bl_parcel_write_obj(&p, pr);
	ret = bl_call(ctx, h, M_KEEP, &p, &r, 5000);
	bl_parcel_fini(&p);
	CHECK(ret == -EPERM, "a minimum this process may not have: %d", ret);
	if (!ret)
		bl_reply_fini(&r);
	CHECK(bl_object_set_min_priority(pr, false, -4) == -EBUSY,
	      "min priority after the first send");
	bl_object_unref(pr);
}

#define PRIO_SVC "test.calls.prio"

static int32_t prio_handler(struct bl_object *obj, uint32_t code,
			    struct bl_reader *req, struct bl_parcel *reply,
			    const struct bl_call_info *info)
{
	int prio;

	(void)obj; (void)code; (void)req; (void)info;
	errno = 0;
	prio = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
	if (errno)
		return -errno;
	return bl_parcel_write_i32(reply, prio);
}

static int prio_svc_main(void *arg)
{
	struct bl_context *ctx = fbt_bl_open();
	struct bl_object *obj;
	int ret;

	(void)arg;
	ret = bl_object_new(ctx, prio_handler, NULL, NULL, &obj);
	if (!ret)
		ret = bl_object_set_min_priority(obj, false, -5);
	if (!ret)
		ret = bl_sm_add(ctx, PRIO_SVC, obj);
	if (ret) {
		fprintf(stderr, "prio service: %s\n", strerror(-ret));
		return 1;
	}
	bl_object_unref(obj);
	return bl_loop(ctx) ? 1 : 0;
}

/*
 * As root (CAP_SYS_NICE: raising a handler is a privilege): a call from a
 * nice 0 thread to an object with a minimum of nice -5 runs its handler at
 * nice -5.
 */
static void test_min_priority(void)
{
	struct bl_context *ctx = fbt_bl_open();
	struct bl_reply r;
	int32_t nice = 99;
	pid_t svc;
	uint32_t h;
	int ret;

	svc = fbt_fork(prio_svc_main, NULL);
	ret = bl_sm_get(ctx, PRIO_SVC, 5000, &h);
	CHECK(ret == 0, "prio service: %d", ret);
	if (!ret) {
		ret = bl_call(ctx, h, 1, NULL, &r, 5000);
		CHECK(ret == 0 && r.status == 0 &&
		      !bl_reader_read_i32(&r.reader, &nice) && nice <= -5,
		      "the handler ran at nice %d (want -5 or less): %d",
		      nice, ret);
		if (!ret)
			bl_reply_fini(&r);
		bl_handle_release(ctx, h);
	}
	fbt_bl_kill(svc);
	bl_context_close(ctx);
}

/* ---- out of memory ----------------------------------------------------- */

/* allocations that succeed before one fails (then -1: none fails) */
static atomic_int oom_at = -1;
static atomic_int oom_failed;

/* the library's allocation hook; its pool threads may call it too */
static void *oom_realloc(void *ptr, size_t size)
{
	if (atomic_load(&oom_at) >= 0 && atomic_fetch_sub(&oom_at, 1) == 0) {
		atomic_fetch_add(&oom_failed, 1);
		return NULL;
	}
	return realloc(ptr, size);
}

struct oom_env {
	struct bl_context *ctx;
	uint32_t h;			/* the service */
	struct bl_object *obj;		/* an object of ours */
};

/*
 * Runs op with its first, second, ... allocation failing until it runs
 * with none failing, which must succeed.  A failure must reach the caller
 * as -ENOMEM, but where the library has a fallback (a descriptor closed
 * at once instead of later, a pool thread that could not start its loop)
 * the call may succeed all the same; at least one must be -ENOMEM.  op
 * undoes what it did when it succeeded.
 */
static void oom_sweep(const char *what, int (*op)(struct oom_env *),
		      struct oom_env *e)
{
	int n, ret = 0, enomem = 0;

	for (n = 0; n < 64; n++) {
		atomic_store(&oom_failed, 0);
		atomic_store(&oom_at, n);
		ret = op(e);
		atomic_store(&oom_at, -1);
		if (!atomic_load(&oom_failed))
			break;
		CHECK(ret >= 0 || ret == -ENOMEM, "%s: allocation %d failed: %d",
		      what, n, ret);
		enomem += ret == -ENOMEM;
	}
	CHECK(ret >= 0, "%s: with every allocation: %d", what, ret);
	CHECK(enomem > 0, "%s: no -ENOMEM in %d tries", what, n);
}

static int oom_open(struct oom_env *e)
{
	struct bl_context *c;
	int ret = bl_context_open(NULL, 0, &c);

	(void)e;
	if (!ret)
		bl_context_close(c);
	return ret;
}

static int oom_object(struct oom_env *e)
{
	struct bl_object *o;
	int ret = bl_object_new(e->ctx, cb_handler, NULL, NULL, &o);

	bl_object_unref(o);
	return ret;
}

static int oom_call_ms(struct oom_env *e, int timeout)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reply r;
	int ret = bl_parcel_write_i32(&p, 3);

	if (!ret)
		ret = bl_call(e->ctx, e->h, M_STATUS, &p, &r, timeout);

	if (!ret) {
		CHECK(r.status == 3, "oom call: status %d", r.status);
		bl_reply_fini(&r);
	}
	bl_parcel_fini(&p);
	return ret;
}

static int oom_call(struct oom_env *e)
{
	return oom_call_ms(e, BL_NO_TIMEOUT);
}

static int oom_call_timed(struct oom_env *e)
{
	return oom_call_ms(e, 5000);
}

/* M_STATUS oneway: the service does nothing with it */
static int oom_oneway(struct oom_env *e)
{
	struct bl_parcel p[3];
	struct bl_oneway m[3];
	size_t sent;
	int ret = 0;

	for (int i = 0; i < 3; i++) {
		bl_parcel_init(&p[i]);
		if (!ret)
			ret = bl_parcel_write_i32(&p[i], i);
		m[i] = (struct bl_oneway){ e->h, M_STATUS, &p[i] };
	}
	if (!ret)
		ret = bl_send_oneway(e->ctx, e->h, M_STATUS, &p[0]);
	if (!ret)
		ret = bl_send_oneway_batch(e->ctx, m, 3, &sent);
	for (int i = 0; i < 3; i++)
		bl_parcel_fini(&p[i]);
	return ret;
}

static void oom_death_fn(struct bl_context *ctx, uint32_t handle, void *data)
{
	(void)ctx; (void)handle; (void)data;
}

static int oom_death(struct oom_env *e)
{
	struct bl_death *d;
	int ret = bl_link_death(e->ctx, e->h, oom_death_fn, NULL, &d);

	if (!ret)
		ret = bl_unlink_death(d);
	return ret;
}

static int oom_sm(struct oom_env *e)
{
	char **names = NULL;
	size_t count = 0;
	uint32_t h1, h2;
	int ret;

	ret = bl_sm_check(e->ctx, SVC, &h1);
	if (ret)
		return ret;
	bl_handle_release(e->ctx, h1);
	ret = bl_sm_get(e->ctx, SVC, 1000, &h2);
	if (ret)
		return ret;
	bl_handle_release(e->ctx, h2);
	ret = bl_sm_list(e->ctx, &names, &count);
	if (!ret) {
		CHECK(count >= 1, "oom list: %zu names", count);
		bl_sm_list_free(names, count);
	}
	return ret;
}

/* the same name each time: a failed try never reaches the manager */
static int oom_sm_add(struct oom_env *e)
{
	return bl_sm_add(e->ctx, "test.calls.oom", e->obj);
}

/* a release notice is pending (see oom_main()): one pass reads it */
static int oom_loop_once(struct oom_env *e)
{
	return bl_loop_once(e->ctx, 1000);
}

static int oom_pool(struct oom_env *e)
{
	int ret = bl_pool_start(e->ctx, 1, 2);

	if (!ret)
		bl_context_stop(e->ctx);
	return ret;
}

/* In a process of its own: no thread of another test shares the hook. */
static int oom_main(void *arg)
{
	struct oom_env e = { 0 };
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_object *gone;
	struct bl_reply r;
	int ret;

	(void)arg;
	e.ctx = fbt_bl_open();
	ret = bl_sm_get(e.ctx, SVC, 5000, &e.h);
	CHECK(ret == 0, "oom: the service: %d", ret);
	if (ret)
		return fbt_done();
	CHECK(bl_object_new(e.ctx, cb_handler, NULL, NULL, &e.obj) == 0,
	      "oom: object");
	bl__realloc_hook = oom_realloc;
	oom_sweep("bl_context_open", oom_open, &e);
	oom_sweep("bl_object_new", oom_object, &e);
	oom_sweep("bl_call", oom_call, &e);
	oom_sweep("bl_call with a timeout", oom_call_timed, &e);
	oom_sweep("bl_send_oneway, _batch", oom_oneway, &e);
	oom_sweep("bl_link_death", oom_death, &e);
	oom_sweep("bl_sm_check, _get, _list", oom_sm, &e);
	oom_sweep("bl_sm_add", oom_sm_add, &e);
	bl__realloc_hook = NULL;

	/* an object the service keeps and drops: its release is pending */
	bl_object_new(e.ctx, cb_handler, NULL, NULL, &gone);
	bl_parcel_write_obj(&p, gone);
	bl_object_unref(gone);
	ret = bl_call(e.ctx, e.h, M_KEEP, &p, &r, 5000);
	bl_parcel_fini(&p);
	if (!ret) {
		bl_reply_fini(&r);
		ret = bl_call(e.ctx, e.h, M_DROP, NULL, &r, 5000);
	}
	if (!ret)
		bl_reply_fini(&r);
	CHECK(ret == 0, "oom: keep and drop: %d", ret);
	bl__realloc_hook = oom_realloc;
	oom_sweep("bl_loop_once", oom_loop_once, &e);
	oom_sweep("bl_pool_start", oom_pool, &e);
	bl__realloc_hook = NULL;

	bl_object_unref(e.obj);
	bl_handle_release(e.ctx, e.h);
	bl_context_close(e.ctx);
	return fbt_done();
}

/* Everything but the manager, as uid 65534. */
static int client(void *arg)
{
	pid_t svc;
	struct bl_context *ctx;
	struct bl_death *d;
	struct bl_reply r;
	uint32_t h;
	int ret;

	(void)arg;
	sem_init(&destroyed, 0, 0);
	sem_init(&died, 0, 0);
	svc = fbt_fork(svc_main, NULL);
	/*
	 * Forked before this process opens its context: a child inherits
	 * the parent's heap without the pointers the parent keeps in
	 * registers and other threads' stacks, which memcheck reports as
	 * lost when the child exits.
	 */
	CHECK(fbt_wait(fbt_fork(oom_main, NULL)) == 0,
	      "out of memory, every public call");
	{
		/* a library that needs a feature this driver does not have */
		struct bl_context *c = NULL;
		uint64_t need = bl__features_needed;

		bl__features_needed |= 1ULL << 63;
		CHECK(bl_context_open(NULL, 0, &c) == -ENOPROTOOPT && !c,
		      "open without a needed feature: want -ENOPROTOOPT");
		bl__features_needed = need;
	}
	ctx = fbt_bl_open();
	CHECK(bl_context_abi_version(ctx) == FBINDER_ABI_VERSION, "abi version");
	CHECK((bl_context_features(ctx) & FBINDER_FEATURES_V4) == FBINDER_FEATURES_V4,
	      "features %#llx", (unsigned long long)bl_context_features(ctx));
	ret = bl_sm_get(ctx, SVC, 5000, &h);
	if (ret)
		die("service did not register: %s", strerror(-ret));
	{
		uint32_t none;

		CHECK(bl_sm_check(ctx, "no.such.service", &none) == -ENOENT,
		      "check of a missing name");
		CHECK(bl_sm_check(ctx, "bad name!", &none) == -EINVAL,
		      "a bad name");
	}
	/* a looper for release and death notices */
	CHECK(bl_pool_start(ctx, 1, 1) == 0, "pool");

	test_every_type(ctx, h);
	test_status(ctx, h);
	test_objects(ctx, h);
	test_object_api(ctx, h);
	test_oneway(ctx, h);
	test_small_wbuf(ctx);
	test_timeout(ctx, h);
	test_release(ctx, h);

	ret = bl_link_death(ctx, h, on_death, &died, &d);
	CHECK(ret == 0, "link death: %d", ret);
	fbt_bl_kill(svc);
	CHECK(sem_wait_ms(&died, 5000), "death callback ran");
	CHECK(died_handle == h, "for handle %u (got %u)", h, died_handle);
	CHECK(bl_call(ctx, h, M_STATUS, NULL, &r, BL_NO_TIMEOUT) == -EOWNERDEAD,
	      "calls to the dead service fail");
	CHECK(bl_unlink_death(d) == -EOWNERDEAD, "unlink after the death");
	bl_handle_release(ctx, h);

	bl_context_close(ctx);
	return fbt_done();
}

int main(void)
{
	/* a root manager, as a system runs one (claiming handle 0 takes it) */
	pid_t mgr = fbt_bl_manager_start();
	int st = fbt_run_as_nobody(client, NULL);

	test_min_priority();
	fbt_bl_kill(mgr);
	CHECK(st == 0, "the calls, as uid 65534: status %d", st);
	return fbt_done();
}
