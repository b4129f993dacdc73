// SPDX-License-Identifier: MIT
/*
 * fuzz_parcel.c - libFuzzer target for the libbinderlite parcel reader.
 *
 * Build: see tests/fuzz/fuzz.mk (clang -fsanitize=fuzzer,address,undefined,
 *        compiling libbinderlite/parcel.c into the target).
 *
 * The input is (offsets, script, data) as parcel_input.h describes.  The
 * target initialises a reader on data + offsets and runs the script: each
 * byte reads one type, enters or leaves an array, peeks or skips.  Beyond
 * the sanitizers it checks the reader's contract and aborts (a crash the
 * fuzzer reports) when it is broken:
 *  - errors are only -ENODATA, -EMSGSIZE, -EBADMSG, and leave the reader
 *    where it was; successes advance it by a multiple of 8 within range;
 *  - returned strings are NUL-terminated at len, without inner NUL, and
 *    lie inside the data; blobs lie inside the data (every byte touched);
 *  - peek, skip and the typed read agree on the next item;
 *  - every value read is written to an echo parcel (strings must be
 *    accepted by the writer: reader and writer agree on UTF-8); the echo
 *    is then read back in the same order and must give the same values.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binderlite.h"
#include "parcel_input.h"

#define DEPTH 16
#define MAX_RECS 320

#define fz_assert(c) do { if (!(c)) { \
	fprintf(stderr, "fuzz_parcel: %s:%d: %s\n", __FILE__, __LINE__, #c); \
	abort(); } } while (0)

enum { REC_BEGIN = 100, REC_END = 101 };

struct rec {
	int type;		/* enum bl_type, or REC_BEGIN / REC_END */
	uint64_t value;
};

struct echo {
	struct bl_parcel p;
	struct rec recs[MAX_RECS];
	size_t n;
};

static uint64_t fnv(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

static void record(struct echo *e, int type, uint64_t value)
{
	fz_assert(e->n < MAX_RECS);
	e->recs[e->n].type = type;
	e->recs[e->n].value = value;
	e->n++;
}

/*
 * The object types bl_reader_read_object() accepts: every type of uapi's
 * enum fbinder_object_type but FBINDER_OBJ_FD, which travels as its own item
 * (BL_TYPE_FD) -- the BL_TYPE_OBJECT case of validate() in
 * libbinderlite/parcel.c.  A new object type the reader accepts goes here
 * and gets a typed read op (parcel_input.h); tests/fuzz/fuzz_uapi_coverage.sh
 * fails while an object type of the uapi header is missing from this file.
 */
static const uint32_t readable_object_types[] = {
	FBINDER_OBJ_LOCAL, FBINDER_OBJ_HANDLE, FBINDER_OBJ_REGION,
};

static bool object_type_readable(uint32_t type)
{
	size_t i;

	for (i = 0; i < sizeof(readable_object_types) / sizeof(readable_object_types[0]); i++)
		if (readable_object_types[i] == type)
			return true;
	return false;
}

/*
 * Reads one item of type t; returns the error, or 0 with *value set.
 * When e is not NULL the value is also written to the echo parcel.
 */
static int read_value(struct bl_reader *r, enum bl_type t, uint64_t *value,
		      struct echo *e)
{
	const struct bl_reader before = *r;
	union { uint8_t u8; int8_t i8; uint16_t u16; int16_t i16;
		uint32_t u32; int32_t i32; uint64_t u64; int64_t i64; bool b;
		double d; } v;
	struct fbinder_object o;
	const char *s;
	const void *blob;
	size_t len = 0;
	int fd, ret, wret = 0;

	memset(&v, 0, sizeof(v));
	switch (t) {
	case BL_TYPE_U8: ret = bl_reader_read_u8(r, &v.u8); *value = v.u8; break;
	case BL_TYPE_I8: ret = bl_reader_read_i8(r, &v.i8); *value = (uint64_t)v.i8; break;
	case BL_TYPE_U16: ret = bl_reader_read_u16(r, &v.u16); *value = v.u16; break;
	case BL_TYPE_I16: ret = bl_reader_read_i16(r, &v.i16); *value = (uint64_t)v.i16; break;
	case BL_TYPE_U32: ret = bl_reader_read_u32(r, &v.u32); *value = v.u32; break;
	case BL_TYPE_I32: ret = bl_reader_read_i32(r, &v.i32); *value = (uint64_t)v.i32; break;
	case BL_TYPE_U64: ret = bl_reader_read_u64(r, &v.u64); *value = v.u64; break;
	case BL_TYPE_I64: ret = bl_reader_read_i64(r, &v.i64); *value = (uint64_t)v.i64; break;
	case BL_TYPE_BOOL:
		ret = bl_reader_read_bool(r, &v.b);
		*value = v.b;
		break;
	case BL_TYPE_DOUBLE:
		ret = bl_reader_read_double(r, &v.d);
		memcpy(value, &v.d, 8);
		break;
	case BL_TYPE_STRING: {
		struct bl_reader r2 = before;

		ret = bl_reader_read_string(r, &s, &len);
		/* the comparing reader agrees with the validating one */
		if (ret) {
			fz_assert(bl_reader_expect_string(&r2, "x", 1) != 0 &&
				  r2.pos == before.pos);
			break;
		}
		fz_assert(bl_reader_expect_string(&r2, s, len) == 0 &&
			  r2.pos == r->pos);
		fz_assert((const uint8_t *)s >= r->data &&
			  (const uint8_t *)s + len < r->data + r->size);
		fz_assert(strlen(s) == len);
		*value = fnv(s, len) ^ len;
		if (e)
			wret = bl_parcel_write_string_len(&e->p, s, len);
		break;
	}
	case BL_TYPE_BLOB:
		ret = bl_reader_read_blob(r, &blob, &len);
		if (ret)
			break;
		fz_assert((const uint8_t *)blob >= r->data &&
			  (const uint8_t *)blob + len <= r->data + r->size);
		*value = fnv(blob, len) ^ len;
		if (e)
			wret = bl_parcel_write_blob(&e->p, blob, len);
		break;
	case BL_TYPE_OBJECT:
		ret = bl_reader_read_object(r, &o);
		if (ret)
			break;
		fz_assert(object_type_readable(o.type) && o.type != FBINDER_OBJ_FD);
		/* buffer objects and descriptor arrays are the raw ABI's */
		fz_assert(o.type != FBINDER_OBJ_PTR && o.type != FBINDER_OBJ_FDA);
		fz_assert(o.flags == 0);
		*value = o.type == FBINDER_OBJ_LOCAL ? o.cookie : o.handle;
		*value ^= (uint64_t)o.type << 60;
		if (e)
			wret = bl_parcel_write_object(&e->p, &o);
		break;
	case BL_TYPE_FD:
		ret = bl_reader_read_fd(r, &fd);
		if (ret)
			break;
		fz_assert(fd >= 0);
		*value = (uint64_t)fd;
		if (e)
			wret = bl_parcel_write_fd(&e->p, fd);
		break;
	case BL_TYPE_FD_ARRAY: {
		int fds[FBINDER_MAX_FDS];
		uint32_t n = 0, k;

		ret = bl_reader_read_fd_array(r, fds, FBINDER_MAX_FDS, &n);
		if (ret)
			break;
		fz_assert(n <= FBINDER_MAX_FDS);
		*value = n;
		for (k = 0; k < n; k++) {
			fz_assert(fds[k] >= 0);
			*value = *value * 31 + (uint64_t)fds[k];
		}
		if (e)
			wret = bl_parcel_write_fd_array(&e->p, fds, n);
		break;
	}
	default:
		abort();
	}

	if (ret) {
		fz_assert(ret == -ENODATA || ret == -EMSGSIZE || ret == -EBADMSG);
		fz_assert(r->pos == before.pos && r->end == before.end);
		return ret;
	}
	fz_assert(r->pos > before.pos && r->pos <= r->end);
	fz_assert((r->pos - before.pos) % BL_PARCEL_ALIGN == 0);
	if (e) {
		switch (t) {
		case BL_TYPE_U8: wret = bl_parcel_write_u8(&e->p, v.u8); break;
		case BL_TYPE_I8: wret = bl_parcel_write_i8(&e->p, v.i8); break;
		case BL_TYPE_U16: wret = bl_parcel_write_u16(&e->p, v.u16); break;
		case BL_TYPE_I16: wret = bl_parcel_write_i16(&e->p, v.i16); break;
		case BL_TYPE_U32: wret = bl_parcel_write_u32(&e->p, v.u32); break;
		case BL_TYPE_I32: wret = bl_parcel_write_i32(&e->p, v.i32); break;
		case BL_TYPE_U64: wret = bl_parcel_write_u64(&e->p, v.u64); break;
		case BL_TYPE_I64: wret = bl_parcel_write_i64(&e->p, v.i64); break;
		case BL_TYPE_BOOL: wret = bl_parcel_write_bool(&e->p, v.b); break;
		case BL_TYPE_DOUBLE: wret = bl_parcel_write_double(&e->p, v.d); break;
		default: break;
		}
		fz_assert(wret == 0);
		record(e, t, *value);
	}
	return 0;
}

/* Reads the echo back in recorded order; the values must match. */
static void replay(struct echo *e)
{
	struct bl_reader stack[DEPTH + 1], *r = &stack[0];
	size_t i, depth = 0;
	uint64_t value;

	fz_assert(bl_reader_init_parcel(r, &e->p) == 0);
	for (i = 0; i < e->n; i++) {
		switch (e->recs[i].type) {
		case REC_BEGIN:
			fz_assert(depth < DEPTH);
			fz_assert(bl_reader_enter_array(r, r + 1, NULL) == 0);
			r++;
			depth++;
			break;
		case REC_END:
			fz_assert(depth > 0);
			fz_assert(bl_reader_skip(r) == -ENODATA);
			r--;
			depth--;
			break;
		default:
			fz_assert(read_value(r, (enum bl_type)e->recs[i].type,
					     &value, NULL) == 0);
			fz_assert(value == e->recs[i].value);
		}
	}
	fz_assert(depth == 0);
	fz_assert(bl_reader_skip(r) == -ENODATA);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	uint64_t offsets[FZ_MAX_OFFSETS];
	struct bl_reader stack[DEPTH + 1], *r = &stack[0];
	static struct echo e;
	const uint8_t *script;
	size_t n, m, i, depth = 0, data_size;
	uint8_t *data;
	uint64_t value;
	uint32_t count;
	int ret, t;

	/* header: offsets, script */
	n = size ? in[0] % (FZ_MAX_OFFSETS + 1) : 0;
	in += size ? 1 : 0;
	size -= size ? 1 : 0;
	for (i = 0; i < n; i++) {
		uint16_t o = 0;

		if (size >= 2) {
			o = (uint16_t)(in[0] | in[1] << 8);
			in += 2;
			size -= 2;
		}
		offsets[i] = o;
	}
	m = size ? in[0] : 0;
	in += size ? 1 : 0;
	size -= size ? 1 : 0;
	if (m > size)
		m = size;
	script = in;
	in += m;
	size -= m;

	/* the data in a buffer of its own, so ASan sees any overread */
	data_size = size;
	data = malloc(data_size ? data_size : 1);
	if (!data)
		return 0;
	memcpy(data, in, data_size);

	ret = bl_reader_init(r, data, data_size, offsets, n);
	if (ret) {
		fz_assert(ret == -EBADMSG);
		free(data);
		return 0;
	}

	bl_parcel_init(&e.p);
	e.n = 0;
	for (i = 0; i < m; i++) {
		unsigned int op = script[i] % FZ_NOPS;
		struct bl_reader before = *r;

		if (op <= FZ_OP_READ_LAST) {
			read_value(r, (enum bl_type)(op + 1), &value, &e);
			continue;
		}
		switch (op) {
		case FZ_OP_ENTER:
			if (depth == DEPTH)
				break;
			ret = bl_reader_enter_array(r, r + 1, &count);
			if (ret) {
				fz_assert(r->pos == before.pos);
				break;
			}
			fz_assert(count <= (r[1].end - r[1].pos) / 8);
			fz_assert(r[1].pos == before.pos + 16 &&
				  r[1].end == r->pos && r->pos <= r->end);
			r++;
			depth++;
			fz_assert(bl_parcel_begin_array(&e.p) == 0);
			record(&e, REC_BEGIN, 0);
			break;
		case FZ_OP_LEAVE:
			if (!depth)
				break;
			/* the echo closes its array at the same point */
			r--;
			depth--;
			fz_assert(bl_parcel_end_array(&e.p) == 0);
			record(&e, REC_END, 0);
			break;
		case FZ_OP_PEEK:
			t = bl_reader_peek_type(r);
			if (t > 0) {
				/* skip and the typed read agree with peek */
				struct bl_reader a = *r, b = *r, sub;

				ret = bl_reader_skip(&a);
				fz_assert(ret == t || ret == -EBADMSG);
				if (t == BL_TYPE_ARRAY)
					fz_assert(bl_reader_enter_array(&b, &sub, NULL) ==
						  (ret > 0 ? 0 : ret));
				else
					fz_assert(read_value(&b, (enum bl_type)t, &value,
							     NULL) == (ret > 0 ? 0 : ret));
				fz_assert(a.pos == b.pos);
			} else {
				fz_assert(t == -ENODATA || t == -EMSGSIZE ||
					  t == -EBADMSG);
				fz_assert(bl_reader_skip(r) == t);
			}
			fz_assert(r->pos == before.pos);
			break;
		case FZ_OP_LOCAL:
		case FZ_OP_HANDLE:
		case FZ_OP_REGION: {
			struct fbinder_object o = { .type = 0 };
			uint64_t cookie = 0;
			uint32_t handle = 0;

			if (op == FZ_OP_LOCAL) {
				ret = bl_reader_read_local(r, &cookie);
				o.type = FBINDER_OBJ_LOCAL;
				o.cookie = cookie;
				value = cookie;
			} else {
				if (op == FZ_OP_HANDLE) {
					ret = bl_reader_read_handle(r, &handle);
					o.type = FBINDER_OBJ_HANDLE;
				} else {
					ret = bl_reader_read_region(r, &handle);
					o.type = FBINDER_OBJ_REGION;
				}
				o.handle = handle;
				value = handle;
			}
			if (ret) {
				fz_assert(ret == -ENODATA || ret == -EMSGSIZE ||
					  ret == -EBADMSG);
				fz_assert(r->pos == before.pos);
				break;
			}
			fz_assert(r->pos == before.pos + 24);
			fz_assert(bl_parcel_write_object(&e.p, &o) == 0);
			record(&e, BL_TYPE_OBJECT, value ^ (uint64_t)o.type << 60);
			break;
		}
		case FZ_OP_SKIP:
			ret = bl_reader_skip(r);
			if (ret < 0)
				fz_assert(r->pos == before.pos);
			else
				fz_assert(r->pos > before.pos && r->pos <= r->end);
			break;
		}
	}

	/*
	 * The echo must hold exactly what the reads produced.  Items read
	 * after leaving an array early still belong after it: the echo closes
	 * arrays where the script left them, which is consistent as long as
	 * replay follows the same records.
	 */
	while (depth--) {
		fz_assert(bl_parcel_end_array(&e.p) == 0);
		record(&e, REC_END, 0);
	}
	replay(&e);
#ifdef FUZZ_DEBUG
	fprintf(stderr, "fuzz_parcel: %zu offsets, %zu ops, %zu data bytes, "
		"%zu values echoed\n", n, m, data_size, e.n);
#endif

	bl_parcel_fini(&e.p);
	free(data);
	return 0;
}
