// SPDX-License-Identifier: MIT
/*
 * attack_nodes: an unprivileged owner makes nodes and never reads their
 * release notices.  Each oneway message of OBJS FBINDER_OBJ_LOCAL objects to
 * handle 0, whose manager frees what it gets, leaves OBJS nodes waiting
 * for the owner to read their notices (new cookies each time, so that no
 * message finds the nodes of an earlier one still live).
 *
 *  - the attack stops at its documented bound: max_nodes nodes per context,
 *    those whose notice is unread included; the send that would make one
 *    more fails with EDQUOT and nothing queued before is lost: every node
 *    made still sends its notice, and their exports add up to every
 *    object the accepted messages carried; once read, sends go again;
 *  - max_user_nodes bounds the nodes of all of one user's contexts;
 *  - the owner's exit at the bound frees them without holding the device
 *    lock for long: no hold of it by the teardown frees more than BATCH
 *    objects (debugfs max_hold_objects), the longest (max_hold_ns) and a
 *    bystander's slowest ioctl that takes the device lock are printed.
 *    Their times are the VM's wall clock: under TCG on a busy host a hold
 *    also counts the host's preemption of the vCPU, and a guest without
 *    paravirtual spinlocks spins test-and-set (unfair), so the bystander
 *    may wait out many holds (with PREEMPT_RT's sleeping locks it does
 *    not: 3.5 ms).  So the times only catch a teardown that is not
 *    batched at all: no hold may take half of the exit (the one hold
 *    before took nine tenths of it), no bystander's ioctl BY_MS.  The
 *    work of one hold, under QEMU's -icount (scripts/vm/run.sh -I: 1 ns
 *    per instruction), is about 25 us; the whole teardown of the bound,
 *    one hold before the batches, 19 ms;
 *  - every live count returns to 0.
 *
 * Root only for debugfs, the module parameters and the manager: the
 * attacker and the bystander run as uid 65534.
 */
#include "fbt_attack.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x90deULL
#define OBJS		4096		/* objects per message, the most there may be */
#define CODE		0x6e6f6465u
#define HOLD_NS		"/sys/kernel/debug/fastbinder/max_hold_ns"
#define HOLD_OBJS	"/sys/kernel/debug/fastbinder/max_hold_objects"
#define BATCH		64		/* the driver's FBINDER_BATCH */
#define BY_MS		fbt_deadline_ms(1000)
#define SMALL_NODES	1024		/* the per-user check's max_nodes */
#define DEBUG_NODES	8192		/* max_nodes on a debug kernel: see main() */

struct msg {
	struct fbinder_object obj[OBJS];
	__u64 offs[OBJS];
};

struct report {
	long long sent;		/* messages accepted */
	int err;		/* of the first refused */
	long long notices;	/* release notices read */
	long long exports;	/* their exports, summed */
	int again;		/* a send once they were read */
	long long fill_ms;
};

static int to_child[2], to_parent[2];

static void send_report(const struct report *r)
{
	if (write(to_parent[1], r, sizeof(*r)) != (ssize_t)sizeof(*r))
		die("write report");
}

static void get_report(struct report *r)
{
	if (read(to_parent[0], r, sizeof(*r)) != (ssize_t)sizeof(*r))
		die("the attacker died before its report");
}

static struct msg *msg_new(void)
{
	struct msg *m = calloc(1, sizeof(*m));
	int i;

	if (!m)
		die("calloc");
	for (i = 0; i < OBJS; i++) {
		m->obj[i].type = FBINDER_OBJ_LOCAL;
		m->offs[i] = i * sizeof(m->obj[0]);
	}
	return m;
}

/* One oneway message of nobjs new objects to handle 0; 0 or -errno. */
static int send_objs(int fd, struct msg *m, int nobjs)
{
	static __u64 next_cookie = 0x1000;
	struct fbt_w w;
	int i;

	for (i = 0; i < nobjs; i++)
		m->obj[i].cookie = next_cookie + i;
	next_cookie += nobjs;
	fbt_w_reset(&w);
	fbt_w_send(&w, 0, CODE, FBINDER_TXN_ONEWAY, m->obj,
		   nobjs * sizeof(m->obj[0]), m->offs, nobjs);
	return fbt_write_read(fd, w.buf, w.len, NULL, NULL, 0, NULL);
}

/*
 * Sends until the driver refuses with something else than ENOSPC (the
 * manager frees slowly: wait and go on), or max messages went.
 */
static int fill(int fd, struct msg *m, int nobjs, long long max,
		long long *sent)
{
	long long deadline = fbt_now_ms() + fbt_deadline_ms(40000);

	while (*sent < max) {
		int ret = send_objs(fd, m, nobjs);

		if (ret == -ENOSPC && fbt_now_ms() < deadline) {
			usleep(1000);
			continue;
		}
		if (ret)
			return ret;
		(*sent)++;
	}
	return 0;
}

/* Reads release notices (non-blocking) until want were read or 10 s went. */
static void read_notices(int fd, long long want, struct report *rep)
{
	static unsigned char rbuf[64 * 1024];
	long long deadline = fbt_now_ms() + fbt_deadline_ms(10000);
	struct fbinder_node_release rel;
	size_t got, pos;
	__u32 cmd;
	int ret;

	while (rep->notices < want && fbt_now_ms() < deadline) {
		got = 0;
		ret = fbt_write_read(fd, NULL, 0, NULL, rbuf, sizeof(rbuf), &got);
		if (ret == -EAGAIN || (!ret && !got)) {
			usleep(1000);
			continue;
		}
		if (ret)
			die("read of the notices: %s", strerror(-ret));
		for (pos = 0; pos + sizeof(cmd) <= got;) {
			memcpy(&cmd, rbuf + pos, sizeof(cmd));
			pos += sizeof(cmd);
			if (cmd == FBINDER_RET_RELEASE) {
				memcpy(&rel, rbuf + pos, sizeof(rel));
				rep->notices++;
				rep->exports += rel.exports;
			}
			pos += _IOC_SIZE(cmd);
		}
	}
}

static int attacker(void *arg)
{
	long long cap = *(long long *)arg, t0;
	struct msg *m = msg_new();
	struct report rep = { 0 };
	int fd, flags;
	char c;

	fd = fbt_open();
	/* non-blocking reads: the notices are counted, never waited for */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK))
		die("fcntl");

	/* every message of new nodes until the bound, and one more */
	t0 = fbt_now_us();
	rep.err = fill(fd, m, OBJS, cap / OBJS + 8, &rep.sent);
	rep.fill_ms = (fbt_now_us() - t0) / 1000;
	if (rep.err == -EDQUOT) {
		/* nothing lost: a notice per node, all the exports */
		read_notices(fd, cap, &rep);
		rep.again = send_objs(fd, m, OBJS);
		/* and up to the bound again, for the exit */
		if (!rep.again) {
			long long more = 1;

			fill(fd, m, OBJS, cap / OBJS + 8, &more);
		}
	}
	send_report(&rep);
	if (read(to_child[0], &c, 1) != 1)
		die("read go");
	free(m);
	/* the exit ends the context, with every node in it */
	return 0;
}

/* The per-user bound: contexts of one user, each under max_nodes. */
static int user_attacker(void *arg)
{
	long long user_cap = *(long long *)arg, sent;
	int n = (int)(user_cap / SMALL_NODES), i, ret;
	struct msg *m = msg_new();
	int fds[16];

	if (n + 1 > 16)
		die("user cap %lld too large for the test", user_cap);
	for (i = 0; i <= n; i++) {
		fds[i] = fbt_open();
		sent = 0;
		ret = fill(fds[i], m, SMALL_NODES, 4, &sent);
		if (i < n)
			CHECK(ret == -EDQUOT && sent == 1,
			      "context %d of the user: %lld messages of %d nodes then %s, want 1 then EDQUOT",
			      i, sent, SMALL_NODES, strerror(-ret));
		else
			CHECK(ret == -EDQUOT && sent == 0,
			      "context %d, over the user's %lld: %lld messages then %s, want EDQUOT at once",
			      i, user_cap, sent, strerror(-ret));
	}
	/* one context of the user gone: its nodes leave the user's count */
	close(fds[0]);
	ret = send_objs(fds[n], m, 1);
	CHECK(ret == 0, "a send once a context of the user closed: %s", strerror(-ret));
	for (i = 1; i <= n; i++)
		close(fds[i]);
	free(m);
	return fbt_child_status();
}

int main(void)
{
	long long cap, orig_cap, user_cap, hold = -1, objs = -1, live = -1, t0, exit_us;
	struct fbt_by_result by;
	struct fbt_bystander b;
	struct report rep;
	pid_t mgr, pid;
	int ret;

	alarm(fbt_deadline_ms(58000) / 1000);
	cap = orig_cap = fbt_param("max_nodes");
	user_cap = fbt_param("max_user_nodes");
	CHECK(cap > 0 && user_cap > 0,
	      "module parameters max_nodes %lld, max_user_nodes %lld: want bounds",
	      cap, user_cap);
	if (cap <= 0)
		cap = 65536;	/* on a driver without: attack that far */
	/*
	 * On the debug kernel (FBINDER_SLOW) KASAN and kmemleak make each
	 * node tens of times dearer: the same attack against a lower bound,
	 * whose end still takes DEBUG_NODES / BATCH holds.
	 */
	if (fbt_deadline_ms(1) > 1 && cap > DEBUG_NODES &&
	    fbt_set_param("max_nodes", DEBUG_NODES) == 0)
		cap = DEBUG_NODES;
	printf("# max_nodes %lld, max_user_nodes %lld\n", cap, user_cap);
	if (pipe(to_child) || pipe(to_parent))
		die("pipe");
	mgr = fbt_spawn_manager(4 * MB, MGR_COOKIE, fbt_ping_manager, NULL);

	/* ---- one context to its bound ---- */
	pid = fbt_fork_nobody(attacker, &cap);
	get_report(&rep);
	fbt_stat("live_nodes", &live);
	printf("# the attacker sent %lld messages of %d objects in %lld ms, then: %s; "
	       "%lld notices read, %lld exports\n", rep.sent, OBJS, rep.fill_ms,
	       rep.err ? strerror(-rep.err) : "no refusal", rep.notices, rep.exports);
	CHECK(rep.err == -EDQUOT, "the attack ended with %s, want EDQUOT at max_nodes",
	      rep.err ? strerror(-rep.err) : "no refusal");
	if (rep.err == -EDQUOT) {
		CHECK(rep.notices == cap,
		      "%lld release notices after the refusal, want one per node: %lld",
		      rep.notices, cap);
		CHECK(rep.exports == rep.sent * OBJS,
		      "the notices retire %lld exports, the accepted messages carried %lld",
		      rep.exports, rep.sent * OBJS);
		CHECK(rep.again == 0, "a send once the notices were read: %s",
		      strerror(-rep.again));
	}
	printf("# live_nodes %lld at the exit\n", live);
	CHECK(live >= cap - OBJS && live <= cap + 1,
	      "live_nodes %lld with the attacker at its bound of %lld", live, cap);

	/* ---- its exit, at the bound ---- */
	fbt_bystander_start(&b, FBT_BY_LOCK);
	ret = fbt_write_file(HOLD_NS, "0");
	CHECK(ret == 0, "reset %s: %s", HOLD_NS, strerror(-ret));
	ret = fbt_write_file(HOLD_OBJS, "0");
	CHECK(ret == 0, "reset %s: %s", HOLD_OBJS, strerror(-ret));
	t0 = fbt_now_us();
	if (write(to_child[1], "g", 1) != 1)
		die("write go");
	CHECK(fbt_wait(pid) == 0, "the attacker failed");
	exit_us = fbt_now_us() - t0;
	hold = fbt_read_number(HOLD_NS);
	objs = fbt_read_number(HOLD_OBJS);
	fbt_bystander_stop(&b, &by);
	printf("# the exit took %lld ms; the longest hold of the device lock %lld us, "
	       "the most objects freed in one %lld; the bystander's slowest ioctl %lld us\n",
	       exit_us / 1000, hold / 1000, objs, by.max_us);
	CHECK(objs > 0 && objs <= BATCH,
	      "a teardown freed %lld objects in one hold of the device lock, want 1 to %d",
	      objs, BATCH);
	CHECK(hold / 1000 * 2 <= exit_us,
	      "one hold of the device lock took %lld us of the exit's %lld us",
	      hold / 1000, exit_us);
	CHECK(hold > 0, "no teardown hold of the device lock was timed");
	CHECK(by.failed == 0 && by.uses > 0, "the bystander: %lld done, %lld failed",
	      by.uses, by.failed);
	CHECK(by.max_us <= BY_MS * 1000LL,
	      "the bystander waited %lld us for the device lock, want at most %d ms",
	      by.max_us, BY_MS);

	/* ---- one user's contexts together ---- */
	if (fbt_set_param("max_nodes", SMALL_NODES) == 0) {
		fbt_set_param("max_user_nodes", 3 * SMALL_NODES);
		ret = fbt_wait(fbt_fork_nobody(user_attacker, &(long long){ 3 * SMALL_NODES }));
		CHECK(ret == 0, "the per-user attack failed a check");
		fbt_set_param("max_user_nodes", user_cap);
	} else {
		CHECK(0, "set max_nodes: the module has no such parameter");
	}

	if (orig_cap > 0)
		fbt_set_param("max_nodes", orig_cap);

	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	CHECK(fbt_wait_live_zero(10000) == 0, "live counts did not return to zero");
	return fbt_done();
}
