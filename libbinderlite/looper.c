// SPDX-License-Identifier: MIT
/*
 * looper.c - serving incoming work: handing a message to its object's
 * handler, bl_loop(), bl_loop_once(), the thread pool and stopping it
 * (binderlite.h section 5).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "internal.h"

struct bl_pool_thread {
	struct bl_pool_thread *next;
	struct bl_context *ctx;
	pthread_t tid;
	bool registered;	/* started because the driver asked */
};

/* The context whose loop this thread is running, if any. */
static _Thread_local struct bl_context *bl_looping;

/*
 * A delivered batch (FBINDER_TXN_BATCH) whose header and entries all lie
 * inside its data: count from 1 to FBINDER_MAX_BATCH, each payload 8-byte
 * aligned after the entries.  The mapping is the driver's, but a library
 * that walks it trusts nothing it did not check.
 */
static bool batch_valid(struct bl_context *ctx, const struct fbinder_txn_msg *msg)
{
	const size_t head = sizeof(struct fbinder_batch);
	const size_t ent = sizeof(struct fbinder_batch_msg);
	size_t map = ctx->map_size;
	struct fbinder_batch_msg m;
	struct fbinder_batch b;
	uint64_t end;
	uint32_t i;

	if (msg->offsets_count || msg->data > map ||
	    msg->data_size > map - msg->data || msg->data_size < head)
		return false;
	memcpy(&b, ctx->map + msg->data, head);
	if (!b.count || b.count > FBINDER_MAX_BATCH ||
	    b.count > (msg->data_size - head) / ent)
		return false;
	end = msg->data + msg->data_size;
	for (i = 0; i < b.count; i++) {
		memcpy(&m, ctx->map + msg->data + head + (size_t)i * ent, ent);
		if (m.data % 8 || m.data < msg->data + head + b.count * ent ||
		    m.data > end || m.data_size > end - m.data)
			return false;
	}
	return true;
}

/*
 * Each message of a batch goes to the handler as the oneway message it was
 * sent as (its code, FBINDER_TXN_ONEWAY), in order; then the one buffer is
 * freed.  A malformed batch is dropped whole.
 */
static void dispatch_batch(struct bl_io *io, const struct fbinder_txn_msg *msg)
{
	struct bl_context *ctx = io->ctx;
	struct bl_call_info info = {
		.ctx = ctx,
		.txn_id = msg->txn_id,
		.flags = FBINDER_TXN_ONEWAY,
		.sender_pid = msg->sender_pid,
		.sender_euid = msg->sender_euid,
	};
	const size_t head = sizeof(struct fbinder_batch);
	struct fbinder_batch_msg m;
	struct bl_object *obj;
	struct fbinder_batch b;
	struct bl_reader r;
	uint32_t i;

	bl__msg_label(ctx->map, ctx->map_size, msg, &info);
	obj = bl__object_lookup_ref(ctx, msg->cookie);
	if (obj && batch_valid(ctx, msg)) {
		memcpy(&b, ctx->map + msg->data, head);
		for (i = 0; i < b.count; i++) {
			memcpy(&m, ctx->map + msg->data + head + (size_t)i * sizeof(m),
			       sizeof(m));
			info.code = m.code;
			if (!bl_reader_init(&r, ctx->map + m.data, m.data_size,
					    NULL, 0))
				obj->handler(obj, m.code, &r, NULL, &info);
		}
	}
	bl_object_unref(obj);
	/* a batch carries no descriptors; any there are still ours */
	bl__msg_close_fds(ctx, msg, NULL);
	bl__io_put(io, FBINDER_CMD_FREE_BUFFER, &msg->data);
}

void bl__dispatch_txn(struct bl_io *io, const struct fbinder_txn_msg *msg)
{
	struct bl_context *ctx = io->ctx;
	bool oneway = msg->flags & FBINDER_TXN_ONEWAY;
	struct bl_call_info info = {
		.ctx = ctx,
		.txn_id = msg->txn_id,
		.code = msg->code,
		.flags = msg->flags,
		.sender_pid = msg->sender_pid,
		.sender_euid = msg->sender_euid,
	};
	struct bl_object *obj;
	struct bl_reader r;
	struct fbinder_txn_data tr;
	int32_t status;

	if (msg->flags & FBINDER_TXN_BATCH) {
		dispatch_batch(io, msg);
		return;
	}
	bl__msg_label(ctx->map, ctx->map_size, msg, &info);
	/* the reply parcel may still be queued for the previous request's */
	if (io->reply_queued)
		bl__io_flush(io);
	obj = bl__object_lookup_ref(ctx, msg->cookie);
	bl_parcel_reset(&io->reply);
	if (!obj)
		status = -ENOENT;	/* an object we no longer know */
	else if (bl__msg_reader(ctx, msg, &r))
		status = -EBADMSG;
	else
		status = obj->handler(obj, msg->code, &r,
				      oneway ? NULL : &io->reply, &info);
	bl_object_unref(obj);
	/* the request's descriptors go with it, after the reply is sent */
	bl__msg_close_fds(ctx, msg, io);

	bl__io_put(io, FBINDER_CMD_FREE_BUFFER, &msg->data);
	if (oneway)
		return;
	if (bl_parcel_open_arrays(&io->reply)) {
		/* a handler bug: do not send half a reply */
		bl_parcel_reset(&io->reply);
		status = -EINVAL;
	} else if (!status && bl_parcel_error(&io->reply)) {
		/* a write into the reply failed: its error, not half a reply */
		status = bl_parcel_error(&io->reply);
		bl_parcel_reset(&io->reply);
	}
	memset(&tr, 0, sizeof(tr));
	tr.code = (uint32_t)status;
	tr.data = (uintptr_t)io->reply.data;
	tr.data_size = io->reply.size;
	tr.offsets = (uintptr_t)io->reply.offsets;
	tr.offsets_count = (uint32_t)io->reply.offsets_count;
	bl__objects_exported(ctx, &io->reply, 1);
	bl__io_put(io, FBINDER_CMD_REPLY, &tr);
}

static void loopers_add(struct bl_context *ctx, int delta)
{
	pthread_mutex_lock(&ctx->lock);
	ctx->loopers += delta;
	if (delta < 0)
		pthread_cond_broadcast(&ctx->loopers_cond);
	pthread_mutex_unlock(&ctx->lock);
}

static bool stopping(struct bl_context *ctx)
{
	bool stop;

	pthread_mutex_lock(&ctx->lock);
	stop = ctx->stopping;
	pthread_mutex_unlock(&ctx->lock);
	return stop;
}

/* The loop of bl_loop() and of pool threads; enter_cmd says which. */
static int run_loop(struct bl_context *ctx, uint32_t enter_cmd)
{
	struct bl_context *outer = bl_looping;
	struct bl_io *io;
	int ret = 0;

	io = bl__realloc(NULL, sizeof(*io));
	if (!io) {
		/* the driver waits for this registration to ask for more */
		if (enter_cmd == FBINDER_CMD_REGISTER_LOOPER)
			bl__command(ctx, enter_cmd, NULL, 0);
		return -ENOMEM;
	}
	bl__io_init(io, ctx);
	io->looper = true;
	bl_looping = ctx;
	bl__io_put(io, enter_cmd, NULL);
	while (!stopping(ctx)) {
		ret = bl__io_run(io, true);
		if (ret == -EAGAIN) {
			/* FBINDER_IOC_WAKE_IDLE: look at the stop flag */
			ret = 0;
			continue;
		}
		if (ret < 0)
			break;
		ret = 0;
	}
	/* the last reply, and leave the pool */
	bl__io_put(io, FBINDER_CMD_EXIT_LOOPER, NULL);
	bl__io_run(io, false);
	bl_looping = outer;
	bl__io_fini(io);
	bl__free(io);
	return ret;
}

int bl_loop(struct bl_context *ctx)
{
	int ret;

	if (!ctx)
		return -EINVAL;
	loopers_add(ctx, 1);
	ret = run_loop(ctx, FBINDER_CMD_ENTER_LOOPER);
	loopers_add(ctx, -1);
	return ret;
}

int bl_loop_once(struct bl_context *ctx, int timeout_ms)
{
	struct pollfd pfd;
	struct bl_io *io;
	int ret;

	if (!ctx || (timeout_ms < 0 && timeout_ms != BL_NO_TIMEOUT))
		return -EINVAL;
	pfd.fd = ctx->fd;
	pfd.events = POLLIN;
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return -errno;
	if (ret == 0)
		return 0;
	io = bl__realloc(NULL, sizeof(*io));
	if (!io)
		return -ENOMEM;
	bl__io_init(io, ctx);
	io->looper = true;
	ret = bl__io_run(io, true);
	if (io->wlen)
		bl__io_run(io, false);	/* the reply, the frees */
	bl__io_fini(io);
	bl__free(io);
	return ret == -EAGAIN ? 0 : ret;
}

bool bl__looping_here(const struct bl_context *ctx)
{
	return bl_looping == ctx;
}

bool bl__looper_runs(struct bl_context *ctx)
{
	bool runs;

	pthread_mutex_lock(&ctx->lock);
	runs = ctx->loopers || ctx->pool_threads;
	pthread_mutex_unlock(&ctx->lock);
	return runs;
}

static void *pool_main(void *arg)
{
	struct bl_pool_thread *pt = arg;
	struct bl_context *ctx = pt->ctx;

	run_loop(ctx, pt->registered ? FBINDER_CMD_REGISTER_LOOPER
				     : FBINDER_CMD_ENTER_LOOPER);
	/* the driver forgets this thread now rather than at close */
	ioctl(ctx->fd, FBINDER_IOC_THREAD_EXIT);
	loopers_add(ctx, -1);
	pthread_mutex_lock(&ctx->lock);
	ctx->pool_threads--;
	pthread_mutex_unlock(&ctx->lock);
	return NULL;
}

/*
 * ctx->lock held.  A registered thread answers a FBINDER_RET_SPAWN_LOOPER: it
 * always sends FBINDER_CMD_REGISTER_LOOPER, which the driver counts for good.
 */
static int pool_add_locked(struct bl_context *ctx, bool registered)
{
	struct bl_pool_thread *pt;
	int err;

	pt = bl__zalloc(1, sizeof(*pt));
	if (!pt)
		return -ENOMEM;
	pt->ctx = ctx;
	pt->registered = registered;
	/* counted before it runs, so a stop waits for it */
	ctx->loopers++;
	ctx->pool_threads++;
	err = pthread_create(&pt->tid, NULL, pool_main, pt);
	if (err) {
		ctx->loopers--;
		ctx->pool_threads--;
		bl__free(pt);
		return -err;
	}
	pt->next = ctx->pool;
	ctx->pool = pt;
	if (registered)
		ctx->spawned++;
	return 0;
}

/*
 * The driver asks for no more threads until one registers for this
 * request: one we cannot start now is owed to the next bl_pool_start().
 */
void bl__spawn_looper(struct bl_context *ctx)
{
	pthread_mutex_lock(&ctx->lock);
	if (!ctx->pool_on || ctx->stopping || pool_add_locked(ctx, true))
		ctx->spawn_owed = true;
	pthread_mutex_unlock(&ctx->lock);
}

/* FBINDER_IOC_SET_MAX_THREADS refuses more (docs/abi.md, "Limits"). */
#define BL_DRIVER_MAX_THREADS	1024u

int bl_pool_start(struct bl_context *ctx, unsigned int threads,
		  unsigned int max_threads)
{
	unsigned int extra, i;
	uint64_t limit;
	uint32_t max;
	bool owed;
	int ret = 0;

	if (!ctx || !threads || threads > max_threads)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	if (ctx->pool_on || ctx->stopping) {
		pthread_mutex_unlock(&ctx->lock);
		return -EALREADY;
	}
	/*
	 * The driver may ask for the rest when all are busy.  Its maximum
	 * counts every thread it asked for that registered, those of a pool
	 * stopped before included, so the rest comes on top of them (up to
	 * the driver's ceiling); and a request left unanswered is answered by
	 * the first thread, or the driver would never ask again.
	 */
	extra = max_threads - threads;
	owed = ctx->spawn_owed;
	limit = (uint64_t)ctx->spawned + owed + extra;
	if (extra > BL_DRIVER_MAX_THREADS)
		limit = extra;		/* the driver's -EINVAL, as ever */
	else if (limit > BL_DRIVER_MAX_THREADS)
		limit = BL_DRIVER_MAX_THREADS;
	max = (uint32_t)limit;
	if (ioctl(ctx->fd, FBINDER_IOC_SET_MAX_THREADS, &max) < 0) {
		ret = -errno;
		pthread_mutex_unlock(&ctx->lock);
		return ret;
	}
	ctx->pool_on = true;
	for (i = 0; i < threads && !ret; i++) {
		ret = pool_add_locked(ctx, owed && i == 0);
		if (!ret && owed && i == 0)
			ctx->spawn_owed = false;
	}
	pthread_mutex_unlock(&ctx->lock);
	if (ret)
		bl_context_stop(ctx);
	return ret;
}

unsigned int bl_pool_size(struct bl_context *ctx)
{
	unsigned int n;

	if (!ctx)
		return 0;
	pthread_mutex_lock(&ctx->lock);
	n = ctx->pool_threads;
	pthread_mutex_unlock(&ctx->lock);
	return n;
}

/* Joins every pool thread that was started (they have been told to stop). */
void bl__pool_join(struct bl_context *ctx)
{
	struct bl_pool_thread *pt;

	pthread_mutex_lock(&ctx->lock);
	pt = ctx->pool;
	ctx->pool = NULL;
	pthread_mutex_unlock(&ctx->lock);
	while (pt) {
		struct bl_pool_thread *next = pt->next;

		pthread_join(pt->tid, NULL);
		bl__free(pt);
		pt = next;
	}
}

void bl_context_stop(struct bl_context *ctx)
{
	uint32_t zero = 0;

	if (!ctx)
		return;
	pthread_mutex_lock(&ctx->lock);
	ctx->stopping = true;
	ctx->pool_on = false;
	pthread_mutex_unlock(&ctx->lock);
	ioctl(ctx->fd, FBINDER_IOC_SET_MAX_THREADS, &zero);
	if (bl_looping == ctx) {
		/* from a handler: our own loop ends when it returns */
		ioctl(ctx->fd, FBINDER_IOC_WAKE_IDLE);
		return;
	}
	/*
	 * A looper between two reads misses a wake-up: repeat it until every
	 * looper saw the flag.
	 */
	pthread_mutex_lock(&ctx->lock);
	while (ctx->loopers) {
		struct timespec ts;

		pthread_mutex_unlock(&ctx->lock);
		ioctl(ctx->fd, FBINDER_IOC_WAKE_IDLE);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 2 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&ctx->lock);
		if (ctx->loopers)
			pthread_cond_timedwait(&ctx->loopers_cond, &ctx->lock,
					       &ts);
	}
	pthread_mutex_unlock(&ctx->lock);
	bl__pool_join(ctx);
	pthread_mutex_lock(&ctx->lock);
	ctx->stopping = false;
	pthread_mutex_unlock(&ctx->lock);
}
