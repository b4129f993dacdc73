// SPDX-License-Identifier: MIT
/*
 * attack_route_race: a nested call's route, read without the device lock,
 * raced by callers that give up their calls (docs/security.md, G1).
 *
 * A call sent while its thread handles another goes back to a thread of
 * the target that waits in the chain, if there is one.  The driver walks
 * that chain under RCU (driver/txn.c, fbinder_route_clocked()): the
 * callers of other contexts may abandon their calls meanwhile, and the
 * calls they were handling may be answered and freed.
 *
 * The chain, every round: X's thread x1 calls Y (C, round i); Y, handling
 * C, calls W (C2); W, handling C2, calls Z (D); Z, handling D, calls X
 * (E): its route is x1, through D, C2 and C.  In odd rounds W abandons D
 * in the same write as its send and replies to C2 at once, so Y takes its
 * reply, C2 is freed and C answered while Z's E may be on its way, racing
 * the walk through D and C2.  In even rounds W waits for D's reply.
 *
 * What must hold, on both vCPUs for RUN_MS:
 *  - x1 gets only an E of the round it waits in (a route through a call
 *    freed and reused, or to a thread no longer waiting, would give it
 *    another round's, or leave E for a thread that never reads: a hang);
 *  - an even round's E reaches x1 (its chain was never cut), an odd
 *    round's reaches x1 or X's looper x2, and every E gets its reply;
 *  - nothing is left: the live counts return to zero (the root parent).
 * Processes: the slot manager (root), X, Y, W, Z (uid 65534).
 */
#include "fbt_slots.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define RUN_MS		2000
#define MIN_ROUNDS	200

enum { SLOT_X, SLOT_Y, SLOT_W, SLOT_Z };
enum { C_CALL = 10, C_E, C_QUIT };

struct round {
	__u32 i;
	__u32 abandon;		/* W abandons D */
};

/* shared by all (MAP_SHARED before the forks) */
struct tally {
	atomic_uint e_sent;		/* Z: E answered */
	atomic_uint routed[2];	/* x1 got E, by round kind (0 waits, 1 abandons) */
	atomic_uint served[2];	/* x2 got E */
	atomic_uint misrouted;	/* x1 got another round's E */
	atomic_uint abandons;	/* W's abandons that took */
	atomic_uint rounds;
};

static struct tally *tally;

static void reg_put(struct fbt_ctx *p, __u32 slot, __u64 cookie)
{
	int ret = fbt_slot_put(p, slot, cookie);

	if (ret)
		die("put slot %u: %s", slot, strerror(-ret));
}

static struct round round_of(const struct fbt_ctx *p, const struct fbinder_txn_msg *m)
{
	struct round r = { 0 };

	if (m->data_size == sizeof(r))
		memcpy(&r, fbt_data(p, m), sizeof(r));
	return r;
}

/* ---- X: x1 calls Y round after round, x2 serves what is not routed ---- */

static __u32 x_round;	/* the round x1 waits in */

static int x1_nested(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct round rd = round_of(p, &r->msg);

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (rd.i != x_round) {
		atomic_fetch_add(&tally->misrouted, 1);
		fprintf(stderr, "x1 waits in round %u and got round %u's E\n", x_round, rd.i);
	}
	atomic_fetch_add(&tally->routed[rd.abandon], 1);
	return fbt_reply(p, &r->msg, 0, NULL, 0, NULL, 0);
}

static void *x2_serve(void *arg)
{
	struct fbt_ctx *t = fbt_ctx_thread(arg, true);
	struct fbt_ret r;

	while (fbt_next(t, &r) == 0) {
		if (r.cmd != FBINDER_RET_TRANSACTION)
			continue;
		atomic_fetch_add(&tally->served[round_of(t, &r.msg).abandon], 1);
		fbt_reply(t, &r.msg, 0, NULL, 0, NULL, 0);
	}
	return NULL;
}

static int x_main(void *arg)
{
	struct fbt_ctx p;
	struct fbt_ret rep;
	struct round rd;
	pthread_t x2;
	long long end;
	__u32 hy;
	int ret;

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	if (pthread_create(&x2, NULL, x2_serve, &p))
		die("pthread_create");
	reg_put(&p, SLOT_X, 0x3);
	hy = fbt_slot_get_wait(&p, SLOT_Y);
	end = fbt_now_ms() + RUN_MS;
	alarm(60);
	for (x_round = 1; fbt_now_ms() < end || x_round <= MIN_ROUNDS; x_round++) {
		rd.i = x_round;
		rd.abandon = x_round & 1;
		ret = fbt_call(&p, hy, C_CALL, &rd, sizeof(rd), NULL, 0, &rep, x1_nested, NULL);
		if (ret || rep.cmd != FBINDER_RET_REPLY)
			die("x1: round %u: %s %s", x_round, strerror(-ret), fbt_ret_name(rep.cmd));
		fbt_free_buffer(&p, rep.msg.data);
		atomic_fetch_add(&tally->rounds, 1);
	}
	ret = fbt_call(&p, hy, C_QUIT, NULL, 0, NULL, 0, &rep, x1_nested, NULL);
	CHECK(ret == 0 && rep.cmd == FBINDER_RET_REPLY, "x1: quit: %s", strerror(-ret));
	/* x2 still blocks in its read: the exit ends it */
	exit(fbt_child_status());
}

/* ---- Y: handling C, calls W and waits ---------------------------------- */

static int y_main(void *arg)
{
	struct fbt_ctx p;
	struct fbt_ret r, rep;
	__u32 hw;
	int ret, quit = 0;

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	reg_put(&p, SLOT_Y, 0x7);
	hw = fbt_slot_get_wait(&p, SLOT_W);
	while (!quit) {
		fbt_next_txn(&p, &r, "Y");
		quit = r.msg.code == C_QUIT;
		ret = fbt_call(&p, hw, r.msg.code, fbt_data(&p, &r.msg), r.msg.data_size,
			       NULL, 0, &rep, NULL, NULL);
		if (ret || rep.cmd != FBINDER_RET_REPLY)
			die("Y: C2: %s %s", strerror(-ret), fbt_ret_name(rep.cmd));
		fbt_free_buffer(&p, rep.msg.data);
		if (fbt_reply(&p, &r.msg, 0, NULL, 0, NULL, 0))
			die("Y: reply to C");
	}
	fbt_ctx_close(&p);
	return fbt_child_status();
}

/* ---- W: handling C2, calls Z, and in odd rounds abandons D at once ---- */

static int w_main(void *arg)
{
	struct fbt_ctx p;
	struct fbt_ret r, rep;
	struct round rd;
	struct fbt_w w;
	size_t done;
	__u32 hz;
	int ret, quit = 0;

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	reg_put(&p, SLOT_W, 0x5);
	hz = fbt_slot_get_wait(&p, SLOT_Z);
	while (!quit) {
		fbt_next_txn(&p, &r, "W");
		quit = r.msg.code == C_QUIT;
		rd = round_of(&p, &r.msg);
		if (quit || !rd.abandon) {
			ret = fbt_call(&p, hz, r.msg.code, &rd, sizeof(rd), NULL, 0, &rep,
				       NULL, NULL);
			if (ret || rep.cmd != FBINDER_RET_REPLY)
				die("W: D: %s %s", strerror(-ret), fbt_ret_name(rep.cmd));
			fbt_free_buffer(&p, rep.msg.data);
		} else {
			fbt_w_reset(&w);
			fbt_w_send(&w, hz, C_CALL, 0, &rd, sizeof(rd), NULL, 0);
			fbt_w_cmd(&w, FBINDER_CMD_ABANDON, NULL, 0);
			ret = fbt_wr(&p, &w, &done, false);
			if (ret == 0) {
				atomic_fetch_add(&tally->abandons, 1);
			} else if (ret == -EBUSY && done) {
				/* D's reply came first: read it, as the ABI asks */
				fbt_next(&p, &rep);
				if (rep.cmd != FBINDER_RET_REPLY)
					die("W: D's answer: %s", fbt_ret_name(rep.cmd));
				fbt_free_buffer(&p, rep.msg.data);
			} else {
				die("W: send and abandon D: %s", strerror(-ret));
			}
		}
		if (fbt_reply(&p, &r.msg, 0, NULL, 0, NULL, 0))
			die("W: reply to C2");
	}
	fbt_ctx_close(&p);
	return fbt_child_status();
}

/* ---- Z: handling D, calls X (E), then replies ------------------------- */

static int z_main(void *arg)
{
	struct fbt_ctx p;
	struct fbt_ret r, rep;
	__u32 hx;
	int ret, quit = 0;

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	reg_put(&p, SLOT_Z, 0x2);
	hx = fbt_slot_get_wait(&p, SLOT_X);
	while (!quit) {
		fbt_next_txn(&p, &r, "Z");
		quit = r.msg.code == C_QUIT;
		if (!quit) {
			ret = fbt_call(&p, hx, C_E, fbt_data(&p, &r.msg), r.msg.data_size,
				       NULL, 0, &rep, NULL, NULL);
			if (ret || rep.cmd != FBINDER_RET_REPLY)
				die("Z: E: %s %s", strerror(-ret), fbt_ret_name(rep.cmd));
			fbt_free_buffer(&p, rep.msg.data);
			atomic_fetch_add(&tally->e_sent, 1);
		}
		/* D's caller may have abandoned it: the reply is dropped, and succeeds */
		if (fbt_reply(&p, &r.msg, 0, NULL, 0, NULL, 0))
			die("Z: reply to D");
	}
	fbt_ctx_close(&p);
	return fbt_child_status();
}

int main(void)
{
	unsigned int routed, served;
	pid_t mgr, x, y, w, z;

	tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tally == MAP_FAILED)
		die("mmap");
	mgr = fbt_slot_spawn();
	z = fbt_fork(z_main, NULL);
	w = fbt_fork(w_main, NULL);
	y = fbt_fork(y_main, NULL);
	x = fbt_fork(x_main, NULL);
	CHECK(fbt_wait(x) == 0, "X failed");
	CHECK(fbt_wait(y) == 0, "Y failed");
	CHECK(fbt_wait(w) == 0, "W failed");
	CHECK(fbt_wait(z) == 0, "Z failed");
	kill(mgr, SIGKILL);
	fbt_wait(mgr);

	routed = tally->routed[0] + tally->routed[1];
	served = tally->served[0] + tally->served[1];
	printf("# %u rounds, %u abandons took; E to x1: %u waiting, %u abandoned; "
	       "to x2: %u waiting, %u abandoned\n", tally->rounds, tally->abandons,
	       tally->routed[0], tally->routed[1], tally->served[0], tally->served[1]);
	CHECK(tally->rounds >= MIN_ROUNDS, "only %u rounds", tally->rounds);
	CHECK(tally->misrouted == 0, "%u E reached x1 in another round", tally->misrouted);
	CHECK(tally->served[0] == 0, "%u E of a chain never cut missed its route",
	      tally->served[0]);
	CHECK(routed + served == tally->e_sent && tally->e_sent == tally->rounds,
	      "E: %u sent, %u routed, %u served, %u rounds", tally->e_sent, routed, served,
	      tally->rounds);
	CHECK(tally->abandons > 0, "no abandon took: the race was not run");
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
