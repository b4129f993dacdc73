// SPDX-License-Identifier: MIT
/*
 * policy_parser.c - the service manager's policy file parser and matcher
 * (servicemanager/policy.c), on the host, under valgrind.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"

/* Parses text; returns the parser's result, *line the bad line. */
static int parse(const char *text, struct sm_policy *p, unsigned int *line)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ck_assert_ptr_nonnull(f);
	memset(p, 0, sizeof(*p));
	*line = 0;
	ret = sm_policy_parse(f, p, line);
	fclose(f);
	return ret;
}

START_TEST(test_exact_prefix_any)
{
	const char *text =
		"# system services\n"
		"allow 0 *\n"
		"\n"
		"allow 1000 app.   # a comment after a rule\n"
		"allow 1000 media.*\n"
		"allow * public.echo\n"
		"   allow\t1001\tcalc/v1   \n";
	struct sm_policy p;
	unsigned int line;

	ck_assert_int_eq(parse(text, &p, &line), 0);
	ck_assert_uint_eq(p.count, 5);
	/* root: everything */
	ck_assert(sm_policy_allows(&p, 0, NULL, "anything"));
	/* prefix */
	ck_assert(sm_policy_allows(&p, 1000, NULL, "media.player"));
	ck_assert(sm_policy_allows(&p, 1000, NULL, "media."));
	ck_assert(!sm_policy_allows(&p, 1000, NULL, "media"));
	ck_assert(!sm_policy_allows(&p, 1001, NULL, "media.player"));
	/* exact */
	ck_assert(sm_policy_allows(&p, 1000, NULL, "app."));
	ck_assert(!sm_policy_allows(&p, 1000, NULL, "app.x"));
	ck_assert(sm_policy_allows(&p, 1001, NULL, "calc/v1"));
	ck_assert(!sm_policy_allows(&p, 1001, NULL, "calc/v12"));
	/* any uid */
	ck_assert(sm_policy_allows(&p, 4242, NULL, "public.echo"));
	ck_assert(!sm_policy_allows(&p, 4242, NULL, "public.echo2"));
	sm_policy_free(&p);
	ck_assert_uint_eq(p.count, 0);
}
END_TEST

START_TEST(test_no_policy_and_empty_policy)
{
	struct sm_policy p;
	unsigned int line;

	/* no policy at all: anyone, anything */
	ck_assert(sm_policy_allows(NULL, 1234, NULL, "x"));
	/* a policy without rules allows nothing, root included */
	ck_assert_int_eq(parse("# nothing\n\n", &p, &line), 0);
	ck_assert(!sm_policy_allows(&p, 0, NULL, "x"));
	sm_policy_free(&p);
}
END_TEST

START_TEST(test_labels)
{
	const char *text =
		"allow * media.* label=system_u:system_r:media_t:s0\n"
		"allow 1000 calc label=/usr/bin/calc*   # an AppArmor profile and its children\n"
		"allow 1001 plain\n";
	struct sm_policy p;
	unsigned int line;

	ck_assert_int_eq(parse(text, &p, &line), 0);
	ck_assert_uint_eq(p.count, 3);
	/* exact label, any uid */
	ck_assert(sm_policy_allows(&p, 7, "system_u:system_r:media_t:s0", "media.x"));
	ck_assert(!sm_policy_allows(&p, 7, "system_u:system_r:media_t:s0:c1", "media.x"));
	ck_assert(!sm_policy_allows(&p, 7, "unconfined", "media.x"));
	/* no label known, or none (no LSM): a label rule does not match */
	ck_assert(!sm_policy_allows(&p, 7, NULL, "media.x"));
	ck_assert(!sm_policy_allows(&p, 7, "", "media.x"));
	/* a label prefix, with its uid */
	ck_assert(sm_policy_allows(&p, 1000, "/usr/bin/calc", "calc"));
	ck_assert(sm_policy_allows(&p, 1000, "/usr/bin/calc//helper", "calc"));
	ck_assert(!sm_policy_allows(&p, 1001, "/usr/bin/calc", "calc"));
	ck_assert(!sm_policy_allows(&p, 1000, "/usr/bin/cal", "calc"));
	/* a rule without a label takes any, none included */
	ck_assert(sm_policy_allows(&p, 1001, NULL, "plain"));
	ck_assert(sm_policy_allows(&p, 1001, "anything", "plain"));
	sm_policy_free(&p);
}
END_TEST

START_TEST(test_syntax_errors)
{
	static const char *const bad[] = {
		"deny 0 foo\n",			/* unknown verb */
		"allow 0\n",			/* missing name */
		"allow 0 a b\n",		/* extra word */
		"allow root foo\n",		/* names are not resolved */
		"allow -1 foo\n",
		"allow 4294967295 foo\n",	/* (uid_t)-1 is not a uid */
		"allow 99999999999999999999 foo\n",
		"allow 0 bad*name\n",		/* '*' only at the end */
		"allow 0 sp@ce\n",
		"allow 0 **\n",
		"allow 12x foo\n",
		"allow 0 foo label=\n",	/* an empty label */
		"allow 0 foo label=*\n",	/* an empty prefix */
		"allow 0 foo label=a*b\n",	/* '*' only at the end */
		"allow 0 foo lable=x\n",	/* not the label key */
		"allow 0 foo label=x extra\n",
	};
	struct sm_policy p;
	unsigned int line;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse(bad[i], &p, &line) == -EINVAL,
			      "accepted: %s", bad[i]);
		ck_assert_uint_eq(line, 1);
		ck_assert_uint_eq(p.count, 0);
		ck_assert_ptr_null(p.rules);
	}
	/* the line number of the first bad line, nothing kept */
	ck_assert_int_eq(parse("allow 0 a\n#x\nallow 1 b\nallow x c\n", &p,
			       &line), -EINVAL);
	ck_assert_uint_eq(line, 4);
	ck_assert_uint_eq(p.count, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy_parser");
	TCase *tc = tcase_create("policy");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_exact_prefix_any);
	tcase_add_test(tc, test_no_policy_and_empty_policy);
	tcase_add_test(tc, test_labels);
	tcase_add_test(tc, test_syntax_errors);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
