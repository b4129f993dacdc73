// SPDX-License-Identifier: MIT
/*
 * attack_orphan_ctx: a context ends when its owning process exits, whoever
 * still holds its file (docs/security.md G6).
 *
 *   handle 0  a manager (root: claiming handle 0 takes privilege) forks a
 *             child that keeps its descriptor, and exits: handle 0 is free
 *             at once.
 *   (a) fork  an owner forks a child that keeps its descriptor, and exits:
 *             a holder linked to its node hears FBINDER_RET_DEAD at once, calls
 *             fail with EOWNERDEAD, and the child gets EPERM and POLLERR.
 *   (b) cycle the owner's descriptor in flight on a unix socket, and that
 *             socket sent into the owner's own buffer (FBINDER_OBJ_FD): once the
 *             owner exits, with its descriptor open or after closing it,
 *             the context and the socket are freed.
 *   (c) pass  a process passes its descriptor to another over a unix
 *             socket and exits: holders hear, and the other process can do
 *             nothing with it (EPERM, POLLERR).
 *   (d) mm    the owner's mm outlives it (a CLONE_VM child), with a page
 *             of its buffer mapped: once the owner exits, that process
 *             reads SIGBUS there, not the freed buffer.
 *
 * The attackers run as uid 65534.  The root parent starts the slot manager
 * (fbt_slots.h) through which they find each other's objects, calls it as a
 * bystander while each attack runs (every call must be answered within a
 * second), and checks the live counts in debugfs after each attack.
 */
#define _GNU_SOURCE	/* clone() */
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fbt_attack.h"
#include "fbt_slots.h"

#define MB		(1024 * 1024)
#define DEADLINE_MS	fbt_deadline_ms(3000)	/* for a death notice, or the counts */
#define BYSTANDER_MS	fbt_deadline_ms(1000)	/* for one call of the bystander */

#define SLOT_A		1
#define SLOT_B		2
#define SLOT_C		3
#define SLOT_D		4
#define COOKIE_A	0xa0a0ULL
#define COOKIE_B	0xb0b0ULL
#define COOKIE_C	0xc0c0ULL
#define COOKIE_D	0xd0d0ULL
#define DEATH_COOKIE	0xdeadULL

/* ---- small plumbing ---- */

static void send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &mh, 0) != 1)
		die("sendmsg SCM_RIGHTS");
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &mh, 0) != 1)
		die("recvmsg");
	c = CMSG_FIRSTHDR(&mh);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		die("no descriptor received");
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static int link_death(struct fbt_ctx *p, __u32 handle, __u64 cookie)
{
	struct fbinder_death d = { .handle = handle, .cookie = cookie };
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_LINK_DEATH, &d, sizeof(d));
	return fbt_wr(p, &w, NULL, false);
}

/*
 * Milliseconds until FBINDER_RET_DEAD for cookie arrives (acknowledged here),
 * or -1 when it does not within timeout_ms.
 */
static long long wait_dead(struct fbt_ctx *p, __u64 cookie, int timeout_ms)
{
	long long start = fbt_now_ms(), left;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	struct fbt_ret r;
	struct fbt_w w;

	while ((left = start + timeout_ms - fbt_now_ms()) > 0) {
		if (!p->qlen && poll(&pfd, 1, (int)left) != 1)
			continue;
		if (fbt_try_next(p, &r))
			continue;
		if (r.cmd != FBINDER_RET_DEAD || r.cookie != cookie)
			continue;
		fbt_w_reset(&w);
		fbt_w_cmd(&w, FBINDER_CMD_DEATH_DONE, &cookie, sizeof(cookie));
		CHECK(fbt_wr(p, &w, NULL, false) == 0, "DEATH_DONE");
		return fbt_now_ms() - start;
	}
	return -1;
}

/* What a process that is not the owner can do with the descriptor. */
static void check_not_usable(int fd, const char *who)
{
	struct fbinder_version v;
	struct fbinder_write_read wr = { 0 };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	void *m;

	errno = 0;
	CHECK(ioctl(fd, FBINDER_IOC_VERSION, &v) < 0 && errno == EPERM,
	      "%s: FBINDER_IOC_VERSION: want EPERM, got %s", who, strerror(errno));
	errno = 0;
	CHECK(ioctl(fd, FBINDER_IOC_WRITE_READ, &wr) < 0 && errno == EPERM,
	      "%s: FBINDER_IOC_WRITE_READ: want EPERM, got %s", who,
	      strerror(errno));
	m = mmap(NULL, MB, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m == MAP_FAILED && errno == EPERM, "%s: mmap: want EPERM, got %s",
	      who, m == MAP_FAILED ? strerror(errno) : "a mapping");
	if (m != MAP_FAILED)
		munmap(m, MB);
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR),
	      "%s: poll: want POLLERR, got revents 0x%x", who, pfd.revents);
}

/* ---- handle 0 ---- */

static void manager_slot(void)
{
	int ready[2], go[2], keeper, ret;
	struct fbt_ctx x;
	pid_t m2;

	fbt_pipe(ready);
	fbt_pipe(go);
	m2 = fbt_fork_child(false);
	if (m2 == 0) {
		fbt_ctx_open(&x, 0);
		if (fbt_set_mgr(x.fd, 0x11))
			die("first manager: FBINDER_IOC_SET_CONTEXT_MGR");
		keeper = fbt_fork_child(false);
		if (keeper == 0) {
			fbt_hear(go[0], 20000);	/* holds x.fd until told */
			_exit(0);
		}
		fbt_tell(ready[1], keeper);
		_exit(0);	/* x.fd still open, in the keeper too */
	}
	close(ready[1]);
	close(go[0]);
	keeper = fbt_hear(ready[0], 5000);
	CHECK(fbt_wait(m2) == 0, "first manager exited with 0");

	/* the manager is gone: its handle 0 goes with it, not with its file */
	fbt_ctx_open(&x, 0);
	ret = fbt_set_mgr(x.fd, 0x22);
	CHECK(ret == 0,
	      "handle 0 free once its manager exited (its child holds the descriptor): %s",
	      strerror(-ret));
	printf("# handle 0: claimable right after the manager exited: %s\n",
	       ret ? strerror(-ret) : "yes");
	fbt_ctx_close(&x);

	fbt_tell(go[1], 1);
	if (keeper > 0)
		CHECK(fbt_wait(keeper) == 0, "keeper exited with 0");
	close(ready[0]);
	close(go[1]);
}

/* ---- (a) the owner forks a child that keeps its descriptor ---- */

static int attack_fork(void)
{
	int ready[2], go[2], kgo[2], keeper;
	long long ms;
	struct fbt_ctx o, h;
	struct fbt_ret r;
	__u32 hn = 0;
	pid_t owner;
	int ret;

	fbt_pipe(ready);
	fbt_pipe(go);
	fbt_pipe(kgo);
	owner = fbt_fork_child(false);
	if (owner == 0) {
		fbt_ctx_open(&o, MB);
		ret = fbt_slot_put(&o, SLOT_A, COOKIE_A);
		if (ret)
			die("owner: register: %s", strerror(-ret));
		keeper = fbt_fork_child(false);
		if (keeper == 0) {
			/* no mapping (VM_DONTCOPY), the descriptor only */
			if (fbt_hear(kgo[0], 20000) < 0)
				die("keeper: no word");
			check_not_usable(o.fd, "(a) child after the owner exited");
			_exit(fbt_child_status());
		}
		fbt_tell(ready[1], keeper);
		fbt_hear(go[0], 20000);
		_exit(0);	/* o.fd still open */
	}
	close(ready[1]);
	close(go[0]);
	close(kgo[0]);
	keeper = fbt_hear(ready[0], 5000);
	if (keeper < 0)
		die("(a) owner not ready");

	fbt_ctx_open(&h, MB);
	ret = fbt_slot_get(&h, SLOT_A, &hn);
	CHECK(ret == 0, "(a) holder gets the owner's node: %s", strerror(-ret));
	CHECK(link_death(&h, hn, DEATH_COOKIE) == 0, "(a) link death");

	fbt_tell(go[1], 1);
	CHECK(fbt_wait(owner) == 0, "(a) owner exited with 0");
	ms = wait_dead(&h, DEATH_COOKIE, DEADLINE_MS);
	CHECK(ms >= 0,
	      "(a) no FBINDER_RET_DEAD within %d ms of the owner's exit (its child holds the descriptor)",
	      DEADLINE_MS);
	/* (without the notice a call would wait for good: none then) */
	if (ms >= 0) {
		printf("# (a) death notice %lld ms after the owner was reaped\n",
		       ms);
		ret = fbt_call(&h, hn, 1, NULL, 0, NULL, 0, &r, NULL, NULL);
		CHECK(ret == -EOWNERDEAD,
		      "(a) call to the dead owner: want EOWNERDEAD, got %s",
		      strerror(-ret));
	}
	CHECK(fbt_release(&h, hn) == 0, "(a) release the handle");
	CHECK(fbt_slot_drop(&h, SLOT_A) == 0, "(a) drop the slot");

	fbt_tell(kgo[1], 1);
	CHECK(fbt_wait(keeper) == 0, "(a) the child's checks");
	fbt_ctx_close(&h);
	close(ready[0]);
	close(go[1]);
	close(kgo[1]);
	return fbt_child_status();
}

/* ---- (b) the descriptor in flight, its socket in the buffer ---- */

static int attack_cycle(bool close_first)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_FD };
	struct fbt_ctx o, q;
	int sv[2], ret, st;
	__u64 off = 0;
	pid_t owner, sender;
	__u32 hb = 0;

	owner = fbt_fork_child(false);
	if (owner == 0) {
		fbt_ctx_open(&o, MB);
		/* it takes descriptors, or the send fails with EPERM */
		ret = fbt_slot_put_flags(&o, SLOT_B, COOKIE_B,
				    FBINDER_OBJF_ACCEPTS_FDS);
		if (ret)
			die("owner: register: %s", strerror(-ret));
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			die("socketpair");
		send_fd(sv[0], o.fd);	/* in flight on sv[1] */
		sender = fbt_fork_child(false);
		if (sender == 0) {
			close(o.fd);
			fbt_ctx_open(&q, MB);
			ret = fbt_slot_get(&q, SLOT_B, &hb);
			CHECK(ret == 0, "(b) sender gets the node: %s",
			      strerror(-ret));
			obj.fd = sv[1];
			ret = fbt_oneway(&q, hb, 1, &obj, sizeof(obj), &off, 1);
			CHECK(ret == 0,
			      "(b) the socket sent into the owner's buffer: %s",
			      strerror(-ret));
			fbt_ctx_close(&q);
			_exit(fbt_child_status());
		}
		st = fbt_wait(sender);
		close(sv[0]);
		close(sv[1]);
		if (close_first)
			close(o.fd);	/* the mapping and the socket hold it */
		_exit(st);
	}
	CHECK(fbt_wait(owner) == 0, "(b) owner and sender exited with 0");
	return fbt_child_status();
}

static int attack_cycle_open(void)
{
	return attack_cycle(false);
}

static int attack_cycle_closed(void)
{
	return attack_cycle(true);
}

/* ---- (c) the descriptor passed to another process ---- */

static int attack_pass(void)
{
	int sv[2], ready[2], go[2], bgo[2], fd, ret;
	struct fbt_ctx a, h;
	struct fbt_ret r;
	pid_t owner, other;
	long long ms;
	__u32 hc = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair");
	fbt_pipe(ready);
	fbt_pipe(go);
	fbt_pipe(bgo);
	other = fbt_fork_child(false);
	if (other == 0) {
		fd = recv_fd(sv[1]);
		fbt_tell(ready[1], 2);
		if (fbt_hear(bgo[0], 20000) < 0)
			die("other: no word");
		check_not_usable(fd, "(c) receiver after the owner exited");
		close(fd);
		_exit(fbt_child_status());
	}
	owner = fbt_fork_child(false);
	if (owner == 0) {
		fbt_ctx_open(&a, MB);
		ret = fbt_slot_put(&a, SLOT_C, COOKIE_C);
		if (ret)
			die("owner: register: %s", strerror(-ret));
		send_fd(sv[0], a.fd);
		fbt_tell(ready[1], 1);
		fbt_hear(go[0], 20000);
		_exit(0);	/* a.fd still open */
	}
	close(ready[1]);
	close(go[0]);
	close(bgo[0]);
	CHECK(fbt_hear(ready[0], 5000) + fbt_hear(ready[0], 5000) == 3,
	      "(c) owner and receiver ready");

	fbt_ctx_open(&h, MB);
	ret = fbt_slot_get(&h, SLOT_C, &hc);
	CHECK(ret == 0, "(c) holder gets the owner's node: %s", strerror(-ret));
	CHECK(link_death(&h, hc, DEATH_COOKIE) == 0, "(c) link death");
	fbt_tell(go[1], 1);
	CHECK(fbt_wait(owner) == 0, "(c) owner exited with 0");
	ms = wait_dead(&h, DEATH_COOKIE, DEADLINE_MS);
	CHECK(ms >= 0,
	      "(c) no FBINDER_RET_DEAD within %d ms of the owner's exit (another process holds the descriptor)",
	      DEADLINE_MS);
	/* (without the notice a call would wait for good: none then) */
	if (ms >= 0) {
		printf("# (c) death notice %lld ms after the owner was reaped\n",
		       ms);
		ret = fbt_call(&h, hc, 1, NULL, 0, NULL, 0, &r, NULL, NULL);
		CHECK(ret == -EOWNERDEAD,
		      "(c) call to the dead owner: want EOWNERDEAD, got %s",
		      strerror(-ret));
	}
	CHECK(fbt_release(&h, hc) == 0, "(c) release the handle");
	CHECK(fbt_slot_drop(&h, SLOT_C) == 0, "(c) drop the slot");

	fbt_tell(bgo[1], 1);
	CHECK(fbt_wait(other) == 0, "(c) the receiver's checks");
	fbt_ctx_close(&h);
	close(sv[0]);
	close(sv[1]);
	close(ready[0]);
	close(go[1]);
	close(bgo[1]);
	return fbt_child_status();
}

/* ---- (d) the owner's mm outlives it ---- */

#define D_STACK		(64 * 1024)
#define D_SIZE		8192

static const volatile unsigned char *d_page;
static int d_go;

/* The expected end of the CLONE_VM child. */
static void d_sigbus(int sig)
{
	(void)sig;
	_exit(0);
}

/*
 * The CLONE_VM child: once told (the owner has exited by then), reads the
 * buffer page the owner had mapped.  Exit status 0 when that raises SIGBUS,
 * 1 when the page is still there.  Syscalls only: it shares the owner's
 * libc state.
 */
static int d_child(void *arg)
{
	struct sigaction sa = { .sa_handler = d_sigbus };
	unsigned char v;
	char c;

	(void)arg;
	if (sigaction(SIGBUS, &sa, NULL) || read(d_go, &c, 1) != 1)
		return 2;
	v = *d_page;	/* volatile: the read happens */
	(void)v;
	return 1;
}

static int attack_shared_mm(void)
{
	unsigned char data[D_SIZE];
	int ready[2], go[2], ret;
	struct fbt_ctx o, q;
	struct fbt_ret r;
	pid_t owner, child;
	char *stack;
	__u32 hd = 0;

	fbt_pipe(ready);
	fbt_pipe(go);
	owner = fbt_fork_child(false);
	if (owner == 0) {
		fbt_ctx_open(&o, MB);
		ret = fbt_slot_put(&o, SLOT_D, COOKIE_D);
		if (ret)
			die("owner: register: %s", strerror(-ret));
		fbt_tell(ready[1], 0);
		ret = fbt_next(&o, &r);
		if (ret || r.cmd != FBINDER_RET_TRANSACTION)
			die("owner: no message: %s %s", strerror(-ret),
			    fbt_ret_name(r.cmd));
		/* map the page, and leave the message unfreed */
		d_page = (const unsigned char *)fbt_data(&o, &r.msg);
		CHECK(d_page[0] == 0xd0, "(d) owner reads its message");
		d_go = go[0];
		stack = malloc(D_STACK);
		if (!stack)
			die("malloc");
		child = clone(d_child, stack + D_STACK, CLONE_VM | SIGCHLD,
			      NULL);
		if (child < 0)
			die("clone(CLONE_VM)");
		fbt_tell(ready[1], child);
		_exit(fbt_child_status());	/* o still open and mapped */
	}
	close(ready[1]);
	close(go[0]);
	if (fbt_hear(ready[0], 5000) != 0)
		die("(d) owner not ready");
	fbt_ctx_open(&q, MB);
	ret = fbt_slot_get(&q, SLOT_D, &hd);
	CHECK(ret == 0, "(d) sender gets the owner's node: %s", strerror(-ret));
	memset(data, 0xd0, sizeof(data));
	CHECK(fbt_oneway(&q, hd, 1, data, sizeof(data), NULL, 0) == 0,
	      "(d) message to the owner");
	CHECK(fbt_release(&q, hd) == 0, "(d) release the handle");
	CHECK(fbt_slot_drop(&q, SLOT_D) == 0, "(d) drop the slot");
	child = fbt_hear(ready[0], 5000);
	CHECK(fbt_wait(owner) == 0, "(d) owner exited with 0");
	if (child > 0) {
		if (write(go[1], "g", 1) != 1)
			die("write");
		ret = fbt_wait(child);
		CHECK(ret == 0,
		      "(d) a process sharing the dead owner's mm reads its buffer page: status %d, want 0 (SIGBUS)",
		      ret);
	}
	fbt_ctx_close(&q);
	close(ready[0]);
	close(go[1]);
	return fbt_child_status();
}

/* ---- the root parent ---- */

static bool counts_are(long long contexts, long long *got_ctx,
		       long long *got_buf, long long *got_txn)
{
	*got_ctx = *got_buf = *got_txn = -1;
	fbt_stat("live_contexts", got_ctx);
	fbt_stat("live_buffers", got_buf);
	fbt_stat("live_transactions", got_txn);
	return *got_ctx == contexts && !*got_buf && !*got_txn;
}

/*
 * Runs fn as uid 65534 while the bystander keeps calling the manager;
 * then the contexts the attack made must all be gone (only the manager's
 * and the bystander's left), and no buffer or transaction.
 */
static void run_attack(const char *name, int (*fn)(void), struct fbt_ctx *by)
{
	long long t, worst = 0, deadline, c, b, x;
	int status, ret, calls = 0;
	pid_t pid;

	pid = fbt_fork_child(false);
	if (pid == 0) {
		fbt_become_nobody();
		/* the grandchildren are reaped by the attacker, not by init */
		if (prctl(PR_SET_CHILD_SUBREAPER, 1))
			die("PR_SET_CHILD_SUBREAPER");
		_exit(fn());
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		t = fbt_now_ms();
		ret = fbt_slot_ping(by);
		t = fbt_now_ms() - t;
		CHECK(ret == 0, "%s: bystander's call: %s", name, strerror(-ret));
		if (t > worst)
			worst = t;
		calls++;
		usleep(20000);
	}
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s: attacker exited with status 0x%x", name, status);
	CHECK(worst < BYSTANDER_MS, "%s: a bystander's call took %lld ms",
	      name, worst);
	printf("# %s: %d bystander calls during the attack, slowest %lld ms\n",
	       name, calls, worst);

	deadline = fbt_now_ms() + DEADLINE_MS;
	while (!counts_are(2, &c, &b, &x) && fbt_now_ms() < deadline)
		usleep(20000);
	CHECK(c == 2 && b == 0 && x == 0,
	      "%s: %d ms after the attack: live_contexts %lld (want 2: the manager and the bystander), live_buffers %lld, live_transactions %lld (want 0)",
	      name, DEADLINE_MS, c, b, x);
}

int main(void)
{
	struct fbt_ctx by;
	pid_t mgr;

	alarm(150);
	/* orphans of the handle-0 part come back to us */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		die("PR_SET_CHILD_SUBREAPER");
	if (geteuid() != 0) {
		errno = 0;
		die("needs root (VM_ROOT_TESTS): it reads debugfs");
	}
	manager_slot();

	mgr = fbt_slot_spawn();
	fbt_ctx_open(&by, MB);
	run_attack("(a) fork", attack_fork, &by);
	run_attack("(b) cycle, owner's descriptor open", attack_cycle_open,
		   &by);
	run_attack("(b) cycle, owner's descriptor closed", attack_cycle_closed,
		   &by);
	run_attack("(c) pass", attack_pass, &by);
	run_attack("(d) shared mm", attack_shared_mm, &by);

	fbt_ctx_close(&by);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	CHECK(fbt_wait_live_zero(DEADLINE_MS) == 0, "live counts back to zero");
	return fbt_done();
}
