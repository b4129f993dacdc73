// SPDX-License-Identifier: MIT
/*
 * notify.c - fb-servicemanager's service notifications (BL_SM_WATCH): a
 * notice when a watched name is added and when its service dies, a watch
 * made after the name exists told at once, unwatch stops the notices, the
 * bound per uid, the watches of dead processes dropped (the bound not used
 * up by many dying watchers, the manager's count back down), and
 * bl_sm_get() waiting without asking again, with and without a looper.
 * The manager runs as root, everything else as uid 65534.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fbt_bl.h"
#include "fbt.h"
#include "fbt_sm.h"

/* What the watches of the test heard, in order. */
#define MAX_NOTICES 64
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int count;
	uint32_t event[MAX_NOTICES];
	char name[MAX_NOTICES][BL_SM_NAME_MAX + 1];
	uint32_t handle;	/* the last ADDED's service, acquired */
} heard = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void on_notice(struct bl_context *ctx, const char *name,
		      uint32_t event, uint32_t handle, void *userdata)
{
	(void)userdata;
	pthread_mutex_lock(&heard.lock);
	if (heard.count < MAX_NOTICES) {
		heard.event[heard.count] = event;
		snprintf(heard.name[heard.count], sizeof(heard.name[0]), "%s", name);
		heard.count++;
	}
	if (event == BL_SM_EVENT_ADDED) {
		if (heard.handle)
			bl_handle_release(ctx, heard.handle);
		heard.handle = bl_handle_acquire(ctx, handle) ? 0 : handle;
	}
	pthread_cond_broadcast(&heard.cond);
	pthread_mutex_unlock(&heard.lock);
}

/*
 * Waits up to ms for notice number n (counting from 0); true when it came
 * and is event for name.
 */
static bool heard_nth(unsigned int n, uint32_t event, const char *name, int ms)
{
	long long until = fbt_now_ms() + ms;
	bool ok;

	pthread_mutex_lock(&heard.lock);
	while (heard.count <= n && fbt_now_ms() < until) {
		pthread_mutex_unlock(&heard.lock);
		usleep(2000);
		pthread_mutex_lock(&heard.lock);
	}
	ok = heard.count > n && heard.event[n] == event &&
	     !strcmp(heard.name[n], name);
	pthread_mutex_unlock(&heard.lock);
	return ok;
}

static unsigned int heard_count(void)
{
	unsigned int n;

	pthread_mutex_lock(&heard.lock);
	n = heard.count;
	pthread_mutex_unlock(&heard.lock);
	return n;
}

/* The manager's watch count; -1 when it does not answer. */
static long watches_now(struct bl_context *ctx)
{
	struct bl_sm_stats st;

	return bl_sm_stats(ctx, &st) ? -1 : (long)st.watches;
}

/* Polls the count (the deaths reach the manager asynchronously). */
static bool watches_become(struct bl_context *ctx, long want, int ms)
{
	long long until = fbt_now_ms() + ms;

	while (watches_now(ctx) != want) {
		if (fbt_now_ms() > until)
			return false;
		usleep(10000);
	}
	return true;
}

/*
 * A process that makes SM_MAX watches (64: the uid's bound, so every
 * other watch of the uid must be gone), checks the next is -EDQUOT and
 * dies without cleaning up.
 */
static int dying_watcher(void *arg)
{
	struct bl_context *ctx = fbt_bl_open();
	struct bl_sm_watch *w;
	char name[32];
	int i, ret;

	(void)arg;
	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "d.%d", i);
		ret = bl_sm_watch(ctx, name, on_notice, NULL, &w);
		if (ret) {
			fprintf(stderr, "dying watcher: watch %d: %s\n", i,
				strerror(-ret));
			_exit(1);
		}
	}
	ret = bl_sm_watch(ctx, "d.over", on_notice, NULL, &w);
	if (ret != -EDQUOT) {
		fprintf(stderr, "dying watcher: 65th watch: %d\n", ret);
		_exit(2);
	}
	_exit(0);	/* no unwatch, no close: the driver tells the manager */
}

/*
 * A bl_sm_get() of "n.late" that reports through the pipe in arg when it
 * returned; with a pool thread when *arg's second int says so.
 */
struct waiter_arg {
	int fd;
	bool pool;
};

static int waiter(void *p)
{
	struct waiter_arg *a = p;
	struct bl_context *ctx = fbt_bl_open();
	long long done;
	int32_t v = 0;
	uint32_t h;
	int ret;

	if (a->pool && bl_pool_start(ctx, 1, 1))
		return 10;
	ret = bl_sm_get(ctx, "n.late", 20000, &h);
	done = fbt_now_ms();
	if (write(a->fd, &done, sizeof(done)) != sizeof(done))
		return 11;
	if (ret) {
		fprintf(stderr, "waiter: bl_sm_get: %s\n", strerror(-ret));
		return 1;
	}
	ret = fbt_sm_call_add_one(ctx, h, 1, &v);
	bl_handle_release(ctx, h);
	bl_context_close(ctx);
	return ret || v != 2 ? 2 : 0;
}

static int client(void *arg)
{
	struct bl_sm_watch *w1, *w2, *many[64];
	struct bl_sm_stats st0, st1;
	struct waiter_arg wa[2];
	struct bl_context *ctx;
	pid_t one, two, one_again, late, wpid[2];
	int ret, i, n, pfd[2][2];
	long long t_added, t_ret;
	long base;
	int32_t v = 0;

	(void)arg;
	fbt_become_nobody();
	ctx = fbt_bl_open();
	CHECK(bl_pool_start(ctx, 1, 2) == 0, "a pool for the notices");
	CHECK(watches_now(ctx) == 0, "a new manager holds no watch");

	/* watched before it exists: added, then died */
	ret = bl_sm_watch(ctx, "n.one", on_notice, NULL, &w1);
	CHECK(ret == 0, "watch n.one before it exists: %d", ret);
	CHECK(watches_now(ctx) == 1, "the manager counts 1 watch");
	usleep(200000);
	CHECK(heard_count() == 0, "no notice while the name is missing");
	one = fbt_sm_service_start("n.one", 0, &ret);
	CHECK(ret == 0, "add n.one: %d", ret);
	CHECK(heard_nth(0, BL_SM_EVENT_ADDED, "n.one", 3000),
	      "ADDED n.one when the service registered");
	pthread_mutex_lock(&heard.lock);
	CHECK(heard.handle && fbt_sm_call_add_one(ctx, heard.handle, 41, &v) == 0 &&
	      v == 42, "the notice's handle calls the service: %d", v);
	pthread_mutex_unlock(&heard.lock);
	fbt_bl_kill(one);
	CHECK(heard_nth(1, BL_SM_EVENT_DIED, "n.one", 3000),
	      "DIED n.one when the service was killed");

	/* watched after it exists: told at once */
	two = fbt_sm_service_start("n.two", 0, &ret);
	CHECK(ret == 0, "add n.two: %d", ret);
	ret = bl_sm_watch(ctx, "n.two", on_notice, NULL, &w2);
	CHECK(ret == 0, "watch n.two after it exists: %d", ret);
	CHECK(heard_nth(2, BL_SM_EVENT_ADDED, "n.two", 1000),
	      "ADDED n.two at once");
	CHECK(bl_sm_watch(ctx, "bad name", on_notice, NULL, &w2) == -EINVAL,
	      "a bad name is refused");

	/* unwatch: no more notices */
	CHECK(bl_sm_unwatch(w1) == 0, "unwatch n.one");
	CHECK(watches_now(ctx) == 1, "the manager counts 1 watch after unwatch");
	one_again = fbt_sm_service_start("n.one", 0, &ret);
	CHECK(ret == 0, "add n.one again: %d", ret);
	usleep(300000);
	CHECK(heard_count() == 3, "no notice after unwatch: %u notices",
	      heard_count());

	/* the bound: 64 per uid, n.two's included */
	for (n = 0; n < 64; n++) {
		char name[32];

		snprintf(name, sizeof(name), "m.%d", n);
		ret = bl_sm_watch(ctx, name, on_notice, NULL, &many[n]);
		if (ret)
			break;
	}
	CHECK(n == 63 && ret == -EDQUOT,
	      "the uid's 64th watch is its last: %d made, then %d", n, ret);
	for (i = 0; i < n; i++)
		bl_sm_unwatch(many[i]);
	CHECK(bl_sm_unwatch(w2) == 0, "unwatch n.two");
	CHECK(watches_now(ctx) == 0, "no watch left after unwatching all");

	/* processes that watch and die leave nothing behind */
	for (i = 0; i < 3; i++) {
		pid_t d = fbt_fork(dying_watcher, NULL);

		ret = fbt_wait(d);
		CHECK(ret == 0, "dying watcher %d made the uid's 64 watches: %d",
		      i, ret);
		CHECK(watches_become(ctx, 0, 3000),
		      "dying watcher %d: its watches dropped (%ld left)", i,
		      watches_now(ctx));
	}

	/* bl_sm_get() waits on a notice, with no looper and with a pool */
	base = watches_now(ctx);
	for (i = 0; i < 2; i++) {
		if (pipe(pfd[i]))
			die("pipe");
		wa[i].fd = pfd[i][1];
		wa[i].pool = i == 1;
		wpid[i] = fbt_fork(waiter, &wa[i]);
		close(pfd[i][1]);
	}
	CHECK(watches_become(ctx, base + 2, 3000),
	      "both waiters watch n.late (%ld watches)", watches_now(ctx));
	CHECK(bl_sm_stats(ctx, &st0) == 0, "stats");
	usleep(1000000);
	CHECK(bl_sm_stats(ctx, &st1) == 0, "stats");
	CHECK(st1.requests - st0.requests == 1,
	      "no lookups while waiting: %llu requests in 1 s (this one is 1)",
	      (unsigned long long)(st1.requests - st0.requests));
	late = fbt_sm_service_start("n.late", 0, &ret);
	t_added = fbt_now_ms();
	CHECK(ret == 0, "add n.late: %d", ret);
	for (i = 0; i < 2; i++) {
		if (read(pfd[i][0], &t_ret, sizeof(t_ret)) != sizeof(t_ret))
			t_ret = -1;
		CHECK(t_ret >= 0 && t_ret - t_added < 500,
		      "waiter %s returned %lld ms after the add",
		      i ? "with a pool" : "without a looper", t_ret - t_added);
		CHECK(fbt_wait(wpid[i]) == 0, "waiter %d found n.late and called it", i);
		close(pfd[i][0]);
	}
	CHECK(watches_become(ctx, base, 3000), "the waiters' watches are gone");
	CHECK(bl_sm_stats(ctx, &st1) == 0 && st1.notices_lost == 0,
	      "no notice lost: %llu", (unsigned long long)st1.notices_lost);

	pthread_mutex_lock(&heard.lock);
	if (heard.handle)
		bl_handle_release(ctx, heard.handle);
	heard.handle = 0;
	pthread_mutex_unlock(&heard.lock);
	fbt_bl_kill(two);
	fbt_bl_kill(one_again);
	fbt_bl_kill(late);
	bl_context_close(ctx);
	return fbt_done();
}

int main(void)
{
	pid_t mgr, cl;
	int st;

	mgr = fbt_sm_manager_start(NULL);
	cl = fbt_fork(client, NULL);
	st = fbt_wait(cl);
	CHECK(st == 0, "the clients and services, as uid 65534: status %d", st);
	CHECK(fbt_sm_manager_stop(mgr) == 0, "the manager exits 0");
	return fbt_done();
}
