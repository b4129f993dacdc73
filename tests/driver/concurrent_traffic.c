// SPDX-License-Identifier: MIT
/*
 * concurrent_traffic: 4 worker processes x 4 client threads (plus 2 looper
 * threads each) and a 4-thread manager, for a bounded time (~6 s): sync
 * calls to the manager and to each other's objects, oneways to each other,
 * objects passed along (own objects and third parties' handles).  Every
 * reply's content is checked, every object arrives translated for its
 * receiver, every sender's oneways arrive in order without gaps, no two
 * messages (sent from both vCPUs at once) carry the same transaction ID,
 * and the live counts return to zero at the end.
 */
#include "fbt_proto.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define NW		4	/* worker processes */
#define NT		4	/* client threads per worker */
#define NL		2	/* looper threads per worker */
#define ML		5	/* manager looper threads (4 may wait at a barrier) */
#define RUN_MS		6000
#define MGR_COOKIE	0x57e55ULL
#define WCOOKIE(w)	(0xc0c0000000ULL + (w))
#define MAGIC		0x5eed5eedu
#define RMAGIC		0x4e9154e9u
#define NOOBJ		0xffffffffu
#define MAXPAT		1500

enum { C_REGISTER = 1, C_LOOKUP, C_ECHO, C_ONE, C_BARRIER };

struct hdr {
	__u32 magic, from_w, from_t, seq;
	__u32 size;		/* pattern bytes after the header (and object) */
	__u32 obj_owner;	/* worker owning the embedded object, or NOOBJ */
	__u32 pad[2];
};				/* the object, if any, follows at offset 32 */

struct rep {
	__u32 magic, seq, size, pad;
};

static __u32 seed_of(const struct hdr *h)
{
	return h->from_w << 24 ^ h->from_t << 16 ^ h->seq;
}

/* The IDs of the first MAXIDS calls and oneways received, by every process. */
#define MAXIDS		(1 << 17)
static struct seen_ids {
	_Atomic unsigned int n;
	__u64 id[MAXIDS];
} *seen;

static void note_id(__u64 id)
{
	unsigned int i = atomic_fetch_add(&seen->n, 1);

	if (i < MAXIDS)
		seen->id[i] = id;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

/* Every ID noted differs from every other. */
static void check_ids_unique(void)
{
	unsigned int i, n = atomic_load(&seen->n);

	if (n > MAXIDS)
		n = MAXIDS;
	qsort(seen->id, n, sizeof(seen->id[0]), cmp_u64);
	for (i = 1; i < n; i++)
		if (seen->id[i] == seen->id[i - 1])
			break;
	CHECK(i >= n, "transaction IDs: %llu came twice (%u noted)",
	      (unsigned long long)seen->id[i], n);
	/* the run is timed: a debug kernel on a loaded host makes a few hundred */
	CHECK(n > 200, "only %u transaction IDs noted", n);
	if (i >= n)
		printf("# %u transaction IDs, all different\n", n);
}

/* Check a call or oneway; returns the pattern size or -1.  me: receiving worker or -1 (M). */
static long check_msg(const struct fbt_ctx *p, const struct fbinder_txn_msg *m, int me,
		      const __u32 *table)
{
	const unsigned char *d = fbt_data(p, m);
	struct hdr h;
	size_t off;

	note_id(m->txn_id);

	if (m->data_size < sizeof(h)) {
		CHECK(0, "message of %llu bytes", (unsigned long long)m->data_size);
		return -1;
	}
	memcpy(&h, d, sizeof(h));
	off = sizeof(h) + (h.obj_owner != NOOBJ ? sizeof(struct fbinder_object) : 0);
	if (h.magic != MAGIC || h.size > MAXPAT || m->data_size != off + h.size) {
		CHECK(0, "bad message: magic 0x%x size %u data_size %llu", h.magic, h.size,
		      (unsigned long long)m->data_size);
		return -1;
	}
	if (fbt_verify(d + off, h.size, seed_of(&h)) >= 0) {
		CHECK(0, "payload from %u/%u seq %u corrupted", h.from_w, h.from_t, h.seq);
		return -1;
	}
	if (h.obj_owner != NOOBJ) {
		const struct fbinder_object *o;

		if (m->offsets_count != 1) {
			CHECK(0, "message with an object has %llu offsets",
			      (unsigned long long)m->offsets_count);
			return -1;
		}
		o = fbt_obj(p, m, 0);
		if ((int)h.obj_owner == me)
			CHECK(o->type == FBINDER_OBJ_LOCAL && o->cookie == WCOOKIE(me),
			      "worker %d: own object arrived as type %u value 0x%llx", me,
			      o->type, (unsigned long long)o->cookie);
		else
			CHECK(o->type == FBINDER_OBJ_HANDLE && o->handle == table[h.obj_owner],
			      "worker %d: worker %u's object arrived as type %u handle %u, want handle %u",
			      me, h.obj_owner, o->type, o->handle, table[h.obj_owner]);
	} else {
		CHECK(m->offsets_count == 0, "message without object has offsets");
	}
	return h.size;
}

static int reply_echo(struct fbt_ctx *p, const struct fbinder_txn_msg *m, long size)
{
	static __thread unsigned char out[sizeof(struct rep) + MAXPAT];
	struct hdr h;
	struct rep r = { .magic = RMAGIC, .size = size < 0 ? 0 : size };

	memcpy(&h, fbt_data(p, m), sizeof(h));
	r.seq = h.seq;
	memcpy(out, &r, sizeof(r));
	fbt_fill(out + sizeof(r), r.size, seed_of(&h) ^ 0xffff);
	return fbt_reply(p, m, size < 0, out, sizeof(r) + r.size, NULL, 0);
}

/* ---- the manager ---- */

static pthread_mutex_t m_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mcond = PTHREAD_COND_INITIALIZER;
static __u32 mtable[NW];
static int at_barrier[2], left_barrier;
static struct fbt_ctx *mctx;

static int m_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_txn_msg *m = &r->msg;
	struct fbinder_object o = { .type = FBINDER_OBJ_HANDLE };
	__u64 off = 0;
	__u32 w = 0;
	int ret;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION) {
		CHECK(0, "M got %s", fbt_ret_name(r->cmd));
		return 0;
	}
	if (m->code != C_ECHO && m->data_size >= 4)
		memcpy(&w, fbt_data(p, m), 4);
	switch (m->code) {
	case C_REGISTER:
		CHECK(w < NW && m->offsets_count == 1 && fbt_obj(p, m, 0)->type == FBINDER_OBJ_HANDLE,
		      "M: bad register");
		o.handle = fbt_obj(p, m, 0)->handle;
		CHECK(fbt_acquire(p, o.handle) == 0, "M: acquire");
		pthread_mutex_lock(&m_lock);
		mtable[w % NW] = o.handle;
		pthread_mutex_unlock(&m_lock);
		fbt_reply(p, m, 0, NULL, 0, NULL, 0);
		return 0;
	case C_LOOKUP:
		pthread_mutex_lock(&m_lock);
		o.handle = mtable[w % NW];
		pthread_mutex_unlock(&m_lock);
		if (!o.handle)
			fbt_reply(p, m, 1, NULL, 0, NULL, 0);	/* not yet */
		else
			fbt_reply(p, m, 0, &o, sizeof(o), &off, 1);
		return 0;
	case C_ECHO:
		ret = reply_echo(p, m, check_msg(p, m, -1, NULL));
		CHECK(ret == 0, "M: echo reply: %s", strerror(-ret));
		return 0;
	case C_BARRIER:	/* w is the phase: 0 start, 1 end */
		w &= 1;
		pthread_mutex_lock(&m_lock);
		at_barrier[w]++;
		pthread_cond_broadcast(&mcond);
		while (at_barrier[w] < NW)
			pthread_cond_wait(&mcond, &m_lock);
		pthread_mutex_unlock(&m_lock);
		fbt_reply(p, m, 0, NULL, 0, NULL, 0);
		pthread_mutex_lock(&m_lock);
		if (w == 1 && ++left_barrier == NW) {
			fflush(NULL);
			_exit(fbt_child_status());
		}
		pthread_mutex_unlock(&m_lock);
		return 0;
	}
	CHECK(0, "M: code %u", m->code);
	return 0;
}

static void *m_looper(void *arg)
{
	struct fbt_ctx *t = malloc(sizeof(*t));
	struct fbt_w w;

	(void)arg;
	if (!t)
		die("malloc");
	fbt_ctx_attach(t, mctx);
	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_ENTER_LOOPER, NULL, 0);
	CHECK(fbt_wr(t, &w, NULL, false) == 0, "M: ENTER_LOOPER");
	fbt_serve(t, m_handle, NULL);
	die("M: looper ended");
}

static int m_main(struct fbt_ctx *p, void *arg)
{
	pthread_t th;
	int i;

	(void)arg;
	alarm(50);
	mctx = p;
	for (i = 1; i < ML; i++)
		if (pthread_create(&th, NULL, m_looper, NULL))
			die("pthread_create");
	m_looper(NULL);
	return 1;
}

/* ---- a worker ---- */

static int me;
static struct fbt_ctx wctx;
static __u32 table[NW];		/* my handles of the workers' objects */
static long long deadline;
static pthread_mutex_t olock = PTHREAD_MUTEX_INITIALIZER;
static __u32 last_seq[NW][NT];	/* oneways received, per sender thread */
static unsigned long stat_calls, stat_oneways, stat_objs, stat_busy;
static int ending;		/* at the end barrier: releases may come */

static int w_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_txn_msg *m = &r->msg;
	struct hdr h;
	long size;
	int ret;

	(void)arg;
	/*
	 * Once everyone is at the end barrier, the others and the manager
	 * may exit and drop the last references to our object: its release
	 * notice is then expected, and nothing else.
	 */
	if (r->cmd == FBINDER_RET_RELEASE && __atomic_load_n(&ending, __ATOMIC_ACQUIRE) &&
	    r->rel.cookie == WCOOKIE(me))
		return 0;
	if (r->cmd != FBINDER_RET_TRANSACTION) {
		CHECK(0, "worker %d got %s", me, fbt_ret_name(r->cmd));
		return 0;
	}
	CHECK(m->cookie == WCOOKIE(me), "worker %d: call to cookie 0x%llx", me,
	      (unsigned long long)m->cookie);
	size = check_msg(p, m, me, table);
	if (m->code == C_ONE) {
		CHECK(m->flags & FBINDER_TXN_ONEWAY, "C_ONE not oneway");
		if (size >= 0) {
			memcpy(&h, fbt_data(p, m), sizeof(h));
			pthread_mutex_lock(&olock);
			if (h.from_w < NW && h.from_t < NT) {
				CHECK(h.seq == last_seq[h.from_w][h.from_t] + 1,
				      "worker %d: oneway from %u/%u seq %u after %u (order or loss)",
				      me, h.from_w, h.from_t, h.seq, last_seq[h.from_w][h.from_t]);
				last_seq[h.from_w][h.from_t] = h.seq;
			}
			pthread_mutex_unlock(&olock);
		}
		fbt_free_buffer(p, m->data);	/* after the check: the next one waits for this */
		return 0;
	}
	ret = reply_echo(p, m, size);
	CHECK(ret == 0, "worker %d: echo reply: %s", me, strerror(-ret));
	return 0;
}

static void *w_looper(void *arg)
{
	struct fbt_ctx *t = malloc(sizeof(*t));
	struct fbt_w w;

	(void)arg;
	if (!t)
		die("malloc");
	fbt_ctx_attach(t, &wctx);
	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_ENTER_LOOPER, NULL, 0);
	CHECK(fbt_wr(t, &w, NULL, false) == 0, "worker: ENTER_LOOPER");
	fbt_serve(t, w_handle, NULL);
	die("worker looper ended");
}

static __u32 xrand(__u32 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void *w_client(void *arg)
{
	static __thread unsigned char buf[sizeof(struct hdr) + 16 + MAXPAT];
	__u32 tid = (uintptr_t)arg, rnd = 0x9e3779b9u * (me * NT + tid + 1), seq[NW] = { 0 };
	__u32 callseq = 0;
	struct fbt_ctx *t = fbt_ctx_thread(&wctx, false);
	unsigned long calls = 0, ones = 0, objs = 0, busy = 0;

	while (fbt_now_ms() < deadline && !fbt_failures) {
		__u32 op = xrand(&rnd) % 4, peer = xrand(&rnd) % NW, q = xrand(&rnd) % NW;
		struct hdr h = { .magic = MAGIC, .from_w = me, .from_t = tid,
				 .size = xrand(&rnd) % MAXPAT, .obj_owner = NOOBJ };
		struct fbt_ret r;
		__u32 handle = 0;
		__u64 off = sizeof(h);
		size_t len;
		int ret;

		if (peer == (__u32)me)
			peer = (peer + 1) % NW;
		if (op >= 1)
			handle = table[peer];
		if (op == 3) {
			struct fbinder_object o;

			h.obj_owner = q;
			if (q == (__u32)me)
				o = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = WCOOKIE(me) };
			else
				o = (struct fbinder_object){ .type = FBINDER_OBJ_HANDLE, .handle = table[q] };
			memcpy(buf + sizeof(h), &o, sizeof(o));
			objs++;
		}
		h.seq = op == 2 ? seq[peer] + 1 : ++callseq;
		memcpy(buf, &h, sizeof(h));
		len = sizeof(h) + (op == 3 ? sizeof(struct fbinder_object) : 0);
		fbt_fill(buf + len, h.size, seed_of(&h));
		len += h.size;

		if (op == 2) {
			ret = fbt_oneway(t, handle, C_ONE, buf, len, NULL, 0);
			if (ret == -ENOSPC || ret == -EDQUOT) {
				busy++;	/* back pressure: nothing was queued */
				usleep(1000);
				continue;
			}
			CHECK(ret == 0, "worker %d/%u: oneway to %u: %s", me, tid, peer, strerror(-ret));
			if (!ret)
				seq[peer]++;
			ones++;
			continue;
		}
		ret = fbt_call(t, handle, C_ECHO, buf, len, op == 3 ? &off : NULL, op == 3,
			       &r, NULL, NULL);
		if (ret == -ENOSPC) {
			busy++;
			usleep(1000);
			continue;
		}
		CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "worker %d/%u: call op %u to %u: %s %s (%d)",
		      me, tid, op, peer, strerror(-ret), fbt_ret_name(r.cmd),
		      r.cmd == FBINDER_RET_FAILED ? r.err.error : 0);
		if (ret || r.cmd != FBINDER_RET_REPLY)
			continue;
		calls++;
		{
			const unsigned char *d = fbt_data(t, &r.msg);
			struct rep rp = { 0 };

			if (r.msg.data_size >= sizeof(rp))
				memcpy(&rp, d, sizeof(rp));
			CHECK(r.msg.code == 0 && rp.magic == RMAGIC && rp.seq == h.seq &&
			      rp.size == h.size && r.msg.data_size == sizeof(rp) + h.size &&
			      fbt_verify(d + sizeof(rp), h.size, seed_of(&h) ^ 0xffff) < 0,
			      "worker %d/%u: reply to op %u seq %u wrong (code %u, %llu bytes, seq %u)",
			      me, tid, op, h.seq, r.msg.code, (unsigned long long)r.msg.data_size,
			      rp.seq);
		}
		CHECK(fbt_free_buffer(t, r.msg.data) == 0, "free reply");
	}
	pthread_mutex_lock(&olock);
	stat_calls += calls;
	stat_oneways += ones;
	stat_objs += objs;
	stat_busy += busy;
	pthread_mutex_unlock(&olock);
	free(t);
	return NULL;
}

static int worker(void *arg)
{
	struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL };
	pthread_t th[NL + NT];
	struct fbt_ret r;
	__u64 off;
	__u32 buf[6], phase;
	int i, ret;

	me = (int)(uintptr_t)arg;
	alarm(50);
	fbt_ctx_open(&wctx, MB);
	for (i = 0; i < NL; i++)
		if (pthread_create(&th[i], NULL, w_looper, NULL))
			die("pthread_create");

	/* Register my object, then look up everyone's. */
	o.cookie = WCOOKIE(me);
	buf[0] = me;
	buf[1] = 0;
	memcpy(&buf[2], &o, sizeof(o));
	off = 8;
	ret = fbt_call(&wctx, 0, C_REGISTER, buf, 8 + sizeof(o), &off, 1, &r, NULL, NULL);
	if (ret || r.cmd != FBINDER_RET_REPLY)
		die("worker %d: register: %s %s", me, strerror(-ret), fbt_ret_name(r.cmd));
	fbt_free_buffer(&wctx, r.msg.data);
	for (i = 0; i < NW; i++) {
		__u32 w = i;

		if (i == me)
			continue;
		for (;;) {
			ret = fbt_call(&wctx, 0, C_LOOKUP, &w, 4, NULL, 0, &r, NULL, NULL);
			if (ret || r.cmd != FBINDER_RET_REPLY)
				die("worker %d: lookup: %s", me, strerror(-ret));
			if (r.msg.code == 0)
				break;
			fbt_free_buffer(&wctx, r.msg.data);
			usleep(5000);
		}
		CHECK(r.msg.offsets_count == 1 && fbt_obj(&wctx, &r.msg, 0)->type == FBINDER_OBJ_HANDLE,
		      "worker %d: lookup of %d gave no handle", me, i);
		table[i] = fbt_obj(&wctx, &r.msg, 0)->handle;
		CHECK(fbt_acquire(&wctx, table[i]) == 0, "worker %d: acquire", me);
		fbt_free_buffer(&wctx, r.msg.data);
	}

	/* Everyone holds everyone's handle before objects start travelling. */
	phase = 0;
	ret = fbt_call(&wctx, 0, C_BARRIER, &phase, 4, NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "worker %d: start barrier: %s", me, strerror(-ret));
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&wctx, r.msg.data);

	for (i = 0; i < NT; i++)
		if (pthread_create(&th[NL + i], NULL, w_client, (void *)(uintptr_t)i))
			die("pthread_create");
	for (i = 0; i < NT; i++)
		pthread_join(th[NL + i], NULL);

	/* Everyone's clients are done once the barrier opens; then leave. */
	phase = 1;
	__atomic_store_n(&ending, 1, __ATOMIC_RELEASE);
	ret = fbt_call(&wctx, 0, C_BARRIER, &phase, 4, NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "worker %d: end barrier: %s", me, strerror(-ret));
	printf("# worker %d: %lu calls, %lu oneways, %lu with objects, %lu ENOSPC retries\n", me,
	       stat_calls, stat_oneways, stat_objs, stat_busy);
	CHECK(stat_calls > 0 && stat_oneways > 0, "worker %d made no progress", me);
	fflush(NULL);
	_exit(fbt_child_status());
}

int main(void)
{
	pid_t mpid, wpid[NW];
	int i, st;

	alarm(55);
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED)
		die("mmap");
	mpid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, m_main, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	deadline = fbt_now_ms() + RUN_MS;	/* inherited by the workers */
	for (i = 0; i < NW; i++)
		wpid[i] = fbt_fork(worker, (void *)(uintptr_t)i);
	for (i = 0; i < NW; i++) {
		st = fbt_wait(wpid[i]);
		CHECK(st == 0, "worker %d exited with %d", i, st);
	}
	st = fbt_wait(mpid);
	CHECK(st == 0, "manager exited with %d", st);
	check_ids_unique();
	CHECK(fbt_wait_live_zero(3000) == 0, "live counts did not return to zero");
	return fbt_done();
}
