// SPDX-License-Identifier: MIT
/*
 * fbstat - show the fastbinder driver's state and counters.
 *
 * SYNOPSIS
 *	fbstat [-N] [-D DIR] [-w [SECONDS]] [-c COUNT] [--json] [SECTION]...
 *	fbstat --top [SECONDS] [-c COUNT] [-N]
 *	fbstat --follow [-c COUNT] [--json]
 *
 * DESCRIPTION
 *	Prints, as tables: the devices and their context managers, the
 *	processes (contexts) with their pool, queue, buffer and traffic,
 *	nodes (objects), handles, the global counters and the last failed
 *	sends, from the driver's stable interface (FBINDER_IOC_INFO,
 *	docs/abi.md): no root, no debugfs; an unprivileged user sees its
 *	own processes (docs/security.md).  The threads, their call stacks
 *	(who waits on whom) and the buffers come from debugfs, for root:
 *	those sections are shown when it can be read.  SECTIONs limit the
 *	output to some of: summary processes threads nodes handles buffers
 *	transactions counters failed (default: all).
 *
 *	Unless -N is given, fbstat also asks the service manager for the
 *	registered names (with a timeout, so a stuck manager cannot hang
 *	it) and shows each node's service name.  For that it opens a context
 *	of its own and holds one handle per service while it reads the
 *	state; that context, and the one it reads the state through, are
 *	left out of the tables and its handles are subtracted from the
 *	nodes' handle counts.  The counters include them (live_contexts)
 *	and, with --watch, fbstat's own calls (1 + one per service).
 *
 *	--watch refreshes every SECONDS (default 1, fractions allowed), with
 *	each counter's change since the previous refresh, until interrupted
 *	or COUNT refreshes were shown.  --top is the live view: rates per
 *	process and node.  --follow prints failures as they happen.  --json
 *	prints one JSON object per snapshot (or per failure) and line.
 *
 * EXIT STATUS
 *	0  shown
 *	1  a debugfs section asked for cannot be read (not root, not
 *	   mounted)
 *	2  usage error
 *	3  fastbinder unusable: module not loaded, no such device,
 *	   permission denied, or a driver without FBINDER_IOC_INFO
 *	Errors go to stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fbstat.h"

const char *prog = "fbstat";
volatile sig_atomic_t stop;

/* ---- the snapshot ---------------------------------------------------------------- */

/* Appends a zeroed element; exits on out of memory (a tool, not a library). */
void *vec_push(void **arr, size_t *n, size_t *cap, size_t size)
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

void snapshot_free(struct snapshot *s)
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

bool starts(const char *line, const char *prefix)
{
	return !strncmp(line, prefix, strlen(prefix));
}

/* The device of this name, added if new. */
size_t snapshot_dev(struct snapshot *s, const char *name)
{
	struct device *d;

	for (size_t i = 0; i < s->n_devs; i++)
		if (!strcmp(s->devs[i].name, name))
			return i;
	d = PUSH(s, devs);
	snprintf(d->name, sizeof(d->name), "%s", name);
	return s->n_devs - 1;
}

const struct node *find_node(const struct snapshot *s, size_t dev,
			     unsigned long long id)
{
	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].id == id && s->ctxs[s->nodes[i].ctx].dev == dev)
			return &s->nodes[i];
	return NULL;
}

long long counter_value(const struct snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->n_counters; i++)
		if (!strcmp(s->counters[i].name, name))
			return s->counters[i].value;
	return 0;
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
	/* what only debugfs has */
	SEC_DEBUGFS = SEC_THREADS | SEC_BUFFERS | SEC_TRANSACTIONS,
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
"usage: fbstat [-N] [-D DIR] [-w [SECONDS]] [-c COUNT] [--json] [SECTION]...\n"
"       fbstat --top [SECONDS] [-c COUNT] [-N]\n"
"       fbstat --follow [-c COUNT] [--json]\n"
"\n"
"Shows the fastbinder driver's state and counters as tables, from its\n"
"stable interface (" DEVICE_PATH ", FBINDER_IOC_INFO): no root needed;\n"
"you see your own processes, root sees all.  threads, buffers and\n"
"transactions come from debugfs (" DEFAULT_DIR "/state): root only.\n"
"CONTEXTS: SPAWN_MAX/SPAWN_REQ/SPAWNED are the threads the driver may ask\n"
"for, has asked for, and got; QUEUED work not picked up yet; RECEIVED and\n"
"SENT calls and oneway messages, FAILED sends.  THREADS: LOOPER is\n"
"'looper' (entered the loop), 'spawned' (started at the driver's request)\n"
"or '-' (only makes calls).\n"
"SECTIONs (default all): summary processes threads nodes handles buffers\n"
"transactions counters failed.\n"
"\n"
"  -w, --watch [SECONDS]  refresh every SECONDS (default 1), with the\n"
"                         counters' change since the previous refresh\n"
"  -t, --top [SECONDS]    live view, every SECONDS (default 1): calls/s\n"
"                         per process and node, queues, buffer use\n"
"  -f, --follow           print failed sends as they happen\n"
"  -c, --count N          with --watch, --top: stop after N refreshes;\n"
"                         with --follow: after N failures\n"
"  -j, --json             one JSON object per line (the stable interface's\n"
"                         state; with --follow, one per failure)\n"
"  -N, --no-names         do not ask the service manager for the service\n"
"                         names of the nodes.  (With names, fbstat opens a\n"
"                         second context of its own, left out of the\n"
"                         tables; the counters include its calls.)\n"
"  -D, --debugfs DIR      read debugfs at DIR instead of " DEFAULT_DIR "\n"
"  -h, --help             this text\n"
"      --version          the release and ABI version\n"
"\n"
"Exit status: 0 shown; 1 a debugfs section asked for cannot be read;\n"
"2 usage error; 3 fastbinder unusable (module not loaded, no such device,\n"
"permission denied, a driver without FBINDER_IOC_INFO).\n");
}

static int usage_error(const char *what, const char *arg)
{
	return fbtool_usage_error("%s '%s'", what, arg);
}

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

struct options {
	const char *dir;
	bool default_dir, watch, top, follow, json, names;
	unsigned int want;
	bool want_given;
	double interval;
	long count;
};

/* 0, or the exit status of a usage error (already reported). */
static int parse_options(int argc, char **argv, struct options *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(EXIT_OK);
		} else if (!strcmp(a, "--version")) {
			fbtool_version();
			exit(EXIT_OK);
		} else if (!strcmp(a, "-w") || !strcmp(a, "--watch") ||
			   !strcmp(a, "-t") || !strcmp(a, "--top")) {
			if (a[1] == 't' || a[2] == 't')
				o->top = true;
			else
				o->watch = true;
			/* an optional operand: a number right after it */
			if (i + 1 < argc && parse_seconds(argv[i + 1], &o->interval))
				i++;
		} else if (starts(a, "--watch=") || starts(a, "--top=")) {
			const char *v = strchr(a, '=') + 1;

			*(a[2] == 'w' ? &o->watch : &o->top) = true;
			if (!parse_seconds(v, &o->interval))
				return usage_error("not a number of seconds:", v);
		} else if (!strcmp(a, "-f") || !strcmp(a, "--follow")) {
			o->follow = true;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "-c") || !strcmp(a, "--count")) {
			char *end;

			if (i + 1 >= argc)
				return usage_error("missing argument of", a);
			errno = 0;
			o->count = strtol(argv[++i], &end, 10);
			if (errno || *end || end == argv[i] || o->count < 1)
				return usage_error("--count: not a positive number:", argv[i]);
		} else if (!strcmp(a, "-N") || !strcmp(a, "--no-names")) {
			o->names = false;
		} else if (!strcmp(a, "-D") || !strcmp(a, "--debugfs")) {
			if (i + 1 >= argc)
				return usage_error("missing argument of", a);
			o->dir = argv[++i];
			o->default_dir = false;
		} else if (a[0] == '-') {
			return usage_error("unknown option", a);
		} else {
			size_t k;

			for (k = 0; k < sizeof(sections) / sizeof(sections[0]); k++)
				if (!strcmp(a, sections[k].name))
					break;
			if (k == sizeof(sections) / sizeof(sections[0]))
				return usage_error("unknown section", a);
			o->want |= sections[k].bit;
			o->want_given = true;
		}
	}
	if (o->watch + o->top + o->follow > 1)
		return usage_error("only one of --watch, --top, --follow:", "");
	if (o->count && !o->watch && !o->top && !o->follow)
		return usage_error("--count needs", "--watch, --top or --follow");
	if (o->json && o->top)
		return usage_error("--json does not go with", "--top");
	if ((o->top || o->follow) && o->want_given)
		return usage_error("no SECTION with", o->top ? "--top" : "--follow");
	if (!o->want)
		o->want = SEC_ALL;
	/* names only matter for the tables that show them */
	if (!(o->want & (SEC_NODES | SEC_HANDLES)) && !o->top)
		o->names = false;
	return 0;
}

/*
 * One snapshot: the stable interface, then debugfs for the sections that
 * need it.  Those are skipped quietly when neither asked for by name nor
 * by -D, and debugfs cannot be read.
 */
static int take_snapshot(int fd, const struct options *o, struct snapshot *s,
			 struct names *nm)
{
	bool need_debugfs = !o->json && (o->want & SEC_DEBUGFS);
	bool must = o->want_given || !o->default_dir;
	int rc;

	if (o->names)
		names_get(nm);
	rc = info_read(fd, s);
	if (!rc && need_debugfs &&
	    debugfs_read_state(s, o->dir, o->default_dir, !must) && must)
		rc = EXIT_ERROR;
	names_apply(s, nm);
	return rc;
}

static void show(const struct options *o, const struct snapshot *s,
		 const struct snapshot *prev)
{
	unsigned int want = o->want;

	if (o->json) {
		json_snapshot(stdout, s);
		return;
	}
	if (!s->have_state)
		want &= ~SEC_DEBUGFS;
	if (want & SEC_SUMMARY)
		print_summary(s);
	if (want & SEC_PROCESSES)
		print_processes(s);
	if (want & SEC_THREADS)
		print_threads(s);
	if (want & SEC_NODES)
		print_nodes(s);
	if (want & SEC_HANDLES)
		print_handles(s);
	if (want & SEC_BUFFERS)
		print_buffers(s);
	if (want & SEC_TRANSACTIONS)
		print_transactions(s);
	if (want & SEC_COUNTERS)
		print_counters(s, prev, o->interval);
	if (want & SEC_FAILED)
		print_failed(s);
}

int main(int argc, char **argv)
{
	struct options o = {
		.dir = DEFAULT_DIR, .default_dir = true, .names = true,
		.interval = 1.0,
	};
	struct snapshot prev = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	bool have_prev = false;
	int rc, fd;

	fbtool_init(prog);
	rc = parse_options(argc, argv, &o);
	if (rc)
		return rc;
	/* no SA_RESTART: a waiting --follow returns to see stop */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fd = info_open();
	if (fd < 0)
		return EXIT_NO_BINDER;
	if (o.follow) {
		rc = info_follow(fd, o.json, o.count);
		goto out;
	}
	if (o.top) {
		rc = top_run(fd, o.interval, o.count, o.names);
		goto out;
	}
	for (long n = 0; !stop; n++) {
		struct snapshot s = { 0 };
		struct names nm = { 0 };
		struct timespec ts;

		rc = take_snapshot(fd, &o, &s, &nm);
		if (rc) {
			names_put(&nm);
			snapshot_free(&s);
			break;
		}
		if (o.watch && !o.json) {
			clock_gettime(CLOCK_REALTIME, &ts);
			if (isatty(STDOUT_FILENO))
				fputs("\033[H\033[2J", stdout);
			printf("==== fbstat %s", ctime(&ts.tv_sec));
		}
		show(&o, &s, have_prev ? &prev : NULL);
		names_put(&nm);
		fflush(stdout);
		snapshot_free(&prev);
		prev = s;
		have_prev = true;
		if (!o.watch || (o.count && n + 1 >= o.count))
			break;
		ts.tv_sec = (time_t)o.interval;
		ts.tv_nsec = (long)((o.interval - (double)ts.tv_sec) * 1e9);
		while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	snapshot_free(&prev);
out:
	close(fd);
	if (ferror(stdout)) {
		fprintf(stderr, "%s: writing the output failed\n", prog);
		return EXIT_ERROR;
	}
	return rc;
}
