// SPDX-License-Identifier: MIT
/*
 * registry.c - names to handles, in a sorted array: lookups are a binary
 * search, "list" walks it in order.  A few thousand names at most, so an
 * insertion's memmove costs less than a tree's bookkeeping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "registry.h"
#include "watch.h"

void sm_registry_init(struct sm_registry *reg, struct bl_context *ctx)
{
	memset(reg, 0, sizeof(*reg));
	reg->ctx = ctx;
}

/* Index of name, or where it would go (*found false). */
static size_t lookup(const struct sm_registry *reg, const char *name,
		     bool *found)
{
	size_t lo = 0, hi = reg->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, reg->by_name[mid]->name);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*found = false;
	return lo;
}

struct sm_service *sm_registry_find(struct sm_registry *reg, const char *name)
{
	bool found;
	size_t i = lookup(reg, name, &found);

	return found ? reg->by_name[i] : NULL;
}

static void service_free(struct sm_registry *reg, struct sm_service *svc)
{
	if (svc->death)
		bl_unlink_death(svc->death);
	bl_handle_release(reg->ctx, svc->handle);
	free(svc->name);
	free(svc);
}

/* The service's owner died: its name goes (runs on the looper). */
static void service_died(struct bl_context *ctx, uint32_t handle,
			 void *userdata)
{
	struct sm_service *svc = userdata;

	(void)ctx;
	(void)handle;
	sm_log("'%s' died (pid %d): name dropped", svc->name, (int)svc->pid);
	if (svc->reg->watches)
		sm_watches_notify(svc->reg->watches, NULL, svc->name,
				  BL_SM_EVENT_DIED, 0);
	sm_registry_remove(svc->reg, svc);
}

int sm_registry_add(struct sm_registry *reg, const char *name,
		    uint32_t handle, uid_t uid, pid_t pid)
{
	struct sm_service *svc;
	bool found;
	size_t i = lookup(reg, name, &found);
	int ret;

	if (found)
		return reg->by_name[i]->handle == handle ? 0 : -EEXIST;
	if (reg->count >= SM_MAX_SERVICES)
		return -ENOSPC;
	if (reg->count == reg->capacity) {
		size_t cap = reg->capacity ? reg->capacity * 2 : 32;
		struct sm_service **v = realloc(reg->by_name,
						cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		reg->by_name = v;
		reg->capacity = cap;
	}
	svc = calloc(1, sizeof(*svc));
	if (!svc)
		return -ENOMEM;
	svc->name = strdup(name);
	if (!svc->name) {
		free(svc);
		return -ENOMEM;
	}
	svc->reg = reg;
	svc->handle = handle;
	svc->uid = uid;
	svc->pid = pid;
	ret = bl_handle_acquire(reg->ctx, handle);
	if (ret) {
		free(svc->name);
		free(svc);
		return ret;
	}
	memmove(&reg->by_name[i + 1], &reg->by_name[i],
		(reg->count - i) * sizeof(*reg->by_name));
	reg->by_name[i] = svc;
	reg->count++;
	/*
	 * Listed before linking: the notice of an owner that is dead
	 * already comes on this same thread, after this handler returns.
	 */
	ret = bl_link_death(reg->ctx, handle, service_died, svc, &svc->death);
	if (ret) {
		sm_registry_remove(reg, svc);
		return ret;
	}
	if (reg->watches)
		sm_watches_notify(reg->watches, NULL, name, BL_SM_EVENT_ADDED,
				  handle);
	return 0;
}

void sm_registry_remove(struct sm_registry *reg, struct sm_service *svc)
{
	bool found;
	size_t i = lookup(reg, svc->name, &found);

	if (found && reg->by_name[i] == svc) {
		reg->count--;
		memmove(&reg->by_name[i], &reg->by_name[i + 1],
			(reg->count - i) * sizeof(*reg->by_name));
	}
	service_free(reg, svc);
}

void sm_registry_fini(struct sm_registry *reg)
{
	reg->watches = NULL;
	while (reg->count)
		sm_registry_remove(reg, reg->by_name[reg->count - 1]);
	free(reg->by_name);
	reg->by_name = NULL;
	reg->capacity = 0;
}
