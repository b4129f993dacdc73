# SPDX-License-Identifier: MIT
#
# bench/bench.mk - the benchmark (docs/performance.md), included by the top
# Makefile.
#
#   make bench                 one VM boot: fastbinder, Android binder,
#                              socketpairs, pipes, futex ring; writes
#                              build/bench/{results.json,table.md,latency*.png}
#   make bench KERNEL=6.12     on another kernel
#   make bench BENCH_ARGS=-q   a short smoke run (-t/-w pick transports, workloads)
#   make bench MODE=icount     the deterministic mode: one vCPU under QEMU's
#                              -icount shift=0,sleep=off, figures in instructions
#   make bench-ab REV=main     the module of REV against this tree's, in one
#                              deterministic boot (bench/ab.sh)
#   make bench-profile         where fastbinder's 4-byte round trip spends its
#                              instructions (perf in the deterministic mode;
#                              PROFILE_ARGS: other fbbench arguments;
#                              PROFILE_CALLERS=sym,...: the call chains to
#                              those symbols too), written to
#                              build/bench/profile.md (bench/profile.sh)
#   make bench-sections        how long each step of the hot paths is, exactly
#                              (the development build's per-step sums in the
#                              deterministic mode; SECTIONS_ARGS: other fbbench
#                              arguments), written to build/bench/sections.md
#                              (bench/sections.sh, driver/sections.h)
#   make bench-contention      lock_stat of the module's lock classes while 2
#                              disjoint pairs run (the debug kernel's LOCK_STAT,
#                              mk/debug.mk; CONTENTION_ARGS: other fbbench
#                              arguments), written to build/bench/contention.md
#                              (bench/contention.sh)
#
# build/bench/fbbench is static (the top Makefile's rule) and also runs on the host (without the
# fastbinder and binder columns): build/bench/fbbench -t unix-stream,pipe

BENCH_DIR	:= $(BUILD)/bench
BENCH_BIN	:= $(BENCH_DIR)/fbbench
BENCH_SRCS	:= $(wildcard bench/*.c)
BENCH_ARGS	?=
BENCH_TIMEOUT	?= 540
MODE		?= wallclock
REV		?= main
AB_ROUNDS	?= 3
AB_WORKLOADS	?= rt,bw,oneway,mem
PROFILE_ARGS	?=
SECTIONS_ARGS	?=
CONTENTION_ARGS	?=

USERSPACE	+= $(BENCH_BIN)
STATIC_PROGS	+= $(BENCH_BIN)

# The raw write-stream encoder is the tests' (tests/lib/fbt_wstream.h).
# The idl workload (bench/wl_idl.c) links libbinderlite and the stubs of
# examples/calculator's interface.
$(BENCH_BIN): $(BENCH_SRCS) bench/bench.h tests/lib/fbt_wstream.h uapi/linux/fastbinder.h \
	$(EX_GEN)/calculator.c $(EX_GEN)/calculator.h $(BL_A) libbinderlite/include/binderlite.h
$(BENCH_BIN): private PROG_CFLAGS := -I tests/lib -I $(EX_GEN)

.PHONY: bench
# deps-bench (the top Makefile): scripts/deps.sh bench, gnuplot included.
bench: deps-bench module $(BENCH_BIN)
	@KERNEL=$(KERNEL) BENCH_TIMEOUT=$(BENCH_TIMEOUT) MODE=$(MODE) \
		bench/run.sh $(MODULE) $(BENCH_BIN) $(BENCH_ARGS)

.PHONY: bench-ab
bench-ab: module $(BENCH_BIN)
	@KERNEL=$(KERNEL) KBUILD_ARGS='$(KBUILD_ARGS)' AB_ROUNDS=$(AB_ROUNDS) \
		AB_WORKLOADS='$(AB_WORKLOADS)' \
		bench/ab.sh '$(REV)' $(MODULE) $(BENCH_BIN) $(BENCH_ARGS)

.PHONY: bench-profile
# deps-profile (the top Makefile): scripts/deps.sh profile, linux-perf.
bench-profile: deps-profile module $(BENCH_BIN)
	@KERNEL=$(KERNEL) BENCH_TIMEOUT=$(BENCH_TIMEOUT) \
		bench/profile.sh $(MODULE) $(BENCH_BIN) $(PROFILE_ARGS)

.PHONY: bench-sections
bench-sections: module-selftest $(BENCH_BIN)
	@KERNEL=$(KERNEL) BENCH_TIMEOUT=$(BENCH_TIMEOUT) \
		bench/sections.sh $(SELFTEST_MODULE) $(BENCH_BIN) $(SECTIONS_ARGS)

.PHONY: bench-contention
# The debug kernel and the module built for it (mk/debug.mk: module-debug).
bench-contention: module-debug $(BENCH_BIN)
	@KERNEL=$(KERNEL) BENCH_TIMEOUT=$(BENCH_TIMEOUT) \
		bench/contention.sh $(DEBUG_IMAGE) $(DEBUG_MODULE) $(BENCH_BIN) $(CONTENTION_ARGS)
