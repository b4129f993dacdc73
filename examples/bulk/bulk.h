/* SPDX-License-Identifier: MIT */
/*
 * bulk.h - the bulk interface, shared by bulk-service and bulk-client: a
 * large buffer handed over by memory region instead of in messages.
 */
#ifndef EXAMPLE_BULK_H
#define EXAMPLE_BULK_H

#include <stddef.h>
#include <stdint.h>

#define BULK_SERVICE_NAME	"bulk"
#define BULK_DEFAULT_MIB	256

/*
 * request: nothing  ->  reply: region (read only), u64 size, u64 checksum
 * of the buffer's bytes (bulk_sum()).
 */
#define BULK_METHOD_GET		1
/* request: u64 checksum the client computed  ->  reply: nothing; status 0 if it matches */
#define BULK_METHOD_CONFIRM	2

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
