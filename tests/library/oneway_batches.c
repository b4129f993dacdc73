// SPDX-License-Identifier: MIT
/*
 * oneway_batches: bl_send_oneway_batch() with FBINDER_CMD_SEND_BATCH under
 * it.  One call mixes runs to one handle (one longer than FBINDER_MAX_BATCH),
 * messages carrying an object, lone messages and two handles; the service
 * sees every message once, per object in the order sent, with its code,
 * FBINDER_TXN_ONEWAY alone and its exact bytes, and exactly the messages the
 * library should have batched share a transaction ID (a batch is one
 * transaction).  Then a batch to a bad handle after a mixed prefix: *sent
 * counts the prefix and nothing after it arrives.  Last, batches far larger
 * than a 64 KiB receiver's oneway share still go, message by message.  The
 * client runs as uid 65534 against a root manager.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <binderlite.h>

#include "fbt_bl.h"
#include "fbt.h"

#define SVC_A		"batch.a"
#define SVC_B		"batch.b"
#define SVC_SMALL	"batch.small"
#define SMALL_MAP	(64 * 1024)
#define MAX_MSGS	BL_ONEWAY_BATCH_MAX
#define CODE_BASE	100	/* a message's code: CODE_BASE + seq % 7 */
#define M_GET_LOG	1	/* a call: the log since the last one */

/* ---- the service: two objects, one log ------------------------------------ */

struct entry {
	uint32_t obj;		/* 0 for A, 1 for B */
	uint32_t seq;
	uint32_t code;
	uint32_t flags;
	uint32_t ok;		/* the payload's bytes were the expected ones */
	uint64_t txn_id;
};

static struct entry svc_log[MAX_MSGS];
static uint32_t svc_log_n;

/* A message's payload: its seq, then a blob of seq * 13 % 301 bytes. */
static size_t blob_len(uint32_t seq)
{
	return seq * 13 % 301;
}

static uint8_t blob_byte(uint32_t seq, size_t i)
{
	return (uint8_t)(seq * 31 + i * 7 + 1);
}

static int32_t svc_handler(struct bl_object *obj, uint32_t code,
			   struct bl_reader *req, struct bl_parcel *reply,
			   const struct bl_call_info *info)
{
	uint32_t id = (uint32_t)(uintptr_t)bl_object_userdata(obj), seq, i;
	struct entry *e;
	const uint8_t *b;
	size_t len;

	if (code == M_GET_LOG) {
		int ret = bl_parcel_write_u32(reply, svc_log_n);

		for (i = 0; i < svc_log_n && !ret; i++)
			ret = bl_parcel_write_blob(reply, &svc_log[i],
						   sizeof(svc_log[i]));
		svc_log_n = 0;
		return ret;
	}
	if (svc_log_n == MAX_MSGS)
		return -ENOSPC;
	e = &svc_log[svc_log_n++];
	memset(e, 0, sizeof(*e));
	e->obj = id;
	e->code = code;
	e->flags = info->flags;
	e->txn_id = info->txn_id;
	if (bl_reader_read_u32(req, &seq) ||
	    bl_reader_read_blob(req, (const void **)&b, &len))
		return 0;
	e->seq = seq;
	e->ok = len == blob_len(seq) && info->code == code && !reply;
	for (i = 0; e->ok && i < len; i++)
		e->ok = b[i] == blob_byte(seq, i);
	return 0;
}

static int svc_main(void *arg)
{
	const char *small = arg;
	struct bl_object *a, *b = NULL;
	struct bl_context *ctx;
	int ret;

	if (small) {
		ret = bl_context_open(NULL, SMALL_MAP, &ctx);
		if (ret)
			die("open: %s", strerror(-ret));
		ret = bl_object_new(ctx, svc_handler, NULL, NULL, &a);
		if (!ret)
			ret = bl_sm_add(ctx, small, a);
	} else {
		ctx = fbt_bl_open();
		ret = bl_object_new(ctx, svc_handler, NULL, NULL, &a);
		if (!ret)
			ret = bl_object_new(ctx, svc_handler, NULL, (void *)1, &b);
		if (!ret)
			ret = bl_sm_add(ctx, SVC_A, a);
		if (!ret)
			ret = bl_sm_add(ctx, SVC_B, b);
	}
	if (ret) {
		fprintf(stderr, "service: %s\n", strerror(-ret));
		return 1;
	}
	bl_object_unref(a);
	if (b)
		bl_object_unref(b);
	return bl_loop(ctx) ? 1 : 0;
}

/* ---- the client -------------------------------------------------------------- */

struct plan {
	size_t n;
	uint32_t obj[MAX_MSGS];		/* 0, 1, or 2: a handle nobody has */
	bool with_obj[MAX_MSGS];
	struct bl_parcel p[MAX_MSGS];
	struct bl_oneway m[MAX_MSGS];
	size_t group[MAX_MSGS];		/* the batch each would be in */
};

static uint32_t handles[3];

static void plan_add(struct plan *pl, uint32_t obj, size_t count, bool with_obj)
{
	for (size_t k = 0; k < count; k++) {
		pl->obj[pl->n] = obj;
		pl->with_obj[pl->n++] = with_obj;
	}
}

/*
 * Parcels for seq first .. first + n - 1, and the grouping the library
 * should choose: a run of 2+ object-free messages to one handle, cut every
 * FBINDER_MAX_BATCH, is one group; every other message is its own.
 */
static void plan_build(struct plan *pl, uint32_t first)
{
	uint8_t blob[301];
	size_t i, j, run = 0;

	for (i = 0; i < pl->n; i++) {
		uint32_t seq = first + (uint32_t)i;

		for (j = 0; j < blob_len(seq); j++)
			blob[j] = blob_byte(seq, j);
		bl_parcel_init(&pl->p[i]);
		if (bl_parcel_write_u32(&pl->p[i], seq) ||
		    bl_parcel_write_blob(&pl->p[i], blob, blob_len(seq)) ||
		    (pl->with_obj[i] &&
		     bl_parcel_write_handle(&pl->p[i], handles[1])))
			die("parcel");
		pl->m[i] = (struct bl_oneway){ handles[pl->obj[i]],
					       CODE_BASE + seq % 7, &pl->p[i] };
	}
	for (i = 0; i < pl->n; i++) {
		bool joins = i && !pl->with_obj[i] && !pl->with_obj[i - 1] &&
			     pl->obj[i] == pl->obj[i - 1] && run < FBINDER_MAX_BATCH;

		if (joins) {
			pl->group[i] = pl->group[i - 1];
			run++;
		} else {
			pl->group[i] = i;
			run = 1;
		}
	}
}

static void plan_fini(struct plan *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		bl_parcel_fini(&pl->p[i]);
	pl->n = 0;
}

/* The service's log, until want entries came (and then a little longer). */
static size_t fetch_log(struct bl_context *ctx, uint32_t h, struct entry *out,
			size_t want)
{
	int64_t until = fbt_now_ms() + 10000;
	size_t got = 0;
	bool settled = false;

	while (fbt_now_ms() < until) {
		struct bl_reply r;
		const void *b;
		uint32_t n;
		size_t len;
		int ret = bl_call(ctx, h, M_GET_LOG, NULL, &r, 5000);

		if (ret) {
			CHECK(ret == 0, "log call: %d", ret);
			break;
		}
		if (bl_reader_read_u32(&r.reader, &n))
			n = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (bl_reader_read_blob(&r.reader, &b, &len) ||
			    len != sizeof(*out))
				break;
			if (got < MAX_MSGS)
				memcpy(&out[got], b, len);
			got++;
		}
		bl_reply_fini(&r);
		if (got >= want) {
			if (settled)
				break;
			settled = true;		/* nothing extra may come */
			usleep(50 * 1000);
		} else {
			usleep(2000);
		}
	}
	return got;
}

/*
 * Every message of pl up to sent arrived once, none after it, each per
 * object in order, intact; the service saw the library's grouping.
 */
static void check_arrivals(struct bl_context *ctx, struct plan *pl,
			   uint32_t first, size_t sent, const char *what)
{
	static struct entry log[MAX_MSGS];
	static uint64_t txn[MAX_MSGS];
	static uint32_t seen[MAX_MSGS];
	int64_t last[2] = { -1, -1 };
	size_t got = fetch_log(ctx, handles[0], log, sent), i, j, bad = 0, order = 0;
	size_t grouping = 0;

	CHECK(got == sent, "%s: %zu messages arrived, %zu sent", what, got, sent);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < got && i < MAX_MSGS; i++) {
		const struct entry *e = &log[i];
		size_t k = e->seq - first;

		if (e->seq < first || k >= sent || e->obj != pl->obj[k] ||
		    e->code != CODE_BASE + e->seq % 7 || !e->ok ||
		    e->flags != FBINDER_TXN_ONEWAY) {
			if (!bad++)
				fprintf(stderr, "  first bad: seq %u obj %u code %u "
					"flags 0x%x ok %u\n", e->seq, e->obj,
					e->code, e->flags, e->ok);
			continue;
		}
		seen[k]++;
		txn[k] = e->txn_id;
		if ((int64_t)k <= last[e->obj])
			order++;
		last[e->obj] = (int64_t)k;
	}
	for (i = 0; i < sent; i++)
		if (seen[i] != 1)
			bad++;
	CHECK(!bad, "%s: each once, with its code, flags and bytes (%zu bad)",
	      what, bad);
	CHECK(!order, "%s: per object in the order sent (%zu out of order)",
	      what, order);
	if (bad)
		return;
	/* same transaction exactly when the same batch */
	for (i = 0; i < sent; i++)
		for (j = i + 1; j < sent && j < i + FBINDER_MAX_BATCH + 2; j++)
			if ((txn[i] == txn[j]) != (pl->group[i] == pl->group[j]))
				grouping++;
	CHECK(!grouping, "%s: batched as planned (%zu pairs differ)", what,
	      grouping);
}

static void test_mixed(struct bl_context *ctx, struct plan *pl)
{
	size_t sent = 0, batches = 0;
	int ret;

	plan_add(pl, 0, 300, false);	/* 256 + 44 */
	plan_add(pl, 0, 1, true);	/* an object: alone */
	plan_add(pl, 0, 5, false);
	plan_add(pl, 1, 3, false);	/* another handle */
	plan_add(pl, 0, 1, false);	/* lone */
	for (int k = 0; k < 4; k++) {
		plan_add(pl, 1, 1, false);
		plan_add(pl, 0, 1, false);
	}
	plan_add(pl, 1, 70, false);
	plan_add(pl, 1, 1, true);
	plan_add(pl, 1, 2, true);	/* objects: never batched */
	plan_add(pl, 1, 1, false);
	plan_build(pl, 0);
	for (size_t i = 1; i < pl->n; i++)
		batches += pl->group[i] == pl->group[i - 1] &&
			   (i == 1 || pl->group[i - 1] != pl->group[i - 2]);
	ret = bl_send_oneway_batch(ctx, pl->m, pl->n, &sent);
	CHECK(ret == 0 && sent == pl->n, "mixed %zu (%zu batches): %d, %zu sent",
	      pl->n, batches, ret, sent);
	printf("# mixed: %zu messages, %zu batches planned\n", pl->n, batches);
	check_arrivals(ctx, pl, 0, sent, "mixed");
	plan_fini(pl);
}

/* The batch to a bad handle fails whole; *sent counts what came before. */
static void test_bad_handle(struct bl_context *ctx, struct plan *pl)
{
	size_t sent = 0, before;
	int ret;

	plan_add(pl, 0, 20, false);
	plan_add(pl, 1, 1, true);
	plan_add(pl, 1, 1, false);
	plan_add(pl, 0, 9, false);
	before = pl->n;
	plan_add(pl, 2, 6, false);	/* the bad handle */
	plan_add(pl, 0, 10, false);
	plan_build(pl, 1000);
	ret = bl_send_oneway_batch(ctx, pl->m, pl->n, &sent);
	CHECK(ret == -ENOENT && sent == before, "batch to a bad handle: %d, "
	      "%zu sent (want -ENOENT, %zu)", ret, sent, before);
	check_arrivals(ctx, pl, 1000, before, "before the bad handle");
	plan_fini(pl);
}

/*
 * 40 messages of 1 KiB to a 64 KiB receiver: more than its oneway share
 * as one batch, so each call must send some one by one (and those refused
 * for a full share go in the next call).
 */
static void test_small_receiver(struct bl_context *ctx)
{
	static struct entry log[MAX_MSGS];
	static uint8_t pad[1024];
	struct bl_parcel big[40];
	struct bl_oneway m[40];
	size_t done = 0, sent, stuck = 0, calls = 0, got, order = 0;
	uint32_t h;
	pid_t svc;
	int ret = 0;

	svc = fbt_fork(svc_main, SVC_SMALL);
	CHECK(bl_sm_get(ctx, SVC_SMALL, 5000, &h) == 0, "small receiver");
	for (int i = 0; i < 40; i++) {
		bl_parcel_init(&big[i]);
		bl_parcel_write_u32(&big[i], 5000 + i);
		bl_parcel_write_blob(&big[i], pad, sizeof(pad));
		m[i] = (struct bl_oneway){ h, CODE_BASE, &big[i] };
	}
	while (done < 40 && stuck < 500) {
		ret = bl_send_oneway_batch(ctx, m + done, 40 - done, &sent);
		calls++;
		done += sent;
		if (ret && ret != -ENOSPC && ret != -EDQUOT)
			break;
		if (!sent) {
			stuck++;
			usleep(2000);
		}
	}
	CHECK(done == 40, "40 x 1 KiB to a 64 KiB receiver: %zu sent in %zu "
	      "calls, last %d", done, calls, ret);
	printf("# small receiver: 40 x 1 KiB in %zu calls\n", calls);
	got = fetch_log(ctx, h, log, done);
	for (size_t i = 0; i < got && i < MAX_MSGS; i++)
		order += log[i].seq != 5000 + i ||
			 log[i].flags != FBINDER_TXN_ONEWAY;
	CHECK(got == done && !order, "small receiver: %zu arrived (%zu out of "
	      "order or flagged)", got, order);
	for (int i = 0; i < 40; i++)
		bl_parcel_fini(&big[i]);
	fbt_bl_kill(svc);
	bl_handle_release(ctx, h);
}

static int client(void *arg)
{
	static struct plan pl;
	struct bl_context *ctx;
	pid_t svc;
	int ret;

	(void)arg;
	svc = fbt_fork(svc_main, NULL);
	ctx = fbt_bl_open();
	ret = bl_sm_get(ctx, SVC_A, 5000, &handles[0]);
	if (!ret)
		ret = bl_sm_get(ctx, SVC_B, 5000, &handles[1]);
	if (ret)
		die("service did not register: %s", strerror(-ret));
	handles[2] = 999999;

	test_mixed(ctx, &pl);
	test_bad_handle(ctx, &pl);
	test_small_receiver(ctx);

	fbt_bl_kill(svc);
	bl_handle_release(ctx, handles[0]);
	bl_handle_release(ctx, handles[1]);
	bl_context_close(ctx);
	return fbt_done();
}

int main(void)
{
	pid_t mgr = fbt_bl_manager_start();
	int st = fbt_run_as_nobody(client, NULL);

	fbt_bl_kill(mgr);
	CHECK(st == 0, "the batches, as uid 65534: status %d", st);
	return fbt_done();
}
