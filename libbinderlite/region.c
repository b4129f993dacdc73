// SPDX-License-Identifier: MIT
/*
 * region.c - memory regions: create, narrow, inspect and revoke them, and
 * copy from and into them (binderlite.h section 7).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "internal.h"

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define BL_MEMCHECK 1
#endif

static int region_ioctl(struct bl_context *ctx, unsigned long req, void *arg)
{
	if (!ctx)
		return -EINVAL;
	return ioctl(ctx->fd, req, arg) < 0 ? -errno : 0;
}

int bl_region_create(struct bl_context *ctx, const void *addr, size_t size,
		     uint32_t rights, uint32_t *handle)
{
	struct fbinder_region_create c = {
		.addr = (uintptr_t)addr, .size = size, .rights = rights,
	};
	int ret;

	if (!handle)
		return -EINVAL;
	ret = region_ioctl(ctx, FBINDER_IOC_REGION_CREATE, &c);
	if (!ret)
		*handle = c.handle;
	return ret;
}

int bl_region_narrow(struct bl_context *ctx, uint32_t handle, uint64_t offset,
		     uint64_t size, uint32_t rights, uint32_t *narrowed)
{
	struct fbinder_region_narrow n = {
		.handle = handle, .rights = rights, .offset = offset, .size = size,
	};
	int ret;

	if (!narrowed)
		return -EINVAL;
	ret = region_ioctl(ctx, FBINDER_IOC_REGION_NARROW, &n);
	if (!ret)
		*narrowed = n.new_handle;
	return ret;
}

int bl_region_info(struct bl_context *ctx, uint32_t handle, uint32_t *rights,
		   uint64_t *size)
{
	struct fbinder_region_info i = { .handle = handle };
	int ret = region_ioctl(ctx, FBINDER_IOC_REGION_INFO, &i);

	if (!ret && rights)
		*rights = i.rights;
	if (!ret && size)
		*size = i.size;
	return ret;
}

int bl_region_revoke(struct bl_context *ctx, uint32_t handle)
{
	return region_ioctl(ctx, FBINDER_IOC_REGION_REVOKE, &handle);
}

#ifdef BL_MEMCHECK
static void region_mark_defined(const struct iovec *iov, int iovcnt, uint64_t n)
{
	int i;

	for (i = 0; i < iovcnt && n; i++) {
		size_t len = iov[i].iov_len < n ? iov[i].iov_len : n;

		VALGRIND_MAKE_MEM_DEFINED(iov[i].iov_base, len);
		n -= len;
	}
}
#endif

/*
 * One copy command, called again while the driver stops it with EINTR
 * (a signal, whose handler has run by then, or its bound per command):
 * the driver's count in the command says where to go on.
 */
static int region_copy(struct bl_context *ctx, uint32_t cmd, uint32_t handle,
		       uint64_t offset, const struct iovec *iov, int iovcnt,
		       size_t *done)
{
	struct fbinder_iovec small[8], *v = small;
	struct {
		uint32_t cmd;
		struct fbinder_region_copy c;
	} __attribute__((packed)) w;
	struct fbinder_write_read wr;
	int i, ret = 0;

	if (done)
		*done = 0;
	if (!ctx || iovcnt < 0 || iovcnt > FBINDER_REGION_MAX_IOV || (iovcnt && !iov))
		return -EINVAL;
	if ((size_t)iovcnt > sizeof(small) / sizeof(small[0])) {
		v = calloc((size_t)iovcnt, sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	for (i = 0; i < iovcnt; i++) {
		v[i].base = (uintptr_t)iov[i].iov_base;
		v[i].len = iov[i].iov_len;
	}
	memset(&w, 0, sizeof(w));
	w.cmd = cmd;
	w.c.handle = handle;
	w.c.iov_count = (uint32_t)iovcnt;
	w.c.offset = offset;
	w.c.iov = (uintptr_t)v;
	do {
		memset(&wr, 0, sizeof(wr));
		wr.write_buffer = (uintptr_t)&w;
		wr.write_size = sizeof(w);
		ret = bl__write_read(ctx->fd, &wr) < 0 ? -errno : 0;
	} while (ret == -EINTR);
#ifdef BL_MEMCHECK
	/* memcheck does not know the driver wrote the count and the bytes */
	VALGRIND_MAKE_MEM_DEFINED(&w.c.done, sizeof(w.c.done));
	if (cmd == FBINDER_CMD_REGION_READ)
		region_mark_defined(iov, iovcnt, w.c.done);
#endif
	if (done)
		*done = w.c.done;
	if (v != small)
		free(v);
	return ret;
}

int bl_region_readv(struct bl_context *ctx, uint32_t handle, uint64_t offset,
		    const struct iovec *iov, int iovcnt, size_t *done)
{
	return region_copy(ctx, FBINDER_CMD_REGION_READ, handle, offset, iov,
			   iovcnt, done);
}

int bl_region_writev(struct bl_context *ctx, uint32_t handle, uint64_t offset,
		     const struct iovec *iov, int iovcnt, size_t *done)
{
	return region_copy(ctx, FBINDER_CMD_REGION_WRITE, handle, offset, iov,
			   iovcnt, done);
}

int bl_region_read(struct bl_context *ctx, uint32_t handle, uint64_t offset,
		   void *buf, size_t len)
{
	struct iovec v = { .iov_base = buf, .iov_len = len };

	return region_copy(ctx, FBINDER_CMD_REGION_READ, handle, offset, &v, 1, NULL);
}

int bl_region_write(struct bl_context *ctx, uint32_t handle, uint64_t offset,
		    const void *buf, size_t len)
{
	struct iovec v = { .iov_base = (void *)buf, .iov_len = len };

	return region_copy(ctx, FBINDER_CMD_REGION_WRITE, handle, offset, &v, 1, NULL);
}
