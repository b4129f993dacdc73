// SPDX-License-Identifier: MIT
/*
 * attack_death_links: an unprivileged holder links death notices on
 * handle 0 (everyone has it) until the driver refuses, then closes.
 *
 *  - the attack stops at its documented bound: max_death_links links per
 *    context, the next LINK_DEATH fails with EDQUOT; unlinking one makes
 *    room for exactly one more;
 *  - the links are charged: the attacker's memory cgroup holds at least
 *    64 bytes of unreclaimable slab per link (when the kernel offers a
 *    memory controller), and SUnreclaim says how much the attacker pinned;
 *  - closing the context drops them all without holding the device lock
 *    for long: a bystander keeps calling handle 0 through the whole attack
 *    and each call completes within DEADLINE_MS;
 *  - live_death_links returns to 0, every live count too.
 *
 * Root only for debugfs, the manager and the cgroup: the attacker and the
 * bystander run as uid 65534.
 */
#include "fbt_attack.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0xdea7ULL
#define TRY		(1 << 20)	/* links the attacker tries at most */
#define STREAM		4096		/* LINK_DEATH commands per WRITE_READ */
#define CMD		(sizeof(__u32) + sizeof(struct fbinder_death))
#define DEADLINE_MS	fbt_deadline_ms(1000)

struct report {
	long long linked;
	int err;
	long long link_us;
	long long close_us;
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

static void wait_go(void)
{
	char c;

	if (read(to_child[0], &c, 1) != 1)
		die("read go");
}

static void go(void)
{
	if (write(to_child[1], "g", 1) != 1)
		die("write go");
}

static int link_one(int fd, __u32 cmd, __u64 cookie)
{
	unsigned char buf[CMD];
	struct fbinder_death d = { .handle = 0, .cookie = cookie };

	memcpy(buf, &cmd, sizeof(cmd));
	memcpy(buf + sizeof(cmd), &d, sizeof(d));
	return fbt_write_read(fd, buf, sizeof(buf), NULL, NULL, 0, NULL);
}

static int attacker(void *arg)
{
	unsigned char *buf = malloc(STREAM * CMD);
	struct report rep = { 0 };
	__u32 cmd = FBINDER_CMD_LINK_DEATH;
	long long t0;
	size_t done;
	int fd, ret, i, n;

	(void)arg;
	if (!buf)
		die("malloc");
	wait_go();		/* in its cgroup by now */
	fd = fbt_open();
	t0 = fbt_now_us();
	while (rep.linked < TRY) {
		n = TRY - rep.linked < STREAM ? (int)(TRY - rep.linked) : STREAM;
		for (i = 0; i < n; i++) {
			struct fbinder_death d = { .handle = 0, .cookie = rep.linked + i + 1 };

			memcpy(buf + i * CMD, &cmd, sizeof(cmd));
			memcpy(buf + i * CMD + sizeof(cmd), &d, sizeof(d));
		}
		done = 0;
		ret = fbt_write_read(fd, buf, n * CMD, &done, NULL, 0, NULL);
		rep.linked += done / CMD;
		if (ret == -EINTR)
			continue;	/* the stream was cut short: go on */
		if (ret) {
			rep.err = ret;
			break;
		}
	}
	rep.link_us = fbt_now_us() - t0;
	free(buf);
	send_report(&rep);

	wait_go();		/* the parent counted them */
	if (rep.err == -EDQUOT) {
		ret = link_one(fd, FBINDER_CMD_UNLINK_DEATH, 1);
		CHECK(ret == 0, "unlink of the first link: %s", strerror(-ret));
		ret = link_one(fd, FBINDER_CMD_LINK_DEATH, TRY + 1);
		CHECK(ret == 0, "a link after one unlink: %s", strerror(-ret));
		ret = link_one(fd, FBINDER_CMD_LINK_DEATH, TRY + 2);
		CHECK(ret == -EDQUOT, "a second link after one unlink: %s, want EDQUOT",
		      strerror(-ret));
	}

	wait_go();
	t0 = fbt_now_us();
	CHECK(close(fd) == 0, "close: %s", strerror(errno));
	rep.close_us = fbt_now_us() - t0;
	send_report(&rep);
	return fbt_child_status();
}

int main(void)
{
	long long cap, slab0, slab1, cg0 = -1, cg1 = -1, live = -1;
	struct fbt_bystander by;
	struct report rep;
	char cg[256];
	pid_t mgr, pid;
	int ret;

	/* a guard against a hang: a debug kernel is 5-10x slower (FBINDER_SLOW) */
	alarm(fbt_deadline_ms(58000) / 1000);
	cap = fbt_param("max_death_links");
	CHECK(cap > 0, "module parameter max_death_links: %lld, want a bound", cap);
	printf("# max_death_links %lld\n", cap);
	if (pipe(to_child) || pipe(to_parent))
		die("pipe");

	mgr = fbt_spawn_manager(MB, MGR_COOKIE, fbt_ping_manager, NULL);
	fbt_bystander_start(&by, FBT_BY_CALL);
	ret = fbt_memcg_create(cg, sizeof(cg));
	if (ret)
		printf("# no memory cgroup (%s): charging not checked\n", strerror(-ret));

	slab0 = fbt_meminfo_kb("SUnreclaim");
	pid = fbt_fork_nobody(attacker, NULL);
	if (cg[0]) {
		ret = fbt_memcg_add(cg, pid);
		CHECK(ret == 0, "move the attacker to %s: %s", cg, strerror(-ret));
		cg0 = fbt_memcg_stat(cg, "slab_unreclaimable");
	}
	go();
	get_report(&rep);
	slab1 = fbt_meminfo_kb("SUnreclaim");
	fbt_stat("live_death_links", &live);
	if (cg[0])
		cg1 = fbt_memcg_stat(cg, "slab_unreclaimable");
	printf("# the attacker linked %lld in %lld ms, then: %s\n", rep.linked,
	       rep.link_us / 1000, rep.err ? strerror(-rep.err) : "no refusal");
	printf("# SUnreclaim grew by %lld kB; its cgroup was charged %lld kB of slab\n",
	       slab1 - slab0, cg[0] ? (cg1 - cg0) / 1024 : -1LL);
	CHECK(rep.linked == cap && rep.err == -EDQUOT,
	      "the attack linked %lld and stopped with %s, want %lld then EDQUOT",
	      rep.linked, strerror(-rep.err), cap);
	CHECK(live == rep.linked, "live_death_links %lld with %lld links held", live,
	      rep.linked);
	if (cg[0])
		CHECK(cg1 - cg0 >= rep.linked * 64,
		      "the attacker's cgroup was charged %lld bytes of slab for %lld links",
		      cg1 - cg0, rep.linked);

	go();			/* unlink one, link one more, fail one */
	go();			/* then close */
	get_report(&rep);
	printf("# closing the context with its links took %lld ms\n", rep.close_us / 1000);
	CHECK(fbt_wait(pid) == 0, "the attacker failed a check");

	fbt_bystander_check(&by, DEADLINE_MS);

	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts did not return to zero");
	fbt_memcg_remove(cg);
	return fbt_done();
}
