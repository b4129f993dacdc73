/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Global counters, shown one "name value" per line in debugfs "stats" and
 * read by FBINDER_IOC_INFO (info.c) in the uapi's order, which is why each
 * is its FBINDER_COUNTER_* number.  The live_* ones go back to zero when
 * every context is closed, which is how the tests prove nothing leaked.
 *
 * Each CPU counts in its own copy, summed when read (fbinder_stat_read()):
 * a message writes no cache line another CPU's messages write (issue 35).
 * An update is one this_cpu operation, safe against preemption and
 * interrupts, under any lock or none.
 */
#ifndef _FBINDER_STATS_H
#define _FBINDER_STATS_H

#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/uidgid.h>
#include <linux/types.h>
#include <linux/fastbinder.h>

struct pid;

enum fbinder_stat {
	FBINDER_STAT_LIVE_CONTEXTS = FBINDER_COUNTER_LIVE_CONTEXTS,
	FBINDER_STAT_LIVE_THREADS = FBINDER_COUNTER_LIVE_THREADS,
	FBINDER_STAT_LIVE_NODES = FBINDER_COUNTER_LIVE_NODES,
	FBINDER_STAT_LIVE_HANDLES = FBINDER_COUNTER_LIVE_HANDLES,
	FBINDER_STAT_LIVE_BUFFERS = FBINDER_COUNTER_LIVE_BUFFERS,
	FBINDER_STAT_LIVE_TRANSACTIONS = FBINDER_COUNTER_LIVE_TRANSACTIONS,
	FBINDER_STAT_LIVE_DEATHS = FBINDER_COUNTER_LIVE_DEATHS,
	FBINDER_STAT_LIVE_PAGES = FBINDER_COUNTER_LIVE_PAGES,	/* buffer pages, in use or cached */
	FBINDER_STAT_CALLS = FBINDER_COUNTER_CALLS,
	FBINDER_STAT_ONEWAYS = FBINDER_COUNTER_ONEWAYS,
	FBINDER_STAT_REPLIES = FBINDER_COUNTER_REPLIES,
	FBINDER_STAT_FAILED = FBINDER_COUNTER_FAILED,
	FBINDER_STAT_DEAD_REPLIES = FBINDER_COUNTER_DEAD_REPLIES,
	FBINDER_STAT_RELEASE_NOTICES = FBINDER_COUNTER_RELEASE_NOTICES,
	FBINDER_STAT_SPAWN_REQUESTS = FBINDER_COUNTER_SPAWN_REQUESTS,
	FBINDER_STAT_ABANDONED = FBINDER_COUNTER_ABANDONED,
	/* memory regions, freed or not */
	FBINDER_STAT_LIVE_REGIONS = FBINDER_COUNTER_LIVE_REGIONS,
	FBINDER_STAT_COUNT = FBINDER_COUNTER_COUNT
};

/* stats.c */
struct fbinder_stat_cpu {
	s64 v[FBINDER_STAT_COUNT];
};

DECLARE_PER_CPU(struct fbinder_stat_cpu, fbinder_stat_cpu);
extern atomic64_t fbinder_max_hold_ns;
extern atomic64_t fbinder_max_hold_objects;
extern const char *const fbinder_stat_names[FBINDER_STAT_COUNT];

s64 fbinder_stat_read(enum fbinder_stat stat);

static inline void fbinder_stat_inc(enum fbinder_stat stat)
{
	this_cpu_inc(fbinder_stat_cpu.v[stat]);
}

static inline void fbinder_stat_dec(enum fbinder_stat stat)
{
	this_cpu_dec(fbinder_stat_cpu.v[stat]);
}

static inline void fbinder_stat_sub(enum fbinder_stat stat, s64 n)
{
	this_cpu_sub(fbinder_stat_cpu.v[stat], n);
}

/* A failed send, reply or delivery (fbinder_record_failure(), internal.h). */
struct fbinder_failure {
	u64 seq;			/* 1 for the first */
	u64 time_ns;
	int error;
	enum fbinder_failure_what what;
	struct pid *from;		/* counted, or NULL */
	struct pid *to;			/* counted, or NULL */
	kuid_t from_uid;		/* the sender's euid */
	kuid_t to_uid;			/* the target owner's, or invalid */
	u64 node;
	u32 code;
};

#define FBINDER_FAILURE_RING 64	/* the last ones kept */

extern const char *const fbinder_failure_names[];

/*
 * Copies the failures newer than seq into out (FBINDER_FAILURE_RING
 * entries), oldest first, each with its own references on the pids
 * (fbinder_failures_put()); returns how many.
 */
unsigned int fbinder_failures_read(struct fbinder_failure *out, u64 seq);
void fbinder_failures_put(struct fbinder_failure *f, unsigned int n);
u64 fbinder_failures_seq(void);
int fbinder_failures_wait(u64 seq);
void fbinder_stats_exit(void);

#endif /* _FBINDER_STATS_H */
