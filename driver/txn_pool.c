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
 * There is one pool per CPU, each with its own lock, so that processes
 * that do not talk to each other share no cache line here.  A task uses
 * the pool of the CPU it runs on when it looks; if it moves meanwhile it
 * uses another CPU's pool, under that pool's lock: still correct, only
 * less local.  Each lock is a leaf, taken under any other.  What is kept
 * is given back under memory pressure (the shrinker below) and at unload.
 */
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "compat.h"
#include "internal.h"
#include "txn_pool.h"

/* a CPU's pool holds up to one context's full queue */
#define FBINDER_SPARE_TXNS	FBINDER_MAX_QUEUED

struct fbinder_txn_pool {
	spinlock_t lock;		/* a leaf: spares and nr */
	struct fbinder_txn *spares;	/* by next_spare */
	u32 nr;
};

static DEFINE_PER_CPU(struct fbinder_txn_pool, fbinder_txn_pools);
static struct shrinker *fbinder_txn_shrinker;

/* A zeroed spare, or NULL when this CPU's pool has none. */
struct fbinder_txn *fbinder_txn_spare_take(void)
{
	struct fbinder_txn_pool *txns = raw_cpu_ptr(&fbinder_txn_pools);
	struct fbinder_txn *t;

	spin_lock(&txns->lock);
	t = txns->spares;
	if (t) {
		txns->spares = t->next_spare;
		txns->nr--;
	}
	spin_unlock(&txns->lock);
	if (t)
		t->next_spare = NULL;
	return t;
}

/* Keeps t, emptied, as a spare; false when this CPU's pool is full. */
bool fbinder_txn_spare_put(struct fbinder_txn *t)
{
	struct fbinder_txn_pool *txns = raw_cpu_ptr(&fbinder_txn_pools);
	bool kept = false;

	/* a stale link to a spare must lead nowhere, not to old threads */
	memset(t, 0, sizeof(*t));
	spin_lock(&txns->lock);
	if (txns->nr < FBINDER_SPARE_TXNS) {
		t->next_spare = txns->spares;
		txns->spares = t;
		txns->nr++;
		kept = true;
	}
	spin_unlock(&txns->lock);
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

/* Frees up to nr of one pool's spares; returns how many. */
static unsigned long fbinder_txn_pool_free(struct fbinder_txn_pool *txns,
					   unsigned long nr)
{
	struct fbinder_txn *t, *victims = NULL;
	unsigned long n = 0;

	spin_lock(&txns->lock);
	while (n < nr && (t = txns->spares)) {
		txns->spares = t->next_spare;
		txns->nr--;
		t->next_spare = victims;
		victims = t;
		n++;
	}
	spin_unlock(&txns->lock);
	while (victims) {
		t = victims;
		victims = t->next_spare;
		kfree(t);
	}
	return n;
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
	unsigned long freed = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		if (freed >= sc->nr_to_scan)
			break;
		freed += fbinder_txn_pool_free(per_cpu_ptr(&fbinder_txn_pools, cpu),
					       sc->nr_to_scan - freed);
	}
	return freed ? freed : SHRINK_STOP;
}

int fbinder_txn_pool_init(void)
{
	struct fbinder_txn_pool *txns;
	int cpu;

	for_each_possible_cpu(cpu) {
		txns = per_cpu_ptr(&fbinder_txn_pools, cpu);
		spin_lock_init(&txns->lock);
	}
	fbinder_txn_shrinker = fbinder_shrinker_create("fastbinder-txns",
						       fbinder_txn_shrink_count,
						       fbinder_txn_shrink_scan);
	return fbinder_txn_shrinker ? 0 : -ENOMEM;
}

/*
 * After every device is gone: no transaction is left to come back.  Also
 * when the module's load failed before fbinder_txn_pool_init() (a bad
 * devices= list): nothing was kept then, and the locks are not set up.
 */
void fbinder_txn_pool_exit(void)
{
	int cpu;

	if (!fbinder_txn_shrinker)
		return;
	fbinder_shrinker_destroy(fbinder_txn_shrinker);
	fbinder_txn_shrinker = NULL;
	for_each_possible_cpu(cpu) {
		while (fbinder_txn_pool_free(per_cpu_ptr(&fbinder_txn_pools, cpu),
					     FBINDER_BATCH))
			cond_resched();
	}
}
