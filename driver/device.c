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

static char *fb_device_names = "fastbinder";
module_param_named(devices, fb_device_names, charp, 0444);
MODULE_PARM_DESC(devices, "Comma-separated names of the devices to create (default \"fastbinder\")");

LIST_HEAD(fb_devices);

static struct fb_ctx *fb_file_ctx(struct file *file)
{
	struct fb_ctx *ctx = file->private_data;

	/*
	 * A context belongs to the process that opened it.  Once that process
	 * has exited, nobody passes this check: the descriptors others still
	 * hold reach an ended context only through flush and release.
	 */
	return ctx->pid == task_tgid(current) ? ctx : NULL;
}

static int fb_open(struct inode *inode, struct file *file)
{
	struct fb_device *dev = container_of(file->private_data,
					     struct fb_device, misc);
	struct fb_ctx *ctx = fb_ctx_create(dev);

	if (!ctx)
		return -ENOMEM;
	file->private_data = ctx;
	return 0;
}

/* Every close of a descriptor: the owner's at its exit ends the context. */
static int fb_flush(struct file *file, fl_owner_t id)
{
	fb_ctx_flush(file->private_data);
	return 0;
}

static int fb_release(struct inode *inode, struct file *file)
{
	fb_ctx_release(file->private_data);
	return 0;
}

static int fb_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct fb_ctx *ctx = fb_file_ctx(file);

	if (!ctx)
		return -EPERM;
	return fb_alloc_mmap(&ctx->alloc, vma);
}

static long fb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct fb_ctx *ctx = fb_file_ctx(file);
	void __user *uarg = (void __user *)arg;
	struct fb_version ver = { .abi_version = FB_ABI_VERSION };
	struct fb_context_mgr mgr;
	struct fb_thread *thread;
	u32 max;

	if (!ctx)
		return -EPERM;
	switch (cmd) {
	case FB_IOC_VERSION:
		return copy_to_user(uarg, &ver, sizeof(ver)) ? -EFAULT : 0;
	case FB_IOC_WRITE_READ:
		thread = fb_thread_get(ctx);
		if (!thread)
			return -ENOMEM;
		return fb_write_read(thread, arg, file->f_flags & O_NONBLOCK);
	case FB_IOC_SET_MAX_THREADS:
		if (get_user(max, (u32 __user *)uarg))
			return -EFAULT;
		if (max > FB_MAX_THREADS)
			return -EINVAL;
		spin_lock(&ctx->dev->lock);
		ctx->max_threads = max;
		spin_unlock(&ctx->dev->lock);
		return 0;
	case FB_IOC_SET_CONTEXT_MGR:
		if (copy_from_user(&mgr, uarg, sizeof(mgr)))
			return -EFAULT;
		if (mgr.flags & ~FB_OBJF_ACCEPTS_FDS || mgr.reserved)
			return -EINVAL;
		return fb_set_context_mgr(ctx, mgr.cookie, mgr.flags);
	case FB_IOC_THREAD_EXIT:
		return fb_thread_exit(ctx);
	case FB_IOC_WAKE_IDLE:
		fb_ctx_wake_idle(ctx);
		return 0;
	default:
		return -ENOTTY;
	}
}

static __poll_t fb_poll(struct file *file, struct poll_table_struct *pt)
{
	struct fb_ctx *ctx = fb_file_ctx(file);
	struct fb_thread *thread;
	__poll_t mask = 0;

	if (!ctx)
		return EPOLLERR;
	thread = fb_thread_get(ctx);
	if (!thread)
		return EPOLLERR;
	poll_wait(file, &thread->wait, pt);
	poll_wait(file, &ctx->poll_wait, pt);
	spin_lock(&ctx->dev->lock);
	if (fb_thread_has_work_locked(thread))
		mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock(&ctx->dev->lock);
	return mask;
}

static const struct file_operations fb_fops = {
	.owner = THIS_MODULE,
	.open = fb_open,
	.flush = fb_flush,
	.release = fb_release,
	.mmap = fb_mmap,
	.poll = fb_poll,
	.unlocked_ioctl = fb_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

bool fb_is_fastbinder_file(struct file *file)
{
	return file->f_op == &fb_fops;
}

static void fb_device_destroy(struct fb_device *dev)
{
	struct fb_transaction *t, *tmp;

	misc_deregister(&dev->misc);
	list_del(&dev->entry);
	/* every context is gone: nothing else reaches the spares */
	list_for_each_entry_safe(t, tmp, &dev->spare_txns, work.entry)
		kfree(t);
	kfree(dev);
}

static int fb_device_create(const char *name)
{
	struct fb_device *dev;
	int ret;

	if (!*name || strlen(name) >= sizeof(dev->name) || strchr(name, '/'))
		return -EINVAL;
	/* named twice: refuse it here rather than let sysfs complain */
	list_for_each_entry(dev, &fb_devices, entry)
		if (!strcmp(dev->name, name))
			return -EEXIST;
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	strscpy(dev->name, name, sizeof(dev->name));
	spin_lock_init(&dev->lock);
	dev->ctx_mgr_uid = INVALID_UID;
	INIT_LIST_HEAD(&dev->contexts);
	INIT_LIST_HEAD(&dev->spare_txns);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = dev->name;
	dev->misc.fops = &fb_fops;
	dev->misc.mode = 0666;	/* access is by handle, not by file mode */
	ret = misc_register(&dev->misc);
	if (ret) {
		kfree(dev);
		return ret;
	}
	list_add_tail(&dev->entry, &fb_devices);
	return 0;
}

int fb_devices_init(void)
{
	char *names, *p, *name;
	int ret = 0;

	names = kstrdup(fb_device_names, GFP_KERNEL);
	if (!names)
		return -ENOMEM;
	p = names;
	while ((name = strsep(&p, ",")) && !ret)
		ret = fb_device_create(name);
	kfree(names);
	if (ret)
		fb_devices_exit();
	return ret;
}

void fb_devices_exit(void)
{
	struct fb_device *dev, *tmp;

	list_for_each_entry_safe(dev, tmp, &fb_devices, entry)
		fb_device_destroy(dev);
}
