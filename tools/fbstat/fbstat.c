// SPDX-License-Identifier: MIT
/*
 * fbstat - show the fastbinder driver's state and counters, from debugfs
 * (/sys/kernel/debug/fastbinder/: state, stats, failed; docs/abi.md).
 *
 * SYNOPSIS
 *	fbstat [-N] [-D DIR] [-w [SECONDS]] [-c COUNT] [SECTION]...
 *
 * DESCRIPTION
 *	Prints, as tables: the devices and their context managers, the
 *	processes (contexts) with their pool, nodes (objects), handles,
 *	threads, buffers, the transactions in flight (who waits on whom),
 *	the global counters and the last failed sends.  SECTIONs limit the
 *	output to some of: summary processes threads nodes handles buffers
 *	transactions counters failed (default: all).
 *
 *	Unless -N is given, fbstat also asks the service manager for the
 *	registered names (with a timeout, so a stuck manager cannot hang
 *	it) and shows each node's service name.  For that it opens a context
 *	of its own and holds one handle per service while it reads the
 *	state; that context is left out of the tables and its handles are
 *	subtracted from the nodes' handle counts.  The counters are read
 *	before it, but with --watch the next refresh counts fbstat's own
 *	calls (1 + one per service).  -N reads debugfs only.
 *
 *	--watch refreshes every SECONDS (default 1, fractions allowed), with
 *	each counter's change since the previous refresh, until interrupted
 *	or COUNT refreshes were shown.
 *
 * EXIT STATUS
 *	0  shown
 *	1  cannot read the driver's state: module not loaded, debugfs not
 *	   mounted, not root, or a read error
 *	2  usage error
 *	Errors go to stderr.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "binderlite.h"

#define DEFAULT_DIR	"/sys/kernel/debug/fastbinder"
#define SM_TIMEOUT_MS	1000
#define MAX_FAILED	10	/* failures shown */
#define COMM_LEN	32

enum { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_USAGE = 2 };

static const char *prog = "fbstat";

/* ---- the snapshot ----------------------------------------------------------- */

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
	bool ours;			/* fbstat's own, for the names */
	unsigned int threads, nodes, handles, buffers;
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
	unsigned long long id, cookie, exports;
	unsigned int handles, buffers, oneway_out;
	bool ctx_mgr;
	const char *name;		/* service name, or NULL */
};

struct handle {
	size_t ctx;
	unsigned int id, refs, buf_refs;
	unsigned long long node;
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
	unsigned long long time_ns, node;
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
	unsigned int unparsed;		/* lines of a format we do not know */
};

/* Appends a zeroed element; exits on out of memory (a tool, not a library). */
static void *vec_push(void **arr, size_t *n, size_t *cap, size_t size)
{
	char *p;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;

		p = realloc(*arr, nc * size);
		if (!p) {
			fprintf(stderr, "%s: out of memory\n", prog);
			exit(EXIT_ERROR);
		}
		*arr = p;
		*cap = nc;
	}
	p = (char *)*arr + (*n)++ * size;
	memset(p, 0, size);
	return p;
}

#define PUSH(s, name) \
	vec_push((void **)&(s)->name, &(s)->n_##name, &(s)->cap_##name, \
		 sizeof(*(s)->name))

static void snapshot_free(struct snapshot *s)
{
	free(s->devs);
	free(s->ctxs);
	free(s->threads);
	free(s->stack);
	free(s->nodes);
	free(s->handles);
	free(s->bufs);
	free(s->counters);
	free(s->failed);
	memset(s, 0, sizeof(*s));
}

/* ---- reading debugfs ----------------------------------------------------------- */

/* The whole file (debugfs files report size 0, so read to EOF), or NULL. */
static char *read_file(const char *dir, const char *name)
{
	char path[4096];
	size_t len = 0, cap = 8192;
	char *buf, *nb;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (n == 0)
			break;
		if (len + 1 == cap) {
			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
		errno = EIO;
	} else if (!buf) {
		errno = ENOMEM;
	} else {
		buf[len] = '\0';
	}
	fclose(f);
	return buf;
}

static bool starts(const char *line, const char *prefix)
{
	return !strncmp(line, prefix, strlen(prefix));
}

/* The context a "buffers" section line names: same order, else by pid. */
static size_t buffer_ctx(struct snapshot *s, size_t dev, size_t *next, int pid)
{
	struct context *c;
	size_t i;

	for (i = *next; i < s->n_ctxs; i++) {
		if (s->ctxs[i].dev == dev && s->ctxs[i].pid == pid &&
		    !s->ctxs[i].have_mapping) {
			*next = i + 1;
			return i;
		}
	}
	for (i = 0; i < s->n_ctxs; i++)
		if (s->ctxs[i].dev == dev && s->ctxs[i].pid == pid &&
		    !s->ctxs[i].have_mapping)
			return i;
	/* opened between the two parts of the file */
	c = PUSH(s, ctxs);
	c->dev = dev;
	c->pid = pid;
	return s->n_ctxs - 1;
}

static void parse_state(struct snapshot *s, char *text)
{
	size_t dev = 0, ctx = 0, thread = 0, next_buf_ctx = 0;
	bool have_dev = false, have_ctx = false, have_thread = false;
	bool in_buffers = false;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char word[64];
		unsigned long long a, b, c;
		unsigned int u1, u2, u3, u4;
		int pid, n = 0;

		if (sscanf(line, "device %63s context-manager node %llu", word, &a) == 2) {
			struct device *d = PUSH(s, devs);

			snprintf(d->name, sizeof(d->name), "%s", word);
			d->mgr_node = a;
			dev = s->n_devs - 1;
			have_dev = true;
			have_ctx = have_thread = in_buffers = false;
			next_buf_ctx = 0;
		} else if (!have_dev) {
			s->unparsed++;
		} else if (!strcmp(line, "buffers")) {
			in_buffers = true;
			have_ctx = false;
		} else if (in_buffers &&
			   sscanf(line, " context pid %d mapping %llu bytes, %llu pages resident",
				  &pid, &a, &b) == 3) {
			ctx = buffer_ctx(s, dev, &next_buf_ctx, pid);
			s->ctxs[ctx].map_bytes = a;
			s->ctxs[ctx].resident_pages = b;
			s->ctxs[ctx].have_mapping = true;
			have_ctx = true;
		} else if (in_buffers && have_ctx &&
			   sscanf(line, "  buffer at %llu data %llu offsets %llu%n",
				  &a, &b, &c, &n) == 3) {
			struct buffer *bf = PUSH(s, bufs);

			bf->ctx = ctx;
			bf->offset = a;
			bf->data = b;
			bf->offsets = c;
			bf->oneway = strstr(line + n, " oneway") != NULL;
			bf->delivered = strstr(line + n, " delivered") != NULL;
			s->ctxs[ctx].buffers++;
		} else if (in_buffers) {
			s->unparsed++;
		} else if (sscanf(line, " context pid %d queued %u max_threads %u requested %u started %u",
				  &pid, &u1, &u2, &u3, &u4) == 5) {
			struct context *cx = PUSH(s, ctxs);

			cx->dev = dev;
			cx->pid = pid;
			cx->queued = u1;
			cx->max_threads = u2;
			cx->requested = u3;
			cx->started = u4;
			ctx = s->n_ctxs - 1;
			have_ctx = true;
			have_thread = false;
		} else if (!have_ctx) {
			s->unparsed++;
		} else if (sscanf(line, "  thread %d looper %x%n", &pid, &u1, &n) == 2) {
			struct thread *t = PUSH(s, threads);

			t->ctx = ctx;
			t->tid = pid;
			t->looper = u1;
			t->has_work = strstr(line + n, "has-work") != NULL;
			thread = s->n_threads - 1;
			have_thread = true;
			s->ctxs[ctx].threads++;
		} else if (have_thread &&
			   (sscanf(line, "    handles txn %llu code %u from thread %d",
				   &a, &u1, &pid) == 3 ||
			    sscanf(line, "    awaits txn %llu code %u handled by thread %d",
				   &a, &u1, &pid) == 3)) {
			struct stack_entry *e = PUSH(s, stack);

			e->thread = thread;
			e->handles = starts(line, "    handles");
			e->txn = a;
			e->code = u1;
			e->other = pid;
			s->threads[thread].depth++;
		} else if (sscanf(line, "  node %llu cookie %llx handles %u buffers %u exports %llu oneway-out %u%n",
				  &a, &b, &u1, &u2, &c, &u3, &n) == 6) {
			struct node *nd = PUSH(s, nodes);

			nd->ctx = ctx;
			nd->id = a;
			nd->cookie = b;
			nd->handles = u1;
			nd->buffers = u2;
			nd->exports = c;
			nd->oneway_out = u3;
			nd->ctx_mgr = strstr(line + n, "context-manager") != NULL;
			s->ctxs[ctx].nodes++;
			have_thread = false;
		} else if (sscanf(line, "  handle %u -> node %llu%n", &u1, &a, &n) == 2) {
			struct handle *h = PUSH(s, handles);
			const char *rest = line + n;

			h->ctx = ctx;
			h->id = u1;
			h->node = a;
			h->dead = starts(rest, " (dead)");
			if (h->dead)
				rest += strlen(" (dead)");
			if (sscanf(rest, " refs %u buffer-refs %u", &u2, &u3) == 2) {
				h->refs = u2;
				h->buf_refs = u3;
			}
			s->ctxs[ctx].handles++;
			have_thread = false;
		} else {
			s->unparsed++;
		}
	}
}

static void parse_stats(struct snapshot *s, char *text)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct counter c;

		if (sscanf(line, "%47s %lld", c.name, &c.value) == 2)
			*(struct counter *)PUSH(s, counters) = c;
		else
			s->unparsed++;
	}
}

static void parse_failed(struct snapshot *s, char *text)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct failure f;

		if (starts(line, "time_ns "))
			continue;
		if (sscanf(line, "%llu %15s %d %d %d %llu %u", &f.time_ns,
			   f.what, &f.error, &f.from_pid, &f.to_pid, &f.node,
			   &f.code) == 7)
			*(struct failure *)PUSH(s, failed) = f;
		else
			s->unparsed++;
	}
}

/* Why DIR/stats cannot be read, as a sentence for stderr. */
static void explain_missing(const char *dir, bool default_dir, int e)
{
	char line[512];
	bool mounted = false;
	FILE *f;

	if (e == EACCES || e == EPERM) {
		fprintf(stderr, "%s: %s: permission denied (debugfs needs root)\n",
			prog, dir);
		return;
	}
	if (!default_dir || e != ENOENT) {
		fprintf(stderr, "%s: cannot read %s: %s\n", prog, dir, strerror(e));
		return;
	}
	f = fopen("/proc/mounts", "re");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " /sys/kernel/debug debugfs "))
			mounted = true;
	if (f)
		fclose(f);
	if (access("/sys/module/fastbinder", F_OK))
		fprintf(stderr, "%s: the fastbinder module is not loaded "
			"(modprobe fastbinder)\n", prog);
	else if (!mounted)
		fprintf(stderr, "%s: debugfs is not mounted at /sys/kernel/debug "
			"(mount -t debugfs none /sys/kernel/debug)\n", prog);
	else
		fprintf(stderr, "%s: %s: %s\n", prog, dir, strerror(e));
}

/* Reads the counters and the failures.  0, or EXIT_ERROR after saying why. */
static int read_counters(struct snapshot *s, const char *dir, bool default_dir)
{
	char *t;

	t = read_file(dir, "stats");
	if (!t) {
		explain_missing(dir, default_dir, errno);
		return EXIT_ERROR;
	}
	parse_stats(s, t);
	free(t);
	t = read_file(dir, "failed");
	if (t) {
		parse_failed(s, t);
		free(t);
	}
	return 0;
}

/* ---- service names ------------------------------------------------------------- */

struct named {
	char *name;
	uint32_t handle;
};

struct names {
	struct bl_context *ctx;
	struct named *v;
	size_t n;
};

/* One request to handle 0 with a timeout; the reply's status folded in. */
static int sm_request(struct bl_context *ctx, uint32_t code, const char *name,
		      struct bl_reply *reply)
{
	struct bl_parcel req = BL_PARCEL_INIT;
	int ret = name ? bl_parcel_write_string(&req, name) : 0;

	if (!ret)
		ret = bl_call(ctx, FBINDER_CONTEXT_MGR_HANDLE, code, &req, reply,
			      SM_TIMEOUT_MS);
	bl_parcel_fini(&req);
	if (!ret && reply->status) {
		ret = reply->status < 0 ? reply->status : -EPROTO;
		bl_reply_fini(reply);
	}
	return ret;
}

/*
 * Opens a context and acquires a handle to every registered service, so
 * that the state shows which node each name is.  Best effort: without a
 * device or a manager there are simply no names.
 */
static void names_get(struct names *nm)
{
	struct bl_reply reply;
	uint32_t count, i;

	memset(nm, 0, sizeof(*nm));
	if (bl_context_open(NULL, 0, &nm->ctx))
		return;
	if (sm_request(nm->ctx, BL_SM_LIST, NULL, &reply))
		return;
	if (bl_reader_read_u32(&reply.reader, &count) ||
	    count > bl_reader_remaining(&reply.reader) / 8 ||
	    !(nm->v = calloc(count ? count : 1, sizeof(*nm->v)))) {
		bl_reply_fini(&reply);
		return;
	}
	for (i = 0; i < count; i++) {
		const char *s;

		if (bl_reader_read_string(&reply.reader, &s, NULL))
			break;
		nm->v[nm->n].name = strdup(s);
		if (!nm->v[nm->n].name)
			break;
		nm->v[nm->n].handle = UINT32_MAX;
		nm->n++;
	}
	bl_reply_fini(&reply);
	for (i = 0; i < nm->n; i++) {
		struct fbinder_object obj;

		if (sm_request(nm->ctx, BL_SM_CHECK, nm->v[i].name, &reply))
			continue;
		if (!bl_reader_read_object(&reply.reader, &obj) &&
		    obj.type == FBINDER_OBJ_HANDLE &&
		    !bl_handle_acquire(nm->ctx, obj.handle))
			nm->v[i].handle = obj.handle;
		bl_reply_fini(&reply);
	}
}

static void names_put(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i].name);
	free(nm->v);
	bl_context_close(nm->ctx);	/* drops the handles */
	memset(nm, 0, sizeof(*nm));
}

/*
 * Our own context's handles name the nodes; then the context is hidden
 * and its handles no longer counted on the nodes.
 */
static void names_apply(struct snapshot *s, struct names *nm)
{
	int me = getpid();

	if (!nm->ctx)
		return;
	for (size_t c = 0; c < s->n_ctxs; c++)
		s->ctxs[c].ours = s->ctxs[c].pid == me;
	for (size_t h = 0; h < s->n_handles; h++) {
		struct handle *hd = &s->handles[h];

		if (!s->ctxs[hd->ctx].ours)
			continue;
		for (size_t k = 0; k < s->n_nodes; k++) {
			if (s->nodes[k].id != hd->node ||
			    s->ctxs[s->nodes[k].ctx].dev != s->ctxs[hd->ctx].dev)
				continue;
			if (s->nodes[k].handles)
				s->nodes[k].handles--;
			for (size_t i = 0; i < nm->n; i++)
				if (nm->v[i].handle == hd->id && !s->nodes[k].name)
					s->nodes[k].name = nm->v[i].name;
		}
	}
}

/* ---- printing -------------------------------------------------------------------- */

/* /proc/PID[/task/TID]/comm, or "?" (a process gone, another namespace). */
static void comm_of(int pid, int tid, char *out, size_t size)
{
	char path[64];
	FILE *f;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	snprintf(out, size, "?");
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(out, (int)size, f))
		out[strcspn(out, "\n")] = '\0';
	else
		snprintf(out, size, "?");
	fclose(f);
}

/*
 * "looper": entered the loop itself (FBINDER_CMD_ENTER_LOOPER, e.g. a pool
 * thread of bl_pool_start() or a thread in bl_loop()); "spawned": started
 * because the driver asked (FBINDER_CMD_REGISTER_LOOPER); "-": only makes
 * calls.  ",exited" when it left the loop.
 */
static const char *looper_str(unsigned int l, char *buf, size_t size)
{
	const char *kind = l & LOOPER_REGISTERED ? "spawned" :
			   l & LOOPER_ENTERED ? "looper" : "-";

	snprintf(buf, size, "%s%s", kind, l & LOOPER_EXITED ? ",exited" : "");
	return buf;
}

/* The thread with this tid (in any context of the device), or NULL. */
static const struct thread *find_thread(const struct snapshot *s, size_t dev,
					int tid)
{
	for (size_t i = 0; i < s->n_threads; i++)
		if (s->threads[i].tid == tid &&
		    s->ctxs[s->threads[i].ctx].dev == dev)
			return &s->threads[i];
	return NULL;
}

static const struct node *find_node(const struct snapshot *s, size_t dev,
				    unsigned long long id)
{
	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].id == id && s->ctxs[s->nodes[i].ctx].dev == dev)
			return &s->nodes[i];
	return NULL;
}

/* "pid 12 tid 14 (name)" for a thread, "thread 14 (gone)" if unknown. */
static void thread_desc(const struct snapshot *s, size_t dev, int tid,
			char *out, size_t size)
{
	const struct thread *t = tid ? find_thread(s, dev, tid) : NULL;
	char comm[COMM_LEN];

	if (!tid) {
		snprintf(out, size, "(no thread yet)");
		return;
	}
	if (!t) {
		snprintf(out, size, "tid %d (gone)", tid);
		return;
	}
	comm_of(s->ctxs[t->ctx].pid, tid, comm, sizeof(comm));
	snprintf(out, size, "%d/%d %s", s->ctxs[t->ctx].pid, tid, comm);
}

static bool shown(const struct context *c)
{
	return !c->ours;
}

static void header(const char *title)
{
	printf("\n%s\n", title);
}

static void print_summary(const struct snapshot *s)
{
	size_t procs = 0, threads = 0, nodes = 0, handles = 0, bufs = 0, txns = 0;

	for (size_t i = 0; i < s->n_ctxs; i++)
		procs += shown(&s->ctxs[i]);
	for (size_t i = 0; i < s->n_threads; i++)
		threads += shown(&s->ctxs[s->threads[i].ctx]);
	for (size_t i = 0; i < s->n_nodes; i++)
		nodes += shown(&s->ctxs[s->nodes[i].ctx]);
	for (size_t i = 0; i < s->n_handles; i++)
		handles += shown(&s->ctxs[s->handles[i].ctx]);
	for (size_t i = 0; i < s->n_bufs; i++)
		bufs += shown(&s->ctxs[s->bufs[i].ctx]);
	for (size_t i = 0; i < s->n_stack; i++)
		txns += s->stack[i].handles ||
			!s->stack[i].other;	/* each call once */
	printf("fastbinder: %zu device%s, %zu context%s, %zu thread%s, %zu node%s, "
	       "%zu handle%s, %zu buffer%s, %zu call%s in flight\n",
	       s->n_devs, s->n_devs == 1 ? "" : "s", procs, procs == 1 ? "" : "s",
	       threads, threads == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s",
	       handles, handles == 1 ? "" : "s", bufs, bufs == 1 ? "" : "s",
	       txns, txns == 1 ? "" : "s");
	for (size_t d = 0; d < s->n_devs; d++) {
		const struct node *n = find_node(s, d, s->devs[d].mgr_node);
		char comm[COMM_LEN];

		if (!s->devs[d].mgr_node || !n) {
			printf("device %s: no context manager (no service manager runs)\n",
			       s->devs[d].name);
			continue;
		}
		comm_of(s->ctxs[n->ctx].pid, 0, comm, sizeof(comm));
		printf("device %s: context manager node %llu, pid %d (%s)\n",
		       s->devs[d].name, n->id, s->ctxs[n->ctx].pid, comm);
	}
	if (s->unparsed)
		printf("(%u debugfs lines not understood: is fbstat older than "
		       "the driver?)\n", s->unparsed);
}

static void print_processes(const struct snapshot *s)
{
	header("CONTEXTS (one per process that opened the device)");
	printf("  %-12s %7s %-16s %7s %9s %9s %7s %6s %5s %7s %7s %9s %9s\n",
	       "DEVICE", "PID", "COMMAND", "THREADS", "SPAWN_MAX", "SPAWN_REQ",
	       "SPAWNED", "QUEUED", "NODES", "HANDLES", "BUFFERS", "MAP_KIB",
	       "RES_KIB");
	for (size_t i = 0; i < s->n_ctxs; i++) {
		const struct context *c = &s->ctxs[i];
		char comm[COMM_LEN];
		long page = sysconf(_SC_PAGESIZE);

		if (!shown(c))
			continue;
		comm_of(c->pid, 0, comm, sizeof(comm));
		printf("  %-12s %7d %-16s %7u %9u %9u %7u %6u %5u %7u %7u %9llu %9llu\n",
		       s->devs[c->dev].name, c->pid, comm, c->threads,
		       c->max_threads, c->requested, c->started, c->queued,
		       c->nodes, c->handles, c->buffers, c->map_bytes / 1024,
		       c->resident_pages * (unsigned long long)page / 1024);
	}
}

static void print_threads(const struct snapshot *s)
{
	header("THREADS (that talked to the driver)");
	printf("  %7s %7s %-16s %-14s %-8s %s\n", "PID", "TID", "COMMAND",
	       "LOOPER", "WORK", "CALL STACK (newest first)");
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct thread *t = &s->threads[i];
		const struct context *c = &s->ctxs[t->ctx];
		char comm[COMM_LEN], lp[32];
		bool first = true;

		if (!shown(c))
			continue;
		comm_of(c->pid, t->tid, comm, sizeof(comm));
		printf("  %7d %7d %-16s %-14s %-8s", c->pid, t->tid, comm,
		       looper_str(t->looper, lp, sizeof(lp)),
		       t->has_work ? "queued" : "-");
		for (size_t k = 0; k < s->n_stack; k++) {
			const struct stack_entry *e = &s->stack[k];

			if (e->thread != i)
				continue;
			printf("%s%s txn %llu code %u", first ? " " : ", ",
			       e->handles ? "handles" : "awaits", e->txn, e->code);
			first = false;
		}
		printf("%s\n", first ? " idle" : "");
	}
}

static void print_nodes(const struct snapshot *s)
{
	header("NODES (objects that others can call)");
	printf("  %6s %7s %-16s %-24s %18s %7s %7s %7s %6s %s\n", "NODE", "PID",
	       "OWNER", "SERVICE", "COOKIE", "HANDLES", "BUFREFS", "EXPORTS",
	       "ONEWAY", "FLAGS");
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct node *n = &s->nodes[i];
		const struct context *c = &s->ctxs[n->ctx];
		char comm[COMM_LEN];

		if (!shown(c))
			continue;
		comm_of(c->pid, 0, comm, sizeof(comm));
		printf("  %6llu %7d %-16s %-24s %#18llx %7u %7u %7llu %6u %s\n",
		       n->id, c->pid, comm,
		       n->ctx_mgr ? "(service manager)" : n->name ? n->name : "-",
		       n->cookie, n->handles, n->buffers, n->exports,
		       n->oneway_out, n->ctx_mgr ? "context-manager" : "-");
	}
}

static void print_handles(const struct snapshot *s)
{
	header("HANDLES (references to other processes' nodes)");
	printf("  %7s %-16s %6s %6s %7s %-16s %-24s %5s %7s %s\n", "PID",
	       "HOLDER", "HANDLE", "NODE", "OWNER", "OWNER_CMD", "SERVICE",
	       "REFS", "BUFREFS", "STATE");
	for (size_t i = 0; i < s->n_handles; i++) {
		const struct handle *h = &s->handles[i];
		const struct context *c = &s->ctxs[h->ctx];
		const struct node *n = find_node(s, c->dev, h->node);
		char comm[COMM_LEN], ocomm[COMM_LEN] = "-";
		int opid = 0;

		if (!shown(c))
			continue;
		comm_of(c->pid, 0, comm, sizeof(comm));
		if (n) {
			opid = s->ctxs[n->ctx].pid;
			comm_of(opid, 0, ocomm, sizeof(ocomm));
		}
		printf("  %7d %-16s %6u %6llu %7d %-16s %-24s %5u %7u %s\n",
		       c->pid, comm, h->id, h->node, opid, ocomm,
		       n && n->name ? n->name : "-", h->refs, h->buf_refs,
		       h->dead ? "dead" : "alive");
	}
}

static void print_buffers(const struct snapshot *s)
{
	header("BUFFERS (messages in receive mappings, not yet freed)");
	printf("  %7s %-16s %10s %10s %8s %s\n", "PID", "COMMAND", "AT",
	       "DATA", "OFFSETS", "FLAGS");
	for (size_t i = 0; i < s->n_bufs; i++) {
		const struct buffer *b = &s->bufs[i];
		const struct context *c = &s->ctxs[b->ctx];
		char comm[COMM_LEN];

		if (!shown(c))
			continue;
		comm_of(c->pid, 0, comm, sizeof(comm));
		printf("  %7d %-16s %10llu %10llu %8llu %s,%s\n", c->pid, comm,
		       b->offset, b->data, b->offsets,
		       b->oneway ? "oneway" : "call",
		       b->delivered ? "delivered" : "queued");
	}
}

/*
 * Each call appears on its caller's stack ("awaits txn N handled by T")
 * and, once a thread took it, on the handler's ("handles txn N from F").
 * One line per call: caller -> handler, and what it is doing.
 */
static void print_transactions(const struct snapshot *s)
{
	header("CALLS IN FLIGHT (who waits on whom)");
	printf("  %8s %6s  %-30s    %-30s %s\n", "TXN", "CODE", "CALLER (pid/tid)",
	       "HANDLER (pid/tid)", "STATE");
	for (size_t i = 0; i < s->n_stack; i++) {
		const struct stack_entry *e = &s->stack[i];
		size_t dev = s->ctxs[s->threads[e->thread].ctx].dev;
		int caller, handler;
		char a[96], b[96];
		const char *state;

		if (e->handles) {
			handler = s->threads[e->thread].tid;
			caller = e->other;
			state = caller ? "handling" : "handling, caller gone";
		} else {
			if (e->other)
				continue;	/* printed from the handler's side */
			caller = s->threads[e->thread].tid;
			handler = 0;
			state = "queued, waiting for a thread";
		}
		if (caller)
			thread_desc(s, dev, caller, a, sizeof(a));
		else
			snprintf(a, sizeof(a), "-");
		thread_desc(s, dev, handler, b, sizeof(b));
		printf("  %8llu %6u  %-30s -> %-30s %s\n", e->txn, e->code, a, b,
		       state);
	}
}

static void print_counters(const struct snapshot *s, const struct snapshot *prev,
			   double interval)
{
	header("COUNTERS (live_*: now; others: since the module loaded)");
	if (prev && interval > 0)
		printf("  %-20s %14s %12s %10s\n", "COUNTER", "VALUE", "CHANGE", "PER_SEC");
	else
		printf("  %-20s %14s\n", "COUNTER", "VALUE");
	for (size_t i = 0; i < s->n_counters; i++) {
		const struct counter *c = &s->counters[i];
		const struct counter *p = NULL;

		for (size_t k = 0; prev && k < prev->n_counters; k++)
			if (!strcmp(prev->counters[k].name, c->name))
				p = &prev->counters[k];
		if (prev && interval > 0) {
			long long d = p ? c->value - p->value : 0;

			printf("  %-20s %14lld %+12lld %10.1f\n", c->name, c->value,
			       d, starts(c->name, "live_") ? 0.0 : d / interval);
		} else {
			printf("  %-20s %14lld\n", c->name, c->value);
		}
	}
}

static void print_failed(const struct snapshot *s)
{
	struct timespec now;
	size_t first = s->n_failed > MAX_FAILED ? s->n_failed - MAX_FAILED : 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	header("LAST FAILED SENDS (newest last)");
	if (!s->n_failed) {
		printf("  (none since the module loaded)\n");
		return;
	}
	printf("  %10s %-6s %-14s %8s %8s %6s %6s\n", "AGO", "WHAT", "ERROR",
	       "FROM_PID", "TO_PID", "NODE", "CODE");
	for (size_t i = first; i < s->n_failed; i++) {
		const struct failure *f = &s->failed[i];
		unsigned long long t = (unsigned long long)now.tv_sec * 1000000000ull +
				       (unsigned long long)now.tv_nsec;
		double ago = t > f->time_ns ? (t - f->time_ns) / 1e9 : 0;
		const char *en = f->error < 0 ? strerrorname_np(-f->error) : NULL;
		char err[24];

		if (en)
			snprintf(err, sizeof(err), "-%s", en);
		else
			snprintf(err, sizeof(err), "%d", f->error);
		printf("  %9.1fs %-6s %-14s %8d %8d %6llu %6u\n", ago, f->what, err,
		       f->from_pid, f->to_pid, f->node, f->code);
	}
	if (first)
		printf("  (%zu older ones not shown)\n", first);
}

/* ---- main ------------------------------------------------------------------------ */

enum section {
	SEC_SUMMARY = 1 << 0,
	SEC_PROCESSES = 1 << 1,
	SEC_THREADS = 1 << 2,
	SEC_NODES = 1 << 3,
	SEC_HANDLES = 1 << 4,
	SEC_BUFFERS = 1 << 5,
	SEC_TRANSACTIONS = 1 << 6,
	SEC_COUNTERS = 1 << 7,
	SEC_FAILED = 1 << 8,
	SEC_ALL = (1 << 9) - 1,
	SEC_STATE = SEC_ALL & ~(SEC_COUNTERS | SEC_FAILED),
};

static const struct {
	const char *name;
	unsigned int bit;
} sections[] = {
	{ "summary", SEC_SUMMARY }, { "processes", SEC_PROCESSES },
	{ "contexts", SEC_PROCESSES }, { "threads", SEC_THREADS },
	{ "nodes", SEC_NODES }, { "handles", SEC_HANDLES },
	{ "buffers", SEC_BUFFERS }, { "transactions", SEC_TRANSACTIONS },
	{ "calls", SEC_TRANSACTIONS }, { "counters", SEC_COUNTERS },
	{ "stats", SEC_COUNTERS }, { "failed", SEC_FAILED },
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: fbstat [-N] [-D DIR] [-w [SECONDS]] [-c COUNT] [SECTION]...\n"
"\n"
"Shows the fastbinder driver's state and counters from debugfs\n"
"(" DEFAULT_DIR "/{state,stats,failed}) as tables.\n"
"CONTEXTS: SPAWN_MAX/SPAWN_REQ/SPAWNED are the threads the driver may ask\n"
"for, has asked for, and got; QUEUED work not picked up yet.  THREADS:\n"
"LOOPER is 'looper' (entered the loop), 'spawned' (started at the\n"
"driver's request) or '-' (only makes calls).\n"
"SECTIONs (default all): summary processes threads nodes handles buffers\n"
"transactions counters failed.\n"
"\n"
"  -w, --watch [SECONDS]  refresh every SECONDS (default 1), with the\n"
"                         counters' change since the previous refresh\n"
"  -c, --count N          with --watch: stop after N refreshes\n"
"  -N, --no-names         do not ask the service manager for the service\n"
"                         names of the nodes: read debugfs only.  (With\n"
"                         names, fbstat opens a context of its own, left\n"
"                         out of the tables; in --watch mode the counters\n"
"                         then include its calls to the manager.)\n"
"  -D, --debugfs DIR      read DIR instead of " DEFAULT_DIR "\n"
"  -h, --help             this text\n"
"\n"
"Needs root (debugfs).  Exit status: 0 shown; 1 the state cannot be read\n"
"(module not loaded, debugfs not mounted, not root); 2 usage error.\n");
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s '%s'\nTry '%s --help'.\n", prog, what, arg, prog);
	return EXIT_USAGE;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 86400)
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	const char *dir = DEFAULT_DIR;
	bool default_dir = true, watch = false, names = true;
	unsigned int want = 0;
	double interval = 1.0;
	long count = 0;
	struct snapshot prev = { 0 };
	bool have_prev = false;
	int rc = EXIT_OK;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "-w") || !strcmp(a, "--watch")) {
			watch = true;
			/* an optional operand: a number right after it */
			if (i + 1 < argc && parse_seconds(argv[i + 1], &interval))
				i++;
		} else if (starts(a, "--watch=")) {
			watch = true;
			if (!parse_seconds(a + 8, &interval))
				return usage_error("--watch: not a number of seconds:", a + 8);
		} else if (!strcmp(a, "-c") || !strcmp(a, "--count")) {
			char *end;

			if (i + 1 >= argc)
				return usage_error("missing argument of", a);
			errno = 0;
			count = strtol(argv[++i], &end, 10);
			if (errno || *end || end == argv[i] || count < 1)
				return usage_error("--count: not a positive number:", argv[i]);
		} else if (!strcmp(a, "-N") || !strcmp(a, "--no-names")) {
			names = false;
		} else if (!strcmp(a, "-D") || !strcmp(a, "--debugfs")) {
			if (i + 1 >= argc)
				return usage_error("missing argument of", a);
			dir = argv[++i];
			default_dir = false;
		} else if (a[0] == '-') {
			return usage_error("unknown option", a);
		} else {
			size_t k;

			for (k = 0; k < sizeof(sections) / sizeof(sections[0]); k++)
				if (!strcmp(a, sections[k].name))
					break;
			if (k == sizeof(sections) / sizeof(sections[0]))
				return usage_error("unknown section", a);
			want |= sections[k].bit;
		}
	}
	if (!want)
		want = SEC_ALL;
	if (count && !watch)
		return usage_error("--count needs", "--watch");
	/* names only matter for the tables that show them */
	if (!(want & (SEC_NODES | SEC_HANDLES)))
		names = false;

	if (watch) {
		struct sigaction sa = { .sa_handler = on_signal };

		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	for (long n = 0; !stop; n++) {
		struct snapshot s = { 0 };
		struct names nm = { 0 };
		struct timespec ts;

		/* counters first, before our own context exists */
		rc = read_counters(&s, dir, default_dir);
		if (!rc && (want & SEC_STATE)) {
			char *t;

			if (names)
				names_get(&nm);
			t = read_file(dir, "state");
			if (t) {
				parse_state(&s, t);
				free(t);
			} else {
				fprintf(stderr, "%s: cannot read %s/state: %s\n",
					prog, dir, strerror(errno));
				rc = EXIT_ERROR;
			}
			names_apply(&s, &nm);
		}
		if (rc) {
			names_put(&nm);
			snapshot_free(&s);
			break;
		}
		if (watch) {
			clock_gettime(CLOCK_REALTIME, &ts);
			if (isatty(STDOUT_FILENO))
				fputs("\033[H\033[2J", stdout);
			printf("==== fbstat %s", ctime(&ts.tv_sec));
		}
		if (want & SEC_SUMMARY)
			print_summary(&s);
		if (want & SEC_PROCESSES)
			print_processes(&s);
		if (want & SEC_THREADS)
			print_threads(&s);
		if (want & SEC_NODES)
			print_nodes(&s);
		if (want & SEC_HANDLES)
			print_handles(&s);
		if (want & SEC_BUFFERS)
			print_buffers(&s);
		if (want & SEC_TRANSACTIONS)
			print_transactions(&s);
		if (want & SEC_COUNTERS)
			print_counters(&s, have_prev ? &prev : NULL, interval);
		if (want & SEC_FAILED)
			print_failed(&s);
		names_put(&nm);
		fflush(stdout);
		snapshot_free(&prev);
		prev = s;
		have_prev = true;
		if (!watch || (count && n + 1 >= count))
			break;
		ts.tv_sec = (time_t)interval;
		ts.tv_nsec = (long)((interval - (double)ts.tv_sec) * 1e9);
		while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	snapshot_free(&prev);
	if (ferror(stdout)) {
		fprintf(stderr, "%s: writing the output failed\n", prog);
		return EXIT_ERROR;
	}
	return rc;
}
