# SPDX-License-Identifier: MIT
#
# tests/driver/list.mk - the driver through the raw ABI of uapi/linux/fastbinder.h, and
# nothing else: these tests are linked without libbinderlite (its header is
# not even on their include path).
# One file per line, sorted: the build fails on a test file this
# list misses, on a name with no file, and on a list out of order
# (tests/tests.mk, tests/README.md).

driver_VM_TESTS := \
	buffer_mapping.c \
	burst_frees.c \
	burst_spares.c \
	call_abandon.c \
	concurrent_traffic.c \
	context_manager.c \
	death_corner_cases.c \
	death_notify.c \
	debug_log.c \
	debugfs_files.c \
	fd_arrays.c \
	fd_passing.c \
	fd_passing_failures.c \
	freeze_states.c \
	idle_memory.c \
	info_ioctl.c \
	instances.c \
	looper_spawn.c \
	multiple_devices.c \
	nested_calls.c \
	object_translation.c \
	oneway_batch.c \
	oneway_order.c \
	poll_events.c \
	priority_chain.c \
	priority_inheritance.c \
	quotas.c \
	region_capability.c \
	region_owner_memory.c \
	scatter_gather.c \
	sender_identity.c \
	sender_label.c \
	sender_pid_namespace.c \
	server_killed.c \
	slot_reuse.c \
	sync_call.c \
	trace_events.c \
	version.c \
	write_stream_errors.c \
	# (end of the list: keep it sorted)
