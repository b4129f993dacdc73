// SPDX-License-Identifier: MIT
/*
 * threadpool-service - a service that handles several calls at the same
 * time, with a pool of TP_THREADS looper threads (bl_pool_start()).
 *
 * Each call sleeps for the time it asks, so the calls of several clients
 * overlap: with 4 loopers, 4 calls of 200 ms all end after about 200 ms,
 * not 800.  The handler runs on whichever pool thread the driver hands the
 * call to, possibly on several threads at once: shared state needs atomics
 * or a lock (here, one atomic counter of the calls in progress).
 *
 * Run: threadpool-service &  threadpool-client 4 200
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "binderlite.h"
#include "fbtool.h"
#include "threadpool.h"

static atomic_int in_progress;

static int32_t tp_handler(struct bl_object *obj, uint32_t code,
			  struct bl_reader *request, struct bl_parcel *reply,
			  const struct bl_call_info *info)
{
	struct timespec ts;
	int32_t ms, busy;
	int ret;

	(void)obj;
	(void)info;
	if (code != TP_METHOD_SLEEP)
		return -EOPNOTSUPP;
	ret = bl_reader_read_i32(request, &ms);
	if (ret)
		return ret;
	if (ms < 0 || ms > 10000)
		return -EINVAL;

	busy = atomic_fetch_add(&in_progress, 1) + 1;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	atomic_fetch_sub(&in_progress, 1);

	ret = bl_parcel_write_i32(reply, (int32_t)syscall(SYS_gettid));
	if (!ret)
		ret = bl_parcel_write_i32(reply, busy);
	return ret;
}

int main(void)
{
	struct bl_context *ctx;
	struct bl_object *obj;
	sigset_t stop_signals;
	int ret, sig;

	/* Block SIGTERM/SIGINT in every thread; the main thread sigwait()s. */
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

	fbtool_init("threadpool-service");
	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		return fbtool_unavailable(NULL, -ret);
	ret = bl_object_new(ctx, tp_handler, NULL, NULL, &obj);
	if (!ret) {
		ret = bl_sm_add(ctx, TP_SERVICE_NAME, obj);
		bl_object_unref(obj);
	}
	/*
	 * TP_THREADS loopers now, and at most TP_THREADS in all: a fifth
	 * concurrent call waits in the driver's queue until one is free.
	 */
	if (!ret)
		ret = bl_pool_start(ctx, TP_THREADS, TP_THREADS);
	if (ret) {
		fprintf(stderr, "threadpool-service: %s\n", strerror(-ret));
		bl_context_close(ctx);
		return 1;
	}
	printf("threadpool-service: registered \"%s\", %u loopers\n",
	       TP_SERVICE_NAME, bl_pool_size(ctx));
	fflush(stdout);

	sigwait(&stop_signals, &sig);
	bl_context_close(ctx);		/* stops and joins the pool */
	printf("threadpool-service: %s, stopped\n", strsignal(sig));
	return 0;
}
