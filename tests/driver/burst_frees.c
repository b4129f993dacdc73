// SPDX-License-Identifier: MIT
/*
 * burst_frees: the slots of a burst are freed in any order, each once, and
 * only once delivered.  The allocator guesses which slot a free names (the
 * one after the slot taken before it) before it searches; the guess must
 * never free what the tree would refuse:
 *
 *   - with one message of a queued burst read, a free of any other offset
 *     of the mapping's first pages is EINVAL (the next slot, where the
 *     guess points, is not delivered yet), and the burst then arrives
 *     whole, in order;
 *   - the rest, read, are freed in a scrambled order; each second free of
 *     an offset is EINVAL;
 *   - a second burst then lands in the same buffer, intact.
 *
 * Manager and sender are two contexts of this process, claimed as root,
 * then run as uid 65534.
 */
#include "fbt_proto.h"

#include <sys/ioctl.h>
#include <unistd.h>

#define MGR_COOKIE	0xf5eeULL
#define MAP		(64 * 1024)
/* fewer than one read returns: a node's oneway messages wait for those out */
#define N		32
#define C_SEQ		3

static struct fbt_ctx m, s;

/* One message read into *msg, with a read buffer that holds exactly one return. */
static int read_one(struct fbinder_txn_msg *msg)
{
	unsigned char buf[4 + sizeof(*msg)];
	struct fbinder_write_read wr = {
		.read_buffer = (uintptr_t)buf, .read_size = sizeof(buf),
	};
	__u32 cmd;

	if (ioctl(m.fd, FBINDER_IOC_WRITE_READ, &wr) < 0)
		return -errno;
	if (wr.read_consumed != sizeof(buf))
		return -EPROTO;
	memcpy(&cmd, buf, 4);
	if (cmd != FBINDER_RET_TRANSACTION)
		return -EPROTO;
	memcpy(msg, buf + 4, sizeof(*msg));
	return 0;
}

static void send_burst(__u32 base)
{
	__u32 i, v;
	int rc;

	for (i = 0; i < N; i++) {
		v = base + i;
		rc = fbt_oneway(&s, 0, C_SEQ, &v, sizeof(v), NULL, 0);
		CHECK(rc == 0, "oneway %u: %s", v, strerror(-rc));
	}
}

/* The message's payload, checked to be seq. */
static void check_msg(const struct fbinder_txn_msg *msg, __u32 seq)
{
	__u32 v = ~0u;

	if (msg->data_size == sizeof(v))
		memcpy(&v, fbt_data(&m, msg), sizeof(v));
	CHECK(msg->code == C_SEQ && v == seq, "message %u: code %u, %llu bytes, payload %u",
	      seq, msg->code, (unsigned long long)msg->data_size, v);
}

int main(void)
{
	struct fbinder_txn_msg first;
	__u64 off[N], o;
	struct fbt_ret r;
	int rc, bad = 0;
	__u32 i, j;

	alarm(60);
	fbt_ctx_open(&m, MAP);
	fbt_ctx_open(&s, MAP);
	if (fbt_set_mgr(m.fd, MGR_COOKIE))
		die("SET_CONTEXT_MGR");
	fbt_become_nobody();

	/* one delivered: no other slot may be freed yet */
	send_burst(0);
	rc = read_one(&first);
	CHECK(rc == 0, "the first message: %s", strerror(-rc));
	if (rc)
		return fbt_done();
	check_msg(&first, 0);
	CHECK(fbt_free_buffer(&m, first.data) == 0, "free of the delivered message");
	for (o = 0; o < 4 * 4096; o += 8) {
		rc = fbt_free_buffer(&m, o);
		if (rc != -EINVAL && !bad++)
			CHECK(0, "free of offset %llu, not delivered: %s, want EINVAL",
			      (unsigned long long)o, strerror(-rc));
	}
	CHECK(!bad, "%d frees of undelivered offsets were not EINVAL", bad);
	for (i = 1; i < N; i++) {
		rc = fbt_next(&m, &r);
		CHECK(rc == 0 && r.cmd == FBINDER_RET_TRANSACTION, "message %u: %s %s", i,
		      strerror(-rc), fbt_ret_name(r.cmd));
		if (rc || r.cmd != FBINDER_RET_TRANSACTION)
			return fbt_done();
		check_msg(&r.msg, i);
		off[i] = r.msg.data;
	}

	/* scrambled: odd ones backwards, then even ones forwards; then again */
	for (i = N - 1; i >= 1; i--)
		if (i % 2)
			CHECK(fbt_free_buffer(&m, off[i]) == 0, "free of message %u", i);
	for (i = 2; i < N; i += 2)
		CHECK(fbt_free_buffer(&m, off[i]) == 0, "free of message %u", i);
	for (j = 1, bad = 0; j < N; j++)
		if (fbt_free_buffer(&m, off[j]) != -EINVAL)
			bad++;
	CHECK(!bad, "%d second frees were not EINVAL", bad);
	CHECK(fbt_free_buffer(&m, first.data) == -EINVAL, "second free of the first message");

	/* the buffer is whole again: a second burst, in order, intact */
	send_burst(N);
	for (i = 0; i < N; i++) {
		rc = fbt_next(&m, &r);
		CHECK(rc == 0 && r.cmd == FBINDER_RET_TRANSACTION, "second burst, message %u", i);
		if (rc || r.cmd != FBINDER_RET_TRANSACTION)
			return fbt_done();
		check_msg(&r.msg, N + i);
		CHECK(fbt_free_buffer(&m, r.msg.data) == 0, "free of message %u", N + i);
	}
	fbt_ctx_close(&s);
	fbt_ctx_close(&m);
	return fbt_done();
}
