// SPDX-License-Identifier: MIT
/*
 * death.c - death recipients (binderlite.h section 6).
 *
 * The driver names a link by a cookie: the recipient's address.  The
 * dispatcher only compares cookies against the context's list and
 * dereferences nothing it did not find there, so a notice that races
 * with bl_unlink_death() can never reach freed memory.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

struct bl_death {
	struct bl_death *next;
	struct bl_context *ctx;
	uint32_t handle;
	bl_death_fn fn;
	void *userdata;
	/* under ctx->lock: */
	bool fired;		/* the notice came; fn ran or runs */
	bool running;		/* fn runs right now */
	bool unlinked;		/* bl_unlink_death() ran: free after fn */
};

static uint64_t death_cookie(const struct bl_death *d)
{
	return (uint64_t)(uintptr_t)d;
}

/* ctx->lock held. */
static struct bl_death **find_locked(struct bl_context *ctx, uint64_t cookie)
{
	struct bl_death **pp;

	for (pp = &ctx->deaths; *pp; pp = &(*pp)->next)
		if (death_cookie(*pp) == cookie)
			return pp;
	return NULL;
}

static struct fbinder_death death_cmd(const struct bl_death *d)
{
	struct fbinder_death cmd = {
		.handle = d->handle,
		.cookie = death_cookie(d),
	};

	return cmd;
}

int bl_link_death(struct bl_context *ctx, uint32_t handle, bl_death_fn fn,
		  void *userdata, struct bl_death **out)
{
	struct bl_death *d;
	struct fbinder_death cmd;
	int ret;

	if (!ctx || !fn || !out)
		return -EINVAL;
	*out = NULL;
	d = bl__zalloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->ctx = ctx;
	d->handle = handle;
	d->fn = fn;
	d->userdata = userdata;
	/* listed first: a dead object's notice may come at once */
	pthread_mutex_lock(&ctx->lock);
	d->next = ctx->deaths;
	ctx->deaths = d;
	pthread_mutex_unlock(&ctx->lock);
	cmd = death_cmd(d);
	ret = bl__command(ctx, FBINDER_CMD_LINK_DEATH, &cmd, sizeof(cmd));
	if (ret) {
		struct bl_death **pp;

		pthread_mutex_lock(&ctx->lock);
		pp = find_locked(ctx, death_cookie(d));
		if (pp)
			*pp = d->next;
		pthread_mutex_unlock(&ctx->lock);
		bl__free(d);
		return ret;
	}
	*out = d;
	return 0;
}

int bl_unlink_death(struct bl_death *d)
{
	struct bl_context *ctx;
	struct bl_death **pp;
	struct fbinder_death cmd;
	bool fired, running;
	int ret;

	if (!d)
		return -EINVAL;
	ctx = d->ctx;
	pthread_mutex_lock(&ctx->lock);
	pp = find_locked(ctx, death_cookie(d));
	if (pp)
		*pp = d->next;
	fired = d->fired;
	running = d->running;
	d->unlinked = true;
	pthread_mutex_unlock(&ctx->lock);
	if (fired) {
		/* the driver's link went with our DEATH_DONE */
		if (!running)
			bl__free(d);
		return -EOWNERDEAD;
	}
	/* off the list: a notice that comes now finds nothing */
	cmd = death_cmd(d);
	ret = bl__command(ctx, FBINDER_CMD_UNLINK_DEATH, &cmd, sizeof(cmd));
	bl__free(d);
	return ret;
}

void bl__death_fired(struct bl_io *io, uint64_t cookie)
{
	struct bl_context *ctx = io->ctx;
	struct bl_death **pp, *d = NULL;

	pthread_mutex_lock(&ctx->lock);
	pp = find_locked(ctx, cookie);
	if (pp && !(*pp)->fired) {
		d = *pp;
		d->fired = true;
		d->running = true;
	}
	pthread_mutex_unlock(&ctx->lock);
	if (d) {
		bool free_it;

		d->fn(ctx, d->handle, d->userdata);
		pthread_mutex_lock(&ctx->lock);
		d->running = false;
		free_it = d->unlinked;
		pthread_mutex_unlock(&ctx->lock);
		if (free_it)
			bl__free(d);
	}
	bl__io_put(io, FBINDER_CMD_DEATH_DONE, &cookie);
}

void bl__deaths_drop_all(struct bl_context *ctx)
{
	struct bl_death *d;

	while ((d = ctx->deaths)) {
		ctx->deaths = d->next;
		bl__free(d);
	}
}
