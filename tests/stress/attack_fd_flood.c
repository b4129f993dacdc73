// SPDX-License-Identifier: MIT
/*
 * attack_fd_flood: one message must not stop a receiver (docs/security.md,
 * G5).  A sender fills a message with descriptors (one /dev/null, repeated)
 * that the receiver's descriptor table cannot take (RLIMIT_NOFILE 64).
 *
 *  1. fb-servicemanager, which takes no descriptors, is sent a oneway of
 *     1100 of them and of 253: EPERM both times (the opt-in is checked
 *     first), and it still answers lookups;
 *  2. a victim service that accepts descriptors (FBINDER_OBJF_ACCEPTS_FDS) is
 *     flooded with a oneway of 253, then called by a bystander: the
 *     bystander's reply comes within 3 s, the undeliverable message is
 *     dropped and recorded in debugfs "failed" ("deliver", -EMFILE), and
 *     the victim's reads never fail;
 *  3. a call with 253 descriptors fails back to its caller with EMFILE,
 *     and the victim answers the next one; 254 descriptors are too many
 *     for any message (EMSGSIZE); descriptors to an object that did not
 *     opt in, or to the registrar, are EPERM; FBINDER_TXN_ACCEPT_FDS with
 *     FBINDER_TXN_ONEWAY is EINVAL;
 *  4. replies: one the caller cannot install (253 descriptors for a
 *     caller limited to 16) ends the call with FBINDER_RET_FAILED -EMFILE; one
 *     to a call without FBINDER_TXN_ACCEPT_FDS is refused (the replier's
 *     FBINDER_CMD_REPLY and the caller's FBINDER_RET_FAILED: EPERM); one descriptor
 *     to a caller that accepts them arrives.
 *
 * Root (VM_ROOT_TESTS): it starts the managers, and reads debugfs; every
 * attacker, the victim, the bystander and the registrar (after its claim)
 * run as uid 65534.
 */
#define _GNU_SOURCE
#include "fbt_bl.h"
#include "fbt_proto.h"
#include "fbt_sm.h"

#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define NFDS		FBINDER_MAX_FDS	/* the most one message may carry */
#define R_COOKIE	0x5e9ULL	/* the registrar: handle 0 */
#define V_COOKIE	0x71c7ULL	/* the victim's object */
#define V2_COOKIE	0x71c8ULL	/* another, which takes no descriptors */
#define VICTIM_NOFILE	64
#define DEADLINE_MS	fbt_deadline_ms(3000)

enum { C_REG = 1, C_GET, C_PING, C_FLOOD, C_GIVE };

/* Between the processes. */
struct shared {
	atomic_int v_ready;		/* the victim registered */
	atomic_int v_go;		/* the victim may start reading */
	atomic_int b_sent;		/* the bystander's call is queued */
	atomic_int v_read_errors;	/* reads of the victim that failed */
	atomic_int v_reply_err;		/* its last FBINDER_CMD_REPLY's result */
	atomic_int v_replies;		/* replies it sent, once v_reply_err is set */
};

static struct shared *sh;

/* A message of n FBINDER_OBJ_FD objects, all naming fd. */
static void fd_msg(unsigned int n, int fd, struct fbinder_object *objs, __u64 *offs)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		objs[i] = (struct fbinder_object){ .type = FBINDER_OBJ_FD, .fd = fd };
		offs[i] = i * sizeof(objs[0]);
	}
}

static int open_null(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("/dev/null");
	return fd;
}

/*
 * A synchronous call that gives up after ms: the send, then poll() for the
 * reply, FBINDER_CMD_ABANDON when none came.  0 with *r FBINDER_RET_REPLY or
 * FBINDER_RET_FAILED, -ETIMEDOUT, or the send's -errno.
 */
static int call_deadline(struct fbt_ctx *p, __u32 handle, __u32 code, __u32 flags,
			 const void *data, size_t size, const __u64 *offs,
			 size_t n, struct fbt_ret *r, int ms)
{
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	long long until = fbt_now_ms() + ms;
	struct fbt_w w;
	int ret;

	fbt_w_reset(&w);
	fbt_w_send(&w, handle, code, flags, data, size, offs, n);
	ret = fbt_wr(p, &w, NULL, false);
	if (ret)
		return ret;
	for (;;) {
		ret = fbt_try_next(p, r);
		if (!ret && (r->cmd == FBINDER_RET_REPLY || r->cmd == FBINDER_RET_FAILED))
			return 0;
		if (ret && ret != -EAGAIN)
			return ret;
		if (fbt_now_ms() >= until) {
			fbt_w_reset(&w);
			fbt_w_cmd(&w, FBINDER_CMD_ABANDON, NULL, 0);
			if (fbt_wr(p, &w, NULL, false) == 0)
				return -ETIMEDOUT;
			continue;	/* the reply came just now */
		}
		poll(&pfd, 1, 50);
	}
}

/* ---- the registrar: handle 0, hands out the victim's handles ---- */

static int registrar_fn(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	static __u32 held[2];	/* the victim's two objects */
	struct fbinder_object objs[2] = { { .type = FBINDER_OBJ_HANDLE }, { .type = FBINDER_OBJ_HANDLE } };
	__u64 offs[2] = { 0, sizeof(objs[0]) };
	int i;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (r->msg.code == C_REG && r->msg.offsets_count == 2) {
		for (i = 0; i < 2; i++) {
			held[i] = fbt_obj(p, &r->msg, i)->handle;
			CHECK(fbt_acquire(p, held[i]) == 0, "registrar: acquire");
		}
		fbt_free_buffer(p, r->msg.data);
		return 0;
	}
	if (r->msg.flags & FBINDER_TXN_ONEWAY) {
		fbt_free_buffer(p, r->msg.data);
		return 0;
	}
	objs[0].handle = held[0];
	objs[1].handle = held[1];
	if (r->msg.code == C_GET && held[0])
		fbt_reply(p, &r->msg, 0, objs, sizeof(objs), offs, 2);
	else
		fbt_reply(p, &r->msg, 1, NULL, 0, NULL, 0);
	return 0;
}

static int registrar(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	return fbt_serve(p, registrar_fn, NULL) ? 1 : 0;
}

/*
 * The handle of the victim's object that accepts descriptors, from the
 * registrar, acquired; *other (may be NULL): the one that does not.
 */
static __u32 victim_handle(struct fbt_ctx *p, __u32 *other)
{
	struct fbt_ret r;
	__u32 h[2];
	int ret, i;

	ret = call_deadline(p, 0, C_GET, 0, NULL, 0, NULL, 0, &r, DEADLINE_MS);
	if (ret || r.cmd != FBINDER_RET_REPLY || r.msg.code || r.msg.offsets_count != 2)
		die("no victim handles from the registrar: %s %s", strerror(-ret),
		    fbt_ret_name(r.cmd));
	for (i = 0; i < 2; i++) {
		h[i] = fbt_obj(p, &r.msg, i)->handle;
		if (fbt_acquire(p, h[i]))
			die("acquire the victim's handle");
	}
	fbt_free_buffer(p, r.msg.data);
	if (other)
		*other = h[1];
	return h[0];
}

/* ---- the victim: a service with a small descriptor table ---- */

/* Closes every descriptor a message brought; returns how many. */
static unsigned int close_fds(const struct fbt_ctx *p, const struct fbinder_txn_msg *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < m->offsets_count; i++) {
		const struct fbinder_object *o = fbt_obj(p, m, i);

		if (o->type == FBINDER_OBJ_FD && o->fd >= 0) {
			close(o->fd);
			n++;
		}
	}
	return n;
}

static int victim_fn(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	static struct fbinder_object objs[NFDS];
	static __u64 offs[NFDS];
	int null = *(int *)arg;
	unsigned int n;
	__u32 want;

	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	n = close_fds(p, &r->msg);
	if (r->msg.flags & FBINDER_TXN_ONEWAY) {
		fbt_free_buffer(p, r->msg.data);
		return 0;
	}
	if (r->msg.code == C_GIVE && r->msg.data_size == sizeof(want)) {
		memcpy(&want, fbt_data(p, &r->msg), sizeof(want));
		if (want > NFDS)
			want = NFDS;
		fd_msg(want, null, objs, offs);
		atomic_store(&sh->v_reply_err,
			     fbt_reply(p, &r->msg, 0, objs, want * sizeof(objs[0]), offs, want));
		atomic_fetch_add(&sh->v_replies, 1);
		return 0;
	}
	fbt_reply(p, &r->msg, n, NULL, 0, NULL, 0);
	return 0;
}

static int victim(void *arg)
{
	const struct rlimit lim = { VICTIM_NOFILE, VICTIM_NOFILE };
	struct fbinder_object objs[2] = {
		{ .type = FBINDER_OBJ_LOCAL, .flags = FBINDER_OBJF_ACCEPTS_FDS, .cookie = V_COOKIE },
		{ .type = FBINDER_OBJ_LOCAL, .cookie = V2_COOKIE },
	};
	__u64 offs[2] = { 0, sizeof(objs[0]) };
	int null = open_null();
	struct fbt_ret r;
	struct fbt_ctx p;
	int ret;

	(void)arg;
	fbt_failures = 0;	/* not the parent's */
	fbt_become_nobody();
	if (setrlimit(RLIMIT_NOFILE, &lim))
		die("RLIMIT_NOFILE");
	fbt_ctx_open(&p, MB);
	ret = fbt_oneway(&p, 0, C_REG, objs, sizeof(objs), offs, 2);
	if (ret) {
		errno = -ret;
		die("victim: register");
	}
	atomic_store(&sh->v_ready, 1);
	while (!atomic_load(&sh->v_go))
		usleep(1000);
	/* a robust server: a failed read is retried, never fatal */
	for (;;) {
		ret = fbt_next(&p, &r);
		if (ret) {
			atomic_fetch_add(&sh->v_read_errors, 1);
			usleep(1000);
			continue;
		}
		victim_fn(&p, &r, &null);
	}
	return 0;
}

/* ---- 1. fb-servicemanager ---- */

static int sm_attacker(void *arg)
{
	static struct fbinder_object objs[1100];
	static __u64 offs[1100];
	int null = open_null(), ret;
	struct fbt_ctx p;

	(void)arg;
	fbt_failures = 0;	/* not the parent's */
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	fd_msg(1100, null, objs, offs);
	ret = fbt_oneway(&p, 0, 1, objs, sizeof(objs), offs, 1100);
	CHECK(ret == -EPERM, "1100 descriptors to the service manager: %s, want EPERM",
	      ret ? strerror(-ret) : "sent");
	ret = fbt_oneway(&p, 0, 1, objs, NFDS * sizeof(objs[0]), offs, NFDS);
	CHECK(ret == -EPERM, "%d descriptors to the service manager: %s, want EPERM", NFDS,
	      ret ? strerror(-ret) : "sent");
	fbt_ctx_close(&p);
	close(null);
	return fbt_child_status();
}

static int sm_client(void *arg)
{
	struct bl_context *ctx;
	char **names;
	size_t n;
	int ret;

	(void)arg;
	fbt_failures = 0;	/* not the parent's */
	fbt_become_nobody();
	ctx = fbt_bl_open();
	/* give a dying manager time to be gone */
	usleep(200 * 1000);
	ret = bl_sm_list(ctx, &names, &n);
	CHECK(ret == 0, "the service manager answers after the attack: %s",
	      strerror(-ret));
	if (!ret)
		bl_sm_list_free(names, n);
	bl_context_close(ctx);
	return fbt_child_status();
}

static void test_servicemanager(void)
{
	pid_t sm = fbt_sm_manager_start(NULL);

	CHECK(fbt_wait(fbt_fork(sm_attacker, NULL)) == 0, "attacker of the service manager");
	CHECK(fbt_wait(fbt_fork(sm_client, NULL)) == 0, "client of the service manager");
	CHECK(waitpid(sm, NULL, WNOHANG) == 0, "fb-servicemanager is alive");
	CHECK(fbt_sm_manager_stop(sm) == 0, "fb-servicemanager exits 0 on SIGTERM");
	printf("# 1. fb-servicemanager takes no descriptors and survives\n");
}

/* ---- 2. a oneway flood, then a bystander ---- */

static int flooder(void *arg)
{
	static struct fbinder_object objs[NFDS];
	static __u64 offs[NFDS];
	int null = open_null(), ret;
	struct fbt_ctx p;
	__u32 v;

	(void)arg;
	fbt_failures = 0;	/* not the parent's */
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	v = victim_handle(&p, NULL);
	fd_msg(NFDS, null, objs, offs);
	ret = fbt_oneway(&p, v, C_FLOOD, objs, sizeof(objs), offs, NFDS);
	CHECK(ret == 0, "oneway of %d descriptors to the victim: %s", NFDS, strerror(-ret));
	fbt_ctx_close(&p);
	close(null);
	return fbt_child_status();
}

static int bystander(void *arg)
{
	long long t0;
	struct fbt_ret r;
	struct fbt_ctx p;
	__u32 v;
	int ret;

	(void)arg;
	fbt_failures = 0;	/* not the parent's */
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	v = victim_handle(&p, NULL);
	t0 = fbt_now_ms();
	atomic_store(&sh->b_sent, 1);
	ret = call_deadline(&p, v, C_PING, 0, NULL, 0, NULL, 0, &r, DEADLINE_MS);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY && r.msg.code == 0,
	      "bystander's call behind the flood: %s %s, want a reply within %d ms",
	      strerror(-ret), fbt_ret_name(r.cmd), DEADLINE_MS);
	if (!ret && r.cmd == FBINDER_RET_REPLY) {
		printf("# bystander's reply after %lld ms\n", fbt_now_ms() - t0);
		fbt_free_buffer(&p, r.msg.data);
	}
	fbt_ctx_close(&p);
	return fbt_child_status();
}

/* A line of debugfs "failed" for this error from this process. */
static bool failure_recorded(int error, pid_t from)
{
	char *s = fbt_slurp(FBT_DEBUGFS "/failed"), *line, *save = NULL;
	char what[32];
	int err, fpid, tpid;
	bool found = false;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line && !found;
	     line = strtok_r(NULL, "\n", &save))
		found = sscanf(line, "%*s %31s %d %d %d", what, &err, &fpid, &tpid) == 4 &&
			!strcmp(what, "deliver") && err == error && fpid == from;
	free(s);
	if (!found) {
		s = fbt_slurp(FBT_DEBUGFS "/failed");
		printf("# debugfs failed:\n%s", s ? s : "(unreadable)\n");
		free(s);
	}
	return found;
}

static void test_oneway_flood(void)
{
	pid_t f, b;

	f = fbt_fork(flooder, NULL);
	CHECK(fbt_wait(f) == 0, "flooder");
	b = fbt_fork(bystander, NULL);
	while (!atomic_load(&sh->b_sent))
		usleep(1000);
	usleep(50 * 1000);	/* its call is queued behind the flood */
	atomic_store(&sh->v_go, 1);
	CHECK(fbt_wait(b) == 0, "bystander");
	CHECK(failure_recorded(-EMFILE, f), "the dropped oneway is recorded as deliver -EMFILE");
	CHECK(atomic_load(&sh->v_read_errors) == 0, "the victim's reads failed %d times",
	      atomic_load(&sh->v_read_errors));
	printf("# 2. a oneway flood is dropped; the bystander is served\n");
}

/* ---- 3. and 4. calls and replies ---- */

/* The result of the victim's FBINDER_CMD_REPLY after the reply number seen. */
static int victim_reply_err(int seen)
{
	long long until = fbt_now_ms() + DEADLINE_MS;

	while (atomic_load(&sh->v_replies) == seen && fbt_now_ms() < until)
		usleep(1000);
	return atomic_load(&sh->v_replies) == seen ? -ETIMEDOUT : atomic_load(&sh->v_reply_err);
}

static int caller(void *arg)
{
	static struct fbinder_object objs[NFDS + 1];
	static __u64 offs[NFDS + 1];
	const struct rlimit lim = { 16, 16 };
	int null = open_null(), ret;
	struct fbt_ret r;
	struct fbt_ctx p;
	__u32 v, v2, n;
	int seen;

	(void)arg;
	fbt_failures = 0;	/* not the parent's */
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	v = victim_handle(&p, &v2);
	fd_msg(NFDS + 1, null, objs, offs);

	ret = call_deadline(&p, v, C_PING, 0, objs, NFDS * sizeof(objs[0]), offs, NFDS, &r,
			    DEADLINE_MS);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_FAILED && r.err.error == -EMFILE,
	      "call with %d descriptors: %s %s %d, want FBINDER_RET_FAILED -EMFILE", NFDS,
	      strerror(-ret), fbt_ret_name(r.cmd), r.err.error);
	ret = call_deadline(&p, v, C_PING, 0, objs, sizeof(objs[0]), offs, 1, &r,
			    DEADLINE_MS);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY && r.msg.code == 1,
	      "the next call, with one descriptor: %s %s code %u, want a reply, code 1",
	      strerror(-ret), fbt_ret_name(r.cmd), r.msg.code);
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&p, r.msg.data);
	ret = fbt_oneway(&p, v, C_FLOOD, objs, sizeof(objs), offs, NFDS + 1);
	CHECK(ret == -EMSGSIZE, "%d descriptors in one message: %s, want EMSGSIZE", NFDS + 1,
	      ret ? strerror(-ret) : "sent");
	ret = fbt_oneway(&p, v2, C_FLOOD, objs, sizeof(objs[0]), offs, 1);
	CHECK(ret == -EPERM, "a descriptor to an object without FBINDER_OBJF_ACCEPTS_FDS: %s, want EPERM",
	      ret ? strerror(-ret) : "sent");
	ret = fbt_oneway(&p, 0, C_FLOOD, objs, sizeof(objs[0]), offs, 1);
	CHECK(ret == -EPERM, "a descriptor to the registrar (handle 0): %s, want EPERM",
	      ret ? strerror(-ret) : "sent");
	{
		struct fbt_w w;

		fbt_w_reset(&w);
		fbt_w_send(&w, v, C_FLOOD, FBINDER_TXN_ONEWAY | FBINDER_TXN_ACCEPT_FDS, NULL, 0, NULL, 0);
		ret = fbt_wr(&p, &w, NULL, false);
		CHECK(ret == -EINVAL, "FBINDER_TXN_ACCEPT_FDS on a oneway message: %s, want EINVAL",
		      ret ? strerror(-ret) : "sent");
	}
	printf("# 3. a call the victim cannot take fails back with EMFILE\n");

	/* A reply this caller cannot take: its own table holds 16. */
	if (setrlimit(RLIMIT_NOFILE, &lim))
		die("RLIMIT_NOFILE");
	n = NFDS;
	seen = atomic_load(&sh->v_replies);
	ret = call_deadline(&p, v, C_GIVE, FBINDER_TXN_ACCEPT_FDS, &n, sizeof(n), NULL, 0, &r,
			    DEADLINE_MS);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_FAILED && r.err.error == -EMFILE,
	      "a reply of %u descriptors to a caller that holds 16: %s %s %d, want FBINDER_RET_FAILED -EMFILE",
	      n, strerror(-ret), fbt_ret_name(r.cmd), r.err.error);
	if (!ret && r.cmd == FBINDER_RET_REPLY) {
		close_fds(&p, &r.msg);
		fbt_free_buffer(&p, r.msg.data);
	}
	ret = victim_reply_err(seen);
	CHECK(ret == 0, "the replier's FBINDER_CMD_REPLY: %s, want success", strerror(-ret));
	n = 1;
	seen = atomic_load(&sh->v_replies);
	ret = call_deadline(&p, v, C_GIVE, 0, &n, sizeof(n), NULL, 0, &r, DEADLINE_MS);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_FAILED && r.err.error == -EPERM,
	      "a reply with a descriptor to a call without FBINDER_TXN_ACCEPT_FDS: %s %s %d, want FBINDER_RET_FAILED -EPERM",
	      strerror(-ret), fbt_ret_name(r.cmd), r.err.error);
	if (!ret && r.cmd == FBINDER_RET_REPLY) {
		close_fds(&p, &r.msg);
		fbt_free_buffer(&p, r.msg.data);
	}
	ret = victim_reply_err(seen);
	CHECK(ret == -EPERM, "the replier's FBINDER_CMD_REPLY to it: %s, want EPERM",
	      ret ? strerror(-ret) : "success");
	ret = call_deadline(&p, v, C_GIVE, FBINDER_TXN_ACCEPT_FDS, &n, sizeof(n), NULL, 0, &r,
			    DEADLINE_MS);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY && r.msg.offsets_count == 1 &&
	      fbt_obj(&p, &r.msg, 0)->fd >= 0,
	      "a reply of 1 descriptor: %s %s, want a reply with a descriptor", strerror(-ret),
	      fbt_ret_name(r.cmd));
	if (!ret && r.cmd == FBINDER_RET_REPLY) {
		CHECK(close_fds(&p, &r.msg) == 1, "one descriptor installed");
		fbt_free_buffer(&p, r.msg.data);
	}
	printf("# 4. replies: EMFILE when they do not fit, EPERM unless accepted\n");
	fbt_ctx_close(&p);
	close(null);
	return fbt_child_status();
}

int main(void)
{
	pid_t reg, vic;

	alarm(55);
	if (geteuid() != 0)
		die("attack_fd_flood must start as root (VM_ROOT_TESTS)");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");

	test_servicemanager();

	reg = fbt_spawn_manager_ex(MB, R_COOKIE, FBT_MGR_NOBODY, registrar, NULL);
	vic = fbt_fork(victim, NULL);
	while (!atomic_load(&sh->v_ready))
		usleep(1000);
	test_oneway_flood();
	CHECK(fbt_wait(fbt_fork(caller, NULL)) == 0, "caller");

	kill(vic, SIGKILL);
	kill(reg, SIGKILL);
	fbt_wait(vic);
	fbt_wait(reg);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
