// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: what the driver counts and remembers for debugfs (debugfs.c
 * renders it).
 *
 *   fb_stats    global counters (stats.h), atomic, no lock
 *   failures    the last FB_FAILURE_RING failed sends, replies and
 *               deliveries, so "why did my call fail" has an answer; with
 *               module parameter debug also logged, rate-limited
 *
 * fb_failure_lock guards the ring.  Failures are recorded with
 * fb_device.lock held, so it nests inside that lock, and nothing is taken
 * inside it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/spinlock.h>

#include "internal.h"
#include "stats.h"

atomic64_t fb_stats[FB_STAT_COUNT];

const char *const fb_stat_names[FB_STAT_COUNT] = {
	[FB_STAT_LIVE_CONTEXTS] = "live_contexts",
	[FB_STAT_LIVE_THREADS] = "live_threads",
	[FB_STAT_LIVE_NODES] = "live_nodes",
	[FB_STAT_LIVE_HANDLES] = "live_handles",
	[FB_STAT_LIVE_BUFFERS] = "live_buffers",
	[FB_STAT_LIVE_TRANSACTIONS] = "live_transactions",
	[FB_STAT_LIVE_DEATHS] = "live_death_links",
	[FB_STAT_LIVE_PAGES] = "live_pages",
	[FB_STAT_CALLS] = "calls",
	[FB_STAT_ONEWAYS] = "oneways",
	[FB_STAT_REPLIES] = "replies",
	[FB_STAT_FAILED] = "failed",
	[FB_STAT_DEAD_REPLIES] = "dead_replies",
	[FB_STAT_RELEASE_NOTICES] = "release_notices",
	[FB_STAT_SPAWN_REQUESTS] = "spawn_requests",
	[FB_STAT_ABANDONED] = "abandoned_calls",
};

static bool fb_debug;
module_param_named(debug, fb_debug, bool, 0644);
MODULE_PARM_DESC(debug,
		 "Also log each failed send or reply to the kernel log, rate-limited (default 0)");

static DEFINE_SPINLOCK(fb_failure_lock);
static struct fb_failure fb_failures[FB_FAILURE_RING];
static unsigned int fb_failure_next;	/* total recorded */

void fb_record_failure(int error, const char *what, struct fb_ctx *from,
		       struct fb_node *target, u32 code)
{
	fb_record_failure_pid(error, what, from->pid, target, code);
}

/* The same for a sender known by its pid only (its context may be gone). */
void fb_record_failure_pid(int error, const char *what, struct pid *from,
			   struct fb_node *target, u32 code)
{
	struct fb_failure *f;

	fb_stat_inc(FB_STAT_FAILED);
	spin_lock(&fb_failure_lock);
	f = &fb_failures[fb_failure_next++ % FB_FAILURE_RING];
	f->time_ns = ktime_get_ns();
	f->error = error;
	f->what = what;
	f->from_pid = pid_nr(from);
	f->to_pid = target && target->owner ? pid_nr(target->owner->pid) : 0;
	f->node = target ? target->debug_id : 0;
	f->code = code;
	if (fb_debug)
		pr_info_ratelimited("%s from pid %d to pid %d (node %llu, code %u) failed: %d\n",
				    what, f->from_pid, f->to_pid, f->node,
				    code, error);
	spin_unlock(&fb_failure_lock);
}

/*
 * Copies the failures the ring holds into out (FB_FAILURE_RING entries),
 * oldest first; returns how many.
 */
unsigned int fb_failures_read(struct fb_failure *out)
{
	unsigned int i, first, n = 0;

	spin_lock(&fb_failure_lock);
	first = fb_failure_next > FB_FAILURE_RING ?
		fb_failure_next - FB_FAILURE_RING : 0;
	for (i = first; i < fb_failure_next; i++)
		out[n++] = fb_failures[i % FB_FAILURE_RING];
	spin_unlock(&fb_failure_lock);
	return n;
}
