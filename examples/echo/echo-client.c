// SPDX-License-Identifier: MIT
/*
 * echo-client - calls the echo service once per argument and prints what
 * comes back.
 *
 * It looks the service up by name (waiting up to 5 s for it to appear),
 * which gives it a handle, then makes one synchronous call per argument:
 * build a request parcel, bl_call(), check the reply's status, read the
 * reply's items, bl_reply_fini().
 *
 * Run: echo-client hello world     (exit 0 when every echo matched)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "binderlite.h"
#include "fbtool.h"
#include "echo.h"

/* One call: send text, expect the same text back.  0 or -errno. */
static int echo_once(struct bl_context *ctx, uint32_t handle, const char *text)
{
	struct bl_parcel request = BL_PARCEL_INIT;	/* may live on the stack */
	struct bl_reply reply;
	const char *back;
	int32_t n;
	int ret;

	ret = bl_parcel_write_string(&request, text);
	if (!ret)
		ret = bl_call(ctx, handle, ECHO_METHOD_ECHO, &request, &reply,
			      BL_NO_TIMEOUT);
	bl_parcel_fini(&request);	/* the driver copied it: free it now */
	if (ret)
		return ret;		/* the call itself failed (service died...) */

	/* The call worked; did the method?  Its status says. */
	ret = reply.status;
	if (!ret)
		ret = bl_reader_read_string(&reply.reader, &back, NULL);
	if (!ret)
		ret = bl_reader_read_i32(&reply.reader, &n);
	if (!ret) {
		printf("echo-client: sent \"%s\", got \"%s\" (call #%d)\n",
		       text, back, n);
		if (strcmp(text, back))
			ret = -EBADMSG;
	}
	/* back points into the reply's buffer: use it before this. */
	bl_reply_fini(&reply);
	return ret;
}

int main(int argc, char **argv)
{
	struct bl_context *ctx;
	uint32_t handle;
	int ret, i;

	if (argc < 2) {
		fprintf(stderr, "usage: echo-client TEXT...\n");
		return 2;
	}
	fbtool_init("echo-client");
	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		return fbtool_unavailable(NULL, -ret);
	/* Wait (at most 5 s) until the service is registered. */
	ret = bl_sm_get(ctx, ECHO_SERVICE_NAME, 5000, &handle);
	if (ret) {
		fprintf(stderr, "echo-client: no \"%s\" service: %s\n",
			ECHO_SERVICE_NAME, strerror(-ret));
		bl_context_close(ctx);
		return 1;
	}
	for (i = 1; i < argc && !ret; i++) {
		ret = echo_once(ctx, handle, argv[i]);
		if (ret)
			fprintf(stderr, "echo-client: \"%s\": %s\n", argv[i],
				strerror(-ret));
	}
	bl_handle_release(ctx, handle);	/* bl_sm_get() acquired it for us */
	bl_context_close(ctx);
	return ret ? 1 : 0;
}
