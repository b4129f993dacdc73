#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts/check-fresh.sh - "make check-fresh": the README's two commands,
# "make demo" then "make check", as root on a brand-new Debian 12.
#
#   check-fresh.sh                 the whole run (root; make check-fresh)
#   check-fresh.sh --umount DIR    unmount whatever is mounted at or below
#                                  DIR, deepest first; exit 1 when something
#                                  stays mounted (make clean runs it first)
#
# 1. A Debian 12 root: "debootstrap --variant=minbase
#    --include=build-essential,git bookworm", kept as a tarball in
#    FBINDER_CACHE_DIR (default build/cache) named by a hash of what it is
#    built from (suite, variant, packages, mirror, architecture, debootstrap's
#    version) and rebuilt when older than FRESH_MAX_AGE days (14), so it
#    follows Debian's point releases.  A missing tarball costs one
#    debootstrap (4-9 minutes here).
# 2. The tarball unpacked into a new FRESH_DIR/root (default
#    build/fresh/root), the host's /etc/resolv.conf and apt sources copied
#    in, and the CURRENT COMMIT cloned into /root/fastbinder (git clone,
#    checkout HEAD: uncommitted changes are not part of the run).  Nothing
#    else of the host: no build/, no kernel cache, no apt cache, and the
#    commands run with an empty environment (env -i), so the root installs
#    and downloads everything itself (scripts/deps.sh, the VM's kernel).
# 3. In a mount namespace of its own (unshare -m, private): /dev, /dev/pts,
#    /proc, /sys bind-mounted into the root (and a tmpfs /dev/shm), then
#    "chroot ROOT make demo" and "chroot ROOT make check" in
#    /root/fastbinder, each under a FRESH_TIMEOUT (2400 s).  A trap
#    unmounts them on any exit; and because they exist only in that
#    namespace, they vanish with it even when everything is killed: the
#    host never sees them, so rm -rf of build/ can never reach the host's
#    /dev or /proc through them.
# 4. Passes when both commands pass.  The output of both goes to the log,
#    FRESH_DIR/logs/check-fresh-DATE.log (FRESH_DIR/last.log links the
#    latest); this prints the steps with their times, the tail of each
#    command's output (prefixed with "  | ") and the log's path.  The root
#    is removed after a passing run (FRESH_KEEP=1 keeps it) and kept after
#    a failing one for a look (chroot build/fresh/root); the next run
#    replaces it.
#
# Environment: FBINDER_CACHE_DIR, FRESH_DIR, FRESH_MAX_AGE, FRESH_TIMEOUT,
# FRESH_KEEP, FRESH_MIRROR (http://deb.debian.org/debian).
set -euo pipefail

# ---- mounts --------------------------------------------------------------
# mounts_below DIR: the mount points at or below DIR in this mount
# namespace, deepest first.
mounts_below() {
	local d
	d=$(realpath -m "$1")
	awk -v d="$d" '{ m = $5; gsub(/\\040/, " ", m);
		if (m == d || index(m, d "/") == 1) print m }' /proc/self/mountinfo |
		sort -r
}

# umount_below DIR: unmount them all; fails when one stays.
umount_below() {
	local m left
	while read -r m; do
		[ -n "$m" ] || continue
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done < <(mounts_below "$1")
	left=$(mounts_below "$1")
	if [ -n "$left" ]; then
		echo "check-fresh: still mounted below $1:" $left >&2
		return 1
	fi
}

# safe_rm DIR: rm -rf, but never through a mount point.
safe_rm() {
	[ -e "$1" ] || return 0
	umount_below "$1" || {
		echo "check-fresh: refusing to delete $1 while something is mounted there" >&2
		return 1
	}
	rm -rf "$1"
}

if [ "${1:-}" = --umount ]; then
	[ $# = 2 ] || { echo "usage: $0 --umount DIR" >&2; exit 2; }
	umount_below "$2"
	exit
fi

# ---- inside the private mount namespace (unshare -m) ---------------------
# --inner ROOT NAME COMMAND...: mount, run COMMAND in ROOT's /root/fastbinder
# with chroot, unmount (trap), exit with COMMAND's status.
if [ "${1:-}" = --inner ]; then
	root=$2
	shift 2
	mounted=()
	# shellcheck disable=SC2317  # the trap
	unmount_all() {
		local i
		for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
			umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
		done
		umount_below "$root" || true
	}
	trap unmount_all EXIT
	trap 'exit 143' TERM INT HUP
	for d in dev dev/pts proc sys; do
		mkdir -p "$root/$d"
		mount --bind "/$d" "$root/$d"
		mounted+=("$root/$d")
	done
	if [ -d "$root/dev/shm" ]; then
		mount -t tmpfs -o nosuid,nodev,mode=1777 shm "$root/dev/shm"
		mounted+=("$root/dev/shm")
	fi
	set +e
	timeout -k 30 "${FRESH_TIMEOUT:-2400}" \
		chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c 'umask 022; cd /root/fastbinder && exec "$@"' bash "$@" </dev/null
	rc=$?
	set -e
	[ "$rc" = 124 ] && echo "check-fresh: TIMEOUT after ${FRESH_TIMEOUT:-2400} s: $*"
	exit "$rc"
fi

# ---- the run ---------------------------------------------------------------
# One function, called on the last line: bash has read all of it before it
# starts, so editing this file during a run cannot derail the run.
main() {
[ $# = 0 ] || { sed -n '4,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "check-fresh: needs root (debootstrap, mount, chroot)" >&2; exit 1; }

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
self=$top/scripts/check-fresh.sh
cache=$(realpath -m "${FBINDER_CACHE_DIR:-build/cache}")
fresh=$(realpath -m "${FRESH_DIR:-build/fresh}")
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}
max_age=${FRESH_MAX_AGE:-14}
suite=bookworm variant=minbase include=build-essential,git
root=$fresh/root
start=$(date +%s)

mkdir -p "$cache" "$fresh/logs"
# One run per FRESH_DIR at a time (make clean checks this lock too).
exec 9>"$fresh/.lock"
flock -n 9 || { echo "check-fresh: another run uses $fresh" >&2; exit 1; }

log=$fresh/logs/check-fresh-$(date +%Y%m%d-%H%M%S).log
ln -sfn "logs/$(basename "$log")" "$fresh/last.log"
# keep the ten newest logs
{ ls -t "$fresh"/logs/check-fresh-*.log 2>/dev/null || true; } | tail -n +11 | xargs -r rm -f
: >"$log"

say() { echo "check-fresh: $*" | tee -a "$log"; }
since() { echo "$(($(date +%s) - $1)) s"; }
# shellcheck disable=SC2329,SC2317  # the trap
on_exit() {
	local rc=$?
	[ "$rc" = 0 ] || [ -n "${verdict:-}" ] || echo "check-fresh: FAILED (log: $log)" >&2
}
trap on_exit EXIT

sha=$(git rev-parse HEAD)
say "commit $(git log -1 --format='%h %s' HEAD)"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	say "note: uncommitted changes in $top are not part of this run (it clones HEAD)"
fi

# ---- 1. the Debian root tarball ----------------------------------------------
arch=$(dpkg --print-architecture)
dbs=$(dpkg-query -W -f='${Version}' debootstrap)
key=$(printf '%s\n' "$suite $variant $include $mirror $arch debootstrap=$dbs" |
      sha256sum | cut -c1-12)
tarball=$cache/fresh-$suite-$variant-$key.tar.gz
t=$(date +%s)
exec 8>"$tarball.lock"
flock 8		# another clone may be building the same tarball
if [ -f "$tarball" ] && [ -z "$(find "$tarball" -mtime +"$max_age")" ]; then
	say "root tarball: $tarball (cached, $(du -h "$tarball" | cut -f1))"
else
	[ -f "$tarball" ] && say "root tarball older than $max_age days: rebuilding"
	say "debootstrap --variant=$variant --include=$include $suite ($mirror) ..."
	tmp=$fresh/bootstrap.$$
	for d in "$fresh"/bootstrap.*; do safe_rm "$d"; done	# an interrupted one
	# debootstrap mounts /proc & co. in the target itself: its own mount
	# namespace, so none can be left behind.
	if ! unshare --mount --propagation private \
		debootstrap --variant="$variant" --include="$include" "$suite" "$tmp" "$mirror" \
		>>"$log" 2>&1; then
		tail -n 20 "$log" | sed 's/^/  | /'
		safe_rm "$tmp" || true
		say "debootstrap failed"
		exit 1
	fi
	# debootstrap leaves the .debs it installed in the apt cache: a
	# fresh machine has none (and the tarball is half the size without)
	rm -f "$tmp"/var/cache/apt/archives/*.deb
	tar --numeric-owner -C "$tmp" -czf "$tarball.tmp" .
	mv "$tarball.tmp" "$tarball"
	safe_rm "$tmp"
	# tarballs of other keys (another mirror, an older debootstrap)
	for f in "$cache"/fresh-"$suite"-"$variant"-*.tar.gz; do
		[ "$f" = "$tarball" ] || rm -f "$f" "$f.lock"
	done
	say "root tarball built in $(since "$t"): $tarball ($(du -h "$tarball" | cut -f1))"
fi
flock -u 8

# ---- 2. a new root with the current commit ---------------------------------------
t=$(date +%s)
safe_rm "$root"
mkdir -p "$root"
tar --numeric-owner -xzf "$tarball" -C "$root"
rm -f "$root/etc/resolv.conf"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# The host's apt sources replace debootstrap's sources.list (a fresh
# install has bookworm-updates and the security archive too); the keyrings
# they name, when the root lacks them.
rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/"
for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && cp "$f" "$root/etc/apt/sources.list.d/"
done
for k in $(cat "$root"/etc/apt/sources.list "$root"/etc/apt/sources.list.d/* 2>/dev/null |
	   grep -oiE '(signed-by[:=] *)[^] ]+' | sed -E 's/^[^:=]*[:=] *//' | sort -u); do
	[ -f "$k" ] && [ ! -e "$root$k" ] && { mkdir -p "$root$(dirname "$k")"; cp "$k" "$root$k"; }
done
git clone -q --no-hardlinks --no-checkout "$top" "$root/root/fastbinder" >>"$log" 2>&1
git -C "$root/root/fastbinder" checkout -q --detach "$sha"
say "root ready in $(since "$t"): $root, $(git -C "$root/root/fastbinder" log -1 --format=%h) in /root/fastbinder"

# ---- 3. the README's two commands ------------------------------------------------
# run NAME COMMAND...: COMMAND in the root, output to the log; prints its
# status and time and the tail of its output.
declare -A status=()
run() {
	local name=$1 t rc mark
	shift
	t=$(date +%s)
	mark=$(wc -l <"$log")
	say "$name ..."
	echo "::: chroot $root $* (in /root/fastbinder)" >>"$log"
	set +e
	unshare --mount --propagation private "$self" --inner "$root" "$@" >>"$log" 2>&1 8>&- 9>&-
	rc=$?
	set -e
	# Nothing may outlive the command in the root (a stray daemon would
	# keep its namespace and files alive): what is left was started by it.
	local p left=()
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && left+=("${p#/proc/}")
	done
	if [ ${#left[@]} -gt 0 ]; then
		say "killing processes left in the root: ${left[*]}"
		kill -9 "${left[@]}" 2>/dev/null || true
	fi
	tail -n +$((mark + 1)) "$log" | tr -d '\r' | grep -v '^$' | tail -n "${TAIL_LINES:-8}" |
		sed 's/^/  | /'
	status[$name]=$rc
	if [ "$rc" != 0 ]; then
		# what failed, from anywhere in the command's output
		tail -n +$((mark + 1)) "$log" | tr -d '\r' |
			grep -E '^ *FAIL |command not found|^E: |^make: \*\*\*' |
			head -n 15 | sed 's/^/  ! /' || true
	fi
	if [ "$rc" = 0 ]; then
		say "$name: ok in $(since "$t")"
	else
		say "$name: FAILED (exit $rc) in $(since "$t")"
	fi
}
run "make demo" make demo
TAIL_LINES=12 run "make check" make check

# ---- 4. the verdict -------------------------------------------------------------
# (The namespaces are gone: nothing can be mounted in the root any more.)
if [ -n "$(mounts_below "$root")" ]; then
	say "something is still mounted below $root"
	exit 1
fi
total() { echo "$(( ($(date +%s) - start) / 60 )) min $(( ($(date +%s) - start) % 60 )) s"; }
if [ "${status[make demo]}" = 0 ] && [ "${status[make check]}" = 0 ]; then
	if [ -z "${FRESH_KEEP:-}" ]; then
		safe_rm "$root"
	else
		say "kept the root: $root"
	fi
	total=$(total)
	say "PASS: make demo and make check on a fresh Debian 12 in $total (log: $log)"
	exit 0
fi
total=$(total) verdict=1
say "FAIL: make demo exit ${status[make demo]}, make check exit ${status[make check]}, in $total; root kept in $root (log: $log)"
exit 1
}

main "$@"; exit
