// SPDX-License-Identifier: MIT
/*
 * calculator-client - calls the calculator service through small typed
 * wrappers ("proxies"): calc_arith() and calc_string() hide the parcels,
 * so the rest of the program calls them like ordinary functions.
 *
 * Run: calculator-client add 6 7        -> 6 + 7 = 13
 *      calculator-client div 7 0        -> error: -EDOM, exit 1
 *      calculator-client concat foo bar -> "foobar"
 *      calculator-client upper hello    -> "HELLO"
 * Exit status: 0 success, 1 the call or the method failed, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binderlite.h"
#include "fbtool.h"
#include "calculator.h"

/*
 * Calls an arithmetic method: two i64 in, one or two i64 out (out2 may be
 * NULL).  Returns 0, the method's error status, or the call's error.
 */
static int calc_arith(struct bl_context *ctx, uint32_t handle, uint32_t code,
		      int64_t a, int64_t b, int64_t *out, int64_t *out2)
{
	struct bl_parcel req = BL_PARCEL_INIT;
	struct bl_reply reply;
	int ret;

	ret = bl_parcel_write_i64(&req, a);
	if (!ret)
		ret = bl_parcel_write_i64(&req, b);
	if (!ret)
		ret = bl_call(ctx, handle, code, &req, &reply, BL_NO_TIMEOUT);
	bl_parcel_fini(&req);
	if (ret)
		return ret;
	ret = reply.status;	/* e.g. -EDOM for a division by zero */
	if (!ret)
		ret = bl_reader_read_i64(&reply.reader, out);
	if (!ret && out2)
		ret = bl_reader_read_i64(&reply.reader, out2);
	bl_reply_fini(&reply);
	return ret;
}

/*
 * Calls a string method with one or two strings (b may be NULL).  On
 * success *out is a malloc'ed copy of the result: the reply's own string
 * lives in the receive buffer only until bl_reply_fini().
 */
static int calc_string(struct bl_context *ctx, uint32_t handle, uint32_t code,
		       const char *a, const char *b, char **out)
{
	struct bl_parcel req = BL_PARCEL_INIT;
	struct bl_reply reply;
	const char *s;
	int ret;

	ret = bl_parcel_write_string(&req, a);
	if (!ret && b)
		ret = bl_parcel_write_string(&req, b);
	if (!ret)
		ret = bl_call(ctx, handle, code, &req, &reply, BL_NO_TIMEOUT);
	bl_parcel_fini(&req);
	if (ret)
		return ret;
	ret = reply.status;
	if (!ret)
		ret = bl_reader_read_string(&reply.reader, &s, NULL);
	if (!ret) {
		*out = strdup(s);
		if (!*out)
			ret = -ENOMEM;
	}
	bl_reply_fini(&reply);
	return ret;
}

static const struct {
	const char *name;
	uint32_t code;
	const char *symbol;	/* NULL: a string method */
	int strings;		/* its number of string arguments */
} methods[] = {
	{ "add", CALC_ADD, "+", 0 },
	{ "sub", CALC_SUB, "-", 0 },
	{ "mul", CALC_MUL, "*", 0 },
	{ "div", CALC_DIV, "/", 0 },
	{ "concat", CALC_CONCAT, NULL, 2 },
	{ "upper", CALC_UPPER, NULL, 1 },
};

static int usage(void)
{
	fprintf(stderr, "usage: calculator-client add|sub|mul|div A B\n"
			"       calculator-client concat A B\n"
			"       calculator-client upper TEXT\n");
	return 2;
}

static bool parse_i64(const char *s, int64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 0);
	return !errno && end != s && !*end;
}

int main(int argc, char **argv)
{
	struct bl_context *ctx;
	uint32_t handle;
	size_t m;
	int64_t a = 0, b = 0, r1 = 0, r2 = 0;
	char *text = NULL;
	int ret;

	if (argc < 3)
		return usage();
	for (m = 0; m < sizeof(methods) / sizeof(methods[0]); m++)
		if (!strcmp(argv[1], methods[m].name))
			break;
	if (m == sizeof(methods) / sizeof(methods[0]))
		return usage();
	if (methods[m].symbol) {
		if (argc != 4 || !parse_i64(argv[2], &a) || !parse_i64(argv[3], &b))
			return usage();
	} else if (argc != 2 + methods[m].strings) {
		return usage();
	}

	fbtool_init("calculator-client");
	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		return fbtool_unavailable(NULL, -ret);
	ret = bl_sm_get(ctx, CALC_SERVICE_NAME, 5000, &handle);
	if (ret) {
		fprintf(stderr, "calculator-client: no \"%s\" service: %s\n",
			CALC_SERVICE_NAME, strerror(-ret));
		bl_context_close(ctx);
		return 1;
	}

	if (methods[m].symbol)
		ret = calc_arith(ctx, handle, methods[m].code, a, b, &r1,
				 methods[m].code == CALC_DIV ? &r2 : NULL);
	else
		ret = calc_string(ctx, handle, methods[m].code, argv[2],
				  methods[m].strings == 2 ? argv[3] : NULL, &text);

	if (ret)
		fprintf(stderr, "calculator-client: %s failed: %s (status %d)\n",
			methods[m].name, strerror(-ret), ret);
	else if (methods[m].code == CALC_DIV)
		printf("%lld / %lld = %lld remainder %lld\n", (long long)a,
		       (long long)b, (long long)r1, (long long)r2);
	else if (methods[m].symbol)
		printf("%lld %s %lld = %lld\n", (long long)a, methods[m].symbol,
		       (long long)b, (long long)r1);
	else
		printf("\"%s\"\n", text);
	free(text);
	bl_handle_release(ctx, handle);
	bl_context_close(ctx);
	return ret ? 1 : 0;
}
