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

int bl_sm_get(struct bl_context *ctx, const char *name, int timeout_ms,
	      uint32_t *handle)
{
	struct timespec start, now;
	long pause_ms = 1;

	if (timeout_ms < 0 && timeout_ms != BL_NO_TIMEOUT)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &start);
	/*
	 * The manager answers at once (its handler must never block), so
	 * waiting is asking again, backing off up to 50 ms between tries; for
	 * the manager too, when none runs yet.
	 */
	for (;;) {
		struct sm_result res;
		struct timespec ts;
		int64_t elapsed;
		int ret = sm_check(ctx, name, handle, &res);

		/* again only while no manager runs, or it knows no such name */
		if (!ret || !(sm_no_manager(&res) ||
			      (!res.err && res.status == -ENOENT)))
			return ret;
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed = bl__ms_between(&start, &now);
		if (timeout_ms != BL_NO_TIMEOUT) {
			if (elapsed >= timeout_ms)
				return -ETIMEDOUT;
			if (pause_ms > timeout_ms - elapsed)
				pause_ms = timeout_ms - elapsed;
		}
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
