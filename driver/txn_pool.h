/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fastbinder: each device's spare transactions (txn_pool.c).  Taking and
 * keeping one are inline: they are on every message's path.
 */
#ifndef _FBINDER_TXN_POOL_H
#define _FBINDER_TXN_POOL_H

#include <linux/lockdep.h>
#include <linux/string.h>

#include "internal.h"

#define FBINDER_SPARE_TXNS	FBINDER_MAX_QUEUED

/* A zeroed spare of dev, or NULL when it has none. */
static inline struct fbinder_txn *
fbinder_txn_spare_take_locked(struct fbinder_device *dev)
{
	struct fbinder_txn *t = dev->spare_txns;

	lockdep_assert_held(&dev->lock);
	if (t) {
		dev->spare_txns = t->next_spare;
		t->next_spare = NULL;
		dev->nr_spare_txns--;
	}
	return t;
}

/* Keeps t, emptied, as a spare of dev; false when dev has enough. */
static inline bool fbinder_txn_spare_put_locked(struct fbinder_device *dev,
						struct fbinder_txn *t)
{
	lockdep_assert_held(&dev->lock);
	if (dev->nr_spare_txns >= FBINDER_SPARE_TXNS)
		return false;
	/* a stale link to a spare must lead nowhere, not to old threads */
	memset(t, 0, sizeof(*t));
	t->next_spare = dev->spare_txns;
	dev->spare_txns = t;
	dev->nr_spare_txns++;
	return true;
}

void fbinder_txn_spares_drain(struct fbinder_device *dev);
int fbinder_txn_pool_init(void);
void fbinder_txn_pool_exit(void);

#endif /* _FBINDER_TXN_POOL_H */
