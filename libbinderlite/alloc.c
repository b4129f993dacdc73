// SPDX-License-Identifier: MIT
/*
 * alloc.c - the library's one way to the heap.  Every allocation goes
 * through bl__realloc() and every release through bl__free(), so the test
 * hook bl__realloc_hook (internal.h) can fail any of them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void *(*bl__realloc_hook)(void *ptr, size_t size);

void *bl__realloc(void *ptr, size_t size)
{
	if (bl__realloc_hook)
		return bl__realloc_hook(ptr, size);
	return realloc(ptr, size);
}

void bl__free(void *ptr)
{
	free(ptr);
}

void *bl__zalloc(size_t count, size_t size)
{
	size_t bytes;
	void *p;

	if (size && count > SIZE_MAX / size)
		return NULL;
	bytes = count * size;
	/* never 0 bytes: realloc(NULL, 0) may return NULL */
	p = bl__realloc(NULL, bytes ? bytes : 1);
	if (p)
		memset(p, 0, bytes);
	return p;
}

char *bl__strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = bl__realloc(NULL, n);

	if (p)
		memcpy(p, s, n);
	return p;
}
