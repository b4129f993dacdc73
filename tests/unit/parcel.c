// SPDX-License-Identifier: MIT
/*
 * parcel.c - host unit tests (libcheck) for the libbinderlite parcels.
 *
 * Build: cc -std=c11 -I uapi -I libbinderlite/include $(pkg-config --cflags
 *        check) tests/unit/parcel.c build/libbinderlite/libbinderlite.a
 *        $(pkg-config --libs check)
 * Links: build/libbinderlite/libbinderlite.a (the static library: the test
 *        uses the internal allocation hook bl__realloc_hook, which the
 *        shared library does not export) and libcheck.
 * Run:   make check-host   (under valgrind, CK_FORK=no)
 *
 * Covers: round trips of every type; the exact wire layout; every class of
 * malformed input (truncation at every byte, wrong and unknown tags, bad
 * values and padding, hostile lengths, bad offsets arrays, objects not at
 * listed offsets, listed offsets inside plain values); writer growth; the
 * -ENOMEM paths through an allocation hook; API misuse; and the
 * service-name rule of binderlite.h (bl_sm_name_char(), bl_sm_name_valid()).
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binderlite.h"
#include "../../libbinderlite/internal.h"

/* ---- helpers ----------------------------------------------------------- */

static void put32(void *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(void *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* A copy of a parcel's bytes and offsets that a test may corrupt. */
struct msg {
	uint8_t *data;
	size_t size;
	uint64_t offs[64];
	size_t noffs;
};

static void msg_from(struct msg *m, const struct bl_parcel *p)
{
	ck_assert_int_eq(bl_parcel_open_arrays(p), 0);
	m->size = bl_parcel_size(p);
	m->data = malloc(m->size ? m->size : 1);
	ck_assert_ptr_nonnull(m->data);
	memcpy(m->data, bl_parcel_data(p), m->size);
	m->noffs = bl_parcel_offsets_count(p);
	ck_assert_uint_le(m->noffs, 64);
	if (m->noffs)
		memcpy(m->offs, bl_parcel_offsets(p), m->noffs * 8);
}

static void msg_free(struct msg *m)
{
	free(m->data);
	m->data = NULL;
}

static void msg_reader(struct bl_reader *r, const struct msg *m)
{
	ck_assert_int_eq(bl_reader_init(r, m->data, m->size, m->offs, m->noffs), 0);
}

/* Reads any type by enum, for table-driven tests. */
static int read_as(struct bl_reader *r, enum bl_type t)
{
	union { uint8_t u8; int8_t i8; uint16_t u16; int16_t i16; uint32_t u32;
		int32_t i32; uint64_t u64; int64_t i64; bool b; double d;
		struct fbinder_object o; int fd; } v;
	const void *ptr;
	const char *s;
	size_t len;
	struct bl_reader sub;

	switch (t) {
	case BL_TYPE_U8: return bl_reader_read_u8(r, &v.u8);
	case BL_TYPE_I8: return bl_reader_read_i8(r, &v.i8);
	case BL_TYPE_U16: return bl_reader_read_u16(r, &v.u16);
	case BL_TYPE_I16: return bl_reader_read_i16(r, &v.i16);
	case BL_TYPE_U32: return bl_reader_read_u32(r, &v.u32);
	case BL_TYPE_I32: return bl_reader_read_i32(r, &v.i32);
	case BL_TYPE_U64: return bl_reader_read_u64(r, &v.u64);
	case BL_TYPE_I64: return bl_reader_read_i64(r, &v.i64);
	case BL_TYPE_BOOL: return bl_reader_read_bool(r, &v.b);
	case BL_TYPE_DOUBLE: return bl_reader_read_double(r, &v.d);
	case BL_TYPE_STRING: return bl_reader_read_string(r, &s, &len);
	case BL_TYPE_BLOB: return bl_reader_read_blob(r, &ptr, &len);
	case BL_TYPE_OBJECT: return bl_reader_read_object(r, &v.o);
	case BL_TYPE_FD: return bl_reader_read_fd(r, &v.fd);
	case BL_TYPE_ARRAY: return bl_reader_enter_array(r, &sub, NULL);
	case BL_TYPE_FD_ARRAY: return bl_reader_read_fd_array(r, &v.fd, 1, NULL);
	}
	return -999;
}

#define NTYPES 15

/*
 * A parcel with one item of every type, in enum order (the array holds a
 * u32 and a handle).  item_start[] receives the start of each item.
 */
static void write_every_type(struct bl_parcel *p, size_t *item_start)
{
	size_t i = 0;

#define AT() do { if (item_start) item_start[i] = bl_parcel_size(p); i++; } while (0)
	AT(); ck_assert_int_eq(bl_parcel_write_u8(p, 0xab), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_i8(p, -5), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_u16(p, 0xbeef), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_i16(p, -30000), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_u32(p, 0xdeadbeef), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_i32(p, INT32_MIN), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_u64(p, UINT64_MAX), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_i64(p, INT64_MIN), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_bool(p, true), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_double(p, -2.5), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_string(p, "h\xc3\xa9llo"), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_blob(p, "\x01\x02\x03", 3), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_local(p, 0x1122334455667788ull), 0);
	AT(); ck_assert_int_eq(bl_parcel_write_fd(p, 7), 0);
	AT(); ck_assert_int_eq(bl_parcel_begin_array(p), 0);
	ck_assert_int_eq(bl_parcel_write_u32(p, 42), 0);
	ck_assert_int_eq(bl_parcel_write_handle(p, 9), 0);
	ck_assert_int_eq(bl_parcel_end_array(p), 0);
#undef AT
}

/* ---- round trips ------------------------------------------------------- */

START_TEST(test_roundtrip_scalars)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r;
	uint8_t u8; int8_t i8; uint16_t u16; int16_t i16; uint32_t u32;
	int32_t i32; uint64_t u64; int64_t i64; bool b; double d;
	int k;

	for (k = 0; k < 2; k++) {
		ck_assert_int_eq(bl_parcel_write_u8(&p, k ? UINT8_MAX : 0), 0);
		ck_assert_int_eq(bl_parcel_write_i8(&p, k ? INT8_MIN : INT8_MAX), 0);
		ck_assert_int_eq(bl_parcel_write_u16(&p, k ? UINT16_MAX : 0), 0);
		ck_assert_int_eq(bl_parcel_write_i16(&p, k ? INT16_MIN : INT16_MAX), 0);
		ck_assert_int_eq(bl_parcel_write_u32(&p, k ? UINT32_MAX : 0), 0);
		ck_assert_int_eq(bl_parcel_write_i32(&p, k ? INT32_MIN : INT32_MAX), 0);
		ck_assert_int_eq(bl_parcel_write_u64(&p, k ? UINT64_MAX : 0), 0);
		ck_assert_int_eq(bl_parcel_write_i64(&p, k ? INT64_MIN : INT64_MAX), 0);
		ck_assert_int_eq(bl_parcel_write_bool(&p, k), 0);
		ck_assert_int_eq(bl_parcel_write_double(&p, k ? -INFINITY : 3.25), 0);
	}
	ck_assert_int_eq(bl_parcel_write_double(&p, NAN), 0);
	ck_assert_uint_eq(bl_parcel_size(&p) % 8, 0);
	ck_assert_uint_eq(bl_parcel_offsets_count(&p), 0);

	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	for (k = 0; k < 2; k++) {
		ck_assert_int_eq(bl_reader_read_u8(&r, &u8), 0);
		ck_assert_uint_eq(u8, k ? UINT8_MAX : 0);
		ck_assert_int_eq(bl_reader_read_i8(&r, &i8), 0);
		ck_assert_int_eq(i8, k ? INT8_MIN : INT8_MAX);
		ck_assert_int_eq(bl_reader_read_u16(&r, &u16), 0);
		ck_assert_uint_eq(u16, k ? UINT16_MAX : 0);
		ck_assert_int_eq(bl_reader_read_i16(&r, &i16), 0);
		ck_assert_int_eq(i16, k ? INT16_MIN : INT16_MAX);
		ck_assert_int_eq(bl_reader_read_u32(&r, &u32), 0);
		ck_assert_uint_eq(u32, k ? UINT32_MAX : 0);
		ck_assert_int_eq(bl_reader_read_i32(&r, &i32), 0);
		ck_assert_int_eq(i32, k ? INT32_MIN : INT32_MAX);
		ck_assert_int_eq(bl_reader_read_u64(&r, &u64), 0);
		ck_assert(u64 == (k ? UINT64_MAX : 0));
		ck_assert_int_eq(bl_reader_read_i64(&r, &i64), 0);
		ck_assert(i64 == (k ? INT64_MIN : INT64_MAX));
		ck_assert_int_eq(bl_reader_read_bool(&r, &b), 0);
		ck_assert_int_eq(b, k);
		ck_assert_int_eq(bl_reader_read_double(&r, &d), 0);
		ck_assert(d == (k ? -INFINITY : 3.25));
	}
	ck_assert_int_eq(bl_reader_read_double(&r, &d), 0);
	ck_assert(isnan(d));
	ck_assert_int_eq(bl_reader_read_u8(&r, &u8), -ENODATA);
	ck_assert_int_eq(bl_reader_remaining(&r), 0);
	bl_parcel_fini(&p);
}
END_TEST

START_TEST(test_roundtrip_strings)
{
	static const char *const strs[] = {
		"", "a", "abcdefg", "abcdefgh", "abcdefghi",
		"\xc3\xa9", "\xe2\x82\xac uro", "\xf0\x9f\x98\x80 smile",
		"\xf4\x8f\xbf\xbf", "\xed\x9f\xbf",
	};
	struct bl_parcel p;
	struct bl_reader r;
	const char *s;
	size_t i, len;
	char longer[300];

	bl_parcel_init(&p);
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		ck_assert_int_eq(bl_parcel_write_string(&p, strs[i]), 0);
	/* not terminated in memory */
	ck_assert_int_eq(bl_parcel_write_string_len(&p, "xyzXYZ", 3), 0);
	ck_assert_int_eq(bl_parcel_write_string_len(&p, NULL, 0), 0);
	memset(longer, 'q', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	ck_assert_int_eq(bl_parcel_write_string(&p, longer), 0);

	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		ck_assert_int_eq(bl_reader_read_string(&r, &s, &len), 0);
		ck_assert_str_eq(s, strs[i]);
		ck_assert_uint_eq(len, strlen(strs[i]));
		/* zero copy: the pointer is inside the parcel */
		ck_assert(s > (const char *)bl_parcel_data(&p) &&
			  s < (const char *)bl_parcel_data(&p) + bl_parcel_size(&p));
	}
	ck_assert_int_eq(bl_reader_read_string(&r, &s, &len), 0);
	ck_assert_str_eq(s, "xyz");
	ck_assert_int_eq(bl_reader_read_string(&r, &s, NULL), 0);
	ck_assert_str_eq(s, "");
	ck_assert_int_eq(bl_reader_read_string(&r, NULL, &len), 0);
	ck_assert_uint_eq(len, 299);
	ck_assert_int_eq(bl_reader_read_string(&r, &s, &len), -ENODATA);
	bl_parcel_fini(&p);
}
END_TEST

/* The descriptor token's pair: written unchecked, checked by comparison. */
START_TEST(test_token)
{
	struct bl_parcel p;
	struct bl_reader r;
	const char *s;
	size_t len;
	uint8_t *d;

	bl_parcel_init(&p);
	ck_assert_int_eq(bl_parcel_write_token(&p, "a.b.IFace", 9), 0);
	ck_assert_int_eq(bl_parcel_write_token(&p, "a.b.IFace", 9), 0);
	ck_assert_int_eq(bl_parcel_write_i32(&p, 5), 0);
	ck_assert_int_eq(bl_parcel_write_token(NULL, "x", 1), -EINVAL);
	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	/* the same item as any string */
	ck_assert_int_eq(bl_reader_read_string(&r, &s, &len), 0);
	ck_assert_str_eq(s, "a.b.IFace");
	/* another string, shorter, longer, another type: the position stays */
	ck_assert_int_eq(bl_reader_expect_string(&r, "a.b.IFacf", 9), -EBADMSG);
	ck_assert_int_eq(bl_reader_expect_string(&r, "a.b.IFac", 8), -EBADMSG);
	ck_assert_int_eq(bl_reader_expect_string(&r, "a.b.IFaces", 10), -EBADMSG);
	ck_assert_int_eq(bl_reader_expect_string(&r, "a.b.IFace", 9), 0);
	ck_assert_int_eq(bl_reader_expect_string(&r, "a.b.IFace", 9), -EBADMSG);
	ck_assert_int_eq(bl_reader_read_i32(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_expect_string(&r, "a", 1), -ENODATA);
	/* equal bytes with a nonzero padding byte, or no terminator: malformed */
	d = (uint8_t *)bl_parcel_data(&p);
	d[8 + 9 + 1] = 1;
	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	ck_assert_int_eq(bl_reader_expect_string(&r, "a.b.IFace", 9), -EBADMSG);
	d[8 + 9 + 1] = 0;
	d[8 + 9] = 'x';
	ck_assert_int_eq(bl_reader_expect_string(&r, "a.b.IFace", 9), -EBADMSG);
	bl_parcel_fini(&p);
}
END_TEST

START_TEST(test_roundtrip_blobs)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r;
	uint8_t buf[64];
	const void *ptr;
	void *w;
	size_t i, len;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	for (i = 0; i <= 40; i++)
		ck_assert_int_eq(bl_parcel_write_blob(&p, buf, i), 0);
	ck_assert_int_eq(bl_parcel_write_blob(&p, NULL, 0), 0);
	ck_assert_int_eq(bl_parcel_alloc_blob(&p, 5, &w), 0);
	ck_assert_mem_eq(w, "\0\0\0\0\0", 5);
	memcpy(w, "hello", 5);

	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	for (i = 0; i <= 40; i++) {
		ck_assert_int_eq(bl_reader_read_blob(&r, &ptr, &len), 0);
		ck_assert_uint_eq(len, i);
		if (i)
			ck_assert_mem_eq(ptr, buf, i);
	}
	ck_assert_int_eq(bl_reader_read_blob(&r, &ptr, &len), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_int_eq(bl_reader_read_blob(&r, &ptr, &len), 0);
	ck_assert_uint_eq(len, 5);
	ck_assert_mem_eq(ptr, "hello", 5);
	ck_assert_int_eq(bl_reader_read_blob(&r, &ptr, &len), -ENODATA);
	bl_parcel_fini(&p);
}
END_TEST

START_TEST(test_roundtrip_objects)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r;
	struct fbinder_object o, in = { .type = FBINDER_OBJ_HANDLE, .handle = 77 };
	const uint64_t *offs;
	uint64_t cookie;
	uint32_t handle;
	int fd;
	size_t pos;

	ck_assert_int_eq(bl_parcel_write_u8(&p, 1), 0);
	ck_assert_int_eq(bl_parcel_write_local(&p, 0xfeedfacecafebeefull), 0);
	ck_assert_int_eq(bl_parcel_write_string(&p, "abc"), 0);
	ck_assert_int_eq(bl_parcel_write_handle(&p, 5), 0);
	ck_assert_int_eq(bl_parcel_write_fd(&p, 3), 0);
	ck_assert_int_eq(bl_parcel_write_object(&p, &in), 0);
	ck_assert_int_eq(bl_parcel_write_handle(&p, 0), 0);

	ck_assert_uint_eq(bl_parcel_offsets_count(&p), 5);
	offs = bl_parcel_offsets(&p);
	ck_assert_uint_eq(offs[0], 16);		/* u8 item 8, tag 8 */
	ck_assert_uint_eq(offs[1], 8 + 24 + 16 + 8);	/* after "abc" (16) */
	ck_assert_uint_eq(offs[2], offs[1] + 24);
	ck_assert_uint_eq(offs[3], offs[2] + 24);
	ck_assert_uint_eq(offs[4], offs[3] + 24);
	memcpy(&o, (const uint8_t *)bl_parcel_data(&p) + offs[0], sizeof(o));
	ck_assert_uint_eq(o.type, FBINDER_OBJ_LOCAL);
	ck_assert_uint_eq(o.flags, 0);
	ck_assert(o.cookie == 0xfeedfacecafebeefull);

	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	ck_assert_int_eq(bl_reader_read_u8(&r, NULL), 0);
	/* a kind mismatch is -EBADMSG and leaves the reader in place */
	pos = bl_reader_position(&r);
	ck_assert_int_eq(bl_reader_read_handle(&r, &handle), -EBADMSG);
	ck_assert_int_eq(bl_reader_read_fd(&r, &fd), -EBADMSG);
	ck_assert_int_eq(bl_reader_read_u64(&r, NULL), -EBADMSG);
	ck_assert_uint_eq(bl_reader_position(&r), pos);
	ck_assert_int_eq(bl_reader_read_local(&r, &cookie), 0);
	ck_assert(cookie == 0xfeedfacecafebeefull);
	ck_assert_int_eq(bl_reader_read_string(&r, NULL, NULL), 0);
	ck_assert_int_eq(bl_reader_read_local(&r, &cookie), -EBADMSG);
	ck_assert_int_eq(bl_reader_read_object(&r, &o), 0);
	ck_assert_uint_eq(o.type, FBINDER_OBJ_HANDLE);
	ck_assert_uint_eq(o.handle, 5);
	ck_assert_int_eq(bl_reader_read_object(&r, &o), -EBADMSG); /* an fd */
	ck_assert_int_eq(bl_reader_read_fd(&r, &fd), 0);
	ck_assert_int_eq(fd, 3);
	ck_assert_int_eq(bl_reader_read_handle(&r, &handle), 0);
	ck_assert_uint_eq(handle, 77);
	ck_assert_int_eq(bl_reader_read_handle(&r, &handle), 0);
	ck_assert_uint_eq(handle, 0);
	ck_assert_int_eq(bl_reader_read_handle(&r, &handle), -ENODATA);
	bl_parcel_fini(&p);
}
END_TEST

START_TEST(test_arrays)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r, a, b, c;
	uint32_t count, v;
	uint32_t handle;
	int i;

	ck_assert_int_eq(bl_parcel_end_array(&p), -EINVAL);
	ck_assert_int_eq(bl_parcel_write_u32(&p, 1), 0);
	ck_assert_int_eq(bl_parcel_begin_array(&p), 0);		/* a */
	ck_assert_uint_eq(bl_parcel_open_arrays(&p), 1);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(bl_parcel_write_u32(&p, 100 + i), 0);
	ck_assert_int_eq(bl_parcel_begin_array(&p), 0);		/* b */
	ck_assert_int_eq(bl_parcel_write_handle(&p, 12), 0);
	ck_assert_int_eq(bl_parcel_begin_array(&p), 0);		/* c, empty */
	ck_assert_uint_eq(bl_parcel_open_arrays(&p), 3);
	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), -EINVAL);
	ck_assert_int_eq(bl_parcel_end_array(&p), 0);
	ck_assert_int_eq(bl_parcel_end_array(&p), 0);
	ck_assert_int_eq(bl_parcel_write_u32(&p, 200), 0);
	ck_assert_int_eq(bl_parcel_end_array(&p), 0);
	ck_assert_int_eq(bl_parcel_end_array(&p), -EINVAL);
	ck_assert_int_eq(bl_parcel_write_u32(&p, 2), 0);
	ck_assert_uint_eq(bl_parcel_open_arrays(&p), 0);

	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	ck_assert_int_eq(bl_reader_read_u32(&r, &v), 0);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(bl_reader_peek_type(&r), BL_TYPE_ARRAY);
	ck_assert_int_eq(bl_reader_enter_array(&r, &a, &count), 0);
	ck_assert_uint_eq(count, 5);	/* 3 u32, array b, u32 */
	/* the parent already moved past the whole array */
	ck_assert_int_eq(bl_reader_read_u32(&r, &v), 0);
	ck_assert_uint_eq(v, 2);
	ck_assert_int_eq(bl_reader_read_u32(&r, &v), -ENODATA);

	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(bl_reader_read_u32(&a, &v), 0);
		ck_assert_uint_eq(v, 100 + i);
	}
	ck_assert_int_eq(bl_reader_enter_array(&a, &b, &count), 0);
	ck_assert_uint_eq(count, 2);
	ck_assert_int_eq(bl_reader_read_handle(&b, &handle), 0);
	ck_assert_uint_eq(handle, 12);
	ck_assert_int_eq(bl_reader_enter_array(&b, &c, &count), 0);
	ck_assert_uint_eq(count, 0);
	ck_assert_uint_eq(bl_reader_remaining(&c), 0);
	ck_assert_int_eq(bl_reader_read_u32(&c, &v), -ENODATA);
	ck_assert_int_eq(bl_reader_read_u32(&b, &v), -ENODATA);
	ck_assert_int_eq(bl_reader_read_u32(&a, &v), 0);
	ck_assert_uint_eq(v, 200);
	/* a sub-reader ends at its array even though the parent goes on */
	ck_assert_int_eq(bl_reader_read_u32(&a, &v), -ENODATA);
	ck_assert_int_eq(bl_reader_enter_array(&a, NULL, NULL), -EINVAL);

	/* skipping an array skips it whole */
	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_U32);
	ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_ARRAY);
	ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_U32);
	ck_assert_int_eq(bl_reader_skip(&r), -ENODATA);
	ck_assert_int_eq(bl_reader_peek_type(&r), -ENODATA);
	bl_parcel_fini(&p);
}
END_TEST

START_TEST(test_deep_nesting)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r, sub;
	uint32_t count, v;
	int i;

	for (i = 0; i < 1000; i++) {
		ck_assert_int_eq(bl_parcel_begin_array(&p), 0);
		ck_assert_int_eq(bl_parcel_write_u32(&p, i), 0);
	}
	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(bl_parcel_end_array(&p), 0);
	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	for (i = 0; i < 1000; i++) {
		/* alternately into a separate reader and in place */
		if (i % 2) {
			ck_assert_int_eq(bl_reader_enter_array(&r, &r, &count), 0);
		} else {
			ck_assert_int_eq(bl_reader_enter_array(&r, &sub, &count), 0);
			ck_assert_int_eq(bl_reader_skip(&r), -ENODATA);
			r = sub;
		}
		ck_assert_uint_eq(count, i == 999 ? 1 : 2);
		ck_assert_int_eq(bl_reader_read_u32(&r, &v), 0);
		ck_assert_uint_eq(v, i);
	}
	ck_assert_int_eq(bl_reader_skip(&r), -ENODATA);
	bl_parcel_fini(&p);
}
END_TEST

/* The layout docs/parcel.md documents, byte for byte. */
START_TEST(test_wire_layout)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	const uint8_t *d;
	uint32_t w;
	uint64_t q;
	struct fbinder_object o;

	ck_assert_int_eq(bl_parcel_write_i8(&p, -1), 0);		/* 0..8 */
	ck_assert_int_eq(bl_parcel_write_u64(&p, 0x0102030405060708ull), 0); /* 8..24 */
	ck_assert_int_eq(bl_parcel_write_string(&p, "abcdefg"), 0);	/* 24..40 */
	ck_assert_int_eq(bl_parcel_write_blob(&p, "xy", 2), 0);	/* 40..56 */
	ck_assert_int_eq(bl_parcel_write_handle(&p, 3), 0);		/* 56..80 */
	ck_assert_int_eq(bl_parcel_begin_array(&p), 0);		/* 80..96 hdr */
	ck_assert_int_eq(bl_parcel_write_bool(&p, 1), 0);		/* 96..104 */
	ck_assert_int_eq(bl_parcel_end_array(&p), 0);
	ck_assert_uint_eq(bl_parcel_size(&p), 104);
	d = bl_parcel_data(&p);

	memcpy(&w, d + 0, 4); ck_assert_uint_eq(w, 0x424c0002);
	memcpy(&w, d + 4, 4); ck_assert_uint_eq(w, 0xffffffff);
	memcpy(&w, d + 8, 4); ck_assert_uint_eq(w, 0x424c0007);
	memcpy(&w, d + 12, 4); ck_assert_uint_eq(w, 0);
	memcpy(&q, d + 16, 8); ck_assert(q == 0x0102030405060708ull);
	memcpy(&w, d + 24, 4); ck_assert_uint_eq(w, 0x424c000b);
	memcpy(&w, d + 28, 4); ck_assert_uint_eq(w, 7);
	ck_assert_mem_eq(d + 32, "abcdefg\0", 8);
	memcpy(&w, d + 40, 4); ck_assert_uint_eq(w, 0x424c000c);
	memcpy(&w, d + 44, 4); ck_assert_uint_eq(w, 2);
	ck_assert_mem_eq(d + 48, "xy\0\0\0\0\0\0", 8);
	memcpy(&w, d + 56, 4); ck_assert_uint_eq(w, 0x424c000d);
	memcpy(&w, d + 60, 4); ck_assert_uint_eq(w, 0);
	memcpy(&o, d + 64, 16);
	ck_assert_uint_eq(o.type, FBINDER_OBJ_HANDLE);
	ck_assert_uint_eq(o.handle, 3);
	ck_assert_uint_eq(bl_parcel_offsets(&p)[0], 64);
	memcpy(&w, d + 80, 4); ck_assert_uint_eq(w, 0x424c000f);
	memcpy(&w, d + 84, 4); ck_assert_uint_eq(w, 1);	/* count */
	memcpy(&w, d + 88, 4); ck_assert_uint_eq(w, 8);	/* body size */
	memcpy(&w, d + 92, 4); ck_assert_uint_eq(w, 0);
	memcpy(&w, d + 96, 4); ck_assert_uint_eq(w, 0x424c0009);
	memcpy(&w, d + 100, 4); ck_assert_uint_eq(w, 1);
	bl_parcel_fini(&p);
}
END_TEST

/* The reader needs no alignment of the caller's buffer. */
START_TEST(test_unaligned_buffer)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r;
	uint8_t *buf;
	uint64_t v;
	uint32_t h;

	ck_assert_int_eq(bl_parcel_write_u64(&p, 123456789012345ull), 0);
	ck_assert_int_eq(bl_parcel_write_handle(&p, 4), 0);
	buf = malloc(bl_parcel_size(&p) + 1);
	memcpy(buf + 1, bl_parcel_data(&p), bl_parcel_size(&p));
	ck_assert_int_eq(bl_reader_init(&r, buf + 1, bl_parcel_size(&p),
					bl_parcel_offsets(&p), 1), 0);
	ck_assert_int_eq(bl_reader_read_u64(&r, &v), 0);
	ck_assert(v == 123456789012345ull);
	ck_assert_int_eq(bl_reader_read_handle(&r, &h), 0);
	ck_assert_uint_eq(h, 4);
	free(buf);
	bl_parcel_fini(&p);
}
END_TEST

/* ---- malformed input --------------------------------------------------- */

/* Reads the every-type parcel in order; returns the first error or 0. */
static int read_every_type(struct bl_reader *r)
{
	struct bl_reader sub;
	int t, ret;

	for (t = 1; t <= NTYPES; t++) {
		if (t == BL_TYPE_ARRAY) {
			ret = bl_reader_enter_array(r, &sub, NULL);
			if (ret)
				return ret;
			ret = bl_reader_read_u32(&sub, NULL);
			if (ret)
				return ret;
			ret = bl_reader_read_handle(&sub, NULL);
			if (ret)
				return ret;
		} else {
			ret = read_as(r, (enum bl_type)t);
			if (ret)
				return ret;
		}
	}
	return bl_reader_skip(r) == -ENODATA ? 0 : -1;
}

START_TEST(test_truncated_every_byte)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r;
	struct msg m;
	size_t starts[NTYPES], len, i, n;
	int want, ret;
	uint8_t *copy;

	write_every_type(&p, starts);
	msg_from(&m, &p);
	msg_reader(&r, &m);
	ck_assert_int_eq(read_every_type(&r), 0);

	for (len = 0; len < m.size; len++) {
		/* exact-size copy, so valgrind sees any read past the end */
		copy = malloc(len ? len : 1);
		memcpy(copy, m.data, len);
		/* the full offsets array no longer fits: rejected at init */
		if (len < m.offs[m.noffs - 1] + 16)
			ck_assert_int_eq(bl_reader_init(&r, copy, len, m.offs,
							m.noffs), -EBADMSG);
		/* the offsets that still fit */
		for (n = 0; n < m.noffs && m.offs[n] + 16 <= len; n++)
			;
		ck_assert_int_eq(bl_reader_init(&r, copy, len, m.offs, n), 0);
		want = -EMSGSIZE;
		for (i = 0; i < NTYPES; i++)
			if (starts[i] == len)
				want = -ENODATA;
		ret = read_every_type(&r);
		ck_assert_msg(ret == want, "len %zu: got %d want %d", len, ret, want);
		/* the generic walk fails the same way */
		ck_assert_int_eq(bl_reader_init(&r, copy, len, m.offs, n), 0);
		while ((ret = bl_reader_skip(&r)) > 0)
			;
		ck_assert_msg(ret == want, "skip len %zu: got %d want %d", len, ret, want);
		free(copy);
	}
	msg_free(&m);
	bl_parcel_fini(&p);
}
END_TEST

/* Every reader on every item of another type: -EBADMSG, nothing consumed. */
START_TEST(test_wrong_type_matrix)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r;
	size_t starts[NTYPES], pos;
	int item, t, mismatches = 0;

	write_every_type(&p, starts);
	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	for (item = 1; item <= NTYPES; item++) {
		pos = bl_reader_position(&r);
		ck_assert_uint_eq(pos, starts[item - 1]);
		ck_assert_int_eq(bl_reader_peek_type(&r), item);
		for (t = 1; t <= NTYPES; t++) {
			if (t == item)
				continue;
			ck_assert_msg(read_as(&r, (enum bl_type)t) == -EBADMSG,
				      "item %d read as %d", item, t);
			ck_assert_uint_eq(bl_reader_position(&r), pos);
			mismatches++;
		}
		ck_assert_int_eq(read_as(&r, (enum bl_type)item), 0);
	}
	ck_assert_int_eq(mismatches, NTYPES * (NTYPES - 1));
	bl_parcel_fini(&p);
}
END_TEST

START_TEST(test_bad_tags)
{
	static const uint32_t tags[] = {
		0, 1, 0x424c0000, 0x424c0011, 0x424c00ff, 0x424c0105,
		0x434c0005, 0x004c0005, 0xffffffff, 0x05004c42,
	};
	uint8_t buf[16] = { 0 };
	struct bl_reader r;
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		put32(buf, tags[i]);
		ck_assert_int_eq(bl_reader_init(&r, buf, sizeof(buf), NULL, 0), 0);
		ck_assert_int_eq(bl_reader_peek_type(&r), -EBADMSG);
		ck_assert_int_eq(bl_reader_skip(&r), -EBADMSG);
		ck_assert_int_eq(bl_reader_read_u32(&r, NULL), -EBADMSG);
		ck_assert_uint_eq(bl_reader_position(&r), 0);
	}
}
END_TEST

/* An 8- or 16-byte item built by hand; read as type; expect ret. */
static void check_raw(uint32_t tag, uint32_t w1, uint64_t q, size_t size,
		      enum bl_type type, int ret)
{
	uint8_t *buf = calloc(1, size);
	struct bl_reader r;

	put32(buf, tag);
	put32(buf + 4, w1);
	if (size >= 16)
		put64(buf + 8, q);
	ck_assert_int_eq(bl_reader_init(&r, buf, size, NULL, 0), 0);
	ck_assert_msg(read_as(&r, type) == ret, "tag %x w1 %x: want %d",
		      tag, w1, ret);
	if (ret == 0) {
		ck_assert_int_eq(bl_reader_init(&r, buf, size, NULL, 0), 0);
		ck_assert_int_eq(bl_reader_skip(&r), (int)type);
	} else {
		ck_assert_int_eq(bl_reader_init(&r, buf, size, NULL, 0), 0);
		ck_assert_int_eq(bl_reader_skip(&r), ret);
	}
	free(buf);
}

START_TEST(test_bad_scalar_values)
{
	check_raw(BL_WIRE_TAG(BL_TYPE_U8), 0xff, 0, 8, BL_TYPE_U8, 0);
	check_raw(BL_WIRE_TAG(BL_TYPE_U8), 0x100, 0, 8, BL_TYPE_U8, -EBADMSG);
	check_raw(BL_WIRE_TAG(BL_TYPE_I8), 0xffffff80, 0, 8, BL_TYPE_I8, 0);
	check_raw(BL_WIRE_TAG(BL_TYPE_I8), 0x80, 0, 8, BL_TYPE_I8, -EBADMSG);
	check_raw(BL_WIRE_TAG(BL_TYPE_I8), 0xffffff7f, 0, 8, BL_TYPE_I8, -EBADMSG);
	check_raw(BL_WIRE_TAG(BL_TYPE_U16), 0x10000, 0, 8, BL_TYPE_U16, -EBADMSG);
	check_raw(BL_WIRE_TAG(BL_TYPE_I16), 0x8000, 0, 8, BL_TYPE_I16, -EBADMSG);
	check_raw(BL_WIRE_TAG(BL_TYPE_I16), 0xffff8000, 0, 8, BL_TYPE_I16, 0);
	check_raw(BL_WIRE_TAG(BL_TYPE_BOOL), 2, 0, 8, BL_TYPE_BOOL, -EBADMSG);
	check_raw(BL_WIRE_TAG(BL_TYPE_BOOL), 0x100, 0, 8, BL_TYPE_BOOL, -EBADMSG);
	/* 64-bit items: the word after the tag is padding, must be 0 */
	check_raw(BL_WIRE_TAG(BL_TYPE_U64), 0, 5, 16, BL_TYPE_U64, 0);
	check_raw(BL_WIRE_TAG(BL_TYPE_U64), 1, 5, 16, BL_TYPE_U64, -EBADMSG);
	check_raw(BL_WIRE_TAG(BL_TYPE_I64), 0x80000000, 5, 16, BL_TYPE_I64, -EBADMSG);
	check_raw(BL_WIRE_TAG(BL_TYPE_DOUBLE), 7, 5, 16, BL_TYPE_DOUBLE, -EBADMSG);
	/* 64-bit item cut to its first 8 bytes */
	check_raw(BL_WIRE_TAG(BL_TYPE_U64), 0, 0, 8, BL_TYPE_U64, -EMSGSIZE);
	/* a few bytes, less than a header */
	{
		uint8_t b[7] = { 5, 0, 0x4c, 0x42 };
		struct bl_reader r;
		size_t n;

		for (n = 1; n < sizeof(b); n++) {
			ck_assert_int_eq(bl_reader_init(&r, b, n, NULL, 0), 0);
			ck_assert_int_eq(bl_reader_read_u32(&r, NULL), -EMSGSIZE);
			ck_assert_int_eq(bl_reader_peek_type(&r), -EMSGSIZE);
		}
	}
}
END_TEST

/* A string item: tag, len, then body bytes (body_len of them) in 64 bytes. */
static int read_string_raw(uint32_t len, const char *body, size_t body_len,
			   size_t size)
{
	uint8_t *buf = calloc(1, size);
	struct bl_reader r;
	const char *s;
	size_t n;
	int ret;

	put32(buf, BL_WIRE_TAG(BL_TYPE_STRING));
	put32(buf + 4, len);
	memcpy(buf + 8, body, body_len);
	ck_assert_int_eq(bl_reader_init(&r, buf, size, NULL, 0), 0);
	ret = bl_reader_read_string(&r, &s, &n);
	if (ret)
		ck_assert_uint_eq(bl_reader_position(&r), 0);
	else
		ck_assert_uint_eq(strlen(s), n);
	free(buf);
	return ret;
}

START_TEST(test_bad_strings)
{
	/* good, as a baseline */
	ck_assert_int_eq(read_string_raw(3, "abc\0\0\0\0", 8, 16), 0);
	ck_assert_int_eq(read_string_raw(7, "abcdefg", 8, 16), 0);
	/* no NUL at [len] */
	ck_assert_int_eq(read_string_raw(3, "abcd", 4, 16), -EBADMSG);
	/* a NUL inside */
	ck_assert_int_eq(read_string_raw(3, "a\0c", 4, 16), -EBADMSG);
	/* nonzero padding after the NUL */
	ck_assert_int_eq(read_string_raw(3, "abc\0\0x", 6, 16), -EBADMSG);
	/* invalid UTF-8 */
	ck_assert_int_eq(read_string_raw(2, "\xc0\x80", 2, 16), -EBADMSG);	/* overlong */
	ck_assert_int_eq(read_string_raw(3, "\xe0\x80\xaf", 3, 16), -EBADMSG);
	ck_assert_int_eq(read_string_raw(4, "\xf0\x80\x80\xaf", 4, 16), -EBADMSG);
	ck_assert_int_eq(read_string_raw(3, "\xed\xa0\x80", 3, 16), -EBADMSG);	/* surrogate */
	ck_assert_int_eq(read_string_raw(4, "\xf4\x90\x80\x80", 4, 16), -EBADMSG); /* > U+10FFFF */
	ck_assert_int_eq(read_string_raw(1, "\xf5", 1, 16), -EBADMSG);
	ck_assert_int_eq(read_string_raw(1, "\x80", 1, 16), -EBADMSG);	/* lone continuation */
	ck_assert_int_eq(read_string_raw(2, "\xe2\x82", 2, 16), -EBADMSG);	/* cut sequence */
	ck_assert_int_eq(read_string_raw(2, "\xc3x", 2, 16), -EBADMSG);
	ck_assert_int_eq(read_string_raw(1, "\xff", 1, 16), -EBADMSG);
	/* lengths reaching past the end */
	ck_assert_int_eq(read_string_raw(0xffffffff, "", 0, 16), -EMSGSIZE);
	ck_assert_int_eq(read_string_raw(0xfffffff8, "", 0, 16), -EMSGSIZE);
	ck_assert_int_eq(read_string_raw(0x7fffffff, "", 0, 16), -EMSGSIZE);
	ck_assert_int_eq(read_string_raw(8, "abcdefgh", 8, 16), -EMSGSIZE); /* no room for NUL */
	ck_assert_int_eq(read_string_raw(9, "abcdefgh", 8, 16), -EMSGSIZE);
	/* a range that is not a multiple of 8 ends inside the padding */
	ck_assert_int_eq(read_string_raw(3, "abc", 3, 12), -EMSGSIZE);
	ck_assert_int_eq(read_string_raw(0, "", 0, 8), -EMSGSIZE);
}
END_TEST

static int read_blob_raw(uint32_t len, size_t size, size_t junk_at)
{
	uint8_t *buf = calloc(1, size);
	struct bl_reader r;
	const void *ptr;
	size_t n;
	int ret;

	put32(buf, BL_WIRE_TAG(BL_TYPE_BLOB));
	put32(buf + 4, len);
	if (junk_at)
		buf[junk_at] = 0x5a;
	ck_assert_int_eq(bl_reader_init(&r, buf, size, NULL, 0), 0);
	ret = bl_reader_read_blob(&r, &ptr, &n);
	if (!ret)
		ck_assert((const uint8_t *)ptr + n <= buf + size);
	free(buf);
	return ret;
}

START_TEST(test_bad_blobs)
{
	ck_assert_int_eq(read_blob_raw(8, 16, 0), 0);
	ck_assert_int_eq(read_blob_raw(0, 8, 0), 0);
	ck_assert_int_eq(read_blob_raw(3, 16, 10), 0);		/* data byte */
	ck_assert_int_eq(read_blob_raw(3, 16, 11), -EBADMSG);	/* padding */
	ck_assert_int_eq(read_blob_raw(9, 16, 0), -EMSGSIZE);
	ck_assert_int_eq(read_blob_raw(0xffffffff, 16, 0), -EMSGSIZE);
	ck_assert_int_eq(read_blob_raw(0xfffffff9, 16, 0), -EMSGSIZE);
	ck_assert_int_eq(read_blob_raw(3, 12, 0), -EMSGSIZE);
}
END_TEST

START_TEST(test_bad_arrays)
{
	uint8_t buf[32] = { 0 };
	struct bl_reader r, sub;
	uint32_t count;

#define ARR(cnt, sz, res) do {						\
	memset(buf, 0, sizeof(buf));					\
	put32(buf, BL_WIRE_TAG(BL_TYPE_ARRAY));				\
	put32(buf + 4, cnt); put32(buf + 8, sz); put32(buf + 12, res);	\
	put32(buf + 16, BL_WIRE_TAG(BL_TYPE_U32));			\
	put32(buf + 24, BL_WIRE_TAG(BL_TYPE_U32));			\
} while (0)
	ARR(2, 16, 0);
	ck_assert_int_eq(bl_reader_init(&r, buf, 32, NULL, 0), 0);
	ck_assert_int_eq(bl_reader_enter_array(&r, &sub, &count), 0);
	ck_assert_uint_eq(count, 2);
	ck_assert_uint_eq(bl_reader_remaining(&sub), 16);

	ARR(3, 16, 0);		/* more items than the body can hold */
	ck_assert_int_eq(bl_reader_init(&r, buf, 32, NULL, 0), 0);
	ck_assert_int_eq(bl_reader_enter_array(&r, &sub, &count), -EBADMSG);
	ARR(2, 16, 1);		/* reserved word */
	ck_assert_int_eq(bl_reader_init(&r, buf, 32, NULL, 0), 0);
	ck_assert_int_eq(bl_reader_enter_array(&r, &sub, &count), -EBADMSG);
	ARR(1, 12, 0);		/* size not a multiple of 8 */
	ck_assert_int_eq(bl_reader_init(&r, buf, 32, NULL, 0), 0);
	ck_assert_int_eq(bl_reader_enter_array(&r, &sub, &count), -EBADMSG);
	ARR(2, 24, 0);		/* size past the end */
	ck_assert_int_eq(bl_reader_init(&r, buf, 32, NULL, 0), 0);
	ck_assert_int_eq(bl_reader_enter_array(&r, &sub, &count), -EMSGSIZE);
	ARR(2, 0xfffffff8, 0);
	ck_assert_int_eq(bl_reader_init(&r, buf, 32, NULL, 0), 0);
	ck_assert_int_eq(bl_reader_enter_array(&r, &sub, &count), -EMSGSIZE);
	ck_assert_int_eq(bl_reader_skip(&r), -EMSGSIZE);
	ARR(0, 0, 0);		/* header cut */
	ck_assert_int_eq(bl_reader_init(&r, buf, 8, NULL, 0), 0);
	ck_assert_int_eq(bl_reader_enter_array(&r, &sub, &count), -EMSGSIZE);
	ck_assert_uint_eq(bl_reader_position(&r), 0);
#undef ARR
}
END_TEST

START_TEST(test_bad_offsets_array)
{
	uint8_t buf[64] = { 0 };
	struct bl_reader r;
	uint64_t o[4];

	/* fine: two objects back to back, one ending at the very end */
	o[0] = 8; o[1] = 24; o[2] = 48;
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, o, 3), 0);
	/* out of range: past the end, or the object crossing it */
	o[0] = 64;
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, o, 1), -EBADMSG);
	o[0] = 56;
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, o, 1), -EBADMSG);
	o[0] = UINT64_MAX - 7;
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, o, 1), -EBADMSG);
	o[0] = 0;
	ck_assert_int_eq(bl_reader_init(&r, buf, 8, o, 1), -EBADMSG);
	/* misaligned */
	o[0] = 4;
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, o, 1), -EBADMSG);
	o[0] = 8; o[1] = 33;
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, o, 2), -EBADMSG);
	/* unsorted, duplicate, overlapping */
	o[0] = 24; o[1] = 8;
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, o, 2), -EBADMSG);
	o[0] = 8; o[1] = 8;
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, o, 2), -EBADMSG);
	o[0] = 8; o[1] = 16;
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, o, 2), -EBADMSG);
	/* more objects than can fit */
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, o, 5), -EBADMSG);
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, o, SIZE_MAX), -EBADMSG);
	/* misuse */
	ck_assert_int_eq(bl_reader_init(&r, buf, 64, NULL, 1), -EINVAL);
	ck_assert_int_eq(bl_reader_init(&r, NULL, 64, NULL, 0), -EINVAL);
	ck_assert_int_eq(bl_reader_init(NULL, buf, 64, NULL, 0), -EINVAL);
	ck_assert_int_eq(bl_reader_init(&r, NULL, 0, NULL, 0), 0);
	ck_assert_int_eq(bl_reader_skip(&r), -ENODATA);
}
END_TEST

/* Objects must be exactly where the offsets array says, and only there. */
START_TEST(test_object_offsets_mismatch)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r;
	struct msg m;
	uint64_t o[2];

	ck_assert_int_eq(bl_parcel_write_u64(&p, 0), 0);	/* 0..16 */
	ck_assert_int_eq(bl_parcel_write_handle(&p, 1), 0);	/* 16..40, obj 24 */
	ck_assert_int_eq(bl_parcel_write_string(&p, "0123456789abcdef"), 0); /* 40..72 */
	ck_assert_int_eq(bl_parcel_write_u32(&p, 5), 0);	/* 72..80 */
	msg_from(&m, &p);
	ck_assert_uint_eq(m.noffs, 1);
	ck_assert_uint_eq(m.offs[0], 24);

	/* object not listed at all */
	ck_assert_int_eq(bl_reader_init(&r, m.data, m.size, NULL, 0), 0);
	ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_U64);
	ck_assert_int_eq(bl_reader_read_handle(&r, NULL), -EBADMSG);
	ck_assert_int_eq(bl_reader_skip(&r), -EBADMSG);
	/* listed at the item start (the tag) instead of item + 8 */
	o[0] = 16;
	ck_assert_int_eq(bl_reader_init(&r, m.data, m.size, o, 1), 0);
	ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_U64);
	ck_assert_int_eq(bl_reader_read_handle(&r, NULL), -EBADMSG);
	/* an extra entry inside the u64 before it */
	o[0] = 8; o[1] = 24;
	ck_assert_int_eq(bl_reader_init(&r, m.data, m.size, o, 2), 0);
	ck_assert_int_eq(bl_reader_read_u64(&r, NULL), -EBADMSG);
	r.pos = 16;	/* as if the u64 had been read */
	ck_assert_int_eq(bl_reader_read_handle(&r, NULL), -EBADMSG);
	/* an extra entry inside the string after it */
	o[0] = 24; o[1] = 48;
	ck_assert_int_eq(bl_reader_init(&r, m.data, m.size, o, 2), 0);
	ck_assert_int_eq(bl_reader_read_u64(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_handle(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_string(&r, NULL, NULL), -EBADMSG);
	ck_assert_int_eq(bl_reader_skip(&r), -EBADMSG);
	/* an entry that overlaps the u32 only by its tail */
	o[0] = 24; o[1] = 64;
	ck_assert_int_eq(bl_reader_init(&r, m.data, m.size, o, 2), 0);
	ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_U64);
	ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_OBJECT);
	ck_assert_int_eq(bl_reader_read_string(&r, NULL, NULL), -EBADMSG);
	r.pos = 72;
	ck_assert_int_eq(bl_reader_read_u32(&r, NULL), -EBADMSG);
	msg_free(&m);
	bl_parcel_fini(&p);
}
END_TEST

/* An object item where a plain value is expected and the reverse. */
START_TEST(test_object_where_int_is)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r;
	struct msg m;
	uint64_t o = 8;

	ck_assert_int_eq(bl_parcel_write_handle(&p, 1), 0);
	ck_assert_int_eq(bl_parcel_write_u64(&p, 1), 0);
	ck_assert_int_eq(bl_parcel_write_u64(&p, 2), 0);
	ck_assert_int_eq(bl_parcel_write_u64(&p, 3), 0);
	msg_from(&m, &p);

	ck_assert_int_eq(bl_reader_init(&r, m.data, m.size, m.offs, 1), 0);
	ck_assert_int_eq(bl_reader_read_u32(&r, NULL), -EBADMSG);
	ck_assert_int_eq(bl_reader_read_u64(&r, NULL), -EBADMSG);
	ck_assert_int_eq(bl_reader_read_blob(&r, NULL, NULL), -EBADMSG);
	ck_assert_int_eq(bl_reader_read_handle(&r, NULL), 0);
	/* the u64s, with a forged offset pointing into them */
	o = 32;
	ck_assert_int_eq(bl_reader_init(&r, m.data, m.size, &o, 1), 0);
	r.pos = 24;
	ck_assert_int_eq(bl_reader_read_u64(&r, NULL), -EBADMSG);
	r.pos = 40;
	ck_assert_int_eq(bl_reader_read_u64(&r, NULL), -EBADMSG);
	ck_assert_int_eq(bl_reader_read_object(&r, NULL), -EBADMSG);
	msg_free(&m);
	bl_parcel_fini(&p);
}
END_TEST

START_TEST(test_bad_objects)
{
	uint8_t buf[24];
	struct bl_reader r;
	uint64_t off = 8;
	struct fbinder_object o;
	uint32_t h;
	int fd;

#define OBJ(tag, pad, t, fl, val) do {					\
	memset(buf, 0, sizeof(buf));					\
	put32(buf, BL_WIRE_TAG(tag)); put32(buf + 4, pad);		\
	memset(&o, 0, sizeof(o)); o.type = t; o.flags = fl;		\
	o.cookie = val; memcpy(buf + 8, &o, sizeof(o));			\
	ck_assert_int_eq(bl_reader_init(&r, buf, 24, &off, 1), 0);	\
} while (0)
	OBJ(BL_TYPE_OBJECT, 0, FBINDER_OBJ_LOCAL, 0, 99);
	ck_assert_int_eq(bl_reader_read_object(&r, &o), 0);
	ck_assert(o.cookie == 99);
	OBJ(BL_TYPE_OBJECT, 1, FBINDER_OBJ_LOCAL, 0, 99);		/* padding */
	ck_assert_int_eq(bl_reader_read_object(&r, &o), -EBADMSG);
	OBJ(BL_TYPE_OBJECT, 0, FBINDER_OBJ_LOCAL, 1, 99);		/* flags */
	ck_assert_int_eq(bl_reader_read_object(&r, &o), -EBADMSG);
	OBJ(BL_TYPE_OBJECT, 0, 0, 0, 99);			/* type 0 */
	ck_assert_int_eq(bl_reader_read_object(&r, &o), -EBADMSG);
	OBJ(BL_TYPE_OBJECT, 0, 5, 0, 99);			/* unknown type */
	ck_assert_int_eq(bl_reader_read_object(&r, &o), -EBADMSG);
	OBJ(BL_TYPE_OBJECT, 0, FBINDER_OBJ_REGION, 0, 99);	/* a region handle */
	ck_assert_int_eq(bl_reader_read_handle(&r, &h), -EBADMSG);
	ck_assert_int_eq(bl_reader_read_region(&r, &h), 0);
	ck_assert_uint_eq(h, 99);
	OBJ(BL_TYPE_OBJECT, 0, FBINDER_OBJ_FD, 0, 3);		/* fd under object tag */
	ck_assert_int_eq(bl_reader_read_object(&r, &o), -EBADMSG);
	ck_assert_int_eq(bl_reader_skip(&r), -EBADMSG);
	OBJ(BL_TYPE_FD, 0, FBINDER_OBJ_HANDLE, 0, 3);		/* handle under fd tag */
	ck_assert_int_eq(bl_reader_read_fd(&r, &fd), -EBADMSG);
	OBJ(BL_TYPE_FD, 0, FBINDER_OBJ_FD, 0, 0xffffffffu);		/* fd -1 */
	ck_assert_int_eq(bl_reader_read_fd(&r, &fd), -EBADMSG);
	OBJ(BL_TYPE_FD, 0, FBINDER_OBJ_FD, 0, 0);
	ck_assert_int_eq(bl_reader_read_fd(&r, &fd), 0);
	ck_assert_int_eq(fd, 0);
	/* object item cut short */
	OBJ(BL_TYPE_OBJECT, 0, FBINDER_OBJ_LOCAL, 0, 99);
	ck_assert_int_eq(bl_reader_init(&r, buf, 16, NULL, 0), 0);
	ck_assert_int_eq(bl_reader_read_object(&r, &o), -EMSGSIZE);
#undef OBJ
}
END_TEST

/* ---- the writer -------------------------------------------------------- */

START_TEST(test_writer_growth)
{
	struct bl_parcel p;
	struct bl_reader r;
	uint32_t v, h;
	const char *s;
	size_t len, caps = 0, last = 0;
	char str[32];
	int i;

	bl_parcel_init(&p);
	for (i = 0; i < 200000; i++) {
		ck_assert_int_eq(bl_parcel_write_u32(&p, (uint32_t)i), 0);
		if (i % 100 == 0) {
			snprintf(str, sizeof(str), "s%d", i);
			ck_assert_int_eq(bl_parcel_write_string(&p, str), 0);
			ck_assert_int_eq(bl_parcel_write_handle(&p, (uint32_t)i), 0);
		}
		if (p.capacity != last) {
			caps++;
			last = p.capacity;
		}
	}
	ck_assert_uint_ge(caps, 10);		/* many reallocations */
	ck_assert_uint_eq(bl_parcel_offsets_count(&p), 2000);

	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	for (i = 0; i < 200000; i++) {
		ck_assert_int_eq(bl_reader_read_u32(&r, &v), 0);
		ck_assert_uint_eq(v, (uint32_t)i);
		if (i % 100 == 0) {
			snprintf(str, sizeof(str), "s%d", i);
			ck_assert_int_eq(bl_reader_read_string(&r, &s, &len), 0);
			ck_assert_str_eq(s, str);
			ck_assert_int_eq(bl_reader_read_handle(&r, &h), 0);
			ck_assert_uint_eq(h, (uint32_t)i);
		}
	}
	ck_assert_int_eq(bl_reader_skip(&r), -ENODATA);

	/* reset keeps the buffers, fini frees them, both are repeatable */
	bl_parcel_reset(&p);
	ck_assert_uint_eq(bl_parcel_size(&p), 0);
	ck_assert_uint_eq(bl_parcel_offsets_count(&p), 0);
	ck_assert_uint_gt(p.capacity, 0);
	ck_assert_int_eq(bl_parcel_write_bool(&p, false), 0);
	bl_parcel_fini(&p);
	bl_parcel_fini(&p);
	bl_parcel_fini(NULL);
	ck_assert_ptr_null(bl_parcel_data(&p));
	ck_assert_int_eq(bl_parcel_reserve(&p, 1 << 20, 100), 0);
	ck_assert_uint_ge(p.capacity, 1 << 20);
	ck_assert_uint_ge(p.offsets_capacity, 100);
	bl_parcel_fini(&p);
}
END_TEST

/* The first write error stays in the parcel until reset: one check suffices. */
START_TEST(test_sticky_error)
{
	struct bl_parcel p = BL_PARCEL_INIT;

	ck_assert_int_eq(bl_parcel_error(&p), 0);
	ck_assert_int_eq(bl_parcel_write_i32(&p, 1), 0);
	ck_assert_int_eq(bl_parcel_error(&p), 0);
	ck_assert_int_eq(bl_parcel_write_string(&p, "bad \xff"), -EINVAL);
	ck_assert_int_eq(bl_parcel_error(&p), -EINVAL);
	/* later writes work as ever, and the first error stays */
	ck_assert_int_eq(bl_parcel_write_i32(&p, 2), 0);
	ck_assert_int_eq(bl_parcel_write_fd(&p, -1), -EBADF);
	ck_assert_int_eq(bl_parcel_error(&p), -EINVAL);
	ck_assert_int_eq(bl_parcel_end_array(&p), -EINVAL);
	ck_assert_int_eq(bl_parcel_error(&p), -EINVAL);
	bl_parcel_reset(&p);
	ck_assert_int_eq(bl_parcel_error(&p), 0);
	ck_assert_int_eq(bl_parcel_write_blob(&p, NULL, 3), -EINVAL);
	ck_assert_int_eq(bl_parcel_error(&p), -EINVAL);
	bl_parcel_fini(&p);
	ck_assert_int_eq(bl_parcel_error(&p), 0);
	bl_parcel_init(&p);
	ck_assert_int_eq(bl_parcel_error(&p), 0);
}
END_TEST

START_TEST(test_writer_misuse)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL, .flags = 1, .cookie = 1 };
	void *w;

	ck_assert_int_eq(bl_parcel_write_u32(&p, 1), 0);
	ck_assert_int_eq(bl_parcel_write_string(&p, NULL), -EINVAL);
	ck_assert_int_eq(bl_parcel_write_string(&p, "bad \xc0\x80"), -EINVAL);
	ck_assert_int_eq(bl_parcel_write_string(&p, "bad \xed\xa0\x80"), -EINVAL);
	ck_assert_int_eq(bl_parcel_write_string_len(&p, "a\0b", 3), -EINVAL);
	ck_assert_int_eq(bl_parcel_write_string_len(&p, NULL, 1), -EINVAL);
	ck_assert_int_eq(bl_parcel_write_blob(&p, NULL, 1), -EINVAL);
	ck_assert_int_eq(bl_parcel_alloc_blob(&p, 1, NULL), -EINVAL);
	ck_assert_int_eq(bl_parcel_write_fd(&p, -1), -EBADF);
	ck_assert_int_eq(bl_parcel_write_object(&p, &o), -EINVAL);
	o.flags = 0; o.type = 0;
	ck_assert_int_eq(bl_parcel_write_object(&p, &o), -EINVAL);
	o.type = 9;
	ck_assert_int_eq(bl_parcel_write_object(&p, &o), -EINVAL);
	ck_assert_int_eq(bl_parcel_write_object(&p, NULL), -EINVAL);
	/* too large: refused before any allocation */
	ck_assert_int_eq(bl_parcel_write_blob(&p, "", SIZE_MAX), -EMSGSIZE);
	ck_assert_int_eq(bl_parcel_alloc_blob(&p, BL_PARCEL_MAX_SIZE, &w), -EMSGSIZE);
	ck_assert_int_eq(bl_parcel_alloc_blob(&p, (size_t)UINT32_MAX + 1, &w), -EMSGSIZE);
	ck_assert_int_eq(bl_parcel_reserve(&p, SIZE_MAX, 0), -EMSGSIZE);
	ck_assert_int_eq(bl_parcel_reserve(&p, 0, SIZE_MAX), -EMSGSIZE);
	ck_assert_int_eq(bl_parcel_write_u32(NULL, 1), -EINVAL);
	ck_assert_int_eq(bl_parcel_write_u64(NULL, 1), -EINVAL);
	ck_assert_int_eq(bl_parcel_begin_array(NULL), -EINVAL);
	ck_assert_int_eq(bl_parcel_reserve(NULL, 1, 1), -EINVAL);
	/* nothing of the failures reached the parcel */
	ck_assert_uint_eq(bl_parcel_size(&p), 8);
	ck_assert_uint_eq(bl_parcel_offsets_count(&p), 0);
	bl_parcel_fini(&p);
}
END_TEST

/* Allocation failure: the hook fails the n-th allocation from now. */
static int alloc_countdown = -1;
static unsigned int alloc_failures;

static void *failing_realloc(void *ptr, size_t size)
{
	if (alloc_countdown == 0) {
		alloc_failures++;
		return NULL;
	}
	if (alloc_countdown > 0)
		alloc_countdown--;
	return realloc(ptr, size);
}

/* Performs write number k of a fixed sequence of every kind of write. */
static int write_kth(struct bl_parcel *p, int k)
{
	static char big[5000];
	void *w;

	switch (k % 12) {
	case 0: return bl_parcel_write_u32(p, (uint32_t)k);
	case 1: return bl_parcel_write_u64(p, (uint64_t)k << 32);
	case 2: return bl_parcel_write_string(p, "a string of some length");
	case 3: return bl_parcel_write_blob(p, big, (size_t)(k * 37) % sizeof(big));
	case 4: return bl_parcel_write_handle(p, (uint32_t)k);
	case 5: return bl_parcel_write_local(p, (uint64_t)k);
	case 6: return bl_parcel_write_fd(p, k);
	case 7: return bl_parcel_begin_array(p);
	case 8: return bl_parcel_write_double(p, k);
	case 9: return bl_parcel_end_array(p);
	case 10: return bl_parcel_alloc_blob(p, 100, &w);
	default: return bl_parcel_write_i8(p, (int8_t)k);
	}
}

static int read_kth(struct bl_reader *r, struct bl_reader *outer, int k)
{
	uint32_t u32, h;
	uint64_t u64, cookie;
	const char *s;
	const void *b;
	size_t len;
	double d;
	int8_t i8;
	int fd, ret;

	switch (k % 12) {
	case 0:
		ret = bl_reader_read_u32(r, &u32);
		return ret ? ret : u32 == (uint32_t)k ? 0 : -1;
	case 1:
		ret = bl_reader_read_u64(r, &u64);
		return ret ? ret : u64 == (uint64_t)k << 32 ? 0 : -1;
	case 2:
		ret = bl_reader_read_string(r, &s, &len);
		return ret ? ret : strcmp(s, "a string of some length") ? -1 : 0;
	case 3:
		ret = bl_reader_read_blob(r, &b, &len);
		return ret ? ret : len == (size_t)(k * 37) % 5000 ? 0 : -1;
	case 4:
		ret = bl_reader_read_handle(r, &h);
		return ret ? ret : h == (uint32_t)k ? 0 : -1;
	case 5:
		ret = bl_reader_read_local(r, &cookie);
		return ret ? ret : cookie == (uint64_t)k ? 0 : -1;
	case 6:
		ret = bl_reader_read_fd(r, &fd);
		return ret ? ret : fd == k ? 0 : -1;
	case 7:
		*outer = *r;
		ret = bl_reader_enter_array(outer, r, NULL);
		return ret;
	case 8:
		ret = bl_reader_read_double(r, &d);
		return ret ? ret : d == k ? 0 : -1;
	case 9:
		ret = bl_reader_read_u8(r, NULL);
		if (ret != -ENODATA)
			return -1;
		*r = *outer;
		return 0;
	case 10:
		ret = bl_reader_read_blob(r, &b, &len);
		return ret ? ret : len == 100 ? 0 : -1;
	default:
		ret = bl_reader_read_i8(r, &i8);
		return ret ? ret : i8 == (int8_t)k ? 0 : -1;
	}
}

START_TEST(test_enomem)
{
	struct bl_parcel p = BL_PARCEL_INIT, copy;
	struct bl_reader r, outer;
	int k, ret, fails = 0;
	size_t size, nobj;
	uint8_t *snapshot;

	bl__realloc_hook = failing_realloc;
	alloc_failures = 0;
	/* the first allocation fails: parcel stays empty and usable */
	alloc_countdown = 0;
	ck_assert_int_eq(bl_parcel_write_u32(&p, 1), -ENOMEM);
	ck_assert_uint_eq(bl_parcel_size(&p), 0);
	ck_assert_ptr_null(bl_parcel_data(&p));
	ck_assert_int_eq(bl_parcel_write_handle(&p, 1), -ENOMEM);
	ck_assert_int_eq(bl_parcel_reserve(&p, 10, 0), -ENOMEM);
	alloc_countdown = -1;
	ck_assert_int_eq(bl_parcel_write_u32(&p, 1), 0);
	/* data allocated, offsets allocation fails: no half-written object */
	alloc_countdown = 0;
	ck_assert_int_eq(bl_parcel_write_handle(&p, 1), -ENOMEM);
	ck_assert_uint_eq(bl_parcel_size(&p), 8);
	ck_assert_uint_eq(bl_parcel_offsets_count(&p), 0);
	bl_parcel_reset(&p);

	/*
	 * A long sequence of writes; every growth fails once at first.  Each
	 * failed write must leave the parcel byte-identical, then the retry
	 * (with allocation allowed) succeeds.  Reading back must give the
	 * whole sequence.
	 */
	for (k = 0; k < 3000; k++) {
		size = bl_parcel_size(&p);
		nobj = bl_parcel_offsets_count(&p);
		snapshot = malloc(size + 1);
		memcpy(snapshot, bl_parcel_data(&p) ? bl_parcel_data(&p) : "", size);
		copy = p;
		alloc_countdown = 0;
		ret = write_kth(&p, k);
		if (ret == -ENOMEM) {
			fails++;
			ck_assert_uint_eq(bl_parcel_size(&p), size);
			ck_assert_uint_eq(bl_parcel_offsets_count(&p), nobj);
			ck_assert_uint_eq(p.depth, copy.depth);
			ck_assert_uint_eq(p.array_items, copy.array_items);
			ck_assert_uint_eq(p.array_head, copy.array_head);
			if (size)
				ck_assert_mem_eq(bl_parcel_data(&p), snapshot, size);
			alloc_countdown = -1;
			ret = write_kth(&p, k);
		}
		ck_assert_int_eq(ret, 0);
		free(snapshot);
	}
	alloc_countdown = -1;
	bl__realloc_hook = NULL;
	ck_assert_int_gt(fails, 15);
	ck_assert_uint_eq(alloc_failures, (unsigned int)fails + 4);

	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	for (k = 0; k < 3000; k++)
		ck_assert_msg(read_kth(&r, &outer, k) == 0, "item %d", k);
	ck_assert_int_eq(bl_reader_skip(&r), -ENODATA);
	bl_parcel_fini(&p);
}
END_TEST

/* ---- the reader's misc API --------------------------------------------- */

START_TEST(test_peek_skip_null_args)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reader r;
	int t;

	write_every_type(&p, NULL);
	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	for (t = 1; t <= NTYPES; t++) {
		ck_assert_int_eq(bl_reader_peek_type(&r), t);
		ck_assert_int_eq(bl_reader_skip(&r), t);
	}
	ck_assert_int_eq(bl_reader_skip(&r), -ENODATA);

	/* every reader accepts NULL outputs */
	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	ck_assert_int_eq(bl_reader_read_u8(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_i8(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_u16(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_i16(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_u32(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_i32(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_u64(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_i64(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_bool(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_double(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_string(&r, NULL, NULL), 0);
	ck_assert_int_eq(bl_reader_read_blob(&r, NULL, NULL), 0);
	ck_assert_int_eq(bl_reader_read_local(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_read_fd(&r, NULL), 0);
	ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_ARRAY);
	/* a NULL reader is misuse, not a crash */
	ck_assert_int_eq(bl_reader_read_u8(NULL, NULL), -EINVAL);
	ck_assert_int_eq(bl_reader_peek_type(NULL), -EINVAL);
	ck_assert_int_eq(bl_reader_skip(NULL), -EINVAL);
	ck_assert_int_eq(bl_reader_init_parcel(&r, NULL), -EINVAL);
	bl_parcel_fini(&p);
}
END_TEST

/* ---- the service-name rule (binderlite.h, section 7) ------------------- */

START_TEST(test_sm_name_rule)
{
	char name[BL_SM_NAME_MAX + 2];
	int c, n = 0;

	for (c = 0; c < 256; c++) {
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' ||
			  c == '/' || c == '-';

		ck_assert_msg(bl_sm_name_char((char)c) == ok, "char %d", c);
		n += ok;
	}
	ck_assert_int_eq(n, 66);
	memset(name, 'a', sizeof(name));
	ck_assert(bl_sm_name_valid(name, 1));
	ck_assert(bl_sm_name_valid(name, BL_SM_NAME_MAX));
	ck_assert(!bl_sm_name_valid(name, BL_SM_NAME_MAX + 1));
	ck_assert(!bl_sm_name_valid(name, 0));
	ck_assert(!bl_sm_name_valid(NULL, 1));
	ck_assert(bl_sm_name_valid("org.example/a_b-9", 17));
	ck_assert(!bl_sm_name_valid("a b", 3));
	ck_assert(!bl_sm_name_valid("ab\0c", 4));	/* a NUL inside */
	ck_assert(!bl_sm_name_valid("h\xc3\xa9", 3));	/* not ASCII */
}
END_TEST

/*
 * Descriptor arrays (BL_TYPE_FD_ARRAY): the item's layout, its round trip
 * among other items, -ENOBUFS for too small a room, the writer's refusals,
 * and a reader that refuses every tampered field.
 */
START_TEST(test_fd_arrays)
{
	static const int three[3] = { 3, 4, 5 }, bad[2] = { 1, -1 };
	static int many[FBINDER_MAX_FDS + 1];
	struct bl_parcel p = BL_PARCEL_INIT, q = BL_PARCEL_INIT;
	struct fbinder_ptr_object buf;
	struct fbinder_fda_object arr;
	uint8_t copy[256];
	uint32_t v = 0, n = 0;
	struct bl_reader r;
	int fds[3] = { -1, -1, -1 }, fd = -1;
	size_t size, i;

	ck_assert_int_eq(bl_parcel_write_u32(&p, 7), 0);
	ck_assert_int_eq(bl_parcel_write_fd_array(&p, three, 3), 0);
	ck_assert_int_eq(bl_parcel_write_fd(&p, 6), 0);
	ck_assert_int_eq(bl_parcel_write_fd_array(&p, NULL, 0), 0);
	ck_assert_int_eq(bl_parcel_write_u32(&p, 8), 0);
	/* tag, count, the buffer object at 16, the array object at 32, 12 bytes, padding */
	ck_assert_uint_eq(p.size, 8 + 56 + 24 + 40 + 8);
	ck_assert_uint_eq(p.offsets_count, 5);
	ck_assert_uint_eq(p.offsets[0], 16);
	ck_assert_uint_eq(p.offsets[1], 32);
	memcpy(&buf, p.data + 16, sizeof(buf));
	memcpy(&arr, p.data + 32, sizeof(arr));
	ck_assert_uint_eq(buf.type, FBINDER_OBJ_PTR);
	ck_assert_uint_eq(buf.length, 12);
	ck_assert_uint_eq(buf.ptr, 48);
	ck_assert_uint_eq(arr.type, FBINDER_OBJ_FDA);
	ck_assert_uint_eq(arr.parent, 0);
	ck_assert_uint_eq(arr.count, 3);
	ck_assert_uint_eq(arr.flags | arr.parent_offset, 0);
	/* the empty array names the entry before its own too */
	memcpy(&arr, p.data + p.offsets[4], sizeof(arr));
	ck_assert_uint_eq(arr.parent, 3);

	ck_assert_int_eq(bl_reader_init_parcel(&r, &p), 0);
	ck_assert_int_eq(bl_reader_read_u32(&r, &v), 0);
	ck_assert_int_eq(bl_reader_peek_type(&r), BL_TYPE_FD_ARRAY);
	ck_assert_int_eq(bl_reader_read_fd_array(&r, fds, 2, &n), -ENOBUFS);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(bl_reader_position(&r), 8);
	ck_assert_int_eq(bl_reader_read_fd(&r, &fd), -EBADMSG);
	ck_assert_int_eq(bl_reader_read_fd_array(&r, NULL, 1, &n), -EINVAL);
	ck_assert_int_eq(bl_reader_read_fd_array(&r, fds, 3, &n), 0);
	ck_assert(n == 3 && fds[0] == 3 && fds[1] == 4 && fds[2] == 5);
	ck_assert_int_eq(bl_reader_read_fd(&r, &fd), 0);
	ck_assert_int_eq(fd, 6);
	ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_FD_ARRAY);
	ck_assert_int_eq(bl_reader_read_u32(&r, &v), 0);
	ck_assert_int_eq(v, 8);
	ck_assert_int_eq(bl_reader_skip(&r), -ENODATA);

	/* each tampered field of the first array: refused, the reader unmoved */
	size = p.size;
	ck_assert_uint_le(size, sizeof(copy));
	for (i = 0; i < 7; i++) {
		memcpy(copy, p.data, size);
		switch (i) {
		case 0: copy[16 + 4] = 16; break;		/* the buffer's length */
		case 1: copy[16] = FBINDER_OBJ_FD; break;	/* not a buffer object */
		case 2: copy[32 + 6] = 1; break;		/* the array's parent */
		case 3: copy[32 + 4] = 1; break;		/* its flags */
		case 4: copy[32 + 12] = 4; break;		/* its offset in the buffer */
		case 5: memset(copy + 48 + 4, 0xff, 4); break;	/* a negative descriptor */
		case 6: copy[60] = 1; break;			/* the padding */
		}
		ck_assert_int_eq(bl_reader_init(&r, copy, size, p.offsets, p.offsets_count), 0);
		ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_U32);
		ck_assert_msg(bl_reader_read_fd_array(&r, fds, 3, &n) == -EBADMSG,
			      "tampered field %zu read", i);
		ck_assert_uint_eq(bl_reader_position(&r), 8);
	}
	/* the array object not listed; a count past FBINDER_MAX_FDS */
	ck_assert_int_eq(bl_reader_init(&r, p.data, size, p.offsets, 1), 0);
	ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_U32);
	ck_assert_int_eq(bl_reader_read_fd_array(&r, fds, 3, &n), -EBADMSG);
	memcpy(copy, p.data, size);
	put32(copy + 8 + 4, FBINDER_MAX_FDS + 1);
	ck_assert_int_eq(bl_reader_init(&r, copy, size, p.offsets, p.offsets_count), 0);
	ck_assert_int_eq(bl_reader_skip(&r), BL_TYPE_U32);
	ck_assert_int_eq(bl_reader_peek_type(&r), -EBADMSG);
	bl_parcel_fini(&p);

	/* the writer: a negative descriptor, too many, none given */
	ck_assert_int_eq(bl_parcel_write_fd_array(&q, bad, 2), -EBADF);
	bl_parcel_fini(&q);
	bl_parcel_init(&q);
	ck_assert_int_eq(bl_parcel_write_fd_array(&q, many, FBINDER_MAX_FDS + 1), -EMSGSIZE);
	bl_parcel_fini(&q);
	bl_parcel_init(&q);
	ck_assert_int_eq(bl_parcel_write_fd_array(&q, NULL, 1), -EINVAL);
	bl_parcel_fini(&q);
	bl_parcel_init(&q);
	ck_assert_int_eq(bl_parcel_write_fd_array(&q, many, FBINDER_MAX_FDS), 0);
	ck_assert_uint_eq(q.size, 40 + 4 * FBINDER_MAX_FDS + 4);
	bl_parcel_fini(&q);
}
END_TEST

static Suite *parcel_suite(void)
{
	Suite *s = suite_create("parcel");
	TCase *rt = tcase_create("roundtrip");
	TCase *bad = tcase_create("malformed");
	TCase *wr = tcase_create("writer");
	TCase *names = tcase_create("service names");

	tcase_add_test(rt, test_roundtrip_scalars);
	tcase_add_test(rt, test_roundtrip_strings);
	tcase_add_test(rt, test_roundtrip_blobs);
	tcase_add_test(rt, test_roundtrip_objects);
	tcase_add_test(rt, test_arrays);
	tcase_add_test(rt, test_deep_nesting);
	tcase_add_test(rt, test_wire_layout);
	tcase_add_test(rt, test_unaligned_buffer);
	tcase_add_test(rt, test_token);
	tcase_add_test(rt, test_peek_skip_null_args);
	tcase_add_test(rt, test_fd_arrays);
	suite_add_tcase(s, rt);

	tcase_add_test(bad, test_truncated_every_byte);
	tcase_add_test(bad, test_wrong_type_matrix);
	tcase_add_test(bad, test_bad_tags);
	tcase_add_test(bad, test_bad_scalar_values);
	tcase_add_test(bad, test_bad_strings);
	tcase_add_test(bad, test_bad_blobs);
	tcase_add_test(bad, test_bad_arrays);
	tcase_add_test(bad, test_bad_offsets_array);
	tcase_add_test(bad, test_object_offsets_mismatch);
	tcase_add_test(bad, test_object_where_int_is);
	tcase_add_test(bad, test_bad_objects);
	suite_add_tcase(s, bad);

	tcase_add_test(wr, test_writer_growth);
	tcase_add_test(wr, test_writer_misuse);
	tcase_add_test(wr, test_sticky_error);
	tcase_add_test(wr, test_enomem);
	tcase_set_timeout(wr, 120);	/* valgrind */
	suite_add_tcase(s, wr);

	tcase_add_test(names, test_sm_name_rule);
	suite_add_tcase(s, names);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(parcel_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
