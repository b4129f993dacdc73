#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/idl/fbidl_errors.sh - every malformed interface file in
# tests/idl/errors/ makes fbidl exit 1 with exactly the one
# "file:line:col: message" line of errors/expected.txt, and write nothing;
# every message docs/idl.md documents is among them, and every message
# produced is documented (its "Error messages" list: <...> stands for a
# name).  Then every prefix of the valid test interfaces (a file cut
# anywhere) ends in exit 0 or 1, never a crash.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fbidl=$top/build/bin/fbidl
[ -x "$fbidl" ] || { echo "fbidl_errors: $fbidl is not built (make check builds it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 n=0
cd "$top/tests/idl/errors"

for f in *.fbidl; do
	n=$((n + 1))
	want=$(grep -F "$f:" expected.txt | head -1)
	mkdir -p "$tmp/out"
	"$fbidl" -o "$tmp/out" "$f" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	got=$(cat "$tmp/stderr")
	if [ "$rc" != 1 ]; then
		echo "not ok: $f: exit $rc, expected 1"
		bad=$((bad + 1))
	elif [ -z "$want" ] || [ "$got" != "$want" ]; then
		echo "not ok: $f: got '$got', expected '$want'"
		bad=$((bad + 1))
	elif [ -n "$(ls -A "$tmp/out")" ] || [ -s "$tmp/stdout" ]; then
		echo "not ok: $f: wrote output: $(ls -A "$tmp/out")"
		bad=$((bad + 1))
	fi
	rm -rf "$tmp/out"
done
cut -d: -f1 expected.txt | while read -r f; do
	[ -e "$f" ] || echo "not ok: expected.txt names $f, which does not exist"
done | grep . && bad=$((bad + 1))

# docs/idl.md's list against the messages produced
sed -n '/^## Error messages/,/^## /p' "$top/docs/idl.md" | sed -n 's/^- `\(.*\)`.*$/\1/p' >"$tmp/documented"
sed 's/^[^:]*:[0-9]*:[0-9]*: //' expected.txt | sort -u >"$tmp/produced"
[ -s "$tmp/documented" ] || { echo "not ok: no error messages listed in docs/idl.md"; bad=$((bad + 1)); }
to_regex() {
	# escape regex characters, then <...> matches any text
	sed -e 's/[][\.*^$/|+?(){}]/\\&/g' -e 's/<[^>]*>/.+/g' -e 's/.*/^&$/'
}
while IFS= read -r doc; do
	re=$(printf '%s\n' "$doc" | to_regex)
	if ! grep -Eq -- "$re" "$tmp/produced"; then
		echo "not ok: documented message never produced by a file in tests/idl/errors: $doc"
		bad=$((bad + 1))
	fi
done <"$tmp/documented"
to_regex <"$tmp/documented" >"$tmp/regexes"
while IFS= read -r msg; do
	if ! grep -Eq -f "$tmp/regexes" <<<"$msg"; then
		echo "not ok: message not documented in docs/idl.md: $msg"
		bad=$((bad + 1))
	fi
done <"$tmp/produced"

# cut anywhere: an error or a success, never a crash
cuts=0
for idl in "$top"/tests/idl/*.fbidl; do
	size=$(stat -c %s "$idl")
	for ((i = 0; i < size; i += 5)); do
		head -c "$i" "$idl" >"$tmp/cut.fbidl"
		"$fbidl" --check "$tmp/cut.fbidl" 2>/dev/null
		rc=$?
		cuts=$((cuts + 1))
		if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
			echo "not ok: $idl cut at $i bytes: exit $rc"
			bad=$((bad + 1))
		fi
	done
done
echo "fbidl_errors: $n malformed files, $(wc -l <"$tmp/documented") documented messages, $cuts cut files, $bad findings"
[ "$bad" = 0 ]
