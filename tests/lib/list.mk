# SPDX-License-Identifier: MIT
#
# tests/lib/list.mk - the test helper library (fbt_*, build/tests/libfbt.a),
# fb-nobody and the shell helpers.  One file per line, sorted; checked
# against the folder like the tests' lists (tests/tests.mk).

lib_SOURCES := \
	fb-nobody.c \
	fbt.c \
	fbt.sh \
	fbt_attack.c \
	fbt_bl.c \
	fbt_proto.c \
	fbt_slots.c \
	fbt_sm.c \
	fbt_stress.c \
	# (end of the list: keep it sorted)
