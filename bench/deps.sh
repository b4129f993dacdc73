#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/deps.sh - installs what only "make bench" needs (gnuplot-nox, for
# the latency plot), when missing.  The rest comes from tools/deps.sh.
set -euo pipefail

pkgs=(gnuplot-nox)
missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "bench/deps.sh: missing ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "bench/deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
