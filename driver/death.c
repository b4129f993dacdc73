// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: death notifications.
 *
 * A holder links a cookie of its choosing to one of its handles.  When the
 * node behind it dies (its owner's context closes), each link queues one
 * FB_RET_DEAD to its holder, who acknowledges it with FB_CMD_DEATH_DONE.
 * Outcomes of the corner cases are in docs/abi.md: linking to a dead node
 * notifies at once, a cookie is linked at most once (-EEXIST), unlinking
 * after the death was queued withdraws the notice and returns -EOWNERDEAD.
 * A link lives on its handle: dropping the handle drops its links.
 */
#include <linux/slab.h>

#include "internal.h"
#include "stats.h"

static struct fb_death_link *fb_death_lookup_locked(struct fb_ctx *ctx,
						    u64 cookie,
						    struct rb_node ***link,
						    struct rb_node **parent)
{
	struct rb_node **p = &ctx->deaths.rb_node;

	*parent = NULL;
	while (*p) {
		struct fb_death_link *d = rb_entry(*p, struct fb_death_link,
						   rb_node);

		*parent = *p;
		if (cookie < d->cookie)
			p = &(*p)->rb_left;
		else if (cookie > d->cookie)
			p = &(*p)->rb_right;
		else
			return d;
	}
	if (link)
		*link = p;
	return NULL;
}

static void fb_death_queue_locked(struct fb_death_link *d)
{
	list_del_init(&d->node_entry);
	d->state = FB_DEATH_QUEUED;
	fb_ctx_enqueue_locked(d->holder, &d->work, false);
}

static void fb_death_remove_locked(struct fb_death_link *d)
{
	struct fb_node *node = d->node;

	rb_erase(&d->rb_node, &d->holder->deaths);
	list_del_init(&d->node_entry);
	list_del_init(&d->handle_entry);
	list_del_init(&d->work.entry);
	kfree(d);
	fb_stat_dec(FB_STAT_LIVE_DEATHS);
	node->link_refs--;
	fb_node_check_locked(node);
}

int fb_death_link(struct fb_ctx *ctx, const struct fb_death *req)
{
	struct fb_death_link *d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	struct rb_node **link, *parent;
	struct fb_node *node;
	int ret = 0;

	if (!d)
		return -ENOMEM;
	if (req->reserved) {
		kfree(d);
		return -EINVAL;
	}
	spin_lock(&ctx->dev->lock);
	node = fb_handle_to_node_locked(ctx, req->handle);
	if (!node) {
		ret = -ENOENT;
		goto out;
	}
	if (fb_death_lookup_locked(ctx, req->cookie, &link, &parent)) {
		ret = -EEXIST;
		goto out;
	}
	d->work.type = FB_WORK_DEAD;
	INIT_LIST_HEAD(&d->work.entry);
	INIT_LIST_HEAD(&d->node_entry);
	INIT_LIST_HEAD(&d->handle_entry);
	d->holder = ctx;
	d->node = node;
	d->cookie = req->cookie;
	if (req->handle != FB_CONTEXT_MGR_HANDLE) {
		d->handle = fb_handle_lookup_locked(ctx, req->handle);
		list_add_tail(&d->handle_entry, &d->handle->deaths);
	}
	rb_link_node(&d->rb_node, parent, link);
	rb_insert_color(&d->rb_node, &ctx->deaths);
	node->link_refs++;
	fb_stat_inc(FB_STAT_LIVE_DEATHS);
	list_add_tail(&d->node_entry, &node->deaths);
	if (node->state == FB_NODE_DEAD)
		fb_death_queue_locked(d);
	d = NULL;
out:
	spin_unlock(&ctx->dev->lock);
	kfree(d);
	return ret;
}

int fb_death_unlink(struct fb_ctx *ctx, const struct fb_death *req)
{
	struct fb_death_link *d;
	struct rb_node *parent;
	int ret = 0;

	if (req->reserved)
		return -EINVAL;
	spin_lock(&ctx->dev->lock);
	d = fb_death_lookup_locked(ctx, req->cookie, NULL, &parent);
	if (!d) {
		ret = -ENOENT;
	} else if (req->handle != (d->handle ? d->handle->id :
				   FB_CONTEXT_MGR_HANDLE)) {
		ret = -EINVAL;
	} else {
		if (d->state != FB_DEATH_LINKED)
			ret = -EOWNERDEAD;
		fb_death_remove_locked(d);
	}
	spin_unlock(&ctx->dev->lock);
	return ret;
}

int fb_death_done(struct fb_ctx *ctx, u64 cookie)
{
	struct fb_death_link *d;
	struct rb_node *parent;
	int ret = 0;

	spin_lock(&ctx->dev->lock);
	d = fb_death_lookup_locked(ctx, cookie, NULL, &parent);
	if (!d)
		ret = -ENOENT;
	else if (d->state != FB_DEATH_DELIVERED)
		ret = -EINVAL;
	else
		fb_death_remove_locked(d);
	spin_unlock(&ctx->dev->lock);
	return ret;
}

/* A delivery of the notice failed: queue it again if still linked. */
void fb_death_requeue_locked(struct fb_ctx *ctx, u64 cookie)
{
	struct fb_death_link *d;
	struct rb_node *parent;

	d = fb_death_lookup_locked(ctx, cookie, NULL, &parent);
	if (d && d->state == FB_DEATH_DELIVERED) {
		d->state = FB_DEATH_QUEUED;
		list_add(&d->work.entry, &ctx->todo);
	}
}

/* The node's owner is gone: every holder linked to it hears once. */
void fb_node_deaths_fire_locked(struct fb_node *node)
{
	struct fb_death_link *d, *tmp;

	list_for_each_entry_safe(d, tmp, &node->deaths, node_entry)
		fb_death_queue_locked(d);
}

void fb_handle_drop_deaths_locked(struct fb_handle *h)
{
	struct fb_death_link *d, *tmp;

	list_for_each_entry_safe(d, tmp, &h->deaths, handle_entry)
		fb_death_remove_locked(d);
}

void fb_ctx_drop_deaths_locked(struct fb_ctx *ctx)
{
	struct rb_node *rb;

	while ((rb = rb_first(&ctx->deaths)))
		fb_death_remove_locked(rb_entry(rb, struct fb_death_link,
						rb_node));
}
