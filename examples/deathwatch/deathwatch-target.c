// SPDX-License-Identifier: MIT
/*
 * deathwatch-target - a service that only exists, to be watched and
 * killed.  Registers NAME (default "deathwatch.target") and serves until
 * it is killed; every call gets status 0 and the service's pid.
 *
 * Run: deathwatch-target my.name &
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "binderlite.h"
#include "fbtool.h"

static int32_t target_handler(struct bl_object *obj, uint32_t code,
			      struct bl_reader *request, struct bl_parcel *reply,
			      const struct bl_call_info *info)
{
	(void)obj; (void)code; (void)request; (void)info;
	return bl_parcel_write_i32(reply, (int32_t)getpid());
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "deathwatch.target";
	struct bl_context *ctx;
	struct bl_object *obj;
	int ret;

	fbtool_init("deathwatch-target");
	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		return fbtool_unavailable(NULL, -ret);
	ret = bl_object_new(ctx, target_handler, NULL, NULL, &obj);
	if (!ret) {
		ret = bl_sm_add(ctx, name, obj);
		bl_object_unref(obj);
	}
	if (ret) {
		fprintf(stderr, "deathwatch-target: register \"%s\": %s\n", name,
			strerror(-ret));
		bl_context_close(ctx);
		return 1;
	}
	printf("deathwatch-target: \"%s\" registered, pid %d\n", name, (int)getpid());
	fflush(stdout);
	ret = bl_loop(ctx);	/* until killed */
	bl_context_close(ctx);
	return ret ? 1 : 0;
}
