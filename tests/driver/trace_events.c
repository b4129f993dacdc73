// SPDX-License-Identifier: MIT
/*
 * trace_events: every fastbinder trace event (driver/trace.h) fires with
 * the right fields during a scripted chain, read back through tracefs.
 * The client C, at nice -5, calls the manager M (a pool thread that
 * entered the loop, max 1 more): fastbinder_send, M's fastbinder_received,
 * M raised to nice -5 (fastbinder_prio_raise), asked for a looper
 * (fastbinder_spawn_looper), fastbinder_reply, restored
 * (fastbinder_prio_restore), C's fastbinder_received of the reply, both
 * buffers freed (fastbinder_buffer_free).  A nested call back into C
 * while M handles C's call goes to C's very thread.  A oneway message has
 * its flag; a send to a bad handle is fastbinder_failed with ENOENT; M's
 * exit is C's fastbinder_dead.  With the events off, nothing is traced.
 */
#include "fbt_proto.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define TR		"/sys/kernel/tracing"
#define MB		(1024 * 1024)
#define S_MAP		(64 * 1024)
#define CODE_CALL	10
#define CODE_OUTER	12
#define CODE_INNER	13
#define CODE_ONEWAY	14
#define CODE_QUIT	15
#define CODE_BAD	0x7ace0001u
#define C_COOKIE	0xc0c0
#define DEATH_COOKIE	0xdead

static void tr_write(const char *file, const char *val)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), TR "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die("write %s to %s", val, path);
	close(fd);
}

/* M: enters the loop, allows one more thread; serves until CODE_QUIT. */
static int m_main(struct fbt_ctx *p, void *arg)
{
	struct fbt_ret r, inner;
	struct fbt_w w;
	__u32 max = 1;

	(void)arg;
	alarm(30);
	if (ioctl(p->fd, FBINDER_IOC_SET_MAX_THREADS, &max))
		die("SET_MAX_THREADS");
	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_ENTER_LOOPER, NULL, 0);
	if (fbt_wr(p, &w, NULL, false))
		die("ENTER_LOOPER");
	while (fbt_next(p, &r) == 0) {
		if (r.cmd != FBINDER_RET_TRANSACTION)
			continue;
		if (r.msg.flags & FBINDER_TXN_ONEWAY) {
			fbt_free_buffer(p, r.msg.data);
			continue;
		}
		if (r.msg.code == CODE_OUTER) {
			const struct fbinder_object *o = fbt_obj(p, &r.msg, 0);
			int ret = fbt_call(p, o->handle, CODE_INNER, "in", 2, NULL, 0,
					   &inner, NULL, NULL);

			CHECK(ret == 0 && inner.cmd == FBINDER_RET_REPLY, "inner call: %d", ret);
			if (!ret && inner.cmd == FBINDER_RET_REPLY)
				fbt_free_buffer(p, inner.msg.data);
		}
		fbt_reply(p, &r.msg, 0, "ok", 2, NULL, 0);
		if (r.msg.code == CODE_QUIT)
			break;
	}
	return fbt_child_status();
}

/* C's handler of the nested call. */
static int c_nested(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	(void)arg;
	CHECK(r->msg.code == CODE_INNER && r->msg.cookie == C_COOKIE,
	      "nested call code %u cookie %#llx", r->msg.code,
	      (unsigned long long)r->msg.cookie);
	return fbt_reply(p, &r->msg, 0, "back", 4, NULL, 0);
}

static void call(struct fbt_ctx *c, __u32 code, const void *data, size_t size,
		 const __u64 *offs, size_t n)
{
	struct fbt_ret r;
	int ret = fbt_call(c, 0, code, data, size, offs, n, &r, c_nested, NULL);

	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "call code %u: %d", code, ret);
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(c, r.msg.data);
}

/* The trace's lines of one event, each the text after "name: ". */
static int lines_of(const char *trace, const char *event, char out[][256], int max)
{
	char key[64];
	const char *p = trace;
	int n = 0;

	snprintf(key, sizeof(key), " %s: ", event);
	while ((p = strstr(p, key)) && n < max) {
		const char *s = p + strlen(key), *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		snprintf(out[n++], 256, "%.*s", (int)(len < 255 ? len : 255), s);
		p = s;
	}
	return n;
}

enum { E_SEND, E_RECV, E_REPLY, E_FREE, E_FAILED, E_RAISE, E_RESTORE, E_DEAD,
       E_SPAWN, E_N };

static const char *const events[E_N] = {
	"fastbinder_send", "fastbinder_received", "fastbinder_reply",
	"fastbinder_buffer_free", "fastbinder_failed", "fastbinder_prio_raise",
	"fastbinder_prio_restore", "fastbinder_dead", "fastbinder_spawn_looper",
};

static char L[E_N][64][256];
static int nl[E_N];

/* Is there a line of event ev that fmt matches with want fields? */
static bool find(int ev, int want, const char *fmt, ...)
{
	bool found = false;
	va_list ap;

	for (int i = 0; i < nl[ev] && !found; i++) {
		va_start(ap, fmt);
		found = vsscanf(L[ev][i], fmt, ap) == want;
		va_end(ap);
	}
	return found;
}

int main(void)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_LOCAL, .cookie = C_COOKIE };
	struct fbinder_death d = { .handle = 0, .cookie = DEATH_COOKIE };
	unsigned long long id, id2, node, sz, a, b2;
	unsigned int code, flags, objs, u1, u2;
	int p1, t1, p2, t2, lvl, err;
	char *trace, what[16], kind[16];
	pid_t me = getpid(), m;
	__u64 off = 0;
	struct fbt_ctx c;
	struct fbt_ret r;
	struct fbt_w w;
	struct stat st;

	alarm(50);
	if (stat(TR "/events", &st) && mount("tracefs", TR, "tracefs", 0, NULL))
		die("no tracefs at " TR " and cannot mount it");
	if (stat(TR "/events/fastbinder", &st))
		die("no " TR "/events/fastbinder: the module has no trace events");
	tr_write("tracing_on", "0");
	tr_write("trace", "");
	tr_write("events/fastbinder/enable", "1");
	tr_write("tracing_on", "1");

	m = fbt_spawn_manager(S_MAP, 0x3e, m_main, NULL);
	fbt_ctx_open(&c, MB);
	CHECK(setpriority(PRIO_PROCESS, 0, -5) == 0, "nice -5: %s", strerror(errno));
	call(&c, CODE_CALL, "hello", 5, NULL, 0);
	CHECK(setpriority(PRIO_PROCESS, 0, 0) == 0, "nice 0: %s", strerror(errno));
	call(&c, CODE_OUTER, &obj, sizeof(obj), &off, 1);
	CHECK(fbt_oneway(&c, 0, CODE_ONEWAY, "one", 3, NULL, 0) == 0, "oneway");
	CHECK(fbt_oneway(&c, 777, CODE_BAD, NULL, 0, NULL, 0) == -ENOENT, "bad handle");
	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_LINK_DEATH, &d, sizeof(d));
	CHECK(fbt_wr(&c, &w, NULL, false) == 0, "link death");
	call(&c, CODE_QUIT, NULL, 0, NULL, 0);
	CHECK(fbt_wait(m) == 0, "manager failed");
	/* the release notice of C's node may come first */
	while (fbt_next(&c, &r) == 0 && r.cmd == FBINDER_RET_RELEASE)
		;
	CHECK(r.cmd == FBINDER_RET_DEAD && r.cookie == DEATH_COOKIE, "death notice: %s",
	      fbt_ret_name(r.cmd));
	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_DEATH_DONE, &d.cookie, sizeof(d.cookie));
	fbt_wr(&c, &w, NULL, false);
	tr_write("tracing_on", "0");

	trace = fbt_slurp(TR "/trace");
	if (!trace)
		die("read " TR "/trace");
	for (int e = 0; e < E_N; e++)
		nl[e] = lines_of(trace, events[e], L[e], 64);
	printf("# %d send, %d received, %d reply, %d free, %d failed, %d raise, %d restore, %d dead, %d spawn\n",
	       nl[E_SEND], nl[E_RECV], nl[E_REPLY], nl[E_FREE], nl[E_FAILED], nl[E_RAISE],
	       nl[E_RESTORE], nl[E_DEAD], nl[E_SPAWN]);

	/* the call: C -> M, code 10, 5 bytes */
	CHECK(find(E_SEND, 10, "txn=%llu from=%d:%d to=%d:%d node=%llu code=%u flags=0x%x size=%llu objects=%u",
		   &id, &p1, &t1, &p2, &t2, &node, &code, &flags, &sz, &objs) &&
	      p1 == me && t1 == me && p2 == m && code == CODE_CALL && flags == 0 && sz == 5 &&
	      objs == 0 && node > 0, "fastbinder_send of the call: %s", nl[E_SEND] ? L[E_SEND][0] : "none");
	CHECK(find(E_RECV, 8, "txn=%llu by=%d:%d %15s code=%u flags=0x%x size=%llu objects=%u",
		   &a, &p1, &t1, kind, &code, &flags, &sz, &objs) &&
	      a == id && p1 == m && t1 == m && !strcmp(kind, "call") && code == CODE_CALL && sz == 5,
	      "fastbinder_received of txn %llu by the manager", id);
	CHECK(find(E_REPLY, 10, "txn=%llu from=%d:%d to=%d:%d node=%llu code=%u flags=0x%x size=%llu objects=%u",
		   &a, &p1, &t1, &p2, &t2, &node, &code, &flags, &sz, &objs) &&
	      a == id && p1 == m && p2 == me && t2 == me && node == 0 && sz == 2,
	      "fastbinder_reply of txn %llu", id);
	/* the first line of each is this call's: match the reply's receipt */
	{
		bool found = false;

		for (int i = 0; i < nl[E_RECV] && !found; i++)
			found = sscanf(L[E_RECV][i], "txn=%llu by=%d:%d %15s", &a, &p1, &t1,
				       kind) == 4 && a == id && p1 == me && !strcmp(kind, "reply");
		CHECK(found, "fastbinder_received of txn %llu's reply by the caller", id);
	}
	CHECK(find(E_RAISE, 4, "thread=%d:%d policy=%u level=%d", &p1, &t1, &u1, &lvl) &&
	      p1 == m && t1 == m && u1 == 0 && lvl == -5,
	      "fastbinder_prio_raise of the manager to nice -5: %s",
	      nl[E_RAISE] ? L[E_RAISE][0] : "none");
	CHECK(find(E_RESTORE, 4, "thread=%d:%d policy=%u level=%d", &p1, &t1, &u1, &lvl) &&
	      p1 == m && u1 == 0 && lvl == 0, "fastbinder_prio_restore of the manager to nice 0");
	CHECK(find(E_SPAWN, 4, "by=%d:%d started=%u max=%u", &p1, &t1, &u1, &u2) &&
	      p1 == m && u2 == 1, "fastbinder_spawn_looper for the manager");
	{
		int fm = 0, fc = 0;

		for (int i = 0; i < nl[E_FREE]; i++) {
			if (sscanf(L[E_FREE][i], "pid=%d offset=%llu size=%llu", &p1, &a, &sz) != 3)
				continue;
			fm += p1 == m;
			fc += p1 == me;
		}
		CHECK(fm >= 4 && fc >= 3, "fastbinder_buffer_free: %d by the manager, %d by the client",
		      fm, fc);
	}

	/* the nested chain: C -> M (12), M -> C's own thread (13) */
	CHECK(find(E_SEND, 9, "txn=%llu from=%d:%d to=%d:%d node=%llu code=12 flags=0x%x size=%llu objects=%u",
		   &id, &p1, &t1, &p2, &t2, &node, &flags, &sz, &objs) && objs == 1,
	      "fastbinder_send of code 12 with one object");
	CHECK(find(E_SEND, 9, "txn=%llu from=%d:%d to=%d:%d node=%llu code=13 flags=0x%x size=%llu objects=%u",
		   &id2, &p1, &t1, &p2, &t2, &node, &flags, &sz, &objs) &&
	      id2 != id && p1 == m && p2 == me && t2 == me,
	      "the nested call goes to the waiting caller's thread (to=%d:%d)", p2, t2);
	CHECK(find(E_SEND, 9, "txn=%llu from=%d:%d to=%d:%d node=%llu code=14 flags=0x%x size=%llu objects=%u",
		   &a, &p1, &t1, &p2, &t2, &node, &flags, &sz, &objs) &&
	      flags == FBINDER_TXN_ONEWAY && sz == 3, "fastbinder_send of the oneway message");
	CHECK(find(E_FAILED, 6, "%15s error=%d from=%d to=%d node=%llu code=%u", what, &err, &p1,
		   &p2, &b2, &code) &&
	      !strcmp(what, "send") && err == -ENOENT && p1 == me && p2 == 0 &&
	      code == CODE_BAD && strstr(L[E_FAILED][0], " at fbinder_"),
	      "fastbinder_failed: %s", nl[E_FAILED] ? L[E_FAILED][0] : "none");
	CHECK(find(E_DEAD, 3, "by=%d:%d cookie=0x%llx", &p1, &t1, &a) &&
	      p1 == me && a == DEATH_COOKIE, "fastbinder_dead");
	free(trace);

	/* off: nothing more */
	tr_write("events/fastbinder/enable", "0");
	tr_write("trace", "");
	tr_write("tracing_on", "1");
	CHECK(fbt_oneway(&c, 777, CODE_BAD, NULL, 0, NULL, 0) == -ENOENT, "bad handle, off");
	tr_write("tracing_on", "0");
	trace = fbt_slurp(TR "/trace");
	CHECK(trace && !strstr(trace, "fastbinder_"), "events traced while off");
	free(trace);
	fbt_ctx_close(&c);
	return fbt_done();
}
