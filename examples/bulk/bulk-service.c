// SPDX-License-Identifier: MIT
/*
 * bulk-service - offers a large buffer (256 MiB by default) to its clients
 * by memory region: no shared mapping, no 16 MiB message limit, one copy.
 *
 * It fills the buffer, computes its checksum, makes one read-only region
 * of it (bl_region_create()), and answers BULK_METHOD_GET with the region,
 * the size and the checksum; BULK_METHOD_CONFIRM tells it what a client
 * computed on its side.  With --revoke-after N it revokes the region after
 * N confirmations: later clients get -EKEYREVOKED from their reads.
 *
 * Run: fb-servicemanager & bulk-service [MiB] & bulk-client
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binderlite.h"
#include "fbtool.h"
#include "bulk.h"

struct bulk {
	struct bl_context *ctx;
	unsigned char *buf;
	size_t size;
	uint64_t sum;
	uint32_t region;	/* our handle of the region */
	long revoke_after;	/* confirmations before the revoke, or -1 */
};

static int32_t bulk_handler(struct bl_object *obj, uint32_t code,
			    struct bl_reader *request, struct bl_parcel *reply,
			    const struct bl_call_info *info)
{
	struct bulk *b = bl_object_userdata(obj);
	uint64_t theirs;
	int ret;

	switch (code) {
	case BULK_METHOD_GET:
		/* the receiver gets its own handle of the same region */
		ret = bl_parcel_write_region(reply, b->region);
		if (!ret)
			ret = bl_parcel_write_u64(reply, b->size);
		if (!ret)
			ret = bl_parcel_write_u64(reply, b->sum);
		return ret;
	case BULK_METHOD_CONFIRM:
		ret = bl_reader_read_u64(request, &theirs);
		if (ret)
			return ret;
		printf("bulk-service: pid %d read %zu MiB, checksum %s\n",
		       info->sender_pid, b->size >> 20,
		       theirs == b->sum ? "matches" : "DIFFERS");
		fflush(stdout);
		if (b->revoke_after > 0 && --b->revoke_after == 0) {
			/* once this returns, no copy reaches the buffer any more */
			ret = bl_region_revoke(b->ctx, b->region);
			printf("bulk-service: region revoked: %s\n", ret ? strerror(-ret) : "ok");
			fflush(stdout);
		}
		return theirs == b->sum ? 0 : -EBADMSG;
	default:
		return -EOPNOTSUPP;
	}
}

int main(int argc, char **argv)
{
	struct bulk b = { .size = (size_t)BULK_DEFAULT_MIB << 20, .revoke_after = -1 };
	struct bl_object *obj;
	size_t i;
	int ret, a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--revoke-after") && a + 1 < argc)
			b.revoke_after = atol(argv[++a]);
		else
			b.size = (size_t)strtoul(argv[a], NULL, 0) << 20;
	}
	if (!b.size) {
		fprintf(stderr, "usage: bulk-service [MiB] [--revoke-after N]\n");
		return 2;
	}
	b.buf = malloc(b.size);
	if (!b.buf) {
		fprintf(stderr, "bulk-service: no memory for %zu MiB\n", b.size >> 20);
		return 1;
	}
	for (i = 0; i < b.size; i++)
		b.buf[i] = (unsigned char)(i * 31 + (i >> 12));
	b.sum = bulk_sum(b.buf, b.size);

	fbtool_init("bulk-service");
	ret = bl_context_open(NULL, 0, &b.ctx);
	if (ret)
		return fbtool_unavailable(NULL, -ret);
	/* the region: our memory, read only for whoever we give it to */
	ret = bl_region_create(b.ctx, b.buf, b.size, BL_REGION_READ, &b.region);
	if (!ret)
		ret = bl_object_new(b.ctx, bulk_handler, NULL, &b, &obj);
	if (!ret) {
		ret = bl_sm_add(b.ctx, BULK_SERVICE_NAME, obj);
		bl_object_unref(obj);
	}
	if (ret) {
		fprintf(stderr, "bulk-service: %s\n", strerror(-ret));
		bl_context_close(b.ctx);
		return 1;
	}
	printf("bulk-service: offering %zu MiB, checksum %016llx\n", b.size >> 20,
	       (unsigned long long)b.sum);
	fflush(stdout);
	ret = bl_loop(b.ctx);
	bl_context_close(b.ctx);
	free(b.buf);
	return ret ? 1 : 0;
}
