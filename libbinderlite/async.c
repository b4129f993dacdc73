// SPDX-License-Identifier: MIT
/*
 * async.c - asynchronous calls (binderlite.h section 4, "Asynchronous
 * calls"), and bl_invoke(), the call whose one result says how it ended.
 *
 * The driver lets a thread wait for one reply at a time, so an async
 * object keeps a few worker threads that make the calls: a call waits in
 * the queue for a free worker, which makes it as bl_call() does and then
 * either runs its completion itself (BL_ASYNC_THREAD) or queues it for
 * bl_dispatch() and makes the eventfd readable (BL_ASYNC_POLL).  Each
 * worker has an eventfd of its own that bl_async_destroy() makes readable
 * to abandon the call it waits for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "internal.h"

struct bl_async_call {
	struct bl_async_call *next;
	uint32_t handle;
	uint32_t code;
	int timeout_ms;
	struct bl_parcel request;	/* moved from the caller's */
	bl_async_fn fn;
	void *userdata;
	int result;
	struct bl_reply reply;
};

struct bl_async_worker {
	struct bl_async *a;
	pthread_t tid;
	int cancel_fd;
};

struct bl_async {
	struct bl_context *ctx;
	unsigned int flags;
	int efd;			/* readable: completions ready (POLL) */
	unsigned int nworkers;
	struct bl_async_worker *workers;
	pthread_mutex_t lock;		/* everything below */
	pthread_cond_t work;		/* a call queued, or stopping */
	bool stopping;
	struct bl_async_call *queue, **queue_tail;	/* not started */
	struct bl_async_call *ready, **ready_tail;	/* done (POLL) */
};

int bl_invoke(struct bl_context *ctx, uint32_t handle, uint32_t code,
	      const struct bl_parcel *request, struct bl_reply *reply,
	      int timeout_ms)
{
	struct bl_reply r;
	int ret;

	ret = bl_call(ctx, handle, code, request, &r, timeout_ms);
	if (!ret && r.status)
		ret = -EREMOTEIO;	/* the reply is kept: its status, a payload */
	if (reply)
		*reply = r;
	else
		bl_reply_fini(&r);
	return ret;
}

/* Runs c's completion and frees it. */
static void complete(struct bl_async *a, struct bl_async_call *c)
{
	c->fn(a->ctx, c->result, c->reply.has_buffer ? &c->reply : NULL,
	      c->userdata);
	bl_reply_fini(&c->reply);
	bl_parcel_fini(&c->request);
	bl__free(c);
}

static void signal_fd(int fd)
{
	uint64_t one = 1;

	/* fails only when the counter is near 2^64: readable anyway */
	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

static void *worker_main(void *arg)
{
	struct bl_async_worker *w = arg;
	struct bl_async *a = w->a;
	struct bl_async_call *c;

	for (;;) {
		pthread_mutex_lock(&a->lock);
		while (!a->queue && !a->stopping)
			pthread_cond_wait(&a->work, &a->lock);
		c = a->stopping ? NULL : a->queue;
		if (c) {
			a->queue = c->next;
			if (!a->queue)
				a->queue_tail = &a->queue;
		}
		pthread_mutex_unlock(&a->lock);
		if (!c)
			return NULL;
		c->result = bl__call_cancel(a->ctx, c->handle, c->code,
					    FBINDER_TXN_ACCEPT_FDS, &c->request,
					    &c->reply, c->timeout_ms, NULL,
					    w->cancel_fd);
		if (!c->result && c->reply.status)
			c->result = -EREMOTEIO;
		bl_parcel_fini(&c->request);
		if (a->flags & BL_ASYNC_THREAD) {
			complete(a, c);
			continue;
		}
		c->next = NULL;
		pthread_mutex_lock(&a->lock);
		*a->ready_tail = c;
		a->ready_tail = &c->next;
		pthread_mutex_unlock(&a->lock);
		signal_fd(a->efd);
	}
}

/* Stops and joins the first n workers, closing their eventfds. */
static void workers_stop(struct bl_async *a, unsigned int n)
{
	unsigned int i;

	pthread_mutex_lock(&a->lock);
	a->stopping = true;
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
	for (i = 0; i < n; i++)
		signal_fd(a->workers[i].cancel_fd);
	for (i = 0; i < n; i++) {
		pthread_join(a->workers[i].tid, NULL);
		close(a->workers[i].cancel_fd);
	}
}

int bl_async_new(struct bl_context *ctx, unsigned int flags,
		 unsigned int threads, struct bl_async **out)
{
	struct bl_async *a;
	unsigned int i;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!ctx || flags & ~BL_ASYNC_THREAD || threads > BL_ASYNC_MAX_THREADS)
		return -EINVAL;
	if (!threads)
		threads = BL_ASYNC_DEFAULT_THREADS;
	a = bl__zalloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->workers = bl__zalloc(threads, sizeof(*a->workers));
	if (!a->workers) {
		bl__free(a);
		return -ENOMEM;
	}
	a->ctx = ctx;
	a->flags = flags;
	a->queue_tail = &a->queue;
	a->ready_tail = &a->ready;
	a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (a->efd < 0) {
		err = -errno;
		goto out_free;
	}
	err = -pthread_mutex_init(&a->lock, NULL);
	if (err)
		goto out_efd;
	err = -pthread_cond_init(&a->work, NULL);
	if (err)
		goto out_lock;
	for (i = 0; i < threads; i++) {
		struct bl_async_worker *w = &a->workers[i];

		w->a = a;
		w->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (w->cancel_fd < 0) {
			err = -errno;
			break;
		}
		err = -pthread_create(&w->tid, NULL, worker_main, w);
		if (err) {
			close(w->cancel_fd);
			break;
		}
	}
	if (err) {
		workers_stop(a, i);
		pthread_cond_destroy(&a->work);
		goto out_lock;
	}
	a->nworkers = threads;
	*out = a;
	return 0;

out_lock:
	pthread_mutex_destroy(&a->lock);
out_efd:
	close(a->efd);
out_free:
	bl__free(a->workers);
	bl__free(a);
	return err;
}

int bl_async_fd(const struct bl_async *a)
{
	return a ? a->efd : -EINVAL;
}

int bl_call_async(struct bl_async *a, uint32_t handle, uint32_t code,
		  struct bl_parcel *request, int timeout_ms, bl_async_fn fn,
		  void *userdata)
{
	struct bl_async_call *c;
	int err = 0;

	if (!a || !fn || (timeout_ms < 0 && timeout_ms != BL_NO_TIMEOUT))
		err = -EINVAL;
	else if (request && request->error)
		err = request->error;
	else if (request && bl_parcel_open_arrays(request))
		err = -EINVAL;
	c = err ? NULL : bl__zalloc(1, sizeof(*c));
	if (!c) {
		/* the request is the library's either way */
		bl_parcel_fini(request);
		return err ? err : -ENOMEM;
	}
	c->handle = handle;
	c->code = code;
	c->timeout_ms = timeout_ms;
	c->fn = fn;
	c->userdata = userdata;
	if (request) {
		c->request = *request;
		bl_parcel_init(request);
	} else {
		bl_parcel_init(&c->request);
	}
	pthread_mutex_lock(&a->lock);
	if (a->stopping) {
		pthread_mutex_unlock(&a->lock);
		bl_parcel_fini(&c->request);
		bl__free(c);
		return -ESHUTDOWN;
	}
	*a->queue_tail = c;
	a->queue_tail = &c->next;
	pthread_cond_signal(&a->work);
	pthread_mutex_unlock(&a->lock);
	return 0;
}

int bl_dispatch(struct bl_async *a)
{
	struct bl_async_call *c, *next;
	uint64_t count;
	int n = 0;

	if (!a)
		return -EINVAL;
	/* reset first: a completion queued after it makes the fd readable again */
	if (read(a->efd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return -errno;
	pthread_mutex_lock(&a->lock);
	c = a->ready;
	a->ready = NULL;
	a->ready_tail = &a->ready;
	pthread_mutex_unlock(&a->lock);
	for (; c; c = next, n++) {
		next = c->next;
		complete(a, c);
	}
	return n;
}

void bl_async_destroy(struct bl_async *a)
{
	struct bl_async_call *c, *next;

	if (!a)
		return;
	workers_stop(a, a->nworkers);
	/* the workers are gone: the lists are ours */
	for (c = a->ready; c; c = next) {
		next = c->next;
		complete(a, c);
	}
	for (c = a->queue; c; c = next) {
		next = c->next;
		c->result = -ECANCELED;
		complete(a, c);
	}
	pthread_cond_destroy(&a->work);
	pthread_mutex_destroy(&a->lock);
	close(a->efd);
	bl__free(a->workers);
	bl__free(a);
}
