// SPDX-License-Identifier: MIT
/*
 * fbstat: the service names of the nodes, from the service manager.  A
 * context of fbstat's own holds one handle per service while the state is
 * read: the handle's node is the service's.  That context is hidden from
 * the tables and its handles are not counted on the nodes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbstat.h"

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
void names_get(struct names *nm)
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

void names_put(struct names *nm)
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
void names_apply(struct snapshot *s, const struct names *nm)
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
