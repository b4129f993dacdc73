/* SPDX-License-Identifier: MIT */
/*
 * fbslots.h - a context manager that keeps handles in numbered slots, so
 * that processes of any uid can hand each other their objects.
 *
 * The attack tests of docs/security.md run their attackers as uid 65534;
 * a root parent starts this manager first (it stands for the system's
 * service manager, which claims handle 0 with privilege) and the
 * unprivileged processes it forks then register and look up objects:
 *
 *   fbs_put(p, slot, cookie)   register one of p's own objects
 *   fbs_get(p, slot, &handle)  p's handle for it, acquired (release it)
 *   fbs_get_wait(p, slot)      the same, waiting for the slot to be filled
 *   fbs_ping(p)                a call that is answered at once
 *
 * The manager acquires each handle it is given and keeps it until the slot
 * is overwritten, dropped (fbs_drop) or the manager exits.
 */
#ifndef FBSLOTS_H
#define FBSLOTS_H

#include "fbproto.h"

#define FBS_SLOTS	16
#define FBS_COOKIE	0x5107ULL	/* the manager's own object */

/* Fork the manager (a root test calls it before dropping privileges). */
pid_t fbs_spawn(void);

/* Each returns 0 or -errno (of the call, or the manager's answer). */
int fbs_put(struct fbp *p, unsigned int slot, __u64 cookie);
/* fbs_put() with the node's flags (FBINDER_OBJF_ACCEPTS_FDS: it takes fds). */
int fbs_put_flags(struct fbp *p, unsigned int slot, __u64 cookie,
		  __u32 flags);
int fbs_get(struct fbp *p, unsigned int slot, __u32 *handle);
/* fbs_get() that waits up to 5 s for the slot's owner to put it, or dies. */
__u32 fbs_get_wait(struct fbp *p, unsigned int slot);
int fbs_drop(struct fbp *p, unsigned int slot);
int fbs_ping(struct fbp *p);

#endif /* FBSLOTS_H */
