#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fbt.sh - shell helpers for the VM shell tests that run
# services (tests/system/).  Copied into the guest's PATH; a test
# sources it with ". fbt.sh".  It installs an EXIT trap that stops every
# program started with spawn.
PIDS=
failures=0
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; failures=$((failures + 1)); }
# A background program whose pid we remember, to stop it at the end.
spawn() { "$@" & PIDS="$PIDS $!"; LAST=$!; }
# SIGTERM, up to 2 s to go, then SIGKILL; reap.  Nothing may outlive us:
# a leftover context keeps the module busy and fails the suite's rmmod.
stop() {
	for p in "$@"; do kill "$p" 2>/dev/null; done
	for p in "$@"; do
		n=0
		while kill -0 "$p" 2>/dev/null && [ $n -lt 20 ]; do usleep 100000; n=$((n + 1)); done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
cleanup() { stop $PIDS; }
trap cleanup EXIT
# Poll "$@" every 0.1 s, at most $TRIES times (default 50: 5 s).
retry() {
	n=0
	until "$@" >/dev/null 2>&1; do
		n=$((n + 1)); [ $n -ge "${TRIES:-50}" ] && return 1; usleep 100000
	done
}
start_manager() {
	spawn fb-servicemanager
	# shellcheck disable=SC2034 # SM: for the tests that stop the manager
	SM=$LAST
	retry fbservice list || { echo "fatal: fb-servicemanager does not answer"; exit 1; }
}
# code EXPECTED_RC "what" command...: stdout in ./out, stderr in ./err; ok
# when the command exits EXPECTED_RC, else bad (with what it printed)
code() {
	want=$1 what=$2
	shift 2
	"$@" >out 2>err
	rc=$?
	if [ $rc -eq "$want" ]; then ok "$what: exit $rc"
	else bad "$what: exit $rc, expected $want"; cat out err; fi
}
finish() {
	[ $failures -eq 0 ] && { echo "all ok"; exit 0; }
	echo "$failures check(s) failed"; exit 1
}
