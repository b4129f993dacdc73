#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/ab.sh REV MODULE FBBENCH [fbbench args] - the host side of
# "make bench-ab REV=...": this tree's module against REV's, in one
# deterministic boot (docs/performance.md, "Judging a change").
#
# Builds REV's module from "git archive REV" (scripts/build-module.sh with
# DRIVER_DIR/UAPI_DIR pointing at it) under build/bench-ab/REV/, and REV's
# fbbench too when REV's uapi header differs from this tree's (another ABI
# needs its own client; otherwise both modules are driven by this tree's
# fbbench, the same code).  Boots one vCPU under QEMU's -icount
# shift=0,sleep=off and measures the peers once, then AB_ROUNDS (default 3)
# rounds of fastbinder, each module loaded in turn (rmmod, insmod), the
# order alternating (old new, new old, ...) so that nothing drifting during
# the boot can favour one.  Prints and writes build/bench/ab.md: per
# workload the old and the new figure (median of the rounds), new / old,
# and the spread between rounds; then the targets judged for both.
#
# Which statistic of a run: round trips and bandwidth are judged by the
# mean per call (fbbench's mean_us; from a client without it, 1e6 over its
# msgs_per_s, the same mean), their median (median_us) shown beside it: a
# small round trip takes one of two paths, about 12.1k or 14.5k
# instructions at 4 B (the caller sleeps before the reply, or the woken
# server runs first), so the median jumps between them when the share on
# either side crosses a half, while the mean moves with the path's length
# and the share only.  Oneway is a rate over the whole run (instructions
# over messages: a mean; no per-message samples, so no median).  The
# region read keeps the median of its few 16 MiB pulls (its mean beside
# it): one ioctl each, no hand-off to choose between.  Memory is a count
# of pages.  The judged new / old is printed in bold.
#
# Environment: KERNEL (6.1), KBUILD_ARGS, AB_ROUNDS, BENCH_TIMEOUT, and
# AB_WORKLOADS: fbbench's -w list for fastbinder (rt,bw,oneway,mem; add
# region for the memory-region reads, whose peers, process_vm_readv and the
# stream socketpair, run beside each module in the same workload).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
rev=$1 module=$2 bin=$3
shift 3
KERNEL=${KERNEL:-6.1}
rounds=${AB_ROUNDS:-3}
wl=${AB_WORKLOADS:-rt,bw,oneway,mem}
# the peers' workloads: those of wl they take part in (region brings its own)
peerwl=$(tr , '\n' <<<"$wl" | grep -xE 'rt|rt1|bw|oneway|oneway1|oneway64|clients|scale' | paste -sd, || true)
cd "$top"

sha=$(git rev-parse --verify --short "$rev^{commit}") ||
	{ echo "bench-ab: no revision $rev" >&2; exit 2; }
work=$top/build/bench-ab/$sha
out=$top/build/bench
mkdir -p "$work" "$out"

# ---- REV's sources, module and (when its ABI differs) fbbench ------------
rm -rf "$work/src"
mkdir -p "$work/src"
git archive "$sha" | tar -x -C "$work/src"
kdir=/usr/src/linux-headers-$(scripts/kver.sh "$KERNEL")
echo "  MODULE  $KERNEL $rev ($sha) -> $work/$KERNEL/driver/fastbinder.ko"
# shellcheck disable=SC2086  # KBUILD_ARGS is a list of words
DRIVER_DIR=$work/src/driver UAPI_DIR=$work/src/uapi \
	scripts/build-module.sh "$kdir" "$work/$KERNEL" ${KBUILD_ARGS-W=1 KCFLAGS=-Werror}
cp "$work/$KERNEL/driver/fastbinder.ko" "$work/fastbinder-old.ko"

oldbin=fbbench oldflags=-I oldwl=$wl
if ! git diff --quiet "$sha" -- uapi/; then
	echo "  BENCH   $rev's uapi differs: its own fbbench"
	make -s -C "$work/src" SKIP_DEPS=1 build/bench/fbbench >/dev/null
	cp "$work/src/build/bench/fbbench" "$work/fbbench-old"
	oldbin=/fb/files/fbbench-old
	# A client from before the deterministic mode runs its wall-clock
	# workloads: still instruction counts, but the oneway figures then
	# include idle time and do not compare.
	if ! grep -q -a -- 'icount' "$work/fbbench-old"; then
		# and its memory workload (100 x 4 KiB) overruns a lone sender's share
		oldflags='' oldwl=$(tr , '\n' <<<"$wl" | grep -vx mem | paste -sd, || true)
		echo "bench-ab: warning: $rev's fbbench has no -I (longer runs; its oneway figures include idle time)" >&2
	fi
fi

# ---- one boot ---------------------------------------------------------------
cat >"$work/ab-guest.sh" <<EOF
insmod /fb/binder_linux.ko devices=binder || echo 'bench-ab: binder_linux.ko did not load'
tag() { sed -n "s/^BENCH-JSON /AB-JSON \$1 /p; /^bench: /p; /FAILED/p"; }
${peerwl:+fbbench -I -n -t binder,unix-stream,unix-seqpacket,pipe,futex-ring -w $peerwl $* | tag peer}
run() {	# old|new
	rmmod fastbinder || exit 1
	if [ "\$1" = old ]; then
		insmod /fb/files/fastbinder-old.ko || exit 1
		$oldbin $oldflags -n -t fastbinder -w $oldwl $* | tag old
	else
		insmod /fb/fastbinder.ko || exit 1
		fbbench -I -n -t fastbinder -w $wl $* | tag new
	fi
}
r=0
while [ \$r -lt $rounds ]; do
	echo "bench-ab: round \$((r + 1)) of $rounds"
	if [ \$((r % 2)) = 0 ]; then run old; run new; else run new; run old; fi
	r=\$((r + 1))
done
EOF
files=(-f "$work/fastbinder-old.ko" -f "$work/ab-guest.sh")
[ "$oldbin" = fbbench ] || files+=(-f "$work/fbbench-old")

start=$(date +%s)
set +e
"$top/scripts/vm/run.sh" -k "$KERNEL" -c 1 -I -l -m "$module" -b "$bin" "${files[@]}" \
	-T "${BENCH_TIMEOUT:-900}" -o "$out/ab-console.log" -- "sh /fb/files/ab-guest.sh" |
	grep --line-buffered -v '^AB-JSON'
rc=${PIPESTATUS[0]}
set -e

# ---- the comparison -----------------------------------------------------------
set +e
# Each figure in instructions (a guest us is 1000 of them): round trips in
# k instructions per call, bandwidth in k instructions per transfer, oneway
# in instructions per message, region in instructions per byte; memory in
# pages.  For each a mean and a median (see the top), "" where there is none.
tr -d '\r' <"$out/ab-console.log" | grep '^AB-JSON' | awk -v rev="$rev ($sha)" '
function field(s, name,    m) {
	if (match(s, "\"" name "\": \"?[^,\"}]*")) {
		m = substr(s, RSTART, RLENGTH)
		sub(/^"[^"]*": "?/, "", m)
		return m
	}
	return ""
}
function mean(s, wl, size,    m) {
	m = field(s, "mean_us")
	if (wl == "roundtrip")
		return m != "" ? m + 0 : field(s, "msgs_per_s") > 0 ? 1e6 / field(s, "msgs_per_s") : 0
	if (wl == "bandwidth")
		return m != "" ? m + 0 : field(s, "mb_per_s") > 0 ? size / field(s, "mb_per_s") : 0
	if (wl ~ /^oneway/) return field(s, "msgs_per_s") > 0 ? 1e9 / field(s, "msgs_per_s") : 0
	if (wl == "memory") return field(s, "idle_pages") + 0
	if (wl == "region") return m != "" ? m * 1e3 / size : ""
	return 0
}
function med(s, wl, size) {
	if (wl == "roundtrip" || wl == "bandwidth") return field(s, "median_us") + 0
	if (wl == "region") return field(s, "per_byte") + 0
	return ""
}
# the statistic a workload is judged by (see the top)
function judged(wl) {
	return wl == "region" ? "median" : "mean"
}
function value(s, wl, size) {
	return judged(wl) == "median" ? med(s, wl, size) : mean(s, wl, size)
}
function fmtsize(s) {
	return s >= 1048576 ? s / 1048576 " MiB" : s >= 1024 ? s / 1024 " KiB" : s " B"
}
function unit(wl) {
	return wl == "roundtrip" ? "k instr/call" : wl == "bandwidth" ? "k instr/transfer" : \
	       wl ~ /^oneway/ ? "instr/message" : wl == "region" ? "instr/byte" : "pages idle"
}
function median(list,    a, n, i, j, t) {
	n = split(list, a, " ")
	if (!n) return ""
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function spread(list,    a, n, i, lo, hi) {
	n = split(list, a, " ")
	lo = hi = a[1] + 0
	for (i = 2; i <= n; i++) { if (a[i] + 0 < lo) lo = a[i] + 0; if (a[i] + 0 > hi) hi = a[i] + 0 }
	return lo > 0 ? (hi / lo - 1) * 100 : 0
}
{
	who = $2
	s = $0
	sub(/^AB-JSON [a-z]+ /, "", s)
	wl = field(s, "workload"); size = field(s, "size") + 0; t = field(s, "transport")
	if (wl == "region" && t == "fastbinder") next	# the message path: does not fit past 1 MiB
	if (field(s, "ok") != "true") { bad++; print "bench-ab: FAILED " who " " t " " wl " " size ": " field(s, "error"); next }
	k = wl SUBSEP size
	# region: the figure of a module is its region read; the CMA and socket
	# columns are peers
	if (wl == "region" && t != "fastbinder-region") {
		peer[t, k] = value(s, wl, size)
		next
	}
	if (who == "peer") { peer[t, k] = value(s, wl, size); next }
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	runs[who, k] = runs[who, k] " " value(s, wl, size)
	# both statistics, each where the run has it
	if ((x = mean(s, wl, size)) != "") mruns[who, k] = mruns[who, k] " " x
	if ((x = med(s, wl, size)) != "") druns[who, k] = druns[who, k] " " x
	sw[who, k] = sw[who, k] " " (field(s, "switches_per_op") + 0)
}
# old, new and new / old of one statistic (rounds in lists lo, ln); bold
# when it is the judged one; dashes when a module has none of it
function triple(lo, ln, f, bold,    o, n) {
	o = median(lo); n = median(ln)
	if (o == "" || n == "") return "- | - | -"
	return sprintf(f " | " f " | %s", o, n, o > 0 ? sprintf(bold ? "**%.3f**" : "%.3f", n / o) : "-")
}
END {
	printf "### fastbinder: %s (old) against this tree (new), one deterministic boot\n\n", rev
	print "Each figure: the median of the rounds of a module. In a round, mean: per call (round trip,"
	print "bandwidth, region) or over the whole run (oneway: instructions over messages); median: of the"
	print "per-call samples. The judged new / old is in bold: the mean, except the region read (its median)."
	print ""
	print "| workload | size | unit | mean old | mean new | mean new / old | median old | median new | median new / old | spread between rounds, judged (old, new) | context switches per op (old, new) |"
	print "|---|---|---|---|---|---|---|---|---|---|---|"
	for (j = 1; j <= nk + 1; j++) {
		# the memory row last
		i = j <= nk ? j : mem
		if (j > nk && !mem) break
		if (j <= nk && order[i] ~ /^memory/) { mem = i; continue }
		k = order[i]; split(k, p, SUBSEP)
		o = median(runs["old", k]); n = median(runs["new", k])
		old[k] = o; new[k] = n
		f = p[1] == "region" ? "%.3f" : p[1] == "roundtrip" || p[1] == "bandwidth" ? "%.2f" : "%.0f"
		printf "| %s | %s | %s | %s | %s | %.2f%%, %.2f%% | %s |\n", p[1], \
			(p[1] == "memory" ? "1 MiB map" : fmtsize(p[2])), unit(p[1]), \
			triple(mruns["old", k], mruns["new", k], f, judged(p[1]) == "mean"), \
			triple(druns["old", k], druns["new", k], f, judged(p[1]) == "median"), \
			spread(runs["old", k]), spread(runs["new", k]), \
			(median(sw["old", k]) > 0 ? sprintf("%.2f, %.2f", median(sw["old", k]), median(sw["new", k])) : "-")
	}
	# oneway at 1 per call (its mean): at equal context switches a message
	k = "oneway-1" SUBSEP 128
	if (k in old) equal_switches(runs["old", k], sw["old", k], runs["new", k], sw["new", k])
	print ""
	print "### Targets (deterministic mode), old and new against the peers of the same boot"
	print ""
	print "Judged as above: round trips by the mean per call (the peers too), the region read by its median."
	print ""
	print "| measure | target | old | new | met (old, new) |"
	print "|---|---|---|---|---|"
	split("4 128 4096", ps, " ")
	for (i = 1; i <= 3; i++) {
		k = "roundtrip" SUBSEP ps[i]; pp = peer["pipe", k]
		if (pp > 0) row("round trip " fmtsize(ps[i]), "at most the pipe pair (" sprintf("%.1f", pp) "k)", \
		    old[k] / pp, new[k] / pp, "x pipe", 1.0)
	}
	k = "roundtrip" SUBSEP 65536; q = peer["futex-ring", k]
	if (q > 0) row("round trip 64 KiB", "at most 1.1x the futex ring (" sprintf("%.1f", q) "k)", old[k] / q, new[k] / q, "x ring", 1.1)
	k = "roundtrip" SUBSEP 1048576; q = peer["futex-ring", k]
	if (q > 0) row("round trip 1 MiB", "at most 1.03x the futex ring (" sprintf("%.1f", q) "k)", old[k] / q, new[k] / q, "x ring", 1.03)
	k = "oneway-64" SUBSEP 128
	if (k in old) row("oneway 128 B, 64 per call", "at most 2500 instructions per message", old[k], new[k], "", 2500)
	k = "oneway-1" SUBSEP 128
	if (k in old) row("oneway 128 B, 1 per call", "at most 5000 instructions per message", old[k], new[k], "", 5000)
	k = "region" SUBSEP 16777216; q = peer["process_vm_readv", k]; u = peer["unix-stream", k]
	if (q > 0) row("region read 16 MiB", "at most 1.05x process_vm_readv (" sprintf("%.3f", q) " instr/byte)", \
		       old[k] / q, new[k] / q, "x CMA", 1.05)
	if (u > 0) row("region read 16 MiB", "at most 0.5x the stream socketpair (" sprintf("%.3f", u) " instr/byte)", \
		       old[k] / u, new[k] / u, "x stream", 0.5)
	if (bad) { printf "\n%d measurement(s) FAILED\n", bad; exit 1 }
}
# The rounds of one module (figures yl, switches sl): r["n"] rounds, their means
# r["y"] and r["s"], and the sums of products r["sy"] and squares r["ss"] of
# their deviations from those means.
function moments(yl, sl, r,    a, b, i) {
	r["n"] = split(yl, a, " "); split(sl, b, " ")
	r["y"] = r["s"] = r["sy"] = r["ss"] = 0
	for (i = 1; i <= r["n"]; i++) { r["y"] += a[i]; r["s"] += b[i] }
	if (!r["n"]) return
	r["y"] /= r["n"]; r["s"] /= r["n"]
	for (i = 1; i <= r["n"]; i++) {
		r["sy"] += (b[i] - r["s"]) * (a[i] - r["y"])
		r["ss"] += (b[i] - r["s"]) ^ 2
	}
}
# A oneway figure rises with how often the receiver was woken, which the
# scheduler decides round by round.  One slope (instructions per context
# switch a message) fitted to the rounds of both modules, each about its own
# means, puts the two at the same switch count: what the path alone does.
function equal_switches(yo, so, yn, sn,    o, n, slope, all, fo, fn) {
	moments(yo, so, o); moments(yn, sn, n)
	if (o["n"] < 3 || n["n"] < 3 || o["ss"] + n["ss"] <= 0) return
	slope = (o["sy"] + n["sy"]) / (o["ss"] + n["ss"])
	all = (o["s"] * o["n"] + n["s"] * n["n"]) / (o["n"] + n["n"])
	fo = o["y"] - slope * (o["s"] - all); fn = n["y"] - slope * (n["s"] - all)
	printf "\noneway-1 at the same %.3f context switches a message (a slope of %.0f instructions per switch, fitted to the rounds): old %.0f, new %.0f, new / old %.3f\n", \
		all, slope, fo, fn, fn / fo
}
function row(what, need, o, n, u, lim) {
	printf "| %s | %s | %s | %s | %s, %s |\n", what, need, \
		(u == "" ? sprintf("%.0f", o) : sprintf("%.3f%s", o, u)), \
		(u == "" ? sprintf("%.0f", n) : sprintf("%.3f%s", n, u)), \
		(o > 0 && o <= lim ? "met" : "missed"), (n > 0 && n <= lim ? "**met**" : "missed")
}' | tee "$out/ab.md"
arc=${PIPESTATUS[2]}
echo
echo "bench-ab: $(( $(date +%s) - start )) s; build/bench/ab.md, build/bench/ab-console.log"
[ "$rc" = 0 ] || exit "$rc"
exit "$arc"
