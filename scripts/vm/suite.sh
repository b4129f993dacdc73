#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/vm/suite.sh - the VM test suite, guest side (busybox sh).
#
# 1. module-selftest: insmod + rmmod of the development build (self-tests and
#    per-step timing built in), when the host put one in
#    /fb/fastbinder-selftest.ko (its init runs the driver's self-tests and
#    fails the insmod if one fails); while it is loaded, module-sections
#    checks its per-step sums over a run of the sync_call test;
# 2. insmod /fb/fastbinder.ko (a failure fails the run: nothing to test);
# 3. every test in /fb/tests (static binaries, *.sh run with sh), each with a
#    timeout of FBINDER_TEST_TIMEOUT seconds (60), or more where a shell test
#    says so in a line "# fb-timeout: N" (valgrind_user); FBINDER_TESTS limits
#    the run to the names it lists.  A program runs as uid 65534 through
#    fb-nobody unless FBINDER_ROOT_TESTS names it (a shell test starts as
#    root), and every test must leave every live count of debugfs at 0
#    (checked here: one that drops privileges cannot read them itself);
# 4. rmmod fastbinder (a module that will not unload is a failure);
# 5. dmesg-clean: no kernel warning, bug, oops or sanitizer report appeared.
#
# On a kernel with kmemleak (make check-debug), a "kmemleak" step before
# rmmod scans for leaks (the boot's own suspects are set aside first).
#
# Exit status 77 means the test skipped (it could not check what it is
# for here): "SKIP <name>", counted apart, never as a pass.
#
# Prints "PASS <name>" / "FAIL <name> (...)" / "SKIP <name>" per test, then
# the line "FB-SUMMARY: N passed, M failed, K skipped" that the host
# parses.  Exit 0 iff M = 0.

T=${FBINDER_TEST_TIMEOUT:-60}
pass=0
fail=0
skip=0

ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+ ($2)}"; fail=$((fail + 1)); }
skipped() { echo "SKIP $1"; skip=$((skip + 1)); }
summary() { echo "FB-SUMMARY: $pass passed, $fail failed, $skip skipped"; }

KMEMLEAK=/sys/kernel/debug/kmemleak
# Leaks the kernel had before the suite are not ours: report them now and
# mark them seen ("clear"), so a later scan shows only new ones.
if [ -w $KMEMLEAK ]; then
	echo scan >$KMEMLEAK && echo clear >$KMEMLEAK
fi

# Boot-time messages are not ours: keep them aside, judge only what follows.
dmesg -c >/tmp/dmesg-boot

# A task stuck in an uninterruptible sleep cannot be killed by a test's
# timeout and would stall the whole run: have the kernel name it (with its
# stack) after 60 s instead of 120, and dmesg-clean fail on it (where the
# kernel has the detector: the debug kernel of mk/debug.mk does not).
h=/proc/sys/kernel/hung_task_timeout_secs
[ -w $h ] && echo 60 >$h

# QEMU 7.2's TCG can livelock when one vCPU rewrites kernel code that the
# other is running: the other keeps executing its stale translation of
# text_poke's int3, kprobes' handler sees no int3 in memory and backs up
# onto it, forever, interrupts off.  With record-cmd on (the default),
# enabling or disabling any trace event adds or removes a probe on
# sched_switch, which patches __schedule, code both vCPUs run all the time.
# Seen once in CI (tracing_recipes on 6.1, both vCPUs looping on the int3 at
# __schedule+0x1bc while memory held the nop) and about once in 50 runs of
# tracing_recipes in a loop; none in 300 with record-cmd off.  No test
# reads the task names it records.
r=/sys/kernel/tracing/options/record-cmd
[ -w $r ] && echo 0 >$r

# module-sections: the development build's per-step sums (driver/sections.h,
# make bench-sections) over runs of the sync_call test: a reset after one
# zeroes them, and over the next every step ran and took time, and each
# step's sum holds the steps inside it (a section ended in the wrong place,
# or a sum that loses counts, breaks one of these); the device's lock was
# held, no statistic was a shared atomic (they are per CPU), and the union
# of the shared locks' holds lies between the device's and the sum of both
# kinds (a lock or unlock not seen, or a depth gone wrong, breaks it).
sections_run() {
	# as in the loop below: root to claim handle 0, its calls from uid 65534
	d=$(mktemp -d /tmp/sections.XXXXXX)
	chown 65534:65534 "$d"
	(cd "$d" && exec timeout "$T" /fb/tests/sync_call) >"$d/out" 2>&1 ||
		{ echo "sync_call failed:"; tail -n 5 "$d/out"; rm -rf "$d"; return 1; }
	rm -rf "$d"
}
sections_check() {
	s=/sys/kernel/debug/fastbinder/sections
	[ -w $s ] || { echo "no $s"; return 1; }
	sections_run || return 1
	echo 0 >$s
	awk '$2 != 0 || $3 != 0 { print "not zero after a reset: " $0; bad = 1 }
	     END { exit bad }' $s || return 1
	sections_run || return 1
	awk '{ n[$1] = $2; c[$1] = $3; k++ }
	function no(why) { print why; bad = 1 }
	function within(inner, outer) { if (inner > c[outer]) no("the steps inside " outer " sum to more than it") }
	END {
		if (k != 20) no(k " lines, not 20")
		for (x in n) if (x !~ /^(held|atomic)_/ && (n[x] == 0 || c[x] < n[x])) no(x ": ran " n[x] " times in " c[x] " cycles")
		if (!n["held_device"] || c["held_device"] < n["held_device"])
			no("the device lock held " n["held_device"] " times in " c["held_device"] " cycles")
		if (n["atomic_stats"])
			no(n["atomic_stats"] " shared statistics updates: the statistics are per CPU")
		if (c["held_shared"] < c["held_device"] || c["held_shared"] > c["held_device"] + c["held_module"] ||
		    !n["held_shared"] || n["held_shared"] > n["held_device"] + n["held_module"])
			no("shared holds " n["held_shared"] "/" c["held_shared"] " against the device lock " n["held_device"] "/" c["held_device"] " and the module-wide " n["held_module"] "/" c["held_module"])
		if (c["atomic_stats"] || c["atomic_module"] || c["atomic_user"])
			no("an atomic count with cycles")
		if (n["send_prepare"] != n["send"] || n["send_copy"] > n["send"] ||
		    n["send_slot"] != n["send_copy"] || n["send_commit"] > n["send_copy"])
			no("the steps of a send ran " n["send_prepare"] "/" n["send_copy"] "/" n["send_commit"] " times in " n["send"] " sends")
		within(c["send_prepare"] + c["send_copy"] + c["send_commit"], "send")
		within(c["send_slot"], "send_copy")
		within(c["sleep"] + c["take"] + c["deliver"] + c["finish"], "read")
		within(c["send"] + c["free"] + c["read"], "write_read")
		within(c["send"] + c["free"] + c["sleep"] + c["resched"], "write_read")
		exit bad
	}' $s || { cat $s; return 1; }
}

if [ -f /fb/fastbinder-selftest.ko ]; then
	echo "=== RUN module-selftest"
	if insmod /fb/fastbinder-selftest.ko; then
		echo "=== RUN module-sections"
		if out=$(sections_check 2>&1); then ok module-sections
		else bad module-sections "$(echo "$out" | head -n 1)"; echo "$out"; fi
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
	summary
	exit 1
fi
ok insmod

# in_list NAME LIST...: NAME is one of LIST
in_list() {
	n=$1
	shift
	for s in "$@"; do [ "$s" = "$n" ] && return 0; done
	return 1
}
selected() { [ -z "$FBINDER_TESTS" ] || in_list "$1" $FBINDER_TESTS; }

# live_zero: every live_* counter of debugfs stats reads 0 within 5 s
live_zero() {
	i=0
	while [ $i -lt 50 ]; do
		grep -q '^live_[a-z_]* [1-9]' /sys/kernel/debug/fastbinder/stats || return 0
		sleep 0.1
		i=$((i + 1))
	done
	grep '^live_[a-z_]* [1-9]' /sys/kernel/debug/fastbinder/stats
	return 1
}

# The suite's own processes: itself and its ancestors up to init.
keep=" 1 "
p=$$
while [ "$p" -gt 1 ]; do
	keep="$keep$p "
	p=$(sed -n 's/^PPid:[[:space:]]*//p' /proc/$p/status)
done

# Kill what a test left running (a test that died half way leaves its
# children, which would hold handle 0 or live counts for the next tests);
# strays says how many, named on "# left running" lines.  Kernel threads
# have no exe; zombies and exiting processes have no cmdline; busybox
# timeout's watcher outlives the test by up to a second (killed, not
# counted); a process still there half a second later is a stray.  In this
# shell, not a subshell: that would list itself.
running() {
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		case "$keep" in *" $p "*) continue ;; esac
		[ -n "$(readlink $d/exe 2>/dev/null)" ] || continue
		if [ "$(cat $d/comm 2>/dev/null)" = timeout ]; then
			kill -9 "$p" 2>/dev/null
			continue
		fi
		[ -n "$(tr -d '\0' <$d/cmdline 2>/dev/null)" ] && echo "$p"
	done
}
reap_strays() {
	strays=0
	running >/tmp/.fb-running
	[ -s /tmp/.fb-running ] || return 0
	sleep 0.5
	running >/tmp/.fb-running
	while read -r p; do
		echo "# left running: $p $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)"
		# where it is: a stray after a timeout is usually the hang itself
		echo "#   $(sed -n 's/^State:[[:space:]]*//p' /proc/$p/status 2>/dev/null)," \
			"waiting in $(cat /proc/$p/wchan 2>/dev/null)"
		sed 's/^/#     /' /proc/$p/stack 2>/dev/null | head -n 16
		kill -9 "$p" 2>/dev/null && strays=$((strays + 1))
	done </tmp/.fb-running
}

for t in /fb/tests/*; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	selected "$name" || continue
	echo "=== RUN $name"
	started=$(date +%s)
	# Each test gets a fresh, empty working directory.
	dir=$(mktemp -d /tmp/test.XXXXXX)
	tt=$T
	runas=fb-nobody
	in_list "$name" $FBINDER_ROOT_TESTS && runas=
	# a root test may drop privileges too
	chown 65534:65534 "$dir"
	case "$t" in
	*.sh)
		n=$(sed -n 's/^# fb-timeout: \([0-9][0-9]*\)$/\1/p' "$t" | head -n1)
		[ -n "$n" ] && [ "$n" -gt "$T" ] && tt=$n
		(cd "$dir" && exec timeout "$tt" sh "$t") ;;
	*)	[ -n "$runas" ] && echo "# as uid 65534"
		(cd "$dir" && exec timeout "$tt" $runas "$t") ;;
	esac
	rc=$?
	# which tests a slow kernel (the debug one) spends its time on
	echo "# $name took $(($(date +%s) - started)) s"
	reap_strays
	rm -rf "$dir"
	# what an unprivileged test could not read: nothing it made survives it
	if [ "$strays" -gt 0 ]; then
		bad "$name" "exit $rc, left $strays processes running (killed)"
		live_zero >/dev/null
	elif { [ $rc -eq 0 ] || [ $rc -eq 77 ]; } && ! live_zero; then
		bad "$name" "live counts not zero after it exited"
	elif [ $rc -eq 0 ]; then ok "$name"
	elif [ $rc -eq 77 ]; then skipped "$name"
	elif [ $rc -eq 143 ] || [ $rc -eq 124 ]; then
		bad "$name" "timeout after ${tt}s"
		# where everything blocked was waiting, for the log
		echo w >/proc/sysrq-trigger
		dmesg | grep -A 30 ' state:D' | head -n 120
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
pattern='WARNING:|BUG:|Oops|blocked for more than|KASAN|UBSAN|circular locking|possible recursive locking|sleeping function called from invalid context|kmemleak: .*(suspected memory leak|disabled|kmemleak_object)'
if dmesg | grep -E -q "$pattern"; then
	bad dmesg-clean "kernel log lines below"
	dmesg | grep -E -A 12 "$pattern" | head -n 80
else
	ok dmesg-clean
fi

summary
[ $fail -eq 0 ]
