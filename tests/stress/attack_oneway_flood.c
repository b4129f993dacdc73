// SPDX-License-Identifier: MIT
/*
 * attack_oneway_flood: one user's flood of oneway messages gets a share of
 * a service's queue and buffer, not the whole (docs/security.md, G5).
 *
 * S, a root service (the context manager), handles oneway messages slowly.
 * F, the adversary (uid 65534), floods S with oneway messages as fast as it
 * can and refills whatever S drains, for as long as the test runs.  While
 * it does:
 *
 *  - the flood stops at its user's share: with small messages, half of the
 *    4096 messages S may have queued (F is refused with EDQUOT); with 8 KiB
 *    ones, a quarter of S's buffer, half of the oneway half (ENOSPC).
 *    debugfs shows S's queue and oneway bytes at those bounds;
 *  - B, a client of another uid, calls S, and each answer comes within 2 s;
 *  - S, handling each of B's calls, calls T (a third process) and gets its
 *    reply, and S calls T between flood messages too: a reply is never
 *    refused because others filled the queue.
 *
 * Then F stops, S drains, everyone exits and the live counts return to 0.
 * Root (VM_ROOT_TESTS): it reads debugfs and runs the parties as three uids.
 */
#include "fbt_attack.h"

#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define MAP		(1024 * 1024)	/* S's buffer */
#define MAX_QUEUED	4096		/* docs/abi.md, Limits */
#define S_COOKIE	0xf100dULL
#define T_COOKIE	0x7a11ULL
#define OTHER_UID	65533		/* B and T: not the flooder's user */
#define SMALL		32
#define BIG		8192
#define BURST		64		/* oneway sends per WRITE_READ */
#define B_CALLS		10
#define DEADLINE_MS	fbt_deadline_ms(2000)
#define CALLOUT_EVERY	64		/* flood messages between S's calls to T */

enum { C_REG = 1, C_FLOOD, C_RELAY, C_ECHO, C_STOP };

/* Shared by all the processes (MAP_SHARED). */
struct ctl {
	volatile int phase;		/* F: 1 small messages, 2 big, 3 stop */
	volatile int refused[3];	/* F was refused in phase 1 / 2 */
	volatile long sent, edquot, enospc, other;
	volatile int other_err;
	volatile int t_ready;
	volatile long callouts, callout_fail;
	volatile int callout_err;
	volatile long b_max_ms;
};

static struct ctl *ctl;

/* S calls T and frees the reply; 0 when T's reply arrived. */
static int s_callout(struct fbt_ctx *p, __u32 h_t)
{
	struct fbt_ret rep;
	int rc;

	rc = fbt_call(p, h_t, C_ECHO, "ping", 4, NULL, 0, &rep, NULL, NULL);
	ctl->callouts++;
	if (!rc && rep.cmd == FBINDER_RET_REPLY) {
		fbt_free_buffer(p, rep.msg.data);
		return 0;
	}
	if (!rc)
		rc = rep.err.error;
	ctl->callout_fail++;
	ctl->callout_err = rc;
	return rc;
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	unsigned long flood = 0;
	__u32 h_t = 0;
	struct fbt_ret r;
	int rc;

	(void)arg;
	fbt_child_begin(110);
	for (;;) {
		fbt_next_txn(p, &r, "S");
		switch (r.msg.code) {
		case C_REG:
			if (r.msg.offsets_count == 1 &&
			    fbt_obj(p, &r.msg, 0)->type == FBINDER_OBJ_HANDLE) {
				h_t = fbt_obj(p, &r.msg, 0)->handle;
				CHECK(fbt_acquire(p, h_t) == 0, "S: acquire T");
			}
			CHECK(fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "S: reply to T");
			break;
		case C_FLOOD:
			usleep(300);	/* slower than the flood */
			fbt_free_buffer(p, r.msg.data);
			if (h_t && ++flood % CALLOUT_EVERY == 0)
				s_callout(p, h_t);
			break;
		case C_RELAY:
			rc = h_t ? s_callout(p, h_t) : -ENOENT;
			CHECK(fbt_reply(p, &r.msg, (__u32)-rc, NULL, 0, NULL, 0) == 0,
			      "S: reply to B");
			break;
		case C_STOP:
			fbt_free_buffer(p, r.msg.data);
			if (h_t) {
				CHECK(fbt_oneway(p, h_t, C_STOP, NULL, 0, NULL, 0) == 0,
				      "S: stop T");
				fbt_release(p, h_t);
			}
			printf("# S: %lu flood messages handled\n", flood);
			return fbt_child_status();
		default:
			if (r.msg.flags & FBINDER_TXN_ONEWAY)
				fbt_free_buffer(p, r.msg.data);
			else
				fbt_reply(p, &r.msg, 1, NULL, 0, NULL, 0);
		}
	}
}

static int t_main(void *arg)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_LOCAL, .cookie = T_COOKIE };
	struct fbt_ret r;
	struct fbt_ctx t;
	__u64 off = 0;
	int rc;

	(void)arg;
	fbt_child_begin(110);
	fbt_become_user(OTHER_UID);
	fbt_ctx_open(&t, 64 * 1024);
	rc = fbt_call(&t, 0, C_REG, &obj, sizeof(obj), &off, 1, &r, NULL, NULL);
	if (rc || r.cmd != FBINDER_RET_REPLY)
		die("T: register with S: %s %s", strerror(-rc), fbt_ret_name(r.cmd));
	fbt_free_buffer(&t, r.msg.data);
	ctl->t_ready = 1;
	for (;;) {
		fbt_next_txn(&t, &r, "T");
		if (r.msg.code == C_STOP) {
			fbt_free_buffer(&t, r.msg.data);
			break;
		}
		CHECK(fbt_reply(&t, &r.msg, 0, "pong", 4, NULL, 0) == 0, "T: reply");
	}
	fbt_ctx_close(&t);
	return fbt_child_status();
}

/* The adversary: oneway messages to S as fast as it can, whatever happens. */
static int f_main(void *arg)
{
	static unsigned char msg[BIG];
	const size_t step = 4 + sizeof(struct fbinder_txn_data);
	struct fbt_ctx f;
	int phase;

	(void)arg;
	fbt_child_begin(110);
	fbt_become_nobody();
	fbt_ctx_open(&f, 0);
	memset(msg, 0xf1, sizeof(msg));
	while ((phase = ctl->phase) < 3) {
		size_t size = phase == 1 ? SMALL : BIG, done = 0;
		struct fbt_w w;
		int rc, i;

		fbt_w_reset(&w);
		for (i = 0; i < BURST; i++)
			fbt_w_send(&w, 0, C_FLOOD, FBINDER_TXN_ONEWAY, msg, size, NULL, 0);
		rc = fbt_wr(&f, &w, &done, false);
		ctl->sent += done / step;
		if (!rc)
			continue;
		if (rc == -EDQUOT)
			ctl->edquot++;
		else if (rc == -ENOSPC)
			ctl->enospc++;
		else
			ctl->other++, ctl->other_err = rc;
		if (!ctl->refused[phase])
			printf("# F: first refusal in phase %d after %ld sends: %s\n", phase,
			       ctl->sent, strerror(-rc));
		ctl->refused[phase] = 1;
		usleep(500);	/* and again, as soon as S made room */
	}
	fbt_ctx_close(&f);
	return 0;
}

/* A client of another user: calls S, each answer within the deadline. */
static int b_main(void *arg)
{
	struct fbt_ctx b;
	int i;

	(void)arg;
	fbt_client_child(&b, OTHER_UID, 64 * 1024);
	for (i = 0; i < B_CALLS; i++) {
		struct fbt_ret r;
		long long ms = fbt_timed_call(&b, C_RELAY, i, "to S during the flood",
					      DEADLINE_MS, &r);

		if (ms < 0)
			continue;
		if (ms > ctl->b_max_ms)
			ctl->b_max_ms = ms;
		CHECK(r.msg.code == 0,
		      "B: call %d: S's own call to T failed with %s (a reply refused)", i,
		      strerror((int)r.msg.code));
		fbt_free_buffer(&b, r.msg.data);
		usleep(30000);
	}
	fbt_ctx_close(&b);
	return fbt_child_status();
}

/* S's queue and the oneway bytes in its buffer, from debugfs. */
static void s_usage(pid_t s, unsigned int *queued, size_t *oneway)
{
	char *st = fbt_slurp(FBT_DEBUGFS "/state"), *line, *save = NULL;
	bool in_s = false, buffers = false;
	int pid;

	*queued = 0;
	*oneway = 0;
	if (!st)
		return;
	for (line = strtok_r(st, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned int q;
		size_t at, d, o;

		if (!strcmp(line, "buffers")) {
			buffers = true;
			continue;
		}
		if (sscanf(line, " context pid %d", &pid) == 1) {
			in_s = pid == s;
			if (in_s && !buffers && sscanf(line, " context pid %*d queued %u", &q) == 1)
				*queued = q;
			continue;
		}
		if (in_s && buffers && strstr(line, " oneway") &&
		    sscanf(line, " buffer at %zu data %zu offsets %zu", &at, &d, &o) == 3)
			*oneway += ((d + 7) & ~(size_t)7) + o;
	}
	free(st);
}

/*
 * Waits until F was refused with the error the phase is about (*count
 * went up), then samples S's usage for half a second.
 */
static void watch_phase(int phase, const volatile long *count, pid_t s, unsigned int *qmax,
			size_t *omax)
{
	long long deadline = fbt_now_ms() + 30000;
	long before = *count;
	unsigned int q;
	size_t ow;
	int i;

	while (*count == before && fbt_now_ms() < deadline)
		usleep(20000);
	CHECK(*count != before, "phase %d: the flood was never refused that way (%ld sent)",
	      phase, ctl->sent);
	*qmax = 0;
	*omax = 0;
	for (i = 0; i < 10; i++) {
		s_usage(s, &q, &ow);
		if (q > *qmax)
			*qmax = q;
		if (ow > *omax)
			*omax = ow;
		usleep(50000);
	}
}

int main(void)
{
	unsigned int qmax;
	size_t omax;
	pid_t s, t, f, b;
	struct fbt_ctx p;
	int rc, i;

	alarm(120);
	ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		   0);
	if (ctl == MAP_FAILED)
		die("mmap");
	memset((void *)ctl, 0, sizeof(*ctl));

	s = fbt_spawn_manager(MAP, S_COOKIE, s_main, NULL);
	t = fbt_fork(t_main, NULL);
	while (!ctl->t_ready)
		usleep(10000);

	/* Phase 1: small messages; the user's share of S's queue. */
	ctl->phase = 1;
	f = fbt_fork(f_main, NULL);
	watch_phase(1, &ctl->edquot, s, &qmax, &omax);
	b = fbt_fork(b_main, NULL);
	CHECK(fbt_wait(b) == 0, "phase 1: B's calls to S failed or were late (above)");
	printf("# phase 1: S's queue held at most %u of %d while flooded; B's slowest call %ld ms\n",
	       qmax, MAX_QUEUED, ctl->b_max_ms);
	CHECK(qmax <= MAX_QUEUED / 2 + 4,
	      "phase 1: S had %u queued, want at most %d (the flooder's half) + B's call", qmax,
	      MAX_QUEUED / 2);

	/* Phase 2: 8 KiB messages; the user's share of S's oneway space. */
	ctl->b_max_ms = 0;
	ctl->phase = 2;
	watch_phase(2, &ctl->enospc, s, &qmax, &omax);
	b = fbt_fork(b_main, NULL);
	CHECK(fbt_wait(b) == 0, "phase 2: B's calls to S failed or were late (above)");
	printf("# phase 2: S's buffer held at most %zu oneway bytes of %d while flooded; B's slowest call %ld ms\n",
	       omax, MAP, ctl->b_max_ms);
	CHECK(omax <= MAP / 4 + 2 * BIG,
	      "phase 2: %zu oneway bytes in S's buffer, want at most %d (a quarter) + a message",
	      omax, MAP / 4);

	ctl->phase = 3;
	CHECK(fbt_wait(f) == 0, "F did not exit cleanly");
	CHECK(ctl->other == 0, "F: %ld sends failed otherwise, last %s", ctl->other,
	      strerror(-ctl->other_err));
	printf("# F sent %ld, refused %ld times with EDQUOT and %ld with ENOSPC\n", ctl->sent,
	       ctl->edquot, ctl->enospc);
	CHECK(ctl->callouts > 0 && ctl->callout_fail == 0,
	      "S's own calls to T during the flood: %ld of %ld failed (last %s)",
	      ctl->callout_fail, ctl->callouts, strerror(-ctl->callout_err));
	printf("# S called T %ld times during the flood, %ld failed\n", ctl->callouts,
	       ctl->callout_fail);

	/* Stop S (after the rest of the flood) and, through it, T. */
	fbt_ctx_open(&p, 0);
	for (i = 0; i < 300; i++) {
		rc = fbt_oneway(&p, 0, C_STOP, NULL, 0, NULL, 0);
		if (rc != -EDQUOT && rc != -ENOSPC)
			break;
		usleep(100000);
	}
	CHECK(rc == 0, "stop S: %s", strerror(-rc));
	fbt_ctx_close(&p);
	CHECK(fbt_wait(s) == 0, "S failed");
	CHECK(fbt_wait(t) == 0, "T failed");
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts did not return to zero");
	return fbt_done();
}
