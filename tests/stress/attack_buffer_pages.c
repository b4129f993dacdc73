// SPDX-License-Identifier: MIT
/*
 * attack_buffer_pages: undelivered messages cannot pin more kernel memory
 * than the receiver's user is allowed, and what they pin is charged to the
 * receiver's memory cgroup (docs/security.md, G6).
 *
 * The adversary (uid 65534) is two processes: AR opens 60 contexts with
 * 8 MiB buffers and never reads them; AS sends them 64 KiB oneway messages
 * as fast as it can, until every send is refused.  A registry M (root, the
 * context manager) hands AR's objects to AS.  Then:
 *
 *  - the sends stop at the receiving user's cap, module parameter
 *    max_user_pages (EDQUOT): debugfs shows the user holding at most that,
 *    and MemAvailable drops by no more than the cap and some slack, while
 *    AR's own RSS stays small;
 *  - the pages are charged to AR's memory cgroup, not to AS's (when the
 *    VM has cgroup2 with the memory controller);
 *  - a reply still reaches AS, whose user is at the cap (replies have a
 *    reserve), and B, a client of another uid, gets M's answers within 2 s;
 *  - once AR and AS exit, the memory comes back and the live counts return
 *    to 0.
 * Root (VM_ROOT_TESTS): it sets up the cgroups and reads debugfs.
 */
#include "fbt_attack.h"
#include "fbt_stress.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define MB		(1024 * 1024LL)
#define N_CTX		60
#define CTX_MAP		(8 * MB)
#define MSG		(64 * 1024)
#define ECHO		(16 * 1024)
#define M_COOKIE	0xba9eULL
#define OTHER_UID	65533
#define DEADLINE_MS	fbt_deadline_ms(2000)
#define SLACK		(24 * MB)
#define AFTER_SLACK	(40 * MB)

enum { C_PUT = 1, C_GET, C_PING, C_STOP };

/* Shared by all the processes (MAP_SHARED). */
struct ctl {
	volatile int go_ar, go_as, ar_ready, as_ready, flood, flood_done, stop;
	volatile long long accepted;	/* bytes AS got into AR's buffers */
	volatile int edquot, enospc, other, other_err, full_ctx;
	volatile int ping_rc, ping_cmd, ping_err;
};

static struct ctl *ctl;
static unsigned char msg[MSG];

static void wait_for(const volatile int *flag)
{
	while (!*flag)
		usleep(10000);
}

/* ---- M: a registry of objects, and an echo ---- */

static int m_main(struct fbt_ctx *p, void *arg)
{
	static __u32 hs[N_CTX];
	unsigned int n = 0, i;
	struct fbt_ret r;
	__u64 off = 0;

	(void)arg;
	fbt_child_begin(110);
	for (;;) {
		fbt_next_txn(p, &r, "M");
		if (r.msg.code == C_STOP) {
			fbt_free_buffer(p, r.msg.data);
			break;
		}
		if (r.msg.code == C_PUT && n < N_CTX && r.msg.offsets_count == 1) {
			hs[n] = fbt_obj(p, &r.msg, 0)->handle;
			CHECK(fbt_acquire(p, hs[n]) == 0, "M: acquire");
			CHECK(fbt_reply(p, &r.msg, n++, NULL, 0, NULL, 0) == 0, "M: reply to PUT");
		} else if (r.msg.code == C_GET && r.msg.data_size == 4) {
			__u32 idx;
			struct fbinder_object o = { .type = FBINDER_OBJ_HANDLE };

			memcpy(&idx, fbt_data(p, &r.msg), 4);
			o.handle = idx < n ? hs[idx] : 0;
			CHECK(fbt_reply(p, &r.msg, 0, &o, sizeof(o), &off, 1) == 0,
			      "M: reply to GET");
		} else if (r.msg.code == C_PING) {
			CHECK(fbt_reply(p, &r.msg, 0, msg, ECHO, NULL, 0) == 0, "M: reply to PING");
		} else {
			fbt_reply(p, &r.msg, 1, NULL, 0, NULL, 0);
		}
	}
	for (i = 0; i < n; i++)
		fbt_release(p, hs[i]);
	return fbt_child_status();
}

/* ---- the adversary ---- */

/* AR: 60 receivers that never read. */
static int ar_main(void *arg)
{
	static struct fbt_ctx r[N_CTX];
	struct fbt_ret ret;
	int i, rc;

	(void)arg;
	fbt_child_begin(110);
	fbt_become_nobody();
	wait_for(&ctl->go_ar);
	for (i = 0; i < N_CTX; i++) {
		struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL, .cookie = 0x100 + i };
		__u64 off = 0;

		fbt_ctx_open(&r[i], CTX_MAP);
		rc = fbt_call(&r[i], 0, C_PUT, &o, sizeof(o), &off, 1, &ret, NULL, NULL);
		if (rc || ret.cmd != FBINDER_RET_REPLY)
			die("AR: register context %d: %s %s", i, strerror(-rc),
			    fbt_ret_name(ret.cmd));
		fbt_free_buffer(&r[i], ret.msg.data);
	}
	ctl->ar_ready = 1;
	wait_for(&ctl->stop);
	for (i = 0; i < N_CTX; i++)
		fbt_ctx_close(&r[i]);
	return 0;
}

/* AS: 64 KiB oneway messages into every one of AR's buffers until refused. */
static int as_main(void *arg)
{
	__u32 h[N_CTX];
	struct fbt_ret ret;
	struct fbt_ctx s;
	int i, rc;

	(void)arg;
	fbt_child_begin(110);
	fbt_become_nobody();
	wait_for(&ctl->go_as);
	fbt_ctx_open(&s, 256 * 1024);
	for (i = 0; i < N_CTX; i++) {
		__u32 idx = i;

		rc = fbt_call(&s, 0, C_GET, &idx, 4, NULL, 0, &ret, NULL, NULL);
		if (rc || ret.cmd != FBINDER_RET_REPLY || ret.msg.offsets_count != 1)
			die("AS: get context %d: %s %s", i, strerror(-rc), fbt_ret_name(ret.cmd));
		h[i] = fbt_obj(&s, &ret.msg, 0)->handle;
		if (fbt_acquire(&s, h[i]))
			die("AS: acquire");
		fbt_free_buffer(&s, ret.msg.data);
	}
	ctl->as_ready = 1;
	wait_for(&ctl->flood);
	memset(msg, 0xa5, sizeof(msg));
	for (i = 0; i < N_CTX; i++) {
		for (;;) {
			rc = fbt_oneway(&s, h[i], 1, msg, MSG, NULL, 0);
			if (rc)
				break;
			ctl->accepted += MSG;
		}
		if (rc == -EDQUOT) {
			if (!ctl->edquot++)
				ctl->full_ctx = i;
		} else if (rc == -ENOSPC) {
			ctl->enospc++;
		} else {
			ctl->other++;
			ctl->other_err = rc;
		}
	}
	/* Our user is at its cap: a reply to our own call still fits. */
	rc = fbt_call(&s, 0, C_PING, "p", 1, NULL, 0, &ret, NULL, NULL);
	ctl->ping_rc = rc;
	ctl->ping_cmd = rc ? 0 : (int)ret.cmd;
	ctl->ping_err = !rc && ret.cmd == FBINDER_RET_FAILED ? ret.err.error : 0;
	if (!rc && ret.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&s, ret.msg.data);
	ctl->flood_done = 1;
	wait_for(&ctl->stop);
	for (i = 0; i < N_CTX; i++)
		fbt_release(&s, h[i]);
	fbt_ctx_close(&s);
	return 0;
}

/* B: a client of another user, answered within the deadline. */
static int b_main(void *arg)
{
	struct fbt_ctx b;
	int i;

	(void)arg;
	fbt_client_child(&b, OTHER_UID, 256 * 1024);
	for (i = 0; i < 5; i++) {
		struct fbt_ret r;

		if (fbt_timed_call(&b, C_PING, i, "to M while the adversary holds its pages",
				   DEADLINE_MS, &r) < 0)
			continue;
		CHECK(r.msg.data_size == ECHO, "B: call %d: %llu bytes of reply, not %d", i,
		      (unsigned long long)r.msg.data_size, ECHO);
		fbt_free_buffer(&b, r.msg.data);
	}
	fbt_ctx_close(&b);
	return fbt_child_status();
}

/* ---- measurements ---- */

/*
 * MemAvailable in bytes, after letting the dust settle: the page cache
 * and slab caches dropped first (we are root), or their growth between two
 * samples (a test binary read, a dentry) is noise of the size of SLACK.
 */
static long long mem_available(void)
{
	fbt_mem_settle();
	return fbt_meminfo_kb("MemAvailable") * 1024;
}

/* What debugfs says the user holds: the largest "user <uid> holds <n> pages". */
static long user_pages(unsigned int uid)
{
	char *st = fbt_slurp(FBT_DEBUGFS "/state"), *line, *save = NULL;
	long best = -1;

	if (!st)
		return -1;
	for (line = strtok_r(st, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *u = strstr(line, ", user ");
		unsigned int id;
		long n;

		if (u && sscanf(u, ", user %u holds %ld pages", &id, &n) == 2 && id == uid &&
		    n > best)
			best = n;
	}
	free(st);
	return best;
}

static long vm_rss_kb(pid_t pid)
{
	char path[64], *s, *p;
	long v = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	s = fbt_slurp(path);
	if (s && (p = strstr(s, "VmRSS:")))
		sscanf(p + 6, "%ld", &v);
	free(s);
	return v;
}

int main(void)
{
	long long m0, m1, m2, t0, r0 = -1, r1 = -1, s0 = -1, s1 = -1, cap_bytes;
	long long pages = -1;
	char cg_recv[128], cg_send[128];
	long cap, held;
	/* one memory cgroup per adversary process */
	bool cg = fbt_memcg_create(cg_recv, sizeof(cg_recv)) == 0 &&
		  fbt_memcg_create(cg_send, sizeof(cg_send)) == 0;
	pid_t mpid, ar, as, b;
	struct fbt_ctx p;
	int rc, st;

	alarm(120);
	ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		   0);
	if (ctl == MAP_FAILED)
		die("mmap");
	memset((void *)ctl, 0, sizeof(*ctl));
	cap = (long)fbt_param("max_user_pages");
	CHECK(cap > 0, "module parameter max_user_pages: %ld", cap);
	if (cap <= 0)
		cap = 16384;	/* the documented default, for the bound below */
	cap_bytes = (long long)cap * getpagesize();

	mpid = fbt_spawn_manager(MB, M_COOKIE, m_main, NULL);
	ar = fbt_fork(ar_main, NULL);
	as = fbt_fork(as_main, NULL);
	if (cg) {
		CHECK(fbt_memcg_add(cg_recv, ar) == 0 && fbt_memcg_add(cg_send, as) == 0,
		      "move the adversary into its cgroups");
	}
	ctl->go_ar = 1;
	wait_for(&ctl->ar_ready);
	ctl->go_as = 1;
	wait_for(&ctl->as_ready);

	m0 = mem_available();
	if (cg) {
		r0 = fbt_memcg_current(cg_recv);
		s0 = fbt_memcg_current(cg_send);
	}
	ctl->flood = 1;
	wait_for(&ctl->flood_done);
	m1 = mem_available();
	if (cg) {
		r1 = fbt_memcg_current(cg_recv);
		s1 = fbt_memcg_current(cg_send);
	}
	held = user_pages(FBT_NOBODY_UID);
	fbt_stat("live_pages", &pages);

	printf("# max_user_pages %ld (%lld MiB); AS got %lld MiB into %d buffers of 8 MiB, refused: EDQUOT %d (first at context %d), ENOSPC %d, other %d\n",
	       cap, cap_bytes / MB, ctl->accepted / MB, N_CTX, ctl->edquot, ctl->full_ctx,
	       ctl->enospc, ctl->other);
	printf("# pinned: MemAvailable -%lld MiB; debugfs: uid %d holds %ld pages, live_pages %lld; AR's RSS %ld kB\n",
	       (m0 - m1) / MB, FBT_NOBODY_UID, held, pages, vm_rss_kb(ar));
	CHECK(ctl->other == 0, "AS: %d sends failed otherwise (last %s)", ctl->other,
	      strerror(-ctl->other_err));
	CHECK(ctl->edquot > 0, "AS was never refused with EDQUOT: the user has no cap");
	CHECK(ctl->accepted <= cap_bytes,
	      "AS got %lld MiB into uid %d's buffers, want at most max_user_pages (%lld MiB)",
	      ctl->accepted / MB, FBT_NOBODY_UID, cap_bytes / MB);
	CHECK(held >= 0 && held <= cap, "debugfs: uid %d holds %ld pages, want at most %ld",
	      FBT_NOBODY_UID, held, cap);
	CHECK(m0 - m1 <= cap_bytes + SLACK,
	      "MemAvailable dropped by %lld MiB, want at most the cap (%lld MiB) + %lld MiB",
	      (m0 - m1) / MB, cap_bytes / MB, SLACK / MB);
	if (cg) {
		printf("# memory.current: AR's cgroup +%lld MiB, AS's cgroup +%lld MiB\n",
		       (r1 - r0) / MB, (s1 - s0) / MB);
		CHECK(r1 - r0 >= ctl->accepted * 3 / 4,
		      "AR's cgroup grew by %lld MiB for %lld MiB of messages in its buffers: not charged to the receiver",
		      (r1 - r0) / MB, ctl->accepted / MB);
		CHECK(s1 - s0 < 8 * MB, "AS's cgroup grew by %lld MiB: charged to the sender",
		      (s1 - s0) / MB);
	} else {
		fbt_skip("no cgroup2 memory controller here: the charge is not checked");
	}
	CHECK(ctl->ping_rc == 0 && ctl->ping_cmd == (int)FBINDER_RET_REPLY,
	      "AS (its user at the cap) called M: %s %s error %d, want the reply",
	      strerror(-ctl->ping_rc), ctl->ping_rc ? "" : fbt_ret_name(ctl->ping_cmd),
	      ctl->ping_err);

	b = fbt_fork(b_main, NULL);
	st = fbt_wait(b);
	CHECK(st == 0, "B's calls failed or were late (above): status %d", st);

	ctl->stop = 1;
	st = fbt_wait(ar);
	CHECK(st == 0, "AR failed: status %d", st);
	st = fbt_wait(as);
	CHECK(st == 0, "AS failed: status %d", st);
	/*
	 * The pages go back when the contexts end, which may lag the exits a
	 * little.  The exact checks are the driver's own count (the
	 * adversary's user holds no page) and the receiver's memory cgroup
	 * (uncharged); MemAvailable, even with the caches dropped, moved
	 * between -26 and +19 MiB from run to run here (a 64 MiB flood), so
	 * it is only a gross check, with AFTER_SLACK.
	 */
	t0 = fbt_now_ms();
	do {
		if (user_pages(FBT_NOBODY_UID) <= 0)
			break;
		usleep(100000);
	} while (fbt_now_ms() - t0 < fbt_deadline_ms(3000));
	m2 = mem_available();
	printf("# after the adversary exited: uid %d holds %ld pages; MemAvailable %+lld MiB from before the flood (%lld ms)\n",
	       FBT_NOBODY_UID, user_pages(FBT_NOBODY_UID), (m2 - m0) / MB,
	       fbt_now_ms() - t0);
	CHECK(user_pages(FBT_NOBODY_UID) <= 0, "uid %d still holds %ld pages after its processes exited",
	      FBT_NOBODY_UID, user_pages(FBT_NOBODY_UID));
	if (cg) {
		r1 = fbt_memcg_current(cg_recv);
		printf("# memory.current of AR's cgroup: %+lld KiB from before the flood\n",
		       (r1 - r0) / 1024);
		CHECK(r1 - r0 < 4 * MB, "AR's cgroup still charged %lld MiB after AR exited",
		      (r1 - r0) / MB);
	}
	CHECK(m0 - m2 < AFTER_SLACK, "MemAvailable %lld MiB below where it was before the flood",
	      (m0 - m2) / MB);

	fbt_ctx_open(&p, 0);
	rc = fbt_oneway(&p, 0, C_STOP, NULL, 0, NULL, 0);
	CHECK(rc == 0, "stop M: %s", strerror(-rc));
	fbt_ctx_close(&p);
	st = fbt_wait(mpid);
	CHECK(st == 0, "M failed: status %d", st);
	fbt_memcg_remove(cg_recv);
	fbt_memcg_remove(cg_send);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts did not return to zero");
	return fbt_done();
}
