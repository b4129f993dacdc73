# SPDX-License-Identifier: MIT
#
# tests/stress/list.mk - the fuzzer, the kill storm, the soak, the unprivileged attacks of
# docs/security.md (attack_<row>), and, on the debug kernel only
# (make check-debug), fault injection.
# One file per line, sorted: the build fails on a test file this
# list misses, on a name with no file, and on a list out of order
# (tests/tests.mk, tests/README.md).

stress_VM_TESTS := \
	attack_buffer_pages.c \
	attack_ctx_mgr.c \
	attack_death_links.c \
	attack_fd_arrays.c \
	attack_fd_flood.c \
	attack_fork_map.c \
	attack_gather_lists.c \
	attack_handle_ids.c \
	attack_handle_race.c \
	attack_info_cookies.c \
	attack_long_stream.c \
	attack_nested_unwind.c \
	attack_nodes.c \
	attack_oneway_flood.c \
	attack_oneway_hog.c \
	attack_orphan_ctx.c \
	attack_peek_objects.c \
	attack_prio.c \
	attack_reaped_reply.c \
	attack_region_mm.c \
	attack_region_revoke.c \
	attack_region_stall.c \
	attack_route_race.c \
	attack_sender_pages.c \
	attack_stalled_sender.c \
	attack_thread_records.c \
	attack_unmap_race.c \
	fuzz_ioctl.c \
	killstorm.c \
	soak.c \
	# (end of the list: keep it sorted)

stress_DEBUG_TESTS := \
	failslab.c \
	# (end of the list: keep it sorted)
