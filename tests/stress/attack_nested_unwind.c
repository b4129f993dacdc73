// SPDX-License-Identifier: MIT
/*
 * attack_nested_unwind: a nested call must never be routed through a
 * transaction that is gone (docs/security.md, G1).
 *
 * X calls Y (call C).  Y, handling C, calls Z (call D) without waiting
 * for the answer, and exits: C fails back to X, and D goes on with no
 * caller.  Z, still handling D, then calls into X's process.  The driver
 * used to leave D's link to C (from_parent) in place while C was failed
 * and freed, so this call walked into the freed C, found X's first
 * thread there, and was queued to that thread instead of to X's process,
 * where a second thread serves.  Now it must reach X's serving thread and
 * get its reply.  Two rounds: in the first X's first thread stays (and
 * never reads again, so a misrouted call hangs); in the second it leaves
 * with FBINDER_IOC_THREAD_EXIT first, which made the misrouting a
 * use-after-free of its record (KASAN sees it under make check-debug).
 *
 * A oneway message W, queued to X before C fails and read after, makes
 * sure the freed C stays among the driver's spare transactions (the next
 * send takes the most recently freed one) so the stale link is really
 * there to follow.
 *
 * The manager (fbt_slots.h) runs as root; X, Y and Z are the
 * unprivileged attackers.  Root parent: it checks the live counts after.
 */
#include "fbt_slots.h"

#include <pthread.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#define MB		(1024 * 1024)

enum { SLOT_Y, SLOT_Z, SLOT_X, SLOTS_PER_ROUND };

/* each round has its own registry slots: the last round's owners are dead */
static __u32 slot_base;
enum { C_CALL = 10, C_NOTE, C_BACK };		/* the attackers' codes */

static void reg_put(struct fbt_ctx *p, __u32 slot, __u64 cookie)
{
	int ret = fbt_slot_put(p, slot_base + slot, cookie);

	if (ret)
		die("put slot %u: %s", slot_base + slot, strerror(-ret));
}

static __u32 reg_get(struct fbt_ctx *p, __u32 slot)
{
	return fbt_slot_get_wait(p, slot_base + slot);
}

/* ---- steps between processes, over pipes ---------------------------- */

struct chan {
	int fd[2];
};

static void chan_init(struct chan *c)
{
	if (pipe(c->fd))
		die("pipe");
}

static void chan_post(struct chan *c)
{
	if (write(c->fd[1], "x", 1) != 1)
		die("pipe write");
}

static void chan_wait(struct chan *c)
{
	char x;

	if (read(c->fd[0], &x, 1) != 1)
		die("pipe read");
}

static struct chan z_got_d, y_may_exit, x_got_failed, x_got_note, z_done;

/* ---- Y: takes C, calls Z without waiting, exits ---------------------- */

static int y_main(void *arg)
{
	struct fbt_ctx p;
	struct fbt_ret r;
	struct fbt_w w;
	__u32 hz;
	(void)arg;

	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	reg_put(&p, SLOT_Y, 0x7);
	hz = reg_get(&p, SLOT_Z);
	if (fbt_next(&p, &r) || r.cmd != FBINDER_RET_TRANSACTION || r.msg.code != C_CALL)
		die("Y: no call C");
	/* D: a call made while handling C, its answer never read */
	fbt_w_reset(&w);
	fbt_w_send(&w, hz, C_CALL, 0, NULL, 0, NULL, 0);
	if (fbt_wr(&p, &w, NULL, false))
		die("Y: send D");
	chan_wait(&y_may_exit);
	_exit(0);	/* C fails back to X; D loses its caller */
}

/* ---- Z: handles D, then calls back into X ---------------------------- */

static int z_main(void *arg)
{
	struct fbt_ctx p;
	struct fbt_ret r, rep;
	__u32 hx;
	int ret;
	(void)arg;

	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	reg_put(&p, SLOT_Z, 0x2);
	hx = reg_get(&p, SLOT_X);
	if (fbt_next(&p, &r) || r.cmd != FBINDER_RET_TRANSACTION || r.msg.code != C_CALL)
		die("Z: no call D");
	/* W: queued to X now, read by X after C failed */
	if (fbt_oneway(&p, hx, C_NOTE, NULL, 0, NULL, 0))
		die("Z: oneway W");
	chan_post(&z_got_d);
	chan_wait(&x_got_note);

	/* still handling D, whose caller is gone: call X */
	alarm(10);
	ret = fbt_call(&p, hx, C_BACK, NULL, 0, NULL, 0, &rep, NULL, NULL);
	alarm(0);
	CHECK(ret == 0 && rep.cmd == FBINDER_RET_REPLY && rep.msg.code == 42,
	      "Z: the call into X: %s, %s code %u (want a reply 42 from X's server)",
	      strerror(-ret), fbt_ret_name(rep.cmd), rep.msg.code);
	if (ret == 0 && rep.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&p, rep.msg.data);
	/* D's caller is gone: the reply is dropped and succeeds */
	CHECK(fbt_reply(&p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "Z: reply to D");
	chan_post(&z_done);
	fbt_ctx_close(&p);
	return fbt_child_status();
}

/* ---- X: its first thread calls Y and leaves, a second one serves ------ */

struct x_state {
	struct fbt_ctx *ctx;
	pthread_barrier_t failed;
	int served;
};

static void *x_server(void *arg)
{
	struct x_state *xs = arg;
	struct fbt_ctx *t;
	struct fbt_ret r;

	pthread_barrier_wait(&xs->failed);
	t = fbt_ctx_thread(xs->ctx, true);
	while (xs->served < 2 && fbt_next(t, &r) == 0) {
		if (r.cmd != FBINDER_RET_TRANSACTION)
			continue;
		if (r.msg.code == C_NOTE) {
			fbt_free_buffer(t, r.msg.data);
			xs->served++;
			chan_post(&x_got_note);
		} else if (r.msg.code == C_BACK) {
			CHECK(fbt_reply(t, &r.msg, 42, NULL, 0, NULL, 0) == 0, "X: reply to Z");
			xs->served++;
		}
	}
	free(t);
	return NULL;
}

static int x_main(void *arg)
{
	struct x_state xs = { 0 };
	struct fbt_ctx p;
	struct fbt_ret rep;
	pthread_t server;
	__u32 hy;
	int ret;

	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	xs.ctx = &p;
	pthread_barrier_init(&xs.failed, NULL, 2);
	if (pthread_create(&server, NULL, x_server, &xs))
		die("pthread_create");
	reg_put(&p, SLOT_X, 0x3);
	hy = reg_get(&p, SLOT_Y);

	ret = fbt_call(&p, hy, C_CALL, NULL, 0, NULL, 0, &rep, NULL, NULL);
	CHECK(ret == 0 && rep.cmd == FBINDER_RET_FAILED && rep.err.error == -EOWNERDEAD,
	      "X: C ended with %s %d, want FBINDER_RET_FAILED -EOWNERDEAD",
	      fbt_ret_name(rep.cmd), rep.err.error);
	/* round 2: the thread that made C is gone before anyone calls back */
	if (*(int *)arg)
		CHECK(ioctl(p.fd, FBINDER_IOC_THREAD_EXIT) == 0, "X: THREAD_EXIT: %s",
		      strerror(errno));
	chan_post(&x_got_failed);
	pthread_barrier_wait(&xs.failed);
	pthread_join(server, NULL);
	CHECK(xs.served == 2, "X: served %d of W and Z's call", xs.served);
	chan_wait(&z_done);
	fbt_ctx_close(&p);
	return fbt_child_status();
}

static void attack_round(int leave)
{
	pid_t x, y, z;

	printf("# round %d: X's first thread %s\n", leave + 1,
	       leave ? "leaves with FBINDER_IOC_THREAD_EXIT" : "stays, never reading");
	slot_base = leave * SLOTS_PER_ROUND;
	z = fbt_fork(z_main, NULL);
	y = fbt_fork(y_main, NULL);
	x = fbt_fork(x_main, &leave);

	/* Z holds D; then Y leaves, failing C back to X */
	chan_wait(&z_got_d);
	printf("# Z handles D; Y exits\n");
	chan_post(&y_may_exit);
	CHECK(fbt_wait(y) == 0, "Y exited badly");
	chan_wait(&x_got_failed);
	printf("# X got C's failure; Z calls back into X\n");

	CHECK(fbt_wait(z) == 0, "Z failed (its call into X was lost or misrouted)");
	CHECK(fbt_wait(x) == 0, "X failed");
}

int main(void)
{
	pid_t mgr;

	chan_init(&z_got_d);
	chan_init(&y_may_exit);
	chan_init(&x_got_failed);
	chan_init(&x_got_note);
	chan_init(&z_done);
	mgr = fbt_slot_spawn();
	attack_round(0);
	attack_round(1);

	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
