// SPDX-License-Identifier: MIT
/*
 * fbt_slots.c - the slot-registry manager of the attack tests, see fbt_slots.h.
 */
#include "fbt_slots.h"

#include <unistd.h>

enum { FBT_SLOT_PUT = 1, FBT_SLOT_GET, FBT_SLOT_DROP, FBT_SLOT_PING };

/* A request: the slot, then (PUT) the object at offset 8. */
struct fbt_slot_msg {
	__u32 slot;
	__u32 pad;
	struct fbinder_object obj;
};

#define FBT_SLOT_OBJ_OFF	8

static __u32 fbt_slot_table[FBT_SLOT_SLOTS];

static void fbt_slot_clear(struct fbt_ctx *p, unsigned int slot)
{
	if (fbt_slot_table[slot])
		fbt_release(p, fbt_slot_table[slot]);
	fbt_slot_table[slot] = 0;
}

/* One request; the reply's code is 0 or a positive errno. */
static int fbt_slot_handle(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	struct fbt_slot_msg m = { 0 };
	__u64 off = FBT_SLOT_OBJ_OFF;
	__u32 code = 0;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (r->msg.flags & FBINDER_TXN_ONEWAY) {
		fbt_free_buffer(p, r->msg.data);
		return 0;
	}
	if (r->msg.data_size >= sizeof(m.slot))
		memcpy(&m, fbt_data(p, &r->msg),
		       r->msg.data_size < sizeof(m) ? r->msg.data_size :
						     sizeof(m));
	if (r->msg.code != FBT_SLOT_PING && m.slot >= FBT_SLOT_SLOTS)
		return fbt_reply(p, &r->msg, EINVAL, NULL, 0, NULL, 0) ? -1 : 0;

	switch (r->msg.code) {
	case FBT_SLOT_PUT:
		if (r->msg.offsets_count != 1 ||
		    fbt_obj(p, &r->msg, 0)->type != FBINDER_OBJ_HANDLE) {
			code = EINVAL;
			break;
		}
		m.obj = *fbt_obj(p, &r->msg, 0);
		if (fbt_acquire(p, m.obj.handle)) {
			code = EIO;
			break;
		}
		fbt_slot_clear(p, m.slot);
		fbt_slot_table[m.slot] = m.obj.handle;
		break;
	case FBT_SLOT_GET:
		if (!fbt_slot_table[m.slot])
			return fbt_reply(p, &r->msg, ENOENT, NULL, 0, NULL, 0) ?
			       -1 : 0;
		memset(&m.obj, 0, sizeof(m.obj));
		m.obj.type = FBINDER_OBJ_HANDLE;
		m.obj.handle = fbt_slot_table[m.slot];
		return fbt_reply(p, &r->msg, 0, &m, sizeof(m), &off, 1) ?
		       -1 : 0;
	case FBT_SLOT_DROP:
		fbt_slot_clear(p, m.slot);
		break;
	case FBT_SLOT_PING:
		break;
	default:
		code = EINVAL;
	}
	return fbt_reply(p, &r->msg, code, NULL, 0, NULL, 0) ? -1 : 0;
}

static int fbt_slot_body(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	return fbt_serve(p, fbt_slot_handle, NULL) ? 1 : 0;
}

pid_t fbt_slot_spawn(void)
{
	return fbt_spawn_manager(1 << 20, FBT_SLOT_COOKIE, fbt_slot_body, NULL);
}

/*
 * A call to the manager; its reply buffer is freed here.  With handle, the
 * reply's handle is acquired first, so it outlives the buffer.
 */
static int fbt_slot_call(struct fbt_ctx *p, __u32 code, const struct fbt_slot_msg *m,
		    size_t n_objs, __u32 *handle)
{
	const struct fbinder_object *obj;
	__u64 off = FBT_SLOT_OBJ_OFF;
	struct fbt_ret r;
	int ret;

	ret = fbt_call(p, 0, code, m, sizeof(*m), n_objs ? &off : NULL,
		       n_objs, &r, NULL, NULL);
	if (ret)
		return ret;
	if (r.cmd == FBINDER_RET_FAILED)
		return r.err.error;
	ret = -(int)r.msg.code;
	if (!ret && handle) {
		obj = r.msg.offsets_count == 1 ? fbt_obj(p, &r.msg, 0) : NULL;
		if (!obj || obj->type != FBINDER_OBJ_HANDLE)
			ret = -EPROTO;
		else
			ret = fbt_acquire(p, obj->handle);
		if (!ret)
			*handle = obj->handle;
	}
	fbt_free_buffer(p, r.msg.data);
	return ret;
}

int fbt_slot_put_flags(struct fbt_ctx *p, unsigned int slot, __u64 cookie,
		  __u32 flags)
{
	struct fbt_slot_msg m = { .slot = slot };

	m.obj.type = FBINDER_OBJ_LOCAL;
	m.obj.flags = flags;
	m.obj.cookie = cookie;
	return fbt_slot_call(p, FBT_SLOT_PUT, &m, 1, NULL);
}

int fbt_slot_put(struct fbt_ctx *p, unsigned int slot, __u64 cookie)
{
	return fbt_slot_put_flags(p, slot, cookie, 0);
}

int fbt_slot_get(struct fbt_ctx *p, unsigned int slot, __u32 *handle)
{
	struct fbt_slot_msg m = { .slot = slot };

	return fbt_slot_call(p, FBT_SLOT_GET, &m, 0, handle);
}

__u32 fbt_slot_get_wait(struct fbt_ctx *p, unsigned int slot)
{
	__u32 h = 0;
	int tries, ret = -ENOENT;

	for (tries = 0; tries < 500 && ret == -ENOENT; tries++) {
		ret = fbt_slot_get(p, slot, &h);
		if (ret == -ENOENT)
			usleep(10000);
	}
	if (ret)
		die("slot %u: %s", slot, strerror(-ret));
	return h;
}

int fbt_slot_drop(struct fbt_ctx *p, unsigned int slot)
{
	struct fbt_slot_msg m = { .slot = slot };

	return fbt_slot_call(p, FBT_SLOT_DROP, &m, 0, NULL);
}

int fbt_slot_ping(struct fbt_ctx *p)
{
	struct fbt_slot_msg m = { 0 };

	return fbt_slot_call(p, FBT_SLOT_PING, &m, 0, NULL);
}
