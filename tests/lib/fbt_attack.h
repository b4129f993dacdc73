/* SPDX-License-Identifier: MIT */
/*
 * fbt_attack.h - helpers for the attack_*.c tests of docs/security.md.
 *
 * An attack test runs as root only to read debugfs, set module parameters
 * and start a service manager; every process that attacks, and every
 * bystander, drops to uid 65534 first (fbt_fork_nobody()).
 *
 *   fbt_param()      module parameters (read by anyone, written by root)
 *   fbt_bystander_*  a process of uid 65534 that keeps using the device
 *                    while an attack runs, and measures how long each use
 *                    took: a call to handle 0 (FBT_BY_CALL, answered by
 *                    fbt_ping_manager()), or an ioctl that only takes the
 *                    device lock (FBT_BY_LOCK), the nearest a test gets to
 *                    the longest hold of that lock
 *   fbt_memcg_*      a memory cgroup for one child, to see what the kernel
 *                    charged to it
 *   fbt_timed_call() one call of a bystander client of another user, which
 *                    must be answered within a deadline while an attack runs
 */
#ifndef FBT_ATTACK_H
#define FBT_ATTACK_H

#include <stdbool.h>
#include <sys/types.h>

#include "fbt_proto.h"

#define FBT_PARAMS	"/sys/module/fastbinder/parameters/"
#define FBT_PING	0x70696e67u	/* the bystander's call code */

/*
 * The start of a bystander client in a forked child: its own CHECK count
 * (not the parent's, from before the fork), 60 s at most, uid, and a
 * context with a buffer of map_size bytes.
 */
void fbt_client_child(struct fbt_ctx *c, uid_t uid, size_t map_size);
/* The start of any such child: its own CHECK count, and seconds at most. */
void fbt_child_begin(unsigned int seconds);

/*
 * Call i of a bystander client to handle 0 while an attack runs ("what"
 * says which, for the messages): CHECKs that a reply came within
 * deadline_ms.  Returns how long the call took, or -1 when no reply came
 * (*r is then what came instead).  The caller frees a reply's buffer.
 */
long long fbt_timed_call(struct fbt_ctx *c, __u32 code, int i, const char *what,
			 int deadline_ms, struct fbt_ret *r);

/* Module parameter name: its value, or -1 when the module has no such one. */
long long fbt_param(const char *name);
/* Writes it (root only); 0 or -errno. */
int fbt_set_param(const char *name, long long value);

/*
 * fork(); the child starts with no CHECK of its own (its checks decide its
 * exit status, not the parent's), and with nobody becomes uid 65534
 * (fbt_become_nobody()).  Returns as fork() does; dies when it fails.
 */
pid_t fbt_fork_child(bool nobody);
/* fbt_fork_child(true); the child exits with fn(arg). */
pid_t fbt_fork_nobody(int (*fn)(void *arg), void *arg);

/* Processes that tell each other how far they are, over a pipe. */
void fbt_pipe(int p[2]);			/* pipe() or die */
void fbt_tell(int fd, int value);		/* write one int or die */
int fbt_hear(int fd, int timeout_ms);		/* the int, or -1: timeout, EOF */
void fbt_await(int fd);				/* the next fbt_tell(), or die */

/* Microseconds of CLOCK_MONOTONIC. */
long long fbt_now_us(void);

/* A field of /proc/meminfo in kB, -1 if absent. */
long long fbt_meminfo_kb(const char *field);

/*
 * A manager body for fbt_spawn_manager(): answers FBT_PING calls, frees
 * every other message, and serves until it is killed.
 */
int fbt_ping_manager(struct fbt_ctx *p, void *arg);
/* The handler inside it, for managers that do more: 1 if r was a ping. */
int fbt_answer_ping(struct fbt_ctx *p, const struct fbt_ret *r);

enum fbt_by_mode {
	FBT_BY_CALL,	/* call handle 0 with FBT_PING, wait for the reply */
	FBT_BY_LOCK,	/* FBINDER_IOC_SET_MAX_THREADS: the device lock, no more */
};

struct fbt_by_shared;

struct fbt_bystander {
	pid_t pid;
	struct fbt_by_shared *sh;
};

struct fbt_by_result {
	long long uses;		/* completed calls or ioctls */
	long long failed;	/* calls that did not get their reply */
	int first_error;	/* -errno of the first failure */
	long long max_us;	/* the longest one */
};

/* Starts a bystander; returns once it made its first call. */
void fbt_bystander_start(struct fbt_bystander *b, enum fbt_by_mode mode);
/* Stops it, waits for it, prints a "#" line with what it saw. */
void fbt_bystander_stop(struct fbt_bystander *b, struct fbt_by_result *res);
/*
 * Stops it and checks what it saw: at least one use, none failed, none
 * longer than deadline_ms.
 */
void fbt_bystander_check(struct fbt_bystander *b, int deadline_ms);

/*
 * A memory cgroup of its own, a new one each call (cgroup v2, mounted on /sys/fs/cgroup if it
 * is not yet).  0, or -errno when the kernel offers no memory controller:
 * path is then empty and the other calls do nothing.
 */
int fbt_memcg_create(char *path, size_t len);
int fbt_memcg_add(const char *path, pid_t pid);
/* A "key value" line of memory.stat (bytes), or -1. */
long long fbt_memcg_stat(const char *path, const char *key);
/* memory.current (bytes), or -1. */
long long fbt_memcg_current(const char *path);
void fbt_memcg_remove(const char *path);

#endif /* FBT_ATTACK_H */
