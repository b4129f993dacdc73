// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: the character devices and their file operations.
 *
 * The module parameter "devices" names the devices to create, each an
 * independent world with its own context manager, so containers can be
 * kept apart.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "device.h"
#include "internal.h"
#include "txn_pool.h"

static char *fbinder_device_names = "fastbinder";
module_param_named(devices, fbinder_device_names, charp, 0444);
MODULE_PARM_DESC(devices, "Comma-separated names of the devices to create (default \"fastbinder\")");

LIST_HEAD(fbinder_devices);

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
	struct fbinder_device *dev = container_of(file->private_data,
						  struct fbinder_device, misc);
	struct fbinder_ctx *ctx = fbinder_ctx_create(dev);

	if (!ctx)
		return -ENOMEM;
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
	fbinder_ctx_release(file->private_data);
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
		.features = FBINDER_FEATURES_V4 | FBINDER_FEATURE_SEND_SG,
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
		spin_lock(&ctx->dev->lock);
		WRITE_ONCE(ctx->max_threads, max);
		spin_unlock(&ctx->dev->lock);
		return 0;
	case FBINDER_IOC_SET_CONTEXT_MGR:
		if (copy_from_user(&mgr, uarg, sizeof(mgr)))
			return -EFAULT;
		if (mgr.flags & ~FBINDER_OBJF_ACCEPTS_FDS || mgr.reserved)
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
	spin_lock(&ctx->dev->lock);
	if (fbinder_thread_has_work_locked(thread))
		mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock(&ctx->dev->lock);
	return mask;
}

static const struct file_operations fbinder_fops = {
	.owner = THIS_MODULE,
	.open = fbinder_open,
	.flush = fbinder_flush,
	.release = fbinder_release,
	.mmap = fbinder_mmap,
	.poll = fbinder_poll,
	.unlocked_ioctl = fbinder_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

bool fbinder_is_fastbinder_file(struct file *file)
{
	return file->f_op == &fbinder_fops;
}

static void fbinder_device_destroy(struct fbinder_device *dev)
{
	misc_deregister(&dev->misc);
	list_del(&dev->entry);
	/* every context is gone: nothing else reaches the spares */
	fbinder_txn_spares_drain(dev);
	kfree(dev);
}

static int fbinder_device_create(const char *name)
{
	struct fbinder_device *dev;
	int ret;

	if (!*name || strlen(name) >= sizeof(dev->name) || strchr(name, '/'))
		return -EINVAL;
	/* named twice: refuse it here rather than let sysfs complain */
	list_for_each_entry(dev, &fbinder_devices, entry)
		if (!strcmp(dev->name, name))
			return -EEXIST;
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	strscpy(dev->name, name, sizeof(dev->name));
	spin_lock_init(&dev->lock);
	dev->ctx_mgr_uid = INVALID_UID;
	INIT_LIST_HEAD(&dev->contexts);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = dev->name;
	dev->misc.fops = &fbinder_fops;
	dev->misc.mode = 0666;	/* access is by handle, not by file mode */
	ret = misc_register(&dev->misc);
	if (ret) {
		kfree(dev);
		return ret;
	}
	list_add_tail(&dev->entry, &fbinder_devices);
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
		ret = fbinder_device_create(name);
	kfree(names);
	/* the spares' shrinker walks the list: once it is complete */
	if (!ret)
		ret = fbinder_txn_pool_init();
	if (ret)
		fbinder_devices_exit();
	return ret;
}

void fbinder_devices_exit(void)
{
	struct fbinder_device *dev, *tmp;

	fbinder_txn_pool_exit();
	list_for_each_entry_safe(dev, tmp, &fbinder_devices, entry)
		fbinder_device_destroy(dev);
}
