// SPDX-License-Identifier: MIT
/*
 * attack_unmap_race: a context ends while a CLONE_VM sibling of its owner
 * unmaps the receive buffer (docs/security.md G6, issue 33 item 4).
 *
 * The owner A, uid 65534, maps its buffer and receives a message (so the
 * buffer has a page mapped, and page tables under it), then clone()s a
 * sibling S with CLONE_VM but its own descriptor table, and exits.  A's
 * exit ends the context (the flush of its descriptor), whose unmap zaps
 * the buffer's pages in the mm that S keeps alive, while S munmap()s the
 * same vma: munmap takes the vma out of the tree, frees its page tables
 * and only then closes it, so a zap through a vma that was not looked up
 * again would walk page tables being freed.  The driver looks the vma up
 * (binder's 1da52815d5f1); there is nothing to see here unless it does
 * not: KASAN (make check-debug) or an oops would say so.  TRIES rounds,
 * each with S starting its munmap a little later, to sweep the window.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fbt_attack.h"
#include "fbt_slots.h"

#define MB		(1024 * 1024)
#define TRIES		300
#define STACK		(64 * 1024)

struct sib {
	atomic_int go;
	void *map;
	size_t size;
	unsigned int delay;	/* spins before the munmap */
	int report;		/* pipe to the parent */
};

static int sibling(void *arg)
{
	struct sib *s = arg;
	volatile unsigned int i;
	int ret;

	while (!atomic_load(&s->go))
		;
	for (i = 0; i < s->delay; i++)
		;
	ret = munmap(s->map, s->size) ? -errno : 0;
	if (write(s->report, &ret, sizeof(ret)) != sizeof(ret))
		_exit(2);
	_exit(0);
}

static int owner(void *arg)
{
	struct sib *s = arg;
	char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct fbt_ctx p;
	__u32 h;

	if (stack == MAP_FAILED)
		die("owner: stack");
	fbt_ctx_open(&p, MB);
	/* a reply in the buffer: a page mapped, page tables under it */
	CHECK(fbt_slot_get(&p, 0, &h) == 0, "owner: a message in its buffer");
	s->map = (void *)p.map;
	s->size = p.map_size;
	if (clone(sibling, stack + STACK, CLONE_VM | SIGCHLD, s) < 0)
		die("owner: clone");
	atomic_store(&s->go, 1);
	_exit(fbt_child_status());	/* the context ends with this exit */
}

int main(void)
{
	int report[2], i, status, ret, unmapped = 0, failed = 0;
	struct sib *s;
	struct fbt_ctx p;
	pid_t mgr, a, w;

	/* a guard against a hang: a debug kernel is 5-10x slower (FBINDER_SLOW) */
	alarm(fbt_deadline_ms(55000) / 1000);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		die("PR_SET_CHILD_SUBREAPER");
	fbt_pipe(report);
	mgr = fbt_slot_spawn();
	fbt_ctx_open(&p, MB);
	CHECK(fbt_slot_put(&p, 0, 0x5eedULL) == 0, "an object for the owners to fetch");
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		die("mmap");
	for (i = 0; i < TRIES; i++) {
		memset(s, 0, sizeof(*s));
		s->delay = (unsigned int)(i % 30) * 200;
		s->report = report[1];
		a = fbt_fork_nobody(owner, s);
		if (fbt_wait(a))
			failed++;
		if (fbt_hear(report[0], 5000) == 0)
			unmapped++;
		/* the sibling, reparented to us */
		do {
			w = waitpid(-1, &status, 0);
		} while (w == mgr);
		if (w > 0 && (!WIFEXITED(status) || WEXITSTATUS(status)))
			failed++;
	}
	printf("# %d rounds: the sibling unmapped %d times while the context ended\n",
	       TRIES, unmapped);
	CHECK(!failed, "%d owners or siblings failed", failed);
	CHECK(unmapped == TRIES, "the sibling's munmap succeeded %d of %d times", unmapped, TRIES);
	fbt_ctx_close(&p);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	munmap(s, sizeof(*s));
	ret = fbt_wait_live_zero(3000);
	CHECK(ret == 0, "live counts back to zero");
	return fbt_done();
}
