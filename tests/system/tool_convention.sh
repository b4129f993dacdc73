#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tool_convention: every fastbinder program follows tools/lib/fbtool.h:
# --help prints the usage on stdout and exits 0, --version prints
# "PROG (fastbinder VERSION), ABI version N" and exits 0, a bad option
# exits 2 with one message and "Try 'PROG --help'." on stderr and nothing
# on stdout; a device that does not exist or may not be opened (permission
# denied, as uid 65534) exits 3 with the same one-line message from the
# tools, the service manager and an example alike.
# ok, bad, code, finish: tests/lib/fbt.sh
. fbt.sh

abi=
TOOLS="fbversion fbservice fbstat fbidl fbinstance fb-servicemanager"

# ---- --help, --version, a bad option ----
for p in $TOOLS; do
	code 0 "$p --help" $p --help
	grep -q '^usage: ' out && ok "$p --help: usage on stdout" || bad "$p --help: no usage on stdout"
	[ -s err ] && bad "$p --help wrote to stderr: $(cat err)" || ok "$p --help: stderr empty"
	grep -q -- '--version' out && ok "$p --help names --version" || bad "$p --help lacks --version"

	code 0 "$p --version" $p --version
	v=$(cat out)
	case "$v" in
	"$p (fastbinder "*"), ABI version "[0-9]*) ok "$p --version: $v" ;;
	*) bad "$p --version printed '$v'" ;;
	esac
	n=${v##*ABI version }
	[ -z "$abi" ] && abi=$n
	[ "$n" = "$abi" ] && ok "$p: ABI version $n, as the others" || bad "$p: ABI version $n, others $abi"

	code 2 "$p --no-such-option" $p --no-such-option
	[ -s out ] && bad "$p: usage error on stdout: $(cat out)" || ok "$p: nothing on stdout"
	grep -q "^$p: " err && grep -qx "Try '$p --help'." err &&
		ok "$p: message and hint on stderr" || bad "$p: stderr was: $(cat err)"
done

# ---- no such device: exit 3, one shared message ----
for cmd in "fbversion /dev/fb-none" "fbservice -d /dev/fb-none list" \
	   "fb-servicemanager -d /dev/fb-none"; do
	p=${cmd%% *}
	# shellcheck disable=SC2086 # the words of cmd
	code 3 "$cmd" $cmd
	[ "$(cat err)" = "$p: /dev/fb-none: no such device (the fastbinder module's devices= parameter names its devices)" ] &&
		ok "$p: the shared no-device message" || bad "$p: stderr was: $(cat err)"
done

# ---- permission denied (uid 65534, a device node of mode 0600) ----
dev=$(cat /sys/class/misc/fastbinder/dev)
mknod fb600 c "${dev%%:*}" "${dev##*:}" && chmod 0600 fb600 && chmod 0755 . ||
	{ echo "fatal: cannot make a device node"; exit 1; }
for cmd in "fbversion $PWD/fb600" "fbservice -d $PWD/fb600 list" \
	   "fb-servicemanager -d $PWD/fb600"; do
	p=${cmd%% *}
	# shellcheck disable=SC2086 # the words of cmd
	code 3 "$p as nobody, mode 0600" fb-nobody $cmd
	[ "$(cat err)" = "$p: $PWD/fb600: permission denied (the device's owner, group and mode: fastbinder(4), FILES)" ] &&
		ok "$p: the shared permission message" || bad "$p: stderr was: $(cat err)"
done
# fbstat and the examples open /dev/fastbinder itself: make it 0600 a moment
mode=$(stat -c %a /dev/fastbinder)
trap 'chmod "$mode" /dev/fastbinder; cleanup' EXIT
chmod 0600 /dev/fastbinder
for cmd in "fbstat -N" "echo-client hi" "deathwatch-target"; do
	p=${cmd%% *}
	# shellcheck disable=SC2086 # the words of cmd
	code 3 "$p as nobody, mode 0600" fb-nobody $cmd
	[ "$(cat err)" = "$p: /dev/fastbinder: permission denied (the device's owner, group and mode: fastbinder(4), FILES)" ] &&
		ok "$p: the shared permission message" || bad "$p: stderr was: $(cat err)"
done
chmod "$mode" /dev/fastbinder
finish
