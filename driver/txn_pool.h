/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fastbinder: the spare transactions (txn_pool.c).
 */
#ifndef _FBINDER_TXN_POOL_H
#define _FBINDER_TXN_POOL_H

#include "internal.h"

struct fbinder_txn *fbinder_txn_spare_take(void);
bool fbinder_txn_spare_put(struct fbinder_txn *t);
unsigned long fbinder_txn_spares_count(void);
int fbinder_txn_pool_init(void);
void fbinder_txn_pool_exit(void);

#endif /* _FBINDER_TXN_POOL_H */
