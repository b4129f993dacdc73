/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Global counters, shown one "name value" per line in debugfs "stats".
 * The live_* ones go back to zero when every context is closed, which is
 * how the tests prove nothing leaked.
 */
#ifndef _FB_STATS_H
#define _FB_STATS_H

#include <linux/atomic.h>
#include <linux/types.h>

enum fbinder_stat {
	FBINDER_STAT_LIVE_CONTEXTS,
	FBINDER_STAT_LIVE_THREADS,
	FBINDER_STAT_LIVE_NODES,
	FBINDER_STAT_LIVE_HANDLES,
	FBINDER_STAT_LIVE_BUFFERS,
	FBINDER_STAT_LIVE_TRANSACTIONS,
	FBINDER_STAT_LIVE_DEATHS,
	FBINDER_STAT_LIVE_PAGES,		/* buffer pages, in use or cached */
	FBINDER_STAT_LIVE_REGIONS,		/* memory regions, freed or not */
	FBINDER_STAT_CALLS,
	FBINDER_STAT_ONEWAYS,
	FBINDER_STAT_REPLIES,
	FBINDER_STAT_FAILED,
	FBINDER_STAT_DEAD_REPLIES,
	FBINDER_STAT_RELEASE_NOTICES,
	FBINDER_STAT_SPAWN_REQUESTS,
	FBINDER_STAT_ABANDONED,
	FBINDER_STAT_COUNT
};

/* stats.c */
extern atomic64_t fbinder_stats[FBINDER_STAT_COUNT];
extern const char *const fbinder_stat_names[FBINDER_STAT_COUNT];

static inline void fbinder_stat_inc(enum fbinder_stat stat)
{
	atomic64_inc(&fbinder_stats[stat]);
}

static inline void fbinder_stat_dec(enum fbinder_stat stat)
{
	atomic64_dec(&fbinder_stats[stat]);
}

/* A failed send, reply or delivery (fbinder_record_failure(), internal.h). */
struct fbinder_failure {
	u64 time_ns;
	int error;
	const char *what;
	pid_t from_pid;
	pid_t to_pid;
	u64 node;
	u32 code;
};

#define FBINDER_FAILURE_RING 64	/* the last ones kept */

unsigned int fbinder_failures_read(struct fbinder_failure *out);

#endif /* _FB_STATS_H */
