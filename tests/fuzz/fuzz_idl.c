// SPDX-License-Identifier: MIT
/*
 * fuzz_idl.c - libFuzzer target for a dispatch fbidl generated: the
 * server side of one test interface (tests/idl/NAME.fbidl), fed arbitrary
 * requests.  Built once per interface (tests/fuzz/fuzz.mk): -DFZ_TYPES,
 * -DFZ_VERSIONED or -DFZ_VERSIONED_V1.
 *
 * Input: u8 selector (the method code: 1..n, the two built-ins, or an
 * unknown code), then the request's bytes (a parcel without objects: the
 * stub reads objects and descriptors through a context, which a host
 * process has not; their reads fail as a message without offsets makes
 * them).  Beyond the sanitizers (ASan reports a leak of anything the stub
 * allocated and did not free), the implementations check that the stub
 * hands them only what the interface allows: declared enum values,
 * booleans, non-NULL strings, arrays whose pointer is set when their
 * length is not 0; the target checks that a refused request (-EBADMSG,
 * -EPROTOTYPE) never reached an implementation, that a method that
 * succeeded did, that no other error comes out, and that the reply is
 * complete or empty.  Each implementation returns allocated out values,
 * which the stub must write and free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binderlite.h"
#include "types.h"
#include "versioned.h"
#include "versioned_v1.h"

#define fz_assert(c) do { if (!(c)) { \
	fprintf(stderr, "fuzz_idl: %s:%d: %s\n", __FILE__, __LINE__, #c); \
	abort(); } } while (0)

/* Set by every implementation: it was called. */
static bool called;

static int32_t impl_ok(void)
{
	called = true;
	return 0;
}

#ifdef FZ_TYPES
static bool color_ok(enum color c)
{
	return c == COLOR_RED || c == COLOR_GREEN || c == COLOR_BLUE;
}

static void check_string(const char *s)
{
	fz_assert(s);
	fz_assert(strlen(s) < (1u << 30));
}

#define SCALAR(name, type) \
	static int32_t name(void *self, type v, type *result, \
			    const struct bl_call_info *info) \
	{ \
		(void)self; (void)info; \
		*result = v; \
		return impl_ok(); \
	}
SCALAR(t_byte, int8_t)
SCALAR(t_char, uint16_t)
SCALAR(t_int, int32_t)
SCALAR(t_long, int64_t)
SCALAR(t_double, double)
SCALAR(t_bool, bool)

static int32_t t_float(void *self, float v, float *result,
		       const struct bl_call_info *info)
{
	(void)self; (void)info;
	*result = v;
	return impl_ok();
}

static int32_t t_color(void *self, enum color v, enum color *result,
		       const struct bl_call_info *info)
{
	(void)self; (void)info;
	fz_assert(color_ok(v));
	*result = v;
	return impl_ok();
}

static int32_t t_string(void *self, const char *v, char **result,
			const struct bl_call_info *info)
{
	(void)self; (void)info;
	check_string(v);
	*result = strdup(v);
	return *result ? impl_ok() : -ENOMEM;
}

/* copies an array into a malloc'ed out value, as an implementation would */
static int32_t copy_out(const void *v, size_t n, size_t size, void **out,
			size_t *out_len)
{
	fz_assert(v || !n);
	*out_len = n;
	if (!n)
		return impl_ok();
	*out = malloc(n * size);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, v, n * size);
	return impl_ok();
}

static int32_t t_bytes(void *self, const uint8_t *v, size_t n, uint8_t **result,
		       size_t *result_len, const struct bl_call_info *info)
{
	void *o = NULL;
	int32_t st = copy_out(v, n, 1, &o, result_len);

	(void)self; (void)info;
	*result = o;
	return st;
}

static int32_t t_ints(void *self, const int32_t *v, size_t n, int32_t **result,
		      size_t *result_len, const struct bl_call_info *info)
{
	void *o = NULL;
	int32_t st = copy_out(v, n, sizeof(*v), &o, result_len);

	(void)self; (void)info;
	*result = o;
	return st;
}

static int32_t t_bools(void *self, const bool *v, size_t n, bool **result,
		       size_t *result_len, const struct bl_call_info *info)
{
	void *o = NULL;
	int32_t st = copy_out(v, n, sizeof(*v), &o, result_len);

	(void)self; (void)info;
	for (size_t i = 0; i < n; i++)
		fz_assert(v[i] == true || v[i] == false);
	*result = o;
	return st;
}

static int32_t t_colors(void *self, const enum color *v, size_t n,
			enum color **result, size_t *result_len,
			const struct bl_call_info *info)
{
	void *o = NULL;
	int32_t st;

	(void)self; (void)info;
	for (size_t i = 0; i < n; i++)
		fz_assert(color_ok(v[i]));
	st = copy_out(v, n, sizeof(*v), &o, result_len);
	*result = o;
	return st;
}

static int32_t t_point(void *self, const struct point *v, struct point *result,
		       const struct bl_call_info *info)
{
	(void)self; (void)info;
	*result = *v;
	return impl_ok();
}

/* a deep copy through the generated writer and reader */
static int32_t t_shape(void *self, const struct shape *v, struct shape *result,
		       const struct bl_call_info *info)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r;
	int ret;

	(void)self; (void)info;
	check_string(v->name);
	fz_assert(color_ok(v->color));
	for (size_t i = 0; i < v->palette_len; i++)
		fz_assert(color_ok(v->palette[i]));
	fz_assert(v->corners || !v->corners_len);
	ret = shape_write(&p, v);
	if (!ret)
		ret = bl_reader_init_parcel(&r, &p);
	if (!ret)
		ret = shape_read(&r, result);
	bl_parcel_fini(&p);
	fz_assert(ret == 0 || ret == -ENOMEM);
	return ret ? ret : impl_ok();
}

static int32_t t_points(void *self, const struct point *v, size_t n,
			struct point **result, size_t *result_len,
			const struct bl_call_info *info)
{
	void *o = NULL;
	int32_t st = copy_out(v, n, sizeof(*v), &o, result_len);

	(void)self; (void)info;
	*result = o;
	return st;
}

static int32_t t_directions(void *self, int32_t a, int32_t *b, int32_t *c,
			    char **s, char **t, struct point *p, struct point *q,
			    int64_t **l, size_t *l_len, int64_t **m, size_t *m_len,
			    const struct bl_call_info *info)
{
	(void)self; (void)info; (void)p; (void)q;
	check_string(*t);
	fz_assert(*m || !*m_len);
	if (*m_len > 1)
		*m_len = 1;	/* an inout array that shrinks */
	*b = a;
	*c = a;
	*s = strdup("s");
	*l = calloc(2, sizeof(**l));
	if (*l)
		*l_len = 2;
	return *s && *l ? impl_ok() : -ENOMEM;
}

static int32_t t_divide(void *self, int32_t a, int32_t b, int32_t *rem,
			int32_t *result, const struct bl_call_info *info)
{
	(void)self; (void)info;
	*rem = a;
	*result = b;
	return impl_ok();
}

static int32_t t_note(void *self, const char *text, int32_t n,
		      const struct bl_call_info *info)
{
	(void)self; (void)info; (void)n;
	check_string(text);
	return impl_ok();
}

static int32_t t_notes(void *self, char **last, int32_t *result,
		       const struct bl_call_info *info)
{
	(void)self; (void)info;
	*last = strdup("last");
	*result = 1;
	return *last ? impl_ok() : -ENOMEM;
}

static int32_t t_fail(void *self, int32_t status, const struct bl_call_info *info)
{
	(void)self; (void)info; (void)status;
	return impl_ok();
}

static int32_t t_sleep(void *self, int32_t ms, const struct bl_call_info *info)
{
	(void)self; (void)info; (void)ms;
	return impl_ok();
}

/*
 * Not set: call_back, echo_binder, echo_fd, echo_region (their arguments
 * cannot be read without objects) and die.
 */
static const struct types_ops ops = {
	.echo_byte = t_byte, .echo_char = t_char, .echo_int = t_int,
	.echo_long = t_long, .echo_float = t_float, .echo_double = t_double,
	.echo_bool = t_bool, .echo_string = t_string, .echo_bytes = t_bytes,
	.echo_ints = t_ints, .echo_bools = t_bools, .echo_color = t_color,
	.echo_colors = t_colors, .echo_point = t_point, .echo_shape = t_shape,
	.echo_points = t_points, .directions = t_directions, .divide = t_divide,
	.note = t_note, .notes = t_notes, .fail = t_fail, .sleep = t_sleep,
};
#define NCODES		TYPES_CODE_DIE
#define DISPATCH	types_dispatch
#else
static int32_t v_first(void *self, int32_t x, int32_t *result,
		       const struct bl_call_info *info)
{
	(void)self; (void)info;
	*result = x;
	return impl_ok();
}

#ifdef FZ_VERSIONED
static const struct versioned_ops ops = { .first = v_first, .second = v_first };
#define NCODES		VERSIONED_CODE_SECOND
#define DISPATCH	versioned_dispatch
#else
static const struct versioned_v1_ops ops = { .first = v_first };
#define NCODES		VERSIONED_V1_CODE_FIRST
#define DISPATCH	versioned_v1_dispatch
#endif
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bl_call_info info = { .code = 0 };
	struct bl_parcel reply = BL_PARCEL_INIT;
	struct bl_reader r;
	uint32_t code;
	uint8_t sel;
	int32_t st;

	if (!size)
		return 0;
	sel = data[0] % (NCODES + 3);
	code = sel >= 1 && sel <= NCODES ? sel : sel == NCODES + 1 ?
	       BL_IDL_CODE_VERSION : sel == NCODES + 2 ? BL_IDL_CODE_HASH : 0;
	if (bl_reader_init(&r, data + 1, size - 1, NULL, 0))
		return 0;
	info.code = code;
	called = false;
	st = DISPATCH(&ops, NULL, code, &r, &reply, &info);
	if (getenv("FUZZ_IDL_VERBOSE"))	/* which seeds reach what */
		fprintf(stderr, "fuzz_idl: code %u: status %d\n", code, st);
	/* the reply is complete, or empty after a failure */
	fz_assert(!bl_parcel_open_arrays(&reply));
	if (st)
		fz_assert(bl_parcel_size(&reply) == 0);
	/* errors are the stub's documented ones (or out of memory) */
	fz_assert(st == 0 || st == -EPROTOTYPE || st == -EOPNOTSUPP ||
		  st == -EBADMSG || st == -ENOMEM);
	/* a refused request never reaches the implementation */
	if (st == -EPROTOTYPE || st == -EBADMSG)
		fz_assert(!called);
	if (!st && code >= 1 && code <= NCODES)
		fz_assert(called);
	bl_parcel_fini(&reply);
	return 0;
}
