#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts/vm/run.sh - boot a Debian kernel in QEMU with fastbinder and run a
# command in it, in the spirit of virtme-ng's "vng --exec".
#
#   run.sh [options] [--] COMMAND...     run COMMAND (a guest sh command line)
#   run.sh [options] -i                  interactive shell (Ctrl-A X quits)
#
# Options:
#   -k KERNEL   6.1 (default), 6.12 or 6.1-rt: Debian 12 kernel to boot
#   -K IMAGE    boot this local bzImage instead (e.g. the debug kernel of
#               "make check-debug"); -k then only names build/<KERNEL>/
#   -M MB       guest memory (default 1024)
#   -m FILE     the fastbinder module, copied to /fb/fastbinder.ko
#   -S FILE     the self-test build of the module, /fb/fastbinder-selftest.ko
#   -l          insmod /fb/fastbinder.ko before COMMAND (fail if it fails)
#   -b FILE     a program for /fb/bin (on PATH)        (repeatable)
#   -t FILE     a VM test for /fb/tests (on PATH)      (repeatable)
#   -f FILE     an extra file for /fb/files, the cwd   (repeatable)
#   -V DIR      valgrind (memcheck only) in the guest, DIR's programs in
#               /fb/vg, and the shared libraries both need (for dynamically
#               linked builds; +3.5 MB of gzipped initramfs, only when asked)
#   -P          perf in the guest: the host's perf (linux-perf, made for
#               Debian's 6.1) and the shared libraries it loads (~35 MB,
#               only when asked; bench/profile.sh)
#   -T SECONDS  timeout for the whole VM run (default 600)
#   -o FILE     also write the console log to FILE
#   -a ARGS     extra kernel command line
#   -c N        vCPUs (default 2)
#   -I          deterministic mode: QEMU's -icount shift=0,sleep=off, the
#               guest clock advancing 1 ns per executed instruction (one
#               vCPU: with two, QEMU 7.2 hangs at SMP bring-up under icount)
#   -i          interactive shell instead of COMMAND
#
# The kernel image package is downloaded with "apt-get download" into
# build/kernels/<KERNEL>/ once and unpacked there; nothing is installed on
# the host.  The exit status is COMMAND's, read from the "FB-EXIT-STATUS: N"
# line the guest prints last; 124 on timeout, 125 when the line is missing
# (kernel panic, crash, or the VM died).  The host's FBINDER_SCALE and FBINDER_FUZZ_*,
# FBINDER_KILLSTORM_*, FBINDER_SOAK_*, FBINDER_FAILSLAB_* variables, when set, are exported
# to COMMAND.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
KERNEL=${KERNEL:-6.1}
module='' selftest='' load=0 interactive=0 timeout_s=600 log='' append=''
image='' mem=1024 vgdir='' smp=2 icount=0 perf=0
bins=() tests=() files=()

usage() { sed -n '4,42p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

while getopts "k:K:M:m:S:lb:t:f:V:PT:o:a:c:Iih" opt; do
	case "$opt" in
	k) KERNEL=$OPTARG ;;
	K) image=$OPTARG ;;
	M) mem=$OPTARG ;;
	m) module=$OPTARG ;;
	S) selftest=$OPTARG ;;
	l) load=1 ;;
	b) bins+=("$OPTARG") ;;
	t) tests+=("$OPTARG") ;;
	f) files+=("$OPTARG") ;;
	V) vgdir=$OPTARG ;;
	P) perf=1 ;;
	T) timeout_s=$OPTARG ;;
	o) log=$OPTARG ;;
	a) append=$OPTARG ;;
	c) smp=$OPTARG ;;
	I) icount=1 ;;
	i) interactive=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || [ "$interactive" = 1 ] || usage

kcache=$top/build/kernels/$KERNEL
if [ -n "$image" ]; then
	[ -f "$image" ] || { echo "vm: no kernel image $image" >&2; exit 1; }
	kver=$(basename "$image")
else
	kver=$("$top/scripts/kver.sh" "$KERNEL")
fi

# ---- the kernel: download and unpack once --------------------------------
# first_file GLOB...: print the first existing file among the expanded globs.
first_file() {
	local f
	for f in "$@"; do [ -e "$f" ] && { echo "$f"; return 0; }; done
	return 1
}

fetch_kernel() {
	local pkg=linux-image-$kver deb tmp
	[ -f "$kcache/$kver/vmlinuz" ] && return 0
	mkdir -p "$kcache"
	deb=$(first_file "$kcache"/"${pkg}"_*.deb || true)
	if [ -z "$deb" ]; then
		# The apt cache may already hold it (no download then).
		deb=$(first_file /var/cache/apt/archives/"${pkg}"_*.deb || true)
		if [ -n "$deb" ]; then
			cp "$deb" "$kcache/"
		else
			echo "vm: downloading $pkg" >&2
			# apt-get download writes to the cwd; as root it warns that it
			# ran unsandboxed, which is harmless.
			(cd "$kcache" && apt-get download -q "$pkg" 2>&1 |
				grep -v -e 'unsandboxed' -e '^Get:' -e '^Fetched' >&2) || true
			if ! first_file "$kcache"/"${pkg}"_*.deb >/dev/null; then
				# Empty or stale package lists on a fresh machine.
				apt-get update -qq >&2
				(cd "$kcache" && apt-get download -q "$pkg" >&2)
			fi
		fi
		deb=$(first_file "$kcache"/"${pkg}"_*.deb)
	fi
	echo "vm: unpacking $(basename "$deb")" >&2
	tmp=$kcache/unpack.$$
	rm -rf "$tmp" && mkdir -p "$tmp"
	# Only the two pieces the VM needs (the whole package is ~400 MB).
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$tmp" --wildcards './boot/vmlinuz-*' '*/drivers/android/binder_linux.ko*'
	mkdir -p "$tmp/out"
	mv "$tmp"/boot/vmlinuz-* "$tmp/out/vmlinuz"
	local b
	b=$(find "$tmp" -name 'binder_linux.ko*' | head -n1)
	if [ -n "$b" ]; then
		case "$b" in
		*.xz) xz -dc "$b" >"$tmp/out/binder_linux.ko" ;;  # busybox insmod wants ELF
		*.zst) zstd -dqc "$b" >"$tmp/out/binder_linux.ko" ;;
		*) cp "$b" "$tmp/out/binder_linux.ko" ;;
		esac
	fi
	rm -rf "${kcache:?}/$kver"
	mv "$tmp/out" "$kcache/$kver"
	rm -rf "$tmp"
}
if [ -z "$image" ]; then
	fetch_kernel
	image=$kcache/$kver/vmlinuz
fi

# ---- the initramfs -------------------------------------------------------
root=$top/build/$KERNEL/vm-root.$$
initrd=$top/build/$KERNEL/initrd.$$.gz
# shellcheck disable=SC2317  # called by the trap
cleanup() { rm -rf "$root" "$initrd"; }
trap cleanup EXIT
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,root,fb/bin,fb/tests,fb/files}

busybox=$(command -v busybox || true)
[ -x /bin/busybox ] && busybox=/bin/busybox
[ -n "$busybox" ] || { echo "vm: no busybox (install busybox-static: make deps)" >&2; exit 1; }
# Static = an ELF file without a PT_INTERP program header (no dynamic
# loader to run it).  readelf is binutils (build-essential); no pipeline,
# so neither pipefail nor a reader that stops early can fool the test
# (file(1) is not on a fresh machine, and ldd exits 1 on a static binary).
if ! phdrs=$(LC_ALL=C readelf -lW "$busybox" 2>&1); then
	echo "vm: $busybox is not an ELF program: $phdrs" >&2
	exit 1
fi
if [[ $phdrs == *INTERP* ]]; then
	echo "vm: $busybox is not static (install busybox-static: make deps)" >&2
	exit 1
fi
cp "$busybox" "$root/bin/busybox"
cp "$top/scripts/vm/init" "$root/init"
chmod 755 "$root/init"
for f in "$top"/scripts/vm/*.sh; do
	case "$f" in */run.sh) continue ;; esac
	cp "$f" "$root/fb/"
done
[ -n "$module" ] && cp "$module" "$root/fb/fastbinder.ko"
[ -n "$selftest" ] && cp "$selftest" "$root/fb/fastbinder-selftest.ko"
[ -f "$kcache/$kver/binder_linux.ko" ] && [ "$image" = "$kcache/$kver/vmlinuz" ] && cp "$kcache/$kver/binder_linux.ko" "$root/fb/"
for f in ${bins[@]+"${bins[@]}"}; do cp "$f" "$root/fb/bin/"; done
for f in ${tests[@]+"${tests[@]}"}; do cp "$f" "$root/fb/tests/"; done
for f in ${files[@]+"${files[@]}"}; do cp -r "$f" "$root/fb/files/"; done

# Every shared library the programs load, at the path ldd names (the
# dynamic loader's own one included); a static program adds none.
copy_libs() {
	local f lib
	for f in "$@"; do
		ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true
	done | sort -u | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# -V: memcheck and the dynamic programs of DIR.  Only what memcheck runs
# on: the launcher (a sh wrapper and valgrind.bin), the tool, its two
# preloads and default.supp (no other tool, no vgdb files); then the
# shared libraries of the launcher and the programs.
if [ -n "$vgdir" ]; then
	vglib=/usr/libexec/valgrind
	[ -x /usr/bin/valgrind.bin ] && [ -x $vglib/memcheck-amd64-linux ] ||
		{ echo "vm: -V: no valgrind on the host (scripts/deps.sh installs it)" >&2; exit 1; }
	mkdir -p "$root$vglib" "$root/fb/vg"
	cp /usr/bin/valgrind /usr/bin/valgrind.bin "$root/usr/bin/"
	cp $vglib/memcheck-amd64-linux $vglib/vgpreload_core-amd64-linux.so \
	   $vglib/vgpreload_memcheck-amd64-linux.so $vglib/default.supp "$root$vglib/"
	for f in "$vgdir"/*; do
		[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$root/fb/vg/"
	done
	copy_libs /usr/bin/valgrind.bin "$root"/fb/vg/*
	# memcheck must redirect strlen in the dynamic loader, a symbol only
	# its detached debug info has (libc6-dbg, 0.5 MB): that file too.
	ldso=$(ldd /usr/bin/valgrind.bin | grep -o '/[^ ]*ld-linux[^ ]*')
	id=$(readelf -n "$ldso" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	[ -n "$id" ] && [ -f "$dbg" ] ||
		{ echo "vm: -V: no debug symbols for $ldso (install libc6-dbg)" >&2; exit 1; }
	mkdir -p "$root$(dirname "$dbg")"
	cp "$dbg" "$root$dbg"
fi

# -P: perf and the shared libraries it loads.
# Debian's /usr/bin/perf is the real program (the linux-perf package
# diverts the old wrapper), so the guest runs it as it is.
if [ "$perf" = 1 ]; then
	[ -x /usr/bin/perf ] && ldd /usr/bin/perf >/dev/null 2>&1 ||
		{ echo "vm: -P: no perf on the host (apt-get install linux-perf)" >&2; exit 1; }
	cp /usr/bin/perf "$root/usr/bin/perf"
	copy_libs /usr/bin/perf
fi

{
	echo "# generated by scripts/vm/run.sh"
	for v in $(compgen -v | grep -E '^FBINDER_(SCALE$|SLOW$|FUZZ_|KILLSTORM_|SOAK_|FAILSLAB_)' || true); do
		printf "export %s='%s'\n" "$v" "${!v}"
	done
	if [ "$load" = 1 ]; then
		echo 'insmod /fb/fastbinder.ko || { echo "vm: insmod fastbinder.ko failed"; dmesg | tail -n 20; exit 1; }'
	fi
	if [ "$interactive" = 1 ]; then
		# shellcheck disable=SC2016  # expanded in the guest
		echo 'echo "fastbinder VM: $(uname -r); /fb holds the module, tests and your files; exit or Ctrl-D to power off"'
		echo 'setsid cttyhack sh -l'
	else
		printf '%s\n' "$*"
	fi
} >"$root/fb/cmd.sh"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd"

# ---- boot ----------------------------------------------------------------
# TCG (no KVM here).  tsc=reliable keeps the guest off the slow HPET clock;
# panic=-1 with -no-reboot turns a panic into a QEMU exit; softlockup_panic
# makes a CPU stuck for 20 s such a panic (a failure either way: dmesg-clean
# fails on its "BUG:" line), not a VM that runs on to its timeout.
qemu=(qemu-system-x86_64 -m "$mem" -smp "$smp" -nic none -no-reboot
      -kernel "$image" -initrd "$initrd"
      -append "console=ttyS0 quiet panic=-1 softlockup_panic=1 tsc=reliable $append")
if [ "$icount" = 1 ]; then
	[ "$smp" = 1 ] || { echo "vm: -I needs one vCPU (-c 1)" >&2; exit 2; }
	qemu+=(-icount shift=0,sleep=off)
fi

if [ "$interactive" = 1 ]; then
	echo "vm: booting $kver (Ctrl-A X quits QEMU)" >&2
	"${qemu[@]}" -nographic
	exit $?
fi

out=${log:-$top/build/$KERNEL/vm-last.log}
mkdir -p "$(dirname "$out")"
# Not a tty: stdin is /dev/null and the console goes to a pipe, so this
# works the same from CI.  --foreground lets Ctrl-C reach QEMU.
set +e
timeout --foreground -k 10 "$timeout_s" "${qemu[@]}" \
	-display none -monitor none -serial stdio </dev/null 2>&1 | tee "$out"
qrc=${PIPESTATUS[0]}
set -e

status=$(tr -d '\r' <"$out" | sed -n 's/^FB-EXIT-STATUS: \([0-9][0-9]*\)$/\1/p' | tail -n1)
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "vm: TIMEOUT after ${timeout_s}s (console log: $out)" >&2
	exit 124
fi
if [ -z "$status" ]; then
	echo "vm: no FB-EXIT-STATUS line: the VM crashed or panicked (qemu exit $qrc, console log: $out)" >&2
	exit 125
fi
exit "$status"
