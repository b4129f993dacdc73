// SPDX-License-Identifier: MIT
/*
 * attack_region_revoke: revoke and death against copies under way.
 *
 * - Revoke is a barrier: a holder reads a 16 MiB region of 0x11 bytes over
 *   and over; the owner revokes it and at once overwrites the memory with
 *   0xee.  The holder's read stops with EKEYREVOKED, and not one byte it
 *   got may be 0xee: no copy through a region touches the owner's memory
 *   once revoke returned.  Rounds at several moments.
 * - SIGKILL of a holder in the middle of a 48 MiB copy: it dies at once
 *   (well under a second under TCG), and its owner can revoke afterwards.
 * - The owner exits while a holder copies: the copy stops with EOWNERDEAD
 *   (or finished first), nothing else.
 * The suite checks the live counts (regions included) after the test.
 *
 * Processes: the relay manager, A (the owner, this one), holders.  All
 * uid 65534 but the manager's claim.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fbt_attack.h"
#include "fbt_region.h"

#define MB		(1024 * 1024)
#define SIZE		(16 * MB)
#define BIG		(48 * MB)
#define ROUNDS		6

static int go[2], back[2];

/* Reads until the region dies; checks no byte was the owner's after-revoke. */
static int reader(void *arg)
{
	unsigned char *out = malloc(SIZE);
	long rounds = 0;
	__u64 done, i;
	struct fbt_ctx p;
	__u32 h;
	int ret;

	(void)arg;
	if (!out)
		die("malloc");
	fbt_ctx_open(&p, MB);
	CHECK(fbt_region_get(&p, &h) == 0, "reader: get");
	fbt_tell(back[1], 1);
	for (;;) {
		memset(out, 0, SIZE);
		done = 0;
		ret = fbt_region_copy(&p, false, h, 0, out, SIZE, &done);
		for (i = 0; i < done; i++)
			if (out[i] != 0x11)
				break;
		CHECK(i == done, "reader: byte %llu is %#x, not 0x11: read after revoke",
		      (unsigned long long)i, out[i]);
		if (ret) {
			CHECK(ret == -EKEYREVOKED, "reader: stopped by %s, not EKEYREVOKED",
			      strerror(-ret));
			break;
		}
		rounds++;
	}
	fbt_release(&p, h);
	fbt_ctx_close(&p);
	free(out);
	return fbt_child_status();
}

static void test_revoke_barrier(struct fbt_ctx *p)
{
	unsigned char *m = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int round;
	__u32 h;
	pid_t r;

	if (m == MAP_FAILED)
		die("mmap");
	for (round = 0; round < ROUNDS; round++) {
		memset(m, 0x11, SIZE);
		CHECK(fbt_region_create(p->fd, m, SIZE, FBINDER_REGION_READ, &h) == 0, "create");
		CHECK(fbt_region_put(p, h) == 0, "send");
		r = fbt_fork(reader, NULL);
		fbt_await(back[0]);
		usleep(round * 7000);
		CHECK(fbt_region_revoke(p->fd, h) == 0, "round %d: revoke", round);
		memset(m, 0xee, SIZE);
		CHECK(fbt_wait(r) == 0, "round %d: reader passed", round);
		CHECK(fbt_region_tell(p, FBT_REGION_DROP) == 0, "relay drops it");
		CHECK(fbt_release(p, h) == 0, "release");
	}
	munmap(m, SIZE);
}

/* The copier's owner will exit under it (test_owner_exit). */
static bool owner_exits;

/* Copies a big region for ever (until killed or the region dies). */
static int copier(void *arg)
{
	unsigned char *out = malloc(BIG);
	struct fbt_ctx p;
	__u64 done;
	__u32 h;
	int ret;

	(void)arg;
	if (!out)
		die("malloc");
	fbt_ctx_open(&p, MB);
	CHECK(fbt_region_get(&p, &h) == 0, "copier: get");
	fbt_tell(back[1], 1);
	do {
		done = 0;
		ret = fbt_region_copy(&p, false, h, 0, out, BIG, &done);
	} while (!ret);
	CHECK(owner_exits && ret == -EOWNERDEAD,
	      "copier: stopped by %s (owner gone: EOWNERDEAD)", strerror(-ret));
	fbt_release(&p, h);
	fbt_ctx_close(&p);
	free(out);
	return fbt_child_status();
}

static void test_kill_copier(struct fbt_ctx *p)
{
	unsigned char *m = malloc(BIG);
	long long t0, ms;
	int status;
	__u32 h;
	pid_t c;

	if (!m)
		die("malloc");
	memset(m, 0x22, BIG);
	CHECK(fbt_region_create(p->fd, m, BIG, FBINDER_REGION_READ, &h) == 0, "create");
	CHECK(fbt_region_put(p, h) == 0, "send");
	c = fbt_fork(copier, NULL);
	fbt_await(back[0]);
	usleep(100 * 1000);
	t0 = fbt_now_ms();
	kill(c, SIGKILL);
	status = fbt_wait(c);
	ms = fbt_now_ms() - t0;
	CHECK(status == 128 + SIGKILL, "copier killed (status %d)", status);
	CHECK(ms < 1000, "SIGKILL in the middle of a copy took %lld ms", ms);
	CHECK(fbt_region_revoke(p->fd, h) == 0, "revoke after the kill");
	CHECK(fbt_region_tell(p, FBT_REGION_DROP) == 0, "relay drops it");
	CHECK(fbt_release(p, h) == 0, "release");
	free(m);
}

/* An owner that exits while its region is being copied. */
static int owner(void *arg)
{
	unsigned char *m = malloc(BIG);
	struct fbt_ctx p;
	__u32 h;

	(void)arg;
	if (!m)
		die("malloc");
	memset(m, 0x33, BIG);
	fbt_ctx_open(&p, MB);
	CHECK(fbt_region_create(p.fd, m, BIG, FBINDER_REGION_READ, &h) == 0, "owner: create");
	CHECK(fbt_region_put(&p, h) == 0, "owner: send");
	fbt_tell(back[1], 1);
	fbt_await(go[0]);
	_exit(fbt_child_status());	/* with the region, mid-copy */
}

static void test_owner_exit(void)
{
	pid_t o, c;

	o = fbt_fork(owner, NULL);
	fbt_await(back[0]);
	owner_exits = true;
	c = fbt_fork(copier, NULL);
	fbt_await(back[0]);
	usleep(100 * 1000);
	fbt_tell(go[1], 1);
	CHECK(fbt_wait(o) == 0, "owner passed");
	CHECK(fbt_wait(c) == 0, "copier passed");
}

static int manager(struct fbt_ctx *p, void *arg)
{
	return fbt_region_relay(p, arg);
}

int main(void)
{
	struct fbt_ctx p;
	pid_t mgr;

	if (pipe(go) || pipe(back))
		die("pipe");
	mgr = fbt_spawn_manager_ex(MB, 0x5eed, FBT_MGR_NOBODY, manager, NULL);
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	test_revoke_barrier(&p);
	test_kill_copier(&p);
	test_owner_exit();
	CHECK(fbt_region_tell(&p, FBT_REGION_DROP) == 0, "relay drops the last");
	CHECK(fbt_region_tell(&p, FBT_REGION_QUIT) == 0, "relay quits");
	CHECK(fbt_wait(mgr) == 0, "relay exited cleanly");
	fbt_ctx_close(&p);
	return fbt_done();
}
