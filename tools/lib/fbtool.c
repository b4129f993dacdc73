// SPDX-License-Identifier: MIT
/*
 * fbtool.c - the conventions every fastbinder program shares (fbtool.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/fastbinder.h>

#include "fbtool.h"

/* The release, from dkms.conf's PACKAGE_VERSION (tools/tools.mk). */
#ifndef FBTOOL_VERSION
#define FBTOOL_VERSION "unknown"
#endif
#define FBTOOL_DEVICE	"/dev/fastbinder"

const char *fbtool_prog = "fastbinder";

void fbtool_init(const char *prog)
{
	fbtool_prog = prog;
}

static void vmessage(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", fbtool_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void fbtool_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
}

int fbtool_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", fbtool_prog);
	return FBTOOL_EXIT_USAGE;
}

void fbtool_version(void)
{
	printf("%s (fastbinder %s), ABI version %u\n", fbtool_prog,
	       FBTOOL_VERSION, (unsigned int)FBINDER_ABI_VERSION);
}

int fbtool_std_args(int argc, char **argv, void (*usage)(FILE *f))
{
	if (argc < 2)
		return -1;
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return FBTOOL_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		fbtool_version();
		return FBTOOL_EXIT_OK;
	}
	return -1;
}

int fbtool_unavailable(const char *path, int e)
{
	if (!path)
		path = FBTOOL_DEVICE;
	switch (e) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		if (access("/sys/module/fastbinder", F_OK))
			fbtool_err("%s: no such device: the fastbinder module is not loaded (modprobe fastbinder)",
				   path);
		else
			fbtool_err("%s: no such device (the fastbinder module's devices= parameter names its devices)",
				   path);
		break;
	case EACCES:
	case EPERM:
		fbtool_err("%s: permission denied (the device's owner, group and mode: fastbinder(4), FILES)",
			   path);
		break;
	case EPROTONOSUPPORT:
		fbtool_err("%s: the driver speaks another ABI version than this program (built for %u)",
			   path, (unsigned int)FBINDER_ABI_VERSION);
		break;
	default:
		fbtool_err("%s: %s", path, strerror(e));
	}
	return FBTOOL_EXIT_UNAVAILABLE;
}
