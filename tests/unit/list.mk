# SPDX-License-Identifier: MIT
#
# tests/unit/list.mk - host unit tests: libcheck programs (run under valgrind
# memcheck) and shell checks.
# One file per line, sorted: the build fails on a test file this
# list misses, on a name with no file, and on a list out of order
# (tests/tests.mk, tests/README.md).

unit_HOST_TESTS := \
	abi_layout.c \
	batch_dispatch.c \
	doc_coverage.sh \
	elapsed_ms.c \
	label_bounds.c \
	parcel.c \
	policy_parser.c \
	# (end of the list: keep it sorted)
