// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: module entry (placeholder until the driver core lands).
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/fastbinder.h>

static long fb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct fb_version ver = { .abi_version = FB_ABI_VERSION };

	switch (cmd) {
	case FB_IOC_VERSION:
		if (copy_to_user((void __user *)arg, &ver, sizeof(ver)))
			return -EFAULT;
		return 0;
	default:
		return -ENOTTY;
	}
}

static int fb_open(struct inode *inode, struct file *file)
{
	return 0;
}

static int fb_release(struct inode *inode, struct file *file)
{
	return 0;
}

static const struct file_operations fb_fops = {
	.owner = THIS_MODULE,
	.open = fb_open,
	.release = fb_release,
	.unlocked_ioctl = fb_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice fb_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "fastbinder",
	.fops = &fb_fops,
	.mode = 0666,
};

static int __init fb_init(void)
{
	return misc_register(&fb_misc);
}

static void __exit fb_exit(void)
{
	misc_deregister(&fb_misc);
}

module_init(fb_init);
module_exit(fb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fastbinder: binder-style IPC");
