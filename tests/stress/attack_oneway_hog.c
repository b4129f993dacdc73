// SPDX-License-Identifier: MIT
/*
 * attack_oneway_hog: one user takes a receiver's whole oneway half with one
 * big message (docs/abi.md, Fair share; issue 33 item 8).
 *
 * The receiver R maps 1 MiB and reads nothing.  The attacker A (uid 65534)
 * sends it one oneway message of half the mapping, the whole oneway half:
 * a user gets at most a quarter of the buffer in oneway messages, so that
 * fails with EMSGSIZE (it never fits), and A's messages stop at that
 * quarter (ENOSPC).  Another user B (65533) then still finds room: half
 * of what A left of the oneway half, not one byte more.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbt_attack.h"
#include "fbt_slots.h"

#define KB		1024
#define MAP		(1024 * KB)
#define HALF		(MAP / 2)
#define QUARTER		(MAP / 4)
#define B_UID		65533

static char payload[HALF];

static int user_a(void)
{
	struct fbt_ctx p;
	__u32 h;
	int ret;

	fbt_ctx_open(&p, 64 * KB);
	CHECK(fbt_slot_get(&p, 0, &h) == 0, "A: the receiver's handle");
	ret = fbt_oneway(&p, h, 1, payload, HALF, NULL, 0);
	CHECK(ret == -EMSGSIZE, "A: one oneway of the whole oneway half (%d KiB): %s, want EMSGSIZE",
	      HALF / KB, ret ? strerror(-ret) : "accepted");
	ret = fbt_oneway(&p, h, 1, payload, QUARTER + 8, NULL, 0);
	CHECK(ret == -EMSGSIZE, "A: a quarter of the buffer + 8: %s, want EMSGSIZE",
	      ret ? strerror(-ret) : "accepted");
	ret = fbt_oneway(&p, h, 1, payload, QUARTER - 64 * KB, NULL, 0);
	CHECK(ret == 0, "A: %d KiB: %s", QUARTER / KB - 64, strerror(-ret));
	ret = fbt_oneway(&p, h, 2, payload, 64 * KB, NULL, 0);
	CHECK(ret == 0, "A: 64 KiB more, up to its quarter: %s", strerror(-ret));
	ret = fbt_oneway(&p, h, 3, payload, 8, NULL, 0);
	CHECK(ret == -ENOSPC, "A: 8 bytes past its quarter: %s, want ENOSPC",
	      ret ? strerror(-ret) : "accepted");
	fbt_release(&p, h);
	fbt_ctx_close(&p);
	return fbt_child_status();
}

static int user_b(void)
{
	struct fbt_ctx p;
	__u32 h;
	int ret;

	fbt_ctx_open(&p, 64 * KB);
	CHECK(fbt_slot_get(&p, 0, &h) == 0, "B: the receiver's handle");
	/* A holds a quarter: half of the quarter left is B's */
	ret = fbt_oneway(&p, h, 4, payload, QUARTER / 2 + 8, NULL, 0);
	CHECK(ret == -ENOSPC, "B: more than half of what A left: %s, want ENOSPC",
	      ret ? strerror(-ret) : "accepted");
	ret = fbt_oneway(&p, h, 4, payload, QUARTER / 2, NULL, 0);
	CHECK(ret == 0, "B: the newcomer's %d KiB: %s", QUARTER / 2 / KB, strerror(-ret));
	fbt_release(&p, h);
	fbt_ctx_close(&p);
	return fbt_child_status();
}

int main(void)
{
	struct fbt_ctx r;
	pid_t mgr, a, b;

	alarm(50);
	mgr = fbt_slot_spawn();
	fbt_ctx_open(&r, MAP);	/* R: never reads */
	CHECK(fbt_slot_put(&r, 0, 0x4047ULL) == 0, "R: its object in slot 0");

	a = fbt_fork_child(true);
	if (a == 0)
		_exit(user_a());
	CHECK(fbt_wait(a) == 0, "attacker A's checks");
	b = fbt_fork_child(false);
	if (b == 0) {
		fbt_become_user(B_UID);
		_exit(user_b());
	}
	CHECK(fbt_wait(b) == 0, "user B's checks");

	fbt_ctx_close(&r);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	CHECK(fbt_wait_live_zero(3000) == 0, "live counts back to zero");
	return fbt_done();
}
