/* SPDX-License-Identifier: MIT */
/*
 * bench.h - the fastbinder benchmark (fbbench): transports and helpers.
 *
 * One program, one process tree per measurement: the orchestrator (main.c)
 * forks a server process (with 1 or 2 serving threads) and one or two
 * client processes, collects each client's figures through a pipe, then
 * kills the server; the scale workload forks a server and a client per
 * pair, server i serving connection i only (srv_cfg.pair).  Every transport implements the same struct transport,
 * so every workload drives every transport the same way.
 *
 * Wire conventions, the same for all transports:
 *   - A message of n bytes is a copy of the shared random pattern with a
 *     64-bit sequence number stamped at its head and its tail (see
 *     bench_stamp()); messages shorter than 16 bytes carry the low bytes
 *     of the sequence number at the head only.
 *   - ECHO: the server sends the request back unchanged; the client compares
 *     every reply with what it sent (outside the timed section).
 *   - ACK: the server checks the stamps and one word per 4 KiB page against
 *     the pattern, and replies with the 8-byte head stamp.
 *   - ONEWAY: messages carry increasing sequence numbers; the server checks
 *     each one in order and in full, and reports the count through done_fd
 *     when the end marker (sequence BENCH_END) arrives.
 */
#ifndef FBBENCH_H
#define FBBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BENCH_MAX_MSG	(4u << 20)	/* largest payload: 4 MiB */
#define BENCH_PATTERN	(BENCH_MAX_MSG + 64)
#define BENCH_END	UINT64_MAX	/* sequence number of the end marker */
#define BENCH_ONEWAY_SZ	128
#define BENCH_BATCH	64
#define BENCH_MAX_CLIENTS 8	/* clients, or pairs of the scale workload */

enum srv_mode {
	MODE_ECHO,	/* reply = request */
	MODE_ACK,	/* reply = 8-byte head stamp, request checked sparsely */
	MODE_ONEWAY,	/* no reply; count and check, report on done_fd */
	MODE_IDLE,	/* oneway, but wait for a byte on go_fd before reading */
};

struct srv_cfg {
	enum srv_mode mode;
	size_t size;		/* request size (ECHO/ACK), message size (ONEWAY) */
	size_t map_size;	/* receive mapping, for the binder transports */
	int nthreads;		/* serving threads (1 or 2) */
	int ready_fd;		/* the server writes one byte when it serves */
	int done_fd;		/* ONEWAY/IDLE: the server writes a u64 count */
	int go_fd;		/* IDLE: the server reads a byte first */
	int pair;		/* scale: serve connection pair only (1 thread); else -1 */
};

struct transport {
	const char *name;	/* short id used in the JSON */
	const char *label;	/* column header */
	/* In the orchestrator, before forking: shared sockets, rings...
	 * Returns 0 or -errno. */
	int (*prepare)(int nclients, size_t max_msg);
	/* In the orchestrator after the measurement (close, unmap). */
	void (*unprepare)(void);
	/* The server process; never returns. */
	void (*server)(const struct srv_cfg *cfg);
	/* In a client process: connection number idx (0..nclients-1). */
	void *(*open)(int idx, size_t map_size);
	/*
	 * A synchronous request of len bytes, whose reply should be want
	 * bytes (byte streams need to know); *reply points at the reply
	 * (valid until the next call on c), *rlen is its size.  0 or -errno.
	 */
	int (*call)(void *c, const void *req, size_t len, size_t want,
		    const void **reply, size_t *rlen);
	/* n oneway messages of len bytes each, in as few calls as the
	 * transport allows when batch is true, one call each otherwise. */
	int (*oneway)(void *c, const void *const *msgs, size_t len, int n,
		      bool batch);
};

extern const struct transport tr_fastbinder, tr_binder, tr_stream,
	tr_seqpacket, tr_pipe, tr_futex;

/* ---- helpers (main.c) ---- */
extern unsigned char *bench_pattern;	/* BENCH_PATTERN random bytes */
/*
 * While a scale measurement runs (prepare to unprepare, and in its
 * processes): its number of disjoint pairs, server and client i making
 * pair i; else 0.
 */
extern int bench_pairs;
extern bool bench_objects;	/* scale-objects: each call carries a handle */
extern bool bench_nested;	/* scale-nested: each call is called back, nested */

uint64_t now_ns(void);
/* wl_region.c: the region workload; prints its table, returns its failures. */
int bench_region(bool icount, bool quick, const char *mode);
/* wl_idl.c: the idl workload (generated stubs against hand-written calls). */
int bench_idl(bool icount, bool quick, const char *mode);
/* wl_gather.c: the gather workload (bl_call_iov() against one buffer, marshalling). */
int bench_gather(bool icount, bool quick, const char *mode);
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* die() with ": " and strerror(errno) appended (ISO C has no %m). */
void die_errno(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void bench_stamp(void *msg, size_t len, uint64_t seq);
/* Head stamp of a message (the low bytes only when len < 8). */
uint64_t bench_head(const void *msg, size_t len);
/* ACK check: stamps agree and one word per page matches the pattern. */
bool bench_check_sparse(const void *msg, size_t len);
/* ONEWAY check: stamps are seq and the body matches the pattern. */
bool bench_check_full(const void *msg, size_t len, uint64_t seq);
void signal_ready(int fd);
void write_full(int fd, const void *buf, size_t len);

/* The server's state for ONEWAY/IDLE, shared by the transports. */
struct oneway_rx {
	uint64_t expect;	/* next sequence number */
	int done_fd;
	bool failed;
};
/* Checks one received message; returns true at the end marker. */
bool oneway_rx_msg(struct oneway_rx *rx, const void *msg, size_t len);
/* ACK/ECHO reply for a request: returns the bytes to send back. */
const void *server_reply(const struct srv_cfg *cfg, const void *req,
			 size_t len, uint64_t *ackbuf, size_t *rlen);

/* Starts cfg->nthreads threads running fn(arg, i); the caller is thread 0. */
void run_threads(int n, void (*fn)(void *arg, int idx), void *arg);

#endif /* FBBENCH_H */
