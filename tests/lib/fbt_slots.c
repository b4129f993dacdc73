// SPDX-License-Identifier: MIT
/*
 * fbslots.c - the slot-registry manager of the attack tests, see fbslots.h.
 */
#include "fbslots.h"

#include <unistd.h>

enum { FBS_PUT = 1, FBS_GET, FBS_DROP, FBS_PING };

/* A request: the slot, then (PUT) the object at offset 8. */
struct fbs_msg {
	__u32 slot;
	__u32 pad;
	struct fbinder_object obj;
};

#define FBS_OBJ_OFF	8

static __u32 fbs_table[FBS_SLOTS];

static void fbs_clear(struct fbp *p, unsigned int slot)
{
	if (fbs_table[slot])
		fbp_release(p, fbs_table[slot]);
	fbs_table[slot] = 0;
}

/* One request; the reply's code is 0 or a positive errno. */
static int fbs_handle(struct fbp *p, const struct fbp_ret *r, void *arg)
{
	struct fbs_msg m = { 0 };
	__u64 off = FBS_OBJ_OFF;
	__u32 code = 0;

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	if (r->msg.flags & FBINDER_TXN_ONEWAY) {
		fbp_free(p, r->msg.data);
		return 0;
	}
	if (r->msg.data_size >= sizeof(m.slot))
		memcpy(&m, fbp_data(p, &r->msg),
		       r->msg.data_size < sizeof(m) ? r->msg.data_size :
						     sizeof(m));
	if (r->msg.code != FBS_PING && m.slot >= FBS_SLOTS)
		return fbp_reply(p, &r->msg, EINVAL, NULL, 0, NULL, 0) ? -1 : 0;

	switch (r->msg.code) {
	case FBS_PUT:
		if (r->msg.offsets_count != 1 ||
		    fbp_obj(p, &r->msg, 0)->type != FBINDER_OBJ_HANDLE) {
			code = EINVAL;
			break;
		}
		m.obj = *fbp_obj(p, &r->msg, 0);
		if (fbp_acquire(p, m.obj.handle)) {
			code = EIO;
			break;
		}
		fbs_clear(p, m.slot);
		fbs_table[m.slot] = m.obj.handle;
		break;
	case FBS_GET:
		if (!fbs_table[m.slot])
			return fbp_reply(p, &r->msg, ENOENT, NULL, 0, NULL, 0) ?
			       -1 : 0;
		memset(&m.obj, 0, sizeof(m.obj));
		m.obj.type = FBINDER_OBJ_HANDLE;
		m.obj.handle = fbs_table[m.slot];
		return fbp_reply(p, &r->msg, 0, &m, sizeof(m), &off, 1) ?
		       -1 : 0;
	case FBS_DROP:
		fbs_clear(p, m.slot);
		break;
	case FBS_PING:
		break;
	default:
		code = EINVAL;
	}
	return fbp_reply(p, &r->msg, code, NULL, 0, NULL, 0) ? -1 : 0;
}

static int fbs_body(struct fbp *p, void *arg)
{
	(void)arg;
	return fbp_serve(p, fbs_handle, NULL) ? 1 : 0;
}

pid_t fbs_spawn(void)
{
	return fbp_spawn_manager(1 << 20, FBS_COOKIE, fbs_body, NULL);
}

/*
 * A call to the manager; its reply buffer is freed here.  With handle, the
 * reply's handle is acquired first, so it outlives the buffer.
 */
static int fbs_call(struct fbp *p, __u32 code, const struct fbs_msg *m,
		    size_t n_objs, __u32 *handle)
{
	const struct fbinder_object *obj;
	__u64 off = FBS_OBJ_OFF;
	struct fbp_ret r;
	int ret;

	ret = fbp_call(p, 0, code, m, sizeof(*m), n_objs ? &off : NULL,
		       n_objs, &r, NULL, NULL);
	if (ret)
		return ret;
	if (r.cmd == FBINDER_RET_FAILED)
		return r.err.error;
	ret = -(int)r.msg.code;
	if (!ret && handle) {
		obj = r.msg.offsets_count == 1 ? fbp_obj(p, &r.msg, 0) : NULL;
		if (!obj || obj->type != FBINDER_OBJ_HANDLE)
			ret = -EPROTO;
		else
			ret = fbp_acquire(p, obj->handle);
		if (!ret)
			*handle = obj->handle;
	}
	fbp_free(p, r.msg.data);
	return ret;
}

int fbs_put_flags(struct fbp *p, unsigned int slot, __u64 cookie,
		  __u32 flags)
{
	struct fbs_msg m = { .slot = slot };

	m.obj.type = FBINDER_OBJ_LOCAL;
	m.obj.flags = flags;
	m.obj.cookie = cookie;
	return fbs_call(p, FBS_PUT, &m, 1, NULL);
}

int fbs_put(struct fbp *p, unsigned int slot, __u64 cookie)
{
	return fbs_put_flags(p, slot, cookie, 0);
}

int fbs_get(struct fbp *p, unsigned int slot, __u32 *handle)
{
	struct fbs_msg m = { .slot = slot };

	return fbs_call(p, FBS_GET, &m, 0, handle);
}

__u32 fbs_get_wait(struct fbp *p, unsigned int slot)
{
	__u32 h = 0;
	int tries, ret = -ENOENT;

	for (tries = 0; tries < 500 && ret == -ENOENT; tries++) {
		ret = fbs_get(p, slot, &h);
		if (ret == -ENOENT)
			usleep(10000);
	}
	if (ret)
		die("slot %u: %s", slot, strerror(-ret));
	return h;
}

int fbs_drop(struct fbp *p, unsigned int slot)
{
	struct fbs_msg m = { .slot = slot };

	return fbs_call(p, FBS_DROP, &m, 0, NULL);
}

int fbs_ping(struct fbp *p)
{
	struct fbs_msg m = { 0 };

	return fbs_call(p, FBS_PING, &m, 0, NULL);
}
