#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/profile.sh MODULE FBBENCH [fbbench args] - the host side of
# "make bench-profile": where a workload's instructions go, in the
# deterministic mode (docs/performance.md, "Profiling").
#
# Boots one vCPU under QEMU's -icount shift=0,sleep=off with perf in the
# guest (scripts/vm/run.sh -P), records fbbench -I with the given arguments
# (default: fastbinder's 4-byte round trip) on the cpu-clock event every
# PROFILE_PERIOD (10000) guest ns, that is every 10000 instructions (the
# kernel's floor for cpu-clock: a shorter period is silently raised to it,
# while perf counts each sample as the period asked), and writes
# build/bench/profile.md:
#   - the flat profile, whole system, by symbol (perf report);
#   - the module's hot instructions: samples per instruction, with the
#     instruction and its source line (objdump and addr2line of MODULE on
#     the host, where its debug information is);
#   - with PROFILE_CALLERS=sym,...: the call chains that lead to those
#     symbols (perf record -g, which adds its own unwinding to every sample:
#     read their shares, not the flat profile, from such a run).
# Sampling rides on the timer interrupt, so time spent with interrupts off
# (the scheduler's switch, a wakeup under a raw lock) shows at the point
# they are enabled again; a "rep stos"/"rep movs" counts once per
# iteration.  Figures under a profile run about a quarter above the plain
# ones (the sampling's own instructions): compare shares, judge changes
# with "make bench-ab".
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
module=$1 bin=$2
shift 2
[ $# -gt 0 ] || set -- -t fastbinder -w rt -s 4
KERNEL=${KERNEL:-6.1}
period=${PROFILE_PERIOD:-10000}
callers=${PROFILE_CALLERS:-}
case "$callers" in
*[!A-Za-z0-9_.,]*) echo "bench-profile: PROFILE_CALLERS is a comma list of symbols" >&2; exit 2 ;;
esac
[ "$period" -ge 10000 ] || { echo "bench-profile: PROFILE_PERIOD is at least 10000 (cpu-clock's floor)" >&2; exit 2; }
out=$top/build/bench
mkdir -p "$out"
case "$KERNEL" in
6.1) ;;
*) echo "bench-profile: Debian 12's perf is made for 6.1, not KERNEL=$KERNEL" >&2; exit 2 ;;
esac

cat >"$out/profile-guest.sh" <<EOF
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
# no throttling at the default limit of 100000 samples a second, which a
# 10 us period reaches (the rate first: it cannot be set once the time
# limit is off)
echo 4000000 >/proc/sys/kernel/perf_event_max_sample_rate
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
mkdir -p /tmp/prof && cd /tmp/prof
perf record -q -a ${callers:+-g} -e cpu-clock -c $period -o /tmp/prof/perf.data -- fbbench -I -n $* |
	grep -E '^bench: |FAILED'
echo 'PROFILE-FLAT-BEGIN'
perf report -i /tmp/prof/perf.data --stdio --no-children --sort dso,sym --percent-limit 0.2 2>/dev/null |
	grep -e '%' -e '^# Event count'
echo 'PROFILE-FLAT-END'
if [ -n "$callers" ]; then
	echo 'PROFILE-CALLERS-BEGIN'
	perf report -i /tmp/prof/perf.data --stdio --no-children --sort sym \
		--symbols=$callers -g graph,0.5,callee 2>/dev/null |
		grep -v -e '^#' -e '^\$' | head -n 400
	echo 'PROFILE-CALLERS-END'
fi
# the module's functions, by their prefix (which the kernel's never use);
# -G: the sampled instruction alone, not the call chain of a -g run
perf script -i /tmp/prof/perf.data -G -F ip,sym,symoff 2>/dev/null |
	awk '\$1 ~ /^ffff/ && \$2 ~ /^(fbinder_|trace_event_raw_event_fastbinder_)/ { print \$2 }' |
	sort | uniq -c | sort -rn | head -n 200 | awk '{ print "PROFILE-HOT", \$1, \$2 }'
EOF

"$top/scripts/vm/run.sh" -k "$KERNEL" -c 1 -I -P -l -m "$module" -b "$bin" \
	-f "$out/profile-guest.sh" -T "${BENCH_TIMEOUT:-540}" -o "$out/profile-console.log" \
	-- "sh /fb/files/profile-guest.sh" |
	sed '/^PROFILE-CALLERS-BEGIN/,/^PROFILE-CALLERS-END/d' | grep -v -e '^PROFILE-' -e '%'

log=$(mktemp)
trap 'rm -f "$log"' EXIT
tr -d '\r' <"$out/profile-console.log" >"$log"

# sym+0xoff -> the instruction and source line, from the module's own
# disassembly (section-relative addresses, as addr2line takes them): one
# pass over each, whatever the number of hot places.
hot() {
	local dis n where fn off addr text i
	local -A base insn
	local -a counts=() wheres=() addrs=() lines=()

	dis=$(objdump -d --no-show-raw-insn "$module")
	while read -r addr fn; do
		base[$fn]=$addr
	done < <(sed -n 's/^\([0-9a-f]*\) <\(.*\)>:$/\1 \2/p' <<<"$dis")
	while read -r n where; do
		fn=${where%%+*} off=${where#*+}
		[ -n "${base[$fn]:-}" ] || continue
		counts+=("$n") wheres+=("$where")
		addrs+=("$(printf '%x' $((0x${base[$fn]} + off)))")
	done < <(awk '$1 == "PROFILE-HOT" { print $2, $3 }' "$log")
	[ ${#addrs[@]} -gt 0 ] || return 0
	while IFS=$'\t' read -r addr text; do
		insn[$addr]=$text
	done < <(awk -v want="${addrs[*]}" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) a[w[i] ":"] = 1 }
		$1 in a { k = $1; sub(/:$/, "", k); $1 = ""; sub(/^ +/, ""); print k "\t" $0 }' <<<"$dis")
	mapfile -t lines < <(addr2line -e "$module" "${addrs[@]/#/0x}" 2>/dev/null | sed 's|.*/||')
	for i in "${!addrs[@]}"; do
		printf '| %s | %s | `%s` | %s |\n' "${counts[i]}" "${wheres[i]}" \
			"${insn[${addrs[i]}]:-}" "${lines[i]:-}"
	done
}

# Samples per measured call or message, when fbbench measured one kind:
# each symbol's share then also reads as instructions per call.
events=$(sed -n 's/^# Event count (approx.): \([0-9]*\)$/\1/p' "$log" | head -n1)
calls=$(sed -n 's/^bench: .*(\([0-9]*\)\( calls\)*)$/\1/p' "$log" | awk '{ n += $1; k++ } END { if (k == 1) print n }')
{
	echo "# Profile: fbbench -I -n $* (deterministic mode, one sample per $period instructions)"
	echo
	if [ -n "$events" ] && [ -n "$calls" ] && [ "$calls" -gt 0 ]; then
		echo "$events instructions sampled over $calls measured calls (warm-up and setup included):"
		echo "1% of the samples is about $((events / calls / 100)) instructions per call (under sampling)."
		echo
	fi
	echo '## Whole system, by symbol'
	echo
	echo '```'
	sed -n '/^PROFILE-FLAT-BEGIN/,/^PROFILE-FLAT-END/p' "$log" | sed -e '/^PROFILE-FLAT-/d' -e '/^# Event/d'
	echo '```'
	if [ -n "$callers" ]; then
		echo
		echo "## Callers of $callers (call graph, each line's share of all samples)"
		echo
		echo '```'
		sed -n '/^PROFILE-CALLERS-BEGIN/,/^PROFILE-CALLERS-END/p' "$log" | sed -e '/^PROFILE-CALLERS-/d'
		echo '```'
	fi
	echo
	echo '## The module: hot instructions'
	echo
	echo '| samples | where | instruction | source |'
	echo '|---|---|---|---|'
	hot
} >"$out/profile.md"
echo "bench-profile: wrote $out/profile.md"
grep -q '^PROFILE-FLAT-END' "$log" || { echo "bench-profile: the guest gave no profile" >&2; exit 1; }
