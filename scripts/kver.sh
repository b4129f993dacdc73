#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts/kver.sh KERNEL - print the Debian kernel ABI name (for example
# 6.1.0-57-amd64) that KERNEL (6.1, 6.12, 6.1-rt) stands for.
#
# The ABI number moves with every Debian point release, so it is never
# hard-coded: it is the dependency of the headers meta package.  The
# installed meta package wins (that is what the module is built against, and
# the booted image must match it); the archive's candidate is the fallback.
set -euo pipefail

KERNEL=${1:-${KERNEL:-6.1}}
case "$KERNEL" in
6.1)	meta=linux-headers-amd64 ;;
6.12)	meta=linux-headers-6.12-amd64 ;;
6.1-rt)	meta=linux-headers-rt-amd64 ;;
*)	echo "kver.sh: unknown KERNEL '$KERNEL' (use 6.1, 6.12 or 6.1-rt)" >&2
	exit 2 ;;
esac

deps=$(dpkg-query -W -f='${Depends}' "$meta" 2>/dev/null || true)
if [ -z "$deps" ]; then
	deps=$(apt-cache depends "$meta" 2>/dev/null |
	       sed -n 's/^ *Depends: //p' | head -n1)
fi
ver=$(printf '%s\n' "$deps" | tr ',' '\n' |
      sed -n 's/^ *linux-headers-\([^ ]*\).*/\1/p' | head -n1)
if [ -z "$ver" ]; then
	echo "kver.sh: cannot resolve $meta (run scripts/deps.sh $KERNEL)" >&2
	exit 1
fi
echo "$ver"
