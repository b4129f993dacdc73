// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: the slot structs a burst leaves behind, one pool per CPU
 * (spare_pool.c).
 *
 * Each context keeps a few spare slot structs under its own mutex
 * (alloc.c, fbinder_slot_get()).  A burst of queued messages needs one per
 * message, hundreds or thousands, and allocated and freed them through the
 * slab again on every burst, with the memory cgroup's charge of each.
 * What a context's own spares cannot hold waits here, in the pool of the
 * CPU that freed it, for the next burst there (up to FBINDER_POOL_SLOTS a
 * CPU), and the pool's shrinker gives it back under memory pressure.  The
 * pool's local lock is a leaf, taken inside fbinder_alloc.lock.
 */
#include <linux/slab.h>

#include "alloc.h"
#include "internal.h"

#define FBINDER_POOL_SLOTS	FBINDER_MAX_QUEUED

static DEFINE_PER_CPU(struct fbinder_spare_cpu, fbinder_slot_spares_cpu) = {
	.lock = INIT_LOCAL_LOCK(fbinder_slot_pool_lock),
};

static void fbinder_slot_spare_free(struct fbinder_spare *s)
{
	kfree(container_of(s, struct fbinder_buffer, spare));
}

static struct fbinder_spare_pool fbinder_slot_spares = {
	.name = "fastbinder-slots",
	.cap = FBINDER_POOL_SLOTS,
	.free = fbinder_slot_spare_free,
	.cpus = &fbinder_slot_spares_cpu,
};

/* A slot struct from this CPU's pool, not zeroed, or NULL when it is empty. */
struct fbinder_buffer *fbinder_slot_pool_take(void)
{
	struct fbinder_spare *s = fbinder_spare_take(&fbinder_slot_spares);

	return s ? container_of(s, struct fbinder_buffer, spare) : NULL;
}

/* Keeps buf for the next burst; false when this CPU's pool is full. */
bool fbinder_slot_pool_put(struct fbinder_buffer *buf)
{
	return fbinder_spare_put(&fbinder_slot_spares, &buf->spare);
}

unsigned long fbinder_slot_pool_count(void)
{
	return fbinder_spare_count(&fbinder_slot_spares);
}

int fbinder_slot_pool_init(void)
{
	return fbinder_spare_pool_init(&fbinder_slot_spares);
}

/* After every context is gone: nothing else reaches the pool. */
void fbinder_slot_pool_exit(void)
{
	fbinder_spare_pool_exit(&fbinder_slot_spares);
}
