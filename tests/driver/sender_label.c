// SPDX-License-Identifier: MIT
/*
 * sender_label: a message to an object that asks for it
 * (FBINDER_OBJF_TXN_SECCTX) carries its sender's security label, right
 * after its offsets (docs/abi.md, "Security label"):
 *
 *   - the driver reports FBINDER_FEATURE_SECCTX;
 *   - handle 0, claimed with the flag, gets FBINDER_TXN_SECCTX and the
 *     sender's label on a oneway message, on a call whose data is not a
 *     multiple of 8 and that carries objects (its data and objects
 *     intact), and on a batch; the label is what the sender reads in its
 *     /proc/self/attr/current (AppArmor's mode suffix and the newline
 *     cut), or, where no LSM gives one (that file cannot be read), an
 *     empty one; NUL-terminated, zero padding, reserved 0;
 *   - a reply carries none, even from a labelled node's owner;
 *   - of two objects of the sender, the one created with the flag gets the
 *     manager's label on a call, the one without gets no flag and no label;
 *   - sizes: a call whose data and label fill the 64 KiB mapping exactly
 *     (sent once the manager freed everything) arrives, its label ending at the mapping's end; 8 bytes more fail
 *     with EMSGSIZE and queue nothing (the next message the manager reads
 *     is the one sent after it).
 *
 * The manager claims handle 0 as root, then drops to uid 65534; the sender
 * is a child that drops too.  The LSMs of the kernel are printed (from
 * securityfs, mounted for that as root) for the log.
 */
#include "fbt_proto.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define MGR_COOKIE	0x5ecULL
#define PLAIN_COOKIE	0x9a1aULL	/* the sender's object without the flag */
#define LABEL_COOKIE	0x1abe1ULL	/* and the one with it */
#define MAP		(64 * 1024)
#define LABEL_MAX	512

enum { C_ONEWAY = 1, C_CALL, C_BIG, C_TOO_BIG, C_DONE, C_SYNC, C_NESTED };

/* The call's payload: two objects, then the sender's label (not padded). */
struct call_req {
	struct fbinder_object plain;
	struct fbinder_object labelled;
	char label[LABEL_MAX];
};

/* Bytes the driver adds to a slot for a label of len bytes. */
static size_t label_area(size_t len)
{
	return sizeof(struct fbinder_secctx) + ((len + 1 + 7) & ~(size_t)7);
}

/*
 * Checks m's label against want: the header after the offsets, inside the
 * mapping, reserved 0, the label, its NUL and zero padding.
 */
static void check_label(const struct fbt_ctx *p, const struct fbinder_txn_msg *m,
			const char *want, const char *what)
{
	struct fbinder_secctx h;
	size_t at, i, end;
	const char *label;

	CHECK(m->flags & FBINDER_TXN_SECCTX, "%s: no FBINDER_TXN_SECCTX (flags %#x)", what,
	      m->flags);
	if (!(m->flags & FBINDER_TXN_SECCTX))
		return;
	at = m->offsets + m->offsets_count * sizeof(__u64);
	CHECK(at % 8 == 0 && at <= p->map_size - sizeof(h), "%s: label header at %zu", what, at);
	if (at % 8 || at > p->map_size - sizeof(h))
		return;
	memcpy(&h, p->map + at, sizeof(h));
	CHECK(h.reserved == 0, "%s: reserved %u", what, h.reserved);
	end = at + label_area(h.size);
	CHECK(h.size < FBINDER_SECCTX_MAX && end <= p->map_size,
	      "%s: label of %u bytes at %zu, mapping %zu", what, h.size, at, p->map_size);
	if (h.size >= FBINDER_SECCTX_MAX || end > p->map_size)
		return;
	label = (const char *)p->map + at + sizeof(h);
	CHECK(h.size == strlen(want) && !memcmp(label, want, h.size),
	      "%s: label '%.*s' (%u bytes), want '%s'", what, (int)h.size, label, h.size, want);
	for (i = at + sizeof(h) + h.size; i < end; i++)
		CHECK(p->map[i] == 0, "%s: byte %zu after the label is %#x", what,
		      i - at - sizeof(h), p->map[i]);
}

static char mgr_label[LABEL_MAX];

/* The sender's side of the manager's nested calls: which object was called. */
static int nested(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	int rc;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION || r->msg.code != C_NESTED) {
		CHECK(0, "nested: %s code %u", fbt_ret_name(r->cmd), r->msg.code);
		return -EPROTO;
	}
	if (r->msg.cookie == PLAIN_COOKIE) {
		CHECK(!(r->msg.flags & FBINDER_TXN_SECCTX),
		      "the object without the flag got a label (flags %#x)", r->msg.flags);
	} else {
		CHECK(r->msg.cookie == LABEL_COOKIE, "nested call to cookie %#llx",
		      (unsigned long long)r->msg.cookie);
		/* the manager sent its own label as the payload */
		CHECK(r->msg.data_size == strlen(fbt_data(p, &r->msg)) + 1,
		      "nested payload of %llu bytes", (unsigned long long)r->msg.data_size);
		check_label(p, &r->msg, fbt_data(p, &r->msg), "call to the object with the flag");
	}
	rc = fbt_reply(p, &r->msg, 0, NULL, 0, NULL, 0);
	CHECK(rc == 0, "nested reply: %s", strerror(-rc));
	return 0;
}

/* A batch of two oneway messages to handle 0, the first one's payload data. */
static void send_batch(struct fbt_ctx *s, const char *data, size_t size)
{
	const struct fbinder_batch_msg msgs[2] = {
		{ .code = 7, .data = (uintptr_t)data, .data_size = size },
		{ .code = 8, .data = (uintptr_t)"x", .data_size = 1 },
	};
	const struct fbinder_batch_send bs = { .handle = 0, .count = 2,
					       .msgs = (uintptr_t)msgs };
	struct fbt_w w;
	int rc;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_SEND_BATCH, &bs, sizeof(bs));
	rc = fbt_wr(s, &w, NULL, false);
	CHECK(rc == 0, "batch: %s", strerror(-rc));
}

static int sender(void *arg)
{
	struct call_req req = {
		.plain = { .type = FBINDER_OBJ_LOCAL, .cookie = PLAIN_COOKIE },
		.labelled = { .type = FBINDER_OBJ_LOCAL, .flags = FBINDER_OBJF_TXN_SECCTX,
			      .cookie = LABEL_COOKIE },
	};
	const __u64 offs[2] = { offsetof(struct call_req, plain),
				offsetof(struct call_req, labelled) };
	struct fbt_ret reply;
	struct fbt_ctx s;
	unsigned char *big;
	size_t len, size;
	int rc;

	(void)arg;
	fbt_failures = 0;
	fbt_become_nobody();
	fbt_own_label(req.label, sizeof(req.label));
	len = strlen(req.label);
	printf("# the sender's label: '%s'%s\n", req.label,
	       len ? "" : " (no LSM provides one: an empty label expected)");
	fbt_ctx_open(&s, MAP);

	rc = fbt_oneway(&s, 0, C_ONEWAY, req.label, len + 1, NULL, 0);
	CHECK(rc == 0, "oneway: %s", strerror(-rc));

	rc = fbt_call(&s, 0, C_CALL, &req, offsetof(struct call_req, label) + len + 1,
		      offs, 2, &reply, nested, NULL);
	CHECK(rc == 0 && reply.cmd == FBINDER_RET_REPLY && reply.msg.code == 0,
	      "call: %s %s code %d", strerror(-rc), fbt_ret_name(reply.cmd),
	      (int)reply.msg.code);
	if (!rc && reply.cmd == FBINDER_RET_REPLY) {
		CHECK(!(reply.msg.flags & FBINDER_TXN_SECCTX), "a reply carries a label");
		fbt_free_buffer(&s, reply.msg.data);
	}

	send_batch(&s, req.label, len + 1);

	/* the manager answers once it freed everything: its buffer is empty */
	rc = fbt_call(&s, 0, C_SYNC, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(rc == 0 && reply.cmd == FBINDER_RET_REPLY, "sync: %s %s", strerror(-rc),
	      fbt_ret_name(reply.cmd));
	if (!rc && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&s, reply.msg.data);

	/* data and label fill the mapping, then 8 bytes too many */
	size = MAP - label_area(len);
	big = calloc(1, size + 8);
	if (!big)
		die("calloc");
	memcpy(big, req.label, len + 1);
	rc = fbt_call(&s, 0, C_BIG, big, size, NULL, 0, &reply, NULL, NULL);
	CHECK(rc == 0 && reply.cmd == FBINDER_RET_REPLY && reply.msg.code == 0,
	      "a call of %zu bytes and the label: %s %s code %d", size, strerror(-rc),
	      fbt_ret_name(reply.cmd), (int)reply.msg.code);
	if (!rc && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&s, reply.msg.data);
	rc = fbt_call(&s, 0, C_TOO_BIG, big, size + 8, NULL, 0, &reply, NULL, NULL);
	CHECK(rc == -EMSGSIZE, "a call of %zu bytes and the label: %s, want EMSGSIZE",
	      size + 8, rc ? strerror(-rc) : fbt_ret_name(reply.cmd));
	if (!rc && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&s, reply.msg.data);
	free(big);

	rc = fbt_oneway(&s, 0, C_DONE, NULL, 0, NULL, 0);
	CHECK(rc == 0, "done: %s", strerror(-rc));
	fbt_ctx_close(&s);
	return fbt_child_status();
}

/* The manager's side of C_CALL: the label, the objects, the nested calls. */
static void serve_call(struct fbt_ctx *m, const struct fbt_ret *r)
{
	const struct call_req *req = fbt_data(m, &r->msg);
	const struct fbinder_object *o;
	size_t want_size;
	struct fbt_ret reply;
	__u32 handles[2];
	int i, rc;

	want_size = offsetof(struct call_req, label) + strlen(req->label) + 1;
	CHECK(r->msg.data_size == want_size && r->msg.offsets_count == 2,
	      "call: %llu bytes, %llu objects", (unsigned long long)r->msg.data_size,
	      (unsigned long long)r->msg.offsets_count);
	check_label(m, &r->msg, req->label, "call with objects");
	for (i = 0; i < 2; i++) {
		o = fbt_obj(m, &r->msg, i);
		CHECK(o->type == FBINDER_OBJ_HANDLE, "object %d: type %u", i, o->type);
		handles[i] = o->handle;
	}
	for (i = 0; i < 2; i++) {
		rc = fbt_call(m, handles[i], C_NESTED, mgr_label, strlen(mgr_label) + 1,
			      NULL, 0, &reply, NULL, NULL);
		CHECK(rc == 0 && reply.cmd == FBINDER_RET_REPLY, "nested call %d: %s %s", i,
		      strerror(-rc), fbt_ret_name(reply.cmd));
		if (rc || reply.cmd != FBINDER_RET_REPLY)
			continue;
		CHECK(!(reply.msg.flags & FBINDER_TXN_SECCTX),
		      "the reply of a labelled node's owner carries a label");
		fbt_free_buffer(m, reply.msg.data);
	}
	rc = fbt_reply(m, &r->msg, 0, NULL, 0, NULL, 0);
	CHECK(rc == 0, "reply: %s", strerror(-rc));
}

/* Shows which LSMs the kernel runs, for the log; nothing depends on it. */
static void print_lsms(void)
{
	const char *dir = "/sys/kernel/security";
	char *lsm;

	if (mount("securityfs", dir, "securityfs", 0, NULL) && errno != EBUSY) {
		printf("# securityfs: %s\n", strerror(errno));
		return;
	}
	lsm = fbt_slurp("/sys/kernel/security/lsm");
	printf("# LSMs: %s\n", lsm ? lsm : "(unreadable)");
	free(lsm);
	umount(dir);
}

int main(void)
{
	struct fbinder_version ver = { 0 };
	struct fbinder_batch b;
	struct fbt_ctx m;
	struct fbt_ret r;
	struct fbt_w w;
	char label[LABEL_MAX];
	pid_t child;
	int rc;

	alarm(60);
	print_lsms();
	fbt_ctx_open(&m, MAP);
	CHECK(ioctl(m.fd, FBINDER_IOC_VERSION, &ver) == 0 &&
	      (ver.features & FBINDER_FEATURE_SECCTX),
	      "FBINDER_FEATURE_SECCTX not reported (features %#llx)",
	      (unsigned long long)ver.features);
	rc = fbt_set_mgr_flags(m.fd, MGR_COOKIE, FBINDER_OBJF_TXN_SECCTX);
	if (rc)
		die("SET_CONTEXT_MGR with FBINDER_OBJF_TXN_SECCTX: %s", strerror(-rc));
	child = fbt_fork(sender, NULL);
	fbt_become_nobody();
	fbt_own_label(mgr_label, sizeof(mgr_label));

	fbt_next_txn(&m, &r, "oneway");
	CHECK(r.msg.code == C_ONEWAY, "first message: code %u", r.msg.code);
	strncpy(label, fbt_data(&m, &r.msg), sizeof(label) - 1);
	label[sizeof(label) - 1] = '\0';
	check_label(&m, &r.msg, label, "oneway");
	fbt_free_buffer(&m, r.msg.data);

	fbt_next_txn(&m, &r, "call");
	CHECK(r.msg.code == C_CALL, "second message: code %u", r.msg.code);
	if (r.msg.code == C_CALL)
		serve_call(&m, &r);

	fbt_next_txn(&m, &r, "batch");
	CHECK(r.msg.flags & FBINDER_TXN_BATCH, "third message: not a batch (flags %#x)",
	      r.msg.flags);
	memcpy(&b, fbt_data(&m, &r.msg), sizeof(b));
	CHECK(b.count == 2, "batch of %u", b.count);
	check_label(&m, &r.msg, label, "batch");
	fbt_free_buffer(&m, r.msg.data);

	fbt_next_txn(&m, &r, "sync");
	CHECK(r.msg.code == C_SYNC, "fourth message: code %u", r.msg.code);
	check_label(&m, &r.msg, label, "empty call");
	fbt_free_buffer(&m, r.msg.data);
	fbt_w_reset(&w);
	fbt_w_reply(&w, 0, NULL, 0, NULL, 0);
	rc = fbt_wr(&m, &w, NULL, false);
	CHECK(rc == 0, "reply to sync: %s", strerror(-rc));

	fbt_next_txn(&m, &r, "big call");
	CHECK(r.msg.code == C_BIG && r.msg.data_size == MAP - label_area(strlen(label)),
	      "fifth message: code %u, %llu bytes", r.msg.code,
	      (unsigned long long)r.msg.data_size);
	check_label(&m, &r.msg, label, "call that fills the mapping");
	CHECK(r.msg.data == 0, "the big call at %llu", (unsigned long long)r.msg.data);
	rc = fbt_reply(&m, &r.msg, 0, NULL, 0, NULL, 0);
	CHECK(rc == 0, "reply: %s", strerror(-rc));

	/* the one 8 bytes too big was never queued */
	fbt_next_txn(&m, &r, "done");
	CHECK(r.msg.code == C_DONE, "after the big call: code %u, want %u (done)",
	      r.msg.code, C_DONE);
	check_label(&m, &r.msg, label, "empty oneway");
	fbt_free_buffer(&m, r.msg.data);

	fbt_wait_ok(child);
	fbt_ctx_close(&m);
	return fbt_done();
}
