// SPDX-License-Identifier: MIT
/*
 * attack_region_mm: a region must not keep its dead owner's address space
 * (docs/security.md G7, issue 33 item 2).
 *
 * OWNERS processes, uid 65534, forked in a fresh memory cgroup: each creates
 * a one-page region, hands it to the relay manager and exits; a holder,
 * uid 65534 too, fetches every region and keeps its handle.  A region
 * whose owner is gone is dead (its copies fail with EOWNERDEAD), and it
 * must have let go of the owner's mm_struct and page-table root: what the
 * owners' cgroup is still charged for, once they all exited, is a few
 * hundred bytes each (the region's own structs), not an mm_struct and a
 * pgd (about 5 to 13 kB each).  debugfs's live_region_mms (the module's
 * own count of held mm_structs) must read 0 as well.
 *
 * Root parent: the memory cgroup and debugfs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fbt_attack.h"
#include "fbt_region.h"

#define MB		(1024 * 1024)
#define OWNERS		48
/* what one dead owner may still cost its cgroup: the region's structs */
#define MAX_PER_OWNER	3072

static int go[2], hgo[2], hback[2];

static int owner(void *arg)
{
	struct fbt_ctx p;
	void *m;
	__u32 h;

	(void)arg;
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		die("mmap");
	memset(m, 0x5a, 4096);
	fbt_ctx_open(&p, MB);
	CHECK(fbt_region_create(p.fd, m, 4096, FBINDER_REGION_READ, &h) == 0, "owner: create");
	CHECK(fbt_region_put(&p, h) == 0, "owner: send");
	_exit(fbt_child_status());	/* with the region: the context ends here */
}

/*
 * In the cgroup: forks the owners one by one, so that their mm_structs
 * and page-table roots (allocated by fork, in the forking process) are
 * charged there, and has the holder fetch each region.
 */
static int spawner(void *arg)
{
	pid_t o;
	int i;

	(void)arg;
	fbt_await(go[0]);	/* moved into the cgroup */
	for (i = 0; i < OWNERS; i++) {
		o = fbt_fork_child(false);	/* 65534 already */
		if (o == 0)
			owner(NULL);
		CHECK(fbt_wait(o) == 0, "owner %d passed", i);
		fbt_tell(hgo[1], 1);
		fbt_await(hback[0]);
	}
	return fbt_child_status();
}

/* Fetches a region per fbt_tell(), keeps them all, then checks they are dead. */
static int holder(void *arg)
{
	__u32 h[OWNERS];
	char buf[64];
	struct fbt_ctx p;
	__u64 done;
	int i, ret, dead = 0;

	(void)arg;
	fbt_ctx_open(&p, MB);
	for (i = 0; i < OWNERS; i++) {
		fbt_await(hgo[0]);
		h[i] = 0;
		CHECK(fbt_region_get(&p, &h[i]) == 0, "holder: get %d", i);
		fbt_tell(hback[1], 1);
	}
	for (i = 0; i < OWNERS; i++) {
		done = 0;
		ret = fbt_region_copy_once(&p, false, h[i], 0, buf, sizeof(buf), &done);
		dead += ret == -EOWNERDEAD;
	}
	CHECK(dead == OWNERS, "holder: %d of %d dead owners' regions copy with EOWNERDEAD",
	      dead, OWNERS);
	fbt_tell(hback[1], 1);
	fbt_await(hgo[0]);	/* the parent measured */
	for (i = 0; i < OWNERS; i++)
		fbt_release(&p, h[i]);
	fbt_ctx_close(&p);
	return fbt_child_status();
}

static int manager(struct fbt_ctx *p, void *arg)
{
	return fbt_region_relay(p, arg);
}

int main(void)
{
	long long kernel, slab, mms = -1, regions = -1, t0;
	char cg[256];
	struct fbt_ctx p;
	pid_t mgr, hold, sp;
	int ret;

	alarm(50);
	if (geteuid() != 0) {
		errno = 0;
		die("needs root (VM_ROOT_TESTS): a memory cgroup and debugfs");
	}
	fbt_pipe(go);
	fbt_pipe(hgo);
	fbt_pipe(hback);
	mgr = fbt_spawn_manager_ex(MB, 0x5eed, FBT_MGR_NOBODY, manager, NULL);
	ret = fbt_memcg_create(cg, sizeof(cg));
	if (ret)
		fbt_skip("no memory cgroup (%s): the charge is not measured", strerror(-ret));
	hold = fbt_fork_nobody(holder, NULL);
	sp = fbt_fork_nobody(spawner, NULL);
	if (cg[0] && fbt_memcg_add(cg, sp))
		die("moving the spawner into the cgroup");
	fbt_tell(go[1], 1);
	CHECK(fbt_wait(sp) == 0, "spawner passed");
	fbt_await(hback[0]);	/* the holder checked they are dead */

	/* the module drops a dead root's mm_struct from a work item */
	t0 = fbt_now_ms();
	do {
		usleep(20000);
		if (fbt_stat("live_region_mms", &mms))
			mms = -1;
	} while (mms > 0 && fbt_now_ms() - t0 < 3000);
	fbt_stat("live_regions", &regions);
	printf("# %d dead owners' regions held (live_regions %lld): live_region_mms %lld\n",
	       OWNERS, regions, mms);
	CHECK(regions >= OWNERS, "the regions are still held (live_regions %lld)", regions);
	CHECK(mms == 0, "live_region_mms reads 0 with only dead owners' regions (%lld; -1: no such line)",
	      mms);
	if (cg[0]) {
		/*
		 * memory.stat is flushed every 2 s; memory.current is batched.
		 * The dead owners' contexts go by kfree_rcu(), whose batches
		 * wait up to 5 s for a grace period: the charge is read until
		 * it is within the bound, for up to 12 s, and a leak stays.
		 */
		t0 = fbt_now_ms();
		do {
			usleep(500 * 1000);
			kernel = fbt_memcg_stat(cg, "kernel");
			slab = fbt_memcg_stat(cg, "slab_unreclaimable");
		} while ((kernel < 0 || kernel > (long long)OWNERS * MAX_PER_OWNER) &&
			 fbt_now_ms() - t0 < 12000);
		printf("# their cgroup still charged: kernel %lld bytes (%lld per owner), slab_unreclaimable %lld (%lld per owner)\n",
		       kernel, kernel / OWNERS, slab, slab / OWNERS);
		CHECK(kernel >= 0 && kernel <= (long long)OWNERS * MAX_PER_OWNER,
		      "a dead owner costs its cgroup %lld bytes of kernel memory (at most %d: no mm_struct, no pgd)",
		      kernel / OWNERS, MAX_PER_OWNER);
	}

	fbt_tell(hgo[1], 1);
	CHECK(fbt_wait(hold) == 0, "holder passed");
	fbt_ctx_open(&p, MB);
	CHECK(fbt_region_tell(&p, FBT_REGION_DROP) == 0, "relay drops the last");
	CHECK(fbt_region_tell(&p, FBT_REGION_QUIT) == 0, "relay quits");
	CHECK(fbt_wait(mgr) == 0, "relay exited cleanly");
	fbt_ctx_close(&p);
	if (cg[0])
		fbt_memcg_remove(cg);
	CHECK(fbt_wait_live_zero(3000) == 0, "live counts back to zero");
	return fbt_done();
}
