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
 * user's /proc/<pid> needs); a node's cookie only when the caller may also
 * read the owner as /proc/<pid>/maps (fbinder_may_read_task()); a failure
 * when it may see the sender or the target's owner.  Pids are the
 * caller's pid namespace's.
 *
 * No lock is held for longer than FBINDER_INFO_BATCH entries (what an
 * opener creates must not make others wait, security.md G6): the walks
 * let go of the device lock between batches and copy each batch out, so
 * an entry reflects its moment, not one snapshot of the whole.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include "device.h"
#include "internal.h"
#include "stats.h"

#define FBINDER_INFO_MAX_ENTRY	1024	/* an entry size no version reaches */
#define FBINDER_INFO_BATCH	32	/* looked at under one hold of a lock */

struct fbinder_viewer {
	struct pid_namespace *ns;
	kuid_t euid;
	bool privileged;
	bool cookies;		/* of the context walked now (fbinder_info_tree()) */
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
 * ptrace_may_access(task, PTRACE_MODE_READ_FSCREDS), what reading
 * /proc/<pid>/maps takes, which no kernel exports to modules: the caller
 * is in the task's thread group, or has the task's uids and gids as its
 * fs ids, the task's user namespace and at least its permitted
 * capabilities (commoncap's rule), and the task is dumpable; or the
 * caller has CAP_SYS_PTRACE over what fails.  Stricter than ptrace where
 * the task has no mm (an exited leader): false.  LSM hooks are not asked.
 */
static bool fbinder_may_read_task(struct task_struct *task)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok;

	if (same_thread_group(task, current))
		return true;
	task_lock(task);
	rcu_read_lock();
	tcred = __task_cred(task);
	ok = uid_eq(cred->fsuid, tcred->euid) && uid_eq(cred->fsuid, tcred->suid) &&
	     uid_eq(cred->fsuid, tcred->uid) && gid_eq(cred->fsgid, tcred->egid) &&
	     gid_eq(cred->fsgid, tcred->sgid) && gid_eq(cred->fsgid, tcred->gid) &&
	     cred->user_ns == tcred->user_ns &&
	     cap_issubset(tcred->cap_permitted, cred->cap_effective);
	if (!ok)
		ok = ns_capable_noaudit(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	mm = task->mm;
	if (ok && (!mm || get_dumpable(mm) != SUID_DUMP_USER))
		ok = mm && ns_capable_noaudit(mm->user_ns, CAP_SYS_PTRACE);
	task_unlock(task);
	return ok;
}

/* Whether the caller may see the cookies of the nodes of pid's process. */
static bool fbinder_may_read_pid(struct pid *pid)
{
	struct task_struct *task = get_pid_task(pid, PIDTYPE_TGID);
	bool ok;

	if (!task)
		return false;
	ok = fbinder_may_read_task(task);
	put_task_struct(task);
	return ok;
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
		values[i] = fbinder_stat_read(i);
	in->total = FBINDER_STAT_COUNT;
	in->count = min_t(u32, in->count, FBINDER_STAT_COUNT);
	return fbinder_info_copy(in, values, sizeof(values[0]), in->count);
}

static bool fbinder_ctx_visible(const struct fbinder_ctx *ctx, const void *v)
{
	return fbinder_may_see(v, ctx->pid, ctx->euid);
}

/* The next context the caller may see, pinned, or NULL at the end. */
static struct fbinder_ctx *fbinder_iter_visible(struct fbinder_ctx_iter *it,
						const struct fbinder_viewer *v)
{
	return fbinder_ctx_iter_next(it, fbinder_ctx_visible, v);
}

/* Where entry i goes, if there is room: copies it out. */
static int fbinder_info_put(const struct fbinder_info *in, u32 i,
			    const void *entry, size_t size)
{
	struct fbinder_info one = *in;

	if (i >= in->count)
		return 0;
	one.entries += (u64)i * in->entry_size;
	return fbinder_info_copy(&one, entry, size, 1);
}

/* Under the device lock and the context's (its queue's numbers). */
static void fbinder_fill_ctx_locked(const struct fbinder_viewer *v,
				    struct fbinder_ctx *ctx,
				    struct fbinder_info_context *e)
{
	lockdep_assert_held(&ctx->dev->lock);
	lockdep_assert_held(&ctx->lock);
	memset(e, 0, sizeof(*e));
	e->id = ctx->debug_id;
	e->pid = pid_nr_ns(ctx->pid, v->ns);
	e->euid = from_kuid_munged(current_user_ns(), ctx->euid);
	strscpy(e->device, ctx->dev->name, sizeof(e->device));
	e->threads = ctx->nr_threads;
	e->queued = ctx->nr_queued;
	e->max_threads = ctx->max_threads;
	e->requested_threads = ctx->requested_threads;
	e->started_threads = ctx->started_threads;
	e->nodes = ctx->nr_nodes;
	e->handles = ctx->nr_handles;
	e->death_links = ctx->nr_deaths;
	e->bytes_queued = ctx->senders_bytes;
	e->received = ctx->received;
	e->sent = ctx->sent;
	e->failed = ctx->failed;
	if (ctx->frozen)
		e->flags |= FBINDER_INFO_CONTEXT_FROZEN;
}

static int fbinder_info_contexts(struct fbinder_info *in,
				 const struct fbinder_viewer *v)
{
	struct fbinder_ctx_iter it = { };
	struct fbinder_info_context e;
	struct fbinder_alloc_usage usage;
	struct fbinder_device *dev;
	struct fbinder_ctx *ctx;
	u32 i = 0;
	int ret = 0;

	for (dev = fbinder_device_next(NULL); dev; dev = fbinder_device_next(dev)) {
		it.dev = dev;
		while (!ret && (ctx = fbinder_iter_visible(&it, v))) {
			spin_lock(&dev->lock);
			spin_lock(&ctx->lock);
			fbinder_fill_ctx_locked(v, ctx, &e);
			spin_unlock(&ctx->lock);
			spin_unlock(&dev->lock);
			/* the buffer's numbers need its mutex */
			fbinder_alloc_usage(&ctx->alloc, &usage);
			e.map_size = usage.size;
			e.pages_resident = usage.pages_resident;
			e.buffers = usage.slots;
			fbinder_ctx_put(ctx);
			ret = fbinder_info_put(in, i++, &e, sizeof(e));
		}
		fbinder_ctx_iter_stop(&it);
		if (ret) {
			fbinder_device_put(dev);
			return ret;
		}
	}
	in->total = i;
	in->count = min(in->count, i);
	return 0;
}

/*
 * A tree of a context (nodes by cookie, handles by id), walked in batches
 * from a key on, with the lock let go between them.
 */
struct fbinder_tree_walk {
	struct rb_root *(*root)(struct fbinder_ctx *ctx);
	u64 (*key)(struct rb_node *rb);
	void (*fill)(const struct fbinder_viewer *v, struct fbinder_ctx *ctx,
		     struct rb_node *rb, void *entry);
	size_t size;
};

/* The first entry of the tree whose key is at least from. */
static struct rb_node *fbinder_tree_from(const struct fbinder_tree_walk *w,
					 struct rb_root *root, u64 from)
{
	struct rb_node *n = root->rb_node, *found = NULL;

	while (n) {
		if (w->key(n) >= from) {
			found = n;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	return found;
}

static int fbinder_info_tree(struct fbinder_info *in,
			     const struct fbinder_viewer *view,
			     const struct fbinder_tree_walk *w)
{
	struct fbinder_viewer cv = *view, *v = &cv;
	struct fbinder_ctx_iter it = { };
	struct fbinder_device *dev;
	struct fbinder_ctx *ctx;
	struct rb_node *rb;
	u8 *batch;
	u32 i = 0, n, k;
	u64 from;
	int ret = 0;

	batch = kmalloc_array(FBINDER_INFO_BATCH, w->size, GFP_KERNEL);
	if (!batch)
		return -ENOMEM;
	for (dev = fbinder_device_next(NULL); dev; dev = fbinder_device_next(dev)) {
		it.dev = dev;
		while (!ret && (ctx = fbinder_iter_visible(&it, v))) {
			cv.cookies = fbinder_may_read_pid(ctx->pid);
			from = 0;
			do {
				spin_lock(&dev->lock);
				spin_lock(&ctx->lock);
				rb = from == U64_MAX ? NULL :
				     fbinder_tree_from(w, w->root(ctx), from);
				for (n = 0; rb && n < FBINDER_INFO_BATCH; n++) {
					w->fill(v, ctx, rb, batch + n * w->size);
					from = w->key(rb);
					rb = rb_next(rb);
				}
				spin_unlock(&ctx->lock);
				spin_unlock(&dev->lock);
				for (k = 0; !ret && k < n; k++)
					ret = fbinder_info_put(in, i++, batch + k * w->size,
							       w->size);
				/* on after the last one taken */
				from = from == U64_MAX ? from : from + 1;
				cond_resched();
			} while (!ret && rb);
			fbinder_ctx_put(ctx);
		}
		fbinder_ctx_iter_stop(&it);
	}
	kfree(batch);
	if (ret)
		return ret;
	in->total = i;
	in->count = min(in->count, i);
	return 0;
}

static struct rb_root *fbinder_nodes_root(struct fbinder_ctx *ctx)
{
	return &ctx->nodes;
}

static u64 fbinder_node_key(struct rb_node *rb)
{
	return rb_entry(rb, struct fbinder_node, rb_node)->cookie;
}

static void fbinder_fill_node_locked(const struct fbinder_viewer *v,
				     struct fbinder_ctx *ctx, struct rb_node *rb,
				     void *entry)
{
	struct fbinder_node *node = rb_entry(rb, struct fbinder_node, rb_node);
	struct fbinder_info_node *e = entry;

	lockdep_assert_held(&ctx->dev->lock);
	lockdep_assert_held(&ctx->lock);
	memset(e, 0, sizeof(*e));
	e->id = node->debug_id;
	e->ctx = ctx->debug_id;
	/* often heap addresses: what /proc/<pid>/maps would show */
	e->cookie = v->cookies ? node->cookie : 0;
	e->owner_pid = pid_nr_ns(ctx->pid, v->ns);
	e->flags = node->is_ctx_mgr ? FBINDER_INFO_NODE_CTX_MGR : 0;
	e->handles = node->handle_count;
	e->oneway_out = node->async_out;
	e->calls = node->calls;
}

static const struct fbinder_tree_walk fbinder_nodes_walk = {
	.root = fbinder_nodes_root,
	.key = fbinder_node_key,
	.fill = fbinder_fill_node_locked,
	.size = sizeof(struct fbinder_info_node),
};

static struct rb_root *fbinder_handles_root(struct fbinder_ctx *ctx)
{
	return &ctx->handles;
}

static u64 fbinder_handle_key(struct rb_node *rb)
{
	return rb_entry(rb, struct fbinder_handle, rb_id)->id;
}

static void fbinder_fill_handle_locked(const struct fbinder_viewer *v,
				       struct fbinder_ctx *ctx, struct rb_node *rb,
				       void *entry)
{
	struct fbinder_handle *h = rb_entry(rb, struct fbinder_handle, rb_id);
	struct fbinder_ctx *owner = h->node->owner;
	struct fbinder_info_handle *e = entry;

	lockdep_assert_held(&ctx->dev->lock);
	memset(e, 0, sizeof(*e));
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

static const struct fbinder_tree_walk fbinder_handles_walk = {
	.root = fbinder_handles_root,
	.key = fbinder_handle_key,
	.fill = fbinder_fill_handle_locked,
	.size = sizeof(struct fbinder_info_handle),
};

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
		ret = fbinder_info_tree(&in, &v, &fbinder_nodes_walk);
		break;
	case FBINDER_INFO_HANDLES:
		ret = fbinder_info_tree(&in, &v, &fbinder_handles_walk);
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
