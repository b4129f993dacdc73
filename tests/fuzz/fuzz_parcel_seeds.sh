#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/fuzz/fuzz_parcel_seeds.sh - "make check" replays the parcel
# fuzzer's seed corpus (tests/fuzz/corpus/parcel) through fuzz_parcel.c's
# target, built with gcc, ASan and UBSan (build/fuzz/replay_parcel, from
# tests/fuzz/fuzz.mk): one pass when every seed runs clean (the target's
# own contract checks abort, the sanitizers halt on the first report,
# leaks included), one failure otherwise.  Seconds.  "make fuzz" is the
# fuzzer itself (clang, libFuzzer).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/fuzz/replay_parcel
seeds=$top/tests/fuzz/corpus/parcel

[ -x "$bin" ] || { echo "fuzz_parcel_seeds: $bin is not built (make check builds it)"; exit 1; }
echo "  replaying $(find "$seeds" -type f | wc -l) seeds of $seeds"
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	"$bin" "$seeds"
