// SPDX-License-Identifier: MIT
/*
 * scatter_gather: FBINDER_CMD_SEND_SG and FBINDER_CMD_REPLY_SG, and
 * FBINDER_OBJ_PTR buffers (docs/abi.md, "Scatter-gather sends").  The
 * driver reports FBINDER_FEATURE_SEND_SG.  A call gathered from eight
 * pieces (an object split across two of them, a zero-length one, pieces
 * of odd lengths) arrives byte for byte as the pieces laid end to end;
 * its three buffer objects hold the buffers' addresses in the receiver's
 * mapping, where the receiver finds the right bytes, the third found
 * through the second (a buffer inside a buffer); the local object in it
 * arrives as a handle.  The reply, gathered too, is fixed up in the
 * caller's mapping.  A buffer object in a plain FBINDER_CMD_SEND is fixed
 * up the same way; an empty gather list and a oneway gathered send
 * arrive.  Sender and receiver run as uid 65534.
 */
#include "fbt_proto.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x5c47ULL
#define LOCAL_COOKIE	0x10ca1ULL
#define C_GATHER	1
#define C_PLAIN		2
#define C_EMPTY		3
#define C_ONEWAY	4
#define C_END		5
#define HDR		64
#define L1		1000	/* two pieces: 333 + 667 */
#define L2		5000
#define L3		40
#define OFF1		HDR
#define OFF2		(OFF1 + L1)
#define OFF3		(OFF2 + L2)
#define TOTAL		(OFF3 + L3)
#define NESTED		16	/* the third buffer's object, in the second */

/* The call's header: three buffer objects around a seed and a local object. */
struct hdr {
	__u64 magic;
	struct fbinder_ptr_object a;	/* at 8: the first payload */
	struct fbinder_ptr_object b;	/* at 24: the second */
	__u64 seed;			/* at 40 */
	struct fbinder_object local;	/* at 48 */
};

_Static_assert(sizeof(struct hdr) == HDR, "the header is HDR bytes");

static const __u64 call_offs[] = { 8, 24, 48, OFF2 + NESTED };

static unsigned char *p1, *p2, *p3;

/* The address in the receiver's mapping of offset off of message m. */
static __u64 addr_of(const struct fbt_ctx *p, const struct fbinder_txn_msg *m, __u64 off)
{
	return (__u64)(uintptr_t)(p->map + m->data + off);
}

/* A buffer object as received: its address, its length, and the bytes there. */
static void check_ptr(const struct fbt_ctx *p, const struct fbinder_txn_msg *m,
		      const struct fbinder_ptr_object *o, __u64 off, __u32 len,
		      long seed, const char *what)
{
	const unsigned char *at;
	long bad;

	CHECK(o->type == FBINDER_OBJ_PTR && o->length == len &&
	      o->ptr == addr_of(p, m, off),
	      "%s: type %u length %u ptr %#llx, want %u, %#llx", what, o->type,
	      o->length, (unsigned long long)o->ptr, len,
	      (unsigned long long)addr_of(p, m, off));
	if (o->ptr != addr_of(p, m, off) || seed < 0)
		return;
	/* follow the pointer, as a receiver would */
	at = (const unsigned char *)(uintptr_t)o->ptr;
	bad = fbt_verify(at, len, (__u32)seed);
	CHECK(bad < 0, "%s: the bytes at the fixed-up pointer differ at %ld", what, bad);
}

/* The gathered call, as the receiver sees it. */
static void check_gather(struct fbt_ctx *p, const struct fbinder_txn_msg *m)
{
	const unsigned char *d = fbt_data(p, m), *b;
	const __u64 *offs;
	struct hdr h;
	struct fbinder_ptr_object c;
	size_t i;

	CHECK(m->data_size == TOTAL && m->offsets_count == 4,
	      "S: gathered call of %llu bytes, %llu objects; want %d, 4",
	      (unsigned long long)m->data_size, (unsigned long long)m->offsets_count,
	      TOTAL);
	if (m->data_size != TOTAL || m->offsets_count != 4)
		return;
	offs = fbt_offsets(p, m);
	for (i = 0; i < 4; i++)
		CHECK(offs[i] == call_offs[i], "S: offset %zu is %llu, want %llu", i,
		      (unsigned long long)offs[i], (unsigned long long)call_offs[i]);
	memcpy(&h, d, sizeof(h));
	CHECK(h.magic == 0x6761746865720a00ULL && h.seed == 0x5eed,
	      "S: header magic %#llx seed %#llx", (unsigned long long)h.magic,
	      (unsigned long long)h.seed);
	check_ptr(p, m, &h.a, OFF1, L1, 1, "S: buffer a (two pieces)");
	check_ptr(p, m, &h.b, OFF2, L2, -1, "S: buffer b");
	if (h.b.ptr != addr_of(p, m, OFF2))
		return;
	/* b holds c's object at NESTED, translated; its other bytes are b's */
	b = (const unsigned char *)(uintptr_t)h.b.ptr;
	memcpy(&c, b + NESTED, sizeof(c));
	check_ptr(p, m, &c, OFF3, L3, 3, "S: buffer c, found in buffer b");
	CHECK(fbt_verify(b, NESTED, 2) < 0 &&
	      fbt_verify(b + NESTED + sizeof(c), L2 - NESTED - sizeof(c), 4) < 0,
	      "S: buffer b's bytes around its object differ");
	CHECK(h.local.type == FBINDER_OBJ_HANDLE && h.local.handle != 0,
	      "S: the local object arrived as type %u handle %u, want a handle",
	      h.local.type, h.local.handle);
}

/* The gathered reply: a buffer object to 24 bytes after a 16-byte head. */
static int reply_gather(struct fbt_ctx *p, const struct fbinder_txn_msg *m)
{
	static const char tail[24] = "the gathered reply tail";
	struct fbinder_ptr_object o = {
		.type = FBINDER_OBJ_PTR, .length = sizeof(tail), .ptr = 16,
	};
	struct fbinder_iovec iov[3] = {
		{ (uintptr_t)&o, 8 }, { (uintptr_t)&o + 8, 8 },
		{ (uintptr_t)tail, sizeof(tail) },
	};
	__u64 off = 0;
	struct fbinder_txn_sg sg = {
		.code = 7, .iov = (uintptr_t)iov, .iov_count = 3,
		.offsets = (uintptr_t)&off, .offsets_count = 1,
	};
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_REPLY_SG, &sg, sizeof(sg));
	fbt_w_free(&w, m->data);
	return fbt_wr(p, &w, NULL, false);
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	const struct fbinder_ptr_object *o;
	struct fbt_ret r;
	int ret;

	(void)arg;
	alarm(60);
	for (;;) {
		if (fbt_next(p, &r))
			die("S: read");
		if (r.cmd != FBINDER_RET_TRANSACTION)
			continue;
		switch (r.msg.code) {
		case C_GATHER:
			check_gather(p, &r.msg);
			ret = reply_gather(p, &r.msg);
			CHECK(ret == 0, "S: gathered reply: %s", strerror(-ret));
			break;
		case C_PLAIN:
			/* FBINDER_CMD_SEND: a buffer object at 0 to bytes 16..47 */
			CHECK(r.msg.data_size == 48 && r.msg.offsets_count == 1,
			      "S: plain send of %llu bytes", (unsigned long long)r.msg.data_size);
			o = fbt_data(p, &r.msg);
			if (r.msg.data_size == 48)
				check_ptr(p, &r.msg, o, 16, 32, 9, "S: plain send's buffer");
			CHECK(fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "S: reply");
			break;
		case C_EMPTY:
			CHECK(r.msg.data_size == 0 && r.msg.offsets_count == 0,
			      "S: empty gather of %llu bytes", (unsigned long long)r.msg.data_size);
			CHECK(fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "S: reply");
			break;
		case C_ONEWAY:
			CHECK(r.msg.flags & FBINDER_TXN_ONEWAY && r.msg.data_size == L2 &&
			      fbt_verify(fbt_data(p, &r.msg), L1, 2) < 0 &&
			      fbt_verify((const unsigned char *)fbt_data(p, &r.msg) + L1,
					 L2 - L1, 2 + 0x100) < 0,
			      "S: oneway gathered send differs");
			CHECK(fbt_free_buffer(p, r.msg.data) == 0, "S: free");
			break;
		case C_END:
			CHECK(fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "S: reply");
			return fbt_child_status();
		default:
			CHECK(0, "S: code %u", r.msg.code);
			return 1;
		}
	}
}

/* One SEND_SG (or a plain SEND of w) and its reply; 0 or -errno. */
static int call_w(struct fbt_ctx *c, struct fbt_w *w, struct fbt_ret *reply)
{
	int ret = fbt_wr(c, w, NULL, true);

	while (!ret) {
		ret = fbt_next(c, reply);
		if (!ret && (reply->cmd == FBINDER_RET_REPLY ||
			     reply->cmd == FBINDER_RET_FAILED))
			return 0;
	}
	return ret;
}

static int call_sg(struct fbt_ctx *c, const struct fbinder_txn_sg *sg,
		   struct fbt_ret *reply)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_SEND_SG, sg, sizeof(sg[0]));
	return call_w(c, &w, reply);
}

static void gather_call(struct fbt_ctx *c)
{
	struct hdr h = {
		.magic = 0x6761746865720a00ULL,
		.a = { .type = FBINDER_OBJ_PTR, .length = L1, .ptr = OFF1 },
		.b = { .type = FBINDER_OBJ_PTR, .length = L2, .ptr = OFF2 },
		.seed = 0x5eed,
		.local = { .type = FBINDER_OBJ_LOCAL, .cookie = LOCAL_COOKIE },
	};
	struct fbinder_ptr_object cobj = {
		.type = FBINDER_OBJ_PTR, .length = L3, .ptr = OFF3,
	};
	struct fbinder_iovec iov[8] = {
		{ (uintptr_t)&h, 30 },		/* b's object split across two */
		{ (uintptr_t)&h + 30, sizeof(h) - 30 },
		{ (uintptr_t)p1, 0 },
		{ (uintptr_t)p1, 333 },
		{ 0, 0 },
		{ (uintptr_t)p1 + 333, L1 - 333 },
		{ (uintptr_t)p2, L2 },
		{ (uintptr_t)p3, L3 },
	};
	struct fbinder_txn_sg sg = {
		.code = C_GATHER, .flags = 0, .iov = (uintptr_t)iov, .iov_count = 8,
		.offsets = (uintptr_t)call_offs, .offsets_count = 4,
	};
	const struct fbinder_ptr_object *o;
	struct fbt_ret reply;
	int ret;

	/* buffer b: seed 2 bytes, c's object at NESTED, seed 4 bytes after */
	fbt_fill(p2, NESTED, 2);
	memcpy(p2 + NESTED, &cobj, sizeof(cobj));
	fbt_fill(p2 + NESTED + sizeof(cobj), L2 - NESTED - sizeof(cobj), 4);
	ret = call_sg(c, &sg, &reply);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY && reply.msg.code == 7,
	      "gathered call: %s, %s code %u", strerror(-ret), fbt_ret_name(reply.cmd),
	      reply.msg.code);
	if (ret || reply.cmd != FBINDER_RET_REPLY)
		return;
	/* the gathered reply's buffer, fixed up in our mapping */
	CHECK(reply.msg.data_size == 40 && reply.msg.offsets_count == 1,
	      "reply of %llu bytes", (unsigned long long)reply.msg.data_size);
	o = fbt_data(c, &reply.msg);
	CHECK(o->type == FBINDER_OBJ_PTR && o->length == 24 &&
	      o->ptr == addr_of(c, &reply.msg, 16) &&
	      !memcmp((const void *)(uintptr_t)o->ptr, "the gathered reply tail", 24),
	      "the reply's buffer object: type %u length %u ptr %#llx", o->type,
	      o->length, (unsigned long long)o->ptr);
	printf("# a call of %d bytes from 8 pieces and its gathered reply: fixed up\n",
	       TOTAL);
	CHECK(fbt_free_buffer(c, reply.msg.data) == 0, "free the reply");
}

static void plain_call(struct fbt_ctx *c)
{
	unsigned char d[48];
	struct fbinder_ptr_object o = {
		.type = FBINDER_OBJ_PTR, .length = 32, .ptr = 16,
	};
	__u64 off = 0;
	struct fbt_ret reply;
	int ret;

	memcpy(d, &o, sizeof(o));
	fbt_fill(d + 16, 32, 9);
	ret = fbt_call(c, 0, C_PLAIN, d, sizeof(d), &off, 1, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "plain send with a buffer: %s %s",
	      strerror(-ret), fbt_ret_name(reply.cmd));
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		CHECK(fbt_free_buffer(c, reply.msg.data) == 0, "free");
}

int main(void)
{
	struct fbinder_version ver = { 0 };
	struct fbinder_txn_sg sg = { .code = C_EMPTY };
	struct fbinder_iovec iov[2];
	struct fbt_ctx c;
	struct fbt_ret reply;
	struct fbt_w w;
	pid_t spid;
	int ret;

	alarm(60);
	p1 = malloc(L2);	/* the oneway send's second piece too */
	p2 = malloc(L2);
	p3 = malloc(L3);
	if (!p1 || !p2 || !p3)
		die("malloc");
	fbt_fill(p1, L1, 1);
	fbt_fill(p3, L3, 3);
	spid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, s_main, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&c, MB);
	CHECK(ioctl(c.fd, FBINDER_IOC_VERSION, &ver) == 0 &&
	      ver.features & FBINDER_FEATURE_SEND_SG,
	      "FBINDER_IOC_VERSION features %#llx lack FBINDER_FEATURE_SEND_SG",
	      (unsigned long long)ver.features);

	gather_call(&c);
	plain_call(&c);

	ret = call_sg(&c, &sg, &reply);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "empty gather list: %s %s",
	      strerror(-ret), fbt_ret_name(reply.cmd));
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		CHECK(fbt_free_buffer(&c, reply.msg.data) == 0, "free");

	/* oneway: L1 bytes of p2 then the rest from another seed */
	fbt_fill(p2, L2, 2);
	fbt_fill(p1, L2 - L1, 2 + 0x100);
	iov[0] = (struct fbinder_iovec){ (uintptr_t)p2, L1 };
	iov[1] = (struct fbinder_iovec){ (uintptr_t)p1, L2 - L1 };
	sg = (struct fbinder_txn_sg){
		.code = C_ONEWAY, .flags = FBINDER_TXN_ONEWAY,
		.iov = (uintptr_t)iov, .iov_count = 2,
	};
	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_SEND_SG, &sg, sizeof(sg));
	ret = fbt_wr(&c, &w, NULL, false);
	CHECK(ret == 0, "oneway gathered send: %s", strerror(-ret));

	ret = fbt_call(&c, 0, C_END, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "end: %s", strerror(-ret));
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		CHECK(fbt_free_buffer(&c, reply.msg.data) == 0, "free");
	CHECK(fbt_wait(spid) == 0, "the server's checks failed (see above)");
	fbt_ctx_close(&c);
	free(p1);
	free(p2);
	free(p3);
	return fbt_done();
}
