// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: memory regions, a range of the owner's address space that
 * holders of a region handle copy from or into, one copy, by capability.
 *
 * A region is a node (no cookie, not in its owner's tree) with a struct
 * fbinder_region; its handles are ordinary handles, so references, release
 * and death links work as for any node.  A holder narrows a region into a
 * new one (a sub-range, fewer rights) that it owns and may revoke; the
 * chain of regions from a narrowed one up to its root is at most
 * FBINDER_REGION_MAX_DEPTH long, and a region is usable only while every
 * region of its chain is live.  A region dies when it is revoked, when its
 * owner's context ends, or when an ancestor dies; the holders of a dead
 * region's handles get its death notices (death.c walks the children).
 *
 * A root region holds its owner's mm_struct (mmgrab(): the struct and
 * page-table root, never the pages) while it is live, and lets go of it
 * when it dies: a dead owner's address space is not kept for the holders
 * of its handles, whose copies fail with EOWNERDEAD anyway.  A copy holds
 * the mm_struct itself for the command's length (taken while the chain was
 * usable), and goes a chunk of pages at a time, each through the owner's
 * page tables as they are then (pin_user_pages_remote() under the owner's
 * mmap lock, with mmget_not_zero() for the duration: an address space
 * torn down by exit or left by exec is gone for good).  The bytes move
 * in a window with page faults disabled and no lock held, counted in
 * fbinder_region.copying of every region of the chain: revoke marks the
 * region dead, then waits for that count to drain, so no copy through it
 * touches the owner's memory once revoke returned, and the wait is one
 * window long (the caller's own faults are taken outside it).
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "internal.h"
#include "stats.h"

/*
 * Pages pinned and copied in one step: the fixed cost of a step (the
 * owner's mmap lock, two device-lock holds) spread over 1 MiB, and a
 * revoke waits for at most that much copying.  process_vm_readv pins up
 * to 1024 pages at a time.
 */
#define FBINDER_REGION_CHUNK	256
/* Bytes one copy command moves before it returns EINTR to be called again. */
#define FBINDER_REGION_CMD_BYTES	(16UL << 20)

/* Chunks in a row that move nothing (the caller's page went again) before EFAULT. */
#define FBINDER_REGION_STALLS	8

static DECLARE_WAIT_QUEUE_HEAD(fbinder_region_wait);

/* A live root region's hold of its owner's mm_struct. */
struct fbinder_region_mm {
	struct mm_struct *mm;
	struct llist_node entry;	/* dropped after the lock */
};

/* mm_structs that live roots hold, for debugfs (live_region_mms). */
static atomic_long_t fbinder_region_mms = ATOMIC_LONG_INIT(0);

long fbinder_region_mms_held(void)
{
	return atomic_long_read(&fbinder_region_mms);
}

/*
 * Dropping an mm_struct (mmdrop()) must not happen under the device lock,
 * nor can a region be freed before the drop of its hold ran: both wait
 * on lists for a work item, holds first.
 */
static LLIST_HEAD(fbinder_region_mm_list);
static LLIST_HEAD(fbinder_region_free_list);

static void fbinder_region_free_work(struct work_struct *work)
{
	struct llist_node *mms = llist_del_all(&fbinder_region_mm_list);
	struct llist_node *list = llist_del_all(&fbinder_region_free_list);
	struct fbinder_region_mm *rm, *rtmp;
	struct fbinder_region *r, *tmp;

	llist_for_each_entry_safe(rm, rtmp, mms, entry) {
		mmdrop(rm->mm);
		kfree(rm);
		atomic_long_dec(&fbinder_region_mms);
	}
	llist_for_each_entry_safe(r, tmp, list, free_entry) {
		kfree(r);
		fbinder_stat_dec(FBINDER_STAT_LIVE_REGIONS);
	}
}

static DECLARE_WORK(fbinder_region_free, fbinder_region_free_work);

/* Module exit: every context is gone, so no region is freed after this. */
void fbinder_regions_exit(void)
{
	flush_work(&fbinder_region_free);
}

/*
 * A root lets go of its owner's mm_struct (the work item drops it), when
 * it dies or is freed live.  r->mm is not looked at after this: a region
 * is used only while its whole chain, root included, is live.
 */
static void fbinder_region_put_mm_locked(struct fbinder_region *r)
{
	lockdep_assert_held(&r->node->dev->lock);
	if (!r->mm_hold)
		return;
	llist_add(&r->mm_hold->entry, &fbinder_region_mm_list);
	r->mm_hold = NULL;
	r->mm = NULL;
	schedule_work(&fbinder_region_free);
}

/* The node is being freed (fbinder_node_free_locked()): its region goes. */
void fbinder_region_free_locked(struct fbinder_node *node)
{
	struct fbinder_region *r = node->region;
	struct fbinder_node *parent = r->parent;

	lockdep_assert_held(&node->dev->lock);
	fbinder_region_put_mm_locked(r);
	list_del(&r->owner_entry);
	list_del(&r->child_entry);
	node->region = NULL;
	if (llist_add(&r->free_entry, &fbinder_region_free_list))
		schedule_work(&fbinder_region_free);
	if (parent) {
		parent->region->nr_children--;
		fbinder_node_check_locked(parent);
	}
}

/*
 * fbinder_node_check_locked() for a region: true when nothing refers to
 * it any more (no handle, copy, link or narrowed region), so it goes.
 */
bool fbinder_region_check_locked(struct fbinder_node *node)
{
	lockdep_assert_held(&node->dev->lock);
	if (node->handle_count || node->tmp_refs || node->link_refs ||
	    node->region->nr_children)
		return false;
	if (node->state == FBINDER_NODE_LIVE)
		node->owner->nr_regions--;
	return true;
}

/*
 * The region dies (err: -EKEYREVOKED or -EOWNERDEAD).  When holders linked
 * to it or regions were narrowed from it, it goes on *dying for
 * fbinder_nodes_fire_deaths(), pinned: the notices, then the children.
 */
static void fbinder_region_kill_locked(struct fbinder_node *node, int err,
				       struct list_head *dying)
{
	struct fbinder_region *r = node->region;

	lockdep_assert_held(&node->dev->lock);
	node->owner->nr_regions--;
	node->owner = NULL;
	node->state = FBINDER_NODE_DEAD;
	r->dead_err = err;
	fbinder_region_put_mm_locked(r);
	list_del_init(&r->owner_entry);
	list_del_init(&r->child_entry);
	if (!list_empty(&node->deaths) || !list_empty(&r->children)) {
		node->tmp_refs++;
		list_add_tail(&node->work.entry, dying);
	}
	fbinder_node_check_locked(node);
}

/*
 * For fbinder_nodes_fire_deaths(): kills one live region narrowed from
 * node, a dead region; false when none is left.
 */
bool fbinder_region_kill_child_locked(struct fbinder_node *node, struct list_head *dying)
{
	struct fbinder_region *child;

	lockdep_assert_held(&node->dev->lock);
	if (!node->region)
		return false;
	child = list_first_entry_or_null(&node->region->children,
					 struct fbinder_region, child_entry);
	if (!child)
		return false;
	fbinder_region_kill_locked(child->node, node->region->dead_err, dying);
	return true;
}

/*
 * The context ends: a region it owns dies; false when none was left (the
 * caller drops the lock between them, fbinder_ctx_end()).
 */
bool fbinder_ctx_drop_region_locked(struct fbinder_ctx *ctx, struct list_head *dying)
{
	struct fbinder_region *r;

	lockdep_assert_held(&ctx->dev->lock);
	r = list_first_entry_or_null(&ctx->regions, struct fbinder_region,
				     owner_entry);
	if (!r)
		return false;
	fbinder_region_kill_locked(r->node, -EOWNERDEAD, dying);
	return true;
}

/* 0 when every region of node's chain is live, else why not. */
static int fbinder_region_usable_locked(struct fbinder_node *node)
{
	lockdep_assert_held(&node->dev->lock);
	for (; node; node = node->region->parent)
		if (node->state != FBINDER_NODE_LIVE)
			return node->region->dead_err;
	return 0;
}

/* The region node behind a handle of ctx. */
static int fbinder_region_lookup_locked(struct fbinder_ctx *ctx, u32 id,
					struct fbinder_node **out)
{
	struct fbinder_handle *h;

	lockdep_assert_held(&ctx->dev->lock);
	h = id == FBINDER_CONTEXT_MGR_HANDLE ? NULL :
	    fbinder_handle_lookup_locked(ctx, id);
	if (!h)
		return -ENOENT;
	if (!h->node->region)
		return -EINVAL;
	*out = h->node;
	return 0;
}

/*
 * A new region node owned by ctx, and ctx's handle of it with one
 * reference (as FBINDER_CMD_ACQUIRE).  parent is NULL for a root, which
 * takes r's mm.  Frees r on failure.
 */
static int fbinder_region_add(struct fbinder_ctx *ctx, struct fbinder_region *r,
			      struct fbinder_node *parent, u32 *handle)
{
	struct fbinder_node *node = fbinder_node_new();
	struct fbinder_handle *spare = fbinder_handle_new();
	struct fbinder_device *dev = ctx->dev;
	struct fbinder_handle *h;
	int ret;

	if (!node || !spare) {
		ret = -ENOMEM;
		goto err;
	}
	spin_lock(&dev->lock);
	if (ctx->dead) {
		ret = -EOWNERDEAD;
		goto err_unlock;
	}
	if (ctx->nr_regions >= fbinder_max_handles) {
		ret = -EDQUOT;
		goto err_unlock;
	}
	if (parent) {
		ret = fbinder_region_usable_locked(parent);
		if (ret)
			goto err_unlock;
		/* borrowed from the root, which outlives r's use */
		r->mm = parent->region->mm;
	}
	/* a region: its handle's count changes under the device lock alone */
	node->region = r;
	node->dev = dev;
	ret = fbinder_handle_for_node_locked(ctx, node, &spare, &h);
	if (ret)
		goto err_unlock;
	node->owner = ctx;
	node->state = FBINDER_NODE_LIVE;
	node->debug_id = fbinder_node_new_id();
	r->node = node;
	r->parent = parent;
	list_add_tail(&r->owner_entry, &ctx->regions);
	ctx->nr_regions++;
	if (parent) {
		parent->region->nr_children++;
		list_add_tail(&r->child_entry, &parent->region->children);
	}
	spin_lock(&ctx->lock);
	h->user_refs = 1;	/* its counts change under ctx's lock too */
	spin_unlock(&ctx->lock);
	*handle = h->id;
	fbinder_stat_inc(FBINDER_STAT_LIVE_NODES);
	fbinder_stat_inc(FBINDER_STAT_LIVE_REGIONS);
	spin_unlock(&dev->lock);
	return 0;

err_unlock:
	spin_unlock(&dev->lock);
err:
	if (r->mm_hold) {
		mmdrop(r->mm_hold->mm);
		kfree(r->mm_hold);
		atomic_long_dec(&fbinder_region_mms);
	}
	kfree(r);
	kfree(node);
	kfree(spare);
	return ret;
}

static struct fbinder_region *fbinder_region_alloc(void)
{
	struct fbinder_region *r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);

	if (!r)
		return NULL;
	INIT_LIST_HEAD(&r->owner_entry);
	INIT_LIST_HEAD(&r->children);
	INIT_LIST_HEAD(&r->child_entry);
	return r;
}

#define FBINDER_REGION_RIGHTS	(FBINDER_REGION_READ | FBINDER_REGION_WRITE)

/* FBINDER_IOC_REGION_CREATE: a root region of the caller's own memory. */
static int fbinder_region_create(struct fbinder_ctx *ctx, struct fbinder_region_create *arg)
{
	struct fbinder_region *r;

	if (!arg->rights || arg->rights & ~FBINDER_REGION_RIGHTS || arg->handle ||
	    !arg->size || arg->addr + arg->size < arg->addr ||
	    !access_ok(u64_to_user_ptr(arg->addr), arg->size))
		return -EINVAL;
	if (!current->mm)
		return -EINVAL;
	r = fbinder_region_alloc();
	if (!r)
		return -ENOMEM;
	r->mm_hold = kmalloc(sizeof(*r->mm_hold), GFP_KERNEL_ACCOUNT);
	if (!r->mm_hold) {
		kfree(r);
		return -ENOMEM;
	}
	r->start = arg->addr;
	r->size = arg->size;
	r->rights = arg->rights;
	r->depth = 1;
	/* the struct only: the address space itself may go (exit, exec) */
	mmgrab(current->mm);
	atomic_long_inc(&fbinder_region_mms);
	r->mm = current->mm;
	r->mm_hold->mm = current->mm;
	return fbinder_region_add(ctx, r, NULL, &arg->handle);
}

/* FBINDER_IOC_REGION_NARROW: a sub-range with a subset of the rights. */
static int fbinder_region_narrow(struct fbinder_ctx *ctx, struct fbinder_region_narrow *arg)
{
	struct fbinder_device *dev = ctx->dev;
	struct fbinder_node *parent;
	struct fbinder_region *r, *pr = NULL;
	int ret;

	if (arg->reserved || arg->new_handle || !arg->size ||
	    !arg->rights || arg->rights & ~FBINDER_REGION_RIGHTS)
		return -EINVAL;
	r = fbinder_region_alloc();
	if (!r)
		return -ENOMEM;
	spin_lock(&dev->lock);
	ret = fbinder_region_lookup_locked(ctx, arg->handle, &parent);
	if (!ret) {
		pr = parent->region;
		if (arg->rights & ~pr->rights)
			ret = -EACCES;
		else if (arg->offset > pr->size || arg->size > pr->size - arg->offset)
			ret = -EINVAL;
		else if (pr->depth >= FBINDER_REGION_MAX_DEPTH)
			ret = -ELOOP;
		else
			ret = fbinder_region_usable_locked(parent);
	}
	if (!ret && pr) {
		r->start = pr->start + arg->offset;
		r->size = arg->size;
		r->rights = arg->rights;
		r->depth = pr->depth + 1;
		/* kept alive by our handle until the new region holds it */
		parent->tmp_refs++;
	}
	spin_unlock(&dev->lock);
	if (ret) {
		kfree(r);
		return ret;
	}
	ret = fbinder_region_add(ctx, r, parent, &arg->new_handle);
	spin_lock(&dev->lock);
	parent->tmp_refs--;
	fbinder_node_check_locked(parent);
	spin_unlock(&dev->lock);
	return ret;
}

/* FBINDER_IOC_REGION_INFO: size and rights, or why it is unusable. */
static int fbinder_region_info(struct fbinder_ctx *ctx, struct fbinder_region_info *arg)
{
	struct fbinder_node *node;
	int ret;

	if (arg->rights || arg->size)
		return -EINVAL;
	spin_lock(&ctx->dev->lock);
	ret = fbinder_region_lookup_locked(ctx, arg->handle, &node);
	if (!ret)
		ret = fbinder_region_usable_locked(node);
	if (!ret) {
		arg->rights = node->region->rights;
		arg->size = node->region->size;
	}
	spin_unlock(&ctx->dev->lock);
	return ret;
}

static bool fbinder_region_idle(struct fbinder_node *node)
{
	bool idle;

	spin_lock(&node->dev->lock);
	idle = !node->region->copying;
	spin_unlock(&node->dev->lock);
	return idle;
}

/*
 * FBINDER_IOC_REGION_REVOKE: only the region's owner (its creator, or the
 * holder that narrowed it) may.  Returns once no copy through it or a
 * region narrowed from it touches the owner's memory any more.
 */
static int fbinder_region_revoke(struct fbinder_ctx *ctx, u32 handle)
{
	struct fbinder_device *dev = ctx->dev;
	struct fbinder_node *node;
	LIST_HEAD(dying);
	int ret;

	spin_lock(&dev->lock);
	ret = fbinder_region_lookup_locked(ctx, handle, &node);
	if (!ret && node->state != FBINDER_NODE_LIVE)
		ret = node->region->dead_err;
	else if (!ret && node->owner != ctx)
		ret = -EPERM;
	if (ret) {
		spin_unlock(&dev->lock);
		return ret;
	}
	node->tmp_refs++;
	fbinder_region_kill_locked(node, -EKEYREVOKED, &dying);
	spin_unlock(&dev->lock);
	/* the notices, and the regions narrowed from it die */
	fbinder_nodes_fire_deaths(dev, &dying);
	wait_event(fbinder_region_wait, fbinder_region_idle(node));
	spin_lock(&dev->lock);
	node->tmp_refs--;
	fbinder_node_check_locked(node);
	spin_unlock(&dev->lock);
	return 0;
}

/*
 * The region ioctls.  A new handle whose number cannot be copied out is
 * released again: nothing stays behind that user space cannot name.
 */
long fbinder_region_ioctl(struct fbinder_ctx *ctx, unsigned int cmd, void __user *uarg)
{
	union {
		struct fbinder_region_create create;
		struct fbinder_region_narrow narrow;
		struct fbinder_region_info info;
		u32 handle;
	} a;
	size_t size = _IOC_SIZE(cmd);
	u32 made = 0;
	int ret;

	if (copy_from_user(&a, uarg, size))
		return -EFAULT;
	switch (cmd) {
	case FBINDER_IOC_REGION_CREATE:
		ret = fbinder_region_create(ctx, &a.create);
		made = a.create.handle;
		break;
	case FBINDER_IOC_REGION_NARROW:
		ret = fbinder_region_narrow(ctx, &a.narrow);
		made = a.narrow.new_handle;
		break;
	case FBINDER_IOC_REGION_INFO:
		ret = fbinder_region_info(ctx, &a.info);
		break;
	default:
		return fbinder_region_revoke(ctx, a.handle);
	}
	if (ret)
		return ret;
	if (copy_to_user(uarg, &a, size)) {
		if (made)
			fbinder_handle_release(ctx, made);
		return -EFAULT;
	}
	return 0;
}

/* ---- copies ---- */

/* One copy command on its way. */
struct fbinder_region_op {
	struct fbinder_node *node;
	struct mm_struct *mm;
	unsigned long start;		/* in mm, of the first byte to copy */
	bool to_region;
	struct iovec *iov;		/* the caller's, read once */
	struct iov_iter iter;		/* over iov, at the next byte */
	struct page **pages;		/* one step's pinned pages */
	unsigned long max_pages;	/* entries of pages */
	u64 total;			/* bytes of all iov */
	u64 done;
};

/* Counts a window of the copier in (+1) or out (-1) of every chain region. */
static bool fbinder_region_window_locked(struct fbinder_node *node, int delta)
{
	bool wake = false;

	lockdep_assert_held(&node->dev->lock);
	for (; node; node = node->region->parent) {
		node->region->copying += delta;
		wake |= !node->region->copying && node->state != FBINDER_NODE_LIVE;
	}
	return wake;
}

/*
 * Pins up to nr pages of the owner's at addr (page aligned) through its
 * page tables as they are now.  The number pinned, or -errno: EOWNERDEAD
 * when the address space is gone, EFAULT when the first page is not
 * there with the access asked for, EINTR when a signal (any: an owner
 * that never resolves its fault must not wedge the copier) ended a wait.
 */
static long fbinder_region_pin(struct fbinder_region_op *op, unsigned long addr,
			       unsigned long nr, struct page **pages)
{
	unsigned int flags = op->to_region ? FOLL_WRITE : 0;
	int locked = 1;
	long got;

	if (!mmget_not_zero(op->mm))
		return -EOWNERDEAD;
	if (mmap_read_lock_killable(op->mm)) {
		mmput(op->mm);
		return -EINTR;
	}
	got = fbinder_pin_remote_interruptible(op->mm, addr, nr, flags, pages,
					       &locked);
	if (locked)
		mmap_read_unlock(op->mm);
	mmput(op->mm);
	if (got > 0)
		return got;
	if (got == -ENOMEM)
		return got;
	return got == -EINTR || signal_pending(current) ? -EINTR : -EFAULT;
}

/*
 * Brings in the caller's pages at the iovec cursor, outside any window:
 * their faults may sleep (even on userfaultfd).  -EFAULT when the first
 * cannot come in.
 */
static int fbinder_region_fault_in(struct fbinder_region_op *op)
{
	size_t len = min_t(size_t, iov_iter_count(&op->iter),
			   FBINDER_REGION_CHUNK * PAGE_SIZE);
	size_t left;

	if (op->to_region)
		left = fault_in_iov_iter_readable(&op->iter, len);
	else
		left = fault_in_iov_iter_writeable(&op->iter, len);
	return left == len ? -EFAULT : 0;
}

/*
 * One step: pin the owner's pages, check the chain is still usable and
 * open the window, move the bytes with page faults disabled (the
 * caller's fault must not hold a revoke up), close it, unpin.  0
 * (op->done moved on, maybe by nothing when the caller's page must be
 * faulted in first: done here) or -errno.  copy_page_to_iter() and
 * copy_page_from_iter() move a pinned page without the hardened-usercopy
 * object check a copy from a kernel address pays.
 */
static int fbinder_region_chunk(struct fbinder_region_op *op, u64 limit)
{
	struct page **pages = op->pages;
	struct fbinder_device *dev = op->node->dev;
	unsigned long addr = op->start + op->done;
	unsigned long first = addr & PAGE_MASK;
	u64 want = min(op->total - op->done, limit);
	unsigned long nr = min_t(u64, op->max_pages,
				 DIV_ROUND_UP(addr - first + want, PAGE_SIZE));
	size_t poff = addr - first, moved = 0, n, m;
	bool wake, faulted = false;
	long got, i;
	int ret;

	got = fbinder_region_pin(op, first, nr, pages);
	if (got < 0)
		return got;
	spin_lock(&dev->lock);
	ret = fbinder_region_usable_locked(op->node);
	if (!ret)
		fbinder_region_window_locked(op->node, 1);
	spin_unlock(&dev->lock);
	if (!ret) {
		pagefault_disable();
		for (i = 0; i < got && moved < want && !faulted; i++) {
			n = min_t(u64, PAGE_SIZE - poff, want - moved);
			if (op->to_region)
				m = copy_page_from_iter(pages[i], poff, n, &op->iter);
			else
				m = copy_page_to_iter(pages[i], poff, n, &op->iter);
			moved += m;
			faulted = m < n;
			poff = 0;
		}
		pagefault_enable();
		spin_lock(&dev->lock);
		wake = fbinder_region_window_locked(op->node, -1);
		spin_unlock(&dev->lock);
		if (wake)
			wake_up_all(&fbinder_region_wait);
	}
	if (op->to_region)
		unpin_user_pages_dirty_lock(pages, got, moved > 0);
	else
		unpin_user_pages(pages, got);
	op->done += moved;
	if (!ret && faulted)
		ret = fbinder_region_fault_in(op);
	return ret;
}

/*
 * Reads the caller's iovecs, checks them and sets the iterator over them
 * at done.
 */
static int fbinder_region_read_iov(struct fbinder_region_op *op,
				   const struct fbinder_region_copy *c)
{
	struct fbinder_iovec *uv, v;
	u32 i, nr = c->iov_count;

	/* the uapi's array is read at once and turned into iovecs in place */
	static_assert(sizeof(struct iovec) <= sizeof(struct fbinder_iovec));
	if (nr > FBINDER_REGION_MAX_IOV)
		return -EINVAL;
	if (nr) {
		uv = kmalloc_array(nr, sizeof(*uv), GFP_KERNEL_ACCOUNT);
		if (!uv)
			return -ENOMEM;
		op->iov = (struct iovec *)uv;
		if (copy_from_user(uv, u64_to_user_ptr(c->iov), nr * sizeof(*uv)))
			return -EFAULT;
	}
	for (i = 0; i < nr; i++) {
		v = uv[i];
		if (v.base + v.len < v.base ||
		    !access_ok(u64_to_user_ptr(v.base), v.len) ||
		    op->total + v.len < op->total)
			return -EFAULT;
		op->iov[i].iov_base = u64_to_user_ptr(v.base);
		op->iov[i].iov_len = v.len;
		op->total += v.len;
	}
	if (c->done > op->total)
		return -EINVAL;
	/* one buffer, the common case: the iterator's cheaper kind */
	if (nr == 1)
		iov_iter_ubuf(&op->iter, op->to_region ? ITER_SOURCE : ITER_DEST,
			      op->iov[0].iov_base, op->total);
	else
		iov_iter_init(&op->iter, op->to_region ? ITER_SOURCE : ITER_DEST,
			      op->iov, nr, op->total);
	iov_iter_advance(&op->iter, c->done);
	return 0;
}

/*
 * Pins the region for the command (tmp_refs) and checks the command
 * against it: rights, and the range in the region.
 */
static int fbinder_region_op_begin(struct fbinder_ctx *ctx, struct fbinder_region_op *op,
				   const struct fbinder_region_copy *c)
{
	u32 need = op->to_region ? FBINDER_REGION_WRITE : FBINDER_REGION_READ;
	struct fbinder_node *node;
	struct fbinder_region *r;
	int ret;

	spin_lock(&ctx->dev->lock);
	ret = fbinder_region_lookup_locked(ctx, c->handle, &node);
	if (ret)
		goto out;
	r = node->region;
	ret = fbinder_region_usable_locked(node);
	if (!ret && !(r->rights & need))
		ret = -EACCES;
	else if (!ret && (c->offset > r->size || op->total > r->size - c->offset))
		ret = -EINVAL;
	if (ret)
		goto out;
	node->tmp_refs++;
	op->node = node;
	/* the chain is usable, so its root still holds the mm_struct */
	op->mm = r->mm;
	mmgrab(op->mm);
	op->start = r->start + c->offset;
out:
	spin_unlock(&ctx->dev->lock);
	return ret;
}

/* The page array for one step: the copy's span, at most a chunk. */
static int fbinder_region_alloc_pages(struct fbinder_region_op *op)
{
	u64 left = op->total - op->done;

	if (!left)
		return 0;
	op->max_pages = min_t(u64, FBINDER_REGION_CHUNK,
			      DIV_ROUND_UP(offset_in_page(op->start + op->done) + left,
					   PAGE_SIZE));
	op->pages = kmalloc_array(op->max_pages, sizeof(*op->pages), GFP_KERNEL);
	return op->pages ? 0 : -ENOMEM;
}

/*
 * FBINDER_CMD_REGION_READ (to_region false) and FBINDER_CMD_REGION_WRITE.
 * Copies from done on, at most FBINDER_REGION_CMD_BYTES, and writes done
 * back into the command whatever happened: 0 when all is copied, else
 * -EINTR (a signal, or the bound: call again) or the error that stopped it.
 */
int fbinder_region_copy(struct fbinder_ctx *ctx, struct fbinder_region_copy __user *ucopy,
			bool to_region)
{
	struct fbinder_region_op op = { .to_region = to_region };
	struct fbinder_region_copy c;
	u64 budget = FBINDER_REGION_CMD_BYTES;
	u32 stalls = 0;
	u64 before;
	int ret;

	if (copy_from_user(&c, ucopy, sizeof(c)))
		return -EFAULT;
	ret = fbinder_region_read_iov(&op, &c);
	if (!ret)
		ret = fbinder_region_op_begin(ctx, &op, &c);
	if (ret)
		goto out_free;
	op.done = c.done;
	ret = fbinder_region_alloc_pages(&op);
	while (!ret && op.done < op.total) {
		if (!budget || signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		before = op.done;
		ret = fbinder_region_chunk(&op, budget);
		budget -= op.done - before;
		if (ret)
			break;
		/* a page faulted in is normally there for the next chunk */
		stalls = op.done == before ? stalls + 1 : 0;
		if (stalls > FBINDER_REGION_STALLS) {
			ret = -EFAULT;
			break;
		}
		cond_resched();
	}
	if (put_user(op.done, &ucopy->done))
		ret = -EFAULT;
	spin_lock(&ctx->dev->lock);
	op.node->tmp_refs--;
	fbinder_node_check_locked(op.node);
	spin_unlock(&ctx->dev->lock);
	mmdrop(op.mm);
out_free:
	kfree(op.pages);
	kfree(op.iov);
	return ret;
}
