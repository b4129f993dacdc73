# SPDX-License-Identifier: MIT
#
# tests/vm/vm.mk - the shell helpers the VM shell tests source
# (". fbtest.sh"), put on the guest's PATH with the programs, and fb-nobody,
# which runs a test as an unprivileged user.
VM_BINS		+= tests/vm/lib/fbtest.sh $(BUILD)/tests/vm-bin/fb-nobody

# (Its rule is in the Makefile, beside the helpers it links.)
# Tests that need root: everything else runs as uid 65534 through
# fb-nobody (docs/security.md: every opener is a potential adversary).
# Shell tests always start as root (they start the service manager as the
# system would) and drop privileges for their clients themselves.
# Root: a root service manager for unprivileged attackers
# (attack_nested_unwind attack_peek_objects), module parameters and debugfs contents (debug_param devices
# proto_debugfs proto_limits), event counters or live counts read in the
# middle of a run (proto_abandon proto_death_more proto_kill soak killstorm
# fuzz_ioctl), setting real-time priorities for inheritance (proto_prio
# proto_prio_chain), and clients of several uids (sm_policy).
VM_ROOT_TESTS	:= attack_nested_unwind attack_peek_objects debug_param devices fuzz_ioctl killstorm proto_abandon \
		   proto_death_more proto_debugfs proto_kill proto_limits \
		   proto_prio proto_prio_chain sm_policy soak
# Root to read debugfs and to run the attacked service and its bystanders
# as other users than the adversary, who is 65534 (fbt_become_nobody()).
VM_ROOT_TESTS	+= attack_buffer_pages attack_oneway_flood
# Root parents that start, watch and count unprivileged processes
# (attack_orphan_ctx; attack_stalled_sender, which also hands its sender
# /dev/userfaultfd).
VM_ROOT_TESTS	+= attack_orphan_ctx attack_stalled_sender
# Attacks whose attacker drops to 65534 in a child while the root parent
# serves handle 0, calls at SCHED_FIFO (attack_prio) or runs drop_caches
# (proto_mmap's shrinker race), then checks the live counts.
VM_ROOT_TESTS	+= attack_fork_map attack_prio proto_mmap
# Claiming handle 0 again and again, as root (FBINDER_IOC_SET_CONTEXT_MGR takes
# CAP_SYS_ADMIN or the module's manager_uid).
VM_ROOT_TESTS	+= proto_mgr
# Root only to claim handle 0: each starts its manager as root first, then
# drops to uid 65534 with fbt_become_nobody(), the raw managers too
# (fbp_spawn_manager_ex() with FBP_MGR_NOBODY); the library and
# service-manager tests keep a root manager, as a system does, and run
# their clients in a child that drops (fbt_run_as_nobody()).  proto_poll's
# epoll regression stays root: it claims handle 0 twenty times.
VM_CLAIM_TESTS	:= lib_call lib_pool proto_death proto_errors proto_fd proto_fd_more \
		   proto_idle proto_looper proto_mmap proto_nested proto_objects \
		   proto_oneway proto_poll proto_stress proto_txn sm_malformed sm_registry
VM_ROOT_TESTS	+= $(VM_CLAIM_TESTS)
# The security attacks that reload the module or read debugfs: they start
# as root and attack from children that drop privileges.
VM_ROOT_TESTS	+= attack_ctx_mgr attack_fd_flood
# Attacks on the bounds of what an opener may create (issue 17): the
# attackers and bystanders drop to uid 65534 themselves; root reads the
# live counts while the attack holds them, sets the module parameters and
# starts the service manager.
VM_ROOT_TESTS	+= attack_death_links attack_handle_ids attack_long_stream \
		   attack_thread_records
# FBINDER_IOC_INFO against debugfs, and what uid 65534 and 65533 see of
# root's and each other's contexts (proto_info); tracefs (trace_events);
# a manager, then fbstat as 65534 in a mount namespace without debugfs
# (tools_fbstat_user).
VM_ROOT_TESTS	+= proto_info trace_events tools_fbstat_user
# docs/tracing.md's recipes, run as written there (tracing_recipes reads
# the page from /fb/files).
VM_ROOT_TESTS	+= tracing_recipes
VM_RUN_ARGS	+= -f docs/tracing.md
