// SPDX-License-Identifier: MIT
/*
 * version: the device exists with mode 0666, FBINDER_IOC_VERSION reports the ABI
 * version of uapi/linux/fastbinder.h, and an unknown ioctl is ENOTTY.
 */
#include "fbt.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int main(void)
{
	struct fbinder_version ver = { .abi_version = 0xdeadbeef, .reserved = 0 };
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
