// SPDX-License-Identifier: MIT
/*
 * attack_thread_records: one unprivileged process runs NTHREADS
 * short-lived threads, WAVE at a time, each of which makes one WRITE_READ
 * (ENTER_LOOPER) or one poll() on its context and exits without
 * FBINDER_IOC_THREAD_EXIT.  Every one of them makes the driver create a thread
 * record; the records of exited threads must go.
 *
 *  - live_threads, read while the process still holds its context, stays
 *    under BOUND (a few times the threads alive at once), not NTHREADS;
 *  - the process's own thread still works afterwards;
 *  - a bystander's device-lock ioctls complete within DEADLINE_MS;
 *  - every live count returns to 0.
 */
#include "fbt_attack.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define NTHREADS	5000
#define WAVE		16
#define BOUND		(3 * (WAVE + 1) + 8)
#define DEADLINE_MS	fbt_deadline_ms(1000)

static int to_child[2], to_parent[2];
static int fd;

static int looper_cmd(__u32 cmd)
{
	return fbt_write_read(fd, &cmd, sizeof(cmd), NULL, NULL, 0, NULL);
}

static void *one(void *arg)
{
	long i = (long)arg;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (i % 2) {
		CHECK(poll(&pfd, 1, 0) >= 0, "poll: %s", strerror(errno));
	} else {
		int ret = looper_cmd(FBINDER_CMD_ENTER_LOOPER);

		CHECK(ret == 0, "thread %ld: ENTER_LOOPER: %s", i, strerror(-ret));
	}
	return NULL;	/* no FBINDER_IOC_THREAD_EXIT, no EXIT_LOOPER */
}

static int attacker(void *arg)
{
	pthread_t th[WAVE];
	long n = 0;
	int i, ret;
	char c;

	(void)arg;
	fd = fbt_open();
	ret = looper_cmd(FBINDER_CMD_ENTER_LOOPER);
	CHECK(ret == 0, "main thread: ENTER_LOOPER: %s", strerror(-ret));
	while (n < NTHREADS) {
		for (i = 0; i < WAVE; i++)
			if (pthread_create(&th[i], NULL, one, (void *)(n + i)))
				die("pthread_create");
		for (i = 0; i < WAVE; i++)
			pthread_join(th[i], NULL);
		n += WAVE;
	}
	if (write(to_parent[1], &n, sizeof(n)) != sizeof(n))
		die("write report");
	if (read(to_child[0], &c, 1) != 1)
		die("read go");
	ret = looper_cmd(FBINDER_CMD_EXIT_LOOPER);
	CHECK(ret == 0, "main thread afterwards: EXIT_LOOPER: %s", strerror(-ret));
	CHECK(close(fd) == 0, "close: %s", strerror(errno));
	return fbt_child_status();
}

int main(void)
{
	struct fbt_bystander by;
	long long live = -1;
	pid_t pid;
	long n;

	if (pipe(to_child) || pipe(to_parent))
		die("pipe");
	fbt_bystander_start(&by, FBT_BY_LOCK);
	pid = fbt_fork_nobody(attacker, NULL);
	if (read(to_parent[0], &n, sizeof(n)) != sizeof(n))
		die("the attacker died before its report");
	fbt_stat("live_threads", &live);
	printf("# %ld threads came and went; live_threads %lld (with the bystander's one)\n", n,
	       live);
	/* the bystander's own thread has a record too */
	CHECK(live >= 2 && live <= BOUND + 1,
	      "live_threads %lld after %ld short-lived threads, %d at a time; want at most %d",
	      live, n, WAVE, BOUND + 1);
	if (write(to_child[1], "g", 1) != 1)
		die("write go");
	CHECK(fbt_wait(pid) == 0, "the attacker failed a check");

	fbt_bystander_check(&by, DEADLINE_MS);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts did not return to zero");
	return fbt_done();
}
