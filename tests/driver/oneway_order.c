// SPDX-License-Identifier: MIT
/*
 * oneway_order: oneway messages to one node arrive in order, intact, one
 * at a time: after a read, nothing more of that node is delivered until
 * the receiver frees what it got (a read may batch several consecutive
 * ones).  200 sends one per ioctl, then 64 sends in one WRITE_READ, all
 * succeed and all arrive; the sender gets no acknowledgement back.
 */
#include "fbt_proto.h"

#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x0e1a0ULL
#define N_SINGLE	200
#define N_BATCH		64
#define N_TOTAL		(N_SINGLE + N_BATCH)
#define C_SEQ		7

struct seqmsg {
	__u32 seq;
	__u32 len;		/* pattern bytes that follow, seeded by seq */
	unsigned char pat[64];
};

static size_t msg_size(__u32 seq)
{
	return 8 + seq % 64;
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	__u32 expect = 0;
	unsigned int max_batch = 0, reads = 0;
	pid_t sender = *(pid_t *)arg;

	alarm(40);
	while (expect < N_TOTAL) {
		struct fbt_w frees;
		struct fbt_ret r;
		unsigned int batch = 0;
		int ret;

		ret = fbt_wr(p, NULL, NULL, true);
		if (ret) {
			errno = -ret;
			die("S: read");
		}
		reads++;
		fbt_w_reset(&frees);
		while (p->qlen) {	/* the returns of this one read */
			const struct seqmsg *sm;

			fbt_next(p, &r);
			if (r.cmd != FBINDER_RET_TRANSACTION) {
				CHECK(0, "S got %s", fbt_ret_name(r.cmd));
				break;
			}
			batch++;
			CHECK(r.msg.flags == FBINDER_TXN_ONEWAY && r.msg.code == C_SEQ &&
			      r.msg.cookie == MGR_COOKIE && r.msg.sender_pid == sender,
			      "S: message flags 0x%x code %u cookie 0x%llx pid %d", r.msg.flags,
			      r.msg.code, (unsigned long long)r.msg.cookie, r.msg.sender_pid);
			sm = fbt_data(p, &r.msg);
			CHECK(r.msg.data_size >= 8 && sm->seq == expect,
			      "S: got seq %u, want %u: out of order", sm->seq, expect);
			CHECK(r.msg.data_size == msg_size(expect) && sm->len == expect % 64 &&
			      fbt_verify(sm->pat, sm->len, expect) < 0,
			      "S: message %u: %llu bytes or content wrong", expect,
			      (unsigned long long)r.msg.data_size);
			expect = sm->seq + 1;
			fbt_w_free(&frees, r.msg.data);
		}
		if (batch > max_batch)
			max_batch = batch;
		/* Nothing more of this node until the batch is freed. */
		if (expect < N_TOTAL) {
			ret = fbt_try_next(p, &r);
			CHECK(ret == -EAGAIN,
			      "S: after reading up to seq %u, before freeing: %s %s (seq %u), want nothing",
			      expect - 1, strerror(-ret), fbt_ret_name(r.cmd),
			      ret == 0 && r.cmd == FBINDER_RET_TRANSACTION ?
			      ((const struct seqmsg *)fbt_data(p, &r.msg))->seq : 0);
			if (ret == 0)
				return 1;	/* lost track; the failure is reported */
		}
		ret = fbt_wr(p, &frees, NULL, false);
		CHECK(ret == 0, "S: free batch: %s", strerror(-ret));
	}
	printf("# S: %u messages in order in %u reads (largest batch %u)\n", expect, reads,
	       max_batch);
	return fbt_child_status();
}

static void fill(struct seqmsg *m, __u32 seq)
{
	m->seq = seq;
	m->len = seq % 64;
	fbt_fill(m->pat, m->len, seq);
}

int main(void)
{
	static struct seqmsg msgs[N_BATCH];
	struct fbt_ctx c;
	struct fbt_ret r;
	struct fbt_w w;
	pid_t spid, me = getpid();
	size_t done = 0;
	__u32 i;
	int ret, failed = 0;

	alarm(40);
	spid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, s_main, &me);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&c, MB);

	for (i = 0; i < N_SINGLE; i++) {
		struct seqmsg m;

		fill(&m, i);
		ret = fbt_oneway(&c, 0, C_SEQ, &m, msg_size(i), NULL, 0);
		if (ret && !failed++)
			CHECK(0, "oneway %u: %s", i, strerror(-ret));
	}
	CHECK(!failed, "%d of %d single oneways failed", failed, N_SINGLE);

	fbt_w_reset(&w);
	for (i = 0; i < N_BATCH; i++) {
		fill(&msgs[i], N_SINGLE + i);
		fbt_w_send(&w, 0, C_SEQ, FBINDER_TXN_ONEWAY, &msgs[i], msg_size(N_SINGLE + i), NULL, 0);
	}
	ret = fbt_wr(&c, &w, &done, false);
	CHECK(ret == 0 && done == w.len, "%d oneways in one WRITE_READ: %s, consumed %zu of %zu",
	      N_BATCH, strerror(-ret), done, w.len);

	/* No acknowledgement comes back for oneway messages. */
	ret = fbt_try_next(&c, &r);
	CHECK(ret == -EAGAIN, "the sender of oneways read %s %s, want nothing", strerror(-ret),
	      fbt_ret_name(r.cmd));

	CHECK(fbt_wait(spid) == 0, "S did not get all %d messages in order (see above)", N_TOTAL);
	fbt_ctx_close(&c);
	return fbt_done();
}
