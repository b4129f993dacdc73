/* SPDX-License-Identifier: MIT */
/*
 * fbt_bl.h - helpers for the VM tests that go through libbinderlite
 * (tests/library/): a minimal in-test service manager, so the library's
 * tests do not depend on the real one, and small timing helpers.
 */
#ifndef FBT_BL_H
#define FBT_BL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "binderlite.h"

/*
 * Forks a process that becomes the context manager and answers
 * BL_SM_ADD / BL_SM_CHECK / BL_SM_LIST from a small table (no death
 * tracking, no policy), and waits until it answers.  Returns its pid.
 */
pid_t fbt_bl_manager_start(void);

/* SIGKILL and reap. */
void fbt_bl_kill(pid_t pid);

/* bl_context_open() of the default device, or die. */
struct bl_context *fbt_bl_open(void);

/*
 * The body of a forked service that is handle 0 itself: opens a context,
 * makes an object served by handler (taking descriptors when accept_fds)
 * the context manager (root's privilege), drops to uid 65534, writes one
 * byte to ready and serves until killed.  Dies on any failure.
 */
void fbt_bl_serve_as_manager(bl_handler_fn handler, bool accept_fds, int ready)
	__attribute__((noreturn));

#endif /* FBT_BL_H */
