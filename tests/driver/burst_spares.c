// SPDX-License-Identifier: MIT
/*
 * burst_spares: what a burst of oneway messages leaves behind is kept for
 * the next burst, and memory pressure takes it back.  Once the burst is
 * delivered and freed, debugfs state counts every one of its transactions
 * in the module's "spare-transactions", and its slot structs, beyond the
 * receiver's own few spares, in the module's "slot-pool"; drop_caches runs
 * the module's shrinkers and both fall to near zero.  The burst: N oneway
 * messages queued to one node while its owner does not read, then read in
 * order, intact, and freed.  Sender and receiver run as uid 65534; root
 * reads debugfs and drops the caches.
 *
 * Then a burst above both caps (FBINDER_MAX_QUEUED, 4096 spare
 * transactions and 4096 pooled slot structs per CPU): a sender's full
 * share of the queue of each of three receivers, 6144 messages, leaves at
 * least one CPU's cap of each behind (the receivers free them on whichever
 * CPUs they run), and no more than every CPU's caps together: exactly the
 * cap on one CPU.
 */
#include "fbt_proto.h"

#include <stdlib.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x5a4e0ULL
#define N_MSGS		1000		/* well above the old caps */
#define CTX_SPARES	64		/* a context's own spare slot structs */
#define C_SEQ		9
#define LEFT_MAX	64		/* spares left after the shrinkers */
#define CAP		4096		/* FBINDER_MAX_QUEUED: both pools' caps */
#define SHARE		(CAP / 2)	/* one sender's share of a receiver's queue */
#define N_RECV		3		/* SHARE each: above both caps */
#define C_OBJ		10

static int go_pipe[2];			/* root -> receiver: the burst is queued */

/* Reads n oneways numbered 0 to n - 1, checks their order, frees them. */
static bool drain(struct fbt_ctx *p, __u32 n)
{
	__u32 expect = 0, seq;

	while (expect < n) {
		struct fbt_w frees;
		struct fbt_ret r;
		int ret;

		ret = fbt_wr(p, NULL, NULL, true);
		if (ret) {
			errno = -ret;
			die("R: read");
		}
		fbt_w_reset(&frees);
		while (p->qlen) {
			fbt_next(p, &r);
			if (r.cmd != FBINDER_RET_TRANSACTION) {
				CHECK(0, "R got %s", fbt_ret_name(r.cmd));
				return false;
			}
			memcpy(&seq, fbt_data(p, &r.msg), sizeof(seq));
			CHECK(r.msg.code == C_SEQ && r.msg.data_size == sizeof(seq) &&
			      seq == expect, "R: code %u size %llu seq %u, want seq %u",
			      r.msg.code, (unsigned long long)r.msg.data_size, seq, expect);
			if (seq != expect)
				return false;
			expect++;
			fbt_w_free(&frees, r.msg.data);
		}
		ret = fbt_wr(p, &frees, NULL, false);
		CHECK(ret == 0, "R: free: %s", strerror(-ret));
	}
	return true;
}

static int recv_main(struct fbt_ctx *p, void *arg)
{
	char go;

	(void)arg;
	alarm(60);
	close(go_pipe[1]);
	if (read(go_pipe[0], &go, 1) != 1)
		die("R: no go");
	return drain(p, N_MSGS) ? fbt_child_status() : 1;
}

/*
 * One process: the manager M, claimed as root, then as uid 65534 three
 * receivers that each give M a handle to a node of theirs; M queues its
 * whole share to each, then each receiver reads and frees its messages.
 */
static int over_caps_main(void *arg)
{
	struct fbt_ctx m, r[N_RECV];
	__u32 h[N_RECV], i, j;
	struct fbt_ret ret;
	__u64 off = 0;
	int rc;

	(void)arg;
	alarm(120);
	fbt_ctx_open(&m, MB);
	if (fbt_set_mgr(m.fd, MGR_COOKIE))
		die("M: SET_CONTEXT_MGR");
	fbt_become_nobody();
	for (i = 0; i < N_RECV; i++) {
		struct fbinder_object obj = {
			.type = FBINDER_OBJ_LOCAL, .cookie = 0x100 + i,
		};

		fbt_ctx_open(&r[i], MB);
		rc = fbt_oneway(&r[i], 0, C_OBJ, &obj, sizeof(obj), &off, 1);
		if (!rc)
			rc = fbt_next(&m, &ret);
		if (rc || ret.cmd != FBINDER_RET_TRANSACTION || ret.msg.offsets_count != 1)
			die("M: no handle to receiver %u", i);
		h[i] = fbt_obj(&m, &ret.msg, 0)->handle;
		CHECK(fbt_acquire(&m, h[i]) == 0, "M: acquire handle %u", h[i]);
		CHECK(fbt_free_buffer(&m, ret.msg.data) == 0, "M: free");
	}
	for (i = 0; i < N_RECV; i++)
		for (j = 0; j < SHARE; j++) {
			rc = fbt_oneway(&m, h[i], C_SEQ, &j, sizeof(j), NULL, 0);
			if (rc) {
				CHECK(0, "oneway %u to receiver %u: %s", j, i, strerror(-rc));
				return 1;
			}
		}
	for (i = 0; i < N_RECV; i++)
		CHECK(drain(&r[i], SHARE), "receiver %u did not get its %d in order", i, SHARE);
	for (i = 0; i < N_RECV; i++)
		fbt_ctx_close(&r[i]);
	fbt_ctx_close(&m);
	return fbt_child_status();
}

static int send_main(void *arg)
{
	struct fbt_ctx c;
	__u32 i;
	int ret, failed = 0;

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&c, MB);
	for (i = 0; i < N_MSGS; i++) {
		ret = fbt_oneway(&c, 0, C_SEQ, &i, sizeof(i), NULL, 0);
		if (ret && !failed++)
			CHECK(0, "oneway %u: %s", i, strerror(-ret));
	}
	fbt_ctx_close(&c);
	return failed ? 1 : fbt_child_status();
}

/* The number after key in debugfs state (after "after" first), or -1. */
static long long state_value(const char *after, const char *key)
{
	char *s = fbt_slurp(FBT_DEBUGFS "/state"), *p;
	long long v = -1;

	p = s && after ? strstr(s, after) : s;
	p = p ? strstr(p, key) : NULL;
	if (p)
		v = strtoll(p + strlen(key), NULL, 10);
	free(s);
	return v;
}

static long long spare_txns(void)
{
	return state_value(NULL, "spare-transactions ");
}

static long long slot_pool(void)
{
	return state_value(NULL, "slot-pool ");
}

int main(void)
{
	long long txns, slots, ncpus = sysconf(_SC_NPROCESSORS_CONF), most;
	pid_t rpid, spid;

	alarm(90);
	/* every CPU's caps together, at most the burst */
	if (ncpus < 1)
		die("sysconf");
	most = ncpus * CAP < N_RECV * SHARE ? ncpus * CAP : N_RECV * SHARE;
	if (pipe(go_pipe))
		die("pipe");
	rpid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, recv_main, NULL);
	close(go_pipe[0]);

	spid = fbt_fork(send_main, NULL);
	CHECK(fbt_wait(spid) == 0, "the sender's %d oneways did not all go", N_MSGS);
	if (write(go_pipe[1], "g", 1) != 1)
		die("go");
	close(go_pipe[1]);
	CHECK(fbt_wait(rpid) == 0, "the receiver did not get all %d in order", N_MSGS);

	/* delivered and freed: every one of them is a spare now */
	txns = spare_txns();
	slots = slot_pool();
	printf("# after the burst: %lld spare transactions, %lld pooled slot structs\n", txns,
	       slots);
	CHECK(txns >= N_MSGS, "%lld spare transactions after a burst of %d, want at least %d",
	      txns, N_MSGS, N_MSGS);
	/* one slot struct per queued message; the receiver keeps a few itself */
	CHECK(slots >= N_MSGS - 2 * CTX_SPARES,
	      "%lld pooled slot structs after a burst of %d, want at least %d", slots, N_MSGS,
	      N_MSGS - 2 * CTX_SPARES);

	fbt_drop_caches();
	txns = spare_txns();
	slots = slot_pool();
	printf("# after drop_caches: %lld spare transactions, %lld pooled slot structs\n", txns,
	       slots);
	CHECK(txns >= 0 && txns <= LEFT_MAX,
	      "%lld spare transactions after the shrinker, want at most %d", txns, LEFT_MAX);
	CHECK(slots >= 0 && slots <= LEFT_MAX,
	      "%lld pooled slot structs after the shrinker, want at most %d", slots, LEFT_MAX);

	/* more than either pool holds: each keeps its cap, no more */
	CHECK(fbt_wait(fbt_fork(over_caps_main, NULL)) == 0,
	      "the burst of %d x %d oneways did not all go and arrive", N_RECV, SHARE);
	txns = spare_txns();
	slots = slot_pool();
	printf("# after %d x %d: %lld spare transactions, %lld pooled slot structs, %lld CPUs\n",
	       N_RECV, SHARE, txns, slots, ncpus);
	CHECK(txns >= CAP && txns <= most,
	      "%lld spare transactions after a burst of %d, want %d to %lld", txns,
	      N_RECV * SHARE, CAP, most);
	CHECK(slots >= CAP && slots <= most,
	      "%lld pooled slot structs after a burst of %d, want %d to %lld", slots,
	      N_RECV * SHARE, CAP, most);
	fbt_drop_caches();
	return fbt_done();
}
