/* SPDX-License-Identifier: MIT */
/*
 * registry.h - the names the service manager knows, each bound to a handle
 * it holds and a death recipient that drops the name when the service dies.
 * Single-threaded: only the manager's one looper thread touches it.
 */
#ifndef SM_REGISTRY_H
#define SM_REGISTRY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "binderlite.h"

/* Most names at once: a bound on what hostile clients can make us hold. */
#define SM_MAX_SERVICES	4096

struct sm_registry;
struct sm_watches;

struct sm_service {
	struct sm_registry *reg;
	char *name;
	uint32_t handle;	/* acquired while registered */
	uid_t uid;		/* who registered it */
	pid_t pid;
	struct bl_death *death;	/* one per name: it drops that name */
};

struct sm_registry {
	struct bl_context *ctx;
	struct sm_service **by_name;	/* sorted by strcmp() of the names */
	size_t count;
	size_t capacity;
	struct sm_watches *watches;	/* told of adds and deaths; may be NULL */
};

void sm_registry_init(struct sm_registry *reg, struct bl_context *ctx);

/* Drops every name (releasing handles, unlinking deaths), telling no one. */
void sm_registry_fini(struct sm_registry *reg);

/* The service registered as name, or NULL. */
struct sm_service *sm_registry_find(struct sm_registry *reg, const char *name);

/*
 * Binds name to handle (taken from a message still being handled): acquires
 * the handle, links to its death and tells the name's watches.  -EEXIST: the name is taken (by
 * another object; the same object again is a no-op success); -ENOSPC: too
 * many names; -ENOMEM; what bl_handle_acquire() / bl_link_death() return
 * (-EOWNERDEAD never: a dead handle is dropped when its notice comes).
 */
int sm_registry_add(struct sm_registry *reg, const char *name,
		    uint32_t handle, uid_t uid, pid_t pid);

/* Removes a registered service and frees it. */
void sm_registry_remove(struct sm_registry *reg, struct sm_service *svc);

#endif /* SM_REGISTRY_H */
