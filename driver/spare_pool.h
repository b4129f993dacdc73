/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fastbinder: objects kept for reuse, one pool per CPU (spare_pool.c).
 */
#ifndef _FBINDER_SPARE_POOL_H
#define _FBINDER_SPARE_POOL_H

#include <linux/local_lock.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct shrinker;
struct workqueue_struct;

/* Where a pooled object, unused meanwhile, links to the next one. */
struct fbinder_spare {
	struct fbinder_spare *next;
};

/* One CPU's pool: a stack, used on its CPU only. */
struct fbinder_spare_cpu {
	local_lock_t lock;		/* a leaf: spares and nr */
	struct fbinder_spare *spares;
	u32 nr;
	struct work_struct drain;	/* the shrinker's, queued on this CPU */
	struct fbinder_spare_pool *pool;
};

/*
 * A pool: its owner defines the per-CPU part (each with its own
 * INIT_LOCAL_LOCK(), which names the lock class) and this, and calls
 * fbinder_spare_pool_init() before the first put.
 */
struct fbinder_spare_pool {
	const char *name;		/* its shrinker's and workqueue's */
	u32 cap;			/* spares each CPU keeps at most */
	void (*free)(struct fbinder_spare *s);	/* gives one back for good */
	struct fbinder_spare_cpu __percpu *cpus;
	struct shrinker *shrinker;
	struct workqueue_struct *wq;	/* the drains */
};

/*
 * A spare from this CPU's pool, or NULL when it has none.  Take and put
 * are inline: every send takes a transaction and every message frees one,
 * and the calls cost more than the stack operations themselves.
 */
static inline struct fbinder_spare *fbinder_spare_take(struct fbinder_spare_pool *pool)
{
	struct fbinder_spare_cpu *c;
	struct fbinder_spare *s;

	local_lock(&pool->cpus->lock);
	c = this_cpu_ptr(pool->cpus);
	s = c->spares;
	if (s) {
		c->spares = s->next;
		c->nr--;
	}
	local_unlock(&pool->cpus->lock);
	return s;
}

/* Keeps s for reuse; false when this CPU's pool is full. */
static inline bool fbinder_spare_put(struct fbinder_spare_pool *pool,
				     struct fbinder_spare *s)
{
	struct fbinder_spare_cpu *c;
	bool kept = false;

	local_lock(&pool->cpus->lock);
	c = this_cpu_ptr(pool->cpus);
	if (c->nr < pool->cap) {
		s->next = c->spares;
		c->spares = s;
		c->nr++;
		kept = true;
	}
	local_unlock(&pool->cpus->lock);
	return kept;
}

unsigned long fbinder_spare_count(struct fbinder_spare_pool *pool);
int fbinder_spare_pool_init(struct fbinder_spare_pool *pool);
void fbinder_spare_pool_exit(struct fbinder_spare_pool *pool);

#endif /* _FBINDER_SPARE_POOL_H */
