// SPDX-License-Identifier: MIT
/*
 * sync_call: synchronous call and reply between two processes, through
 * handle 0.  The payload arrives intact both ways (0, 4, 4096, 100000
 * bytes), the reply carries its call's txn_id, IDs are unique, the callee
 * sees the manager's cookie and the caller's pid and euid, the caller sees
 * the replier's pid, and both "call + wait" and "reply + wait for the next"
 * are one WRITE_READ each.  The consumed counts may start past 0.
 */
#include "fbt_proto.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x5e5e00010002ULL
#define C_QUIT		0xdead
#define C_BASE		100		/* code of size i: C_BASE + i */
#define REPLY_SEED	0xa5a5

static const size_t sizes[] = { 0, 4, 4096, 100000, 1, 7 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* What the server saw, sent back ahead of the reply's pattern. */
struct seen {
	__u64 txn_id;
	__u32 bad;		/* bit per failed check in the server */
	__u32 size;
};

enum { BAD_COOKIE = 1, BAD_FLAGS = 2, BAD_PID = 4, BAD_EUID = 8, BAD_SIZE = 16,
       BAD_DATA = 32, BAD_OFFS = 64, BAD_CODE = 128 };

/*
 * The server: verifies each call, replies with (what it saw + a pattern),
 * and waits for the next call in the same WRITE_READ as the reply.
 */
static int server(struct fbt_ctx *p, void *arg)
{
	static unsigned char out[sizeof(struct seen) + 100000];
	struct fbt_w w;
	struct fbt_ret r;
	int ret;

	(void)arg;
	fbt_w_reset(&w);
	for (;;) {
		/* The previous reply (if any) and the wait: one ioctl. */
		ret = fbt_wr(p, &w, NULL, true);
		if (ret) {
			errno = -ret;
			die("server WRITE_READ");
		}
		fbt_w_reset(&w);
		while (p->qlen) {
			struct seen s = { 0 };
			size_t size = 0;
			__u32 i;

			fbt_next(p, &r);
			if (r.cmd != FBINDER_RET_TRANSACTION) {
				CHECK(0, "server got %s", fbt_ret_name(r.cmd));
				continue;
			}
			if (r.msg.code == C_QUIT) {
				fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0);
				return fbt_child_status();
			}
			i = r.msg.code - C_BASE;
			s.txn_id = r.msg.txn_id;
			if (i >= NSIZES)
				s.bad |= BAD_CODE;
			else
				size = sizes[i];
			if (r.msg.cookie != MGR_COOKIE)
				s.bad |= BAD_COOKIE;
			if (r.msg.flags != 0)
				s.bad |= BAD_FLAGS;
			if (r.msg.sender_pid != getppid())
				s.bad |= BAD_PID;
			if (r.msg.sender_euid != geteuid())
				s.bad |= BAD_EUID;
			if (r.msg.data_size != size)
				s.bad |= BAD_SIZE;
			else if (fbt_verify(fbt_data(p, &r.msg), size, r.msg.code) >= 0)
				s.bad |= BAD_DATA;
			if (r.msg.offsets_count != 0)
				s.bad |= BAD_OFFS;
			CHECK(!s.bad, "server: call code %u failed checks 0x%x (cookie 0x%llx flags %u pid %d euid %u size %llu)",
			      r.msg.code, s.bad, (unsigned long long)r.msg.cookie,
			      r.msg.flags, r.msg.sender_pid, r.msg.sender_euid,
			      (unsigned long long)r.msg.data_size);
			s.size = size;
			memcpy(out, &s, sizeof(s));
			fbt_fill(out + sizeof(s), size, r.msg.code ^ REPLY_SEED);
			/* Only one call at a time comes to a single thread. */
			CHECK(p->qlen == 0, "server: %u more returns after a call", p->qlen);
			fbt_w_reply(&w, r.msg.code + 1, out, sizeof(s) + size, NULL, 0);
			fbt_w_free(&w, r.msg.data);
		}
	}
}

/* Round trips of each size: contents both ways, txn_id, cookie, pid, euid. */
static void test_round_trips(struct fbt_ctx *c, pid_t spid)
{
	static unsigned char in[100000];
	__u64 ids[NSIZES];
	struct fbt_ret r;
	size_t i, j;
	int ret;

	for (i = 0; i < NSIZES; i++) {
		__u32 code = C_BASE + i;
		const struct seen *s;

		fbt_fill(in, sizes[i], code);
		ret = fbt_call(c, 0, code, in, sizes[i], NULL, 0, &r, NULL, NULL);
		ids[i] = 0;
		CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY,
		      "call of %zu bytes: %s, %s (error %d)", sizes[i], strerror(-ret),
		      fbt_ret_name(r.cmd), r.cmd == FBINDER_RET_FAILED ? r.err.error : 0);
		if (ret || r.cmd != FBINDER_RET_REPLY)
			continue;
		CHECK(r.msg.data_size == sizeof(*s) + sizes[i],
		      "reply to %zu bytes has %llu bytes, want %zu", sizes[i],
		      (unsigned long long)r.msg.data_size, sizeof(*s) + sizes[i]);
		CHECK(r.msg.code == code + 1, "reply code %u, want %u", r.msg.code, code + 1);
		CHECK(r.msg.cookie == 0, "reply cookie 0x%llx, want 0",
		      (unsigned long long)r.msg.cookie);
		CHECK(r.msg.flags == 0, "reply flags 0x%x, want 0", r.msg.flags);
		CHECK(r.msg.sender_pid == spid, "reply sender_pid %d, want the server %d",
		      r.msg.sender_pid, (int)spid);
		CHECK(r.msg.sender_euid == geteuid(), "reply sender_euid %u, want %u",
		      r.msg.sender_euid, geteuid());
		CHECK(r.msg.offsets_count == 0, "reply has %llu objects",
		      (unsigned long long)r.msg.offsets_count);
		if (r.msg.data_size == sizeof(*s) + sizes[i]) {
			s = fbt_data(c, &r.msg);
			ids[i] = s->txn_id;
			CHECK(s->bad == 0, "server saw bad call of %zu bytes: 0x%x", sizes[i], s->bad);
			CHECK(r.msg.txn_id == s->txn_id,
			      "reply txn_id %llu, the call's was %llu",
			      (unsigned long long)r.msg.txn_id, (unsigned long long)s->txn_id);
			CHECK(fbt_verify((const unsigned char *)s + sizeof(*s), sizes[i],
					 code ^ REPLY_SEED) < 0,
			      "reply payload of %zu bytes corrupted at byte %ld", sizes[i],
			      fbt_verify((const unsigned char *)s + sizeof(*s), sizes[i],
					 code ^ REPLY_SEED));
		}
		ret = fbt_free_buffer(c, r.msg.data);
		CHECK(ret == 0, "free reply: %s", strerror(-ret));
		printf("# round trip of %zu bytes: txn %llu\n", sizes[i],
		       (unsigned long long)ids[i]);
	}
	for (i = 0; i < NSIZES; i++)
		for (j = i + 1; j < NSIZES; j++)
			CHECK(!ids[i] || ids[i] != ids[j], "calls %zu and %zu share txn_id %llu",
			      i, j, (unsigned long long)ids[i]);
}

/*
 * One WRITE_READ: skip 8 bytes of the write stream (write_consumed preset),
 * send, and get the reply into the read stream after 16 preset bytes.
 */
static void test_one_ioctl_call(struct fbt_ctx *c)
{
	unsigned char wbuf[64], rbuf[512];
	struct fbinder_txn_data t = { .handle = 0, .code = C_BASE + 1, .data_size = 4,
			    .offsets_count = 0 };
	unsigned char payload[4];
	__u32 cmd = FBINDER_CMD_SEND;
	struct fbinder_write_read wr;
	struct fbt_ret r;
	size_t len;
	int ret, i;

	fbt_fill(payload, 4, C_BASE + 1);
	t.data = (uintptr_t)payload;
	memset(wbuf, 0xff, 8);		/* garbage the driver must skip */
	memcpy(wbuf + 8, &cmd, 4);
	memcpy(wbuf + 12, &t, sizeof(t));
	memset(rbuf, 0xee, sizeof(rbuf));
	wr = (struct fbinder_write_read){
		.write_buffer = (uintptr_t)wbuf, .write_size = 12 + sizeof(t),
		.write_consumed = 8,
		.read_buffer = (uintptr_t)rbuf, .read_size = sizeof(rbuf),
		.read_consumed = 16,
	};
	ret = ioctl(c->fd, FBINDER_IOC_WRITE_READ, &wr);
	CHECK(ret == 0, "call + wait in one WRITE_READ: %s", strerror(errno));
	CHECK(wr.write_consumed == 12 + sizeof(t), "write_consumed %llu, want %zu",
	      (unsigned long long)wr.write_consumed, 12 + sizeof(t));
	CHECK(wr.read_consumed > 16, "read_consumed %llu: no reply in the same ioctl",
	      (unsigned long long)wr.read_consumed);
	for (i = 0; i < 16; i++)
		if (rbuf[i] != 0xee)
			break;
	CHECK(i == 16, "the driver wrote before read_consumed (byte %d)", i);
	if (ret || wr.read_consumed <= 16)
		return;
	len = fbt_parse_one(rbuf + 16, wr.read_consumed - 16, &r);
	CHECK(len && r.cmd == FBINDER_RET_REPLY && r.msg.code == C_BASE + 2,
	      "first return %s code %u, want FBINDER_RET_REPLY code %u",
	      fbt_ret_name(r.cmd), r.msg.code, C_BASE + 2);
	CHECK(16 + len == wr.read_consumed, "%llu bytes after the reply",
	      (unsigned long long)(wr.read_consumed - 16 - len));
	if (r.cmd == FBINDER_RET_REPLY)
		CHECK(fbt_free_buffer(c, r.msg.data) == 0, "free");
	printf("# call + reply in one WRITE_READ, consumed counts honoured\n");
}

int main(void)
{
	struct fbt_ctx c;
	struct fbt_ret r;
	pid_t spid;
	int ret;

	alarm(40);
	spid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, server, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&c, MB);
	test_round_trips(&c, spid);
	test_one_ioctl_call(&c);

	ret = fbt_call(&c, 0, C_QUIT, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "quit call: %s %s", strerror(-ret),
	      fbt_ret_name(r.cmd));
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	CHECK(fbt_wait(spid) == 0, "server reported failures");
	fbt_ctx_close(&c);
	return fbt_done();
}
