// SPDX-License-Identifier: MIT
/*
 * gen_parcel_corpus.c - writes the seed corpus of fuzz_parcel: a handful of
 * valid parcels, each with the script that reads it back, in the input
 * format of parcel_input.h.
 *
 * Usage: gen_parcel_corpus DIR   (writes DIR/seed-NN)
 * Links: build/libbinderlite/libbinderlite.a
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binderlite.h"
#include "parcel_input.h"

struct seed {
	struct bl_parcel p;
	uint8_t script[255];
	size_t m;
};

static void op(struct seed *s, unsigned int o)
{
	if (s->m < sizeof(s->script))
		s->script[s->m++] = (uint8_t)o;
}

/* the script op that reads type t */
#define RD(t) ((t) - 1)

static int emit(const char *dir, int n, struct seed *s)
{
	char path[4096];
	size_t i, count = bl_parcel_offsets_count(&s->p);
	const uint64_t *offs = bl_parcel_offsets(&s->p);
	FILE *f;

	if (count > FZ_MAX_OFFSETS || bl_parcel_open_arrays(&s->p))
		return -1;
	snprintf(path, sizeof(path), "%s/seed-%02d", dir, n);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	fputc((int)count, f);
	for (i = 0; i < count; i++) {
		if (offs[i] > 0xffff)
			return fclose(f), -1;
		fputc((int)(offs[i] & 0xff), f);
		fputc((int)(offs[i] >> 8), f);
	}
	fputc((int)s->m, f);
	fwrite(s->script, 1, s->m, f);
	fwrite(bl_parcel_data(&s->p), 1, bl_parcel_size(&s->p), f);
	fclose(f);
	bl_parcel_fini(&s->p);
	return 0;
}

int main(int argc, char **argv)
{
	struct seed s;
	int n = 0, i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}

	/* 0: every scalar */
	memset(&s, 0, sizeof(s)); bl_parcel_init(&s.p);
	bl_parcel_write_u8(&s.p, 200); op(&s, RD(BL_TYPE_U8));
	bl_parcel_write_i8(&s.p, -100); op(&s, RD(BL_TYPE_I8));
	bl_parcel_write_u16(&s.p, 60000); op(&s, RD(BL_TYPE_U16));
	bl_parcel_write_i16(&s.p, -20000); op(&s, RD(BL_TYPE_I16));
	bl_parcel_write_u32(&s.p, 4000000000u); op(&s, RD(BL_TYPE_U32));
	bl_parcel_write_i32(&s.p, -2000000000); op(&s, RD(BL_TYPE_I32));
	bl_parcel_write_u64(&s.p, 1ull << 63); op(&s, RD(BL_TYPE_U64));
	bl_parcel_write_i64(&s.p, -1); op(&s, RD(BL_TYPE_I64));
	bl_parcel_write_bool(&s.p, true); op(&s, RD(BL_TYPE_BOOL));
	bl_parcel_write_double(&s.p, 6.02e23); op(&s, RD(BL_TYPE_DOUBLE));
	op(&s, FZ_OP_PEEK);
	if (emit(argv[1], n++, &s))
		return 1;

	/* 1: strings and blobs */
	memset(&s, 0, sizeof(s)); bl_parcel_init(&s.p);
	bl_parcel_write_string(&s.p, ""); op(&s, RD(BL_TYPE_STRING));
	bl_parcel_write_string(&s.p, "service.echo"); op(&s, RD(BL_TYPE_STRING));
	bl_parcel_write_string(&s.p, "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	op(&s, RD(BL_TYPE_STRING));
	bl_parcel_write_blob(&s.p, "\x00\x01\x02\x03\x04", 5); op(&s, RD(BL_TYPE_BLOB));
	bl_parcel_write_blob(&s.p, NULL, 0); op(&s, RD(BL_TYPE_BLOB));
	op(&s, FZ_OP_PEEK);
	if (emit(argv[1], n++, &s))
		return 1;

	/* 2: objects (local, handle, region) and fds */
	memset(&s, 0, sizeof(s)); bl_parcel_init(&s.p);
	bl_parcel_write_u32(&s.p, 3); op(&s, RD(BL_TYPE_U32));
	bl_parcel_write_local(&s.p, 0x7f0012345678ull); op(&s, RD(BL_TYPE_OBJECT));
	bl_parcel_write_handle(&s.p, 1); op(&s, RD(BL_TYPE_OBJECT));
	bl_parcel_write_fd(&s.p, 5); op(&s, RD(BL_TYPE_FD));
	bl_parcel_write_handle(&s.p, 0); op(&s, FZ_OP_PEEK); op(&s, RD(BL_TYPE_OBJECT));
	bl_parcel_write_local(&s.p, 0xabcdef); op(&s, FZ_OP_HANDLE); op(&s, FZ_OP_LOCAL);
	bl_parcel_write_handle(&s.p, 4); op(&s, FZ_OP_LOCAL); op(&s, FZ_OP_HANDLE);
	bl_parcel_write_region(&s.p, 7); op(&s, RD(BL_TYPE_OBJECT));
	bl_parcel_write_region(&s.p, 9); op(&s, FZ_OP_HANDLE); op(&s, FZ_OP_REGION);
	bl_parcel_write_handle(&s.p, 2); op(&s, FZ_OP_REGION); op(&s, FZ_OP_HANDLE);
	if (emit(argv[1], n++, &s))
		return 1;

	/* 3: nested arrays with objects inside */
	memset(&s, 0, sizeof(s)); bl_parcel_init(&s.p);
	bl_parcel_begin_array(&s.p); op(&s, FZ_OP_ENTER);
	for (i = 0; i < 3; i++) {
		bl_parcel_write_i32(&s.p, i); op(&s, RD(BL_TYPE_I32));
	}
	bl_parcel_begin_array(&s.p); op(&s, FZ_OP_ENTER);
	bl_parcel_write_handle(&s.p, 7); op(&s, RD(BL_TYPE_OBJECT));
	bl_parcel_write_string(&s.p, "inner"); op(&s, RD(BL_TYPE_STRING));
	bl_parcel_end_array(&s.p); op(&s, FZ_OP_LEAVE);
	bl_parcel_begin_array(&s.p); op(&s, FZ_OP_ENTER);
	bl_parcel_end_array(&s.p); op(&s, FZ_OP_LEAVE);
	bl_parcel_end_array(&s.p); op(&s, FZ_OP_LEAVE);
	bl_parcel_write_u64(&s.p, 99); op(&s, RD(BL_TYPE_U64));
	if (emit(argv[1], n++, &s))
		return 1;

	/* 4: skip and peek over a mixed parcel */
	memset(&s, 0, sizeof(s)); bl_parcel_init(&s.p);
	bl_parcel_write_string(&s.p, "skip me"); op(&s, FZ_OP_PEEK); op(&s, FZ_OP_SKIP);
	bl_parcel_begin_array(&s.p);
	bl_parcel_write_local(&s.p, 42);
	bl_parcel_end_array(&s.p); op(&s, FZ_OP_SKIP);
	bl_parcel_write_double(&s.p, -0.0); op(&s, FZ_OP_SKIP);
	bl_parcel_write_bool(&s.p, false); op(&s, RD(BL_TYPE_BOOL));
	op(&s, FZ_OP_SKIP);
	if (emit(argv[1], n++, &s))
		return 1;

	/* 5: a typical call: name, code, a list of handles, a payload */
	memset(&s, 0, sizeof(s)); bl_parcel_init(&s.p);
	bl_parcel_write_string(&s.p, "org.example.Calc"); op(&s, RD(BL_TYPE_STRING));
	bl_parcel_write_u32(&s.p, 1); op(&s, RD(BL_TYPE_U32));
	bl_parcel_begin_array(&s.p); op(&s, FZ_OP_ENTER);
	for (i = 0; i < 6; i++) {
		bl_parcel_write_handle(&s.p, 10 + i); op(&s, RD(BL_TYPE_OBJECT));
	}
	bl_parcel_end_array(&s.p); op(&s, FZ_OP_LEAVE);
	bl_parcel_write_blob(&s.p, "0123456789abcdefXYZ", 19); op(&s, RD(BL_TYPE_BLOB));
	bl_parcel_write_i64(&s.p, -123456789); op(&s, RD(BL_TYPE_I64));
	if (emit(argv[1], n++, &s))
		return 1;

	/* 6: a script of every op over an empty parcel */
	memset(&s, 0, sizeof(s)); bl_parcel_init(&s.p);
	for (i = 0; i < FZ_NOPS; i++)
		op(&s, (unsigned int)i);
	if (emit(argv[1], n++, &s))
		return 1;

	printf("wrote %d seeds to %s\n", n, argv[1]);
	return 0;
}
