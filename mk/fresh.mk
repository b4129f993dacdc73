# SPDX-License-Identifier: MIT
#
# mk/fresh.mk - make check-fresh: the README's two commands (make demo,
# then make check) as root on a brand-new Debian 12 (debootstrap minbase
# plus build-essential and git), in a chroot, from a clone of the current
# commit (uncommitted changes are not part of it).  It proves that make
# deps (scripts/deps.sh) installs everything they need: the build machines
# have more installed than a new user's.  scripts/check-fresh.sh says how;
# 12-20 minutes here (the machine's load decides), plus 4-9 when the
# root's tarball is not cached yet (FBINDER_CACHE_DIR).  Needs root.
#
#   make check-fresh                  the run; the log is under build/fresh/logs
#   make check-fresh FRESH_KEEP=1     keep the root (build/fresh/root) after a pass
#
# Variables: FRESH_DIR (build/fresh), FRESH_TIMEOUT (2400 s per command),
# FRESH_MAX_AGE (14: days before the cached root is rebuilt), FRESH_MIRROR.

FRESH_DIR	?= $(BUILD)/fresh
FRESH_TIMEOUT	?= 2400
FRESH_MAX_AGE	?= 14
FRESH_MIRROR	?= http://deb.debian.org/debian
FRESH_KEEP	?=

.PHONY: check-fresh
check-fresh: deps-fresh
	@FBINDER_CACHE_DIR='$(FBINDER_CACHE_DIR)' FRESH_DIR='$(FRESH_DIR)' \
	FRESH_TIMEOUT='$(FRESH_TIMEOUT)' FRESH_MAX_AGE='$(FRESH_MAX_AGE)' \
	FRESH_MIRROR='$(FRESH_MIRROR)' FRESH_KEEP='$(FRESH_KEEP)' \
		scripts/check-fresh.sh
