/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Priority inheritance: a thread handling a call runs at least at its
 * caller's priority and at its node's minimum, and gets its own back
 * when it replies.  While raised it has SCHED_RESET_ON_FORK, so no child
 * inherits the raise.
 */
#ifndef _FB_PRIO_H
#define _FB_PRIO_H

#include <linux/types.h>

struct task_struct;

/* A scheduling policy and its level: rt priority, or nice otherwise. */
struct fbinder_prio {
	u32 policy;
	s32 level;
	bool reset_on_fork;	/* a thread's own flag, given back with it */
};

void fbinder_prio_of_current(struct fbinder_prio *prio);
void fbinder_prio_of_caller(struct fbinder_prio *prio);
bool fbinder_prio_from_flags(u32 flags, struct fbinder_prio *prio);
bool fbinder_prio_flags_valid(u32 flags);
bool fbinder_prio_higher(const struct fbinder_prio *a, const struct fbinder_prio *b);
bool fbinder_prio_equal(const struct fbinder_prio *a, const struct fbinder_prio *b);
bool fbinder_prio_allowed(const struct fbinder_prio *prio);
void fbinder_prio_raise_current(const struct fbinder_prio *prio);
void fbinder_prio_restore(struct task_struct *task, const struct fbinder_prio *own);

#endif /* _FB_PRIO_H */
