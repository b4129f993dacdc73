# SPDX-License-Identifier: MIT
#
# tests/servicemanager/list.mk - fb-servicemanager in the VM: registry, notifications, policy, hostile requests.
# One file per line, sorted: the build fails on a test file this
# list misses, on a name with no file, and on a list out of order
# (tests/tests.mk, tests/README.md).

servicemanager_VM_TESTS := \
	malformed_requests.c \
	notify.c \
	policy_labels.c \
	policy_uids.c \
	registry.c \
	# (end of the list: keep it sorted)
