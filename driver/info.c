// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: FBINDER_IOC_INFO, the driver's state for tools (fbstat) with
 * neither debugfs nor root: the global counters, the contexts and nodes,
 * and the failures, as they happen with FBINDER_INFO_WAIT (docs/abi.md,
 * Information), and the contexts' handles.  debugfs (debugfs.c) stays the
 * developers' full view: threads, the calls on their stacks, buffers.
 *
 * Who sees what (docs/security.md, G3): every caller the counters, which
 * add up all users' activity; a context and its nodes only when its owner
 * is in the caller's pid namespace and opened the device with the
 * caller's euid, or the caller has CAP_SYS_PTRACE (which reading another
 * user's /proc/<pid> needs); a failure when it may see the sender or the
 * target's owner.  Pids are the caller's pid namespace's.
 *
 * Each kind is copied under the device lock into a kernel array sized by
 * a first count (what comes meanwhile waits for the next call), then out.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include "device.h"
#include "internal.h"
#include "stats.h"

#define FBINDER_INFO_MAX_ENTRY	1024	/* an entry size no version reaches */

struct fbinder_viewer {
	struct pid_namespace *ns;
	kuid_t euid;
	bool privileged;
};

static void fbinder_viewer_init(struct fbinder_viewer *v)
{
	v->ns = task_active_pid_ns(current);
	v->euid = current_euid();
	v->privileged = ns_capable_noaudit(&init_user_ns, CAP_SYS_PTRACE);
}

static bool fbinder_may_see(const struct fbinder_viewer *v, struct pid *pid,
			    kuid_t euid)
{
	if (!pid || !pid_nr_ns(pid, v->ns))
		return false;
	return v->privileged || uid_eq(euid, v->euid);
}

/*
 * Copies n entries of size bytes out at the caller's stride: the caller's
 * shorter entry gets their start, its longer one zeroes after them.
 */
static int fbinder_info_copy(const struct fbinder_info *in, const void *src,
			     size_t size, u32 n)
{
	u8 __user *dst = u64_to_user_ptr(in->entries);
	size_t len = min_t(size_t, size, in->entry_size);
	u32 i;

	for (i = 0; i < n; i++, dst += in->entry_size) {
		if (copy_to_user(dst, (const u8 *)src + i * size, len))
			return -EFAULT;
		if (in->entry_size > len &&
		    clear_user(dst + len, in->entry_size - len))
			return -EFAULT;
	}
	return 0;
}

static int fbinder_info_counters(struct fbinder_info *in)
{
	u64 values[FBINDER_STAT_COUNT];
	int i;

	for (i = 0; i < FBINDER_STAT_COUNT; i++)
		values[i] = atomic64_read(&fbinder_stats[i]);
	in->total = FBINDER_STAT_COUNT;
	in->count = min_t(u32, in->count, FBINDER_STAT_COUNT);
	return fbinder_info_copy(in, values, sizeof(values[0]), in->count);
}

static u32 fbinder_rb_count(struct rb_root *root)
{
	struct rb_node *rb;
	u32 n = 0;

	for (rb = rb_first(root); rb; rb = rb_next(rb))
		n++;
	return n;
}

/* Contexts, or their nodes or handles, the caller may see. */
static u32 fbinder_count_visible(const struct fbinder_viewer *v, u32 what)
{
	struct fbinder_device *dev;
	struct fbinder_ctx *ctx;
	u32 n = 0;

	list_for_each_entry(dev, &fbinder_devices, entry) {
		spin_lock(&dev->lock);
		list_for_each_entry(ctx, &dev->contexts, dev_entry) {
			if (!fbinder_may_see(v, ctx->pid, ctx->euid))
				continue;
			if (what == FBINDER_INFO_NODES)
				n += fbinder_rb_count(&ctx->nodes);
			else if (what == FBINDER_INFO_HANDLES)
				n += ctx->nr_handles;
			else
				n++;
		}
		spin_unlock(&dev->lock);
	}
	return n;
}

static void fbinder_fill_ctx_locked(const struct fbinder_viewer *v,
				    struct fbinder_ctx *ctx,
				    struct fbinder_info_context *e)
{
	lockdep_assert_held(&ctx->dev->lock);
	memset(e, 0, sizeof(*e));
	e->id = ctx->debug_id;
	e->pid = pid_nr_ns(ctx->pid, v->ns);
	e->euid = from_kuid_munged(current_user_ns(), ctx->euid);
	strscpy(e->device, ctx->dev->name, sizeof(e->device));
	e->threads = fbinder_rb_count(&ctx->threads);
	e->queued = ctx->nr_queued;
	e->max_threads = ctx->max_threads;
	e->requested_threads = ctx->requested_threads;
	e->started_threads = ctx->started_threads;
	e->nodes = fbinder_rb_count(&ctx->nodes);
	e->handles = ctx->nr_handles;
	e->death_links = ctx->nr_deaths;
	e->bytes_queued = ctx->senders_bytes;
	e->received = ctx->received;
	e->sent = ctx->sent;
	e->failed = ctx->failed;
}

static int fbinder_info_contexts(struct fbinder_info *in,
				 const struct fbinder_viewer *v)
{
	struct fbinder_info_context *entries;
	struct fbinder_ctx **pinned, *ctx;
	struct fbinder_alloc_usage usage;
	struct fbinder_device *dev;
	u32 n, i = 0, total = 0;
	int ret;

	n = min(in->count, fbinder_count_visible(v, FBINDER_INFO_CONTEXTS));
	entries = kvcalloc(n ?: 1, sizeof(*entries), GFP_KERNEL_ACCOUNT);
	pinned = kvcalloc(n ?: 1, sizeof(*pinned), GFP_KERNEL_ACCOUNT);
	if (!entries || !pinned) {
		ret = -ENOMEM;
		goto out;
	}
	list_for_each_entry(dev, &fbinder_devices, entry) {
		spin_lock(&dev->lock);
		list_for_each_entry(ctx, &dev->contexts, dev_entry) {
			if (!fbinder_may_see(v, ctx->pid, ctx->euid))
				continue;
			total++;
			if (i == n)
				continue;
			fbinder_fill_ctx_locked(v, ctx, &entries[i]);
			kref_get(&ctx->refs);
			pinned[i++] = ctx;
		}
		spin_unlock(&dev->lock);
	}
	/* the buffer's numbers need its mutex, never under the device lock */
	for (n = 0; n < i; n++) {
		fbinder_alloc_usage(&pinned[n]->alloc, &usage);
		entries[n].map_size = usage.size;
		entries[n].pages_resident = usage.pages_resident;
		entries[n].buffers = usage.slots;
		fbinder_ctx_put(pinned[n]);
	}
	in->count = i;
	in->total = total;
	ret = fbinder_info_copy(in, entries, sizeof(*entries), i);
out:
	kvfree(pinned);
	kvfree(entries);
	return ret;
}

static int fbinder_info_nodes(struct fbinder_info *in,
			      const struct fbinder_viewer *v)
{
	struct fbinder_info_node *entries, *e;
	struct fbinder_device *dev;
	struct fbinder_node *node;
	struct fbinder_ctx *ctx;
	struct rb_node *rb;
	u32 n, i = 0, total = 0;
	int ret;

	n = min(in->count, fbinder_count_visible(v, FBINDER_INFO_NODES));
	entries = kvcalloc(n ?: 1, sizeof(*entries), GFP_KERNEL_ACCOUNT);
	if (!entries)
		return -ENOMEM;
	list_for_each_entry(dev, &fbinder_devices, entry) {
		spin_lock(&dev->lock);
		list_for_each_entry(ctx, &dev->contexts, dev_entry) {
			if (!fbinder_may_see(v, ctx->pid, ctx->euid))
				continue;
			for (rb = rb_first(&ctx->nodes); rb; rb = rb_next(rb)) {
				total++;
				if (i == n)
					continue;
				node = rb_entry(rb, struct fbinder_node, rb_node);
				e = &entries[i++];
				e->id = node->debug_id;
				e->ctx = ctx->debug_id;
				e->cookie = node->cookie;
				e->owner_pid = pid_nr_ns(ctx->pid, v->ns);
				e->flags = node->is_ctx_mgr ?
					   FBINDER_INFO_NODE_CTX_MGR : 0;
				e->handles = node->handle_count;
				e->oneway_out = node->async_out;
				e->calls = node->calls;
			}
		}
		spin_unlock(&dev->lock);
	}
	in->count = i;
	in->total = total;
	ret = fbinder_info_copy(in, entries, sizeof(*entries), i);
	kvfree(entries);
	return ret;
}

static void fbinder_fill_handle_locked(const struct fbinder_viewer *v,
				       struct fbinder_ctx *ctx,
				       struct fbinder_handle *h,
				       struct fbinder_info_handle *e)
{
	struct fbinder_ctx *owner = h->node->owner;

	lockdep_assert_held(&ctx->dev->lock);
	e->ctx = ctx->debug_id;
	e->holder_pid = pid_nr_ns(ctx->pid, v->ns);
	e->id = h->id;
	e->node = h->node->debug_id;
	e->owner_pid = owner && fbinder_may_see(v, owner->pid, owner->euid) ?
		       pid_nr_ns(owner->pid, v->ns) : 0;
	e->flags = h->node->state == FBINDER_NODE_DEAD ?
		   FBINDER_INFO_HANDLE_DEAD : 0;
	e->refs = h->user_refs;
	e->buffer_refs = h->buf_refs;
}

static int fbinder_info_handles(struct fbinder_info *in,
				const struct fbinder_viewer *v)
{
	struct fbinder_info_handle *entries;
	struct fbinder_handle *h;
	struct fbinder_device *dev;
	struct fbinder_ctx *ctx;
	struct rb_node *rb;
	u32 n, i = 0, total = 0;
	int ret;

	n = min(in->count, fbinder_count_visible(v, FBINDER_INFO_HANDLES));
	entries = kvcalloc(n ?: 1, sizeof(*entries), GFP_KERNEL_ACCOUNT);
	if (!entries)
		return -ENOMEM;
	list_for_each_entry(dev, &fbinder_devices, entry) {
		spin_lock(&dev->lock);
		list_for_each_entry(ctx, &dev->contexts, dev_entry) {
			if (!fbinder_may_see(v, ctx->pid, ctx->euid))
				continue;
			for (rb = rb_first(&ctx->handles); rb; rb = rb_next(rb)) {
				total++;
				if (i == n)
					continue;
				h = rb_entry(rb, struct fbinder_handle, rb_id);
				fbinder_fill_handle_locked(v, ctx, h, &entries[i++]);
			}
		}
		spin_unlock(&dev->lock);
	}
	in->count = i;
	in->total = total;
	ret = fbinder_info_copy(in, entries, sizeof(*entries), i);
	kvfree(entries);
	return ret;
}

/*
 * The failures newer than in->seq the caller may see, into entries;
 * returns how many there were (at most FBINDER_FAILURE_RING), *newest the
 * number of the newest recorded.
 */
static u32 fbinder_failures_visible(const struct fbinder_viewer *v, u64 seq,
				    struct fbinder_failure *ring,
				    struct fbinder_info_failure *entries,
				    u64 *newest)
{
	struct fbinder_info_failure *e;
	struct fbinder_failure *f;
	u32 n, i, out = 0;

	n = fbinder_failures_read(ring, seq);
	*newest = n ? ring[n - 1].seq : seq;
	for (i = 0; i < n; i++) {
		f = &ring[i];
		if (!fbinder_may_see(v, f->from, f->from_uid) &&
		    !fbinder_may_see(v, f->to, f->to_uid))
			continue;
		e = &entries[out++];
		memset(e, 0, sizeof(*e));
		e->seq = f->seq;
		e->time_ns = f->time_ns;
		e->error = f->error;
		e->what = f->what;
		/* a target learns its sender's pid anyway, as with a call */
		e->from_pid = f->from ? pid_nr_ns(f->from, v->ns) : 0;
		e->to_pid = fbinder_may_see(v, f->to, f->to_uid) ?
			    pid_nr_ns(f->to, v->ns) : 0;
		e->node = f->node;
		e->code = f->code;
	}
	fbinder_failures_put(ring, n);
	return out;
}

static int fbinder_info_failures(struct fbinder_info *in,
				 const struct fbinder_viewer *v)
{
	struct fbinder_info_failure *entries;
	struct fbinder_failure *ring;
	u64 newest;
	u32 n;
	int ret;

	ring = kcalloc(FBINDER_FAILURE_RING, sizeof(*ring), GFP_KERNEL);
	entries = kcalloc(FBINDER_FAILURE_RING, sizeof(*entries), GFP_KERNEL);
	if (!ring || !entries) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		n = fbinder_failures_visible(v, in->seq, ring, entries, &newest);
		if (n || !(in->flags & FBINDER_INFO_WAIT))
			break;
		/* none of the newer ones is the caller's: wait past them */
		in->seq = newest;
		ret = fbinder_failures_wait(newest);
		if (ret)
			goto out;
	}
	in->total = n;
	in->count = min(in->count, n);
	/* the next call goes on after the last shown, or the last recorded */
	if (in->count < n)
		in->seq = in->count ? entries[in->count - 1].seq : in->seq;
	else
		in->seq = newest;
	ret = fbinder_info_copy(in, entries, sizeof(*entries), in->count);
out:
	kfree(entries);
	kfree(ring);
	return ret;
}

static const size_t fbinder_info_sizes[] = {
	[FBINDER_INFO_COUNTERS] = sizeof(u64),
	[FBINDER_INFO_CONTEXTS] = sizeof(struct fbinder_info_context),
	[FBINDER_INFO_NODES] = sizeof(struct fbinder_info_node),
	[FBINDER_INFO_FAILURES] = sizeof(struct fbinder_info_failure),
	[FBINDER_INFO_HANDLES] = sizeof(struct fbinder_info_handle),
};

long fbinder_info(void __user *arg)
{
	struct fbinder_viewer v;
	struct fbinder_info in;
	int ret;

	if (copy_from_user(&in, arg, sizeof(in)))
		return -EFAULT;
	if (in.what >= ARRAY_SIZE(fbinder_info_sizes) ||
	    in.flags & ~FBINDER_INFO_WAIT ||
	    (in.flags && in.what != FBINDER_INFO_FAILURES) ||
	    in.reserved[0] || in.reserved[1] ||
	    !in.entry_size || in.entry_size % sizeof(u64) ||
	    in.entry_size > FBINDER_INFO_MAX_ENTRY ||
	    in.count > INT_MAX / in.entry_size)
		return -EINVAL;
	fbinder_viewer_init(&v);
	switch (in.what) {
	case FBINDER_INFO_COUNTERS:
		ret = fbinder_info_counters(&in);
		break;
	case FBINDER_INFO_CONTEXTS:
		ret = fbinder_info_contexts(&in, &v);
		break;
	case FBINDER_INFO_NODES:
		ret = fbinder_info_nodes(&in, &v);
		break;
	case FBINDER_INFO_HANDLES:
		ret = fbinder_info_handles(&in, &v);
		break;
	default:
		ret = fbinder_info_failures(&in, &v);
		break;
	}
	if (ret)
		return ret;
	in.version = FBINDER_INFO_VERSION;
	in.entry_size = fbinder_info_sizes[in.what];
	return copy_to_user(arg, &in, sizeof(in)) ? -EFAULT : 0;
}
