// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: spare transactions, one pool per CPU (spare_pool.c).
 *
 * A transaction lives from its send until its message is delivered (a
 * oneway) or its reply consumed (a call); freed ones wait here for the
 * next send, emptied, so that a stale pointer to one leads nowhere.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"
#include "spare_pool.h"
#include "txn_pool.h"

/* a CPU's pool holds up to one context's full queue */
#define FBINDER_SPARE_TXNS	FBINDER_MAX_QUEUED

static DEFINE_PER_CPU(struct fbinder_spare_cpu, fbinder_txn_spares_cpu) = {
	.lock = INIT_LOCAL_LOCK(fbinder_txn_pool_lock),
};

static void fbinder_txn_spare_free(struct fbinder_spare *s)
{
	kfree(container_of(s, struct fbinder_txn, spare));
}

struct fbinder_spare_pool fbinder_txn_spares = {
	.name = "fastbinder-txns",
	.cap = FBINDER_SPARE_TXNS,
	.free = fbinder_txn_spare_free,
	.cpus = &fbinder_txn_spares_cpu,
};

unsigned long fbinder_txn_spares_count(void)
{
	return fbinder_spare_count(&fbinder_txn_spares);
}

int fbinder_txn_pool_init(void)
{
	return fbinder_spare_pool_init(&fbinder_txn_spares);
}

/* After every device is gone: no transaction is left to come back. */
void fbinder_txn_pool_exit(void)
{
	fbinder_spare_pool_exit(&fbinder_txn_spares);
}
