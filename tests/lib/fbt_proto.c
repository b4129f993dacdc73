// SPDX-License-Identifier: MIT
/*
 * fbt_proto.c - raw-protocol helpers for the VM tests, see fbt_proto.h.
 */
#include "fbt_proto.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* ---- contexts ---- */

void fbt_ctx_open(struct fbt_ctx *p, size_t map_size)
{
	void *m;

	memset(p, 0, sizeof(*p));
	p->fd = fbt_open();
	p->map_size = map_size;
	if (!map_size)
		return;
	m = mmap(NULL, map_size, PROT_READ, MAP_PRIVATE, p->fd, 0);
	if (m == MAP_FAILED)
		die("mmap %zu bytes of %s", map_size, FBT_DEV);
	p->map = m;
}

void fbt_ctx_attach(struct fbt_ctx *t, const struct fbt_ctx *ctx)
{
	memset(t, 0, sizeof(*t));
	t->fd = ctx->fd;
	t->map = ctx->map;
	t->map_size = ctx->map_size;
}

struct fbt_ctx *fbt_ctx_thread(const struct fbt_ctx *ctx, bool enter)
{
	struct fbt_ctx *t = malloc(sizeof(*t));
	struct fbt_w w;
	int ret;

	if (!t)
		die("malloc");
	fbt_ctx_attach(t, ctx);
	if (enter) {
		fbt_w_reset(&w);
		fbt_w_cmd(&w, FBINDER_CMD_ENTER_LOOPER, NULL, 0);
		ret = fbt_wr(t, &w, NULL, false);
		if (ret)
			die("ENTER_LOOPER: %s", strerror(-ret));
	}
	return t;
}

void fbt_ctx_close(struct fbt_ctx *p)
{
	if (p->map)
		munmap((void *)p->map, p->map_size);
	if (p->fd >= 0)
		CHECK(close(p->fd) == 0, "close context: %s", strerror(errno));
	p->map = NULL;
	p->fd = -1;
}

int fbt_set_mgr(int fd, __u64 cookie)
{
	return fbt_set_mgr_flags(fd, cookie, 0);
}

int fbt_set_mgr_flags(int fd, __u64 cookie, __u32 flags)
{
	struct fbinder_context_mgr m = { .cookie = cookie, .flags = flags };

	return ioctl(fd, FBINDER_IOC_SET_CONTEXT_MGR, &m) < 0 ? -errno : 0;
}

/* ---- write streams ---- */

void fbt_w_reset(struct fbt_w *w)
{
	w->len = 0;
}

/* Room for n more bytes, or die: a test's stream never needs more. */
static void fbt_w_room(const struct fbt_w *w, size_t n)
{
	if (w->len + n > sizeof(w->buf))
		die("write stream overflow (%zu + %zu bytes)", w->len, n);
}

void fbt_w_raw(struct fbt_w *w, const void *bytes, size_t n)
{
	if (!n)
		return;		/* bytes may be NULL then */
	fbt_w_room(w, n);
	memcpy(w->buf + w->len, bytes, n);
	w->len += n;
}

void fbt_w_cmd(struct fbt_w *w, __u32 cmd, const void *payload, size_t n)
{
	fbt_w_room(w, sizeof(cmd) + n);
	w->len = fbt_put_cmd(w->buf, w->len, cmd, payload, n);
}

/* SEND and REPLY carry the same struct fbinder_txn_data (a reply's handle is 0). */
static void fbt_w_txn(struct fbt_w *w, __u32 cmd, __u32 handle, __u32 code,
		      __u32 flags, const void *data, size_t size,
		      const __u64 *offs, size_t n)
{
	struct fbinder_txn_data t = {
		.handle = handle,
		.code = code,
		.flags = flags,
		.offsets_count = n,
		.data = (uintptr_t)data,
		.data_size = size,
		.offsets = (uintptr_t)offs,
	};

	fbt_w_cmd(w, cmd, &t, sizeof(t));
}

void fbt_w_send(struct fbt_w *w, __u32 handle, __u32 code, __u32 flags,
		const void *data, size_t size, const __u64 *offs, size_t n)
{
	fbt_w_txn(w, FBINDER_CMD_SEND, handle, code, flags, data, size, offs, n);
}

void fbt_w_reply(struct fbt_w *w, __u32 code, const void *data, size_t size,
		 const __u64 *offs, size_t n)
{
	fbt_w_txn(w, FBINDER_CMD_REPLY, 0, code, 0, data, size, offs, n);
}

void fbt_w_free(struct fbt_w *w, __u64 data_off)
{
	fbt_w_cmd(w, FBINDER_CMD_FREE_BUFFER, &data_off, sizeof(data_off));
}

void fbt_w_u32(struct fbt_w *w, __u32 cmd, __u32 value)
{
	fbt_w_cmd(w, cmd, &value, sizeof(value));
}

/* ---- read streams ---- */

const char *fbt_ret_name(__u32 cmd)
{
	switch (cmd) {
	case FBINDER_RET_TRANSACTION: return "FBINDER_RET_TRANSACTION";
	case FBINDER_RET_REPLY: return "FBINDER_RET_REPLY";
	case FBINDER_RET_FAILED: return "FBINDER_RET_FAILED";
	case FBINDER_RET_SPAWN_LOOPER: return "FBINDER_RET_SPAWN_LOOPER";
	case FBINDER_RET_RELEASE: return "FBINDER_RET_RELEASE";
	case FBINDER_RET_DEAD: return "FBINDER_RET_DEAD";
	case 0: return "(none)";
	}
	return "(unknown return)";
}

size_t fbt_parse_one(const void *buf, size_t len, struct fbt_ret *r)
{
	const unsigned char *b = buf;
	size_t want;
	__u32 cmd;

	if (len < sizeof(cmd))
		return 0;
	memcpy(&cmd, b, sizeof(cmd));
	switch (cmd) {
	case FBINDER_RET_TRANSACTION:
	case FBINDER_RET_REPLY:
		want = sizeof(r->msg);
		break;
	case FBINDER_RET_FAILED:
		want = sizeof(r->err);
		break;
	case FBINDER_RET_SPAWN_LOOPER:
		want = 0;
		break;
	case FBINDER_RET_RELEASE:
		want = sizeof(r->rel);
		break;
	case FBINDER_RET_DEAD:
		want = sizeof(r->cookie);
		break;
	default:
		errno = 0;
		die("unknown return code 0x%08x in the read stream", cmd);
	}
	if (FBT_PSIZE(cmd) != want) {
		errno = 0;
		die("return 0x%08x encodes size %zu, header struct has %zu",
		    cmd, FBT_PSIZE(cmd), want);
	}
	if (len < sizeof(cmd) + want) {
		errno = 0;
		die("%s truncated in the read stream (%zu of %zu bytes)",
		    fbt_ret_name(cmd), len, sizeof(cmd) + want);
	}
	memset(r, 0, sizeof(*r));
	r->cmd = cmd;
	memcpy(&r->msg, b + sizeof(cmd), want);
	return sizeof(cmd) + want;
}

static void fbt_push(struct fbt_ctx *p, const struct fbt_ret *r)
{
	if (p->qlen == FBT_QUEUE) {
		errno = 0;
		die("return queue overflow");
	}
	p->q[(p->qhead + p->qlen++) % FBT_QUEUE] = *r;
}

static void fbt_push_stream(struct fbt_ctx *p, const unsigned char *b, size_t len)
{
	struct fbt_ret r;
	size_t n;

	while (len) {
		n = fbt_parse_one(b, len, &r);
		if (!n) {
			errno = 0;
			die("%zu stray bytes at the end of the read stream", len);
		}
		fbt_push(p, &r);
		b += n;
		len -= n;
	}
}

static int fbt_ioctl(int fd, const void *w, size_t wlen, size_t *wdone,
		     void *r, size_t rlen, size_t *rdone)
{
	struct fbinder_write_read wr = {
		.write_buffer = (uintptr_t)w,
		.write_size = wlen,
		.read_buffer = (uintptr_t)r,
		.read_size = rlen,
	};
	int ret = ioctl(fd, FBINDER_IOC_WRITE_READ, &wr) < 0 ? -errno : 0;

	if (wdone)
		*wdone = wr.write_consumed;
	if (rdone)
		*rdone = wr.read_consumed;
	if (wr.write_consumed > wlen || wr.read_consumed > rlen) {
		errno = 0;
		die("WRITE_READ consumed %llu/%zu written, %llu/%zu read",
		    (unsigned long long)wr.write_consumed, wlen,
		    (unsigned long long)wr.read_consumed, rlen);
	}
	return ret;
}

int fbt_wr(struct fbt_ctx *p, const struct fbt_w *w, size_t *wdone, bool want_read)
{
	unsigned char rbuf[FBT_RBUF];
	size_t rdone = 0;
	int ret;

	ret = fbt_ioctl(p->fd, w ? w->buf : NULL, w ? w->len : 0, wdone,
			rbuf, want_read ? sizeof(rbuf) : 0, &rdone);
	if (want_read && !ret && !rdone) {
		errno = 0;
		die("a blocking WRITE_READ returned 0 with an empty read stream");
	}
	fbt_push_stream(p, rbuf, rdone);
	return ret;
}

static bool fbt_pop(struct fbt_ctx *p, struct fbt_ret *r)
{
	if (!p->qlen)
		return false;
	*r = p->q[p->qhead];
	p->qhead = (p->qhead + 1) % FBT_QUEUE;
	p->qlen--;
	return true;
}

int fbt_next(struct fbt_ctx *p, struct fbt_ret *r)
{
	int ret;

	if (fbt_pop(p, r))
		return 0;
	ret = fbt_wr(p, NULL, NULL, true);
	if (ret)
		return ret;
	fbt_pop(p, r);
	return 0;
}

void fbt_next_txn(struct fbt_ctx *p, struct fbt_ret *r, const char *who)
{
	int rc;

	do {
		rc = fbt_next(p, r);
		if (rc) {
			errno = -rc;
			die("%s: read", who);
		}
	} while (r->cmd != FBINDER_RET_TRANSACTION);
}

int fbt_try_next(struct fbt_ctx *p, struct fbt_ret *r)
{
	int fl, ret;

	if (fbt_pop(p, r))
		return 0;
	fl = fcntl(p->fd, F_GETFL);
	if (fl < 0 || fcntl(p->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die("fcntl O_NONBLOCK");
	ret = fbt_wr(p, NULL, NULL, true);
	if (fcntl(p->fd, F_SETFL, fl) < 0)
		die("fcntl restore flags");
	if (ret)
		return ret;
	fbt_pop(p, r);
	return 0;
}

const void *fbt_data(const struct fbt_ctx *p, const struct fbinder_txn_msg *m)
{
	if (!p->map || m->data > p->map_size ||
	    m->data_size > p->map_size - m->data) {
		errno = 0;
		die("message data [%llu, +%llu) outside the %zu-byte mapping",
		    (unsigned long long)m->data,
		    (unsigned long long)m->data_size, p->map_size);
	}
	return p->map + m->data;
}

const __u64 *fbt_offsets(const struct fbt_ctx *p, const struct fbinder_txn_msg *m)
{
	if (!p->map || m->offsets > p->map_size || m->offsets % 8 ||
	    m->offsets_count > (p->map_size - m->offsets) / 8) {
		errno = 0;
		die("message offsets [%llu, %llu entries) outside the mapping or misaligned",
		    (unsigned long long)m->offsets,
		    (unsigned long long)m->offsets_count);
	}
	return (const __u64 *)(p->map + m->offsets);
}

const struct fbinder_object *fbt_obj(const struct fbt_ctx *p, const struct fbinder_txn_msg *m, size_t i)
{
	const __u64 *offs = fbt_offsets(p, m);
	const unsigned char *data = fbt_data(p, m);

	if (i >= m->offsets_count || offs[i] % 8 ||
	    offs[i] > m->data_size ||
	    m->data_size - offs[i] < sizeof(struct fbinder_object)) {
		errno = 0;
		die("object %zu of %llu: offset %llu bad for %llu data bytes", i,
		    (unsigned long long)m->offsets_count,
		    i < m->offsets_count ? (unsigned long long)offs[i] : 0ULL,
		    (unsigned long long)m->data_size);
	}
	return (const struct fbinder_object *)(data + offs[i]);
}

/* ---- messages ---- */

int fbt_free_buffer(struct fbt_ctx *p, __u64 data_off)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_free(&w, data_off);
	return fbt_wr(p, &w, NULL, false);
}

int fbt_acquire(struct fbt_ctx *p, __u32 handle)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_u32(&w, FBINDER_CMD_ACQUIRE, handle);
	return fbt_wr(p, &w, NULL, false);
}

int fbt_release(struct fbt_ctx *p, __u32 handle)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_u32(&w, FBINDER_CMD_RELEASE, handle);
	return fbt_wr(p, &w, NULL, false);
}

int fbt_reply(struct fbt_ctx *p, const struct fbinder_txn_msg *m, __u32 code,
	      const void *data, size_t size, const __u64 *offs, size_t n)
{
	struct fbt_w w;
	size_t done = 0;
	int ret;

	fbt_w_reset(&w);
	fbt_w_reply(&w, code, data, size, offs, n);
	fbt_w_free(&w, m->data);
	ret = fbt_wr(p, &w, &done, false);
	if (ret && done == 0) {
		int fret = fbt_free_buffer(p, m->data);

		CHECK(fret == 0, "free after failed reply: %s", strerror(-fret));
	}
	return ret;
}

int fbt_oneway(struct fbt_ctx *p, __u32 handle, __u32 code, const void *data,
	       size_t size, const __u64 *offs, size_t n)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_send(&w, handle, code, FBINDER_TXN_ONEWAY, data, size, offs, n);
	return fbt_wr(p, &w, NULL, false);
}

int fbt_call(struct fbt_ctx *p, __u32 handle, __u32 code, const void *data,
	     size_t size, const __u64 *offs, size_t n, struct fbt_ret *reply,
	     fbt_handler_fn nested, void *arg)
{
	return fbt_call_flags(p, handle, code, 0, data, size, offs, n, reply,
			      nested, arg);
}

int fbt_call_flags(struct fbt_ctx *p, __u32 handle, __u32 code, __u32 flags,
		   const void *data, size_t size, const __u64 *offs, size_t n,
		   struct fbt_ret *reply, fbt_handler_fn nested, void *arg)
{
	unsigned char rbuf[FBT_RBUF];
	struct fbt_w w;
	size_t rdone, pos;
	struct fbt_ret r;
	bool first = true;
	int ret;

	fbt_w_reset(&w);
	fbt_w_send(&w, handle, code, flags, data, size, offs, n);
	memset(reply, 0, sizeof(*reply));
	for (;;) {
		rdone = 0;
		ret = fbt_ioctl(p->fd, first ? w.buf : NULL, first ? w.len : 0,
				NULL, rbuf, sizeof(rbuf), &rdone);
		first = false;
		if (ret)
			return ret;
		for (pos = 0; pos < rdone; ) {
			size_t len = fbt_parse_one(rbuf + pos, rdone - pos, &r);

			if (!len) {
				errno = 0;
				die("stray bytes in the read stream");
			}
			pos += len;
			if (r.cmd == FBINDER_RET_REPLY || r.cmd == FBINDER_RET_FAILED) {
				*reply = r;
				fbt_push_stream(p, rbuf + pos, rdone - pos);
				return 0;
			}
			if (r.cmd != FBINDER_RET_TRANSACTION ||
			    (r.msg.flags & FBINDER_TXN_ONEWAY)) {
				/* Not our chain: someone else's business. */
				fbt_push(p, &r);
				continue;
			}
			if (!nested) {
				errno = 0;
				die("call %u to handle %u: unexpected nested transaction code %u cookie 0x%llx",
				    code, handle, r.msg.code,
				    (unsigned long long)r.msg.cookie);
			}
			ret = nested(p, &r, arg);
			if (ret < 0)
				return ret;
		}
	}
}

int fbt_serve(struct fbt_ctx *p, fbt_handler_fn fn, void *arg)
{
	struct fbt_ret r;
	int ret;

	for (;;) {
		ret = fbt_next(p, &r);
		if (ret)
			return ret;
		ret = fn(p, &r, arg);
		if (ret)
			return ret > 0 ? 0 : ret;
	}
}

pid_t fbt_spawn_manager(size_t map_size, __u64 cookie,
			int (*body)(struct fbt_ctx *p, void *arg), void *arg)
{
	return fbt_spawn_manager_ex(map_size, cookie, 0, body, arg);
}

pid_t fbt_spawn_manager_ex(size_t map_size, __u64 cookie, unsigned int opts,
			   int (*body)(struct fbt_ctx *p, void *arg), void *arg)
{
	int pfd[2], ret;
	struct fbt_ctx *p;
	char c = 0;
	pid_t pid;

	if (pipe(pfd) < 0)
		die("pipe");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(pfd[0]);
		p = malloc(sizeof(*p));
		if (!p)
			die("malloc");
		fbt_ctx_open(p, map_size);
		ret = fbt_set_mgr_flags(p->fd, cookie, opts & FBT_MGR_FDS ?
					FBINDER_OBJF_ACCEPTS_FDS : 0);
		if (ret) {
			errno = -ret;
			die("manager child: FBINDER_IOC_SET_CONTEXT_MGR");
		}
		if (opts & FBT_MGR_NOBODY)
			fbt_become_nobody();
		if (write(pfd[1], &c, 1) != 1)
			die("manager child: write ready pipe");
		close(pfd[1]);
		ret = body(p, arg);
		fbt_ctx_close(p);
		free(p);
		fflush(NULL);
		_exit(ret);
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1) {
		errno = 0;
		die("manager child %d died before it was ready (exit %d)",
		    (int)pid, fbt_wait(pid));
	}
	close(pfd[0]);
	return pid;
}

/* ---- payload patterns ---- */

static inline unsigned char fbt_byte(size_t i, __u32 seed)
{
	__u32 x = (__u32)i * 2654435761u ^ seed * 40503u ^ (__u32)(i >> 8);

	return (unsigned char)(x ^ x >> 13 ^ x >> 24);
}

void fbt_fill(void *buf, size_t n, __u32 seed)
{
	unsigned char *b = buf;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = fbt_byte(i, seed);
}

long fbt_verify(const void *buf, size_t n, __u32 seed)
{
	const unsigned char *b = buf;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != fbt_byte(i, seed))
			return (long)i;
	return -1;
}

/* ---- debugfs ---- */

char *fbt_slurp(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - len < 1024) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

long long fbt_read_number(const char *path)
{
	char *v = fbt_slurp(path);
	long long n;

	if (!v)
		return -1;
	n = strtoll(v, NULL, 10);
	free(v);
	return n;
}

int fbt_stat(const char *name, long long *value)
{
	char *s = fbt_slurp(FBT_DEBUGFS "/stats"), *line, *save = NULL;
	size_t nl = strlen(name);
	int ret = -ENOENT;

	if (!s)
		return -errno;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, name, nl) && line[nl] == ' ') {
			*value = strtoll(line + nl + 1, NULL, 10);
			ret = 0;
			break;
		}
	}
	free(s);
	return ret;
}

int fbt_wait_live_zero(int timeout_ms)
{
	long long deadline = fbt_now_ms() + timeout_ms;
	char *s, *line, *save;
	int nonzero;

	/*
	 * debugfs is root's: a test running as the unprivileged user leaves
	 * this check to the suite, which runs it as root once the test exited.
	 */
	if (geteuid() != 0) {
		printf("# live counts: checked by the suite after the test (not root here)\n");
		return 0;
	}
	for (;;) {
		s = fbt_slurp(FBT_DEBUGFS "/stats");
		if (!s) {
			printf("# cannot read %s/stats: %s\n", FBT_DEBUGFS, strerror(errno));
			return -1;
		}
		nonzero = 0;
		save = NULL;
		for (line = strtok_r(s, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char name[64];
			long long v;

			if (sscanf(line, "%63s %lld", name, &v) == 2 &&
			    !strncmp(name, "live_", 5) && v != 0) {
				nonzero++;
				if (fbt_now_ms() >= deadline)
					printf("# stats: %s %lld, want 0\n", name, v);
			}
		}
		free(s);
		if (!nonzero)
			return 0;
		if (fbt_now_ms() >= deadline)
			return -1;
		usleep(20000);
	}
}

int fbt_sysctl_set(const char *path, int value)
{
	char *s = fbt_slurp(path);
	char c = (char)('0' + value);
	int old, fd;

	if (!s)
		return -1;
	old = atoi(s);
	free(s);
	if (old == value)
		return -1;
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, &c, 1) != 1)
		die("write %s", path);
	close(fd);
	return old;
}

int fbt_own_queue(int fd, __u32 *queued, __u32 *buffers)
{
	static struct fbinder_info_context e[16];
	struct fbinder_info in = {
		.what = FBINDER_INFO_CONTEXTS, .entry_size = sizeof(e[0]),
		.count = 16, .entries = (__u64)(uintptr_t)e,
	};
	__u32 i;

	if (ioctl(fd, FBINDER_IOC_INFO, &in))
		return -errno;
	for (i = 0; i < in.count; i++)
		if (e[i].pid == (__u32)getpid()) {
			*queued = e[i].queued;
			*buffers = e[i].buffers;
			return 0;
		}
	return -ENOENT;
}
