// SPDX-License-Identifier: MIT
/*
 * attack_gather_lists: malformed scatter-gather sends and buffer objects
 * (docs/security.md, "Scatter-gather sends"), from uid 65534 to a root
 * service (root to see its own context, which it opened before any drop,
 * in FBINDER_IOC_INFO).  Each is a call that must fail with its errno, consume
 * nothing of the write stream and queue nothing: too many iovecs, a
 * reserved field, sizes whose sum wraps or passes max_map_size, pieces and
 * tables that are not user memory, and buffer objects that are unaligned,
 * reach outside the message, overflow, start inside the previous buffer or
 * before it, or overlap another object.  After each, a ping finds that the
 * service received none of them and that its buffer holds the ping alone
 * (the rejected message's slot was freed), through FBINDER_IOC_INFO of its
 * own context.  A service whose gathered reply is malformed fails its
 * caller's call with the same errno (FBINDER_RET_FAILED).
 */
#include "fbt_proto.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0xa7a7ULL
#define C_BAD		66	/* must never arrive */
#define C_PING		1
#define C_BAD_REPLY	2
#define C_END		3
#define DATA		512

static int s_main(struct fbt_ctx *p, void *arg)
{
	struct fbinder_txn_sg sg = { .code = 0, .iov_count = FBINDER_SG_MAX_IOV + 1 };
	__u32 queued = 0, buffers = 0, pings = 0;
	struct fbt_ret r;
	struct fbt_w w;
	int ret;

	(void)arg;
	alarm(60);
	for (;;) {
		if (fbt_next(p, &r))
			die("S: read");
		if (r.cmd != FBINDER_RET_TRANSACTION)
			continue;
		switch (r.msg.code) {
		case C_PING:
			/* nothing rejected reached us: only this ping is here */
			ret = fbt_own_queue(p->fd, &queued, &buffers);
			CHECK(ret == 0 && queued == 0 && buffers == 1,
			      "S: at ping %u: %s, %u queued, %u slots in use; want 0, 1",
			      pings, strerror(-ret), queued, buffers);
			pings++;
			CHECK(fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "S: reply");
			break;
		case C_BAD_REPLY:
			fbt_w_reset(&w);
			fbt_w_cmd(&w, FBINDER_CMD_REPLY_SG, &sg, sizeof(sg));
			ret = fbt_wr(p, &w, NULL, false);
			CHECK(ret == -EINVAL, "S: a reply of %u iovecs: %s, want EINVAL",
			      sg.iov_count, strerror(-ret));
			/* the stream stopped at the reply: the free goes alone */
			CHECK(fbt_free_buffer(p, r.msg.data) == 0, "S: free");
			break;
		case C_END:
			CHECK(fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0) == 0, "S: reply");
			printf("# S: %u pings, no rejected message arrived\n", pings);
			return fbt_child_status();
		default:
			CHECK(0, "S: a rejected message arrived: code %u, %llu bytes",
			      r.msg.code, (unsigned long long)r.msg.data_size);
			fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0);
			break;
		}
	}
}

static unsigned char data[DATA];

/* One gathered call that must fail with want; then the ping. */
static void reject(struct fbt_ctx *c, const char *what, int want,
		   const struct fbinder_txn_sg *sg)
{
	struct fbt_ret reply;
	struct fbt_w w;
	size_t done = 1;
	int ret;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_SEND_SG, sg, sizeof(*sg));
	ret = fbt_wr(c, &w, &done, false);
	CHECK(ret == want && done == 0, "%s: %s, consumed %zu; want %s, 0", what,
	      strerror(-ret), done, strerror(-want));
	if (ret == want)
		printf("# %s: %s\n", what, strerror(-want));
	ret = fbt_call(c, 0, C_PING, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "ping after %s: %s", what,
	      strerror(-ret));
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(c, reply.msg.data);
}

/* A message of DATA bytes in two pieces with the objects at offs. */
static void reject_objects(struct fbt_ctx *c, const char *what, int want,
			   const __u64 *offs, __u32 n)
{
	struct fbinder_iovec iov[2] = {
		{ (uintptr_t)data, 200 }, { (uintptr_t)data + 200, DATA - 200 },
	};
	struct fbinder_txn_sg sg = {
		.code = C_BAD, .iov = (uintptr_t)iov, .iov_count = 2,
		.offsets = (uintptr_t)offs, .offsets_count = n,
	};

	reject(c, what, want, &sg);
}

/* A buffer object at offset 0 of the message, ptr and length as given. */
static void put_ptr(size_t at, __u64 ptr, __u32 length)
{
	struct fbinder_ptr_object o = {
		.type = FBINDER_OBJ_PTR, .length = length, .ptr = ptr,
	};

	memcpy(data + at, &o, sizeof(o));
}

static void bad_lists(struct fbt_ctx *c)
{
	static struct fbinder_iovec iov[FBINDER_SG_MAX_IOV + 1];
	struct fbinder_txn_sg sg = { .code = C_BAD, .iov = (uintptr_t)iov };
	unsigned int i;

	for (i = 0; i <= FBINDER_SG_MAX_IOV; i++)
		iov[i] = (struct fbinder_iovec){ (uintptr_t)data, 1 };
	sg.iov_count = FBINDER_SG_MAX_IOV + 1;
	reject(c, "too many iovecs (1025)", -EINVAL, &sg);
	sg.iov_count = 2;
	sg.reserved = 1;
	reject(c, "reserved field set", -EINVAL, &sg);
	sg.reserved = 0;
	iov[0].len = 1ULL << 63;
	iov[1].len = 1ULL << 63;
	reject(c, "two pieces of 2^63 bytes (the sum wraps)", -EMSGSIZE, &sg);
	iov[0].len = ~0ULL;
	iov[1].len = 2;
	reject(c, "a piece of 2^64-1 bytes", -EMSGSIZE, &sg);
	sg.iov_count = 5;
	for (i = 0; i < 5; i++)
		iov[i].len = 4 * (__u64)MB;
	reject(c, "5 pieces of 4 MiB (over max_map_size)", -EMSGSIZE, &sg);
	for (i = 0; i < 5; i++)
		iov[i].len = 1;
	sg.iov = 8;
	reject(c, "the iovec table at address 8", -EFAULT, &sg);
	sg.iov = (uintptr_t)iov;
	iov[3].base = ~0ULL - 4;
	iov[3].len = 16;
	reject(c, "a piece that wraps the address space", -EFAULT, &sg);
	iov[3].base = 8;
	iov[3].len = 1;
	reject(c, "a piece at address 8", -EFAULT, &sg);
	iov[3].base = (uintptr_t)data;
}

static void bad_objects(struct fbt_ctx *c)
{
	__u64 offs[2] = { 0, 64 };

	memset(data, 0, sizeof(data));
	put_ptr(0, 4, 8);
	reject_objects(c, "a buffer at an unaligned offset", -EINVAL, offs, 1);
	put_ptr(0, DATA + 8, 0);
	reject_objects(c, "a buffer past the end of the message", -EINVAL, offs, 1);
	put_ptr(0, 1ULL << 63, 8);
	reject_objects(c, "a buffer at 2^63", -EINVAL, offs, 1);
	put_ptr(0, 256, DATA);
	reject_objects(c, "a buffer reaching past the end", -EINVAL, offs, 1);
	put_ptr(0, 8, 0xffffffffu);
	reject_objects(c, "a buffer of 2^32-1 bytes (offset + length overflow)", -EINVAL,
		       offs, 1);
	/* a buffer of 256 bytes at 128, then one at 200: inside it */
	put_ptr(0, 128, 256);
	put_ptr(64, 200, 16);
	reject_objects(c, "a buffer inside the previous buffer", -EINVAL, offs, 2);
	put_ptr(64, 120, 16);
	reject_objects(c, "a buffer overlapping the previous buffer's start", -EINVAL,
		       offs, 2);
	put_ptr(64, 16, 16);
	reject_objects(c, "a buffer before the previous buffer", -EINVAL, offs, 2);
	put_ptr(64, 384, 16);
	offs[1] = 8;
	reject_objects(c, "two objects overlapping", -EINVAL, offs, 2);
	offs[1] = 68;
	reject_objects(c, "an object at an unaligned offset", -EINVAL, offs, 2);
	offs[1] = DATA - 8;
	reject_objects(c, "an object past the end of the message", -EINVAL, offs, 2);
	offs[1] = 64;
	put_ptr(64, 384, 16);
	data[65] = 1;	/* type 0x105: no such object */
	reject_objects(c, "an unknown object type", -EINVAL, offs, 2);
	data[65] = 0;
	{
		static struct fbinder_iovec iov[2];
		struct fbinder_txn_sg sg = {
			.code = C_BAD, .iov = (uintptr_t)iov, .iov_count = 2,
			.offsets = (uintptr_t)offs, .offsets_count = 2,
		};

		iov[0] = (struct fbinder_iovec){ (uintptr_t)data, 200 };
		iov[1] = (struct fbinder_iovec){ (uintptr_t)data + 200, DATA - 200 };
		sg.offsets = 8;
		reject(c, "the offsets table at address 8", -EFAULT, &sg);
		/* the objects pass, the second piece faults: the slot goes */
		sg.offsets = (uintptr_t)offs;
		iov[1].base = 8;
		reject(c, "good objects, then a piece at address 8", -EFAULT, &sg);
	}
}

int main(void)
{
	struct fbt_ret reply;
	struct fbt_ctx c;
	pid_t spid;
	int ret;

	alarm(60);
	spid = fbt_spawn_manager(MB, MGR_COOKIE, s_main, NULL);
	fbt_become_nobody();	/* the attacker */
	fbt_ctx_open(&c, MB);

	bad_lists(&c);
	bad_objects(&c);

	ret = fbt_call(&c, 0, C_BAD_REPLY, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_FAILED && reply.err.error == -EINVAL,
	      "a call answered by a malformed gathered reply: %s, %s %d; want FAILED -EINVAL",
	      strerror(-ret), fbt_ret_name(reply.cmd), reply.err.error);
	ret = fbt_call(&c, 0, C_END, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "end: %s", strerror(-ret));
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, reply.msg.data);
	CHECK(fbt_wait(spid) == 0, "the service's checks failed (see above)");
	fbt_ctx_close(&c);
	return fbt_done();
}
