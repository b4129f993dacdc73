#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tools/vm/suite.sh - the VM test suite, guest side (busybox sh).
#
# 1. module-selftest: insmod + rmmod of the FASTBINDER_SELFTEST=y build, when
#    the host put one in /fb/fastbinder-selftest.ko (its init runs the
#    driver's self-tests and fails the insmod if one fails);
# 2. insmod /fb/fastbinder.ko (a failure fails the run: nothing to test);
# 3. every test in /fb/tests (static binaries, *.sh run with sh), each with a
#    timeout of FB_TEST_TIMEOUT seconds (60), or more where a shell test
#    says so in a line "# fb-timeout: N" (valgrind_user); FB_TESTS limits
#    the run to the names it lists;
# 4. rmmod fastbinder (a module that will not unload is a failure);
# 5. dmesg-clean: no kernel warning, bug, oops or sanitizer report appeared.
#
# On a kernel with kmemleak (make check-debug), a "kmemleak" step before
# rmmod scans for leaks (the boot's own suspects are set aside first).
#
# Prints "PASS <name>" / "FAIL <name> (...)" per test, then the line
# "FB-SUMMARY: N passed, M failed" that the host parses.  Exit 0 iff M = 0.

T=${FB_TEST_TIMEOUT:-60}
pass=0
fail=0

ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+ ($2)}"; fail=$((fail + 1)); }

KMEMLEAK=/sys/kernel/debug/kmemleak
# Leaks the kernel had before the suite are not ours: report them now and
# mark them seen ("clear"), so a later scan shows only new ones.
if [ -w $KMEMLEAK ]; then
	echo scan >$KMEMLEAK && echo clear >$KMEMLEAK
fi

# Boot-time messages are not ours: keep them aside, judge only what follows.
dmesg -c >/tmp/dmesg-boot

if [ -f /fb/fastbinder-selftest.ko ]; then
	echo "=== RUN module-selftest"
	if insmod /fb/fastbinder-selftest.ko; then
		if rmmod fastbinder; then ok module-selftest
		else bad module-selftest "rmmod failed"; fi
	else
		bad module-selftest "insmod failed: a self-test failed"
		dmesg | tail -n 30
	fi
fi

echo "=== RUN insmod"
if ! insmod /fb/fastbinder.ko; then
	bad insmod "insmod /fb/fastbinder.ko failed"
	dmesg | tail -n 30
	echo "FB-SUMMARY: $pass passed, $fail failed"
	exit 1
fi
ok insmod

selected() {
	[ -z "$FB_TESTS" ] && return 0
	for s in $FB_TESTS; do [ "$s" = "$1" ] && return 0; done
	return 1
}

for t in /fb/tests/*; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	selected "$name" || continue
	echo "=== RUN $name"
	# Each test gets a fresh, empty working directory.
	dir=$(mktemp -d /tmp/test.XXXXXX)
	tt=$T
	case "$t" in
	*.sh)
		n=$(sed -n 's/^# fb-timeout: \([0-9][0-9]*\)$/\1/p' "$t" | head -n1)
		[ -n "$n" ] && [ "$n" -gt "$T" ] && tt=$n
		(cd "$dir" && exec timeout "$tt" sh "$t") ;;
	*) (cd "$dir" && exec timeout "$tt" "$t") ;;
	esac
	rc=$?
	rm -rf "$dir"
	if [ $rc -eq 0 ]; then ok "$name"
	elif [ $rc -eq 143 ] || [ $rc -eq 124 ]; then bad "$name" "timeout after ${tt}s"
	elif [ $rc -gt 128 ]; then bad "$name" "killed by signal $((rc - 128))"
	else bad "$name" "exit $rc"; fi
done

if [ -w $KMEMLEAK ]; then
	echo "=== RUN kmemleak"
	# An object is a suspect once it is 5 s old and seen unreferenced.
	sleep 6
	echo scan >$KMEMLEAK
	sleep 1
	echo scan >$KMEMLEAK
	if grep -q . $KMEMLEAK; then
		bad kmemleak "suspected leaks below"
		head -n 80 $KMEMLEAK
	else
		ok kmemleak
	fi
fi

echo "=== RUN rmmod"
if rmmod fastbinder; then ok rmmod
else
	bad rmmod "rmmod fastbinder failed"
	grep '^fastbinder ' /proc/modules
fi

echo "=== RUN dmesg-clean"
# kmemleak: its leak reports and its giving up, not its notes (fault
# injection makes it print "Cannot allocate a scan area").
pattern='WARNING:|BUG:|Oops|KASAN|UBSAN|circular locking|possible recursive locking|sleeping function called from invalid context|kmemleak: .*(suspected memory leak|disabled|kmemleak_object)'
if dmesg | grep -E -q "$pattern"; then
	bad dmesg-clean "kernel log lines below"
	dmesg | grep -E -A 12 "$pattern" | head -n 80
else
	ok dmesg-clean
fi

echo "FB-SUMMARY: $pass passed, $fail failed"
[ $fail -eq 0 ]
