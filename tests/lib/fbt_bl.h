/* SPDX-License-Identifier: MIT */
/*
 * fbt_bl.h - helpers for the VM tests that go through libbinderlite
 * (tests/library/): a minimal in-test service manager, so the library's
 * tests do not depend on the real one, and small timing helpers.
 */
#ifndef FBT_BL_H
#define FBT_BL_H

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

#endif /* FBT_BL_H */
