// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: each device's spare transactions.
 *
 * A transaction lives from its send until its message is delivered (a
 * oneway) or its reply consumed (a call); a flow of messages would
 * allocate and free one per message.  Freed ones wait on their device's
 * stack for the next send instead, taken and returned under
 * fbinder_device.lock: singly linked, last in first out, so a take and a
 * put are two stores, where a list_head paid two more and, with
 * CONFIG_DEBUG_LIST, a check of each neighbour (0.99 of a small round
 * trip's instructions, docs/performance.md).  It holds up to one
 * context's full queue (FBINDER_MAX_QUEUED): a burst of queued oneway
 * messages, drained, is the case that matters: with a cap of 128, every
 * burst filled and emptied slab pages again, with the memory cgroup's
 * charge and uncharge of each object, about a tenth of oneway-1's
 * instructions per message (docs/performance.md).  What is kept is given
 * back under memory pressure (the shrinker below) and when the device
 * goes.
 */
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "compat.h"
#include "device.h"
#include "internal.h"
#include "txn_pool.h"

static struct shrinker *fbinder_txn_shrinker;

/* Frees up to nr of dev's spares; returns how many. */
static unsigned long fbinder_txn_spares_free(struct fbinder_device *dev,
					     unsigned long nr)
{
	struct fbinder_txn *t, *victims = NULL;
	unsigned long n = 0;

	spin_lock(&dev->lock);
	while (n < nr && (t = fbinder_txn_spare_take_locked(dev))) {
		t->next_spare = victims;
		victims = t;
		n++;
	}
	spin_unlock(&dev->lock);
	while (victims) {
		t = victims;
		victims = t->next_spare;
		kfree(t);
	}
	return n;
}

void fbinder_txn_spares_drain(struct fbinder_device *dev)
{
	/* a batch per hold of the lock, as every teardown (internal.h) */
	while (fbinder_txn_spares_free(dev, FBINDER_BATCH))
		cond_resched();
}

/*
 * Devices come and go at run time (fastbinderfs): the shrinker walks the
 * list under RCU, and a device's memory outlives its removal by a grace
 * period (fbinder_device_free()).  One being freed may still be found
 * here; its spares are taken under its lock either way.  Reclaim never
 * finds fbinder_device.lock held by its own task: nothing allocates
 * under it.
 */
static unsigned long fbinder_txn_shrink_count(struct shrinker *s,
					      struct shrink_control *sc)
{
	struct fbinder_device *dev;
	unsigned long count = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(dev, &fbinder_devices, entry)
		count += READ_ONCE(dev->nr_spare_txns);
	rcu_read_unlock();
	return count ? count : SHRINK_EMPTY;
}

static unsigned long fbinder_txn_shrink_scan(struct shrinker *s,
					     struct shrink_control *sc)
{
	struct fbinder_device *dev;
	unsigned long freed = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(dev, &fbinder_devices, entry) {
		if (freed >= sc->nr_to_scan)
			break;
		freed += fbinder_txn_spares_free(dev, sc->nr_to_scan - freed);
	}
	rcu_read_unlock();
	return freed ? freed : SHRINK_STOP;
}

int fbinder_txn_pool_init(void)
{
	fbinder_txn_shrinker = fbinder_shrinker_create("fastbinder-txns",
						       fbinder_txn_shrink_count,
						       fbinder_txn_shrink_scan);
	return fbinder_txn_shrinker ? 0 : -ENOMEM;
}

void fbinder_txn_pool_exit(void)
{
	fbinder_shrinker_destroy(fbinder_txn_shrinker);
	fbinder_txn_shrinker = NULL;
}
