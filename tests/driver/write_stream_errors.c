// SPDX-License-Identifier: MIT
/*
 * write_stream_errors: every documented failure of the write stream returns its
 * errno, takes no effect (nothing reaches the target, no stray return), and
 * leaves the context usable: each case is followed by a successful call.
 * write_consumed points at the failing command, the commands before it took
 * effect and those after it did not, and read_consumed is left alone.
 *
 * S is the manager (a 256 KiB buffer, so it fills up quickly); this process
 * is the client A.  Failing sends use code C_MUSTNOT, which S refuses to see.
 */
#include "fbt_proto.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define S_MAP		(256 * 1024)
#define A_MAP		MB
#define MGR_COOKIE	0xe4404ULL
#define CS2		0x5ec0dULL	/* S's second object */
#define BADPTR		((__u64)8)	/* never mapped (mmap_min_addr) */

enum {
	C_ECHO = 1,	/* reply the same bytes and code */
	C_GIVE_SELF,	/* reply with S's object CS2 */
	C_HOLD_SYNC,	/* reply, keep the call's buffer */
	C_HOLD_ONEWAY,	/* oneway: kept while holding, else freed */
	C_SET_HOLD,	/* __u32: holding on/off; off frees all held; reply: count freed */
	C_BIGREPLY,	/* __u64 n: reply n bytes (fails when too big for A) */
	C_RESULT,	/* reply: __s32 errno of the last C_BIGREPLY reply */
	C_QUIT,
	C_MUSTNOT = 99,	/* a failing send: must never arrive */
};

/* ---- S ---- */

struct sstate {
	bool holding;
	unsigned int nheld;
	__u64 held[64];
	__s32 bigreply_rc;
	unsigned char *big;
	int releases;		/* FBINDER_RET_RELEASE of CS2 */
};

static void s_hold(struct sstate *st, struct fbt_ctx *p, __u64 off)
{
	if (st->holding && st->nheld < 64)
		st->held[st->nheld++] = off;
	else
		CHECK(fbt_free_buffer(p, off) == 0, "S: free");
}

static int s_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct sstate *st = arg;
	const struct fbinder_txn_msg *m = &r->msg;
	struct fbinder_object obj;
	__u64 off = 0, n;
	__u32 v, i;
	int ret;

	if (r->cmd == FBINDER_RET_RELEASE) {
		/* A dropped the only handle of CS2, given once. */
		CHECK(r->rel.cookie == CS2 && r->rel.exports == 1,
		      "S: FBINDER_RET_RELEASE cookie 0x%llx exports %llu, want 0x%llx exports 1",
		      (unsigned long long)r->rel.cookie, (unsigned long long)r->rel.exports,
		      (unsigned long long)CS2);
		st->releases++;
		return 0;
	}
	if (r->cmd != FBINDER_RET_TRANSACTION) {
		CHECK(0, "S got %s", fbt_ret_name(r->cmd));
		return 0;
	}
	switch (m->code) {
	case C_ECHO:
		CHECK(m->cookie == MGR_COOKIE || m->cookie == CS2, "S: cookie 0x%llx",
		      (unsigned long long)m->cookie);
		ret = fbt_reply(p, m, m->cookie == CS2 ? 2 : 1, fbt_data(p, m),
				m->data_size, NULL, 0);
		CHECK(ret == 0, "S: echo reply: %s", strerror(-ret));
		return 0;
	case C_GIVE_SELF:
		obj = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = CS2 };
		ret = fbt_reply(p, m, 0, &obj, sizeof(obj), &off, 1);
		CHECK(ret == 0, "S: reply with CS2: %s", strerror(-ret));
		return 0;
	case C_HOLD_SYNC: {
		struct fbt_w w;

		fbt_w_reset(&w);
		fbt_w_reply(&w, 0, NULL, 0, NULL, 0);
		ret = fbt_wr(p, &w, NULL, false);
		CHECK(ret == 0, "S: reply: %s", strerror(-ret));
		s_hold(st, p, m->data);
		return 0;
	}
	case C_HOLD_ONEWAY:
		CHECK(m->flags & FBINDER_TXN_ONEWAY, "S: C_HOLD_ONEWAY not oneway");
		s_hold(st, p, m->data);
		return 0;
	case C_SET_HOLD:
		memcpy(&v, fbt_data(p, m), sizeof(v));
		n = st->nheld;
		if (!v) {
			for (i = 0; i < st->nheld; i++)
				CHECK(fbt_free_buffer(p, st->held[i]) == 0, "S: free held");
			st->nheld = 0;
		}
		st->holding = v;
		ret = fbt_reply(p, m, 0, &n, sizeof(n), NULL, 0);
		CHECK(ret == 0, "S: reply: %s", strerror(-ret));
		return 0;
	case C_BIGREPLY:
		memcpy(&n, fbt_data(p, m), sizeof(n));
		st->bigreply_rc = fbt_reply(p, m, 0, st->big, n, NULL, 0);
		return 0;
	case C_RESULT:
		ret = fbt_reply(p, m, 0, &st->bigreply_rc, sizeof(st->bigreply_rc), NULL, 0);
		CHECK(ret == 0, "S: reply: %s", strerror(-ret));
		return 0;
	case C_QUIT:
		CHECK(st->nheld == 0, "S: %u buffers still held", st->nheld);
		CHECK(st->releases == 1, "S: %d release notices for CS2, want 1", st->releases);
		fbt_reply(p, m, 0, NULL, 0, NULL, 0);
		return 1;
	}
	CHECK(0, "S: a message with code %u arrived (flags 0x%x, %llu bytes, %llu objects)",
	      m->code, m->flags, (unsigned long long)m->data_size,
	      (unsigned long long)m->offsets_count);
	if (m->flags & FBINDER_TXN_ONEWAY)
		fbt_free_buffer(p, m->data);
	else
		fbt_reply(p, m, 0, NULL, 0, NULL, 0);
	return 0;
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	struct sstate st = { 0 };
	int ret;

	(void)arg;
	st.big = calloc(1, 2 * A_MAP);
	if (!st.big)
		die("calloc");
	ret = fbt_serve(p, s_handle, &st);
	CHECK(ret == 0, "S: serve: %s", strerror(-ret));
	free(st.big);
	return fbt_child_status();
}

/* ---- A ---- */

static struct fbt_ctx c;
static unsigned char big[2 * S_MAP];

/* EXPECT(an expression giving 0 or -errno, the errno wanted (0: success), "what"). */
#define EXPECT(expr, want, what)                                               \
	do {                                                                   \
		int _r = (expr);                                               \
		CHECK(_r == -(want), "%s: got %s, want %s", (what),            \
		      _r ? strerror(-_r) : "success",                          \
		      (want) ? strerror(want) : "success");                    \
	} while (0)

/* A successful, content-checked echo call: the context is still usable. */
static void usable(const char *after)
{
	unsigned char buf[64];
	struct fbt_ret r;
	static __u32 seed = 1;
	int ret;

	fbt_fill(buf, sizeof(buf), ++seed);
	ret = fbt_call(&c, 0, C_ECHO, buf, sizeof(buf), NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "call after %s: %s %s (error %d)", after,
	      strerror(-ret), fbt_ret_name(r.cmd), r.cmd == FBINDER_RET_FAILED ? r.err.error : 0);
	if (ret || r.cmd != FBINDER_RET_REPLY)
		return;
	CHECK(r.msg.data_size == sizeof(buf) &&
	      fbt_verify(fbt_data(&c, &r.msg), sizeof(buf), seed) < 0,
	      "echo after %s came back wrong", after);
	CHECK(fbt_free_buffer(&c, r.msg.data) == 0, "free after %s", after);
	printf("# %s: ok, context usable\n", after);
}

/* One raw command; returns -errno, *consumed the write_consumed. */
static int raw(const void *w, size_t len, size_t *consumed)
{
	return fbt_write_read(c.fd, (void *)w, len, consumed, NULL, 0, NULL);
}

/* Sync send of A's data with objects at offs, which must fail. */
static int bad_send(__u32 flags, const void *data, size_t size, const __u64 *offs, size_t n)
{
	struct fbt_w w;
	size_t done = 99;
	int ret;

	fbt_w_reset(&w);
	fbt_w_send(&w, 0, C_MUSTNOT, flags, data, size, offs, n);
	ret = fbt_wr(&c, &w, &done, false);
	CHECK(ret == 0 || done == 0, "failed send: write_consumed %zu, want 0", done);
	if (ret == 0 && !(flags & FBINDER_TXN_ONEWAY)) {
		/* It went through: collect the reply so the thread is not stuck. */
		struct fbt_ret r;

		if (fbt_next(&c, &r) == 0 && r.cmd == FBINDER_RET_REPLY)
			fbt_free_buffer(&c, r.msg.data);
	}
	return ret;
}

static __u64 echo_keep(void)
{
	struct fbt_ret r;
	int ret = fbt_call(&c, 0, C_ECHO, "keep", 4, NULL, 0, &r, NULL, NULL);

	if (ret || r.cmd != FBINDER_RET_REPLY) {
		errno = -ret;
		die("echo call");
	}
	return r.msg.data;
}

static void test_reply_and_free(void)
{
	struct fbt_w w;
	size_t done = 99;
	__u64 off;

	fbt_w_reset(&w);
	fbt_w_reply(&w, 0, NULL, 0, NULL, 0);
	EXPECT(fbt_wr(&c, &w, &done, false), EPROTO, "reply with no transaction");
	CHECK(done == 0, "write_consumed %zu after a failed first command", done);
	usable("reply with no transaction (EPROTO)");

	EXPECT(fbt_free_buffer(&c, 0), EINVAL, "free of offset 0, never given");
	EXPECT(fbt_free_buffer(&c, 4096), EINVAL, "free of offset 4096, never given");
	EXPECT(fbt_free_buffer(&c, A_MAP + 4096), EINVAL, "free past the mapping");
	EXPECT(fbt_free_buffer(&c, ~0ULL), EINVAL, "free of offset ~0");
	usable("free of slots never given (EINVAL)");

	off = echo_keep();
	EXPECT(fbt_free_buffer(&c, off + 8), EINVAL, "free inside a slot, not at its start");
	EXPECT(fbt_free_buffer(&c, off), 0, "first free of a reply");
	EXPECT(fbt_free_buffer(&c, off), EINVAL, "double free");
	usable("double free (EINVAL)");
}

static void test_offsets(void)
{
	struct fbinder_object objs[4];
	__u64 offs[2];
	int i;

	for (i = 0; i < 4; i++)
		objs[i] = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = 0x100 + i };

	offs[0] = 64;
	EXPECT(bad_send(0, objs, 64, offs, 1), EINVAL, "object at offset 64 of 64 bytes");
	offs[0] = 56;
	EXPECT(bad_send(0, objs, 64, offs, 1), EINVAL, "object at 56 running past 64 bytes");
	offs[0] = 1ULL << 62;
	EXPECT(bad_send(0, objs, 64, offs, 1), EINVAL, "object at offset 2^62");
	offs[0] = 4;
	EXPECT(bad_send(0, objs, 64, offs, 1), EINVAL, "object at misaligned offset 4");
	offs[0] = 0;
	offs[1] = 8;
	EXPECT(bad_send(0, objs, 64, offs, 2), EINVAL, "objects at 0 and 8 overlap");
	offs[0] = 16;
	offs[1] = 0;
	EXPECT(bad_send(0, objs, 64, offs, 2), EINVAL, "offsets not increasing (16, 0)");
	offs[0] = offs[1] = 16;
	EXPECT(bad_send(0, objs, 64, offs, 2), EINVAL, "the same offset twice");
	offs[0] = 4;
	EXPECT(bad_send(FBINDER_TXN_ONEWAY, objs, 64, offs, 1), EINVAL, "oneway, misaligned object");
	usable("bad offsets (EINVAL)");
}

static void test_object_types(void)
{
	struct fbinder_object o;
	__u64 off = 0;

	o = (struct fbinder_object){ .type = 7, .cookie = 1 };
	EXPECT(bad_send(0, &o, sizeof(o), &off, 1), EINVAL, "object of unknown type 7");
	o = (struct fbinder_object){ .type = 0, .cookie = 1 };
	EXPECT(bad_send(0, &o, sizeof(o), &off, 1), EINVAL, "object of type 0");
	o = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .flags = 0x8000, .cookie = 1 };
	EXPECT(bad_send(0, &o, sizeof(o), &off, 1), EINVAL, "LOCAL with unknown flag 0x8000");
	o = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .flags = FBINDER_OBJF_MIN_PRIO | 25, .cookie = 1 };
	EXPECT(bad_send(0, &o, sizeof(o), &off, 1), EINVAL, "LOCAL with min nice 25");
	/* RT priority 0: the priority bits left at zero */
	o = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL,
				.flags = FBINDER_OBJF_MIN_PRIO | FBINDER_OBJF_PRIO_RT, .cookie = 1 };
	EXPECT(bad_send(0, &o, sizeof(o), &off, 1), EINVAL, "LOCAL with RT priority 0");
	o = (struct fbinder_object){ .type = FBINDER_OBJ_HANDLE, .flags = 1, .handle = 0 };
	EXPECT(bad_send(0, &o, sizeof(o), &off, 1), EINVAL, "HANDLE with flags 1");
	o = (struct fbinder_object){ .type = FBINDER_OBJ_FD, .fd = c.fd };
	EXPECT(bad_send(0, &o, sizeof(o), &off, 1), EINVAL, "FD of a fastbinder descriptor");
	o = (struct fbinder_object){ .type = FBINDER_OBJ_FD, .fd = 999 };
	EXPECT(bad_send(0, &o, sizeof(o), &off, 1), EBADF, "FD not open");
	EXPECT(bad_send(0x80, "x", 1, NULL, 0), EINVAL, "send with unknown flag 0x80");
	usable("bad objects (EINVAL/EBADF)");
}

static void test_handles(void)
{
	struct fbinder_object o = { .type = FBINDER_OBJ_HANDLE, .handle = 12345 };
	struct fbt_ret r;
	struct fbt_w w;
	__u64 off = 0;
	__u32 hs = 0;
	int ret;

	ret = fbt_oneway(&c, 12345, C_MUSTNOT, NULL, 0, NULL, 0);
	CHECK(ret == -ENOENT, "oneway to handle 12345, never given: %s, want ENOENT",
	      strerror(-ret));
	ret = fbt_call(&c, 12345, C_MUSTNOT, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == -ENOENT, "call to handle 12345, never given: %s, want ENOENT",
	      strerror(-ret));
	EXPECT(bad_send(0, &o, sizeof(o), &off, 1), ENOENT, "object HANDLE 12345, never given");
	EXPECT(fbt_acquire(&c, 12345), ENOENT, "acquire of handle 12345");
	EXPECT(fbt_release(&c, 12345), ENOENT, "release of handle 12345");
	EXPECT(fbt_acquire(&c, 0), 0, "acquire of handle 0 (no-op)");
	EXPECT(fbt_release(&c, 0), 0, "release of handle 0 (no-op)");
	EXPECT(fbt_release(&c, 0), 0, "release of handle 0 again (no-op)");
	EXPECT(fbt_release(&c, 0), 0, "release of handle 0 once more (no-op)");
	usable("handles never given (ENOENT)");

	/* A handle of S's object, held only by the reply buffer. */
	ret = fbt_call(&c, 0, C_GIVE_SELF, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY && r.msg.offsets_count == 1, "GIVE_SELF");
	if (ret || r.cmd != FBINDER_RET_REPLY || r.msg.offsets_count != 1)
		return;
	hs = fbt_obj(&c, &r.msg, 0)->handle;
	CHECK(fbt_obj(&c, &r.msg, 0)->type == FBINDER_OBJ_HANDLE && hs != 0,
	      "S's object arrived as type %u handle %u", fbt_obj(&c, &r.msg, 0)->type, hs);
	EXPECT(fbt_release(&c, hs), EINVAL, "release of a reference only a buffer holds");
	EXPECT(fbt_acquire(&c, hs), 0, "acquire of a handle from a reply");
	EXPECT(fbt_free_buffer(&c, r.msg.data), 0, "free of the reply");
	ret = fbt_call(&c, hs, C_ECHO, "abc", 3, NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY && r.msg.code == 2,
	      "call through acquired handle %u: %s %s code %u, want reply code 2 (cookie CS2)",
	      hs, strerror(-ret), fbt_ret_name(r.cmd), r.msg.code);
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	EXPECT(fbt_release(&c, hs), 0, "release of the acquired reference");
	EXPECT(fbt_release(&c, hs), ENOENT, "release of a released handle");
	EXPECT(fbt_acquire(&c, hs), ENOENT, "acquire of a released handle");
	ret = fbt_call(&c, hs, C_MUSTNOT, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == -ENOENT, "call to released handle %u: %s, want ENOENT", hs, strerror(-ret));
	o.handle = hs;
	EXPECT(bad_send(0, &o, sizeof(o), &off, 1), ENOENT, "object HANDLE of a released handle");
	/* ACQUIRE then RELEASE of the same gone handle in one stream: stops at the first. */
	fbt_w_reset(&w);
	fbt_w_u32(&w, FBINDER_CMD_ACQUIRE, hs);
	fbt_w_u32(&w, FBINDER_CMD_RELEASE, hs);
	{
		size_t done = 99;

		EXPECT(fbt_wr(&c, &w, &done, false), ENOENT, "stream of acquire+release of a gone handle");
		CHECK(done == 0, "write_consumed %zu, want 0", done);
	}
	usable("released handle (ENOENT)");
}

static void test_sizes(void)
{
	static struct fbinder_object objs[4097];
	static __u64 offs[4097];
	int i;

	EXPECT(bad_send(0, big, S_MAP + 8, NULL, 0), EMSGSIZE, "call bigger than S's mapping");
	EXPECT(bad_send(FBINDER_TXN_ONEWAY, big, S_MAP / 2 + 8, NULL, 0), EMSGSIZE,
	       "oneway bigger than half S's mapping");
	for (i = 0; i < 4097; i++) {
		objs[i] = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = 0x1000 + i };
		offs[i] = i * sizeof(objs[0]);
	}
	EXPECT(bad_send(0, objs, sizeof(objs), offs, 4097), EMSGSIZE, "4097 objects");
	usable("messages too big (EMSGSIZE)");
}

static void test_reply_too_big(void)
{
	struct fbt_ret r;
	__u64 n = A_MAP + 8;
	__s32 rc = 0;
	int ret;

	ret = fbt_call(&c, 0, C_BIGREPLY, &n, sizeof(n), NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_FAILED && r.err.error == -EMSGSIZE,
	      "call whose reply is bigger than the caller's mapping: %s %s error %d, want FBINDER_RET_FAILED -EMSGSIZE",
	      strerror(-ret), fbt_ret_name(r.cmd), r.err.error);
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	ret = fbt_call(&c, 0, C_RESULT, NULL, 0, NULL, 0, &r, NULL, NULL);
	if (!ret && r.cmd == FBINDER_RET_REPLY) {
		memcpy(&rc, fbt_data(&c, &r.msg), sizeof(rc));
		fbt_free_buffer(&c, r.msg.data);
	}
	CHECK(rc == -EMSGSIZE, "S's oversize FBINDER_CMD_REPLY: %s, want EMSGSIZE", strerror(-rc));
	usable("reply too big (FBINDER_RET_FAILED -EMSGSIZE)");
}

static __u64 set_hold(__u32 on)
{
	struct fbt_ret r;
	__u64 n = ~0ULL;
	int ret = fbt_call(&c, 0, C_SET_HOLD, &on, sizeof(on), NULL, 0, &r, NULL, NULL);

	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "SET_HOLD %u: %s", on, strerror(-ret));
	if (!ret && r.cmd == FBINDER_RET_REPLY) {
		memcpy(&n, fbt_data(&c, &r.msg), sizeof(n));
		fbt_free_buffer(&c, r.msg.data);
	}
	return n;
}

/*
 * Fill S's buffer with unfreed calls, then with unfreed oneways: ENOSPC, queue
 * intact.  We are S's only sending user, so ENOSPC comes at our fair share of
 * the buffer, about half of it (docs/abi.md, FBINDER_CMD_SEND), and of its oneway half.
 */
static void test_full_buffer(void)
{
	struct fbt_ret r;
	int i, ok = 0, ret = 0;

	set_hold(1);
	for (i = 0; i < S_MAP / 40000 + 2; i++) {
		ret = fbt_call(&c, 0, C_HOLD_SYNC, big, 40000, NULL, 0, &r, NULL, NULL);
		if (ret)
			break;
		CHECK(r.cmd == FBINDER_RET_REPLY, "hold call %d: %s", i, fbt_ret_name(r.cmd));
		if (r.cmd == FBINDER_RET_REPLY)
			fbt_free_buffer(&c, r.msg.data);
		ok++;
	}
	CHECK(ret == -ENOSPC, "calls of 40000 bytes into a full 256 KiB buffer: %s after %d, want ENOSPC",
	      strerror(-ret), ok);
	CHECK(ok >= 3, "only %d calls of 40000 bytes fit in our half of 256 KiB", ok);
	usable("full buffer, sync (ENOSPC)");
	CHECK(set_hold(0) == (__u64)ok, "S held %d buffers", ok);
	usable("full buffer freed");

	set_hold(1);
	ok = 0;
	for (i = 0; i < S_MAP / 2 / 16384 + 2; i++) {
		ret = fbt_oneway(&c, 0, C_HOLD_ONEWAY, big, 16384, NULL, 0);
		if (ret)
			break;
		ok++;
	}
	CHECK(ret == -ENOSPC, "oneways of 16 KiB into a 256 KiB buffer: %s after %d, want ENOSPC",
	      strerror(-ret), ok);
	CHECK(ok >= 4, "only %d oneways of 16 KiB fit in the oneway half of 256 KiB", ok);
	usable("oneway share full (ENOSPC): sync calls still fit");
	set_hold(0);	/* S frees the first; the others arrive one by one and are freed */
	usable("oneway share drained");
	/* Once S drained the queue the share is free again (S may still be at it). */
	for (i = 0; i < 300; i++) {
		ret = fbt_oneway(&c, 0, C_HOLD_ONEWAY, big, 16384, NULL, 0);
		if (ret != -ENOSPC)
			break;
		usleep(10000);
	}
	CHECK(ret == 0, "oneway after the share drained: %s", strerror(-ret));
	usable("oneway after drain");
}

static void test_stream_errors(void)
{
	__u32 bogus[] = { _IO('c', 99), _IOW('c', FBINDER_CMD_FREE_BUFFER & 0xff, __u32),
			  _IOW('x', 0, struct fbinder_txn_data), 0 };
	unsigned char rbuf[128];
	struct fbinder_write_read wr;
	struct fbt_w w;
	size_t done;
	__u64 r1, r2;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(bogus) / sizeof(bogus[0]); i++) {
		static const unsigned char pay[64];

		fbt_w_reset(&w);
		fbt_w_cmd(&w, bogus[i], pay, FBT_PSIZE(bogus[i]));
		done = 99;
		char what[64];

		snprintf(what, sizeof(what), "unknown command 0x%08x", bogus[i]);
		EXPECT(raw(w.buf, w.len, &done), EINVAL, what);
		CHECK(done == 0, "write_consumed %zu after unknown first command", done);
	}
	usable("unknown commands (EINVAL)");

	/* [FREE r1][unknown][FREE r2]: r1 freed, r2 not; the read stream untouched. */
	r1 = echo_keep();
	r2 = echo_keep();
	fbt_w_reset(&w);
	fbt_w_free(&w, r1);
	fbt_w_cmd(&w, _IO('c', 99), NULL, 0);
	fbt_w_free(&w, r2);
	memset(rbuf, 0x5a, sizeof(rbuf));
	wr = (struct fbinder_write_read){ .write_buffer = (uintptr_t)w.buf, .write_size = w.len,
				     .read_buffer = (uintptr_t)rbuf, .read_size = sizeof(rbuf),
				     .read_consumed = 0 };
	ret = ioctl(c.fd, FBINDER_IOC_WRITE_READ, &wr);
	CHECK(ret < 0 && errno == EINVAL, "stream with an unknown 2nd command: %s, want EINVAL",
	      ret < 0 ? strerror(errno) : "success");
	CHECK(wr.write_consumed == 4 + 8, "write_consumed %llu, want 12 (at the failing command)",
	      (unsigned long long)wr.write_consumed);
	CHECK(wr.read_consumed == 0 && rbuf[0] == 0x5a, "read stream touched after a failed write");
	EXPECT(fbt_free_buffer(&c, r1), EINVAL, "free of r1, which the stream freed before failing");
	EXPECT(fbt_free_buffer(&c, r2), 0, "free of r2, after the failing command");

	/* [FREE r1][SEND to a bad handle][FREE r2]: ENOENT, consumed 12. */
	r1 = echo_keep();
	r2 = echo_keep();
	fbt_w_reset(&w);
	fbt_w_free(&w, r1);
	fbt_w_send(&w, 4242, C_MUSTNOT, FBINDER_TXN_ONEWAY, NULL, 0, NULL, 0);
	fbt_w_free(&w, r2);
	done = 99;
	EXPECT(raw(w.buf, w.len, &done), ENOENT, "stream with a send to a bad handle");
	CHECK(done == 12, "write_consumed %zu, want 12", done);
	EXPECT(fbt_free_buffer(&c, r1), EINVAL, "free of r1 again");
	EXPECT(fbt_free_buffer(&c, r2), 0, "free of r2");
	usable("failing command mid-stream");

	/* Truncated payloads: the command runs past write_size. */
	r1 = echo_keep();
	fbt_w_reset(&w);
	fbt_w_free(&w, r1);
	fbt_w_send(&w, 0, C_MUSTNOT, FBINDER_TXN_ONEWAY, NULL, 0, NULL, 0);
	done = 99;
	EXPECT(raw(w.buf, w.len - 20, &done), EINVAL, "send truncated by 20 bytes");
	CHECK(done == 12, "write_consumed %zu, want 12 (the free before it done)", done);
	EXPECT(fbt_free_buffer(&c, r1), EINVAL, "free of r1 again");
	fbt_w_reset(&w);
	fbt_w_free(&w, 0);
	done = 99;
	EXPECT(raw(w.buf, 8, &done), EINVAL, "FREE_BUFFER with 4 of 8 payload bytes");
	CHECK(done == 0, "write_consumed %zu, want 0", done);
	EXPECT(raw(w.buf, 2, &done), EINVAL, "2 bytes: half a command code");
	CHECK(done == 0, "write_consumed %zu, want 0", done);
	usable("truncated commands (EINVAL)");
}

static void test_efault(void)
{
	struct fbinder_version v;
	struct fbt_w w;
	__u32 max;
	void *none;
	int ret;

	EXPECT(raw((void *)(uintptr_t)BADPTR, 44, NULL), EFAULT, "write_buffer at address 8");
	ret = ioctl(c.fd, FBINDER_IOC_WRITE_READ, (void *)(uintptr_t)BADPTR);
	CHECK(ret < 0 && errno == EFAULT, "WRITE_READ argument at address 8: %s, want EFAULT",
	      ret < 0 ? strerror(errno) : "success");
	EXPECT(bad_send(0, (void *)(uintptr_t)BADPTR, 16, NULL, 0), EFAULT, "data at address 8");
	{
		struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL, .cookie = 5 };

		EXPECT(bad_send(0, &o, sizeof(o), (void *)(uintptr_t)BADPTR, 1), EFAULT,
		       "offsets at address 8");
	}
	none = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (none == MAP_FAILED || mprotect((char *)none + 4096, 4096, PROT_NONE))
		die("mmap");
	EXPECT(bad_send(FBINDER_TXN_ONEWAY, (char *)none + 4096, 100, NULL, 0), EFAULT,
	       "data in a PROT_NONE page");
	/* A stream whose second command lies in the PROT_NONE page: the first takes effect. */
	{
		__u64 r1 = echo_keep();
		unsigned char *at = (unsigned char *)none + 4096 - 12;
		size_t done = 99;

		fbt_w_reset(&w);
		fbt_w_free(&w, r1);
		memcpy(at, w.buf, 12);
		EXPECT(raw(at, 12 + 8, &done), EFAULT, "stream running into a PROT_NONE page");
		CHECK(done == 12, "write_consumed %zu, want 12", done);
		EXPECT(fbt_free_buffer(&c, r1), EINVAL, "free of r1, freed by the stream before the fault");
	}
	munmap(none, 8192);
	ret = ioctl(c.fd, FBINDER_IOC_VERSION, (void *)(uintptr_t)BADPTR);
	CHECK(ret < 0 && errno == EFAULT, "VERSION to address 8: %s, want EFAULT",
	      ret < 0 ? strerror(errno) : "success");
	ret = ioctl(c.fd, FBINDER_IOC_SET_MAX_THREADS, (void *)(uintptr_t)BADPTR);
	CHECK(ret < 0 && errno == EFAULT, "SET_MAX_THREADS from address 8: %s, want EFAULT",
	      ret < 0 ? strerror(errno) : "success");
	max = 1025;
	ret = ioctl(c.fd, FBINDER_IOC_SET_MAX_THREADS, &max);
	CHECK(ret < 0 && errno == EINVAL, "SET_MAX_THREADS 1025: %s, want EINVAL",
	      ret < 0 ? strerror(errno) : "success");
	max = 1024;
	ret = ioctl(c.fd, FBINDER_IOC_SET_MAX_THREADS, &max);
	CHECK(ret == 0, "SET_MAX_THREADS 1024: %s", strerror(errno));
	max = 0;
	ret = ioctl(c.fd, FBINDER_IOC_SET_MAX_THREADS, &max);
	CHECK(ret == 0, "SET_MAX_THREADS 0: %s", strerror(errno));
	CHECK(ioctl(c.fd, FBINDER_IOC_VERSION, &v) == 0, "VERSION after EFAULTs");
	usable("bad user pointers (EFAULT)");
}

static void test_nonblock_and_ioctls(void)
{
	struct fbt_ret r;
	unsigned char rbuf[256];	/* room for the largest return */
	size_t rdone = 7;
	int ret, fd, fl;

	ret = fbt_try_next(&c, &r);
	CHECK(ret == -EAGAIN, "O_NONBLOCK read with nothing queued: %s %s, want EAGAIN",
	      strerror(-ret), fbt_ret_name(r.cmd));
	fd = open(FBT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		die("open O_NONBLOCK");
	ret = fbt_write_read(fd, NULL, 0, NULL, rbuf, sizeof(rbuf), &rdone);
	CHECK(ret == -EAGAIN && rdone == 0, "read on a fresh O_NONBLOCK context: %s, %zu bytes, want EAGAIN",
	      strerror(-ret), rdone);
	ret = ioctl(fd, _IO(FBINDER_IOC_MAGIC, 0x40));
	CHECK(ret < 0 && errno == ENOTTY, "unknown ioctl nr 0x40: %s, want ENOTTY",
	      ret < 0 ? strerror(errno) : "success");
	ret = ioctl(fd, _IOWR(FBINDER_IOC_MAGIC, 1, __u32), rbuf);
	CHECK(ret < 0 && errno == ENOTTY, "WRITE_READ's number with a wrong size: %s, want ENOTTY",
	      ret < 0 ? strerror(errno) : "success");
	ret = ioctl(fd, _IO('T', 1));
	CHECK(ret < 0 && errno == ENOTTY, "foreign ioctl: %s, want ENOTTY",
	      ret < 0 ? strerror(errno) : "success");
	close(fd);
	fl = fcntl(c.fd, F_GETFL);
	CHECK(!(fl & O_NONBLOCK), "fbt_try_next left O_NONBLOCK set");
	usable("EAGAIN and ENOTTY");
}

/* A second synchronous call while waiting: EPROTO; THREAD_EXIT while waiting: EBUSY. */
static void test_waiting_thread(void)
{
	struct fbt_ret r;
	struct fbt_w w;
	int ret;

	fbt_w_reset(&w);
	fbt_w_send(&w, 0, C_ECHO, 0, "first", 5, NULL, 0);
	ret = fbt_wr(&c, &w, NULL, false);	/* call, but read later */
	CHECK(ret == 0, "call without read: %s", strerror(-ret));
	fbt_w_reset(&w);
	fbt_w_send(&w, 0, C_MUSTNOT, 0, "second", 6, NULL, 0);
	EXPECT(fbt_wr(&c, &w, NULL, false), EPROTO, "second call while waiting for a reply");
	ret = ioctl(c.fd, FBINDER_IOC_THREAD_EXIT);
	CHECK(ret < 0 && errno == EBUSY, "THREAD_EXIT while waiting for a reply: %s, want EBUSY",
	      ret < 0 ? strerror(errno) : "success");
	ret = fbt_next(&c, &r);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY && r.msg.data_size == 5 &&
	      !memcmp(fbt_data(&c, &r.msg), "first", 5),
	      "reply to the first call: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	usable("second call while waiting (EPROTO)");
}

/* Last, as the doc does not say what becomes of the reply: EFAULT on an unwritable read buffer. */
static void test_efault_read(void)
{
	struct fbt_ret r;
	struct fbt_w w;
	size_t rdone = 0;
	int ret;

	fbt_w_reset(&w);
	fbt_w_send(&w, 0, C_ECHO, 0, "lost?", 5, NULL, 0);
	ret = fbt_wr(&c, &w, NULL, false);
	CHECK(ret == 0, "call without read: %s", strerror(-ret));
	ret = fbt_write_read(c.fd, NULL, 0, NULL, (void *)(uintptr_t)BADPTR, 256, &rdone);
	CHECK(ret == -EFAULT, "read into address 8: %s, want EFAULT", strerror(-ret));
	alarm(5);	/* the reply is lost if this read blocks forever */
	ret = fbt_next(&c, &r);
	alarm(40);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY && r.msg.data_size == 5,
	      "the reply after an EFAULT read: %s %s, want FBINDER_RET_REPLY (not lost)",
	      strerror(-ret), fbt_ret_name(r.cmd));
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	usable("read into a bad buffer (EFAULT)");
}

int main(void)
{
	struct fbt_ret r;
	pid_t spid;
	int ret;

	alarm(40);
	fbt_ctx_open(&c, A_MAP);
	ret = fbt_oneway(&c, 0, C_MUSTNOT, NULL, 0, NULL, 0);
	CHECK(ret == -ENOENT, "handle 0 with no manager: %s, want ENOENT", strerror(-ret));

	spid = fbt_spawn_manager_ex(S_MAP, MGR_COOKIE, FBT_MGR_NOBODY | FBT_MGR_FDS, s_main, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	usable("start");
	test_reply_and_free();
	test_offsets();
	test_object_types();
	test_handles();
	test_sizes();
	test_reply_too_big();
	test_full_buffer();
	test_stream_errors();
	test_efault();
	test_nonblock_and_ioctls();
	test_waiting_thread();
	test_efault_read();

	/* Nothing stray: no notice for the objects of failed sends. */
	ret = fbt_try_next(&c, &r);
	CHECK(ret == -EAGAIN, "stray return at the end: %s %s (cookie 0x%llx)", strerror(-ret),
	      fbt_ret_name(r.cmd), (unsigned long long)r.rel.cookie);
	ret = fbt_call(&c, 0, C_QUIT, NULL, 0, NULL, 0, &r, NULL, NULL);
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	CHECK(fbt_wait(spid) == 0, "S reported failures (see its lines above)");
	fbt_ctx_close(&c);
	return fbt_done();
}
