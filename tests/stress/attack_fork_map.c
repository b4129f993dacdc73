// SPDX-License-Identifier: MIT
/*
 * attack_fork_map: a forked child must never read its parent's receive
 * buffer (docs/security.md, G3).
 *
 * The mapping is VM_DONTCOPY, so fork() leaves it out of the child.  The
 * attack: madvise(MADV_DOFORK) on the mapping first, to clear that flag,
 * with a page of the buffer already mapped (a reply was read and freed:
 * the page stays mapped, cached for the next message).  Then fork: the
 * child would share the page, and a later reply landing on it (the
 * "secret") would be readable by the child.  Required: MADV_DOFORK fails
 * with EINVAL, and the child reads nothing of the mapping.
 *
 * Root parent: a root manager answers the calls (claiming handle 0 needs
 * privilege); the attacker is a child that became uid 65534
 * (fbt_become_nobody()); the parent checks the live counts afterwards.
 */
#include "fbt_proto.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0xf0f0ULL
#define SECRET		"the parent's secret reply, for its eyes only"
#define HELLO		"a first reply, to map the page"

enum { C_HELLO = 1, C_SECRET };

static int mgr_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const char *s;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION || (r->msg.flags & FBINDER_TXN_ONEWAY))
		return 0;
	s = r->msg.code == C_SECRET ? SECRET : HELLO;
	return fbt_reply(p, &r->msg, 0, s, strlen(s) + 1, NULL, 0) ? -1 : 0;
}

static int mgr_body(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	return fbt_serve(p, mgr_handler, NULL) ? 1 : 0;
}

/* ---- the child: looks for the secret at the parent's mapping address ---- */

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

struct child_arg {
	const char *map;
	int go;		/* read end: the secret has arrived */
};

/* 0: nothing readable there; 1: the secret; 2: something else readable. */
static int child_peek(void *varg)
{
	struct child_arg *a = varg;
	volatile const char *m = a->map;
	char c, buf[sizeof(SECRET)];
	size_t i;
	int sig;

	if (read(a->go, &c, 1) != 1)
		return 3;
	signal(SIGSEGV, on_fault);
	signal(SIGBUS, on_fault);
	sig = sigsetjmp(fault_jmp, 1);
	if (sig) {
		printf("# child: reading the parent's mapping address: signal %d\n", sig);
		return 0;
	}
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = m[i];
	buf[sizeof(buf) - 1] = 0;
	printf("# child read \"%s\" at the parent's mapping address\n", buf);
	return strcmp(buf, SECRET) ? 2 : 1;
}

static int attacker(void *arg)
{
	struct child_arg ca;
	struct fbt_ret reply;
	struct fbt_ctx p;
	int go[2], ret, st;
	pid_t child;
	char c = 'g';

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);

	/* a reply read and freed: its page stays mapped, cached */
	ret = fbt_call(&p, 0, C_HELLO, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "hello call: %s", strerror(-ret));
	if (ret || reply.cmd != FBINDER_RET_REPLY)
		return fbt_child_status();
	CHECK(!strcmp(fbt_data(&p, &reply.msg), HELLO), "hello reply content");
	CHECK(reply.msg.data == 0, "hello reply at offset %llu, expected 0",
	      (unsigned long long)reply.msg.data);
	CHECK(fbt_free_buffer(&p, reply.msg.data) == 0, "free hello");

	errno = 0;
	ret = madvise((void *)p.map, MB, MADV_DOFORK);
	CHECK(ret == -1 && errno == EINVAL,
	      "madvise(MADV_DOFORK) on the receive buffer: %s, expected EINVAL",
	      ret ? strerror(errno) : "success");

	if (pipe(go))
		die("pipe");
	ca.map = (const char *)p.map;
	ca.go = go[0];
	child = fbt_fork(child_peek, &ca);
	close(go[0]);

	/* the secret lands where hello was: offset 0, the same page */
	ret = fbt_call(&p, 0, C_SECRET, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "secret call: %s", strerror(-ret));
	if (!ret && reply.cmd == FBINDER_RET_REPLY) {
		CHECK(!strcmp(fbt_data(&p, &reply.msg), SECRET), "secret reply content");
		CHECK(reply.msg.data == 0, "secret reply at offset %llu, expected 0",
		      (unsigned long long)reply.msg.data);
	}
	if (write(go[1], &c, 1) != 1)
		die("write go");
	close(go[1]);
	st = fbt_wait(child);
	CHECK(st != 1, "the forked child read its parent's later reply");
	CHECK(st == 0, "the forked child could read the parent's mapping address (status %d)",
	      st);
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		CHECK(fbt_free_buffer(&p, reply.msg.data) == 0, "free secret");
	fbt_ctx_close(&p);
	return fbt_child_status();
}

int main(void)
{
	pid_t mgr, att;

	mgr = fbt_spawn_manager(MB, MGR_COOKIE, mgr_body, NULL);
	att = fbt_fork(attacker, NULL);
	fbt_wait_ok(att);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
