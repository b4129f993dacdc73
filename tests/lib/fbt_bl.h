/* SPDX-License-Identifier: MIT */
/*
 * bltest.h - helpers for the VM tests that go through libbinderlite
 * (tests/vm/lib_*.c): a minimal in-test service manager, so the library's
 * tests do not depend on the real one, and small timing helpers.
 */
#ifndef BLTEST_H
#define BLTEST_H

#include <stdint.h>
#include <sys/types.h>

#include "binderlite.h"

/*
 * Forks a process that becomes the context manager and answers
 * BL_SM_ADD / BL_SM_CHECK / BL_SM_LIST from a small table (no death
 * tracking, no policy), and waits until it answers.  Returns its pid.
 */
pid_t blt_manager_start(void);

/* SIGKILL and reap. */
void blt_kill(pid_t pid);

/* bl_context_open() of the default device, or die. */
struct bl_context *blt_open(void);

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t blt_now_ms(void);

#endif /* BLTEST_H */
