#!/bin/sh
# SPDX-License-Identifier: MIT
#
# example_echo: examples/echo.  echo-service registers "echo"; echo-client
# gets each argument back, in order (call numbers 1, 2); the service saw
# the client's pid; fbservice calls it too (a quoted string comes back
# escaped), an unknown method gets -EOPNOTSUPP and exit 1; when the service
# is killed its name leaves the registry.
# ok, bad, spawn, stop, retry, start_manager, finish: tests/lib/fbt.sh
. fbt.sh

start_manager
spawn echo-service >svc.out
SVC=$LAST
retry fbservice check echo || { echo "fatal: echo-service did not register"; cat svc.out; exit 1; }

if echo-client hello "two words" >client.out; then ok "echo-client exit 0"
else bad "echo-client exit $?"; fi
cat client.out
grep -qx 'echo-client: sent "hello", got "hello" (call #1)' client.out &&
	ok "first echo" || bad "first echo: expected 'got \"hello\" (call #1)'"
grep -qx 'echo-client: sent "two words", got "two words" (call #2)' client.out &&
	ok "second echo, in order" || bad "second echo: expected 'got \"two words\" (call #2)'"
grep -q '^echo-service: "hello" from pid [1-9]' svc.out &&
	ok "the service saw the caller's pid" || { bad "service log lacks the call"; cat svc.out; }

fbservice call echo 1 str 'a "quoted" line' >call.out
rc=$?
cat call.out
[ $rc -eq 0 ] && ok "fbservice call: exit 0" || bad "fbservice call: exit $rc, expected 0"
grep -qx 'status 0' call.out && ok "status 0" || bad "no 'status 0' line"
grep -qx '  \[0\] string "a \\"quoted\\" line"' call.out &&
	ok "string echoed, quoted and escaped" || bad "expected: [0] string \"a \\\"quoted\\\" line\""
grep -qx '  \[1\] i32 3' call.out && ok "third call counted" || bad "expected: [1] i32 3"

fbservice call echo 42 >bad.out
rc=$?
cat bad.out
[ $rc -eq 1 ] && grep -q '^status -95 (-EOPNOTSUPP' bad.out &&
	ok "unknown method: status -EOPNOTSUPP, exit 1" || bad "unknown method: exit $rc"

stop $SVC
retry sh -c '! fbservice check echo' &&
	ok "name dropped after the service died" || bad "echo still registered after its death"

finish
