// SPDX-License-Identifier: MIT
/*
 * fbversion - print the ABI version the loaded fastbinder driver speaks and
 * the one this program was built with.  Exit 0 when they match, 1 when
 * they differ, 2 on bad usage, 3 when the device cannot be used
 * (tools/lib/fbtool.h).
 */
#define _GNU_SOURCE /* O_CLOEXEC under -std=c11 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/fastbinder.h>

#include "fbtool.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: fbversion [DEVICE]\n"
"Prints the ABI version the fastbinder driver behind DEVICE (default\n"
"/dev/fastbinder) speaks next to the one this program was built for.\n"
"  -h, --help      this text\n"
"      --version   this program's release and ABI version\n"
"Exit status: 0 the versions match; 1 they differ; 2 usage error;\n"
"3 the device cannot be used (module not loaded, no such device,\n"
"permission denied).\n");
}

int main(int argc, char **argv)
{
	struct fbinder_version ver = { 0 };
	const char *dev = "/dev/fastbinder";
	bool match;
	int fd, rc;

	fbtool_init("fbversion");
	rc = fbtool_std_args(argc, argv, usage);
	if (rc >= 0)
		return rc;
	if (argc > 2)
		return fbtool_usage_error("at most one DEVICE");
	if (argc == 2) {
		if (argv[1][0] == '-')
			return fbtool_usage_error("unknown option '%s'", argv[1]);
		dev = argv[1];
	}
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fbtool_unavailable(dev, errno);
	/* a driver from before feature bits knows only the 8-byte command */
	if (ioctl(fd, FBINDER_IOC_VERSION, &ver) < 0 &&
	    (errno != ENOTTY || ioctl(fd, FBINDER_IOC_VERSION_V4, &ver) < 0)) {
		fbtool_err("%s: FBINDER_IOC_VERSION: %s", dev, strerror(errno));
		close(fd);
		return FBTOOL_EXIT_UNAVAILABLE;
	}
	close(fd);
	if (!ver.min_abi_version)
		ver.min_abi_version = ver.abi_version;
	/* the driver serves every version from its oldest to its own */
	match = ver.min_abi_version <= FBINDER_ABI_VERSION &&
		FBINDER_ABI_VERSION <= ver.abi_version;
	printf("driver ABI version %u, user space built for %u: %s\n",
	       ver.abi_version, (unsigned int)FBINDER_ABI_VERSION,
	       match ? "match" : "MISMATCH");
	return match ? FBTOOL_EXIT_OK : FBTOOL_EXIT_FAILED;
}
