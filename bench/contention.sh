#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/contention.sh IMAGE MODULE FBBENCH [fbbench args] - the host side of
# "make bench-contention": which of the module's locks two disjoint pairs
# contend on (issue 35; docs/performance.md, "Scaling with cores").
#
# Boots IMAGE, the debug kernel (lockdep with CONFIG_LOCK_STAT), two vCPUs,
# with MODULE built for it, and runs fastbinder's scale workload with 2 pairs
# only (fbbench -P 2), calls, oneway, calls carrying a handle and calls
# called back nested apart, each twice: collecting only while the pairs send (FBBENCH_LOCK_STAT:
# fbbench turns /proc/sys/kernel/lock_stat on at the pairs' common start
# and off before the end of their budget), then over the whole run, the
# pairs' setup and end included.  Before each, /proc/lock_stat is
# cleared; after it, the lines of the module's lock classes are kept.  Writes
# build/bench/contention.md: per class, whether it is per context, per CPU
# or shared by the pairs, its contentions, wait time and acquisitions, per
# million messages of the timed windows (a call is two: request and
# reply; a nested one four), and its contention points.  Exit status: 1 if a run failed or a
# shared class was contended while the pairs sent (the issue's target),
# else 0.
#
# lock_stat counts per class, so a per-context class also counts a pair's
# contention with itself (its client against its server); only the shared
# classes' contentions are between the pairs.  LOCKSTAT_SAMPLE=FILE parses
# a saved console log instead of booting (a run's contention-console.log).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
image=$1 module=$2 bin=$3
shift 3
[ $# -gt 0 ] || set -- -t fastbinder
KERNEL=${KERNEL:-6.1}
out=$top/build/bench
mkdir -p "$out"
log=$out/contention-console.log

# The module's lock classes, as lockdep names them (the spelling of the
# lock at its init), and which are shared between disjoint pairs (the
# others are per context, or per CPU: fbinder_txn_pool_lock and
# fbinder_slot_pool_lock, each CPU's spare transactions and slot structs,
# which pairs pinned to their own CPUs do not share).
classes='&dev->lock fbinder_allocs_lock fbinder_users_lock fbinder_node_users_lock fbinder_failure_lock &ctx->lock &alloc->lock &ctx->threads_lock &ctx->poll_wait &new->wait fbinder_txn_pool_lock fbinder_slot_pool_lock'
shared='&dev->lock fbinder_allocs_lock fbinder_users_lock fbinder_node_users_lock fbinder_failure_lock'
pattern=$(tr ' ' '|' <<<"$classes")

if [ -n "${LOCKSTAT_SAMPLE:-}" ]; then
	tr -d '\r' <"$LOCKSTAT_SAMPLE" >"$log.tmp" && mv "$log.tmp" "$log"
	rc=0
else
	[ -f "$image" ] || { echo "bench-contention: no debug kernel $image (make debug-kernel)" >&2; exit 1; }
	guest="[ -r /proc/lock_stat ] || { echo 'bench-contention: no /proc/lock_stat: not a LOCK_STAT kernel' >&2; exit 1; }
	[ -w /proc/sys/kernel/lock_stat ] && echo 1 >/proc/sys/kernel/lock_stat
	rc=0
	for w in scale-calls scale-oneway scale-objects scale-nested; do
		for pass in window whole; do
			echo 0 >/proc/lock_stat
			if [ \$pass = window ]; then
				echo 0 >/proc/sys/kernel/lock_stat
				export FBBENCH_LOCK_STAT=/proc/sys/kernel/lock_stat
			else
				echo 1 >/proc/sys/kernel/lock_stat
				unset FBBENCH_LOCK_STAT
			fi
			fbbench -n -P 2 -w \$w $* >/tmp/fbbench.out 2>&1 || rc=1
			grep -E '^bench: |^BENCH-SCALE-SENT|FAILED' /tmp/fbbench.out |
				sed \"s/^BENCH-SCALE-SENT \$w /&\$pass /\"
			echo LOCKSTAT-BEGIN \$w \$pass
			grep -E '$pattern' /proc/lock_stat | sed 's/^/LOCKSTAT /'
			echo LOCKSTAT-END
		done
	done
	exit \$rc"
	"$top/scripts/vm/run.sh" -k "$KERNEL" -K "$image" -M 2048 -l -m "$module" -b "$bin" \
		-T "${BENCH_TIMEOUT:-540}" -o "$log.raw" -- "$guest" |
		grep --line-buffered -v '^LOCKSTAT '
	rc=${PIPESTATUS[0]}
	tr -d '\r' <"$log.raw" >"$log" && rm -f "$log.raw"
fi
grep -q '^LOCKSTAT-BEGIN' "$log" || { echo "bench-contention: the guest gave no lock_stat" >&2; exit 1; }

awk -v classes="$classes" -v shared="$shared" -v uptime="$(uptime)" '
BEGIN {
	nc = split(classes, cl, " ")
	ns = split(shared, sh, " ")
	for (i = 1; i <= ns; i++)
		is_shared[sh[i]] = 1
	bad = 0
}
/^BENCH-SCALE-SENT / { sent[$2 " " $3] += $5 }
/^LOCKSTAT-BEGIN / { wl = $2 " " $3; wls[++nw] = wl; next }
/^LOCKSTAT-END/ { wl = ""; next }
wl != "" && /^LOCKSTAT / {
	sub(/^LOCKSTAT +/, "")
	# a class line: "name: con-bounces contentions wait-min wait-max
	# wait-total wait-avg acq-bounces acquisitions hold-min hold-max
	# hold-total hold-avg" (times in microseconds)
	numeric = NF == 13 && $1 ~ /:$/
	for (i = 2; numeric && i <= 13; i++)
		numeric = $i ~ /^[0-9.]+$/
	if (numeric) {
		name = $1
		sub(/:$/, "", name)
		k = wl SUBSEP name
		cur = ""
		if (!(k in acq) || $9 > acq[k]) {	# a kernel class of the same name: the busier
			con[k] = $3; wait[k] = $6; acq[k] = $9; hold[k] = $12
			npt[k] = 0
			cur = name
		}
		seen[k] = 1
		next
	}
	# a contention point: "name count [<addr>] symbol+off/len [module]"
	if ($1 == cur && $2 ~ /^[0-9]+$/ && $3 ~ /^\[/) {
		k = wl SUBSEP cur
		if (npt[k] < 4)
			pt[k, ++npt[k]] = $2 " " $4
	}
}
END {
	print "# Lock contention, 2 disjoint pairs (make bench-contention)\n"
	print "Debug kernel (lockdep, LOCK_STAT), 2 vCPUs, pair i (client and server) pinned to vCPU i;"
	print "fbbench -P 2 (5 runs each), /proc/lock_stat cleared before each workload. Host load: " uptime "\n"
	print "Per million messages (a call is two: request and reply, a nested call four; the timed"
	print "windows'"'"' messages)."
	print "Each workload runs twice: with lock_stat collecting only while the pairs send (fbbench"
	print "turns it on at their common start and off at nine tenths of the budget), and over the"
	print "whole run, where opening, mapping and ending the contexts take the device'"'"'s and the"
	print "module'"'"'s registries. A per-context class also counts a pair'"'"'s contention with itself;"
	print "only a shared class'"'"'s contentions are between the pairs, and in the timed windows those"
	print "must be zero.\n"
	for (w = 1; w <= nw; w++) {
		wl = wls[w]
		m = sent[wl] / 1e6
		split(wl, wp, " ")
		span = "the whole run, setup and end of the pairs included"
		if (wp[2] == "window")
			span = "the timed windows only (what the target judges)"
		printf "### %s, %s: %.0f messages\n\n", wp[1], span, sent[wl]
		print "| class | kind | contentions | per M msgs | wait us | wait us per M msgs | acquisitions per msg | hold us per M msgs |"
		print "|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= nc; i++) {
			k = wl SUBSEP cl[i]
			kind = is_shared[cl[i]] ? "shared" : cl[i] ~ /_pool_lock$/ ? "per CPU" : "per context"
			if (!(k in seen)) {
				printf "| %s | %s | not taken | | | | | |\n", cl[i], kind
				continue
			}
			printf "| %s | %s | %d | %.0f | %.2f | %.1f | %.2f | %.0f |\n", cl[i], kind,
			       con[k], m ? con[k] / m : 0, wait[k], m ? wait[k] / m : 0,
			       m ? acq[k] / (m * 1e6) : 0, m ? hold[k] / m : 0
			if (is_shared[cl[i]] && con[k] > 0 && wp[2] == "window")
				bad = 1
		}
		print ""
		for (i = 1; i <= nc; i++) {
			k = wl SUBSEP cl[i]
			if (npt[k] > 0) {
				printf "%s contention points:", cl[i]
				for (j = 1; j <= npt[k]; j++)
					printf " %s%s", pt[k, j], j < npt[k] ? ";" : ""
				print ""
			}
		}
		print ""
	}
	printf "Shared classes contended while the pairs send: %s\n", bad ? "yes (the target wants none)" : "none"
	exit bad
}' "$log" >"$out/contention.md"
shared_rc=$?
cat "$out/contention.md"
echo "bench-contention: wrote $out/contention.md (console: $log)"
[ "$rc" = 0 ] || exit 1
exit "$shared_rc"
