# SPDX-License-Identifier: MIT
#
# tests/idl/list.mk - the interface compiler fbidl (host: golden files,
# every error message) and calls through its generated stubs (VM).  The
# interfaces are tests/idl/*.fbidl, compiled into build/idl/ (tools/tools.mk);
# a VM test here links all of them.  tests/idl/errors/ holds the malformed
# files, tests/idl/golden/ the reviewed output.
# One file per line, sorted: the build fails on a test file this
# list misses, on a name with no file, and on a list out of order
# (tests/tests.mk, tests/README.md).

idl_VM_TESTS := \
	idl_calls.c \
	idl_versions.c \
	# (end of the list: keep it sorted)

idl_HOST_TESTS := \
	fbidl_errors.sh \
	fbidl_golden.sh \
	# (end of the list: keep it sorted)
