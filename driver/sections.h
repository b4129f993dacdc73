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
 *
 * What a message shares beyond its two contexts (issue 35): the build
 * includes this header first in every file of the module (Kbuild), so each
 * spin_lock() and spin_unlock() of the device's lock or of a module-wide
 * lock also sums the instructions it was held (FBINDER_SEC_HELD_*: count
 * is holds, nested holds of one kind counted once), and each atomic
 * read-modify-write of a module-wide counter (the statistics, the ids, the
 * LRU count) or of a user's page or node count is counted
 * (FBINDER_SEC_ATOMIC_*: no cycles).  Which lock a call takes is told from its argument's
 * spelling, so a new lock is "other" (not counted) until named here.
 */
#ifndef _FBINDER_SECTIONS_H
#define _FBINDER_SECTIONS_H

#if defined(CONFIG_FASTBINDER_SECTIONS) && !defined(pr_fmt)
/* Included first (Kbuild): the prefix the module's printing files define. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#endif

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
	FBINDER_SEC_HELD_DEVICE,	/* the device's lock held */
	FBINDER_SEC_HELD_MODULE,	/* a module-wide lock held */
	FBINDER_SEC_HELD_SHARED,	/* either held (their union) */
	FBINDER_SEC_ATOMIC_STATS,	/* a shared statistics update: none since per CPU */
	FBINDER_SEC_ATOMIC_MODULE,	/* another module-wide atomic */
	FBINDER_SEC_ATOMIC_USER,	/* a user's atomic page or node count */
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
static __always_inline void fbinder_section_add(enum fbinder_section sec, u64 cycles)
{
	this_cpu_add(fbinder_section_sums.cycles[sec], cycles);
	this_cpu_inc(fbinder_section_sums.count[sec]);
}

static inline void fbinder_section_end(enum fbinder_section sec, u64 start)
{
	fbinder_section_add(sec, get_cycles() - start);
}

void fbinder_sections_debugfs(struct dentry *dir);

/* ---- shared locks and atomics (see the top) ---- */
#include <linux/atomic.h>
#include <linux/spinlock.h>

/* The depth of each kind of shared lock this CPU holds, and since when. */
struct fbinder_section_held {
	int depth[2], any;
	u64 start[2], any_start;
};

DECLARE_PER_CPU(struct fbinder_section_held, fbinder_section_held);

/* a lock's kind from its spelling: 0 device, 1 module-wide, -1 other */
#define FBINDER_SEC_LOCK_KIND(name)					\
	(__builtin_strstr(name, "dev->lock") ||				\
	 __builtin_strstr(name, "dev)->lock") ? 0 :			\
	 !__builtin_strncmp(name, "&fbinder_", 9) ? 1 : -1)

/*
 * The clock is read last when taking and first when letting go, so a
 * hold's sum is its own instructions and about three of these.  A
 * spinlock keeps the task on its CPU (raw_cpu_ptr: PREEMPT_RT's sleeping
 * spinlocks may interleave two tasks' holds, which only blurs the sums).
 */
static __always_inline void fbinder_sec_taken(int kind)
{
	struct fbinder_section_held *h = raw_cpu_ptr(&fbinder_section_held);
	bool first = !h->depth[kind]++, first_any = !h->any++;
	u64 now = get_cycles();

	if (first)
		h->start[kind] = now;
	if (first_any)
		h->any_start = now;
}

static __always_inline void fbinder_sec_releasing(int kind)
{
	u64 now = get_cycles();
	struct fbinder_section_held *h = raw_cpu_ptr(&fbinder_section_held);

	if (!--h->depth[kind])
		fbinder_section_add(FBINDER_SEC_HELD_DEVICE + kind,
				    now - h->start[kind]);
	if (!--h->any)
		fbinder_section_add(FBINDER_SEC_HELD_SHARED, now - h->any_start);
}

static __always_inline void fbinder_sec_spin_lock(spinlock_t *lock, int kind)
{
	(spin_lock)(lock);
	if (kind >= 0)
		fbinder_sec_taken(kind);
}

static __always_inline void fbinder_sec_spin_unlock(spinlock_t *lock, int kind)
{
	if (kind >= 0)
		fbinder_sec_releasing(kind);
	(spin_unlock)(lock);
}

#undef spin_lock
#undef spin_unlock
#define spin_lock(l)	fbinder_sec_spin_lock(l, FBINDER_SEC_LOCK_KIND(#l))
#define spin_unlock(l)	fbinder_sec_spin_unlock(l, FBINDER_SEC_LOCK_KIND(#l))

static __always_inline void fbinder_sec_atomic(int sec)
{
	if (sec >= 0)
		this_cpu_inc(fbinder_section_sums.count[sec]);
}

/*
 * An atomic's section from its spelling: a user's counts are its pages and
 * nodes; any other (a kernel header's inline functions, say) is not counted.
 */
#define FBINDER_SEC_ATOMIC(name)					\
	fbinder_sec_atomic(!__builtin_strncmp(name, "&fbinder_stats", 14) ? \
			   FBINDER_SEC_ATOMIC_STATS :			\
			   !__builtin_strncmp(name, "&fbinder_", 9) ?	\
			   FBINDER_SEC_ATOMIC_MODULE :			\
			   __builtin_strstr(name, "->pages") ||		\
			   __builtin_strstr(name, "->nodes") ?		\
			   FBINDER_SEC_ATOMIC_USER : -1)

#undef atomic64_inc
#undef atomic64_dec
#undef atomic64_sub
#undef atomic64_inc_return
#undef atomic_long_inc
#undef atomic_long_dec
#undef atomic_long_sub
#undef atomic_long_add_return
#undef atomic_inc_return
#undef atomic_dec
#define atomic64_inc(v)		(FBINDER_SEC_ATOMIC(#v), (atomic64_inc)(v))
#define atomic64_dec(v)		(FBINDER_SEC_ATOMIC(#v), (atomic64_dec)(v))
#define atomic64_sub(i, v)	(FBINDER_SEC_ATOMIC(#v), (atomic64_sub)(i, v))
#define atomic64_inc_return(v)	(FBINDER_SEC_ATOMIC(#v), (atomic64_inc_return)(v))
#define atomic_long_inc(v)	(FBINDER_SEC_ATOMIC(#v), (atomic_long_inc)(v))
#define atomic_long_dec(v)	(FBINDER_SEC_ATOMIC(#v), (atomic_long_dec)(v))
#define atomic_long_sub(i, v)	(FBINDER_SEC_ATOMIC(#v), (atomic_long_sub)(i, v))
#define atomic_long_add_return(i, v)					\
	(FBINDER_SEC_ATOMIC(#v), (atomic_long_add_return)(i, v))
#define atomic_inc_return(v)	(FBINDER_SEC_ATOMIC(#v), (atomic_inc_return)(v))
#define atomic_dec(v)		(FBINDER_SEC_ATOMIC(#v), (atomic_dec)(v))
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
