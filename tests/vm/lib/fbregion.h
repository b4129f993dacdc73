/* SPDX-License-Identifier: MIT */
/*
 * fbregion.h - raw-ABI helpers for the memory-region tests (proto_region*.c,
 * attack_region*.c): the region ioctls, the copy commands, and a relay
 * manager that holds one region for others to fetch.
 *
 * Functions return 0 or -errno.
 */
#ifndef FBREGION_H
#define FBREGION_H

#include "fbproto.h"

int fbr_create(int fd, const void *addr, __u64 size, __u32 rights, __u32 *handle);
int fbr_narrow(int fd, __u32 handle, __u64 offset, __u64 size, __u32 rights,
	       __u32 *new_handle);
int fbr_info(int fd, __u32 handle, __u32 *rights, __u64 *size);
int fbr_revoke(int fd, __u32 handle);

/*
 * One FBINDER_CMD_REGION_READ (or _WRITE with to_region) of len bytes at
 * buf from/to offset, going on from *done (the driver's count is written
 * back there): one WRITE_READ, so it may stop with -EINTR.
 */
int fbr_copy_once(struct fbp *p, bool to_region, __u32 handle, __u64 offset,
		  void *buf, __u64 len, __u64 *done);
/* The same with the caller's iovecs as given. */
int fbr_copy_iov(struct fbp *p, bool to_region, __u32 handle, __u64 offset,
		 const struct fbinder_iovec *iov, __u32 n, __u64 *done);
/* fbr_copy_once() called again while it stops with -EINTR. */
int fbr_copy(struct fbp *p, bool to_region, __u32 handle, __u64 offset,
	     void *buf, __u64 len, __u64 *done);

/* Relay manager codes: PUT the region object in the message, GET it back. */
enum { FBR_PUT = 1, FBR_GET, FBR_DROP, FBR_QUIT };

/*
 * Body for fbp_spawn_manager_ex(): keeps (acquires) the region of the last
 * FBR_PUT, replies to FBR_GET with it as an FBINDER_OBJ_REGION object (an
 * empty reply when it holds none), releases it at FBR_DROP; exits at FBR_QUIT.
 */
int fbr_relay(struct fbp *p, void *arg);
/* Send region handle to the relay (FBR_PUT).  0 or -errno (send or status). */
int fbr_put(struct fbp *p, __u32 handle);
/* Fetch the relay's region: *handle is this context's, acquired.  -ENOENT: none. */
int fbr_get(struct fbp *p, __u32 *handle);
/* A code without payload to the relay (FBR_DROP, FBR_QUIT). */
int fbr_tell(struct fbp *p, __u32 code);

#endif /* FBREGION_H */
