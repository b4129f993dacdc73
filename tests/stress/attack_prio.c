// SPDX-License-Identifier: MIT
/*
 * attack_prio: no gain of scheduling privilege (docs/security.md, G2).
 *
 * A. Node minimums beyond the owner's rights (uid 65534, RLIMIT_RTPRIO and
 *    RLIMIT_NICE 0): the send that would create a node with a minimum of
 *    SCHED_FIFO 99, SCHED_FIFO 1, nice -20 or nice -1 fails with EPERM, and
 *    leaves nothing behind (the same object without a minimum is then
 *    accepted).  Were it accepted, a call from the attacker's second
 *    context to its own node would run the handler at that priority: the
 *    test makes that call and reports what the handler ran at.
 * B. A minimum within the owner's rights (uid 65534, RLIMIT_NICE 25: nice
 *    -5 and up): nice -6 is EPERM, nice -5 accepted.  A handler thread
 *    (own nice 3) raised to nice -5 by a oneway message to that node forks
 *    (the child must not be at nice -5), then stops reading; another thread
 *    closes the context: the handler is back at its own nice 3.  And a
 *    handler raised to its caller's nice 0 that reads such a oneway message
 *    while it handles the call, then replies, is at its own nice 3 (the
 *    oneway raise ended with the call, and its next read does not bring
 *    the caller's level back).
 * C. Inheritance from a privileged caller (root, SCHED_FIFO 50) into an
 *    unprivileged handler (rlimits 0): a raised handler that forks does not
 *    pass the raise on (its child is SCHED_OTHER) and is back to its own
 *    settings after replying; a raised handler whose context another
 *    thread closes gets its own settings back (the caller gets
 *    FBINDER_RET_FAILED); one that leaves with FBINDER_IOC_THREAD_EXIT too.
 *
 * Each thread reads its own settings with sched_getattr().  Root parent:
 * a root manager keeps a registry of handles (claiming handle 0 needs
 * privilege), the attackers are children that dropped privileges, and the
 * parent checks the live counts at the end.
 */
#include "fbt_proto.h"

#include <grp.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x9e15ULL
#define NSLOTS		32
#define CALLER_RT	50

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK	0x01
#endif

enum { C_REG = 1, C_GET, C_WORK };

struct prio {
	__u32 policy;
	__u32 rt;
	__s32 nice;
	__u32 pad;
	__u64 flags;
};

static void my_prio(struct prio *p)
{
	struct fbt_sched now;

	fbt_sched_get(&now);
	memset(p, 0, sizeof(*p));
	p->policy = now.policy;
	p->rt = now.rt;
	p->nice = now.nice;
	p->flags = now.flags;
}

static void set_prio(__u32 policy, __u32 rt, __s32 nice)
{
	if (fbt_sched_set(policy, rt, nice, 0))
		die("sched_setattr %u/%u/%d", policy, rt, nice);
}

#define SHOW(p) (p).policy, (p).rt, (p).nice, (unsigned long long)(p).flags

/* ---- the manager: a registry of handles, by slot ---- */

static __u32 slots[NSLOTS];

struct reg_msg {
	__u32 slot;
	__u32 pad;
	struct fbinder_object obj;
};

static int mgr_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_txn_msg *m = &r->msg;
	struct fbinder_object o = { .type = FBINDER_OBJ_HANDLE };
	const struct fbinder_object *in;
	__u64 off = 0;
	__u32 slot;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION || (m->flags & FBINDER_TXN_ONEWAY))
		return 0;
	if (m->data_size < sizeof(slot))
		return fbt_reply(p, m, 1, NULL, 0, NULL, 0) ? -1 : 0;
	memcpy(&slot, fbt_data(p, m), sizeof(slot));
	slot %= NSLOTS;
	if (m->code == C_REG && m->offsets_count == 1) {
		in = fbt_obj(p, m, 0);
		if (in->type != FBINDER_OBJ_HANDLE || fbt_acquire(p, in->handle))
			return fbt_reply(p, m, 1, NULL, 0, NULL, 0) ? -1 : 0;
		slots[slot] = in->handle;
		return fbt_reply(p, m, 0, NULL, 0, NULL, 0) ? -1 : 0;
	}
	if (m->code == C_GET && slots[slot]) {
		o.handle = slots[slot];
		return fbt_reply(p, m, 0, &o, sizeof(o), &off, 1) ? -1 : 0;
	}
	return fbt_reply(p, m, 1, NULL, 0, NULL, 0) ? -1 : 0;
}

static int mgr_body(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	return fbt_serve(p, mgr_handler, NULL) ? 1 : 0;
}

/* Registers p's object cookie (with flags) in slot: 0 or -errno. */
static int reg(struct fbt_ctx *p, __u32 slot, __u64 cookie, __u32 flags)
{
	struct reg_msg msg = { .slot = slot };
	__u64 off = offsetof(struct reg_msg, obj);
	struct fbt_ret reply;
	int ret;

	msg.obj.type = FBINDER_OBJ_LOCAL;
	msg.obj.flags = flags;
	msg.obj.cookie = cookie;
	ret = fbt_call(p, 0, C_REG, &msg, sizeof(msg), &off, 1, &reply, NULL, NULL);
	if (ret)
		return ret;
	if (reply.cmd != FBINDER_RET_REPLY)
		return -EIO;
	fbt_free_buffer(p, reply.msg.data);
	return reply.msg.code ? -EIO : 0;
}

/* p's handle for slot, acquired; 0 when the slot is empty. */
static __u32 get(struct fbt_ctx *p, __u32 slot)
{
	const struct fbinder_object *o;
	struct fbt_ret reply;
	__u32 h = 0;

	if (fbt_call(p, 0, C_GET, &slot, sizeof(slot), NULL, 0, &reply, NULL, NULL) ||
	    reply.cmd != FBINDER_RET_REPLY)
		die("C_GET %u", slot);
	if (!reply.msg.code && reply.msg.offsets_count == 1) {
		o = fbt_obj(p, &reply.msg, 0);
		if (o->type == FBINDER_OBJ_HANDLE && !fbt_acquire(p, o->handle))
			h = o->handle;
	}
	fbt_free_buffer(p, reply.msg.data);
	return h;
}

/* ---- a handler thread: takes one message and does what it is told ---- */

#define H_REPORT	0x01	/* reply with the priority it runs at */
#define H_FORK		0x02	/* fork while raised: the child must not be */
#define H_CLOSE		0x04	/* stop reading; main closes the context */
#define H_EXIT		0x08	/* FBINDER_IOC_THREAD_EXIT instead of replying */
#define H_REPLY		0x10	/* reply, then check it is back to its own */

struct handler {
	const char *name;
	const struct fbt_ctx *ctx;
	unsigned int what;
	__s32 own_nice;
	struct prio want;	/* the raised settings it must run at (H_FORK...) */
	int to_main[2], from_main[2];	/* H_CLOSE: "close it", "closed" */
	pthread_t tid;
};

static bool is_own(const struct prio *p, __s32 nice)
{
	return p->policy == SCHED_OTHER && p->nice == nice &&
	       !(p->flags & SCHED_FLAG_RESET_ON_FORK);
}

/* The child of a raised thread: not at the raise, nothing above the default. */
static void check_fork(const struct handler *h)
{
	struct prio child;
	int pfd[2];
	pid_t pid;

	if (pipe(pfd))
		die("pipe");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		my_prio(&child);
		_exit(write(pfd[1], &child, sizeof(child)) == sizeof(child) ? 0 : 1);
	}
	close(pfd[1]);
	if (read(pfd[0], &child, sizeof(child)) != sizeof(child))
		die("%s: child's report", h->name);
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	printf("# %s: forked child at %u/%u/%d flags %llx\n", h->name, SHOW(child));
	CHECK(child.policy == SCHED_OTHER && child.nice >= 0,
	      "%s: the child of a raised handler runs at %u/%u/%d, expected SCHED_OTHER nice >= 0 (not the raise %u/%u/%d)",
	      h->name, child.policy, child.rt, child.nice, h->want.policy, h->want.rt,
	      h->want.nice);
}

static void *handler_main(void *arg)
{
	struct handler *h = arg;
	struct fbt_ctx *t = fbt_ctx_thread(h->ctx, false);
	struct prio me, after;
	struct fbt_ret r;
	char c = 'c';
	int ret;

	set_prio(SCHED_OTHER, 0, h->own_nice);
	ret = fbt_next(t, &r);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION, "%s: read: %s %s", h->name,
	      strerror(-ret), fbt_ret_name(r.cmd));
	if (ret || r.cmd != FBINDER_RET_TRANSACTION)
		goto out;
	my_prio(&me);
	printf("# %s: handling at %u/%u/%d flags %llx\n", h->name, SHOW(me));
	if (h->what & H_REPORT) {
		CHECK(fbt_reply(t, &r.msg, 0, &me, sizeof(me), NULL, 0) == 0,
		      "%s: reply", h->name);
		goto out;
	}
	CHECK(me.policy == h->want.policy && me.rt == h->want.rt &&
	      (me.policy != SCHED_OTHER || me.nice == h->want.nice),
	      "%s: handler at %u/%u/%d, expected the raise %u/%u/%d", h->name,
	      me.policy, me.rt, me.nice, h->want.policy, h->want.rt, h->want.nice);
	if (h->what & H_FORK)
		check_fork(h);
	if (r.msg.flags & FBINDER_TXN_ONEWAY)
		CHECK(fbt_free_buffer(t, r.msg.data) == 0, "%s: free", h->name);
	if (h->what & H_REPLY)
		CHECK(fbt_reply(t, &r.msg, 0, NULL, 0, NULL, 0) == 0, "%s: reply",
		      h->name);
	if (h->what & H_EXIT)
		CHECK(ioctl(t->fd, FBINDER_IOC_THREAD_EXIT) == 0, "%s: THREAD_EXIT: %s",
		      h->name, strerror(errno));
	if (h->what & H_CLOSE) {
		/* stop reading, still raised, and let another thread close it */
		if (write(h->to_main[1], &c, 1) != 1 ||
		    read(h->from_main[0], &c, 1) != 1)
			die("%s: close handshake", h->name);
	}
	my_prio(&after);
	printf("# %s: afterwards at %u/%u/%d flags %llx\n", h->name, SHOW(after));
	CHECK(is_own(&after, h->own_nice),
	      "%s: afterwards at %u/%u/%d flags %llx, expected its own SCHED_OTHER nice %d, no reset-on-fork",
	      h->name, SHOW(after), h->own_nice);
out:
	free(t);
	return NULL;
}

static void handler_start(struct handler *h)
{
	if ((h->what & H_CLOSE) && (pipe(h->to_main) || pipe(h->from_main)))
		die("pipe");
	if (pthread_create(&h->tid, NULL, handler_main, h))
		die("pthread_create");
}

/* Main's side of H_CLOSE: wait for the raised handler, close its context. */
static void close_under(struct handler *h, struct fbt_ctx *ctx)
{
	char c;

	if (read(h->to_main[0], &c, 1) != 1)
		die("%s: wait for the handler", h->name);
	fbt_ctx_close(ctx);
	if (write(h->from_main[1], &c, 1) != 1)
		die("%s: tell the handler", h->name);
}

static void handler_join(struct handler *h)
{
	pthread_join(h->tid, NULL);
	if (h->what & H_CLOSE) {
		close(h->to_main[0]);
		close(h->to_main[1]);
		close(h->from_main[0]);
		close(h->from_main[1]);
	}
}

/* ---- A: minimums beyond the owner's rights ---- */

static int attacker_min(void *arg)
{
	static const struct {
		__u32 flags;
		const char *what;
	} bad[] = {
		{ FBINDER_OBJF_MIN_PRIO | FBINDER_OBJF_PRIO_RT | 99, "SCHED_FIFO 99" },
		{ FBINDER_OBJF_MIN_PRIO | FBINDER_OBJF_PRIO_RT | 1, "SCHED_FIFO 1" },
		{ FBINDER_OBJF_MIN_PRIO | (__u8)-20, "nice -20" },
		{ FBINDER_OBJF_MIN_PRIO | (__u8)-1, "nice -1" },
	};
	struct fbt_ctx own, other;
	struct fbt_ret reply;
	struct handler h;
	struct prio seen;
	unsigned int i;
	__u32 handle;
	int ret;

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&own, MB);
	fbt_ctx_open(&other, MB);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = reg(&own, i, 0x100 + i, bad[i].flags);
		CHECK(ret == -EPERM, "A: a node with minimum %s: %s, expected EPERM",
		      bad[i].what, ret ? strerror(-ret) : "accepted");
		if (ret)
			continue;
		/* accepted: the attack goes on, calling its own node */
		handle = get(&other, i);
		if (!handle)
			die("A: no handle for slot %u", i);
		memset(&h, 0, sizeof(h));
		h.name = "A";
		h.ctx = &own;
		h.what = H_REPORT;
		handler_start(&h);
		ret = fbt_call(&other, handle, C_WORK, NULL, 0, NULL, 0, &reply, NULL, NULL);
		if (!ret && reply.cmd == FBINDER_RET_REPLY &&
		    reply.msg.data_size == sizeof(seen)) {
			memcpy(&seen, fbt_data(&other, &reply.msg), sizeof(seen));
			CHECK(0, "A: the attacker's own call ran its handler at %u/%u/%d (minimum %s)",
			      seen.policy, seen.rt, seen.nice, bad[i].what);
		}
		if (!ret && reply.cmd == FBINDER_RET_REPLY)
			fbt_free_buffer(&other, reply.msg.data);
		handler_join(&h);
	}
	/* the refused sends left nothing: the same object without one is fine */
	ret = reg(&own, 0, 0x100, 0);
	CHECK(ret == 0, "A: the object without a minimum after EPERM: %s", strerror(-ret));
	fbt_ctx_close(&other);
	fbt_ctx_close(&own);
	return fbt_child_status();
}

/* ---- B: a minimum within the owner's rights, raised by a oneway ---- */

#define B_NICE_RLIMIT	25	/* nice -5 and up: 20 - nice <= 25 */

static void become_nobody_nice(void)
{
	const struct rlimit zero = { 0, 0 };
	const struct rlimit nice = { B_NICE_RLIMIT, B_NICE_RLIMIT };
	struct sched_param sp = { .sched_priority = 1 };

	if (setrlimit(RLIMIT_RTPRIO, &zero) || setrlimit(RLIMIT_NICE, &nice))
		die("setrlimit");
	if (setgroups(0, NULL) || setgid(FBT_NOBODY_UID) || setuid(FBT_NOBODY_UID))
		die("drop to %d", FBT_NOBODY_UID);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("PR_SET_NO_NEW_PRIVS");
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0 ||
	    setpriority(PRIO_PROCESS, 0, -6) == 0)
		die("still privileged");
}

/* B2: a oneway raise taken while the thread handles a call ends with it. */
struct b2 {
	const struct fbt_ctx *ctx;
	int go[2];		/* handler -> main: send the oneway now */
	int sent[2];		/* main -> handler: sent */
};

static void *b2_handler(void *arg)
{
	struct b2 *b = arg;
	struct fbt_ctx *t = fbt_ctx_thread(b->ctx, false);
	struct fbt_ret call, ow;
	struct prio me;
	char c = 'g';
	int ret;

	set_prio(SCHED_OTHER, 0, 3);
	ret = fbt_next(t, &call);
	if (ret || call.cmd != FBINDER_RET_TRANSACTION || (call.msg.flags & FBINDER_TXN_ONEWAY))
		die("B2: no call");
	my_prio(&me);
	CHECK(me.policy == SCHED_OTHER && me.nice == 0,
	      "B2: handling a nice 0 caller's call at %u/%u/%d flags %llx", SHOW(me));
	if (write(b->go[1], &c, 1) != 1 || read(b->sent[0], &c, 1) != 1)
		die("B2: handshake");
	ret = fbt_try_next(t, &ow);
	CHECK(ret == 0 && ow.cmd == FBINDER_RET_TRANSACTION && (ow.msg.flags & FBINDER_TXN_ONEWAY),
	      "B2: the oneway message while handling the call: %s %s", strerror(-ret),
	      fbt_ret_name(ow.cmd));
	if (!ret && ow.cmd == FBINDER_RET_TRANSACTION) {
		my_prio(&me);
		CHECK(me.policy == SCHED_OTHER && me.nice == -5,
		      "B2: the oneway message at %u/%u/%d flags %llx, expected nice -5",
		      SHOW(me));
		CHECK(fbt_free_buffer(t, ow.msg.data) == 0, "B2: free");
	}
	CHECK(fbt_reply(t, &call.msg, 0, NULL, 0, NULL, 0) == 0, "B2: reply");
	ret = fbt_try_next(t, &ow);
	CHECK(ret == -EAGAIN, "B2: a read after the reply: %s", strerror(-ret));
	my_prio(&me);
	printf("# B2: after the reply and a read at %u/%u/%d flags %llx\n", SHOW(me));
	CHECK(is_own(&me, 3),
	      "B2: after the reply and a read at %u/%u/%d flags %llx, expected its own nice 3",
	      SHOW(me));
	free(t);
	return NULL;
}

static void *b2_caller(void *arg)
{
	struct fbt_ctx *t = fbt_ctx_thread(arg, false);
	struct fbt_ret reply;
	__u32 h = get(t, 10);
	int ret;

	ret = h ? fbt_call(t, h, C_WORK, NULL, 0, NULL, 0, &reply, NULL, NULL) : -ENOENT;
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "B2: call: %s %s", strerror(-ret),
	      fbt_ret_name(reply.cmd));
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(t, reply.msg.data);
	free(t);
	return NULL;
}

static void oneway_under_call(struct fbt_ctx *own, struct fbt_ctx *other, __u32 h_min)
{
	pthread_t th, tc;
	struct b2 b;
	char c;

	printf("# B2: a oneway message read while handling a call\n");
	if (reg(own, 10, 0x202, 0))
		die("B2: register");
	b.ctx = own;
	if (pipe(b.go) || pipe(b.sent))
		die("pipe");
	if (pthread_create(&th, NULL, b2_handler, &b) ||
	    pthread_create(&tc, NULL, b2_caller, other))
		die("pthread_create");
	if (read(b.go[0], &c, 1) != 1)
		die("B2: wait for the handler");
	CHECK(fbt_oneway(other, h_min, C_WORK, NULL, 0, NULL, 0) == 0, "B2: oneway");
	if (write(b.sent[1], &c, 1) != 1)
		die("B2: tell the handler");
	pthread_join(tc, NULL);
	pthread_join(th, NULL);
	close(b.go[0]);
	close(b.go[1]);
	close(b.sent[0]);
	close(b.sent[1]);
}

static int attacker_oneway(void *arg)
{
	struct fbt_ctx own, other;
	struct handler h;
	__u32 handle;
	int ret;

	(void)arg;
	become_nobody_nice();
	fbt_ctx_open(&own, MB);
	fbt_ctx_open(&other, MB);

	ret = reg(&own, 8, 0x200, FBINDER_OBJF_MIN_PRIO | (__u8)-6);
	CHECK(ret == -EPERM, "B: minimum nice -6 with RLIMIT_NICE %d: %s, expected EPERM",
	      B_NICE_RLIMIT, ret ? strerror(-ret) : "accepted");
	ret = reg(&own, 9, 0x201, FBINDER_OBJF_MIN_PRIO | (__u8)-5);
	CHECK(ret == 0, "B: minimum nice -5 with RLIMIT_NICE %d: %s", B_NICE_RLIMIT,
	      strerror(-ret));
	if (ret)
		goto out;
	handle = get(&other, 9);
	if (!handle)
		die("B: no handle");
	oneway_under_call(&own, &other, handle);

	memset(&h, 0, sizeof(h));
	h.name = "B (oneway at the node's minimum nice -5)";
	h.ctx = &own;
	h.what = H_FORK | H_CLOSE;
	h.own_nice = 3;
	h.want.policy = SCHED_OTHER;
	h.want.nice = -5;
	handler_start(&h);
	ret = fbt_oneway(&other, handle, C_WORK, NULL, 0, NULL, 0);
	CHECK(ret == 0, "B: oneway: %s", strerror(-ret));
	if (!ret)
		close_under(&h, &own);
	handler_join(&h);
out:
	fbt_ctx_close(&other);
	fbt_ctx_close(&own);
	return fbt_child_status();
}

/* ---- C: raised by a privileged caller ---- */

enum { S_FORK = 16, S_CLOSE, S_EXIT };

static int ready_pipe[2];

static int attacker_inherit(void *arg)
{
	struct handler hf, hc, he;
	struct fbt_ctx a, b, c;
	char ch = 'r';

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&a, MB);
	fbt_ctx_open(&b, MB);
	fbt_ctx_open(&c, MB);
	if (reg(&a, S_FORK, 0x300, 0) || reg(&b, S_CLOSE, 0x301, 0) ||
	    reg(&c, S_EXIT, 0x302, 0))
		die("C: register");

	memset(&hf, 0, sizeof(hf));
	hf.name = "C (fork, reply)";
	hf.ctx = &a;
	hf.what = H_FORK | H_REPLY;
	hf.own_nice = 1;
	hf.want.policy = SCHED_FIFO;
	hf.want.rt = CALLER_RT;
	hc = hf;
	hc.name = "C (context closed by another thread)";
	hc.ctx = &b;
	hc.what = H_CLOSE;
	hc.own_nice = 2;
	he = hf;
	he.name = "C (FBINDER_IOC_THREAD_EXIT)";
	he.ctx = &c;
	he.what = H_EXIT;
	he.own_nice = 4;
	handler_start(&hf);
	handler_start(&hc);
	handler_start(&he);
	if (write(ready_pipe[1], &ch, 1) != 1)
		die("C: ready");
	close_under(&hc, &b);
	handler_join(&hf);
	handler_join(&hc);
	handler_join(&he);
	fbt_ctx_close(&a);
	fbt_ctx_close(&c);
	return fbt_child_status();
}

/* The privileged caller: SCHED_FIFO 50 calls into C's handlers. */
static void caller(void)
{
	static const __u32 slot[3] = { S_FORK, S_CLOSE, S_EXIT };
	struct fbt_ret reply;
	__u32 h[3];
	struct fbt_ctx p;
	int i, ret;
	char ch;

	if (read(ready_pipe[0], &ch, 1) != 1)
		die("C not ready");
	fbt_ctx_open(&p, MB);
	for (i = 0; i < 3; i++) {
		h[i] = get(&p, slot[i]);
		if (!h[i])
			die("caller: no handle for slot %u", slot[i]);
	}
	set_prio(SCHED_FIFO, CALLER_RT, 0);
	for (i = 0; i < 3; i++) {
		ret = fbt_call(&p, h[i], C_WORK, NULL, 0, NULL, 0, &reply, NULL, NULL);
		CHECK(ret == 0, "caller: call %d: %s", i, strerror(-ret));
		if (ret)
			continue;
		if (slot[i] == S_FORK) {
			CHECK(reply.cmd == FBINDER_RET_REPLY, "caller: fork case: %s",
			      fbt_ret_name(reply.cmd));
			if (reply.cmd == FBINDER_RET_REPLY)
				fbt_free_buffer(&p, reply.msg.data);
		} else {
			CHECK(reply.cmd == FBINDER_RET_FAILED && reply.err.error == -EOWNERDEAD,
			      "caller: call %d: %s %d, expected FAILED EOWNERDEAD", i,
			      fbt_ret_name(reply.cmd), reply.err.error);
		}
	}
	set_prio(SCHED_OTHER, 0, 0);
	fbt_ctx_close(&p);
}

int main(void)
{
	pid_t mgr, att;

	if (pipe(ready_pipe))
		die("pipe");
	mgr = fbt_spawn_manager(MB, MGR_COOKIE, mgr_body, NULL);

	printf("# A: minimums beyond the owner's rights\n");
	att = fbt_fork(attacker_min, NULL);
	CHECK(fbt_wait(att) == 0, "A failed");

	printf("# B: a minimum within the owner's rights, raised by a oneway message\n");
	att = fbt_fork(attacker_oneway, NULL);
	CHECK(fbt_wait(att) == 0, "B failed");

	printf("# C: raised by a SCHED_FIFO %d caller\n", CALLER_RT);
	att = fbt_fork(attacker_inherit, NULL);
	caller();
	CHECK(fbt_wait(att) == 0, "C failed");

	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	close(ready_pipe[0]);
	close(ready_pipe[1]);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
