/* SPDX-License-Identifier: MIT */
/*
 * fbt_sm.h - helpers for the VM tests of fb-servicemanager (tests/servicemanager/):
 * start and stop the real daemon, and small services that register a name
 * as some uid and answer two methods.
 */
#ifndef FBT_SM_H
#define FBT_SM_H

#include <sys/types.h>

#include "binderlite.h"

/* Methods of the test services. */
#define FBT_SM_ADD_ONE	1	/* i32 v -> i32 v + 1 */
#define FBT_SM_NAME	2	/* -> string: the name it registered */

/*
 * Starts fb-servicemanager with the extra arguments (NULL-terminated
 * array, or NULL) and waits up to 5 s until it answers a list request.
 * Dies when it does not come up.
 */
pid_t fbt_sm_manager_start(const char *const *args);

/* SIGTERM, then its exit status as fbt_wait() gives it. */
int fbt_sm_manager_stop(pid_t pid);

/*
 * Forks a service: as uid (0: stay root; else uid and gid both), opens a
 * context, registers name and serves with one pool thread until killed.
 * *add_ret gets bl_sm_add()'s result; when it failed the child has exited
 * (reaped here) and the pid returned is 0.
 */
pid_t fbt_sm_service_start(const char *name, uid_t uid, int *add_ret);

/*
 * Calls FBT_SM_ADD_ONE on handle h: 0 with *out = v + 1, the call's error,
 * or the service's status.
 */
int fbt_sm_call_add_one(struct bl_context *ctx, uint32_t h, int32_t v, int32_t *out);

/*
 * The process that really is the manager fbt_sm_manager_start() returned:
 * itself, or $FBT_SM_MANAGER_PID when a wrapper stands in for a manager that
 * already runs (valgrind_user.sh: the manager runs under memcheck).
 */
pid_t fbt_sm_manager_process(pid_t started);

#endif /* FBT_SM_H */
