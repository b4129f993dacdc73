// SPDX-License-Identifier: MIT
/*
 * Priority inheritance: a handler running SCHED_OTHER nice 0 (or nice 5)
 * reads back its caller's SCHED_FIFO 50 (or nice -10) with sched_getattr()
 * from inside the handler, and is back to its own settings after replying.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fbt_proto.h"

struct prio_report {
	__u32 policy;
	__u32 rt_priority;
	__s32 nice;
	__u32 pad;
};

static void my_prio(struct prio_report *rep)
{
	struct fbt_sched now;

	fbt_sched_get(&now);
	rep->policy = now.policy;
	rep->rt_priority = now.rt;
	rep->nice = now.nice;
	rep->pad = 0;
}

static void set_prio(__u32 policy, __u32 rt, __s32 nice)
{
	if (fbt_sched_set(policy, rt, nice, 0))
		die("sched_setattr");
}

/* Answers every call with the priority the handler runs at right now. */
static int report_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct prio_report rep;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	my_prio(&rep);
	return fbt_reply(p, &r->msg, 0, &rep, sizeof(rep), NULL, 0);
}

static int manager_body(struct fbt_ctx *p, void *arg)
{
	set_prio(SCHED_OTHER, 0, (intptr_t)arg);
	return fbt_serve(p, report_handler, NULL) ? 1 : 0;
}

static void call_report(struct fbt_ctx *p, struct prio_report *rep)
{
	struct fbt_ret reply;

	CHECK(fbt_call(p, 0, 1, NULL, 0, NULL, 0, &reply, NULL, NULL) == 0,
	      "call");
	CHECK(reply.cmd == FBINDER_RET_REPLY, "reply");
	CHECK(reply.msg.data_size == sizeof(*rep), "reply size");
	memcpy(rep, fbt_data(p, &reply.msg), sizeof(*rep));
	CHECK(fbt_free_buffer(p, reply.msg.data) == 0, "free");
}

/* handler_nice: the service's own nice; then the caller's settings. */
static void scenario(int handler_nice, __u32 policy, __u32 rt, __s32 nice)
{
	struct prio_report rep;
	struct fbt_ctx p;
	pid_t mgr;

	mgr = fbt_spawn_manager(1 << 20, 0x9e1, manager_body,
				(void *)(intptr_t)handler_nice);
	fbt_ctx_open(&p, 1 << 20);

	set_prio(policy, rt, nice);
	call_report(&p, &rep);
	CHECK(rep.policy == policy, "handler policy %u, caller's %u",
	      rep.policy, policy);
	if (policy == SCHED_FIFO)
		CHECK(rep.rt_priority == rt, "handler rt priority %u, expected %u",
		      rep.rt_priority, rt);
	else
		CHECK(rep.nice == nice, "handler nice %d, expected %d",
		      rep.nice, nice);

	/* a plain caller now: the handler shows its own settings again */
	set_prio(SCHED_OTHER, 0, 19);
	call_report(&p, &rep);
	CHECK(rep.policy == SCHED_OTHER && rep.nice == handler_nice,
	      "after the reply the handler is back to its own: policy %u nice %d, expected 0/%d",
	      rep.policy, rep.nice, handler_nice);

	set_prio(SCHED_OTHER, 0, 0);
	fbt_ctx_close(&p);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
}

int main(void)
{
	scenario(0, SCHED_FIFO, 50, 0);
	scenario(5, SCHED_OTHER, 0, -10);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
