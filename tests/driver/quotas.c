// SPDX-License-Identifier: MIT
/*
 * quotas: the quotas of docs/abi.md's limits table, at their edges.
 *
 *  - messages queued to one context: one sending user alone gets half of
 *    the 4096 (its fair share): 2048 oneway messages queue, the next send
 *    of that user to that context fails with EDQUOT (oneway or call, to
 *    any of its nodes), nothing of it arrives, "failed" in debugfs records
 *    it; every one of the 2048 is then delivered intact and in order, and
 *    once one is taken a send fits again.  A reply to a caller whose
 *    context holds a sender's whole share still arrives: replies are not
 *    counted (attack_oneway_flood tries the share with several users).
 *  - handles per context (module parameter max_handles, set to 8 here): a
 *    send that would give the receiver a ninth handle fails with EDQUOT
 *    and leaves no trace (no handle, no release notice, a two-object send
 *    with room for one undone entirely); objects the receiver already has
 *    a handle for still travel; freeing a handle makes room again.
 *  - objects per message: 4096 arrive translated, 4097 are EMSGSIZE.
 *  - one message: exactly the target's mapping (data plus offsets) for a
 *    call and exactly a quarter of it for a oneway (one user's share of
 *    the oneway half) are accepted, 8 bytes more are EMSGSIZE.
 */
#include "fbt_proto.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MAX_QUEUED	4096
#define SHARE		(MAX_QUEUED / 2)	/* one sending user's, alone */
#define MAX_OBJECTS	4096
#define R_COOKIE	0x11a175ULL
#define R_COOKIE2	0x11a176ULL
#define S_COOKIE	0x5e4d0ULL
#define PARAM		"/sys/module/fastbinder/parameters/max_handles"
#define TEST_HANDLES	8

enum { C_FLOOD = 1, C_OVER, C_GIVE, C_CALL, C_OBJ, C_BIG };

struct seqmsg {
	__u32 seq;
	unsigned char pat[12];
};

static struct fbt_ctx r, s;
static struct seqmsg msgs[MAX_QUEUED + 1];

/* ---- max_handles: set for the test, restored whatever happens ---- */

static char saved_max[32];

static void write_param(const char *v)
{
	int fd = open(PARAM, O_WRONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, v, strlen(v));
		close(fd);
	}
	if (n != (ssize_t)strlen(v))
		printf("# cannot write %s to %s\n", v, PARAM);
}

static void restore_param(void)
{
	if (saved_max[0])
		write_param(saved_max);
}

static void on_signal(int sig)
{
	restore_param();
	signal(sig, SIG_DFL);
	raise(sig);
}

static long read_param(void)
{
	char *v = fbt_slurp(PARAM);
	long n = v ? strtol(v, NULL, 10) : -1;

	free(v);
	return n;
}

/* ---- helpers ---- */

static void fill(struct seqmsg *m, __u32 seq)
{
	m->seq = seq;
	fbt_fill(m->pat, sizeof(m->pat), seq);
}

/*
 * Sends oneways first..last-1 from p to handle in streams of up to 300
 * commands.  Returns the number that succeeded; *err the first error.
 */
static __u32 flood(struct fbt_ctx *p, __u32 handle, __u32 first, __u32 last, int *err)
{
	__u32 i = first;

	*err = 0;
	while (i < last) {
		struct fbt_w w;
		size_t done = 0;
		__u32 n = 0, j;
		int ret;

		fbt_w_reset(&w);
		for (j = i; j < last && n < 300; j++, n++) {
			fill(&msgs[j], j);
			fbt_w_send(&w, handle, C_FLOOD, FBINDER_TXN_ONEWAY, &msgs[j], sizeof(msgs[j]),
				   NULL, 0);
		}
		ret = fbt_wr(p, &w, &done, false);
		i += done / (4 + sizeof(struct fbinder_txn_data));
		if (ret) {
			*err = ret;
			break;
		}
	}
	return i - first;
}

/*
 * Reads and frees on p until want messages of code C_FLOOD arrived or
 * nothing more comes; checks order (from seq first) and content.  Other
 * returns are left in *other (count in *nother, up to 8).
 */
static __u32 drain(struct fbt_ctx *p, __u32 first, __u32 want, __u64 cookie,
		   struct fbt_ret *other, int *nother)
{
	__u32 expect = first, got = 0;
	int bad = 0, idle = 0;

	while (got < want && idle < 50) {
		struct fbt_w frees;
		struct fbt_ret ret;
		int rc;

		rc = fbt_try_next(p, &ret);
		if (rc == -EAGAIN) {
			idle++;
			usleep(10000);
			continue;
		}
		if (rc) {
			CHECK(0, "drain: read: %s", strerror(-rc));
			break;
		}
		idle = 0;
		fbt_w_reset(&frees);
		do {
			const struct seqmsg *m;

			if (ret.cmd != FBINDER_RET_TRANSACTION || ret.msg.code != C_FLOOD) {
				if (*nother < 8)
					other[(*nother)++] = ret;
				else
					CHECK(0, "drain: unexpected %s", fbt_ret_name(ret.cmd));
				if (ret.cmd == FBINDER_RET_TRANSACTION)
					fbt_w_free(&frees, ret.msg.data);
				continue;
			}
			m = fbt_data(p, &ret.msg);
			if (!bad && (ret.msg.data_size != sizeof(*m) || m->seq != expect ||
				     ret.msg.cookie != cookie || !(ret.msg.flags & FBINDER_TXN_ONEWAY) ||
				     fbt_verify(m->pat, sizeof(m->pat), m->seq) >= 0)) {
				CHECK(0, "drain: message %u of %u: seq %u size %llu cookie 0x%llx, want seq %u intact",
				      got, want, m->seq, (unsigned long long)ret.msg.data_size,
				      (unsigned long long)ret.msg.cookie, expect);
				bad = 1;
			}
			expect = m->seq + 1;
			got++;
			fbt_w_free(&frees, ret.msg.data);
			if (frees.len > sizeof(frees.buf) - 64) {
				rc = fbt_wr(p, &frees, NULL, false);
				CHECK(rc == 0, "drain: free: %s", strerror(-rc));
				fbt_w_reset(&frees);
			}
		} while (p->qlen && fbt_next(p, &ret) == 0);
		if (frees.len) {
			rc = fbt_wr(p, &frees, NULL, false);
			CHECK(rc == 0, "drain: free: %s", strerror(-rc));
		}
	}
	return got;
}

static bool failed_has(const char *what, int err, __u32 code)
{
	char *f = fbt_slurp(FBT_DEBUGFS "/failed"), *line, *save = NULL;
	bool found = false;

	if (!f)
		return false;
	for (line = strtok_r(f, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long t, node;
		char w[16];
		int e, from, to;
		unsigned int c;

		if (sscanf(line, "%llu %15s %d %d %d %llu %u", &t, w, &e, &from, &to, &node,
			   &c) == 7)
			found = !strcmp(w, what) && e == -err && from == getpid() && c == code;
	}
	free(f);
	return found;
}

/* Contexts in debugfs state whose queue holds n, and those that hold another count. */
static void state_queued(unsigned int n, int *with, int *other)
{
	char *st = fbt_slurp(FBT_DEBUGFS "/state"), *line, *save = NULL;

	*with = *other = 0;
	if (!st)
		return;
	for (line = strtok_r(st, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *q = strstr(line, " queued ");
		unsigned int v;

		if (!strncmp(line, " context pid ", 13) && q && sscanf(q, " queued %u", &v) == 1)
		{
			if (v == n)
				(*with)++;
			else
				(*other)++;
		}
	}
	free(st);
}

/* ---- queued transactions ---- */

static void test_queue_limit(void)
{
	struct fbt_ret ret, other[8];
	struct fbinder_object obj;
	struct fbt_w w;
	__u64 off = 0;
	__u32 h2 = 0, sent, got;
	int err, rc, nother = 0, nwith;

	memset(other, 0, sizeof(other));

	fbt_ctx_open(&r, MB);
	fbt_ctx_open(&s, MB);
	if (fbt_set_mgr(r.fd, R_COOKIE))
		die("R: SET_CONTEXT_MGR");

	/* S gets a handle to R's second node: a call that R answers with it. */
	fbt_w_reset(&w);
	fbt_w_send(&w, 0, C_GIVE, 0, NULL, 0, NULL, 0);
	rc = fbt_wr(&s, &w, NULL, false);
	CHECK(rc == 0, "S's call for R's second object: %s", strerror(-rc));
	rc = fbt_next(&r, &ret);
	if (rc || ret.cmd != FBINDER_RET_TRANSACTION)
		die("R: no call");
	obj = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = R_COOKIE2 };
	rc = fbt_reply(&r, &ret.msg, 0, &obj, sizeof(obj), &off, 1);
	CHECK(rc == 0, "R's reply with its second object: %s", strerror(-rc));
	rc = fbt_next(&s, &ret);
	CHECK(rc == 0 && ret.cmd == FBINDER_RET_REPLY && ret.msg.offsets_count == 1,
	      "S: reply with R's object: %s %s", strerror(-rc), fbt_ret_name(ret.cmd));
	if (!rc && ret.cmd == FBINDER_RET_REPLY) {
		h2 = fbt_obj(&s, &ret.msg, 0)->handle;
		CHECK(fbt_acquire(&s, h2) == 0, "S: acquire h2");
		fbt_free_buffer(&s, ret.msg.data);
	}

	/* 2048 oneways queue; all further sends of this user to R are EDQUOT. */
	sent = flood(&s, 0, 0, SHARE, &err);
	CHECK(sent == SHARE && err == 0, "%u of %u oneways queued to R, then %s", sent,
	      SHARE, strerror(-err));
	state_queued(SHARE, &nwith, &nother);
	CHECK(nwith == 1, "debugfs state: %d contexts with queued %u, want 1", nwith, SHARE);
	nother = 0;
	fill(&msgs[SHARE], SHARE);
	rc = fbt_oneway(&s, 0, C_OVER, &msgs[SHARE], sizeof(msgs[0]), NULL, 0);
	CHECK(rc == -EDQUOT, "oneway number %u: %s, want EDQUOT", SHARE + 1, strerror(-rc));
	rc = fbt_oneway(&s, h2, C_OVER, "x", 1, NULL, 0);
	CHECK(rc == -EDQUOT, "oneway to R's other node with R's queue full: %s, want EDQUOT",
	      strerror(-rc));
	fbt_w_reset(&w);
	fbt_w_send(&w, 0, C_OVER, 0, "y", 1, NULL, 0);
	rc = fbt_wr(&s, &w, NULL, false);
	CHECK(rc == -EDQUOT, "call to R with our share of R's queue full: %s, want EDQUOT",
	      strerror(-rc));
	CHECK(failed_has("send", EDQUOT, C_OVER),
	      "debugfs failed has no \"send\" line with error %d, code %u from pid %d",
	      -EDQUOT, C_OVER, (int)getpid());
	printf("# %u oneways queued (one user's share), the next sends are EDQUOT\n", sent);

	/* Take one: a send fits again, and everything arrives in order. */
	got = drain(&r, 0, 1, R_COOKIE, other, &nother);
	CHECK(got >= 1, "R read nothing");
	sent = flood(&s, 0, SHARE, SHARE + 1, &err);
	CHECK(sent == 1, "oneway after R took some: %s", strerror(-err));
	got += drain(&r, got, SHARE + 1 - got, R_COOKIE, other, &nother);
	CHECK(got == SHARE + 1, "R got %u of %u oneways", got, SHARE + 1);
	CHECK(nother == 0, "R got %d other returns (first: %s code %u): the refused sends arrived?",
	      nother, fbt_ret_name(other[0].cmd), other[0].msg.code);
	state_queued(0, &nwith, &nother);
	CHECK(nother == 0, "debugfs state: %d contexts with a queue after the drain", nother);
	nother = 0;
	printf("# all %u delivered in order and intact\n", got);

	/* A reply to a caller whose context holds R's whole share: it arrives. */
	{
		__u32 hs = 0;

		/* R gets a handle to S's object S_COOKIE. */
		obj = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = S_COOKIE };
		rc = fbt_oneway(&s, 0, C_OBJ, &obj, sizeof(obj), &off, 1);
		CHECK(rc == 0, "S sends its object: %s", strerror(-rc));
		rc = fbt_next(&r, &ret);
		CHECK(rc == 0 && ret.cmd == FBINDER_RET_TRANSACTION && ret.msg.code == C_OBJ,
		      "R: %s %s", strerror(-rc), fbt_ret_name(ret.cmd));
		if (!rc && ret.cmd == FBINDER_RET_TRANSACTION) {
			hs = fbt_obj(&r, &ret.msg, 0)->handle;
			CHECK(fbt_acquire(&r, hs) == 0, "R: acquire S's handle");
			fbt_free_buffer(&r, ret.msg.data);
		}
		/* S calls R; R, handling it, fills S's queue, then replies. */
		fbt_w_reset(&w);
		fbt_w_send(&w, 0, C_CALL, 0, NULL, 0, NULL, 0);
		rc = fbt_wr(&s, &w, NULL, false);
		CHECK(rc == 0, "S's call: %s", strerror(-rc));
		rc = fbt_next(&r, &ret);
		CHECK(rc == 0 && ret.cmd == FBINDER_RET_TRANSACTION && ret.msg.code == C_CALL,
		      "R: the call: %s %s", strerror(-rc), fbt_ret_name(ret.cmd));
		sent = flood(&r, hs, 0, SHARE + 1, &err);
		CHECK(sent == SHARE && err == -EDQUOT, "R queued %u of %u oneways to S, then %s",
		      sent, SHARE, strerror(-err));
		if (!rc && ret.cmd == FBINDER_RET_TRANSACTION) {
			rc = fbt_reply(&r, &ret.msg, 0, "late", 4, NULL, 0);
			CHECK(rc == 0, "R's reply into S's queue holding R's share: %s",
			      strerror(-rc));
		}
		rc = fbt_next(&s, &ret);
		CHECK(rc == 0 && ret.cmd == FBINDER_RET_REPLY && ret.msg.data_size == 4,
		      "S, waiting for the reply: %s %s error %d, want the reply",
		      strerror(-rc), fbt_ret_name(ret.cmd), ret.err.error);
		if (!rc && ret.cmd == FBINDER_RET_REPLY)
			fbt_free_buffer(&s, ret.msg.data);
		nother = 0;
		got = drain(&s, 0, SHARE, S_COOKIE, other, &nother);
		CHECK(got == SHARE && nother == 0, "S got %u of %u oneways and %d others",
		      got, SHARE, nother);
		CHECK(fbt_release(&r, hs) == 0, "R: release S's handle");
		printf("# a reply into a queue holding a sender's whole share arrives\n");
	}
	fbt_ctx_close(&s);
	fbt_ctx_close(&r);
}

/* ---- handles ---- */

static int send_objs(struct fbt_ctx *p, const __u64 *cookies, unsigned int n)
{
	struct fbinder_object objs[4];
	__u64 offs[4];
	unsigned int i;

	for (i = 0; i < n; i++) {
		objs[i] = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = cookies[i] };
		offs[i] = i * sizeof(objs[0]);
	}
	return fbt_oneway(p, 0, C_OBJ, objs, n * sizeof(objs[0]), offs, n);
}

/*
 * R reads one message carrying one object, takes its own reference on the
 * handle and frees the buffer.  Returns the handle, 0 on failure.
 */
static __u32 take_handle(void)
{
	const struct fbinder_object *o;
	struct fbt_ret ret;
	__u32 h = 0;
	int rc;

	rc = fbt_next(&r, &ret);
	if (rc || ret.cmd != FBINDER_RET_TRANSACTION || ret.msg.offsets_count != 1) {
		CHECK(0, "R: %s %s with %llu objects, want one object", strerror(-rc),
		      fbt_ret_name(ret.cmd), (unsigned long long)ret.msg.offsets_count);
		return 0;
	}
	o = fbt_obj(&r, &ret.msg, 0);
	CHECK(o->type == FBINDER_OBJ_HANDLE && o->handle > 0, "R: object type %u handle %u", o->type,
	      o->handle);
	if (o->type == FBINDER_OBJ_HANDLE) {
		h = o->handle;
		CHECK(fbt_acquire(&r, h) == 0, "R: acquire %u", h);
	}
	CHECK(fbt_free_buffer(&r, ret.msg.data) == 0, "R: free");
	return h;
}

static void test_handle_limit(void)
{
	__u32 h[TEST_HANDLES + 1], hmore[2], h3;
	__u64 c, two[2] = { 0x200, 0x201 };
	unsigned int i, notices = 0;
	struct fbt_ret ret;
	long long h0, h1;
	int rc;

	fbt_ctx_open(&r, MB);
	fbt_ctx_open(&s, 0);
	if (fbt_set_mgr(r.fd, R_COOKIE))
		die("R: SET_CONTEXT_MGR");
	write_param("8");
	CHECK(read_param() == TEST_HANDLES, "max_handles reads %ld after writing 8", read_param());
	CHECK(fbt_stat("live_handles", &h0) == 0, "stats: live_handles");

	/* Objects 1..8 give R eight handles. */
	for (c = 1; c <= TEST_HANDLES; c++) {
		rc = send_objs(&s, &c, 1);
		CHECK(rc == 0, "object %llu of %d: %s", (unsigned long long)c, TEST_HANDLES,
		      strerror(-rc));
		h[c] = take_handle();
	}
	c = TEST_HANDLES + 1;
	rc = send_objs(&s, &c, 1);
	CHECK(rc == -EDQUOT, "a ninth object with max_handles 8: %s, want EDQUOT", strerror(-rc));
	rc = fbt_try_next(&r, &ret);
	CHECK(rc == -EAGAIN, "R after the refused send: %s %s, want nothing", strerror(-rc),
	      fbt_ret_name(ret.cmd));
	c = 3;
	rc = send_objs(&s, &c, 1);
	CHECK(rc == 0, "object 3 again (R has a handle for it): %s", strerror(-rc));
	h3 = take_handle();
	CHECK(h3 == h[3], "object 3 came again as handle %u, want %u", h3, h[3]);
	CHECK(fbt_release(&r, h3) == 0, "R: release the second reference of object 3");
	CHECK(fbt_stat("live_handles", &h1) == 0 && h1 == h0 + TEST_HANDLES,
	      "live_handles %lld, want %lld", h1, h0 + TEST_HANDLES);

	/* R drops object 8's handle: S hears of it, and there is room for one. */
	CHECK(fbt_release(&r, h[TEST_HANDLES]) == 0, "R: release object 8's handle");
	rc = fbt_next(&s, &ret);
	CHECK(rc == 0 && ret.cmd == FBINDER_RET_RELEASE && ret.rel.cookie == TEST_HANDLES &&
	      ret.rel.exports == 1, "S: %s cookie %llu, want FBINDER_RET_RELEASE of %d",
	      fbt_ret_name(ret.cmd), (unsigned long long)ret.rel.cookie, TEST_HANDLES);

	/* Two new objects, room for one: refused whole, nothing left behind. */
	rc = send_objs(&s, two, 2);
	CHECK(rc == -EDQUOT, "two new objects with room for one: %s, want EDQUOT", strerror(-rc));
	CHECK(fbt_stat("live_handles", &h1) == 0 && h1 == h0 + TEST_HANDLES - 1,
	      "live_handles %lld after the refused send, want %lld", h1,
	      h0 + TEST_HANDLES - 1);
	rc = send_objs(&s, &two[1], 1);
	CHECK(rc == 0, "one new object with room for one: %s", strerror(-rc));
	hmore[0] = take_handle();
	c = 0x300;
	rc = send_objs(&s, &c, 1);
	CHECK(rc == -EDQUOT, "full again: %s, want EDQUOT", strerror(-rc));

	/* The limit is read at each send: back at the default, it fits. */
	write_param(saved_max);
	rc = send_objs(&s, &c, 1);
	CHECK(rc == 0, "object after max_handles went back to %s: %s", saved_max, strerror(-rc));
	hmore[1] = take_handle();

	/* R lets go of all; S hears of every object that arrived, and of no other. */
	for (i = 1; i < TEST_HANDLES; i++)
		CHECK(fbt_release(&r, h[i]) == 0, "R: release %u", h[i]);
	for (i = 0; i < 2; i++)
		CHECK(fbt_release(&r, hmore[i]) == 0, "R: release %u", hmore[i]);
	while (notices < 20) {
		rc = fbt_try_next(&s, &ret);
		if (rc == -EAGAIN)
			break;
		notices++;
		CHECK(rc == 0 && ret.cmd == FBINDER_RET_RELEASE &&
		      ret.rel.cookie != TEST_HANDLES + 1 && ret.rel.cookie != 0x200 &&
		      ret.rel.exports == (ret.rel.cookie == 3 ? 2u : 1u),
		      "S: %s cookie 0x%llx exports %llu: a refused object was exported",
		      fbt_ret_name(ret.cmd), (unsigned long long)ret.rel.cookie,
		      (unsigned long long)ret.rel.exports);
	}
	CHECK(notices == TEST_HANDLES + 1, "S got %u release notices, want %d", notices,
	      TEST_HANDLES + 1);
	fbt_ctx_close(&s);
	fbt_ctx_close(&r);
	printf("# max_handles %d: the ninth handle is EDQUOT and leaves no trace\n", TEST_HANDLES);
}

/* ---- objects per message, message size ---- */

static void test_sizes(void)
{
	static struct fbinder_object objs[MAX_OBJECTS + 1];
	static __u64 offs[MAX_OBJECTS + 1];
	static unsigned char big[MB + 16];
	const size_t map = MB;
	struct fbt_ret ret;
	struct fbt_w w;
	unsigned int i, ok;
	int rc;

	fbt_ctx_open(&r, map);
	fbt_ctx_open(&s, 64 * 1024);
	if (fbt_set_mgr(r.fd, R_COOKIE))
		die("R: SET_CONTEXT_MGR");
	for (i = 0; i <= MAX_OBJECTS; i++) {
		objs[i] = (struct fbinder_object){ .type = FBINDER_OBJ_HANDLE, .handle = 0 };
		offs[i] = i * sizeof(objs[0]);
	}
	rc = fbt_oneway(&s, 0, C_OBJ, objs, (MAX_OBJECTS + 1) * sizeof(objs[0]), offs,
			MAX_OBJECTS + 1);
	CHECK(rc == -EMSGSIZE, "%d objects: %s, want EMSGSIZE", MAX_OBJECTS + 1, strerror(-rc));
	rc = fbt_oneway(&s, 0, C_OBJ, objs, MAX_OBJECTS * sizeof(objs[0]), offs, MAX_OBJECTS);
	CHECK(rc == 0, "%d objects: %s", MAX_OBJECTS, strerror(-rc));
	rc = fbt_next(&r, &ret);
	CHECK(rc == 0 && ret.cmd == FBINDER_RET_TRANSACTION && ret.msg.offsets_count == MAX_OBJECTS,
	      "R: %s with %llu objects, want %d", fbt_ret_name(ret.cmd),
	      (unsigned long long)ret.msg.offsets_count, MAX_OBJECTS);
	if (!rc && ret.cmd == FBINDER_RET_TRANSACTION) {
		for (i = ok = 0; i < ret.msg.offsets_count; i++) {
			const struct fbinder_object *o = fbt_obj(&r, &ret.msg, i);

			ok += o->type == FBINDER_OBJ_LOCAL && o->cookie == R_COOKIE;
		}
		CHECK(ok == MAX_OBJECTS, "%u of %d objects arrived as R's own object", ok,
		      MAX_OBJECTS);
		fbt_free_buffer(&r, ret.msg.data);
	}
	printf("# %d objects in one message pass, %d are EMSGSIZE\n", MAX_OBJECTS,
	       MAX_OBJECTS + 1);

	/*
	 * Oneway: exactly a quarter of R's mapping (a user's share of the
	 * oneway half) passes, 8 bytes more do not, nor does the half.
	 */
	fbt_fill(big, sizeof(big), 77);
	rc = fbt_oneway(&s, 0, C_BIG, big, map / 2, NULL, 0);
	CHECK(rc == -EMSGSIZE, "oneway of half the mapping: %s, want EMSGSIZE", strerror(-rc));
	rc = fbt_oneway(&s, 0, C_BIG, big, map / 4 + 8, NULL, 0);
	CHECK(rc == -EMSGSIZE, "oneway of a quarter of the mapping + 8: %s, want EMSGSIZE",
	      strerror(-rc));
	rc = fbt_oneway(&s, 0, C_BIG, big, map / 4, NULL, 0);
	CHECK(rc == 0, "oneway of exactly a quarter of the mapping: %s", strerror(-rc));
	rc = fbt_next(&r, &ret);
	CHECK(rc == 0 && ret.cmd == FBINDER_RET_TRANSACTION && ret.msg.data_size == map / 4 &&
	      fbt_verify(fbt_data(&r, &ret.msg), map / 4, 77) < 0,
	      "R: quarter-mapping oneway: %s %s %llu bytes", strerror(-rc), fbt_ret_name(ret.cmd),
	      (unsigned long long)ret.msg.data_size);
	if (!rc && ret.cmd == FBINDER_RET_TRANSACTION)
		fbt_free_buffer(&r, ret.msg.data);

	/* Call: data plus offsets up to the whole mapping; 8 bytes more are EMSGSIZE. */
	objs[0] = (struct fbinder_object){ .type = FBINDER_OBJ_HANDLE, .handle = 0 };
	memcpy(big, &objs[0], sizeof(objs[0]));
	offs[0] = 0;
	offs[1] = 8 * 1024;
	memcpy(big + offs[1], &objs[0], sizeof(objs[0]));
	fbt_w_reset(&w);
	fbt_w_send(&w, 0, C_BIG, 0, big, map - 8, offs, 2);
	rc = fbt_wr(&s, &w, NULL, false);
	CHECK(rc == -EMSGSIZE, "call of mapping - 8 data + 2 offsets: %s, want EMSGSIZE",
	      strerror(-rc));
	fbt_w_reset(&w);
	fbt_w_send(&w, 0, C_BIG, 0, big, map + 8, NULL, 0);
	rc = fbt_wr(&s, &w, NULL, false);
	CHECK(rc == -EMSGSIZE, "call of mapping + 8: %s, want EMSGSIZE", strerror(-rc));
	fbt_w_reset(&w);
	fbt_w_send(&w, 0, C_BIG, 0, big, map - 8, offs, 1);
	rc = fbt_wr(&s, &w, NULL, false);
	CHECK(rc == 0, "call of mapping - 8 data + 1 offset (the whole mapping): %s",
	      strerror(-rc));
	rc = fbt_next(&r, &ret);
	CHECK(rc == 0 && ret.cmd == FBINDER_RET_TRANSACTION && ret.msg.data_size == map - 8 &&
	      ret.msg.offsets_count == 1,
	      "R: whole-mapping call: %s %s", strerror(-rc), fbt_ret_name(ret.cmd));
	if (!rc && ret.cmd == FBINDER_RET_TRANSACTION) {
		rc = fbt_reply(&r, &ret.msg, 0, NULL, 0, NULL, 0);
		CHECK(rc == 0, "R: reply: %s", strerror(-rc));
	}
	rc = fbt_next(&s, &ret);
	CHECK(rc == 0 && ret.cmd == FBINDER_RET_REPLY, "S: reply to the whole-mapping call: %s %s",
	      strerror(-rc), fbt_ret_name(ret.cmd));
	if (!rc && ret.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&s, ret.msg.data);
	fbt_ctx_close(&s);
	fbt_ctx_close(&r);
	printf("# a call of the whole mapping and a oneway of a quarter pass, 8 bytes more do not\n");
}

int main(void)
{
	char *v;

	alarm(50);
	v = fbt_slurp(PARAM);
	if (!v || !*v)
		die("read %s", PARAM);
	snprintf(saved_max, sizeof(saved_max), "%ld", strtol(v, NULL, 10));
	free(v);
	atexit(restore_param);
	signal(SIGALRM, on_signal);
	signal(SIGTERM, on_signal);

	test_queue_limit();
	test_handle_limit();
	test_sizes();

	CHECK(read_param() == strtol(saved_max, NULL, 10), "max_handles not restored");
	CHECK(fbt_wait_live_zero(3000) == 0, "live counts did not return to zero");
	return fbt_done();
}
