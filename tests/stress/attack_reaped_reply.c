// SPDX-License-Identifier: MIT
/*
 * attack_reaped_reply: a thread calls and exits without
 * FBINDER_IOC_THREAD_EXIT; the answer meant for it, sized by the replier
 * as most of the caller's buffer, lands on the todo of its record, which a
 * later thread's first ioctl sweeps (docs/abi.md, FBINDER_IOC_THREAD_EXIT).
 * The sweep must free the message's slot, since the context lives on:
 *
 *  - a reply: after the sweep the caller's context has no slot in use
 *    (FBINDER_IOC_INFO), and another reply of the same size fits;
 *  - a call routed back to the gone thread (a nested call of the handler,
 *    to the caller's own node): it fails to the handler with EOWNERDEAD,
 *    and the slot it had is free again too.
 *
 * Root only to claim handle 0: the manager (the replier) and the caller
 * run as uid 65534.
 */
#include "fbt_proto.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KB		1024
#define MAP		(256 * KB)
#define BIG		(160 * KB)	/* more than half the caller's buffer */
#define MGR_COOKIE	0x2eab0ULL
#define OBJ_COOKIE	0x7e57ULL
#define BIG_REPLY	1u		/* answer with BIG bytes */
#define ROUTE		2u		/* call the object it carries back, BIG bytes */
#define NESTED		3u

static int to_client[2];	/* the manager tells: replied, nested call sent, its end */

static void tell(int v)
{
	if (write(to_client[1], &v, sizeof(v)) != (ssize_t)sizeof(v))
		die("tell");
}

static int hear(void)
{
	int v;

	if (read(to_client[0], &v, sizeof(v)) != (ssize_t)sizeof(v))
		die("the manager is gone");
	return v;
}

static unsigned char big[BIG];

static int mgr_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_object *obj;
	struct fbt_ret res;
	struct fbt_w w;
	int ret;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (r->msg.code == BIG_REPLY) {
		tell(fbt_reply(p, &r->msg, 0, big, BIG, NULL, 0));
		return 0;
	}
	if (r->msg.code != ROUTE || r->msg.offsets_count != 1) {
		fbt_reply(p, &r->msg, 0, NULL, 0, NULL, 0);
		return 0;
	}
	/* back to the caller's own object: routed to the thread that waits */
	obj = fbt_obj(p, &r->msg, 0);
	fbt_w_reset(&w);
	fbt_w_send(&w, obj->handle, NESTED, 0, big, BIG, NULL, 0);
	ret = fbt_wr(p, &w, NULL, false);
	tell(ret);
	if (!ret) {
		ret = fbt_next(p, &res);
		if (!ret && res.cmd == FBINDER_RET_REPLY) {
			fbt_free_buffer(p, res.msg.data);
			ret = 0;
		} else if (!ret) {
			ret = res.cmd == FBINDER_RET_FAILED ? res.err.error : -EPROTO;
		}
		tell(ret);
	}
	/* its caller is gone: the reply is dropped, the command succeeds */
	fbt_reply(p, &r->msg, 0, NULL, 0, NULL, 0);
	return 0;
}

static int mgr_body(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	for (;;)
		if (fbt_serve(p, mgr_handler, NULL) != -EINTR)
			return 0;
}

struct caller {
	const struct fbt_ctx *ctx;
	__u32 code;
	int ret;
	pid_t tid;
};

/* The call, without waiting for its answer; then the thread exits. */
static void *call_and_exit(void *arg)
{
	struct caller *c = arg;
	struct fbinder_object obj = { .type = FBINDER_OBJ_LOCAL, .cookie = OBJ_COOKIE };
	__u64 off = 0;
	struct fbt_ctx t;
	struct fbt_w w;

	c->tid = (pid_t)syscall(SYS_gettid);
	fbt_ctx_attach(&t, c->ctx);
	fbt_w_reset(&w);
	if (c->code == ROUTE)
		fbt_w_send(&w, 0, ROUTE, 0, &obj, sizeof(obj), &off, 1);
	else
		fbt_w_send(&w, 0, c->code, 0, NULL, 0, NULL, 0);
	c->ret = fbt_wr(&t, &w, NULL, false);
	return NULL;
}

/* A new thread's first ioctl: its record sweeps the gone thread's. */
static void *sweep(void *arg)
{
	struct fbt_ctx t;

	fbt_ctx_attach(&t, arg);
	fbt_wr(&t, NULL, NULL, false);
	return NULL;
}

static void run_thread(void *(*fn)(void *), void *arg)
{
	pthread_t th;

	if (pthread_create(&th, NULL, fn, arg) || pthread_join(th, NULL))
		die("pthread");
}

/* The join returns before the thread's pid is released: wait for that. */
static void wait_gone(pid_t tid)
{
	long long deadline = fbt_now_ms() + 5000;
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	while (!stat(path, &st)) {
		if (fbt_now_ms() > deadline)
			die("thread %d did not go", (int)tid);
		usleep(1000);
	}
}

/* Slots in use in the caller's own context, from FBINDER_IOC_INFO. */
static long long slots_in_use(const struct fbt_ctx *p)
{
	struct fbinder_info_context e[16] = { 0 };
	struct fbinder_info in = {
		.what = FBINDER_INFO_CONTEXTS,
		.entry_size = sizeof(e[0]),
		.count = 16,
		.entries = (uintptr_t)e,
	};
	__u32 i;

	if (ioctl(p->fd, FBINDER_IOC_INFO, &in))
		die("FBINDER_IOC_INFO: %s", strerror(errno));
	for (i = 0; i < in.count; i++)
		if (e[i].pid == (__u32)getpid())
			return e[i].buffers;
	return -1;
}

/* A reply of BIG bytes to this thread: fits only if no BIG slot is held. */
static void check_room(struct fbt_ctx *p, const char *after)
{
	struct fbt_ret r;
	int ret;

	ret = fbt_call(p, 0, BIG_REPLY, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0, "call after %s: %s", after, strerror(-ret));
	if (ret)
		return;
	CHECK(hear() == 0, "the manager's reply after %s failed", after);
	CHECK(r.cmd == FBINDER_RET_REPLY,
	      "a reply of %d KiB into %d KiB after %s: %s (%s), want it delivered",
	      BIG / KB, MAP / KB, after, fbt_ret_name(r.cmd),
	      r.cmd == FBINDER_RET_FAILED ? strerror(-r.err.error) : "");
	if (r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(p, r.msg.data);
}

int main(void)
{
	struct fbt_ctx p;
	struct caller c;
	long long n;
	pid_t mgr;
	int ret;

	alarm(50);
	if (pipe(to_client))
		die("pipe");
	mgr = fbt_spawn_manager_ex(MAP, MGR_COOKIE, FBT_MGR_NOBODY, mgr_body, NULL);
	fbt_become_nobody();
	fbt_ctx_open(&p, MAP);

	/* ---- a reply to a thread that is gone ---- */
	c = (struct caller){ .ctx = &p, .code = BIG_REPLY };
	run_thread(call_and_exit, &c);
	CHECK(c.ret == 0, "the call: %s", strerror(-c.ret));
	ret = hear();
	CHECK(ret == 0, "the manager's reply of %d KiB: %s", BIG / KB, strerror(-ret));
	n = slots_in_use(&p);
	printf("# a reply of %d KiB waits for a thread that exited: %lld slot(s) in use\n",
	       BIG / KB, n);
	CHECK(n == 1, "%lld slots in use with the reply queued, want 1", n);
	wait_gone(c.tid);
	run_thread(sweep, &p);
	n = slots_in_use(&p);
	printf("# after the sweep: %lld slot(s) in use\n", n);
	CHECK(n == 0, "the swept thread's reply still holds %lld slot(s)", n);
	check_room(&p, "the swept reply");

	/* ---- a call routed back to a thread that is gone ---- */
	c = (struct caller){ .ctx = &p, .code = ROUTE };
	run_thread(call_and_exit, &c);
	CHECK(c.ret == 0, "the routed call's call: %s", strerror(-c.ret));
	ret = hear();
	CHECK(ret == 0, "the nested call of %d KiB: %s", BIG / KB, strerror(-ret));
	if (!ret) {
		n = slots_in_use(&p);
		CHECK(n == 1, "%lld slots in use with the nested call queued, want 1", n);
		wait_gone(c.tid);
		run_thread(sweep, &p);
		ret = hear();
		printf("# the nested call to the swept thread ended with %s\n",
		       strerror(-ret));
		CHECK(ret == -EOWNERDEAD, "the nested call ended with %s, want EOWNERDEAD",
		      strerror(-ret));
		n = slots_in_use(&p);
		printf("# after the sweep: %lld slot(s) in use\n", n);
		CHECK(n == 0, "the swept thread's routed call still holds %lld slot(s)", n);
		check_room(&p, "the swept routed call");
	}

	fbt_ctx_close(&p);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	return fbt_done();
}
