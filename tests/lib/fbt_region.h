/* SPDX-License-Identifier: MIT */
/*
 * fbt_region.h - raw-ABI helpers for the memory-region tests
 * (driver/region_*.c, stress/attack_region_revoke.c, stress/killstorm.c):
 * the region ioctls, the copy commands, and a relay manager that holds one
 * region for others to fetch.
 *
 * Functions return 0 or -errno.
 */
#ifndef FBT_REGION_H
#define FBT_REGION_H

#include "fbt_proto.h"

int fbt_region_create(int fd, const void *addr, __u64 size, __u32 rights, __u32 *handle);
int fbt_region_narrow(int fd, __u32 handle, __u64 offset, __u64 size, __u32 rights,
	       __u32 *new_handle);
int fbt_region_info(int fd, __u32 handle, __u32 *rights, __u64 *size);
int fbt_region_revoke(int fd, __u32 handle);

/*
 * One FBINDER_CMD_REGION_READ (or _WRITE with to_region) of len bytes at
 * buf from/to offset, going on from *done (the driver's count is written
 * back there): one WRITE_READ, so it may stop with -EINTR.
 */
int fbt_region_copy_once(struct fbt_ctx *p, bool to_region, __u32 handle, __u64 offset,
		  void *buf, __u64 len, __u64 *done);
/* The same with the caller's iovecs as given. */
int fbt_region_copy_iov(struct fbt_ctx *p, bool to_region, __u32 handle, __u64 offset,
		 const struct fbinder_iovec *iov, __u32 n, __u64 *done);
/* fbt_region_copy_once() called again while it stops with -EINTR. */
int fbt_region_copy(struct fbt_ctx *p, bool to_region, __u32 handle, __u64 offset,
	     void *buf, __u64 len, __u64 *done);

/* Relay manager codes: PUT the region object in the message, GET it back. */
enum { FBT_REGION_PUT = 1, FBT_REGION_GET, FBT_REGION_DROP, FBT_REGION_QUIT };

/*
 * Body for fbt_spawn_manager_ex(): keeps (acquires) the region of the last
 * FBT_REGION_PUT, replies to FBT_REGION_GET with it as an FBINDER_OBJ_REGION object (an
 * empty reply when it holds none), releases it at FBT_REGION_DROP; exits at FBT_REGION_QUIT.
 */
int fbt_region_relay(struct fbt_ctx *p, void *arg);
/* Send region handle to the relay (FBT_REGION_PUT).  0 or -errno (send or status). */
int fbt_region_put(struct fbt_ctx *p, __u32 handle);
/* Fetch the relay's region: *handle is this context's, acquired.  -ENOENT: none. */
int fbt_region_get(struct fbt_ctx *p, __u32 *handle);
/* A code without payload to the relay (FBT_REGION_DROP, FBT_REGION_QUIT). */
int fbt_region_tell(struct fbt_ctx *p, __u32 code);

#endif /* FBT_REGION_H */
