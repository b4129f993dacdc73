// SPDX-License-Identifier: MIT
/*
 * fbstat --top: a live view in the terminal, refreshed every interval:
 * the whole driver's rates, then the busiest processes (calls and oneway
 * messages received and sent per second, queue depth, buffer use) and the
 * busiest nodes (calls per second), from the stable interface alone.  The
 * rates are the change of the driver's counts over the time measured
 * between two reads.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "fbstat.h"

struct ranked {
	double rate;
	size_t idx;
};

static int by_rate(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->rate != y->rate)
		return x->rate < y->rate ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const struct context *prev_ctx(const struct snapshot *p,
				       unsigned long long id)
{
	for (size_t i = 0; p && i < p->n_ctxs; i++)
		if (p->ctxs[i].id == id)
			return &p->ctxs[i];
	return NULL;
}

static const struct node *prev_node(const struct snapshot *p,
				    unsigned long long ctx_id,
				    unsigned long long id)
{
	for (size_t i = 0; p && i < p->n_nodes; i++)
		if (p->nodes[i].id == id && p->ctxs[p->nodes[i].ctx].id == ctx_id)
			return &p->nodes[i];
	return NULL;
}

static double rate(unsigned long long now, unsigned long long before,
		   double secs)
{
	return secs > 0 && now >= before ? (double)(now - before) / secs : 0;
}

/* Rows the terminal has for each of the two tables. */
static size_t table_rows(void)
{
	struct winsize ws;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 16)
		return (size_t)(ws.ws_row - 10) / 2;
	return 15;
}

static void top_processes(const struct snapshot *s, const struct snapshot *p,
			  double secs, size_t rows)
{
	struct ranked *r = calloc(s->n_ctxs ? s->n_ctxs : 1, sizeof(*r));
	long page = sysconf(_SC_PAGESIZE);
	size_t n = 0;

	if (!r)
		return;
	for (size_t i = 0; i < s->n_ctxs; i++) {
		const struct context *c = &s->ctxs[i];
		const struct context *o = prev_ctx(p, c->id);

		if (!shown(c))
			continue;
		r[n].idx = i;
		r[n].rate = o ? rate(c->received, o->received, secs) +
				rate(c->sent, o->sent, secs) : 0;
		n++;
	}
	qsort(r, n, sizeof(*r), by_rate);
	printf("\n  %7s %-16s %9s %9s %8s %6s %7s %7s %9s %9s %9s\n", "PID",
	       "COMMAND", "RECV/s", "SENT/s", "FAILED/s", "QUEUED", "THREADS",
	       "BUFFERS", "QUEUED_KB", "RES_KIB", "MAP_KIB");
	for (size_t k = 0; k < n && k < rows; k++) {
		const struct context *c = &s->ctxs[r[k].idx];
		const struct context *o = prev_ctx(p, c->id);
		char comm[COMM_LEN];

		comm_of(c->pid, 0, comm, sizeof(comm));
		printf("  %7d %-16s %9.1f %9.1f %8.1f %6u %7u %7u %9llu %9llu %9llu\n",
		       c->pid, comm, o ? rate(c->received, o->received, secs) : 0,
		       o ? rate(c->sent, o->sent, secs) : 0,
		       o ? rate(c->failed, o->failed, secs) : 0, c->queued,
		       c->threads, c->buffers, c->bytes_queued / 1024,
		       c->resident_pages * (unsigned long long)page / 1024,
		       c->map_bytes / 1024);
	}
	free(r);
}

static void top_nodes(const struct snapshot *s, const struct snapshot *p,
		      double secs, size_t rows)
{
	struct ranked *r = calloc(s->n_nodes ? s->n_nodes : 1, sizeof(*r));
	size_t n = 0;

	if (!r)
		return;
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct node *nd = &s->nodes[i];
		const struct node *o = prev_node(p, s->ctxs[nd->ctx].id, nd->id);

		if (!shown(&s->ctxs[nd->ctx]))
			continue;
		r[n].idx = i;
		r[n].rate = o ? rate(nd->calls, o->calls, secs) : 0;
		n++;
	}
	qsort(r, n, sizeof(*r), by_rate);
	printf("\n  %6s %7s %-16s %-24s %9s %7s %6s\n", "NODE", "PID", "OWNER",
	       "SERVICE", "CALLS/s", "HANDLES", "ONEWAY");
	for (size_t k = 0; k < n && k < rows; k++) {
		const struct node *nd = &s->nodes[r[k].idx];
		const struct context *c = &s->ctxs[nd->ctx];
		char comm[COMM_LEN];

		comm_of(c->pid, 0, comm, sizeof(comm));
		printf("  %6llu %7d %-16s %-24s %9.1f %7u %6u\n", nd->id, c->pid,
		       comm, nd->ctx_mgr ? "(service manager)" :
		       nd->name ? nd->name : "-", r[k].rate, nd->handles,
		       nd->oneway_out);
	}
	free(r);
}

static void top_print(const struct snapshot *s, const struct snapshot *p,
		      double secs)
{
	static const char *const rates[] = { "calls", "oneways", "replies",
					     "failed" };
	time_t now = time(NULL);
	char when[32];
	size_t rows = table_rows();

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	printf("fbstat --top %s, every %.1fs (all users):", when, secs);
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		long long v = counter_value(s, rates[i]);
		long long o = p ? counter_value(p, rates[i]) : v;

		printf(" %s/s %.1f", rates[i],
		       rate((unsigned long long)v, (unsigned long long)o, secs));
	}
	printf("\n  live: %lld contexts, %lld threads, %lld buffers, %lld pages\n",
	       counter_value(s, "live_contexts"), counter_value(s, "live_threads"),
	       counter_value(s, "live_buffers"), counter_value(s, "live_pages"));
	top_processes(s, p, secs, rows);
	top_nodes(s, p, secs, rows);
	fflush(stdout);
}

int top_run(int fd, double interval, long count, bool want_names)
{
	struct snapshot prev = { 0 };
	struct names nm = { 0 };
	bool have_prev = false;
	double then = mono_now();
	int rc = EXIT_OK;

	if (want_names)
		names_get(&nm);
	for (long n = 0; !stop; n++) {
		struct snapshot s = { 0 };
		struct timespec ts;
		double now;

		rc = info_read(fd, &s);
		if (rc) {
			snapshot_free(&s);
			break;
		}
		now = mono_now();
		names_apply(&s, &nm);
		top_print(&s, have_prev ? &prev : NULL,
			  have_prev ? now - then : interval);
		snapshot_free(&prev);
		prev = s;
		have_prev = true;
		then = now;
		if (count && n + 1 >= count)
			break;
		ts.tv_sec = (time_t)interval;
		ts.tv_nsec = (long)((interval - (double)ts.tv_sec) * 1e9);
		while (!stop && nanosleep(&ts, &ts))
			;
	}
	snapshot_free(&prev);
	names_put(&nm);
	return rc;
}
