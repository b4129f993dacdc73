// SPDX-License-Identifier: MIT
/*
 * label_bounds: libbinderlite's reading of the sender's label that a
 * message carries after its offsets (FBINDER_TXN_SECCTX, bl__msg_label()),
 * on the host, over a "mapping" this test writes and valgrind watches.  A
 * label is taken only when its header, its bytes and its NUL lie inside
 * the mapping and its size is below FBINDER_SECCTX_MAX: a well-formed one,
 * an empty one and one whose NUL is the mapping's last byte are; a
 * message without the flag, a header at or past the end, an
 * offsets count that would wrap, a size of FBINDER_SECCTX_MAX or of
 * 0xffffffff, a size that puts the NUL past the end, and a missing NUL are
 * not, and nothing outside the mapping is read.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../libbinderlite/internal.h"

#define MAP_SIZE	(64 * 1024)
#define MSG_AT		4096	/* the message's data in the mapping */

static uint8_t *map;

/* A message of 13 bytes and two offsets: its label header at at. */
static struct fbinder_txn_msg msg_at(uint32_t flags)
{
	return (struct fbinder_txn_msg){
		.flags = flags, .data = MSG_AT, .data_size = 13,
		.offsets = MSG_AT + 16, .offsets_count = 2,
	};
}

#define LABEL_AT	(MSG_AT + 16 + 2 * 8)

static void put_label(size_t at, uint32_t size, const char *bytes, size_t n)
{
	struct fbinder_secctx h = { .size = size };

	memcpy(map + at, &h, sizeof(h));
	memcpy(map + at + sizeof(h), bytes, n);
}

static void take(const struct fbinder_txn_msg *m, struct bl_call_info *info)
{
	info->sender_label = (const char *)1;	/* must be overwritten */
	info->sender_label_size = 99;
	bl__msg_label(map, MAP_SIZE, m, info);
}

START_TEST(test_good)
{
	struct fbinder_txn_msg m = msg_at(FBINDER_TXN_SECCTX);
	struct bl_call_info info;

	put_label(LABEL_AT, 10, "unconfined", 11);
	take(&m, &info);
	ck_assert_ptr_eq(info.sender_label, map + LABEL_AT + 8);
	ck_assert_str_eq(info.sender_label, "unconfined");
	ck_assert_uint_eq(info.sender_label_size, 10);
	/* the same bytes without the flag: no label */
	m.flags = FBINDER_TXN_ONEWAY;
	take(&m, &info);
	ck_assert_ptr_null(info.sender_label);
	ck_assert_uint_eq(info.sender_label_size, 0);
	/* empty: no LSM provides labels */
	m.flags = FBINDER_TXN_SECCTX;
	put_label(LABEL_AT, 0, "", 1);
	take(&m, &info);
	ck_assert_ptr_nonnull(info.sender_label);
	ck_assert_str_eq(info.sender_label, "");
	ck_assert_uint_eq(info.sender_label_size, 0);
}
END_TEST

START_TEST(test_at_the_end)
{
	/* no offsets, the header 16 bytes before the end: "abcdefg" and its NUL fill it */
	struct fbinder_txn_msg m = {
		.flags = FBINDER_TXN_SECCTX, .data = MAP_SIZE - 24, .data_size = 8,
		.offsets = MAP_SIZE - 16, .offsets_count = 0,
	};
	struct bl_call_info info;

	put_label(MAP_SIZE - 16, 7, "abcdefg", 8);
	take(&m, &info);
	ck_assert_ptr_nonnull(info.sender_label);
	ck_assert_str_eq(info.sender_label, "abcdefg");
	/* one byte more would put the NUL past the end */
	put_label(MAP_SIZE - 16, 8, "abcdefgh", 8);
	take(&m, &info);
	ck_assert_ptr_null(info.sender_label);
	/* a header that ends the mapping: no room for the NUL */
	m.offsets = MAP_SIZE - 8;
	put_label(MAP_SIZE - 8, 0, "", 0);
	take(&m, &info);
	ck_assert_ptr_null(info.sender_label);
	/* no room for the header, and a header past the end */
	m.offsets = MAP_SIZE;
	take(&m, &info);
	ck_assert_ptr_null(info.sender_label);
	m.offsets = MAP_SIZE + 8;
	take(&m, &info);
	ck_assert_ptr_null(info.sender_label);
}
END_TEST

START_TEST(test_bad_sizes)
{
	struct fbinder_txn_msg m = msg_at(FBINDER_TXN_SECCTX);
	static const uint32_t sizes[] = { FBINDER_SECCTX_MAX, FBINDER_SECCTX_MAX + 1,
					  MAP_SIZE, 0x7fffffff, 0xffffffff };
	struct bl_call_info info;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		put_label(LABEL_AT, sizes[i], "x", 2);
		take(&m, &info);
		ck_assert_msg(info.sender_label == NULL, "size %u taken", sizes[i]);
	}
	/* a label of FBINDER_SECCTX_MAX - 1 bytes and its NUL: taken */
	memset(map + LABEL_AT + 8, 'a', FBINDER_SECCTX_MAX - 1);
	map[LABEL_AT + 8 + FBINDER_SECCTX_MAX - 1] = '\0';
	put_label(LABEL_AT, FBINDER_SECCTX_MAX - 1, "a", 1);
	take(&m, &info);
	ck_assert_ptr_nonnull(info.sender_label);
	ck_assert_uint_eq(strlen(info.sender_label), FBINDER_SECCTX_MAX - 1);
	/* no NUL where the size says */
	put_label(LABEL_AT, 3, "abcd", 5);
	take(&m, &info);
	ck_assert_ptr_null(info.sender_label);
	/* offsets that wrap or are misaligned */
	m.offsets_count = UINT64_MAX / 8 + 2;
	take(&m, &info);
	ck_assert_ptr_null(info.sender_label);
	m = msg_at(FBINDER_TXN_SECCTX);
	m.offsets += 4;
	take(&m, &info);
	ck_assert_ptr_null(info.sender_label);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("label_bounds");
	TCase *tc = tcase_create("label");
	SRunner *sr;
	int failed;

	map = calloc(1, MAP_SIZE);
	if (!map)
		return 1;
	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_at_the_end);
	tcase_add_test(tc, test_bad_sizes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	free(map);
	return failed ? 1 : 0;
}
