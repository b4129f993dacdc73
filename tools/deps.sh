#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tools/deps.sh [KERNEL] - install the Debian packages the build and the
# tests need, only when something is missing.
#
# Fast and silent when everything is present (one dpkg-query call), so the
# Makefile can run it before every build.  "apt-get update" runs only when a
# package is missing, because on a fresh machine (or a fresh container) the
# package lists may be empty or stale.
set -euo pipefail

KERNEL=${1:-${KERNEL:-6.1}}

case "$KERNEL" in
6.1)	headers=linux-headers-amd64 ;;
6.12)	headers=linux-headers-6.12-amd64 ;;
6.1-rt)	headers=linux-headers-rt-amd64 ;;
*)	echo "deps.sh: unknown KERNEL '$KERNEL' (use 6.1, 6.12 or 6.1-rt)" >&2
	exit 2 ;;
esac

pkgs=(build-essential "$headers" qemu-system-x86 busybox-static check
      valgrind libc6-dbg cpio pkg-config sparse cppcheck xz-utils kmod gzip rsync)

missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages: ${missing[*]}" >&2
	echo "deps.sh: run as root, or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi

echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
