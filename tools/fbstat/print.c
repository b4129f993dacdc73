// SPDX-License-Identifier: MIT
/* fbstat: the tables of a snapshot (fbstat.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fbstat.h"

/* /proc/PID[/task/TID]/comm, or "?" (a process gone, another namespace). */
void comm_of(int pid, int tid, char *out, size_t size)
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

bool shown(const struct context *c)
{
	return !c->ours;
}

static void header(const char *title)
{
	printf("\n%s\n", title);
}

void print_summary(const struct snapshot *s)
{
	size_t procs = 0, threads = 0, nodes = 0, handles = 0, bufs = 0, txns = 0;
	char calls[32];

	for (size_t i = 0; i < s->n_ctxs; i++) {
		if (!shown(&s->ctxs[i]))
			continue;
		procs++;
		threads += s->ctxs[i].threads;
		bufs += s->ctxs[i].buffers;
	}
	for (size_t i = 0; i < s->n_nodes; i++)
		nodes += shown(&s->ctxs[s->nodes[i].ctx]);
	for (size_t i = 0; i < s->n_handles; i++)
		handles += shown(&s->ctxs[s->handles[i].ctx]);
	for (size_t i = 0; i < s->n_stack; i++)
		txns += s->stack[i].handles ||
			!s->stack[i].other;	/* each call once */
	if (s->have_state)
		snprintf(calls, sizeof(calls), "%zu", txns);
	else
		snprintf(calls, sizeof(calls), "?");
	printf("fastbinder: %zu device%s, %zu context%s, %zu thread%s, %zu node%s, "
	       "%zu handle%s, %zu buffer%s, %s call%s in flight\n",
	       s->n_devs, s->n_devs == 1 ? "" : "s", procs, procs == 1 ? "" : "s",
	       threads, threads == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s",
	       handles, handles == 1 ? "" : "s", bufs, bufs == 1 ? "" : "s",
	       calls, txns == 1 ? "" : "s");
	for (size_t d = 0; d < s->n_devs; d++) {
		const struct node *n = find_node(s, d, s->devs[d].mgr_node);
		char comm[COMM_LEN];

		if (!s->devs[d].mgr_node || !n) {
			printf("device %s: no context manager that you may see "
			       "(none runs, or it is another user's)\n",
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
	if (!s->have_state)
		printf("(threads, buffers and calls in flight come from debugfs: "
		       "run as root with debugfs mounted to see them)\n");
}

void print_processes(const struct snapshot *s)
{
	header("CONTEXTS (one per process that opened the device)");
	printf("  %-12s %7s %-16s %7s %9s %9s %7s %6s %5s %7s %7s %9s %9s %9s %9s %7s %s\n",
	       "DEVICE", "PID", "COMMAND", "THREADS", "SPAWN_MAX", "SPAWN_REQ",
	       "SPAWNED", "QUEUED", "NODES", "HANDLES", "BUFFERS", "MAP_KIB",
	       "RES_KIB", "RECEIVED", "SENT", "FAILED", "STATE");
	for (size_t i = 0; i < s->n_ctxs; i++) {
		const struct context *c = &s->ctxs[i];
		char comm[COMM_LEN];
		long page = sysconf(_SC_PAGESIZE);

		if (!shown(c))
			continue;
		comm_of(c->pid, 0, comm, sizeof(comm));
		printf("  %-12s %7d %-16s %7u %9u %9u %7u %6u %5u %7u %7u %9llu %9llu %9llu %9llu %7llu %s\n",
		       s->devs[c->dev].name, c->pid, comm, c->threads,
		       c->max_threads, c->requested, c->started, c->queued,
		       c->nodes, c->handles, c->buffers, c->map_bytes / 1024,
		       c->resident_pages * (unsigned long long)page / 1024,
		       c->received, c->sent, c->failed, c->frozen ? "frozen" : "-");
	}
}

void print_threads(const struct snapshot *s)
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

void print_nodes(const struct snapshot *s)
{
	header("NODES (objects that others can call)");
	printf("  %6s %7s %-16s %-24s %18s %7s %7s %7s %6s %9s %s\n", "NODE", "PID",
	       "OWNER", "SERVICE", "COOKIE", "HANDLES", "BUFREFS", "EXPORTS",
	       "ONEWAY", "CALLS", "FLAGS");
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct node *n = &s->nodes[i];
		const struct context *c = &s->ctxs[n->ctx];
		char comm[COMM_LEN];

		if (!shown(c))
			continue;
		comm_of(c->pid, 0, comm, sizeof(comm));
		printf("  %6llu %7d %-16s %-24s %#18llx %7u %7u %7llu %6u %9llu %s\n",
		       n->id, c->pid, comm,
		       n->ctx_mgr ? "(service manager)" : n->name ? n->name : "-",
		       n->cookie, n->handles, n->buffers, n->exports,
		       n->oneway_out, n->calls,
		       n->ctx_mgr ? "context-manager" : "-");
	}
}

void print_handles(const struct snapshot *s)
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
		int opid = n ? s->ctxs[n->ctx].pid : h->owner_pid;

		if (!shown(c))
			continue;
		comm_of(c->pid, 0, comm, sizeof(comm));
		if (opid)
			comm_of(opid, 0, ocomm, sizeof(ocomm));
		printf("  %7d %-16s %6u %6llu %7d %-16s %-24s %5u %7u %s\n",
		       c->pid, comm, h->id, h->node, opid, ocomm,
		       n && n->name ? n->name : "-", h->refs, h->buf_refs,
		       h->dead ? "dead" : "alive");
	}
}

void print_buffers(const struct snapshot *s)
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
void print_transactions(const struct snapshot *s)
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

void print_counters(const struct snapshot *s, const struct snapshot *prev,
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

/* "-ENOENT" for -2, the number if it has no name. */
const char *errno_str(int error, char *buf, size_t size)
{
	const char *en = error < 0 ? strerrorname_np(-error) : NULL;

	if (en)
		snprintf(buf, size, "-%s", en);
	else
		snprintf(buf, size, "%d", error);
	return buf;
}

static unsigned long long now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (unsigned long long)now.tv_sec * 1000000000ull +
	       (unsigned long long)now.tv_nsec;
}

static void failure_row(const struct failure *f, unsigned long long t)
{
	double ago = t > f->time_ns ? (double)(t - f->time_ns) / 1e9 : 0;
	char err[24];

	printf("  %9.1fs %-7s %-14s %8d %8d %6llu %6u\n", ago, f->what,
	       errno_str(f->error, err, sizeof(err)), f->from_pid, f->to_pid,
	       f->node, f->code);
}

void print_failed(const struct snapshot *s)
{
	size_t first = s->n_failed > MAX_FAILED ? s->n_failed - MAX_FAILED : 0;
	unsigned long long t = now_ns();

	header("LAST FAILED SENDS (newest last)");
	if (!s->n_failed) {
		printf("  (none since the module loaded)\n");
		return;
	}
	printf("  %10s %-7s %-14s %8s %8s %6s %6s\n", "AGO", "WHAT", "ERROR",
	       "FROM_PID", "TO_PID", "NODE", "CODE");
	for (size_t i = first; i < s->n_failed; i++)
		failure_row(&s->failed[i], t);
	if (first)
		printf("  (%zu older ones not shown)\n", first);
}

/* One failure as --follow prints it, as it happens. */
void print_failure_line(const struct failure *f)
{
	char err[24];

	printf("%llu %s %s from_pid %d to_pid %d node %llu code %u\n", f->seq,
	       f->what, errno_str(f->error, err, sizeof(err)), f->from_pid,
	       f->to_pid, f->node, f->code);
}
