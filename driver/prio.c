// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: priority inheritance.
 *
 * Levels compare across policies: any real-time priority beats any nice
 * value, SCHED_IDLE is below both.  A SCHED_DEADLINE thread ranks above
 * all, so the driver never changes it (it could not give its runtime
 * back), and passes on only its nice value as a caller.  Changes go through
 * sched_setattr_nocheck(), which is exported on every supported kernel
 * and may sleep: callers hold no spinlock.
 *
 * Nothing here raises a thread beyond what its own process could set:
 * a caller's priority is passed on only to the handler of its call, and
 * a node's minimum is accepted only within its owner's rights
 * (fb_prio_allowed()).
 */
#include <linux/capability.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/sched/signal.h>
#include <uapi/linux/sched/types.h>

#include "prio.h"
#include <linux/fastbinder.h>

static bool fb_policy_is_rt(u32 policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* One ordered scale: -1 idle, 0..39 nice 19..-20, 41..139 rt 1..99, 140 dl. */
static int fb_prio_rank(const struct fb_prio *prio)
{
	if (prio->policy == SCHED_DEADLINE)
		return 40 + MAX_RT_PRIO;
	if (fb_policy_is_rt(prio->policy))
		return 40 + prio->level;
	if (prio->policy == SCHED_IDLE)
		return -1;
	return 19 - prio->level;
}

void fb_prio_of_current(struct fb_prio *prio)
{
	prio->policy = current->policy;
	prio->level = fb_policy_is_rt(current->policy) ?
		current->rt_priority : task_nice(current);
	prio->reset_on_fork = current->sched_reset_on_fork;
}

/* What a call made by the current thread passes on to its handler. */
void fb_prio_of_caller(struct fb_prio *prio)
{
	fb_prio_of_current(prio);
	if (prio->policy == SCHED_DEADLINE)
		prio->policy = SCHED_NORMAL;
}

bool fb_prio_flags_valid(u32 flags)
{
	s32 level = (s8)(flags & FB_OBJF_PRIO_MASK);

	if (flags & ~(FB_OBJF_MIN_PRIO | FB_OBJF_PRIO_RT | FB_OBJF_PRIO_MASK))
		return false;
	if (!(flags & FB_OBJF_MIN_PRIO))
		return !(flags & ~FB_OBJF_MIN_PRIO);
	if (flags & FB_OBJF_PRIO_RT)
		return (flags & FB_OBJF_PRIO_MASK) >= 1 &&
		       (flags & FB_OBJF_PRIO_MASK) < MAX_RT_PRIO;
	return level >= MIN_NICE && level <= MAX_NICE;
}

/* The minimum a node's flags ask for; false when they ask for none. */
bool fb_prio_from_flags(u32 flags, struct fb_prio *prio)
{
	if (!(flags & FB_OBJF_MIN_PRIO))
		return false;
	if (flags & FB_OBJF_PRIO_RT) {
		prio->policy = SCHED_FIFO;
		prio->level = flags & FB_OBJF_PRIO_MASK;
	} else {
		prio->policy = SCHED_NORMAL;
		prio->level = (s8)(flags & FB_OBJF_PRIO_MASK);
	}
	prio->reset_on_fork = false;
	return true;
}

bool fb_prio_higher(const struct fb_prio *a, const struct fb_prio *b)
{
	return fb_prio_rank(a) > fb_prio_rank(b);
}

bool fb_prio_equal(const struct fb_prio *a, const struct fb_prio *b)
{
	return a->policy == b->policy && a->level == b->level;
}

/*
 * Whether the current process may have its threads raised to prio (a
 * node's minimum): as sched_setattr() and setpriority() judge a raise by
 * an unprivileged caller, within RLIMIT_RTPRIO for a real-time priority,
 * RLIMIT_NICE for a nice value (20 - nice <= the limit), else only with
 * CAP_SYS_NICE.  The limits are checked first, so a process within them
 * never shows up as a capability check.
 */
bool fb_prio_allowed(const struct fb_prio *prio)
{
	if (fb_policy_is_rt(prio->policy)) {
		if ((unsigned long)prio->level <= rlimit(RLIMIT_RTPRIO))
			return true;
	} else if ((unsigned long)nice_to_rlimit(prio->level) <=
		   rlimit(RLIMIT_NICE)) {
		return true;
	}
	return capable(CAP_SYS_NICE);
}

static void fb_prio_set(struct task_struct *task, const struct fb_prio *prio,
			bool reset_on_fork)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = prio->policy,
	};

	if (fb_policy_is_rt(prio->policy))
		attr.sched_priority = prio->level;
	else
		attr.sched_nice = prio->level;
	if (reset_on_fork)
		attr.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
	/* nocheck: the driver grants what the caller or owner had */
	sched_setattr_nocheck(task, &attr);
}

/*
 * Raises the current thread.  SCHED_RESET_ON_FORK while raised: a child
 * (process or thread) starts at the defaults, never at the raise.
 */
void fb_prio_raise_current(const struct fb_prio *prio)
{
	fb_prio_set(current, prio, true);
}

/* Gives task back its own settings, its own reset-on-fork flag included. */
void fb_prio_restore(struct task_struct *task, const struct fb_prio *own)
{
	fb_prio_set(task, own, own->reset_on_fork);
}
