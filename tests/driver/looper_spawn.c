// SPDX-License-Identifier: MIT
/*
 * looper_spawn: the thread pool.  With SET_MAX_THREADS 2 and its one looper
 * busy, the server process receives FBINDER_RET_SPAWN_LOOPER; the thread it
 * starts registers and takes the next call; with both busy it is asked once
 * more, and never beyond the maximum.  FBINDER_IOC_THREAD_EXIT of a thread that
 * handles a call fails that call to its caller with EOWNERDEAD.  Looper
 * commands out of order are EINVAL.
 */
#include "fbt_proto.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x100feULL
#define NBUSY		3	/* 1 entered looper + 2 spawned */

enum { C_BLOCK = 1, C_STATUS, C_EXIT_THREAD, C_PING, C_QUIT };

/* ---- S ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int arrived, spawns;	/* C_BLOCK calls so far; spawn requests */
static struct fbt_ctx *sctx;

static void *s_looper(void *arg);

static void s_spawn(void)
{
	pthread_t th;

	pthread_mutex_lock(&lock);
	spawns++;
	pthread_mutex_unlock(&lock);
	if (pthread_create(&th, NULL, s_looper, (void *)1))
		die("pthread_create");
	pthread_detach(th);
}

/*
 * C_BLOCK: hold the call until all NBUSY calls of its round are held at
 * once (or 8 s pass).  Returns whether they were.
 */
static __u32 s_block(void)
{
	struct timespec until;
	int target;
	__u32 reached;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 8;
	pthread_mutex_lock(&lock);
	target = (arrived / NBUSY + 1) * NBUSY;
	arrived++;
	pthread_cond_broadcast(&cond);
	while (arrived < target &&
	       pthread_cond_timedwait(&cond, &lock, &until) == 0)
		;
	reached = arrived >= target;
	pthread_mutex_unlock(&lock);
	return reached;
}

static int s_handle(struct fbt_ctx *t, const struct fbt_ret *r)
{
	const struct fbinder_txn_msg *m = &r->msg;
	struct fbt_w w;
	__u32 v;
	int ret;

	if (r->cmd != FBINDER_RET_TRANSACTION) {
		CHECK(0, "S got %s", fbt_ret_name(r->cmd));
		return 0;
	}
	switch (m->code) {
	case C_BLOCK:
		v = s_block();
		fbt_reply(t, m, 0, &v, sizeof(v), NULL, 0);
		return 0;
	case C_STATUS:
		pthread_mutex_lock(&lock);
		v = spawns;
		pthread_mutex_unlock(&lock);
		fbt_reply(t, m, 0, &v, sizeof(v), NULL, 0);
		return 0;
	case C_EXIT_THREAD:
		CHECK(fbt_free_buffer(t, m->data) == 0, "S: free");
		ret = ioctl(t->fd, FBINDER_IOC_THREAD_EXIT);
		CHECK(ret == 0, "S: THREAD_EXIT while handling a call: %s", strerror(errno));
		/* Forgotten: this thread is new to the driver, and joins the pool again. */
		fbt_w_reset(&w);
		fbt_w_cmd(&w, FBINDER_CMD_ENTER_LOOPER, NULL, 0);
		ret = fbt_wr(t, &w, NULL, false);
		CHECK(ret == 0, "S: ENTER_LOOPER after THREAD_EXIT: %s", strerror(-ret));
		return 0;
	case C_PING:
		fbt_reply(t, m, 0, "pong", 4, NULL, 0);
		return 0;
	case C_QUIT:
		fbt_reply(t, m, 0, NULL, 0, NULL, 0);
		return 1;
	}
	CHECK(0, "S: code %u", m->code);
	return 0;
}

/* cppcheck-suppress constParameter ; a pthread start routine */
static void *s_looper(void *arg)
{
	struct fbt_ctx *t = fbt_ctx_thread(sctx, false);
	struct fbt_ret batch[64];
	struct fbt_w w;
	int i, n, ret;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, arg ? FBINDER_CMD_REGISTER_LOOPER : FBINDER_CMD_ENTER_LOOPER, NULL, 0);
	ret = fbt_wr(t, &w, NULL, false);
	CHECK(ret == 0, "S: %s: %s", arg ? "REGISTER_LOOPER" : "ENTER_LOOPER", strerror(-ret));
	for (;;) {
		ret = fbt_wr(t, NULL, NULL, true);
		if (ret) {
			errno = -ret;
			die("S: read");
		}
		/* Spawn requests first: a call of the same read may block this thread. */
		for (n = 0; t->qlen && n < 64; n++)
			fbt_next(t, &batch[n]);
		for (i = 0; i < n; i++)
			if (batch[i].cmd == FBINDER_RET_SPAWN_LOOPER)
				s_spawn();
		for (i = 0; i < n; i++)
			if (batch[i].cmd != FBINDER_RET_SPAWN_LOOPER && s_handle(t, &batch[i])) {
				/* C_QUIT, on whichever thread: the process ends here. */
				fflush(NULL);
				_exit(fbt_child_status());
			}
	}
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	__u32 max = 2;

	(void)arg;
	alarm(40);
	sctx = p;
	CHECK(ioctl(p->fd, FBINDER_IOC_SET_MAX_THREADS, &max) == 0, "S: SET_MAX_THREADS 2: %s",
	      strerror(errno));
	s_looper(NULL);	/* exits the process on C_QUIT */
	return 1;
}

/* ---- A ---- */

struct blocker {
	pthread_t th;
	const struct fbt_ctx *ctx;
	int ret;
	struct fbt_ret r;
	__u32 reached;
};

static void *blocker(void *arg)
{
	struct blocker *b = arg;
	struct fbt_ctx *t = fbt_ctx_thread(b->ctx, false);

	b->ret = fbt_call(t, 0, C_BLOCK, NULL, 0, NULL, 0, &b->r, NULL, NULL);
	if (!b->ret && b->r.cmd == FBINDER_RET_REPLY) {
		memcpy(&b->reached, fbt_data(t, &b->r.msg), sizeof(b->reached));
		fbt_free_buffer(t, b->r.msg.data);
	}
	free(t);
	return NULL;
}

static void round_of_blocks(struct fbt_ctx *c, int round)
{
	struct blocker b[NBUSY];
	int i;

	for (i = 0; i < NBUSY; i++) {
		b[i] = (struct blocker){ .ctx = c, .ret = 1 };
		if (pthread_create(&b[i].th, NULL, blocker, &b[i]))
			die("pthread_create");
	}
	for (i = 0; i < NBUSY; i++) {
		pthread_join(b[i].th, NULL);
		CHECK(b[i].ret == 0 && b[i].r.cmd == FBINDER_RET_REPLY && b[i].reached,
		      "round %d call %d: %s %s, %s", round, i, strerror(-b[i].ret),
		      fbt_ret_name(b[i].r.cmd),
		      b[i].reached ? "all held at once" : "S never had 3 threads busy at once");
	}
}

static __u32 call_u32(struct fbt_ctx *c, __u32 code)
{
	struct fbt_ret r;
	__u32 v = ~0u;
	int ret = fbt_call(c, 0, code, NULL, 0, NULL, 0, &r, NULL, NULL);

	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "call %u: %s %s", code, strerror(-ret),
	      fbt_ret_name(r.cmd));
	if (!ret && r.cmd == FBINDER_RET_REPLY) {
		if (r.msg.data_size >= 4)
			memcpy(&v, fbt_data(c, &r.msg), 4);
		fbt_free_buffer(c, r.msg.data);
	}
	return v;
}

static int looper_cmd(struct fbt_ctx *c, __u32 cmd)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, cmd, NULL, 0);
	return fbt_wr(c, &w, NULL, false);
}

static void test_looper_commands(void)
{
	struct fbt_ctx c;
	int ret;

	fbt_ctx_open(&c, MB);
	ret = looper_cmd(&c, FBINDER_CMD_EXIT_LOOPER);
	CHECK(ret == -EINVAL, "EXIT_LOOPER before entering: %s, want EINVAL", strerror(-ret));
	ret = looper_cmd(&c, FBINDER_CMD_ENTER_LOOPER);
	CHECK(ret == 0, "ENTER_LOOPER: %s", strerror(-ret));
	ret = looper_cmd(&c, FBINDER_CMD_ENTER_LOOPER);
	CHECK(ret == -EINVAL, "ENTER_LOOPER twice: %s, want EINVAL", strerror(-ret));
	ret = looper_cmd(&c, FBINDER_CMD_EXIT_LOOPER);
	CHECK(ret == 0, "EXIT_LOOPER: %s", strerror(-ret));
	ret = looper_cmd(&c, FBINDER_CMD_EXIT_LOOPER);
	CHECK(ret == -EINVAL, "EXIT_LOOPER twice: %s, want EINVAL", strerror(-ret));
	ret = ioctl(c.fd, FBINDER_IOC_THREAD_EXIT);
	CHECK(ret == 0, "THREAD_EXIT of an idle thread: %s", strerror(errno));
	fbt_ctx_close(&c);
	printf("# looper commands out of order: EINVAL\n");
}

int main(void)
{
	struct fbt_ctx c;
	struct fbt_ret r;
	pid_t spid;
	__u32 n;
	int ret;

	alarm(40);
	spid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, s_main, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	test_looper_commands();
	fbt_ctx_open(&c, MB);

	round_of_blocks(&c, 1);
	n = call_u32(&c, C_STATUS);
	CHECK(n == 2, "S was asked for %u loopers, want 2 (max 2, both needed)", n);
	round_of_blocks(&c, 2);
	n = call_u32(&c, C_STATUS);
	CHECK(n == 2, "after a second round S was asked for %u loopers, want still 2", n);
	printf("# spawn requests: %u\n", n);

	ret = fbt_call(&c, 0, C_EXIT_THREAD, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_FAILED && r.err.error == -EOWNERDEAD,
	      "call whose handler did THREAD_EXIT: %s %s error %d, want FBINDER_RET_FAILED -EOWNERDEAD",
	      strerror(-ret), fbt_ret_name(r.cmd), r.err.error);
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	ret = fbt_call(&c, 0, C_PING, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "call after THREAD_EXIT: %s %s",
	      strerror(-ret), fbt_ret_name(r.cmd));
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);

	ret = fbt_call(&c, 0, C_QUIT, NULL, 0, NULL, 0, &r, NULL, NULL);
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	CHECK(fbt_wait(spid) == 0, "S reported failures");
	fbt_ctx_close(&c);
	return fbt_done();
}
