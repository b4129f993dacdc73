// SPDX-License-Identifier: MIT
/*
 * attack_handle_race: a holder races its own RELEASEs and buffer frees,
 * on both vCPUs, against the sends that count its handle.  A handle the
 * receiver already holds, a handle of the receiver's own node, and the
 * sender's own node the receiver holds a handle of, travel without the
 * device lock (driver/txn.c, fbinder_xlate_*_fast()), and
 * a buffer's free drops a handle's count under the holder's lock alone
 * unless it is the last: a count lost or taken twice, or a handle freed
 * while a send counts it, would show here as a wrong count, a handle
 * left behind, or a KASAN report.
 *
 * Processes: M (manager, holds a handle of O's node), O (owner of node
 * OBJ), T (this one, the holder: 65534 like the others).
 *
 *  1. Exact counts: K replies from M carrying its handle of OBJ arrive as
 *     one handle of T's, whose buffer count is K; it goes down by one a
 *     free, an ACQUIRE keeps the handle past the last free, and the
 *     RELEASE then frees it (ENOENT after).  Sent to M, T's handle
 *     arrives as M's own; sent to O, as O's LOCAL object; O's object sent
 *     to T arrives as T's handle, counted.
 *  2. The race, RUN_MS: one thread fetches the handle from M and frees
 *     each reply at once, another ACQUIREs and RELEASEs the id last seen,
 *     a third sends the handle back to O and to M and has O send its
 *     object to T.  At the end no handle of T's is left.
 *  3. The same while O is killed: the handles of a dead node go the same
 *     way.  The live counts return to zero (the suite checks them).
 */
#include "fbt_proto.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x4a4a4a4aULL
#define OBJ		0x0b0b0b0b0b0b0b0bULL	/* O's object */
#define K		20
#define RUN_MS		1500
#define MAX_H		64

enum {
	C_KEEP = 1,	/* M acquires the handle in the message and keeps it */
	C_GIVE,		/* M replies with its handle of OBJ */
	C_MINE,		/* to M: reply 1 if the object is M's own handle of OBJ */
	C_BACK,		/* to O: reply 1 if the object is LOCAL OBJ */
	C_OBJ,		/* to O: reply with LOCAL OBJ */
	C_QUIT,
};

/* ---- M, the manager ---- */

static int m_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_txn_msg *m = &r->msg;
	const struct fbinder_object *o;
	__u32 *held = arg, ok;
	struct fbinder_object obj;
	__u64 off = 0;
	int ret;

	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;	/* a release notice of nothing it owns: none come */
	switch (m->code) {
	case C_KEEP:
		o = m->offsets_count == 1 ? fbt_obj(p, m, 0) : NULL;
		CHECK(o && o->type == FBINDER_OBJ_HANDLE, "M: C_KEEP without a handle");
		if (o && o->type == FBINDER_OBJ_HANDLE) {
			ret = fbt_acquire(p, o->handle);
			CHECK(ret == 0, "M: acquire: %s", strerror(-ret));
			*held = o->handle;
		}
		fbt_reply(p, m, 0, NULL, 0, NULL, 0);
		return 0;
	case C_GIVE:
		obj = (struct fbinder_object){ .type = FBINDER_OBJ_HANDLE, .handle = *held };
		ret = fbt_reply(p, m, 0, &obj, sizeof(obj), &off, 1);
		if (ret)
			fbt_reply(p, m, 1, NULL, 0, NULL, 0);
		return 0;
	case C_MINE:
		o = m->offsets_count == 1 ? fbt_obj(p, m, 0) : NULL;
		ok = o && o->type == FBINDER_OBJ_HANDLE && o->handle == *held;
		fbt_reply(p, m, 0, &ok, sizeof(ok), NULL, 0);
		return 0;
	case C_QUIT:
		fbt_reply(p, m, 0, NULL, 0, NULL, 0);
		return 1;
	}
	fbt_reply(p, m, 1, NULL, 0, NULL, 0);
	return 0;
}

static int m_main(struct fbt_ctx *p, void *arg)
{
	__u32 held = 0;
	int ret;

	(void)arg;
	ret = fbt_serve(p, m_handle, &held);
	CHECK(ret == 0, "M: serve: %s", strerror(-ret));
	return fbt_child_status();
}

/* ---- O, the owner ---- */

static int o_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_txn_msg *m = &r->msg;
	const struct fbinder_object *o;
	__u32 ok;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;	/* OBJ's release notices */
	if (m->code == C_OBJ) {
		struct fbinder_object obj = { .type = FBINDER_OBJ_LOCAL, .cookie = OBJ };
		__u64 off = 0;

		if (fbt_reply(p, m, 0, &obj, sizeof(obj), &off, 1))
			fbt_reply(p, m, 1, NULL, 0, NULL, 0);
		return 0;
	}
	o = m->offsets_count == 1 ? fbt_obj(p, m, 0) : NULL;
	ok = m->code == C_BACK && o && o->type == FBINDER_OBJ_LOCAL && o->cookie == OBJ;
	fbt_reply(p, m, 0, &ok, sizeof(ok), NULL, 0);
	return 0;
}

static pid_t start_owner(void)
{
	int pfd[2];
	pid_t pid;
	char c = 0;

	if (pipe(pfd))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		struct fbinder_object obj = { .type = FBINDER_OBJ_LOCAL, .cookie = OBJ };
		struct fbt_ctx p;
		struct fbt_ret r;
		__u64 off = 0;

		close(pfd[0]);
		fbt_ctx_open(&p, MB);
		if (fbt_call(&p, 0, C_KEEP, &obj, sizeof(obj), &off, 1, &r, NULL, NULL) ||
		    r.cmd != FBINDER_RET_REPLY)
			_exit(3);
		fbt_free_buffer(&p, r.msg.data);
		if (write(pfd[1], &c, 1) != 1)
			_exit(4);
		fbt_serve(&p, o_handle, NULL);
		_exit(fbt_child_status());
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1)
		die("owner did not start");
	close(pfd[0]);
	return pid;
}

/* ---- T ---- */

static struct fbt_ctx tc;
static atomic_uint last_id;
static atomic_bool stop;
static atomic_long gives, gives_failed, acquires, sends_back;

/* T's own handles from FBINDER_INFO_HANDLES: how many, and h's counts. */
static int own_handles(__u32 id, __u32 *refs, __u32 *buf_refs, __u32 *flags)
{
	static struct fbinder_info_handle e[MAX_H];
	struct fbinder_info in = {
		.what = FBINDER_INFO_HANDLES, .entry_size = sizeof(e[0]),
		.count = MAX_H, .entries = (__u64)(uintptr_t)e,
	};
	int n = 0;
	__u32 i;

	if (ioctl(tc.fd, FBINDER_IOC_INFO, &in))
		die("FBINDER_INFO_HANDLES: %s", strerror(errno));
	*refs = *buf_refs = *flags = ~0u;
	for (i = 0; i < in.count; i++) {
		if (e[i].holder_pid != (__u32)getpid())
			continue;
		n++;
		if (e[i].id == id) {
			*refs = e[i].refs;
			*buf_refs = e[i].buffer_refs;
			*flags = e[i].flags;
		}
	}
	return n;
}

/*
 * A call whose reply carries OBJ (C_GIVE to M: M's handle of it; C_OBJ to
 * O: O's LOCAL object): the handle of T's it arrived as, 0 when the call
 * failed.  Its reply buffer goes to *data, or is freed when data is NULL.
 */
static __u32 fetch(struct fbt_ctx *p, __u32 to, __u32 code, __u64 *data)
{
	const struct fbinder_object *o;
	struct fbt_ret r;
	__u32 got = 0;

	if (fbt_call(p, to, code, NULL, 0, NULL, 0, &r, NULL, NULL) ||
	    r.cmd != FBINDER_RET_REPLY)
		return 0;
	if (r.msg.offsets_count == 1) {
		o = fbt_obj(p, &r.msg, 0);
		if (o->type != FBINDER_OBJ_HANDLE || !o->handle)
			die("code %u: OBJ arrived at T as type %u handle %u", code,
			    o->type, o->handle);
		got = o->handle;
	}
	if (got && data)
		*data = r.msg.data;
	else
		fbt_free_buffer(p, r.msg.data);
	return got;
}

static __u32 give(struct fbt_ctx *p, __u64 *data)
{
	return fetch(p, 0, C_GIVE, data);
}

static __u32 obj_from_owner(struct fbt_ctx *p, __u32 h, __u64 *data)
{
	return fetch(p, h, C_OBJ, data);
}

/* T's handle h sent to M (C_MINE) or O (C_BACK): 1 when it arrived right. */
static int send_back(struct fbt_ctx *p, __u32 to, __u32 code, __u32 h)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_HANDLE, .handle = h };
	struct fbt_ret r;
	__u64 off = 0;
	int ok = -1;

	if (fbt_call(p, to, code, &obj, sizeof(obj), &off, 1, &r, NULL, NULL))
		return -1;
	if (r.cmd == FBINDER_RET_REPLY) {
		if (r.msg.data_size == sizeof(__u32))
			ok = *(const __u32 *)fbt_data(p, &r.msg);
		fbt_free_buffer(p, r.msg.data);
	}
	return ok;
}

static void *giver(void *arg)
{
	struct fbt_ctx p;
	__u64 data;
	__u32 h;

	(void)arg;
	fbt_ctx_attach(&p, &tc);
	while (!atomic_load(&stop)) {
		h = give(&p, &data);
		if (!h) {
			atomic_fetch_add(&gives_failed, 1);
			continue;
		}
		atomic_store(&last_id, h);
		atomic_fetch_add(&gives, 1);
		if (fbt_free_buffer(&p, data))
			die("free of a reply failed");
	}
	return NULL;
}

static void *holder(void *arg)
{
	struct fbt_ctx p;
	__u32 h;

	(void)arg;
	fbt_ctx_attach(&p, &tc);
	while (!atomic_load(&stop)) {
		h = atomic_load(&last_id);
		if (h && fbt_acquire(&p, h) == 0) {
			atomic_fetch_add(&acquires, 1);
			if (fbt_release(&p, h))
				die("RELEASE after a good ACQUIRE of %u failed", h);
		}
	}
	return NULL;
}

static void *sender(void *arg)
{
	struct fbt_ctx p;
	__u64 data;
	__u32 h;

	(void)arg;
	fbt_ctx_attach(&p, &tc);
	while (!atomic_load(&stop)) {
		/* its own reference for the sends, raced by the other two */
		h = give(&p, &data);
		if (!h)
			continue;
		if (send_back(&p, 0, C_MINE, h) == 0)
			die("T's handle %u arrived at M as another than M's own", h);
		/* O too, while it lives; then the handle names a dead node */
		if (send_back(&p, h, C_BACK, h) == 0)
			die("T's handle %u arrived at O as another than LOCAL OBJ", h);
		/* O's own node back: T's handle, counted without the device lock */
		obj_from_owner(&p, h, NULL);
		if (fbt_free_buffer(&p, data))
			die("free of a reply failed");
		atomic_fetch_add(&sends_back, 1);
	}
	return NULL;
}

/*
 * Runs the three threads for RUN_MS (killing kill_pid a third of the way
 * through), then checks that T holds no handle.
 */
static void race(const char *what, pid_t kill_pid)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 50 * 1000 * 1000 };
	__u32 refs, bufs, flags;
	pthread_t th[3];
	int i, n = -1;

	atomic_store(&stop, false);
	atomic_store(&gives, 0);
	atomic_store(&gives_failed, 0);
	atomic_store(&acquires, 0);
	atomic_store(&sends_back, 0);
	pthread_create(&th[0], NULL, giver, NULL);
	pthread_create(&th[1], NULL, holder, NULL);
	pthread_create(&th[2], NULL, sender, NULL);
	if (kill_pid > 0) {
		usleep(RUN_MS * 1000 / 3);
		kill(kill_pid, SIGKILL);
		waitpid(kill_pid, NULL, 0);
		usleep(RUN_MS * 1000 * 2 / 3);
	} else {
		usleep(RUN_MS * 1000);
	}
	/* a slow kernel (KASAN) gets up to 12 s more for a few rounds of each */
	for (i = 0; i < 120 && (atomic_load(&sends_back) < 20 || atomic_load(&gives) < 100); i++)
		usleep(100 * 1000);
	atomic_store(&stop, true);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("# %s: %ld handles received (%ld failed), %ld acquires, %ld sends back\n",
	       what, atomic_load(&gives), atomic_load(&gives_failed),
	       atomic_load(&acquires), atomic_load(&sends_back));
	CHECK(atomic_load(&gives) >= 100 && atomic_load(&acquires) > 10 &&
	      atomic_load(&sends_back) >= 20, "%s: too little traffic to race", what);
	/* every free and release done: nothing may hold the handle */
	for (i = 0; i < 20 && n; i++) {
		n = own_handles(atomic_load(&last_id), &refs, &bufs, &flags);
		if (n)
			nanosleep(&ts, NULL);
	}
	CHECK(n == 0, "%s: T still holds %d handles (last: refs %u, buffer refs %u)",
	      what, n, refs, bufs);
}

int main(void)
{
	__u32 h = 0, h2, refs, bufs, flags;
	struct fbt_ret r;
	__u64 data[K + 1];
	pid_t mpid, opid;
	int i, n;

	alarm(55);
	mpid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, m_main, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	opid = start_owner();
	fbt_ctx_open(&tc, MB);

	/* 1. exact counts */
	for (i = 0; i < K; i++) {
		h2 = give(&tc, &data[i]);
		CHECK(h2 && (!i || h2 == h), "give %d: handle %u, want %u", i, h2, h);
		if (!i)
			h = h2;
	}
	n = own_handles(h, &refs, &bufs, &flags);
	CHECK(n == 1 && refs == 0 && bufs == K,
	      "after %d replies: %d handles, refs %u buffer refs %u (want 1, 0, %d)",
	      K, n, refs, bufs, K);
	CHECK(send_back(&tc, 0, C_MINE, h) == 1, "T's handle did not reach M as M's own");
	CHECK(send_back(&tc, h, C_BACK, h) == 1, "T's handle did not reach O as LOCAL OBJ");
	h2 = obj_from_owner(&tc, h, &data[K]);
	CHECK(h2 == h, "O's LOCAL OBJ arrived as handle %u, want %u", h2, h);
	n = own_handles(h, &refs, &bufs, &flags);
	CHECK(n == 1 && refs == 0 && bufs == K + 1,
	      "after O's reply too: %d handles, refs %u buffer refs %u (want 1, 0, %d)",
	      n, refs, bufs, K + 1);
	CHECK(fbt_free_buffer(&tc, data[K]) == 0, "free of O's reply");
	for (i = 0; i < K - 1; i++)
		CHECK(fbt_free_buffer(&tc, data[i]) == 0, "free %d", i);
	n = own_handles(h, &refs, &bufs, &flags);
	CHECK(n == 1 && refs == 0 && bufs == 1,
	      "after %d frees: %d handles, refs %u buffer refs %u (want 1, 0, 1)",
	      K - 1, n, refs, bufs);
	CHECK(fbt_acquire(&tc, h) == 0, "acquire %u", h);
	CHECK(fbt_free_buffer(&tc, data[K - 1]) == 0, "last free");
	n = own_handles(h, &refs, &bufs, &flags);
	CHECK(n == 1 && refs == 1 && bufs == 0,
	      "after the last free: %d handles, refs %u buffer refs %u (want 1, 1, 0)",
	      n, refs, bufs);
	CHECK(fbt_release(&tc, h) == 0, "release %u", h);
	n = own_handles(h, &refs, &bufs, &flags);
	CHECK(n == 0, "after the release: %d handles", n);
	CHECK(fbt_acquire(&tc, h) == -ENOENT, "acquire of the freed %u: not ENOENT", h);

	/* 2. the race, 3. the same while O dies */
	atomic_store(&last_id, 0);
	race("race", 0);
	race("race with the owner's death", opid);

	if (fbt_call(&tc, 0, C_QUIT, NULL, 0, NULL, 0, &r, NULL, NULL) == 0 &&
	    r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&tc, r.msg.data);
	CHECK(waitpid(mpid, &n, 0) == mpid && WIFEXITED(n) && !WEXITSTATUS(n),
	      "manager exit status 0x%x", n);
	fbt_ctx_close(&tc);
	return fbt_child_status();
}
