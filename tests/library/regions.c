// SPDX-License-Identifier: MIT
/*
 * regions: libbinderlite's memory regions end to end.  A service offers
 * a 4 MiB buffer read-only and a 64 KiB inbox writable, by region, in a
 * reply (bl_parcel_write_region); the client reads the buffer whole and in
 * iovecs (bl_region_read, bl_region_readv), is refused a write to it
 * (-EACCES) and a widening narrowing, narrows the inbox and writes through
 * the narrowing; the service sees the bytes in its own memory, then
 * revokes the buffer, and the client's next read fails with -EKEYREVOKED.
 * The client runs as uid 65534 against a root manager.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <binderlite.h>

#include "fbt_bl.h"
#include "fbt.h"
#include "fbt_proto.h"

#define SVC		"region.test"
#define BUF_SIZE	(4 << 20)
#define INBOX		(64 << 10)

enum { M_GET = 1, M_CHECK_INBOX, M_REVOKE };

static unsigned char *buf, *inbox;
static uint32_t buf_h, inbox_h;
static struct bl_context *svc_ctx;

static int32_t svc_handler(struct bl_object *obj, uint32_t code,
			   struct bl_reader *req, struct bl_parcel *reply,
			   const struct bl_call_info *info)
{
	int ret;

	(void)obj;
	(void)req;
	(void)info;
	switch (code) {
	case M_GET:
		ret = bl_parcel_write_region(reply, buf_h);
		if (!ret)
			ret = bl_parcel_write_region(reply, inbox_h);
		return ret;
	case M_CHECK_INBOX:
		return fbt_verify(inbox + 1000, 5000, 42) < 0 ? 0 : -EBADMSG;
	case M_REVOKE:
		return bl_region_revoke(svc_ctx, buf_h);
	default:
		return -EOPNOTSUPP;
	}
}

static int svc_main(void *arg)
{
	struct bl_object *obj;
	int ret;

	(void)arg;
	svc_ctx = fbt_bl_open();
	buf = malloc(BUF_SIZE);
	inbox = calloc(1, INBOX);
	if (!buf || !inbox)
		die("malloc");
	fbt_fill(buf, BUF_SIZE, 7);
	ret = bl_region_create(svc_ctx, buf, BUF_SIZE, BL_REGION_READ, &buf_h);
	if (!ret)
		ret = bl_region_create(svc_ctx, inbox, INBOX, BL_REGION_READ | BL_REGION_WRITE, &inbox_h);
	if (!ret)
		ret = bl_object_new(svc_ctx, svc_handler, NULL, NULL, &obj);
	if (!ret)
		ret = bl_sm_add(svc_ctx, SVC, obj);
	if (ret) {
		fprintf(stderr, "service: %s\n", strerror(-ret));
		return 1;
	}
	bl_object_unref(obj);
	return bl_loop(svc_ctx) ? 1 : 0;
}

static int client(void *arg)
{
	unsigned char *out = malloc(BUF_SIZE), in[5000];
	struct bl_context *ctx = fbt_bl_open();
	uint32_t h, b, ib, nb, rights = 0;
	struct iovec iov[3];
	uint64_t size = 0;
	struct bl_reply r;
	size_t done = 0;
	pid_t svc;

	(void)arg;
	svc = fbt_fork(svc_main, NULL);
	CHECK(bl_sm_get(ctx, SVC, 5000, &h) == 0, "find the service");
	CHECK(bl_call(ctx, h, M_GET, NULL, &r, BL_NO_TIMEOUT) == 0 && r.status == 0,
	      "get the regions");
	CHECK(bl_reader_read_region(&r.reader, &b) == 0 &&
	      bl_reader_read_region(&r.reader, &ib) == 0, "read two region handles");
	CHECK(bl_handle_acquire(ctx, b) == 0 && bl_handle_acquire(ctx, ib) == 0,
	      "keep them");
	bl_reply_fini(&r);

	CHECK(bl_region_info(ctx, b, &rights, &size) == 0 && rights == BL_REGION_READ &&
	      size == BUF_SIZE, "info: read only, 4 MiB");
	CHECK(bl_region_read(ctx, b, 0, out, BUF_SIZE) == 0 &&
	      fbt_verify(out, BUF_SIZE, 7) < 0, "read 4 MiB intact");
	memset(out, 0, 300);
	iov[0] = (struct iovec){ out, 100 };
	iov[1] = (struct iovec){ out + 100, 0 };
	iov[2] = (struct iovec){ out + 100, 200 };
	CHECK(bl_region_readv(ctx, b, 0, iov, 3, &done) == 0 && done == 300 &&
	      fbt_verify(out, 300, 7) < 0, "readv into 3 pieces");
	CHECK(bl_region_write(ctx, b, 0, out, 1) == -EACCES, "no write to a read grant");
	CHECK(bl_region_narrow(ctx, b, 0, 10, BL_REGION_READ | BL_REGION_WRITE, &nb) == -EACCES,
	      "no widening");
	CHECK(bl_region_read(ctx, b, BUF_SIZE - 10, out, 11) == -EINVAL,
	      "a read past the end: -EINVAL");

	CHECK(bl_region_narrow(ctx, ib, 1000, 5000, BL_REGION_WRITE, &nb) == 0,
	      "narrow the inbox to [1000, 6000), write only");
	fbt_fill(in, sizeof(in), 42);
	CHECK(bl_region_write(ctx, nb, 0, in, sizeof(in)) == 0, "write through the narrowing");
	CHECK(bl_region_read(ctx, nb, 0, out, 1) == -EACCES, "the narrowing cannot read");
	CHECK(bl_call(ctx, h, M_CHECK_INBOX, NULL, &r, BL_NO_TIMEOUT) == 0 && r.status == 0,
	      "the service finds the bytes in its inbox");
	bl_reply_fini(&r);

	CHECK(bl_call(ctx, h, M_REVOKE, NULL, &r, BL_NO_TIMEOUT) == 0 && r.status == 0,
	      "the service revokes the buffer");
	bl_reply_fini(&r);
	CHECK(bl_region_read(ctx, b, 0, out, 1) == -EKEYREVOKED, "revoked: -EKEYREVOKED");
	CHECK(bl_region_revoke(ctx, ib) == -EPERM, "not ours to revoke: -EPERM");
	CHECK(bl_region_revoke(ctx, nb) == 0, "our narrowing is ours to revoke");

	bl_handle_release(ctx, b);
	bl_handle_release(ctx, ib);
	bl_handle_release(ctx, nb);
	bl_handle_release(ctx, h);
	bl_context_close(ctx);
	fbt_bl_kill(svc);
	free(out);
	return fbt_failures ? 1 : 0;
}

int main(void)
{
	pid_t mgr = fbt_bl_manager_start();
	int st = fbt_run_as_nobody(client, NULL);

	fbt_bl_kill(mgr);
	CHECK(st == 0, "the client, as uid 65534: status %d", st);
	return fbt_done();
}
