// SPDX-License-Identifier: MIT
/*
 * region_owner_memory: a region is a range of its owner's address space,
 * reached through the owner's page tables as they are at each copy.  A
 * holder copying from it gets EFAULT, with done at the exact byte, where
 * the owner unmapped a page, moved it away (mremap) or took the right away
 * (mprotect PROT_NONE; PROT_READ against a write); a page mapped anew
 * there is the owner's new memory.  An owner that execs leaves its region
 * behind (EOWNERDEAD) even though its context lives on and the new image
 * has other bytes at the very same address.  A 48 MiB copy is bounded per
 * command (EINTR after 16 MiB, done reported) and goes on where it stopped.
 *
 * Processes: the relay manager, A (this one, the owner), B (the holder),
 * E (an owner that execs itself).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fbt_attack.h"
#include "fbt_region.h"

#define MB		(1024 * 1024)
#define PG		4096
#define PAGES		16
#define HUGE		(48 * MB)
#define RD		FBINDER_REGION_READ
#define WR		FBINDER_REGION_WRITE

/* E's region: at one fixed address in every image of this static binary */
static unsigned char exec_area[4 * PG] __attribute__((aligned(PG)));

static int sync_go[2], sync_back[2];

/* B's side of one step: A changed its memory, B checks, both go on. */
static void step_done(void)
{
	fbt_tell(sync_back[1], 1);
	fbt_await(sync_go[0]);
}

static int holder(void *arg)
{
	unsigned char *out = malloc(PAGES * PG);
	__u64 done;
	__u32 h;
	struct fbt_ctx p;

	(void)arg;
	fbt_ctx_open(&p, MB);
	CHECK(fbt_region_get(&p, &h) == 0, "B: get");
	fbt_await(sync_go[0]);

	done = 0;
	CHECK(fbt_region_copy(&p, false, h, 0, out, PAGES * PG, &done) == 0 &&
	      fbt_verify(out, PAGES * PG, 3) < 0, "B: baseline read");
	step_done();	/* A unmapped pages 4, 5 */

	done = 0;
	CHECK(fbt_region_copy(&p, false, h, 0, out, PAGES * PG, &done) == -EFAULT &&
	      done == 4 * PG, "B: unmapped pages 4-5: EFAULT at byte %d (done %llu)",
	      4 * PG, (unsigned long long)done);
	CHECK(fbt_verify(out, 4 * PG, 3) < 0, "B: the bytes before the hole arrived");
	done = 0;
	CHECK(fbt_region_copy(&p, false, h, 6 * PG, out, 2 * PG, &done) == 0,
	      "B: the pages after the hole read fine");
	step_done();	/* A mapped fresh zero pages at 4, 5; moved 8, 9 away */

	done = 0;
	CHECK(fbt_region_copy(&p, false, h, 4 * PG, out, 2 * PG, &done) == 0,
	      "B: pages mapped anew read");
	CHECK(out[0] == 0 && out[2 * PG - 1] == 0, "B: ...and are the owner's new zero pages");
	done = 0;
	CHECK(fbt_region_copy(&p, false, h, 6 * PG, out, 4 * PG, &done) == -EFAULT &&
	      done == 2 * PG, "B: pages moved away by mremap: EFAULT at their start");
	step_done();	/* A: page 10 PROT_NONE, page 11 PROT_READ */

	done = 0;
	CHECK(fbt_region_copy(&p, false, h, 10 * PG, out, PG, &done) == -EFAULT && done == 0,
	      "B: a PROT_NONE page: EFAULT");
	done = 0;
	CHECK(fbt_region_copy(&p, false, h, 11 * PG, out, PG, &done) == 0,
	      "B: a PROT_READ page reads");
	done = 0;
	CHECK(fbt_region_copy(&p, true, h, 11 * PG, out, 16, &done) == -EFAULT && done == 0,
	      "B: writing a PROT_READ page: EFAULT");
	fbt_fill(out, PG, 9);
	done = 0;
	CHECK(fbt_region_copy(&p, true, h, 12 * PG + 100, out, PG, &done) == 0,
	      "B: writing a writable page, across a page edge");
	step_done();	/* A checks the bytes B wrote */

	CHECK(fbt_release(&p, h) == 0, "B: release");
	fbt_ctx_close(&p);
	free(out);
	return fbt_child_status();
}

static void test_page_tables(struct fbt_ctx *p)
{
	unsigned char *m, *away;
	__u32 h;
	pid_t b;

	m = mmap(NULL, PAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	away = mmap(NULL, 2 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || away == MAP_FAILED)
		die("mmap");
	fbt_fill(m, PAGES * PG, 3);
	CHECK(fbt_region_create(p->fd, m, PAGES * PG, RD | WR, &h) == 0, "A: create");
	CHECK(fbt_region_put(p, h) == 0, "A: send");
	b = fbt_fork(holder, NULL);
	fbt_tell(sync_go[1], 1);

	fbt_await(sync_back[0]);
	if (munmap(m + 4 * PG, 2 * PG))
		die("munmap");
	fbt_tell(sync_go[1], 1);

	fbt_await(sync_back[0]);
	if (mmap(m + 4 * PG, 2 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		die("mmap fixed");
	if (mremap(m + 8 * PG, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, away) == MAP_FAILED)
		die("mremap");
	fbt_tell(sync_go[1], 1);

	fbt_await(sync_back[0]);
	if (mprotect(m + 10 * PG, PG, PROT_NONE) || mprotect(m + 11 * PG, PG, PROT_READ))
		die("mprotect");
	fbt_tell(sync_go[1], 1);

	fbt_await(sync_back[0]);
	CHECK(fbt_verify(m + 12 * PG + 100, PG, 9) < 0, "A: B's write is in A's memory");
	fbt_tell(sync_go[1], 1);
	CHECK(fbt_wait(b) == 0, "B passed");
	CHECK(fbt_region_tell(p, FBT_REGION_DROP) == 0, "relay drops it");
	CHECK(fbt_release(p, h) == 0, "A: release");
	munmap(m, PAGES * PG);
	munmap(away, 2 * PG);
}

/* ---- exec ---- */

/* E after exec: the same context, other bytes at the region's address. */
static int exec_image(int fd, int go, int back)
{
	memset(exec_area, 0xee, sizeof(exec_area));
	fbt_tell(back, 1);
	fbt_await(go);
	close(fd);
	return 0;
}

static int exec_owner(void *arg)
{
	char fdarg[16], goarg[16], backarg[16];
	struct fbt_ctx p;
	__u32 h;

	(void)arg;
	fbt_ctx_open(&p, MB);
	memset(exec_area, 0x33, sizeof(exec_area));
	CHECK(fbt_region_create(p.fd, exec_area, sizeof(exec_area), RD, &h) == 0, "E: create");
	CHECK(fbt_region_put(&p, h) == 0, "E: send");
	if (fbt_failures)
		return 1;
	/* the context survives exec: its descriptor stays open */
	if (fcntl(p.fd, F_SETFD, 0))
		die("fcntl");
	snprintf(fdarg, sizeof(fdarg), "%d", p.fd);
	snprintf(goarg, sizeof(goarg), "%d", sync_go[0]);
	snprintf(backarg, sizeof(backarg), "%d", sync_back[1]);
	execl("/proc/self/exe", "region_owner_memory", "--exec-image", fdarg, goarg,
	      backarg, (char *)NULL);
	die("exec");
	return 1;
}

static void test_exec(struct fbt_ctx *p)
{
	unsigned char out[64];
	__u64 done = 0;
	__u32 h;
	pid_t e;

	e = fbt_fork(exec_owner, NULL);
	fbt_await(sync_back[0]);	/* the new image runs */
	CHECK(fbt_region_get(p, &h) == 0, "A: get E's region");
	CHECK(fbt_region_copy(p, false, h, 0, out, sizeof(out), &done) == -EOWNERDEAD && done == 0,
	      "A: read after the owner's exec: EOWNERDEAD (done %llu, first byte %#x)",
	      (unsigned long long)done, out[0]);
	fbt_tell(sync_go[1], 1);
	CHECK(fbt_wait(e) == 0, "E passed");
	CHECK(fbt_region_tell(p, FBT_REGION_DROP) == 0, "relay drops it");
	CHECK(fbt_release(p, h) == 0, "A: release");
}

/* ---- huge ---- */

static void test_huge(struct fbt_ctx *p)
{
	unsigned char *src = malloc(HUGE), *dst = malloc(HUGE);
	__u64 done = 0;
	__u32 h;
	int ret;

	if (!src || !dst)
		die("malloc");
	fbt_fill(src, HUGE, 5);
	CHECK(fbt_region_create(p->fd, src, HUGE, RD, &h) == 0, "create %d MiB", HUGE / MB);
	ret = fbt_region_copy_once(p, false, h, 0, dst, HUGE, &done);
	CHECK(ret == -EINTR && done == 16 * MB,
	      "one command stops after 16 MiB with EINTR (got %d, done %llu)", ret,
	      (unsigned long long)done);
	CHECK(fbt_region_copy(p, false, h, 0, dst, HUGE, &done) == 0 && done == HUGE,
	      "called again it goes on to the end");
	CHECK(fbt_verify(dst, HUGE, 5) < 0, "%d MiB arrived intact", HUGE / MB);
	CHECK(fbt_release(p, h) == 0, "release");
	free(src);
	free(dst);
}

static int manager(struct fbt_ctx *p, void *arg)
{
	return fbt_region_relay(p, arg);
}

int main(int argc, char **argv)
{
	struct fbt_ctx p;
	pid_t mgr;

	if (argc == 5 && !strcmp(argv[1], "--exec-image"))
		return exec_image(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (pipe(sync_go) || pipe(sync_back))
		die("pipe");
	mgr = fbt_spawn_manager_ex(MB, 0x5eed, FBT_MGR_NOBODY, manager, NULL);
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	test_page_tables(&p);
	test_exec(&p);
	test_huge(&p);
	CHECK(fbt_region_tell(&p, FBT_REGION_QUIT) == 0, "relay quits");
	CHECK(fbt_wait(mgr) == 0, "relay exited cleanly");
	fbt_ctx_close(&p);
	return fbt_done();
}
