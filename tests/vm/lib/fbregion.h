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

int fbrg_create(int fd, const void *addr, __u64 size, __u32 rights, __u32 *handle);
int fbrg_narrow(int fd, __u32 handle, __u64 offset, __u64 size, __u32 rights,
	       __u32 *new_handle);
int fbrg_info(int fd, __u32 handle, __u32 *rights, __u64 *size);
int fbrg_revoke(int fd, __u32 handle);

/*
 * One FBINDER_CMD_REGION_READ (or _WRITE with to_region) of len bytes at
 * buf from/to offset, going on from *done (the driver's count is written
 * back there): one WRITE_READ, so it may stop with -EINTR.
 */
int fbrg_copy_once(struct fbp *p, bool to_region, __u32 handle, __u64 offset,
		  void *buf, __u64 len, __u64 *done);
/* The same with the caller's iovecs as given. */
int fbrg_copy_iov(struct fbp *p, bool to_region, __u32 handle, __u64 offset,
		 const struct fbinder_iovec *iov, __u32 n, __u64 *done);
/* fbrg_copy_once() called again while it stops with -EINTR. */
int fbrg_copy(struct fbp *p, bool to_region, __u32 handle, __u64 offset,
	     void *buf, __u64 len, __u64 *done);

/* Relay manager codes: PUT the region object in the message, GET it back. */
enum { FBRG_PUT = 1, FBRG_GET, FBRG_DROP, FBRG_QUIT };

/*
 * Body for fbp_spawn_manager_ex(): keeps (acquires) the region of the last
 * FBRG_PUT, replies to FBRG_GET with it as an FBINDER_OBJ_REGION object (an
 * empty reply when it holds none), releases it at FBRG_DROP; exits at FBRG_QUIT.
 */
int fbrg_relay(struct fbp *p, void *arg);
/* Send region handle to the relay (FBRG_PUT).  0 or -errno (send or status). */
int fbrg_put(struct fbp *p, __u32 handle);
/* Fetch the relay's region: *handle is this context's, acquired.  -ENOENT: none. */
int fbrg_get(struct fbp *p, __u32 *handle);
/* A code without payload to the relay (FBRG_DROP, FBRG_QUIT). */
int fbrg_tell(struct fbp *p, __u32 code);

#endif /* FBREGION_H */
