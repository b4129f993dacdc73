/* SPDX-License-Identifier: MIT */
/*
 * fbt_slots.h - a context manager that keeps handles in numbered slots, so
 * that processes of any uid can hand each other their objects.
 *
 * The attack tests of docs/security.md run their attackers as uid 65534;
 * a root parent starts this manager first (it stands for the system's
 * service manager, which claims handle 0 with privilege) and the
 * unprivileged processes it forks then register and look up objects:
 *
 *   fbt_slot_put(p, slot, cookie)   register one of p's own objects
 *   fbt_slot_get(p, slot, &handle)  p's handle for it, acquired (release it)
 *   fbt_slot_get_wait(p, slot)      the same, waiting for the slot to be filled
 *   fbt_slot_ping(p)                a call that is answered at once
 *
 * The manager acquires each handle it is given and keeps it until the slot
 * is overwritten, dropped (fbt_slot_drop) or the manager exits.
 */
#ifndef FBT_SLOTS_H
#define FBT_SLOTS_H

#include "fbt_proto.h"

#define FBT_SLOT_SLOTS	16
#define FBT_SLOT_COOKIE	0x5107ULL	/* the manager's own object */

/* Fork the manager (a root test calls it before dropping privileges). */
pid_t fbt_slot_spawn(void);

/* Each returns 0 or -errno (of the call, or the manager's answer). */
int fbt_slot_put(struct fbt_ctx *p, unsigned int slot, __u64 cookie);
/* fbt_slot_put() with the node's flags (FBINDER_OBJF_ACCEPTS_FDS: it takes fds). */
int fbt_slot_put_flags(struct fbt_ctx *p, unsigned int slot, __u64 cookie,
		  __u32 flags);
int fbt_slot_get(struct fbt_ctx *p, unsigned int slot, __u32 *handle);
/* fbt_slot_get() that waits up to 5 s for the slot's owner to put it, or dies. */
__u32 fbt_slot_get_wait(struct fbt_ctx *p, unsigned int slot);
int fbt_slot_drop(struct fbt_ctx *p, unsigned int slot);
int fbt_slot_ping(struct fbt_ctx *p);

#endif /* FBT_SLOTS_H */
