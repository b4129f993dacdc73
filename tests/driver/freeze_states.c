// SPDX-License-Identifier: MIT
/*
 * freeze_states: FBINDER_IOC_FREEZE and FBINDER_IOC_FROZEN_INFO at the raw
 * ABI.  A relay manager (it claims handle 0 as root, then drops to uid
 * 65534) hands the client the server's object; server and client run as
 * 65534, so the client may freeze the server.
 *
 * Bad arguments are EINVAL and a pid without a context ESRCH, both before
 * anything changes.  The server frozen, WRITE_READ returns
 * FBINDER_WR_FROZEN for a stream whose oneway message asked
 * (FBINDER_TXN_FROZEN_REPORT) and 0 for one that did not; the flag on a
 * call is EINVAL with nothing queued; a call is EHOSTDOWN, the commands
 * before it in its stream having taken effect; the receiver's message
 * carries no trace of the sender's flag.  The frozen server reads none of
 * the oneway messages until the thaw, then all in order.  A process that
 * froze itself still gets the replies to its own calls.
 */
#include "fbt_proto.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fbt_attack.h"

#define MB		(1024 * 1024)
#define MGR_COOKIE	0xf7e3eULL
#define SVC_COOKIE	0x5e4e3ULL
#define M_PUT		1	/* to the relay: keep this handle */
#define M_GET		2	/* to the relay: -> the handle */
#define C_ECHO		3	/* to the server: an empty reply */
#define C_SEQ		4	/* to the server, oneway: __u32 seq */
#define C_STOP		5	/* to either: reply, then exit */

static int seen[2];	/* the server's reads: seq, or ~0 for a call */
static __u32 svc;	/* the client's handle of the server's object */

/* Handle 0: keeps the one handle it is given, gives it to whoever asks. */
static int relay(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_HANDLE };
	__u32 *held = arg;
	__u64 off = 0;

	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (r->msg.code == M_PUT && r->msg.offsets_count == 1 &&
	    fbt_obj(p, &r->msg, 0)->type == FBINDER_OBJ_HANDLE) {
		*held = fbt_obj(p, &r->msg, 0)->handle;
		fbt_acquire(p, *held);
		fbt_reply(p, &r->msg, 0, NULL, 0, NULL, 0);
		return 0;
	}
	if (r->msg.code == M_GET && *held) {
		obj.handle = *held;
		fbt_reply(p, &r->msg, 0, &obj, sizeof(obj), &off, 1);
		return 0;
	}
	fbt_reply(p, &r->msg, r->msg.code == C_STOP ? 0 : (__u32)-EINVAL, NULL, 0, NULL, 0);
	return r->msg.code == C_STOP;
}

static int relay_main(struct fbt_ctx *p, void *arg)
{
	__u32 held = 0;

	(void)arg;
	return fbt_serve(p, relay, &held) ? 1 : 0;
}

static int server_main(void *arg)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_LOCAL, .cookie = SVC_COOKIE };
	struct fbt_ret r;
	struct fbt_ctx p;
	__u64 off = 0;
	__u32 seq;

	(void)arg;
	alarm(fbt_deadline_ms(60000) / 1000);
	fbt_ctx_open(&p, MB);
	if (fbt_call(&p, 0, M_PUT, &obj, sizeof(obj), &off, 1, &r, NULL, NULL) ||
	    r.cmd != FBINDER_RET_REPLY || r.msg.code)
		die("server: the relay did not take the object");
	fbt_free_buffer(&p, r.msg.data);
	for (;;) {
		fbt_next_txn(&p, &r, "server");
		if (r.msg.code == C_SEQ) {
			memcpy(&seq, fbt_data(&p, &r.msg), sizeof(seq));
			CHECK(r.msg.flags == FBINDER_TXN_ONEWAY,
			      "oneway %u arrived with flags %#x", seq, r.msg.flags);
			if (write(seen[1], &seq, sizeof(seq)) != sizeof(seq))
				die("pipe");
			fbt_free_buffer(&p, r.msg.data);
			continue;
		}
		seq = ~0U;
		if (write(seen[1], &seq, sizeof(seq)) != sizeof(seq))
			die("pipe");
		fbt_reply(&p, &r.msg, 0, NULL, 0, NULL, 0);
		if (r.msg.code == C_STOP)
			return fbt_failures ? 1 : 0;
	}
}

/* The raw ioctl's return: FBINDER_WR_FROZEN, 0, or -errno. */
static int wr_raw(int fd, const struct fbt_w *w, size_t *wdone)
{
	struct fbinder_write_read wr = {
		.write_buffer = (uintptr_t)w->buf,
		.write_size = w->len,
	};
	int ret = ioctl(fd, FBINDER_IOC_WRITE_READ, &wr);

	*wdone = wr.write_consumed;
	return ret < 0 ? -errno : ret;
}

static int freeze(int fd, pid_t pid, __u32 enable, __u32 timeout_ms, __u32 reserved)
{
	struct fbinder_freeze f = {
		.pid = (__u32)pid, .enable = enable, .timeout_ms = timeout_ms,
		.reserved = reserved,
	};

	return ioctl(fd, FBINDER_IOC_FREEZE, &f) < 0 ? -errno : 0;
}

static int info(int fd, pid_t pid, struct fbinder_frozen_info *fi)
{
	memset(fi, 0, sizeof(*fi));
	fi->pid = (__u32)pid;
	return ioctl(fd, FBINDER_IOC_FROZEN_INFO, fi) < 0 ? -errno : 0;
}

static __u32 next_seen(int ms)
{
	struct pollfd pf = { .fd = seen[0], .events = POLLIN };
	__u32 seq;

	if (poll(&pf, 1, ms) != 1 || read(seen[0], &seq, sizeof(seq)) != sizeof(seq))
		return ~1U;
	return seq;
}

static void send_seq(struct fbt_w *w, __u32 seq, __u32 flags)
{
	static __u32 buf[64];

	buf[seq % 64] = seq;
	fbt_w_send(w, svc, C_SEQ, flags, &buf[seq % 64], sizeof(seq), NULL, 0);
}

/* The server's object, from the relay once the server put it there. */
static void fetch_server(struct fbt_ctx *c)
{
	struct fbt_ret reply;
	int i;

	for (i = 0; i < 500; i++) {
		if (fbt_call(c, 0, M_GET, NULL, 0, NULL, 0, &reply, NULL, NULL) ||
		    reply.cmd != FBINDER_RET_REPLY)
			die("M_GET");
		if (!reply.msg.code)
			break;
		fbt_free_buffer(c, reply.msg.data);
		usleep(10000);
	}
	if (i == 500)
		die("the server did not register");
	svc = fbt_obj(c, &reply.msg, 0)->handle;
	fbt_acquire(c, svc);
	fbt_free_buffer(c, reply.msg.data);
}

/* C_STOP to handle h, answered. */
static void stop(struct fbt_ctx *c, __u32 h)
{
	struct fbt_ret reply;
	int ret;

	ret = fbt_call(c, h, C_STOP, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY, "stopping handle %u: %d", h, ret);
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(c, reply.msg.data);
}

int main(void)
{
	struct fbinder_frozen_info fi;
	struct fbt_ret reply;
	struct fbt_ctx c;
	struct fbt_w w;
	size_t done;
	pid_t mgr, srv;
	__u32 i;
	int ret;

	alarm(fbt_deadline_ms(60000) / 1000);
	if (pipe(seen))
		die("pipe");
	mgr = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, relay_main, NULL);
	fbt_become_nobody();
	srv = fbt_fork(server_main, NULL);
	fbt_ctx_open(&c, MB);
	fetch_server(&c);

	/* bad arguments, before anything changes */
	CHECK(freeze(c.fd, srv, 1, 0, 1) == -EINVAL, "reserved not 0");
	CHECK(freeze(c.fd, srv, 2, 0, 0) == -EINVAL, "enable 2");
	CHECK(freeze(c.fd, srv, 1, 60001, 0) == -EINVAL, "a timeout over a minute");
	CHECK(freeze(c.fd, 0, 1, 0, 0) == -EINVAL, "pid 0");
	CHECK(freeze(c.fd, -5, 1, 0, 0) == -EINVAL, "a negative pid");
	CHECK(freeze(c.fd, 1, 1, 0, 0) == -ESRCH, "init has no context");
	fi.reserved = 1;
	fi.pid = (__u32)srv;
	CHECK(ioctl(c.fd, FBINDER_IOC_FROZEN_INFO, &fi) < 0 && errno == EINVAL,
	      "FROZEN_INFO's reserved not 0");
	CHECK(info(c.fd, srv, &fi) == 0 && fi.flags == 0, "not frozen yet: flags %#x",
	      fi.flags);

	/* the report is a oneway message's */
	fbt_w_reset(&w);
	fbt_w_send(&w, svc, C_ECHO, FBINDER_TXN_FROZEN_REPORT, NULL, 0, NULL, 0);
	ret = wr_raw(c.fd, &w, &done);
	CHECK(ret == -EINVAL && done == 0, "FROZEN_REPORT on a call: %d, want -EINVAL", ret);
	CHECK(next_seen(200) == ~1U, "the refused call reached the server");

	CHECK(freeze(c.fd, srv, 1, 1000, 0) == 0, "freeze");
	fbt_w_reset(&w);
	send_seq(&w, 1, FBINDER_TXN_ONEWAY | FBINDER_TXN_FROZEN_REPORT);
	ret = wr_raw(c.fd, &w, &done);
	CHECK(ret == FBINDER_WR_FROZEN && done == w.len,
	      "a oneway that asked, to a frozen target: %d, want %d", ret, FBINDER_WR_FROZEN);
	fbt_w_reset(&w);
	send_seq(&w, 2, FBINDER_TXN_ONEWAY);
	ret = wr_raw(c.fd, &w, &done);
	CHECK(ret == 0 && done == w.len, "a oneway that did not ask: %d, want 0", ret);
	fbt_w_reset(&w);
	send_seq(&w, 3, FBINDER_TXN_ONEWAY);
	send_seq(&w, 4, FBINDER_TXN_ONEWAY | FBINDER_TXN_FROZEN_REPORT);
	send_seq(&w, 5, FBINDER_TXN_ONEWAY);
	ret = wr_raw(c.fd, &w, &done);
	CHECK(ret == FBINDER_WR_FROZEN && done == w.len,
	      "three oneways, one asking: %d, consumed %zu of %zu", ret, done, w.len);
	/* a call fails; what came before it in the stream went */
	fbt_w_reset(&w);
	send_seq(&w, 6, FBINDER_TXN_ONEWAY | FBINDER_TXN_FROZEN_REPORT);
	i = (__u32)w.len;
	fbt_w_send(&w, svc, C_ECHO, 0, NULL, 0, NULL, 0);
	ret = wr_raw(c.fd, &w, &done);
	CHECK(ret == -EHOSTDOWN && done == i,
	      "a call to a frozen target: %d, consumed %zu, want -EHOSTDOWN at %u", ret, done,
	      i);
	CHECK(info(c.fd, srv, &fi) == 0, "FROZEN_INFO");
	CHECK((fi.flags & 0xf) == (FBINDER_FROZEN_FROZEN | FBINDER_FROZEN_SYNC_RECV |
				   FBINDER_FROZEN_ASYNC_RECV) && fi.queued == 6,
	      "frozen: flags %#x, %u queued, want frozen, both received, 6", fi.flags,
	      fi.queued);
	CHECK(next_seen(300) == ~1U, "the frozen server read a message");

	CHECK(freeze(c.fd, srv, 0, 0, 0) == 0, "thaw");
	for (i = 1; i <= 6; i++) {
		__u32 seq = next_seen(fbt_deadline_ms(5000));

		CHECK(seq == i, "after the thaw: %u read as #%u", seq, i);
	}
	CHECK(info(c.fd, srv, &fi) == 0 && !(fi.flags & FBINDER_FROZEN_FROZEN) && !fi.queued,
	      "thawed: flags %#x, %u queued", fi.flags, fi.queued);

	/* frozen itself, a process still gets its replies */
	CHECK(freeze(c.fd, getpid(), 1, 1000, 0) == 0, "freezing ourselves");
	ret = fbt_call(&c, svc, C_ECHO, NULL, 0, NULL, 0, &reply, NULL, NULL);
	CHECK(ret == 0 && reply.cmd == FBINDER_RET_REPLY,
	      "a frozen process's own call: %d, %s", ret, ret ? "" : fbt_ret_name(reply.cmd));
	if (!ret && reply.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, reply.msg.data);
	CHECK(next_seen(fbt_deadline_ms(5000)) == ~0U, "the server saw the call");
	CHECK(freeze(c.fd, getpid(), 0, 0, 0) == 0, "thawing ourselves");

	stop(&c, svc);
	fbt_wait_ok(srv);
	stop(&c, 0);
	fbt_ctx_close(&c);
	fbt_wait_ok(mgr);
	return fbt_done();
}
