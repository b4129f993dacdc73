// SPDX-License-Identifier: MIT
/*
 * attack_sender_pages: one sender must not take another user to its
 * max_user_pages (docs/security.md G6, issue 33 item 6).
 *
 * The victim V (uid 65533) serves CTXS contexts of 2 MiB each and frees
 * nothing it is sent (a slow or stuck service).  The attacker A (uid
 * 65534) fills each of them with oneway messages up to its fair share
 * there, a quarter of each buffer: across all of them that is more than
 * V's whole cap (max_user_pages, set to CAP_PAGES for the test), so on a
 * driver that counts only per receiver, V's user reached its cap and
 * every other context of V's refused everyone's messages (EDQUOT).  A
 * sending user's unfreed messages are now bounded in all buffers
 * together by half of max_user_pages: A stops there with EDQUOT, and a
 * third user (root here) can still send to V's last context.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbt_attack.h"
#include "fbt_slots.h"

#define KB		1024
#define MB		(1024 * KB)
#define MAP		(2 * MB)
#define CTXS		12		/* A's targets; slot CTXS is the bystander's */
#define MSG		(64 * KB)
#define CAP_PAGES	1024		/* 4 MiB: below A's shares of all CTXS (6 MiB) */
#define V_UID		65533

static int vready[2], vgo[2], aback[2];
static char payload[MSG];

static int victim(void)
{
	static struct fbt_ctx c[CTXS + 1];
	int i;

	for (i = 0; i <= CTXS; i++) {
		fbt_ctx_open(&c[i], MAP);
		CHECK(fbt_slot_put(&c[i], i, 0x7000 + i) == 0, "V: object %d", i);
	}
	fbt_tell(vready[1], 1);
	fbt_await(vgo[0]);	/* reads and frees nothing until then */
	for (i = 0; i <= CTXS; i++)
		fbt_ctx_close(&c[i]);
	return fbt_child_status();
}

static int attacker(void)
{
	long long sent = 0;
	int i, ret = 0, first_err = 0;
	struct fbt_ctx p;
	__u32 h[CTXS];

	fbt_ctx_open(&p, 64 * KB);
	/* first: once at its bound, A's calls to the manager count too */
	for (i = 0; i < CTXS; i++)
		CHECK(fbt_slot_get(&p, i, &h[i]) == 0, "A: V's context %d", i);
	for (i = 0; i < CTXS; i++) {
		for (;;) {
			ret = fbt_oneway(&p, h[i], 1, payload, MSG, NULL, 0);
			if (ret)
				break;
			sent += MSG;
		}
		if (ret != -ENOSPC && !first_err)
			first_err = ret;
		fbt_release(&p, h[i]);
	}
	printf("# A's unfreed oneway messages in V's %d contexts: %lld KiB (V's cap %d KiB); first refusal not for the share: %s\n",
	       CTXS, sent / KB, CAP_PAGES * 4, first_err ? strerror(-first_err) : "none");
	CHECK(sent <= (long long)CAP_PAGES * 4096 / 2,
	      "A holds %lld KiB of V's buffers, more than half of V's cap (%d KiB)",
	      sent / KB, CAP_PAGES * 4 / 2);
	CHECK(first_err == -EDQUOT, "A is stopped by its own bound (EDQUOT), not %s",
	      first_err ? strerror(-first_err) : "nothing");
	fbt_tell(aback[1], 1);
	fbt_await(vgo[0]);	/* its messages stay until V is done */
	fbt_ctx_close(&p);
	return fbt_child_status();
}

int main(void)
{
	long long old_cap;
	struct fbt_ctx b;
	pid_t mgr, v, a;
	__u32 h;
	int ret;

	alarm(55);
	if (geteuid() != 0) {
		errno = 0;
		die("needs root (VM_ROOT_TESTS): max_user_pages and the manager");
	}
	old_cap = fbt_param("max_user_pages");
	if (fbt_set_param("max_user_pages", CAP_PAGES))
		die("setting max_user_pages");
	fbt_pipe(vready);
	fbt_pipe(vgo);
	fbt_pipe(aback);
	mgr = fbt_slot_spawn();
	v = fbt_fork_child(false);
	if (v == 0) {
		fbt_become_user(V_UID);
		_exit(victim());
	}
	CHECK(fbt_hear(vready[0], 10000) == 1, "V's contexts are ready");
	a = fbt_fork_child(true);
	if (a == 0)
		_exit(attacker());
	CHECK(fbt_hear(aback[0], 30000) == 1, "A is done flooding");

	/* a third user still reaches V's last context */
	fbt_ctx_open(&b, 64 * KB);
	CHECK(fbt_slot_get(&b, CTXS, &h) == 0, "bystander: V's last context");
	ret = fbt_oneway(&b, h, 2, payload, MSG, NULL, 0);
	CHECK(ret == 0, "bystander's 64 KiB oneway to V's untouched context: %s (V's cap taken by A's messages elsewhere)",
	      strerror(-ret));
	fbt_release(&b, h);
	fbt_ctx_close(&b);

	fbt_tell(vgo[1], 1);
	fbt_tell(vgo[1], 1);
	CHECK(fbt_wait(a) == 0, "attacker's checks");
	CHECK(fbt_wait(v) == 0, "victim's checks");
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	fbt_set_param("max_user_pages", old_cap);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
