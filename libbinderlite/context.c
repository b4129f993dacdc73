// SPDX-License-Identifier: MIT
/*
 * context.c - opening /dev/fastbinder, the version check, the receive
 * mapping, and closing it all down (binderlite.h section 2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/*
 * The euid the service manager must answer with: root, or FBINDER_MANAGER_UID
 * from the environment (ignored in a set-id or otherwise secure-execution
 * process, and when it is not a plain decimal uid).
 */
static uint32_t default_sm_uid(void)
{
	const char *s = secure_getenv("FBINDER_MANAGER_UID");
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= UINT32_MAX)
		return 0;
	return (uint32_t)v;
}

uint64_t bl__features_needed = BL_FEATURES_NEEDED;
uint64_t bl__features_hidden;

/*
 * The driver's version and features.  A driver from before feature bits
 * knows only the 8-byte command (ENOTTY for the longer one): it has the
 * features of version 4 and serves only its own version.
 */
static int query_version(int fd, struct fbinder_version *ver)
{
	memset(ver, 0, sizeof(*ver));
	if (!ioctl(fd, FBINDER_IOC_VERSION, ver))
		goto out;
	if (errno != ENOTTY)
		return -errno;
	if (ioctl(fd, FBINDER_IOC_VERSION_V4, ver) < 0)
		/* not a fastbinder device at all */
		return errno == ENOTTY ? -EPROTONOSUPPORT : -errno;
	ver->features = ver->abi_version == 4 ? FBINDER_FEATURES_V4 : 0;
out:
	if (!ver->min_abi_version)
		ver->min_abi_version = ver->abi_version;
	return 0;
}

/* Whether the driver serves the ABI the library speaks, with what it uses. */
static int check_version(const struct fbinder_version *ver)
{
	if (ver->min_abi_version > BL_ABI_NEEDED ||
	    ver->abi_version < BL_ABI_NEEDED)
		return -EPROTONOSUPPORT;
	if ((ver->features & bl__features_needed) != bl__features_needed)
		return -ENOPROTOOPT;
	return 0;
}

int bl_context_open(const char *path, size_t map_size, struct bl_context **out)
{
	struct fbinder_version ver = { 0 };
	struct bl_context *ctx;
	long page = sysconf(_SC_PAGESIZE);
	void *map;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!map_size)
		map_size = BL_DEFAULT_MAP_SIZE;
	if (page <= 0 || map_size % (size_t)page)
		return -EINVAL;
	ctx = bl__zalloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->sm_uid = default_sm_uid();
	ctx->fd = open(path ? path : BL_DEFAULT_DEVICE, O_RDWR | O_CLOEXEC);
	if (ctx->fd < 0) {
		err = -errno;
		goto out_free;
	}
	err = query_version(ctx->fd, &ver);
	if (err)
		goto out_close;
	ctx->abi_version = ver.abi_version;
	ctx->features = ver.features & ~bl__features_hidden;
	err = check_version(&ver);
	if (err)
		goto out_close;
	map = mmap(NULL, map_size, PROT_READ, MAP_PRIVATE, ctx->fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	ctx->map = map;
	ctx->map_size = map_size;
	err = pthread_mutex_init(&ctx->lock, NULL);
	if (err) {
		err = -err;
		goto out_unmap;
	}
	err = pthread_cond_init(&ctx->loopers_cond, NULL);
	if (err) {
		pthread_mutex_destroy(&ctx->lock);
		err = -err;
		goto out_unmap;
	}
	*out = ctx;
	return 0;

out_unmap:
	munmap(map, map_size);
out_close:
	close(ctx->fd);
out_free:
	bl__free(ctx);
	return err;
}

void bl_context_close(struct bl_context *ctx)
{
	if (!ctx)
		return;
	bl_context_stop(ctx);
	bl__pool_join(ctx);
	bl__deaths_drop_all(ctx);
	/* unmap and close first: the objects' handlers cannot run any more */
	munmap((void *)ctx->map, ctx->map_size);
	close(ctx->fd);
	bl__objects_drop_all(ctx);
	pthread_cond_destroy(&ctx->loopers_cond);
	pthread_mutex_destroy(&ctx->lock);
	bl__free(ctx);
}

int bl_context_fd(const struct bl_context *ctx)
{
	return ctx ? ctx->fd : -EINVAL;
}

uint32_t bl_context_abi_version(const struct bl_context *ctx)
{
	return ctx ? ctx->abi_version : 0;
}

uint64_t bl_context_features(const struct bl_context *ctx)
{
	return ctx ? ctx->features : 0;
}

int bl_context_become_manager(struct bl_context *ctx, struct bl_object *obj)
{
	struct fbinder_context_mgr mgr = { .cookie = bl__cookie(obj) };

	if (!ctx || !obj || obj->ctx != ctx)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	mgr.flags = obj->obj_flags & (FBINDER_OBJF_ACCEPTS_FDS | FBINDER_OBJF_TXN_SECCTX);
	pthread_mutex_unlock(&ctx->lock);
	/* the driver counts this as one export of the object */
	bl__object_export_one(obj, 1);
	if (ioctl(ctx->fd, FBINDER_IOC_SET_CONTEXT_MGR, &mgr) < 0) {
		int err = -errno;

		bl__object_export_one(obj, -1);
		return err;
	}
	return 0;
}
