// SPDX-License-Identifier: MIT
/*
 * freeze.c - freezing a process (FBINDER_IOC_FREEZE) through libbinderlite.
 * A service and its client run as uid 65534 (the client freezes a process
 * of its own euid), the in-test manager and the privileged steps as root.
 *
 * The client checks: a frozen service's call fails at once with -EHOSTDOWN
 * (no timeout is given: a hang would be this test's alarm) and the query
 * says a call came; its oneway messages are queued (bl_sent_frozen()), the
 * service gets none of them while frozen, and all of them in order once
 * thawed; a freeze with a call in progress fails with -EAGAIN after its
 * timeout and leaves the service thawed, and one that waits succeeds as
 * soon as the call is answered; a stopped service is reported stopped;
 * freezing root's manager is -EPERM and a process without a context
 * -ESRCH.  Root then reads and thaws what the client froze (CAP_SYS_ADMIN
 * over another user's process), sees the cgroup v2 freezer through the same
 * query, sees fbstat's STATE column follow, and kills the service while
 * it is frozen with oneway messages held: the module's unload at the end
 * of the run finds nothing leaked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fbt_bl.h"
#include "fbt_proto.h"
#include "fbt.h"

#define SVC		"test.freeze"
#define M_ECHO		1	/* -> i32 42 */
#define M_ONEWAY	2	/* oneway, i32 seq: written to the service's pipe */
#define M_BLOCK		3	/* writes -1 to the pipe, waits for a byte of release */
#define NR_HELD		5

static int seen[2];		/* the service's pipe: what it handled */
static int release[2];		/* a byte lets M_BLOCK reply */
static pid_t mgr_pid, svc_pid;

static int32_t handler(struct bl_object *obj, uint32_t code, struct bl_reader *request,
		       struct bl_parcel *reply, const struct bl_call_info *info)
{
	int32_t seq = -1;
	char c;

	(void)obj;
	(void)info;
	switch (code) {
	case M_ECHO:
		return reply ? bl_parcel_write_i32(reply, 42) : -EINVAL;
	case M_ONEWAY:
		if (bl_reader_read_i32(request, &seq))
			return -EBADMSG;
		return write(seen[1], &seq, sizeof(seq)) == sizeof(seq) ? 0 : -EIO;
	case M_BLOCK:
		if (write(seen[1], &seq, sizeof(seq)) != sizeof(seq) ||
		    read(release[0], &c, 1) != 1)
			return -EIO;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static int svc_main(void *arg)
{
	struct bl_context *ctx;
	struct bl_object *obj;

	(void)arg;
	fbt_become_nobody();
	ctx = fbt_bl_open();
	if (bl_object_new(ctx, handler, NULL, NULL, &obj) || bl_sm_add(ctx, SVC, obj))
		die("service setup");
	bl_object_unref(obj);
	return bl_loop(ctx) ? 1 : 0;
}

/* The next seq the service handled, or -2 when none came within ms. */
static int32_t next_seen(int ms)
{
	struct pollfd p = { .fd = seen[0], .events = POLLIN };
	int32_t seq;

	if (poll(&p, 1, ms) != 1 || read(seen[0], &seq, sizeof(seq)) != sizeof(seq))
		return -2;
	return seq;
}

static uint32_t frozen_flags(struct bl_context *ctx, pid_t pid, uint32_t *queued)
{
	uint32_t flags = 0;
	int ret;

	ret = bl_frozen_info(ctx, pid, &flags, queued);
	CHECK(ret == 0, "bl_frozen_info: %s", strerror(-ret));
	return flags;
}

static void oneway(struct bl_context *ctx, uint32_t h, int32_t seq, bool frozen)
{
	struct bl_parcel p;
	int ret;

	bl_parcel_init(&p);
	bl_parcel_write_i32(&p, seq);
	ret = bl_send_oneway(ctx, h, M_ONEWAY, &p);
	CHECK(ret == 0, "oneway %d: %s", seq, strerror(-ret));
	CHECK(bl_sent_frozen() == frozen, "oneway %d: bl_sent_frozen() %d, want %d",
	      seq, bl_sent_frozen(), frozen);
	bl_parcel_fini(&p);
}

static void echo(struct bl_context *ctx, uint32_t h, int want)
{
	struct bl_reply r;
	int32_t v = 0;
	int ret;

	ret = bl_call(ctx, h, M_ECHO, NULL, &r, BL_NO_TIMEOUT);
	CHECK(ret == want, "M_ECHO: %d (%s), want %d", ret, strerror(-ret), want);
	if (ret)
		return;
	CHECK(!bl_reader_read_i32(&r.reader, &v) && v == 42, "M_ECHO answered %d", v);
	bl_reply_fini(&r);
}

struct blocked {
	struct bl_context *ctx;
	uint32_t h;
	int ret;
};

static void *block_call(void *arg)
{
	struct blocked *b = arg;
	struct bl_reply r;

	b->ret = bl_call(b->ctx, b->h, M_BLOCK, NULL, &r, BL_NO_TIMEOUT);
	if (!b->ret)
		bl_reply_fini(&r);
	return NULL;
}

/* Stopped by SIGSTOP, as /proc says: 'T' in its stat. */
static bool proc_stopped(pid_t pid)
{
	char path[64], *s, *p;
	bool stopped;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	s = fbt_slurp(path);
	p = s ? strrchr(s, ')') : NULL;
	stopped = p && p[1] == ' ' && p[2] == 'T';
	free(s);
	return stopped;
}

struct freezing {
	struct bl_context *ctx;
	atomic_int done;
	int ret;
};

static void *freezer(void *arg)
{
	struct freezing *z = arg;

	z->ret = bl_freeze(z->ctx, svc_pid, fbt_deadline_ms(10000));
	atomic_store(&z->done, 1);
	return NULL;
}

static void calls_in_progress(struct bl_context *ctx, uint32_t h)
{
	struct blocked b = { .ctx = ctx, .h = h };
	struct freezing z = { .ctx = ctx };
	pthread_t th, fz;
	long long t0;
	uint32_t f;
	int ret;

	if (pthread_create(&th, NULL, block_call, &b))
		die("pthread_create");
	CHECK(next_seen(fbt_deadline_ms(5000)) == -1, "M_BLOCK did not start");
	ret = bl_freeze(ctx, svc_pid, 0);
	CHECK(ret == -EAGAIN, "freeze, timeout 0, a call in progress: %d, want -EAGAIN", ret);
	t0 = fbt_now_ms();
	ret = bl_freeze(ctx, svc_pid, 200);
	CHECK(ret == -EAGAIN, "freeze, timeout 200 ms, a call in progress: %d, want -EAGAIN",
	      ret);
	CHECK(fbt_now_ms() - t0 >= 190, "the freeze gave up after %lld ms, before its timeout",
	      fbt_now_ms() - t0);
	f = frozen_flags(ctx, svc_pid, NULL);
	CHECK(!(f & FBINDER_FROZEN_FROZEN) && (f & FBINDER_FROZEN_CALLS_PENDING),
	      "after the failed freeze: flags %#x, want thawed with a call pending", f);
	/* the call is answered while a freeze waits for it: that one succeeds */
	if (pthread_create(&fz, NULL, freezer, &z))
		die("pthread_create");
	usleep(200000);
	CHECK(!atomic_load(&z.done), "the freeze returned %d with a call in progress", z.ret);
	if (write(release[1], "x", 1) != 1)
		die("release");
	pthread_join(fz, NULL);
	CHECK(z.ret == 0, "freeze while the call ends: %d", z.ret);
	pthread_join(th, NULL);
	CHECK(b.ret == 0, "the call in progress: %d, want answered", b.ret);
	f = frozen_flags(ctx, svc_pid, NULL);
	CHECK(f == FBINDER_FROZEN_FROZEN, "frozen after the call: flags %#x", f);
	CHECK(bl_thaw(ctx, svc_pid) == 0, "thaw");
}

static int client_main(void *arg)
{
	struct bl_context *ctx;
	uint32_t h, f, queued;
	int32_t seq;
	int i, ret;

	(void)arg;
	ctx = fbt_bl_open();
	CHECK(bl_context_features(ctx) & FBINDER_FEATURE_FREEZE,
	      "the driver has no FBINDER_FEATURE_FREEZE");
	if (bl_sm_get(ctx, SVC, 5000, &h))
		die("bl_sm_get");
	echo(ctx, h, 0);

	/* who may */
	ret = bl_freeze(ctx, mgr_pid, 0);
	CHECK(ret == -EPERM, "freezing root's manager as 65534: %d, want -EPERM", ret);
	ret = bl_frozen_info(ctx, mgr_pid, &f, NULL);
	CHECK(ret == -EPERM, "reading root's manager's freeze as 65534: %d, want -EPERM", ret);
	ret = bl_freeze(ctx, 1, 0);
	CHECK(ret == -ESRCH, "freezing a process without a context: %d, want -ESRCH", ret);

	ret = bl_freeze(ctx, svc_pid, 1000);
	CHECK(ret == 0, "freeze: %s", strerror(-ret));
	f = frozen_flags(ctx, svc_pid, NULL);
	CHECK(f == FBINDER_FROZEN_FROZEN, "frozen, nothing came yet: flags %#x", f);

	/* a call fails at once, and the query says one came */
	echo(ctx, h, -EHOSTDOWN);
	f = frozen_flags(ctx, svc_pid, NULL);
	CHECK(f == (FBINDER_FROZEN_FROZEN | FBINDER_FROZEN_SYNC_RECV),
	      "after the refused call: flags %#x", f);

	/* oneway messages wait for the thaw, in order */
	for (i = 1; i <= NR_HELD; i++)
		oneway(ctx, h, i, true);
	f = frozen_flags(ctx, svc_pid, &queued);
	CHECK(f & FBINDER_FROZEN_ASYNC_RECV, "after the oneway messages: flags %#x", f);
	CHECK(queued == NR_HELD, "%u messages queued while frozen, want %d", queued, NR_HELD);
	seq = next_seen(300);
	CHECK(seq == -2, "the frozen service handled oneway %d", seq);
	CHECK(bl_thaw(ctx, svc_pid) == 0, "thaw");
	for (i = 1; i <= NR_HELD; i++) {
		seq = next_seen(fbt_deadline_ms(5000));
		CHECK(seq == i, "after the thaw: message %d handled as #%d", seq, i);
	}
	oneway(ctx, h, NR_HELD + 1, false);
	CHECK(next_seen(fbt_deadline_ms(5000)) == NR_HELD + 1, "a oneway after the thaw");
	echo(ctx, h, 0);
	f = frozen_flags(ctx, svc_pid, &queued);
	CHECK(!(f & FBINDER_FROZEN_FROZEN) && queued == 0, "thawed: flags %#x, %u queued",
	      f, queued);

	calls_in_progress(ctx, h);

	/* a stopped process: the query says so, the driver's freeze aside */
	kill(svc_pid, SIGSTOP);
	for (i = 0; i < 500 && !proc_stopped(svc_pid); i++)
		usleep(10000);
	f = frozen_flags(ctx, svc_pid, NULL);
	CHECK(f & FBINDER_FROZEN_TASK_STOPPED, "a stopped service: flags %#x", f);
	kill(svc_pid, SIGCONT);
	echo(ctx, h, 0);

	/* left frozen with messages held, for root */
	CHECK(bl_freeze(ctx, svc_pid, 1000) == 0, "freeze again");
	for (i = 1; i <= 3; i++)
		oneway(ctx, h, 100 + i, true);
	bl_handle_release(ctx, h);
	bl_context_close(ctx);
	return fbt_failures ? 1 : 0;
}

/* fbstat's CONTEXTS row of pid ends in state (its STATE column). */
static bool fbstat_state(pid_t pid, const char *state)
{
	static char out[65536];
	char needle[32];
	const char *row, *end;

	if (fbt_run("fbstat", out, sizeof(out)))
		return false;
	snprintf(needle, sizeof(needle), "  %-12s %7d ", "fastbinder", (int)pid);
	row = strstr(out, needle);
	end = row ? strchr(row, '\n') : NULL;
	if (!end)
		return false;
	return end - row > (long)strlen(state) &&
	       !strncmp(end - strlen(state) - 1, " ", 1) &&
	       !strncmp(end - strlen(state), state, strlen(state));
}

/* The cgroup v2 freezer, seen through FBINDER_IOC_FROZEN_INFO. */
static void cgroup_freezer(struct bl_context *ctx)
{
	char dir[96], file[128], pid[16], *ev = NULL;
	uint32_t f;
	int i;

	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) &&
	    mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL))
		die("mounting cgroup2: %s", strerror(errno));
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/fbfreeze.%d", (int)getpid());
	if (mkdir(dir, 0755))
		die("mkdir %s: %s", dir, strerror(errno));
	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", (int)svc_pid);
	if (fbt_write_file(file, pid))
		die("moving the service into %s", dir);
	snprintf(file, sizeof(file), "%s/cgroup.freeze", dir);
	if (fbt_write_file(file, "1"))
		die("cgroup.freeze");
	snprintf(file, sizeof(file), "%s/cgroup.events", dir);
	for (i = 0; i < 1000; i++) {
		free(ev);
		ev = fbt_slurp(file);
		if (ev && strstr(ev, "frozen 1"))
			break;
		usleep(10000);
	}
	CHECK(ev && strstr(ev, "frozen 1"), "the cgroup did not freeze");
	free(ev);
	f = frozen_flags(ctx, svc_pid, NULL);
	CHECK(f & FBINDER_FROZEN_TASK_FROZEN, "a service in a frozen cgroup: flags %#x", f);
	snprintf(file, sizeof(file), "%s/cgroup.freeze", dir);
	fbt_write_file(file, "0");
	fbt_write_file("/sys/fs/cgroup/cgroup.procs", pid);
	rmdir(dir);
}

int main(void)
{
	struct bl_context *ctx;
	uint32_t f, queued, h;
	int ret;

	alarm(fbt_deadline_ms(60000) / 1000);
	if (pipe(seen) || pipe(release))
		die("pipe");
	mgr_pid = fbt_bl_manager_start();
	svc_pid = fbt_fork(svc_main, NULL);
	CHECK(fbt_run_as_nobody(client_main, NULL) == 0, "client");

	/* root: another user's process, CAP_SYS_ADMIN */
	ctx = fbt_bl_open();
	f = frozen_flags(ctx, svc_pid, &queued);
	CHECK(f & FBINDER_FROZEN_FROZEN && queued == 3,
	      "root reads the client's freeze: flags %#x, %u queued, want frozen with 3", f,
	      queued);
	CHECK(fbstat_state(svc_pid, "frozen"), "fbstat does not show the service frozen");
	ret = bl_thaw(ctx, svc_pid);
	CHECK(ret == 0, "root thaws another user's process: %d", ret);
	CHECK(fbstat_state(svc_pid, "-"), "fbstat does not show the service thawed");
	CHECK(next_seen(fbt_deadline_ms(5000)) == 101, "the held messages after root's thaw");
	CHECK(next_seen(fbt_deadline_ms(5000)) == 102, "the held messages after root's thaw");
	CHECK(next_seen(fbt_deadline_ms(5000)) == 103, "the held messages after root's thaw");
	cgroup_freezer(ctx);

	/* ended while frozen, with messages held: nothing may leak */
	ret = bl_freeze(ctx, svc_pid, 1000);
	CHECK(ret == 0, "root freezes another user's process: %d", ret);
	if (bl_sm_get(ctx, SVC, 5000, &h))
		die("bl_sm_get");
	CHECK(bl_send_oneway(ctx, h, M_ONEWAY, NULL) == 0 && bl_sent_frozen(),
	      "root's oneway to the frozen service");
	bl_handle_release(ctx, h);
	bl_context_close(ctx);
	fbt_bl_kill(svc_pid);
	fbt_bl_kill(mgr_pid);
	return fbt_done();
}
