#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/fuzz/fuzz_uapi_coverage.sh - the fuzzers keep up with the ABI.
#
# A fuzzer written before a command, flag or object type existed never sends
# it, and nobody notices (issue 38: the parcel fuzzer aborted on region
# objects the reader had accepted for months).  This host test names every
# such symbol of uapi/linux/fastbinder.h and libbinderlite's reader that a
# fuzzer does not mention:
#   tests/stress/fuzz_ioctl.c  every FBINDER_CMD_*, FBINDER_IOC_* (the
#                              magic aside), FBINDER_TXN_*, FBINDER_OBJ_*,
#                              FBINDER_OBJF_* flag, FBINDER_INFO_* of
#                              enum fbinder_info_what and FBINDER_INFO_WAIT,
#                              FBINDER_REGION_READ/WRITE
#   tests/fuzz/fuzz_parcel.c   every FBINDER_OBJ_* and every bl_reader_*
#                              function of binderlite.h (not the inline
#                              accessors)
# A name counts when the fuzzer uses it in code, not in a comment.  One pass
# or one failure in make check's summary line.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
uapi=$top/uapi/linux/fastbinder.h
hdr=$top/libbinderlite/include/binderlite.h
missing=0

# code NAME...: the file without its comments
code() {
	sed 's://.*$::' "$1" | perl -0pe 's:/\*.*?\*/::gs'
}

# need FILE NAME...: each NAME must appear in FILE's code
need() {
	local file=$1 text name
	shift
	text=$(code "$file")
	for name in "$@"; do
		if ! grep -qw -- "$name" <<<"$text"; then
			echo "  ${file#"$top"/} never uses $name"
			missing=$((missing + 1))
		fi
	done
}

mapfile -t cmds < <(grep -oE '^#define (FBINDER_CMD_[A-Z_]+|FBINDER_IOC_[A-Z_]+|FBINDER_TXN_[A-Z_]+|FBINDER_OBJF_[A-Z_]+|FBINDER_INFO_WAIT|FBINDER_REGION_(READ|WRITE))\b' "$uapi" |
		    awk '{print $2}' | grep -vx 'FBINDER_IOC_MAGIC\|FBINDER_OBJF_PRIO_MASK')
mapfile -t objs < <(grep -oE '^[[:space:]]+FBINDER_OBJ_[A-Z_]+[[:space:]]*=' "$uapi" | tr -d ' \t=')
mapfile -t whats < <(sed -n '/^enum fbinder_info_what/,/^};/p' "$uapi" |
		     grep -oE 'FBINDER_INFO_[A-Z_]+')
mapfile -t readers < <(grep -oE '^int (bl_reader_[a-z_]+)\(' "$hdr" | sed 's/^int //; s/($//' | sort -u)

# the lists themselves must not come out empty (a changed header format)
for list in cmds objs whats readers; do
	declare -n l=$list
	if [ "${#l[@]}" -lt 2 ]; then
		echo "fuzz_uapi_coverage: found ${#l[@]} names for $list: the header's format changed?"
		exit 1
	fi
done

echo "  checking ${#cmds[@]} commands, ioctls and flags, ${#objs[@]} object types," \
     "${#whats[@]} info kinds, ${#readers[@]} reader functions"
need "$top/tests/stress/fuzz_ioctl.c" "${cmds[@]}" "${objs[@]}" "${whats[@]}"
need "$top/tests/fuzz/fuzz_parcel.c" "${objs[@]}" "${readers[@]}"
if [ "$missing" -ne 0 ]; then
	echo "fuzz_uapi_coverage: $missing names no fuzzer sends: teach the fuzzer, see the list above"
	exit 1
fi
echo "fuzz_uapi_coverage: every name is fuzzed"
