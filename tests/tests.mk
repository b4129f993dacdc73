# SPDX-License-Identifier: MIT
#
# tests/tests.mk - how the tests are built and which run where
# (tests/README.md).  Included by the top Makefile after
# libbinderlite/lib.mk (it links BL_A) and before mk/valgrind.mk and
# mk/debug.mk (they use the lists and the helper library defined here).
#
# One folder per layer; each lists its tests in its list.mk, sorted, one
# file per line, in up to three lists:
#   <layer>_VM_TESTS     run in the VM by make check (.c: a static program,
#                        .sh: a busybox sh script)
#   <layer>_DEBUG_TESTS  in the VM on the debug kernel only (make check-debug)
#   <layer>_HOST_TESTS   on the host (.c: a libcheck program, run under
#                        valgrind; .sh: a bash script)
# and <layer>_SOURCES for the files of the folder that are not tests.
# A new test is one file and one line in its folder's list.
#
#   build/tests/<layer>/<name>   a C test (VM or host)
#   build/tests/libfbt.a         the helper library tests/lib/ (fbt_*)
#   build/tests/lib/fb-nobody    runs a VM test as uid 65534

TEST_LAYERS	:= driver library servicemanager system stress unit fuzz idl
include $(foreach l,$(TEST_LAYERS),tests/$(l)/list.mk)

# ---- the lists and the folders agree ------------------------------------------
# Nothing is silently not built: a .c or .sh of a folder in no list is an
# error, so is a listed file that does not exist or a list out of order.
test_lists	:= VM_TESTS DEBUG_TESTS HOST_TESTS SOURCES
# $(call test_list_check,LAYER)
test_list_check = \
	$(foreach v,$(addprefix $(1)_,$(test_lists)), \
		$(if $(subst $(sort $($(v))),,$(strip $($(v)))), \
			$(error tests/$(1)/list.mk: $(v) is not sorted (or has a name twice); sorted: $(sort $($(v)))))) \
	$(foreach f,$(filter-out $(foreach v,$(test_lists),$($(1)_$(v))),$(notdir $(wildcard tests/$(1)/*.c tests/$(1)/*.sh))), \
		$(error tests/$(1)/$(f) is in no list of tests/$(1)/list.mk: add it (tests/README.md))) \
	$(foreach f,$(filter-out $(notdir $(wildcard tests/$(1)/*)),$(foreach v,$(test_lists),$($(1)_$(v)))), \
		$(error tests/$(1)/list.mk lists $(f), which does not exist))
$(foreach l,$(TEST_LAYERS),$(call test_list_check,$(l)))

# ---- the lists, as the check rules want them ------------------------------------
# $(call test_progs,LIST): build/tests/<layer>/<name> of the .c files of LIST
# $(call test_scripts,LIST): tests/<layer>/<name>.sh of its .sh files
test_progs	= $(foreach l,$(TEST_LAYERS),$(patsubst %.c,$(BUILD)/tests/$(l)/%,$(filter %.c,$($(l)_$(1)))))
test_scripts	= $(foreach l,$(TEST_LAYERS),$(addprefix tests/$(l)/,$(filter %.sh,$($(l)_$(1)))))

VM_TESTS	:= $(call test_progs,VM_TESTS)
VM_SH_TESTS	:= $(call test_scripts,VM_TESTS)
DEBUG_VM_TESTS	:= $(call test_progs,DEBUG_TESTS)
DEBUG_VM_SH_TESTS := $(call test_scripts,DEBUG_TESTS)
HOST_TESTS	:= $(call test_progs,HOST_TESTS)
HOST_SH_TESTS	+= $(call test_scripts,HOST_TESTS)
# tests/idl's host scripts run the compiler
HOST_SH_DEPS	+= $(BUILD)/bin/fbidl

# ---- who runs as root -------------------------------------------------------------
# Every VM test runs as uid 65534 through fb-nobody (docs/security.md: every
# opener is a potential adversary) unless it is listed here.  Shell tests
# always start as root (they start the service manager as the system
# would) and drop privileges for their clients themselves.
# Root: a root service manager for unprivileged attackers
# (attack_nested_unwind attack_peek_objects), module parameters and debugfs
# contents (debug_log multiple_devices debugfs_files quotas), event counters
# or live counts read in the middle of a run (call_abandon
# death_corner_cases server_killed soak killstorm fuzz_ioctl), setting
# real-time priorities for inheritance (priority_inheritance
# priority_chain), and clients of several uids (policy_uids).
VM_ROOT_TESTS	:= attack_nested_unwind attack_peek_objects call_abandon \
		   death_corner_cases debug_log debugfs_files fuzz_ioctl killstorm \
		   multiple_devices policy_labels policy_uids priority_chain priority_inheritance \
		   quotas server_killed soak
# Root to read debugfs and to run the attacked service and its bystanders
# as other users than the adversary, who is 65534 (fbt_become_nobody()).
VM_ROOT_TESTS	+= attack_buffer_pages attack_oneway_flood
# Root parents that start, watch and count unprivileged processes
# (attack_orphan_ctx; attack_stalled_sender, which also hands its sender
# /dev/userfaultfd).
VM_ROOT_TESTS	+= attack_orphan_ctx attack_stalled_sender
# Issue 33's: a root parent that starts the manager, and reads debugfs and
# a memory cgroup (attack_region_mm), hands its owner /dev/userfaultfd
# (attack_region_stall), sees every cookie (attack_info_cookies),
# reaps the CLONE_VM siblings (attack_unmap_race), sends from a second
# user, 65533 (attack_oneway_hog), or sets max_user_pages and serves as
# 65533 (attack_sender_pages); every attacker drops to 65534.
VM_ROOT_TESTS	+= attack_info_cookies attack_oneway_hog attack_region_mm \
		   attack_region_stall attack_sender_pages attack_unmap_race
# Attacks whose attacker drops to 65534 in a child while the root parent
# serves handle 0, calls at SCHED_FIFO (attack_prio) or runs drop_caches
# (buffer_mapping's shrinker race), then checks the live counts.
VM_ROOT_TESTS	+= attack_fork_map attack_prio buffer_mapping
# A root service that reads its own context's queue and slots
# (FBINDER_IOC_INFO) after each malformed gathered send of the 65534 attacker
# (attack_fd_arrays: and its descriptor table, after each malformed array).
VM_ROOT_TESTS	+= attack_fd_arrays attack_gather_lists
# Claiming handle 0 again and again, as root (FBINDER_IOC_SET_CONTEXT_MGR
# takes CAP_SYS_ADMIN or the module's manager_uid).
VM_ROOT_TESTS	+= context_manager
# Root only to claim handle 0: each starts its manager as root first, then
# drops to uid 65534 with fbt_become_nobody(), the raw managers too
# (fbt_spawn_manager_ex() with FBT_MGR_NOBODY); the library and
# service-manager tests keep a root manager, as a system does, and run
# their clients in a child that drops (fbt_run_as_nobody()).  poll_events's
# epoll regression stays root: it claims handle 0 twenty times.
VM_CLAIM_TESTS	:= async_calls attack_handle_race attack_route_race buffer_mapping burst_frees call_label calls concurrent_traffic death_notify \
		   fd_array_calls fd_arrays fd_passing fd_passing_failures freeze freeze_states gather_calls idle_memory looper_spawn malformed_requests notify \
		   nested_calls object_translation oneway_batch oneway_batches oneway_order \
		   poll_events regions \
		   region_capability region_owner_memory registry scatter_gather sender_identity sender_label \
		   sender_pid_namespace slot_reuse sync_call thread_pool write_stream_errors
# The same, for the memory-region attack: its owners, holders and copiers
# all run as 65534 once the relay manager has claimed handle 0.
VM_CLAIM_TESTS	+= attack_region_revoke
# The generated stubs' tests: a root manager, the clients and services as 65534.
VM_CLAIM_TESTS	+= idl_calls idl_versions
# A reply and a routed call to a thread that exited without THREAD_EXIT
# (issue 33): the manager replies as 65534, the caller is 65534.
VM_CLAIM_TESTS	+= attack_reaped_reply
VM_ROOT_TESTS	+= $(VM_CLAIM_TESTS)
# The security attacks that reload the module or read debugfs: they start
# as root and attack from children that drop privileges.
VM_ROOT_TESTS	+= attack_ctx_mgr attack_fd_flood
# Reads debugfs and drops the caches (the shrinkers of the spare
# transactions and slot structs); its sender and receiver drop to uid 65534.
VM_ROOT_TESTS	+= burst_spares
# Attacks on the bounds of what an opener may create (issue 17): the
# attackers and bystanders drop to uid 65534 themselves; root reads the
# live counts while the attack holds them, sets the module parameters and
# starts the service manager.
VM_ROOT_TESTS	+= attack_death_links attack_handle_ids attack_long_stream \
		   attack_thread_records
# The same for nodes (issue 33): root also reads and resets debugfs
# max_hold_ns around the attacker's exit.
VM_ROOT_TESTS	+= attack_nodes
# FBINDER_IOC_INFO against debugfs, and what uid 65534 and 65533 see of
# root's and each other's contexts (info_ioctl); tracefs (trace_events);
# a manager, then fbstat as 65534 in a mount namespace without debugfs
# (fbstat_unprivileged); docs/tracing.md's recipes run as written there
# (tracing_recipes: the page is put in the guest's /fb/files).
VM_ROOT_TESTS	+= fbstat_unprivileged info_ioctl trace_events tracing_recipes
# Issue 36's instances: root mounts fastbinderfs, makes devices and claims
# their handle 0, reads debugfs state and the module's refcnt; the attacks
# run in children as uid 65534, one in a user namespace of its own.
VM_ROOT_TESTS	+= instances
VM_RUN_ARGS	+= -f docs/tracing.md
# The debug kernel's: failslab drives fault injection through debugfs.
DEBUG_ROOT_TESTS := failslab

# ---- the helper library: tests/lib/ -> build/tests/libfbt.a ---------------------
# An archive: a test links only the helpers it uses, so a driver test
# that called a library helper (fbt_bl_*, fbt_sm_*) would not link.
include tests/lib/list.mk
$(call test_list_check,lib)
FBT_LIB		:= $(BUILD)/tests/libfbt.a
FBT_LIB_OBJS	:= $(patsubst %.c,$(BUILD)/tests/lib/%.o,$(filter-out fb-nobody.c,$(filter %.c,$(lib_SOURCES))))
FBT_HDRS	:= $(wildcard tests/lib/*.h) uapi/linux/fastbinder.h
FB_NOBODY	:= $(BUILD)/tests/lib/fb-nobody

# The shell helpers the VM shell tests source (". fbt.sh"), and fb-nobody.
VM_BINS		+= tests/lib/fbt.sh $(FB_NOBODY)

$(BUILD)/tests/lib/%.o: tests/lib/%.c $(FBT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(VM_CFLAGS) $(VM_BL_CFLAGS) -c -o $@ $<

$(FBT_LIB): $(FBT_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(FB_NOBODY): tests/lib/fb-nobody.c $(FBT_LIB) $(FBT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(VM_CFLAGS) -o $@ $< $(FBT_LIB)

# ---- VM tests ------------------------------------------------------------------------
# The driver layer is built without libbinderlite: neither its header on
# the include path nor the archive on the link line.
VM_DRIVER_PROGS	:= $(filter $(BUILD)/tests/driver/%,$(VM_TESTS) $(DEBUG_VM_TESTS))
VM_IDL_PROGS	:= $(filter $(BUILD)/tests/idl/%,$(VM_TESTS) $(DEBUG_VM_TESTS))
VM_BL_PROGS	:= $(filter-out $(VM_DRIVER_PROGS) $(VM_IDL_PROGS),$(VM_TESTS) $(DEBUG_VM_TESTS))

$(VM_DRIVER_PROGS): $(BUILD)/tests/%: tests/%.c $(FBT_LIB) $(FBT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(VM_CFLAGS) -o $@ $< $(FBT_LIB)

$(VM_BL_PROGS): $(BUILD)/tests/%: tests/%.c $(FBT_LIB) $(BL_A) $(FBT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(VM_CFLAGS) $(VM_BL_CFLAGS) -o $@ $< $(FBT_LIB) $(BL_A)

# The stubs' tests link the C that fbidl generated from every tests/idl/*.fbidl.
IDL_TEST_NAMES	:= $(basename $(notdir $(wildcard tests/idl/*.fbidl)))
IDL_TEST_GEN	:= $(foreach n,$(IDL_TEST_NAMES),$(BUILD)/idl/$(n).c $(BUILD)/idl/$(n).h)
$(VM_IDL_PROGS): $(BUILD)/tests/%: tests/%.c $(IDL_TEST_GEN) $(FBT_LIB) $(BL_A) $(FBT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(VM_CFLAGS) $(VM_BL_CFLAGS) -I $(BUILD)/idl -o $@ $< \
		$(filter %.c,$(IDL_TEST_GEN)) $(FBT_LIB) $(BL_A) -lm

.SECONDARY: $(FBT_LIB_OBJS) $(IDL_TEST_GEN)

# ---- host unit tests ----------------------------------------------------------------
# libcheck programs, linked against the static libbinderlite.  A test that
# needs other objects has its own rule in its component's fragment
# (servicemanager.mk: policy_parser).
# Recursive (=): expanded in the recipe, after deps-check installed check.
CHECK_CFLAGS	= $(shell pkg-config --cflags check)
CHECK_LIBS	= $(shell pkg-config --libs check)

$(HOST_TESTS): | deps-check

$(BUILD)/tests/unit/%: tests/unit/%.c $(BL_A) uapi/linux/fastbinder.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -O1 $(CHECK_CFLAGS) \
		-o $@ $< $(BL_A) $(CHECK_LIBS)

# The ABI must be the same for 32-bit processes: compile the layout
# assertions with -m32 when the compiler can (gcc-multilib), else skip.
.PHONY: abi-m32
abi-m32:
	@if echo '#include <linux/types.h>' | $(CC) -m32 -x c -fsyntax-only - 2>/dev/null; then \
		echo "  ABI     -m32 layout"; \
		$(CC) -m32 -std=c11 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -DABI_STATIC_ONLY \
			-I uapi tests/unit/abi_layout.c; \
	fi

# ---- the fuzzer ---------------------------------------------------------------------
include tests/fuzz/fuzz.mk
include tests/fuzz/fuzz_idl.mk
