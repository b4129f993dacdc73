#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/unit/doc_coverage.sh - libbinderlite's reference is its header: every
# symbol the library exports is declared in libbinderlite/include/binderlite.h
# under a comment (the comment ends on the line before the declaration, or
# before a run of declarations it covers, with no blank line between), every
# inline function there has one too, and the header declares no bl_ function
# the library does not export.  Run by make check.
set -euo pipefail
cd "$(dirname "$0")/../.."
map=libbinderlite/libbinderlite.map
hdr=libbinderlite/include/binderlite.h

exported=$(sed -n '/global:/,/local:/p' "$map" | grep -oE '^\s*bl_[a-z0-9_]+;' |
	tr -d ' \t;' | sort -u)
[ -n "$exported" ] || { echo "doc_coverage: no symbols found in $map"; exit 1; }

# "name inline documented" for each function declared at the start of a line
declared=$(awk '
	/^[ \t]*$/ { doc = 0; next }
	/\*\/[ \t]*$/ { doc = 1; incomment = 0; next }
	/^[ \t]*\/\*/ { incomment = 1 }
	incomment { next }
	/^[a-z].*[ *]bl_[a-z0-9_]+\(/ {
		match($0, /bl_[a-z0-9_]+\(/)
		print substr($0, RSTART, RLENGTH - 1), (/^static inline/ ? 1 : 0), doc
	}' "$hdr")
[ -n "$declared" ] || { echo "doc_coverage: no functions found in $hdr"; exit 1; }

bad=0
for sym in $exported; do
	if ! grep -q "^$sym " <<<"$declared"; then
		echo "doc_coverage: $sym is exported but not declared in $hdr"
		bad=$((bad + 1))
	fi
done
while read -r sym inline doc; do
	if [ "$doc" != 1 ]; then
		echo "doc_coverage: $hdr: $sym has no comment"
		bad=$((bad + 1))
	fi
	if [ "$inline" = 0 ] && ! grep -qx "$sym" <<<"$exported"; then
		echo "doc_coverage: $hdr declares $sym, which is not exported"
		bad=$((bad + 1))
	fi
done <<<"$declared"

if [ "$bad" -ne 0 ]; then
	echo "doc_coverage: $bad findings"
	exit 1
fi
echo "doc_coverage: all $(wc -l <<<"$declared") functions of $hdr documented ($(wc -w <<<"$exported") exported)"
