#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fbinstance_cli: fbinstance(1) on a fastbinderfs mount, as root and as uid
# 65534: add prints each device made with its number (the node's), a name
# taken, malformed or too long fails alone (exit 1) while the others are
# made, remove unlinks, a directory that is no fastbinderfs mount and a
# control file nobody may open exit 3, and fbversion answers on a device
# made this way.  The mount goes at the end.
# ok, bad, code, finish: tests/lib/fbt.sh
. fbt.sh

mkdir m && mount -t fastbinderfs none m || { echo "fatal: cannot mount fastbinderfs"; exit 1; }
trap 'umount m 2>/dev/null; cleanup' EXIT
chmod 0755 .

code 0 "fbinstance add m one two" fbinstance add m one two
for n in one two; do
	num=$(stat -c '%t:%T' m/$n) # hex
	line=$(grep "^m/$n " out)
	maj=$(printf '%x' "$(echo "${line#* }" | cut -d: -f1)")
	min=$(printf '%x' "$(echo "${line#* }" | cut -d: -f2)")
	[ -c m/$n ] && [ "$num" = "$maj:$min" ] && ok "m/$n made, $line" ||
		bad "m/$n: node $num, printed '$line'"
done
fbversion m/one >/dev/null && ok "fbversion on m/one" || bad "fbversion on m/one: $?"

code 1 "fbinstance add m one three a/b" fbinstance add m one three a/b
[ -c m/three ] && ok "three made beside the failures" || bad "three not made"
grep -q "^fbinstance: m/one: the mount has that name already$" err &&
	ok "taken name: its message" || bad "taken name: stderr $(cat err)"
grep -q "^fbinstance: m/a/b: not a device name" err &&
	ok "a/b: its message" || bad "a/b: stderr $(cat err)"
code 1 "a name of 32 bytes" fbinstance add m 0123456789012345678901234567890x

code 0 "fbinstance remove m two three" fbinstance remove m two three
[ ! -e m/two ] && [ ! -e m/three ] && [ -c m/one ] && ok "two and three removed, one left" ||
	bad "after remove: $(ls m)"
code 1 "fbinstance remove m two (gone)" fbinstance remove m two
code 1 "fbinstance remove m fastbinder-control" fbinstance remove m fastbinder-control
[ -e m/fastbinder-control ] && ok "the control file stays" || bad "the control file went"

mkdir plain
code 3 "fbinstance add on a plain directory" fbinstance add plain x
grep -q "not a fastbinderfs mount" err && ok "plain: its message" || bad "plain: stderr $(cat err)"
code 3 "fbinstance add as nobody" fb-nobody fbinstance add "$PWD/m" mine
grep -q "permission denied" err && ok "nobody: permission denied" || bad "nobody: stderr $(cat err)"
code 1 "fbinstance remove as nobody" fb-nobody fbinstance remove "$PWD/m" one
[ -c m/one ] && ok "one is still there" || bad "nobody removed one"
code 2 "fbinstance frob" fbinstance frob m x
code 2 "fbinstance add m (no name)" fbinstance add m

umount m && ok "umount" || bad "umount: $?"
finish
