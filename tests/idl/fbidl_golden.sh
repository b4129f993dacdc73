#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/idl/fbidl_golden.sh - fbidl's output for each test interface
# (tests/idl/*.fbidl) is exactly the reviewed copy in tests/idl/golden/,
# and compiles cleanly (gcc -std=c11 -Wall -Wextra -Werror -pedantic
# -Wshadow, with and without -D_DEFAULT_SOURCE; clang too when it is
# installed).  After a deliberate change to the generator:
#   FBIDL_GOLDEN_UPDATE=1 bash tests/idl/fbidl_golden.sh
# rewrites the copies; review the diff before committing it.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
fbidl=build/bin/fbidl
[ -x "$fbidl" ] || { echo "fbidl_golden: $fbidl is not built (make check builds it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 n=0

for idl in tests/idl/*.fbidl; do
	name=$(basename "$idl" .fbidl)
	n=$((n + 1))
	if ! "$fbidl" -o "$tmp" "$idl"; then
		echo "not ok: fbidl $idl failed"
		bad=$((bad + 1))
		continue
	fi
	for ext in h c; do
		golden=tests/idl/golden/$name.$ext.golden
		if [ -n "${FBIDL_GOLDEN_UPDATE:-}" ]; then
			mkdir -p tests/idl/golden
			cp "$tmp/$name.$ext" "$golden"
		elif ! diff -u "$golden" "$tmp/$name.$ext" >"$tmp/diff"; then
			echo "not ok: $name.$ext differs from $golden:"
			head -40 "$tmp/diff"
			bad=$((bad + 1))
		fi
	done
	for std in "-std=c11" "-std=c11 -D_DEFAULT_SOURCE" "-std=gnu11 -O2"; do
		# shellcheck disable=SC2086
		if ! gcc $std -Wall -Wextra -Werror -pedantic -Wshadow -Wstrict-prototypes \
			-Iuapi -Ilibbinderlite/include -c -o "$tmp/$name.o" "$tmp/$name.c"; then
			echo "not ok: $name.c does not compile with $std"
			bad=$((bad + 1))
		fi
	done
	# clang warns where gcc does not (unused static inline functions)
	if command -v clang >/dev/null; then
		if ! clang -std=c11 -Wall -Wextra -Werror -pedantic -Iuapi \
			-Ilibbinderlite/include -c -o "$tmp/$name.o" "$tmp/$name.c"; then
			echo "not ok: $name.c does not compile with clang"
			bad=$((bad + 1))
		fi
	fi
done
echo "fbidl_golden: $n interfaces, $bad findings"
[ "$n" -gt 0 ] && [ "$bad" = 0 ]
