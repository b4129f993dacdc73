#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/sections.sh MODULE FBBENCH [fbbench args] - the host side of
# "make bench-sections": how long each step of fastbinder's hot paths is,
# in the deterministic mode (docs/performance.md, "Time per step").
#
# MODULE is the development build (make module-selftest: FASTBINDER_SECTIONS=y,
# driver/sections.h), which sums the guest's TSC between the start and the
# end of each step; under QEMU's -icount shift=0,sleep=off that counts
# executed instructions, so each figure is an exact path length (each step
# costs about ten instructions of its own).  Boots one vCPU, starts the
# sums from zero, runs fbbench -I -n with the given arguments (default:
# fastbinder's 4-byte round trip; warm-up and setup are counted too, which
# the averages do not mind), and writes build/bench/sections.md: per step,
# how often it ran, its average, and its cycles per send (a round trip is
# two sends, a oneway message one); then what a round trip (or, for a oneway
# workload, a message; for scale-nested, an outer round trip with its nested
# one, four sends) spends holding the device's lock or a module-wide
# lock, and its atomic updates of module-wide or per-user counters: the
# shared fraction of its path and the ceiling 1/fraction (issue 35).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
module=$1 bin=$2
shift 2
[ $# -gt 0 ] || set -- -t fastbinder -w rt -s 4
KERNEL=${KERNEL:-6.1}
out=$top/build/bench
mkdir -p "$out"
sums=/sys/kernel/debug/fastbinder/sections

# SECTIONS_SAMPLE=FILE parses a saved console (a run's sections-console.log)
log=$out/sections-console.log
if [ -n "${SECTIONS_SAMPLE:-}" ]; then
	cp "$SECTIONS_SAMPLE" "$log.tmp" && mv "$log.tmp" "$log"
else
	"$top/scripts/vm/run.sh" -k "$KERNEL" -c 1 -I -l -m "$module" -b "$bin" \
		-T "${BENCH_TIMEOUT:-540}" -- \
		"[ -w $sums ] || { echo 'bench-sections: no $sums: not the development build' >&2; exit 1; }
		 echo 0 >$sums && fbbench -I -n $* | grep -E '^bench: |FAILED' &&
		 sed 's/^/SECTIONS /' $sums" | tr -d '\r' | tee "$log" | { grep -v '^SECTIONS ' || true; }
fi
grep -q '^SECTIONS send ' "$log" || { echo "bench-sections: the guest gave no sums" >&2; exit 1; }

awk -v args="$*" '
BEGIN { n = 0 }
$1 == "bench:" && $2 != "kernel" && $3 != "measurements," {
	sub(/^bench: +/, "")
	measured = measured "    " $0 "\n"
	# the path per operation: a round trip'"'"'s median (k instructions), a message'"'"'s
	# 1e9 / rate (the median of the runs)
	for (i = 2; i < NF; i++) {
		if ($i == "median")
			runs[++nruns] = $(i + 1) * 1000
		if ($(i + 1) == "msgs/s" && $i > 0)
			runs[++nruns] = 1e9 / $i
	}
}
$1 == "SECTIONS" { name[n] = $2; count[n] = $3; cycles[n] = $4; sum[$2] = $4; cnt[$2] = $3; if ($2 == "send") sends = $3; n++ }
END {
	printf "# Time per step: fbbench -I -n %s (deterministic mode: cycles are instructions)\n\n", args
	printf "What fbbench measured meanwhile (microseconds are thousands of instructions):\n\n%s\n", measured
	print "A step that sleeps or is preempted counts what ran meanwhile too: sleep (in read) and"
	print "resched (a cond_resched() in read or between commands, where a peer just woken often"
	print "runs first) are that part of write_read. Per send: a round trip is two sends, a oneway"
	print "message one."
	print ""
	print "| step | count | cycles | average | per send |"
	print "|---|---|---|---|---|"
	for (i = 0; i < n; i++)
		printf "| %s | %.0f | %.0f | %.0f | %.0f |\n", name[i], count[i], cycles[i],
			count[i] ? cycles[i] / count[i] : 0, sends ? cycles[i] / sends : 0
	if (sends)
		printf "\nThe module'"'"'s own work per send: %.0f instructions (write_read less sleep, resched\nand wake; the steps'"'"' markers, about ten instructions each, included).\n",
			(sum["write_read"] - sum["sleep"] - sum["resched"] - sum["wake"]) / sends
	for (i = 2; i <= nruns; i++)
		for (j = i; j > 1 && runs[j] < runs[j - 1]; j--) {
			t = runs[j]; runs[j] = runs[j - 1]; runs[j - 1] = t
		}
	path = nruns ? runs[int((nruns + 1) / 2)] : 0
	if (sends && ("held_shared" in cnt)) {
		oneway = args ~ /oneway/
		nested = args ~ /scale-nested/
		ops = oneway ? sends : nested ? sends / 4 : sends / 2
		op = oneway ? "oneway message" : nested ? "outer round trip" : "round trip"
		printf "\n### Shared beyond the message'"'"'s two contexts, per %s\n\n", op
		printf "The device'"'"'s lock and the module-wide locks (fbinder_allocs_lock, fbinder_users_lock,\n"
		printf "fbinder_node_users_lock, fbinder_failure_lock): holds and the\n"
		printf "instructions inside them\n"
		printf "(about three of each hold are the count'"'"'s own); atomics: read-modify-writes of\n"
		printf "shared statistics (none since they are per CPU), of the other module-wide counters\n"
		printf "(node and context ids) and of a user'"'"'s page or node count, one\n"
		printf "instruction each but a shared cache line each.\n"
		printf "The path: %.0f instructions per %s, as fbbench measured it in this run (the median;\n", path, op
		printf "this build'"'"'s markers included).\n\n"
		if (nested)
			printf "An outer round trip is four sends: the call, its nested call back, that one'"'"'s\nreply, the reply.\n\n"
		printf "| shared | per %s | instructions per %s | of the path |\n|---|---|---|---|\n", op, op
		split("held_device held_module held_shared", hs, " ")
		for (i = 1; i <= 3; i++)
			printf "| %s | %.2f holds | %.0f | %.2f%% |\n", hs[i], cnt[hs[i]] / ops,
			       sum[hs[i]] / ops, path ? 100 * sum[hs[i]] / ops / path : 0
		split("atomic_stats atomic_module atomic_user", as, " ")
		for (i = 1; i <= 3; i++) {
			printf "| %s | %.2f updates | %.2f | %.3f%% |\n", as[i], cnt[as[i]] / ops,
			       cnt[as[i]] / ops, path ? 100 * cnt[as[i]] / ops / path : 0
			atomics += cnt[as[i]]
		}
		frac = path ? (sum["held_shared"] + atomics) / ops / path : 0
		printf "\nShared fraction (locks held, union, plus the atomics): %.2f%% of the %s, so N\n", 100 * frac, op
		printf "disjoint pairs saturate what they share at 1/fraction = %.1f cores (the model'"'"'s\n", frac ? 1 / frac : 0
		printf "ceiling; the queueing knee comes earlier).\n"
	}
}' "$log" >"$out/sections.md"
cat "$out/sections.md"
echo "bench-sections: wrote $out/sections.md"
