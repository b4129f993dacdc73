// SPDX-License-Identifier: MIT
/*
 * call_abandon: FBINDER_CMD_ABANDON and FBINDER_IOC_WAKE_IDLE, the two driver
 * commands a library needs for call timeouts and for stopping its pool.
 *  - ABANDON with no call awaited: EINVAL.
 *  - ABANDON while the callee still holds the call: 0; the callee's late
 *    reply succeeds and is dropped; the caller's next call gets its own
 *    reply (not the stale one); abandoned_calls counts it.
 *  - ABANDON when the reply is already queued: EBUSY, and the reply is
 *    still read.
 *  - WAKE_IDLE wakes an idle reader with EAGAIN, but not a thread that
 *    waits for a reply.
 *  - Afterwards every live_* counter is back to zero.
 */
#include "fbt_proto.h"

#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MGR_COOKIE	0xab0001ULL
#define C_HOLD		1	/* reply only once told to through the pipe */
#define C_NOW		2	/* reply at once with the code echoed */
#define C_QUIT		3

static int go_pipe[2];

static int server(struct fbt_ctx *p, void *arg)
{
	struct fbt_ret r;
	__u32 code;
	char c;

	(void)arg;
	for (;;) {
		if (fbt_next(p, &r))
			return 1;
		if (r.cmd != FBINDER_RET_TRANSACTION)
			continue;
		code = r.msg.code;
		if (code == C_HOLD && read(go_pipe[0], &c, 1) != 1)
			return 1;
		/* a reply to an abandoned call succeeds: it is just dropped */
		CHECK(fbt_reply(p, &r.msg, code, &code, sizeof(code), NULL, 0) == 0,
		      "server reply to code %u", code);
		if (code == C_QUIT)
			return fbt_child_status();
	}
}

static int abandon(struct fbt_ctx *p)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_ABANDON, NULL, 0);
	return fbt_wr(p, &w, NULL, false);
}

static int send_only(struct fbt_ctx *p, __u32 code)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_send(&w, FBINDER_CONTEXT_MGR_HANDLE, code, 0, NULL, 0, NULL, 0);
	return fbt_wr(p, &w, NULL, false);
}

static bool readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1;
}

struct waiter {
	struct fbt_ctx t;
	int ret;
	volatile int done;
};

static void *idle_reader(void *arg)
{
	struct waiter *w = arg;
	struct fbt_ret r;

	w->ret = fbt_next(&w->t, &r);
	w->done = 1;
	return NULL;
}

static void *caller(void *arg)
{
	struct waiter *w = arg;
	struct fbt_ret r;

	w->ret = fbt_call(&w->t, FBINDER_CONTEXT_MGR_HANDLE, C_HOLD, NULL, 0, NULL,
			  0, &r, NULL, NULL);
	if (!w->ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&w->t, r.msg.data);
	w->done = 1;
	return NULL;
}

static void wait_done(struct waiter *w, int ms)
{
	long long until = fbt_now_ms() + ms;

	while (!w->done && fbt_now_ms() < until)
		usleep(1000);
}

int main(void)
{
	struct waiter idle = { 0 }, call = { 0 };
	long long before = 0, after = 0;
	struct fbt_ctx p;
	struct fbt_ret r;
	pthread_t t1, t2;
	pid_t mgr;
	char go = 'g';

	if (pipe(go_pipe))
		die("pipe");
	mgr = fbt_spawn_manager(1 << 20, MGR_COOKIE, server, NULL);
	fbt_ctx_open(&p, 1 << 20);

	CHECK(abandon(&p) == -EINVAL, "abandon with no call awaited");

	/* the callee holds the call; we give up on it */
	fbt_stat("abandoned_calls", &before);
	CHECK(send_only(&p, C_HOLD) == 0, "send held call");
	CHECK(!readable(p.fd, 100), "no reply yet");
	CHECK(abandon(&p) == 0, "abandon a held call");
	fbt_stat("abandoned_calls", &after);
	CHECK(after == before + 1, "abandoned_calls %lld -> %lld", before, after);
	CHECK(abandon(&p) == -EINVAL, "nothing left to abandon");
	CHECK(write(go_pipe[1], &go, 1) == 1, "release the server");
	/* the next call gets its own reply, the stale one was dropped */
	CHECK(fbt_call(&p, FBINDER_CONTEXT_MGR_HANDLE, C_NOW, NULL, 0, NULL, 0, &r,
		       NULL, NULL) == 0, "call after abandon");
	CHECK(r.cmd == FBINDER_RET_REPLY && r.msg.code == C_NOW,
	      "own reply: %s code %u", fbt_ret_name(r.cmd), r.msg.code);
	if (r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&p, r.msg.data);

	/* the reply is already there: EBUSY, and it can still be read */
	CHECK(send_only(&p, C_NOW) == 0, "send");
	CHECK(readable(p.fd, 5000), "reply queued");
	CHECK(abandon(&p) == -EBUSY, "abandon with the reply queued");
	CHECK(fbt_next(&p, &r) == 0 && r.cmd == FBINDER_RET_REPLY &&
	      r.msg.code == C_NOW, "reply read after EBUSY");
	if (r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&p, r.msg.data);

	/* WAKE_IDLE: the idle reader returns, the caller keeps waiting */
	fbt_ctx_attach(&idle.t, &p);
	fbt_ctx_attach(&call.t, &p);
	pthread_create(&t1, NULL, idle_reader, &idle);
	pthread_create(&t2, NULL, caller, &call);
	usleep(200 * 1000);	/* both asleep in the driver by now */
	CHECK(!idle.done && !call.done, "both threads wait");
	CHECK(ioctl(p.fd, FBINDER_IOC_WAKE_IDLE) == 0, "WAKE_IDLE");
	wait_done(&idle, 5000);
	CHECK(idle.done && idle.ret == -EAGAIN, "idle reader woken: %d",
	      idle.ret);
	usleep(100 * 1000);
	CHECK(!call.done, "the caller still waits for its reply");
	CHECK(write(go_pipe[1], &go, 1) == 1, "release the server");
	wait_done(&call, 5000);
	CHECK(call.done && call.ret == 0, "the caller got its reply: %d",
	      call.ret);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);

	CHECK(fbt_call(&p, FBINDER_CONTEXT_MGR_HANDLE, C_QUIT, NULL, 0, NULL, 0, &r,
		       NULL, NULL) == 0, "quit");
	if (r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&p, r.msg.data);
	fbt_wait_ok(mgr);
	fbt_ctx_close(&p);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counters back to zero");
	return fbt_done();
}
