// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: spare transactions, one pool per CPU.
 *
 * A transaction lives from its send until its message is delivered (a
 * oneway) or its reply consumed (a call); a flow of messages would
 * allocate and free one per message.  Freed ones wait in a pool for the
 * next send instead: singly linked, last in first out, so a take and a
 * put are two stores, where a list_head paid two more and, with
 * CONFIG_DEBUG_LIST, a check of each neighbour (docs/performance.md).  A
 * burst of queued oneway messages, drained, is the case that matters:
 * with a small cap every burst filled and emptied slab pages again, with
 * the memory cgroup's charge and uncharge of each object, about a tenth of
 * oneway-1's instructions per message (docs/performance.md).
 *
 * There is one pool per CPU, used only on its CPU, under a local lock
 * (local_lock_t): no atomic and no shared cache line on the path, where a
 * spinlock of its own cost a oneway message about 60 instructions, its take
 * and its free (docs/performance.md).  Without PREEMPT_RT the local lock only disables
 * preemption, so the task stays on the CPU whose pool it holds; with it,
 * a per-CPU sleeping lock with migration disabled, which is also why
 * another CPU's pool is never touched directly while CPUs may use them.
 * The lock is a leaf, taken under any other.  What is kept is given back
 * under memory pressure (the shrinker below: the pool of the CPU it runs
 * on directly, each other CPU's by a work item run on that CPU and waited
 * for, on a workqueue of its own with a rescuer, as reclaim may wait only
 * for such) and at unload, when nothing uses the pools any more.
 */
#include <linux/spinlock.h>
#include <linux/local_lock.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "internal.h"
#include "txn_pool.h"

/* a CPU's pool holds up to one context's full queue */
#define FBINDER_SPARE_TXNS	FBINDER_MAX_QUEUED

struct fbinder_txn_pool {
	local_lock_t lock;		/* a leaf: spares and nr */
	struct fbinder_txn *spares;	/* by next_spare */
	u32 nr;
	struct work_struct drain;	/* the shrinker's, queued on this CPU */
};

static DEFINE_PER_CPU(struct fbinder_txn_pool, fbinder_txn_pools) = {
	.lock = INIT_LOCAL_LOCK(fbinder_txn_pool_lock),
};

static struct shrinker *fbinder_txn_shrinker;
static struct workqueue_struct *fbinder_txn_wq;	/* the drains */

/* A zeroed spare, or NULL when this CPU's pool has none. */
struct fbinder_txn *fbinder_txn_spare_take(void)
{
	struct fbinder_txn_pool *txns;
	struct fbinder_txn *t;

	local_lock(&fbinder_txn_pools.lock);
	txns = this_cpu_ptr(&fbinder_txn_pools);
	t = txns->spares;
	if (t) {
		txns->spares = t->next_spare;
		txns->nr--;
	}
	local_unlock(&fbinder_txn_pools.lock);
	if (t)
		t->next_spare = NULL;
	return t;
}

/* Keeps t, emptied, as a spare; false when this CPU's pool is full. */
bool fbinder_txn_spare_put(struct fbinder_txn *t)
{
	struct fbinder_txn_pool *txns;
	bool kept = false;

	/* a stale link to a spare must lead nowhere, not to old threads */
	memset(t, 0, sizeof(*t));
	local_lock(&fbinder_txn_pools.lock);
	txns = this_cpu_ptr(&fbinder_txn_pools);
	if (txns->nr < FBINDER_SPARE_TXNS) {
		t->next_spare = txns->spares;
		txns->spares = t;
		txns->nr++;
		kept = true;
	}
	local_unlock(&fbinder_txn_pools.lock);
	return kept;
}

unsigned long fbinder_txn_spares_count(void)
{
	unsigned long count = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		count += READ_ONCE(per_cpu_ptr(&fbinder_txn_pools, cpu)->nr);
	return count;
}

/* Takes up to nr spares off a pool, as a list by next_spare. */
static struct fbinder_txn *fbinder_txn_pool_cut(struct fbinder_txn_pool *txns,
						unsigned long nr)
{
	struct fbinder_txn *t, *victims = NULL;

	while (nr-- && (t = txns->spares)) {
		txns->spares = t->next_spare;
		txns->nr--;
		t->next_spare = victims;
		victims = t;
	}
	return victims;
}

/* Frees a list of spares; returns how many. */
static unsigned long fbinder_txn_list_free(struct fbinder_txn *victims)
{
	struct fbinder_txn *t;
	unsigned long n = 0;

	while (victims) {
		t = victims;
		victims = t->next_spare;
		kfree(t);
		n++;
	}
	return n;
}

/* Frees up to nr of the spares of the CPU it runs on; returns how many. */
static unsigned long fbinder_txn_pool_free_local(unsigned long nr)
{
	struct fbinder_txn *victims;

	local_lock(&fbinder_txn_pools.lock);
	victims = fbinder_txn_pool_cut(this_cpu_ptr(&fbinder_txn_pools), nr);
	local_unlock(&fbinder_txn_pools.lock);
	return fbinder_txn_list_free(victims);
}

/*
 * A CPU's drain, queued there by the shrinker.  Should the CPU go offline
 * first, the work runs on another one and empties that CPU's pool instead:
 * harmless, and the offline CPU's pool waits for the unload (or for the
 * CPU to come back).
 */
static void fbinder_txn_pool_drain(struct work_struct *work)
{
	while (fbinder_txn_pool_free_local(FBINDER_BATCH) == FBINDER_BATCH)
		cond_resched();
}

static unsigned long fbinder_txn_shrink_count(struct shrinker *s,
					      struct shrink_control *sc)
{
	unsigned long count = fbinder_txn_spares_count();

	return count ? count : SHRINK_EMPTY;
}

static unsigned long fbinder_txn_shrink_scan(struct shrinker *s,
					     struct shrink_control *sc)
{
	struct fbinder_txn_pool *txns;
	unsigned long freed;
	int cpu;

	freed = fbinder_txn_pool_free_local(sc->nr_to_scan);
	/* each other CPU's whole pool, on that CPU (this one's, if we moved) */
	for_each_online_cpu(cpu) {
		txns = per_cpu_ptr(&fbinder_txn_pools, cpu);
		if (!READ_ONCE(txns->nr))
			continue;
		freed += READ_ONCE(txns->nr);
		queue_work_on(cpu, fbinder_txn_wq, &txns->drain);
	}
	for_each_online_cpu(cpu)
		flush_work(&per_cpu_ptr(&fbinder_txn_pools, cpu)->drain);
	return freed ? freed : SHRINK_STOP;
}

int fbinder_txn_pool_init(void)
{
	struct fbinder_txn_pool *txns;
	int cpu;

	for_each_possible_cpu(cpu) {
		txns = per_cpu_ptr(&fbinder_txn_pools, cpu);
		INIT_WORK(&txns->drain, fbinder_txn_pool_drain);
	}
	fbinder_txn_wq = alloc_workqueue("fastbinder-txns", WQ_MEM_RECLAIM, 0);
	if (!fbinder_txn_wq)
		return -ENOMEM;
	fbinder_txn_shrinker = fbinder_shrinker_create("fastbinder-txns",
						       fbinder_txn_shrink_count,
						       fbinder_txn_shrink_scan);
	return fbinder_txn_shrinker ? 0 : -ENOMEM;
}

/*
 * After every device is gone: no transaction is left to come back, and no
 * shrinker or drain runs once they are stopped, so every CPU's pool is
 * ours.  Also when the module's load failed before fbinder_txn_pool_init()
 * (a bad devices= list): nothing was kept then, and nothing set up.
 */
void fbinder_txn_pool_exit(void)
{
	struct fbinder_txn_pool *txns;
	int cpu;

	if (fbinder_txn_shrinker) {
		fbinder_shrinker_destroy(fbinder_txn_shrinker);
		fbinder_txn_shrinker = NULL;
	}
	if (!fbinder_txn_wq)
		return;
	destroy_workqueue(fbinder_txn_wq);	/* after its last drain */
	fbinder_txn_wq = NULL;
	for_each_possible_cpu(cpu) {
		txns = per_cpu_ptr(&fbinder_txn_pools, cpu);
		while (fbinder_txn_list_free(fbinder_txn_pool_cut(txns, FBINDER_BATCH)))
			cond_resched();
	}
}
