// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: death notifications.
 *
 * A holder links a cookie of its choosing to one of its handles.  When the
 * node behind it dies (its owner's context closes), each link queues one
 * FBINDER_RET_DEAD to its holder, who acknowledges it with FBINDER_CMD_DEATH_DONE.
 * Outcomes of the corner cases are in docs/abi.md: linking to a dead node
 * notifies at once, a cookie is linked at most once (-EEXIST), unlinking
 * after the death was queued withdraws the notice and returns -EOWNERDEAD.
 * A link lives on its handle: dropping the handle drops its links.
 */
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "internal.h"
#include "stats.h"

/*
 * Each link is kernel memory the holder pins at will (handle 0 is there
 * for everyone to link): charged to the holder, and bounded per context.
 * The default lets a context link every handle it may hold once.
 */
unsigned int fbinder_max_death_links = 65536;
module_param_named(max_death_links, fbinder_max_death_links, uint, 0644);
MODULE_PARM_DESC(max_death_links, "Most death links one context may hold (default 65536)");

#define fbinder_death_of(n)	rb_entry((n), struct fbinder_death_link, rb_node)

/* holder->deaths: by cookie */
static int fbinder_death_cmp(const void *cookie, const struct rb_node *n)
{
	return fbinder_cmp(*(const u64 *)cookie, fbinder_death_of(n)->cookie);
}

static bool fbinder_death_less(struct rb_node *a, const struct rb_node *b)
{
	return fbinder_death_of(a)->cookie < fbinder_death_of(b)->cookie;
}

static struct fbinder_death_link *fbinder_death_lookup_locked(struct fbinder_ctx *ctx,
							      u64 cookie)
{
	struct rb_node *n;

	lockdep_assert_held(&ctx->dev->lock);
	n = rb_find(&cookie, &ctx->deaths, fbinder_death_cmp);
	return n ? fbinder_death_of(n) : NULL;
}

/* The notice goes on its holder's todo, under the holder's lock. */
static void fbinder_death_queue_locked(struct fbinder_death_link *d)
{
	lockdep_assert_held(&d->holder->dev->lock);
	list_del_init(&d->node_entry);
	spin_lock(&d->holder->lock);
	d->state = FBINDER_DEATH_QUEUED;
	fbinder_ctx_enqueue_clocked(d->holder, &d->work, false);
	spin_unlock(&d->holder->lock);
}

/* A link's state: its holder's reads change it (fbinder_take_work_clocked()). */
static enum fbinder_death_state fbinder_death_state_locked(struct fbinder_death_link *d)
{
	enum fbinder_death_state state;

	lockdep_assert_held(&d->holder->dev->lock);
	spin_lock(&d->holder->lock);
	state = d->state;
	spin_unlock(&d->holder->lock);
	return state;
}

/*
 * Takes the link out of every list and tree and frees it, or, with freed,
 * leaves it there (by its work entry) for fbinder_death_free_list() once the
 * lock is dropped: a batch frees its links outside the lock.  No context
 * lock held: it takes the holder's, then the node owner's.
 */
static void fbinder_death_remove_locked(struct fbinder_death_link *d,
					struct list_head *freed)
{
	struct fbinder_node *node = d->node;

	lockdep_assert_held(&d->holder->dev->lock);
	rb_erase(&d->rb_node, &d->holder->deaths);
	d->holder->nr_deaths--;
	list_del_init(&d->node_entry);
	list_del_init(&d->handle_entry);
	/* a link leaves LINKED under this lock only: then it is on no queue */
	if (READ_ONCE(d->state) != FBINDER_DEATH_LINKED) {
		spin_lock(&d->holder->lock);
		list_del_init(&d->work.entry);
		spin_unlock(&d->holder->lock);
	}
	if (freed)
		list_add(&d->work.entry, freed);
	else
		kfree(d);
	fbinder_stat_dec(FBINDER_STAT_LIVE_DEATHS);
	node->link_refs--;
	/* only a dead node or a region waits for its links */
	if (node->state == FBINDER_NODE_DEAD || node->region)
		fbinder_node_check_locked(node);
}

void fbinder_death_free_list(struct list_head *freed)
{
	struct fbinder_death_link *d, *tmp;

	list_for_each_entry_safe(d, tmp, freed, work.entry)
		kfree(d);
	INIT_LIST_HEAD(freed);
}

int fbinder_death_link(struct fbinder_ctx *ctx, const struct fbinder_death *req)
{
	struct fbinder_death_link *d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	struct fbinder_node *node;
	int ret = 0;

	if (!d)
		return -ENOMEM;
	if (req->reserved) {
		kfree(d);
		return -EINVAL;
	}
	spin_lock(&ctx->dev->lock);
	node = fbinder_handle_to_node_locked(ctx, req->handle);
	if (!node) {
		ret = -ENOENT;
		goto out;
	}
	if (fbinder_death_lookup_locked(ctx, req->cookie)) {
		ret = -EEXIST;
		goto out;
	}
	if (ctx->nr_deaths >= fbinder_max_death_links) {
		ret = -EDQUOT;
		goto out;
	}
	d->work.type = FBINDER_WORK_DEAD;
	INIT_LIST_HEAD(&d->work.entry);
	INIT_LIST_HEAD(&d->node_entry);
	INIT_LIST_HEAD(&d->handle_entry);
	d->holder = ctx;
	d->node = node;
	d->cookie = req->cookie;
	if (req->handle != FBINDER_CONTEXT_MGR_HANDLE) {
		d->handle = fbinder_handle_lookup_locked(ctx, req->handle);
		list_add_tail(&d->handle_entry, &d->handle->deaths);
	}
	rb_add(&d->rb_node, &ctx->deaths, fbinder_death_less);
	ctx->nr_deaths++;
	node->link_refs++;
	fbinder_stat_inc(FBINDER_STAT_LIVE_DEATHS);
	list_add_tail(&d->node_entry, &node->deaths);
	if (node->state == FBINDER_NODE_DEAD)
		fbinder_death_queue_locked(d);
	d = NULL;
out:
	spin_unlock(&ctx->dev->lock);
	kfree(d);
	return ret;
}

int fbinder_death_unlink(struct fbinder_ctx *ctx, const struct fbinder_death *req)
{
	struct fbinder_death_link *d;
	int ret = 0;

	if (req->reserved)
		return -EINVAL;
	spin_lock(&ctx->dev->lock);
	d = fbinder_death_lookup_locked(ctx, req->cookie);
	if (!d) {
		ret = -ENOENT;
	} else if (req->handle != (d->handle ? d->handle->id :
				   FBINDER_CONTEXT_MGR_HANDLE)) {
		ret = -EINVAL;
	} else {
		if (fbinder_death_state_locked(d) != FBINDER_DEATH_LINKED)
			ret = -EOWNERDEAD;
		fbinder_death_remove_locked(d, NULL);
	}
	spin_unlock(&ctx->dev->lock);
	return ret;
}

int fbinder_death_done(struct fbinder_ctx *ctx, u64 cookie)
{
	struct fbinder_death_link *d;
	int ret = 0;

	spin_lock(&ctx->dev->lock);
	d = fbinder_death_lookup_locked(ctx, cookie);
	if (!d)
		ret = -ENOENT;
	else if (fbinder_death_state_locked(d) != FBINDER_DEATH_DELIVERED)
		ret = -EINVAL;
	else
		fbinder_death_remove_locked(d, NULL);
	spin_unlock(&ctx->dev->lock);
	return ret;
}

/* A delivery of the notice failed: queue it again if still linked. */
void fbinder_death_requeue_locked(struct fbinder_ctx *ctx, u64 cookie)
{
	struct fbinder_death_link *d;

	lockdep_assert_held(&ctx->dev->lock);
	lockdep_assert_held(&ctx->lock);
	d = fbinder_death_lookup_locked(ctx, cookie);
	if (d && d->state == FBINDER_DEATH_DELIVERED) {
		d->state = FBINDER_DEATH_QUEUED;
		list_add(&d->work.entry, &ctx->todo);
	}
}

/*
 * Nodes of a closed context that holders linked to (fbinder_ctx_drop_nodes_locked()
 * put them on dying): every link queues its FBINDER_RET_DEAD, once, a batch at a
 * time, the device lock dropped in between.  Meanwhile the nodes are dead
 * already: a send to one fails, a new link is told at once, an unlink
 * finds its link not yet told.  A dead region's children die next, one
 * per step (region.c).  Then the node loses its pin.
 */
void fbinder_nodes_fire_deaths(struct fbinder_device *dev, struct list_head *dying)
{
	struct fbinder_death_link *d;
	struct fbinder_node *node;
	struct fbinder_hold b;

	spin_lock(&dev->lock);
	fbinder_hold_start_locked(&b, dev);
	while ((node = list_first_entry_or_null(dying, struct fbinder_node,
						work.entry))) {
		d = list_first_entry_or_null(&node->deaths,
					     struct fbinder_death_link, node_entry);
		if (d) {
			fbinder_death_queue_locked(d);
		} else if (fbinder_region_kill_child_locked(node, dying)) {
			/* a region's children die after its own notices */
		} else {
			list_del_init(&node->work.entry);
			node->tmp_refs--;
			fbinder_node_check_locked(node);
		}
		fbinder_hold_step_relock(&b);
	}
	fbinder_hold_end_locked(&b);
	spin_unlock(&dev->lock);
}

/*
 * Drops a batch of the handle's links, freed or left on freed as
 * fbinder_death_remove_locked() says; true when some are left.
 */
bool fbinder_handle_drop_deaths_locked(struct fbinder_handle *h,
				       struct list_head *freed)
{
	struct fbinder_death_link *d;
	int n;

	lockdep_assert_held(&h->ctx->dev->lock);
	for (n = 0; n < FBINDER_BATCH; n++) {
		d = list_first_entry_or_null(&h->deaths, struct fbinder_death_link,
					     handle_entry);
		if (!d)
			return false;
		fbinder_death_remove_locked(d, freed);
	}
	return !list_empty(&h->deaths);
}

/*
 * The holder is ending: its links go a batch at a time, the device lock
 * dropped in between, so that max_death_links of them do not keep every
 * other context waiting.  Nothing links for an ended context (only its
 * own ioctls do), and a notice queued meanwhile (a node died) goes with
 * its link.
 */
void fbinder_ctx_drop_deaths(struct fbinder_ctx *ctx)
{
	struct fbinder_device *dev = ctx->dev;
	struct fbinder_hold b;
	struct rb_node *rb;
	LIST_HEAD(freed);
	int n;

	do {
		spin_lock(&dev->lock);
		fbinder_hold_start_locked(&b, dev);
		for (n = 0; n < FBINDER_BATCH && (rb = rb_first(&ctx->deaths));
		     n++)
			fbinder_death_remove_locked(rb_entry(rb, struct fbinder_death_link,
							     rb_node), &freed);
		b.n = n;
		fbinder_hold_end_locked(&b);
		spin_unlock(&dev->lock);
		fbinder_death_free_list(&freed);
		cond_resched();
	} while (n == FBINDER_BATCH);
}
