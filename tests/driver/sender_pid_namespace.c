// SPDX-License-Identifier: MIT
/*
 * sender_pid_namespace: a message's sender_pid is the sender's number in
 * the reader's pid namespace, 0 when the sender is not in it (docs/abi.md).
 *
 * The reader is the first process of a pid namespace of its own (pid 1
 * there) and the context manager.  Three senders queue a oneway message
 * each, their pid as they see it in the payload:
 *
 *   - the reader itself, through a second context: 1;
 *   - a child of the reader, inside the namespace: the pid fork() gave the
 *     reader, the one the child sees too;
 *   - the test's first process, outside the namespace (the reader's
 *     parent): 0.
 *
 * Everyone but the namespace's creation and the claim runs as uid 65534.
 */
#define _GNU_SOURCE
#include "fbt_proto.h"

#include <sched.h>
#include <unistd.h>

#define MGR_COOKIE	0x9dULL
#define MAP		(64 * 1024)
#define C_PID		9
#define OUTSIDE		(-2)	/* the outer sender's payload: its pid means nothing inside */

/* Queues one message to handle 0 from a new context, v its payload. */
static void send_value(const char *who, __s32 v)
{
	struct fbt_ctx s;
	int rc;

	fbt_ctx_open(&s, MAP);
	rc = fbt_oneway(&s, FBINDER_CONTEXT_MGR_HANDLE, C_PID, &v, sizeof(v), NULL, 0);
	CHECK(rc == 0, "%s: oneway: %s", who, strerror(-rc));
	fbt_ctx_close(&s);
}

static int inner_sender(void *arg)
{
	(void)arg;
	fbt_failures = 0;
	send_value("child in the namespace", getpid());
	return fbt_child_status();
}

/* Reads the next message: its payload, and its sender as the reader sees it. */
static void expect(struct fbt_ctx *m, const char *who, __s32 want, __s32 payload)
{
	struct fbt_ret r;
	__s32 v = -1;
	int rc;

	rc = fbt_next(m, &r);
	CHECK(rc == 0 && r.cmd == FBINDER_RET_TRANSACTION, "%s: %s %s", who, strerror(-rc),
	      fbt_ret_name(r.cmd));
	if (rc || r.cmd != FBINDER_RET_TRANSACTION)
		return;
	if (r.msg.code == C_PID && r.msg.data_size == sizeof(v))
		memcpy(&v, fbt_data(m, &r.msg), sizeof(v));
	CHECK(v == payload, "%s: the message says pid %d, want %d", who, v, payload);
	CHECK(r.msg.sender_pid == want, "%s: sender_pid %d, want %d", who, r.msg.sender_pid,
	      want);
	CHECK(fbt_free_buffer(m, r.msg.data) == 0, "%s: free", who);
}

/* pid 1 of the new namespace: claims handle 0, then reads as 65534. */
static int reader(void *arg)
{
	int *ready = arg;
	struct fbt_ctx m;
	pid_t child;

	fbt_failures = 0;
	CHECK(getpid() == 1, "the reader is pid %d in its namespace, want 1", (int)getpid());
	fbt_ctx_open(&m, MAP);
	if (fbt_set_mgr(m.fd, MGR_COOKIE))
		die("SET_CONTEXT_MGR");
	fbt_become_nobody();

	send_value("the reader itself", getpid());
	expect(&m, "the reader itself", 1, 1);
	child = fbt_fork(inner_sender, NULL);
	fbt_wait_ok(child);
	expect(&m, "child in the namespace", child, child);

	/* the outer process sends once told handle 0 is there */
	if (write(ready[1], "r", 1) != 1)
		die("ready pipe");
	expect(&m, "process outside the namespace", 0, OUTSIDE);
	fbt_ctx_close(&m);
	return fbt_child_status();
}

int main(void)
{
	int ready[2];
	pid_t r;
	char c;

	alarm(60);
	if (pipe(ready))
		die("pipe");
	if (unshare(CLONE_NEWPID))
		die("unshare(CLONE_NEWPID)");
	r = fbt_fork(reader, ready);
	fbt_become_nobody();
	if (read(ready[0], &c, 1) != 1)
		die("the reader did not get ready");
	send_value("process outside the namespace", OUTSIDE);
	fbt_wait_ok(r);
	return fbt_done();
}
