// SPDX-License-Identifier: MIT
/*
 * elapsed_ms.c - the library's millisecond clock difference
 * (bl__ms_between in libbinderlite/internal.h), which bl_sm_get()'s
 * timeout is measured with: it must never round a wait up.
 */
#include <check.h>
#include <stdint.h>

#include "binderlite.h"
#include "../../libbinderlite/internal.h"

static int64_t between(long long s0, long ns0, long long s1, long ns1)
{
	struct timespec from = { .tv_sec = s0, .tv_nsec = ns0 };
	struct timespec to = { .tv_sec = s1, .tv_nsec = ns1 };

	return bl__ms_between(&from, &to);
}

START_TEST(test_same_second)
{
	ck_assert_int_eq(between(5, 0, 5, 0), 0);
	ck_assert_int_eq(between(5, 100000000, 5, 300999999), 200);
	ck_assert_int_eq(between(5, 100000000, 5, 301000000), 201);
}
END_TEST

/* 199.5 ms across a second boundary: a per-field division said 200 */
START_TEST(test_borrow_rounds_down)
{
	ck_assert_int_eq(between(0, 900500000, 1, 100000000), 199);
	ck_assert_int_eq(between(0, 999999999, 1, 0), 0);
	ck_assert_int_eq(between(0, 800000000, 1, 0), 200);
}
END_TEST

START_TEST(test_long_waits)
{
	/* a day and a half, and a clock reading past 2^31 seconds */
	ck_assert_int_eq(between(10, 0, 10 + 129600, 1000000), 129600001LL);
	ck_assert_int_eq(between(3000000000LL, 0, 3000000001LL, 500000000),
			 1500);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("elapsed_ms");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_same_second);
	tcase_add_test(tc, test_borrow_rounds_down);
	tcase_add_test(tc, test_long_waits);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
