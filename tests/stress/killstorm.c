// SPDX-License-Identifier: MIT
/*
 * killstorm: processes SIGKILLed at random points of synchronous calls,
 * nested calls, oneway floods, death notifications and fd passing.
 *
 * Each round starts a registry M (handle 0), a server S and NCLIENTS
 * clients, each client with a caller thread and a looper thread.  Clients
 * call S (echo with checked payload, nested calls back into the caller,
 * fds both ways, slow calls), flood S and each other with oneway batches,
 * call each other, and link deaths to S and to peers.  The parent SIGKILLs
 * a random subset of the processes at random moments, then tells the
 * survivors to stop: each must finish its current call (a reply, or the
 * failure the death caused) within a deadline, so a death never leaves a
 * caller hanging.  After every round, with all processes gone, the live_*
 * counters in debugfs stats must be back to zero.  M stays root (it claims
 * handle 0); S and the clients run as uid 65534 (fbt_become_nobody()).
 *
 * The clients also run the resource attacks of docs/security.md (G6), so
 * that deaths land in the middle of them: bursts of death links, threads that leave without FBINDER_IOC_THREAD_EXIT, write
 * streams longer than one ioctl's budget, and the client's own context
 * descriptor in flight on a unix socket (the context must still end with
 * the process).  They also copy S's memory region while S revokes and
 * makes it anew, and while either of them dies.
 *
 * FBINDER_KILLSTORM_ROUNDS (default 12, scaled by FBINDER_SCALE), FBINDER_KILLSTORM_SEED.
 */
#define _GNU_SOURCE
#include "fbt_proto.h"
#include "fbt_region.h"
#include "fbt_stress.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x3a11ULL
#define S_COOKIE	0x5e5eULL
#define NCLIENTS	3
#define NTAB		16

enum { M_REG = 1, M_REG_S, M_GET_S, M_GET_ANY, C_ECHO, C_NEST, C_FD, C_SLOW, C_PEER, C_BACK, C_FLOOD,
       C_REGION };

struct shared {
	_Atomic int stop;
	_Atomic unsigned long long calls, failed_calls, nested, fds, oneways, deaths;
	_Atomic unsigned long long links, threads, streams, inflight;
	_Atomic int bad;
	char msg[200];
};

static struct shared *sh;
static uint64_t seed;
static int round_no;

static void bad(const char *what, long a, long b)
{
	if (atomic_fetch_add(&sh->bad, 1) == 0)
		snprintf(sh->msg, sizeof(sh->msg), "round %d: %s (%ld, %ld)", round_no, what, a, b);
}

/* Close the fds a message carried; return the first one (or -1) unclosed if keep. */
static int msg_fds(struct fbt_ctx *p, const struct fbinder_txn_msg *m, bool keep_first)
{
	int first = -1;
	__u64 i;

	for (i = 0; i < m->offsets_count; i++) {
		const struct fbinder_object *o = fbt_obj(p, m, i);

		if (o->type != FBINDER_OBJ_FD)
			continue;
		if (keep_first && first < 0)
			first = o->fd;
		else
			close(o->fd);
	}
	return first;
}

static void death_done(struct fbt_ctx *p, __u64 cookie)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_DEATH_DONE, &cookie, sizeof(cookie));
	fbt_wr(p, &w, NULL, false);
	atomic_fetch_add(&sh->deaths, 1);
}

static void enter_looper(struct fbt_ctx *t)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_ENTER_LOOPER, NULL, 0);
	fbt_wr(t, &w, NULL, false);
}

/* ------------------------------------------------------------------ M */

static pthread_mutex_t m_lock = PTHREAD_MUTEX_INITIALIZER;
static __u32 m_tab[NTAB], m_s;
static struct fbt_rng m_rng;

static int m_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_txn_msg *m = &r->msg;
	struct fbinder_object o = { .type = FBINDER_OBJ_HANDLE };
	__u64 off = 0;
	size_t n = 0;

	(void)arg;
	if (r->cmd == FBINDER_RET_DEAD) {
		death_done(p, r->cookie);
		return 0;
	}
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	pthread_mutex_lock(&m_lock);
	if ((m->code == M_REG || m->code == M_REG_S) && m->offsets_count == 1 &&
	    fbt_obj(p, m, 0)->type == FBINDER_OBJ_HANDLE) {
		__u32 h = fbt_obj(p, m, 0)->handle;
		struct fbinder_death d = { .handle = h, .cookie = h };
		struct fbt_w w;

		fbt_acquire(p, h);
		fbt_w_reset(&w);
		fbt_w_cmd(&w, FBINDER_CMD_LINK_DEATH, &d, sizeof(d));
		fbt_wr(p, &w, NULL, false);
		if (m->code == M_REG_S)
			m_s = h;
		m_tab[fbt_rnd(&m_rng, NTAB)] = h;
	} else if (m->code == M_GET_S && m_s) {
		o.handle = m_s;
		n = 1;
	} else if (m->code == M_GET_ANY) {
		o.handle = m_tab[fbt_rnd(&m_rng, NTAB)];
		n = o.handle != 0;
	}
	pthread_mutex_unlock(&m_lock);
	if (m->flags & FBINDER_TXN_ONEWAY)
		fbt_free_buffer(p, m->data);
	else
		fbt_reply(p, m, 0, &o, n * sizeof(o), &off, n);
	return 0;
}

static int m_main(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	fbt_rng_seed(&m_rng, fbt_mix(seed, round_no * 100 + 1));
	return fbt_serve(p, m_handle, NULL) ? 1 : 0;
}

/* ----------------------------------------------------------------- S */

static int s_nested(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	(void)p; (void)r; (void)arg;
	return 0;	/* nothing comes back into S's chains */
}

/* S's region: REGION_SIZE bytes of 0x5a, made anew after some revokes. */
#define REGION_SIZE	(4 * MB)
static unsigned char *s_mem;
static __u32 s_region;
static pthread_mutex_t s_region_lock = PTHREAD_MUTEX_INITIALIZER;

static void s_give_region(struct fbt_ctx *p, const struct fbinder_txn_msg *m)
{
	struct fbinder_object o = { .type = FBINDER_OBJ_REGION };
	__u64 off = 0;

	pthread_mutex_lock(&s_region_lock);
	if (s_region && m->txn_id % 4 == 0) {
		fbt_region_revoke(p->fd, s_region);
		fbt_release(p, s_region);
		s_region = 0;
	}
	if (!s_region && fbt_region_create(p->fd, s_mem, REGION_SIZE, FBINDER_REGION_READ, &s_region))
		s_region = 0;
	o.handle = s_region;
	/*
	 * Replied under the lock: another thread's revoke releases the
	 * handle, and a reply naming a released handle fails (ENOENT).
	 */
	if (o.handle)
		fbt_reply(p, m, 0, &o, sizeof(o), &off, 1);
	else
		fbt_reply(p, m, 1, NULL, 0, NULL, 0);
	pthread_mutex_unlock(&s_region_lock);
}

static int s_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_txn_msg *m = &r->msg;
	unsigned char buf[512];
	struct fbt_ret rr;
	size_t n = 0;
	int ret;

	(void)arg;
	if (r->cmd == FBINDER_RET_DEAD) {
		death_done(p, r->cookie);
		return 0;
	}
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (m->flags & FBINDER_TXN_ONEWAY) {
		msg_fds(p, m, false);
		fbt_free_buffer(p, m->data);
		return 0;
	}
	switch (m->code) {
	case C_ECHO:
		n = m->data_size <= sizeof(buf) ? m->data_size : 0;
		memcpy(buf, fbt_data(p, m), n);
		fbt_reply(p, m, 0, buf, n, NULL, 0);
		break;
	case C_NEST: {	/* call the caller's object back, in its chain */
		__u32 h = m->offsets_count == 1 ? fbt_obj(p, m, 0)->handle : 0;
		__u32 v = 0;

		ret = h ? fbt_call(p, h, C_BACK, "back", 4, NULL, 0, &rr, s_nested, NULL) : -EINVAL;
		if (!ret && rr.cmd == FBINDER_RET_REPLY) {
			if (rr.msg.data_size == 4)
				memcpy(&v, fbt_data(p, &rr.msg), 4);
			fbt_free_buffer(p, rr.msg.data);
		}
		fbt_reply(p, m, ret ? 1 : 0, &v, 4, NULL, 0);
		break;
	}
	case C_FD: {
		struct fbinder_object o = { .type = FBINDER_OBJ_FD };
		__u64 off = 0;
		int fd = msg_fds(p, m, true);

		o.fd = fd >= 0 ? fd : 1;
		fbt_reply(p, m, 0, &o, sizeof(o), &off, 1);
		if (fd >= 0)
			close(fd);
		break;
	}
	case C_REGION:
		s_give_region(p, m);
		break;
	case C_SLOW:
		usleep(1000 * (1 + (m->txn_id % 30)));
		fbt_reply(p, m, 0, NULL, 0, NULL, 0);
		break;
	default:
		msg_fds(p, m, false);
		fbt_reply(p, m, 7, NULL, 0, NULL, 0);
		break;
	}
	return 0;
}

static void *s_looper(void *arg)
{
	struct fbt_ctx *t = fbt_ctx_thread(arg, false);

	enter_looper(t);
	fbt_serve(t, s_handle, NULL);
	return NULL;
}

static int s_main(void *arg)
{
	/* S takes descriptors (C_FD, the oneway flood) */
	struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL, .flags = FBINDER_OBJF_ACCEPTS_FDS,
			       .cookie = S_COOKIE };
	__u64 off = 0;
	struct fbt_ctx p;
	struct fbt_ret r;
	pthread_t th;

	(void)arg;
	fbt_become_nobody();
	s_mem = malloc(REGION_SIZE);
	if (!s_mem)
		die("malloc");
	memset(s_mem, 0x5a, REGION_SIZE);
	fbt_ctx_open(&p, MB);
	if (fbt_call(&p, 0, M_REG_S, &o, sizeof(o), &off, 1, &r, NULL, NULL) ||
	    r.cmd != FBINDER_RET_REPLY)
		_exit(3);
	fbt_free_buffer(&p, r.msg.data);
	if (pthread_create(&th, NULL, s_looper, &p))
		die("pthread_create");
	s_looper(&p);
	return 0;
}

/* ------------------------------------------------------------ clients */

static int c_idx;

static int c_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_txn_msg *m = &r->msg;
	__u32 v = 0xb0b0 + c_idx;

	(void)arg;
	if (r->cmd == FBINDER_RET_DEAD) {
		death_done(p, r->cookie);
		return 0;
	}
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	msg_fds(p, m, false);
	if (m->flags & FBINDER_TXN_ONEWAY)
		fbt_free_buffer(p, m->data);
	else
		fbt_reply(p, m, m->code == C_BACK ? 0 : 5, &v, 4, NULL, 0);
	return 0;
}

static int c_nested(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	(void)arg;
	atomic_fetch_add(&sh->nested, 1);
	return c_handle(p, r, NULL);
}

static void *c_looper(void *arg)
{
	struct fbt_ctx *t = fbt_ctx_thread(arg, false);

	enter_looper(t);
	fbt_serve(t, c_handle, NULL);
	return NULL;
}

/* The reply to a call: checked when there is one; deaths are allowed. */
static void c_result(int ret, struct fbt_ret *r, const char *what)
{
	if (ret) {
		if (ret != -EOWNERDEAD && ret != -ENOENT && ret != -ENOSPC && ret != -EDQUOT &&
		    ret != -ESRCH)
			bad(what, ret, 0);
		atomic_fetch_add(&sh->failed_calls, 1);
		return;
	}
	if (r->cmd == FBINDER_RET_FAILED) {
		if (r->err.error != -EOWNERDEAD && r->err.error != -ENOSPC &&
		    r->err.error != -EDQUOT)
			bad(what, r->err.error, 1);
		atomic_fetch_add(&sh->failed_calls, 1);
		return;
	}
	if (r->cmd != FBINDER_RET_REPLY) {
		bad(what, (long)r->cmd, 2);
		return;
	}
	atomic_fetch_add(&sh->calls, 1);
}

/* ---- the resource attacks (G6), cut short by the kills ---- */

#define LINK_BURST	96	/* more than one of the close's batches */
#define STREAM_PAIRS	6000	/* 12000 commands: three ioctls' budget */

/*
 * LINK_BURST death links to h, then unlinked: a kill in between leaves the
 * close to drop them in batches.  Returns false once h's owner is dead: a
 * link to a dead node is told at once, so more bursts would only pile up
 * notices (held for good, thousands of links would flood this library's
 * return queue when h's owner dies; the cap is attack_death_links' job).
 */
static bool c_link_burst(struct fbt_ctx *p, __u32 h, unsigned long long *next)
{
	__u32 cmd = FBINDER_CMD_LINK_DEATH;
	struct fbt_w w;
	int pass, n, ret = 0;

	for (pass = 0; pass < 2 && !ret; pass++) {
		fbt_w_reset(&w);
		for (n = 0; n < LINK_BURST; n++) {
			struct fbinder_death d = { .handle = h, .cookie = *next + n };

			fbt_w_cmd(&w, cmd, &d, sizeof(d));
		}
		ret = fbt_wr(p, &w, NULL, false);
		cmd = FBINDER_CMD_UNLINK_DEATH;
	}
	*next += LINK_BURST;
	/* h's owner may be dead (EOWNERDEAD) or its ref gone (ENOENT) */
	if (ret && ret != -ENOENT && ret != -EOWNERDEAD && ret != -EINTR)
		bad("link burst", ret, pass);
	atomic_fetch_add(&sh->links, 1);
	return ret != -EOWNERDEAD;
}

/* A thread that polls the context (a record) and leaves without THREAD_EXIT. */
static void *c_short_thread(void *arg)
{
	struct pollfd pfd = { .fd = *(int *)arg, .events = POLLIN };

	poll(&pfd, 1, 0);
	return NULL;
}

static void c_thread_churn(int fd)
{
	pthread_t th;
	int k;

	for (k = 0; k < 8; k++) {
		if (pthread_create(&th, NULL, c_short_thread, &fd))
			return;
		pthread_join(th, NULL);
	}
	atomic_fetch_add(&sh->threads, 8);
}

/* ACQUIRE/RELEASE pairs on h, more than one ioctl may run: EINTR, go on. */
static void c_long_stream(int fd, __u32 h)
{
	static __u32 cmds[STREAM_PAIRS * 4];	/* the main thread's only */
	struct fbinder_write_read wr = { 0 };
	int k;

	for (k = 0; k < STREAM_PAIRS; k++) {
		cmds[4 * k] = FBINDER_CMD_ACQUIRE;
		cmds[4 * k + 1] = h;
		cmds[4 * k + 2] = FBINDER_CMD_RELEASE;
		cmds[4 * k + 3] = h;
	}
	wr.write_buffer = (uintptr_t)cmds;
	wr.write_size = sizeof(cmds);
	while (wr.write_consumed < wr.write_size) {
		if (ioctl(fd, FBINDER_IOC_WRITE_READ, &wr) == 0)
			continue;
		if (errno != EINTR) {
			if (errno != ENOENT)	/* h's node may be gone */
				bad("long stream", -errno, (long)wr.write_consumed);
			return;
		}
	}
	atomic_fetch_add(&sh->streams, 1);
}

/* The context's own descriptor in flight on a socket pair the process keeps. */
static void c_fd_in_flight(int fd)
{
	char c = 0;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return;
	memset(&u, 0, sizeof(u));
	u.h.cmsg_level = SOL_SOCKET;
	u.h.cmsg_type = SCM_RIGHTS;
	u.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&u.h), &fd, sizeof(int));
	if (sendmsg(sv[0], &mh, 0) == 1)
		atomic_fetch_add(&sh->inflight, 1);
	/* both ends stay open until the process exits or is killed */
}

/*
 * Copies a random part of S's region: its bytes, or the error of a region
 * revoked (EKEYREVOKED) or of an owner killed (EOWNERDEAD) meanwhile.
 */
static void c_region(struct fbt_ctx *p, __u32 hs, struct fbt_rng *rng)
{
	static unsigned char out[REGION_SIZE];
	__u64 off = fbt_rnd(rng, REGION_SIZE), len = fbt_rnd(rng, REGION_SIZE - off) + 1;
	__u64 done = 0, i;
	struct fbt_ret r;
	__u32 h = 0;
	int ret;

	ret = fbt_call(p, hs, C_REGION, NULL, 0, NULL, 0, &r, NULL, NULL);
	c_result(ret, &r, "region");
	if (ret || r.cmd != FBINDER_RET_REPLY)
		return;
	if (r.msg.offsets_count == 1 && fbt_obj(p, &r.msg, 0)->type == FBINDER_OBJ_REGION) {
		h = fbt_obj(p, &r.msg, 0)->handle;
		fbt_acquire(p, h);
	}
	fbt_free_buffer(p, r.msg.data);
	if (!h)
		return;
	ret = fbt_region_copy(p, false, h, off, out, len, &done);
	if (ret && ret != -EKEYREVOKED && ret != -EOWNERDEAD)
		bad("region copy error", ret, 0);
	for (i = 0; i < done; i++)
		if (out[i] != 0x5a) {
			bad("region byte", (long)i, out[i]);
			break;
		}
	fbt_release(p, h);
}

static int c_main(void *arg)
{
	struct fbinder_object me = { .type = FBINDER_OBJ_LOCAL, .cookie = 0xc100 + (intptr_t)arg };
	unsigned char buf[512];
	struct fbt_rng rng;
	struct fbt_ctx p;
	struct fbt_ret r;
	__u32 hs = 0;
	__u64 off = 0;
	unsigned long long next_link = 0xb0000000ULL;
	bool in_flight = false, s_alive = true;
	pthread_t th;
	int ret, i;

	c_idx = (int)(intptr_t)arg;
	fbt_become_nobody();
	fbt_rng_seed(&rng, fbt_mix(seed, round_no * 100 + 10 + c_idx));
	fbt_ctx_open(&p, MB);
	if (pthread_create(&th, NULL, c_looper, &p))
		die("pthread_create");
	if (fbt_call(&p, 0, M_REG, &me, sizeof(me), &off, 1, &r, NULL, NULL) == 0 &&
	    r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&p, r.msg.data);
	for (i = 0; i < 100 && !hs && !atomic_load(&sh->stop); i++) {
		ret = fbt_call(&p, 0, M_GET_S, NULL, 0, NULL, 0, &r, NULL, NULL);
		if (ret || r.cmd != FBINDER_RET_REPLY)
			break;	/* M is gone */
		if (r.msg.offsets_count == 1) {
			hs = fbt_obj(&p, &r.msg, 0)->handle;
			fbt_acquire(&p, hs);
		}
		fbt_free_buffer(&p, r.msg.data);
		if (!hs)
			usleep(5000);
	}
	if (hs) {
		struct fbinder_death d = { .handle = hs, .cookie = 0xdead0000 };
		struct fbt_w w;

		fbt_w_reset(&w);
		fbt_w_cmd(&w, FBINDER_CMD_LINK_DEATH, &d, sizeof(d));
		fbt_wr(&p, &w, NULL, false);
	}
	while (!atomic_load(&sh->stop)) {
		unsigned int op = fbt_rnd(&rng, 15);
		__u32 target = hs;

		if (!hs && op != 11 && op != 13)
			op = 7;	/* peers only */
		switch (op) {
		case 10:
			if (s_alive)
				s_alive = c_link_burst(&p, hs, &next_link);
			break;
		case 11:
			c_thread_churn(p.fd);
			break;
		case 12:
			c_long_stream(p.fd, hs);
			break;
		case 14:
			c_region(&p, target, &rng);
			break;
		case 13:
			if (!in_flight)
				c_fd_in_flight(p.fd);
			in_flight = true;
			break;
		case 0: case 1: {
			size_t n = fbt_rnd(&rng, sizeof(buf));
			__u32 s = (__u32)fbt_rnd64(&rng);

			fbt_fill(buf, n, s);
			ret = fbt_call(&p, target, C_ECHO, buf, n, NULL, 0, &r, NULL, NULL);
			c_result(ret, &r, "echo");
			if (!ret && r.cmd == FBINDER_RET_REPLY) {
				if (r.msg.data_size != n || fbt_verify(fbt_data(&p, &r.msg), n, s) >= 0)
					bad("echo payload", (long)r.msg.data_size, (long)n);
				fbt_free_buffer(&p, r.msg.data);
			}
			break;
		}
		case 2: case 3:
			ret = fbt_call(&p, target, C_NEST, &me, sizeof(me), &off, 1, &r,
				       c_nested, NULL);
			c_result(ret, &r, "nested");
			if (!ret && r.cmd == FBINDER_RET_REPLY)
				fbt_free_buffer(&p, r.msg.data);
			break;
		case 4: {
			struct fbinder_object o[2] = { { .type = FBINDER_OBJ_FD }, { .type = FBINDER_OBJ_FD } };
			__u64 offs[2] = { 0, sizeof(o[0]) };
			int pf[2];

			if (pipe(pf) < 0)
				break;
			o[0].fd = pf[0];
			o[1].fd = pf[1];
			ret = fbt_call_flags(&p, target, C_FD, FBINDER_TXN_ACCEPT_FDS, o, sizeof(o),
					     offs, 2, &r, NULL, NULL);
			close(pf[0]);
			close(pf[1]);
			c_result(ret, &r, "fd");
			if (!ret && r.cmd == FBINDER_RET_REPLY) {
				msg_fds(&p, &r.msg, false);
				atomic_fetch_add(&sh->fds, 1);
				fbt_free_buffer(&p, r.msg.data);
			}
			break;
		}
		case 5: {	/* a oneway flood, 32 per syscall, fds on some */
			struct fbt_w w;
			struct fbinder_object o = { .type = FBINDER_OBJ_FD, .fd = 1 };
			int k, n = 32;

			fbt_w_reset(&w);
			for (k = 0; k < n; k++)
				fbt_w_send(&w, target, C_FLOOD, FBINDER_TXN_ONEWAY, &o, sizeof(o),
					   &off, k % 4 == 0);
			if (!fbt_wr(&p, &w, NULL, false))
				atomic_fetch_add(&sh->oneways, n);
			break;
		}
		case 6:
			ret = fbt_call(&p, target, C_SLOW, NULL, 0, NULL, 0, &r, NULL, NULL);
			c_result(ret, &r, "slow");
			if (!ret && r.cmd == FBINDER_RET_REPLY)
				fbt_free_buffer(&p, r.msg.data);
			break;
		case 7: case 8: case 9: {	/* a peer: call it, link to its death */
			__u32 h = 0;

			ret = fbt_call(&p, 0, M_GET_ANY, NULL, 0, NULL, 0, &r, NULL, NULL);
			if (ret || r.cmd != FBINDER_RET_REPLY) {
				usleep(2000);
				break;
			}
			if (r.msg.offsets_count == 1)
				h = fbt_obj(&p, &r.msg, 0)->handle;
			if (h) {	/* keep it past the free, maybe for good */
				struct fbinder_death d = { .handle = h, .cookie = 0xd0000000ULL + h };
				struct fbt_w w;

				fbt_acquire(&p, h);
				fbt_w_reset(&w);
				fbt_w_cmd(&w, FBINDER_CMD_LINK_DEATH, &d, sizeof(d));
				fbt_wr(&p, &w, NULL, false);
			}
			fbt_free_buffer(&p, r.msg.data);
			if (!h)
				break;
			ret = fbt_call(&p, h, C_PEER, "peer", 4, NULL, 0, &r, NULL, NULL);
			c_result(ret, &r, "peer");
			if (!ret && r.cmd == FBINDER_RET_REPLY)
				fbt_free_buffer(&p, r.msg.data);
			if (fbt_rnd(&rng, 2))
				fbt_release(&p, h);
			break;
		}
		}
	}
	_exit(0);	/* the looper thread goes with the process */
}

/* -------------------------------------------------------------- rounds */

static void run_round(struct fbt_rng *rng)
{
	pid_t pid[NCLIENTS + 2];	/* M, S, clients */
	bool killed[NCLIENTS + 2] = { false };
	const int n = NCLIENTS + 2;
	long long t0, deadline;
	unsigned long long calls0;
	int i, nk = 0, st;

	atomic_store(&sh->stop, 0);
	pid[0] = fbt_spawn_manager(MB, MGR_COOKIE, m_main, NULL);
	pid[1] = fbt_fork(s_main, NULL);
	for (i = 0; i < NCLIENTS; i++)
		pid[2 + i] = fbt_fork(c_main, (void *)(intptr_t)i);

	/*
	 * Let the traffic build up (the first call of the round answered, or
	 * 2 s, longer on a slow kernel: a loaded debug kernel may take that
	 * long to start them), then kill at random moments.
	 */
	calls0 = atomic_load(&sh->calls);
	t0 = fbt_now_ms();
	while (atomic_load(&sh->calls) == calls0 && fbt_now_ms() - t0 < fbt_deadline_ms(2000))
		usleep(5000);
	usleep(1000 * fbt_rnd(rng, 400));
	for (i = 0; i < n; i++) {
		if (fbt_rnd(rng, 100) < 45 || (i == n - 1 && !nk)) {
			kill(pid[i], SIGKILL);
			killed[i] = true;
			nk++;
			usleep(1000 * fbt_rnd(rng, 80));
		}
	}
	usleep(200000);
	atomic_store(&sh->stop, 1);
	/* Survivors must come out of whatever call they were in. */
	t0 = fbt_now_ms();
	deadline = t0 + (long long)(10000 / (fbt_scale() < 1 ? fbt_scale() : 1));
	for (i = 2; i < n; i++) {
		if (killed[i])
			continue;
		while (waitpid(pid[i], &st, WNOHANG) == 0 && fbt_now_ms() < deadline)
			usleep(10000);
		if (fbt_now_ms() >= deadline) {
			CHECK(0, "round %d: client %d hangs after the kills (seed %llu)",
			      round_no, i - 2, (unsigned long long)seed);
			kill(pid[i], SIGKILL);
			fbt_wait(pid[i]);
		} else {
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			      "round %d: client %d status 0x%x", round_no, i - 2, st);
		}
		pid[i] = 0;
	}
	for (i = 0; i < n; i++) {
		if (!pid[i])
			continue;
		kill(pid[i], SIGKILL);
		fbt_wait(pid[i]);
	}
	CHECK(fbt_wait_live_zero(5000) == 0, "round %d: live counts not zero (seed %llu)",
	      round_no, (unsigned long long)seed);
	printf("# round %d: killed %d of %d (%s%s%d client(s)), survivors done in %lld ms\n",
	       round_no, nk, n, killed[0] ? "M, " : "", killed[1] ? "S, " : "",
	       nk - killed[0] - killed[1], fbt_now_ms() - t0);
}

int main(void)
{
	unsigned long rounds = fbt_env_ull("FBINDER_KILLSTORM_ROUNDS", fbt_scaled(12, 3));
	struct fbt_rng rng;
	long long start = fbt_now_ms();

	seed = fbt_seed("FBINDER_KILLSTORM_SEED");
	printf("# killstorm: %lu rounds, seed %llu (replay: FBINDER_KILLSTORM_SEED=%llu)\n", rounds,
	       (unsigned long long)seed, (unsigned long long)seed);
	fbt_rng_seed(&rng, seed);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	memset(sh, 0, sizeof(*sh));
	signal(SIGPIPE, SIG_IGN);
	for (round_no = 1; round_no <= (int)rounds; round_no++)
		run_round(&rng);
	printf("# %llu calls answered, %llu failed by deaths, %llu nested, %llu fd exchanges, %llu oneways, %llu death notices, %.1f s\n",
	       (unsigned long long)sh->calls, (unsigned long long)sh->failed_calls,
	       (unsigned long long)sh->nested, (unsigned long long)sh->fds,
	       (unsigned long long)sh->oneways, (unsigned long long)sh->deaths,
	       (fbt_now_ms() - start) / 1000.0);
	printf("# attacks: %llu bursts of %d death links, %llu threads without THREAD_EXIT, %llu long streams, %llu contexts in flight\n",
	       (unsigned long long)sh->links, LINK_BURST,
	       (unsigned long long)sh->threads, (unsigned long long)sh->streams,
	       (unsigned long long)sh->inflight);
	CHECK(!atomic_load(&sh->bad), "%s (seed %llu)", sh->msg, (unsigned long long)seed);
	CHECK(sh->calls > 0, "no call was answered");
	return fbt_done();
}
