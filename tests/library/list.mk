# SPDX-License-Identifier: MIT
#
# tests/library/list.mk - libbinderlite end to end, in the VM.
# One file per line, sorted: the build fails on a test file this
# list misses, on a name with no file, and on a list out of order
# (tests/tests.mk, tests/README.md).

library_VM_TESTS := \
	async_calls.c \
	call_label.c \
	calls.c \
	fd_array_calls.c \
	freeze.c \
	gather_calls.c \
	oneway_batches.c \
	regions.c \
	thread_pool.c \
	# (end of the list: keep it sorted)
