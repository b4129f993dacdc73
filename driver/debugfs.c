// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: /sys/kernel/debug/fastbinder/, rendered here from what the
 * other files keep:
 *
 *   state   per device and context: threads and the calls on their stacks
 *           (who waits on whom), nodes, handles, buffers
 *   stats   global counters, one "name value" per line (stats.c)
 *   failed  the last FBINDER_FAILURE_RING failed sends, newest last, so "why did
 *           my call fail" has an answer (stats.c)
 *   max_hold_ns, max_hold_objects  the longest hold of a device lock by a
 *           teardown batch (internal.h), in ns, and the most objects one
 *           freed; writing 0 starts one again
 *   sections time per step of the hot paths, in the development build only
 *           (sections.c)
 */
#include <linux/debugfs.h>
#include <linux/pid.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include "device.h"
#include "internal.h"
#include "sections.h"
#include "stats.h"
#include "txn_pool.h"

static struct dentry *fbinder_debugfs_dir;

static int fbinder_failed_show(struct seq_file *m, void *unused)
{
	struct fbinder_failure *failures, *f;
	unsigned int i, n;

	failures = kmalloc_array(FBINDER_FAILURE_RING, sizeof(*failures),
				 GFP_KERNEL);
	if (!failures)
		return -ENOMEM;
	n = fbinder_failures_read(failures, 0);
	seq_puts(m, "time_ns what error from_pid to_pid node code\n");
	for (i = 0; i < n; i++) {
		f = &failures[i];
		seq_printf(m, "%llu %s %d %d %d %llu %u\n", f->time_ns,
			   fbinder_failure_names[f->what], f->error,
			   pid_nr(f->from), pid_nr(f->to), f->node, f->code);
	}
	fbinder_failures_put(failures, n);
	kfree(failures);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fbinder_failed);

static int fbinder_stats_show(struct seq_file *m, void *unused)
{
	int i;

	for (i = 0; i < FBINDER_STAT_COUNT; i++)
		seq_printf(m, "%s %lld\n", fbinder_stat_names[i],
			   fbinder_stat_read(i));
	/* not a counter of the uapi: the owners' mm_structs regions hold */
	seq_printf(m, "live_region_mms %ld\n", fbinder_region_mms_held());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fbinder_stats);

static pid_t fbinder_thread_of(struct fbinder_thread *thread)
{
	return thread ? thread->pid : 0;
}

static void fbinder_show_thread(struct seq_file *m, struct fbinder_thread *thread)
{
	struct fbinder_txn *t;

	seq_printf(m, "  thread %d looper 0x%x%s\n", thread->pid,
		   thread->looper, list_empty(&thread->todo) ? "" :
		   " has-work");
	for (t = thread->stack; t; t = fbinder_stack_next(thread, t)) {
		if (t->to_thread == thread)
			seq_printf(m, "    handles txn %llu code %u from thread %d\n",
				   t->id, t->code, fbinder_thread_of(t->from));
		else
			seq_printf(m, "    awaits txn %llu code %u handled by thread %d\n",
				   t->id, t->code, fbinder_thread_of(t->to_thread));
	}
}

static void fbinder_show_ctx_locked(struct seq_file *m, struct fbinder_ctx *ctx)
{
	struct fbinder_handle *h;
	struct fbinder_node *node;
	struct rb_node *rb;

	lockdep_assert_held(&ctx->dev->lock);
	lockdep_assert_held(&ctx->lock);
	seq_printf(m, " context pid %d queued %u max_threads %u requested %u started %u%s\n",
		   pid_nr(ctx->pid), ctx->nr_queued, ctx->max_threads,
		   ctx->requested_threads, ctx->started_threads,
		   ctx->frozen ? " frozen" : "");
	for (rb = rb_first(&ctx->threads); rb; rb = rb_next(rb))
		fbinder_show_thread(m, rb_entry(rb, struct fbinder_thread, rb_node));
	for (rb = rb_first(&ctx->nodes); rb; rb = rb_next(rb)) {
		node = rb_entry(rb, struct fbinder_node, rb_node);
		seq_printf(m, "  node %llu cookie 0x%llx handles %u buffers %u exports %llu oneway-out %u%s\n",
			   node->debug_id, node->cookie, node->handle_count,
			   node->buf_refs, node->exports, node->async_out,
			   node->is_ctx_mgr ? " context-manager" : "");
	}
	for (rb = rb_first(&ctx->handles); rb; rb = rb_next(rb)) {
		h = rb_entry(rb, struct fbinder_handle, rb_id);
		seq_printf(m, "  handle %u -> node %llu%s refs %u buffer-refs %u\n",
			   h->id, h->node->debug_id,
			   h->node->state == FBINDER_NODE_DEAD ? " (dead)" : "",
			   h->user_refs, h->buf_refs);
	}
}

static void fbinder_show_buffer(struct fbinder_buffer *buf, void *m)
{
	seq_printf(m, "  buffer at %zu data %zu offsets %zu%s%s\n",
		   buf->offset, buf->data_size, buf->offsets_size,
		   buf->oneway ? " oneway" : "",
		   fbinder_alloc_delivered(buf) ? " delivered" : "");
}

static void fbinder_show_buffers(struct seq_file *m, struct fbinder_ctx *ctx)
{
	struct fbinder_alloc_usage usage;

	fbinder_alloc_usage(&ctx->alloc, &usage);
	seq_printf(m, " context pid %d mapping %zu bytes, %zu pages resident",
		   pid_nr(ctx->pid), usage.size, usage.pages_resident);
	if (uid_valid(usage.uid))
		seq_printf(m, ", user %u holds %ld pages",
			   from_kuid(&init_user_ns, usage.uid),
			   usage.user_pages);
	seq_putc(m, '\n');
	fbinder_alloc_for_each(&ctx->alloc, fbinder_show_buffer, m);
}

static int fbinder_state_show(struct seq_file *m, void *unused)
{
	struct fbinder_device *dev;
	struct fbinder_ctx *ctx, **pinned;
	unsigned int n, i;

	seq_printf(m, "slot-pool %lu\n", fbinder_slot_pool_count());
	seq_printf(m, "spare-transactions %lu\n", fbinder_txn_spares_count());
	for (dev = fbinder_device_next(NULL); dev; dev = fbinder_device_next(dev)) {
		/* the manager's node may be freed once the lock is dropped */
		spin_lock(&dev->lock);
		seq_printf(m, "device %s context-manager node %llu\n",
			   dev->name, dev->ctx_mgr ? dev->ctx_mgr->debug_id : 0);
		n = 0;
		list_for_each_entry(ctx, &dev->contexts, dev_entry) {
			spin_lock(&ctx->lock);
			fbinder_show_ctx_locked(m, ctx);
			spin_unlock(&ctx->lock);
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
			fbinder_show_buffers(m, pinned[i]);
			fbinder_ctx_put(pinned[i]);
		}
		kfree(pinned);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fbinder_state);

static int fbinder_max_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}

static int fbinder_max_set(void *data, u64 val)
{
	atomic64_set(data, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(fbinder_max_fops, fbinder_max_get, fbinder_max_set, "%llu\n");

void fbinder_debugfs_init(void)
{
	fbinder_debugfs_dir = debugfs_create_dir("fastbinder", NULL);
	debugfs_create_file("state", 0444, fbinder_debugfs_dir, NULL,
			    &fbinder_state_fops);
	debugfs_create_file("stats", 0444, fbinder_debugfs_dir, NULL,
			    &fbinder_stats_fops);
	debugfs_create_file("failed", 0444, fbinder_debugfs_dir, NULL,
			    &fbinder_failed_fops);
	debugfs_create_file_unsafe("max_hold_ns", 0644, fbinder_debugfs_dir,
				   &fbinder_max_hold_ns, &fbinder_max_fops);
	debugfs_create_file_unsafe("max_hold_objects", 0644, fbinder_debugfs_dir,
				   &fbinder_max_hold_objects, &fbinder_max_fops);
	fbinder_sections_debugfs(fbinder_debugfs_dir);
}

void fbinder_debugfs_exit(void)
{
	debugfs_remove_recursive(fbinder_debugfs_dir);
}
