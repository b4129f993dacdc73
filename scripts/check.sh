#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts/check.sh [--host "PROGRAMS"] [--host-sh "SCRIPTS"] [--vm] [-- run.sh ARGS...]
#
# Runs the host unit tests (each a libcheck program, under valgrind
# memcheck), the host shell tests (each script run with bash, no valgrind)
# and/or the VM suite (scripts/vm/run.sh ARGS... running
# scripts/vm/suite.sh in the guest), then prints the plain summary line
# "N passed, M failed, K skipped" as the last line.  Exit 0 only when M is
# 0.  A test that exits with 77 skipped: counted in K, never as a pass.
#
# Counting: a libcheck program contributes its checks ("Checks: N,
# Failures: F, Errors: E"), plus one failure when valgrind or the exit status
# says something the checks did not (a leak, an invalid read, a crash).  The
# VM contributes the counts of the guest's "FB-SUMMARY:" line, or one
# failure named "vm" when that line or the exit marker is missing (timeout,
# panic) -- a missing result is never a pass.  A shell test counts as one
# pass (exit 0), one skip (exit 77) or one failure.
set -uo pipefail

host_tests='' host_sh_tests='' vm=0
while [ $# -gt 0 ]; do
	case "$1" in
	--host) host_tests=$2; shift 2 ;;
	--host-sh) host_sh_tests=$2; shift 2 ;;
	--vm) vm=1; shift ;;
	--) shift; break ;;
	*) echo "check.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

passed=0 failed=0 skipped=0 failures=() skips=()

VALGRIND=(valgrind -q --error-exitcode=99 --leak-check=full
	  --errors-for-leak-kinds=all --show-leak-kinds=all)

for t in $host_tests; do
	name=$(basename "$t")
	echo "=== HOST $name (valgrind)"
	log=$(mktemp)
	# CK_FORK=no: one process, so valgrind sees every check.
	CK_FORK=no "${VALGRIND[@]}" "$t" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" | tail -n1)
	rm -f "$log"
	if [ -n "$line" ]; then
		n=$(sed -E 's/.*Checks: ([0-9]+).*/\1/' <<<"$line")
		f=$(sed -E 's/.*Failures: ([0-9]+).*/\1/' <<<"$line")
		e=$(sed -E 's/.*Errors: ([0-9]+).*/\1/' <<<"$line")
		passed=$((passed + n - f - e))
		failed=$((failed + f + e))
		[ $((f + e)) -gt 0 ] && failures+=("$name: $((f + e)) checks")
		if [ "$rc" != 0 ] && [ $((f + e)) -eq 0 ]; then
			failed=$((failed + 1))
			failures+=("$name: valgrind/exit status $rc")
		fi
	elif [ "$rc" = 0 ]; then
		passed=$((passed + 1))
	elif [ "$rc" = 77 ]; then
		skipped=$((skipped + 1))
		skips+=("$name")
	else
		failed=$((failed + 1))
		failures+=("$name: exit $rc")
	fi
done

for t in $host_sh_tests; do
	name=$(basename "$t")
	echo "=== HOST $name"
	bash "$t"
	rc=$?
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
	elif [ "$rc" = 77 ]; then
		skipped=$((skipped + 1))
		skips+=("$name")
	else
		failed=$((failed + 1))
		failures+=("$name: exit $rc")
	fi
done

if [ "$vm" = 1 ]; then
	top=$(cd "$(dirname "$0")/.." && pwd)
	vmlog=$(mktemp)
	"$top/scripts/vm/run.sh" -o "$vmlog" "$@"
	rc=$?
	summary=$(tr -d '\r' <"$vmlog" |
		  sed -n 's/^FB-SUMMARY: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' |
		  tail -n1)
	while read -r l; do failures+=("vm: ${l#FAIL }"); done \
		< <(tr -d '\r' <"$vmlog" | grep '^FAIL ')
	while read -r l; do skips+=("vm: ${l#SKIP }"); done \
		< <(tr -d '\r' <"$vmlog" | grep '^SKIP ')
	rm -f "$vmlog"
	if [ -n "$summary" ]; then
		read -r p f s <<<"$summary"
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	fi
	# No summary, or a crash/timeout after it: one more failure.
	if [ -z "$summary" ] || [ "$rc" -ge 124 ]; then
		failed=$((failed + 1))
		failures+=("vm: no complete result (run.sh exit $rc: 124 timeout, 125 crash)")
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		failed=$((failed + 1))
		failures+=("vm: suite exit $rc")
	fi
fi

if [ ${#failures[@]} -gt 0 ]; then
	echo "=== FAILED:"
	printf '  %s\n' "${failures[@]}"
fi
if [ ${#skips[@]} -gt 0 ]; then
	echo "=== SKIPPED:"
	printf '  %s\n' "${skips[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
