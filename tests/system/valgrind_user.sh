#!/bin/sh
# SPDX-License-Identifier: MIT
#
# valgrind_user: the user code that talks to /dev/fastbinder is memcheck
# clean (no invalid access, no use of uninitialised memory, no definite or
# indirect leak), where the host tests cannot reach it: libbinderlite's
# call, looper, pool, region and death paths, fb-servicemanager, fbservice, fbstat.
#
# Needs "scripts/vm/run.sh -V DIR" (make check passes it when this test runs,
# mk/valgrind.mk): memcheck in the guest and, in /fb/vg, dynamically
# linked builds of the programs (memcheck cannot track the heap of a static
# one).  Without them the test fails: a run that skipped it would pass
# while checking nothing.
#
#   1. calls, oneway_batches, regions and thread_pool, every process of them under memcheck;
#   2. fb-servicemanager under memcheck: registrations, a lookup that
#      waits on a notice (fbservice wait, under memcheck too), fbservice call/check/list and fbstat (under memcheck too), a
#      second manager refused (exit 1), two services killed, then the
#      static malformed_requests's 1,000 malformed requests, and SIGTERM: exit 0.
#
# The verdict is memcheck's: every process writes its report (-q: errors
# only) to logs/NAME.PID, and a report with anything in it fails, but for
# memcheck's note on the two argument-less ioctls it has no wrapper for
# (FBINDER_IOC_THREAD_EXIT 0xfb04, FBINDER_IOC_WAKE_IDLE 0xfb05).  A process that
# exits also exits 99 on an error (--error-exitcode), which the tests that
# wait for the manager see as "did not exit 0".  Leak kinds that fail:
# definite and indirect (blocks nothing points to any more: lost).  Not
# "still reachable": a forked child (fbt_fork() in calls, thread_pool)
# _exit()s with its parent's context and buffers, still pointed to, and
# a process may exit while other threads hold memory.  Not "possible"
# (only an interior pointer left): glibc's per-thread allocations of
# threads alive at exit look like that.
#
# The programs must also pass their own checks, but for thread_pool: its
# checks of concurrency and time (4 calls of 400 ms in under 1.2 s, the
# pool grown to 4) cannot hold when memcheck runs a process's threads one
# at a time and 50 times slower; the static thread_pool checks them, here it
# must only run to its end.
# ok, bad, spawn, stop, retry, start_manager, finish: tests/lib/fbt.sh
# memcheck runs everything 20-50x slower: 33 s on a quiet host, 47 s on a
# busy one, 73 s on the debug kernel; 111 s in a whole make check on 6.1
# after issue 18's library tests (out-of-memory sweeps, a small write
# buffer, a pool restart)
# fb-timeout: 240
. fbt.sh

VGBIN=/fb/vg
if [ ! -x /usr/bin/valgrind ] || [ ! -x $VGBIN/calls ]; then
	echo "not ok - no valgrind or no $VGBIN in this VM (scripts/vm/run.sh -V)"
	exit 1
fi

L=$PWD/logs
mkdir -p "$L"
# the tests' clients drop to uid 65534 and still write their reports here
chmod 1777 "$L"
VG_OPTS="-q --vgdb=no --error-exitcode=99 --leak-check=full \
--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
--num-callers=24"

# vg NAME PROGRAM ARGS...: PROGRAM under memcheck (forked children too),
# each process's report in logs/NAME.PID
vg() {
	n=$1
	shift
	# shellcheck disable=SC2086  # VG_OPTS is a list of options
	valgrind $VG_OPTS --log-file="$L/$n.%p" "$@"
}

# reports NAME: every report of NAME's processes is empty (see above);
# prints the first two others (forked children repeat their parent's)
reports() {
	nrep=0 dirty=0
	for f in "$L/$1".*; do
		[ -f "$f" ] || continue
		nrep=$((nrep + 1))
		if grep -v -e '^==[0-9]*== *$' \
			-e 'Warning: noted but unhandled ioctl 0xfb0[45] with no size/direction hints' \
			-e '   This could cause spurious value errors to appear' \
			-e '   See README_MISSING_SYSCALL_OR_IOCTL for guidance' "$f" | grep -q .; then
			dirty=$((dirty + 1))
			if [ $dirty -le 2 ]; then
				echo "---- memcheck report $f:"
				cat "$f"
			else echo "---- memcheck report $f: not empty either"; fi
		fi
	done
	if [ $nrep -eq 0 ]; then bad "$1: no memcheck report at all (did it run under valgrind?)"
	elif [ $dirty -eq 0 ]; then ok "$1: memcheck clean, processes: $nrep"
	else bad "$1: memcheck found errors in $dirty of $nrep processes"; fi
}

# elapsed since the test started, for the log
T0=$(cut -d. -f1 /proc/uptime)
took() { echo "# $(($(cut -d. -f1 /proc/uptime) - T0)) s: $*"; }

# ---- 1. the library's own VM tests -----------------------------------------
# vg_test NAME: the library test NAME under memcheck exits 0, its reports clean
vg_test() {
	vg "$1" "$VGBIN/$1" >"$1.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] && ok "$1 under memcheck: exit 0" || { bad "$1: exit $rc"; cat "$1.out"; }
	reports "$1"
	took "$1"
}

vg_test calls
# asynchronous calls: the workers, the queues, destroy with calls in flight
vg_test async_calls
# oneway batches: the sender's mixed command stream, the receiver's batch walk
vg_test oneway_batches
# region reads land in malloc()ed memory memcheck cannot see the kernel
# write: the library marks the bytes copied as defined
vg_test regions

vg thread_pool $VGBIN/thread_pool >thread_pool.out 2>&1
rc=$?
# Its checks of concurrency and time cannot hold here (see above), and a
# failed one fails the forked services too (they inherit the count): it
# must run to its end, what it found is only shown.
if [ $rc -eq 0 ] || [ $rc -eq 1 ]; then
	ok "thread_pool under memcheck ran to its end (exit $rc)"
	grep '^not ok ' thread_pool.out | sed 's/^/#   /'
else bad "thread_pool: exit $rc"; cat thread_pool.out; fi
reports thread_pool
took thread_pool

# ---- 2. fb-servicemanager under memcheck: a session, then malformed_requests -----
# One manager for both, started here: memcheck takes about 3 s (more on a
# busy host) to start it, and malformed_requests waits only 5 s for the manager
# it starts.  Its "fb-servicemanager" (wrap/, first on its PATH) takes this
# one over instead, passes SIGTERM on and exits with its exit status.
echo 'allow 0 *' >policy
( sh -c 'echo $$ >sm.pid; exec valgrind '"$VG_OPTS"' --log-file='"$L"'/sm.%p \
	'"$VGBIN"'/fb-servicemanager -p policy 2>sm.err'; echo $? >sm.status.new; mv sm.status.new sm.status ) &
SMSH=$!
PIDS="$PIDS $SMSH"
TRIES=200 retry fbservice list || { bad "the manager under memcheck does not answer"; cat sm.err; exit 1; }
SM=$(cat sm.pid)
PIDS="$PIDS $SM"
ok "fb-servicemanager under memcheck answers"
took manager

# SIGHUP: a new policy replaces the old one, a broken one does not
# (malformed_requests's service registers as uid 65534)
printf 'allow 0 *\nallow 1000 media.*\nallow 65534 *\n' >policy
kill -HUP "$SM"
if TRIES=100 retry grep -q 'policy policy: 3 rules' sm.err; then ok "SIGHUP: policy reloaded"
else bad "SIGHUP: no reload"; cat sm.err; fi
echo 'deny everything' >policy
kill -HUP "$SM"
if TRIES=100 retry grep -q 'keeping the previous policy' sm.err; then ok "SIGHUP: a broken policy is refused"
else bad "SIGHUP: broken policy"; cat sm.err; fi

# a lookup that waits on the manager's notice (both under memcheck: the
# watch, the notice, the unwatch), then its name appears
spawn vg fbservice $VGBIN/fbservice wait vg.late 60000 >wait.out 2>&1
WAITER=$LAST
if TRIES=300 retry sh -c '[ "$(fbservice stats | sed -n "s/^watches //p")" = 1 ]'; then
	ok "the waiting fbservice watches vg.late"
else bad "no watch of vg.late: $(fbservice stats | tr '\n' ' ')"; fi
spawn deathwatch-target vg.late >target.out 2>&1
TARGET=$LAST
spawn calculator-service >calc.out 2>&1
CALC=$LAST
if wait "$WAITER"; then ok "a waiting lookup found the late name"
else bad "fbservice wait: $(cat wait.out)"; fi
fbservice wait calculator 10000 >/dev/null || bad "calculator did not register"

# memcheck in parallel (two vCPUs): the tools, and a second manager
vg fbservice $VGBIN/fbservice call calculator 1 str example.calc.ICalculator i64 40 i64 2 >call.out 2>&1 &
P1=$!
vg fbservice $VGBIN/fbservice list >list.out 2>&1 &
P3=$!
vg fbstat $VGBIN/fbstat --watch 0.2 -c 2 >fbstat.out 2>&1 &
P4=$!
vg sm $VGBIN/fb-servicemanager >second.out 2>&1 &
P5=$!
wait $P1; rc=$?
if [ $rc -eq 0 ] && grep -qx '  \[0\] i64 42' call.out; then ok "fbservice call: 42"
else bad "fbservice call: exit $rc"; cat call.out; fi
wait $P3; rc=$?
if [ $rc -eq 0 ] && printf 'calculator\nvg.late\n' | cmp -s - list.out; then ok "fbservice list"
else bad "fbservice list: exit $rc"; cat list.out; fi
wait $P4; rc=$?
if [ $rc -eq 0 ] && grep -q ' calculator ' fbstat.out && [ "$(grep -c '^==== fbstat' fbstat.out)" = 2 ]; then
	ok "fbstat --watch: two refreshes"
else bad "fbstat: exit $rc"; cat fbstat.out; fi
wait $P5; rc=$?
if [ $rc -eq 1 ] && grep -q 'another service manager runs' second.out; then ok "a second manager exits 1"
else bad "second manager: exit $rc, expected 1"; cat second.out; fi
took tools

# the services die: the manager drops their names
kill -9 "$CALC" "$TARGET"
wait "$CALC" "$TARGET" 2>/dev/null
if TRIES=100 retry sh -c '[ -z "$(fbservice list)" ]'; then ok "the dead services' names were dropped"
else bad "names left: $(fbservice list)"; fi
took session

# 1,000 malformed requests, then SIGTERM (through the wrapper)
mkdir -p wrap
cat >wrap/fb-servicemanager <<EOF
#!/bin/sh
if mkdir $PWD/sm.taken 2>/dev/null; then
	trap 'kill -TERM $SM' TERM INT
	while [ ! -f $PWD/sm.status ]; do usleep 50000; done
	exit \$(cat $PWD/sm.status)
fi
exec valgrind $VG_OPTS --log-file=$L/sm.%p $VGBIN/fb-servicemanager "\$@"
EOF
chmod 755 wrap/fb-servicemanager
# (its descriptor check counts the real manager's, not the wrapper's)
PATH=$PWD/wrap:$PATH FBT_SM_MANAGER_PID=$SM malformed_requests >malformed_requests.out 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	ok "malformed_requests against the manager under memcheck"
	grep 'error replies' malformed_requests.out | sed 's/^/#   /'
else bad "malformed_requests: exit $rc"; cat malformed_requests.out; fi
took malformed_requests

# the manager's own exit status: 0, or 99 when memcheck found an error or
# a leak at exit
[ -f sm.status ] || kill -TERM "$SM" 2>/dev/null
wait "$SMSH"
rc=$(cat sm.status 2>/dev/null)
if [ "$rc" = 0 ]; then ok "the manager exits 0 on SIGTERM under memcheck"
else bad "manager: exit '$rc' after SIGTERM"; cat sm.err; fi

reports sm
reports fbservice
reports fbstat
took all
finish
