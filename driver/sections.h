/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time per step of the hot paths, for performance work only: the module's
 * development build (make module-selftest, FASTBINDER_SECTIONS=y) has it,
 * the module users load has none of it (every call below compiles away).
 *
 * A section adds the cycles between its start and its end, and one to its
 * count, to per-CPU sums that debugfs "sections" adds up.  Under QEMU's
 * -icount the guest's TSC counts executed instructions, so a sum is an
 * exact path length: "make bench-sections" (docs/performance.md).  A
 * section that sleeps or is preempted counts what ran meanwhile too
 * (FBINDER_SEC_SLEEP and FBINDER_SEC_RESCHED are those parts of a
 * WRITE_READ: the peer a send has just woken often runs at the next
 * cond_resched(), before the sender ever waits for its answer).
 */
#ifndef _FBINDER_SECTIONS_H
#define _FBINDER_SECTIONS_H

#include <linux/types.h>

struct dentry;

enum fbinder_section {
	FBINDER_SEC_WRITE_READ,		/* one WRITE_READ, sleeps included */
	FBINDER_SEC_SEND,		/* one send or reply, wake-up included */
	FBINDER_SEC_SEND_PREPARE,	/* its target, share and transaction */
	FBINDER_SEC_SEND_SLOT,		/* its slot (fbinder_alloc_new()) */
	FBINDER_SEC_SEND_COPY,		/* its payload and objects */
	FBINDER_SEC_SEND_COMMIT,	/* queued, wake-up included */
	FBINDER_SEC_WAKE,		/* a wake-up after the device lock */
	FBINDER_SEC_FREE,		/* a run of FREE_BUFFER commands */
	FBINDER_SEC_READ,		/* the read half, sleeps included */
	FBINDER_SEC_SLEEP,		/* a read's wait for work */
	FBINDER_SEC_RESCHED,		/* a read's or a write's cond_resched() */
	FBINDER_SEC_TAKE,		/* work picked and taken */
	FBINDER_SEC_DELIVER,		/* its return copied out */
	FBINDER_SEC_FINISH,		/* its transactions let go */
	FBINDER_SEC_NR
};

/* expr (a call) as the section sec; its value */
#define fbinder_timed(sec, expr)					\
({									\
	u64 __start = fbinder_section_start();				\
	typeof(expr) __ret = (expr);					\
									\
	fbinder_section_end(sec, __start);				\
	__ret;								\
})

/* the same for a call of no value */
#define fbinder_timed_void(sec, expr)					\
do {									\
	u64 __start = fbinder_section_start();				\
									\
	expr;								\
	fbinder_section_end(sec, __start);				\
} while (0)

#ifdef CONFIG_FASTBINDER_SECTIONS
#include <linux/percpu.h>
#include <linux/timex.h>

struct fbinder_section_sums {
	u64 count[FBINDER_SEC_NR];
	u64 cycles[FBINDER_SEC_NR];
};

DECLARE_PER_CPU(struct fbinder_section_sums, fbinder_section_sums);

static inline u64 fbinder_section_start(void)
{
	return get_cycles();
}

/* Each sum is per CPU and read summed over all: no preemption guard needed. */
static inline void fbinder_section_end(enum fbinder_section sec, u64 start)
{
	this_cpu_add(fbinder_section_sums.cycles[sec], get_cycles() - start);
	this_cpu_inc(fbinder_section_sums.count[sec]);
}

void fbinder_sections_debugfs(struct dentry *dir);
#else
static inline u64 fbinder_section_start(void)
{
	return 0;
}

static inline void fbinder_section_end(enum fbinder_section sec, u64 start)
{
}

static inline void fbinder_sections_debugfs(struct dentry *dir)
{
}
#endif

#endif /* _FBINDER_SECTIONS_H */
