// SPDX-License-Identifier: MIT
/*
 * poll_events: event-loop use of a context.
 *
 * poll(), select() and epoll report POLLIN on a context exactly when a
 * WRITE_READ read by the calling thread would not block: not while nothing
 * is queued, not while a node's next oneway message waits for the previous
 * buffer to be freed, and again once it is freed; a thread blocked in poll
 * wakes when work arrives.  A caller that sent a call without reading
 * polls its own context for the reply.  With O_NONBLOCK, WRITE_READ with
 * nothing to read runs the write stream and fails with EAGAIN at once;
 * work queued afterwards is still delivered, all of it, in order (an event
 * loop of poll + non-blocking reads against a sender in another process).
 * Another process polling the context gets POLLERR.  A thread registered
 * in an epoll set that leaves with FBINDER_IOC_THREAD_EXIT does not leave the
 * epoll set pointing at freed memory.
 */
#include "fbt_proto.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define A_COOKIE	0x9011aULL
#define C_PING		1
#define C_SEQ		2
#define N_LOOP		300

static struct fbt_ctx a, b;		/* A: manager (the poller), B: a sender */

static int poll_in(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n = poll(&pfd, 1, timeout_ms);

	if (n < 0)
		die("poll");
	return n ? pfd.revents : 0;
}

static bool select_readable(int fd)
{
	struct timeval tv = { 0, 0 };
	fd_set rfds;
	int n;

	FD_ZERO(&rfds);
	FD_SET(fd, &rfds);
	n = select(fd + 1, &rfds, NULL, NULL, &tv);
	if (n < 0)
		die("select");
	return n == 1 && FD_ISSET(fd, &rfds);
}

static void set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK) < 0)
		die("fcntl O_NONBLOCK");
}

/* One WRITE_READ read on a non-blocking fd with room for exactly one return. */
static int read_one(struct fbt_ctx *p, struct fbt_ret *r)
{
	unsigned char rbuf[4 + sizeof(struct fbinder_txn_msg)];
	size_t rdone = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = fbt_write_read(p->fd, NULL, 0, NULL, rbuf, sizeof(rbuf), &rdone);
	if (ret)
		return ret;
	if (fbt_parse_one(rbuf, rdone, r) != rdone) {
		errno = 0;
		die("read of one return gave %zu bytes", rdone);
	}
	return 0;
}

/* poll, select, epoll: nothing before work is queued, POLLIN after. */
static void test_ready_when_queued(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct fbt_ret r;
	int ep, n, ret;

	CHECK(poll_in(a.fd, 0) == 0, "poll with nothing queued: revents 0x%x, want 0",
	      poll_in(a.fd, 0));
	CHECK(poll_in(a.fd, 200) == 0, "poll for 200 ms with nothing queued: revents 0x%x",
	      poll_in(a.fd, 0));
	CHECK(!select_readable(a.fd), "select: readable with nothing queued");
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, a.fd, &ev) < 0)
		die("epoll");
	n = epoll_wait(ep, &ev, 1, 0);
	CHECK(n == 0, "epoll_wait with nothing queued: %d events, want 0", n);

	ret = fbt_oneway(&b, 0, C_PING, "ping", 4, NULL, 0);
	CHECK(ret == 0, "oneway B -> A: %s", strerror(-ret));
	CHECK(poll_in(a.fd, 0) == POLLIN, "poll after a oneway was queued: revents 0x%x, want POLLIN",
	      poll_in(a.fd, 0));
	CHECK(select_readable(a.fd), "select: not readable with a oneway queued");
	n = epoll_wait(ep, &ev, 1, 0);
	CHECK(n == 1 && ev.events == EPOLLIN, "epoll_wait with a oneway queued: %d events 0x%x",
	      n, n == 1 ? ev.events : 0);
	/* The sender has nothing to read: no acknowledgement. */
	CHECK(poll_in(b.fd, 0) == 0, "the sender's context polls 0x%x, want 0", poll_in(b.fd, 0));

	ret = fbt_try_next(&a, &r);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.code == C_PING &&
	      r.msg.data_size == 4 && !memcmp(fbt_data(&a, &r.msg), "ping", 4),
	      "read after POLLIN: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	CHECK(poll_in(a.fd, 0) == 0, "poll after the only message was read: 0x%x, want 0",
	      poll_in(a.fd, 0));
	n = epoll_wait(ep, &ev, 1, 0);
	CHECK(n == 0, "epoll_wait after the read: %d events, want 0", n);
	if (!ret && r.cmd == FBINDER_RET_TRANSACTION)
		CHECK(fbt_free_buffer(&a, r.msg.data) == 0, "free");
	close(ep);
	printf("# poll/select/epoll: POLLIN only while work is queued\n");
}

struct poller {
	int fd;
	int timeout_ms;
	int revents;
	long long waited_ms;
	atomic_int done;
};

static void *poller_main(void *arg)
{
	struct poller *pl = arg;
	long long t0 = fbt_now_ms();

	pl->revents = poll_in(pl->fd, pl->timeout_ms);
	pl->waited_ms = fbt_now_ms() - t0;
	atomic_store(&pl->done, 1);
	return NULL;
}

static void start_poller(pthread_t *th, struct poller *pl)
{
	pl->fd = a.fd;
	pl->timeout_ms = 10000;
	pl->revents = -1;
	atomic_store(&pl->done, 0);
	if (pthread_create(th, NULL, poller_main, pl))
		die("pthread_create");
	usleep(300 * 1000);
}

/*
 * Two oneways to one node: the second is not deliverable (and A does not
 * poll readable) until A frees the first; a thread blocked in poll wakes
 * for the send and for the free.
 */
static void test_blocking_poll_and_oneway_gate(void)
{
	struct poller pl;
	struct fbt_ret r1, r2;
	pthread_t th;
	int ret, ret1;

	set_nonblock(a.fd, true);

	start_poller(&th, &pl);
	CHECK(!atomic_load(&pl.done), "poll returned 0x%x with nothing queued (after %lld ms)",
	      pl.revents, pl.waited_ms);
	ret = fbt_oneway(&b, 0, C_SEQ, "one", 3, NULL, 0);
	CHECK(ret == 0, "oneway 1: %s", strerror(-ret));
	pthread_join(th, NULL);
	CHECK(pl.revents == POLLIN && pl.waited_ms < 5000,
	      "blocked poll after a send: revents 0x%x after %lld ms, want POLLIN at once",
	      pl.revents, pl.waited_ms);

	ret = fbt_oneway(&b, 0, C_SEQ, "two", 3, NULL, 0);
	CHECK(ret == 0, "oneway 2: %s", strerror(-ret));
	ret1 = read_one(&a, &r1);
	CHECK(ret1 == 0 && r1.cmd == FBINDER_RET_TRANSACTION && r1.msg.data_size == 3 &&
	      !memcmp(fbt_data(&a, &r1.msg), "one", 3),
	      "first oneway: %s %s", strerror(-ret1), fbt_ret_name(r1.cmd));
	/* The second waits for the first's buffer: nothing to read, no POLLIN. */
	CHECK(poll_in(a.fd, 0) == 0,
	      "poll while the node's next oneway waits for a free: 0x%x, want 0", poll_in(a.fd, 0));
	ret = read_one(&a, &r2);
	CHECK(ret == -EAGAIN, "read while the next oneway waits for a free: %s %s, want EAGAIN",
	      strerror(-ret), fbt_ret_name(r2.cmd));

	start_poller(&th, &pl);
	CHECK(!atomic_load(&pl.done), "poll returned 0x%x before the free", pl.revents);
	if (ret1 == 0 && r1.cmd == FBINDER_RET_TRANSACTION)
		CHECK(fbt_free_buffer(&a, r1.msg.data) == 0, "free of the first oneway");
	pthread_join(th, NULL);
	CHECK(pl.revents == POLLIN && pl.waited_ms < 5000,
	      "blocked poll after the free: revents 0x%x after %lld ms, want POLLIN",
	      pl.revents, pl.waited_ms);
	ret = read_one(&a, &r2);
	CHECK(ret == 0 && r2.cmd == FBINDER_RET_TRANSACTION && r2.msg.data_size == 3 &&
	      !memcmp(fbt_data(&a, &r2.msg), "two", 3),
	      "second oneway after the free: %s %s", strerror(-ret), fbt_ret_name(r2.cmd));
	if (ret == 0 && r2.cmd == FBINDER_RET_TRANSACTION)
		fbt_free_buffer(&a, r2.msg.data);
	CHECK(poll_in(a.fd, 0) == 0, "poll when all is read: 0x%x", poll_in(a.fd, 0));

	set_nonblock(a.fd, false);
	printf("# blocked poll wakes for a send and for the free that releases the next oneway\n");
}

/*
 * O_NONBLOCK WRITE_READ: the write stream runs, the read fails with EAGAIN
 * without sleeping; then a call sent write-only is answered, and the
 * caller polls its own context for the reply.
 */
static void test_nonblock_and_reply_poll(void)
{
	struct fbt_ret r, rr;
	struct fbt_w w;
	unsigned char rbuf[256];
	size_t wdone = 0, rdone = 99;
	long long t0, dt;
	__u32 handle0 = 0;
	int ret;

	set_nonblock(a.fd, true);
	set_nonblock(b.fd, true);

	/* A write (ACQUIRE of handle 0, a no-op) then a read with nothing pending. */
	fbt_w_reset(&w);
	fbt_w_u32(&w, FBINDER_CMD_ACQUIRE, handle0);
	t0 = fbt_now_ms();
	ret = fbt_write_read(b.fd, w.buf, w.len, &wdone, rbuf, sizeof(rbuf), &rdone);
	dt = fbt_now_ms() - t0;
	CHECK(ret == -EAGAIN && wdone == w.len && rdone == 0 && dt < 1000,
	      "O_NONBLOCK write + empty read: %s, write_consumed %zu/%zu, read %zu, %lld ms; want EAGAIN, all written, nothing read, no wait",
	      strerror(-ret), wdone, w.len, rdone, dt);

	/* B calls A without reading; the caller's context has nothing yet. */
	fbt_w_reset(&w);
	fbt_w_send(&w, 0, C_PING, 0, "call", 4, NULL, 0);
	ret = fbt_wr(&b, &w, NULL, false);
	CHECK(ret == 0, "write-only call B -> A: %s", strerror(-ret));
	CHECK(poll_in(b.fd, 0) == 0, "caller polls 0x%x before the reply, want 0", poll_in(b.fd, 0));
	ret = read_one(&b, &rr);
	CHECK(ret == -EAGAIN, "caller's O_NONBLOCK read before the reply: %s, want EAGAIN",
	      strerror(-ret));

	CHECK(poll_in(a.fd, 1000) == POLLIN, "A does not poll readable with a call queued");
	ret = read_one(&a, &r);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.code == C_PING &&
	      !(r.msg.flags & FBINDER_TXN_ONEWAY) && r.msg.data_size == 4,
	      "A reads the call: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	if (ret == 0 && r.cmd == FBINDER_RET_TRANSACTION) {
		ret = fbt_reply(&a, &r.msg, 0x600d, "answer", 6, NULL, 0);
		CHECK(ret == 0, "A's reply: %s", strerror(-ret));
	}
	CHECK(poll_in(b.fd, 2000) == POLLIN, "caller does not poll readable once the reply is queued");
	ret = read_one(&b, &rr);
	CHECK(ret == 0 && rr.cmd == FBINDER_RET_REPLY && rr.msg.code == 0x600d &&
	      rr.msg.data_size == 6 && !memcmp(fbt_data(&b, &rr.msg), "answer", 6),
	      "caller reads the reply: %s %s", strerror(-ret), fbt_ret_name(rr.cmd));
	if (ret == 0 && rr.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&b, rr.msg.data);
	CHECK(poll_in(b.fd, 0) == 0 && poll_in(a.fd, 0) == 0, "something left to read");

	set_nonblock(a.fd, false);
	set_nonblock(b.fd, false);
	printf("# O_NONBLOCK: EAGAIN at once after the write stream; caller polls for its reply\n");
}

/* Another process sends N_LOOP oneways in bursts with pauses. */
static int loop_sender(void *arg)
{
	struct fbt_ctx s;
	__u32 i, seq[8];
	int ret, k;

	(void)arg;
	alarm(30);
	fbt_ctx_open(&s, 0);
	for (i = 0; i < N_LOOP; ) {
		struct fbt_w w;

		fbt_w_reset(&w);
		for (k = 0; k < 8 && i < N_LOOP; k++, i++) {
			seq[k] = i;
			fbt_w_send(&w, 0, C_SEQ, FBINDER_TXN_ONEWAY, &seq[k], sizeof(seq[k]), NULL, 0);
		}
		ret = fbt_wr(&s, &w, NULL, false);
		if (ret) {
			printf("not ok: sender: burst up to %u: %s\n", i, strerror(-ret));
			return 1;
		}
		if (i % 24 == 0)
			usleep(20 * 1000);
	}
	fbt_ctx_close(&s);
	return 0;
}

/*
 * The event loop: poll, then non-blocking reads until EAGAIN, freeing each
 * message.  Every POLLIN leads to at least one message (nobody else reads
 * A), and all N_LOOP arrive in order.
 */
static void test_event_loop(void)
{
	__u32 expect = 0;
	int spurious = 0, polls = 0, timeouts = 0;
	struct fbt_ret r;
	pid_t pid;
	int ret;

	set_nonblock(a.fd, true);
	pid = fbt_fork(loop_sender, NULL);
	while (expect < N_LOOP) {
		int got = 0;

		if (poll_in(a.fd, 5000) != POLLIN) {
			timeouts++;
			break;
		}
		polls++;
		for (;;) {
			const __u32 *v;

			ret = read_one(&a, &r);
			if (ret == -EAGAIN)
				break;
			if (ret || r.cmd != FBINDER_RET_TRANSACTION) {
				CHECK(0, "event loop read: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
				expect = N_LOOP;
				break;
			}
			v = fbt_data(&a, &r.msg);
			CHECK(r.msg.data_size == 4 && *v == expect,
			      "event loop: got seq %u (%llu bytes), want %u", *v,
			      (unsigned long long)r.msg.data_size, expect);
			expect = *v + 1;
			got++;
			ret = fbt_free_buffer(&a, r.msg.data);
			CHECK(ret == 0, "event loop free: %s", strerror(-ret));
		}
		if (!got)
			spurious++;
	}
	CHECK(!timeouts && expect == N_LOOP,
	      "event loop: %u of %u messages, then no POLLIN for 5 s", expect, N_LOOP);
	CHECK(!spurious, "%d of %d POLLINs found nothing to read", spurious, polls);
	CHECK(fbt_wait(pid) == 0, "sender failed");
	CHECK(poll_in(a.fd, 0) == 0, "POLLIN after the event loop drained everything");
	set_nonblock(a.fd, false);
	printf("# event loop: %u messages in order over %d POLLINs\n", expect, polls);
}

static int poll_foreign(void *arg)
{
	int fd = *(int *)arg;
	int rev = poll_in(fd, 0);

	if (!(rev & POLLERR)) {
		printf("not ok: poll of another process's context: revents 0x%x, want POLLERR\n",
		       rev);
		return 1;
	}
	return 0;
}

/*
 * epoll_ctl(ADD) from a thread makes the context's poll hook register on
 * that thread's wait queue; FBINDER_IOC_THREAD_EXIT then frees the thread.
 * Closing the epoll set afterwards, and sending to the context, must not
 * touch the freed thread (a use after free is a list corruption BUG or
 * an oops on Debian's kernels, which kills this child).
 */
static void *epoll_then_exit(void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int *fds = arg;

	if (epoll_ctl(fds[1], EPOLL_CTL_ADD, fds[0], &ev) < 0)
		return (void *)1;
	if (ioctl(fds[0], FBINDER_IOC_THREAD_EXIT) < 0)
		return (void *)2;
	return NULL;
}

/* A thread that only makes itself known to the context. */
static void *filler(void *arg)
{
	int fd = *(int *)arg;

	return fbt_write_read(fd, NULL, 0, NULL, NULL, 0, NULL) ? (void *)1 : NULL;
}

static int epoll_thread_exit(void *arg)
{
	struct epoll_event ev;
	struct fbt_ctx s, t;
	void *res = (void *)3;
	pthread_t th;
	int fds[2], i, n, ret;

	(void)arg;
	alarm(20);
	for (i = 0; i < 20; i++) {
		fbt_ctx_open(&s, 64 * 1024);
		fbt_ctx_open(&t, 0);
		if (fbt_set_mgr(s.fd, 0xe9011) < 0)
			return 10;
		fds[0] = s.fd;
		fds[1] = epoll_create1(EPOLL_CLOEXEC);
		if (fds[1] < 0)
			return 11;
		if (pthread_create(&th, NULL, epoll_then_exit, fds) || pthread_join(th, &res))
			return 12;
		if (res)
			return 20 + (int)(long)res;
		/* other threads' records take the freed memory's place */
		for (n = 0; n < 4; n++) {
			if (pthread_create(&th, NULL, filler, fds) ||
			    pthread_join(th, &res) || res)
				return 13;
		}
		ret = fbt_oneway(&t, 0, 1, "x", 1, NULL, 0);
		if (ret)
			return 14;
		n = epoll_wait(fds[1], &ev, 1, 1000);
		if (n != 1 || !(ev.events & EPOLLIN))
			return 15;
		close(fds[1]);
		fbt_ctx_close(&t);
		fbt_ctx_close(&s);
	}
	return 0;
}

int main(void)
{
	pid_t pid;
	int st;

	alarm(50);
	/* first, as root: it claims handle 0 twenty times */
	st = fbt_wait(fbt_fork(epoll_thread_exit, NULL));
	CHECK(st == 0, "epoll set registered by a thread that left with THREAD_EXIT: child status %d, want 0",
	      st);
	printf("# epoll after THREAD_EXIT: %s\n", st ? "broken" : "fine");

	fbt_ctx_open(&a, MB);
	fbt_ctx_open(&b, MB);
	if (fbt_set_mgr(a.fd, A_COOKIE))
		die("A: SET_CONTEXT_MGR");
	fbt_become_nobody();	/* root only to claim handle 0 */

	test_ready_when_queued();
	test_blocking_poll_and_oneway_gate();
	test_nonblock_and_reply_poll();
	test_event_loop();

	pid = fbt_fork(poll_foreign, &a.fd);
	CHECK(fbt_wait(pid) == 0, "poll from another process");
	fbt_ctx_close(&b);
	fbt_ctx_close(&a);
	CHECK(fbt_wait_live_zero(3000) == 0, "live counts did not return to zero");
	return fbt_done();
}
