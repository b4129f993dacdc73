#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts/build-module.sh KDIR OUTDIR [kbuild args...]
#
# Builds the module with kbuild against the kernel tree (headers) KDIR, in a
# private copy OUTDIR/{driver,uapi} of the sources.  Why a copy: the three
# kernels (and the self-test variant) each need their own objects, and kbuild
# writes its objects next to the sources.  rsync keeps the sources' mtimes, so
# a rebuild is incremental, and --delete drops files removed from driver/.
# Nothing here knows the driver's file list: driver/Kbuild owns it.
#
# DRIVER_DIR and UAPI_DIR (environment) point at other sources, for example a
# throwaway copy of the driver under /tmp.
set -euo pipefail

kdir=$1 out=$2
shift 2
driver=${DRIVER_DIR:-driver}
uapi=${UAPI_DIR:-uapi}

if [ ! -e "$kdir/Makefile" ]; then
	echo "build-module: no kernel headers at $kdir (run: make deps)" >&2
	exit 1
fi

# kbuild's .*.cmd files name every header an object was built from: when a
# file disappears (or another DRIVER_DIR is used), that stale dependency would
# break the build, so start from scratch whenever the set of files changes.
stamp="$(cd "$driver" && pwd) $(cd "$driver" && find . -maxdepth 1 ! -name '.*' \
	! -name '*.o' ! -name '*.ko' ! -name '*.mod' ! -name '*.mod.c' \
	! -name '*.symvers' ! -name '*.order' | sort | tr '\n' ' ')"
if [ "$(cat "$out/.sources" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$out/driver"
fi

# Build products are excluded so --delete keeps them (incremental builds)
# and so stray objects from an in-tree build are never copied in.
mkdir -p "$out/driver" "$out/uapi"
rsync -a --delete \
	--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='.*.cmd' --exclude='Module.symvers' --exclude='modules.order' \
	--exclude='*.a' --exclude='.*.d' --exclude='.tmp_versions' \
	"$driver/" "$out/driver/"
rsync -a --delete "$uapi/" "$out/uapi/"

echo "$stamp" >"$out/.sources"
# Debian's headers ship no vmlinux, so kbuild says it skips BTF for every
# module: expected, and noise.
make -s -C "$kdir" M="$(cd "$out/driver" && pwd)" "$@" modules 2>&1 |
	{ grep -v '^Skipping BTF generation' || true; }
