// SPDX-License-Identifier: MIT
/*
 * fbt_attack.c - helpers for the attack_*.c tests, see fbt_attack.h.
 */
#include "fbt_attack.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

long long fbt_param(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), FBT_PARAMS "%s", name);
	return fbt_read_number(path);
}

int fbt_set_param(const char *name, long long value)
{
	char path[256], v[32];

	snprintf(path, sizeof(path), FBT_PARAMS "%s", name);
	snprintf(v, sizeof(v), "%lld", value);
	return fbt_write_file(path, v);
}

pid_t fbt_fork_child(bool nobody)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		fbt_failures = 0;
		fbt_checks = 0;
		if (nobody)
			fbt_become_nobody();
	}
	return pid;
}

pid_t fbt_fork_nobody(int (*fn)(void *arg), void *arg)
{
	pid_t pid = fbt_fork_child(true);

	if (pid == 0) {
		int ret = fn(arg);

		fflush(NULL);
		_exit(ret);
	}
	return pid;
}

void fbt_pipe(int p[2])
{
	if (pipe(p))
		die("pipe");
}

void fbt_tell(int fd, int value)
{
	if (write(fd, &value, sizeof(value)) != sizeof(value))
		die("write to pipe");
}

int fbt_hear(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int value;

	if (poll(&pfd, 1, timeout_ms) != 1 ||
	    read(fd, &value, sizeof(value)) != sizeof(value))
		return -1;
	return value;
}

void fbt_await(int fd)
{
	if (fbt_hear(fd, -1) < 0)
		die("read from pipe");
}

long long fbt_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

long long fbt_meminfo_kb(const char *field)
{
	char *s = fbt_slurp("/proc/meminfo"), *line, *save = NULL;
	size_t n = strlen(field);
	long long kb = -1;

	if (!s)
		return -1;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, field, n) && line[n] == ':') {
			kb = strtoll(line + n + 1, NULL, 10);
			break;
		}
	free(s);
	return kb;
}

/* ---- the ping manager ---- */

int fbt_answer_ping(struct fbt_ctx *p, const struct fbt_ret *r)
{
	if (r->cmd != FBINDER_RET_TRANSACTION || r->msg.code != FBT_PING ||
	    (r->msg.flags & FBINDER_TXN_ONEWAY))
		return 0;
	fbt_reply(p, &r->msg, 0, NULL, 0, NULL, 0);
	return 1;
}

static int ping_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	(void)arg;
	if (fbt_answer_ping(p, r) || r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (!(r->msg.flags & FBINDER_TXN_ONEWAY))
		fbt_reply(p, &r->msg, 0, NULL, 0, NULL, 0);
	else
		fbt_free_buffer(p, r->msg.data);
	return 0;
}

int fbt_ping_manager(struct fbt_ctx *p, void *arg)
{
	int ret;

	(void)arg;
	for (;;) {
		ret = fbt_serve(p, ping_handler, NULL);
		if (ret != -EINTR)
			return ret ? 1 : 0;
	}
}

/* ---- the bystander ---- */

struct fbt_by_shared {
	int mode;			/* enum fbt_by_mode, set before the fork */
	_Atomic int ready;
	_Atomic int stop;
	_Atomic long long uses, failed, max_us;
	_Atomic int first_error;
};

static void by_failed(struct fbt_by_shared *sh, int err)
{
	int zero = 0;

	atomic_fetch_add(&sh->failed, 1);
	atomic_compare_exchange_strong(&sh->first_error, &zero, err);
}

static int by_main(void *arg)
{
	struct fbt_by_shared *sh = arg;
	enum fbt_by_mode mode = sh->mode;
	struct fbt_ctx p;

	fbt_ctx_open(&p, mode == FBT_BY_CALL ? 64 * 1024 : 0);
	while (!atomic_load(&sh->stop)) {
		long long t0 = fbt_now_us(), dt;
		struct fbt_ret r;
		__u32 max = 0;
		int ret;

		if (mode == FBT_BY_CALL) {
			ret = fbt_call(&p, 0, FBT_PING, NULL, 0, NULL, 0, &r, NULL, NULL);
			if (!ret && r.cmd != FBINDER_RET_REPLY)
				ret = r.cmd == FBINDER_RET_FAILED ? r.err.error : -EPROTO;
			if (!ret)
				fbt_free_buffer(&p, r.msg.data);
		} else {
			ret = ioctl(p.fd, FBINDER_IOC_SET_MAX_THREADS, &max) < 0 ? -errno : 0;
		}
		dt = fbt_now_us() - t0;
		if (ret)
			by_failed(sh, ret);
		else
			atomic_fetch_add(&sh->uses, 1);
		if (dt > atomic_load(&sh->max_us))
			atomic_store(&sh->max_us, dt);
		atomic_store(&sh->ready, 1);
		usleep(2000);
	}
	fbt_ctx_close(&p);
	return 0;
}

void fbt_bystander_start(struct fbt_bystander *b, enum fbt_by_mode mode)
{
	long long deadline = fbt_now_ms() + 10000;

	b->sh = mmap(NULL, sizeof(*b->sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (b->sh == MAP_FAILED)
		die("mmap");
	memset(b->sh, 0, sizeof(*b->sh));
	b->sh->mode = mode;
	b->pid = fbt_fork_nobody(by_main, b->sh);
	while (!atomic_load(&b->sh->ready)) {
		if (fbt_now_ms() > deadline)
			die("the bystander made no call in 10 s");
		usleep(1000);
	}
}

void fbt_bystander_stop(struct fbt_bystander *b, struct fbt_by_result *res)
{
	atomic_store(&b->sh->stop, 1);
	CHECK(fbt_wait(b->pid) == 0, "the bystander did not exit cleanly");
	res->uses = atomic_load(&b->sh->uses);
	res->failed = atomic_load(&b->sh->failed);
	res->first_error = atomic_load(&b->sh->first_error);
	res->max_us = atomic_load(&b->sh->max_us);
	printf("# bystander: %lld done, %lld failed (first: %s), longest %lld us\n",
	       res->uses, res->failed, res->failed ? strerror(-res->first_error) : "none",
	       res->max_us);
	munmap(b->sh, sizeof(*b->sh));
	b->sh = NULL;
}

void fbt_bystander_check(struct fbt_bystander *b, int deadline_ms)
{
	struct fbt_by_result res;

	fbt_bystander_stop(b, &res);
	CHECK(res.failed == 0 && res.uses > 0,
	      "the bystander: %lld done, %lld failed (first: %s)", res.uses,
	      res.failed, strerror(-res.first_error));
	CHECK(res.max_us <= deadline_ms * 1000LL,
	      "a bystander's call took %lld ms during the attack, deadline %d ms",
	      res.max_us / 1000, deadline_ms);
}

/* ---- memory cgroup ---- */

#define CGROOT "/sys/fs/cgroup"

int fbt_memcg_create(char *path, size_t len)
{
	static int seq;
	char *ctl;
	int ret;

	path[0] = 0;
	if (access(CGROOT "/cgroup.controllers", F_OK)) {
		mkdir(CGROOT, 0755);
		if (mount("cgroup2", CGROOT, "cgroup2", 0, NULL))
			return -errno;
	}
	ctl = fbt_slurp(CGROOT "/cgroup.controllers");
	if (!ctl || !strstr(ctl, "memory")) {
		free(ctl);
		return -ENOENT;
	}
	free(ctl);
	ret = fbt_write_file(CGROOT "/cgroup.subtree_control", "+memory");
	if (ret)
		return ret;
	/* one process may make several */
	snprintf(path, len, CGROOT "/fbattack.%d.%d", (int)getpid(), seq++);
	if (mkdir(path, 0755) && errno != EEXIST) {
		ret = -errno;
		path[0] = 0;
		return ret;
	}
	return 0;
}

int fbt_memcg_add(const char *path, pid_t pid)
{
	char file[300], v[32];

	if (!path[0])
		return -ENOENT;
	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	snprintf(v, sizeof(v), "%d", (int)pid);
	return fbt_write_file(file, v);
}

long long fbt_memcg_stat(const char *path, const char *key)
{
	char file[300], *s, *line, *save = NULL;
	size_t n = strlen(key);
	long long v = -1;

	if (!path[0])
		return -1;
	snprintf(file, sizeof(file), "%s/memory.stat", path);
	s = fbt_slurp(file);
	if (!s)
		return -1;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, n) && line[n] == ' ') {
			v = strtoll(line + n + 1, NULL, 10);
			break;
		}
	free(s);
	return v;
}

long long fbt_memcg_current(const char *path)
{
	char file[300], *s;
	long long v = -1;

	if (!path[0])
		return -1;
	snprintf(file, sizeof(file), "%s/memory.current", path);
	s = fbt_slurp(file);
	if (s)
		v = strtoll(s, NULL, 10);
	free(s);
	return v;
}

void fbt_memcg_remove(const char *path)
{
	int i;

	if (!path[0])
		return;
	/* a process just reaped may take a moment to leave it */
	for (i = 0; i < 100 && rmdir(path) && errno == EBUSY; i++)
		usleep(10000);
}

void fbt_child_begin(unsigned int seconds)
{
	fbt_failures = 0;
	alarm(seconds);
}

void fbt_client_child(struct fbt_ctx *c, uid_t uid, size_t map_size)
{
	fbt_child_begin(60);
	fbt_become_user(uid);
	fbt_ctx_open(c, map_size);
}

long long fbt_timed_call(struct fbt_ctx *c, __u32 code, int i, const char *what,
			 int deadline_ms, struct fbt_ret *r)
{
	long long t0 = fbt_now_ms(), ms;
	int rc = fbt_call(c, 0, code, "b", 1, NULL, 0, r, NULL, NULL);

	ms = fbt_now_ms() - t0;
	CHECK(rc == 0 && r->cmd == FBINDER_RET_REPLY, "B: call %d %s: %s %s error %d", i, what,
	      strerror(-rc), rc ? "" : fbt_ret_name(r->cmd), rc ? 0 : r->err.error);
	if (rc || r->cmd != FBINDER_RET_REPLY)
		return -1;
	CHECK(ms <= deadline_ms, "B: call %d took %lld ms, deadline %d", i, ms, deadline_ms);
	return ms;
}
