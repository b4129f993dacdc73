// SPDX-License-Identifier: MIT
/*
 * fbt_region.c - raw-ABI helpers for the memory-region tests, see fbt_region.h.
 */
#include "fbt_region.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>

static int fbt_region_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int fbt_region_create(int fd, const void *addr, __u64 size, __u32 rights, __u32 *handle)
{
	struct fbinder_region_create c = {
		.addr = (__u64)(uintptr_t)addr, .size = size, .rights = rights,
	};
	int ret = fbt_region_ioctl(fd, FBINDER_IOC_REGION_CREATE, &c);

	if (!ret && handle)
		*handle = c.handle;
	return ret;
}

int fbt_region_narrow(int fd, __u32 handle, __u64 offset, __u64 size, __u32 rights,
	       __u32 *new_handle)
{
	struct fbinder_region_narrow n = {
		.handle = handle, .rights = rights, .offset = offset, .size = size,
	};
	int ret = fbt_region_ioctl(fd, FBINDER_IOC_REGION_NARROW, &n);

	if (!ret && new_handle)
		*new_handle = n.new_handle;
	return ret;
}

int fbt_region_info(int fd, __u32 handle, __u32 *rights, __u64 *size)
{
	struct fbinder_region_info i = { .handle = handle };
	int ret = fbt_region_ioctl(fd, FBINDER_IOC_REGION_INFO, &i);

	if (!ret) {
		if (rights)
			*rights = i.rights;
		if (size)
			*size = i.size;
	}
	return ret;
}

int fbt_region_revoke(int fd, __u32 handle)
{
	return fbt_region_ioctl(fd, FBINDER_IOC_REGION_REVOKE, &handle);
}

int fbt_region_copy_iov(struct fbt_ctx *p, bool to_region, __u32 handle, __u64 offset,
		 const struct fbinder_iovec *iov, __u32 n, __u64 *done)
{
	struct fbinder_region_copy c = {
		.handle = handle, .iov_count = n, .offset = offset,
		.iov = (__u64)(uintptr_t)iov, .done = *done,
	};
	struct fbt_w w;
	int ret;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, to_region ? FBINDER_CMD_REGION_WRITE : FBINDER_CMD_REGION_READ,
		  &c, sizeof(c));
	ret = fbt_wr(p, &w, NULL, false);
	/* the driver wrote its count back into the command */
	memcpy(done, w.buf + sizeof(__u32) + offsetof(struct fbinder_region_copy, done),
	       sizeof(*done));
	return ret;
}

int fbt_region_copy_once(struct fbt_ctx *p, bool to_region, __u32 handle, __u64 offset,
		  void *buf, __u64 len, __u64 *done)
{
	struct fbinder_iovec v = { .base = (__u64)(uintptr_t)buf, .len = len };

	return fbt_region_copy_iov(p, to_region, handle, offset, &v, 1, done);
}

int fbt_region_copy(struct fbt_ctx *p, bool to_region, __u32 handle, __u64 offset,
	     void *buf, __u64 len, __u64 *done)
{
	int ret;

	do
		ret = fbt_region_copy_once(p, to_region, handle, offset, buf, len, done);
	while (ret == -EINTR);
	return ret;
}

struct fbt_region_relay_state {
	__u32 held;
};

static int fbt_region_relay_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct fbt_region_relay_state *st = arg;
	const struct fbinder_txn_msg *m = &r->msg;
	struct fbinder_object obj = { .type = FBINDER_OBJ_REGION };
	__u64 off = 0;
	__s32 status = 0;
	int ret;

	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	switch (m->code) {
	case FBT_REGION_PUT:
		if (m->offsets_count != 1 || fbt_obj(p, m, 0)->type != FBINDER_OBJ_REGION) {
			status = -EINVAL;
			break;
		}
		if (st->held)
			fbt_release(p, st->held);
		st->held = fbt_obj(p, m, 0)->handle;
		status = fbt_acquire(p, st->held);
		break;
	case FBT_REGION_GET:
		if (!st->held)
			return fbt_reply(p, m, (__u32)-ENOENT, NULL, 0, NULL, 0) ? -1 : 0;
		obj.handle = st->held;
		ret = fbt_reply(p, m, 0, &obj, sizeof(obj), &off, 1);
		/* the object may be dead or the caller gone: not the relay's problem */
		(void)ret;
		return 0;
	case FBT_REGION_DROP:
		if (st->held)
			status = fbt_release(p, st->held);
		st->held = 0;
		break;
	case FBT_REGION_QUIT:
		fbt_reply(p, m, 0, NULL, 0, NULL, 0);
		return 1;
	default:
		status = -EINVAL;
	}
	fbt_reply(p, m, (__u32)status, NULL, 0, NULL, 0);
	return 0;
}

int fbt_region_relay(struct fbt_ctx *p, void *arg)
{
	struct fbt_region_relay_state st = { 0 };

	(void)arg;
	return fbt_serve(p, fbt_region_relay_handle, &st) ? 1 : 0;
}

int fbt_region_put(struct fbt_ctx *p, __u32 handle)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_REGION, .handle = handle };
	__u64 off = 0;
	struct fbt_ret rep;
	int ret;

	ret = fbt_call(p, 0, FBT_REGION_PUT, &obj, sizeof(obj), &off, 1, &rep, NULL, NULL);
	if (ret)
		return ret;
	if (rep.cmd != FBINDER_RET_REPLY)
		return rep.err.error;
	fbt_free_buffer(p, rep.msg.data);
	return (__s32)rep.msg.code;
}

int fbt_region_get(struct fbt_ctx *p, __u32 *handle)
{
	const struct fbinder_object *obj;
	struct fbt_ret rep;
	int ret;

	ret = fbt_call(p, 0, FBT_REGION_GET, NULL, 0, NULL, 0, &rep, NULL, NULL);
	if (ret)
		return ret;
	if (rep.cmd != FBINDER_RET_REPLY)
		return rep.err.error;
	ret = (__s32)rep.msg.code;
	if (!ret) {
		obj = fbt_obj(p, &rep.msg, 0);
		if (obj->type != FBINDER_OBJ_REGION)
			ret = -EPROTO;
		else {
			*handle = obj->handle;
			ret = fbt_acquire(p, *handle);
		}
	}
	fbt_free_buffer(p, rep.msg.data);
	return ret;
}

int fbt_region_tell(struct fbt_ctx *p, __u32 code)
{
	struct fbt_ret rep;
	int ret;

	ret = fbt_call(p, 0, code, NULL, 0, NULL, 0, &rep, NULL, NULL);
	if (ret)
		return ret;
	if (rep.cmd != FBINDER_RET_REPLY)
		return rep.err.error;
	fbt_free_buffer(p, rep.msg.data);
	return (__s32)rep.msg.code;
}
