// SPDX-License-Identifier: MIT
/*
 * attack_long_stream: an unprivileged process hands FBINDER_IOC_WRITE_READ a
 * 1 GiB write stream of cheap commands (a 1 MiB memfd of ENTER_LOOPER /
 * EXIT_LOOPER pairs mapped 1024 times in a row), to stay in the kernel
 * and unkillable for as long as the driver keeps going.
 *
 *  - SIGKILL ends it at once: the parent kills it in the middle of the
 *    stream and it is reaped within KILL_DEADLINE_MS of what the same
 *    process idle takes (tearing down 1024 mappings is the exit's own
 *    cost, not the driver's; each mmap and its teardown take milliseconds
 *    on the debug kernel under load, so more mappings cost minutes there);
 *  - one ioctl runs at most FBINDER_WRITE_MAX_CMDS (4096) commands: a longer
 *    stream returns EINTR with write_consumed at the first command not
 *    run, and reads nothing (it does not block on the empty read side);
 *    calling again with the same struct goes on from there, and the
 *    whole stream gets through;
 *  - a bystander's calls to handle 0 complete within DEADLINE_MS meanwhile;
 *  - every live count returns to 0.
 */
#define _GNU_SOURCE
#include "fbt_attack.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB			(1024 * 1024)
#define MGR_COOKIE		0x10a6ULL
#define CHUNK			(1024 * 1024)
#define BIG_STREAM		(1ULL << 30)
#define SMALL_STREAM		(1 << 20)
#define MAX_CMDS		4096	/* docs/abi.md: commands per WRITE_READ */
#define KILL_DEADLINE_MS	fbt_deadline_ms(1000)
#define DEADLINE_MS	fbt_deadline_ms(1000)

static int ready[2];

/* size bytes of ENTER_LOOPER, EXIT_LOOPER, ...: one memfd mapped again and again */
static unsigned char *map_stream(size_t size)
{
	unsigned char *base;
	__u32 *w;
	size_t off, i;
	int mfd;

	mfd = memfd_create("fb-stream", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, CHUNK))
		die("memfd");
	w = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (w == MAP_FAILED)
		die("mmap memfd");
	for (i = 0; i < CHUNK / sizeof(*w); i++)
		w[i] = i % 2 ? FBINDER_CMD_EXIT_LOOPER : FBINDER_CMD_ENTER_LOOPER;
	munmap(w, CHUNK);
	base = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		die("reserve %zu bytes", size);
	for (off = 0; off < size; off += CHUNK)
		if (mmap(base + off, CHUNK, PROT_READ, MAP_SHARED | MAP_FIXED, mfd, 0) ==
		    MAP_FAILED)
			die("map the stream at %zu", off);
	close(mfd);
	return base;
}

/* Runs the 1 GiB stream over and over until it is killed. */
static int endless(void *arg)
{
	unsigned char *s = map_stream(BIG_STREAM);
	struct fbinder_write_read wr = {
		.write_buffer = (uintptr_t)s,
		.write_size = BIG_STREAM,
	};
	int fd = fbt_open();

	(void)arg;
	if (write(ready[1], "r", 1) != 1)
		die("write ready");
	for (;;) {
		if (ioctl(fd, FBINDER_IOC_WRITE_READ, &wr) < 0 && errno != EINTR)
			die("WRITE_READ");
		if (wr.write_consumed == wr.write_size)
			wr.write_consumed = 0;
	}
}

/*
 * The control: the same mappings and an open context, no ioctl.  What
 * its SIGKILL takes to reap is the exit's own cost (1024 mappings to
 * tear down), which the attacker's deadline is counted from.
 */
static int idle_mapped(void *arg)
{
	unsigned char *s = map_stream(BIG_STREAM);
	int fd = fbt_open();

	(void)arg;
	(void)s;
	(void)fd;
	if (write(ready[1], "r", 1) != 1)
		die("write ready");
	for (;;)
		pause();
}

/* Where pid is (its state and wait channel), for a failure's message. */
static const char *whereabouts(pid_t pid)
{
	static char buf[256];
	char path[64], wchan[64] = "?", line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wchan, sizeof(wchan), f))
			strcpy(wchan, "?");
		fclose(f);
	}
	snprintf(buf, sizeof(buf), "waiting in %s", wchan);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "State:", 6)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, sizeof(buf), "%s, waiting in %s", line, wchan);
		}
	if (f)
		fclose(f);
	return buf;
}

/*
 * SIGKILL to reaped for a child of fn that said it is ready, in us.  The
 * ready pipe is the child's alone (EOF if it dies first), and the wait for
 * the reap is bounded: a child SIGKILL cannot end is named with where it is.
 */
static long long kill_time_us(int (*fn)(void *), const char *who)
{
	long long t0, dt, limit_us = fbt_deadline_ms(60 * 1000) * 1000LL;
	int status = 0;
	pid_t pid;
	char c;

	if (pipe(ready))
		die("pipe");
	pid = fbt_fork_nobody(fn, NULL);
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		die("the %s ended before it was ready: exit %d", who, fbt_wait(pid));
	close(ready[0]);
	usleep(300 * 1000);	/* the attacker: well inside its stream's first pass */
	t0 = fbt_now_us();
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (fbt_now_us() - t0 > limit_us)
			die("the %s still there %lld s after SIGKILL: %s", who, limit_us / 1000000,
			    whereabouts(pid));
		usleep(10 * 1000);
	}
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	      "the %s did not die of SIGKILL (status 0x%x)", who, status);
	dt = fbt_now_us() - t0;
	printf("# SIGKILL to reaped, %s: %lld ms\n", who, dt / 1000);
	return dt;
}

/* One ioctl stops at the bound; the same struct again goes on to the end. */
static int bounded(void *arg)
{
	unsigned char *s = map_stream(SMALL_STREAM);
	unsigned char rbuf[256];
	struct fbinder_write_read wr = {
		.write_buffer = (uintptr_t)s,
		.write_size = SMALL_STREAM,
		.read_buffer = (uintptr_t)rbuf,
		.read_size = sizeof(rbuf),
	};
	int fd = fbt_open(), ret, calls = 1;

	(void)arg;
	/* a driver that read after a cut stream would fail with EAGAIN, not hang */
	if (fcntl(fd, F_SETFL, O_NONBLOCK))
		die("O_NONBLOCK");
	ret = ioctl(fd, FBINDER_IOC_WRITE_READ, &wr) < 0 ? -errno : 0;
	CHECK(ret == -EINTR && wr.write_consumed == MAX_CMDS * sizeof(__u32),
	      "a %d-byte stream: %s with %llu bytes consumed, want EINTR after %d commands",
	      SMALL_STREAM, strerror(-ret), (unsigned long long)wr.write_consumed, MAX_CMDS);
	CHECK(wr.read_consumed == 0, "read %llu bytes after a cut stream",
	      (unsigned long long)wr.read_consumed);
	wr.read_size = 0;
	while (ret == -EINTR && calls < 1000) {
		ret = ioctl(fd, FBINDER_IOC_WRITE_READ, &wr) < 0 ? -errno : 0;
		calls++;
	}
	CHECK(ret == 0 && wr.write_consumed == SMALL_STREAM,
	      "going on: %s after %d calls, %llu of %d bytes consumed", strerror(-ret), calls,
	      (unsigned long long)wr.write_consumed, SMALL_STREAM);
	CHECK(calls == SMALL_STREAM / (MAX_CMDS * 4), "the stream took %d calls, want %d", calls,
	      SMALL_STREAM / (MAX_CMDS * 4));
	printf("# a %d-byte stream: %d calls of %d commands\n", SMALL_STREAM, calls, MAX_CMDS);
	close(fd);
	return fbt_child_status();
}

int main(void)
{
	struct fbt_bystander by;
	long long exit_us, dt;
	pid_t mgr, pid;

	/* line by line: what it said survives a timeout */
	setvbuf(stdout, NULL, _IOLBF, 0);
	mgr = fbt_spawn_manager(MB, MGR_COOKIE, fbt_ping_manager, NULL);
	fbt_bystander_start(&by, FBT_BY_CALL);

	exit_us = kill_time_us(idle_mapped, "the same process idle (the exit's own cost)");
	dt = kill_time_us(endless, "in the middle of a 1 GiB stream");
	CHECK(dt <= exit_us + KILL_DEADLINE_MS * 1000LL,
	      "SIGKILL took %lld ms to end the attacker, deadline %d ms after the exit's own %lld ms",
	      dt / 1000, KILL_DEADLINE_MS, exit_us / 1000);

	pid = fbt_fork_nobody(bounded, NULL);
	CHECK(fbt_wait(pid) == 0, "the bounded stream failed a check");

	fbt_bystander_check(&by, DEADLINE_MS);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts did not return to zero");
	return fbt_done();
}
