/* SPDX-License-Identifier: MIT */
/*
 * fbt_proto.h - raw-protocol helpers for the driver tests (tests/driver/).
 *
 * No library: these speak the ABI of uapi/linux/fastbinder.h directly, as
 * docs/abi.md describes it, so the tests check the driver and nothing else.
 *
 *   struct fbt_ctx     one thread's view of a context: the fd, the read-only
 *                  mapping, and a queue of returns read but not yet consumed.
 *                  Threads of one process share fd and mapping: each thread
 *                  gets its own struct fbt_ctx with fbt_ctx_attach().
 *   struct fbt_w   a write stream under construction (fbt_w_*()).
 *   fbt_next()     the next return (from the queue, else one blocking read).
 *   fbt_call()     SEND + wait for FBINDER_RET_REPLY or FBINDER_RET_FAILED, in one
 *                  WRITE_READ; nested calls go to a handler.
 *   fbt_spawn_manager()  fork a child that claims handle 0 and serves.
 *
 * Functions return 0 or -errno; malformed read streams are fatal (die()).
 */
#ifndef FBT_PROTO_H
#define FBT_PROTO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fbt.h"
#include "fbt_wstream.h"

#define FBT_QUEUE	256	/* returns read but not consumed, per fbt_ctx */
#define FBT_RBUF	4096	/* read stream size of one WRITE_READ */
#define FBT_WBUF	16384	/* write stream capacity */

struct fbt_ret {
	__u32 cmd;			/* FBINDER_RET_* */
	union {
		struct fbinder_txn_msg msg;	/* TRANSACTION, REPLY */
		struct fbinder_txn_error err;	/* FAILED */
		struct fbinder_node_release rel;	/* RELEASE */
		__u64 cookie;		/* DEAD */
	};
};

struct fbt_ctx {
	int fd;
	const unsigned char *map;
	size_t map_size;
	unsigned int qhead, qlen;
	struct fbt_ret q[FBT_QUEUE];
};

struct fbt_w {
	size_t len;
	unsigned char buf[FBT_WBUF];
};

/* ---- contexts ---- */

/* Open the device and map map_size bytes read-only (0: no mapping). Dies on failure. */
void fbt_ctx_open(struct fbt_ctx *p, size_t map_size);
/* The same context seen from another thread of the process. */
void fbt_ctx_attach(struct fbt_ctx *t, const struct fbt_ctx *ctx);
/*
 * The same, allocated, for a new thread (free() it), and with enter the
 * thread told the driver it is a looper (ENTER_LOOPER).  Dies on failure.
 */
struct fbt_ctx *fbt_ctx_thread(const struct fbt_ctx *ctx, bool enter);
void fbt_ctx_close(struct fbt_ctx *p);
/* FBINDER_IOC_SET_CONTEXT_MGR with this cookie; 0 or -errno. */
int fbt_set_mgr(int fd, __u64 cookie);
/* The same with flags (FBINDER_OBJF_ACCEPTS_FDS: the manager takes descriptors). */
int fbt_set_mgr_flags(int fd, __u64 cookie, __u32 flags);

/* ---- write streams ---- */

void fbt_w_reset(struct fbt_w *w);
void fbt_w_raw(struct fbt_w *w, const void *bytes, size_t n);
void fbt_w_cmd(struct fbt_w *w, __u32 cmd, const void *payload, size_t n);
void fbt_w_send(struct fbt_w *w, __u32 handle, __u32 code, __u32 flags,
		const void *data, size_t size, const __u64 *offs, size_t n);
void fbt_w_reply(struct fbt_w *w, __u32 code, const void *data, size_t size,
		 const __u64 *offs, size_t n);
void fbt_w_free(struct fbt_w *w, __u64 data_off);
void fbt_w_u32(struct fbt_w *w, __u32 cmd, __u32 value);	/* ACQUIRE, RELEASE */

/*
 * One FBINDER_IOC_WRITE_READ of w (may be NULL); with want_read, a blocking read
 * of up to FBT_RBUF bytes whose returns are appended to p's queue.
 * *wdone (may be NULL) gets write_consumed.  0 or -errno.
 */
int fbt_wr(struct fbt_ctx *p, const struct fbt_w *w, size_t *wdone, bool want_read);

/* ---- read streams ---- */

/* Parse one return at buf; returns its size, 0 when len is too short. Dies on garbage. */
size_t fbt_parse_one(const void *buf, size_t len, struct fbt_ret *r);
/* The next return: queued, or read (blocking).  0 or -errno. */
int fbt_next(struct fbt_ctx *p, struct fbt_ret *r);
/* The next FBINDER_RET_TRANSACTION, the other returns skipped; dies naming who when a read fails. */
void fbt_next_txn(struct fbt_ctx *p, struct fbt_ret *r, const char *who);
/* As fbt_next but O_NONBLOCK for the read: -EAGAIN when nothing is pending. */
int fbt_try_next(struct fbt_ctx *p, struct fbt_ret *r);
const char *fbt_ret_name(__u32 cmd);

/* The payload, offsets array and i-th object of a received message (bounds-checked, dies). */
const void *fbt_data(const struct fbt_ctx *p, const struct fbinder_txn_msg *m);
const __u64 *fbt_offsets(const struct fbt_ctx *p, const struct fbinder_txn_msg *m);
const struct fbinder_object *fbt_obj(const struct fbt_ctx *p, const struct fbinder_txn_msg *m, size_t i);

/* ---- messages ---- */

/* FBINDER_CMD_FREE_BUFFER alone.  0 or -errno. */
int fbt_free_buffer(struct fbt_ctx *p, __u64 data_off);
/* FBINDER_CMD_ACQUIRE / FBINDER_CMD_RELEASE alone.  0 or -errno. */
int fbt_acquire(struct fbt_ctx *p, __u32 handle);
int fbt_release(struct fbt_ctx *p, __u32 handle);
/*
 * FBINDER_CMD_REPLY to m, then FBINDER_CMD_FREE_BUFFER of m, one WRITE_READ without
 * read.  m's buffer is freed even when the reply fails.  0 or the reply's -errno.
 */
int fbt_reply(struct fbt_ctx *p, const struct fbinder_txn_msg *m, __u32 code,
	      const void *data, size_t size, const __u64 *offs, size_t n);
/* FBINDER_CMD_SEND with FBINDER_TXN_ONEWAY, no read.  0 or -errno. */
int fbt_oneway(struct fbt_ctx *p, __u32 handle, __u32 code, const void *data,
	       size_t size, const __u64 *offs, size_t n);

/*
 * A handler gets each return a server loop (or a waiting caller, for nested
 * calls) reads.  It must answer a synchronous FBINDER_RET_TRANSACTION.  Returns
 * 0 to go on, 1 to stop the loop, <0 (an -errno) to fail it.
 */
typedef int (*fbt_handler_fn)(struct fbt_ctx *p, const struct fbt_ret *r, void *arg);

/*
 * Synchronous call: FBINDER_CMD_SEND + read in one WRITE_READ, then reads until
 * FBINDER_RET_REPLY or FBINDER_RET_FAILED arrives (in *reply; 0 returned; the caller
 * frees a reply's buffer).  Transactions that arrive meanwhile (nested
 * calls) go to nested, or fail the check when it is NULL.  Other returns
 * are queued for fbt_next().  -errno if the send or a read failed.
 */
int fbt_call(struct fbt_ctx *p, __u32 handle, __u32 code, const void *data,
	     size_t size, const __u64 *offs, size_t n, struct fbt_ret *reply,
	     fbt_handler_fn nested, void *arg);
/* fbt_call() with the send's flags: FBINDER_TXN_ACCEPT_FDS, for a reply with fds. */
int fbt_call_flags(struct fbt_ctx *p, __u32 handle, __u32 code, __u32 flags,
		   const void *data, size_t size, const __u64 *offs, size_t n,
		   struct fbt_ret *reply, fbt_handler_fn nested, void *arg);

/* fbt_next() + handler until the handler returns nonzero.  0 or -errno. */
int fbt_serve(struct fbt_ctx *p, fbt_handler_fn fn, void *arg);

/*
 * Fork a child that opens a context with map_size, claims the context
 * manager with cookie, tells the parent it is ready, and returns
 * body(p, arg) as its exit status.  Returns the child's pid once it is ready.
 * The claim needs CAP_SYS_ADMIN (or the module's manager_uid): the caller
 * is root.
 */
pid_t fbt_spawn_manager(size_t map_size, __u64 cookie,
			int (*body)(struct fbt_ctx *p, void *arg), void *arg);

/*
 * fbt_spawn_manager() with options: FBT_MGR_NOBODY, the child claims as root and then
 * drops to uid 65534 (fbt_become_nobody()) before body runs.  That is how a
 * test that runs as the adversary gets a manager: it starts as root
 * (VM_CLAIM_TESTS in tests/tests.mk), starts its managers this way, and
 * then calls fbt_become_nobody() itself.  FBT_MGR_FDS: the manager accepts
 * descriptors (claimed with FBINDER_OBJF_ACCEPTS_FDS).
 */
#define FBT_MGR_NOBODY	0x1
#define FBT_MGR_FDS	0x2
pid_t fbt_spawn_manager_ex(size_t map_size, __u64 cookie, unsigned int opts,
			   int (*body)(struct fbt_ctx *p, void *arg), void *arg);

/* ---- payload patterns ---- */

/* Deterministic bytes from seed; fbt_verify returns the first bad index or -1. */
void fbt_fill(void *buf, size_t n, __u32 seed);
long fbt_verify(const void *buf, size_t n, __u32 seed);

/* ---- debugfs ---- */

#define FBT_DEBUGFS "/sys/kernel/debug/fastbinder"
/* Value of "name value" in debugfs stats: 0, or -errno (-ENOENT: no such line). */
int fbt_stat(const char *name, long long *value);
/*
 * Wait up to timeout_ms for every live_* counter in stats to read 0.
 * Returns 0 when they do; else prints the nonzero ones and returns -1.
 * Not root (debugfs is root's): returns 0 at once, because the suite
 * checks the same counts as root after every unprivileged test.
 */
int fbt_wait_live_zero(int timeout_ms);
/*
 * This process's context on the device of fd, from FBINDER_IOC_INFO: the
 * messages queued to it, not read yet, and the slots of its buffer in use.
 * 0 or -errno (-ENOENT: not listed).
 */
int fbt_own_queue(int fd, __u32 *queued, __u32 *buffers);
/* Whole debugfs file into a malloc()ed string (NUL-terminated), NULL on error. */
char *fbt_slurp(const char *path);
/* The decimal number a file (a /proc or /sys setting) starts with; -1 when unreadable. */
long long fbt_read_number(const char *path);
/*
 * Sets a one-digit sysctl file (root) to value; returns its old value when
 * it had to be changed (for the caller to put back), else -1.
 */
int fbt_sysctl_set(const char *path, int value);

/* Exit status for a child process: 1 if any CHECK failed in it. */
static inline int fbt_child_status(void)
{
	return fbt_failures ? 1 : 0;
}

#endif /* FBT_PROTO_H */
