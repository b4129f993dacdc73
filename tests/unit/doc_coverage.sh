#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/unit/doc_coverage.sh - docs/libbinderlite.md has a reference entry
# (a "### " heading naming it) for every symbol libbinderlite exports, and
# names no bl_ function the library does not export.  Run by make check.
set -euo pipefail
cd "$(dirname "$0")/../.."
map=libbinderlite/libbinderlite.map
doc=docs/libbinderlite.md

exported=$(sed -n '/global:/,/local:/p' "$map" | grep -oE '^\s*bl_[a-z0-9_]+;' |
	tr -d ' \t;' | sort -u)
headings=$(grep -E '^### ' "$doc")
[ -n "$exported" ] || { echo "doc_coverage: no symbols found in $map"; exit 1; }

missing=0
for sym in $exported; do
	if ! grep -qE "(^### |[ \`])${sym}([\`,]|$)" <<<"$headings"; then
		echo "doc_coverage: $sym is exported but has no entry in $doc"
		missing=$((missing + 1))
	fi
done

# bl_ functions documented with an entry but not exported (renamed, removed)
stale=0
for sym in $(grep -oE '\bbl_[a-z0-9_]+' <<<"$headings" | sort -u); do
	# types and callback typedefs are not symbols
	grep -qE "(struct|enum) ${sym}\b|\(\*${sym}\)" \
		libbinderlite/include/binderlite.h && continue
	# inline accessors live in the header, not in the map
	grep -qE "static inline .*\b${sym}\(" \
		libbinderlite/include/binderlite.h && continue
	if ! grep -qx "$sym" <<<"$exported"; then
		echo "doc_coverage: $doc has an entry for $sym, which is not exported"
		stale=$((stale + 1))
	fi
done

n=$(wc -w <<<"$exported")
if [ $((missing + stale)) -ne 0 ]; then
	echo "doc_coverage: $missing missing, $stale stale (of $n exported)"
	exit 1
fi
echo "doc_coverage: all $n exported symbols documented"
