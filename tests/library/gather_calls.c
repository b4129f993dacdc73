// SPDX-License-Identifier: MIT
/*
 * gather_calls: bl_call_iov() and bl_send_oneway_iov().  A request made
 * of a head parcel and buffers of odd sizes arrives as the head's items
 * and one blob of the buffers end to end, byte for byte, the blob read
 * with bl_reader_read_blob() as any other; with no head, with no buffer,
 * with BL_IOV_MAX buffers; oneway too.  The same requests with the
 * library told the driver lacks FBINDER_FEATURE_SEND_SG (its test hook
 * bl__features_hidden) arrive the same, marshalled.  Bad arguments fail
 * with their errno and send nothing (the service counts what it got).
 * The service claims handle 0 as root, then both sides run as uid 65534.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <binderlite.h>

#include "fbt_bl.h"
#include "fbt.h"

/* the library's test hook (static library) */
extern uint64_t bl__features_hidden;

#define C_CHECK		1	/* head: u32 seed, string; then the blob */
#define C_ONEWAY	2	/* the same, oneway */
#define C_COUNT		3	/* reply: u32 checked, u32 bad */
#define C_BARE		4	/* no head: the blob alone */

static uint32_t svc_ok, svc_bad;

static uint8_t byte_at(uint32_t seed, size_t i)
{
	return (uint8_t)(seed * 7 + i * 13 + (i >> 8));
}

/* The blob: len bytes of seed's pattern; its length in *len. */
static bool blob_ok(struct bl_reader *req, uint32_t seed, size_t *len)
{
	const uint8_t *b;
	size_t i;

	if (bl_reader_read_blob(req, (const void **)&b, len) || bl_reader_remaining(req))
		return false;
	for (i = 0; i < *len; i++)
		if (b[i] != byte_at(seed, i))
			return false;
	return true;
}

static int32_t svc_handler(struct bl_object *obj, uint32_t code,
			   struct bl_reader *req, struct bl_parcel *reply,
			   const struct bl_call_info *info)
{
	const char *s = NULL;
	uint32_t seed = 0;
	size_t len = 0;
	bool ok;

	(void)obj;
	(void)info;
	switch (code) {
	case C_CHECK:
	case C_ONEWAY:
		ok = !bl_reader_read_u32(req, &seed) && !bl_reader_read_string(req, &s, NULL) &&
		     !strcmp(s, "gathered") && blob_ok(req, seed, &len);
		break;
	case C_BARE:
		ok = blob_ok(req, 5, &len);
		break;
	case C_COUNT:
		bl_parcel_write_u32(reply, svc_ok);
		bl_parcel_write_u32(reply, svc_bad);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
	if (ok)
		svc_ok++;
	else
		svc_bad++;
	bl_parcel_write_u64(reply, len);
	return ok ? 0 : -EBADMSG;
}

/* Buffers of the sizes in lens[], seed's pattern over them all. */
static void fill(struct iovec *iov, const size_t *lens, int n, uint32_t seed)
{
	size_t at = 0;
	int i;

	for (i = 0; i < n; i++) {
		uint8_t *b = malloc(lens[i] ? lens[i] : 1);
		size_t j;

		if (!b)
			die("malloc");
		for (j = 0; j < lens[i]; j++)
			b[j] = byte_at(seed, at + j);
		iov[i].iov_base = b;
		iov[i].iov_len = lens[i];
		at += lens[i];
	}
}

static void unfill(struct iovec *iov, int n)
{
	while (n--)
		free(iov[n].iov_base);
}

/* A call of head (seed, "gathered") and the buffers; *len the blob's size seen. */
static int check_call(struct bl_context *ctx, const struct iovec *iov, int n,
		      uint32_t seed, uint64_t *len)
{
	struct bl_parcel head = BL_PARCEL_INIT;
	struct bl_reply rep;
	int ret;

	bl_parcel_write_u32(&head, seed);
	bl_parcel_write_string(&head, "gathered");
	ret = bl_call_iov(ctx, 0, C_CHECK, &head, iov, n, &rep, BL_NO_TIMEOUT);
	bl_parcel_fini(&head);
	if (ret)
		return ret;
	ret = rep.status;
	if (!ret && bl_reader_read_u64(&rep.reader, len))
		ret = -EPROTO;
	bl_reply_fini(&rep);
	return ret;
}

static void count(struct bl_context *ctx, uint32_t *ok, uint32_t *bad)
{
	struct bl_reply rep;
	int ret = bl_call(ctx, 0, C_COUNT, NULL, &rep, BL_NO_TIMEOUT);

	CHECK(ret == 0 && rep.status == 0, "count: %s", strerror(-ret));
	if (ret)
		return;
	CHECK(!bl_reader_read_u32(&rep.reader, ok) && !bl_reader_read_u32(&rep.reader, bad),
	      "count's reply");
	bl_reply_fini(&rep);
}

/* Everything once, on a context that gathers or marshals. */
static void round_trip(bool gather, uint32_t base)
{
	static const size_t lens[] = { 64, 3, 0, 65536, 13, 1 };
	const int n = (int)(sizeof(lens) / sizeof(lens[0]));
	static struct iovec many[BL_IOV_MAX];
	struct bl_parcel open_array = BL_PARCEL_INIT, bad_head = BL_PARCEL_INIT;
	uint32_t ok0 = 0, bad0 = 0, ok1 = 0, bad1 = 0;
	const char *how = gather ? "gathered" : "marshalled";
	static const size_t bare_lens[] = { 5, 300 };
	struct iovec iov[6], bare[2], hole = { NULL, 4 };
	struct bl_context *ctx;
	struct bl_reply rep;
	uint64_t len = 0;
	size_t total = 0;
	int i, ret;

	bl__features_hidden = gather ? 0 : FBINDER_FEATURE_SEND_SG;
	ret = bl_context_open(NULL, 0, &ctx);
	bl__features_hidden = 0;
	if (ret)
		die("open: %s", strerror(-ret));
	CHECK(!(bl_context_features(ctx) & FBINDER_FEATURE_SEND_SG) == !gather,
	      "%s: features %#llx", how, (unsigned long long)bl_context_features(ctx));
	count(ctx, &ok0, &bad0);

	for (i = 0; i < n; i++)
		total += lens[i];
	fill(iov, lens, n, base);
	ret = check_call(ctx, iov, n, base, &len);
	CHECK(ret == 0 && len == total, "%s: a head and %d buffers: %s, blob of %llu bytes, want %zu",
	      how, n, strerror(-ret), (unsigned long long)len, total);
	ret = check_call(ctx, NULL, 0, base, &len);
	CHECK(ret == 0 && len == 0, "%s: no buffer: %s, %llu bytes", how, strerror(-ret),
	      (unsigned long long)len);
	fill(bare, bare_lens, 2, 5);
	ret = bl_call_iov(ctx, 0, C_BARE, NULL, bare, 2, &rep, BL_NO_TIMEOUT);
	CHECK(ret == 0 && rep.status == 0, "%s: no head: %s, status %d", how,
	      strerror(-ret), ret ? 0 : rep.status);
	if (!ret)
		bl_reply_fini(&rep);
	ret = bl_send_oneway_iov(ctx, 0, C_BARE, NULL, bare, 2);
	CHECK(ret == 0, "%s: a oneway blob alone: %s", how, strerror(-ret));
	unfill(bare, 2);
	{
		struct bl_parcel head = BL_PARCEL_INIT;

		bl_parcel_write_u32(&head, base);
		bl_parcel_write_string(&head, "gathered");
		ret = bl_send_oneway_iov(ctx, 0, C_ONEWAY, &head, iov, n);
		CHECK(ret == 0, "%s: a oneway request: %s", how, strerror(-ret));
		bl_parcel_fini(&head);
	}
	unfill(iov, n);

	/* the most buffers a request takes: 1021 of one byte */
	for (i = 0; i < BL_IOV_MAX; i++) {
		static uint8_t bytes[BL_IOV_MAX];

		bytes[i] = byte_at(base + 1, (size_t)i);
		many[i].iov_base = &bytes[i];
		many[i].iov_len = 1;
	}
	ret = check_call(ctx, many, BL_IOV_MAX, base + 1, &len);
	CHECK(ret == 0 && len == BL_IOV_MAX, "%s: %d buffers: %s, %llu bytes", how,
	      BL_IOV_MAX, strerror(-ret), (unsigned long long)len);

	/* refused before anything is sent */
	CHECK(check_call(ctx, many, BL_IOV_MAX + 1, base, &len) == -EINVAL,
	      "%s: %d buffers: want EINVAL", how, BL_IOV_MAX + 1);
	CHECK(check_call(ctx, many, -1, base, &len) == -EINVAL, "%s: -1 buffers", how);
	CHECK(check_call(ctx, NULL, 2, base, &len) == -EINVAL, "%s: NULL iov", how);
	CHECK(check_call(ctx, &hole, 1, base, &len) == -EINVAL, "%s: a NULL buffer", how);
	many[0].iov_len = BL_PARCEL_MAX_SIZE;	/* never read: sizes come first */
	CHECK(check_call(ctx, many, 2, base, &len) == -EMSGSIZE, "%s: a 2 GiB blob", how);
	many[0].iov_len = 1;
	bl_parcel_begin_array(&open_array);
	CHECK(bl_call_iov(ctx, 0, C_CHECK, &open_array, many, 1, &rep, BL_NO_TIMEOUT) ==
	      -EINVAL, "%s: a head with an open array", how);
	bl_parcel_write_string_len(&bad_head, "\xff", 1);
	CHECK(bl_send_oneway_iov(ctx, 0, C_ONEWAY, &bad_head, many, 1) == -EINVAL,
	      "%s: a head with a failed write: want its error", how);
	CHECK(bl_call_iov(NULL, 0, C_CHECK, NULL, many, 1, &rep, BL_NO_TIMEOUT) == -EINVAL,
	      "%s: no context", how);
	bl_parcel_fini(&open_array);
	bl_parcel_fini(&bad_head);

	count(ctx, &ok1, &bad1);
	CHECK(ok1 - ok0 == 6 && bad1 == bad0,
	      "%s: the service checked %u requests well and %u badly, want 6 and 0", how,
	      ok1 - ok0, bad1 - bad0);
	printf("# %s: %u requests arrived byte for byte, the refused ones not at all\n",
	       how, ok1 - ok0);
	bl_context_close(ctx);
}

int main(void)
{
	int pfd[2];
	pid_t srv;
	char c;

	alarm(60);
	if (pipe(pfd))
		die("pipe");
	srv = fork();
	if (srv < 0)
		die("fork");
	if (!srv) {
		close(pfd[0]);
		fbt_bl_serve_as_manager(svc_handler, false, pfd[1]);
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1)
		die("the service did not start");
	close(pfd[0]);
	fbt_become_nobody();
	round_trip(true, 11);
	round_trip(false, 5);
	kill(srv, SIGKILL);
	waitpid(srv, NULL, 0);
	return fbt_done();
}
