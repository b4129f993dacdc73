// SPDX-License-Identifier: MIT
/*
 * priority_chain: priority inheritance along a chain, node minimums and
 * oneway work, each read back with sched_getattr() by the handling thread
 * itself.
 *
 *  - two hops: a SCHED_FIFO 50 caller (then a nice -10 one) calls service
 *    A (own: SCHED_OTHER nice 3), whose handler calls service B (own:
 *    SCHED_OTHER nice 7): B's handler runs at the caller's settings, A's
 *    still does after B replied, and right after each replies it is back
 *    to exactly its own settings.
 *  - node minimum: a nice 0 caller to a node declared with minimum nice -5
 *    runs its handler at nice -5, a nice -10 caller at -10; a node with an
 *    FBINDER_OBJF_PRIO_RT minimum of SCHED_FIFO 20 runs a nice 0 caller's call
 *    at SCHED_FIFO 20 and a SCHED_FIFO 50 caller's at 50; the handler is
 *    back to its own after each reply.  Minimums out of range are EINVAL.
 *  - SCHED_DEADLINE: a deadline service at the end of a FIFO 50 chain stays
 *    SCHED_DEADLINE during and after its handler; a deadline caller passes
 *    on its nice value only (A runs at nice 0).
 *  - reset-on-fork: A's own settings carry SCHED_FLAG_RESET_ON_FORK, which
 *    every raise and restore keeps.
 *  - FBINDER_IOC_THREAD_EXIT instead of a reply, or after a raised oneway
 *    message, gives the thread its own settings back.
 *  - oneway: a SCHED_FIFO 50 sender's oneway message to a node with no
 *    minimum runs at the looper's own settings; to the nice -5 node at
 *    nice -5, to the FIFO 20 node at FIFO 20; the next call is handled at
 *    the looper's own settings again.
 */
#include "fbt_proto.h"

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define A_COOKIE	0xa11ceULL
#define B_COOKIE	0xb0bULL
#define X_COOKIE	0x7e5ULL	/* A's object with minimum nice -5 */
#define Y_COOKIE	0x7e6ULL	/* A's object with minimum FIFO 20 */
#define A_NICE		3
#define B_NICE		7

#define A_FLAGS		0x01	/* SCHED_FLAG_RESET_ON_FORK */

enum { C_REG = 1, C_CHAIN, C_REPORT, C_GIVE, C_ONEWAY, C_NOP, C_EXIT, C_REG_D };

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif

struct prio {
	__u32 policy;
	__u32 rt;
	__s32 nice;
	__u32 who;	/* in pipe records: 'A', 'B' ('E': THREAD_EXIT failed) */
	__u64 flags;	/* sched_flags */
};

struct chain_rep {
	struct prio a_in, b, a_after;
};

static int rep_pipe[2];		/* services -> test: struct prio records */
static __u32 h_b, h_d;		/* A's handles on B's and D's objects */
static __u32 my_who = 'B';	/* B or D, in those processes */

static void my_prio(struct prio *p, __u32 who)
{
	struct fbt_sched now;

	fbt_sched_get(&now);
	p->policy = now.policy;
	p->rt = now.rt;
	p->nice = now.nice;
	p->who = who;
	p->flags = now.flags;
}

static void set_prio_flags(__u32 policy, __u32 rt, __s32 nice, __u64 flags)
{
	if (fbt_sched_set(policy, rt, nice, flags))
		die("sched_setattr");
}

static void set_prio(__u32 policy, __u32 rt, __s32 nice)
{
	set_prio_flags(policy, rt, nice, 0);
}

/* SCHED_DEADLINE: 2 ms every 20 ms. */
static void set_deadline(void)
{
	struct fbt_sched_attr attr = { .size = sizeof(attr) };

	attr.sched_policy = SCHED_DEADLINE;
	attr.sched_runtime = 2000000;
	attr.sched_deadline = 20000000;
	attr.sched_period = 20000000;
	if (syscall(SYS_sched_setattr, 0, &attr, 0))
		die("sched_setattr SCHED_DEADLINE");
}

static void record(__u32 who)
{
	struct prio p;

	my_prio(&p, who);
	if (write(rep_pipe[1], &p, sizeof(p)) != sizeof(p))
		die("write record");
}

static struct prio next_record(void)
{
	struct prio p;

	if (read(rep_pipe[0], &p, sizeof(p)) != sizeof(p))
		die("read record");
	return p;
}

static bool is_fifo(const struct prio *p, __u32 rt)
{
	return p->policy == SCHED_FIFO && p->rt == rt;
}

static bool is_nice(const struct prio *p, __s32 nice)
{
	return p->policy == SCHED_OTHER && p->nice == nice;
}

/* A's own settings exactly: SCHED_OTHER, nice A_NICE, reset-on-fork. */
static bool is_a_own(const struct prio *p)
{
	return is_nice(p, A_NICE) && (p->flags & A_FLAGS) == A_FLAGS;
}

#define SHOW(p) (p).policy, (p).rt, (p).nice

/* ---- service B: reports, then records its settings after the reply ---- */

static int b_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct prio rep;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	my_prio(&rep, my_who);
	if (fbt_reply(p, &r->msg, 0, &rep, sizeof(rep), NULL, 0))
		return -1;
	record(my_who);
	return 0;
}

static int b_main(void *arg)
{
	struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL, .cookie = B_COOKIE };
	int ready = (int)(intptr_t)arg;
	struct fbt_ret reply;
	__u64 off = 0;
	struct fbt_ctx p;
	char c = 'b';

	alarm(50);
	if (my_who == 'D')
		set_deadline();
	else
		set_prio(SCHED_OTHER, 0, B_NICE);
	fbt_ctx_open(&p, MB);
	if (fbt_call(&p, 0, my_who == 'D' ? C_REG_D : C_REG, &o, sizeof(o), &off, 1,
		     &reply, NULL, NULL) ||
	    reply.cmd != FBINDER_RET_REPLY)
		die("B: register with A");
	fbt_free_buffer(&p, reply.msg.data);
	if (write(ready, &c, 1) != 1)
		die("B: ready");
	fbt_serve(&p, b_handler, NULL);
	return fbt_child_status();
}

/* ---- service A: the manager ---- */

static int a_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_txn_msg *m = &r->msg;
	struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL };
	struct chain_rep rep;
	struct fbt_ret reply;
	struct prio me;
	__u64 off = 0;
	int ret;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (m->flags & FBINDER_TXN_ONEWAY) {
		if (m->code != C_EXIT)
			record('A');
		if (fbt_free_buffer(p, m->data))
			return -1;
		if (m->code == C_EXIT)
			record(ioctl(p->fd, FBINDER_IOC_THREAD_EXIT) ? 'E' : 'A');
		return 0;
	}
	if (m->cookie != A_COOKIE) {	/* X or Y: report and record */
		my_prio(&me, 'A');
		if (fbt_reply(p, m, 0, &me, sizeof(me), NULL, 0))
			return -1;
		record('A');
		return 0;
	}
	switch (m->code) {
	case C_EXIT:	/* leave without replying: the caller gets a failure */
		if (fbt_free_buffer(p, m->data))
			return -1;
		record(ioctl(p->fd, FBINDER_IOC_THREAD_EXIT) ? 'E' : 'A');
		return 0;
	case C_REG:
	case C_REG_D: {
		const struct fbinder_object *bo = fbt_obj(p, m, 0);

		if (bo->type != FBINDER_OBJ_HANDLE || fbt_acquire(p, bo->handle))
			die("A: register: no handle");
		if (m->code == C_REG_D)
			h_d = bo->handle;
		else
			h_b = bo->handle;
		return fbt_reply(p, m, 0, NULL, 0, NULL, 0) ? -1 : 0;
	}
	case C_CHAIN:
		my_prio(&rep.a_in, 'A');
		memset(&rep.b, 0, sizeof(rep.b));
		/* data: 'D' to call D, else B */
		ret = fbt_call(p, m->data_size ? h_d : h_b, C_REPORT, NULL, 0,
			       NULL, 0, &reply, NULL, NULL);
		if (!ret && reply.cmd == FBINDER_RET_REPLY &&
		    reply.msg.data_size == sizeof(rep.b))
			memcpy(&rep.b, fbt_data(p, &reply.msg), sizeof(rep.b));
		if (!ret && reply.cmd == FBINDER_RET_REPLY)
			fbt_free_buffer(p, reply.msg.data);
		my_prio(&rep.a_after, 'A');
		if (fbt_reply(p, m, 0, &rep, sizeof(rep), NULL, 0))
			return -1;
		record('A');
		return 0;
	case C_GIVE:
		/* data: cookie, flags */
		if (m->data_size != 2 * sizeof(__u64))
			die("A: C_GIVE size");
		memcpy(&o.cookie, fbt_data(p, m), sizeof(o.cookie));
		memcpy(&off, (const char *)fbt_data(p, m) + 8, sizeof(off));
		o.flags = (__u32)off;
		off = 0;
		return fbt_reply(p, m, 0, &o, sizeof(o), &off, 1) ? -1 : 0;
	default:	/* C_REPORT, C_NOP */
		my_prio(&me, 'A');
		if (fbt_reply(p, m, 0, &me, sizeof(me), NULL, 0))
			return -1;
		if (m->code == C_REPORT)
			record('A');
		return 0;
	}
}

static int a_body(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	alarm(50);
	set_prio_flags(SCHED_OTHER, 0, A_NICE, A_FLAGS);
	return fbt_serve(p, a_handler, NULL) ? 1 : fbt_child_status();
}

/* ---- the test (client) ---- */

static struct fbt_ctx cl;

/* A synchronous call that returns data of size n. */
static bool call_data(__u32 handle, __u32 code, const void *in, size_t in_n,
		      void *out, size_t n)
{
	struct fbt_ret reply;
	bool ok;
	int ret;

	memset(out, 0, n);
	ret = fbt_call(&cl, handle, code, in, in_n, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0, "call %u on %u: %s", code, handle, strerror(-ret));
	if (ret)
		return false;
	ok = reply.cmd == FBINDER_RET_REPLY && reply.msg.data_size == n;
	CHECK(ok, "call %u on %u: %s with %llu bytes", code, handle,
	      fbt_ret_name(reply.cmd), (unsigned long long)reply.msg.data_size);
	if (ok)
		memcpy(out, fbt_data(&cl, &reply.msg), n);
	if (reply.cmd == FBINDER_RET_REPLY)
		CHECK(fbt_free_buffer(&cl, reply.msg.data) == 0, "free");
	return ok;
}

static __u32 give(__u64 cookie, __u32 flags)
{
	__u64 in[2] = { cookie, flags };
	const struct fbinder_object *o;
	struct fbt_ret reply;
	__u32 h;

	if (fbt_call(&cl, 0, C_GIVE, in, sizeof(in), NULL, 0, &reply, NULL, NULL) ||
	    reply.cmd != FBINDER_RET_REPLY)
		die("C_GIVE");
	o = fbt_obj(&cl, &reply.msg, 0);
	if (o->type != FBINDER_OBJ_HANDLE)
		die("C_GIVE: type %u", o->type);
	h = o->handle;
	if (fbt_acquire(&cl, h) || fbt_free_buffer(&cl, reply.msg.data))
		die("C_GIVE: keep handle");
	return h;
}

/* Records from A and (second: 'B', 'D', or 0 for none) in either order. */
static void post_reply_records2(__u32 second, const char *what)
{
	struct prio r1 = next_record(), r2 = { 0 }, *a, *b = NULL;

	if (second)
		r2 = next_record();
	a = r1.who == 'A' ? &r1 : &r2;
	if (second)
		b = r1.who == second ? &r1 : &r2;
	CHECK(a->who == 'A' && (!b || b->who == second), "%s: records from A%s", what,
	      second ? " and B/D" : "");
	CHECK(is_a_own(a),
	      "%s: A after its reply %u/%u/%d flags %llx, own is OTHER nice %d reset-on-fork",
	      what, SHOW(*a), (unsigned long long)a->flags, A_NICE);
	if (b && second == 'B')
		CHECK(is_nice(b, B_NICE), "%s: B after its reply %u/%u/%d, own is OTHER nice %d",
		      what, SHOW(*b), B_NICE);
	if (b && second == 'D')
		CHECK(b->policy == SCHED_DEADLINE,
		      "%s: D after its reply %u/%u/%d, own is SCHED_DEADLINE", what, SHOW(*b));
}

static void post_reply_records(bool want_b, const char *what)
{
	post_reply_records2(want_b ? 'B' : 0, what);
}

static void chain(void)
{
	struct chain_rep rep;

	printf("# two hops, SCHED_FIFO 50\n");
	set_prio(SCHED_FIFO, 50, 0);
	if (call_data(0, C_CHAIN, NULL, 0, &rep, sizeof(rep))) {
		CHECK(is_fifo(&rep.a_in, 50), "A's handler %u/%u/%d, expected FIFO 50",
		      SHOW(rep.a_in));
		CHECK(is_fifo(&rep.b, 50), "B's handler (second hop) %u/%u/%d, expected FIFO 50",
		      SHOW(rep.b));
		CHECK(is_fifo(&rep.a_after, 50),
		      "A's handler after B replied %u/%u/%d, expected FIFO 50",
		      SHOW(rep.a_after));
	}
	set_prio(SCHED_OTHER, 0, 0);
	post_reply_records(true, "FIFO 50 chain");

	printf("# two hops, nice -10\n");
	set_prio(SCHED_OTHER, 0, -10);
	if (call_data(0, C_CHAIN, NULL, 0, &rep, sizeof(rep))) {
		CHECK(is_nice(&rep.a_in, -10), "A's handler %u/%u/%d, expected nice -10",
		      SHOW(rep.a_in));
		CHECK(is_nice(&rep.b, -10), "B's handler %u/%u/%d, expected nice -10",
		      SHOW(rep.b));
		CHECK(is_nice(&rep.a_after, -10), "A after B replied %u/%u/%d, expected nice -10",
		      SHOW(rep.a_after));
	}
	set_prio(SCHED_OTHER, 0, 0);
	post_reply_records(true, "nice -10 chain");

	/* A keeps its own; B, whose caller is A, runs at A's (higher) nice */
	printf("# two hops, a nice 19 caller\n");
	set_prio(SCHED_OTHER, 0, 19);
	if (call_data(0, C_CHAIN, NULL, 0, &rep, sizeof(rep))) {
		CHECK(is_a_own(&rep.a_in), "A's handler %u/%u/%d, expected its own",
		      SHOW(rep.a_in));
		CHECK(is_nice(&rep.b, A_NICE),
		      "B's handler %u/%u/%d, expected its caller A's nice %d",
		      SHOW(rep.b), A_NICE);
	}
	set_prio(SCHED_OTHER, 0, 0);
	post_reply_records(true, "nice 19 chain");
}

/*
 * SCHED_DEADLINE: a deadline handler is never changed (nothing ranks above
 * it, and its runtime could not be given back); a deadline caller passes
 * on its nice value only.
 */
static void deadline(void)
{
	struct chain_rep rep;
	char d = 'D';

	printf("# SCHED_DEADLINE handler and caller\n");
	set_prio(SCHED_FIFO, 50, 0);
	if (call_data(0, C_CHAIN, &d, 1, &rep, sizeof(rep))) {
		CHECK(is_fifo(&rep.a_in, 50), "A's handler %u/%u/%d, expected FIFO 50",
		      SHOW(rep.a_in));
		CHECK(rep.b.who == 'D' && rep.b.policy == SCHED_DEADLINE,
		      "FIFO 50 caller: deadline handler D at %u/%u/%d, expected SCHED_DEADLINE untouched",
		      SHOW(rep.b));
	}
	set_prio(SCHED_OTHER, 0, 0);
	post_reply_records2('D', "FIFO 50 to deadline D");

	set_deadline();
	if (call_data(0, C_CHAIN, &d, 1, &rep, sizeof(rep))) {
		CHECK(is_nice(&rep.a_in, 0),
		      "deadline caller (nice 0): A's handler %u/%u/%d, expected nice 0",
		      SHOW(rep.a_in));
		CHECK(rep.b.policy == SCHED_DEADLINE, "deadline caller: D at %u/%u/%d",
		      SHOW(rep.b));
	}
	set_prio(SCHED_OTHER, 0, 0);
	post_reply_records2('D', "deadline caller");
}

static void node_minimum(__u32 hx, __u32 hy)
{
	struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL, .cookie = 0x99 };
	struct fbt_ret reply;
	struct prio me;
	__u64 off = 0;
	int ret;

	printf("# node minimum priority\n");
	set_prio(SCHED_OTHER, 0, 0);
	if (call_data(hx, C_REPORT, NULL, 0, &me, sizeof(me)))
		CHECK(is_nice(&me, -5), "nice 0 caller, node min nice -5: handler %u/%u/%d",
		      SHOW(me));
	post_reply_records(false, "min nice -5");

	set_prio(SCHED_OTHER, 0, -10);
	if (call_data(hx, C_REPORT, NULL, 0, &me, sizeof(me)))
		CHECK(is_nice(&me, -10), "nice -10 caller, node min -5: handler %u/%u/%d",
		      SHOW(me));
	post_reply_records(false, "min nice -5, caller -10");

	set_prio(SCHED_OTHER, 0, 0);
	if (call_data(hy, C_REPORT, NULL, 0, &me, sizeof(me)))
		CHECK(is_fifo(&me, 20), "nice 0 caller, node min FIFO 20: handler %u/%u/%d",
		      SHOW(me));
	post_reply_records(false, "min FIFO 20");

	set_prio(SCHED_FIFO, 50, 0);
	if (call_data(hy, C_REPORT, NULL, 0, &me, sizeof(me)))
		CHECK(is_fifo(&me, 50), "FIFO 50 caller, node min FIFO 20: handler %u/%u/%d",
		      SHOW(me));
	set_prio(SCHED_OTHER, 0, 0);
	post_reply_records(false, "min FIFO 20, caller FIFO 50");

	/* minimums out of range are refused */
	o.flags = FBINDER_OBJF_MIN_PRIO | 20;		/* nice 20 */
	ret = fbt_call(&cl, 0, C_NOP, &o, sizeof(o), &off, 1, &reply, NULL, NULL);
	CHECK(ret == -EINVAL, "min nice 20: %s, expected EINVAL", strerror(-ret));
	o.flags = FBINDER_OBJF_MIN_PRIO | (__u8)-21;
	ret = fbt_call(&cl, 0, C_NOP, &o, sizeof(o), &off, 1, &reply, NULL, NULL);
	CHECK(ret == -EINVAL, "min nice -21: %s, expected EINVAL", strerror(-ret));
	o.flags = FBINDER_OBJF_MIN_PRIO | FBINDER_OBJF_PRIO_RT;	/* FIFO 0 */
	ret = fbt_call(&cl, 0, C_NOP, &o, sizeof(o), &off, 1, &reply, NULL, NULL);
	CHECK(ret == -EINVAL, "min FIFO 0: %s, expected EINVAL", strerror(-ret));
	o.flags = FBINDER_OBJF_MIN_PRIO | FBINDER_OBJF_PRIO_RT | 100;
	ret = fbt_call(&cl, 0, C_NOP, &o, sizeof(o), &off, 1, &reply, NULL, NULL);
	CHECK(ret == -EINVAL, "min FIFO 100: %s, expected EINVAL", strerror(-ret));
	o.flags = FBINDER_OBJF_PRIO_RT | 10;			/* RT without MIN_PRIO */
	ret = fbt_call(&cl, 0, C_NOP, &o, sizeof(o), &off, 1, &reply, NULL, NULL);
	CHECK(ret == -EINVAL, "PRIO_RT without MIN_PRIO: %s, expected EINVAL",
	      strerror(-ret));
}

static void oneway(__u32 hx, __u32 hy)
{
	struct prio rec, me;
	int ret;

	printf("# oneway work runs at the node's minimum, not the sender's\n");
	set_prio(SCHED_FIFO, 50, 0);
	ret = fbt_oneway(&cl, 0, C_ONEWAY, NULL, 0, NULL, 0);
	CHECK(ret == 0, "oneway to A: %s", strerror(-ret));
	rec = next_record();
	CHECK(is_a_own(&rec),
	      "FIFO 50 sender, node without minimum: looper %u/%u/%d, expected its own nice %d",
	      SHOW(rec), A_NICE);

	ret = fbt_oneway(&cl, hx, C_ONEWAY, NULL, 0, NULL, 0);
	CHECK(ret == 0, "oneway to X: %s", strerror(-ret));
	rec = next_record();
	CHECK(is_nice(&rec, -5), "FIFO 50 sender, node min nice -5: looper %u/%u/%d",
	      SHOW(rec));

	set_prio(SCHED_OTHER, 0, 0);
	ret = fbt_oneway(&cl, hy, C_ONEWAY, NULL, 0, NULL, 0);
	CHECK(ret == 0, "oneway to Y: %s", strerror(-ret));
	rec = next_record();
	CHECK(is_fifo(&rec, 20), "nice 0 sender, node min FIFO 20: looper %u/%u/%d",
	      SHOW(rec));

	/* the raise lasts until the looper's next read: a plain call sees its own */
	set_prio(SCHED_OTHER, 0, 19);
	if (call_data(0, C_NOP, NULL, 0, &me, sizeof(me)))
		CHECK(is_a_own(&me), "next call after the oneway: %u/%u/%d, expected nice %d",
		      SHOW(me), A_NICE);
	set_prio(SCHED_OTHER, 0, 0);
}

static void thread_exit(__u32 hx)
{
	struct fbt_ret reply;
	struct prio rec;
	int ret;

	printf("# FBINDER_IOC_THREAD_EXIT instead of a reply gives the thread its own back\n");
	set_prio(SCHED_FIFO, 50, 0);
	ret = fbt_call(&cl, 0, C_EXIT, NULL, 0, NULL, 0, &reply, NULL, NULL);
	set_prio(SCHED_OTHER, 0, 0);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_FAILED && reply.err.error == -EOWNERDEAD,
	      "the abandoned call fails: %s %s %d", strerror(-ret),
	      fbt_ret_name(reply.cmd), reply.err.error);
	rec = next_record();
	CHECK(rec.who == 'A', "THREAD_EXIT while handling a call succeeded");
	CHECK(is_a_own(&rec), "after THREAD_EXIT A is at %u/%u/%d flags %llx, expected its own",
	      SHOW(rec), (unsigned long long)rec.flags);

	ret = fbt_oneway(&cl, hx, C_EXIT, NULL, 0, NULL, 0);
	CHECK(ret == 0, "oneway to X: %s", strerror(-ret));
	rec = next_record();
	CHECK(rec.who == 'A', "THREAD_EXIT after a oneway message succeeded");
	CHECK(is_a_own(&rec),
	      "after a oneway at nice -5 and THREAD_EXIT A is at %u/%u/%d flags %llx, expected its own",
	      SHOW(rec), (unsigned long long)rec.flags);
}

int main(void)
{
	pid_t a, b, d;
	int ready[2];
	__u32 hx, hy;
	char c;

	if (pipe(rep_pipe) || pipe(ready))
		die("pipe");
	a = fbt_spawn_manager(MB, A_COOKIE, a_body, NULL);
	b = fbt_fork(b_main, (void *)(intptr_t)ready[1]);
	if (read(ready[0], &c, 1) != 1)
		die("B not ready");
	my_who = 'D';
	d = fbt_fork(b_main, (void *)(intptr_t)ready[1]);
	my_who = 'B';
	if (read(ready[0], &c, 1) != 1)
		die("D not ready");
	fbt_ctx_open(&cl, MB);

	chain();
	deadline();
	hx = give(X_COOKIE, FBINDER_OBJF_MIN_PRIO | (__u8)-5);
	hy = give(Y_COOKIE, FBINDER_OBJF_MIN_PRIO | FBINDER_OBJF_PRIO_RT | 20);
	node_minimum(hx, hy);
	oneway(hx, hy);
	thread_exit(hx);

	fbt_ctx_close(&cl);
	kill(b, SIGKILL);
	kill(d, SIGKILL);
	kill(a, SIGKILL);
	fbt_wait(b);
	fbt_wait(d);
	fbt_wait(a);
	close(ready[0]);
	close(ready[1]);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
