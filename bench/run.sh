#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/run.sh MODULE FBBENCH [fbbench args] - the host side of "make bench".
#
# MODE=icount (environment) boots one vCPU under QEMU's -icount
# shift=0,sleep=off and runs fbbench -I: the deterministic mode, figures in
# instructions (docs/performance.md).  The default, MODE=wallclock, boots two
# vCPUs and measures time.
#
# Boots the VM once (scripts/vm/run.sh) with fastbinder loaded, loads the
# kernel's own binder (binder_linux.ko devices=binder), runs fbbench, and
# turns its console output into build/bench/:
#   console.log   the whole console
#   results.json  {"context": {...}, "measurements": [one object each]}
#   table.md      the tables and the target check (markdown)
#   latency.png   round-trip latency against payload size (gnuplot), and
#                 latency-1cpu.png with client and server on one vCPU
# The exit status is fbbench's (non-zero if any measurement failed, a
# wrong echo included), or the runner's on a timeout or crash.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
module=$1 bin=$2
shift 2
KERNEL=${KERNEL:-6.1}
out=$top/build/bench
mkdir -p "$out"
start=$(date +%s)

vmargs=() fbargs=()
case "${MODE:-wallclock}" in
icount) vmargs=(-c 1 -I) fbargs=(-I) ;;
wallclock) ;;
*) echo "bench: MODE is wallclock or icount, not '$MODE'" >&2; exit 2 ;;
esac
guest="insmod /fb/binder_linux.ko devices=binder || echo 'bench: binder_linux.ko did not load'; fbbench ${fbargs[*]} $*"
# The console streams to the terminal without the machine-readable lines.
"$top/scripts/vm/run.sh" -k "$KERNEL" -l -m "$module" -b "$bin" ${vmargs[@]+"${vmargs[@]}"} \
	-T "${BENCH_TIMEOUT:-540}" -o "$out/console.log" -- "$guest" |
	grep --line-buffered -v -e '^BENCH-JSON' -e '^BENCH-PLOT' -e '^BENCH-CTX' \
		-e '^BENCH-TABLE'
rc=${PIPESTATUS[0]}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
tr -d '\r' <"$out/console.log" >"$log"

ctx=$(sed -n 's/^BENCH-CTX //p' "$log" | tail -n1)
{
	echo '{'
	echo "  \"context\": ${ctx:-null},"
	echo '  "measurements": ['
	sed -n 's/^BENCH-JSON //p' "$log" | sed -e 's/^/    /' -e '$!s/$/,/'
	echo '  ]'
	echo '}'
} >"$out/results.json"
sed -n '/^BENCH-TABLE-BEGIN/,/^BENCH-TABLE-END/p' "$log" |
	sed -e '/^BENCH-TABLE-/d' >"$out/table.md"

# one data file per transport and placement, in the order fbbench measured
rm -f "$out"/lat-*.dat "$out"/latency*.png
transports=$(sed -n 's/^BENCH-PLOT \([^ @]*\) .*/\1/p' "$log" | awk '!seen[$0]++' | tr '\n' ' ')
for t in $transports; do
	sed -n "s/^BENCH-PLOT $t //p" "$log" | sort -n >"$out/lat-$t.dat"
	sed -n "s/^BENCH-PLOT $t@1cpu //p" "$log" | sort -n >"$out/lat-$t@1cpu.dat"
done
sub="$(sed -n 's/^bench: kernel \([^,]*\), \([0-9]*\) vCPUs.*$/\1, \2 vCPUs/p' "$log" | head -n1 | tr -d "'"), QEMU TCG"
plot() {	# suffix output title-extra
	[ -s "$out/lat-fastbinder$1.dat" ] || [ -s "$out/lat-unix-stream$1.dat" ] || return 0
	(cd "$out" && gnuplot -e "transports='$transports'; subtitle='$sub'; suffix='$1'; out='$2'; what='$3'" \
		"$top/bench/plot.gp") || echo "bench: gnuplot failed" >&2
}
if [ -n "$transports" ]; then
	if command -v gnuplot >/dev/null; then
		plot '' latency.png ''
		plot '@1cpu' latency-1cpu.png ', client and server on one vCPU'
	else
		echo "bench: gnuplot missing (make deps-bench installs it): no plot" >&2
	fi
fi

echo
echo "bench: $(( $(date +%s) - start )) s; results in build/bench/: results.json table.md latency.png latency-1cpu.png console.log"
exit "$rc"
