// SPDX-License-Identifier: MIT
/*
 * info_ioctl: FBINDER_IOC_INFO (docs/abi.md, Information) against debugfs
 * and docs/security.md.  As root: the counters equal debugfs "stats"; each
 * context's pid, queue, pool, node and handle counts and mapping equal
 * debugfs "state"; calls and oneway messages count on the sender, the
 * receiver and the node; a failed send is a failure entry with its errno,
 * sender, code and number; FBINDER_INFO_WAIT sleeps until the next failure
 * and a signal ends the wait; bad arguments get EINVAL or EFAULT; a
 * shorter entry size gets the entries' start, a longer one zeroes after.
 * As uid 65534: only its own context, no root node, no root failure, its
 * own failure into root's manager without the manager's pid; as uid 65533:
 * nothing of 65534's; root as pid 1 of a new pid namespace: nothing of
 * the processes outside it.
 */
#define _GNU_SOURCE
#include "fbt_proto.h"

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define S_MAP		(64 * 1024)
#define CODE_QUIT	1
#define CODE_CALL	5
#define CODE_ONEWAY	6
#define CODE_BADH	0x1f0bad01u
#define CODE_WAIT	0x1f0bad02u
#define CODE_BIG	0x1f0bad03u
#define MAX_E		256

static const char *const counter_names[FBINDER_COUNTER_COUNT] = {
	"live_contexts", "live_threads", "live_nodes", "live_handles",
	"live_buffers", "live_transactions", "live_death_links", "live_pages",
	"calls", "oneways", "replies", "failed", "dead_replies",
	"release_notices", "spawn_requests", "abandoned_calls", "live_regions",
};

/* FBINDER_IOC_INFO into buf (room entries of esize); 0 or -errno. */
static int info_ex(int fd, __u32 what, __u32 flags, void *buf, __u32 esize,
		   __u32 room, __u64 *seq, struct fbinder_info *out)
{
	struct fbinder_info in = {
		.what = what, .flags = flags, .entry_size = esize, .count = room,
		.seq = seq ? *seq : 0, .entries = (__u64)(uintptr_t)buf,
	};

	if (ioctl(fd, FBINDER_IOC_INFO, &in))
		return -errno;
	if (seq)
		*seq = in.seq;
	if (out)
		*out = in;
	return (int)in.count;
}

static int get_contexts(int fd, struct fbinder_info_context *e)
{
	return info_ex(fd, FBINDER_INFO_CONTEXTS, 0, e, sizeof(*e), MAX_E, NULL, NULL);
}

static int get_nodes(int fd, struct fbinder_info_node *e)
{
	return info_ex(fd, FBINDER_INFO_NODES, 0, e, sizeof(*e), MAX_E, NULL, NULL);
}

static int get_failures(int fd, __u64 *seq, struct fbinder_info_failure *e)
{
	return info_ex(fd, FBINDER_INFO_FAILURES, 0, e, sizeof(*e), 64, seq, NULL);
}

/* A child's end: its CHECK lines out before _exit(). */
static int child_done(void)
{
	fflush(NULL);
	return fbt_child_status();
}

static const struct fbinder_info_context *ctx_of(const struct fbinder_info_context *e,
						 int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if ((pid_t)e[i].pid == pid)
			return &e[i];
	return NULL;
}

/* The manager: replies to calls, frees oneway messages, until CODE_QUIT. */
static int m_main(struct fbt_ctx *p, void *arg)
{
	struct fbt_ret r;

	(void)arg;
	alarm(60);
	while (fbt_next(p, &r) == 0) {
		if (r.cmd != FBINDER_RET_TRANSACTION)
			continue;
		if (r.msg.flags & FBINDER_TXN_ONEWAY) {
			fbt_free_buffer(p, r.msg.data);
			continue;
		}
		fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0);
		if (r.msg.code == CODE_QUIT)
			break;
	}
	return 0;
}

/*
 * debugfs "stats" and the counters, value by value.  The two are read at
 * different moments, and a live count may move in between (a record of
 * an exited process freed by its deferred release): compare again, up to
 * a deadline, until one pass sees them all agree; a count that never
 * agrees is reported from the last pass.
 */
static void check_counters(int fd)
{
	__u64 v[FBINDER_COUNTER_COUNT + 4];
	long long d[FBINDER_COUNTER_COUNT], t0 = fbt_now_ms();
	int ok[FBINDER_COUNTER_COUNT];
	struct fbinder_info in;
	int n;

	do {
		int agree = 1;

		n = info_ex(fd, FBINDER_INFO_COUNTERS, 0, v, sizeof(v[0]),
			    FBINDER_COUNTER_COUNT + 4, NULL, &in);
		for (int i = 0; i < n && i < FBINDER_COUNTER_COUNT; i++) {
			ok[i] = fbt_stat(counter_names[i], &d[i]) == 0 && (__u64)d[i] == v[i];
			agree &= ok[i];
		}
		if (agree)
			break;
		usleep(50000);
	} while (fbt_now_ms() - t0 < fbt_deadline_ms(2000));
	CHECK(n == FBINDER_COUNTER_COUNT && in.total == FBINDER_COUNTER_COUNT &&
	      in.version == FBINDER_INFO_VERSION && in.entry_size == 8,
	      "counters: %d of %u, version %u, entry size %u", n, in.total,
	      in.version, in.entry_size);
	for (int i = 0; i < n && i < FBINDER_COUNTER_COUNT; i++)
		CHECK(ok[i], "counter %s: %llu, debugfs says %lld", counter_names[i],
		      (unsigned long long)v[i], d[i]);
}

/* Each context of debugfs "state" against its entry. */
static void check_state(int fd)
{
	struct fbinder_info_context e[MAX_E];
	const struct fbinder_info_context *c = NULL;
	char *s = fbt_slurp(FBT_DEBUGFS "/state"), *line, *save = NULL;
	int n = get_contexts(fd, e), seen = 0, nodes = 0, handles = 0;
	bool buffers = false;
	long long live;

	CHECK(n > 0 && s, "contexts: %d, state %s", n, s ? "read" : "unread");
	CHECK(fbt_stat("live_contexts", &live) == 0 && live == n,
	      "root sees %d contexts, live_contexts is %lld", n, live);
	for (line = s ? strtok_r(s, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int q, m, r, st;
		unsigned long long sz, res;
		int pid;

		if (!buffers && sscanf(line, " context pid %d queued %u max_threads %u requested %u started %u",
				       &pid, &q, &m, &r, &st) == 5) {
			if (c)
				CHECK(c->nodes == (__u32)nodes && c->handles == (__u32)handles,
				      "pid %u: %u nodes, %u handles; state lists %d, %d",
				      c->pid, c->nodes, c->handles, nodes, handles);
			c = ctx_of(e, n, pid);
			nodes = handles = 0;
			seen++;
			CHECK(c && c->queued == q && c->max_threads == m &&
			      c->requested_threads == r && c->started_threads == st &&
			      !strcmp(c->device, "fastbinder"),
			      "state \"%s\" vs the entry of pid %d", line, pid);
		} else if (!buffers && c && !strncmp(line, "  node ", 7)) {
			nodes++;
		} else if (!buffers && c && !strncmp(line, "  handle ", 9)) {
			handles++;
		} else if (!strcmp(line, "buffers")) {
			if (c)
				CHECK(c->nodes == (__u32)nodes && c->handles == (__u32)handles,
				      "pid %u: %u nodes, %u handles; state lists %d, %d",
				      c->pid, c->nodes, c->handles, nodes, handles);
			buffers = true;
		} else if (buffers && sscanf(line, " context pid %d mapping %llu bytes, %llu pages resident",
					     &pid, &sz, &res) == 3) {
			c = ctx_of(e, n, pid);
			CHECK(c && c->map_size == sz && c->pages_resident == res,
			      "state \"%s\" vs the entry of pid %d", line, pid);
		}
	}
	CHECK(seen == n, "state lists %d contexts, FBINDER_INFO_CONTEXTS %d", seen, n);
	free(s);
}

static int waiter(void *arg)
{
	struct fbinder_info_failure e[64];
	__u64 seq = *(__u64 *)arg;
	int fd = fbt_open(), n;

	alarm(20);
	n = info_ex(fd, FBINDER_INFO_FAILURES, FBINDER_INFO_WAIT, e, sizeof(e[0]),
		    64, &seq, NULL);
	CHECK(n >= 1 && e[0].code == CODE_WAIT && e[0].error == -ENOENT,
	      "the wait returned %d, first code %#x", n, n > 0 ? e[0].code : 0);
	return child_done();
}

static void check_args(int fd)
{
	struct fbinder_info in = { .what = FBINDER_INFO_CONTEXTS, .entry_size = 8 };
	struct fbinder_info_context e[4];
	__u8 raw[MAX_E * 16];
	int n;

	in.reserved[1] = 1;
	CHECK(ioctl(fd, FBINDER_IOC_INFO, &in) && errno == EINVAL, "reserved set: %s", strerror(errno));
	CHECK(info_ex(fd, 9, 0, e, sizeof(e[0]), 4, NULL, NULL) == -EINVAL, "what 9");
	CHECK(info_ex(fd, FBINDER_INFO_CONTEXTS, 0, e, 0, 4, NULL, NULL) == -EINVAL,
	      "entry size 0");
	CHECK(info_ex(fd, FBINDER_INFO_CONTEXTS, 0, e, 12, 4, NULL, NULL) == -EINVAL,
	      "entry size 12");
	CHECK(info_ex(fd, FBINDER_INFO_CONTEXTS, 0, e, 2048, 4, NULL, NULL) == -EINVAL,
	      "entry size 2048");
	CHECK(info_ex(fd, FBINDER_INFO_CONTEXTS, FBINDER_INFO_WAIT, e, sizeof(e[0]), 4,
		      NULL, NULL) == -EINVAL, "WAIT on contexts");
	CHECK(info_ex(fd, FBINDER_INFO_CONTEXTS, 2, e, sizeof(e[0]), 4, NULL, NULL) == -EINVAL,
	      "unknown flag");
	CHECK(info_ex(fd, FBINDER_INFO_COUNTERS, 0, e, 8, 0xffffffffu, NULL, NULL) == -EINVAL,
	      "count 2^32 - 1");
	CHECK(info_ex(fd, FBINDER_INFO_CONTEXTS, 0, (void *)8, sizeof(e[0]), 4, NULL,
		      NULL) == -EFAULT, "entries at address 8");
	CHECK(info_ex(fd, FBINDER_INFO_CONTEXTS, 0, NULL, sizeof(e[0]), 0, NULL, NULL) == 0,
	      "room 0: nothing written, no fault");

	/* a shorter entry: its start; a longer one: zeroes after */
	memset(raw, 0xab, sizeof(raw));
	n = info_ex(fd, FBINDER_INFO_CONTEXTS, 0, raw, 16, MAX_E, NULL, NULL);
	CHECK(n > 0, "entry size 16: %d", n);
	for (int i = 0; i < n; i++) {
		__u32 pid;

		memcpy(&pid, raw + i * 16 + 8, sizeof(pid));
		CHECK(pid > 0, "entry %d of 16 bytes: pid %u", i, pid);
	}
	CHECK(raw[n * 16] == 0xab, "wrote past %d entries of 16 bytes", n);
	memset(raw, 0xab, sizeof(raw));
	n = info_ex(fd, FBINDER_INFO_CONTEXTS, 0, raw, sizeof(e[0]) + 16, 4, NULL, &in);
	CHECK(n > 0 && in.entry_size == sizeof(e[0]), "longer entries: %d, size %u", n,
	      in.entry_size);
	for (int i = 0; i < n; i++)
		for (size_t k = sizeof(e[0]); k < sizeof(e[0]) + 16; k++)
			CHECK(raw[i * (sizeof(e[0]) + 16) + k] == 0,
			      "byte %zu of longer entry %d not zeroed", k, i);
}

struct nobody_arg {
	pid_t root_pid, mgr_pid, nobody_pid;
	__u64 mgr_node;
	int ready[2], done[2];
};

/* uid 65534: only its own context; its failure without root's pid. */
static int nobody_main(void *argp)
{
	struct nobody_arg *a = argp;
	struct fbinder_info_context c[MAX_E];
	struct fbinder_info_node nd[MAX_E];
	struct fbinder_info_failure f[64];
	static unsigned char big[S_MAP + 64];
	__u64 seq = 0;
	struct fbt_ctx p;
	struct fbt_ret r;
	int n, ret;
	char ch = 0;

	fbt_ctx_open(&p, MB);
	n = get_contexts(p.fd, c);
	CHECK(n == 1 && (pid_t)c[0].pid == getpid() && c[0].euid == FBT_NOBODY_UID,
	      "uid 65534 sees %d contexts (first pid %u euid %u), want only its own", n,
	      n > 0 ? c[0].pid : 0, n > 0 ? c[0].euid : 0);
	CHECK(get_nodes(p.fd, nd) == 0, "uid 65534 sees root's nodes");
	n = get_failures(p.fd, &seq, f);
	for (int i = 0; i < n; i++)
		CHECK((pid_t)f[i].from_pid != a->root_pid,
		      "uid 65534 sees root's failure %llu (code %#x)",
		      (unsigned long long)f[i].seq, f[i].code);
	ret = fbt_call(&p, 0, CODE_BIG, big, sizeof(big), NULL, 0, &r, NULL, NULL);
	CHECK(ret == -EMSGSIZE, "oversized call: %d", ret);
	n = get_failures(p.fd, &seq, f);
	CHECK(n == 1 && (pid_t)f[0].from_pid == getpid() && f[0].to_pid == 0 &&
	      f[0].node == a->mgr_node && f[0].code == CODE_BIG && f[0].error == -EMSGSIZE,
	      "own failure: %d entries, from %u to %u node %llu code %#x", n,
	      n > 0 ? f[0].from_pid : 0, n > 0 ? f[0].to_pid : 0,
	      n > 0 ? (unsigned long long)f[0].node : 0, n > 0 ? f[0].code : 0);
	CHECK(info_ex(p.fd, FBINDER_INFO_COUNTERS, 0, c, 8, 4, NULL, NULL) == 4,
	      "uid 65534 reads the counters");
	/* let uid 65533 look, with this context still open */
	if (write(a->ready[1], &ch, 1) != 1 || read(a->done[0], &ch, 1) != 1)
		die("pipe");
	fbt_ctx_close(&p);
	return child_done();
}

/* uid 65533: nothing of 65534's context or failure. */
static int other_main(void *argp)
{
	struct nobody_arg *a = argp;
	struct fbinder_info_context c[MAX_E];
	struct fbinder_info_failure f[64];
	__u64 seq = 0;
	int fd, n;

	fbt_become_user(65533);
	fd = fbt_open();
	n = get_contexts(fd, c);
	CHECK(n == 1 && (pid_t)c[0].pid == getpid(),
	      "uid 65533 sees %d contexts, want only its own", n);
	CHECK(!ctx_of(c, n, a->nobody_pid), "uid 65533 sees 65534's context");
	n = get_failures(fd, &seq, f);
	for (int i = 0; i < n; i++)
		CHECK(f[i].code != CODE_BIG && f[i].code != CODE_BADH,
		      "uid 65533 sees another user's failure (code %#x)", f[i].code);
	close(fd);
	return child_done();
}

/* Root as pid 1 of a new pid namespace: none of the parent's contexts or failures. */
static int pidns_child(void *argp)
{
	struct fbinder_info_context c[MAX_E];
	struct fbinder_info_failure f[64];
	__u64 seq = 0;
	int fd, n;

	(void)argp;
	fd = fbt_open();
	n = get_contexts(fd, c);
	CHECK(n == 1 && c[0].pid == 1,
	      "root in a new pid namespace sees %d contexts (first pid %u), want only its own as 1",
	      n, n > 0 ? c[0].pid : 0);
	n = get_failures(fd, &seq, f);
	CHECK(n == 0, "root in a new pid namespace sees %d failures of processes outside it", n);
	close(fd);
	return child_done();
}

static int pidns_main(void *argp)
{
	pid_t pid;

	if (unshare(CLONE_NEWPID))
		die("unshare(CLONE_NEWPID)");
	pid = fbt_fork(pidns_child, argp);
	return fbt_wait(pid);
}

static int nobody_child(void *argp)
{
	fbt_become_nobody();
	return nobody_main(argp);
}

int main(void)
{
	struct fbinder_info_context c0[MAX_E], c1[MAX_E];
	struct fbinder_info_node nd[MAX_E];
	struct fbinder_info_failure f[64];
	const struct fbinder_info_context *me0, *me1, *m0, *m1;
	struct fbinder_version ver;
	struct nobody_arg na = { 0 };
	__u64 seq = 0, calls0 = 0;
	struct fbt_ctx c;
	struct fbt_ret r;
	pid_t mpid, w, nb, ot;
	int n0, n1, n, ret, i;
	char ch = 0;

	alarm(60);
	fbt_ctx_open(&c, MB);
	CHECK(ioctl(c.fd, FBINDER_IOC_VERSION, &ver) == 0 && ver.abi_version == FBINDER_ABI_VERSION,
	      "ABI version %u, want %u", ver.abi_version, FBINDER_ABI_VERSION);
	mpid = fbt_spawn_manager(S_MAP, 0x1f0, m_main, NULL);

	check_counters(c.fd);
	check_state(c.fd);
	check_args(c.fd);

	/* traffic counts on the sender, the receiver and the node */
	n0 = get_contexts(c.fd, c0);
	n = get_nodes(c.fd, nd);
	for (i = 0; i < n; i++)
		if (nd[i].flags & FBINDER_INFO_NODE_CTX_MGR && (pid_t)nd[i].owner_pid == mpid) {
			na.mgr_node = nd[i].id;
			calls0 = nd[i].calls;
		}
	CHECK(na.mgr_node, "no context-manager node of pid %d among %d nodes", mpid, n);
	for (i = 0; i < 3; i++) {
		ret = fbt_call(&c, 0, CODE_CALL, NULL, 0, NULL, 0, &r, NULL, NULL);
		CHECK(ret == 0, "call %d: %d", i, ret);
		if (!ret && r.cmd == FBINDER_RET_REPLY)
			fbt_free_buffer(&c, r.msg.data);
	}
	for (i = 0; i < 2; i++)
		CHECK(fbt_oneway(&c, 0, CODE_ONEWAY, "x", 1, NULL, 0) == 0, "oneway %d", i);
	n1 = get_contexts(c.fd, c1);
	me0 = ctx_of(c0, n0, getpid());
	me1 = ctx_of(c1, n1, getpid());
	m0 = ctx_of(c0, n0, mpid);
	m1 = ctx_of(c1, n1, mpid);
	CHECK(me0 && me1 && me1->sent - me0->sent == 5 && me1->received == me0->received,
	      "sender: sent %llu -> %llu, want +5",
	      me0 ? (unsigned long long)me0->sent : 0, me1 ? (unsigned long long)me1->sent : 0);
	CHECK(m0 && m1 && m1->received - m0->received == 5,
	      "manager: received %llu -> %llu, want +5",
	      m0 ? (unsigned long long)m0->received : 0, m1 ? (unsigned long long)m1->received : 0);
	n = get_nodes(c.fd, nd);
	for (i = 0; i < n; i++)
		if (nd[i].id == na.mgr_node)
			CHECK(nd[i].calls - calls0 == 5, "node calls %llu -> %llu, want +5",
			      (unsigned long long)calls0, (unsigned long long)nd[i].calls);

	/* a failure: its entry, its number, the sender's count */
	get_failures(c.fd, &seq, f);
	ret = fbt_oneway(&c, 777, CODE_BADH, NULL, 0, NULL, 0);
	CHECK(ret == -ENOENT, "send to handle 777: %d", ret);
	n = get_failures(c.fd, &seq, f);
	CHECK(n == 1 && f[0].what == FBINDER_FAILED_SEND && f[0].error == -ENOENT &&
	      (pid_t)f[0].from_pid == getpid() && f[0].to_pid == 0 && f[0].node == 0 &&
	      f[0].code == CODE_BADH && f[0].seq == seq,
	      "failure: %d entries, what %u error %d from %u code %#x seq %llu/%llu", n,
	      n > 0 ? f[0].what : 0, n > 0 ? f[0].error : 0, n > 0 ? f[0].from_pid : 0,
	      n > 0 ? f[0].code : 0, n > 0 ? (unsigned long long)f[0].seq : 0,
	      (unsigned long long)seq);
	n1 = get_contexts(c.fd, c1);
	me1 = ctx_of(c1, n1, getpid());
	CHECK(me1 && me1->failed == me0->failed + 1, "sender's failed count");
	CHECK(get_failures(c.fd, &seq, f) == 0, "no failure newer than %llu",
	      (unsigned long long)seq);

	/* WAIT: the next failure wakes the waiter; a signal ends a wait */
	w = fbt_fork(waiter, &seq);
	usleep(300 * 1000);
	CHECK(fbt_oneway(&c, 778, CODE_WAIT, NULL, 0, NULL, 0) == -ENOENT, "second bad send");
	fbt_wait_ok(w);
	get_failures(c.fd, &seq, f);
	w = fbt_fork(waiter, &seq);
	usleep(300 * 1000);
	kill(w, SIGTERM);
	CHECK(fbt_wait(w) == 128 + SIGTERM, "a waiter killed by SIGTERM");

	/* what other users may see */
	na.root_pid = getpid();
	na.mgr_pid = mpid;
	if (pipe(na.ready) || pipe(na.done))
		die("pipe");
	nb = fbt_fork(nobody_child, &na);
	if (read(na.ready[0], &ch, 1) != 1)
		die("nobody child died early");
	get_failures(c.fd, &seq, f);	/* nothing: seq was read past above */
	seq = 0;
	n = get_failures(c.fd, &seq, f);
	for (i = 0; i < n; i++)
		if (f[i].code == CODE_BIG)
			break;
	CHECK(i < n && (pid_t)f[i].from_pid == nb && (pid_t)f[i].to_pid == mpid,
	      "root sees 65534's failure into its manager, with both pids");
	na.nobody_pid = nb;
	ot = fbt_fork(other_main, &na);
	fbt_wait_ok(ot);
	if (write(na.done[1], &ch, 1) != 1)
		die("pipe");
	fbt_wait_ok(nb);

	w = fbt_fork(pidns_main, NULL);
	fbt_wait_ok(w);

	ret = fbt_call(&c, 0, CODE_QUIT, NULL, 0, NULL, 0, &r, NULL, NULL);
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	fbt_wait_ok(mpid);
	fbt_ctx_close(&c);
	return fbt_done();
}
