// SPDX-License-Identifier: MIT
/*
 * sender_identity: a message names its sender as the reader sees it.  The
 * euid and pid are taken at the send and translated when the message is
 * read, into the reading thread's user and pid namespaces (docs/abi.md):
 *
 *   - read in the initial user namespace, each sender's own euid (0, 1000
 *     and 65534 here) and its pid;
 *   - read after the reader moved to a user namespace of its own with no
 *     map yet, every euid is the overflow uid;
 *   - once its map names one outside uid, that uid reads as its inside
 *     number and the others still as the overflow uid.
 *
 * The pid namespace stays the initial one: the pids are the same in every
 * phase.  Three senders, each a child with its own context, queue one
 * oneway message each before each phase (their euid and pid in the
 * payload) to the manager, claimed as root; the reader then runs as uid
 * 65534.
 */
#define _GNU_SOURCE
#include "fbt_proto.h"

#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#define MGR_COOKIE	0x1dULL
#define MAP		(64 * 1024)
#define PHASES		3
#define C_WHO		5
#define INSIDE_UID	7	/* the reader's own uid, inside its namespace */

struct who {
	__u32 euid;
	__s32 pid;
};

static const uid_t sender_uids[] = { 0, 1000, FBT_NOBODY_UID };
#define SENDERS		(sizeof(sender_uids) / sizeof(sender_uids[0]))

struct sender {
	uid_t uid;
	int go[2];		/* a byte: send one message */
	pid_t pid;
};

static struct sender senders[SENDERS];
static int sent[2];		/* a byte per message sent */

static int sender(void *arg)
{
	const struct sender *me = arg;
	struct fbt_ctx s;
	struct who w;
	size_t i;
	char c;
	int rc;

	fbt_failures = 0;
	/* the go pipes it inherited, its own too: EOF ends it */
	for (i = 0; i <= (size_t)(me - senders); i++)
		close(senders[i].go[1]);
	if (me->uid)
		fbt_become_user(me->uid);
	w.euid = geteuid();
	w.pid = getpid();
	fbt_ctx_open(&s, MAP);
	while (read(me->go[0], &c, 1) == 1) {
		rc = fbt_oneway(&s, FBINDER_CONTEXT_MGR_HANDLE, C_WHO, &w, sizeof(w),
				NULL, 0);
		CHECK(rc == 0, "sender %u: oneway: %s", w.euid, strerror(-rc));
		if (write(sent[1], "s", 1) != 1)
			die("sent pipe");
	}
	fbt_ctx_close(&s);
	return fbt_child_status();
}

/* Each sender queues one message, in turn. */
static void send_round(void)
{
	size_t i;
	char c;

	for (i = 0; i < SENDERS; i++)
		if (write(senders[i].go[1], "g", 1) != 1 || read(sent[0], &c, 1) != 1)
			die("sender %zu", i);
}

/* Reads one message per sender; want() gives the euid each must show. */
static void read_phase(struct fbt_ctx *m, const char *phase, __u32 (*want)(__u32 euid))
{
	struct fbt_ret r;
	struct who w;
	size_t i;
	int rc;

	for (i = 0; i < SENDERS; i++) {
		rc = fbt_next(m, &r);
		CHECK(rc == 0 && r.cmd == FBINDER_RET_TRANSACTION, "%s: message %zu: %s %s",
		      phase, i, strerror(-rc), fbt_ret_name(r.cmd));
		if (rc || r.cmd != FBINDER_RET_TRANSACTION)
			return;
		CHECK(r.msg.code == C_WHO && r.msg.data_size == sizeof(w), "%s: message %zu: code %u, %llu bytes",
		      phase, i, r.msg.code, (unsigned long long)r.msg.data_size);
		memcpy(&w, fbt_data(m, &r.msg), sizeof(w));
		CHECK(r.msg.sender_euid == want(w.euid), "%s: sender of euid %u reads as %u, want %u",
		      phase, w.euid, r.msg.sender_euid, want(w.euid));
		CHECK(r.msg.sender_pid == w.pid, "%s: sender pid %d reads as %d",
		      phase, w.pid, r.msg.sender_pid);
		CHECK(fbt_free_buffer(m, r.msg.data) == 0, "%s: free", phase);
	}
}

static unsigned int overflow_uid;

static __u32 want_own(__u32 euid)
{
	return euid;
}

static __u32 want_unmapped(__u32 euid)
{
	(void)euid;
	return overflow_uid;
}

static __u32 want_mapped(__u32 euid)
{
	return euid == FBT_NOBODY_UID ? INSIDE_UID : overflow_uid;
}

int main(void)
{
	long long overflow;
	char map[64];
	struct fbt_ctx m;
	size_t i;

	alarm(60);
	overflow = fbt_read_number("/proc/sys/kernel/overflowuid");
	if (overflow < 0)
		die("/proc/sys/kernel/overflowuid");
	overflow_uid = (unsigned int)overflow;
	fbt_ctx_open(&m, MAP);
	if (fbt_set_mgr(m.fd, MGR_COOKIE))
		die("SET_CONTEXT_MGR");
	if (pipe(sent))
		die("pipe");
	for (i = 0; i < SENDERS; i++) {
		senders[i].uid = sender_uids[i];
		if (pipe(senders[i].go))
			die("pipe");
		senders[i].pid = fbt_fork(sender, &senders[i]);
		close(senders[i].go[0]);
	}
	fbt_become_nobody();

	send_round();
	read_phase(&m, "initial namespace", want_own);
	if (unshare(CLONE_NEWUSER))
		die("unshare(CLONE_NEWUSER)");
	send_round();
	read_phase(&m, "own namespace, no map", want_unmapped);
	snprintf(map, sizeof(map), "%d %d 1\n", INSIDE_UID, FBT_NOBODY_UID);
	if (fbt_write_file("/proc/self/uid_map", map))
		die("write /proc/self/uid_map");
	CHECK(geteuid() == INSIDE_UID, "euid %u in the namespace, want %u",
	      (unsigned int)geteuid(), INSIDE_UID);
	send_round();
	read_phase(&m, "own namespace, mapped", want_mapped);
	for (i = 0; i < SENDERS; i++) {
		close(senders[i].go[1]);
		fbt_wait_ok(senders[i].pid);
	}
	fbt_ctx_close(&m);
	return fbt_done();
}
