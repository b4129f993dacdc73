// SPDX-License-Identifier: MIT
/*
 * idl_calls.c - calls through the stubs fbidl generated from
 * tests/idl/types.fbidl, as uid 65534: every type there and back (the
 * extremes of each scalar, empty and full arrays, nested parcelables, an
 * interface, a descriptor, a memory region), every direction (in, out,
 * inout, a result), a oneway message, a callback (an interface passed as
 * an argument and called back, nested on the caller's thread and oneway on
 * its pool), the descriptor token (a proxy of another interface gets
 * -EPROTOTYPE), an unknown code (-EOPNOTSUPP), arguments the stub refuses
 * (an undeclared enum value, trailing items, a float a float cannot hold:
 * -EBADMSG, and the implementation is not called), a malformed reply
 * (-EPROTO), an implementation's status, the timeout variant, the version
 * and hash built-ins, a parcel's sticky write error (bl_call() refuses it,
 * a reply whose write failed becomes that error), the async variants
 * (result, out values, a status, through poll and bl_dispatch()), and a
 * server that dies in the middle of a call (-EOWNERDEAD).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fbt.h"
#include "fbt_bl.h"
#include "types.h"

#define SVC "test.idl.types"
#define LIAR "test.idl.liar"

/* ---- the service ----------------------------------------------------------- */

static int notes_n;
static char *notes_last;

#define ECHO(name, type) \
	static int32_t name(void *self, type v, type *result, \
			    const struct bl_call_info *info) \
	{ \
		(void)self; (void)info; \
		*result = v; \
		return 0; \
	}
ECHO(s_byte, int8_t)
ECHO(s_char, uint16_t)
ECHO(s_int, int32_t)
ECHO(s_long, int64_t)
ECHO(s_float, float)
ECHO(s_double, double)
ECHO(s_bool, bool)
ECHO(s_color, enum color)

static int32_t s_string(void *self, const char *v, char **result,
			const struct bl_call_info *info)
{
	(void)self; (void)info;
	*result = strdup(v);
	return *result ? 0 : -ENOMEM;
}

#define ECHO_ARRAY(name, type, out_type) \
	static int32_t name(void *self, const type *v, size_t n, out_type **result, \
			    size_t *result_len, const struct bl_call_info *info) \
	{ \
		(void)self; (void)info; \
		*result_len = n; \
		if (!n) \
			return 0; \
		*result = malloc(n * sizeof(*v)); \
		if (!*result) \
			return -ENOMEM; \
		memcpy(*result, v, n * sizeof(*v)); \
		return 0; \
	}
ECHO_ARRAY(s_bytes, uint8_t, uint8_t)
ECHO_ARRAY(s_ints, int32_t, int32_t)
ECHO_ARRAY(s_bools, bool, bool)
ECHO_ARRAY(s_colors, enum color, enum color)
ECHO_ARRAY(s_points, struct point, struct point)

static int32_t s_point(void *self, const struct point *v, struct point *result,
		       const struct bl_call_info *info)
{
	(void)self; (void)info;
	*result = *v;
	return 0;
}

/* a deep copy through the generated writer and reader */
static int32_t s_shape(void *self, const struct shape *v, struct shape *result,
		       const struct bl_call_info *info)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r;
	int ret;

	(void)self; (void)info;
	ret = shape_write(&p, v);
	if (!ret)
		ret = bl_reader_init_parcel(&r, &p);
	if (!ret)
		ret = shape_read(&r, result);
	bl_parcel_fini(&p);
	return ret;
}

static int32_t s_directions(void *self, int32_t a, int32_t *b, int32_t *c,
			    char **s, char **t, struct point *p, struct point *q,
			    int64_t **l, size_t *l_len, int64_t **m, size_t *m_len,
			    const struct bl_call_info *info)
{
	size_t tl = strlen(*t);
	char *t2 = malloc(tl + 2);
	int64_t *m2 = realloc(*m, (*m_len + 1) * sizeof(**m));

	(void)self; (void)info;
	if (!t2 || !m2) {
		free(t2);
		if (m2)
			*m = m2;
		return -ENOMEM;
	}
	*b = a + 1;
	*c *= 2;
	*s = strdup("out");
	memcpy(t2, *t, tl);
	memcpy(t2 + tl, "!", 2);
	free(*t);
	*t = t2;
	p->x = a;
	p->y = -a;
	q->x += 1;
	q->y += 2;
	*l = malloc(3 * sizeof(**l));
	if (*l) {
		(*l)[0] = 1;
		(*l)[1] = INT64_MIN;
		(*l)[2] = INT64_MAX;
		*l_len = 3;
	}
	m2[*m_len] = 9;
	*m = m2;
	(*m_len)++;
	return *s && *l ? 0 : -ENOMEM;
}

static int32_t s_divide(void *self, int32_t a, int32_t b, int32_t *rem,
			int32_t *result, const struct bl_call_info *info)
{
	(void)self; (void)info;
	if (!b)
		return -EDOM;
	*result = a / b;
	*rem = a % b;
	return 0;
}

/* the oneway notes, written and read by different pool threads */
static pthread_mutex_t notes_lock = PTHREAD_MUTEX_INITIALIZER;

static int32_t s_note(void *self, const char *text, int32_t n,
		      const struct bl_call_info *info)
{
	(void)self;
	if (!(info->flags & FBINDER_TXN_ONEWAY))
		return -EINVAL;
	pthread_mutex_lock(&notes_lock);
	free(notes_last);
	notes_last = strdup(text);
	notes_n += n;
	pthread_mutex_unlock(&notes_lock);
	return 0;
}

static int32_t s_notes(void *self, char **last, int32_t *result,
		       const struct bl_call_info *info)
{
	(void)self; (void)info;
	pthread_mutex_lock(&notes_lock);
	*last = strdup(notes_last ? notes_last : "");
	*result = notes_n;
	pthread_mutex_unlock(&notes_lock);
	return 0;
}

static int32_t s_call_back(void *self, struct bl_binder cb, int32_t value,
			   const struct bl_call_info *info)
{
	struct callback_proxy p;
	int ret;

	(void)self;
	if (cb.obj)
		return -EXDEV;		/* our own object: not what the test sends */
	ret = callback_proxy_wrap(info->ctx, cb.handle, &p);
	if (ret)
		return ret;
	ret = callback_done(&p, value, "from the service");
	if (!ret)
		ret = callback_ping(&p, (int64_t)value * 1000);
	callback_proxy_release(&p);
	return ret;
}

/*
 * An out handle must be one the implementation holds: a handle of the
 * request is released with it, before the reply goes.  Keep the last one.
 */
static uint32_t kept_handle;

static int keep(struct bl_context *ctx, uint32_t h)
{
	int ret = bl_handle_acquire(ctx, h);

	if (ret)
		return ret;
	if (kept_handle)
		bl_handle_release(ctx, kept_handle);
	kept_handle = h;
	return 0;
}

static int32_t s_binder(void *self, struct bl_binder cb, struct bl_binder *result,
			const struct bl_call_info *info)
{
	(void)self;
	*result = cb;
	if (cb.obj) {
		bl_object_ref(cb.obj);	/* the stub takes this reference */
		return 0;
	}
	return keep(info->ctx, cb.handle);
}

static int32_t s_fd(void *self, int fd, int *result, const struct bl_call_info *info)
{
	(void)self; (void)info;
	*result = fd;		/* the request's: closed after the reply is sent */
	return 0;
}

static int32_t s_region(void *self, uint32_t r, uint32_t *result,
			const struct bl_call_info *info)
{
	(void)self;
	*result = r;
	return keep(info->ctx, r);
}

static int32_t s_fail(void *self, int32_t status, const struct bl_call_info *info)
{
	(void)self; (void)info;
	return status;
}

static int32_t s_sleep(void *self, int32_t ms, const struct bl_call_info *info)
{
	(void)self; (void)info;
	usleep((useconds_t)ms * 1000);
	return 0;
}

static int32_t s_die(void *self, const struct bl_call_info *info)
{
	(void)self; (void)info;
	_exit(3);
}

static const struct types_ops service_ops = {
	.echo_byte = s_byte, .echo_char = s_char, .echo_int = s_int,
	.echo_long = s_long, .echo_float = s_float, .echo_double = s_double,
	.echo_bool = s_bool, .echo_string = s_string, .echo_bytes = s_bytes,
	.echo_ints = s_ints, .echo_bools = s_bools, .echo_color = s_color,
	.echo_colors = s_colors, .echo_point = s_point, .echo_shape = s_shape,
	.echo_points = s_points, .directions = s_directions, .divide = s_divide,
	.note = s_note, .notes = s_notes, .call_back = s_call_back,
	.echo_binder = s_binder, .echo_fd = s_fd, .echo_region = s_region,
	.fail = s_fail, .sleep = s_sleep, .die = s_die,
};

/* a raw object whose replies are wrong: an i32 where a string belongs */
static int32_t liar(struct bl_object *obj, uint32_t code, struct bl_reader *req,
		    struct bl_parcel *reply, const struct bl_call_info *info)
{
	(void)obj; (void)req; (void)info;
	if (code == TYPES_CODE_ECHO_INT)
		return bl_parcel_write_string(reply, "not an int");
	if (code == TYPES_CODE_ECHO_LONG) {		/* one item too many */
		int ret = bl_parcel_write_i64(reply, 1);

		return ret ? ret : bl_parcel_write_i64(reply, 2);
	}
	if (code == TYPES_CODE_ECHO_DOUBLE) {	/* a failed write, ignored */
		(void)bl_parcel_write_string(reply, "\xff");
		return 0;
	}
	return bl_parcel_write_i32(reply, 1);
}

static int svc_main(void *arg)
{
	struct bl_context *ctx = fbt_bl_open();
	struct bl_object *obj, *lie;
	int ret;

	(void)arg;
	ret = types_export(ctx, &service_ops, NULL, NULL, &obj);
	if (!ret)
		ret = bl_object_set_accept_fds(obj, true);
	if (!ret)
		ret = bl_sm_add(ctx, SVC, obj);
	if (!ret)
		ret = bl_object_new(ctx, liar, NULL, NULL, &lie);
	if (!ret)
		ret = bl_sm_add(ctx, LIAR, lie);
	if (ret)
		die("service: %s", strerror(-ret));
	bl_object_unref(obj);
	bl_object_unref(lie);
	bl_loop(ctx);
	return 0;
}

/* ---- the client -------------------------------------------------------------- */

static sem_t pinged;
static int64_t ping_seq;
static int32_t done_value;
static char done_note[64];

static int32_t c_done(void *self, int32_t value, const char *note,
		      const struct bl_call_info *info)
{
	(void)self; (void)info;
	done_value = value;
	snprintf(done_note, sizeof(done_note), "%s", note);
	return 0;
}

static int32_t c_ping(void *self, int64_t seq, const struct bl_call_info *info)
{
	(void)self; (void)info;
	ping_seq = seq;
	sem_post(&pinged);
	return 0;
}

static const struct callback_ops callback_impl = { .done = c_done, .ping = c_ping };

static bool sem_wait_ms(sem_t *s, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return sem_timedwait(s, &ts) == 0;
}

static void test_scalars(const struct types_proxy *p)
{
	int8_t b;
	uint16_t c;
	int32_t i;
	int64_t l;
	float f;
	double d;
	bool z;
	enum color col;
	char *s = NULL;

	CHECK(types_echo_byte(p, INT8_MIN, &b) == 0 && b == INT8_MIN, "byte min");
	CHECK(types_echo_byte(p, INT8_MAX, &b) == 0 && b == INT8_MAX, "byte max");
	CHECK(types_echo_char(p, 0xffff, &c) == 0 && c == 0xffff, "char");
	CHECK(types_echo_int(p, INT32_MIN, &i) == 0 && i == INT32_MIN, "int min");
	CHECK(types_echo_long(p, INT64_MIN, &l) == 0 && l == INT64_MIN, "long min");
	CHECK(types_echo_long(p, INT64_MAX, &l) == 0 && l == INT64_MAX, "long max");
	CHECK(types_echo_float(p, FLT_MAX, &f) == 0 && f == FLT_MAX, "float max");
	CHECK(types_echo_float(p, -0.25f, &f) == 0 && f == -0.25f, "float");
	CHECK(types_echo_float(p, INFINITY, &f) == 0 && isinf(f), "float inf");
	CHECK(types_echo_double(p, DBL_MIN, &d) == 0 && d == DBL_MIN, "double");
	CHECK(types_echo_double(p, NAN, &d) == 0 && isnan(d), "double NaN");
	CHECK(types_echo_bool(p, true, &z) == 0 && z, "bool true");
	CHECK(types_echo_bool(p, false, &z) == 0 && !z, "bool false");
	CHECK(types_echo_color(p, COLOR_BLUE, &col) == 0 && col == COLOR_BLUE,
	      "enum");
	CHECK(types_echo_string(p, "h\xc3\xa9llo", &s) == 0 && s &&
	      !strcmp(s, "h\xc3\xa9llo"), "string");
	free(s);
	s = NULL;
	CHECK(types_echo_string(p, "", &s) == 0 && s && !*s, "empty string");
	free(s);
	CHECK(types_echo_string(p, "bad \xff utf-8", &s) == -EINVAL,
	      "invalid UTF-8 is refused before sending");
	CHECK(types_echo_int(p, 5, NULL) == 0, "a NULL result pointer drops it");
	printf("ok: scalars, strings, enums\n");
}

static void test_arrays(const struct types_proxy *p)
{
	static const uint8_t bytes[] = { 0, 1, 0xfe, 0xff };
	static const int32_t ints[] = { INT32_MIN, -1, 0, 7, INT32_MAX };
	static const bool bools[] = { true, false, true };
	static const enum color cols[] = { COLOR_GREEN, COLOR_RED };
	static const struct point pts[] = { { 1, 2 }, { -3, 4 } };
	uint8_t *ob = NULL;
	int32_t *oi = NULL;
	bool *oz = NULL;
	enum color *oc = NULL;
	struct point *op = NULL;
	size_t n = 99;

	CHECK(types_echo_bytes(p, bytes, sizeof(bytes), &ob, &n) == 0 &&
	      n == sizeof(bytes) && !memcmp(ob, bytes, n), "byte[]");
	free(ob);
	ob = (uint8_t *)1;
	CHECK(types_echo_bytes(p, NULL, 0, &ob, &n) == 0 && n == 0 && !ob,
	      "empty byte[]");
	CHECK(types_echo_ints(p, ints, 5, &oi, &n) == 0 && n == 5 &&
	      !memcmp(oi, ints, sizeof(ints)), "int[]");
	free(oi);
	CHECK(types_echo_bools(p, bools, 3, &oz, &n) == 0 && n == 3 &&
	      oz[0] && !oz[1] && oz[2], "boolean[]");
	free(oz);
	CHECK(types_echo_colors(p, cols, 2, &oc, &n) == 0 && n == 2 &&
	      oc[0] == COLOR_GREEN && oc[1] == COLOR_RED, "enum[]");
	free(oc);
	CHECK(types_echo_points(p, pts, 2, &op, &n) == 0 && n == 2 &&
	      op[1].x == -3 && op[1].y == 4, "parcelable[]");
	free(op);
	CHECK(types_echo_ints(p, NULL, 3, &oi, &n) == -EINVAL,
	      "a NULL array with a length is refused");
	printf("ok: arrays\n");
}

static void test_parcelables(const struct types_proxy *p)
{
	struct point a = { 7, -7 }, b = { 0, 0 };
	struct point corners[3] = { { 1, 1 }, { 2, 2 }, { 3, 3 } };
	enum color palette[] = { COLOR_BLUE };
	uint8_t bitmap[] = { 9, 8 };
	int64_t ids[] = { 1, -1 };
	struct shape s = {
		.name = "square", .center = { 5, 6 }, .corners = corners,
		.corners_len = 3, .color = COLOR_GREEN, .palette = palette,
		.palette_len = 1, .bitmap = bitmap, .bitmap_len = 2, .ids = ids,
		.ids_len = 2, .weight = 1.5, .ratio = 0.5f, .filled = true,
		.letter = 'Z', .tag = -2,
	}, r;

	CHECK(types_echo_point(p, &a, &b) == 0 && b.x == 7 && b.y == -7,
	      "parcelable");
	memset(&r, 0, sizeof(r));
	CHECK(types_echo_shape(p, &s, &r) == 0, "nested parcelable");
	CHECK(r.name && !strcmp(r.name, "square") && r.center.y == 6 &&
	      r.corners_len == 3 && r.corners[2].x == 3 && r.color == COLOR_GREEN &&
	      r.palette_len == 1 && r.palette[0] == COLOR_BLUE &&
	      r.bitmap_len == 2 && r.bitmap[1] == 8 && r.ids_len == 2 &&
	      r.ids[1] == -1 && r.weight == 1.5 && r.ratio == 0.5f && r.filled &&
	      r.letter == 'Z' && r.tag == -2, "every field of the shape came back");
	shape_fini(&r);
	CHECK(!r.name && !r.corners, "shape_fini() empties it");
	CHECK(types_echo_point(p, NULL, &b) == -EINVAL, "a NULL parcelable");
	printf("ok: parcelables\n");
}

static void test_directions(const struct types_proxy *p)
{
	int32_t b = 0, c = 10, q1 = 0, rem = 0;
	char *s = NULL, *t = strdup("in");
	struct point pp = { 0, 0 }, q = { 100, 200 };
	int64_t *l = NULL, *m = malloc(2 * sizeof(*m));
	size_t l_len = 0, m_len = 2;

	m[0] = 5;
	m[1] = 6;
	CHECK(types_directions(p, 4, &b, &c, &s, &t, &pp, &q, &l, &l_len, &m,
			       &m_len) == 0, "directions");
	CHECK(b == 5, "out int: %d", b);
	CHECK(c == 20, "inout int: %d", c);
	CHECK(s && !strcmp(s, "out"), "out String");
	CHECK(t && !strcmp(t, "in!"), "inout String: %s", t ? t : "(null)");
	CHECK(pp.x == 4 && pp.y == -4, "out parcelable");
	CHECK(q.x == 101 && q.y == 202, "inout parcelable");
	CHECK(l_len == 3 && l[1] == INT64_MIN && l[2] == INT64_MAX, "out long[]");
	CHECK(m_len == 3 && m[0] == 5 && m[1] == 6 && m[2] == 9, "inout long[]");
	free(s);
	free(t);
	free(l);
	free(m);

	CHECK(types_divide(p, 7, 2, &rem, &q1) == 0 && q1 == 3 && rem == 1,
	      "result and out: 7 / 2 = %d rem %d", q1, rem);
	rem = q1 = 42;
	CHECK(types_divide(p, 7, 0, &rem, &q1) == -EDOM,
	      "the implementation's status reaches the caller");
	CHECK(rem == 42 && q1 == 42, "and the out values are left alone");
	CHECK(types_fail(p, 5) == 5, "a positive status");
	CHECK(types_fail(p, -EPERM) == -EPERM, "a negative one");
	CHECK(types_directions(p, 1, &b, NULL, &s, &t, &pp, &q, &l, &l_len, &m,
			       &m_len) == -EINVAL, "a NULL inout pointer");
	printf("ok: in, out, inout, result, status\n");
}

/* ---- the async variants ---- */

struct adone {
	int calls;
	int ret;
	int32_t q, rem;
	char *s;
};

/* cppcheck-suppress constParameter ; the type is types_divide_done */
static void on_divide(void *user, int ret, int32_t *rem, int32_t *q)
{
	struct adone *d = user;

	d->calls++;
	d->ret = ret;
	if (!ret) {
		d->rem = *rem;
		d->q = *q;
	} else {
		CHECK(!rem && !q, "out values on a failure");
	}
}

static void on_string(void *user, int ret, char **s)
{
	struct adone *d = user;

	d->calls++;
	d->ret = ret;
	d->s = ret ? NULL : *s;		/* the completion's: freed below */
}

static void test_async(struct bl_context *ctx, const struct types_proxy *p)
{
	struct pollfd pfd = { .events = POLLIN };
	struct adone d[3] = { { 0 } };
	struct bl_async *a;
	int n = 0, tries = 0;

	CHECK(bl_async_new(ctx, BL_ASYNC_POLL, 2, &a) == 0, "bl_async_new");
	pfd.fd = bl_async_fd(a);
	CHECK(types_divide_async(p, a, 7, 2, on_divide, &d[0]) == 0, "divide_async");
	CHECK(types_divide_async(p, a, 7, 0, on_divide, &d[1]) == 0, "divide_async /0");
	CHECK(types_echo_string_async(p, a, "h\xc3\xa9", on_string, &d[2]) == 0,
	      "echo_string_async");
	CHECK(types_divide_async(p, a, 7, 2, NULL, &d[0]) == -EINVAL, "no completion");
	while (n < 3 && tries++ < 100) {
		poll(&pfd, 1, 100);
		n += bl_dispatch(a);
	}
	CHECK(n == 3, "%d async completions of 3", n);
	CHECK(d[0].calls == 1 && d[0].ret == 0 && d[0].q == 3 && d[0].rem == 1,
	      "async 7 / 2: ret %d q %d rem %d", d[0].ret, d[0].q, d[0].rem);
	CHECK(d[1].calls == 1 && d[1].ret == -EDOM, "async 7 / 0: ret %d", d[1].ret);
	CHECK(d[2].calls == 1 && d[2].ret == 0 && d[2].s &&
	      !strcmp(d[2].s, "h\xc3\xa9"), "async echo_string");
	free(d[2].s);
	bl_async_destroy(a);
	printf("ok: async variants\n");
}

static void test_oneway_and_callbacks(struct bl_context *ctx,
				      const struct types_proxy *p)
{
	struct bl_object *cb;
	struct bl_binder back = { NULL, 0 };
	char *last = NULL;
	long long deadline;
	int32_t n = 0;
	int ret;

	CHECK(types_note(p, "first", 1) == 0, "oneway");
	CHECK(types_note(p, "second", 2) == 0, "oneway");
	/*
	 * A call is not ordered after oneway messages (binder's rule too):
	 * another pool thread may answer it before they are handled, so ask
	 * until both have counted, then check they came in order.
	 */
	deadline = fbt_now_ms() + fbt_deadline_ms(5000);
	for (;;) {
		free(last);
		last = NULL;
		ret = types_notes(p, &last, &n);
		if (ret || n >= 3 || fbt_now_ms() > deadline)
			break;
		usleep(1000);
	}
	CHECK(ret == 0 && n == 3 && last && !strcmp(last, "second"),
	      "both oneway messages arrived, in order (%d, %s)", n, last ? last : "(null)");
	free(last);

	CHECK(callback_export(ctx, &callback_impl, NULL, NULL, &cb) == 0, "export");
	CHECK(types_call_back(p, (struct bl_binder){ cb, 0 }, 77) == 0,
	      "call with a callback");
	CHECK(done_value == 77 && !strcmp(done_note, "from the service"),
	      "the callback ran, nested in the call (%d, %s)", done_value, done_note);
	CHECK(sem_wait_ms(&pinged, 5000) && ping_seq == 77000,
	      "the oneway callback ran on the pool (%lld)", (long long)ping_seq);
	CHECK(types_echo_binder(p, (struct bl_binder){ cb, 0 }, &back) == 0,
	      "an interface as a result");
	CHECK(back.obj == cb, "our own object came back as itself");
	bl_binder_release(ctx, &back);
	bl_object_unref(cb);
	printf("ok: oneway, callback, interface values\n");
}

static void test_fd_region(struct bl_context *ctx, const struct types_proxy *p)
{
	int fds[2], got = -1;
	char buf[8] = { 0 }, mem[64], copy[64];
	uint32_t region, back = 0;

	CHECK(pipe(fds) == 0, "pipe");
	CHECK(types_echo_fd(p, fds[1], &got) == 0 && got >= 0, "FileDescriptor");
	CHECK(got != fds[1] && write(got, "fd!", 3) == 3 &&
	      read(fds[0], buf, sizeof(buf)) == 3 && !strcmp(buf, "fd!"),
	      "the one that came back is a dup of ours");
	close(got);
	close(fds[0]);
	close(fds[1]);

	memset(mem, 'r', sizeof(mem));
	CHECK(bl_region_create(ctx, mem, sizeof(mem), BL_REGION_READ, &region) == 0,
	      "region");
	CHECK(types_echo_region(p, region, &back) == 0 && back, "MemoryRegion");
	CHECK(bl_region_read(ctx, back, 0, copy, sizeof(copy)) == 0 &&
	      !memcmp(copy, mem, sizeof(mem)), "the region that came back reads");
	bl_handle_release(ctx, back);
	bl_handle_release(ctx, region);
	printf("ok: FileDescriptor, MemoryRegion\n");
}

/* a request built by hand: the token, then items */
static int raw_call(struct bl_context *ctx, uint32_t h, uint32_t code,
		    const char *token, int what, int32_t *status)
{
	struct bl_parcel req = BL_PARCEL_INIT;
	struct bl_reply rep;
	int ret = token ? bl_parcel_write_string(&req, token) : 0;

	if (!ret && what == 1)
		ret = bl_parcel_write_i32(&req, 7);	/* not a Color */
	if (!ret && what == 2) {			/* an int and one item more */
		ret = bl_parcel_write_i32(&req, 1);
		if (!ret)
			ret = bl_parcel_write_i32(&req, 2);
	}
	if (!ret && what == 3)
		ret = bl_parcel_write_double(&req, 0.1);	/* no float is 0.1 */
	if (!ret && what == 4)
		ret = bl_parcel_write_i64(&req, 1);	/* a long for an int */
	if (!ret)
		ret = bl_call(ctx, h, code, &req, &rep, 5000);
	bl_parcel_fini(&req);
	if (ret)
		return ret;
	*status = rep.status;
	bl_reply_fini(&rep);
	return 0;
}

static void test_refusals(struct bl_context *ctx, const struct types_proxy *p)
{
	struct callback_proxy wrong;
	struct types_proxy lie;
	int32_t st = 0, i;
	int64_t l;
	char *s = NULL;

	/* a proxy of another interface on the same object */
	CHECK(callback_proxy_wrap(ctx, p->handle, &wrong) == 0, "wrap");
	CHECK(callback_done(&wrong, 1, "x") == -EPROTOTYPE,
	      "a call with another interface's token: -EPROTOTYPE");
	callback_proxy_release(&wrong);
	CHECK(raw_call(ctx, p->handle, TYPES_CODE_ECHO_INT, NULL, 0, &st) == 0 &&
	      st == -EPROTOTYPE, "no token at all: -EPROTOTYPE (%d)", st);
	CHECK(raw_call(ctx, p->handle, TYPES_CODE_ECHO_INT, "fastbinder.test.ITypez",
		       2, &st) == 0 && st == -EPROTOTYPE, "a near token: %d", st);
	CHECK(raw_call(ctx, p->handle, 999, TYPES_DESCRIPTOR, 0, &st) == 0 &&
	      st == -EOPNOTSUPP, "an unknown code: -EOPNOTSUPP (%d)", st);
	CHECK(raw_call(ctx, p->handle, TYPES_CODE_ECHO_COLOR, TYPES_DESCRIPTOR, 1,
		       &st) == 0 && st == -EBADMSG, "an undeclared enum value: %d", st);
	CHECK(raw_call(ctx, p->handle, TYPES_CODE_ECHO_INT, TYPES_DESCRIPTOR, 2,
		       &st) == 0 && st == -EBADMSG, "a trailing item: %d", st);
	CHECK(raw_call(ctx, p->handle, TYPES_CODE_ECHO_FLOAT, TYPES_DESCRIPTOR, 3,
		       &st) == 0 && st == -EBADMSG, "a double for a float: %d", st);
	CHECK(raw_call(ctx, p->handle, TYPES_CODE_ECHO_INT, TYPES_DESCRIPTOR, 4,
		       &st) == 0 && st == -EBADMSG, "a long for an int: %d", st);
	CHECK(raw_call(ctx, p->handle, TYPES_CODE_ECHO_INT, TYPES_DESCRIPTOR, 0,
		       &st) == 0 && st == -EBADMSG, "a missing argument: %d", st);

	/* a reply that is not what the method returns */
	CHECK(types_proxy_get(ctx, LIAR, 5000, &lie) == 0, "the liar");
	i = 12345;
	CHECK(types_echo_int(&lie, 1, &i) == -EPROTO && i == 12345,
	      "a string for an int in the reply: -EPROTO, result untouched");
	CHECK(types_echo_long(&lie, 1, &l) == -EPROTO, "an extra item: -EPROTO");
	CHECK(types_echo_string(&lie, "x", &s) == -EPROTO && !s,
	      "an i32 for a String: -EPROTO");
	CHECK(types_echo_double(&lie, 1.0, NULL) == -EINVAL,
	      "a handler whose reply write failed: the write's error, not half a reply");
	types_proxy_release(&lie);

	/* the parcel's first write error is sticky: the call returns it */
	{
		struct bl_parcel req = BL_PARCEL_INIT;
		struct bl_reply rep;

		CHECK(bl_parcel_write_string(&req, TYPES_DESCRIPTOR) == 0 &&
		      bl_parcel_write_string(&req, "\xff") == -EINVAL &&
		      bl_parcel_write_i32(&req, 1) == 0 && bl_parcel_error(&req) == -EINVAL,
		      "a failed write among good ones");
		CHECK(bl_call(ctx, p->handle, TYPES_CODE_ECHO_INT, &req, &rep, 5000) == -EINVAL,
		      "bl_call() refuses the parcel with its first error");
		CHECK(bl_send_oneway(ctx, p->handle, TYPES_CODE_NOTE, &req) == -EINVAL,
		      "so does bl_send_oneway()");
		bl_parcel_fini(&req);
	}
	printf("ok: tokens, codes, malformed requests and replies, sticky errors\n");
}

static void test_versions(const struct types_proxy *p)
{
	int32_t v = 0;
	char *hash = NULL;
	struct callback_proxy cb;

	CHECK(types_get_interface_version(p, &v) == 0 && v == TYPES_VERSION &&
	      v == 2, "version %d", v);
	CHECK(types_get_interface_hash(p, &hash) == 0 && hash &&
	      !strcmp(hash, TYPES_HASH) && strlen(hash) == 16, "hash %s",
	      hash ? hash : "(null)");
	free(hash);
	/* ICallback is not stable: the built-ins are unknown codes to it */
	CHECK(callback_proxy_wrap(p->ctx, p->handle, &cb) == 0, "wrap");
	CHECK(callback_get_interface_version(&cb, &v) == -EPROTOTYPE,
	      "the version built-in checks the token too");
	callback_proxy_release(&cb);
	printf("ok: version and hash\n");
}

static int client(void *arg)
{
	struct bl_context *ctx;
	struct types_proxy p;
	pid_t svc;
	int ret;

	(void)arg;
	sem_init(&pinged, 0, 0);
	svc = fbt_fork(svc_main, NULL);
	ctx = fbt_bl_open();
	ret = types_proxy_get(ctx, SVC, 5000, &p);
	if (ret)
		die("no service: %s", strerror(-ret));
	CHECK(bl_pool_start(ctx, 1, 1) == 0, "pool");
	CHECK(!strcmp(TYPES_DESCRIPTOR, "fastbinder.test.ITypes"), "descriptor");
	CHECK(TYPES_CODE_ECHO_BYTE == 1 && TYPES_CODE_DIE == 27,
	      "codes by declaration order");
	CHECK(TYPES_BIG == INT64_MIN && TYPES_YES && POINT_ORIGIN == 0 &&
	      !strcmp(TYPES_GREETING, "hello \"types\""), "constants");

	test_scalars(&p);
	test_arrays(&p);
	test_parcelables(&p);
	test_directions(&p);
	test_oneway_and_callbacks(ctx, &p);
	test_fd_region(ctx, &p);
	test_refusals(ctx, &p);
	test_versions(&p);
	test_async(ctx, &p);

	CHECK(types_sleep_timeout(&p, 2000, 100) == -ETIMEDOUT,
	      "the timeout variant");
	CHECK(types_sleep(&p, 1) == 0, "and the proxy works after it");
	CHECK(types_die(&p) == -EOWNERDEAD, "the server dies in the call: -EOWNERDEAD");
	CHECK(fbt_wait(svc) == 3, "it exited in the method");
	CHECK(types_echo_int(&p, 1, NULL) == -EOWNERDEAD, "and stays dead");

	types_proxy_release(&p);
	bl_context_close(ctx);
	return fbt_done();
}

int main(void)
{
	pid_t mgr = fbt_bl_manager_start();
	int st = fbt_run_as_nobody(client, NULL);

	fbt_bl_kill(mgr);
	CHECK(st == 0, "the calls, as uid 65534: status %d", st);
	return fbt_done();
}
