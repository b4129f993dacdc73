#!/bin/sh
# SPDX-License-Identifier: MIT
#
# example_deathwatch: examples/deathwatch.  deathwatch links to a running
# service's death and reports nothing while it lives; when the service is
# killed (SIGKILL: no chance to say goodbye) it reports the death and exits
# 0, and the name leaves the registry.
# ok, bad, spawn, stop, retry, start_manager, finish: tests/lib/fbt.sh
. fbt.sh

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
