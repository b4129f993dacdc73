// SPDX-License-Identifier: MIT
/*
 * watch.c - service notifications: who watches which name.  An unsorted
 * array: at most SM_MAX_WATCHES, walked on each add and each death of a
 * service, which are rare next to lookups.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "watch.h"

void sm_watches_init(struct sm_watches *set, struct bl_context *ctx)
{
	memset(set, 0, sizeof(*set));
	set->ctx = ctx;
}

static void watch_free(struct sm_watches *set, struct sm_watch *w)
{
	if (w->death)
		bl_unlink_death(w->death);
	bl_handle_release(set->ctx, w->handle);
	free(w->name);
	free(w);
}

/* Takes w out of the array (its place gets the last one) and frees it. */
static void watch_drop(struct sm_watches *set, struct sm_watch *w)
{
	size_t i;

	for (i = 0; i < set->count; i++) {
		if (set->v[i] == w) {
			set->v[i] = set->v[--set->count];
			break;
		}
	}
	watch_free(set, w);
}

/* The watcher's process died: its watches go (runs on the looper). */
static void watch_died(struct bl_context *ctx, uint32_t handle, void *userdata)
{
	struct sm_watch *w = userdata;

	(void)ctx;
	(void)handle;
	sm_debug("watch of '%s' (pid %d) dropped: its owner died", w->name,
		 (int)w->pid);
	watch_drop(w->set, w);
}

int sm_watches_add(struct sm_watches *set, const char *name, uint32_t handle,
		   uid_t uid, pid_t pid, struct sm_watch **out)
{
	struct sm_watch *w;
	size_t i, mine = 0;
	int ret;

	for (i = 0; i < set->count; i++) {
		if (set->v[i]->handle == handle && !strcmp(set->v[i]->name, name))
			return -EEXIST;
		if (set->v[i]->uid == uid)
			mine++;
	}
	if (mine >= SM_MAX_WATCHES_PER_UID)
		return -EDQUOT;
	if (set->count >= SM_MAX_WATCHES)
		return -ENOSPC;
	if (set->count == set->capacity) {
		size_t cap = set->capacity ? set->capacity * 2 : 32;
		struct sm_watch **v = realloc(set->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		set->v = v;
		set->capacity = cap;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->name = strdup(name);
	if (!w->name) {
		free(w);
		return -ENOMEM;
	}
	w->set = set;
	w->handle = handle;
	w->uid = uid;
	w->pid = pid;
	ret = bl_handle_acquire(set->ctx, handle);
	if (ret) {
		free(w->name);
		free(w);
		return ret;
	}
	set->v[set->count++] = w;
	/* a watcher dead already: its notice comes after this request */
	ret = bl_link_death(set->ctx, handle, watch_died, w, &w->death);
	if (ret) {
		watch_drop(set, w);
		return ret;
	}
	*out = w;
	return 0;
}

int sm_watches_remove(struct sm_watches *set, const char *name,
		      uint32_t handle)
{
	size_t i;

	for (i = 0; i < set->count; i++) {
		if (set->v[i]->handle == handle &&
		    !strcmp(set->v[i]->name, name)) {
			watch_drop(set, set->v[i]);
			return 0;
		}
	}
	return -ENOENT;
}

static void notify_one(struct sm_watches *set, struct sm_watch *w,
		       uint32_t event, uint32_t svc_handle)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	int ret = bl_parcel_write_string(&p, w->name);

	if (!ret && event == BL_SM_EVENT_ADDED)
		ret = bl_parcel_write_handle(&p, svc_handle);
	if (!ret)
		ret = bl_send_oneway(set->ctx, w->handle, event, &p);
	bl_parcel_fini(&p);
	if (ret) {
		set->lost++;
		sm_debug("notice %u of '%s' to pid %d lost: %s", event, w->name,
			 (int)w->pid, strerror(-ret));
	} else {
		set->notices++;
	}
}

void sm_watches_notify(struct sm_watches *set, struct sm_watch *w,
		       const char *name, uint32_t event, uint32_t svc_handle)
{
	size_t i;

	if (w) {
		notify_one(set, w, event, svc_handle);
		return;
	}
	/* sending runs no callback: the array stays as it is meanwhile */
	for (i = 0; i < set->count; i++)
		if (!strcmp(set->v[i]->name, name))
			notify_one(set, set->v[i], event, svc_handle);
}

void sm_watches_fini(struct sm_watches *set)
{
	while (set->count)
		watch_drop(set, set->v[set->count - 1]);
	free(set->v);
	set->v = NULL;
	set->capacity = 0;
}
