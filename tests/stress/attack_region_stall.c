// SPDX-License-Identifier: MIT
/*
 * attack_region_stall: a region's owner must not wedge the thread copying
 * from it (docs/security.md G7, issue 33 item 5).
 *
 * The owner, uid 65534, backs its region with userfaultfd and never
 * resolves the faults: the first PRESENT bytes are there, the rest never
 * come.  The victim, uid 65534 too, reads the whole region with one
 * FBINDER_CMD_REGION_READ; its pin of the owner's page waits on the
 * owner.  An ordinary signal (SIGUSR1, with a handler: not a fatal one)
 * must end that wait: the command fails with EINTR at once, with the
 * bytes copied so far written back in done, and the handler ran.
 *
 * The root parent hands the owner a descriptor of /dev/userfaultfd (a
 * userfaultfd that may stall faults the kernel takes on the process's
 * behalf; without that device it sets vm.unprivileged_userfaultfd to 1
 * for the test), and signals the victim once the owner saw the fault.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include "fbt_attack.h"
#include "fbt_region.h"

#define MB		(1024 * 1024)
#define SIZE		(256 * 1024)
#define PRESENT		(16 * 1024)
#define SYSCTL		"/proc/sys/vm/unprivileged_userfaultfd"
#define DEADLINE_MS	2000

static int uffd_dev = -1;
static int stalled[2], done_pipe[2], go[2], ready[2];


static int new_uffd(void)
{
	if (uffd_dev >= 0)
		return ioctl(uffd_dev, USERFAULTFD_IOC_NEW, O_CLOEXEC);
	return (int)syscall(SYS_userfaultfd, O_CLOEXEC);
}

static int owner(void *arg)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct pollfd pfd = { .events = POLLIN };
	struct uffd_msg msg;
	struct fbt_ctx p;
	char *m;
	int uffd;
	__u32 h;

	(void)arg;
	uffd = new_uffd();
	if (uffd < 0)
		die("owner: userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api))
		die("owner: UFFDIO_API");
	m = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		die("owner: mmap");
	memset(m, 0x44, PRESENT);	/* these are there; the rest never comes */
	reg.range.start = (unsigned long)m;
	reg.range.len = SIZE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("owner: UFFDIO_REGISTER");
	fbt_ctx_open(&p, MB);
	CHECK(fbt_region_create(p.fd, m, SIZE, FBINDER_REGION_READ, &h) == 0, "owner: create");
	CHECK(fbt_region_put(&p, h) == 0, "owner: send");
	fbt_tell(ready[1], 1);
	pfd.fd = uffd;
	CHECK(poll(&pfd, 1, 10000) == 1 &&
	      read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
	      msg.event == UFFD_EVENT_PAGEFAULT,
	      "owner: the victim's copy faulted on the userfaultfd region");
	printf("# owner: the copy waits on %#llx (region + %llu)\n",
	       (unsigned long long)msg.arg.pagefault.address,
	       (unsigned long long)(msg.arg.pagefault.address - (unsigned long)m));
	fbt_tell(stalled[1], 1);
	fbt_await(go[0]);	/* never served: closing the uffd lets the fault go */
	close(uffd);
	fbt_ctx_close(&p);
	return fbt_child_status();
}

static volatile sig_atomic_t got_signal;

static void on_usr1(int sig)
{
	(void)sig;
	got_signal = 1;
}

static int victim(void *arg)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	char *out = malloc(SIZE);
	struct fbt_ctx p;
	__u64 done = 0;
	__u32 h;
	int ret, i;

	(void)arg;
	if (!out || sigaction(SIGUSR1, &sa, NULL))
		die("victim: setup");
	memset(out, 0, SIZE);
	fbt_ctx_open(&p, MB);
	CHECK(fbt_region_get(&p, &h) == 0, "victim: get");
	ret = fbt_region_copy_once(&p, false, h, 0, out, SIZE, &done);
	fbt_tell(done_pipe[1], 1);
	CHECK(ret == -EINTR, "victim: the stalled copy ended with %s, want EINTR",
	      ret ? strerror(-ret) : "success");
	CHECK(got_signal, "victim: the handler of SIGUSR1 ran");
	CHECK(done == PRESENT, "victim: done %llu written back, want %d (the present bytes)",
	      (unsigned long long)done, PRESENT);
	for (i = 0; i < (int)done && i < SIZE; i++)
		if (out[i] != 0x44)
			break;
	CHECK(i == (int)done, "victim: byte %d of the copied ones is %#x", i, out[i]);
	fbt_release(&p, h);
	fbt_ctx_close(&p);
	free(out);
	return fbt_child_status();
}

static int manager(struct fbt_ctx *p, void *arg)
{
	return fbt_region_relay(p, arg);
}

int main(void)
{
	int old_sysctl = -1, when;
	long long sent;
	struct fbt_ctx p;
	pid_t mgr, own, vic;

	alarm(50);
	if (geteuid() != 0) {
		errno = 0;
		die("needs root (VM_ROOT_TESTS): /dev/userfaultfd");
	}
	uffd_dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (uffd_dev < 0) {
		printf("# no /dev/userfaultfd (%s): setting %s to 1 for the test\n",
		       strerror(errno), SYSCTL);
		old_sysctl = fbt_sysctl_set(SYSCTL, 1);
	}
	fbt_pipe(stalled);
	fbt_pipe(done_pipe);
	fbt_pipe(go);
	fbt_pipe(ready);
	mgr = fbt_spawn_manager_ex(MB, 0x5eed, FBT_MGR_NOBODY, manager, NULL);
	own = fbt_fork_nobody(owner, NULL);
	fbt_await(ready[0]);
	vic = fbt_fork_nobody(victim, NULL);
	if (fbt_hear(stalled[0], 5000) != 1)
		die("the victim's copy did not stall on the owner's fault");
	usleep(100 * 1000);
	CHECK(fbt_hear(done_pipe[0], 0) < 0, "the copy waits on the owner");

	/* the attack's answer: an ordinary signal ends the wait */
	sent = fbt_now_ms();
	kill(vic, SIGUSR1);
	when = fbt_hear(done_pipe[0], DEADLINE_MS);
	CHECK(when >= 0, "the copy still waits %d ms after SIGUSR1: the owner wedges it",
	      DEADLINE_MS);
	if (when >= 0)
		printf("# the copy ended %lld ms after SIGUSR1\n", fbt_now_ms() - sent);

	fbt_tell(go[1], 1);	/* the owner lets go (closes its userfaultfd) */
	CHECK(fbt_wait(own) == 0, "owner passed");
	if (when < 0)
		fbt_hear(done_pipe[0], 10000);
	CHECK(fbt_wait(vic) == 0, "victim passed");
	fbt_ctx_open(&p, MB);
	CHECK(fbt_region_tell(&p, FBT_REGION_DROP) == 0, "relay drops it");
	CHECK(fbt_region_tell(&p, FBT_REGION_QUIT) == 0, "relay quits");
	CHECK(fbt_wait(mgr) == 0, "relay exited cleanly");
	fbt_ctx_close(&p);
	CHECK(fbt_wait_live_zero(3000) == 0, "live counts back to zero");
	if (old_sysctl >= 0)
		fbt_sysctl_set(SYSCTL, old_sysctl);
	if (uffd_dev >= 0)
		close(uffd_dev);
	return fbt_done();
}
