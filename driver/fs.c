// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: fastbinderfs, devices made at run time.
 *
 * Each mount is a set of devices of its own, empty but for its control
 * file: FBINDER_CTL_ADD on that file makes a device in the mount's root,
 * unlink removes its name.  A container mounts its own: what it makes,
 * only those who see the mount reach, each device with its own context
 * manager.  docs/abi.md (Instances) and docs/security.md say who may do
 * what.
 *
 * A device is a character-device inode whose file operations are the
 * driver's own (i_fop, not the char-device table): its number, out of a
 * region this module reserves with no cdev behind it, names it for stat()
 * only, so a node made with mknod() elsewhere opens nothing (ENXIO).  The
 * inode holds the device's creator reference (fbinder_device_put() at
 * its eviction), each open file another (device.c): an unlinked device
 * lives on for the contexts it has, takes no new one, and goes with the
 * last of them.
 */
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fsnotify.h>
#include <linux/idr.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include "compat.h"
#include "internal.h"

#define FBINDER_FS_MINORS	BIT(MINORBITS)
#define FBINDER_FS_ROOT_INO	1
#define FBINDER_FS_CONTROL_INO	2
#define FBINDER_FS_FIRST_INO	3	/* a device's: this plus its minor */

/* One mount's. */
struct fbinder_fs_info {
	kuid_t uid;			/* owns the root, the control file, the devices */
	kgid_t gid;
	atomic_t nr_devices;		/* not evicted yet, unlinked ones too */
};

static dev_t fbinder_fs_devt;		/* the first of the module's region */
static DEFINE_IDA(fbinder_fs_minors);
static struct file_system_type fbinder_fs_type;

/* The device of one of our inodes, or NULL (another filesystem's, the control file). */
struct fbinder_device *fbinder_fs_device(struct inode *inode)
{
	if (inode->i_sb->s_type != &fbinder_fs_type || !S_ISCHR(inode->i_mode))
		return NULL;
	return inode->i_private;
}

static struct inode *fbinder_fs_inode(struct super_block *sb, unsigned long ino,
				      umode_t mode)
{
	struct fbinder_fs_info *info = sb->s_fs_info;
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = ino;
	inode->i_mode = mode;
	inode->i_uid = info->uid;
	inode->i_gid = info->gid;
	fbinder_inode_init_ts(inode);
	return inode;
}

/*
 * A device named req->name in sb's root.  The inode owns the device, its
 * minor and its place in the mount's count from when i_private is set: an
 * iput() then undoes all three (fbinder_fs_evict_inode()).
 */
static int fbinder_fs_add(struct super_block *sb, struct fbinder_instance *req)
{
	struct fbinder_fs_info *info = sb->s_fs_info;
	struct inode *dir = d_inode(sb->s_root);
	struct fbinder_device *dev;
	struct dentry *dentry;
	struct inode *inode;
	int minor, ret;

	if (!atomic_add_unless(&info->nr_devices, 1, FBINDER_FS_MAX_INSTANCES))
		return -ENOSPC;
	minor = ida_alloc_max(&fbinder_fs_minors, FBINDER_FS_MINORS - 1, GFP_KERNEL);
	if (minor < 0) {
		ret = minor;
		goto err_count;
	}
	inode = fbinder_fs_inode(sb, FBINDER_FS_FIRST_INO + minor, 0);
	if (!inode) {
		ret = -ENOMEM;
		goto err_minor;
	}
	dev = fbinder_device_new(req->name, sb->s_user_ns);
	if (IS_ERR(dev)) {
		iput(inode);
		ret = PTR_ERR(dev);
		goto err_minor;
	}
	/* every opener may use it: access is by handle, as for /dev's */
	init_special_inode(inode, S_IFCHR | 0666,
			   MKDEV(MAJOR(fbinder_fs_devt), minor));
	inode->i_fop = &fbinder_fops;
	inode->i_private = dev;

	inode_lock(dir);
	dentry = lookup_one_len(req->name, sb->s_root, strlen(req->name));
	if (IS_ERR(dentry)) {
		ret = PTR_ERR(dentry);
		goto err_unlock;
	}
	if (d_really_is_positive(dentry)) {
		dput(dentry);
		ret = -EEXIST;
		goto err_unlock;
	}
	/* the lookup's reference pins it; unlink (simple_unlink()) drops it */
	d_instantiate(dentry, inode);
	fsnotify_create(dir, dentry);
	inode_unlock(dir);
	req->major = MAJOR(fbinder_fs_devt);
	req->minor = minor;
	return 0;

err_unlock:
	inode_unlock(dir);
	iput(inode);
	return ret;
err_minor:
	ida_free(&fbinder_fs_minors, minor);
err_count:
	atomic_dec(&info->nr_devices);
	return ret;
}

/*
 * FBINDER_CTL_ADD.  The capability is the caller's at the ioctl, not the
 * opener's: a descriptor of the control file passed on confers nothing.
 */
static long fbinder_fs_ctl_ioctl(struct file *file, unsigned int cmd,
				 unsigned long arg)
{
	struct super_block *sb = file_inode(file)->i_sb;
	struct fbinder_instance __user *uarg = (void __user *)arg;
	struct fbinder_instance req;
	int ret;

	if (cmd != FBINDER_CTL_ADD)
		return -ENOTTY;
	if (!ns_capable(sb->s_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved ||
	    !memchr(req.name, '\0', sizeof(req.name)) ||
	    !fbinder_device_name_valid(req.name))
		return -EINVAL;
	ret = fbinder_fs_add(sb, &req);
	if (ret)
		return ret;
	/* made all the same: the name is there, as after a lost reply */
	return copy_to_user(uarg, &req, sizeof(req)) ? -EFAULT : 0;
}

static const struct file_operations fbinder_fs_ctl_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = fbinder_fs_ctl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/* Removal: the name goes now, the device with its last context. */
static int fbinder_fs_unlink(struct inode *dir, struct dentry *dentry)
{
	if (!fbinder_fs_device(d_inode(dentry)))
		return -EPERM;	/* the control file stays */
	if (!ns_capable(dir->i_sb->s_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	return simple_unlink(dir, dentry);
}

/* Nothing made but by FBINDER_CTL_ADD: no create, mknod, mkdir, rename. */
static const struct inode_operations fbinder_fs_dir_iops = {
	.lookup = simple_lookup,
	.unlink = fbinder_fs_unlink,
};

static void fbinder_fs_evict_inode(struct inode *inode)
{
	struct fbinder_device *dev = fbinder_fs_device(inode);
	struct fbinder_fs_info *info = inode->i_sb->s_fs_info;

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	if (!dev)
		return;
	ida_free(&fbinder_fs_minors, MINOR(inode->i_rdev));
	atomic_dec(&info->nr_devices);
	fbinder_device_put(dev);
}

static const struct super_operations fbinder_fs_sops = {
	.statfs = simple_statfs,
	.drop_inode = generic_delete_inode,
	.evict_inode = fbinder_fs_evict_inode,
};

static int fbinder_fs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct fbinder_fs_info *info;
	struct inode *inode;
	struct dentry *ctl;

	/*
	 * The kernel ignores device nodes on a mount made in a user namespace
	 * (SB_I_NODEV), lest its owner mknod() a way to any device.  Nobody
	 * makes nodes here: the only ones are FBINDER_CTL_ADD's, which open
	 * this driver and nothing else.
	 */
	sb->s_iflags &= ~SB_I_NODEV;
	sb->s_iflags |= SB_I_NOEXEC;
	sb->s_magic = FBINDER_FS_MAGIC;
	sb->s_op = &fbinder_fs_sops;
	sb->s_time_gran = 1;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	sb->s_fs_info = info;
	/* the namespace's root owns it; without one mapped, the mounter */
	info->uid = make_kuid(sb->s_user_ns, 0);
	info->gid = make_kgid(sb->s_user_ns, 0);
	if (!uid_valid(info->uid))
		info->uid = current_fsuid();
	if (!gid_valid(info->gid))
		info->gid = current_fsgid();
	atomic_set(&info->nr_devices, 0);

	inode = fbinder_fs_inode(sb, FBINDER_FS_ROOT_INO, S_IFDIR | 0755);
	if (!inode)
		return -ENOMEM;
	inode->i_op = &fbinder_fs_dir_iops;
	inode->i_fop = &simple_dir_operations;
	set_nlink(inode, 2);
	sb->s_root = d_make_root(inode);
	if (!sb->s_root)
		return -ENOMEM;

	ctl = d_alloc_name(sb->s_root, FBINDER_FS_CONTROL);
	if (!ctl)
		return -ENOMEM;
	inode = fbinder_fs_inode(sb, FBINDER_FS_CONTROL_INO, S_IFREG | 0600);
	if (!inode) {
		dput(ctl);
		return -ENOMEM;
	}
	inode->i_fop = &fbinder_fs_ctl_fops;
	d_add(ctl, inode);	/* pinned until the mount goes (kill_litter_super()) */
	return 0;
}

static int fbinder_fs_get_tree(struct fs_context *fc)
{
	return get_tree_nodev(fc, fbinder_fs_fill_super);
}

/* No mount options: any is EINVAL (the VFS's "Unknown parameter"). */
static const struct fs_context_operations fbinder_fs_context_ops = {
	.get_tree = fbinder_fs_get_tree,
};

static int fbinder_fs_init_fs_context(struct fs_context *fc)
{
	fc->ops = &fbinder_fs_context_ops;
	return 0;
}

/* Unmounted: its devices' inodes are evicted, then its count may go. */
static void fbinder_fs_kill_sb(struct super_block *sb)
{
	struct fbinder_fs_info *info = sb->s_fs_info;

	kill_litter_super(sb);
	kfree(info);
}

/*
 * FS_USERNS_MOUNT: a user namespace's root may mount its own (docs/security.md,
 * Instances): it reaches only devices it makes, each bounded and charged.
 */
static struct file_system_type fbinder_fs_type = {
	.owner = THIS_MODULE,
	.name = FBINDER_FS_TYPE,
	.init_fs_context = fbinder_fs_init_fs_context,
	.kill_sb = fbinder_fs_kill_sb,
	.fs_flags = FS_USERNS_MOUNT,
};

int fbinder_fs_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&fbinder_fs_devt, 0, FBINDER_FS_MINORS,
				  FBINDER_FS_TYPE);
	if (ret)
		return ret;
	ret = register_filesystem(&fbinder_fs_type);
	if (ret)
		unregister_chrdev_region(fbinder_fs_devt, FBINDER_FS_MINORS);
	return ret;
}

/* Only once nothing is mounted: each mount pins the module. */
void fbinder_fs_exit(void)
{
	unregister_filesystem(&fbinder_fs_type);
	unregister_chrdev_region(fbinder_fs_devt, FBINDER_FS_MINORS);
	ida_destroy(&fbinder_fs_minors);
}
