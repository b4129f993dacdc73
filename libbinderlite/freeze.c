// SPDX-License-Identifier: MIT
/*
 * freeze.c - freezing and thawing a process's contexts, what the driver
 * knows of a freeze, and whether a oneway message went to a frozen
 * process (binderlite.h, "Freezing a process").
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/ioctl.h>

#include "internal.h"

/* Set by the oneway sends (call.c, gather.c) of this thread. */
_Thread_local bool bl__last_sent_frozen;

static int freeze_ioctl(struct bl_context *ctx, unsigned long req, void *arg)
{
	if (!ctx)
		return -EINVAL;
	if (!(ctx->features & FBINDER_FEATURE_FREEZE))
		return -ENOPROTOOPT;
	return ioctl(ctx->fd, req, arg) < 0 ? -errno : 0;
}

int bl_freeze(struct bl_context *ctx, int pid, unsigned int timeout_ms)
{
	struct fbinder_freeze f = {
		.pid = (uint32_t)pid, .enable = 1, .timeout_ms = timeout_ms,
	};

	if (pid <= 0)
		return -EINVAL;
	return freeze_ioctl(ctx, FBINDER_IOC_FREEZE, &f);
}

int bl_thaw(struct bl_context *ctx, int pid)
{
	struct fbinder_freeze f = { .pid = (uint32_t)pid };

	if (pid <= 0)
		return -EINVAL;
	return freeze_ioctl(ctx, FBINDER_IOC_FREEZE, &f);
}

int bl_frozen_info(struct bl_context *ctx, int pid, uint32_t *flags, uint32_t *queued)
{
	struct fbinder_frozen_info info = { .pid = (uint32_t)pid };
	int ret;

	if (pid <= 0 || !flags)
		return -EINVAL;
	ret = freeze_ioctl(ctx, FBINDER_IOC_FROZEN_INFO, &info);
	if (ret)
		return ret;
	*flags = info.flags;
	if (queued)
		*queued = info.queued;
	return 0;
}

bool bl_sent_frozen(void)
{
	return bl__last_sent_frozen;
}

uint32_t bl__oneway_flags(const struct bl_context *ctx)
{
	/* a driver without it refuses the flag (EINVAL) */
	if (ctx->features & FBINDER_FEATURE_FREEZE)
		return FBINDER_TXN_ONEWAY | FBINDER_TXN_FROZEN_REPORT;
	return FBINDER_TXN_ONEWAY;
}

int bl__oneway_result(int wr_ret)
{
	if (wr_ret < 0)
		return -errno;
	if (wr_ret == FBINDER_WR_FROZEN)
		bl__last_sent_frozen = true;
	return 0;
}
