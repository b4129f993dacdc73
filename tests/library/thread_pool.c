// SPDX-License-Identifier: MIT
/*
 * thread_pool.c - libbinderlite's thread pool and loop variants:
 *  - a 4-thread pool (bl_pool_start(4, 4)) serves 4 concurrent clients at
 *    once: all 4 handlers run together, in well under the serial time;
 *  - a pool started with 1 thread and a maximum of 4 grows on the driver's
 *    FBINDER_RET_SPAWN_LOOPER requests until 4 calls run together;
 *  - bl_context_stop() from the main thread ends every pool thread
 *    (bl_pool_size() 0) and bl_context_close() is clean;
 *  - a pool of 1 thread and a maximum of 4, grown to 4, stopped and
 *    started again grows to 4 again (the driver's count of the threads it
 *    asked for does not go down: the library must allow for it);
 *  - bl_loop_once() serves a single-threaded event loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fbt_bl.h"
#include "fbt.h"

enum { M_WORK = 1, M_STATS, M_QUIT, M_RESTART };

#define WORK_MS		400
#define CLIENTS		4

static atomic_int running, max_running, generation;
static sem_t quit, restart;
static volatile int quit_flag;

static int32_t handler(struct bl_object *obj, uint32_t code,
		       struct bl_reader *req, struct bl_parcel *reply,
		       const struct bl_call_info *info)
{
	int now, seen, ret;

	(void)obj; (void)req;
	switch (code) {
	case M_WORK:
		now = atomic_fetch_add(&running, 1) + 1;
		seen = atomic_load(&max_running);
		while (now > seen &&
		       !atomic_compare_exchange_weak(&max_running, &seen, now))
			;
		usleep(WORK_MS * 1000);
		atomic_fetch_sub(&running, 1);
		return 0;
	case M_STATS:
		ret = bl_parcel_write_u32(reply, atomic_load(&max_running));
		if (!ret)
			ret = bl_parcel_write_u32(reply, bl_pool_size(info->ctx));
		if (!ret)
			ret = bl_parcel_write_u32(reply, atomic_load(&generation));
		return ret;
	case M_QUIT:
		quit_flag = 1;
		sem_post(&quit);
		return 0;
	case M_RESTART:
		sem_post(&restart);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

struct svc_cfg {
	const char *name;
	unsigned int threads, max;	/* threads 0: bl_loop_once() loop */
	bool restart;			/* stop and start the pool on M_RESTART */
};

static int svc_main(void *arg)
{
	const struct svc_cfg *cfg = arg;
	struct bl_context *ctx = fbt_bl_open();
	struct bl_object *obj;
	int ret;

	sem_init(&quit, 0, 0);
	sem_init(&restart, 0, 0);
	ret = bl_object_new(ctx, handler, NULL, NULL, &obj);
	if (!ret)
		ret = bl_sm_add(ctx, cfg->name, obj);
	if (ret) {
		fprintf(stderr, "%s: %s\n", cfg->name, strerror(-ret));
		return 1;
	}
	bl_object_unref(obj);
	if (!cfg->threads) {
		while (!quit_flag) {
			ret = bl_loop_once(ctx, 100);
			if (ret < 0) {
				fprintf(stderr, "loop_once: %s\n", strerror(-ret));
				return 1;
			}
		}
		bl_context_close(ctx);
		return 0;
	}
	ret = bl_pool_start(ctx, cfg->threads, cfg->max);
	CHECK(ret == 0, "pool start: %d", ret);
	CHECK(bl_pool_start(ctx, 1, 1) == -EALREADY, "second pool refused");
	if (cfg->restart) {
		while (sem_wait(&restart) && errno == EINTR)
			;
		bl_context_stop(ctx);
		CHECK(bl_pool_size(ctx) == 0, "pool empty after the first stop: "
		      "%u", bl_pool_size(ctx));
		atomic_store(&max_running, 0);
		ret = bl_pool_start(ctx, cfg->threads, cfg->max);
		CHECK(ret == 0, "pool start again: %d", ret);
		atomic_store(&generation, 1);
	}
	while (sem_wait(&quit) && errno == EINTR)
		;
	bl_context_stop(ctx);
	CHECK(bl_pool_size(ctx) == 0, "pool empty after stop: %u",
	      bl_pool_size(ctx));
	bl_context_close(ctx);
	return fbt_done();
}

/* Shared with the client processes: a start line and their results. */
struct shared {
	atomic_int ready;
	atomic_int go;
	int results[CLIENTS];
};

static struct shared *sh;
static const char *target;

static int client_main(void *arg)
{
	int idx = (int)(intptr_t)arg;
	struct bl_context *ctx = fbt_bl_open();
	struct bl_reply r;
	uint32_t h;
	int ret;

	ret = bl_sm_get(ctx, target, 5000, &h);
	if (ret)
		return 2;
	atomic_fetch_add(&sh->ready, 1);
	while (!atomic_load(&sh->go))
		usleep(500);
	ret = bl_call(ctx, h, M_WORK, NULL, &r, BL_NO_TIMEOUT);
	sh->results[idx] = ret ? ret : r.status;
	bl_reply_fini(&r);
	bl_handle_release(ctx, h);
	bl_context_close(ctx);
	return 0;
}

static void stats(struct bl_context *ctx, uint32_t h, uint32_t *max,
		  uint32_t *pool, uint32_t *gen)
{
	struct bl_reply r;

	*max = *pool = *gen = 0;
	CHECK(bl_call(ctx, h, M_STATS, NULL, &r, BL_NO_TIMEOUT) == 0 &&
	      !bl_reader_read_u32(&r.reader, max) &&
	      !bl_reader_read_u32(&r.reader, pool) &&
	      !bl_reader_read_u32(&r.reader, gen), "stats call");
	bl_reply_fini(&r);
}

/* CLIENTS processes call M_WORK at once; returns how long they took. */
static int64_t clients_round(const char *name)
{
	pid_t cl[CLIENTS];
	int64_t t0, dt;

	target = name;
	memset(sh, 0, sizeof(*sh));
	for (int i = 0; i < CLIENTS; i++)
		cl[i] = fbt_fork(client_main, (void *)(intptr_t)i);
	while (atomic_load(&sh->ready) < CLIENTS)
		usleep(1000);
	t0 = fbt_now_ms();
	atomic_store(&sh->go, 1);
	for (int i = 0; i < CLIENTS; i++)
		fbt_wait_ok(cl[i]);
	dt = fbt_now_ms() - t0;
	for (int i = 0; i < CLIENTS; i++)
		CHECK(sh->results[i] == 0, "%s: client %d got %d", name, i,
		      sh->results[i]);
	return dt;
}

static void check_round(struct bl_context *ctx, uint32_t h,
			const struct svc_cfg *cfg, uint32_t want_conc,
			int64_t dt, const char *when)
{
	uint32_t conc, pool, gen;

	stats(ctx, h, &conc, &pool, &gen);
	CHECK(conc == want_conc, "%s%s: %u calls ran at once (want %u)",
	      cfg->name, when, conc, want_conc);
	if (want_conc == CLIENTS)
		CHECK(dt < (CLIENTS - 1) * WORK_MS,
		      "%s%s: %d calls of %d ms took %lld ms", cfg->name, when,
		      CLIENTS, WORK_MS, (long long)dt);
	if (cfg->threads)
		CHECK(pool == cfg->max, "%s%s: pool of %u threads (want %u)",
		      cfg->name, when, pool, cfg->max);
}

static void run_service(const char *name, unsigned int threads,
			unsigned int maxt, uint32_t want_conc, bool restart)
{
	struct svc_cfg cfg = { name, threads, maxt, restart };
	struct bl_context *ctx = fbt_bl_open();
	pid_t svc;
	int64_t dt;
	uint32_t h;

	svc = fbt_fork(svc_main, &cfg);
	dt = clients_round(name);
	CHECK(bl_sm_get(ctx, name, 5000, &h) == 0, "%s: lookup", name);
	check_round(ctx, h, &cfg, want_conc, dt, "");
	if (restart) {
		int64_t until = fbt_now_ms() + 5000;
		uint32_t conc, pool, gen = 0;

		CHECK(bl_send_oneway(ctx, h, M_RESTART, NULL) == 0,
		      "%s: restart", name);
		while (!gen && fbt_now_ms() < until) {
			stats(ctx, h, &conc, &pool, &gen);
			if (!gen)
				usleep(10 * 1000);
		}
		CHECK(gen == 1, "%s: the pool started again", name);
		dt = clients_round(name);
		check_round(ctx, h, &cfg, want_conc, dt, " after a restart");
	}
	CHECK(bl_send_oneway(ctx, h, M_QUIT, NULL) == 0, "%s: quit", name);
	CHECK(fbt_wait(svc) == 0, "%s: service stopped cleanly", name);
	bl_handle_release(ctx, h);
	bl_context_close(ctx);
}

/* The services and their clients, as uid 65534. */
static int run_services(void *arg)
{
	(void)arg;
	run_service("pool.fixed", 4, 4, CLIENTS, false);
	run_service("pool.grows", 1, 4, CLIENTS, false);
	run_service("pool.restart", 1, 4, CLIENTS, true);
	run_service("pool.loop_once", 0, 0, 1, false);
	return fbt_done();
}

int main(void)
{
	pid_t mgr;
	int st;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	/* a root manager, as a system runs one (claiming handle 0 takes it) */
	mgr = fbt_bl_manager_start();
	st = fbt_run_as_nobody(run_services, NULL);
	fbt_bl_kill(mgr);
	CHECK(st == 0, "the services, as uid 65534: status %d", st);
	return fbt_done();
}
