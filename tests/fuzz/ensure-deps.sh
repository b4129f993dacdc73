#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes sure clang can link -fsanitize=fuzzer (Debian: libclang-rt-14-dev);
# installs the package with apt-get when it is missing and we are root.
set -eu
CC=${FUZZ_CC:-clang}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.c" <<'C'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
C
if "$CC" -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c" 2>/dev/null; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "fuzz: $CC cannot link -fsanitize=fuzzer; run: apt-get install libclang-rt-14-dev" >&2
	exit 1
fi
echo "fuzz: installing libclang-rt-14-dev" >&2
apt-get install -y --no-install-recommends libclang-rt-14-dev >&2 ||
	{ apt-get update >&2 && apt-get install -y --no-install-recommends libclang-rt-14-dev >&2; }
"$CC" -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c"
