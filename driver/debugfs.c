// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: /sys/kernel/debug/fastbinder/
 *
 *   state   per device and context: threads and the calls on their stacks
 *           (who waits on whom), nodes, handles, buffers
 *   stats   global counters, one "name value" per line
 *   failed  the last FB_FAILURE_RING failed sends, newest last, so "why did
 *           my call fail" has an answer
 *
 * Lock order: fb_device.lock, then fb_failure_lock (failures are recorded
 * with the device lock held).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include "device.h"
#include "internal.h"
#include "stats.h"

atomic64_t fb_stats[FB_STAT_COUNT];

const char *const fb_stat_names[FB_STAT_COUNT] = {
	[FB_STAT_LIVE_CONTEXTS] = "live_contexts",
	[FB_STAT_LIVE_THREADS] = "live_threads",
	[FB_STAT_LIVE_NODES] = "live_nodes",
	[FB_STAT_LIVE_HANDLES] = "live_handles",
	[FB_STAT_LIVE_BUFFERS] = "live_buffers",
	[FB_STAT_LIVE_TRANSACTIONS] = "live_transactions",
	[FB_STAT_LIVE_DEATHS] = "live_death_links",
	[FB_STAT_LIVE_PAGES] = "live_pages",
	[FB_STAT_CALLS] = "calls",
	[FB_STAT_ONEWAYS] = "oneways",
	[FB_STAT_REPLIES] = "replies",
	[FB_STAT_FAILED] = "failed",
	[FB_STAT_DEAD_REPLIES] = "dead_replies",
	[FB_STAT_RELEASE_NOTICES] = "release_notices",
	[FB_STAT_SPAWN_REQUESTS] = "spawn_requests",
	[FB_STAT_ABANDONED] = "abandoned_calls",
};

#define FB_FAILURE_RING 64

static bool fb_debug;
module_param_named(debug, fb_debug, bool, 0644);
MODULE_PARM_DESC(debug,
		 "Also log each failed send or reply to the kernel log, rate-limited (default 0)");

struct fb_failure {
	u64 time_ns;
	int error;
	const char *what;
	pid_t from_pid;
	pid_t to_pid;
	u64 node;
	u32 code;
};

static DEFINE_SPINLOCK(fb_failure_lock);
static struct fb_failure fb_failures[FB_FAILURE_RING];
static unsigned int fb_failure_next;	/* total recorded */
static struct dentry *fb_debugfs_dir;

void fb_record_failure(int error, const char *what, struct fb_ctx *from,
		       struct fb_node *target, u32 code)
{
	fb_record_failure_pid(error, what, from->pid, target, code);
}

/* The same for a sender known by its pid only (its context may be gone). */
void fb_record_failure_pid(int error, const char *what, struct pid *from,
			   struct fb_node *target, u32 code)
{
	struct fb_failure *f;

	fb_stat_inc(FB_STAT_FAILED);
	spin_lock(&fb_failure_lock);
	f = &fb_failures[fb_failure_next++ % FB_FAILURE_RING];
	f->time_ns = ktime_get_ns();
	f->error = error;
	f->what = what;
	f->from_pid = pid_nr(from);
	f->to_pid = target && target->owner ? pid_nr(target->owner->pid) : 0;
	f->node = target ? target->debug_id : 0;
	f->code = code;
	if (fb_debug)
		pr_info_ratelimited("%s from pid %d to pid %d (node %llu, code %u) failed: %d\n",
				    what, f->from_pid, f->to_pid, f->node,
				    code, error);
	spin_unlock(&fb_failure_lock);
}

static int fb_failed_show(struct seq_file *m, void *unused)
{
	unsigned int i, first;

	seq_puts(m, "time_ns what error from_pid to_pid node code\n");
	spin_lock(&fb_failure_lock);
	first = fb_failure_next > FB_FAILURE_RING ?
		fb_failure_next - FB_FAILURE_RING : 0;
	for (i = first; i < fb_failure_next; i++) {
		struct fb_failure *f = &fb_failures[i % FB_FAILURE_RING];

		seq_printf(m, "%llu %s %d %d %d %llu %u\n", f->time_ns,
			   f->what, f->error, f->from_pid, f->to_pid, f->node,
			   f->code);
	}
	spin_unlock(&fb_failure_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fb_failed);

static int fb_stats_show(struct seq_file *m, void *unused)
{
	int i;

	for (i = 0; i < FB_STAT_COUNT; i++)
		seq_printf(m, "%s %lld\n", fb_stat_names[i],
			   atomic64_read(&fb_stats[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fb_stats);

static pid_t fb_thread_of(struct fb_thread *thread)
{
	return thread ? thread->pid : 0;
}

static void fb_show_thread(struct seq_file *m, struct fb_thread *thread)
{
	struct fb_transaction *t;

	seq_printf(m, "  thread %d looper 0x%x%s\n", thread->pid,
		   thread->looper, list_empty(&thread->todo) ? "" :
		   " has-work");
	for (t = thread->stack; t; t = fb_stack_next(thread, t)) {
		if (t->to_thread == thread)
			seq_printf(m, "    handles txn %llu code %u from thread %d\n",
				   t->id, t->code, fb_thread_of(t->from));
		else
			seq_printf(m, "    awaits txn %llu code %u handled by thread %d\n",
				   t->id, t->code, fb_thread_of(t->to_thread));
	}
}

static void fb_show_ctx_locked(struct seq_file *m, struct fb_ctx *ctx)
{
	struct fb_handle *h;
	struct fb_node *node;
	struct rb_node *rb;

	lockdep_assert_held(&ctx->dev->lock);
	seq_printf(m, " context pid %d queued %u max_threads %u requested %u started %u\n",
		   pid_nr(ctx->pid), ctx->nr_queued, ctx->max_threads,
		   ctx->requested_threads, ctx->started_threads);
	for (rb = rb_first(&ctx->threads); rb; rb = rb_next(rb))
		fb_show_thread(m, rb_entry(rb, struct fb_thread, rb_node));
	for (rb = rb_first(&ctx->nodes); rb; rb = rb_next(rb)) {
		node = rb_entry(rb, struct fb_node, rb_node);
		seq_printf(m, "  node %llu cookie 0x%llx handles %u buffers %u exports %llu oneway-out %u%s\n",
			   node->debug_id, node->cookie, node->handle_count,
			   node->buf_refs, node->exports, node->async_out,
			   node->is_ctx_mgr ? " context-manager" : "");
	}
	for (rb = rb_first(&ctx->handles); rb; rb = rb_next(rb)) {
		h = rb_entry(rb, struct fb_handle, rb_id);
		seq_printf(m, "  handle %u -> node %llu%s refs %u buffer-refs %u\n",
			   h->id, h->node->debug_id,
			   h->node->state == FB_NODE_DEAD ? " (dead)" : "",
			   h->user_refs, h->buf_refs);
	}
}

static void fb_show_buffers(struct seq_file *m, struct fb_ctx *ctx)
{
	struct fb_buffer *buf;
	struct rb_node *rb;

	mutex_lock(&ctx->alloc.lock);
	seq_printf(m, " context pid %d mapping %zu bytes, %zu pages resident",
		   pid_nr(ctx->pid), ctx->alloc.size,
		   ctx->alloc.pages_resident);
	if (ctx->alloc.user)
		seq_printf(m, ", user %u holds %ld pages",
			   from_kuid(&init_user_ns, ctx->alloc.user->uid),
			   atomic_long_read(&ctx->alloc.user->pages));
	seq_putc(m, '\n');
	for (rb = rb_first(&ctx->alloc.allocated_tree); rb; rb = rb_next(rb)) {
		buf = rb_entry(rb, struct fb_buffer, rb_node);
		seq_printf(m, "  buffer at %zu data %zu offsets %zu%s%s\n",
			   buf->offset, buf->data_size, buf->offsets_size,
			   buf->oneway ? " oneway" : "",
			   buf->user_owned ? " delivered" : "");
	}
	mutex_unlock(&ctx->alloc.lock);
}

static int fb_state_show(struct seq_file *m, void *unused)
{
	struct fb_device *dev;
	struct fb_ctx *ctx, **pinned;
	unsigned int n, i;

	list_for_each_entry(dev, &fb_devices, entry) {
		/* the manager's node may be freed once the lock is dropped */
		spin_lock(&dev->lock);
		seq_printf(m, "device %s context-manager node %llu\n",
			   dev->name, dev->ctx_mgr ? dev->ctx_mgr->debug_id : 0);
		n = 0;
		list_for_each_entry(ctx, &dev->contexts, dev_entry) {
			fb_show_ctx_locked(m, ctx);
			n++;
		}
		spin_unlock(&dev->lock);

		/* buffers need each context's mutex: pin them first */
		pinned = kcalloc(n, sizeof(*pinned), GFP_KERNEL);
		if (!pinned)
			continue;
		i = 0;
		spin_lock(&dev->lock);
		list_for_each_entry(ctx, &dev->contexts, dev_entry) {
			if (i == n)
				break;
			kref_get(&ctx->refs);
			pinned[i++] = ctx;
		}
		spin_unlock(&dev->lock);
		seq_puts(m, "buffers\n");
		n = i;
		for (i = 0; i < n; i++) {
			fb_show_buffers(m, pinned[i]);
			fb_ctx_put(pinned[i]);
		}
		kfree(pinned);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fb_state);

void fb_debugfs_init(void)
{
	fb_debugfs_dir = debugfs_create_dir("fastbinder", NULL);
	debugfs_create_file("state", 0444, fb_debugfs_dir, NULL,
			    &fb_state_fops);
	debugfs_create_file("stats", 0444, fb_debugfs_dir, NULL,
			    &fb_stats_fops);
	debugfs_create_file("failed", 0444, fb_debugfs_dir, NULL,
			    &fb_failed_fops);
}

void fb_debugfs_exit(void)
{
	debugfs_remove_recursive(fb_debugfs_dir);
}
