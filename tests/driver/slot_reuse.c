// SPDX-License-Identifier: MIT
/*
 * slot_reuse: the receive buffer keeps the slot of the small message freed
 * last whole, for the next message of the same size (docs/design.md,
 * "How a call flows", step 3), and that changes nothing else a process
 * can see:
 *
 *   - the next reply of that size lands in that slot, even where best fit
 *     would pick another (a free gap in front of it);
 *   - a reply of another size merges it first: it takes the front of the
 *     gap the slot lies in;
 *   - a kept slot never splits the buffer: a reply as large as the whole
 *     mapping still fits once everything else is freed;
 *   - every reply reads back exactly what was sent, and the kept slot
 *     cannot be freed a second time (EINVAL).
 *
 * The replies land in this process's 64 KiB mapping; the manager echoes
 * each call's payload.  Runs as uid 65534 after claiming handle 0 as root.
 */
#include "fbt_proto.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#define MGR_COOKIE	0x5107ee5eULL
#define MAP		(64 * 1024)
#define C_ECHO		1

/* The manager: every call is answered with its own payload. */
static int echo_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	static unsigned char buf[MAP];
	size_t n = r->msg.data_size;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION || (r->msg.flags & FBINDER_TXN_ONEWAY))
		return 0;
	if (n > sizeof(buf))
		n = 0;
	memcpy(buf, fbt_data(p, &r->msg), n);
	return fbt_reply(p, &r->msg, 0, buf, n, NULL, 0) ? -1 : 0;
}

static int echo_manager(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	return fbt_serve(p, echo_handler, NULL) ? 1 : 0;
}

/* An echo of size bytes of seed's pattern: its offset, checked; -1 on failure. */
static long long echo(struct fbt_ctx *p, size_t size, __u32 seed)
{
	static unsigned char out[MAP];
	struct fbt_ret reply;
	long bad;
	int ret;

	fbt_fill(out, size, seed);
	ret = fbt_call(p, 0, C_ECHO, out, size, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "echo of %zu: %s %s", size,
	      strerror(-ret), fbt_ret_name(reply.cmd));
	if (ret || reply.cmd != FBINDER_RET_REPLY)
		return -1;
	CHECK(reply.msg.data_size == size, "echo size %llu, sent %zu",
	      (unsigned long long)reply.msg.data_size, size);
	bad = fbt_verify(fbt_data(p, &reply.msg), size, seed);
	CHECK(bad < 0, "echo of %zu: byte %ld differs from what was sent", size, bad);
	return (long long)reply.msg.data;
}

static void freed(struct fbt_ctx *p, long long off)
{
	CHECK(off >= 0 && fbt_free_buffer(p, (__u64)off) == 0, "free of %lld", off);
}

int main(void)
{
	long long x, y, z, w, v;
	struct fbt_ctx p;
	pid_t mgr;
	int i;

	mgr = fbt_spawn_manager_ex(1024 * 1024, MGR_COOKIE, FBT_MGR_NOBODY,
				   echo_manager, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&p, MAP);

	/* a flow of small replies goes through one slot */
	for (i = 0; i < 100; i++) {
		x = echo(&p, 4, 100 + i);
		CHECK(x == 0, "small reply %d at %lld, expected 0", i, x);
		freed(&p, x);
	}

	/* x, y, z: three 8-byte slots; x and y freed, y last */
	x = echo(&p, 8, 1);
	y = echo(&p, 8, 2);
	z = echo(&p, 8, 3);
	CHECK(x == 0 && y == 8 && z == 16, "slots at %lld %lld %lld", x, y, z);
	freed(&p, x);
	freed(&p, y);
	/* y was kept whole, the size-8 reply takes it, not the gap at 0 */
	w = echo(&p, 8, 4);
	CHECK(w == y, "same-size reply at %lld, expected the kept slot %lld", w, y);
	freed(&p, w);
	CHECK(fbt_free_buffer(&p, (__u64)w) == -EINVAL,
	      "the kept slot freed a second time");
	/* another size merges it: the front of the gap [0, 16) */
	v = echo(&p, 16, 5);
	CHECK(v == 0, "16-byte reply at %lld, expected 0", v);
	freed(&p, v);
	freed(&p, z);

	/* a small kept slot in front, and a reply as large as the mapping */
	x = echo(&p, 24, 6);
	freed(&p, x);
	y = echo(&p, MAP, 7);
	CHECK(y == 0, "whole-mapping reply at %lld behind a kept slot", y);
	freed(&p, y);
	/* and the small size again, now cut from the whole buffer */
	x = echo(&p, 24, 8);
	CHECK(x == 0, "small reply after the large one at %lld", x);
	freed(&p, x);

	fbt_ctx_close(&p);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	return fbt_done();
}
