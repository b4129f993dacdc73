// SPDX-License-Identifier: MIT
/*
 * wl_idl.c - the idl workload: what the stubs fbidl generates cost over
 * the same call written by hand on libbinderlite, both ends included.  A
 * server process becomes handle 0 with one of two objects:
 *
 *   hand-written  a handler that reads two i64 and replies their sum, the
 *                 client a bl_call() with a parcel of the two (the
 *                 calculator example before its interface file);
 *   generated     calculator_export() of examples/calculator's interface,
 *                 the client calculator_add(): the same two longs and
 *                 result, plus the descriptor token every generated call
 *                 carries and the stub checks.
 *
 * The client makes warm-up calls, then IDL_ROUNDS rounds of IDL_BATCH
 * calls, each round timed (the median round is kept, per call); under -I
 * a guest nanosecond is one instruction, so the figures are instructions
 * per call.  Every answer is checked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <binderlite.h>

#include "bench.h"
#include "calculator.h"

#define IDL_ADD		1	/* the hand-written code: add, as the generated one */
#define IDL_WARM	200
#define IDL_BATCH	100

enum { IDL_HAND, IDL_GEN, IDL_N };
static const char *const idl_names[IDL_N] = { "hand-written", "generated" };

static int32_t idl_hand_handler(struct bl_object *obj, uint32_t code,
				struct bl_reader *req, struct bl_parcel *reply,
				const struct bl_call_info *info)
{
	int64_t a, b;

	(void)obj;
	(void)info;
	if (code != IDL_ADD)
		return -EOPNOTSUPP;
	if (bl_reader_read_i64(req, &a) || bl_reader_read_i64(req, &b) ||
	    bl_reader_remaining(req))
		return -EBADMSG;
	bl_parcel_write_i64(reply, a + b);
	return 0;
}

static int32_t idl_gen_add(void *self, int64_t a, int64_t b, int64_t *result,
			   const struct bl_call_info *info)
{
	(void)self;
	(void)info;
	*result = a + b;
	return 0;
}

static const struct calculator_ops idl_ops = { .add = idl_gen_add };

static void __attribute__((noreturn)) idl_server(int kind, int ready)
{
	struct bl_context *ctx;
	struct bl_object *obj;
	int ret;

	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		die("idl server: open: %s", strerror(-ret));
	if (kind == IDL_HAND)
		ret = bl_object_new(ctx, idl_hand_handler, NULL, NULL, &obj);
	else
		ret = calculator_export(ctx, &idl_ops, NULL, NULL, &obj);
	if (!ret)
		ret = bl_context_become_manager(ctx, obj);
	if (ret)
		die("idl server: %s", strerror(-ret));
	signal_ready(ready);
	bl_loop(ctx);
	_exit(0);
}

static int idl_call(struct bl_context *ctx, int kind, int64_t a, int64_t b,
		    int64_t *sum)
{
	struct calculator_proxy p = { ctx, 0 };
	struct bl_parcel req = BL_PARCEL_INIT;
	struct bl_reply rep;
	int ret;

	if (kind == IDL_GEN)
		return calculator_add(&p, a, b, sum);
	/* the hand-written call: one check of the sticky error, at the call */
	bl_parcel_write_i64(&req, a);
	bl_parcel_write_i64(&req, b);
	ret = bl_call(ctx, 0, IDL_ADD, &req, &rep, BL_NO_TIMEOUT);
	bl_parcel_fini(&req);
	if (ret)
		return ret;
	ret = rep.status;
	if (!ret && (bl_reader_read_i64(&rep.reader, sum) ||
		     bl_reader_remaining(&rep.reader)))
		ret = -EPROTO;
	bl_reply_fini(&rep);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The median ns per call of rounds rounds, and in *mean the mean per call
 * of them all; -1 when an answer was wrong.
 */
static double idl_measure(int kind, int rounds, double *mean)
{
	double *per = calloc((size_t)rounds, sizeof(*per));
	struct bl_context *ctx;
	int pfd[2], i, j, ret;
	double median = -1;
	int64_t sum;
	pid_t srv;
	char c;

	*mean = 0;
	if (!per || pipe(pfd))
		die_errno("idl: pipe");
	srv = fork();
	if (srv < 0)
		die_errno("idl: fork");
	if (!srv) {
		close(pfd[0]);
		idl_server(kind, pfd[1]);
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1)
		die("idl: the %s server did not start", idl_names[kind]);
	close(pfd[0]);
	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		die("idl: open: %s", strerror(-ret));
	for (i = 0; i < IDL_WARM; i++)
		if (idl_call(ctx, kind, i, 1, &sum) || sum != i + 1)
			goto out;
	for (i = 0; i < rounds; i++) {
		uint64_t t0 = now_ns();

		for (j = 0; j < IDL_BATCH; j++)
			if (idl_call(ctx, kind, j, -3, &sum) || sum != j - 3)
				goto out;
		per[i] = (double)(now_ns() - t0) / IDL_BATCH;
		*mean += per[i] / rounds;
	}
	qsort(per, (size_t)rounds, sizeof(*per), cmp_double);
	median = per[rounds / 2];
out:
	if (median < 0)
		*mean = -1;
	bl_context_close(ctx);
	kill(srv, SIGKILL);
	waitpid(srv, NULL, 0);
	free(per);
	return median;
}

int bench_idl(bool icount, bool quick, const char *mode)
{
	int rounds = quick ? 11 : icount ? 31 : 201;
	double ns[IDL_N], mean[IDL_N], ratio;
	int k, failures = 0;
	bool ok;

	printf("idl: hand-written and generated calls, %d rounds of %d\n", rounds,
	       IDL_BATCH);
	fflush(stdout);
	for (k = 0; k < IDL_N; k++) {
		ns[k] = idl_measure(k, rounds, &mean[k]);
		if (ns[k] < 0)
			failures++;
		printf("BENCH-JSON {\"mode\": \"%s\", \"transport\": \"fastbinder\", "
		       "\"workload\": \"idl\", \"variant\": \"%s\", \"median_us\": %.4f, "
		       "\"mean_us\": %.4f, \"iterations\": %d, \"ok\": %s}\n", mode,
		       idl_names[k], ns[k] / 1000.0, mean[k] / 1000.0,
		       rounds * IDL_BATCH, ns[k] < 0 ? "false" : "true");
	}
	ratio = ns[IDL_HAND] > 0 ? ns[IDL_GEN] / ns[IDL_HAND] : 0;
	ok = ns[IDL_GEN] > 0 && ratio <= 1.03;
	printf("\n### Generated call against the hand-written one (add(long, long) -> long)\n\n");
	printf("| call | %s per call |\n|---|---|\n", icount ? "instructions" : "ns");
	for (k = 0; k < IDL_N; k++)
		printf("| %s | %.0f |\n", idl_names[k], ns[k]);
	printf("\n| target | want | measured | ok |\n|---|---|---|---|\n");
	printf("| generated call | at most 1.03x the hand-written one%s | %.4fx | %s |\n\n",
	       icount ? "" : " (deterministic mode only)", ratio,
	       !icount ? "n/a" : ok ? "yes" : "NO");
	return failures;
}
