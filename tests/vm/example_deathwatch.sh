#!/bin/sh
# SPDX-License-Identifier: MIT
#
# example_deathwatch: examples/deathwatch.  deathwatch links to a running
# service's death and reports nothing while it lives; when the service is
# killed (SIGKILL: no chance to say goodbye) it reports the death and exits
# 0, and the name leaves the registry.
# ---- common to the example_* and tools_* tests --------------------------
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
finish() {
	[ $failures -eq 0 ] && { echo "all ok"; exit 0; }
	echo "$failures check(s) failed"; exit 1
}
# --------------------------------------------------------------------------

start_manager
spawn deathwatch-target dw.victim >target.out
VICTIM=$LAST
fbservice wait dw.victim 5000 >/dev/null || { echo "fatal: the target did not register"; cat target.out; exit 1; }

spawn deathwatch dw.victim 30 >watch.out
WATCH=$LAST
retry grep -q '^deathwatch: watching dw.victim' watch.out &&
	ok "deathwatch is watching" || bad "deathwatch did not start watching: $(cat watch.out)"

usleep 300000
if kill -0 $WATCH 2>/dev/null && ! grep -q died watch.out; then ok "no death reported while the service lives"
else bad "deathwatch ended or reported a death before the kill: $(cat watch.out)"; fi

kill -9 $VICTIM
wait $WATCH
rc=$?
cat watch.out
[ $rc -eq 0 ] && ok "deathwatch exit 0 after the death" || bad "deathwatch exit $rc, expected 0"
grep -q '^deathwatch: dw.victim died (handle [0-9]*), after [0-9.]* s of watching$' watch.out &&
	ok "death reported" || bad "expected 'deathwatch: dw.victim died (handle N), after T s of watching'"

retry sh -c '! fbservice check dw.victim' &&
	ok "name dropped after the death" || bad "dw.victim still registered"

finish
