#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts/deps.sh [-k KERNEL]... [-n] [GROUP...] - install the Debian packages
# the build and the tests need, only when something is missing.
#
#   GROUP    what for (each includes the groups named after "+"):
#     build  make, make install: the compiler, kbuild's tools, valgrind's
#            header, the kernel headers of each -k KERNEL
#     vm     + build: make demo, vm-shell, vm-run (QEMU, static busybox, the
#            initramfs tools, xz for 6.12's modules)
#     check  + vm: make check, check-matrix (libcheck, the dynamic loader's
#            symbols for valgrind, man for the install test); the default
#     lint   + build: make lint (sparse, cppcheck, checkpatch.pl from
#            linux-source-6.1, the headers of all three kernels)
#     debug  + check: make check-debug (linux-source-6.1 and its build deps)
#     fuzz   + build: make fuzz (clang, libFuzzer's runtime)
#     bench  + vm: make bench (gnuplot for the plots)
#     profile + vm: make bench-profile (linux-perf, which the guest runs)
#     fresh  make check-fresh (debootstrap, git)
#     all    every group, all kernels
#   -k KERNEL  6.1, 6.12, 6.1-rt, all or none: whose headers (repeatable;
#              default $KERNEL, else 6.1).  A bare first argument 6.1, 6.12 or
#              6.1-rt means the same (the old "deps.sh KERNEL").
#   -n         print the packages (one a line, "missing" beside those that
#              are) and install nothing
#
# Fast and silent when everything is present (one dpkg-query call), so the
# Makefile's deps-GROUP steps run it before each target that needs GROUP.
# "apt-get update" runs only when a package is missing, because on a fresh
# machine (or a fresh container) the package lists may be empty or stale.
# Every command a README target runs is in some group: see docs/testing.md.
set -euo pipefail

usage() { sed -n '4,31p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

headers_of() {
	case "$1" in
	6.1)	echo linux-headers-amd64 ;;
	6.12)	echo linux-headers-6.12-amd64 ;;
	6.1-rt)	echo linux-headers-rt-amd64 ;;
	none)	;;
	*)	echo "deps.sh: unknown KERNEL '$1' (use 6.1, 6.12, 6.1-rt, all or none)" >&2
		exit 2 ;;
	esac
}

kernels=() groups=() list=0
case "${1:-}" in 6.1 | 6.12 | 6.1-rt) kernels=("$1"); shift ;; esac
while [ $# -gt 0 ]; do
	case "$1" in
	-k | --kernel) [ $# -ge 2 ] || usage; kernels+=("$2"); shift 2 ;;
	-n | --list) list=1; shift ;;
	-h | --help) usage ;;
	-*) usage ;;
	*) groups+=("$1"); shift ;;
	esac
done
[ ${#kernels[@]} -gt 0 ] || kernels=("${KERNEL:-6.1}")
[ ${#groups[@]} -gt 0 ] || groups=(check)

pkgs=()
add_headers() {
	local k h
	for k in "$@"; do
		if [ "$k" = all ]; then
			add_headers 6.1 6.12 6.1-rt
		else
			h=$(headers_of "$k")
			[ -z "$h" ] || pkgs+=("$h")
		fi
	done
}
# add GROUP: the packages of GROUP and of the groups it includes
add() {
	case "$1" in
	build)	# gcc, make, binutils (readelf, nm), libc6-dev; kbuild copies
		# with rsync; depmod and modinfo are kmod.  valgrind for its
		# <valgrind/memcheck.h>: libbinderlite/io.c compiles memcheck's
		# client requests in when the header is there, and objects built
		# before it was (make demo, then make check) would stay without
		# them: valgrind_user fails then.
		pkgs+=(build-essential pkg-config rsync kmod valgrind)
		add_headers "${kernels[@]}" ;;
	vm)	add build
		# scripts/vm/run.sh: qemu, a static busybox, cpio | gzip, xz -d
		# for 6.12's modules (apt-get download and dpkg-deb are in apt
		# and dpkg, always there)
		pkgs+=(qemu-system-x86 busybox-static cpio gzip xz-utils) ;;
	check)	add vm
		# host tests: libcheck, valgrind (build); libc6-dbg for valgrind
		# in the VM (-V); man for the man-page check of tests/system/install.sh
		pkgs+=(check libc6-dbg man-db) ;;
	lint)	add build
		add_headers all
		# scripts/lint.sh: checkpatch.pl is perl, from linux-source-6.1's
		# tarball (.tar.xz)
		# scripts/doc-check.py: python3
		pkgs+=(sparse cppcheck perl linux-source-6.1 xz-utils python3) ;;
	debug)	add check
		# scripts/debug-kernel.sh: the brief's build dependencies
		pkgs+=(linux-source-6.1 bc bison flex libelf-dev libssl-dev xz-utils cpio) ;;
	fuzz)	add build
		pkgs+=(clang libclang-rt-14-dev) ;;
	bench)	add vm
		pkgs+=(gnuplot-nox) ;;
	profile) add vm
		pkgs+=(linux-perf) ;;
	fresh)	# scripts/check-fresh.sh (unshare, mount, flock: util-linux)
		pkgs+=(debootstrap git tar gzip util-linux) ;;
	all)	kernels=(all)
		local g
		for g in build vm check lint debug fuzz bench profile fresh; do add "$g"; done ;;
	*)	echo "deps.sh: unknown group '$1' (build vm check lint debug fuzz bench profile fresh all)" >&2
		exit 2 ;;
	esac
}
for g in "${groups[@]}"; do add "$g"; done
mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | awk '!seen[$0]++')

# One dpkg-query for all: "name status" for the known ones.
declare -A status=()
while read -r name st; do
	status[${name%%:*}]=$st
done < <(dpkg-query -W -f='${binary:Package} ${db:Status-Status}\n' "${pkgs[@]}" 2>/dev/null || true)
missing=()
for p in "${pkgs[@]}"; do
	[ "${status[$p]:-}" = installed ] || missing+=("$p")
done

if [ "$list" = 1 ]; then
	for p in "${pkgs[@]}"; do
		if [ "${status[$p]:-}" = installed ]; then echo "$p"; else echo "$p missing"; fi
	done
	exit 0
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages: ${missing[*]}" >&2
	echo "deps.sh: run as root, or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi

echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Wait for another apt/dpkg run (a second make, another engineer) instead
# of failing on its lock.
apt=(apt-get -o DPkg::Lock::Timeout=600 -y -qq --no-install-recommends)
"${apt[@]}" update >&2
"${apt[@]}" install "${missing[@]}" >&2
