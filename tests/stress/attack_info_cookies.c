// SPDX-License-Identifier: MIT
/*
 * attack_info_cookies: FBINDER_IOC_INFO must not show the node cookies of
 * a process that /proc protects from the caller (docs/security.md G3,
 * issue 33 item 3).
 *
 * The victim, uid 65534, hands the slot manager an object whose cookie is
 * a malloc() pointer, as a real service's cookies are.  The attacker, a
 * separate process of the same uid, lists the nodes.  While the victim is
 * dumpable it may read the victim's /proc/<pid>/maps, and it sees the
 * cookie; once the victim made itself non-dumpable (PR_SET_DUMPABLE 0,
 * what setuid, setgid and file-capability programs are), /proc/<pid>/maps
 * is closed to it, and the node is still listed but its cookie reads 0.
 * Its own nodes' cookies the attacker sees either way.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "fbt_attack.h"
#include "fbt_slots.h"

#define MB		(1024 * 1024)
#define MAX_E		256
#define OWN_COOKIE	0xa77ac4e7ULL

static int vready[2], vgo[2], aready[2], ago[2];
static __u64 victim_cookie;

/* The cookie of pid's node found in the node list, or -1 when not listed. */
static long long cookie_of(int fd, pid_t pid, __u64 want_if_any)
{
	static struct fbinder_info_node e[MAX_E];
	struct fbinder_info in = {
		.what = FBINDER_INFO_NODES, .entry_size = sizeof(e[0]), .count = MAX_E,
		.entries = (__u64)(uintptr_t)e,
	};
	long long found = -1;
	__u32 i;

	if (ioctl(fd, FBINDER_IOC_INFO, &in))
		die("FBINDER_IOC_INFO");
	for (i = 0; i < in.count; i++) {
		if (e[i].owner_pid != (__u32)pid || e[i].flags & FBINDER_INFO_NODE_CTX_MGR)
			continue;
		found = (long long)e[i].cookie;
		if (e[i].cookie == want_if_any)
			break;
	}
	return found;
}

static int victim(void *arg)
{
	struct fbt_ctx p;
	void *heap = malloc(64);

	(void)arg;
	fbt_ctx_open(&p, MB);
	CHECK(fbt_slot_put(&p, 0, (__u64)(uintptr_t)heap) == 0, "victim: put its object");
	fbt_tell(vready[1], (int)((uintptr_t)heap & 0x7fffffff));
	fbt_await(vgo[0]);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		die("PR_SET_DUMPABLE");
	fbt_tell(vready[1], 1);
	fbt_await(vgo[0]);
	fbt_ctx_close(&p);
	free(heap);
	return fbt_child_status();
}

static int attacker(void *arg)
{
	pid_t vpid = *(pid_t *)arg;
	char path[64];
	long long c;
	struct fbt_ctx p;
	int maps;

	fbt_ctx_open(&p, MB);
	CHECK(fbt_slot_put(&p, 1, OWN_COOKIE) == 0, "attacker: put its own object");
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)vpid);

	/* the victim is dumpable: /proc and the info ioctl both show it */
	maps = open(path, O_RDONLY);
	CHECK(maps >= 0, "attacker: %s opens while the victim is dumpable", path);
	if (maps >= 0)
		close(maps);
	c = cookie_of(p.fd, vpid, victim_cookie);
	CHECK(c == (long long)victim_cookie,
	      "attacker: the dumpable victim's cookie %#llx, read %#llx", victim_cookie, c);
	fbt_tell(aready[1], 1);
	fbt_await(ago[0]);

	/* non-dumpable: /proc is closed, and so must the cookies be */
	maps = open(path, O_RDONLY);
	CHECK(maps < 0 && errno == EACCES, "attacker: %s is closed (%s)", path,
	      maps < 0 ? strerror(errno) : "it opened");
	if (maps >= 0)
		close(maps);
	c = cookie_of(p.fd, vpid, victim_cookie);
	CHECK(c == 0, "attacker: the non-dumpable victim's node shows cookie %#llx (its malloc() pointer %#llx): want 0",
	      c, victim_cookie);
	printf("# non-dumpable victim: its node listed with cookie %#llx (its pointer %#llx)\n",
	       c, victim_cookie);
	c = cookie_of(p.fd, getpid(), OWN_COOKIE);
	CHECK(c == (long long)OWN_COOKIE, "attacker: its own cookie %#llx, read %#llx",
	      OWN_COOKIE, c);
	fbt_ctx_close(&p);
	return fbt_child_status();
}

int main(void)
{
	pid_t mgr, vic, att;

	alarm(50);
	fbt_pipe(vready);
	fbt_pipe(vgo);
	fbt_pipe(aready);
	fbt_pipe(ago);
	mgr = fbt_slot_spawn();
	vic = fbt_fork_nobody(victim, NULL);
	if (fbt_hear(vready[0], 5000) < 0)
		die("the victim did not start");
	/* the victim's pointer, as root (CAP_SYS_PTRACE) sees it */
	{
		static struct fbinder_info_node e[MAX_E];
		struct fbinder_info in = {
			.what = FBINDER_INFO_NODES, .entry_size = sizeof(e[0]),
			.count = MAX_E, .entries = (__u64)(uintptr_t)e,
		};
		int fd = fbt_open();
		__u32 i;

		if (fd < 0 || ioctl(fd, FBINDER_IOC_INFO, &in))
			die("root's FBINDER_IOC_INFO");
		for (i = 0; i < in.count; i++)
			if (e[i].owner_pid == (__u32)vic)
				victim_cookie = e[i].cookie;
		close(fd);
	}
	CHECK(victim_cookie != 0, "root sees the victim's cookie");

	att = fbt_fork_nobody(attacker, &vic);
	CHECK(fbt_hear(aready[0], 5000) == 1, "the attacker looked while the victim was dumpable");
	fbt_tell(vgo[1], 1);
	CHECK(fbt_hear(vready[0], 5000) == 1, "the victim made itself non-dumpable");
	fbt_tell(ago[1], 1);
	CHECK(fbt_wait(att) == 0, "attacker's checks");
	fbt_tell(vgo[1], 1);
	CHECK(fbt_wait(vic) == 0, "victim passed");
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	CHECK(fbt_wait_live_zero(3000) == 0, "live counts back to zero");
	return fbt_done();
}
