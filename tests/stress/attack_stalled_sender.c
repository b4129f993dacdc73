// SPDX-License-Identifier: MIT
/*
 * attack_stalled_sender: a sender stalls its own page fault in the middle
 * of copying a message into a receiver's buffer, and the receiver is
 * killed: the receiver's exit must not wait for the sender
 * (docs/security.md G6, "release never waits on another process's
 * faults").  The copy's source is a userfaultfd region nobody serves, as a
 * stalled FUSE mapping would be.
 *
 * Both processes run as uid 65534.  The root parent starts the slot
 * manager (fbt_slots.h) through which the sender finds the receiver's node,
 * and hands the sender a descriptor of /dev/userfaultfd (open to root
 * only) so that it may stall faults the kernel takes on its behalf
 * (copy_from_user), which an unprivileged userfaultfd cannot do while
 * vm.unprivileged_userfaultfd is 0.  While the sender is stalled the root
 * parent kills the receiver and times its exit, and keeps calling the
 * manager as a bystander; then the fault is served, the send fails with
 * EOWNERDEAD, and the live counts return to 0.
 */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fbt_attack.h"
#include "fbt_slots.h"

#define MB		(1024 * 1024)
#define DEADLINE_MS	fbt_deadline_ms(3000)	/* for the receiver's exit */
#define BYSTANDER_MS	fbt_deadline_ms(1000)	/* for one call of the bystander */
#define SLOT		1
#define COOKIE		0x5ca1ULL
#define SYSCTL		"/proc/sys/vm/unprivileged_userfaultfd"

/* The state letter of /proc/PID/stat ('D': uninterruptible), or '?'. */
static char proc_state(pid_t pid)
{
	char path[64], *s, *p;
	char st = '?';

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	s = fbt_slurp(path);
	if (!s)
		return st;
	p = strrchr(s, ')');
	if (p && p[1] == ' ' && p[2])
		st = p[2];
	free(s);
	return st;
}


/* ---- the receiver: registers its node, then waits to be killed ---- */

static void receiver(int ready)
{
	struct fbt_ctx r;
	int ret;

	fbt_ctx_open(&r, MB);
	ret = fbt_slot_put(&r, SLOT, COOKIE);
	if (ret)
		die("receiver: register: %s", strerror(-ret));
	fbt_tell(ready, 1);
	for (;;)
		pause();
}

/* ---- the sender: a oneway message whose data faults and stalls ---- */

struct send_arg {
	const struct fbt_ctx *ctx;
	__u32 handle;
	const void *data;
	size_t size;
	int ret;
};

static void *send_thread(void *arg)
{
	struct send_arg *a = arg;
	struct fbt_ctx *t = fbt_ctx_thread(a->ctx, false);

	a->ret = fbt_oneway(t, a->handle, 1, a->data, a->size, NULL, 0);
	free(t);
	return NULL;
}

static int new_uffd(int dev)
{
	if (dev >= 0)
		return ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC);
	return (int)syscall(SYS_userfaultfd, O_CLOEXEC);
}

static void sender(int uffd_dev, int stalled, int serve)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffdio_zeropage zp = { 0 };
	struct pollfd pfd = { .events = POLLIN };
	size_t size = 2 * (size_t)sysconf(_SC_PAGESIZE);
	struct send_arg a = { .size = size, .ret = 1 };
	struct uffd_msg msg;
	pthread_t th;
	struct fbt_ctx s;
	void *region;
	int uffd, ret;

	uffd = new_uffd(uffd_dev);
	if (uffd < 0)
		die("sender: userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api))
		die("sender: UFFDIO_API");
	region = mmap(NULL, size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		die("sender: mmap");
	reg.range.start = (unsigned long)region;
	reg.range.len = size;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("sender: UFFDIO_REGISTER");

	fbt_ctx_open(&s, MB);
	ret = fbt_slot_get(&s, SLOT, &a.handle);
	if (ret)
		die("sender: look up the receiver: %s", strerror(-ret));
	a.ctx = &s;
	a.data = region;
	if (pthread_create(&th, NULL, send_thread, &a))
		die("pthread_create");

	/* the send is inside copy_from_user, waiting for us */
	pfd.fd = uffd;
	CHECK(poll(&pfd, 1, 5000) == 1 &&
	      read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
	      msg.event == UFFD_EVENT_PAGEFAULT,
	      "sender: the copy faulted on the userfaultfd region");
	fbt_tell(stalled, 1);

	if (fbt_hear(serve, 30000) < 0)
		die("sender: no word to serve the fault");
	zp.range.start = (unsigned long)region;
	zp.range.len = size;
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp))
		die("sender: UFFDIO_ZEROPAGE");
	pthread_join(th, NULL);
	CHECK(a.ret == -EOWNERDEAD,
	      "sender: the send into the dead receiver: want EOWNERDEAD, got %s",
	      strerror(-a.ret));
	CHECK(fbt_release(&s, a.handle) == 0, "sender: release the handle");
	fbt_ctx_close(&s);
	close(uffd);
	munmap(region, size);
	_exit(fbt_child_status());
}

int main(void)
{
	int rready[2], stalled[2], serve[2], status, ret, calls = 0;
	long long t0, t, worst = 0, exit_ms = -1;
	int uffd_dev, old_sysctl = -1;
	pid_t mgr, recv, send;
	bool reaped = false;
	struct fbt_ctx by;
	char state = '?';

	alarm(100);
	if (geteuid() != 0) {
		errno = 0;
		die("needs root (VM_ROOT_TESTS): /dev/userfaultfd and debugfs");
	}
	uffd_dev = open("/dev/userfaultfd", O_RDWR);
	if (uffd_dev < 0) {
		printf("# no /dev/userfaultfd (%s): setting %s to 1 for the test\n",
		       strerror(errno), SYSCTL);
		old_sysctl = fbt_sysctl_set(SYSCTL, 1);
	}
	fbt_pipe(rready);
	fbt_pipe(stalled);
	fbt_pipe(serve);

	mgr = fbt_slot_spawn();
	fbt_ctx_open(&by, MB);

	recv = fbt_fork_child(true);
	if (recv == 0)
		receiver(rready[1]);
	CHECK(fbt_hear(rready[0], 5000) == 1, "receiver ready");
	send = fbt_fork_child(true);
	if (send == 0)
		sender(uffd_dev, stalled[1], serve[0]);
	if (fbt_hear(stalled[0], 5000) != 1) {
		errno = 0;
		die("the sender did not stall in its copy");
	}

	/* the device serves others while the sender stalls */
	for (; calls < 5; calls++) {
		t = fbt_now_ms();
		ret = fbt_slot_ping(&by);
		t = fbt_now_ms() - t;
		CHECK(ret == 0, "bystander's call: %s", strerror(-ret));
		if (t > worst)
			worst = t;
		usleep(10000);
	}

	/* the attack: kill the receiver while a sender copies into it */
	t0 = fbt_now_ms();
	kill(recv, SIGKILL);
	while (fbt_now_ms() - t0 < DEADLINE_MS) {
		ret = waitpid(recv, &status, WNOHANG);
		if (ret == recv) {
			reaped = true;
			exit_ms = fbt_now_ms() - t0;
			break;
		}
		t = fbt_now_ms();
		ret = fbt_slot_ping(&by);
		t = fbt_now_ms() - t;
		CHECK(ret == 0, "bystander's call: %s", strerror(-ret));
		if (t > worst)
			worst = t;
		calls++;
		usleep(10000);
	}
	if (!reaped)
		state = proc_state(recv);
	CHECK(reaped,
	      "the receiver has not exited %d ms after SIGKILL (state %c): its close waits for the stalled sender",
	      DEADLINE_MS, state);
	if (reaped)
		printf("# the receiver exited %lld ms after SIGKILL while the sender stalls\n",
		       exit_ms);
	CHECK(worst < BYSTANDER_MS, "a bystander's call took %lld ms", worst);
	printf("# %d bystander calls while the sender stalled, slowest %lld ms\n",
	       calls, worst);

	/* let the sender go: its send fails, and everything is freed */
	fbt_tell(serve[1], 1);
	if (!reaped) {
		CHECK(fbt_wait(recv) == 128 + SIGKILL, "receiver killed");
		printf("# the receiver exited only once the sender was served, %lld ms after SIGKILL\n",
		       fbt_now_ms() - t0);
	}
	CHECK(fbt_wait(send) == 0, "the sender's checks");

	fbt_ctx_close(&by);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	CHECK(fbt_wait_live_zero(DEADLINE_MS) == 0, "live counts back to zero");
	if (old_sysctl >= 0)
		fbt_sysctl_set(SYSCTL, old_sysctl);
	if (uffd_dev >= 0)
		close(uffd_dev);
	return fbt_done();
}
