// SPDX-License-Identifier: MIT
/*
 * fbstat: the stable source, FBINDER_IOC_INFO (docs/abi.md, Information).
 * It needs no root and no debugfs: the caller sees its own user's
 * contexts (all of them with CAP_SYS_PTRACE), their nodes and handles,
 * the global counters, and the failures it sent or was the target of
 * (docs/security.md).  The ioctl is made on a context of fbstat's own,
 * which the tables leave out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fbstat.h"

/* In FBINDER_COUNTER_* order, as debugfs "stats" names them. */
static const char *const counter_names[FBINDER_COUNTER_COUNT] = {
	"live_contexts", "live_threads", "live_nodes", "live_handles",
	"live_buffers", "live_transactions", "live_death_links", "live_pages",
	"calls", "oneways", "replies", "failed", "dead_replies",
	"release_notices", "spawn_requests", "abandoned_calls", "live_regions",
};

static const char *what_name(unsigned int what)
{
	switch (what) {
	case FBINDER_FAILED_SEND:
		return "send";
	case FBINDER_FAILED_REPLY:
		return "reply";
	case FBINDER_FAILED_DELIVER:
		return "deliver";
	default:
		return "?";
	}
}

/* The device, or -1 after saying why (exit with EXIT_NO_BINDER). */
int info_open(void)
{
	struct fbinder_version ver = { 0 };
	int fd = open(DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fbtool_unavailable(DEVICE_PATH, errno);
		return -1;
	}
	if (ioctl(fd, FBINDER_IOC_VERSION, &ver) || ver.abi_version < 3) {
		fprintf(stderr, "%s: the driver's ABI (version %u) has no "
			"FBINDER_IOC_INFO: fbstat needs version 3 or later\n",
			prog, ver.abi_version);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * All entries of one kind, in a malloc()ed array of *n entries of size
 * bytes (the driver fills what it knows of each, zeroes the rest); NULL
 * with errno on failure.
 */
static void *info_get(int fd, uint32_t what, size_t size, uint32_t *n)
{
	uint32_t room = 64;

	for (;;) {
		struct fbinder_info in = {
			.what = what,
			.entry_size = (uint32_t)size,
			.count = room,
		};
		void *buf = calloc(room, size);

		if (!buf)
			return NULL;
		in.entries = (uint64_t)(uintptr_t)buf;
		if (ioctl(fd, FBINDER_IOC_INFO, &in)) {
			free(buf);
			return NULL;
		}
		if (in.total <= in.count) {
			*n = in.count;
			return buf;
		}
		free(buf);
		room = in.total + 16;	/* more came meanwhile: retry */
	}
}

static size_t ctx_by_id(const struct snapshot *s, unsigned long long id)
{
	for (size_t i = 0; i < s->n_ctxs; i++)
		if (s->ctxs[i].id == id)
			return i;
	return SIZE_MAX;
}

static void add_failure(struct snapshot *s, const struct fbinder_info_failure *e)
{
	struct failure *f = PUSH(s, failed);

	f->seq = e->seq;
	f->time_ns = e->time_ns;
	f->error = e->error;
	snprintf(f->what, sizeof(f->what), "%s", what_name(e->what));
	f->from_pid = (int)e->from_pid;
	f->to_pid = (int)e->to_pid;
	f->node = e->node;
	f->code = e->code;
}

static int read_contexts(int fd, struct snapshot *s)
{
	struct fbinder_info_context *c;
	uint32_t n;
	int me = getpid();

	c = info_get(fd, FBINDER_INFO_CONTEXTS, sizeof(*c), &n);
	if (!c)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct context *x = PUSH(s, ctxs);

		c[i].device[sizeof(c[i].device) - 1] = '\0';
		x->dev = snapshot_dev(s, c[i].device);
		x->from_info = true;
		x->id = c[i].id;
		x->pid = (int)c[i].pid;
		x->ours = x->pid == me;
		x->euid = c[i].euid;
		x->threads = c[i].threads;
		x->queued = c[i].queued;
		x->max_threads = c[i].max_threads;
		x->requested = c[i].requested_threads;
		x->started = c[i].started_threads;
		x->frozen = c[i].flags & FBINDER_INFO_CONTEXT_FROZEN;
		x->nodes = c[i].nodes;
		x->handles = c[i].handles;
		x->death_links = c[i].death_links;
		x->buffers = c[i].buffers;
		x->map_bytes = c[i].map_size;
		x->have_mapping = c[i].map_size != 0;
		x->resident_pages = c[i].pages_resident;
		x->bytes_queued = c[i].bytes_queued;
		x->received = c[i].received;
		x->sent = c[i].sent;
		x->failed = c[i].failed;
	}
	free(c);
	return 0;
}

static int read_nodes(int fd, struct snapshot *s)
{
	struct fbinder_info_node *e;
	uint32_t n;

	e = info_get(fd, FBINDER_INFO_NODES, sizeof(*e), &n);
	if (!e)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		size_t ctx = ctx_by_id(s, e[i].ctx);
		struct node *x;

		if (ctx == SIZE_MAX)
			continue;	/* opened after the contexts were read */
		x = PUSH(s, nodes);
		x->ctx = ctx;
		x->id = e[i].id;
		x->cookie = e[i].cookie;
		x->handles = e[i].handles;
		x->oneway_out = e[i].oneway_out;
		x->calls = e[i].calls;
		x->ctx_mgr = e[i].flags & FBINDER_INFO_NODE_CTX_MGR;
		if (x->ctx_mgr)
			s->devs[s->ctxs[ctx].dev].mgr_node = x->id;
	}
	free(e);
	return 0;
}

static int read_handles(int fd, struct snapshot *s)
{
	struct fbinder_info_handle *e;
	uint32_t n;

	e = info_get(fd, FBINDER_INFO_HANDLES, sizeof(*e), &n);
	if (!e)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		size_t ctx = ctx_by_id(s, e[i].ctx);
		struct handle *x;

		if (ctx == SIZE_MAX)
			continue;
		x = PUSH(s, handles);
		x->ctx = ctx;
		x->id = e[i].id;
		x->node = e[i].node;
		x->owner_pid = (int)e[i].owner_pid;
		x->dead = e[i].flags & FBINDER_INFO_HANDLE_DEAD;
		x->refs = e[i].refs;
		x->buf_refs = e[i].buffer_refs;
	}
	free(e);
	return 0;
}

static int read_counters(int fd, struct snapshot *s)
{
	uint64_t *v;
	uint32_t n;

	v = info_get(fd, FBINDER_INFO_COUNTERS, sizeof(*v), &n);
	if (!v)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct counter *c = PUSH(s, counters);

		if (i < FBINDER_COUNTER_COUNT)
			snprintf(c->name, sizeof(c->name), "%s", counter_names[i]);
		else
			snprintf(c->name, sizeof(c->name), "counter_%u", i);
		c->value = (long long)v[i];
	}
	free(v);
	return 0;
}

static int read_failures(int fd, struct snapshot *s)
{
	struct fbinder_info_failure *e;
	uint32_t n;

	e = info_get(fd, FBINDER_INFO_FAILURES, sizeof(*e), &n);
	if (!e)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		add_failure(s, &e[i]);
	free(e);
	return 0;
}

/* The counters, contexts, nodes, handles and failures.  0 or EXIT_ERROR. */
int info_read(int fd, struct snapshot *s)
{
	/* counters first: the rest of the read does not move them */
	if (read_counters(fd, s) || read_contexts(fd, s) ||
	    read_nodes(fd, s) || read_handles(fd, s) || read_failures(fd, s)) {
		fprintf(stderr, "%s: FBINDER_IOC_INFO: %s\n", prog,
			strerror(errno));
		return EXIT_ERROR;
	}
	return 0;
}

/*
 * --follow: prints each failure the caller may see as it is recorded
 * (FBINDER_INFO_WAIT), from now on, until interrupted or count shown.
 * Each carries its number: a gap says the ring (64) overflowed between
 * two reads.
 */
int info_follow(int fd, bool json, long count)
{
	struct fbinder_info_failure e[64];
	struct fbinder_info in = {
		.what = FBINDER_INFO_FAILURES,
		.entry_size = sizeof(e[0]),
		.count = 64,
		.entries = (uint64_t)(uintptr_t)e,
	};
	long shown_n = 0;

	/* skip what is there already: follow from the newest */
	if (ioctl(fd, FBINDER_IOC_INFO, &in))
		goto fail;
	while (!stop && (!count || shown_n < count)) {
		in.flags = FBINDER_INFO_WAIT;
		in.count = 64;
		in.entry_size = sizeof(e[0]);
		if (ioctl(fd, FBINDER_IOC_INFO, &in)) {
			if (errno == EINTR)
				continue;	/* stop says whether to go on */
			goto fail;
		}
		for (uint32_t i = 0; i < in.count && (!count || shown_n < count); i++) {
			struct snapshot one = { 0 };

			add_failure(&one, &e[i]);
			if (json)
				json_failure(stdout, &one.failed[0]);
			else
				print_failure_line(&one.failed[0]);
			snapshot_free(&one);
			shown_n++;
		}
		fflush(stdout);
	}
	return EXIT_OK;
fail:
	fprintf(stderr, "%s: FBINDER_IOC_INFO: %s\n", prog, strerror(errno));
	return EXIT_ERROR;
}
