/* SPDX-License-Identifier: MIT */
/*
 * watch.h - service notifications: clients' callback objects, each
 * watching one name, told (oneway) when it is added and when its service
 * dies (docs/servicemanager.md, BL_SM_WATCH).  Single-threaded, like the
 * registry.
 */
#ifndef SM_WATCH_H
#define SM_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "binderlite.h"

/* Bounds on what hostile clients can make us hold: per euid, and in all. */
#define SM_MAX_WATCHES_PER_UID	64
#define SM_MAX_WATCHES		4096

struct sm_watches;

struct sm_watch {
	struct sm_watches *set;
	char *name;
	uint32_t handle;	/* the callback, acquired while watching */
	uid_t uid;		/* who registered it: its bound */
	pid_t pid;
	struct bl_death *death;	/* the callback's owner died: drop it */
};

struct sm_watches {
	struct bl_context *ctx;
	struct sm_watch **v;	/* in no order */
	size_t count;
	size_t capacity;
	unsigned long notices;	/* sent */
	unsigned long lost;	/* the watcher could not take them */
};

void sm_watches_init(struct sm_watches *set, struct bl_context *ctx);

/* Drops every watch (releasing handles, unlinking deaths); no notices. */
void sm_watches_fini(struct sm_watches *set);

/*
 * Adds a watch of handle (taken from a message still being handled) on
 * name for uid: acquires the handle and links to its death.  -EEXIST: that
 * handle watches that name already; -EDQUOT: uid has
 * SM_MAX_WATCHES_PER_UID; -ENOSPC: SM_MAX_WATCHES in all; -ENOMEM; what
 * bl_handle_acquire() / bl_link_death() return.
 */
int sm_watches_add(struct sm_watches *set, const char *name, uint32_t handle,
		   uid_t uid, pid_t pid, struct sm_watch **out);

/* Removes handle's watch of name; -ENOENT when there is none. */
int sm_watches_remove(struct sm_watches *set, const char *name,
		      uint32_t handle);

/*
 * Tells one watch (w), or every watch of name (w NULL), of event:
 * BL_SM_EVENT_ADDED with the service's handle, BL_SM_EVENT_DIED.  Oneway,
 * never blocks: a notice the watcher cannot take is counted as lost.
 */
void sm_watches_notify(struct sm_watches *set, struct sm_watch *w,
		       const char *name, uint32_t event, uint32_t svc_handle);

#endif /* SM_WATCH_H */
