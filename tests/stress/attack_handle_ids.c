// SPDX-License-Identifier: MIT
/*
 * attack_handle_ids: an unprivileged sender burns the handle ids of the
 * service manager by sending it messages of 4096 new objects each, which
 * the manager frees at once.  With ids that are never reused, about a
 * million such messages (2^32 / 4096) used to exhaust the manager's ids
 * for good: every later send of an object to it failed with EDQUOT.
 *
 * To get there in a second, root starts the manager's ids just below the
 * wrap (module parameter handle_id_start, read when a context opens; it is
 * put back at once), and the attacker's NMSG messages carry the ids across
 * 2^32.  Then:
 *
 *  - every message arrives; its ids count up, go from 0xffffffff to 1,
 *    never 0, each unique;
 *  - a handle the manager kept from before the wrap still reaches the
 *    same object (a oneway through it arrives at the attacker's object);
 *  - a released id fails with ENOENT (ACQUIRE and SEND);
 *  - a bystander of uid 65534 can still call the manager with an object
 *    in the message, within DEADLINE_MS;
 *  - every live count returns to 0.
 *
 * That ids skip those still in use when the counter comes round again is
 * checked by the module self-test (driver/selftest/handles.c): it takes
 * 2^32 ids to get there.
 */
#include "fbt_attack.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x1d5ULL
#define NOBJ		4096
#define NMSG		4
#define BELOW_WRAP	6000	/* ids the manager has before 2^32 */
#define DEADLINE_MS	fbt_deadline_ms(1000)

enum { C_OBJS = 1, C_KEPT, C_LATE };

struct shared {
	_Atomic int msgs;		/* messages the manager got */
	_Atomic int bad;		/* first problem, in msg */
	__u32 first_id, last_id;	/* over all messages */
	int wrapped;			/* an id went from 0xffffffff to 1 */
	__u32 kept, stale;
	int stale_acquire, stale_send, kept_send;
	_Atomic int checked;
	__u32 late_id;
	char msg[160];
};

static struct shared *sh;
static long long start;

static void bad(const char *fmt, unsigned long long a, unsigned long long b)
{
	if (atomic_fetch_add(&sh->bad, 1) == 0)
		snprintf(sh->msg, sizeof(sh->msg), fmt, a, b);
}

/* The manager: looks at every id it is given, frees the buffer at once. */
static int m_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	static __u32 prev;
	const struct fbinder_object *o;
	__u64 i;
	int ret, n;

	(void)arg;
	if (fbt_answer_ping(p, r) || r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (r->msg.code == C_LATE) {
		o = r->msg.offsets_count == 1 ? fbt_obj(p, &r->msg, 0) : NULL;
		sh->late_id = o && o->type == FBINDER_OBJ_HANDLE ? o->handle : 0;
		fbt_reply(p, &r->msg, 0, NULL, 0, NULL, 0);
		return 0;
	}
	if (r->msg.code != C_OBJS) {
		if (r->msg.flags & FBINDER_TXN_ONEWAY)
			fbt_free_buffer(p, r->msg.data);
		else
			fbt_reply(p, &r->msg, 0, NULL, 0, NULL, 0);
		return 0;
	}
	if (r->msg.offsets_count != NOBJ)
		bad("a message with %llu objects, want %llu", r->msg.offsets_count, NOBJ);
	for (i = 0; i < r->msg.offsets_count; i++) {
		o = fbt_obj(p, &r->msg, i);
		if (o->type != FBINDER_OBJ_HANDLE || !o->handle)
			bad("object %llu: type %llu or handle 0", i, o->type);
		if (!atomic_load(&sh->msgs) && !i) {
			sh->first_id = o->handle;
		} else if (o->handle != prev + 1) {
			if (prev == 0xffffffffu && o->handle == 1)
				sh->wrapped = 1;
			else
				bad("handle id %llu after %llu", o->handle, prev);
		}
		prev = o->handle;
	}
	sh->last_id = prev;
	if (!atomic_load(&sh->msgs) && r->msg.offsets_count > 1) {
		sh->kept = fbt_obj(p, &r->msg, 0)->handle;
		sh->stale = fbt_obj(p, &r->msg, 1)->handle;
		ret = fbt_acquire(p, sh->kept);
		if (ret)
			bad("acquire the kept handle: %llu", -ret, 0);
	}
	/* counted before the free lets the next one go to the other looper */
	n = atomic_fetch_add(&sh->msgs, 1) + 1;
	fbt_free_buffer(p, r->msg.data);
	if (n == NMSG) {
		/* across the wrap: the released id is gone, the kept one holds */
		sh->stale_acquire = fbt_acquire(p, sh->stale);
		sh->stale_send = fbt_oneway(p, sh->stale, C_KEPT, "s", 1, NULL, 0);
		sh->kept_send = fbt_oneway(p, sh->kept, C_KEPT, "k", 1, NULL, 0);
		atomic_store(&sh->checked, 1);
	}
	return 0;
}

static void *m_looper(void *arg)
{
	struct fbt_ctx *t = fbt_ctx_thread(arg, true);

	while (fbt_serve(t, m_handler, NULL) == -EINTR)
		;
	return NULL;
}

/* Two loopers: the bystander's calls do not wait for a big message. */
static int m_body(struct fbt_ctx *p, void *arg)
{
	pthread_t th;

	(void)arg;
	if (pthread_create(&th, NULL, m_looper, p))
		die("pthread_create");
	m_looper(p);
	return 1;
}

/* NMSG messages of NOBJ new objects each, then the oneway through the kept handle. */
static int attacker(void *arg)
{
	static struct fbinder_object objs[NOBJ];
	static __u64 offs[NOBJ];
	struct fbt_ctx p;
	struct fbt_ret r;
	int m, i, ret, failed = 0;

	(void)arg;
	fbt_ctx_open(&p, MB);
	for (m = 0; m < NMSG; m++) {
		for (i = 0; i < NOBJ; i++) {
			objs[i] = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL,
						      .cookie = (__u64)m * NOBJ + i + 1 };
			offs[i] = i * sizeof(objs[0]);
		}
		ret = fbt_oneway(&p, 0, C_OBJS, objs, sizeof(objs), offs, NOBJ);
		CHECK(ret == 0, "message %d of %d objects to the manager: %s", m, NOBJ,
		      strerror(-ret));
		failed |= ret;
	}
	/* the manager's oneway through the handle it kept: our first object */
	while (!failed) {
		ret = fbt_next(&p, &r);
		if (ret) {
			CHECK(0, "waiting for the manager's oneway: %s", strerror(-ret));
			break;
		}
		if (r.cmd == FBINDER_RET_TRANSACTION) {
			CHECK(r.msg.code == C_KEPT && r.msg.cookie == 1,
			      "through the kept handle: code %u to cookie %llu, want %d to 1",
			      r.msg.code, (unsigned long long)r.msg.cookie, C_KEPT);
			fbt_free_buffer(&p, r.msg.data);
			break;
		}
		/* release notices of the objects the manager let go */
	}
	fbt_ctx_close(&p);
	return fbt_child_status();
}

/* After the attack: a call with an object in it still gets through. */
static int late(void *arg)
{
	struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL, .cookie = 0x1a7e };
	__u64 off = 0;
	struct fbt_ret r;
	struct fbt_ctx p;
	long long t0;
	int ret;

	(void)arg;
	fbt_ctx_open(&p, 64 * 1024);
	t0 = fbt_now_us();
	ret = fbt_call(&p, 0, C_LATE, &o, sizeof(o), &off, 1, &r, NULL, NULL);
	t0 = fbt_now_us() - t0;
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY,
	      "a bystander's call with an object after the attack: %s %s (error %d)",
	      strerror(-ret), fbt_ret_name(r.cmd), r.cmd == FBINDER_RET_FAILED ? r.err.error : 0);
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&p, r.msg.data);
	CHECK(t0 <= DEADLINE_MS * 1000LL, "the bystander's call took %lld ms, deadline %d ms",
	      t0 / 1000, DEADLINE_MS);
	fbt_ctx_close(&p);
	return fbt_child_status();
}

int main(void)
{
	struct fbt_bystander by;
	long long old;
	pid_t mgr, pid;
	int ret;

	alarm(55);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	memset(sh, 0, sizeof(*sh));

	old = fbt_param("handle_id_start");
	start = 0x100000000LL - BELOW_WRAP;
	ret = fbt_set_param("handle_id_start", start);
	CHECK(ret == 0, "set module parameter handle_id_start: %s", strerror(-ret));
	mgr = fbt_spawn_manager(8 * MB, MGR_COOKIE, m_body, NULL);
	if (!ret)
		CHECK(fbt_set_param("handle_id_start", old) == 0, "put handle_id_start back");
	fbt_bystander_start(&by, FBT_BY_CALL);

	pid = fbt_fork_nobody(attacker, NULL);
	CHECK(fbt_wait(pid) == 0, "the attacker failed a check");
	pid = fbt_fork_nobody(late, NULL);
	CHECK(fbt_wait(pid) == 0, "the late bystander failed a check");
	fbt_bystander_check(&by, DEADLINE_MS);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);

	printf("# the manager got %d messages: ids 0x%x .. 0x%x%s; kept 0x%x, released 0x%x\n",
	       atomic_load(&sh->msgs), sh->first_id, sh->last_id,
	       sh->wrapped ? " across the wrap" : "", sh->kept, sh->stale);
	CHECK(atomic_load(&sh->msgs) == NMSG, "the manager got %d of %d messages",
	      atomic_load(&sh->msgs), NMSG);
	CHECK(sh->first_id == (__u32)start, "the first id was 0x%x, want 0x%llx", sh->first_id,
	      start);
	CHECK(sh->wrapped && sh->last_id == NMSG * NOBJ - BELOW_WRAP,
	      "ids did not go on across the wrap: last 0x%x", sh->last_id);
	CHECK(!atomic_load(&sh->bad), "the manager saw: %s", sh->msg);
	CHECK(atomic_load(&sh->checked), "the manager never checked the old ids");
	CHECK(sh->stale_acquire == -ENOENT && sh->stale_send == -ENOENT,
	      "the released id 0x%x after the wrap: acquire %s, send %s, want ENOENT", sh->stale,
	      strerror(-sh->stale_acquire), strerror(-sh->stale_send));
	CHECK(sh->kept_send == 0, "a oneway through the kept id 0x%x: %s", sh->kept,
	      strerror(-sh->kept_send));
	CHECK(sh->late_id == sh->last_id + 1, "the late object got id 0x%x, want 0x%x",
	      sh->late_id, sh->last_id + 1);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts did not return to zero");
	return fbt_done();
}
