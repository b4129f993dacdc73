// SPDX-License-Identifier: MIT
/*
 * handler.c - decodes and answers the service manager's requests.  Every
 * request comes from an untrusted process: each item is read with the
 * library's checked readers, a request with anything left over is
 * malformed, and every failure is an error status in the reply.  The
 * handler never blocks and makes no call (notices to watchers are oneway
 * sends), so a client cannot stall the manager.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "handler.h"
#include "log.h"

/* A service name, by the library's rule (bl_sm_name_valid()). */
static int read_name(struct bl_reader *r, const char **name)
{
	size_t len;
	int ret = bl_reader_read_string(r, name, &len);

	if (ret)
		return ret;
	return bl_sm_name_valid(*name, len) ? 0 : -EINVAL;
}

static int32_t do_add(struct sm_state *sm, struct bl_reader *r,
		      const struct bl_call_info *info)
{
	struct fbinder_object obj;
	const char *name;
	bool again;
	int ret;

	ret = read_name(r, &name);
	if (!ret)
		ret = bl_reader_read_object(r, &obj);
	if (!ret && bl_reader_remaining(r))
		ret = -EBADMSG;
	if (ret)
		return ret;
	/* FBINDER_OBJ_LOCAL would be one of ours: only other processes register */
	if (obj.type != FBINDER_OBJ_HANDLE)
		return -EINVAL;
	if (!sm_policy_allows(sm->policy, info->sender_euid, info->sender_label,
			      name)) {
		sm_log("refused '%s' to uid %u (pid %d, label '%s'): not in the policy",
		       name, info->sender_euid, info->sender_pid,
		       info->sender_label ? info->sender_label : "(unknown)");
		return -EPERM;
	}
	again = sm_registry_find(&sm->registry, name) != NULL;
	ret = sm_registry_add(&sm->registry, name, obj.handle,
			      info->sender_euid, info->sender_pid);
	if (ret == -EEXIST)
		sm_log("refused '%s' to pid %d: the name is taken", name,
		       info->sender_pid);
	else if (!ret && !again)
		sm_log("added '%s' (pid %d, uid %u)", name, info->sender_pid,
		       info->sender_euid);
	return ret;
}

static int32_t do_check(struct sm_state *sm, struct bl_reader *r,
			struct bl_parcel *reply)
{
	struct sm_service *svc;
	const char *name;
	int ret = read_name(r, &name);

	if (!ret && bl_reader_remaining(r))
		ret = -EBADMSG;
	if (ret)
		return ret;
	svc = sm_registry_find(&sm->registry, name);
	if (!svc)
		return -ENOENT;
	return bl_parcel_write_handle(reply, svc->handle);
}

/* The name and callback object of a WATCH or UNWATCH. */
static int read_watch(struct bl_reader *r, const char **name, uint32_t *handle)
{
	struct fbinder_object obj;
	int ret = read_name(r, name);

	if (!ret)
		ret = bl_reader_read_object(r, &obj);
	if (!ret && bl_reader_remaining(r))
		ret = -EBADMSG;
	/* our own object (FBINDER_OBJ_LOCAL) cannot be a client's callback */
	if (!ret && obj.type != FBINDER_OBJ_HANDLE)
		ret = -EINVAL;
	if (!ret)
		*handle = obj.handle;
	return ret;
}

static int32_t do_watch(struct sm_state *sm, struct bl_reader *r,
			const struct bl_call_info *info)
{
	struct sm_service *svc;
	struct sm_watch *w;
	const char *name;
	uint32_t handle;
	int ret = read_watch(r, &name, &handle);

	if (!ret)
		ret = sm_watches_add(&sm->watches, name, handle,
				     info->sender_euid, info->sender_pid, &w);
	if (ret == -EDQUOT || ret == -ENOSPC)
		sm_log("refused a watch of '%s' to uid %u (pid %d): %s", name,
		       info->sender_euid, info->sender_pid,
		       ret == -EDQUOT ? "its watches are at the bound" :
					"too many watches");
	if (ret)
		return ret;
	/* a name there already is told at once, as if it came now */
	svc = sm_registry_find(&sm->registry, name);
	if (svc)
		sm_watches_notify(&sm->watches, w, name, BL_SM_EVENT_ADDED,
				  svc->handle);
	return 0;
}

static int32_t do_unwatch(struct sm_state *sm, struct bl_reader *r)
{
	const char *name;
	uint32_t handle;
	int ret = read_watch(r, &name, &handle);

	return ret ? ret : sm_watches_remove(&sm->watches, name, handle);
}

static int32_t do_stats(struct sm_state *sm, struct bl_reader *r,
			struct bl_parcel *reply)
{
	int ret;

	if (bl_reader_remaining(r))
		return -EBADMSG;
	ret = bl_parcel_write_u32(reply, (uint32_t)sm->registry.count);
	if (!ret)
		ret = bl_parcel_write_u32(reply, (uint32_t)sm->watches.count);
	if (!ret)
		ret = bl_parcel_write_u64(reply, sm->requests);
	if (!ret)
		ret = bl_parcel_write_u64(reply, sm->watches.notices);
	if (!ret)
		ret = bl_parcel_write_u64(reply, sm->watches.lost);
	return ret;
}

static int32_t do_list(struct sm_state *sm, struct bl_reader *r,
		       struct bl_parcel *reply)
{
	size_t i;
	int ret;

	if (bl_reader_remaining(r))
		return -EBADMSG;
	ret = bl_parcel_write_u32(reply, (uint32_t)sm->registry.count);
	for (i = 0; !ret && i < sm->registry.count; i++)
		ret = bl_parcel_write_string(reply,
					     sm->registry.by_name[i]->name);
	return ret;
}

int32_t sm_handle(struct bl_object *obj, uint32_t code,
		  struct bl_reader *request, struct bl_parcel *reply,
		  const struct bl_call_info *info)
{
	struct sm_state *sm = bl_object_userdata(obj);
	int32_t status;

	sm->requests++;
	if (!reply) {
		/* oneway: there is no one to answer, and nothing to do */
		sm_debug("ignored oneway code %u from pid %d", code,
			 info->sender_pid);
		sm->refused++;
		return 0;
	}
	switch (code) {
	case BL_SM_ADD:
		status = do_add(sm, request, info);
		break;
	case BL_SM_CHECK:
		status = do_check(sm, request, reply);
		break;
	case BL_SM_LIST:
		status = do_list(sm, request, reply);
		break;
	case BL_SM_WATCH:
		status = do_watch(sm, request, info);
		break;
	case BL_SM_UNWATCH:
		status = do_unwatch(sm, request);
		break;
	case BL_SM_STATS:
		status = do_stats(sm, request, reply);
		break;
	default:
		status = -EOPNOTSUPP;
		break;
	}
	if (status) {
		sm->refused++;
		/* a failed request must not return half an answer */
		bl_parcel_reset(reply);
		sm_debug("code %u from pid %d: %s", code, info->sender_pid,
			 strerror(-status));
	}
	return status;
}
