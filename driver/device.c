// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: the character devices and their file operations.
 *
 * The module parameter "devices" names the devices to create, each an
 * independent world with its own context manager, so containers can be
 * kept apart; fastbinderfs (fs.c) makes more at run time, with the same
 * file operations.  Every device is on one list, for the tools.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include "device.h"
#include "internal.h"
#include "txn_pool.h"

static char *fbinder_device_names = "fastbinder";
module_param_named(devices, fbinder_device_names, charp, 0444);
MODULE_PARM_DESC(devices, "Comma-separated names of the devices to create (default \"fastbinder\")");

LIST_HEAD(fbinder_devices);
static DEFINE_MUTEX(fbinder_devices_lock);	/* changes of the list */

static struct fbinder_ctx *fbinder_file_ctx(struct file *file)
{
	struct fbinder_ctx *ctx = file->private_data;

	/*
	 * A context belongs to the process that opened it.  Once that process
	 * has exited, nobody passes this check: the descriptors others still
	 * hold reach an ended context only through flush and release.
	 */
	return ctx->pid == task_tgid(current) ? ctx : NULL;
}

static int fbinder_open(struct inode *inode, struct file *file)
{
	struct fbinder_device *dev = fbinder_fs_device(inode);
	struct fbinder_ctx *ctx;

	if (!dev)	/* misc_open() left us the miscdevice */
		dev = container_of(file->private_data, struct fbinder_device,
				   misc);
	else if (!inode->i_nlink)
		return -ENOENT;	/* removed: nobody new joins it */
	ctx = fbinder_ctx_create(dev);
	if (!ctx)
		return -ENOMEM;
	fbinder_ctx_watch_owner(ctx);
	kref_get(&dev->refs);
	file->private_data = ctx;
	return 0;
}

/* Every close of a descriptor: the owner's at its exit ends the context. */
static int fbinder_flush(struct file *file, fl_owner_t id)
{
	fbinder_ctx_flush(file->private_data);
	return 0;
}

static int fbinder_release(struct inode *inode, struct file *file)
{
	struct fbinder_ctx *ctx = file->private_data;
	struct fbinder_device *dev = ctx->dev;

	fbinder_ctx_release(ctx);
	fbinder_device_put(dev);
	return 0;
}

static int fbinder_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct fbinder_ctx *ctx = fbinder_file_ctx(file);

	if (!ctx)
		return -EPERM;
	return fbinder_alloc_mmap(&ctx->alloc, vma);
}

static long fbinder_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct fbinder_ctx *ctx = fbinder_file_ctx(file);
	void __user *uarg = (void __user *)arg;
	struct fbinder_version ver = {
		.abi_version = FBINDER_ABI_VERSION,
		.min_abi_version = FBINDER_ABI_VERSION,
		.features = FBINDER_FEATURES_V4 | FBINDER_FEATURE_INSTANCES |
			    FBINDER_FEATURE_SECCTX | FBINDER_FEATURE_SEND_SG |
			    FBINDER_FEATURE_FREEZE | FBINDER_FEATURE_FDA,
	};
	struct fbinder_context_mgr mgr;
	struct fbinder_thread *thread;
	u32 max;

	if (!ctx)
		return -EPERM;
	switch (cmd) {
	case FBINDER_IOC_VERSION:
	case FBINDER_IOC_VERSION_V4:
		/* as much of it as the caller's header knows */
		return copy_to_user(uarg, &ver, _IOC_SIZE(cmd)) ? -EFAULT : 0;
	case FBINDER_IOC_WRITE_READ:
		thread = fbinder_thread_get(ctx);
		if (!thread)
			return -ENOMEM;
		return fbinder_timed(FBINDER_SEC_WRITE_READ,
				     fbinder_write_read(thread, arg,
							file->f_flags & O_NONBLOCK));
	case FBINDER_IOC_SET_MAX_THREADS:
		if (get_user(max, (u32 __user *)uarg))
			return -EFAULT;
		if (max > FBINDER_MAX_THREADS)
			return -EINVAL;
		spin_lock(&ctx->lock);
		WRITE_ONCE(ctx->max_threads, max);
		spin_unlock(&ctx->lock);
		return 0;
	case FBINDER_IOC_SET_CONTEXT_MGR:
		if (copy_from_user(&mgr, uarg, sizeof(mgr)))
			return -EFAULT;
		if (mgr.flags & ~(FBINDER_OBJF_ACCEPTS_FDS | FBINDER_OBJF_TXN_SECCTX) ||
		    mgr.reserved)
			return -EINVAL;
		return fbinder_set_context_mgr(ctx, mgr.cookie, mgr.flags);
	case FBINDER_IOC_THREAD_EXIT:
		return fbinder_thread_exit(ctx);
	case FBINDER_IOC_WAKE_IDLE:
		fbinder_ctx_wake_idle(ctx);
		return 0;
	case FBINDER_IOC_REGION_CREATE:
	case FBINDER_IOC_REGION_NARROW:
	case FBINDER_IOC_REGION_INFO:
	case FBINDER_IOC_REGION_REVOKE:
		return fbinder_region_ioctl(ctx, cmd, uarg);
	case FBINDER_IOC_FREEZE:
	case FBINDER_IOC_FROZEN_INFO:
		return fbinder_freeze_ioctl(ctx, cmd, uarg);
	case FBINDER_IOC_INFO:
		return fbinder_info(uarg);
	default:
		return -ENOTTY;
	}
}

static __poll_t fbinder_poll(struct file *file, struct poll_table_struct *pt)
{
	struct fbinder_ctx *ctx = fbinder_file_ctx(file);
	struct fbinder_thread *thread;
	__poll_t mask = 0;

	if (!ctx)
		return EPOLLERR;
	thread = fbinder_thread_get(ctx);
	if (!thread)
		return EPOLLERR;
	poll_wait(file, &thread->wait, pt);
	poll_wait(file, &ctx->poll_wait, pt);
	spin_lock(&ctx->lock);
	if (fbinder_thread_has_work_clocked(thread))
		mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock(&ctx->lock);
	return mask;
}

const struct file_operations fbinder_fops = {
	.owner = THIS_MODULE,
	.open = fbinder_open,
	.flush = fbinder_flush,
	.release = fbinder_release,
	.mmap = fbinder_mmap,
	.poll = fbinder_poll,
	.unlocked_ioctl = fbinder_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* 1 to 31 bytes, a file name of its own: no '/', not "." or "..". */
bool fbinder_device_name_valid(const char *name)
{
	size_t len = strnlen(name, sizeof_field(struct fbinder_device, name));

	return len && len < sizeof_field(struct fbinder_device, name) &&
	       !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/*
 * A new device, on the list, holding its creator's reference; ns is the
 * user namespace whose CAP_SYS_ADMIN may claim its handle 0.
 */
struct fbinder_device *fbinder_device_new(const char *name, struct user_namespace *ns)
{
	struct fbinder_device *dev;

	if (!fbinder_device_name_valid(name))
		return ERR_PTR(-EINVAL);
	/* a mount's are charged to whoever made them */
	dev = kzalloc(sizeof(*dev), GFP_KERNEL_ACCOUNT);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	strscpy(dev->name, name, sizeof(dev->name));
	kref_init(&dev->refs);
	dev->user_ns = get_user_ns(ns);
	spin_lock_init(&dev->lock);
	dev->ctx_mgr_uid = INVALID_UID;
	INIT_LIST_HEAD(&dev->contexts);
	mutex_lock(&fbinder_devices_lock);
	list_add_tail_rcu(&dev->entry, &fbinder_devices);
	mutex_unlock(&fbinder_devices_lock);
	return dev;
}

/* The last reference: kref_put_mutex() took fbinder_devices_lock for it. */
static void fbinder_device_free(struct kref *kref)
{
	struct fbinder_device *dev = container_of(kref, struct fbinder_device, refs);

	list_del_rcu(&dev->entry);
	mutex_unlock(&fbinder_devices_lock);
	put_user_ns(dev->user_ns);
	kfree_rcu(dev, rcu);
}

/* Sleeps (the list's mutex): never with a lock of the driver held. */
void fbinder_device_put(struct fbinder_device *dev)
{
	kref_put_mutex(&dev->refs, fbinder_device_free, &fbinder_devices_lock);
}

/*
 * The device after prev on the list (the first for NULL), pinned, or NULL;
 * prev's pin is dropped.  A pinned device stays on the list, so the walk
 * goes on from it whatever came and went meanwhile.
 */
struct fbinder_device *fbinder_device_next(struct fbinder_device *prev)
{
	struct fbinder_device *dev;

	mutex_lock(&fbinder_devices_lock);
	dev = list_prepare_entry(prev, &fbinder_devices, entry);
	dev = list_next_entry(dev, entry);
	if (list_entry_is_head(dev, &fbinder_devices, entry))
		dev = NULL;
	else
		kref_get(&dev->refs);
	mutex_unlock(&fbinder_devices_lock);
	if (prev)
		fbinder_device_put(prev);
	return dev;
}

/* A devices= one: /dev/<name>, as long as the module is loaded. */
static int fbinder_misc_create(const char *name)
{
	struct fbinder_device *dev;
	int ret;

	/*
	 * Named twice: refuse it here rather than let sysfs complain.  At
	 * load, before fastbinderfs exists, nothing else changes the list.
	 */
	list_for_each_entry(dev, &fbinder_devices, entry)
		if (!strcmp(dev->name, name))
			return -EEXIST;
	dev = fbinder_device_new(name, &init_user_ns);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = dev->name;
	dev->misc.fops = &fbinder_fops;
	dev->misc.mode = 0666;	/* access is by handle, not by file mode */
	ret = misc_register(&dev->misc);
	if (ret) {
		fbinder_device_put(dev);
		return ret;
	}
	return 0;
}

int fbinder_devices_init(void)
{
	char *names, *p, *name;
	int ret = 0;

	names = kstrdup(fbinder_device_names, GFP_KERNEL);
	if (!names)
		return -ENOMEM;
	p = names;
	while ((name = strsep(&p, ",")) && !ret)
		ret = fbinder_misc_create(name);
	kfree(names);
	if (!ret)
		ret = fbinder_txn_pool_init();
	if (ret)
		fbinder_devices_exit();
	return ret;
}

/*
 * After fbinder_fs_exit(): no mount and no open file is left (each pins
 * the module), so the devices= ones are all that remain, and their
 * references are the module's.
 */
void fbinder_devices_exit(void)
{
	struct fbinder_device *dev, *tmp;

	list_for_each_entry_safe(dev, tmp, &fbinder_devices, entry) {
		if (dev->misc.fops)	/* registered: a failed one went */
			misc_deregister(&dev->misc);
		WARN_ON(kref_read(&dev->refs) != 1);
		fbinder_device_put(dev);
	}
	/* no context is left to give a transaction back: the spares go */
	fbinder_txn_pool_exit();
}
