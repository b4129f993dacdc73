/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FB_DEVICE_H
#define _FB_DEVICE_H

#include <linux/list.h>

extern struct list_head fb_devices;	/* struct fb_device.entry */

int fb_devices_init(void);
void fb_devices_exit(void);

#endif /* _FB_DEVICE_H */
