// SPDX-License-Identifier: MIT
/*
 * fbstat: the developers' source, /sys/kernel/debug/fastbinder/state (root
 * only, not a stable format: docs/abi.md).  It adds what the stable
 * interface does not carry: threads, the calls on their stacks (who waits
 * on whom) and the buffers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbstat.h"

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

/* The context a "buffers" section line names: same order, else by pid. */
static size_t buffer_ctx(struct snapshot *s, size_t dev, int pid)
{
	struct context *c;
	size_t i;

	for (i = 0; i < s->n_ctxs; i++) {
		if (s->ctxs[i].dev == dev && s->ctxs[i].pid == pid &&
		    !s->ctxs[i].buffers_seen) {
			s->ctxs[i].buffers_seen = true;
			return i;
		}
	}
	for (i = 0; i < s->n_ctxs; i++)
		if (s->ctxs[i].dev == dev && s->ctxs[i].pid == pid)
			return i;
	/* opened between the two parts of the file */
	c = PUSH(s, ctxs);
	c->dev = dev;
	c->pid = pid;
	c->buffers_seen = true;
	return s->n_ctxs - 1;
}

/* The context a "context pid" line names: one the stable source found, or new. */
static size_t state_ctx(struct snapshot *s, size_t dev, int pid, bool *fresh)
{
	struct context *c;

	for (size_t i = 0; i < s->n_ctxs; i++) {
		if (s->ctxs[i].dev == dev && s->ctxs[i].pid == pid &&
		    !s->ctxs[i].state_seen) {
			s->ctxs[i].state_seen = true;
			*fresh = false;
			return i;
		}
	}
	c = PUSH(s, ctxs);
	c->dev = dev;
	c->pid = pid;
	c->state_seen = true;
	*fresh = true;
	return s->n_ctxs - 1;
}

static void parse_state(struct snapshot *s, char *text)
{
	size_t dev = 0, ctx = 0, thread = 0;
	bool info = false;
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
			dev = snapshot_dev(s, word);
			s->devs[dev].mgr_node = a;
			have_dev = true;
			have_ctx = have_thread = in_buffers = false;
		} else if (!have_dev) {
			s->unparsed++;
		} else if (!strcmp(line, "buffers")) {
			in_buffers = true;
			have_ctx = false;
		} else if (in_buffers &&
			   sscanf(line, " context pid %d mapping %llu bytes, %llu pages resident",
				  &pid, &a, &b) == 3) {
			ctx = buffer_ctx(s, dev, pid);
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
			if (!s->ctxs[ctx].from_info)
				s->ctxs[ctx].buffers++;
		} else if (in_buffers) {
			s->unparsed++;
		} else if (sscanf(line, " context pid %d queued %u max_threads %u requested %u started %u",
				  &pid, &u1, &u2, &u3, &u4) == 5) {
			bool fresh;
			struct context *cx;

			ctx = state_ctx(s, dev, pid, &fresh);
			cx = &s->ctxs[ctx];
			info = cx->from_info;
			if (fresh) {
				cx->queued = u1;
				cx->max_threads = u2;
				cx->requested = u3;
				cx->started = u4;
				cx->frozen = strstr(line, " frozen") != NULL;
			}
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
			if (!info)
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
			struct node *nd;

			have_thread = false;
			if (info) {
				/* the stable source has it: add what only debugfs says */
				for (size_t k = 0; k < s->n_nodes; k++)
					if (s->nodes[k].ctx == ctx && s->nodes[k].id == a) {
						s->nodes[k].exports = c;
						s->nodes[k].buffers = u2;
					}
				continue;
			}
			nd = PUSH(s, nodes);

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
			struct handle *h;
			const char *rest = line + n;

			have_thread = false;
			if (info)
				continue;	/* the stable source has it */
			h = PUSH(s, handles);

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

/* Why DIR/state cannot be read, as a sentence for stderr. */
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

/*
 * Merges debugfs "state" into s: the threads, their stacks and the buffers
 * (and, without the stable source, everything).  0, or EXIT_ERROR after
 * saying why unless quiet.
 */
int debugfs_read_state(struct snapshot *s, const char *dir, bool default_dir,
		       bool quiet)
{
	char *t = read_file(dir, "state");

	if (!t) {
		if (!quiet)
			explain_missing(dir, default_dir, errno);
		return EXIT_ERROR;
	}
	parse_state(s, t);
	free(t);
	s->have_state = true;
	return 0;
}
