// SPDX-License-Identifier: MIT
/*
 * threadpool-client - starts CLIENTS client processes at once, each of
 * which calls threadpool-service's TP_METHOD_SLEEP for MS milliseconds,
 * and times the whole: with enough loopers in the service the calls run
 * side by side and all finish in about MS, not CLIENTS x MS.
 *
 * Each client is a process of its own (fork()), with its own context:
 * a context is never shared across fork().
 *
 * Run: threadpool-client [CLIENTS [MS]]       (default 4 clients, 200 ms)
 * Prints one line per client (the service thread that served it), then
 * "N clients x MS ms: done in T ms (one after another: N*MS ms)".
 * Exit status: 0 when every call succeeded, 1 otherwise, 2 usage.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "binderlite.h"
#include "fbtool.h"
#include "threadpool.h"

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* TP_METHOD_SLEEP: 0, the method's error status, or the call's error. */
static int sleep_call(struct bl_context *ctx, uint32_t handle, int32_t ms,
		      int32_t *tid, int32_t *busy)
{
	struct bl_parcel req = BL_PARCEL_INIT;
	struct bl_reply reply;
	int ret;

	ret = bl_parcel_write_i32(&req, ms);
	if (!ret)
		ret = bl_call(ctx, handle, TP_METHOD_SLEEP, &req, &reply,
			      BL_NO_TIMEOUT);
	bl_parcel_fini(&req);
	if (ret)
		return ret;
	ret = reply.status;
	if (!ret)
		ret = bl_reader_read_i32(&reply.reader, tid);
	if (!ret)
		ret = bl_reader_read_i32(&reply.reader, busy);
	bl_reply_fini(&reply);
	return ret;
}

/* One client: its own context, one call.  Returns the exit status. */
static int client(int id, int ms)
{
	struct bl_context *ctx;
	int32_t tid = 0, busy = 0;
	uint32_t handle;
	long start;
	int ret;

	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		return fbtool_unavailable(NULL, -ret);
	ret = bl_sm_get(ctx, TP_SERVICE_NAME, 5000, &handle);
	if (ret) {
		fprintf(stderr, "client %d: no \"%s\": %s\n", id, TP_SERVICE_NAME,
			strerror(-ret));
		bl_context_close(ctx);
		return 1;
	}
	start = now_ms();
	ret = sleep_call(ctx, handle, ms, &tid, &busy);
	if (ret)
		fprintf(stderr, "client %d: call: %s\n", id, strerror(-ret));
	else
		printf("client %d: served by service thread %d in %ld ms "
		       "(%d calls in progress)\n", id, tid, now_ms() - start, busy);
	fflush(stdout);
	bl_handle_release(ctx, handle);
	bl_context_close(ctx);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	int clients = argc > 1 ? atoi(argv[1]) : 4;
	int ms = argc > 2 ? atoi(argv[2]) : 200;
	int failed = 0, unavailable = 0, status, i;
	long start, elapsed;

	if (argc > 3 || clients < 1 || clients > 64 || ms < 0 || ms > 10000) {
		fprintf(stderr, "usage: threadpool-client [CLIENTS (1..64) [MS (0..10000)]]\n");
		return 2;
	}
	fbtool_init("threadpool-client");
	fflush(stdout);		/* nothing buffered may be copied into the children */
	start = now_ms();
	for (i = 0; i < clients; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(client(i + 1, ms));
		if (pid < 0) {
			perror("threadpool-client: fork");
			failed++;
		}
	}
	/* Reap every client. */
	while (wait(&status) > 0)
		if (WIFEXITED(status) && WEXITSTATUS(status) == FBTOOL_EXIT_UNAVAILABLE)
			unavailable++;
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	if (unavailable)
		return FBTOOL_EXIT_UNAVAILABLE;
	elapsed = now_ms() - start;
	printf("%d clients x %d ms: done in %ld ms (one after another: %d ms)\n",
	       clients, ms, elapsed, clients * ms);
	return failed ? 1 : 0;
}
