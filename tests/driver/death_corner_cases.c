// SPDX-License-Identifier: MIT
/*
 * death_corner_cases: the corner cases of death notifications, each with the
 * outcome docs/abi.md gives it.
 *
 *  - link after death, on a handle other than 0: linked, and FBINDER_RET_DEAD
 *    with the cookie is there at once (a non-blocking read); calls through
 *    the handle fail with EOWNERDEAD; handle 0 with no manager is ENOENT.
 *  - linking twice: a cookie already linked is EEXIST (same handle or
 *    another), two cookies on one handle both fire; unlink with the wrong
 *    handle is EINVAL and leaves the link; DEATH_DONE of an unknown cookie
 *    is ENOENT, of a live link or of a notice queued but not read EINVAL.
 *  - unlink after the death was queued: EOWNERDEAD, the notice is
 *    withdrawn, the cookie is free again; unlink after FBINDER_RET_DEAD was read:
 *    EOWNERDEAD, and DEATH_DONE then finds nothing (ENOENT); releasing the
 *    handle's last reference withdraws its queued notices silently.
 *  - a read whose copy-out faults (EFAULT) loses no notice.
 *  - race: another thread acknowledges each notice (DEATH_DONE, freeing
 *    the link) the moment the reading thread took it, while that read is
 *    still copying it out: every notice arrives once, every acknowledge
 *    succeeds once (a debug kernel's KASAN sees any use after free).
 *  - a holder that exits with a notice read but not acknowledged, notices
 *    queued and links on a live node leaks nothing (every live_* count in
 *    debugfs stats, live_death_links included, back to zero) and a later
 *    death of that node tells nobody.
 */
#include "fbt_proto.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0xdea7f00dULL
#define C_GIVE		1	/* reply with FBINDER_OBJ_LOCAL of the cookie in data */

/* ---- the owner: the context manager, handing out objects ---- */

static int owner_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL };
	__u64 off = 0;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (r->msg.code == C_GIVE && r->msg.data_size == sizeof(__u64)) {
		memcpy(&o.cookie, fbt_data(p, &r->msg), sizeof(o.cookie));
		return fbt_reply(p, &r->msg, 0, &o, sizeof(o), &off, 1) ? -1 : 0;
	}
	return fbt_reply(p, &r->msg, 1, NULL, 0, NULL, 0) ? -1 : 0;
}

static int owner_body(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	alarm(50);
	return fbt_serve(p, owner_handler, NULL) ? 1 : 0;
}

static pid_t owner_start(void)
{
	return fbt_spawn_manager(MB, MGR_COOKIE, owner_body, NULL);
}

static void owner_kill(pid_t pid)
{
	kill(pid, SIGKILL);
	CHECK(fbt_wait(pid) == 128 + SIGKILL, "owner killed by SIGKILL");
}

/* A handle of ours (with a reference of our own) on the owner's object cookie. */
static __u32 get_handle(struct fbt_ctx *p, __u64 cookie)
{
	const struct fbinder_object *o;
	struct fbt_ret reply;
	__u32 h;

	if (fbt_call(p, 0, C_GIVE, &cookie, sizeof(cookie), NULL, 0, &reply,
		     NULL, NULL))
		die("C_GIVE call");
	if (reply.cmd != FBINDER_RET_REPLY || reply.msg.offsets_count != 1)
		die("C_GIVE: no object in the reply (%s)", fbt_ret_name(reply.cmd));
	o = fbt_obj(p, &reply.msg, 0);
	if (o->type != FBINDER_OBJ_HANDLE || o->handle == 0)
		die("C_GIVE: object type %u handle %u", o->type, o->handle);
	h = o->handle;
	if (fbt_acquire(p, h))
		die("acquire %u", h);
	if (fbt_free_buffer(p, reply.msg.data))
		die("free");
	return h;
}

static int death_cmd(struct fbt_ctx *p, __u32 cmd, __u32 handle, __u64 cookie)
{
	struct fbinder_death d = { .handle = handle, .cookie = cookie };
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, cmd, &d, sizeof(d));
	return fbt_wr(p, &w, NULL, false);
}

#define do_link(p, h, c)	death_cmd(p, FBINDER_CMD_LINK_DEATH, h, c)
#define do_unlink(p, h, c)	death_cmd(p, FBINDER_CMD_UNLINK_DEATH, h, c)

static int do_done(struct fbt_ctx *p, __u64 cookie)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_DEATH_DONE, &cookie, sizeof(cookie));
	return fbt_wr(p, &w, NULL, false);
}

/* Blocks until the context has work to read (a real wait, not a sleep). */
static void wait_pending(struct fbt_ctx *p, const char *what)
{
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	int n = poll(&pfd, 1, 10000);

	if (n < 0)
		die("poll");
	CHECK(n == 1 && (pfd.revents & POLLIN), "%s: work pending", what);
}

/* The next return must be FBINDER_RET_DEAD with cookie; nonblock: it must be there now. */
static void expect_dead(struct fbt_ctx *p, __u64 cookie, bool nonblock, const char *what)
{
	struct fbt_ret r;
	int ret = nonblock ? fbt_try_next(p, &r) : fbt_next(p, &r);

	CHECK(ret == 0, "%s: read: %s", what, strerror(-ret));
	if (ret)
		return;
	CHECK(r.cmd == FBINDER_RET_DEAD && r.cookie == cookie,
	      "%s: got %s cookie 0x%llx, expected FBINDER_RET_DEAD 0x%llx", what,
	      fbt_ret_name(r.cmd), (unsigned long long)r.cookie,
	      (unsigned long long)cookie);
}

static void expect_nothing(struct fbt_ctx *p, const char *what)
{
	struct fbt_ret r;
	int ret = fbt_try_next(p, &r);

	CHECK(ret == -EAGAIN, "%s: nothing more to read (got %s, %s cookie 0x%llx)",
	      what, strerror(-ret), ret ? "-" : fbt_ret_name(r.cmd),
	      ret ? 0ULL : (unsigned long long)r.cookie);
}

/* ---- scenarios ---- */

static void link_after_death(void)
{
	struct fbt_ret reply;
	struct fbt_ctx p;
	pid_t owner;
	__u32 h;
	int ret;

	printf("# link after death on a non-zero handle\n");
	owner = owner_start();
	fbt_ctx_open(&p, MB);
	h = get_handle(&p, 0x1000);
	CHECK(do_link(&p, h, 0xa1) == 0, "link before the death");
	owner_kill(owner);
	expect_dead(&p, 0xa1, false, "the death, linked before");
	CHECK(do_done(&p, 0xa1) == 0, "acknowledge");

	ret = do_link(&p, h, 0xa2);
	CHECK(ret == 0, "link to a dead node succeeds: %s", strerror(-ret));
	expect_dead(&p, 0xa2, true, "link after death notifies at once");
	expect_nothing(&p, "link after death notifies once");
	CHECK(do_done(&p, 0xa2) == 0, "acknowledge the late link");
	CHECK(do_done(&p, 0xa2) == -ENOENT, "second acknowledge is ENOENT");

	ret = fbt_call(&p, h, 7, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == -EOWNERDEAD, "call on the dead handle: %s, expected EOWNERDEAD",
	      strerror(-ret));
	ret = do_link(&p, 0, 0xa3);
	CHECK(ret == -ENOENT, "link on handle 0 with no manager: %s, expected ENOENT",
	      strerror(-ret));
	CHECK(fbt_release(&p, h) == 0, "release the dead handle");
	fbt_ctx_close(&p);
}

static void link_twice(void)
{
	__u64 seen[3] = { 0 };
	struct fbt_ctx p;
	pid_t owner;
	__u32 h1, h2;
	int i, ret;

	printf("# linking twice, wrong handle, early DEATH_DONE\n");
	owner = owner_start();
	fbt_ctx_open(&p, MB);
	h1 = get_handle(&p, 0x2001);
	h2 = get_handle(&p, 0x2002);
	CHECK(h1 != h2, "two objects, two handles");

	CHECK(do_link(&p, h1, 0xb1) == 0, "link b1 on h1");
	ret = do_link(&p, h1, 0xb1);
	CHECK(ret == -EEXIST, "same cookie, same handle: %s, expected EEXIST",
	      strerror(-ret));
	ret = do_link(&p, h2, 0xb1);
	CHECK(ret == -EEXIST, "same cookie, other handle: %s, expected EEXIST",
	      strerror(-ret));
	CHECK(do_link(&p, h1, 0xb2) == 0, "second cookie on the same handle");
	CHECK(do_link(&p, h2, 0xb3) == 0, "link b3 on h2");
	ret = do_unlink(&p, h2, 0xb1);
	CHECK(ret == -EINVAL, "unlink with the wrong handle: %s, expected EINVAL",
	      strerror(-ret));
	ret = do_done(&p, 0xbeef);
	CHECK(ret == -ENOENT, "DEATH_DONE of an unknown cookie: %s, expected ENOENT",
	      strerror(-ret));
	ret = do_done(&p, 0xb1);
	CHECK(ret == -EINVAL, "DEATH_DONE of a live link: %s, expected EINVAL",
	      strerror(-ret));

	owner_kill(owner);
	wait_pending(&p, "deaths queued");
	ret = do_done(&p, 0xb1);
	CHECK(ret == -EINVAL, "DEATH_DONE of a queued, unread notice: %s, expected EINVAL",
	      strerror(-ret));

	for (i = 0; i < 3; i++) {
		struct fbt_ret r;

		ret = fbt_try_next(&p, &r);
		CHECK(ret == 0 && r.cmd == FBINDER_RET_DEAD, "notice %d: %s %s", i,
		      strerror(-ret), ret ? "-" : fbt_ret_name(r.cmd));
		if (ret == 0 && r.cmd == FBINDER_RET_DEAD) {
			seen[i] = r.cookie;
			CHECK(r.cookie >= 0xb1 && r.cookie <= 0xb3,
			      "notice for a linked cookie, got 0x%llx",
			      (unsigned long long)r.cookie);
		}
	}
	CHECK(seen[0] != seen[1] && seen[1] != seen[2] && seen[0] != seen[2],
	      "each cookie once: 0x%llx 0x%llx 0x%llx", (unsigned long long)seen[0],
	      (unsigned long long)seen[1], (unsigned long long)seen[2]);
	expect_nothing(&p, "three links, three notices");
	for (i = 0xb1; i <= 0xb3; i++)
		CHECK(do_done(&p, i) == 0, "acknowledge 0x%x", i);
	CHECK(fbt_release(&p, h1) == 0 && fbt_release(&p, h2) == 0, "release");
	fbt_ctx_close(&p);
}

static void unlink_after_death(void)
{
	__u64 got[2] = { 0 };
	struct fbt_ret r;
	struct fbt_ctx p;
	pid_t owner;
	__u32 h, h2;
	int i, ret;

	printf("# unlink after the death was queued / read, release while queued\n");
	owner = owner_start();
	fbt_ctx_open(&p, MB);
	h = get_handle(&p, 0x3001);
	h2 = get_handle(&p, 0x3002);
	CHECK(do_link(&p, h, 0xc1) == 0, "link c1");
	CHECK(do_link(&p, h, 0xc2) == 0, "link c2");
	CHECK(do_link(&p, h, 0xc3) == 0, "link c3");
	CHECK(do_link(&p, h2, 0xc4) == 0, "link c4 on h2");
	owner_kill(owner);
	wait_pending(&p, "deaths queued");

	ret = do_unlink(&p, h, 0xc1);
	CHECK(ret == -EOWNERDEAD, "unlink of a queued notice: %s, expected EOWNERDEAD",
	      strerror(-ret));
	ret = do_unlink(&p, h, 0xc1);
	CHECK(ret == -ENOENT, "the link is gone after that: %s, expected ENOENT",
	      strerror(-ret));
	/* the last reference of h2 goes: its link and queued notice with it */
	CHECK(fbt_release(&p, h2) == 0, "release h2 with its notice queued");
	ret = do_link(&p, h2, 0xc5);
	CHECK(ret == -ENOENT, "h2 is gone: %s", strerror(-ret));

	for (i = 0; i < 2; i++) {
		ret = fbt_try_next(&p, &r);
		CHECK(ret == 0 && r.cmd == FBINDER_RET_DEAD, "notice %d: %s", i,
		      strerror(-ret));
		if (!ret)
			got[i] = r.cookie;
	}
	CHECK((got[0] == 0xc2 && got[1] == 0xc3) ||
	      (got[0] == 0xc3 && got[1] == 0xc2),
	      "only c2 and c3 are delivered: 0x%llx 0x%llx",
	      (unsigned long long)got[0], (unsigned long long)got[1]);
	expect_nothing(&p, "withdrawn notices stay withdrawn");

	ret = do_unlink(&p, h, 0xc2);
	CHECK(ret == -EOWNERDEAD, "unlink after FBINDER_RET_DEAD was read: %s, expected EOWNERDEAD",
	      strerror(-ret));
	ret = do_done(&p, 0xc2);
	CHECK(ret == -ENOENT, "DEATH_DONE after that unlink: %s, expected ENOENT",
	      strerror(-ret));
	CHECK(do_done(&p, 0xc3) == 0, "acknowledge c3");

	/* the withdrawn cookie is free again: linking it to the dead node fires */
	CHECK(do_link(&p, h, 0xc1) == 0, "relink c1");
	expect_dead(&p, 0xc1, true, "relinked c1 notifies at once");
	CHECK(do_done(&p, 0xc1) == 0, "acknowledge c1");
	expect_nothing(&p, "end of unlink scenario");
	CHECK(fbt_release(&p, h) == 0, "release h");
	fbt_ctx_close(&p);
}

static void fault_keeps_notice(void)
{
	struct fbinder_write_read wr;
	struct fbt_ctx p;
	pid_t owner;
	void *bad;
	__u32 h;
	int ret;

	printf("# EFAULT on the read keeps the notice\n");
	owner = owner_start();
	fbt_ctx_open(&p, MB);
	h = get_handle(&p, 0x4001);
	CHECK(do_link(&p, h, 0xd1) == 0, "link");
	owner_kill(owner);
	wait_pending(&p, "death queued");

	bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bad == MAP_FAILED)
		die("mmap");
	memset(&wr, 0, sizeof(wr));
	wr.read_buffer = (uintptr_t)bad;
	wr.read_size = 4096;
	ret = ioctl(p.fd, FBINDER_IOC_WRITE_READ, &wr) < 0 ? -errno : 0;
	CHECK(ret == -EFAULT, "read into an unwritable buffer: %s, expected EFAULT",
	      strerror(-ret));
	munmap(bad, 4096);
	ret = do_done(&p, 0xd1);
	CHECK(ret == -EINVAL, "the failed read did not deliver it: %s", strerror(-ret));
	expect_dead(&p, 0xd1, true, "the notice after a faulted read");
	CHECK(do_done(&p, 0xd1) == 0, "acknowledge");
	CHECK(fbt_release(&p, h) == 0, "release");
	fbt_ctx_close(&p);
}

/* ---- DEATH_DONE racing the read that delivers the notice ---- */

#define RACE_ROUNDS	2000

static struct fbt_ctx race_ctx;
static atomic_llong race_cur;	/* cookie of the round, 0: none yet, -1: stop */
static atomic_llong race_acked;
static int race_errors;

static void *race_acker(void *arg)
{
	long long seen = 0, c;
	struct fbt_ctx t;
	int ret;

	(void)arg;
	fbt_ctx_attach(&t, &race_ctx);
	for (;;) {
		while ((c = atomic_load(&race_cur)) == seen)
			sched_yield();
		if (c < 0)
			break;
		seen = c;
		/* EINVAL until the reader took it; then it must succeed */
		while ((ret = do_done(&t, (__u64)c)) == -EINVAL &&
		       atomic_load(&race_cur) >= 0)
			;
		if (ret == -EINVAL)	/* told to stop: the reader failed */
			break;
		if (ret) {
			printf("# acknowledge of 0x%llx: %s\n", (unsigned long long)c,
			       strerror(-ret));
			race_errors++;
		}
		atomic_store(&race_acked, c);
	}
	return NULL;
}

static void done_races_read(void)
{
	long long deadline;
	struct fbt_ret r;
	pthread_t thr;
	pid_t owner;
	int i, bad = 0, ret;
	__u32 h;

	printf("# DEATH_DONE from another thread racing the read\n");
	owner = owner_start();
	fbt_ctx_open(&race_ctx, MB);
	h = get_handle(&race_ctx, 0x7001);
	owner_kill(owner);
	if (pthread_create(&thr, NULL, race_acker, NULL))
		die("pthread_create");
	deadline = fbt_now_ms() + 3000;
	for (i = 1; i <= RACE_ROUNDS && fbt_now_ms() < deadline; i++) {
		__u64 cookie = 0x70000000ULL + i;

		/* linked to a dead node: queued at once, not delivered */
		ret = do_link(&race_ctx, h, cookie);
		if (ret == 0) {
			atomic_store(&race_cur, (long long)cookie);
			ret = fbt_next(&race_ctx, &r);
		}
		if (ret || r.cmd != FBINDER_RET_DEAD || r.cookie != cookie) {
			bad++;
			break;
		}
		while (atomic_load(&race_acked) != (long long)cookie)
			sched_yield();
	}
	atomic_store(&race_cur, -1);
	pthread_join(thr, NULL);
	printf("# %d rounds\n", i - 1);
	CHECK(!bad, "round %d: each notice read once with its cookie", i);
	CHECK(!race_errors, "%d acknowledges failed with something else than EINVAL",
	      race_errors);
	expect_nothing(&race_ctx, "after the race rounds");
	CHECK(fbt_release(&race_ctx, h) == 0, "release");
	fbt_ctx_close(&race_ctx);
}

/*
 * A holder that exits with everything pending: one notice read and not
 * acknowledged, one queued, one withdrawn by nobody; then one on a node
 * whose owner dies only after the holder is gone.
 */
struct holder_args {
	int ready;	/* holder -> parent */
};

static int holder_dead_owner(void *arg)
{
	struct holder_args *a = arg;
	unsigned char rbuf[sizeof(__u32) + sizeof(struct fbinder_txn_msg)];
	size_t rdone = 0;
	struct fbt_ctx p;
	__u32 h;
	int ret;
	char c = 'r';

	fbt_failures = 0;	/* this child's own checks only */
	fbt_ctx_open(&p, MB);
	h = get_handle(&p, 0x5001);
	CHECK(do_link(&p, h, 0xe1) == 0, "holder: link e1");
	CHECK(do_link(&p, h, 0xe2) == 0, "holder: link e2");
	CHECK(do_link(&p, 0, 0xe3) == 0, "holder: link e3 on handle 0");
	if (write(a->ready, &c, 1) != 1)
		die("write");
	wait_pending(&p, "holder: deaths queued");
	/* a read stream with room for exactly one return */
	ret = fbt_write_read(p.fd, NULL, 0, NULL, rbuf, sizeof(rbuf), &rdone);
	CHECK(ret == 0 && rdone == sizeof(__u32) + sizeof(__u64),
	      "holder: read one notice (%s, %zu bytes)", strerror(-ret), rdone);
	exit(fbt_child_status());	/* one delivered, two queued: none acked */
}

static int holder_live_owner(void *arg)
{
	struct holder_args *a = arg;
	struct fbt_ctx p;
	__u32 h;
	char c = 'r';

	fbt_failures = 0;	/* this child's own checks only */
	fbt_ctx_open(&p, MB);
	h = get_handle(&p, 0x6001);
	CHECK(do_link(&p, h, 0xf1) == 0, "holder: link f1");
	CHECK(do_link(&p, 0, 0xf2) == 0, "holder: link f2 on handle 0");
	CHECK(do_link(&p, h, 0xf3) == 0, "holder: link f3");
	CHECK(do_unlink(&p, h, 0xf3) == 0, "holder: unlink f3");
	if (write(a->ready, &c, 1) != 1)
		die("write");
	exit(fbt_child_status());	/* links live, owner alive */
}

static void holder_exits(void)
{
	struct holder_args a;
	int ready[2];
	pid_t owner, kid;
	char c;

	printf("# holders that exit with notices pending leak nothing\n");
	if (pipe(ready))
		die("pipe");
	a.ready = ready[1];

	owner = owner_start();
	kid = fbt_fork(holder_dead_owner, &a);
	if (read(ready[0], &c, 1) != 1)
		die("read");
	owner_kill(owner);
	CHECK(fbt_wait(kid) == 0, "holder with pending notices exited cleanly");
	CHECK(fbt_wait_live_zero(5000) == 0,
	      "live counts zero after the holder exited with notices pending");

	owner = owner_start();
	kid = fbt_fork(holder_live_owner, &a);
	if (read(ready[0], &c, 1) != 1)
		die("read");
	CHECK(fbt_wait(kid) == 0, "holder with live links exited cleanly");
	owner_kill(owner);	/* its node's death must find no stale link */
	CHECK(fbt_wait_live_zero(5000) == 0,
	      "live counts zero after the holder left, then the owner died");
	close(ready[0]);
	close(ready[1]);
}

int main(void)
{
	long long v;

	CHECK(fbt_stat("live_death_links", &v) == 0,
	      "debugfs stats counts live death links");
	link_after_death();
	link_twice();
	unlink_after_death();
	fault_keeps_notice();
	done_races_read();
	holder_exits();
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
