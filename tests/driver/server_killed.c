// SPDX-License-Identifier: MIT
/*
 * server_killed: a server killed with -9 while four client threads wait on it
 * (two calls being handled, two queued) and oneways are queued: each caller
 * gets FBINDER_RET_FAILED -EOWNERDEAD, later sends through the handle fail with
 * EOWNERDEAD, the manager slot is free again, and once every context is
 * closed the live_* counts in debugfs stats are back to zero.
 */
#include "fbt_proto.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x1c111ULL
#define CS		0x5e7e7ULL
#define NCALLERS	4

enum { C_GIVE = 1, C_HANG };

static int hang_fd;

static int s_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL, .cookie = CS };
	__u64 off = 0;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (r->msg.code == C_GIVE) {
		fbt_reply(p, &r->msg, 0, &o, sizeof(o), &off, 1);
		return 0;
	}
	if (r->msg.code == C_HANG && !(r->msg.flags & FBINDER_TXN_ONEWAY)) {
		char c = 'h';

		if (write(hang_fd, &c, 1) != 1)
			die("S: write");
		for (;;)
			pause();	/* never replies: killed here */
	}
	return 0;
}

static void *s_looper(void *arg)
{
	struct fbt_ctx t;
	struct fbt_w w;

	fbt_ctx_attach(&t, arg);
	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_ENTER_LOOPER, NULL, 0);
	if (fbt_wr(&t, &w, NULL, false))
		die("S: ENTER_LOOPER");
	fbt_serve(&t, s_handle, NULL);
	return NULL;
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	pthread_t th;

	hang_fd = *(int *)arg;
	if (pthread_create(&th, NULL, s_looper, p))
		die("pthread_create");
	s_looper(p);
	return 0;
}

struct caller {
	pthread_t th;
	const struct fbt_ctx *ctx;
	__u32 handle;
	int ret;
	struct fbt_ret r;
};

static void *caller(void *arg)
{
	struct caller *cl = arg;
	struct fbt_ctx *t = fbt_ctx_thread(cl->ctx, false);

	cl->ret = fbt_call(t, cl->handle, C_HANG, "hang", 4, NULL, 0, &cl->r, NULL, NULL);
	free(t);
	return NULL;
}

static int wait_bytes(int fd, int n, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;
	int got = 0;

	while (got < n && poll(&pfd, 1, timeout_ms) == 1 && read(fd, &c, 1) == 1)
		got++;
	return got;
}

int main(void)
{
	struct caller cl[NCALLERS];
	struct fbt_ctx c, m2;
	struct fbt_ret r;
	long long v;
	int pfd[2], i, j, ret, got;
	__u32 hs = 0;
	pid_t spid;

	alarm(40);
	if (pipe(pfd) < 0)
		die("pipe");
	spid = fbt_spawn_manager(MB, MGR_COOKIE, s_main, &pfd[1]);
	close(pfd[1]);
	fbt_ctx_open(&c, MB);

	ret = fbt_call(&c, 0, C_GIVE, NULL, 0, NULL, 0, &r, NULL, NULL);
	if (ret || r.cmd != FBINDER_RET_REPLY || r.msg.offsets_count != 1)
		die("GIVE: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	hs = fbt_obj(&c, &r.msg, 0)->handle;
	CHECK(fbt_acquire(&c, hs) == 0, "acquire %u", hs);
	fbt_free_buffer(&c, r.msg.data);

	for (i = 0; i < NCALLERS; i++) {
		cl[i] = (struct caller){ .ctx = &c, .handle = hs, .ret = 1 };
		if (pthread_create(&cl[i].th, NULL, caller, &cl[i]))
			die("pthread_create");
	}
	got = wait_bytes(pfd[0], 2, 10000);
	CHECK(got == 2, "%d of S's 2 loopers took a call", got);
	for (i = 0; i < 3; i++)
		CHECK(fbt_oneway(&c, hs, C_HANG, "queued", 6, NULL, 0) == 0, "oneway %d", i);
	usleep(300000);	/* the other two calls are queued by now */
	CHECK(fbt_stat("live_contexts", &v) == 0 && v >= 2,
	      "live_contexts while 2 contexts are open: %lld", v);
	CHECK(fbt_stat("live_transactions", &v) == 0 && v >= 4,
	      "live_transactions with 4 calls in flight: %lld", v);

	kill(spid, SIGKILL);
	CHECK(fbt_wait(spid) == 128 + SIGKILL, "S was not killed by SIGKILL");

	for (i = 0; i < NCALLERS; i++) {
		pthread_join(cl[i].th, NULL);
		CHECK(cl[i].ret == 0 && cl[i].r.cmd == FBINDER_RET_FAILED &&
		      cl[i].r.err.error == -EOWNERDEAD,
		      "caller %d: %s %s error %d, want FBINDER_RET_FAILED -EOWNERDEAD", i,
		      strerror(-cl[i].ret), fbt_ret_name(cl[i].r.cmd), cl[i].r.err.error);
		CHECK(cl[i].r.cmd != FBINDER_RET_FAILED || cl[i].r.err.txn_id != 0, "caller %d: txn_id 0", i);
		for (j = 0; j < i; j++)
			CHECK(cl[i].r.err.txn_id != cl[j].r.err.txn_id,
			      "callers %d and %d failed with the same txn_id", j, i);
	}

	ret = fbt_call(&c, hs, C_HANG, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == -EOWNERDEAD, "call to the dead server's handle: %s %s, want EOWNERDEAD",
	      strerror(-ret), fbt_ret_name(r.cmd));
	ret = fbt_oneway(&c, hs, C_HANG, NULL, 0, NULL, 0);
	CHECK(ret == -EOWNERDEAD, "oneway to the dead server's handle: %s, want EOWNERDEAD",
	      strerror(-ret));
	ret = fbt_oneway(&c, 0, C_HANG, NULL, 0, NULL, 0);
	CHECK(ret == -ENOENT,
	      "oneway to handle 0 after the manager died: %s, want ENOENT",
	      strerror(-ret));
	printf("# handle 0 after the manager died: %s\n", strerror(-ret));

	/* The dead manager's claim is gone: a new one can claim and is handle 0. */
	fbt_ctx_open(&m2, MB);
	ret = fbt_set_mgr(m2.fd, 0x2222);
	CHECK(ret == 0, "claim after the manager was killed: %s", strerror(-ret));
	ret = fbt_oneway(&c, 0, 9, "new", 3, NULL, 0);
	CHECK(ret == 0, "oneway to the new manager: %s", strerror(-ret));
	ret = fbt_try_next(&m2, &r);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.cookie == 0x2222,
	      "new manager: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	/* Leave its buffer unfreed: closing must free it. */

	CHECK(fbt_release(&c, hs) == 0, "release of the dead handle");
	ret = fbt_try_next(&c, &r);
	CHECK(ret == -EAGAIN, "stray return: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	fbt_ctx_close(&m2);
	fbt_ctx_close(&c);
	close(pfd[0]);

	CHECK(fbt_wait_live_zero(3000) == 0, "live counts did not return to zero");
	return fbt_done();
}
