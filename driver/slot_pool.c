// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: the slot structs a burst leaves behind.
 *
 * Each context keeps a few spare slot structs under its own mutex
 * (alloc.c, fbinder_slot_get()).  A burst of queued messages needs one per
 * message, hundreds or thousands, and allocated and freed them through the
 * slab again on every burst, with the memory cgroup's charge of each.
 * What a context's own spares cannot hold waits here, in one module-wide
 * pool, for the next burst anywhere (up to FBINDER_POOL_SLOTS), and the
 * pool's shrinker gives it back under memory pressure.  Both are stacks,
 * singly linked through next_spare: a take or a put is two stores, with
 * no list_head neighbours to rewrite and check (CONFIG_DEBUG_LIST).
 * fbinder_slot_pool_lock is a leaf: taken inside fbinder_alloc.lock, and
 * alone by the shrinker.
 */
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "compat.h"
#include "alloc.h"
#include "internal.h"

#define FBINDER_POOL_SLOTS	FBINDER_MAX_QUEUED

static struct fbinder_buffer *fbinder_slot_pool;	/* by next_spare, under the lock */
static DEFINE_SPINLOCK(fbinder_slot_pool_lock);
static unsigned long fbinder_slot_pool_len;	/* under the lock */
static struct shrinker *fbinder_slot_shrinker;

/* A slot struct from the pool, not zeroed, or NULL when it is empty. */
struct fbinder_buffer *fbinder_slot_pool_take(void)
{
	struct fbinder_buffer *buf;

	spin_lock(&fbinder_slot_pool_lock);
	buf = fbinder_slot_pool;
	if (buf) {
		fbinder_slot_pool = buf->next_spare;
		fbinder_slot_pool_len--;
	}
	spin_unlock(&fbinder_slot_pool_lock);
	return buf;
}

/* Keeps buf for the next burst; false when the pool is full. */
bool fbinder_slot_pool_put(struct fbinder_buffer *buf)
{
	bool kept = false;

	spin_lock(&fbinder_slot_pool_lock);
	if (fbinder_slot_pool_len < FBINDER_POOL_SLOTS) {
		buf->next_spare = fbinder_slot_pool;
		fbinder_slot_pool = buf;
		fbinder_slot_pool_len++;
		kept = true;
	}
	spin_unlock(&fbinder_slot_pool_lock);
	return kept;
}

unsigned long fbinder_slot_pool_count(void)
{
	return READ_ONCE(fbinder_slot_pool_len);
}

/* Frees up to nr of the pool's structs; returns how many. */
static unsigned long fbinder_slot_pool_free(unsigned long nr)
{
	struct fbinder_buffer *buf, *victims = NULL;
	unsigned long n = 0;

	spin_lock(&fbinder_slot_pool_lock);
	while (n < nr && fbinder_slot_pool) {
		buf = fbinder_slot_pool;
		fbinder_slot_pool = buf->next_spare;
		buf->next_spare = victims;
		victims = buf;
		fbinder_slot_pool_len--;
		n++;
	}
	spin_unlock(&fbinder_slot_pool_lock);
	while (victims) {
		buf = victims;
		victims = buf->next_spare;
		kfree(buf);
	}
	return n;
}

static unsigned long fbinder_slot_shrink_count(struct shrinker *s,
					       struct shrink_control *sc)
{
	unsigned long count = fbinder_slot_pool_count();

	return count ? count : SHRINK_EMPTY;
}

static unsigned long fbinder_slot_shrink_scan(struct shrinker *s,
					      struct shrink_control *sc)
{
	unsigned long freed = fbinder_slot_pool_free(sc->nr_to_scan);

	return freed ? freed : SHRINK_STOP;
}

int fbinder_slot_pool_init(void)
{
	fbinder_slot_shrinker = fbinder_shrinker_create("fastbinder-slots",
							fbinder_slot_shrink_count,
							fbinder_slot_shrink_scan);
	return fbinder_slot_shrinker ? 0 : -ENOMEM;
}

/* After every context is gone: nothing else reaches the pool. */
void fbinder_slot_pool_exit(void)
{
	fbinder_shrinker_destroy(fbinder_slot_shrinker);
	fbinder_slot_shrinker = NULL;
	fbinder_slot_pool_free(ULONG_MAX);
}
