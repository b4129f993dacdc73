// SPDX-License-Identifier: MIT
/*
 * nested_calls: calls back into the caller's process go to the very thread
 * that waits.  A (one thread) calls S (the manager, one thread); S calls
 * back into A through a handle A passed; A's waiting thread handles it and
 * calls S again, and so on to depth 6; then every level replies.  With one
 * thread per process this deadlocks unless the driver routes by
 * transaction chain (alarm() turns a deadlock into a failure).  A oneway
 * message A sends meanwhile is not delivered to S's waiting thread (it gets
 * only its chain's work), but right after.  Every reply carries its call's
 * txn_id, and every level's IDs differ.
 */
#include "fbt_proto.h"

#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x11e57ULL
#define CA		0xa11a11a1ULL

enum { C_NEST = 1, C_NOTE, C_STATUS, C_QUIT };

struct nest_req {
	struct fbinder_object obj;	/* A's object on the first call, else plain bytes */
	__u32 depth;
	__u32 pad;
};

struct nest_rep {
	__u64 txn_id;		/* of the call this answers */
	__u32 depth;
	__u32 ok;		/* every check at this level and below passed */
};

struct side {
	bool is_s;
	__u64 my_cookie;
	__u32 peer;		/* handle of the other side's object */
	int notes;		/* S: C_NOTE oneways received */
	bool note_sent;		/* A: sent its oneway during the chain */
	int leaked;		/* S: non-chain returns seen while waiting */
	__u64 ids[16];		/* txn_ids seen by this side */
	int nids;
};

static int handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg);

static bool nest_call(struct fbt_ctx *p, struct side *sd, __u32 depth)
{
	struct nest_req req = { .depth = depth };
	const struct nest_rep *rp;
	struct fbt_ret rep;
	bool ok = false;
	unsigned int before = p->qlen;
	int ret;

	ret = fbt_call(p, sd->peer, C_NEST, &req, sizeof(req), NULL, 0, &rep, handler, sd);
	if (sd->is_s && p->qlen != before) {
		sd->leaked += p->qlen - before;
		CHECK(0, "S: %u non-chain returns reached its waiting thread", p->qlen - before);
	}
	CHECK(ret == 0 && rep.cmd == FBINDER_RET_REPLY, "%s: nested call at depth %u: %s %s",
	      sd->is_s ? "S" : "A", depth, strerror(-ret), fbt_ret_name(rep.cmd));
	if (ret || rep.cmd != FBINDER_RET_REPLY)
		return false;
	if (rep.msg.data_size == sizeof(*rp)) {
		rp = fbt_data(p, &rep.msg);
		CHECK(rp->depth == depth && rp->txn_id == rep.msg.txn_id,
		      "%s: reply at depth %u says depth %u txn %llu, reply txn %llu",
		      sd->is_s ? "S" : "A", depth, rp->depth,
		      (unsigned long long)rp->txn_id, (unsigned long long)rep.msg.txn_id);
		ok = rp->ok && rp->depth == depth && rp->txn_id == rep.msg.txn_id;
	} else {
		CHECK(0, "reply of %llu bytes", (unsigned long long)rep.msg.data_size);
	}
	fbt_free_buffer(p, rep.msg.data);
	return ok;
}

static int handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct side *sd = arg;
	const struct fbinder_txn_msg *m = &r->msg;
	struct nest_rep out = { .txn_id = m->txn_id, .ok = 1 };
	struct nest_req req;
	int ret;

	if (r->cmd != FBINDER_RET_TRANSACTION) {
		CHECK(0, "%s got %s", sd->is_s ? "S" : "A", fbt_ret_name(r->cmd));
		return 0;
	}
	switch (m->code) {
	case C_NOTE:
		CHECK(m->flags & FBINDER_TXN_ONEWAY, "C_NOTE not oneway");
		sd->notes++;
		fbt_free_buffer(p, m->data);
		return 0;
	case C_STATUS:
		out.depth = sd->notes;
		out.ok = sd->leaked;
		fbt_reply(p, m, 0, &out, sizeof(out), NULL, 0);
		return 0;
	case C_QUIT:
		fbt_reply(p, m, 0, NULL, 0, NULL, 0);
		return 1;
	case C_NEST:
		break;
	default:
		CHECK(0, "unknown code %u", m->code);
		return 0;
	}
	CHECK(m->cookie == sd->my_cookie, "%s: C_NEST to cookie 0x%llx, want 0x%llx",
	      sd->is_s ? "S" : "A", (unsigned long long)m->cookie,
	      (unsigned long long)sd->my_cookie);
	CHECK(m->data_size == sizeof(req), "C_NEST of %llu bytes", (unsigned long long)m->data_size);
	memcpy(&req, fbt_data(p, m), sizeof(req));
	if (sd->is_s && m->offsets_count == 1) {
		const struct fbinder_object *o = fbt_obj(p, m, 0);

		CHECK(o->type == FBINDER_OBJ_HANDLE, "S: A's object arrived as type %u", o->type);
		if (!sd->peer) {
			sd->peer = o->handle;
			CHECK(fbt_acquire(p, sd->peer) == 0, "S: acquire");
		}
		CHECK(o->handle == sd->peer, "S: A's object is handle %u, was %u", o->handle,
		      sd->peer);
	}
	if (sd->nids < 16)
		sd->ids[sd->nids++] = m->txn_id;
	out.depth = req.depth;
	if (req.depth > 0) {
		if (!sd->is_s && !sd->note_sent) {
			/* S's only thread waits for us: this must wait for it. */
			ret = fbt_oneway(p, 0, C_NOTE, NULL, 0, NULL, 0);
			CHECK(ret == 0, "A: oneway during the chain: %s", strerror(-ret));
			sd->note_sent = true;
		}
		out.ok = nest_call(p, sd, req.depth - 1);
	}
	ret = fbt_reply(p, m, 0, &out, sizeof(out), NULL, 0);
	CHECK(ret == 0, "%s: reply at depth %u: %s", sd->is_s ? "S" : "A", req.depth,
	      strerror(-ret));
	return 0;
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	struct side sd = { .is_s = true, .my_cookie = MGR_COOKIE };
	int ret;

	(void)arg;
	alarm(30);
	ret = fbt_serve(p, handler, &sd);
	CHECK(ret == 0, "S: serve: %s", strerror(-ret));
	return fbt_child_status();
}

static void run_chain(struct fbt_ctx *c, struct side *sd, __u32 depth, bool first)
{
	struct nest_req req = { .depth = depth };
	__u64 off = 0;
	struct fbt_ret rep;
	const struct nest_rep *rp;
	int ret, i, j;

	req.obj = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = CA };
	sd->nids = 0;
	ret = fbt_call(c, 0, C_NEST, &req, sizeof(req), first ? &off : NULL, first ? 1 : 0,
		       &rep, handler, sd);
	CHECK(ret == 0 && rep.cmd == FBINDER_RET_REPLY, "chain of depth %u: %s %s (error %d)", depth,
	      strerror(-ret), fbt_ret_name(rep.cmd), rep.cmd == FBINDER_RET_FAILED ? rep.err.error : 0);
	if (ret || rep.cmd != FBINDER_RET_REPLY)
		return;
	rp = fbt_data(c, &rep.msg);
	CHECK(rep.msg.data_size == sizeof(*rp) && rp->ok && rp->depth == depth &&
	      rp->txn_id == rep.msg.txn_id,
	      "chain of depth %u: reply ok %u depth %u txn %llu/%llu", depth, rp->ok, rp->depth,
	      (unsigned long long)rp->txn_id, (unsigned long long)rep.msg.txn_id);
	CHECK(sd->nids == (int)(depth + 1) / 2, "A handled %d nested calls, want %u", sd->nids,
	      (depth + 1) / 2);
	for (i = 0; i < sd->nids; i++) {
		CHECK(sd->ids[i] != rep.msg.txn_id, "nested call shares the outer txn_id");
		for (j = i + 1; j < sd->nids; j++)
			CHECK(sd->ids[i] != sd->ids[j], "two nested calls share txn_id %llu",
			      (unsigned long long)sd->ids[i]);
	}
	fbt_free_buffer(c, rep.msg.data);
	printf("# chain of depth %u done (txn %llu)\n", depth, (unsigned long long)rep.msg.txn_id);
}

int main(void)
{
	struct side sd = { .is_s = false, .my_cookie = CA, .peer = 0 };
	struct fbt_ctx c;
	struct fbt_ret rep;
	pid_t spid;
	int ret;

	alarm(30);
	spid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, s_main, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&c, MB);

	run_chain(&c, &sd, 1, true);	/* A -> S -> A */
	run_chain(&c, &sd, 6, false);	/* A -> S -> A -> S -> A -> S -> A */

	/* S got A's oneway only after its chain ended, and nothing leaked. */
	ret = fbt_call(&c, 0, C_STATUS, NULL, 0, NULL, 0, &rep, NULL, NULL);
	CHECK(ret == 0 && rep.cmd == FBINDER_RET_REPLY, "status: %s", strerror(-ret));
	if (!ret && rep.cmd == FBINDER_RET_REPLY) {
		const struct nest_rep *rp = fbt_data(&c, &rep.msg);

		CHECK(rp->depth == 1, "S received %u of A's oneway notes, want 1", rp->depth);
		CHECK(rp->ok == 0, "S's waiting thread got %u returns of other work", rp->ok);
		fbt_free_buffer(&c, rep.msg.data);
	}
	ret = fbt_call(&c, 0, C_QUIT, NULL, 0, NULL, 0, &rep, NULL, NULL);
	if (!ret && rep.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, rep.msg.data);
	CHECK(fbt_wait(spid) == 0, "S reported failures");
	fbt_ctx_close(&c);
	return fbt_done();
}
