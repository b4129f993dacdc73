#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/system/install.sh - "make install DESTDIR=tmp PREFIX=/usr" lays the
# files out as tests/system/install-list.txt says, and "make uninstall" takes
# them all away again (issue 9).  On the way: the module (vermagic, depmod,
# a description for every parameter), the shared library's SONAME and links,
# the pkg-config file, the udev rule, the systemd unit, the man pages, a
# program built outside the tree with only "pkg-config binderlite" (shared
# and static), and the DKMS source tree built the way dkms builds it.
#
# Run by "make check" / "make check-host" (scripts/check.sh --host-sh): one
# pass or one failure.  FBINDER_INSTALL_LIST=file compares with another list.
# shellcheck disable=SC2016 # the bash -c '...' snippets read their own $1
set -euo pipefail
PATH=$PATH:/usr/sbin:/sbin	# modinfo, depmod for a non-root user

top=$(cd "$(dirname "$0")/../.." && pwd)
list=${FBINDER_INSTALL_LIST:-$top/tests/system/install-list.txt}
tmp=$(mktemp -d /tmp/fb-install-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
errors=0 skips=0

ok() { echo "  ok   $*"; }
bad() { echo "  FAIL $*"; errors=$((errors + 1)); }
# a check that cannot run here: the test ends as skipped (77), not passed
skip() { echo "  skip $*"; skips=$((skips + 1)); }
# check "what" command...: ok or FAIL, never stops the test
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
mk() { make -C "$top" --no-print-directory SKIP_DEPS=1 "$@"; }

kver=$(mk -s install-kver | cut -d' ' -f1)
[ -n "$kver" ] || { echo "install.sh: make install-kver printed nothing" >&2; exit 1; }
echo "  (kernel $kver, list $list)"

# ---- install -----------------------------------------------------------------
if ! mk install DESTDIR="$root" PREFIX=/usr >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	bad "make install DESTDIR=... PREFIX=/usr"
	exit 1
fi
ok "make install DESTDIR=... PREFIX=/usr"

# ---- the file list -------------------------------------------------------------
grep -v '^#' "$list" | grep . | sed "s|@KVER@|$kver|g" | sort >"$tmp/expected"
(cd "$root" && find . ! -type d | sed 's|^\./||' |
	grep -vF "lib/modules/$kver/modules." | sort) >"$tmp/actual"
check "installed files = $(basename "$list")" diff -u "$tmp/expected" "$tmp/actual"

# ---- the module ----------------------------------------------------------------
ko=$root/lib/modules/$kver/extra/fastbinder.ko
if [ -f "$ko" ]; then
	check "module built for $kver" \
		test "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver"
	check "depmod ran (modules.dep lists extra/fastbinder.ko)" \
		grep -q '^extra/fastbinder.ko:' "$root/lib/modules/$kver/modules.dep"
	modinfo -F parm "$ko" >"$tmp/parm"
	# "name:description (type)"; without MODULE_PARM_DESC: "name:(type)"
	check "every module parameter has a description" \
		bash -c '[ -s "$1" ] && ! grep -Ev "^[a-z_0-9]+:[^(].* \([a-z]+\)$" "$1"' _ "$tmp/parm"
fi

# ---- modes ---------------------------------------------------------------------
wrong=
while read -r f; do
	case $f in
	usr/bin/* | usr/sbin/* | usr/lib/libbinderlite.so.1.0.0) want=755 ;;
	*) want=644 ;;
	esac
	[ -L "$root/$f" ] && continue
	[ -e "$root/$f" ] || continue
	have=$(stat -c %a "$root/$f")
	[ "$have" = "$want" ] || wrong+=" $f:$have"
done <"$tmp/expected"
check "file modes (755 programs and the .so, 644 the rest)${wrong:+:$wrong}" test -z "$wrong"

# ---- the library ---------------------------------------------------------------
lib=$root/usr/lib
check "libbinderlite.so.1.0.0 has SONAME libbinderlite.so.1" \
	bash -c 'readelf -d "$1" | grep -q "Library soname: \[libbinderlite.so.1\]"' _ \
	"$lib/libbinderlite.so.1.0.0"
check "libbinderlite.so.1 -> libbinderlite.so.1.0.0" \
	test "$(readlink "$lib/libbinderlite.so.1")" = libbinderlite.so.1.0.0
check "libbinderlite.so -> libbinderlite.so.1" \
	test "$(readlink "$lib/libbinderlite.so")" = libbinderlite.so.1
pc=$lib/pkgconfig/binderlite.pc
check "binderlite.pc: prefix, libdir, includedir for PREFIX=/usr" \
	bash -c 'grep -qx "prefix=/usr" "$1" && grep -qx "libdir=/usr/lib" "$1" &&
		 grep -qx "includedir=/usr/include" "$1" && ! grep -q @ "$1"' _ "$pc"
export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$lib/pkgconfig
unset PKG_CONFIG_PATH
check "pkg-config --modversion binderlite = 1.0.0" \
	test "$(pkg-config --modversion binderlite 2>&1)" = 1.0.0

# ---- udev, systemd, man ----------------------------------------------------------
check "udev rule: /dev/fastbinder* mode 0666" \
	grep -qx 'SUBSYSTEM=="misc", KERNEL=="fastbinder\*", MODE="0666"' \
	"$root/lib/udev/rules.d/60-fastbinder.rules"
unit=$root/lib/systemd/system/fastbinder-servicemanager.service
check "unit: ExecStart=/usr/sbin/fb-servicemanager, no @VAR@ left" \
	bash -c 'grep -qx "ExecStart=/usr/sbin/fb-servicemanager" "$1" &&
		 ! grep -q "@[A-Z]*@" "$1" && grep -qx "WantedBy=multi-user.target" "$1"' \
	_ "$unit"
# systemd-analyze verify wants the programs to exist: point at the staged one.
if command -v systemd-analyze >/dev/null && [ -x "$root/usr/sbin/fb-servicemanager" ]; then
	sed "s|=/usr/sbin/fb-servicemanager|=$root/usr/sbin/fb-servicemanager|" "$unit" \
		>"$tmp/fastbinder-servicemanager.service"
	check "unit: systemd-analyze verify" \
		systemd-analyze verify --man=no "$tmp/fastbinder-servicemanager.service"
elif ! command -v systemd-analyze >/dev/null; then
	skip "unit: systemd-analyze verify (no systemd-analyze here)"
fi
for m in "$root"/usr/share/man/man*/*; do
	[ -f "$m" ] || continue
	out=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
	      man --warnings -E UTF-8 -l -Tutf8 -Z "$m" 2>&1 >/dev/null) || out="man failed: $out"
	check "man page ${m#"$root"/} formats without warnings" test -z "$out"
	[ -z "$out" ] || echo "$out"
done

# ---- a program built outside the tree with pkg-config only -------------------------
mkdir "$tmp/example"
cat >"$tmp/example/example.c" <<'EOF'
#include <binderlite.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Opens argv[1] (a path that does not exist): -ENOENT, without a device. */
int main(int argc, char **argv)
{
	struct bl_context *ctx = NULL;
	struct bl_parcel p;
	int ret;

	if (argc != 2)
		return 2;
	bl_parcel_init(&p);
	ret = bl_parcel_write_i32(&p, 42);
	printf("parcel: %d, %zu bytes\n", ret, bl_parcel_size(&p));
	bl_parcel_fini(&p);
	ret = bl_context_open(argv[1], 0, &ctx);
	printf("bl_context_open: %d (%s), ABI %u\n", ret, strerror(-ret),
	       (unsigned int)FBINDER_ABI_VERSION);
	return ret == -ENOENT ? 0 : 1;
}
EOF
cd "$tmp/example"
cc_dyn() {
	# shellcheck disable=SC2046 # word splitting of the flags is intended
	cc -Wall -Werror -o example example.c $(pkg-config --cflags --libs binderlite)
}
cc_static() {
	# shellcheck disable=SC2046
	cc -Wall -Werror -static -o example-static example.c \
		$(pkg-config --static --cflags --libs binderlite)
}
check "example: cc example.c \$(pkg-config --cflags --libs binderlite)" cc_dyn
if [ -x example ]; then
	check "example links libbinderlite.so.1" \
		bash -c 'readelf -d example | grep -q "NEEDED.*\[libbinderlite.so.1\]"'
	check "example runs (LD_LIBRARY_PATH=DESTDIR/usr/lib): bl_context_open -ENOENT" \
		env LD_LIBRARY_PATH="$lib" ./example "$tmp/no-such-device"
fi
check "example: static, pkg-config --static" cc_static
if [ -x example-static ]; then
	check "static example runs: bl_context_open -ENOENT" \
		./example-static "$tmp/no-such-device"
fi
cd "$top"

# ---- uninstall -------------------------------------------------------------------
if mk uninstall DESTDIR="$root" PREFIX=/usr >"$tmp/uninstall.log" 2>&1; then
	ok "make uninstall DESTDIR=... PREFIX=/usr"
else
	cat "$tmp/uninstall.log"
	bad "make uninstall DESTDIR=... PREFIX=/usr"
fi
left=$(cd "$root" && find . ! -type d | sed 's|^\./||' | tr '\n' ' ')
check "uninstall leaves only empty directories${left:+: $left}" test -z "$left"

# ---- DKMS ------------------------------------------------------------------------
# What "dkms build" does: copy /usr/src/fastbinder-VER to its tree's build/,
# source dkms.conf there and run MAKE[0]; the module is then
# BUILT_MODULE_LOCATION/BUILT_MODULE_NAME.ko.
dkms_build() {
	local src=$1 kernel_source_dir dkms_tree=$tmp/dkms-tree
	local build=$dkms_tree/fastbinder/$ver/build
	kernel_source_dir=/lib/modules/$kver/build
	[ -e "$kernel_source_dir/Makefile" ] || kernel_source_dir=/usr/src/linux-headers-$kver
	mkdir -p "${build%/build}"
	cp -a "$src" "$build"
	# Called from "if": set -e is off here, hence the && chain.
	# shellcheck disable=SC2034 # dkms.conf may use kernelver
	# shellcheck disable=SC1091
	# shellcheck disable=SC2086 # MAKE[0] is a command line
	(
		kernelver=$kver
		cd "$build" &&
		. ./dkms.conf &&
		# kbuild must not see this make's MAKEFLAGS (KERNEL=..., -s, ...)
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE[0]} &&
		test -f "${BUILT_MODULE_LOCATION[0]}${BUILT_MODULE_NAME[0]}.ko" &&
		test "${DEST_MODULE_LOCATION[0]}" = /extra -a "$AUTOINSTALL" = yes
	)
}
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
modver=$(sed -n 's/^MODULE_VERSION("\(.*\)");$/\1/p' "$top/driver/main.c")
check "dkms.conf PACKAGE_VERSION ($ver) = MODULE_VERSION ($modver)" \
	test -n "$ver" -a "$ver" = "$modver"
if mk dkms-source DESTDIR="$tmp/dkms-src" >"$tmp/dkms.log" 2>&1; then
	ok "make dkms-source"
	src=$tmp/dkms-src/usr/src/fastbinder-$ver
	check "dkms source: dkms.conf, LICENSE, driver/Kbuild, uapi/linux/fastbinder.h" \
		test -f "$src/dkms.conf" -a -f "$src/LICENSE" -a -f "$src/driver/Kbuild" \
		-a -f "$src/uapi/linux/fastbinder.h"
	if dkms_build "$src" >"$tmp/dkms-build.log" 2>&1; then
		ok "dkms-style build of the DKMS source for $kver"
	else
		cat "$tmp/dkms-build.log"
		bad "dkms-style build of the DKMS source for $kver"
	fi
else
	cat "$tmp/dkms.log"
	bad "make dkms-source"
fi

echo "install.sh: $errors failed, $skips skipped"
[ "$errors" -eq 0 ] || exit 1
[ "$skips" -eq 0 ] || exit 77
