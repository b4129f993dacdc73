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

enum fb_stat {
	FB_STAT_LIVE_CONTEXTS,
	FB_STAT_LIVE_THREADS,
	FB_STAT_LIVE_NODES,
	FB_STAT_LIVE_HANDLES,
	FB_STAT_LIVE_BUFFERS,
	FB_STAT_LIVE_TRANSACTIONS,
	FB_STAT_LIVE_DEATHS,
	FB_STAT_LIVE_PAGES,		/* buffer pages, in use or cached */
	FB_STAT_CALLS,
	FB_STAT_ONEWAYS,
	FB_STAT_REPLIES,
	FB_STAT_FAILED,
	FB_STAT_DEAD_REPLIES,
	FB_STAT_RELEASE_NOTICES,
	FB_STAT_SPAWN_REQUESTS,
	FB_STAT_ABANDONED,
	FB_STAT_COUNT
};

/* stats.c */
extern atomic64_t fb_stats[FB_STAT_COUNT];
extern const char *const fb_stat_names[FB_STAT_COUNT];

static inline void fb_stat_inc(enum fb_stat stat)
{
	atomic64_inc(&fb_stats[stat]);
}

static inline void fb_stat_dec(enum fb_stat stat)
{
	atomic64_dec(&fb_stats[stat]);
}

/* A failed send, reply or delivery (fb_record_failure(), internal.h). */
struct fb_failure {
	u64 time_ns;
	int error;
	const char *what;
	pid_t from_pid;
	pid_t to_pid;
	u64 node;
	u32 code;
};

#define FB_FAILURE_RING 64	/* the last ones kept */

unsigned int fb_failures_read(struct fb_failure *out);

#endif /* _FB_STATS_H */
