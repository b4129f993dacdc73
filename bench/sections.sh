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
# two sends, a oneway message one).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
module=$1 bin=$2
shift 2
[ $# -gt 0 ] || set -- -t fastbinder -w rt -s 4
KERNEL=${KERNEL:-6.1}
out=$top/build/bench
mkdir -p "$out"
sums=/sys/kernel/debug/fastbinder/sections

log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$top/scripts/vm/run.sh" -k "$KERNEL" -c 1 -I -l -m "$module" -b "$bin" \
	-T "${BENCH_TIMEOUT:-540}" -- \
	"[ -w $sums ] || { echo 'bench-sections: no $sums: not the development build' >&2; exit 1; }
	 echo 0 >$sums && fbbench -I -n $* | grep -E '^bench: |FAILED' &&
	 sed 's/^/SECTIONS /' $sums" | tr -d '\r' | tee "$log" | { grep -v '^SECTIONS ' || true; }
grep -q '^SECTIONS send ' "$log" || { echo "bench-sections: the guest gave no sums" >&2; exit 1; }

awk -v args="$*" '
BEGIN { n = 0 }
$1 == "bench:" && $2 != "kernel" && $3 != "measurements," { sub(/^bench: +/, ""); measured = measured "    " $0 "\n" }
$1 == "SECTIONS" { name[n] = $2; count[n] = $3; cycles[n] = $4; sum[$2] = $4; if ($2 == "send") sends = $3; n++ }
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
}' "$log" >"$out/sections.md"
cat "$out/sections.md"
echo "bench-sections: wrote $out/sections.md"
