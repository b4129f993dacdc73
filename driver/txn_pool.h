/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fastbinder: the spare transactions (txn_pool.c).
 */
#ifndef _FBINDER_TXN_POOL_H
#define _FBINDER_TXN_POOL_H

#include <linux/string.h>

#include "internal.h"
#include "spare_pool.h"

/* the pool, for the inline take and put (txn_pool.c has the rest) */
extern struct fbinder_spare_pool fbinder_txn_spares;

/* A zeroed spare, or NULL when this CPU's pool has none. */
static inline struct fbinder_txn *fbinder_txn_spare_take(void)
{
	struct fbinder_spare *s = fbinder_spare_take(&fbinder_txn_spares);

	if (!s)
		return NULL;
	s->next = NULL;
	return container_of(s, struct fbinder_txn, spare);
}

/* Keeps t, emptied, as a spare; false when this CPU's pool is full. */
static inline bool fbinder_txn_spare_put(struct fbinder_txn *t)
{
	memset(t, 0, sizeof(*t));
	return fbinder_spare_put(&fbinder_txn_spares, &t->spare);
}

unsigned long fbinder_txn_spares_count(void);
int fbinder_txn_pool_init(void);
void fbinder_txn_pool_exit(void);

#endif /* _FBINDER_TXN_POOL_H */
