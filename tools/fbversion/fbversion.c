// SPDX-License-Identifier: MIT
/*
 * fbversion - print the ABI version the loaded fastbinder driver speaks and
 * the one this program was built with.  Exit 0 when they match.
 */
#define _GNU_SOURCE /* O_CLOEXEC under -std=c11 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/fastbinder.h>

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/fastbinder";
	struct fbinder_version ver = { 0 };
	int fd = open(dev, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "fbversion: open %s: %s\n", dev, strerror(errno));
		return 1;
	}
	if (ioctl(fd, FBINDER_IOC_VERSION, &ver) < 0) {
		fprintf(stderr, "fbversion: FBINDER_IOC_VERSION: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	printf("driver ABI version %u, user space built for %u: %s\n",
	       ver.abi_version, (unsigned int)FBINDER_ABI_VERSION,
	       ver.abi_version == FBINDER_ABI_VERSION ? "match" : "MISMATCH");
	return ver.abi_version == FBINDER_ABI_VERSION ? 0 : 1;
}
