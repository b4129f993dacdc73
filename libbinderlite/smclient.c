// SPDX-License-Identifier: MIT
/*
 * smclient.c - the service manager client (binderlite.h section 7): calls
 * to handle 0 in the protocol of docs/servicemanager.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static bool name_ok(const char *name)
{
	/* one byte over the maximum is enough to refuse a long one */
	return name && bl_sm_name_valid(name, strnlen(name, BL_SM_NAME_MAX + 1));
}

int bl_sm_set_manager_uid(struct bl_context *ctx, uint32_t uid)
{
	if (!ctx || uid == UINT32_MAX)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	ctx->sm_uid = uid;
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

/*
 * What a call to the manager came to, in two parts the library never folds
 * together internally, as sd-bus keeps a method's error (sd_bus_error)
 * apart from the failure of the call itself:
 *   err     the call: 0, or a negative errno of the library or the driver
 *           (-ENOENT: no manager at handle 0, -EOWNERDEAD: it died during
 *           the call), or -EACCES: the reply is not the manager's (another
 *           euid than the expected one), and nothing in it is used;
 *   status  when err is 0, the manager's answer: 0, or the negative errno
 *           it chose (-ENOENT: no such name, -EEXIST, -EPERM, ...).
 * sm_errno() makes the one return value of the public functions.
 */
struct sm_result {
	int err;
	int32_t status;
};

/* No manager runs (yet), or it died during the call. */
static bool sm_no_manager(const struct sm_result *res)
{
	return res->err == -ENOENT || res->err == -EOWNERDEAD;
}

/*
 * The public errno: the driver's "no manager" becomes -EHOSTDOWN, so that
 * -ENOENT keeps meaning "no such name", which only the manager says; a
 * positive status, which the protocol does not define, is -EPROTO.
 */
static int sm_errno(const struct sm_result *res)
{
	if (sm_no_manager(res))
		return -EHOSTDOWN;
	if (res->err)
		return res->err;
	return res->status > 0 ? -EPROTO : res->status;
}

/*
 * A call to the manager; *res says what it came to, the return value is
 * sm_errno(res).  reply holds a buffer only when both parts are 0.  The
 * manager's replies never carry descriptors.
 */
static int sm_call(struct bl_context *ctx, uint32_t code,
		   const struct bl_parcel *req, struct bl_reply *reply,
		   struct sm_result *res)
{
	uint32_t euid, want;

	res->status = 0;
	res->err = bl__call(ctx, FBINDER_CONTEXT_MGR_HANDLE, code, 0, req, reply,
			    BL_NO_TIMEOUT, &euid);
	if (res->err)
		return sm_errno(res);
	pthread_mutex_lock(&ctx->lock);
	want = ctx->sm_uid;
	pthread_mutex_unlock(&ctx->lock);
	if (euid != want) {
		bl_reply_fini(reply);
		res->err = -EACCES;
		return sm_errno(res);
	}
	res->status = reply->status;
	if (res->status)
		bl_reply_fini(reply);
	return sm_errno(res);
}

int bl_sm_add(struct bl_context *ctx, const char *name, struct bl_object *obj)
{
	struct bl_parcel req = BL_PARCEL_INIT;
	struct sm_result res;
	struct bl_reply reply;
	int ret;

	if (!ctx || !obj || !name_ok(name))
		return -EINVAL;
	ret = bl_parcel_write_string(&req, name);
	if (!ret)
		ret = bl_parcel_write_obj(&req, obj);
	if (!ret)
		ret = sm_call(ctx, BL_SM_ADD, &req, &reply, &res);
	if (!ret)
		bl_reply_fini(&reply);
	bl_parcel_fini(&req);
	return ret;
}

/*
 * bl_sm_check(), and in *res what the call came to ({0, 0} when it was
 * not made, or failed after the manager's answer).
 */
static int sm_check(struct bl_context *ctx, const char *name,
		    uint32_t *handle, struct sm_result *res)
{
	struct bl_parcel req = BL_PARCEL_INIT;
	struct fbinder_object obj;
	struct bl_reply reply;
	int ret;

	res->err = 0;
	res->status = 0;
	if (!ctx || !handle || !name_ok(name))
		return -EINVAL;
	ret = bl_parcel_write_string(&req, name);
	if (!ret)
		ret = sm_call(ctx, BL_SM_CHECK, &req, &reply, res);
	bl_parcel_fini(&req);
	if (ret)
		return ret;
	ret = bl_reader_read_object(&reply.reader, &obj);
	if (!ret && obj.type == FBINDER_OBJ_LOCAL)
		ret = -ENXIO;
	if (!ret) {
		/* keep it past the reply's buffer */
		ret = bl_handle_acquire(ctx, obj.handle);
		if (!ret)
			*handle = obj.handle;
	}
	bl_reply_fini(&reply);
	return ret;
}

int bl_sm_check(struct bl_context *ctx, const char *name, uint32_t *handle)
{
	struct sm_result res;

	return sm_check(ctx, name, handle, &res);
}

/* ---- watches (service notifications) ------------------------------------- */

struct bl_sm_watch {
	struct bl_context *ctx;
	struct bl_object *obj;		/* the callback the manager holds */
	bl_sm_watch_fn fn;
	void *userdata;
	pthread_cond_t idle;		/* running dropped to 0 */
	/* under ctx->lock: */
	bool cancelled;
	unsigned int running;		/* fn calls now */
	char name[BL_SM_NAME_MAX + 1];
};

/* The callback object's handler: a notice of the manager, oneway. */
static int32_t watch_handler(struct bl_object *obj, uint32_t code,
			     struct bl_reader *request,
			     /* cppcheck-suppress constParameter ; a bl_handler_fn */
			     struct bl_parcel *reply,
			     const struct bl_call_info *info)
{
	struct bl_sm_watch *w = bl_object_userdata(obj);
	struct bl_context *ctx = w->ctx;
	struct fbinder_object svc = { .handle = 0 };
	const char *name;
	size_t len;
	bool go;
	int ret;

	if (reply)
		return -EOPNOTSUPP;	/* notices are oneway */
	if (code != BL_SM_EVENT_ADDED && code != BL_SM_EVENT_DIED)
		return 0;
	ret = bl_reader_read_string(request, &name, &len);
	if (!ret && code == BL_SM_EVENT_ADDED) {
		ret = bl_reader_read_object(request, &svc);
		if (!ret && svc.type != FBINDER_OBJ_HANDLE)
			ret = -EBADMSG;
	}
	if (ret || strcmp(name, w->name))
		return 0;
	pthread_mutex_lock(&ctx->lock);
	/* only the manager's word counts: anyone may learn our object */
	go = !w->cancelled && info->sender_euid == ctx->sm_uid;
	if (go)
		w->running++;
	pthread_mutex_unlock(&ctx->lock);
	if (!go)
		return 0;
	w->fn(ctx, w->name, code, svc.handle, w->userdata);
	pthread_mutex_lock(&ctx->lock);
	if (!--w->running)
		pthread_cond_broadcast(&w->idle);
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

/* The object went (the manager let go of it): the watch with it. */
static void watch_destroy(struct bl_object *obj)
{
	struct bl_sm_watch *w = bl_object_userdata(obj);

	pthread_cond_destroy(&w->idle);
	bl__free(w);
}

/* BL_SM_WATCH or BL_SM_UNWATCH of w's name and object. */
static int watch_call(struct bl_sm_watch *w, uint32_t code)
{
	struct bl_parcel req = BL_PARCEL_INIT;
	struct sm_result res;
	struct bl_reply reply;
	int ret;

	ret = bl_parcel_write_string(&req, w->name);
	if (!ret)
		ret = bl_parcel_write_obj(&req, w->obj);
	if (!ret)
		ret = sm_call(w->ctx, code, &req, &reply, &res);
	if (!ret)
		bl_reply_fini(&reply);
	bl_parcel_fini(&req);
	return ret;
}

int bl_sm_watch(struct bl_context *ctx, const char *name, bl_sm_watch_fn fn,
		void *userdata, struct bl_sm_watch **out)
{
	struct bl_sm_watch *w;
	int ret;

	if (!ctx || !fn || !out || !name_ok(name))
		return -EINVAL;
	w = bl__zalloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->ctx = ctx;
	w->fn = fn;
	w->userdata = userdata;
	strcpy(w->name, name);
	if (pthread_cond_init(&w->idle, NULL)) {
		bl__free(w);
		return -ENOMEM;
	}
	ret = bl_object_new(ctx, watch_handler, watch_destroy, w, &w->obj);
	if (ret) {
		pthread_cond_destroy(&w->idle);
		bl__free(w);
		return ret;
	}
	ret = watch_call(w, BL_SM_WATCH);
	if (ret) {
		/* the manager did not keep it: destroyed now, or on release */
		bl_object_unref(w->obj);
		return ret;
	}
	*out = w;
	return 0;
}

int bl_sm_unwatch(struct bl_sm_watch *w)
{
	struct bl_context *ctx;
	int ret;

	if (!w)
		return 0;
	ctx = w->ctx;
	pthread_mutex_lock(&ctx->lock);
	w->cancelled = true;
	while (w->running)
		pthread_cond_wait(&w->idle, &ctx->lock);
	pthread_mutex_unlock(&ctx->lock);
	ret = watch_call(w, BL_SM_UNWATCH);
	/* freed when the manager's handle goes too (watch_destroy()) */
	bl_object_unref(w->obj);
	return ret;
}

int bl_sm_stats(struct bl_context *ctx, struct bl_sm_stats *out)
{
	struct sm_result res;
	struct bl_reply reply;
	int ret;

	if (!ctx || !out)
		return -EINVAL;
	ret = sm_call(ctx, BL_SM_STATS, NULL, &reply, &res);
	if (ret)
		return ret;
	ret = bl_reader_read_u32(&reply.reader, &out->names);
	if (!ret)
		ret = bl_reader_read_u32(&reply.reader, &out->watches);
	if (!ret)
		ret = bl_reader_read_u64(&reply.reader, &out->requests);
	if (!ret)
		ret = bl_reader_read_u64(&reply.reader, &out->notices);
	if (!ret)
		ret = bl_reader_read_u64(&reply.reader, &out->notices_lost);
	bl_reply_fini(&reply);
	return ret;
}

/* ---- bl_sm_get(): waiting for a name --------------------------------------- */

/*
 * What a waiting bl_sm_get() learns from its watch and from its link to
 * the manager's death.  On the heap with two references: the waiter's and
 * the death link's, whose fn may still run after bl_unlink_death().
 */
struct sm_waiter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int refs;
	unsigned int added;		/* ADDED notices */
	bool manager_died;
};

static void waiter_put(struct sm_waiter *wt)
{
	bool last;

	pthread_mutex_lock(&wt->lock);
	last = !--wt->refs;
	pthread_mutex_unlock(&wt->lock);
	if (!last)
		return;
	pthread_cond_destroy(&wt->cond);
	pthread_mutex_destroy(&wt->lock);
	bl__free(wt);
}

static void waiter_notice(struct bl_context *ctx, const char *name,
			  uint32_t event, uint32_t handle, void *userdata)
{
	struct sm_waiter *wt = userdata;

	(void)ctx;
	(void)name;
	(void)handle;
	if (event != BL_SM_EVENT_ADDED)
		return;
	pthread_mutex_lock(&wt->lock);
	wt->added++;
	pthread_cond_broadcast(&wt->cond);
	pthread_mutex_unlock(&wt->lock);
}

static void waiter_manager_died(struct bl_context *ctx, uint32_t handle,
				void *userdata)
{
	struct sm_waiter *wt = userdata;

	(void)ctx;
	(void)handle;
	pthread_mutex_lock(&wt->lock);
	wt->manager_died = true;
	pthread_cond_broadcast(&wt->cond);
	pthread_mutex_unlock(&wt->lock);
	waiter_put(wt);
}

/* Milliseconds left of timeout_ms since start (BL_NO_TIMEOUT: forever). */
static int ms_left(const struct timespec *start, int timeout_ms)
{
	struct timespec now;
	int64_t elapsed;

	if (timeout_ms == BL_NO_TIMEOUT)
		return BL_NO_TIMEOUT;
	clock_gettime(CLOCK_MONOTONIC, &now);
	elapsed = bl__ms_between(start, &now);
	return elapsed >= timeout_ms ? 0 : (int)(timeout_ms - elapsed);
}

/*
 * Waits until the waiter learned something or left ms passed.  The
 * notices come on a looper: another thread's, or this thread's own when
 * none runs (or it is one, in a handler); then in slices of 50 ms while
 * other loopers run too, as one of them may take the notice.
 */
static void waiter_wait(struct bl_context *ctx, struct sm_waiter *wt,
			unsigned int seen, int left)
{
	bool here = bl__looping_here(ctx) || !bl__looper_runs(ctx);
	bool others = bl__looper_runs(ctx);
	struct timespec until;

	if (here) {
		int slice = left;

		if (others && (slice == BL_NO_TIMEOUT || slice > 50))
			slice = 50;
		pthread_mutex_lock(&wt->lock);
		if (wt->added == seen && !wt->manager_died) {
			pthread_mutex_unlock(&wt->lock);
			bl_loop_once(ctx, slice);
			return;
		}
		pthread_mutex_unlock(&wt->lock);
		return;
	}
	if (left != BL_NO_TIMEOUT) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += left / 1000;
		until.tv_nsec += (long)(left % 1000) * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
	}
	pthread_mutex_lock(&wt->lock);
	while (wt->added == seen && !wt->manager_died) {
		if (left == BL_NO_TIMEOUT)
			pthread_cond_wait(&wt->cond, &wt->lock);
		else if (pthread_cond_timedwait(&wt->cond, &wt->lock, &until))
			break;
	}
	pthread_mutex_unlock(&wt->lock);
}

/*
 * Waits for name with a watch, while the manager that answered runs.
 * Returns 0 with *handle, a final error, -EAGAIN: the manager died, or 1:
 * it cannot watch (-EOPNOTSUPP, -EDQUOT, -ENOSPC).
 */
static int get_watched(struct bl_context *ctx, const char *name,
		       const struct timespec *start, int timeout_ms,
		       uint32_t *handle)
{
	struct sm_waiter *wt = bl__zalloc(1, sizeof(*wt));
	struct bl_sm_watch *watch = NULL;
	struct bl_death *death = NULL;
	unsigned int seen = 0;
	int ret, left;

	if (!wt)
		return -ENOMEM;
	pthread_mutex_init(&wt->lock, NULL);
	pthread_cond_init(&wt->cond, NULL);
	wt->refs = 2;
	if (bl_link_death(ctx, FBINDER_CONTEXT_MGR_HANDLE, waiter_manager_died, wt,
			  &death))
		wt->refs = 1;	/* no link: a manager's death ends the timeout */
	ret = bl_sm_watch(ctx, name, waiter_notice, wt, &watch);
	if (ret == -EOPNOTSUPP || ret == -EDQUOT || ret == -ENOSPC)
		ret = 1;
	else if (ret == -EHOSTDOWN)
		ret = -EAGAIN;
	/* the name may have come before the watch: then ADDED comes at once */
	while (!ret) {
		struct sm_result res;
		bool died;

		pthread_mutex_lock(&wt->lock);
		died = wt->manager_died;
		if (wt->added != seen) {
			seen = wt->added;
			pthread_mutex_unlock(&wt->lock);
			ret = sm_check(ctx, name, handle, &res);
			/* gone again before we asked: wait on */
			if (ret == -ENOENT)
				ret = 0;
			else if (sm_no_manager(&res))
				ret = -EAGAIN;
			else if (!ret)
				break;
			continue;
		}
		pthread_mutex_unlock(&wt->lock);
		if (died) {
			ret = -EAGAIN;
			break;
		}
		left = ms_left(start, timeout_ms);
		if (!left) {
			ret = -ETIMEDOUT;
			break;
		}
		waiter_wait(ctx, wt, seen, left);
	}
	if (watch)
		bl_sm_unwatch(watch);
	if (death && !bl_unlink_death(death))
		waiter_put(wt);	/* the link's reference: its fn never runs */
	waiter_put(wt);
	return ret;
}

int bl_sm_get(struct bl_context *ctx, const char *name, int timeout_ms,
	      uint32_t *handle)
{
	struct timespec start;
	long pause_ms = 1;
	bool watch = true;

	if (timeout_ms < 0 && timeout_ms != BL_NO_TIMEOUT)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &start);
	/*
	 * A name the manager does not know is waited for with a watch: the
	 * manager's notice, no asking again.  Asking again, with a back-off up
	 * to 50 ms, is only for while no manager runs (it cannot notify), and
	 * for one that cannot watch (older, or its bounds reached).
	 */
	for (;;) {
		struct sm_result res;
		struct timespec ts;
		int ret = sm_check(ctx, name, handle, &res), left;

		/* again only while no manager runs, or it knows no such name */
		if (!ret || !(sm_no_manager(&res) ||
			      (!res.err && res.status == -ENOENT)))
			return ret;
		left = ms_left(&start, timeout_ms);
		if (!left)
			return -ETIMEDOUT;
		if (watch && !sm_no_manager(&res)) {
			ret = get_watched(ctx, name, &start, timeout_ms, handle);
			if (ret == 1)
				watch = false;	/* keep asking this one */
			else if (ret != -EAGAIN)
				return ret;
			continue;
		}
		if (left != BL_NO_TIMEOUT && pause_ms > left)
			pause_ms = left;
		ts.tv_sec = pause_ms / 1000;
		ts.tv_nsec = (pause_ms % 1000) * 1000000;
		nanosleep(&ts, NULL);
		if (pause_ms < 50)
			pause_ms *= 2;
	}
}

void bl_sm_list_free(char **names, size_t count)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < count; i++)
		bl__free(names[i]);
	bl__free(names);
}

int bl_sm_list(struct bl_context *ctx, char ***names, size_t *count)
{
	struct sm_result res;
	struct bl_reply reply;
	uint32_t n, i;
	char **v = NULL;
	int ret;

	if (!ctx || !names || !count)
		return -EINVAL;
	*names = NULL;
	*count = 0;
	ret = sm_call(ctx, BL_SM_LIST, NULL, &reply, &res);
	if (ret)
		return ret;
	ret = bl_reader_read_u32(&reply.reader, &n);
	/* a hostile count cannot make us allocate more than the message */
	if (!ret && n > bl_reader_remaining(&reply.reader) / 8)
		ret = -EBADMSG;
	if (!ret) {
		v = bl__zalloc(n, sizeof(*v));
		if (!v)
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < n; i++) {
		const char *s;

		ret = bl_reader_read_string(&reply.reader, &s, NULL);
		if (!ret) {
			v[i] = bl__strdup(s);
			if (!v[i])
				ret = -ENOMEM;
		}
	}
	bl_reply_fini(&reply);
	if (ret) {
		bl_sm_list_free(v, n);
		return ret;
	}
	*names = v;
	*count = n;
	return 0;
}
