// SPDX-License-Identifier: MIT
/*
 * batch_dispatch: libbinderlite's looper side of FBINDER_TXN_BATCH, on the
 * host, with no driver: a context whose "mapping" is a buffer this test
 * writes.  A well-formed batch reaches the handler message by message, in
 * order, each as a plain oneway message (its code, FBINDER_TXN_ONEWAY alone,
 * its exact bytes), and its buffer is freed once.  Every malformed header a
 * driver bug could write (count 0 or too large for the data, an entry
 * before the table, past the end, wrapping around, misaligned, a batch
 * outside the mapping, one with offsets) reaches no handler and is freed
 * once, with nothing read outside the mapping (valgrind runs this).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../libbinderlite/internal.h"

#define MAP_SIZE	(64 * 1024)
#define BATCH_AT	4096	/* the batch's offset in the mapping */

struct got {
	uint32_t code;
	uint32_t flags;
	size_t size;
	uint8_t first;
	bool had_reply;
};

static struct got got[FBINDER_MAX_BATCH + 1];
static unsigned int ngot;
static uint8_t *map;
static struct bl_context ctx;
static struct bl_object *obj;
static uint64_t cookie;		/* of the batch's target; 0: obj's */

static int32_t handler(struct bl_object *o, uint32_t code, struct bl_reader *r,
		       /* cppcheck-suppress constParameter ; a bl_handler_fn */
		       struct bl_parcel *reply, const struct bl_call_info *info)
{
	(void)o;
	if (ngot <= FBINDER_MAX_BATCH) {
		got[ngot].code = code;
		got[ngot].flags = info->flags;
		got[ngot].size = r->size;
		got[ngot].first = r->size ? ((const uint8_t *)r->data)[0] : 0;
		got[ngot].had_reply = reply != NULL;
	}
	ngot++;
	return 0;
}

static void setup(void)
{
	map = aligned_alloc(4096, MAP_SIZE);
	ck_assert_ptr_nonnull(map);
	memset(map, 0xee, MAP_SIZE);
	memset(&ctx, 0, sizeof(ctx));
	ctx.fd = -1;
	ctx.map = map;
	ctx.map_size = MAP_SIZE;
	pthread_mutex_init(&ctx.lock, NULL);
	ck_assert_int_eq(bl_object_new(&ctx, handler, NULL, NULL, &obj), 0);
	ngot = 0;
	cookie = 0;
}

static void teardown(void)
{
	bl_object_unref(obj);
	pthread_mutex_destroy(&ctx.lock);
	free(map);
}

/*
 * A batch at BATCH_AT of count messages, message i of i % 40 bytes
 * (each byte i), payloads 8-aligned after the table, as the driver
 * writes one.  Returns its size.
 */
static size_t put_batch(uint32_t count)
{
	struct fbinder_batch b = { .count = count };
	size_t pos = sizeof(b) + count * sizeof(struct fbinder_batch_msg);

	memcpy(map + BATCH_AT, &b, sizeof(b));
	for (uint32_t i = 0; i < count; i++) {
		struct fbinder_batch_msg m = {
			.code = 1000 + i, .data = BATCH_AT + pos, .data_size = i % 40,
		};

		memcpy(map + BATCH_AT + sizeof(b) + i * sizeof(m), &m, sizeof(m));
		memset(map + BATCH_AT + pos, (int)i, m.data_size);
		pos += (m.data_size + 7) / 8 * 8;
	}
	return pos;
}

static struct fbinder_batch_msg *entry(uint32_t i)
{
	return (struct fbinder_batch_msg *)(void *)(map + BATCH_AT +
		sizeof(struct fbinder_batch) + i * sizeof(struct fbinder_batch_msg));
}

/* Dispatches the message; returns how many FREE_BUFFERs of it were queued. */
static unsigned int dispatch(uint64_t data, uint64_t size, uint64_t offsets_count)
{
	struct fbinder_txn_msg msg = {
		.txn_id = 77, .cookie = cookie ? cookie : bl__cookie(obj),
		.flags = FBINDER_TXN_ONEWAY | FBINDER_TXN_BATCH,
		.data = data, .data_size = size, .offsets_count = offsets_count,
	};
	struct bl_io *io = malloc(sizeof(*io));
	unsigned int frees = 0;
	size_t pos = 0;

	ck_assert_ptr_nonnull(io);
	bl__io_init(io, &ctx);
	bl__dispatch_txn(io, &msg);
	while (pos < io->wlen) {
		uint32_t cmd;
		uint64_t off;

		memcpy(&cmd, io->wbuf + pos, sizeof(cmd));
		ck_assert_uint_eq(cmd, FBINDER_CMD_FREE_BUFFER);
		memcpy(&off, io->wbuf + pos + sizeof(cmd), sizeof(off));
		ck_assert_uint_eq(off, data);
		frees++;
		pos += sizeof(cmd) + sizeof(off);
	}
	io->wlen = 0;
	bl__io_fini(io);
	free(io);
	return frees;
}

START_TEST(test_well_formed)
{
	uint32_t count = _i ? FBINDER_MAX_BATCH : 5;
	size_t size = put_batch(count);

	ck_assert_uint_eq(dispatch(BATCH_AT, size, 0), 1);
	ck_assert_uint_eq(ngot, count);
	for (uint32_t i = 0; i < count; i++) {
		ck_assert_uint_eq(got[i].code, 1000 + i);
		ck_assert_uint_eq(got[i].flags, FBINDER_TXN_ONEWAY);
		ck_assert_uint_eq(got[i].size, i % 40);
		if (i % 40)
			ck_assert_uint_eq(got[i].first, (uint8_t)i);
		ck_assert(!got[i].had_reply);
	}
}
END_TEST

/* One malformation per run of the loop; none reaches the handler. */
START_TEST(test_malformed)
{
	size_t size = put_batch(4);
	uint64_t at = BATCH_AT, off = 0;

	switch (_i) {
	case 0:	((struct fbinder_batch *)(void *)(map + BATCH_AT))->count = 0; break;
	case 1:	((struct fbinder_batch *)(void *)(map + BATCH_AT))->count = 5; break;
	case 2:	((struct fbinder_batch *)(void *)(map + BATCH_AT))->count =
			FBINDER_MAX_BATCH + 1; break;
	case 3:	entry(2)->data = BATCH_AT + 8; break;		/* in the table */
	case 4:	entry(3)->data = BATCH_AT + size + 8; break;	/* past the end */
	case 5:	entry(1)->data_size = size; break;		/* runs past it */
	case 6:	entry(1)->data_size = UINT64_MAX - 8; break;	/* wraps */
	case 7:	entry(0)->data = UINT64_MAX - 7; break;
	case 8:	entry(2)->data += 4; break;			/* misaligned */
	case 9:	size = 4; break;				/* no header */
	case 10: at = MAP_SIZE - 4; break;			/* outside the map */
	case 11: size = MAP_SIZE; break;
	case 12: off = 1; break;				/* with offsets */
	default: ck_abort();
	}
	ck_assert_uint_eq(dispatch(at, size, off), 1);
	ck_assert_uint_eq(ngot, 0);
}
END_TEST

/* A batch for an object this process does not know: freed, not handled. */
START_TEST(test_unknown_object)
{
	size_t size = put_batch(3);

	cookie = bl__cookie(obj) + 8;
	ck_assert_uint_eq(dispatch(BATCH_AT, size, 0), 1);
	ck_assert_uint_eq(ngot, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("batch_dispatch");
	TCase *tc = tcase_create("batch");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_well_formed, 0, 2);
	tcase_add_loop_test(tc, test_malformed, 0, 13);
	tcase_add_test(tc, test_unknown_object);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
