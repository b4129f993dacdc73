// SPDX-License-Identifier: MIT
/*
 * object_translation: objects travel translated.  A local object sent to another
 * context arrives as a new handle, the same object again as the same
 * handle, a handle sent back to its owner as FBINDER_OBJ_LOCAL with the owner's
 * cookie; a third process given the handle by the manager calls the owner
 * through it.  When the last reference goes (a holder's RELEASE, or the free
 * of the only buffer naming it), the owner gets FBINDER_RET_RELEASE with the
 * cookie and the number of FBINDER_OBJ_LOCAL sends it retires; handle numbers are
 * never reused.
 *
 * Processes: A (this one, owner of object CA), S (manager), B (third party).
 */
#include "fbt_proto.h"

#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x3e3e3e3eULL
#define CA		0xa0a0a0a0a0a0a0a0ULL	/* A's object */
#define CC		0xc0c0c0c0c0c0c0c0ULL	/* A's second object */

enum {
	C_INSPECT = 1,	/* reply: struct insp + one struct insp_obj per object */
	C_KEEP,		/* as INSPECT, and S acquires the first object's handle */
	C_CALL_HELD,	/* reply, then S calls its held handle with C_PING */
	C_RESULT,	/* reply: __s32 result of the last C_CALL_HELD */
	C_GIVE,		/* reply: one FBINDER_OBJ_HANDLE object, the held handle */
	C_DROP,		/* S releases the held handle, then sends to it: reply 2 x __s32 */
	C_PING,		/* to A's object: reply "pong" */
	C_QUIT,
};

struct insp {
	__u32 held;		/* S's held handle, 0 if none */
	__u32 count;
};

struct insp_obj {
	__u32 type, flags;
	__u64 value;		/* cookie or handle */
};

/* ---- S, the manager ---- */

struct sstate {
	__u32 held;
	__s32 result;
};

static int s_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct sstate *st = arg;
	const struct fbinder_txn_msg *m = &r->msg;
	unsigned char out[sizeof(struct insp) + 8 * sizeof(struct insp_obj)];
	struct insp *in = (struct insp *)out;
	struct insp_obj *io = (struct insp_obj *)(in + 1);
	struct fbinder_object obj;
	struct fbt_ret rep;
	__u64 off = 0;
	__s32 rc[2];
	size_t i;
	int ret;

	if (r->cmd != FBINDER_RET_TRANSACTION) {
		CHECK(0, "S got %s", fbt_ret_name(r->cmd));
		return 0;
	}
	CHECK(m->cookie == MGR_COOKIE, "S: call with cookie 0x%llx",
	      (unsigned long long)m->cookie);
	switch (m->code) {
	case C_INSPECT:
	case C_KEEP:
		in->held = st->held;
		in->count = m->offsets_count;
		for (i = 0; i < m->offsets_count && i < 8; i++) {
			const struct fbinder_object *o = fbt_obj(p, m, i);

			io[i].type = o->type;
			io[i].flags = o->flags;
			io[i].value = o->type == FBINDER_OBJ_LOCAL ? o->cookie : o->handle;
		}
		if (m->code == C_KEEP && m->offsets_count) {
			ret = fbt_acquire(p, io[0].value);
			CHECK(ret == 0, "S: acquire %llu: %s",
			      (unsigned long long)io[0].value, strerror(-ret));
			st->held = io[0].value;
		}
		ret = fbt_reply(p, m, 0, out, sizeof(*in) + i * sizeof(*io), NULL, 0);
		CHECK(ret == 0, "S: reply: %s", strerror(-ret));
		return 0;
	case C_CALL_HELD:
		ret = fbt_reply(p, m, 0, NULL, 0, NULL, 0);
		CHECK(ret == 0, "S: reply: %s", strerror(-ret));
		ret = fbt_call(p, st->held, C_PING, "ping", 4, NULL, 0, &rep, NULL, NULL);
		if (ret)
			st->result = ret;
		else if (rep.cmd != FBINDER_RET_REPLY)
			st->result = rep.err.error ? rep.err.error : -1000;
		else {
			st->result = rep.msg.data_size == 4 &&
				     !memcmp(fbt_data(p, &rep.msg), "pong", 4) ? 0 : -2000;
			fbt_free_buffer(p, rep.msg.data);
		}
		return 0;
	case C_RESULT:
		ret = fbt_reply(p, m, 0, &st->result, sizeof(st->result), NULL, 0);
		CHECK(ret == 0, "S: reply: %s", strerror(-ret));
		return 0;
	case C_GIVE:
		obj = (struct fbinder_object){ .type = FBINDER_OBJ_HANDLE, .handle = st->held };
		ret = fbt_reply(p, m, 0, &obj, sizeof(obj), &off, 1);
		CHECK(ret == 0, "S: reply with handle %u: %s", st->held, strerror(-ret));
		return 0;
	case C_DROP:
		rc[0] = fbt_release(p, st->held);
		rc[1] = fbt_oneway(p, st->held, C_PING, NULL, 0, NULL, 0);
		ret = fbt_reply(p, m, 0, rc, sizeof(rc), NULL, 0);
		CHECK(ret == 0, "S: reply: %s", strerror(-ret));
		return 0;
	case C_QUIT:
		fbt_reply(p, m, 0, NULL, 0, NULL, 0);
		return 1;
	}
	CHECK(0, "S: unknown code %u", m->code);
	fbt_reply(p, m, 1, NULL, 0, NULL, 0);
	return 0;
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	struct sstate st = { 0 };
	int ret;

	(void)arg;
	ret = fbt_serve(p, s_handle, &st);
	CHECK(ret == 0, "S: serve: %s", strerror(-ret));
	return fbt_child_status();
}

/* ---- A's side ---- */

/* Call S with objects; returns the inspection (count objects) or -1. */
static int inspect(struct fbt_ctx *c, __u32 code, const struct fbinder_object *objs, size_t n,
		   struct insp *hdr, struct insp_obj *out)
{
	__u64 offs[8];
	struct fbt_ret r;
	size_t i;
	int ret;

	for (i = 0; i < n; i++)
		offs[i] = i * sizeof(*objs);
	ret = fbt_call(c, 0, code, objs, n * sizeof(*objs), offs, n, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "inspect call: %s %s", strerror(-ret),
	      fbt_ret_name(r.cmd));
	if (ret || r.cmd != FBINDER_RET_REPLY)
		return -1;
	CHECK(r.msg.data_size == sizeof(*hdr) + n * sizeof(*out),
	      "inspect reply size %llu", (unsigned long long)r.msg.data_size);
	if (r.msg.data_size == sizeof(*hdr) + n * sizeof(*out)) {
		memcpy(hdr, fbt_data(c, &r.msg), sizeof(*hdr));
		memcpy(out, (const char *)fbt_data(c, &r.msg) + sizeof(*hdr), n * sizeof(*out));
	}
	fbt_free_buffer(c, r.msg.data);
	return hdr->count;
}

static void expect_release(struct fbt_ctx *c, __u64 cookie, __u64 exports, const char *what)
{
	struct fbt_ret r;
	int ret = fbt_next(c, &r);

	CHECK(ret == 0 && r.cmd == FBINDER_RET_RELEASE && r.rel.cookie == cookie &&
	      r.rel.exports == exports,
	      "%s: got %s %s cookie 0x%llx exports %llu, want FBINDER_RET_RELEASE 0x%llx exports %llu",
	      what, strerror(-ret), fbt_ret_name(r.cmd), (unsigned long long)r.rel.cookie,
	      (unsigned long long)r.rel.exports, (unsigned long long)cookie,
	      (unsigned long long)exports);
}

/* A answers one C_PING to its object CA from pid; with_obj: it carries CA back. */
static void serve_ping(struct fbt_ctx *c, pid_t from, bool with_obj)
{
	struct fbt_ret r;
	int ret = fbt_next(c, &r);

	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION, "A waiting for a ping: %s %s",
	      strerror(-ret), fbt_ret_name(r.cmd));
	if (ret || r.cmd != FBINDER_RET_TRANSACTION)
		return;
	CHECK(r.msg.code == C_PING && r.msg.cookie == CA,
	      "A got code %u cookie 0x%llx, want C_PING to its own cookie 0x%llx",
	      r.msg.code, (unsigned long long)r.msg.cookie, (unsigned long long)CA);
	CHECK(r.msg.sender_pid == from, "ping from pid %d, want %d", r.msg.sender_pid, (int)from);
	if (with_obj) {
		CHECK(r.msg.offsets_count == 1, "ping carries %llu objects, want 1",
		      (unsigned long long)r.msg.offsets_count);
		if (r.msg.offsets_count == 1) {
			const struct fbinder_object *o = fbt_obj(c, &r.msg, 0);

			CHECK(o->type == FBINDER_OBJ_LOCAL && o->cookie == CA && o->flags == 0,
			      "A's own object via B's handle arrived as type %u value 0x%llx, want LOCAL 0x%llx",
			      o->type, (unsigned long long)o->cookie, (unsigned long long)CA);
		}
	} else {
		CHECK(r.msg.data_size == 4 && !memcmp(fbt_data(c, &r.msg), "ping", 4),
		      "ping payload wrong (%llu bytes)", (unsigned long long)r.msg.data_size);
	}
	ret = fbt_reply(c, &r.msg, 0, "pong", 4, NULL, 0);
	CHECK(ret == 0, "A reply to ping: %s", strerror(-ret));
}

/* ---- B, the third party ---- */

static int b_main(void *arg)
{
	struct fbt_ctx b;
	struct fbt_ret r;
	struct fbinder_object obj;
	__u32 held_by_s = *(__u32 *)arg, h = 0;
	__u64 off = 0;
	int ret;

	alarm(20);
	fbt_ctx_open(&b, MB);
	ret = fbt_call(&b, 0, C_GIVE, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY && r.msg.offsets_count == 1,
	      "B: GIVE: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	if (ret || r.cmd != FBINDER_RET_REPLY || r.msg.offsets_count != 1)
		return 1;
	{
		const struct fbinder_object *o = fbt_obj(&b, &r.msg, 0);

		CHECK(o->type == FBINDER_OBJ_HANDLE && o->handle != 0 && o->flags == 0,
		      "B: got type %u handle %u, want FBINDER_OBJ_HANDLE != 0", o->type, o->handle);
		h = o->handle;
	}
	CHECK(fbt_acquire(&b, h) == 0, "B: acquire %u", h);
	CHECK(fbt_free_buffer(&b, r.msg.data) == 0, "B: free");

	/* Handle back to the manager: S sees its own handle for the node. */
	{
		struct insp hdr = { 0 };
		struct insp_obj io = { 0 };

		obj = (struct fbinder_object){ .type = FBINDER_OBJ_HANDLE, .handle = h };
		if (inspect(&b, C_INSPECT, &obj, 1, &hdr, &io) == 1)
			CHECK(io.type == FBINDER_OBJ_HANDLE && io.value == held_by_s,
			      "B's handle at S: type %u value %llu, want S's handle %u",
			      io.type, (unsigned long long)io.value, held_by_s);
	}

	/* Call A through the handle, carrying the handle itself. */
	obj = (struct fbinder_object){ .type = FBINDER_OBJ_HANDLE, .handle = h };
	ret = fbt_call(&b, h, C_PING, &obj, sizeof(obj), &off, 1, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "B: call A through handle %u: %s %s",
	      h, strerror(-ret), fbt_ret_name(r.cmd));
	if (!ret && r.cmd == FBINDER_RET_REPLY) {
		CHECK(r.msg.data_size == 4 && !memcmp(fbt_data(&b, &r.msg), "pong", 4),
		      "B: A's reply is not pong");
		fbt_free_buffer(&b, r.msg.data);
	}

	ret = fbt_release(&b, h);
	CHECK(ret == 0, "B: release %u: %s", h, strerror(-ret));
	ret = fbt_oneway(&b, h, C_PING, NULL, 0, NULL, 0);
	CHECK(ret == -ENOENT, "B: send to released handle %u: %s, want ENOENT", h,
	      strerror(-ret));
	fbt_ctx_close(&b);
	return fbt_child_status();
}

int main(void)
{
	struct fbinder_object objs[2];
	struct insp hdr = { 0 };
	struct insp_obj io[2] = { { 0 } };
	struct fbt_ctx c;
	struct fbt_ret r;
	__u32 h1 = 0, hc = 0;
	pid_t spid, bpid;
	int ret;

	alarm(40);
	spid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, s_main, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&c, MB);

	/* 1. CA to S: a new handle, which S keeps. */
	objs[0] = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = CA };
	if (inspect(&c, C_KEEP, objs, 1, &hdr, io) == 1) {
		CHECK(io[0].type == FBINDER_OBJ_HANDLE && io[0].value != 0 && io[0].flags == 0,
		      "CA arrived at S as type %u value %llu, want FBINDER_OBJ_HANDLE != 0",
		      io[0].type, (unsigned long long)io[0].value);
		h1 = io[0].value;
	}
	printf("# CA is handle %u in S\n", h1);

	/* 2. The same object again: the same handle. */
	if (inspect(&c, C_INSPECT, objs, 1, &hdr, io) == 1)
		CHECK(io[0].type == FBINDER_OBJ_HANDLE && io[0].value == h1,
		      "CA sent again arrived as type %u handle %llu, want handle %u",
		      io[0].type, (unsigned long long)io[0].value, h1);

	/* 3. CC twice in one message: one handle, new; released when S frees it. */
	objs[0] = objs[1] = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = CC };
	if (inspect(&c, C_INSPECT, objs, 2, &hdr, io) == 2) {
		CHECK(io[0].type == FBINDER_OBJ_HANDLE && io[1].type == FBINDER_OBJ_HANDLE &&
		      io[0].value == io[1].value && io[0].value != h1 && io[0].value != 0,
		      "CC twice: types %u/%u handles %llu/%llu, want one new handle",
		      io[0].type, io[1].type, (unsigned long long)io[0].value,
		      (unsigned long long)io[1].value);
		hc = io[0].value;
	}
	expect_release(&c, CC, 2, "CC's only buffer freed");
	objs[0] = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = CC };
	if (inspect(&c, C_INSPECT, objs, 1, &hdr, io) == 1)
		CHECK(io[0].type == FBINDER_OBJ_HANDLE && io[0].value != hc && io[0].value != h1,
		      "CC after its release got handle %llu, old one %u: handles are never reused",
		      (unsigned long long)io[0].value, hc);
	expect_release(&c, CC, 1, "CC sent once more");

	/* 4. S calls A back through its handle: A sees its own cookie. */
	ret = fbt_call(&c, 0, C_CALL_HELD, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "CALL_HELD: %s", strerror(-ret));
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	serve_ping(&c, spid, false);
	ret = fbt_call(&c, 0, C_RESULT, NULL, 0, NULL, 0, &r, NULL, NULL);
	if (!ret && r.cmd == FBINDER_RET_REPLY) {
		__s32 res = -1;

		memcpy(&res, fbt_data(&c, &r.msg), sizeof(res));
		CHECK(res == 0, "S's call through handle %u ended with %d", h1, res);
		fbt_free_buffer(&c, r.msg.data);
	}

	/* 5. S sends the handle back to its owner: FBINDER_OBJ_LOCAL with the cookie. */
	ret = fbt_call(&c, 0, C_GIVE, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY && r.msg.offsets_count == 1,
	      "GIVE to the owner: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	if (!ret && r.cmd == FBINDER_RET_REPLY) {
		if (r.msg.offsets_count == 1) {
			const struct fbinder_object *o = fbt_obj(&c, &r.msg, 0);

			CHECK(o->type == FBINDER_OBJ_LOCAL && o->cookie == CA,
			      "own object came back as type %u value 0x%llx, want LOCAL 0x%llx",
			      o->type, (unsigned long long)o->cookie, (unsigned long long)CA);
		}
		fbt_free_buffer(&c, r.msg.data);
	}

	/* 6. B gets the handle from S and calls A through it. */
	bpid = fbt_fork(b_main, &h1);
	serve_ping(&c, bpid, true);
	CHECK(fbt_wait(bpid) == 0, "B reported failures");

	/* 7. S still holds CA: no release yet. */
	ret = fbt_try_next(&c, &r);
	CHECK(ret == -EAGAIN, "while S holds CA: %s %s, want nothing (EAGAIN)",
	      strerror(-ret), fbt_ret_name(r.cmd));

	/* 8. S releases its handle: gone for S, FBINDER_RET_RELEASE for A (2 exports). */
	ret = fbt_call(&c, 0, C_DROP, NULL, 0, NULL, 0, &r, NULL, NULL);
	if (!ret && r.cmd == FBINDER_RET_REPLY && r.msg.data_size == 8) {
		__s32 rc[2];

		memcpy(rc, fbt_data(&c, &r.msg), sizeof(rc));
		CHECK(rc[0] == 0, "S's release of handle %u: %s", h1, strerror(-rc[0]));
		CHECK(rc[1] == -ENOENT, "S's send to its released handle: %s, want ENOENT",
		      strerror(-rc[1]));
		fbt_free_buffer(&c, r.msg.data);
	} else {
		CHECK(0, "DROP: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	}
	expect_release(&c, CA, 2, "S released CA");

	ret = fbt_call(&c, 0, C_QUIT, NULL, 0, NULL, 0, &r, NULL, NULL);
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	CHECK(fbt_wait(spid) == 0, "S reported failures");
	fbt_ctx_close(&c);
	return fbt_done();
}
