#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts/debug-kernel-key.sh [-v] - the cache key of the debug kernel
# (make check-debug): 12 hex digits of a hash over everything the tree is
# built from, so a cached tree is reused only when it would come out the
# same:
#   - the version of Debian's linux-source-6.1 (the installed one, else the
#     one apt would install),
#   - scripts/debug-kernel.sh (its configuration is spelled out there),
#   - the compiler (gcc, which builds the kernel and the module against it).
# -v prints those inputs instead of the key.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

src=$(dpkg-query -W -f='${db:Status-Status} ${Version}' linux-source-6.1 2>/dev/null |
      sed -n 's/^installed //p' || true)
if [ -z "$src" ]; then
	src=$(apt-cache policy linux-source-6.1 2>/dev/null |
	      sed -n 's/^ *Candidate: //p' || true)
fi
inputs() {
	echo "linux-source-6.1 ${src:-unknown}"
	echo "gcc $(gcc -dumpfullversion 2>/dev/null || echo none) $(gcc -dumpmachine 2>/dev/null || true)"
	echo "scripts/debug-kernel.sh $(sha256sum <"$top/scripts/debug-kernel.sh" | cut -d' ' -f1)"
}
if [ "${1:-}" = -v ]; then
	inputs
else
	inputs | sha256sum | cut -c1-12
fi
