/* SPDX-License-Identifier: MIT */
/*
 * fbt.h - small helpers for the VM tests (see tests/README.md).
 *
 * A test is a static program: exit status 0 means pass, FBT_SKIP (77)
 * skipped, anything else failed.  CHECK() reports a failed condition with
 * file:line and marks the test failed but carries on, so one run shows
 * every broken check; fbt_done() turns that into the exit status.  die() is
 * for conditions after which nothing else makes sense.  fbt_skip() says
 * that a check could not run here: the test then ends as skipped (unless
 * something failed), never as a pass that checked less than it claims.
 */
#ifndef FBT_H
#define FBT_H

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <linux/fastbinder.h>
#include <linux/types.h>

#define FBT_DEV "/dev/fastbinder"

/* Set by a failed CHECK(); fbt_done() returns 1 when it is set. */
extern int fbt_failures;
/* Number of CHECK()s evaluated, for the closing line of fbt_done(). */
extern int fbt_checks;

void fbt_check_failed(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* CHECK(cond, fmt, ...): print "not ok file:line: message" when cond is false. */
#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		fbt_checks++;                                                   \
		if (!(cond))                                                   \
			fbt_check_failed(__FILE__, __LINE__, __VA_ARGS__);      \
	} while (0)

/* Print "fatal file:line: message [: strerror(errno)]" and exit(1). */
#define die(...) fbt_die(__FILE__, __LINE__, __VA_ARGS__)
void fbt_die(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

/* Exit status of a skipped test (the suite counts it apart, never as a pass). */
#define FBT_SKIP 77
/* Set by fbt_skip(); fbt_done() returns FBT_SKIP when set and nothing failed. */
extern int fbt_skips;
/* Print "# skipped: message" and mark the test skipped; carries on. */
void fbt_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a summary line and return the exit status for main(). */
int fbt_done(void);

/* open(FBT_DEV, O_RDWR | O_CLOEXEC) or die. */
int fbt_open(void);

/*
 * Open the device and mmap() its receive buffer, read-only, of map_size
 * bytes (0: FBT_TEST_MAP_SIZE).  Dies on failure; *map may be NULL.
 */
#define FBT_TEST_MAP_SIZE (1024 * 1024)
int fbt_open_map(size_t map_size, void **map);

/* FBINDER_IOC_WRITE_READ with the given buffers; returns 0 or -errno. */
int fbt_write_read(int fd, void *wbuf, size_t wsize, size_t *wconsumed,
		  void *rbuf, size_t rsize, size_t *rconsumed);

/* fork() and run fn(arg) in the child, which exits with fn's return value. */
pid_t fbt_fork(int (*fn)(void *arg), void *arg);

/*
 * Wait for pid; returns its exit status, or 128 + signal if it was killed,
 * or -1 on error.  fbt_wait_ok() CHECKs that the status is 0.
 */
int fbt_wait(pid_t pid);
#define fbt_wait_ok(pid) \
	CHECK(fbt_wait(pid) == 0, "child %d did not exit with 0", (int)(pid))

/*
 * The adversary of docs/security.md: become uid/gid 65534 with no
 * supplementary groups, no capabilities, RLIMIT_RTPRIO and RLIMIT_NICE 0
 * and no_new_privs, then prove it (SCHED_FIFO and a negative nice must
 * fail with EPERM).  Dies if any step fails.  A root parent that reads
 * debugfs forks first and calls this in the child.
 */
#define FBT_NOBODY_UID 65534
void fbt_become_nobody(void);
/* The same as uid (and gid) uid: another unprivileged user. */
void fbt_become_user(uid_t uid);

/*
 * fbt_fork() a child that calls fbt_become_nobody(), then fn(arg); waits for
 * it and returns its status as fbt_wait() does.  A root test keeps what
 * needs root (a service manager it started) and runs the rest through it.
 */
int fbt_run_as_nobody(int (*fn)(void *arg), void *arg);

/*
 * Writes text to the file at path (a /proc or /sys setting) in one write:
 * 0, -errno, or -EIO when the write was short.
 */
int fbt_write_file(const char *path, const char *text);

/*
 * Root: runs the kernel's shrinkers once, the module's among them
 * ("2" to /proc/sys/vm/drop_caches: slab objects); dies on failure.
 */
void fbt_drop_caches(void);

/* The kernel's struct sched_attr (glibc's headers clash with the uapi one). */
struct fbt_sched_attr {
	__u32 size;
	__u32 sched_policy;
	__u64 sched_flags;
	__s32 sched_nice;
	__u32 sched_priority;
	__u64 sched_runtime;
	__u64 sched_deadline;
	__u64 sched_period;
};

/* The calling thread's scheduling settings, as sched_getattr(2) has them. */
struct fbt_sched {
	__u32 policy;
	__u32 rt;	/* sched_priority */
	__s32 nice;
	__u64 flags;	/* sched_flags (SCHED_FLAG_RESET_ON_FORK ...) */
};

/* Reads them (dies if it cannot). */
void fbt_sched_get(struct fbt_sched *s);
/* sched_setattr(2) of the calling thread: 0 or -errno. */
int fbt_sched_set(__u32 policy, __u32 rt, __s32 nice, __u64 flags);

/*
 * A deadline of ms milliseconds on a normal kernel, times FBINDER_SLOW (a
 * number, 1 by default; make check-debug sets it: everything takes
 * several times longer under KASAN and lockdep).  For the deadlines that
 * say "bounded", not for the timeouts that stop a wait.
 */
int fbt_deadline_ms(int ms);

/* Milliseconds of CLOCK_MONOTONIC. */
long long fbt_now_ms(void);

/*
 * Runs a shell command (insmod, rmmod ...): its exit status (128 if it did
 * not exit), and its stdout and stderr in out when out is not NULL.
 */
int fbt_run(const char *cmd, char *out, size_t outlen);

/*
 * The descriptors open in process pid (0: this one, without the one the
 * count itself opens), from /proc/<pid>/fd; -1 when it cannot be read.
 */
int fbt_count_fds(pid_t pid);

/*
 * The calling process's security label as its /proc/self/attr/current
 * shows it, in the form the driver delivers it (FBINDER_TXN_SECCTX): the
 * newline, and AppArmor's " (MODE)" after a confined profile, cut.  ""
 * when no LSM of the kernel provides one (the file cannot be read).
 */
void fbt_own_label(char *buf, size_t n);

#endif /* FBT_H */
