#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts/lint.sh [KERNEL] - the static checks behind "make lint" (issue 9),
# run through it: make passes DEV_BUILD_ARGS (the sparse step below).
#
#   checkpatch  scripts/checkpatch.pl --strict over driver/ and uapi/, as a
#               patch to the kernel would be checked.  The script and its
#               data files come from Debian's linux-source-6.1 package: the
#               .deb is fetched once with "apt-get download" (or taken from
#               the apt cache, or from an installed /usr/src tarball) and
#               only those three files are unpacked into build/lint/.
#   sparse      the module built with W=1 -Werror C=2 CHECK=sparse against
#               KERNEL's headers and every other Debian kernel whose headers
#               are installed, each in its own copy (build/lint/sparse-<K>);
#               the development build (self-tests and per-step timing in:
#               DEV_BUILD_ARGS, which make lint passes from the top Makefile),
#               so every file of the driver is checked.
#   exports     every symbol the module built by the sparse step imports is
#               in that kernel's Module.symvers (exported to modules), and
#               the driver names no way around that (kallsyms_lookup_name,
#               kprobes).
#   locking     the driver's lock-naming rules (driver/internal.h):
#               scripts/lint-locking.sh.
#   cppcheck    over the user space that exists: libbinderlite/,
#               servicemanager/, examples/, bench/, tools/, tests/.
#   docs        the documents against the code: scripts/doc-check.py (the
#               Limits and errno tables, the man pages and the module
#               parameters against the sources and modinfo of the module
#               the sparse step built, make help against the make files,
#               -std=c11 -pedantic-errors on every user-space compile line,
#               tests/unit/doc_coverage.sh).
#
# Every finding is printed as file:line; the last line is "lint: N findings"
# and the exit status is 1 when N > 0.  A finding that must stay is
# justified where it is: checkpatch types accepted per file are listed in
# CHECKPATCH_ACCEPT below (each with a comment in that file), cppcheck ones
# in scripts/cppcheck.supp or an inline "cppcheck-suppress" comment.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
KERNEL=${1:-${KERNEL:-6.1}}
# the top Makefile's list, so sparse checks the build the suite loads
read -ra dev_build_args <<<"${DEV_BUILD_ARGS:?run by make lint, which names the development build}"
lintdir=build/lint
findings=0

# ---- checkpatch -----------------------------------------------------------

# file -> checkpatch types accepted there (justified in a comment in the file)
declare -A CHECKPATCH_ACCEPT=(
	[driver/compat.h]=LINUX_VERSION_CODE,CONSTANT_COMPARISON
	[driver/trace.h]=OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT
)

cpdir=$lintdir/checkpatch
cpfiles=(scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch)

fetch_checkpatch() {
	local deb tarball=/usr/src/linux-source-6.1.tar.xz
	local members=("${cpfiles[@]/#/linux-source-6.1/}")

	mkdir -p "$cpdir"
	if [ -f "$tarball" ]; then
		tar -xJf "$tarball" -C "$cpdir" --strip-components=1 "${members[@]}"
		return
	fi
	deb=$(ls -t "$lintdir"/linux-source-6.1_*.deb /var/cache/apt/archives/linux-source-6.1_*.deb \
		2>/dev/null | head -n1)
	if [ -z "$deb" ]; then
		echo "lint: fetching linux-source-6.1 for checkpatch.pl (once)" >&2
		(cd "$lintdir" && apt-get download linux-source-6.1 >&2) || return 1
		deb=$(ls -t "$lintdir"/linux-source-6.1_*.deb | head -n1)
	fi
	dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/src/linux-source-6.1.tar.xz |
		tar -xJ -C "$cpdir" --strip-components=1 "${members[@]}"
}

run_checkpatch() {
	local f out n=0 ignore
	local files=(driver/*.c driver/*.h driver/*/*.c uapi/linux/*.h)

	if [ ! -f "$cpdir/scripts/checkpatch.pl" ] && ! fetch_checkpatch; then
		echo "lint: checkpatch.pl unavailable (linux-source-6.1)"
		findings=$((findings + 1))
		return
	fi
	for f in "${files[@]}"; do
		[ -f "$f" ] || continue
		ignore=${CHECKPATCH_ACCEPT[$f]:-}
		out=$(perl "$cpdir/scripts/checkpatch.pl" --strict --no-tree --terse \
			--show-types --no-summary ${ignore:+--ignore "$ignore"} -f "$f" 2>&1)
		if [ -n "$out" ]; then
			echo "$out"
			n=$((n + $(grep -c -E ': (ERROR|WARNING|CHECK):' <<<"$out")))
		fi
	done
	echo "lint: checkpatch --strict: ${#files[@]} files, $n findings"
	findings=$((findings + n))
}

# ---- sparse ----------------------------------------------------------------

run_sparse() {
	local k kver kdir out n=0 total=0 rc
	kernels=("$KERNEL")	# (global: run_exports checks the same builds)

	for k in 6.1 6.12 6.1-rt; do
		[ "$k" = "$KERNEL" ] && continue
		kver=$(scripts/kver.sh "$k" 2>/dev/null) || continue
		[ -e "/usr/src/linux-headers-$kver/Makefile" ] && kernels+=("$k")
	done
	for k in "${kernels[@]}"; do
		if ! kver=$(scripts/kver.sh "$k"); then
			echo "lint: no ABI name for $k"
			total=$((total + 1))
			continue
		fi
		kdir=/usr/src/linux-headers-$kver
		out=$(scripts/build-module.sh "$kdir" "$lintdir/sparse-$k" \
			W=1 KCFLAGS=-Werror C=2 CHECK=sparse "${dev_build_args[@]}" 2>&1)
		rc=$?
		# our files, reported with their paths in the tree
		out=$(sed "s|$top/$lintdir/sparse-$k/||" <<<"$out")
		n=$(grep -c -E '^(driver|uapi)/' <<<"$out")
		if [ "$rc" != 0 ] && [ "$n" = 0 ]; then
			n=1	# the build itself failed
		fi
		[ -n "$out" ] && echo "$out"
		echo "lint: sparse on $k ($kver): $n findings"
		total=$((total + n))
	done
	findings=$((findings + total))
}

# ---- exports ---------------------------------------------------------------

# Only what the kernel exports: the out-of-tree binder builds that reached
# unexported symbols broke on every release.  modpost already refuses an
# undefined symbol; this also names each one and catches the workarounds.
run_exports() {
	local k kver ko sym n total=0 out

	out=$(grep -n -E '\<(kallsyms_lookup_name|kallsyms_on_each_symbol|register_k(ret)?probe)\>' \
		driver/*.[ch] driver/*/*.[ch] 2>/dev/null)
	if [ -n "$out" ]; then
		echo "$out"
		total=$(grep -c . <<<"$out")
	fi
	for k in "${kernels[@]}"; do
		kver=$(scripts/kver.sh "$k") || continue
		ko=$lintdir/sparse-$k/driver/fastbinder.ko
		[ -f "$ko" ] || { echo "lint: exports: no $ko"; total=$((total + 1)); continue; }
		n=0
		for sym in $(nm -u "$ko" | awk '{ print $2 }'); do
			grep -q -P "^0x[0-9a-f]+\t$sym\t" "/usr/src/linux-headers-$kver/Module.symvers" && continue
			echo "lint: $k: $sym is not exported by $kver"
			n=$((n + 1))
		done
		echo "lint: exports on $k: $(nm -u "$ko" | wc -l) imported symbols, $n not exported"
		total=$((total + n))
	done
	findings=$((findings + total))
}

# ---- locking ---------------------------------------------------------------

run_locking() {
	local out n

	out=$(scripts/lint-locking.sh)
	n=$(sed -n 's/^lint-locking: \([0-9]*\) findings$/\1/p' <<<"$out")
	echo "$out" | sed 's/^lint-locking: /lint: locking: /'
	[ -n "$n" ] || n=1	# the script itself failed
	findings=$((findings + n))
}

# ---- cppcheck --------------------------------------------------------------

run_cppcheck() {
	local d out n rc srcs=()

	for d in libbinderlite servicemanager examples bench tools tests; do
		[ -d "$d" ] && srcs+=("$d")
	done
	out=$(cppcheck --quiet --std=c11 --enable=warning,style,performance,portability \
		--inline-suppr --suppressions-list=scripts/cppcheck.supp \
		--error-exitcode=1 \
		-I uapi -I libbinderlite/include -I libbinderlite -I tests/lib \
		--template='{file}:{line}: {severity}: {message} [{id}]' \
		"${srcs[@]}" 2>&1)
	rc=$?
	n=0
	if [ -n "$out" ]; then
		echo "$out"
		n=$(grep -c -E '^[^ ]+:[0-9]+: ' <<<"$out")
	fi
	if [ "$rc" != 0 ] && [ "$n" = 0 ]; then
		n=1	# cppcheck itself failed
	fi
	echo "lint: cppcheck on ${srcs[*]}: $n findings"
	findings=$((findings + n))
}

# ---- docs ------------------------------------------------------------------

run_docs() {
	local out n

	out=$(python3 scripts/doc-check.py "$lintdir/sparse-$KERNEL/driver/fastbinder.ko" 2>&1)
	n=$(sed -n 's/^doc-check: .*: \([0-9]*\) findings$/\1/p' <<<"$out")
	echo "$out" | sed 's/^doc-check: /lint: docs: /'
	[ -n "$n" ] || n=1	# the script itself failed
	findings=$((findings + n))
}

run_checkpatch
run_sparse
run_exports
run_locking
run_cppcheck
run_docs
echo "lint: $findings findings"
[ "$findings" = 0 ]
