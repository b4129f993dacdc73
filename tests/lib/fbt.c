// SPDX-License-Identifier: MIT
/*
 * fbt.c - helpers for the VM tests, see fbt.h.
 */
#include "fbt.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int fbt_failures;
int fbt_checks;
int fbt_skips;

void fbt_check_failed(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fbt_failures++;
	fprintf(stdout, "not ok %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

void fbt_die(const char *file, int line, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stdout, "fatal %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stdout, ": %s", strerror(err));
	fputc('\n', stdout);
	fflush(stdout);
	exit(1);
}

void fbt_skip(const char *fmt, ...)
{
	va_list ap;

	fbt_skips++;
	fputs("# skipped: ", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

int fbt_done(void)
{
	const char *verdict = fbt_failures ? "not ok" : fbt_skips ? "skipped" : "ok";

	printf("%s: %d checks, %d failed, %d skipped\n", verdict, fbt_checks,
	       fbt_failures, fbt_skips);
	fflush(stdout);
	return fbt_failures ? 1 : fbt_skips ? FBT_SKIP : 0;
}

long long fbt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int fbt_open(void)
{
	int fd = open(FBT_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open %s", FBT_DEV);
	return fd;
}

int fbt_open_map(size_t map_size, void **map)
{
	int fd = fbt_open();
	void *p;

	if (!map_size)
		map_size = FBT_TEST_MAP_SIZE;
	p = mmap(NULL, map_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("mmap %zu bytes of %s", map_size, FBT_DEV);
	if (map)
		*map = p;
	return fd;
}

int fbt_write_read(int fd, void *wbuf, size_t wsize, size_t *wconsumed,
		  void *rbuf, size_t rsize, size_t *rconsumed)
{
	struct fbinder_write_read wr = {
		.write_buffer = (unsigned long)wbuf,
		.write_size = wsize,
		.read_buffer = (unsigned long)rbuf,
		.read_size = rsize,
	};
	int ret = ioctl(fd, FBINDER_IOC_WRITE_READ, &wr) < 0 ? -errno : 0;

	if (wconsumed)
		*wconsumed = wr.write_consumed;
	if (rconsumed)
		*rconsumed = wr.read_consumed;
	return ret;
}

pid_t fbt_fork(int (*fn)(void *arg), void *arg)
{
	pid_t pid;

	fflush(NULL);	/* or buffered output is printed twice */
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

int fbt_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

void fbt_become_user(uid_t uid)
{
	const struct rlimit zero = { 0, 0 };
	struct sched_param sp = { .sched_priority = 1 };

	if (setrlimit(RLIMIT_RTPRIO, &zero) || setrlimit(RLIMIT_NICE, &zero))
		die("setrlimit");
	if (setgroups(0, NULL))
		die("setgroups");
	if (setgid(uid))
		die("setgid");
	if (setuid(uid))
		die("setuid");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("PR_SET_NO_NEW_PRIVS");
	/*
	 * The uid change made us undumpable, which a user's own process is
	 * not: its peers of the same uid could not see /proc/PID/fd.
	 */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		die("PR_SET_DUMPABLE");
	if (getuid() != uid || geteuid() != uid || getgid() != uid ||
	    getegid() != uid)
		die("still privileged ids");
	/* the proof: no way up by ourselves */
	errno = 0;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0 || errno != EPERM)
		die("SCHED_FIFO did not fail with EPERM");
	errno = 0;
	/* setpriority(2) says EACCES for a lower nice without privilege */
	if (setpriority(PRIO_PROCESS, 0, -1) == 0 ||
	    (errno != EACCES && errno != EPERM))
		die("nice -1 did not fail with EACCES");
	errno = 0;
}

void fbt_become_nobody(void)
{
	fbt_become_user(FBT_NOBODY_UID);
}

int fbt_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n == (ssize_t)len ? 0 : n < 0 ? (int)n : -EIO;
}

void fbt_drop_caches(void)
{
	if (fbt_write_file("/proc/sys/vm/drop_caches", "2"))
		die("drop_caches");
}

struct fbinder_nobody_call {
	int (*fn)(void *arg);
	void *arg;
};

static int fbinder_nobody_child(void *arg)
{
	const struct fbinder_nobody_call *c = arg;

	fbt_become_nobody();
	return c->fn(c->arg);
}

int fbt_run_as_nobody(int (*fn)(void *arg), void *arg)
{
	struct fbinder_nobody_call c = { fn, arg };

	return fbt_wait(fbt_fork(fbinder_nobody_child, &c));
}

int fbt_run(const char *cmd, char *out, size_t outlen)
{
	char line[512];
	size_t len = 0;
	FILE *f;
	int st;

	fflush(NULL);
	snprintf(line, sizeof(line), "%s 2>&1", cmd);
	f = popen(line, "r");
	if (!f)
		die("popen %s", cmd);
	if (out && outlen)
		out[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (out && len + strlen(line) < outlen) {
			strcpy(out + len, line);
			len += strlen(line);
		}
	}
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int fbt_deadline_ms(int ms)
{
	const char *v = getenv("FBINDER_SLOW");
	double slow = v ? strtod(v, NULL) : 1;

	return slow > 1 ? (int)(ms * slow) : ms;
}

void fbt_sched_get(struct fbt_sched *s)
{
	struct fbt_sched_attr attr;

	memset(&attr, 0, sizeof(attr));
	if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0))
		die("sched_getattr");
	s->policy = attr.sched_policy;
	s->rt = attr.sched_priority;
	s->nice = attr.sched_nice;
	s->flags = attr.sched_flags;
}

int fbt_sched_set(__u32 policy, __u32 rt, __s32 nice, __u64 flags)
{
	struct fbt_sched_attr attr = { .size = sizeof(attr) };

	attr.sched_policy = policy;
	attr.sched_priority = rt;
	attr.sched_nice = nice;
	attr.sched_flags = flags;
	return syscall(SYS_sched_setattr, 0, &attr, 0) ? -errno : 0;
}

void fbt_own_label(char *buf, size_t n)
{
	ssize_t len;
	char *mode;
	int fd;

	buf[0] = '\0';
	fd = open("/proc/self/attr/current", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	len = read(fd, buf, n - 1);
	close(fd);
	if (len < 0) {
		buf[0] = '\0';
		return;
	}
	buf[len] = '\0';
	len = (ssize_t)strlen(buf);
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	mode = strstr(buf, " (");
	if (mode && len && buf[len - 1] == ')')
		*mode = '\0';
}

int fbt_count_fds(pid_t pid)
{
	char path[64];
	struct dirent *e;
	int n = 0;
	DIR *d;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/fd");
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return pid && pid != getpid() ? n : n - 1;
}
