// SPDX-License-Identifier: MIT
/*
 * fbregion.c - raw-ABI helpers for the memory-region tests, see fbregion.h.
 */
#include "fbregion.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>

static int fbrg_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int fbrg_create(int fd, const void *addr, __u64 size, __u32 rights, __u32 *handle)
{
	struct fbinder_region_create c = {
		.addr = (__u64)(uintptr_t)addr, .size = size, .rights = rights,
	};
	int ret = fbrg_ioctl(fd, FBINDER_IOC_REGION_CREATE, &c);

	if (!ret && handle)
		*handle = c.handle;
	return ret;
}

int fbrg_narrow(int fd, __u32 handle, __u64 offset, __u64 size, __u32 rights,
	       __u32 *new_handle)
{
	struct fbinder_region_narrow n = {
		.handle = handle, .rights = rights, .offset = offset, .size = size,
	};
	int ret = fbrg_ioctl(fd, FBINDER_IOC_REGION_NARROW, &n);

	if (!ret && new_handle)
		*new_handle = n.new_handle;
	return ret;
}

int fbrg_info(int fd, __u32 handle, __u32 *rights, __u64 *size)
{
	struct fbinder_region_info i = { .handle = handle };
	int ret = fbrg_ioctl(fd, FBINDER_IOC_REGION_INFO, &i);

	if (!ret) {
		if (rights)
			*rights = i.rights;
		if (size)
			*size = i.size;
	}
	return ret;
}

int fbrg_revoke(int fd, __u32 handle)
{
	return fbrg_ioctl(fd, FBINDER_IOC_REGION_REVOKE, &handle);
}

int fbrg_copy_iov(struct fbp *p, bool to_region, __u32 handle, __u64 offset,
		 const struct fbinder_iovec *iov, __u32 n, __u64 *done)
{
	struct fbinder_region_copy c = {
		.handle = handle, .iov_count = n, .offset = offset,
		.iov = (__u64)(uintptr_t)iov, .done = *done,
	};
	struct fbp_w w;
	int ret;

	fbp_w_reset(&w);
	fbp_w_cmd(&w, to_region ? FBINDER_CMD_REGION_WRITE : FBINDER_CMD_REGION_READ,
		  &c, sizeof(c));
	ret = fbp_wr(p, &w, NULL, false);
	/* the driver wrote its count back into the command */
	memcpy(done, w.buf + sizeof(__u32) + offsetof(struct fbinder_region_copy, done),
	       sizeof(*done));
	return ret;
}

int fbrg_copy_once(struct fbp *p, bool to_region, __u32 handle, __u64 offset,
		  void *buf, __u64 len, __u64 *done)
{
	struct fbinder_iovec v = { .base = (__u64)(uintptr_t)buf, .len = len };

	return fbrg_copy_iov(p, to_region, handle, offset, &v, 1, done);
}

int fbrg_copy(struct fbp *p, bool to_region, __u32 handle, __u64 offset,
	     void *buf, __u64 len, __u64 *done)
{
	int ret;

	do
		ret = fbrg_copy_once(p, to_region, handle, offset, buf, len, done);
	while (ret == -EINTR);
	return ret;
}

struct fbrg_relay_state {
	__u32 held;
};

static int fbrg_relay_handle(struct fbp *p, const struct fbp_ret *r, void *arg)
{
	struct fbrg_relay_state *st = arg;
	const struct fbinder_txn_msg *m = &r->msg;
	struct fbinder_object obj = { .type = FBINDER_OBJ_REGION };
	__u64 off = 0;
	__s32 status = 0;
	int ret;

	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	switch (m->code) {
	case FBRG_PUT:
		if (m->offsets_count != 1 || fbp_obj(p, m, 0)->type != FBINDER_OBJ_REGION) {
			status = -EINVAL;
			break;
		}
		if (st->held)
			fbp_release(p, st->held);
		st->held = fbp_obj(p, m, 0)->handle;
		status = fbp_acquire(p, st->held);
		break;
	case FBRG_GET:
		if (!st->held)
			return fbp_reply(p, m, (__u32)-ENOENT, NULL, 0, NULL, 0) ? -1 : 0;
		obj.handle = st->held;
		ret = fbp_reply(p, m, 0, &obj, sizeof(obj), &off, 1);
		/* the object may be dead or the caller gone: not the relay's problem */
		(void)ret;
		return 0;
	case FBRG_DROP:
		if (st->held)
			status = fbp_release(p, st->held);
		st->held = 0;
		break;
	case FBRG_QUIT:
		fbp_reply(p, m, 0, NULL, 0, NULL, 0);
		return 1;
	default:
		status = -EINVAL;
	}
	fbp_reply(p, m, (__u32)status, NULL, 0, NULL, 0);
	return 0;
}

int fbrg_relay(struct fbp *p, void *arg)
{
	struct fbrg_relay_state st = { 0 };

	(void)arg;
	return fbp_serve(p, fbrg_relay_handle, &st) ? 1 : 0;
}

int fbrg_put(struct fbp *p, __u32 handle)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_REGION, .handle = handle };
	__u64 off = 0;
	struct fbp_ret rep;
	int ret;

	ret = fbp_call(p, 0, FBRG_PUT, &obj, sizeof(obj), &off, 1, &rep, NULL, NULL);
	if (ret)
		return ret;
	if (rep.cmd != FBINDER_RET_REPLY)
		return rep.err.error;
	fbp_free(p, rep.msg.data);
	return (__s32)rep.msg.code;
}

int fbrg_get(struct fbp *p, __u32 *handle)
{
	const struct fbinder_object *obj;
	struct fbp_ret rep;
	int ret;

	ret = fbp_call(p, 0, FBRG_GET, NULL, 0, NULL, 0, &rep, NULL, NULL);
	if (ret)
		return ret;
	if (rep.cmd != FBINDER_RET_REPLY)
		return rep.err.error;
	ret = (__s32)rep.msg.code;
	if (!ret) {
		obj = fbp_obj(p, &rep.msg, 0);
		if (obj->type != FBINDER_OBJ_REGION)
			ret = -EPROTO;
		else {
			*handle = obj->handle;
			ret = fbp_acquire(p, *handle);
		}
	}
	fbp_free(p, rep.msg.data);
	return ret;
}

int fbrg_tell(struct fbp *p, __u32 code)
{
	struct fbp_ret rep;
	int ret;

	ret = fbp_call(p, 0, code, NULL, 0, NULL, 0, &rep, NULL, NULL);
	if (ret)
		return ret;
	if (rep.cmd != FBINDER_RET_REPLY)
		return rep.err.error;
	fbp_free(p, rep.msg.data);
	return (__s32)rep.msg.code;
}
