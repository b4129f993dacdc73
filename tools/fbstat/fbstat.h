/* SPDX-License-Identifier: MIT */
/*
 * fbstat's parts: the snapshot every source fills and every view prints.
 *
 *   info.c     the stable source: FBINDER_IOC_INFO on a context of its own
 *              (contexts, nodes, handles, counters, failures; no root)
 *   debugfs.c  the developers' source, root only: threads, the calls on
 *              their stacks, buffers (merged into the same snapshot)
 *   names.c    service names from the service manager
 *   print.c    the tables;  top.c  the live view;  json.c  --json
 *   fbstat.c   options and the main loop
 */
#ifndef FBSTAT_H
#define FBSTAT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "binderlite.h"
#include "fbtool.h"

#define DEFAULT_DIR	"/sys/kernel/debug/fastbinder"
#define DEVICE_PATH	"/dev/fastbinder"
#define SM_TIMEOUT_MS	1000
#define MAX_FAILED	10	/* failures shown */
#define COMM_LEN	32

/* the exit statuses every fastbinder program shares (fbtool.h) */
enum {
	EXIT_OK = FBTOOL_EXIT_OK,
	EXIT_ERROR = FBTOOL_EXIT_FAILED,
	EXIT_USAGE = FBTOOL_EXIT_USAGE,
	EXIT_NO_BINDER = FBTOOL_EXIT_UNAVAILABLE,
};

extern const char *prog;
extern volatile sig_atomic_t stop;	/* SIGINT, SIGTERM */

/* looper bits as the driver prints them (driver/internal.h FBINDER_LOOPER_*) */
#define LOOPER_REGISTERED	0x1
#define LOOPER_ENTERED		0x2
#define LOOPER_EXITED		0x4

struct device {
	char name[64];
	unsigned long long mgr_node;
};

struct context {
	size_t dev;
	int pid;
	unsigned int queued, max_threads, requested, started;
	unsigned long long map_bytes, resident_pages;
	bool have_mapping;
	bool frozen;		/* FBINDER_IOC_FREEZE froze it */
	bool ours;			/* fbstat's own */
	unsigned int threads, nodes, handles, buffers;
	/* from the stable interface only */
	bool from_info;
	bool state_seen;		/* debugfs merged in */
	bool buffers_seen;
	unsigned long long id, received, sent, failed, bytes_queued;
	unsigned int euid, death_links;
};

struct thread {
	size_t ctx;
	int tid;
	unsigned int looper;
	bool has_work;
	unsigned int depth;		/* calls on its stack */
};

struct stack_entry {			/* one line under a thread */
	size_t thread;
	bool handles;			/* "handles txn" (else "awaits txn") */
	unsigned long long txn;
	unsigned int code;
	int other;			/* from thread / handled by thread */
};

struct node {
	size_t ctx;
	unsigned long long id, cookie, exports, calls;
	unsigned int handles, buffers, oneway_out;
	bool ctx_mgr;
	const char *name;		/* service name, or NULL */
};

struct handle {
	size_t ctx;
	unsigned int id, refs, buf_refs;
	unsigned long long node;
	int owner_pid;			/* 0: gone or not visible */
	bool dead;
};

struct buffer {
	size_t ctx;
	unsigned long long offset, data, offsets;
	bool oneway, delivered;
};

struct counter {
	char name[48];
	long long value;
};

struct failure {
	unsigned long long seq, time_ns, node;
	char what[16];
	int error, from_pid, to_pid;
	unsigned int code;
};

#define VEC(type, name) type *name; size_t n_##name, cap_##name

struct snapshot {
	VEC(struct device, devs);
	VEC(struct context, ctxs);
	VEC(struct thread, threads);
	VEC(struct stack_entry, stack);
	VEC(struct node, nodes);
	VEC(struct handle, handles);
	VEC(struct buffer, bufs);
	VEC(struct counter, counters);
	VEC(struct failure, failed);
	unsigned int unparsed;		/* debugfs lines of a format we do not know */
	bool have_state;		/* debugfs state merged in */
};

void *vec_push(void **arr, size_t *n, size_t *cap, size_t size);

#define PUSH(s, name) \
	vec_push((void **)&(s)->name, &(s)->n_##name, &(s)->cap_##name, \
		 sizeof(*(s)->name))

void snapshot_free(struct snapshot *s);
bool starts(const char *line, const char *prefix);
size_t snapshot_dev(struct snapshot *s, const char *name);
const struct node *find_node(const struct snapshot *s, size_t dev,
			     unsigned long long id);
long long counter_value(const struct snapshot *s, const char *name);

/* info.c */
int info_open(void);
int info_read(int fd, struct snapshot *s);
int info_follow(int fd, bool json, long count);

/* debugfs.c */
int debugfs_read_state(struct snapshot *s, const char *dir, bool default_dir,
		       bool quiet);

/* names.c */
struct named {
	char *name;
	uint32_t handle;
};

struct names {
	struct bl_context *ctx;
	struct named *v;
	size_t n;
};

void names_get(struct names *nm);
void names_put(struct names *nm);
void names_apply(struct snapshot *s, const struct names *nm);

/* print.c */
void comm_of(int pid, int tid, char *out, size_t size);
bool shown(const struct context *c);
const char *errno_str(int error, char *buf, size_t size);
void print_summary(const struct snapshot *s);
void print_processes(const struct snapshot *s);
void print_threads(const struct snapshot *s);
void print_nodes(const struct snapshot *s);
void print_handles(const struct snapshot *s);
void print_buffers(const struct snapshot *s);
void print_transactions(const struct snapshot *s);
void print_counters(const struct snapshot *s, const struct snapshot *prev,
		    double interval);
void print_failed(const struct snapshot *s);
void print_failure_line(const struct failure *f);

/* json.c */
void json_snapshot(FILE *out, const struct snapshot *s);
void json_failure(FILE *out, const struct failure *f);

/* top.c */
int top_run(int fd, double interval, long count, bool names);

#endif /* FBSTAT_H */
