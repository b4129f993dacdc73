// SPDX-License-Identifier: MIT
/*
 * bulk-client - pulls bulk-service's buffer through the region it hands
 * out, checks the checksum on this side, and tells the service.
 *
 * One bl_region_read() of the whole buffer: the driver copies straight
 * from the service's memory into ours, page by page.
 *
 * Run: fb-servicemanager & bulk-service & bulk-client
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "binderlite.h"
#include "fbtool.h"
#include "bulk.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	uint64_t size, sum, mine, rsize = 0;
	struct bl_context *ctx;
	uint32_t svc, region, rights = 0;
	struct bl_reply r;
	struct bl_parcel p;
	unsigned char *buf;
	double t;
	int ret;

	fbtool_init("bulk-client");
	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		return fbtool_unavailable(NULL, -ret);
	ret = bl_sm_get(ctx, BULK_SERVICE_NAME, 5000, &svc);
	if (ret) {
		fprintf(stderr, "bulk-client: find \"%s\": %s\n", BULK_SERVICE_NAME,
			strerror(-ret));
		return 1;
	}

	/* 1. Ask for the region: a handle of it arrives in the reply. */
	ret = bl_call(ctx, svc, BULK_METHOD_GET, NULL, &r, BL_NO_TIMEOUT);
	if (!ret) {
		ret = r.status;
		if (!ret)
			ret = bl_reader_read_region(&r.reader, &region);
		if (!ret)
			ret = bl_reader_read_u64(&r.reader, &size);
		if (!ret)
			ret = bl_reader_read_u64(&r.reader, &sum);
		if (!ret)
			ret = bl_handle_acquire(ctx, region);	/* keep it past the reply */
		bl_reply_fini(&r);
	}
	if (ret) {
		fprintf(stderr, "bulk-client: get: %s\n", strerror(-ret));
		return 1;
	}
	ret = bl_region_info(ctx, region, &rights, &rsize);
	if (ret || rsize != size || rights != BL_REGION_READ) {
		fprintf(stderr, "bulk-client: region info: %s, %llu bytes, rights %u\n",
			strerror(-ret), (unsigned long long)rsize, rights);
		return 1;
	}

	/* 2. Copy it: one call, any size. */
	buf = malloc(size);
	if (!buf) {
		fprintf(stderr, "bulk-client: no memory for %llu MiB\n",
			(unsigned long long)(size >> 20));
		return 1;
	}
	t = now();
	ret = bl_region_read(ctx, region, 0, buf, size);
	t = now() - t;
	bl_handle_release(ctx, region);
	if (ret) {
		fprintf(stderr, "bulk-client: read: %s\n", strerror(-ret));
		return 1;
	}
	mine = bulk_sum(buf, size);
	printf("bulk-client: read %llu MiB in %.3f s, checksum %016llx (%s)\n",
	       (unsigned long long)(size >> 20), t, (unsigned long long)mine,
	       mine == sum ? "matches the service's" : "DIFFERS from the service's");

	/* 3. Tell the service what we computed. */
	bl_parcel_init(&p);
	ret = bl_parcel_write_u64(&p, mine);
	if (!ret)
		ret = bl_call(ctx, svc, BULK_METHOD_CONFIRM, &p, &r, BL_NO_TIMEOUT);
	bl_parcel_fini(&p);
	if (!ret) {
		ret = r.status;
		bl_reply_fini(&r);
	}
	free(buf);
	bl_handle_release(ctx, svc);
	bl_context_close(ctx);
	if (ret || mine != sum) {
		fprintf(stderr, "bulk-client: confirm: %s\n", strerror(ret ? -ret : EBADMSG));
		return 1;
	}
	return 0;
}
