// SPDX-License-Identifier: MIT
/*
 * version: the device exists with mode 0666, FBINDER_IOC_VERSION reports the ABI
 * version of uapi/linux/fastbinder.h, the oldest it serves and its features,
 * a program built before the features (the 8-byte command, and a struct
 * of version 4's layout, copied here as such a program had it) still gets
 * the version it demands, and an unknown ioctl or size is ENOTTY.
 */
#include "fbt.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int main(void)
{
	struct fbinder_version ver = { .abi_version = 0xdeadbeef };
	/* uapi/linux/fastbinder.h of version 4, before feature bits */
	struct old_version {
		__u32 abi_version;
		__u32 reserved;
	} old[2];
	struct stat st;
	int fd, ret;

	if (stat(FBT_DEV, &st) < 0)
		die("stat %s", FBT_DEV);
	CHECK(S_ISCHR(st.st_mode), "%s is not a character device", FBT_DEV);
	CHECK((st.st_mode & 07777) == 0666, "%s has mode %04o, want 0666",
	      FBT_DEV, st.st_mode & 07777);
	CHECK(major(st.st_rdev) == 10, "%s major %u, want 10 (misc)", FBT_DEV,
	      major(st.st_rdev));

	fd = fbt_open();

	ret = ioctl(fd, FBINDER_IOC_VERSION, &ver);
	CHECK(ret == 0, "FBINDER_IOC_VERSION failed: %s", strerror(errno));
	CHECK(ver.abi_version == FBINDER_ABI_VERSION,
	      "FBINDER_IOC_VERSION says %u, header says %u", ver.abi_version,
	      FBINDER_ABI_VERSION);

	CHECK(ver.min_abi_version && ver.min_abi_version <= ver.abi_version,
	      "min_abi_version %u, abi_version %u", ver.min_abi_version,
	      ver.abi_version);
	CHECK((ver.features & FBINDER_FEATURES_V4) == FBINDER_FEATURES_V4,
	      "features %#llx lack version 4's %#llx",
	      (unsigned long long)ver.features,
	      (unsigned long long)FBINDER_FEATURES_V4);

	/*
	 * The old program's command, as its header spelled it, and its exact
	 * check: the driver writes its 8 bytes and not one more.
	 */
	memset(old, 0xa5, sizeof(old));
	CHECK(_IOR(FBINDER_IOC_MAGIC, 0, struct old_version) == FBINDER_IOC_VERSION_V4,
	      "FBINDER_IOC_VERSION_V4 is not version 4's command number");
	ret = ioctl(fd, _IOR(FBINDER_IOC_MAGIC, 0, struct old_version), &old[0]);
	CHECK(ret == 0, "the 8-byte FBINDER_IOC_VERSION failed: %s", strerror(errno));
	CHECK(old[0].abi_version == 4,
	      "a version 4 program is told %u, it demands 4", old[0].abi_version);
	CHECK(old[1].abi_version == 0xa5a5a5a5 && old[1].reserved == 0xa5a5a5a5,
	      "the 8-byte command wrote past its 8 bytes");

	/* Neither a size between nor another direction is the command. */
	ret = ioctl(fd, _IOC(_IOC_READ, FBINDER_IOC_MAGIC, 0, 12), &ver);
	CHECK(ret < 0 && errno == ENOTTY,
	      "12-byte VERSION returned %d (%s), want ENOTTY", ret,
	      ret < 0 ? strerror(errno) : "no error");
	ret = ioctl(fd, _IOW(FBINDER_IOC_MAGIC, 0, struct fbinder_version), &ver);
	CHECK(ret < 0 && errno == ENOTTY,
	      "_IOW VERSION returned %d (%s), want ENOTTY", ret,
	      ret < 0 ? strerror(errno) : "no error");

	/* Same magic, a number the driver does not define. */
	ret = ioctl(fd, _IOR(FBINDER_IOC_MAGIC, 0x7f, struct fbinder_version), &ver);
	CHECK(ret < 0 && errno == ENOTTY,
	      "unknown ioctl returned %d (%s), want ENOTTY", ret,
	      ret < 0 ? strerror(errno) : "no error");
	/* Another driver's magic. */
	ret = ioctl(fd, _IO('T', 0x42), 0);
	CHECK(ret < 0 && errno == ENOTTY,
	      "foreign ioctl returned %d (%s), want ENOTTY", ret,
	      ret < 0 ? strerror(errno) : "no error");

	CHECK(close(fd) == 0, "close: %s", strerror(errno));
	return fbt_done();
}
