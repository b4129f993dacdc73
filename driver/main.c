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
#include "stats.h"

/* CONFIG_FASTBINDER_SELFTEST: the allocator's and handles' own tests. */
static int __init fbinder_selftests(void)
{
#ifdef CONFIG_FASTBINDER_SELFTEST
	int ret = fbinder_alloc_selftest();

	return ret ?: fbinder_handle_selftest();
#else
	return 0;
#endif
}

static int __init fbinder_init(void)
{
	int ret;

	ret = fbinder_alloc_global_init();
	if (ret)
		return ret;
	/* in the state the module runs in (pools, shrinkers), before any user */
	ret = fbinder_selftests();
	if (ret)
		goto err_selftests;
	fbinder_debugfs_init();
	ret = fbinder_devices_init();
	if (ret)
		goto err_devices;
	/* last: a mount may make devices at once */
	ret = fbinder_fs_init();
	if (ret)
		goto err_fs;
	return 0;

err_fs:
	fbinder_devices_exit();
err_devices:
	fbinder_debugfs_exit();
err_selftests:
	fbinder_alloc_global_exit();
	return ret;
}

static void __exit fbinder_exit(void)
{
	fbinder_fs_exit();
	fbinder_devices_exit();
	fbinder_regions_exit();
	fbinder_debugfs_exit();
	fbinder_stats_exit();
	fbinder_alloc_global_exit();
}

module_init(fbinder_init);
module_exit(fbinder_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fastbinder: binder-style IPC with single-copy messages");
MODULE_VERSION("0.1");
