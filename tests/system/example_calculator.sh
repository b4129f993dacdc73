#!/bin/sh
# SPDX-License-Identifier: MIT
#
# example_calculator: examples/calculator, on the stubs fbidl generates
# from calculator.fbidl.  calculator-client computes with every method (add
# sub mul div concat upper); division by zero is the error status -EDOM
# (exit 1), overflow -ERANGE; fbservice call against "calculator", with
# the interface file (--idl) or by hand (the descriptor token first),
# prints the right typed values (i64 6 + 7 = 13, 6 * 7 = 42, 7 / 2 = 3 rem
# 1, strings); wrong argument types get -EBADMSG, an unknown code
# -EOPNOTSUPP and a request without the token -EPROTOTYPE.
# ok, bad, spawn, stop, retry, start_manager, finish: tests/lib/fbt.sh
. fbt.sh

# expect "description" "expected stdout line" command...
expect() {
	what=$1 want=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && echo "$out" | grep -qxF -e "$want"; then ok "$what: $want"
	else bad "$what: expected '$want' and exit 0, got exit $rc: $out"; fi
}
IDL=/fb/files/calculator.fbidl
TOKEN=example.calc.ICalculator
# expect_call "expected item line" fbservice call arguments...
expect_call() {
	want=$1
	shift
	out=$(fbservice call calculator "$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && echo "$out" | grep -qx 'status 0' &&
	   echo "$out" | grep -qxF -e "$want"; then ok "fbservice call calculator $*: $want"
	else bad "fbservice call calculator $*: expected '$want', exit 0; got exit $rc:"; echo "$out"; fi
}
# expect_status STATUS fbservice call arguments...: that status, exit 1
expect_status() {
	want=$1
	shift
	out=$(fbservice call calculator "$@" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && echo "$out" | grep -q "^status $want "; then ok "call $*: status $want, exit 1"
	else bad "call $*: expected status $want and exit 1, got exit $rc:"; echo "$out"; fi
}

start_manager
spawn calculator-service >svc.out
SVC=$LAST
retry fbservice check calculator || { echo "fatal: calculator-service did not register"; cat svc.out; exit 1; }

expect add "6 + 7 = 13" calculator-client add 6 7
expect sub "6 - 7 = -1" calculator-client sub 6 7
expect mul "6 * 7 = 42" calculator-client mul 6 7
expect div "7 / 2 = 3 remainder 1" calculator-client div 7 2
expect "negative div" "-7 / 2 = -3 remainder -1" calculator-client div -7 2
expect concat '"foobar"' calculator-client concat foo bar
expect upper '"HELLO, WORLD 42"' calculator-client upper "hello, World 42"

out=$(calculator-client div 1 0 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "status -33" &&
	ok "division by zero: status -EDOM (-33), exit 1" || bad "division by zero: exit $rc: $out"
out=$(calculator-client mul 9223372036854775807 2 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "status -34" &&
	ok "overflow: status -ERANGE (-34), exit 1" || bad "overflow: exit $rc: $out"

# the same service through the generic tool, typed by the interface file
echo "\$ fbservice call --idl $IDL calculator add 6 7"
fbservice call --idl $IDL calculator add 6 7
out=$(fbservice call --idl $IDL calculator add 6 7 2>&1)
[ $? -eq 0 ] && echo "$out" | grep -qxF '  [0] i64 13' &&
	ok "fbservice call --idl: add 6 7 = 13" || bad "fbservice call --idl add: $out"
out=$(fbservice call --idl $IDL calculator div 7 2 2>&1)
[ $? -eq 0 ] && echo "$out" | grep -qxF '  [0] i64 3' && echo "$out" | grep -qxF '  [1] i64 1' &&
	ok "fbservice call --idl: div 7 2 = 3 rem 1" || bad "fbservice call --idl div: $out"
out=$(fbservice call --idl $IDL calculator upper 'hi there' 2>&1)
[ $? -eq 0 ] && echo "$out" | grep -qxF '  [0] string "HI THERE"' &&
	ok "fbservice call --idl: upper" || bad "fbservice call --idl upper: $out"
out=$(fbservice call --idl $IDL calculator add 6 seven 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q "b: 'seven' is not a long" &&
	ok "fbservice call --idl: a value of the wrong type is a usage error" ||
	bad "fbservice call --idl add 6 seven: $out"
# and by hand: the descriptor token, then the arguments
expect_call "  [0] i64 13" 1 str $TOKEN i64 6 i64 7
expect_call "  [0] i64 -1" 2 str $TOKEN i64 6 i64 7
expect_call "  [0] i64 42" 3 str $TOKEN i64 6 i64 7
expect_call "  [1] i64 1" 4 str $TOKEN i64 7 i64 2
expect_call "  [0] i64 3" 4 str $TOKEN i64 7 i64 2
expect_call '  [0] string "foobar"' 5 str $TOKEN str foo s16 bar
expect_call '  [0] string "ABC"' 6 str $TOKEN str abc
expect_status -33 4 str $TOKEN i64 1 i64 0
expect_status -74 1 str $TOKEN i32 6 i32 7
expect_status -95 99 str $TOKEN
expect_status -91 1 i64 6 i64 7

stop $SVC
grep -q "stopped" svc.out && ok "service exited cleanly on SIGTERM" || bad "no clean exit: $(cat svc.out)"

finish
