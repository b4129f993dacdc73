/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FBINDER_DEVICE_H
#define _FBINDER_DEVICE_H

#include <linux/list.h>

extern struct list_head fbinder_devices;	/* struct fbinder_device.entry */

int fbinder_devices_init(void);
void fbinder_devices_exit(void);

#endif /* _FBINDER_DEVICE_H */
