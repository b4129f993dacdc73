#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/sched-trace.sh [transport...] - in the guest: where each transport's
# woken thread runs in the 4 B round trip, from the scheduler tracepoints
# sched_waking, sched_switch and sched_migrate_task only (more events move
# the processes).  Prints per transport the median, how many wake-ups of a
# benchmark process chose the waker's own CPU, the migrations, and per CPU
# how often it switched to a benchmark process and how often from idle.
# docs/performance.md ("The two-vCPU gap") has the results and the command:
#   scripts/vm/run.sh -l -m build/6.1/driver/fastbinder.ko -b build/bench/fbbench \
#       -f bench/sched-trace.sh -- 'sh /fb/files/sched-trace.sh'
T=/sys/kernel/tracing
mount -t tracefs tracefs $T 2>/dev/null
insmod /fb/binder_linux.ko devices=binder 2>/dev/null
echo 16384 >$T/buffer_size_kb
[ $# -gt 0 ] || set -- fastbinder unix-stream unix-seqpacket pipe binder futex-ring
for tr in "$@"; do
	echo >$T/trace
	echo 0 >$T/events/enable
	for e in sched_waking sched_switch sched_migrate_task; do
		echo 1 >$T/events/sched/$e/enable
	done
	echo 1 >$T/tracing_on
	fbbench -n -t "$tr" -w rt -s 4 | grep 'median'
	echo 0 >$T/tracing_on
	awk -v tr="$tr" '
	/sched_waking:/ {
		split($0, a, "["); cpu = substr(a[2], 1, 3) + 0
		waker = $1; sub(/-[0-9]+$/, "", waker)
		match($0, /comm=[^ ]+/); wakee = substr($0, RSTART + 5, RLENGTH - 5)
		match($0, /target_cpu=[0-9]+/); tc = substr($0, RSTART + 11, RLENGTH - 11) + 0
		if (wakee != "fbbench" || waker != "fbbench") next
		n++; if (tc == cpu) same++
	}
	/sched_migrate_task:/ && /comm=fbbench/ { mig++ }
	/sched_switch:/ && /next_comm=fbbench/ {
		split($0, a, "["); c = substr(a[2], 1, 3) + 0
		sw[c]++; if ($0 ~ /prev_comm=swapper/) idle[c]++
	}
	END {
		printf "%s: %d wake-ups of fbbench by fbbench, %d (%.0f%%) on the waker'"'"'s cpu; %d migrations\n",
		       tr, n, same, n ? 100 * same / n : 0, mig
		for (c in sw)
			printf "  cpu%d: switched to fbbench %d times, %d from idle\n", c, sw[c], idle[c]
	}' $T/trace
done
