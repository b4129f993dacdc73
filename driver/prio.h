/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Priority inheritance: a thread handling a call runs at least at its
 * caller's priority and at its node's minimum, and gets its own back
 * when it replies.
 */
#ifndef _FB_PRIO_H
#define _FB_PRIO_H

#include <linux/types.h>

/* A scheduling policy and its level: rt priority, or nice otherwise. */
struct fb_prio {
	u32 policy;
	s32 level;
};

void fb_prio_of_current(struct fb_prio *prio);
void fb_prio_of_caller(struct fb_prio *prio);
bool fb_prio_from_flags(u32 flags, struct fb_prio *prio);
bool fb_prio_flags_valid(u32 flags);
bool fb_prio_higher(const struct fb_prio *a, const struct fb_prio *b);
bool fb_prio_equal(const struct fb_prio *a, const struct fb_prio *b);
bool fb_prio_allowed(const struct fb_prio *prio);
void fb_prio_set_current(const struct fb_prio *prio);

#endif /* _FB_PRIO_H */
