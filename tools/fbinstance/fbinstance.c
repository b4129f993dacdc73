// SPDX-License-Identifier: MIT
/*
 * fbinstance - make and remove fastbinder devices in a fastbinderfs mount
 * (docs/abi.md, Instances): "add" asks the mount's control file for each
 * name (FBINDER_CTL_ADD) and prints the device it made, "remove" unlinks
 * them.  Exit 0 when every name was done, 1 when one failed (the others
 * are still tried), 2 on bad usage, 3 when MOUNT is no fastbinderfs mount
 * or its control file cannot be opened (tools/lib/fbtool.h).
 */
#define _GNU_SOURCE /* O_CLOEXEC under -std=c11 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/fastbinder.h>

#include "fbtool.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: fbinstance add MOUNT NAME...\n"
"       fbinstance remove MOUNT NAME...\n"
"Makes (add) or removes (remove) the fastbinder devices MOUNT/NAME in a\n"
"fastbinderfs mount (mount -t fastbinderfs none MOUNT), each a device of\n"
"its own with its own context manager.  add prints \"MOUNT/NAME MAJOR:MINOR\"\n"
"for each device it made.  A removed device lives on for the contexts\n"
"open on it and goes with the last of them.\n"
"  -h, --help      this text\n"
"      --version   this program's release and ABI version\n"
"Exit status: 0 done; 1 a name failed (the others are still tried);\n"
"2 usage error; 3 MOUNT is no fastbinderfs mount, or its control file\n"
"cannot be opened (permission denied: it takes the mount's root).\n");
}

/* Why a name failed, in the words of docs/abi.md's table. */
static const char *add_error(int e)
{
	switch (e) {
	case EEXIST:
		return "the mount has that name already";
	case EINVAL:
		return "not a device name (1 to 31 bytes, no '/', not . or ..)";
	case ENOSPC:
		return "the mount has its most devices (64, FBINDER_FS_MAX_INSTANCES)";
	case EPERM:
		return "permission denied (CAP_SYS_ADMIN in the mount's user namespace)";
	default:
		return strerror(e);
	}
}

static int add(const char *mnt, int ctl, const char *name)
{
	struct fbinder_instance req = { 0 };

	if (strlen(name) >= sizeof(req.name)) {
		fbtool_err("%s/%s: %s", mnt, name, add_error(EINVAL));
		return FBTOOL_EXIT_FAILED;
	}
	memcpy(req.name, name, strlen(name));
	if (ioctl(ctl, FBINDER_CTL_ADD, &req) < 0) {
		fbtool_err("%s/%s: %s", mnt, name, add_error(errno));
		return FBTOOL_EXIT_FAILED;
	}
	printf("%s/%s %u:%u\n", mnt, name, req.major, req.minor);
	return FBTOOL_EXIT_OK;
}

static int remove_one(const char *mnt, const char *name)
{
	char path[PATH_MAX];

	/* one name, not a path: nothing outside the mount */
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    !strcmp(name, FBINDER_FS_CONTROL)) {
		fbtool_err("%s/%s: %s", mnt, name, add_error(EINVAL));
		return FBTOOL_EXIT_FAILED;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", mnt, name) >= sizeof(path) ||
	    unlink(path) < 0) {
		fbtool_err("%s: %s", path, errno == EACCES || errno == EPERM ?
			   "permission denied (CAP_SYS_ADMIN in the mount's user namespace)" :
			   strerror(errno));
		return FBTOOL_EXIT_FAILED;
	}
	return FBTOOL_EXIT_OK;
}

int main(int argc, char **argv)
{
	char ctl_path[PATH_MAX];
	const char *mnt;
	struct statfs sf;
	int rc, i, ctl = -1, adding;

	fbtool_init("fbinstance");
	rc = fbtool_std_args(argc, argv, usage);
	if (rc >= 0)
		return rc;
	if (argc < 2 || argv[1][0] == '-')
		return argc < 2 ? fbtool_usage_error("add or remove, MOUNT and NAME...") :
				  fbtool_usage_error("unknown option '%s'", argv[1]);
	adding = !strcmp(argv[1], "add");
	if (!adding && strcmp(argv[1], "remove"))
		return fbtool_usage_error("unknown command '%s'", argv[1]);
	if (argc < 4)
		return fbtool_usage_error("%s needs MOUNT and at least one NAME", argv[1]);
	mnt = argv[2];
	if (statfs(mnt, &sf) < 0 || sf.f_type != FBINDER_FS_MAGIC) {
		fbtool_err("%s: not a fastbinderfs mount (mount -t %s none %s)", mnt,
			   FBINDER_FS_TYPE, mnt);
		return FBTOOL_EXIT_UNAVAILABLE;
	}
	if (adding) {
		snprintf(ctl_path, sizeof(ctl_path), "%s/%s", mnt, FBINDER_FS_CONTROL);
		ctl = open(ctl_path, O_RDWR | O_CLOEXEC);
		if (ctl < 0) {
			fbtool_err("%s: %s", ctl_path, errno == EACCES ?
				   "permission denied (it takes the mount's root)" :
				   strerror(errno));
			return FBTOOL_EXIT_UNAVAILABLE;
		}
	}
	rc = FBTOOL_EXIT_OK;
	for (i = 3; i < argc; i++)
		if ((adding ? add(mnt, ctl, argv[i]) : remove_one(mnt, argv[i])) !=
		    FBTOOL_EXIT_OK)
			rc = FBTOOL_EXIT_FAILED;
	if (ctl >= 0)
		close(ctl);
	return rc;
}
