// SPDX-License-Identifier: MIT
/*
 * calculator-service - a typed interface with several methods: integer
 * arithmetic, string methods, and error statuses (division by zero).
 *
 * The handler is a switch over the method codes of calculator.h.  Each
 * case reads the arguments it expects, in order, with the typed readers
 * (a wrong type is refused with -EBADMSG, never misread), and writes the
 * results into the reply.  Serves with a pool of 2 looper threads.
 *
 * Run: fb-servicemanager & calculator-service &
 *      calculator-client add 6 7
 *      fbservice call calculator 1 i64 6 i64 7
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binderlite.h"
#include "fbtool.h"
#include "calculator.h"

/* Reads the two i64 operands; anything else in the request is an error. */
static int read_two_i64(struct bl_reader *r, int64_t *a, int64_t *b)
{
	int ret = bl_reader_read_i64(r, a);

	if (!ret)
		ret = bl_reader_read_i64(r, b);
	if (!ret && bl_reader_remaining(r))
		ret = -EBADMSG;		/* trailing items: not our layout */
	return ret;
}

static int32_t arithmetic(uint32_t code, struct bl_reader *r,
			  struct bl_parcel *reply)
{
	int64_t a, b, res;
	int ret = read_two_i64(r, &a, &b);

	if (ret)
		return ret;
	switch (code) {
	case CALC_ADD:
		if (__builtin_add_overflow(a, b, &res))
			return -ERANGE;
		break;
	case CALC_SUB:
		if (__builtin_sub_overflow(a, b, &res))
			return -ERANGE;
		break;
	case CALC_MUL:
		if (__builtin_mul_overflow(a, b, &res))
			return -ERANGE;
		break;
	default: /* CALC_DIV */
		if (b == 0)
			return -EDOM;	/* the error status the caller sees */
		if (a == INT64_MIN && b == -1)
			return -ERANGE;
		/* two results: quotient and remainder */
		ret = bl_parcel_write_i64(reply, a / b);
		if (!ret)
			ret = bl_parcel_write_i64(reply, a % b);
		return ret;
	}
	return bl_parcel_write_i64(reply, res);
}

static int32_t concat(struct bl_reader *r, struct bl_parcel *reply)
{
	const char *a, *b;
	size_t la, lb;
	char *buf;
	int ret;

	ret = bl_reader_read_string(r, &a, &la);
	if (!ret)
		ret = bl_reader_read_string(r, &b, &lb);
	if (ret)
		return ret;
	/* a and b point into the request's buffer: join them in our own */
	buf = malloc(la + lb + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, a, la);
	memcpy(buf + la, b, lb);
	/* the parcel copies the bytes and stores the terminating NUL */
	ret = bl_parcel_write_string_len(reply, buf, la + lb);
	free(buf);
	return ret;
}

static int32_t upper(struct bl_reader *r, struct bl_parcel *reply)
{
	const char *s;
	size_t len;
	char *buf;
	int ret;

	ret = bl_reader_read_string(r, &s, &len);
	if (ret)
		return ret;
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)	/* ASCII only: UTF-8 stays valid */
		buf[i] = (char)toupper((unsigned char)s[i]);
	ret = bl_parcel_write_string_len(reply, buf, len);
	free(buf);
	return ret;
}

static int32_t calc_handler(struct bl_object *obj, uint32_t code,
			    struct bl_reader *request, struct bl_parcel *reply,
			    const struct bl_call_info *info)
{
	(void)obj;
	(void)info;
	switch (code) {
	case CALC_ADD:
	case CALC_SUB:
	case CALC_MUL:
	case CALC_DIV:
		return arithmetic(code, request, reply);
	case CALC_CONCAT:
		return concat(request, reply);
	case CALC_UPPER:
		return upper(request, reply);
	default:
		return -EOPNOTSUPP;
	}
}

int main(void)
{
	struct bl_context *ctx;
	struct bl_object *obj;
	sigset_t stop_signals;
	int ret, sig;

	/* SIGTERM/SIGINT are taken with sigwait() below, for a clean exit. */
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);	/* pool threads inherit it */

	fbtool_init("calculator-service");
	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		return fbtool_unavailable(NULL, -ret);
	ret = bl_object_new(ctx, calc_handler, NULL, NULL, &obj);
	if (!ret) {
		ret = bl_sm_add(ctx, CALC_SERVICE_NAME, obj);
		bl_object_unref(obj);
	}
	/* Two looper threads serve the calls; the main thread just waits. */
	if (!ret)
		ret = bl_pool_start(ctx, 2, 2);
	if (ret) {
		fprintf(stderr, "calculator-service: %s\n", strerror(-ret));
		bl_context_close(ctx);
		return 1;
	}
	printf("calculator-service: registered \"%s\", serving\n",
	       CALC_SERVICE_NAME);
	fflush(stdout);

	sigwait(&stop_signals, &sig);
	/* Stops the pool, drops the object; the manager drops the name. */
	bl_context_close(ctx);
	printf("calculator-service: %s, stopped\n", strsignal(sig));
	return 0;
}
