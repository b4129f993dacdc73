// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: what the driver counts and remembers for debugfs (debugfs.c
 * renders it) and FBINDER_IOC_INFO (info.c).
 *
 *   fbinder_stat_cpu global counters (stats.h), per CPU, no lock
 *   failures    the last FBINDER_FAILURE_RING failed sends, replies and
 *               deliveries, so "why did my call fail" has an answer; with
 *               module parameter debug also logged, rate-limited; each is
 *               also a fastbinder_failed trace event, and wakes the readers
 *               waiting for one (FBINDER_INFO_WAIT, info.c)
 *
 * fbinder_failure_lock guards the ring.  Failures are recorded with
 * fbinder_device.lock held, so it nests inside that lock, and nothing is taken
 * inside it.  The ring holds references on the pids it names, so that a
 * reader in another pid namespace can translate them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "internal.h"
#include "stats.h"
#include "trace.h"

DEFINE_PER_CPU(struct fbinder_stat_cpu, fbinder_stat_cpu);

/*
 * The sum of every CPU's count.  Read while others update it, an object
 * made and freed on two CPUs during the read may be seen freed only: a sum
 * below zero is such a moment, and reads 0 (every counter counts things).
 */
s64 fbinder_stat_read(enum fbinder_stat stat)
{
	s64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&fbinder_stat_cpu, cpu)->v[stat]);
	return max_t(s64, sum, 0);
}

/*
 * The longest hold of a teardown batch (internal.h) in ns, and the most
 * objects one freed: debugfs max_hold_ns and max_hold_objects.
 */
atomic64_t fbinder_max_hold_ns;
atomic64_t fbinder_max_hold_objects;

static void fbinder_atomic_max(atomic64_t *max, s64 val)
{
	s64 old = atomic64_read(max);

	while (val > old && !atomic64_try_cmpxchg(max, &old, val))
		;
}

void fbinder_hold_start_locked(struct fbinder_hold *b, struct fbinder_device *dev)
{
	lockdep_assert_held(&dev->lock);
	b->dev = dev;
	b->ctx = NULL;
	b->n = 0;
	b->start = ktime_get_ns();
}

/* The same, for a loop that holds ctx's lock inside the device lock too. */
void fbinder_hold_start_clocked(struct fbinder_hold *b, struct fbinder_ctx *ctx)
{
	lockdep_assert_held(&ctx->lock);
	fbinder_hold_start_locked(b, ctx->dev);
	b->ctx = ctx;
}

void fbinder_hold_end_locked(struct fbinder_hold *b)
{
	lockdep_assert_held(&b->dev->lock);
	fbinder_atomic_max(&fbinder_max_hold_ns, ktime_get_ns() - b->start);
	fbinder_atomic_max(&fbinder_max_hold_objects, b->n);
}

/*
 * One object freed: after FBINDER_BATCH of them, lets the others have the
 * lock.  True when it dropped it: what the caller found may have changed.
 */
bool fbinder_hold_step_relock(struct fbinder_hold *b)
	__must_hold(&b->dev->lock)
{
	lockdep_assert_held(&b->dev->lock);
	if (++b->n < FBINDER_BATCH)
		return false;
	fbinder_hold_end_locked(b);
	spin_unlock(&b->dev->lock);
	cond_resched();
	spin_lock(&b->dev->lock);
	fbinder_hold_start_locked(b, b->dev);
	return true;
}

/* The same for a loop that holds b->ctx's lock inside the device lock. */
bool fbinder_hold_step_crelock(struct fbinder_hold *b)
	__must_hold(&b->dev->lock) __must_hold(&b->ctx->lock)
{
	struct fbinder_ctx *ctx = b->ctx;

	lockdep_assert_held(&ctx->lock);
	if (++b->n < FBINDER_BATCH)
		return false;
	fbinder_hold_end_locked(b);
	spin_unlock(&ctx->lock);
	spin_unlock(&b->dev->lock);
	cond_resched();
	spin_lock(&b->dev->lock);
	spin_lock(&ctx->lock);
	fbinder_hold_start_clocked(b, ctx);
	return true;
}

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

const char *const fbinder_failure_names[] = {
	[FBINDER_FAILED_SEND] = "send",
	[FBINDER_FAILED_REPLY] = "reply",
	[FBINDER_FAILED_DELIVER] = "deliver",
};

static DEFINE_SPINLOCK(fbinder_failure_lock);
static struct fbinder_failure fbinder_failures[FBINDER_FAILURE_RING];
static u64 fbinder_failure_next;	/* total recorded */
/* FBINDER_INFO_WAIT readers (info.c) */
static DECLARE_WAIT_QUEUE_HEAD(fbinder_failure_wait);

static void fbinder_failure_clear(struct fbinder_failure *f)
{
	put_pid(f->from);
	put_pid(f->to);
	f->from = NULL;
	f->to = NULL;
}

static void fbinder_record(int error, enum fbinder_failure_what what,
			   struct pid *from, kuid_t from_uid, struct fbinder_ctx *owner,
			   struct fbinder_node *target, u32 code,
			   unsigned long ip)
{
	struct fbinder_failure *f;

	fbinder_stat_inc(FBINDER_STAT_FAILED);
	trace_fastbinder_failed(error, what, from, target, code, ip);
	spin_lock(&fbinder_failure_lock);
	f = &fbinder_failures[fbinder_failure_next++ % FBINDER_FAILURE_RING];
	fbinder_failure_clear(f);
	f->seq = fbinder_failure_next;
	f->time_ns = ktime_get_ns();
	f->error = error;
	f->what = what;
	f->from = get_pid(from);
	f->from_uid = from_uid;
	f->to = owner ? get_pid(owner->pid) : NULL;
	f->to_uid = owner ? owner->euid : INVALID_UID;
	f->node = target ? target->debug_id : 0;
	f->code = code;
	if (fbinder_debug)
		pr_info_ratelimited("%s from pid %d to pid %d (node %llu, code %u) failed: %d\n",
				    fbinder_failure_names[what], pid_nr(from),
				    pid_nr(f->to), f->node, code, error);
	spin_unlock(&fbinder_failure_lock);
	if (wq_has_sleeper(&fbinder_failure_wait))
		wake_up_interruptible_all(&fbinder_failure_wait);
}

/*
 * A failed send or reply of from, to the node target of to (pinned, or
 * both NULL); the caller counts it in from->failed, under from's lock.
 */
void fbinder_record_failure(int error, enum fbinder_failure_what what,
			    struct fbinder_ctx *from, struct fbinder_ctx *to,
			    struct fbinder_node *target, u32 code)
{
	fbinder_record(error, what, from->pid, from->euid, to, target, code,
		       _RET_IP_);
}

/* The same for a sender known by its pid only (its context may be gone). */
void fbinder_record_failure_pid(int error, enum fbinder_failure_what what,
				struct pid *from, kuid_t from_uid,
				struct fbinder_ctx *to, struct fbinder_node *target,
				u32 code)
{
	fbinder_record(error, what, from, from_uid, to, target, code, _RET_IP_);
}

unsigned int fbinder_failures_read(struct fbinder_failure *out, u64 seq)
{
	u64 i, first;
	unsigned int n = 0;

	spin_lock(&fbinder_failure_lock);
	first = fbinder_failure_next > FBINDER_FAILURE_RING ?
		fbinder_failure_next - FBINDER_FAILURE_RING : 0;
	first = max(first, seq);
	for (i = first; i < fbinder_failure_next; i++) {
		out[n] = fbinder_failures[i % FBINDER_FAILURE_RING];
		get_pid(out[n].from);
		get_pid(out[n].to);
		n++;
	}
	spin_unlock(&fbinder_failure_lock);
	return n;
}

void fbinder_failures_put(struct fbinder_failure *f, unsigned int n)
{
	while (n--)
		fbinder_failure_clear(&f[n]);
}

/* The number of the newest failure, 0 before the first. */
u64 fbinder_failures_seq(void)
{
	u64 seq;

	spin_lock(&fbinder_failure_lock);
	seq = fbinder_failure_next;
	spin_unlock(&fbinder_failure_lock);
	return seq;
}

/* Sleeps until a failure newer than seq is recorded: 0 or -ERESTARTSYS. */
int fbinder_failures_wait(u64 seq)
{
	return wait_event_interruptible(fbinder_failure_wait,
					fbinder_failures_seq() > seq);
}

/* Module unload: the ring's references on pids. */
void fbinder_stats_exit(void)
{
	fbinder_failures_put(fbinder_failures, FBINDER_FAILURE_RING);
}
