// SPDX-License-Identifier: MIT
/*
 * object.c - local objects: the registry by cookie, and their two
 * reference counts (binderlite.h section 3).
 *
 * The application's references (refs) are plain counts.  The remote ones
 * mirror the driver: every send that carries the object as FBINDER_OBJ_LOCAL
 * is one export, counted *before* the send goes out and uncounted if it
 * fails; FBINDER_RET_RELEASE says how many exports the driver retired.  So a
 * release notice that crosses a new send never frees an object that is
 * still referred to, and no handshake with the driver is needed.  The
 * object is freed when both counts are zero.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static unsigned int bucket_of(uint64_t cookie)
{
	return (unsigned int)((cookie >> 4) % BL_OBJ_BUCKETS);
}

/* ctx->lock held.  Does not dereference anything but the registry. */
static struct bl_object *lookup_locked(struct bl_context *ctx, uint64_t cookie)
{
	struct bl_object *obj;

	for (obj = ctx->objects[bucket_of(cookie)]; obj; obj = obj->next)
		if (bl__cookie(obj) == cookie)
			return obj;
	return NULL;
}

/* ctx->lock held.  True when the caller must destroy obj after unlocking. */
static bool unlink_if_unused_locked(struct bl_object *obj)
{
	struct bl_object **pp;

	if (obj->refs || obj->exports > 0)
		return false;
	for (pp = &obj->ctx->objects[bucket_of(bl__cookie(obj))]; *pp;
	     pp = &(*pp)->next) {
		if (*pp == obj) {
			*pp = obj->next;
			return true;
		}
	}
	return false;
}

static void destroy(struct bl_object *obj)
{
	if (obj->destroy)
		obj->destroy(obj);
	bl__free(obj);
}

int bl_object_new(struct bl_context *ctx, bl_handler_fn handler,
		  bl_destroy_fn destroy_fn, void *userdata,
		  struct bl_object **out)
{
	struct bl_object *obj;
	unsigned int b;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!ctx || !handler)
		return -EINVAL;
	obj = bl__zalloc(1, sizeof(*obj));
	if (!obj)
		return -ENOMEM;
	obj->ctx = ctx;
	obj->handler = handler;
	obj->destroy = destroy_fn;
	obj->userdata = userdata;
	obj->refs = 1;
	b = bucket_of(bl__cookie(obj));
	pthread_mutex_lock(&ctx->lock);
	obj->next = ctx->objects[b];
	ctx->objects[b] = obj;
	pthread_mutex_unlock(&ctx->lock);
	*out = obj;
	return 0;
}

int bl_object_set_min_priority(struct bl_object *obj, bool rt, int prio)
{
	int ret = 0;

	if (!obj)
		return -EINVAL;
	if (rt ? prio < 1 || prio > 99 : prio < -20 || prio > 19)
		return -EINVAL;
	pthread_mutex_lock(&obj->ctx->lock);
	if (obj->ever_sent)
		ret = -EBUSY;
	else
		obj->obj_flags = (obj->obj_flags & (FBINDER_OBJF_ACCEPTS_FDS |
						    FBINDER_OBJF_TXN_SECCTX)) |
				 FBINDER_OBJF_MIN_PRIO | (rt ? FBINDER_OBJF_PRIO_RT : 0) |
				 ((uint32_t)prio & FBINDER_OBJF_PRIO_MASK);
	pthread_mutex_unlock(&obj->ctx->lock);
	return ret;
}

int bl_object_set_accept_fds(struct bl_object *obj, bool accept)
{
	int ret = 0;

	if (!obj)
		return -EINVAL;
	pthread_mutex_lock(&obj->ctx->lock);
	if (obj->ever_sent)
		ret = -EBUSY;
	else if (accept)
		obj->obj_flags |= FBINDER_OBJF_ACCEPTS_FDS;
	else
		obj->obj_flags &= ~FBINDER_OBJF_ACCEPTS_FDS;
	pthread_mutex_unlock(&obj->ctx->lock);
	return ret;
}

int bl_object_set_sender_label(struct bl_object *obj, bool want)
{
	int ret = 0;

	if (!obj)
		return -EINVAL;
	if (want && !(obj->ctx->features & FBINDER_FEATURE_SECCTX))
		return -EOPNOTSUPP;
	pthread_mutex_lock(&obj->ctx->lock);
	if (obj->ever_sent)
		ret = -EBUSY;
	else if (want)
		obj->obj_flags |= FBINDER_OBJF_TXN_SECCTX;
	else
		obj->obj_flags &= ~FBINDER_OBJF_TXN_SECCTX;
	pthread_mutex_unlock(&obj->ctx->lock);
	return ret;
}

void *bl_object_userdata(const struct bl_object *obj)
{
	return obj ? obj->userdata : NULL;
}

struct bl_context *bl_object_context(const struct bl_object *obj)
{
	return obj ? obj->ctx : NULL;
}

struct bl_object *bl_object_ref(struct bl_object *obj)
{
	if (obj) {
		pthread_mutex_lock(&obj->ctx->lock);
		obj->refs++;
		pthread_mutex_unlock(&obj->ctx->lock);
	}
	return obj;
}

void bl_object_unref(struct bl_object *obj)
{
	bool dead;

	if (!obj)
		return;
	pthread_mutex_lock(&obj->ctx->lock);
	if (obj->refs)
		obj->refs--;
	dead = unlink_if_unused_locked(obj);
	pthread_mutex_unlock(&obj->ctx->lock);
	if (dead)
		destroy(obj);
}

bool bl_object_is_exported(const struct bl_object *obj)
{
	bool exported;

	if (!obj)
		return false;
	pthread_mutex_lock(&obj->ctx->lock);
	exported = obj->exports > 0;
	pthread_mutex_unlock(&obj->ctx->lock);
	return exported;
}

/* Room for one more held reference in p. */
static int held_reserve(struct bl_parcel *p)
{
	struct bl_held_objects *h = p->held;
	size_t cap;

	if (h && h->count < h->capacity)
		return 0;
	cap = h ? h->capacity * 2 : 4;
	h = bl__realloc(h, sizeof(*h) + cap * sizeof(h->objs[0]));
	if (!h)
		return -ENOMEM;
	if (!p->held)
		h->count = 0;
	h->capacity = cap;
	p->held = h;
	return 0;
}

static int do_parcel_write_obj(struct bl_parcel *p, struct bl_object *obj)
{
	struct fbinder_object o = { .type = FBINDER_OBJ_LOCAL };
	int ret;

	if (!p || !obj)
		return -EINVAL;
	ret = held_reserve(p);
	if (ret)
		return ret;
	o.flags = obj->obj_flags;
	o.cookie = bl__cookie(obj);
	ret = bl__parcel_write_raw_object(p, &o);
	if (!ret)
		p->held->objs[p->held->count++] = bl_object_ref(obj);
	return ret;
}

int bl_parcel_write_obj(struct bl_parcel *p, struct bl_object *obj)
{
	return bl__parcel_sticky(p, do_parcel_write_obj(p, obj));
}

void bl__parcel_release_held(struct bl_parcel *p)
{
	struct bl_held_objects *h = p->held;

	if (!h)
		return;
	p->held = NULL;
	while (h->count)
		bl_object_unref(h->objs[--h->count]);
	bl__free(h);
}

struct bl_object *bl__object_lookup_ref(struct bl_context *ctx,
					uint64_t cookie)
{
	struct bl_object *obj;

	pthread_mutex_lock(&ctx->lock);
	obj = lookup_locked(ctx, cookie);
	if (obj)
		obj->refs++;
	pthread_mutex_unlock(&ctx->lock);
	return obj;
}

int bl_object_from_cookie(struct bl_context *ctx, uint64_t cookie,
			  struct bl_object **out)
{
	if (!ctx || !out)
		return -EINVAL;
	*out = bl__object_lookup_ref(ctx, cookie);
	return *out ? 0 : -ENOENT;
}

void bl__object_export_one(struct bl_object *obj, int delta)
{
	bool dead;

	pthread_mutex_lock(&obj->ctx->lock);
	obj->exports += delta;
	if (delta > 0)
		obj->ever_sent = true;
	dead = unlink_if_unused_locked(obj);
	pthread_mutex_unlock(&obj->ctx->lock);
	if (dead)
		destroy(obj);
}

/*
 * Counts (delta 1) or uncounts (-1) one export of every object of this
 * context that p carries as FBINDER_OBJ_LOCAL.  Cookies that name no object of
 * the library (written with bl_parcel_write_local()) are the caller's
 * business.
 */
void bl__objects_exported(struct bl_context *ctx, const struct bl_parcel *p,
			  int delta)
{
	struct bl_object *dead = NULL, *obj;
	size_t i;

	if (!p || !p->offsets_count)
		return;
	pthread_mutex_lock(&ctx->lock);
	for (i = 0; i < p->offsets_count; i++) {
		struct fbinder_object o;

		memcpy(&o, p->data + p->offsets[i], sizeof(o));
		if (o.type != FBINDER_OBJ_LOCAL)
			continue;
		obj = lookup_locked(ctx, o.cookie);
		if (!obj)
			continue;
		obj->exports += delta;
		if (delta > 0)
			obj->ever_sent = true;
		if (unlink_if_unused_locked(obj)) {
			obj->next = dead;
			dead = obj;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	while (dead) {
		obj = dead;
		dead = obj->next;
		destroy(obj);
	}
}

void bl__object_released(struct bl_context *ctx, uint64_t cookie,
			 uint64_t exports)
{
	struct bl_object *obj;
	bool dead = false;

	pthread_mutex_lock(&ctx->lock);
	obj = lookup_locked(ctx, cookie);
	if (obj) {
		obj->exports -= (int64_t)exports;
		dead = unlink_if_unused_locked(obj);
	}
	pthread_mutex_unlock(&ctx->lock);
	if (dead)
		destroy(obj);
}

void bl__objects_drop_all(struct bl_context *ctx)
{
	struct bl_object *obj;
	unsigned int b;

	for (b = 0; b < BL_OBJ_BUCKETS; b++) {
		while ((obj = ctx->objects[b])) {
			ctx->objects[b] = obj->next;
			destroy(obj);
		}
	}
}
