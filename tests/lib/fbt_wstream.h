/* SPDX-License-Identifier: MIT */
/*
 * fbt_wstream.h - the raw ABI's write stream (docs/abi.md): each command is
 * its __u32 code followed by its payload, _IOC_SIZE(code) bytes.
 *
 * The one encoder of raw streams outside the library: the VM tests
 * (fbt_proto.h's fbt_w_*() build on it) and bench/ (its fastbinder and
 * Android binder transports, whose streams have the same shape) both use
 * it.  Header-only, so bench/ links nothing of the tests.
 */
#ifndef FBT_WSTREAM_H
#define FBT_WSTREAM_H

#include <stddef.h>
#include <string.h>

#include <linux/ioctl.h>
#include <linux/types.h>

/* The payload size a command or return code encodes (the uapi's _IOC_SIZE). */
#define FBT_PSIZE(code)	((size_t)_IOC_SIZE(code))

/*
 * Append cmd and n bytes of payload (payload may be NULL when n is 0) at
 * buf + off; returns the offset after them.  The caller has made room.
 * n is not checked against FBT_PSIZE(cmd): tests write malformed streams.
 */
static inline size_t fbt_put_cmd(void *buf, size_t off, __u32 cmd,
				 const void *payload, size_t n)
{
	memcpy((unsigned char *)buf + off, &cmd, sizeof(cmd));
	if (n)
		memcpy((unsigned char *)buf + off + sizeof(cmd), payload, n);
	return off + sizeof(cmd) + n;
}

#endif /* FBT_WSTREAM_H */
