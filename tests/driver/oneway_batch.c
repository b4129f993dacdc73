// SPDX-License-Identifier: MIT
/*
 * oneway_batch: FBINDER_CMD_SEND_BATCH.  A batch arrives as one oneway
 * message with FBINDER_TXN_BATCH: a struct fbinder_batch whose entries
 * give each message's code and its payload's offset in the receiver's
 * mapping, every payload intact, 8-byte aligned, its padding zeroed, in
 * the order sent and in order with single oneways around it; one
 * FREE_BUFFER frees it, and an entry's offset is no buffer.  Bad batches
 * (count 0 or over FBINDER_MAX_BATCH, a reserved field, bad pointers, too
 * big for a message or for the oneway half, no such handle) fail with their errno,
 * stop the write stream there and deliver nothing; what went before them
 * is delivered.  Sender and receiver run as uid 65534.  A call of
 * STALE_SIZE bytes of 0xa5, freed before anything else is sent, leaves
 * the slots the messages take full of stale bytes, which no padding may
 * show.
 */
#include "fbt_proto.h"

#include <stdlib.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0xba7c0ULL
#define CODE0		1000		/* a message's code: CODE0 + its seq */
#define N_MSGS		301		/* seqs 0..300; 300 ends the test */
#define BAD_SEQ		5000		/* seqs of batches that must not arrive */
#define BIG		4000
#define SLOT		4096
#define STALE_CODE	999		/* the call that leaves stale bytes */
#define STALE_SIZE	(64 * 1024)

static unsigned char *pool;		/* SLOT bytes of payload per seq */

static size_t msg_size(__u32 seq)
{
	if (seq == 20)
		return BIG;
	if (seq % 9 == 0)
		return 0;
	return seq % 61 + 1;		/* mostly not a multiple of 8 */
}

static const void *payload(__u32 seq)
{
	return pool + (size_t)(seq % N_MSGS) * SLOT;
}

/* One message, a single one or a batch's entry: its seq must be *expect. */
static void check_msg(__u32 code, const unsigned char *data, __u64 size,
		      __u32 *expect)
{
	__u32 seq = code - CODE0;
	long bad;

	CHECK(seq == *expect, "S: got seq %u (code %u), want %u: out of order or lost",
	      seq, code, *expect);
	CHECK(size == msg_size(seq), "S: seq %u has %llu bytes, want %zu", seq,
	      (unsigned long long)size, msg_size(seq));
	bad = size == msg_size(seq) ? fbt_verify(data, size, seq) : -1;
	CHECK(bad < 0, "S: seq %u differs at byte %ld", seq, bad);
	*expect = seq + 1;
}

/* A delivered batch: the header, then every entry against what was sent. */
static void check_batch(struct fbt_ctx *p, const struct fbinder_txn_msg *m,
			__u32 *expect, unsigned int *batches)
{
	const struct fbinder_batch *b = fbt_data(p, m);
	__u64 table, pos, end = m->data + m->data_size;
	const unsigned char *pad;
	__u32 i;
	int ret;

	CHECK(m->code == 0 && m->offsets_count == 0 && m->data_size >= sizeof(*b),
	      "S: batch code %u, %llu offsets, %llu bytes", m->code,
	      (unsigned long long)m->offsets_count, (unsigned long long)m->data_size);
	CHECK(b->count >= 1 && b->count <= FBINDER_MAX_BATCH && b->reserved == 0,
	      "S: batch header count %u reserved %u", b->count, b->reserved);
	table = sizeof(*b) + (__u64)b->count * sizeof(b->msgs[0]);
	pos = m->data + table;
	for (i = 0; i < b->count && pos <= end; i++) {
		const struct fbinder_batch_msg *e = &b->msgs[i];

		CHECK(e->reserved == 0 && e->data == pos && e->data_size <= end - pos,
		      "S: entry %u of %u at %llu (%llu bytes), want at %llu, batch ends at %llu",
		      i, b->count, (unsigned long long)e->data,
		      (unsigned long long)e->data_size, (unsigned long long)pos,
		      (unsigned long long)end);
		if (e->data != pos || e->data_size > end - pos)
			return;
		check_msg(e->code, p->map + e->data, e->data_size, expect);
		/* the receiver never sees what the slot held before */
		for (pad = p->map + pos + e->data_size;
		     pad < p->map + pos + ((e->data_size + 7) & ~7ULL); pad++)
			CHECK(*pad == 0, "S: entry %u's padding is %#x", i, *pad);
		pos += (e->data_size + 7) & ~7ULL;
	}
	CHECK(i == b->count && pos == end, "S: %u entries end at %llu, the batch at %llu",
	      i, (unsigned long long)pos, (unsigned long long)end);
	/* an entry is not a buffer of its own */
	if (b->count > 1) {
		ret = fbt_free_buffer(p, b->msgs[1].data);
		CHECK(ret == -EINVAL, "S: FREE_BUFFER of entry 1: %s, want EINVAL",
		      strerror(-ret));
	}
	(*batches)++;
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	unsigned int batches = 0;
	__u32 expect = 0;
	struct fbt_ret r;

	(void)arg;
	alarm(60);
	while (expect < N_MSGS) {
		if (fbt_next(p, &r))
			die("S: read");
		/* freed before the reply lets the sender go on */
		if (r.cmd == FBINDER_RET_TRANSACTION && r.msg.code == STALE_CODE &&
		    !(r.msg.flags & FBINDER_TXN_ONEWAY)) {
			CHECK(fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "S: reply");
			continue;
		}
		if (r.cmd != FBINDER_RET_TRANSACTION) {
			CHECK(0, "S got %s", fbt_ret_name(r.cmd));
			return 1;
		}
		CHECK(r.msg.flags & FBINDER_TXN_ONEWAY && r.msg.cookie == MGR_COOKIE,
		      "S: flags %#x cookie %#llx", r.msg.flags,
		      (unsigned long long)r.msg.cookie);
		if (r.msg.flags & FBINDER_TXN_BATCH)
			check_batch(p, &r.msg, &expect, &batches);
		else
			check_msg(r.msg.code, fbt_data(p, &r.msg), r.msg.data_size, &expect);
		CHECK(fbt_free_buffer(p, r.msg.data) == 0, "S: free");
		if (fbt_failures)
			return 1;
	}
	CHECK(batches == 3, "S: %u batches, want 3", batches);
	printf("# S: %u messages in order, %u of them in %u batches\n", expect,
	       37U + FBINDER_MAX_BATCH + 4U, batches);
	return fbt_child_status();
}

/* A SEND_BATCH of seqs first..first+n-1 appended to w; e receives the entries. */
static void w_batch(struct fbt_w *w, struct fbinder_batch_msg *e, __u32 handle,
		    __u32 first, __u32 n)
{
	struct fbinder_batch_send bs = {
		.handle = handle, .count = n, .msgs = (uintptr_t)e,
	};
	__u32 i;

	for (i = 0; i < n; i++) {
		e[i] = (struct fbinder_batch_msg){
			.code = CODE0 + first + i,
			.data = (uintptr_t)payload(first + i),
			.data_size = msg_size(first + i),
		};
	}
	fbt_w_cmd(w, FBINDER_CMD_SEND_BATCH, &bs, sizeof(bs));
}

/* One batch command alone: the driver's errno, and nothing consumed. */
static int send_alone(struct fbt_ctx *c, const struct fbinder_batch_send *bs)
{
	struct fbt_w w;
	size_t done = 1;
	int ret;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_SEND_BATCH, bs, sizeof(*bs));
	ret = fbt_wr(c, &w, &done, false);
	CHECK(ret == 0 || done == 0, "a failing batch consumed %zu bytes", done);
	return ret;
}

static void bad_batches(struct fbt_ctx *c)
{
	static struct fbinder_batch_msg e[FBINDER_MAX_BATCH + 1];
	struct fbinder_batch_send bs = { .handle = 0, .msgs = (uintptr_t)e };
	struct fbt_w w;
	size_t done;
	__u32 i;
	int ret;

	for (i = 0; i <= FBINDER_MAX_BATCH; i++)
		e[i] = (struct fbinder_batch_msg){
			.code = CODE0 + BAD_SEQ, .data = (uintptr_t)payload(1),
			.data_size = 8,
		};
	bs.count = 0;
	ret = send_alone(c, &bs);
	CHECK(ret == -EINVAL, "count 0: %s, want EINVAL", strerror(-ret));
	bs.count = FBINDER_MAX_BATCH + 1;
	ret = send_alone(c, &bs);
	CHECK(ret == -EINVAL, "count %d: %s, want EINVAL", FBINDER_MAX_BATCH + 1,
	      strerror(-ret));
	bs.count = 3;
	e[2].reserved = 1;
	ret = send_alone(c, &bs);
	CHECK(ret == -EINVAL, "reserved entry: %s, want EINVAL", strerror(-ret));
	e[2].reserved = 0;
	bs.msgs = 8;
	ret = send_alone(c, &bs);
	CHECK(ret == -EFAULT, "entries at address 8: %s, want EFAULT", strerror(-ret));
	bs.msgs = (uintptr_t)e;
	e[1].data = 8;
	ret = send_alone(c, &bs);
	CHECK(ret == -EFAULT, "payload at address 8: %s, want EFAULT", strerror(-ret));
	e[1].data = (uintptr_t)payload(1);
	e[1].data_size = 17 * (__u64)MB;
	ret = send_alone(c, &bs);
	CHECK(ret == -EMSGSIZE, "a 17 MiB entry: %s, want EMSGSIZE", strerror(-ret));
	e[1].data_size = ~0ULL;
	ret = send_alone(c, &bs);
	CHECK(ret == -EMSGSIZE, "an entry of 2^64-1 bytes: %s, want EMSGSIZE",
	      strerror(-ret));
	/* each within bounds, together over the 16 MiB a message may have */
	for (i = 0; i < 5; i++)
		e[i].data_size = 4 * (__u64)MB;
	bs.count = 5;
	ret = send_alone(c, &bs);
	CHECK(ret == -EMSGSIZE, "5 x 4 MiB: %s, want EMSGSIZE", strerror(-ret));
	/*
	 * More than the receiver's oneway half (512 KiB of its 1 MiB): never
	 * fits, as a single oneway message of that size.
	 */
	for (i = 0; i < 2; i++)
		e[i].data_size = 300 * 1024;
	bs.count = 2;
	ret = send_alone(c, &bs);
	CHECK(ret == -EMSGSIZE, "2 x 300 KiB to a 1 MiB buffer: %s, want EMSGSIZE",
	      strerror(-ret));
	for (i = 0; i < 5; i++)
		e[i].data_size = 8;
	bs.handle = 77;
	ret = send_alone(c, &bs);
	CHECK(ret == -ENOENT, "handle 77: %s, want ENOENT", strerror(-ret));
	bs.handle = 0;

	/* a good batch, then a bad one: the first went, the stream stops */
	{
		static struct fbinder_batch_msg good[4];
		size_t one;

		fbt_w_reset(&w);
		w_batch(&w, good, 0, 296, 4);
		one = w.len;
		e[0].reserved = 1;
		fbt_w_cmd(&w, FBINDER_CMD_SEND_BATCH, &bs, sizeof(bs));
		ret = fbt_wr(c, &w, &done, false);
		CHECK(ret == -EINVAL && done == one,
		      "good batch then bad: %s, consumed %zu, want EINVAL after %zu",
		      strerror(-ret), done, one);
		e[0].reserved = 0;
	}
}

int main(void)
{
	static struct fbinder_batch_msg b1[37], b2[FBINDER_MAX_BATCH];
	struct fbt_ctx c;
	struct fbt_w w;
	size_t done = 0;
	pid_t spid;
	__u32 i;
	int ret;

	alarm(60);
	pool = calloc(N_MSGS, SLOT);
	if (!pool)
		die("calloc");
	for (i = 0; i < N_MSGS; i++)
		fbt_fill(pool + (size_t)i * SLOT, msg_size(i), i);
	spid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, s_main, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&c, MB);

	{
		unsigned char *stale = malloc(STALE_SIZE);
		struct fbt_ret reply;

		if (!stale)
			die("malloc");
		memset(stale, 0xa5, STALE_SIZE);
		ret = fbt_call(&c, 0, STALE_CODE, stale, STALE_SIZE, NULL, 0, &reply,
			       NULL, NULL);
		CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "the stale call: %s %s",
		      strerror(-ret), fbt_ret_name(reply.cmd));
		if (!ret && reply.cmd == FBINDER_RET_REPLY)
			CHECK(fbt_free_buffer(&c, reply.msg.data) == 0, "free the stale reply");
		free(stale);
	}

	ret = fbt_oneway(&c, 0, CODE0, payload(0), msg_size(0), NULL, 0);
	CHECK(ret == 0, "single seq 0: %s", strerror(-ret));
	fbt_w_reset(&w);
	w_batch(&w, b1, 0, 1, 37);
	ret = fbt_wr(&c, &w, &done, false);
	CHECK(ret == 0 && done == w.len, "batch of 37: %s", strerror(-ret));

	/* single, the largest batch, single: one WRITE_READ */
	fbt_w_reset(&w);
	fbt_w_send(&w, 0, CODE0 + 38, FBINDER_TXN_ONEWAY, payload(38), msg_size(38),
		   NULL, 0);
	w_batch(&w, b2, 0, 39, FBINDER_MAX_BATCH);
	fbt_w_send(&w, 0, CODE0 + 295, FBINDER_TXN_ONEWAY, payload(295),
		   msg_size(295), NULL, 0);
	ret = fbt_wr(&c, &w, &done, false);
	CHECK(ret == 0 && done == w.len, "single, batch of %d, single: %s, consumed %zu of %zu",
	      FBINDER_MAX_BATCH, strerror(-ret), done, w.len);

	bad_batches(&c);	/* seqs 296..299 go as its good batch */
	/* a batch flag is the driver's to set */
	fbt_w_reset(&w);
	fbt_w_send(&w, 0, CODE0 + BAD_SEQ, FBINDER_TXN_ONEWAY | FBINDER_TXN_BATCH,
		   payload(1), 8, NULL, 0);
	ret = fbt_wr(&c, &w, NULL, false);
	CHECK(ret == -EINVAL, "SEND with FBINDER_TXN_BATCH: %s, want EINVAL", strerror(-ret));

	ret = fbt_oneway(&c, 0, CODE0 + 300, payload(300), msg_size(300), NULL, 0);
	CHECK(ret == 0, "single seq 300: %s", strerror(-ret));

	CHECK(fbt_wait(spid) == 0, "S did not get seqs 0..300 in order (see above)");
	fbt_ctx_close(&c);
	free(pool);
	return fbt_done();
}
