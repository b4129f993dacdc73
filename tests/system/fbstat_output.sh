#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fbstat_output: fbstat, as root (FBINDER_IOC_INFO and debugfs), shows what
# is really there: the service manager as context manager, the "calculator"
# service's node with its owner's pid and name, the manager's handle to it,
# the service's pool threads, a call in flight (who waits on whom), the
# counters and the node's calls moving with calls made, --watch with
# changes, and its exit codes (1 an unreadable debugfs dir asked for, 2
# usage).  fbstat_unprivileged: the same for an unprivileged user.
# ok, bad, spawn, stop, retry, start_manager, finish: tests/lib/fbt.sh
. fbt.sh

# value of counter $1 in fbstat's counters table
counter() { fbstat -N counters | awk -v n="$1" '$1 == n { print $2 }'; }

fbstat --help >out && grep -q '^usage: fbstat' out && ok "--help" || bad "--help"
fbstat nosuchsection >out 2>err; rc=$?
[ $rc -eq 2 ] && grep -q "unknown section" err && ok "usage error: exit 2" || bad "unknown section: exit $rc"
fbstat -D /nonexistent >out 2>err; rc=$?
[ $rc -eq 1 ] && [ -s err ] && ok "unreadable debugfs dir: exit 1, error on stderr" || bad "missing dir: exit $rc"

start_manager
spawn calculator-service >calc.out
CALC=$LAST
fbservice wait calculator 5000 >/dev/null || { echo "fatal: calculator did not register"; exit 1; }
spawn threadpool-service >tp.out
TP=$LAST
fbservice wait threadpool 5000 >/dev/null || { echo "fatal: threadpool did not register"; exit 1; }

fbstat >all.out; rc=$?
cat all.out
[ $rc -eq 0 ] && ok "fbstat: exit 0" || bad "fbstat: exit $rc"
grep -q "^device fastbinder: context manager node [0-9]*, pid $SM (fb-servicemanag" all.out &&
	ok "summary: the manager (pid $SM) is the context manager" || bad "summary lacks the manager pid $SM"
# NODE PID OWNER SERVICE ...
awk -v p="$CALC" '$2 == p && $3 == "calculator-serv" && $4 == "calculator"' all.out | grep -q . &&
	ok "nodes: calculator's node, owner pid $CALC" || bad "no node line for calculator with pid $CALC"
awk -v p="$SM" '$2 == p && $4 == "(service" && /context-manager$/' all.out | grep -q . &&
	ok "nodes: the manager's node flagged context-manager" || bad "no context-manager node of pid $SM"
# HANDLES: PID HOLDER HANDLE NODE OWNER OWNER_CMD SERVICE ...
awk -v s="$SM" -v c="$CALC" '$1 == s && $5 == c && $7 == "calculator" && $NF == "alive"' all.out | grep -q . &&
	ok "handles: the manager holds a handle to calculator" || bad "no handle of the manager to calculator"
n=$(awk -v p="$TP" '$1 == p && $4 ~ /^(looper|spawned)/ ' all.out | wc -l)
[ "$n" -ge 4 ] && ok "threads: threadpool-service has $n looper threads" || bad "threads: $n looper threads of pid $TP, expected >= 4"
grep -q '^  fastbinder .* fbstat ' all.out && bad "fbstat's own context is listed" || ok "fbstat's own context is hidden"
fbstat -N nodes >nonames.out
grep -q ' calculator ' nonames.out && bad "-N still resolved names" || ok "-N: no names"

# a call in flight: who waits on whom
fbservice call threadpool 1 i32 3000 >slow.out 2>&1 &
CALLER=$!
PIDS="$PIDS $CALLER"
TRIES=30 retry sh -c "fbstat -N transactions | grep -q 'handling'"
fbstat -N transactions >txn.out
cat txn.out
awk -v c="$CALLER" -v t="$TP" '$2 == 1 && $3 ~ "^"c"/" && $6 ~ "^"t"/" && /handling$/' txn.out | grep -q . &&
	ok "transactions: fbservice (pid $CALLER) waits on threadpool-service (pid $TP), code 1" ||
	bad "no in-flight call from $CALLER to $TP"
fbstat -N threads | awk -v c="$CALLER" '$1 == c && /awaits txn/' | grep -q . &&
	ok "threads: the caller awaits its call" || bad "the caller's thread does not show 'awaits txn'"
wait $CALLER
grep -qx 'status 0' slow.out && ok "the slow call completed" || bad "slow call: $(cat slow.out)"

# the counters move
before=$(counter calls)
for i in 1 2 3 4 5; do fbservice call calculator 1 i64 $i i64 1 >/dev/null; done
after=$(counter calls)
[ -n "$before" ] && [ -n "$after" ] && [ $((after - before)) -ge 5 ] &&
	ok "counters: calls $before -> $after after 5 calls" || bad "counters: calls '$before' -> '$after'"
calls=$(fbstat -N nodes | awk -v p="$CALC" '$2 == p { print $10 }' | head -n1)
[ "${calls:-0}" -ge 5 ] && ok "nodes: calculator's node counts its calls ($calls)" ||
	bad "nodes: CALLS '$calls' on calculator's node, expected >= 5"
lc=$(counter live_contexts)
[ "$lc" -ge 3 ] && ok "counters: live_contexts $lc" || bad "live_contexts '$lc', expected >= 3"

# --watch: two refreshes, the second with the changes
fbstat --watch 0.3 -c 2 counters >watch.out; rc=$?
n=$(grep -c '^==== fbstat' watch.out)
[ $rc -eq 0 ] && [ "$n" = 2 ] && ok "--watch -c 2: two refreshes" || bad "--watch: exit $rc, $n refreshes"
grep -q 'CHANGE' watch.out && ok "--watch shows the changes" || bad "no CHANGE column"

finish
