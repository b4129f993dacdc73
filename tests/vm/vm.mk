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
# Root: module parameters and debugfs contents (debug_param devices
# proto_debugfs proto_limits), event counters or live counts read in the
# middle of a run (proto_abandon proto_death_more proto_kill soak killstorm
# fuzz_ioctl), setting real-time priorities for inheritance (proto_prio
# proto_prio_chain), and clients of several uids (sm_policy).
VM_ROOT_TESTS	:= debug_param devices fuzz_ioctl killstorm proto_abandon \
		   proto_death_more proto_debugfs proto_kill proto_limits \
		   proto_prio proto_prio_chain sm_policy soak
# Attacks on the bounds of what an opener may create (issue 17): the
# attackers and bystanders drop to uid 65534 themselves; root reads the
# live counts while the attack holds them, sets the module parameters and
# starts the service manager.
VM_ROOT_TESTS	+= attack_death_links attack_handle_ids attack_long_stream \
		   attack_thread_records
