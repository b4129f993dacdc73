// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: objects kept for reuse, one pool per CPU.
 *
 * A flow of messages would allocate and free a transaction per message,
 * and a burst of queued ones a slot struct per message beyond its
 * receiver's few spares.  Freed ones wait in a pool for the next send
 * instead: singly linked, last in first out, so a take and a put are two
 * stores, where a list_head paid two more and, with CONFIG_DEBUG_LIST, a
 * check of each neighbour (docs/performance.md).  A burst of queued oneway
 * messages, drained, is the case that matters: with a small cap every
 * burst filled and emptied slab pages again, with the memory cgroup's
 * charge and uncharge of each object, about a tenth of oneway-1's
 * instructions per message (docs/performance.md).
 *
 * There is one pool per CPU, used only on its CPU, under a local lock
 * (local_lock_t): no atomic and no cache line shared between CPUs on the
 * path, so processes that do not talk to each other share nothing here,
 * where a spinlock of the pool's own cost a oneway message about 60
 * instructions, its take and its free (docs/performance.md).  Without
 * PREEMPT_RT the local lock only disables preemption, so the task stays
 * on the CPU whose pool it holds; with it, a per-CPU sleeping lock with
 * migration disabled, which is also why another CPU's pool is never
 * touched directly while CPUs may use them.  The lock is a leaf, taken
 * under any other.  What is kept is given back under memory pressure
 * (the shrinker below: the pool of the CPU it runs on directly, each other
 * CPU's by a work item run on that CPU and waited for, on a workqueue of
 * its own with a rescuer, as reclaim may wait only for such) and at
 * unload, when nothing uses the pools any more.
 */
#include <linux/sched.h>
#include <linux/shrinker.h>
#include <linux/slab.h>

#include "compat.h"
#include "internal.h"
#include "spare_pool.h"

unsigned long fbinder_spare_count(struct fbinder_spare_pool *pool)
{
	unsigned long count = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		count += READ_ONCE(per_cpu_ptr(pool->cpus, cpu)->nr);
	return count;
}

/* Takes up to nr spares off a CPU's pool, as a list. */
static struct fbinder_spare *fbinder_spare_cut(struct fbinder_spare_cpu *c,
					       unsigned long nr)
{
	struct fbinder_spare *s, *victims = NULL;

	while (nr-- && (s = c->spares)) {
		c->spares = s->next;
		c->nr--;
		s->next = victims;
		victims = s;
	}
	return victims;
}

/* Frees a list of spares; returns how many. */
static unsigned long fbinder_spare_list_free(struct fbinder_spare_pool *pool,
					     struct fbinder_spare *victims)
{
	struct fbinder_spare *s;
	unsigned long n = 0;

	while (victims) {
		s = victims;
		victims = s->next;
		pool->free(s);
		n++;
	}
	return n;
}

/* Frees up to nr of the spares of the CPU it runs on; returns how many. */
static unsigned long fbinder_spare_free_local(struct fbinder_spare_pool *pool,
					      unsigned long nr)
{
	struct fbinder_spare *victims;

	local_lock(&pool->cpus->lock);
	victims = fbinder_spare_cut(this_cpu_ptr(pool->cpus), nr);
	local_unlock(&pool->cpus->lock);
	return fbinder_spare_list_free(pool, victims);
}

/*
 * A CPU's drain, queued there by the shrinker.  Should the CPU go offline
 * first, the work runs on another one and empties that CPU's pool instead:
 * harmless, and the offline CPU's pool waits for the unload (or for the
 * CPU to come back).
 */
static void fbinder_spare_drain(struct work_struct *work)
{
	struct fbinder_spare_cpu *c = container_of(work, struct fbinder_spare_cpu, drain);

	while (fbinder_spare_free_local(c->pool, FBINDER_BATCH) == FBINDER_BATCH)
		cond_resched();
}

static unsigned long fbinder_spare_shrink_count(struct shrinker *s,
						struct shrink_control *sc)
{
	unsigned long count = fbinder_spare_count(fbinder_shrinker_private(s));

	return count ? count : SHRINK_EMPTY;
}

static unsigned long fbinder_spare_shrink_scan(struct shrinker *s,
					       struct shrink_control *sc)
{
	struct fbinder_spare_pool *pool = fbinder_shrinker_private(s);
	struct fbinder_spare_cpu *c;
	unsigned long freed;
	int cpu;

	freed = fbinder_spare_free_local(pool, sc->nr_to_scan);
	/* each other CPU's whole pool, on that CPU (this one's, if we moved) */
	for_each_online_cpu(cpu) {
		c = per_cpu_ptr(pool->cpus, cpu);
		if (!READ_ONCE(c->nr))
			continue;
		freed += READ_ONCE(c->nr);
		queue_work_on(cpu, pool->wq, &c->drain);
	}
	for_each_online_cpu(cpu)
		flush_work(&per_cpu_ptr(pool->cpus, cpu)->drain);
	return freed ? freed : SHRINK_STOP;
}

int fbinder_spare_pool_init(struct fbinder_spare_pool *pool)
{
	struct fbinder_spare_cpu *c;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(pool->cpus, cpu);
		INIT_WORK(&c->drain, fbinder_spare_drain);
		c->pool = pool;
	}
	pool->wq = alloc_workqueue("%s", WQ_MEM_RECLAIM, 0, pool->name);
	if (!pool->wq)
		return -ENOMEM;
	pool->shrinker = fbinder_shrinker_create(pool->name, fbinder_spare_shrink_count,
						 fbinder_spare_shrink_scan, pool);
	return pool->shrinker ? 0 : -ENOMEM;
}

/*
 * When nothing can put or take any more: no shrinker or drain runs once
 * they are stopped, so every CPU's pool is ours.  Also when the module's
 * load failed before fbinder_spare_pool_init() (a bad devices= list):
 * nothing was kept then, and nothing set up.
 */
void fbinder_spare_pool_exit(struct fbinder_spare_pool *pool)
{
	int cpu;

	fbinder_shrinker_destroy(pool->shrinker);
	pool->shrinker = NULL;
	if (!pool->wq)
		return;
	destroy_workqueue(pool->wq);	/* after its last drain */
	pool->wq = NULL;
	for_each_possible_cpu(cpu) {
		while (fbinder_spare_list_free(pool,
					       fbinder_spare_cut(per_cpu_ptr(pool->cpus, cpu),
								 FBINDER_BATCH)))
			cond_resched();
	}
}
