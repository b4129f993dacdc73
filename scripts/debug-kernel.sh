#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts/debug-kernel.sh [OUTDIR]
#
# Builds (once) a debug kernel from Debian's linux-source-6.1 package: KASAN,
# lockdep (PROVE_LOCKING) with lock statistics (LOCK_STAT), kmemleak, UBSAN,
# DEBUG_ATOMIC_SLEEP, DEBUG_LIST and fault injection (failslab,
# fail_page_alloc, their debugfs knobs and the stack-trace filter), with the
# options a QEMU guest needs and those the tests look for: memory cgroups
# (attack_buffer_pages' charge), the cgroup freezer, user namespaces
# (attack_ctx_mgr) and histogram triggers (tracing_recipes).  The tree in
# OUTDIR/src (default build/debug-kernel/src) is also the KDIR the module
# builds against.  When OUTDIR/src/arch/x86/boot/bzImage and Module.symvers
# exist nothing is rebuilt: delete OUTDIR to start over.  About 10 minutes of
# both cores.  Prints the path of the tree on its last line.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/debug-kernel}
src=$out/src
jobs=${JOBS:-$(nproc)}

if [ -f "$src/arch/x86/boot/bzImage" ] && [ -f "$src/Module.symvers" ] &&
   [ -f "$src/.fb-debug-done" ]; then
	echo "$src"
	exit 0
fi

# Build dependencies (Debian packages), installed only when missing.
need=()
for p in linux-source-6.1 bc bison flex libelf-dev libssl-dev cpio; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "debug-kernel: installing ${need[*]}" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2 || {
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
	}
fi

tarball=''
for f in /usr/src/linux-source-6.1*.tar.xz; do [ -f "$f" ] && tarball=$f; done
[ -n "$tarball" ] || { echo "debug-kernel: no /usr/src/linux-source-6.1*.tar.xz" >&2; exit 1; }
if [ ! -f "$src/Makefile" ]; then
	echo "debug-kernel: unpacking $tarball" >&2
	rm -rf "$src" "$out/unpack"
	mkdir -p "$out/unpack"
	tar -xf "$tarball" -C "$out/unpack"
	mv "$out/unpack"/linux-source-* "$src"
	rmdir "$out/unpack"
fi

cd "$src"
if [ ! -f .fb-config-done ]; then
	echo "debug-kernel: configuring" >&2
	make -s x86_64_defconfig >&2
	make -s kvm_guest.config >&2
	scripts/config \
		-e KASAN -e KASAN_GENERIC -e KASAN_INLINE \
		-e PROVE_LOCKING -e LOCK_STAT -e DEBUG_ATOMIC_SLEEP -e DEBUG_LIST \
		-e DEBUG_KMEMLEAK -d DEBUG_KMEMLEAK_AUTO_SCAN \
		--set-val DEBUG_KMEMLEAK_MEM_POOL_SIZE 64000 \
		-e UBSAN -e UBSAN_BOUNDS \
		-e FAULT_INJECTION -e FAILSLAB -e FAIL_PAGE_ALLOC \
		-e FAULT_INJECTION_DEBUG_FS -e FAULT_INJECTION_STACKTRACE_FILTER \
		-e DEBUG_FS -e MODULES -e MODULE_UNLOAD -e USERFAULTFD \
		-e CGROUPS -e MEMCG -e CGROUP_FREEZER -e NAMESPACES -e USER_NS \
		-e FTRACE -e ENABLE_DEFAULT_TRACERS -e HIST_TRIGGERS \
		-e DEVTMPFS -e DEVTMPFS_MOUNT -e BLK_DEV_INITRD \
		-e PREEMPT -d PREEMPT_VOLUNTARY -d PREEMPT_NONE \
		-d DEBUG_INFO -e DEBUG_INFO_NONE -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		-d DEBUG_INFO_BTF \
		-d DRM -d SOUND -d USB_SUPPORT -d WLAN -d WIRELESS \
		--set-str LOCALVERSION "-fbdebug" -d LOCALVERSION_AUTO
	make -s olddefconfig >&2
	for o in KASAN PROVE_LOCKING LOCK_STAT DEBUG_KMEMLEAK UBSAN FAILSLAB FAIL_PAGE_ALLOC USERFAULTFD \
		 FAULT_INJECTION_DEBUG_FS DEBUG_ATOMIC_SLEEP MEMCG CGROUP_FREEZER USER_NS HIST_TRIGGERS; do
		grep -q "^CONFIG_$o=y" .config || {
			echo "debug-kernel: CONFIG_$o did not stick" >&2
			exit 1
		}
	done
	touch .fb-config-done
fi

echo "debug-kernel: building with -j$jobs (about 10 minutes)" >&2
start=$(date +%s)
make -s -j"$jobs" bzImage modules >&2
touch .fb-debug-done
echo "debug-kernel: built $(make -s kernelrelease) in $(($(date +%s) - start)) s" >&2
echo "$src"
