// SPDX-License-Identifier: MIT
/*
 * gen_idl_corpus.c - writes the seed corpora of fuzz_idl.c: for each test
 * interface one well-formed request per method (and the built-ins, an
 * unknown code, a wrong token), as fuzz_idl.c reads its input: the
 * selector byte, then the parcel.  "make fuzz-corpus" runs it:
 *
 *   gen_idl_corpus DIR    writes DIR/types/, DIR/versioned/, DIR/versioned_v1/
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binderlite.h"
#include "types.h"
#include "versioned.h"

static const char *dir;
static int failed;

static void seed(const char *iface, const char *name, uint8_t sel,
		 const struct bl_parcel *p)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, iface);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, iface, name);
	f = fopen(path, "wb");
	if (!f || fwrite(&sel, 1, 1, f) != 1 ||
	    fwrite(bl_parcel_data(p), 1, bl_parcel_size(p), f) != bl_parcel_size(p)) {
		perror(path);
		failed = 1;
	}
	if (f && fclose(f))
		failed = 1;
}

/* a request of interface desc: the token, and the caller's items */
static void start(struct bl_parcel *p, const char *desc)
{
	bl_parcel_reset(p);
	if (bl_parcel_write_string(p, desc))
		failed = 1;
}

static void check(int ret)
{
	if (ret)
		failed = 1;
}

static void ints_array(struct bl_parcel *p, int n, bool wide)
{
	check(bl_parcel_begin_array(p));
	for (int i = 0; i < n; i++)
		check(wide ? bl_parcel_write_i64(p, i - 1) : bl_parcel_write_i32(p, i * 5));
	check(bl_parcel_end_array(p));
}

static void types_seeds(void)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct point pts[2] = { { 1, 2 }, { 3, 4 } };
	enum color pal[2] = { COLOR_RED, COLOR_BLUE };
	uint8_t bits[3] = { 1, 2, 3 };
	int64_t ids[2] = { -1, 1 };
	struct shape sh = {
		.name = "shape", .center = { 5, 6 }, .corners = pts, .corners_len = 2,
		.color = COLOR_GREEN, .palette = pal, .palette_len = 2,
		.bitmap = bits, .bitmap_len = 3, .ids = ids, .ids_len = 2,
		.weight = 2.5, .ratio = 0.25f, .filled = true, .letter = 'x', .tag = 3,
	};
	const char *d = TYPES_DESCRIPTOR;

	start(&p, d); check(bl_parcel_write_i8(&p, -5)); seed("types", "byte", 1, &p);
	start(&p, d); check(bl_parcel_write_u16(&p, 65)); seed("types", "char", 2, &p);
	start(&p, d); check(bl_parcel_write_i32(&p, 7)); seed("types", "int", 3, &p);
	start(&p, d); check(bl_parcel_write_i64(&p, -7)); seed("types", "long", 4, &p);
	start(&p, d); check(bl_parcel_write_double(&p, 0.5)); seed("types", "float", 5, &p);
	start(&p, d); check(bl_parcel_write_double(&p, 1e300)); seed("types", "double", 6, &p);
	start(&p, d); check(bl_parcel_write_bool(&p, true)); seed("types", "bool", 7, &p);
	start(&p, d); check(bl_parcel_write_string(&p, "h\xc3\xa9")); seed("types", "string", 8, &p);
	start(&p, d); check(bl_parcel_write_blob(&p, "blob", 4)); seed("types", "bytes", 9, &p);
	start(&p, d); ints_array(&p, 3, false); seed("types", "ints", 10, &p);
	start(&p, d);
	check(bl_parcel_begin_array(&p));
	check(bl_parcel_write_bool(&p, true));
	check(bl_parcel_write_bool(&p, false));
	check(bl_parcel_end_array(&p));
	seed("types", "bools", 11, &p);
	start(&p, d); check(bl_parcel_write_i32(&p, COLOR_GREEN)); seed("types", "color", 12, &p);
	start(&p, d);
	check(bl_parcel_begin_array(&p));
	check(bl_parcel_write_i32(&p, COLOR_BLUE));
	check(bl_parcel_end_array(&p));
	seed("types", "colors", 13, &p);
	start(&p, d); check(point_write(&p, &pts[0])); seed("types", "point", 14, &p);
	start(&p, d); check(shape_write(&p, &sh)); seed("types", "shape", 15, &p);
	start(&p, d);
	check(bl_parcel_begin_array(&p));
	check(point_write(&p, &pts[0]));
	check(point_write(&p, &pts[1]));
	check(bl_parcel_end_array(&p));
	seed("types", "points", 16, &p);
	start(&p, d);
	check(bl_parcel_write_i32(&p, 1));		/* in a */
	check(bl_parcel_write_i32(&p, 2));		/* inout c */
	check(bl_parcel_write_string(&p, "t"));		/* inout t */
	check(point_write(&p, &pts[1]));		/* inout q */
	ints_array(&p, 2, true);			/* inout m */
	seed("types", "directions", 17, &p);
	start(&p, d);
	check(bl_parcel_write_i32(&p, 7));
	check(bl_parcel_write_i32(&p, 2));
	seed("types", "divide", 18, &p);
	start(&p, d);
	check(bl_parcel_write_string(&p, "note"));
	check(bl_parcel_write_i32(&p, 1));
	seed("types", "note", 19, &p);
	start(&p, d); seed("types", "notes", 20, &p);
	start(&p, d); check(bl_parcel_write_i32(&p, -1)); seed("types", "fail", 25, &p);
	start(&p, d); check(bl_parcel_write_i32(&p, 0)); seed("types", "sleep", 26, &p);
	start(&p, d); seed("types", "version", TYPES_CODE_DIE + 1, &p);
	start(&p, d); seed("types", "hash", TYPES_CODE_DIE + 2, &p);
	start(&p, d); seed("types", "unknown-code", 0, &p);
	start(&p, "fastbinder.test.IOther"); check(bl_parcel_write_i32(&p, 7));
	seed("types", "wrong-token", 3, &p);
	bl_parcel_fini(&p);
}

static void versioned_seeds(const char *iface, int ncodes)
{
	struct bl_parcel p = BL_PARCEL_INIT;

	for (int code = 1; code <= ncodes; code++) {
		char name[32];

		start(&p, VERSIONED_DESCRIPTOR);
		check(bl_parcel_write_i32(&p, code * 10));
		snprintf(name, sizeof(name), "method-%d", code);
		seed(iface, name, (uint8_t)code, &p);
	}
	start(&p, VERSIONED_DESCRIPTOR);
	seed(iface, "version", (uint8_t)(ncodes + 1), &p);
	seed(iface, "hash", (uint8_t)(ncodes + 2), &p);
	bl_parcel_fini(&p);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_idl_corpus DIR\n");
		return 2;
	}
	dir = argv[1];
	mkdir(dir, 0755);
	types_seeds();
	versioned_seeds("versioned", 2);
	versioned_seeds("versioned_v1", 1);
	return failed;
}
