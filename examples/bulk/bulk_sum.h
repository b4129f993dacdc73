/* SPDX-License-Identifier: MIT */
/*
 * bulk_sum.h - the checksum bulk-service and bulk-client both compute of
 * the buffer (the interface itself is bulk.fbidl).
 */
#ifndef EXAMPLE_BULK_SUM_H
#define EXAMPLE_BULK_SUM_H

#include <stddef.h>
#include <stdint.h>

/*
 * A checksum both sides compute: 64-bit words (and the tail bytes)
 * mixed by position, so a byte moved or lost changes it.
 */
static inline uint64_t bulk_sum(const void *buf, size_t n)
{
	const unsigned char *p = buf;
	uint64_t h = 0x9e3779b97f4a7c15ULL, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		__builtin_memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL + i;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

#endif
