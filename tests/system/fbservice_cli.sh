#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fbservice_cli: the fbservice tool and its exit codes (0 ok, 1 failed,
# 2 usage, 3 no fastbinder/manager): usage errors before anything else; no
# manager -> 3; list/check/call of a live service; check and call of a
# missing one -> 1; "stats"; "wait" that blocks until the name appears (on
# the manager's notice: a watch, no lookups while it waits), and one that
# times out; every typed argument reaches the service; a bad name -> 2.
# ok, bad, code, spawn, stop, retry, start_manager, finish: tests/lib/fbt.sh
. fbt.sh

# ---- usage (no device needed) ----
code 0 "--help" fbservice --help
grep -q '^Exit status:' out && grep -q '3  fastbinder unusable' out &&
	ok "--help documents the exit codes" || bad "--help lacks the exit codes"
code 2 "no command" fbservice
grep -q 'no command' err && ok "usage error on stderr" || bad "no message on stderr"
[ -s out ] && bad "usage error printed on stdout" || ok "nothing on stdout"
code 2 "unknown command" fbservice frobnicate
code 2 "check without a name" fbservice check
code 2 "call without a code" fbservice call x
code 2 "bad code" fbservice call x twelve
code 2 "type without value" fbservice call x 1 i32
code 2 "bad i32" fbservice call x 1 i32 4294967296
code 2 "negative u64" fbservice call x 1 u64 -1
code 2 "unknown type" fbservice call x 1 float 1
code 2 "bad wait timeout" fbservice wait x soon
code 2 "unknown option" fbservice --frob list

# ---- no device / no manager ----
code 3 "no such device" fbservice -d /dev/nonexistent list
grep -q 'no such device' err && ok "says there is no such device" || bad "unclear: $(cat err)"
code 3 "list without a manager" fbservice list
grep -q 'no service manager' err && ok "says there is no service manager" || bad "unclear: $(cat err)"
code 3 "check without a manager" fbservice check x

# ---- with the manager ----
start_manager
code 0 "list, empty" fbservice list
[ -s out ] && bad "empty registry listed: $(cat out)" || ok "nothing listed"
code 1 "check a missing name" fbservice check tools.none
grep -qx 'tools.none: not found' out && ok "prints 'not found'" || bad "expected 'tools.none: not found'"
code 1 "call a missing name" fbservice call tools.none 1
code 1 "wait 300 ms for a missing name" fbservice wait tools.none 300
code 2 "invalid name" fbservice check 'bad name!'

code 2 "stats with an argument" fbservice stats x
code 0 "stats" fbservice stats
grep -qx 'watches 0' out && grep -qx 'names 0' out && grep -q '^requests [0-9]' out &&
	grep -qx 'notices_lost 0' out && ok "stats: no names, no watches" || { bad "stats:"; cat out; }

# wait blocks until the name appears, on the manager's notice: it watches
# the name and asks nothing while it waits
stat_of() { fbservice stats | sed -n "s/^$1 //p"; }
fbservice wait tools.late 10000 >wait.out 2>&1 &
W=$!
PIDS="$PIDS $W"
TRIES=100 retry sh -c '[ "$(fbservice stats | sed -n "s/^watches //p")" = 1 ]' &&
	ok "the waiting fbservice watches tools.late" || bad "no watch: $(fbservice stats | tr '\n' ' ')"
R0=$(stat_of requests)
usleep 500000
R1=$(stat_of requests)
[ $((R1 - R0)) -eq 1 ] && ok "no lookups while waiting (only the stats request in 500 ms)" ||
	bad "$((R1 - R0)) requests in 500 ms while fbservice waited (polling?)"
kill -0 $W 2>/dev/null && ok "wait still waiting while the name is missing" || bad "wait returned early: $(cat wait.out)"
spawn deathwatch-target tools.late >target.out
TARGET=$LAST
wait $W
rc=$?
[ $rc -eq 0 ] && grep -qx 'tools.late: found' wait.out &&
	ok "wait returned 0 once the name appeared" || bad "wait: exit $rc: $(cat wait.out)"
TRIES=100 retry sh -c '[ "$(fbservice stats | sed -n "s/^watches //p")" = 0 ]' &&
	ok "the waiter's watch is gone" || bad "watch left: $(fbservice stats | tr '\n' ' ')"

spawn echo-service >echo.out
retry fbservice check echo || bad "echo did not register"
code 0 "list" fbservice list
printf 'echo\ntools.late\n' | cmp -s - out && ok "list: both names, sorted" || { bad "list:"; cat out; }
code 0 "check a live name" fbservice check tools.late
grep -qx 'tools.late: found' out && ok "prints 'found'" || bad "expected 'tools.late: found'"

# call: the target replies with its pid
code 0 "call" fbservice call tools.late 7
grep -qx '  \[0\] i32 '"$TARGET" out && ok "reply item: i32 $TARGET (the service's pid)" || { bad "expected i32 $TARGET:"; cat out; }

# every argument type travels (echo-service reads the first string and
# ignores the rest; it must accept them)
code 0 "call with every argument type" fbservice call echo 1 str first i32 -5 i64 -9000000000 \
	u32 4294967295 u64 18446744073709551615 f64 2.5 s16 x bool true blob 00ff10
grep -qx '  \[0\] string "first"' out && ok "string argument reached the service" || { bad "echo reply:"; cat out; }
code 1 "call, non-string first argument" fbservice call echo 1 i32 5
grep -q '^status -74 (-EBADMSG' out && ok "status -EBADMSG printed" || { bad "expected status -74:"; cat out; }
code 0 "call with a timeout option" fbservice -t 5000 call echo 1 str t

# the service dies: the name goes, calls fail with 1
stop $TARGET
retry sh -c '! fbservice check tools.late' && ok "dead service's name dropped" || bad "tools.late still listed"
code 1 "call a dead service's name" fbservice call tools.late 1

# the manager goes: 3
stop $SM
code 3 "list after the manager stopped" fbservice list

finish
