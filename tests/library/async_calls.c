// SPDX-License-Identifier: MIT
/*
 * async_calls: bl_call_async() and bl_invoke() as uid 65534.  A completion
 * through poll(2) on bl_async_fd() and bl_dispatch() on the calling
 * thread; one on a worker thread (BL_ASYNC_THREAD); many calls in flight
 * and queued at once, each completed once with its own answer; a remote
 * status as -EREMOTEIO with its payload, for bl_invoke() too; the server
 * killed with calls in flight and queued (each completes once, with a
 * transport error); bl_async_destroy() with calls in flight and queued
 * (each completes once with -ECANCELED, nothing leaks: valgrind_user runs
 * this test under memcheck).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fbt_bl.h"
#include "fbt.h"

#define SVC		"test.async"
/* one name each: the test manager keeps names of dead services */
#define SVC_DIES	"test.async.dies"
#define SVC_CANCEL	"test.async.cancel"

enum {
	M_ADD = 1,	/* i32 a, i32 b -> i32 a + b */
	M_FAIL,		/* -> status 7, string "why" */
	M_SLOW,		/* writes a byte to the service's pipe, sleeps 3 s */
};

#define MANY		200
#define SLOW_CALLS	8
#define THREADS		4

/* ---- the service ------------------------------------------------------------ */

static int entered_fd = -1;	/* the service's end of the "entered" pipe */

static int32_t svc_handler(struct bl_object *obj, uint32_t code,
			   struct bl_reader *req, struct bl_parcel *reply,
			   const struct bl_call_info *info)
{
	struct timespec ts = { .tv_sec = 3 };
	int32_t a, b;

	(void)obj;
	(void)info;
	switch (code) {
	case M_ADD:
		if (bl_reader_read_i32(req, &a) || bl_reader_read_i32(req, &b))
			return -EBADMSG;
		bl_parcel_write_i32(reply, a + b);
		return 0;
	case M_FAIL:
		bl_parcel_write_string(reply, "why");
		return 7;
	case M_SLOW:
		if (write(entered_fd, "x", 1) != 1)
			return -EIO;
		nanosleep(&ts, NULL);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static int svc_main(void *arg)
{
	const char *name = arg;
	struct bl_context *ctx = fbt_bl_open();
	struct bl_object *obj;
	int ret;

	ret = bl_object_new(ctx, svc_handler, NULL, NULL, &obj);
	if (!ret)
		ret = bl_sm_add(ctx, name, obj);
	if (!ret)
		ret = bl_pool_start(ctx, THREADS, THREADS);
	if (ret) {
		fprintf(stderr, "service %s: %s\n", name, strerror(-ret));
		bl_context_close(ctx);
		return 1;
	}
	bl_object_unref(obj);
	return bl_loop(ctx) ? 1 : 0;
}

/* ---- completions ------------------------------------------------------------ */

struct done {
	atomic_int calls;		/* completions run for it */
	int result;
	int32_t value;			/* the sum, or the remote status */
	bool payload_ok;
	pthread_t thread;
};

static struct done dones[MANY];
static atomic_int completed;
static sem_t thread_done;

static void on_done(struct bl_context *ctx, int result, struct bl_reply *reply,
		    void *userdata)
{
	struct done *d = userdata;
	const char *s;

	(void)ctx;
	d->result = result;
	d->thread = pthread_self();
	if (result == -EREMOTEIO && reply) {
		d->value = reply->status;
		d->payload_ok = !bl_reader_read_string(&reply->reader, &s, NULL) &&
				!strcmp(s, "why");
	} else if (!result && reply) {
		d->payload_ok = !bl_reader_read_i32(&reply->reader, &d->value);
	} else {
		d->payload_ok = !reply;
	}
	atomic_fetch_add(&d->calls, 1);
	atomic_fetch_add(&completed, 1);
	sem_post(&thread_done);
}

static void reset(void)
{
	memset(dones, 0, sizeof(dones));
	atomic_store(&completed, 0);
	while (!sem_trywait(&thread_done))
		;
}

static int queue_add(struct bl_async *a, uint32_t h, int32_t x, int32_t y,
		     struct done *d)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	int ret;

	bl_parcel_write_i32(&p, x);
	bl_parcel_write_i32(&p, y);
	ret = bl_call_async(a, h, M_ADD, &p, BL_NO_TIMEOUT, on_done, d);
	/* moved either way: nothing left to free */
	CHECK(!p.data && !p.size, "the request was not moved");
	return ret;
}

/* poll + bl_dispatch until want completions ran in all, or 20 s passed */
static void dispatch_until(struct bl_async *a, int want)
{
	struct pollfd pfd = { .fd = bl_async_fd(a), .events = POLLIN };
	int waited = 0;

	while (atomic_load(&completed) < want && waited < 20000) {
		int n = poll(&pfd, 1, 100);

		if (n < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		waited += n == 0 ? 100 : 0;
		n = bl_dispatch(a);
		CHECK(n >= 0, "bl_dispatch: %s", strerror(-n));
	}
	CHECK(atomic_load(&completed) == want, "%d completions of %d",
	      atomic_load(&completed), want);
}

/* ---- the tests ------------------------------------------------------------- */

static void test_poll(struct bl_context *ctx, uint32_t h)
{
	struct pollfd pfd;
	struct bl_async *a;
	int ret;

	reset();
	CHECK(bl_async_new(ctx, 7, 0, &a) == -EINVAL && !a, "bad flags");
	CHECK(bl_async_new(ctx, 0, BL_ASYNC_MAX_THREADS + 1, &a) == -EINVAL,
	      "too many threads");
	ret = bl_async_new(ctx, BL_ASYNC_POLL, 1, &a);
	if (ret)
		die("bl_async_new: %s", strerror(-ret));
	CHECK(bl_dispatch(a) == 0, "a completion before any call");
	CHECK(bl_call_async(a, h, M_ADD, NULL, -5, on_done, &dones[0]) == -EINVAL,
	      "a bad timeout");
	CHECK(queue_add(a, h, 6, 7, &dones[0]) == 0, "queue");
	pfd.fd = bl_async_fd(a);
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 10000) == 1 && (pfd.revents & POLLIN),
	      "the async fd never became readable");
	/* nothing runs but in bl_dispatch(), on this thread */
	CHECK(atomic_load(&dones[0].calls) == 0, "completed before bl_dispatch()");
	CHECK(bl_dispatch(a) == 1, "bl_dispatch ran not one completion");
	CHECK(dones[0].calls == 1 && dones[0].result == 0 && dones[0].payload_ok &&
	      dones[0].value == 13, "6 + 7: result %d value %d", dones[0].result,
	      dones[0].value);
	CHECK(pthread_equal(dones[0].thread, pthread_self()),
	      "the completion ran on another thread");
	CHECK(poll(&pfd, 1, 0) == 0, "the fd stays readable after bl_dispatch");
	CHECK(bl_dispatch(a) == 0, "a second run of one completion");

	/* a remote status: -EREMOTEIO with the status and the payload */
	CHECK(bl_call_async(a, h, M_FAIL, NULL, 5000, on_done, &dones[1]) == 0,
	      "queue M_FAIL");
	dispatch_until(a, 2);
	CHECK(dones[1].result == -EREMOTEIO && dones[1].value == 7 &&
	      dones[1].payload_ok, "M_FAIL: result %d status %d",
	      dones[1].result, dones[1].value);
	CHECK(bl_call_end(dones[1].result) == BL_END_REMOTE, "end of M_FAIL");
	/* a handle nobody has: a transport failure */
	CHECK(bl_call_async(a, 999999, M_ADD, NULL, BL_NO_TIMEOUT, on_done,
			    &dones[2]) == 0, "queue to a bad handle");
	dispatch_until(a, 3);
	CHECK(dones[2].result == -ENOENT && dones[2].payload_ok,
	      "bad handle: result %d", dones[2].result);
	CHECK(bl_call_end(dones[2].result) == BL_END_TRANSPORT, "end of ENOENT");
	bl_async_destroy(a);
}

static void test_invoke(struct bl_context *ctx, uint32_t h)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reply r;
	const char *s;
	int32_t v = 0;

	bl_parcel_write_i32(&p, 2);
	bl_parcel_write_i32(&p, 3);
	CHECK(bl_invoke(ctx, h, M_ADD, &p, &r, 5000) == 0, "bl_invoke M_ADD");
	CHECK(!bl_reader_read_i32(&r.reader, &v) && v == 5, "2 + 3 = %d", v);
	bl_reply_fini(&r);
	CHECK(bl_invoke(ctx, h, M_FAIL, NULL, &r, 5000) == -EREMOTEIO &&
	      r.status == 7, "bl_invoke M_FAIL: status %d", r.status);
	CHECK(!bl_reader_read_string(&r.reader, &s, NULL) && !strcmp(s, "why"),
	      "M_FAIL's payload");
	bl_reply_fini(&r);
	CHECK(bl_invoke(ctx, 999999, M_ADD, NULL, &r, 5000) == -ENOENT &&
	      !r.has_buffer, "bl_invoke to a bad handle");
	CHECK(bl_invoke(ctx, h, 99, NULL, NULL, 5000) == -EREMOTEIO,
	      "unknown code, reply discarded");
	CHECK(bl_call_end(0) == BL_END_OK && bl_call_end(-EBADMSG) == BL_END_MALFORMED,
	      "bl_call_end");
	bl_parcel_fini(&p);
}

static void test_thread(struct bl_context *ctx, uint32_t h)
{
	struct timespec ts;
	struct bl_async *a;
	int ret;

	reset();
	ret = bl_async_new(ctx, BL_ASYNC_THREAD, 2, &a);
	if (ret)
		die("bl_async_new: %s", strerror(-ret));
	CHECK(queue_add(a, h, 40, 2, &dones[0]) == 0, "queue");
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	CHECK(sem_timedwait(&thread_done, &ts) == 0, "no completion on a worker");
	CHECK(dones[0].calls == 1 && dones[0].result == 0 && dones[0].value == 42,
	      "40 + 2: result %d value %d", dones[0].result, dones[0].value);
	CHECK(!pthread_equal(dones[0].thread, pthread_self()),
	      "BL_ASYNC_THREAD ran the completion on the caller's thread");
	CHECK(bl_dispatch(a) == 0, "bl_dispatch of a thread-mode async");
	bl_async_destroy(a);
	CHECK(dones[0].calls == 1, "destroy ran a completion again");
}

static void test_many(struct bl_context *ctx, uint32_t h)
{
	struct bl_async *a;
	int i, ret;

	reset();
	ret = bl_async_new(ctx, BL_ASYNC_POLL, THREADS, &a);
	if (ret)
		die("bl_async_new: %s", strerror(-ret));
	for (i = 0; i < MANY; i++)
		CHECK(queue_add(a, h, i, 1000 * i, &dones[i]) == 0, "queue %d", i);
	dispatch_until(a, MANY);
	for (i = 0; i < MANY; i++)
		CHECK(dones[i].calls == 1 && dones[i].result == 0 &&
		      dones[i].value == 1001 * i,
		      "call %d: %d completions, result %d, value %d", i,
		      dones[i].calls, dones[i].result, dones[i].value);
	bl_async_destroy(a);
}

/* Starts the slow service; returns its pid, its handle in *h. */
static pid_t slow_start(struct bl_context *ctx, const char *name, uint32_t *h,
			int *entered)
{
	int fds[2];
	pid_t svc;

	if (pipe(fds))
		die("pipe");
	entered_fd = fds[1];
	svc = fbt_fork(svc_main, (void *)name);
	close(fds[1]);
	*entered = fds[0];
	if (bl_sm_get(ctx, name, 5000, h))
		die("the slow service did not register");
	return svc;
}

/* Reads n bytes of the entered pipe: n calls are in the handler. */
static void wait_entered(int fd, int n)
{
	char buf[SLOW_CALLS];

	while (n > 0) {
		ssize_t got = read(fd, buf, (size_t)n);

		if (got <= 0)
			die("the slow service's pipe: %zd", got);
		n -= (int)got;
	}
}

/*
 * A slow service named name started, and SLOW_CALLS calls to it queued on a
 * new BL_ASYNC_POLL object of THREADS workers, once THREADS of them are in
 * its handler (the rest wait in the queue).
 */
static struct bl_async *slow_calls_queued(struct bl_context *ctx, const char *name,
					  pid_t *svc, uint32_t *h, int *entered)
{
	struct bl_async *a;
	int i, ret;

	reset();
	*svc = slow_start(ctx, name, h, entered);
	ret = bl_async_new(ctx, BL_ASYNC_POLL, THREADS, &a);
	if (ret)
		die("bl_async_new: %s", strerror(-ret));
	for (i = 0; i < SLOW_CALLS; i++)
		CHECK(bl_call_async(a, *h, M_SLOW, NULL, BL_NO_TIMEOUT, on_done,
				    &dones[i]) == 0, "queue %d", i);
	wait_entered(*entered, THREADS);
	return a;
}

static void test_server_dies(struct bl_context *ctx)
{
	struct bl_async *a;
	int entered, i;
	uint32_t h;
	pid_t svc;

	a = slow_calls_queued(ctx, SVC_DIES, &svc, &h, &entered);
	fbt_bl_kill(svc);
	dispatch_until(a, SLOW_CALLS);
	for (i = 0; i < SLOW_CALLS; i++)
		CHECK(dones[i].calls == 1 &&
		      bl_call_end(dones[i].result) == BL_END_TRANSPORT &&
		      dones[i].payload_ok,
		      "call %d to a dead server: %d completions, result %d", i,
		      dones[i].calls, dones[i].result);
	CHECK(dones[0].result == -EOWNERDEAD, "in flight: %s, want EOWNERDEAD",
	      strerror(-dones[0].result));
	bl_async_destroy(a);
	close(entered);
	bl_handle_release(ctx, h);
}

static void test_destroy(struct bl_context *ctx)
{
	struct bl_async *a;
	int entered, i;
	uint32_t h;
	pid_t svc;

	a = slow_calls_queued(ctx, SVC_CANCEL, &svc, &h, &entered);
	bl_async_destroy(a);
	CHECK(atomic_load(&completed) == SLOW_CALLS,
	      "destroy ran %d completions of %d", atomic_load(&completed),
	      SLOW_CALLS);
	for (i = 0; i < SLOW_CALLS; i++)
		CHECK(dones[i].calls == 1 && dones[i].result == -ECANCELED &&
		      dones[i].payload_ok,
		      "call %d at destroy: %d completions, result %d", i,
		      dones[i].calls, dones[i].result);
	CHECK(pthread_equal(dones[SLOW_CALLS - 1].thread, pthread_self()),
	      "a queued call's completion ran on another thread");
	/* the abandoned calls' late replies are dropped; the service lives on */
	{
		struct bl_reply r;

		CHECK(bl_call(ctx, h, M_ADD, NULL, &r, 10000) == 0,
		      "the service after the abandoned calls");
		bl_reply_fini(&r);
	}
	fbt_bl_kill(svc);
	close(entered);
	bl_handle_release(ctx, h);
}

static int client(void *arg)
{
	struct bl_context *ctx;
	uint32_t h;
	pid_t svc;

	(void)arg;
	sem_init(&thread_done, 0, 0);
	svc = fbt_fork(svc_main, SVC);
	ctx = fbt_bl_open();
	if (bl_sm_get(ctx, SVC, 5000, &h))
		die("service did not register");

	test_poll(ctx, h);
	test_invoke(ctx, h);
	test_thread(ctx, h);
	test_many(ctx, h);
	test_server_dies(ctx);
	test_destroy(ctx);

	fbt_bl_kill(svc);
	bl_handle_release(ctx, h);
	bl_context_close(ctx);
	sem_destroy(&thread_done);
	return fbt_done();
}

int main(void)
{
	pid_t mgr = fbt_bl_manager_start();
	int st = fbt_run_as_nobody(client, NULL);

	fbt_bl_kill(mgr);
	CHECK(st == 0, "async calls, as uid 65534: status %d", st);
	return fbt_done();
}
