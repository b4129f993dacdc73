// SPDX-License-Identifier: MIT
/*
 * fbstat --json: the snapshot as one JSON object per line, for scripts.
 * Its keys are the stable interface's (docs/abi.md, Information); new keys
 * may be added, none is renamed.  Threads, buffers and calls in flight
 * (debugfs) are not part of it.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "fbstat.h"

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_failure_obj(FILE *out, const struct failure *f)
{
	char err[24];

	fprintf(out, "{\"seq\":%llu,\"time_ns\":%llu,\"what\":", f->seq,
		f->time_ns);
	json_str(out, f->what);
	fprintf(out, ",\"error\":%d,\"errno\":", f->error);
	json_str(out, errno_str(f->error, err, sizeof(err)));
	fprintf(out, ",\"from_pid\":%d,\"to_pid\":%d,\"node\":%llu,\"code\":%u}",
		f->from_pid, f->to_pid, f->node, f->code);
}

/* --follow --json: one object per line. */
void json_failure(FILE *out, const struct failure *f)
{
	json_failure_obj(out, f);
	fputc('\n', out);
}

static void json_contexts(FILE *out, const struct snapshot *s)
{
	const char *sep = "";

	fputs("\"contexts\":[", out);
	for (size_t i = 0; i < s->n_ctxs; i++) {
		const struct context *c = &s->ctxs[i];
		char comm[COMM_LEN];

		if (!shown(c))
			continue;
		comm_of(c->pid, 0, comm, sizeof(comm));
		fprintf(out, "%s{\"device\":", sep);
		json_str(out, s->devs[c->dev].name);
		fprintf(out, ",\"pid\":%d,\"command\":", c->pid);
		json_str(out, comm);
		fprintf(out, ",\"euid\":%u,\"threads\":%u,\"queued\":%u,"
			"\"max_threads\":%u,\"requested_threads\":%u,"
			"\"started_threads\":%u,\"nodes\":%u,\"handles\":%u,"
			"\"death_links\":%u,\"buffers\":%u,\"map_size\":%llu,"
			"\"pages_resident\":%llu,\"bytes_queued\":%llu,"
			"\"received\":%llu,\"sent\":%llu,\"failed\":%llu,"
			"\"frozen\":%s}",
			c->euid, c->threads, c->queued, c->max_threads,
			c->requested, c->started, c->nodes, c->handles,
			c->death_links, c->buffers, c->map_bytes,
			c->resident_pages, c->bytes_queued, c->received,
			c->sent, c->failed, c->frozen ? "true" : "false");
		sep = ",";
	}
	fputs("]", out);
}

static void json_nodes(FILE *out, const struct snapshot *s)
{
	const char *sep = "";

	fputs("\"nodes\":[", out);
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct node *n = &s->nodes[i];
		const struct context *c = &s->ctxs[n->ctx];

		if (!shown(c))
			continue;
		fprintf(out, "%s{\"id\":%llu,\"device\":", sep, n->id);
		json_str(out, s->devs[c->dev].name);
		fprintf(out, ",\"owner_pid\":%d,\"service\":", c->pid);
		if (n->name)
			json_str(out, n->name);
		else
			fputs("null", out);
		fprintf(out, ",\"cookie\":%llu,\"handles\":%u,\"oneway_out\":%u,"
			"\"calls\":%llu,\"context_manager\":%s}", n->cookie,
			n->handles, n->oneway_out, n->calls,
			n->ctx_mgr ? "true" : "false");
		sep = ",";
	}
	fputs("]", out);
}

static void json_handles(FILE *out, const struct snapshot *s)
{
	const char *sep = "";

	fputs("\"handles\":[", out);
	for (size_t i = 0; i < s->n_handles; i++) {
		const struct handle *h = &s->handles[i];
		const struct context *c = &s->ctxs[h->ctx];

		if (!shown(c))
			continue;
		fprintf(out, "%s{\"holder_pid\":%d,\"handle\":%u,\"node\":%llu,"
			"\"owner_pid\":%d,\"refs\":%u,\"buffer_refs\":%u,"
			"\"dead\":%s}", sep, c->pid, h->id, h->node,
			h->owner_pid, h->refs, h->buf_refs,
			h->dead ? "true" : "false");
		sep = ",";
	}
	fputs("]", out);
}

void json_snapshot(FILE *out, const struct snapshot *s)
{
	fputs("{\"version\":1,\"counters\":{", out);
	for (size_t i = 0; i < s->n_counters; i++) {
		fprintf(out, "%s", i ? "," : "");
		json_str(out, s->counters[i].name);
		fprintf(out, ":%lld", s->counters[i].value);
	}
	fputs("},", out);
	json_contexts(out, s);
	fputc(',', out);
	json_nodes(out, s);
	fputc(',', out);
	json_handles(out, s);
	fputs(",\"failures\":[", out);
	for (size_t i = 0; i < s->n_failed; i++) {
		if (i)
			fputc(',', out);
		json_failure_obj(out, &s->failed[i]);
	}
	fputs("]}\n", out);
}
