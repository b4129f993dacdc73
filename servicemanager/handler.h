/* SPDX-License-Identifier: MIT */
/*
 * handler.h - the service manager's object: it answers the requests of
 * docs/servicemanager.md (BL_SM_ADD, BL_SM_CHECK, BL_SM_LIST, BL_SM_WATCH,
 * BL_SM_UNWATCH, BL_SM_STATS).
 */
#ifndef SM_HANDLER_H
#define SM_HANDLER_H

#include "binderlite.h"
#include "policy.h"
#include "registry.h"
#include "watch.h"

struct sm_state {
	struct sm_registry registry;
	struct sm_watches watches;
	const struct sm_policy *policy;	/* NULL: anyone may add any name */
	unsigned long requests;
	unsigned long refused;		/* answered with an error status */
};

/* The bl_handler_fn of the manager's object; userdata is a sm_state. */
int32_t sm_handle(struct bl_object *obj, uint32_t code,
		  struct bl_reader *request, struct bl_parcel *reply,
		  const struct bl_call_info *info);

#endif /* SM_HANDLER_H */
