// SPDX-License-Identifier: MIT
/*
 * fd_passing_failures: descriptors in messages when things go wrong.  Every
 * receiver here accepts descriptors (claimed with FBINDER_OBJF_ACCEPTS_FDS).
 *
 *  - a receiver whose descriptor table is full (RLIMIT_NOFILE, filled; one
 *    slot left for a message with two descriptors) does not get the call:
 *    its read finds nothing (EAGAIN, and nothing pending afterwards), no
 *    descriptor is installed, its table is exactly as before, and the
 *    caller's call fails with FBINDER_RET_FAILED -EMFILE; once the receiver
 *    closed some descriptors the next call is delivered, both descriptors
 *    work, and the caller gets its reply.
 *  - a oneway message carrying a descriptor to a receiver whose table is
 *    full is dropped: the receiver's read skips it and returns the oneway
 *    message queued behind it on the same node (which the dropped one's
 *    freed buffer let go), no descriptor is installed, nothing is left
 *    queued, and the sender sees EOF: the dropped message's file is gone.
 *  - a receiver killed with two oneway messages carrying a pipe's write end
 *    queued to it (one on the context, one behind it on the node): the
 *    sender, which closed its own write end, sees EOF on the read end, so
 *    no reference to the file survives; the sender's /proc/self/fd count is
 *    back to its start.
 *  - a receiver that dies while a call carrying a descriptor is queued to
 *    it: the caller gets FBINDER_RET_FAILED EOWNERDEAD, then EOF.
 *  - a receiver killed after it read such a message, before freeing the
 *    buffer: /proc/<pid>/fd of the receiver grew by the descriptor while
 *    it lived, and the sender sees EOF once it is gone.
 */
#include "fbt_proto.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define R_COOKIE	0xfd00fdULL
#define FD_LIMIT	64

/* Open descriptors below FD_LIMIT, counted without opening one. */
static int count_open_below_limit(void)
{
	int i, n = 0;

	for (i = 0; i < FD_LIMIT; i++)
		if (fcntl(i, F_GETFD) >= 0)
			n++;
	return n;
}

/* EOF on fd within timeout_ms: every write end is closed everywhere. */
static bool sees_eof(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, timeout_ms) != 1)
		return false;
	return read(fd, &c, 1) == 0;
}

static void wait_pending(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, 10000) != 1 || !(pfd.revents & POLLIN))
		die("no work arrived");
}

/* ---- full descriptor table ---- */

/*
 * Caps the table at FD_LIMIT and fills it with copies of /dev/null, their
 * descriptors in fillers[*nf]; returns the one they copy.
 */
static int fill_table(int *fillers, int *nf)
{
	struct rlimit rl = { FD_LIMIT, FD_LIMIT };
	int base, fd;

	base = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (base < 0 || setrlimit(RLIMIT_NOFILE, &rl))
		die("/dev/null, setrlimit");
	while ((fd = dup(base)) >= 0)
		fillers[(*nf)++] = fd;
	if (errno != EMFILE || *nf < 8)
		die("filling the table: %d dups", *nf);
	return base;
}

struct full_report {
	__s32 first_err;	/* -errno of the read that found the call */
	__s32 second_err;	/* of a second read */
	__s32 open_before, open_after_fail;
	__s32 still_pending;	/* poll after those reads */
	__s32 free_slot_ok;	/* the one free slot was still free */
	__s32 got_call;
	__s32 fd_valid[2];
	__s32 written;
};

static int full_body(struct fbt_ctx *p, void *arg)
{
	struct full_report rep = { 0 };
	struct pollfd pfd;
	struct fbt_ret r;
	int fillers[FD_LIMIT], nf = 0, fd, i, ret;
	int ready = (int)(intptr_t)arg;
	char c = 'f';
	int base;

	alarm(50);
	base = fill_table(fillers, &nf);
	close(fillers[--nf]);	/* one free slot, the message needs two */
	rep.open_before = count_open_below_limit();
	if (write(ready, &c, 1) != 1)
		die("ready");

	/* the call arrives and cannot be delivered: it fails to its caller */
	wait_pending(p->fd);
	rep.first_err = fbt_try_next(p, &r);
	rep.second_err = fbt_try_next(p, &r);
	rep.open_after_fail = count_open_below_limit();
	pfd.fd = p->fd;
	pfd.events = POLLIN;
	rep.still_pending = poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
	fd = dup(base);
	rep.free_slot_ok = fd >= 0 && dup(base) < 0 && errno == EMFILE;
	if (fd >= 0)
		close(fd);

	for (i = 0; i < 4; i++)
		close(fillers[--nf]);
	/* room for the caller's second call */
	if (write(ready, &c, 1) != 1)
		die("room");
	ret = fbt_next(p, &r);
	rep.got_call = ret == 0 && r.cmd == FBINDER_RET_TRANSACTION &&
		       r.msg.offsets_count == 2;
	if (rep.got_call) {
		for (i = 0; i < 2; i++) {
			const struct fbinder_object *o = fbt_obj(p, &r.msg, i);

			rep.fd_valid[i] = o->type == FBINDER_OBJ_FD && o->fd >= 0 &&
					  fcntl(o->fd, F_GETFD) >= 0;
		}
		rep.written = write(fbt_obj(p, &r.msg, 0)->fd, "full", 4);
		close(fbt_obj(p, &r.msg, 0)->fd);
		close(fbt_obj(p, &r.msg, 1)->fd);
	}
	if (ret == 0 && r.cmd == FBINDER_RET_TRANSACTION)
		fbt_reply(p, &r.msg, 0, &rep, sizeof(rep), NULL, 0);
	while (nf)
		close(fillers[--nf]);
	close(base);
	return fbt_child_status();
}

static void full_table(void)
{
	struct fbinder_object objs[2] = { { .type = FBINDER_OBJ_FD }, { .type = FBINDER_OBJ_FD } };
	__u64 offs[2] = { 0, sizeof(objs[0]) };
	struct full_report rep;
	struct fbt_ret reply;
	int ready[2], pfd[2], ret;
	struct fbt_ctx p;
	pid_t r;
	char buf[8] = { 0 }, c;

	printf("# a receiver with a full descriptor table\n");
	if (pipe(ready) || pipe(pfd))
		die("pipe");
	r = fbt_spawn_manager_ex(MB, R_COOKIE, FBT_MGR_NOBODY | FBT_MGR_FDS, full_body,
				 (void *)(intptr_t)ready[1]);
	fbt_become_nobody();	/* root only to claim handle 0 */
	if (read(ready[0], &c, 1) != 1)
		die("receiver not ready");
	fbt_ctx_open(&p, MB);
	objs[0].fd = pfd[1];
	objs[1].fd = pfd[0];
	ret = fbt_call(&p, 0, 1, objs, sizeof(objs), offs, 2, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_FAILED && reply.err.error == -EMFILE,
	      "a call the receiver's table cannot take: %s %s %d, want FBINDER_RET_FAILED -EMFILE",
	      strerror(-ret), fbt_ret_name(reply.cmd), reply.err.error);
	if (ret == 0 && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&p, reply.msg.data);
	if (read(ready[0], &c, 1) != 1)
		die("receiver made no room");
	ret = fbt_call(&p, 0, 1, objs, sizeof(objs), offs, 2, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY,
	      "the next call is answered once the receiver has room: %s %s",
	      strerror(-ret), fbt_ret_name(reply.cmd));
	if (ret == 0 && reply.cmd == FBINDER_RET_REPLY && reply.msg.data_size == sizeof(rep)) {
		memcpy(&rep, fbt_data(&p, &reply.msg), sizeof(rep));
		CHECK(rep.first_err == -EAGAIN,
		      "read with a full table: %s, want EAGAIN (the call is not delivered)",
		      strerror(-rep.first_err));
		CHECK(rep.second_err == -EAGAIN, "second read: %s, want EAGAIN",
		      strerror(-rep.second_err));
		CHECK(rep.open_after_fail == rep.open_before,
		      "no descriptor installed: %d open before, %d after",
		      rep.open_before, rep.open_after_fail);
		CHECK(rep.free_slot_ok, "the one free slot stayed free");
		CHECK(!rep.still_pending, "nothing left queued (no POLLIN)");
		CHECK(rep.got_call, "delivered after closing descriptors");
		CHECK(rep.fd_valid[0] && rep.fd_valid[1], "both descriptors installed");
		CHECK(rep.written == 4, "receiver wrote through the first one: %d",
		      rep.written);
	}
	if (ret == 0 && reply.cmd == FBINDER_RET_REPLY)
		CHECK(fbt_free_buffer(&p, reply.msg.data) == 0, "free");
	CHECK(read(pfd[0], buf, sizeof(buf)) == 4 && !memcmp(buf, "full", 4),
	      "sender reads what the receiver wrote: '%s'", buf);
	printf("# a call the receiver cannot take fails back with EMFILE\n");
	fbt_ctx_close(&p);
	CHECK(fbt_wait(r) == 0, "receiver exit");
	close(pfd[0]);
	close(pfd[1]);
	close(ready[0]);
	close(ready[1]);
}

/* ---- a oneway message the full table cannot take ---- */

struct oneway_full_pipes {
	int ready;		/* the receiver's table is full */
	int go;			/* both messages are queued */
};

static int oneway_full_body(struct fbt_ctx *p, void *arg)
{
	const struct oneway_full_pipes *pp = arg;
	int fillers[FD_LIMIT], nf = 0, before, ret;
	struct fbt_ret r;
	char c = 'o';
	int base;

	alarm(50);
	base = fill_table(fillers, &nf);
	before = count_open_below_limit();
	if (write(pp->ready, &c, 1) != 1 || read(pp->go, &c, 1) != 1)
		die("ready, go");

	/* the first is dropped in the read that returns the second */
	ret = fbt_next(p, &r);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.code == 2 &&
	      (r.msg.flags & FBINDER_TXN_ONEWAY) && r.msg.offsets_count == 0,
	      "read with a full table: %s %s code %u, want the second oneway (code 2)",
	      strerror(-ret), fbt_ret_name(r.cmd), r.msg.code);
	CHECK(count_open_below_limit() == before, "no descriptor installed: %d open, %d before",
	      count_open_below_limit(), before);
	if (ret == 0 && r.cmd == FBINDER_RET_TRANSACTION)
		CHECK(fbt_free_buffer(p, r.msg.data) == 0, "free of the second");
	ret = fbt_try_next(p, &r);
	CHECK(ret == -EAGAIN, "nothing left queued: %s %s", strerror(-ret),
	      fbt_ret_name(r.cmd));
	while (nf)
		close(fillers[--nf]);
	close(base);
	return fbt_child_status();
}

static void oneway_full_table(void)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_FD };
	struct oneway_full_pipes pp;
	int ready[2], go[2], pfd[2], ret;
	__u64 off = 0;
	struct fbt_ctx p;
	char c = 'g';
	pid_t r;

	printf("# a oneway message the receiver's full table cannot take is dropped\n");
	if (pipe(ready) || pipe(go) || pipe(pfd))
		die("pipe");
	pp.ready = ready[1];
	pp.go = go[0];
	r = fbt_spawn_manager_ex(MB, R_COOKIE, FBT_MGR_NOBODY | FBT_MGR_FDS, oneway_full_body,
				 &pp);
	fbt_become_nobody();	/* root only to claim handle 0 */
	if (read(ready[0], &c, 1) != 1)
		die("receiver not ready");
	fbt_ctx_open(&p, MB);
	obj.fd = pfd[1];
	ret = fbt_oneway(&p, 0, 1, &obj, sizeof(obj), &off, 1);
	CHECK(ret == 0, "oneway with a descriptor: %s", strerror(-ret));
	ret = fbt_oneway(&p, 0, 2, "next", 4, NULL, 0);
	CHECK(ret == 0, "oneway behind it (waits on the node): %s", strerror(-ret));
	close(pfd[1]);
	if (write(go[1], &c, 1) != 1)
		die("go");
	CHECK(fbt_wait(r) == 0, "receiver exit");
	CHECK(sees_eof(pfd[0], 5000), "EOF on the read end: the dropped message's file is gone");
	close(pfd[0]);
	fbt_ctx_close(&p);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

/* ---- receivers that die ---- */

static int idle_body(struct fbt_ctx *p, void *arg)
{
	(void)p;
	(void)arg;
	alarm(50);
	for (;;)
		pause();
	return 0;
}

static void killed_with_oneways_queued(void)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_FD };
	__u64 off = 0;
	int start, pfd[2], ret;
	struct fbt_ctx p;
	pid_t r;

	printf("# receiver killed with oneway messages carrying a descriptor queued\n");
	r = fbt_spawn_manager_ex(MB, R_COOKIE, FBT_MGR_NOBODY | FBT_MGR_FDS, idle_body, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&p, MB);
	start = fbt_count_fds(getpid());
	if (pipe(pfd))
		die("pipe");
	obj.fd = pfd[1];
	ret = fbt_oneway(&p, 0, 1, &obj, sizeof(obj), &off, 1);
	CHECK(ret == 0, "first oneway with a descriptor: %s", strerror(-ret));
	ret = fbt_oneway(&p, 0, 2, &obj, sizeof(obj), &off, 1);
	CHECK(ret == 0, "second oneway (waits on the node): %s", strerror(-ret));
	close(pfd[1]);
	CHECK(fbt_count_fds(r) >= 0, "receiver alive");
	kill(r, SIGKILL);
	CHECK(fbt_wait(r) == 128 + SIGKILL, "receiver killed");
	CHECK(sees_eof(pfd[0], 5000),
	      "EOF on the read end: the queued messages' references are gone");
	close(pfd[0]);
	CHECK(fbt_count_fds(getpid()) == start, "sender's descriptors back to %d: %d",
	      start, fbt_count_fds(getpid()));
	fbt_ctx_close(&p);
}

static int suicide_body(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	alarm(50);
	wait_pending(p->fd);	/* the call is queued, unread */
	raise(SIGKILL);
	return 1;
}

static void dies_with_call_queued(void)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_FD };
	struct fbt_ret reply;
	__u64 off = 0;
	int start, pfd[2], ret;
	struct fbt_ctx p;
	pid_t r;

	printf("# receiver dies with a call carrying a descriptor queued\n");
	r = fbt_spawn_manager_ex(MB, R_COOKIE, FBT_MGR_NOBODY | FBT_MGR_FDS, suicide_body, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&p, MB);
	start = fbt_count_fds(getpid());
	if (pipe(pfd))
		die("pipe");
	obj.fd = pfd[1];
	ret = fbt_call(&p, 0, 1, &obj, sizeof(obj), &off, 1, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_FAILED && reply.err.error == -EOWNERDEAD,
	      "caller: %s, %s %d, expected FBINDER_RET_FAILED -EOWNERDEAD", strerror(-ret),
	      fbt_ret_name(reply.cmd), reply.err.error);
	CHECK(fbt_wait(r) == 128 + SIGKILL, "receiver killed itself");
	close(pfd[1]);
	CHECK(sees_eof(pfd[0], 5000), "EOF on the read end after the receiver died");
	close(pfd[0]);
	CHECK(fbt_count_fds(getpid()) == start, "caller's descriptors back to %d", start);
	fbt_ctx_close(&p);
}

static int hold_body(struct fbt_ctx *p, void *arg)
{
	int ready = (int)(intptr_t)arg;
	int counts[2];
	struct fbt_ret r;

	alarm(50);
	counts[0] = fbt_count_fds(getpid());
	if (fbt_next(p, &r) || r.cmd != FBINDER_RET_TRANSACTION)
		die("hold: no message");
	counts[1] = fbt_count_fds(getpid());
	if (write(ready, counts, sizeof(counts)) != sizeof(counts))
		die("hold: ready");
	for (;;)
		pause();	/* never frees the buffer nor closes the fd */
	return 0;
}

static void killed_after_delivery(void)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_FD };
	int counts[2], pfd[2], ready[2], ret;
	__u64 off = 0;
	struct fbt_ctx p;
	pid_t r;

	printf("# receiver killed after delivery, before freeing the buffer\n");
	if (pipe(ready))
		die("pipe");
	r = fbt_spawn_manager_ex(MB, R_COOKIE, FBT_MGR_NOBODY | FBT_MGR_FDS, hold_body,
				 (void *)(intptr_t)ready[1]);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&p, MB);
	if (pipe(pfd))
		die("pipe");
	obj.fd = pfd[1];
	ret = fbt_oneway(&p, 0, 1, &obj, sizeof(obj), &off, 1);
	CHECK(ret == 0, "oneway with a descriptor: %s", strerror(-ret));
	close(pfd[1]);
	if (read(ready[0], counts, sizeof(counts)) != sizeof(counts))
		die("receiver did not read");
	CHECK(counts[1] == counts[0] + 1, "receiver's descriptors %d -> %d after delivery",
	      counts[0], counts[1]);
	kill(r, SIGKILL);
	CHECK(fbt_wait(r) == 128 + SIGKILL, "receiver killed");
	CHECK(sees_eof(pfd[0], 5000), "EOF on the read end after the receiver died");
	close(pfd[0]);
	close(ready[0]);
	close(ready[1]);
	fbt_ctx_close(&p);
}

/*
 * Each part in a child of its own, which starts its receiver as root (the
 * receiver claims handle 0) and then drops to uid 65534, the receiver too.
 */
struct part_fn {
	void (*fn)(void);	/* ISO C: no function pointer through void * */
};

static int part(void *arg)
{
	((struct part_fn *)arg)->fn();
	return fbt_child_status();
}

static void run_part(void (*fn)(void))
{
	struct part_fn p = { fn };
	int st = fbt_wait(fbt_fork(part, &p));

	CHECK(st == 0, "part exited with %d", st);
}

int main(void)
{
	run_part(full_table);
	run_part(oneway_full_table);
	run_part(killed_with_oneways_queued);
	run_part(dies_with_call_queued);
	run_part(killed_after_delivery);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
