#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts/lint-locking.sh - the driver's locking conventions (the top of
# driver/internal.h), checked by "make lint" (scripts/lint.sh):
#
#   suffix     the function is called with      so its body must have
#   _locked    fbinder_device.lock held throughout   lockdep_assert_held(&...dev->lock)
#   _relock    fbinder_device.lock held, dropped     lockdep_assert_held(&...dev->lock)
#              and taken again inside
#   _alocked   fbinder_alloc.lock held               lockdep_assert_held(&...alloc...lock)
#   _clocked   a context's fbinder_ctx.lock held     lockdep_assert_held(&...->lock), not dev's
#   _olocked   the device lock and a node owner's    lockdep_assert_held(&...dev->lock)
#              context lock held
#   _crelock   fbinder_ctx.lock held, dropped        lockdep_assert_held(&...->lock), not dev's
#              and taken again inside
#
# And the allocator owns its state: no file but alloc.c (and its white-box
# self-test, selftest/alloc.c) takes fbinder_alloc.lock or reaches into the
# slots' trees, pages or flags; the others use alloc.h's operations.
#
# A definition is a line at column 0 that names the function (the return
# type may be on the line before), its body runs from the "{" to the "}" at
# column 0.  Each finding is printed as file:line; the last line is
# "lint-locking: N findings" and the exit status is 1 when N > 0.
set -uo pipefail

cd "$(dirname "$0")/.."

out=$(awk '
function finish() {
	if (name != "" && !ok)
		printf "%s:%d: %s() lacks lockdep_assert_held() of %s\n",
		       FILENAME, line, name, want
	name = ""
	body = 0
}
FNR == 1 { name = ""; body = 0 }
# a definition: at column 0, not a comment or a prototype
!body && /^[a-z_]/ && match($0, /fbinder_[a-z0-9_]+_(locked|relock|alocked|clocked|olocked|crelock)\(/) {
	name = substr($0, RSTART, RLENGTH - 1)
	line = FNR
	ok = 0
	ctxlock = 0
	if (name ~ /_alocked$/) {
		want = "fbinder_alloc.lock"
		re = "lockdep_assert_held\\(&[^;]*alloc(->|\\.)lock\\)"
	} else if (name ~ /_(clocked|crelock)$/) {
		want = "a context lock (fbinder_ctx.lock)"
		re = "lockdep_assert_held\\(&[^;]*->lock\\)"
		ctxlock = 1
	} else {
		want = "fbinder_device.lock"
		re = "lockdep_assert_held\\(&[^;]*dev->lock\\)"
	}
}
name != "" && !body && /;[ \t]*$/ { name = "" }
name != "" && /^\{/ { body = 1 }
body && $0 ~ re && !(ctxlock && $0 ~ /dev->lock/) { ok = 1 }
body && /^\}/ { finish() }
' driver/*.c driver/*.h driver/*/*.c)

own=$(grep -n -E '(^|[^_[:alnum:]])alloc(\.|->)(lock|free_tree|allocated_tree|buffers|pages|spare)\>|->(user_owned|pages_resident)\>' \
	driver/*.[ch] driver/*/*.c |
	grep -v -E '^driver/(alloc\.[ch]|selftest/alloc\.c):' |
	sed 's/$/  <- only alloc.c may touch fbinder_alloc'"'"'s lock and internals/')
out=$(printf '%s\n%s' "$out" "$own" | sed '/^$/d')

n=0
if [ -n "$out" ]; then
	echo "$out"
	n=$(grep -c . <<<"$out")
fi
echo "lint-locking: $n findings"
[ "$n" = 0 ]
