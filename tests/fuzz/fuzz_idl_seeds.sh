#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/fuzz/fuzz_idl_seeds.sh - "make check" replays the seeds of the
# generated-stub fuzz targets (tests/fuzz/corpus/idl/NAME, one per test
# interface) through fuzz_idl.c, built with gcc, ASan and UBSan
# (build/fuzz/replay_idl_NAME, tests/fuzz/fuzz_idl.mk): one pass when every
# seed of every interface runs clean (the target's contract checks abort,
# the sanitizers halt on the first report, leaks included), one failure
# otherwise.  "make fuzz" is the fuzzer itself.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=0
for seeds in "$top"/tests/fuzz/corpus/idl/*/; do
	name=$(basename "$seeds")
	bin=$top/build/fuzz/replay_idl_$name
	[ -x "$bin" ] || { echo "fuzz_idl_seeds: $bin is not built (make check builds it)"; exit 1; }
	echo "  replaying $(find "$seeds" -type f | wc -l) seeds of interface $name"
	ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$bin" "$seeds"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "fuzz_idl_seeds: no corpus"; exit 1; }
