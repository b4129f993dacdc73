#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tools/vm/demo.sh - the "make demo" transcript, guest side.  It grows with
# the project: each feature adds a short, commented step here.
step() { printf '\n## %s\n' "$*"; }
run() { echo "\$ $*"; sh -c "$*"; }

echo "================ fastbinder demo on Linux $(uname -r) ================"

step "1. The module: what it is"
run "modinfo fastbinder | grep -E '^(filename|description|license|vermagic|parm)'"

step "2. Load it (it registers the misc device /dev/fastbinder)"
run modprobe fastbinder || exit 1
run "grep fastbinder /proc/modules"
run "grep fastbinder /proc/misc"

step "3. The device node: mode 0666, because access is by handle, not by file mode"
run ls -l /dev/fastbinder

step "4. Ask the driver which ABI it speaks (tools/fbversion.c, FB_IOC_VERSION)"
run fbversion || exit 1

step "5. Unload it again: nothing may stay behind"
run rmmod fastbinder || exit 1
run "ls /dev/fastbinder 2>&1 || true"

step "Kernel log of this session"
dmesg | grep -i fastbinder || echo "(no fastbinder messages)"
echo
echo "Demo done.  Next: make check (tests) and make vm-shell (try it yourself)."
