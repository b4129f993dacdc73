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
 * (fbinder_prio_allowed()).
 */
#include <linux/capability.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/sched/signal.h>
#include <uapi/linux/sched/types.h>

#include "prio.h"
#include "trace.h"
#include <linux/fastbinder.h>

void fbinder_prio_of_current(struct fbinder_prio *prio)
{
	prio->policy = current->policy;
	prio->level = fbinder_policy_is_rt(current->policy) ?
		current->rt_priority : task_nice(current);
	prio->reset_on_fork = current->sched_reset_on_fork;
}

/* What a call made by the current thread passes on to its handler. */
void fbinder_prio_of_caller(struct fbinder_prio *prio)
{
	fbinder_prio_of_current(prio);
	if (prio->policy == SCHED_DEADLINE)
		prio->policy = SCHED_NORMAL;
}

bool fbinder_prio_flags_valid(u32 flags)
{
	s32 level = (s8)(flags & FBINDER_OBJF_PRIO_MASK);

	if (flags & ~(FBINDER_OBJF_MIN_PRIO | FBINDER_OBJF_PRIO_RT | FBINDER_OBJF_PRIO_MASK))
		return false;
	if (!(flags & FBINDER_OBJF_MIN_PRIO))
		return !(flags & ~FBINDER_OBJF_MIN_PRIO);
	if (flags & FBINDER_OBJF_PRIO_RT)
		return (flags & FBINDER_OBJF_PRIO_MASK) >= 1 &&
		       (flags & FBINDER_OBJF_PRIO_MASK) < MAX_RT_PRIO;
	return level >= MIN_NICE && level <= MAX_NICE;
}

/* The minimum a node's flags ask for; false when they ask for none. */
bool fbinder_prio_from_flags(u32 flags, struct fbinder_prio *prio)
{
	if (!(flags & FBINDER_OBJF_MIN_PRIO))
		return false;
	if (flags & FBINDER_OBJF_PRIO_RT) {
		prio->policy = SCHED_FIFO;
		prio->level = flags & FBINDER_OBJF_PRIO_MASK;
	} else {
		prio->policy = SCHED_NORMAL;
		prio->level = (s8)(flags & FBINDER_OBJF_PRIO_MASK);
	}
	prio->reset_on_fork = false;
	return true;
}

/*
 * Whether the current process may have its threads raised to prio (a
 * node's minimum): as sched_setattr() and setpriority() judge a raise by
 * an unprivileged caller, within RLIMIT_RTPRIO for a real-time priority,
 * RLIMIT_NICE for a nice value (20 - nice <= the limit), else only with
 * CAP_SYS_NICE.  The limits are checked first, so a process within them
 * never shows up as a capability check.
 */
bool fbinder_prio_allowed(const struct fbinder_prio *prio)
{
	if (fbinder_policy_is_rt(prio->policy)) {
		if ((unsigned long)prio->level <= rlimit(RLIMIT_RTPRIO))
			return true;
	} else if ((unsigned long)nice_to_rlimit(prio->level) <=
		   rlimit(RLIMIT_NICE)) {
		return true;
	}
	return capable(CAP_SYS_NICE);
}

static void fbinder_prio_set(struct task_struct *task, const struct fbinder_prio *prio,
			     bool reset_on_fork)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = prio->policy,
	};

	if (fbinder_policy_is_rt(prio->policy))
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
void fbinder_prio_raise_current(const struct fbinder_prio *prio)
{
	trace_fastbinder_prio_raise(current, prio);
	fbinder_prio_set(current, prio, true);
}

/* Gives task back its own settings, its own reset-on-fork flag included. */
void fbinder_prio_restore(struct task_struct *task, const struct fbinder_prio *own)
{
	trace_fastbinder_prio_restore(task, own);
	fbinder_prio_set(task, own, own->reset_on_fork);
}
