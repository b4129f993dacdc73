// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: binder-style IPC for ordinary Linux.
 *
 * The table of contents: each part is set up in order and torn down in
 * reverse.  docs/design.md tells how the parts fit together.
 */
#include <linux/module.h>

#include "alloc.h"
#include "device.h"
#include "internal.h"

static int __init fb_init(void)
{
	int ret;

#ifdef CONFIG_FASTBINDER_SELFTEST
	ret = fb_alloc_selftest();
	if (ret)
		return ret;
	ret = fb_handle_selftest();
	if (ret)
		return ret;
#endif
	ret = fb_alloc_global_init();
	if (ret)
		return ret;
	fb_debugfs_init();
	ret = fb_devices_init();
	if (ret)
		goto err_devices;
	return 0;

err_devices:
	fb_debugfs_exit();
	fb_alloc_global_exit();
	return ret;
}

static void __exit fb_exit(void)
{
	fb_devices_exit();
	fb_debugfs_exit();
	fb_alloc_global_exit();
}

module_init(fb_init);
module_exit(fb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fastbinder: binder-style IPC with single-copy messages");
MODULE_VERSION("0.1");
