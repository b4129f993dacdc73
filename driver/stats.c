// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: what the driver counts and remembers for debugfs (debugfs.c
 * renders it).
 *
 *   fbinder_stats    global counters (stats.h), atomic, no lock
 *   failures    the last FBINDER_FAILURE_RING failed sends, replies and
 *               deliveries, so "why did my call fail" has an answer; with
 *               module parameter debug also logged, rate-limited
 *
 * fbinder_failure_lock guards the ring.  Failures are recorded with
 * fbinder_device.lock held, so it nests inside that lock, and nothing is taken
 * inside it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/spinlock.h>

#include "internal.h"
#include "stats.h"

atomic64_t fbinder_stats[FBINDER_STAT_COUNT];

const char *const fbinder_stat_names[FBINDER_STAT_COUNT] = {
	[FBINDER_STAT_LIVE_CONTEXTS] = "live_contexts",
	[FBINDER_STAT_LIVE_THREADS] = "live_threads",
	[FBINDER_STAT_LIVE_NODES] = "live_nodes",
	[FBINDER_STAT_LIVE_HANDLES] = "live_handles",
	[FBINDER_STAT_LIVE_BUFFERS] = "live_buffers",
	[FBINDER_STAT_LIVE_TRANSACTIONS] = "live_transactions",
	[FBINDER_STAT_LIVE_DEATHS] = "live_death_links",
	[FBINDER_STAT_LIVE_PAGES] = "live_pages",
	[FBINDER_STAT_LIVE_REGIONS] = "live_regions",
	[FBINDER_STAT_CALLS] = "calls",
	[FBINDER_STAT_ONEWAYS] = "oneways",
	[FBINDER_STAT_REPLIES] = "replies",
	[FBINDER_STAT_FAILED] = "failed",
	[FBINDER_STAT_DEAD_REPLIES] = "dead_replies",
	[FBINDER_STAT_RELEASE_NOTICES] = "release_notices",
	[FBINDER_STAT_SPAWN_REQUESTS] = "spawn_requests",
	[FBINDER_STAT_ABANDONED] = "abandoned_calls",
};

static bool fbinder_debug;
module_param_named(debug, fbinder_debug, bool, 0644);
MODULE_PARM_DESC(debug,
		 "Also log each failed send or reply to the kernel log, rate-limited (default 0)");

static DEFINE_SPINLOCK(fbinder_failure_lock);
static struct fbinder_failure fbinder_failures[FBINDER_FAILURE_RING];
static unsigned int fbinder_failure_next;	/* total recorded */

void fbinder_record_failure(int error, const char *what, struct fbinder_ctx *from,
			    struct fbinder_node *target, u32 code)
{
	fbinder_record_failure_pid(error, what, from->pid, target, code);
}

/* The same for a sender known by its pid only (its context may be gone). */
void fbinder_record_failure_pid(int error, const char *what, struct pid *from,
				struct fbinder_node *target, u32 code)
{
	struct fbinder_failure *f;

	fbinder_stat_inc(FBINDER_STAT_FAILED);
	spin_lock(&fbinder_failure_lock);
	f = &fbinder_failures[fbinder_failure_next++ % FBINDER_FAILURE_RING];
	f->time_ns = ktime_get_ns();
	f->error = error;
	f->what = what;
	f->from_pid = pid_nr(from);
	f->to_pid = target && target->owner ? pid_nr(target->owner->pid) : 0;
	f->node = target ? target->debug_id : 0;
	f->code = code;
	if (fbinder_debug)
		pr_info_ratelimited("%s from pid %d to pid %d (node %llu, code %u) failed: %d\n",
				    what, f->from_pid, f->to_pid, f->node,
				    code, error);
	spin_unlock(&fbinder_failure_lock);
}

/*
 * Copies the failures the ring holds into out (FBINDER_FAILURE_RING entries),
 * oldest first; returns how many.
 */
unsigned int fbinder_failures_read(struct fbinder_failure *out)
{
	unsigned int i, first, n = 0;

	spin_lock(&fbinder_failure_lock);
	first = fbinder_failure_next > FBINDER_FAILURE_RING ?
		fbinder_failure_next - FBINDER_FAILURE_RING : 0;
	for (i = first; i < fbinder_failure_next; i++)
		out[n++] = fbinder_failures[i % FBINDER_FAILURE_RING];
	spin_unlock(&fbinder_failure_lock);
	return n;
}
