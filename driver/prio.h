/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Priority inheritance: a thread handling a call runs at least at its
 * caller's priority and at its node's minimum, and gets its own back
 * when it replies.  While raised it has SCHED_RESET_ON_FORK, so no child
 * inherits the raise.
 */
#ifndef _FBINDER_PRIO_H
#define _FBINDER_PRIO_H

#include <linux/sched/prio.h>
#include <linux/types.h>
#include <uapi/linux/sched.h>

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

static inline bool fbinder_policy_is_rt(u32 policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* One ordered scale: -1 idle, 0..39 nice 19..-20, 41..139 rt 1..99, 140 dl. */
static inline int fbinder_prio_rank(const struct fbinder_prio *prio)
{
	if (prio->policy == SCHED_DEADLINE)
		return 40 + MAX_RT_PRIO;
	if (fbinder_policy_is_rt(prio->policy))
		return 40 + prio->level;
	if (prio->policy == SCHED_IDLE)
		return -1;
	return 19 - prio->level;
}

/* Inline: compared on every call a thread takes. */
static inline bool fbinder_prio_higher(const struct fbinder_prio *a,
				       const struct fbinder_prio *b)
{
	return fbinder_prio_rank(a) > fbinder_prio_rank(b);
}

static inline bool fbinder_prio_equal(const struct fbinder_prio *a,
				      const struct fbinder_prio *b)
{
	return a->policy == b->policy && a->level == b->level;
}

bool fbinder_prio_allowed(const struct fbinder_prio *prio);
void fbinder_prio_raise_current(const struct fbinder_prio *prio);
void fbinder_prio_restore(struct task_struct *task, const struct fbinder_prio *own);

#endif /* _FBINDER_PRIO_H */
