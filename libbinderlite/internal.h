// SPDX-License-Identifier: MIT
/*
 * internal.h - libbinderlite internals shared between its source files.
 * Nothing here is part of the public ABI: libbinderlite.map keeps these
 * symbols out of the shared library (the static library still has them,
 * which is how the host tests reach the allocation hook).
 */
#ifndef BL_INTERNAL_H
#define BL_INTERNAL_H

#include <stddef.h>

#include "binderlite.h"

/*
 * Every allocation of the library goes through bl__realloc() and every
 * release through bl__free().  A test may point bl__realloc_hook at a
 * function that fails on demand to exercise the -ENOMEM paths; NULL means
 * realloc().  Not thread safe: set it only while no other thread uses the
 * library.
 */
extern void *(*bl__realloc_hook)(void *ptr, size_t size);

void *bl__realloc(void *ptr, size_t size);
void bl__free(void *ptr);

#endif /* BL_INTERNAL_H */
