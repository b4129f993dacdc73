#!/bin/sh
# SPDX-License-Identifier: MIT
#
# example_threadpool: examples/threadpool.  threadpool-service serves with
# 4 loopers: 4 client processes each making a 200 ms call finish together
# in well under 2 x 200 ms, served by 4 different threads; 8 clients need
# two rounds (>= 400 ms), since the pool has no more than 4 threads.
# ok, bad, spawn, stop, retry, start_manager, finish: tests/lib/fbt.sh
. fbt.sh

# elapsed ms of a threadpool-client run, from its last line
elapsed() { sed -n 's/.*: done in \([0-9]*\) ms .*/\1/p' "$1"; }

start_manager
spawn threadpool-service >svc.out
SVC=$LAST
fbservice wait threadpool 5000 >/dev/null || { echo "fatal: threadpool-service did not register"; cat svc.out; exit 1; }
retry grep -q 'loopers' svc.out	# printed just after it registered
grep -q '4 loopers' svc.out && ok "4 loopers started" || bad "expected '4 loopers': $(cat svc.out)"

threadpool-client 4 200 >four.out
rc=$?
cat four.out
[ $rc -eq 0 ] && ok "4 clients: exit 0" || bad "4 clients: exit $rc"
n=$(grep -c '^client [0-9]: served by service thread' four.out)
[ "$n" = 4 ] && ok "4 clients served" || bad "$n clients served, expected 4"
t=$(grep '^client' four.out | sed 's/.*service thread \([0-9]*\) .*/\1/' | sort -u | wc -l)
[ "$t" = 4 ] && ok "by 4 different threads" || bad "by $t different threads, expected 4"
ms=$(elapsed four.out)
[ -n "$ms" ] && [ "$ms" -ge 200 ] && [ "$ms" -lt 600 ] &&
	ok "concurrent: 4 x 200 ms in $ms ms" || bad "4 x 200 ms took '$ms' ms, expected 200..599 (one after another: 800)"
grep -q '(4 calls in progress)' four.out &&
	ok "the service saw 4 calls at once" || bad "the service never had 4 calls in progress"

threadpool-client 8 200 >eight.out
rc=$?
cat eight.out
ms=$(elapsed eight.out)
[ $rc -eq 0 ] && [ -n "$ms" ] && [ "$ms" -ge 400 ] &&
	ok "8 clients need two rounds: $ms ms" || bad "8 x 200 ms: exit $rc, '$ms' ms, expected >= 400"
grep -q '(5 calls in progress)' eight.out &&
	bad "5 calls in progress with a pool of 4" || ok "never more than 4 calls at once"

stop $SVC
grep -q stopped svc.out && ok "service exited cleanly on SIGTERM" || bad "no clean exit: $(cat svc.out)"

finish
