// SPDX-License-Identifier: MIT
/*
 * echo-service - the smallest useful fastbinder service.
 *
 * It opens the device, creates one object whose handler answers
 * ECHO_METHOD_ECHO with the string it was sent, registers the object with
 * the service manager as "echo", and then serves calls on its main thread
 * with bl_loop() until it is killed.  When it dies, the kernel tells every
 * holder of a handle to it (and the service manager drops the name).
 *
 * Run: fb-servicemanager & echo-service & echo-client hello
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "binderlite.h"
#include "fbtool.h"
#include "echo.h"

/*
 * The handler runs on a looper thread for every incoming call.  It reads
 * the request with the typed reader, writes the reply parcel, and returns
 * a status that reaches the caller as bl_reply.status (0: success,
 * negative errno: failure).
 */
static int32_t echo_handler(struct bl_object *obj, uint32_t code,
			    struct bl_reader *request, struct bl_parcel *reply,
			    const struct bl_call_info *info)
{
	static int32_t calls;	/* one looper thread: no lock needed */
	const char *text;
	size_t len;
	int ret;

	(void)obj;
	if (code != ECHO_METHOD_ECHO)
		return -EOPNOTSUPP;	/* a method we do not have */

	/* The string points into the received buffer: no copy is made. */
	ret = bl_reader_read_string(request, &text, &len);
	if (ret)
		return ret;		/* e.g. -EBADMSG: not a string */

	printf("echo-service: \"%s\" from pid %d\n", text, info->sender_pid);
	fflush(stdout);
	ret = bl_parcel_write_string_len(reply, text, len);
	if (!ret)
		ret = bl_parcel_write_i32(reply, ++calls);
	return ret;
}

int main(void)
{
	struct bl_context *ctx;
	struct bl_object *obj;
	int ret;

	/* 1. Open /dev/fastbinder and map the receive buffer. */
	fbtool_init("echo-service");
	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		return fbtool_unavailable(NULL, -ret);

	/* 2. An object: the handler plus user data (none here). */
	ret = bl_object_new(ctx, echo_handler, NULL, NULL, &obj);
	if (ret) {
		fprintf(stderr, "echo-service: object: %s\n", strerror(-ret));
		bl_context_close(ctx);
		return 1;
	}

	/* 3. Publish it under a name; the manager now holds a handle to it. */
	ret = bl_sm_add(ctx, ECHO_SERVICE_NAME, obj);
	/* Our own reference is no longer needed: the remote ones keep it. */
	bl_object_unref(obj);
	if (ret) {
		fprintf(stderr, "echo-service: register \"%s\": %s\n",
			ECHO_SERVICE_NAME, strerror(-ret));
		bl_context_close(ctx);
		return 1;
	}
	printf("echo-service: registered \"%s\", serving\n", ECHO_SERVICE_NAME);
	fflush(stdout);

	/* 4. Serve calls on this thread until the process is killed. */
	ret = bl_loop(ctx);
	fprintf(stderr, "echo-service: loop: %s\n", strerror(-ret));
	bl_context_close(ctx);
	return 1;
}
