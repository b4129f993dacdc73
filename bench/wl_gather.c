// SPDX-License-Identifier: MIT
/*
 * wl_gather.c - the gather workload: a call whose request is a 64-byte
 * header and a 64 KiB payload kept in two buffers of the caller, sent
 *
 *   gathered        bl_call_iov() of the two buffers: the driver copies
 *                   them straight into the server's buffer
 *                   (FBINDER_CMD_SEND_SG), one copy;
 *   one buffer      bl_call() of a parcel that already holds the same
 *                   bytes (built once, before the clock starts): the
 *                   floor, one copy of the same message;
 *   marshalled      the two copied into a parcel first (reset, one blob
 *                   of both, reusing the parcel's memory), then bl_call():
 *                   the second copy gather saves.
 *
 * The server gets the same message from all three (one blob of 65600
 * bytes), checks its length and the stamps at both ends, and answers with
 * an empty reply.  The client makes warm-up calls, then rounds of
 * GATHER_BATCH calls, each round timed (the median round is kept, per
 * call); under -I a guest nanosecond is one instruction, so the figures
 * are instructions per call, both ends included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <binderlite.h>

#include "bench.h"

#define GATHER_CODE	1
#define GATHER_HDR	64
#define GATHER_PAYLOAD	(64 * 1024)
#define GATHER_WARM	50
#define GATHER_BATCH	20

enum { GA_ONE, GA_GATHER, GA_MARSHAL, GA_N };
static const char *const ga_names[GA_N] = { "one buffer", "gathered", "marshalled" };

static int32_t ga_handler(struct bl_object *obj, uint32_t code, struct bl_reader *req,
			  struct bl_parcel *reply, const struct bl_call_info *info)
{
	const uint8_t *b;
	uint64_t head, tail;
	size_t len;

	(void)obj;
	(void)reply;
	(void)info;
	if (code != GATHER_CODE || bl_reader_read_blob(req, (const void **)&b, &len) ||
	    len != GATHER_HDR + GATHER_PAYLOAD)
		return -EBADMSG;
	/* the header's stamp and the payload's last word: the same call's */
	memcpy(&head, b, sizeof(head));
	memcpy(&tail, b + len - sizeof(tail), sizeof(tail));
	return head == tail ? 0 : -EBADMSG;
}

static void __attribute__((noreturn)) ga_server(int ready)
{
	struct bl_context *ctx;
	struct bl_object *obj;
	int ret;

	ret = bl_context_open(NULL, 0, &ctx);
	if (!ret)
		ret = bl_object_new(ctx, ga_handler, NULL, NULL, &obj);
	if (!ret)
		ret = bl_context_become_manager(ctx, obj);
	if (ret)
		die("gather server: %s", strerror(-ret));
	signal_ready(ready);
	bl_loop(ctx);
	_exit(0);
}

struct ga_client {
	struct bl_context *ctx;
	uint8_t hdr[GATHER_HDR];
	uint8_t *payload;
	struct bl_parcel one;		/* GA_ONE: the message, built once */
	uint8_t *one_blob;		/* its blob's bytes */
	struct bl_parcel scratch;	/* GA_MARSHAL: rebuilt every call */
};

/* Stamps seq at both ends of the request; GA_ONE's copy gets it too. */
static void ga_stamp(struct ga_client *c, uint64_t seq)
{
	memcpy(c->hdr, &seq, sizeof(seq));
	memcpy(c->payload + GATHER_PAYLOAD - sizeof(seq), &seq, sizeof(seq));
}

static int ga_call(struct ga_client *c, int kind, uint64_t seq)
{
	struct iovec iov[2] = {
		{ c->hdr, GATHER_HDR }, { c->payload, GATHER_PAYLOAD },
	};
	struct bl_reply rep;
	void *blob;
	int ret;

	ga_stamp(c, seq);
	switch (kind) {
	case GA_GATHER:
		ret = bl_call_iov(c->ctx, 0, GATHER_CODE, NULL, iov, 2, &rep, BL_NO_TIMEOUT);
		break;
	case GA_ONE:
		/* the same bytes, already in one parcel: only the stamps change */
		memcpy(c->one_blob, &seq, sizeof(seq));
		memcpy(c->one_blob + GATHER_HDR + GATHER_PAYLOAD - sizeof(seq), &seq,
		       sizeof(seq));
		ret = bl_call(c->ctx, 0, GATHER_CODE, &c->one, &rep, BL_NO_TIMEOUT);
		break;
	default:
		bl_parcel_reset(&c->scratch);
		ret = bl_parcel_alloc_blob(&c->scratch, GATHER_HDR + GATHER_PAYLOAD, &blob);
		if (ret)
			return ret;
		memcpy(blob, c->hdr, GATHER_HDR);
		memcpy((uint8_t *)blob + GATHER_HDR, c->payload, GATHER_PAYLOAD);
		ret = bl_call(c->ctx, 0, GATHER_CODE, &c->scratch, &rep, BL_NO_TIMEOUT);
		break;
	}
	if (ret)
		return ret;
	ret = rep.status;
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
 * of them all; -1 when a call failed.
 */
static double ga_measure(int kind, int rounds, double *mean)
{
	double *per = calloc((size_t)rounds, sizeof(*per));
	struct ga_client c = { .one = BL_PARCEL_INIT, .scratch = BL_PARCEL_INIT };
	double median = -1;
	int pfd[2], i, j, ret;
	uint64_t seq = 1;
	void *blob;
	pid_t srv;
	char ch;

	*mean = 0;
	c.payload = malloc(GATHER_PAYLOAD);
	if (!per || !c.payload || pipe(pfd))
		die_errno("gather: setup");
	for (i = 0; i < GATHER_PAYLOAD; i++)
		c.payload[i] = (uint8_t)(i * 7);
	memset(c.hdr, 0x48, sizeof(c.hdr));
	srv = fork();
	if (srv < 0)
		die_errno("gather: fork");
	if (!srv) {
		close(pfd[0]);
		ga_server(pfd[1]);
	}
	close(pfd[1]);
	if (read(pfd[0], &ch, 1) != 1)
		die("gather: the server did not start");
	close(pfd[0]);
	ret = bl_context_open(NULL, 0, &c.ctx);
	if (ret)
		die("gather: open: %s", strerror(-ret));
	if (bl_parcel_alloc_blob(&c.one, GATHER_HDR + GATHER_PAYLOAD, &blob))
		die("gather: parcel");
	c.one_blob = blob;
	memcpy(blob, c.hdr, GATHER_HDR);
	memcpy((uint8_t *)blob + GATHER_HDR, c.payload, GATHER_PAYLOAD);
	for (i = 0; i < GATHER_WARM; i++)
		if (ga_call(&c, kind, seq++))
			goto out;
	for (i = 0; i < rounds; i++) {
		uint64_t t0 = now_ns();

		for (j = 0; j < GATHER_BATCH; j++)
			if (ga_call(&c, kind, seq++))
				goto out;
		per[i] = (double)(now_ns() - t0) / GATHER_BATCH;
		*mean += per[i] / rounds;
	}
	qsort(per, (size_t)rounds, sizeof(*per), cmp_double);
	median = per[rounds / 2];
out:
	if (median < 0)
		*mean = -1;
	bl_context_close(c.ctx);
	kill(srv, SIGKILL);
	waitpid(srv, NULL, 0);
	bl_parcel_fini(&c.one);
	bl_parcel_fini(&c.scratch);
	free(c.payload);
	free(per);
	return median;
}

int bench_gather(bool icount, bool quick, const char *mode)
{
	int rounds = quick ? 11 : icount ? 31 : 201;
	double ns[GA_N], mean[GA_N], vs_one, vs_marshal;
	bool ok_one, ok_marshal;
	int k, failures = 0;

	printf("gather: a 64 B header and a 64 KiB payload, %d rounds of %d calls\n", rounds,
	       GATHER_BATCH);
	fflush(stdout);
	for (k = 0; k < GA_N; k++) {
		ns[k] = ga_measure(k, rounds, &mean[k]);
		if (ns[k] < 0)
			failures++;
		printf("BENCH-JSON {\"mode\": \"%s\", \"transport\": \"fastbinder\", "
		       "\"workload\": \"gather\", \"variant\": \"%s\", \"median_us\": %.4f, "
		       "\"mean_us\": %.4f, \"iterations\": %d, \"ok\": %s}\n", mode,
		       ga_names[k], ns[k] / 1000.0, mean[k] / 1000.0,
		       rounds * GATHER_BATCH, ns[k] < 0 ? "false" : "true");
	}
	vs_one = ns[GA_ONE] > 0 ? ns[GA_GATHER] / ns[GA_ONE] : 0;
	vs_marshal = ns[GA_MARSHAL] > 0 ? ns[GA_GATHER] / ns[GA_MARSHAL] : 0;
	ok_one = ns[GA_GATHER] > 0 && vs_one <= 1.0;
	ok_marshal = ns[GA_GATHER] > 0 && vs_marshal < 1.0;
	printf("\n### Gathered call: a 64 B header and a 64 KiB payload in two buffers\n\n");
	printf("| call | %s per call |\n|---|---|\n", icount ? "instructions" : "ns");
	for (k = 0; k < GA_N; k++)
		printf("| %s | %.0f |\n", ga_names[k], ns[k]);
	printf("\n| target | want | measured | ok |\n|---|---|---|---|\n");
	printf("| gathered call | at most the one-buffer call%s | %.4fx | %s |\n",
	       icount ? "" : " (deterministic mode only)", vs_one,
	       !icount ? "n/a" : ok_one ? "yes" : "NO");
	printf("| gathered call | less than marshal-then-send%s | %.4fx | %s |\n\n",
	       icount ? "" : " (deterministic mode only)", vs_marshal,
	       !icount ? "n/a" : ok_marshal ? "yes" : "NO");
	return failures;
}
