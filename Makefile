# SPDX-License-Identifier: MIT
#
# fastbinder top-level Makefile.  "make help" lists the targets.
#
#   make                  module (for KERNEL) + user space
#   make demo             boot the VM and show what fastbinder does
#   make check            host unit tests + the VM suite; last line
#                         "N passed, M failed, K skipped"
#   make KERNEL=6.12 ...  6.1 (default), 6.12, 6.1-rt: the Debian 12 kernel to use
#   make deps             install the Debian packages demo and check need
#                         (each target also installs what it needs itself)
#
# User-space parts plug in through fragments, included in the order of
# FRAGMENTS below (libbinderlite/lib.mk, ...).  A fragment appends to
# USERSPACE (targets "make userspace" builds), STATIC_PROGS (programs the
# one static-program rule links), VM_BINS (static programs copied into the
# VM's PATH), HOST_SH_TESTS / HOST_SH_DEPS (more host shell tests and what
# they need built: tests/fuzz/fuzz.mk), CLEAN_FILES, INSTALL_BIN / INSTALL_SBIN (programs
# "make install" puts in PREFIX/bin, PREFIX/sbin: mk/install.mk), and
# VM_RUN_ARGS / VM_RUN_DEPS (extra scripts/vm/run.sh options of the check
# runs, and what they need built: mk/valgrind.mk).  See docs/testing.md.

KERNEL		?= 6.1
KERNELS		:= 6.1 6.12 6.1-rt
BUILD		:= build
# What is slow to make and keyed by what it was made from: the debug kernel
# (mk/debug.mk) and check-fresh's Debian root (mk/fresh.mk).  make clean
# keeps it; point it outside the clone (CI: /var/cache/fastbinder) to share
# it between clones.  A missing cache only costs time.
FBINDER_CACHE_DIR	?= $(BUILD)/cache

# The module is built in a copy of these (scripts/build-module.sh); point them
# at another tree, e.g. a throwaway copy under /tmp, to test that instead.
DRIVER_DIR	?= driver
UAPI_DIR	?= uapi
export DRIVER_DIR UAPI_DIR

# kbuild arguments.  The module must build without a warning, W=1 included,
# on every kernel (issue 9), so warnings are errors.  Add e.g. "C=2
# CHECK=sparse", or set KBUILD_ARGS= to build a work in progress.
KBUILD_ARGS	?= W=1 KCFLAGS=-Werror

CC		?= cc
# One set of flags for all user-space C (library, service manager, tools,
# examples, bench, tests); a part adds only what is its own (-fPIC, -static,
# sanitizers, an include directory).  The brief asks for C11: -std=c11
# -pedantic-errors, so a GNU language extension (a?:b, statement
# expressions, %m) fails the build; make lint checks that every user-space
# compile line has both (scripts/doc-check.py).  -D_DEFAULT_SOURCE declares
# glibc's POSIX and BSD functions (usleep, MAP_ANONYMOUS, ...) that gnu11
# declared implicitly; a file that needs more defines _GNU_SOURCE itself.
USER_CFLAGS	:= -std=c11 -pedantic-errors -D_DEFAULT_SOURCE -Wall -Wextra -Werror \
		   -O2 -g -pthread -I uapi -I libbinderlite/include
# The VM tests: static, with the helper library's headers; the driver
# layer's tests do not see libbinderlite's header (VM_BL_CFLAGS adds it
# for the others: tests/tests.mk).
VM_BL_CFLAGS	:= -I libbinderlite/include
VM_CFLAGS	:= $(subst $(VM_BL_CFLAGS),,$(USER_CFLAGS)) -static -I tests/lib
VM_TEST_TIMEOUT	?= 60
# Timeout for the whole VM run (boot + all tests): keeps "make check" under
# 12 minutes even when tests hang where the per-test timeout cannot help
# (a loaded host needs more than the suite's usual 4-5 minutes).
VM_TIMEOUT	?= 720
# Run only these VM tests (names, space separated); empty = all.
TESTS		?=

# ---- dependencies ----------------------------------------------------------
# scripts/deps.sh GROUP installs the Debian packages of GROUP when some are
# missing (one dpkg-query otherwise: a few ms).  Nothing installs packages
# while this file is parsed: each target runs the deps-GROUP step it needs
# as a prerequisite (make demo: vm, make check: check, make lint: lint, ...;
# the rules that need the packages to build, such as the module's, have it
# as an order-only prerequisite too, so make -j keeps the order), and
# whatever needs a package (pkg-config, scripts/kver.sh) is expanded only in
# recipes, so parsing works on a machine with nothing installed.
# "make deps" installs what make demo and make check need (KERNEL's
# headers); "make deps-all" everything, for all kernels.  SKIP_DEPS=1 turns
# the steps into no-ops.
DEPS_GROUPS	:= build vm check lint debug fuzz bench profile fresh
deps_step	= $(if $(SKIP_DEPS),@true,@scripts/deps.sh $(1))

.PHONY: deps deps-all deps-host deps-matrix $(addprefix deps-,$(DEPS_GROUPS))
deps:
	@scripts/deps.sh -k $(KERNEL) check
deps-all:
	@scripts/deps.sh all
$(addprefix deps-,$(DEPS_GROUPS)):
	$(call deps_step,-k $(KERNEL) $(@:deps-%=%))
# the build tools without Debian's headers (the host's own kernel)
deps-host:
	$(call deps_step,-k none build)
# make check-matrix: the headers of all three kernels up front
deps-matrix:
	$(call deps_step,-k all check)

# ---- fragments ---------------------------------------------------------------
USERSPACE	:=
STATIC_PROGS	:=
VM_BINS		:=
HOST_SH_TESTS	:=
HOST_SH_DEPS	:=
CLEAN_FILES	:=
INSTALL_BIN	:=
INSTALL_SBIN	:=
VM_RUN_ARGS	:=
VM_RUN_DEPS	:=
# In this order: a fragment may use what the ones before it define (the
# library first: everything after links BL_A; mk/valgrind.mk names the
# service manager's objects and the tools' sources), and the ones that only
# read the lists (install, lint, debug, fresh) come last.
FRAGMENTS	:= libbinderlite/lib.mk \
		   servicemanager/servicemanager.mk \
		   tools/tools.mk \
		   examples/examples.mk \
		   bench/bench.mk \
		   tests/tests.mk \
		   mk/valgrind.mk \
		   mk/install.mk \
		   mk/lint.mk \
		   mk/debug.mk \
		   mk/fresh.mk
include $(FRAGMENTS)
.DEFAULT_GOAL := all

# ---- the one rule for a static program -----------------------------------------
# Static, so the same binary runs on the host and in the VM.  A fragment
# appends the program to STATIC_PROGS and gives its inputs as
# prerequisites: .c and .o files are compiled and linked, .a libraries
# linked after them, anything else (headers) is only a dependency.
# PROG_CFLAGS (a target-specific "private" variable) adds flags.
$(STATIC_PROGS):
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(PROG_CFLAGS) -static -o $@ \
		$(filter %.c %.o,$^) $(filter %.a,$^)

# ---- the module --------------------------------------------------------------
# Resolved in recipes (after deps-build ran), never hard-coded: see
# scripts/kver.sh.
KVER		= $(shell scripts/kver.sh $(KERNEL))
KDIR		= /usr/src/linux-headers-$(KVER)
MODULE		:= $(BUILD)/$(KERNEL)/driver/fastbinder.ko
SELFTEST_MODULE	:= $(BUILD)/$(KERNEL)-selftest/driver/fastbinder.ko
# The development build: the load-time self-tests and the per-step timing
# of the hot paths (driver/sections.h, make bench-sections) built in; the
# suite loads it first (module-selftest, module-sections).
DEV_BUILD_ARGS	:= FASTBINDER_SELFTEST=y FASTBINDER_SECTIONS=y
HOST_KDIR	:= /lib/modules/$(shell uname -r)/build

.PHONY: all module module-selftest module-host userspace
all: module userspace $(if $(wildcard $(HOST_KDIR)/Makefile),module-host)

module module-selftest: | deps-build
module-host: | deps-host
# libbinderlite/io.c compiles valgrind's client requests in only when
# <valgrind/memcheck.h> is there (deps-build installs it): never before.
$(BL_OBJS): | deps-build

# Phony on purpose: kbuild decides what to rebuild.
module:
	@echo "  MODULE  $(KERNEL) ($(KVER)) -> $(MODULE)"
	@scripts/build-module.sh $(KDIR) $(BUILD)/$(KERNEL) $(KBUILD_ARGS)

module-selftest:
	@echo "  MODULE  $(KERNEL) $(DEV_BUILD_ARGS) -> $(SELFTEST_MODULE)"
	@scripts/build-module.sh $(KDIR) $(BUILD)/$(KERNEL)-selftest \
		$(DEV_BUILD_ARGS) $(KBUILD_ARGS)

# The running kernel's own headers, for "make install" on a real host.
module-host:
	@echo "  MODULE  host $$(uname -r) -> $(BUILD)/host/driver/fastbinder.ko"
	@scripts/build-module.sh $(HOST_KDIR) $(BUILD)/host $(KBUILD_ARGS)

# ---- user space ----------------------------------------------------------------
userspace: $(USERSPACE)

# ---- tests --------------------------------------------------------------------------
# tests/tests.mk builds them, from the explicit lists of tests/<layer>/list.mk:
# VM_TESTS / VM_SH_TESTS (the VM suite), HOST_TESTS / HOST_SH_TESTS (host),
# DEBUG_VM_TESTS (check-debug), VM_ROOT_TESTS.

# ---- checks ----------------------------------------------------------------------
VM_RUN		= scripts/vm/run.sh -k $(KERNEL)
VM_SUITE_ARGS	= -m $(MODULE) $(if $(NO_SELFTEST),,-S $(SELFTEST_MODULE)) \
		  $(addprefix -b ,$(VM_BINS)) $(addprefix -t ,$(VM_TESTS) $(VM_SH_TESTS)) \
		  $(VM_RUN_ARGS) -T $(VM_TIMEOUT) -- \
		  FBINDER_TESTS="'$(TESTS)'" FBINDER_ROOT_TESTS="'$(VM_ROOT_TESTS)'" FBINDER_TEST_TIMEOUT=$(VM_TEST_TIMEOUT) sh /fb/suite.sh
VM_PREREQS	:= module $(if $(NO_SELFTEST),,module-selftest) $(VM_BINS) $(VM_TESTS) \
		   $(VM_RUN_DEPS)

.PHONY: check check-host check-vm check-matrix
check: deps-check $(VM_PREREQS) $(HOST_TESTS) $(HOST_SH_DEPS) abi-m32
	@scripts/check.sh --host "$(HOST_TESTS)" --host-sh "$(HOST_SH_TESTS)" \
		--vm -- $(VM_SUITE_ARGS)

check-host: deps-check $(HOST_TESTS) $(HOST_SH_DEPS) abi-m32
	@scripts/check.sh --host "$(HOST_TESTS)" --host-sh "$(HOST_SH_TESTS)"

check-vm: deps-check $(VM_PREREQS)
	@scripts/check.sh --vm -- $(VM_SUITE_ARGS)

# "make check" on every kernel, each timed; fails if any fails.
check-matrix: deps-matrix
	@rc=0; times=; for k in $(KERNELS); do \
		start=$$(date +%s); \
		$(MAKE) --no-print-directory check KERNEL=$$k || rc=1; \
		times="$$times  KERNEL=$$k: $$(( $$(date +%s) - start ))s"; \
	done; \
	echo "check-matrix times:$$times"; exit $$rc

# ---- the VM by hand ----------------------------------------------------------------
.PHONY: demo vm-shell vm-run
demo: deps-vm module $(VM_BINS)
	@$(VM_RUN) -m $(MODULE) $(addprefix -b ,$(VM_BINS)) $(addprefix -f ,$(EX_IDLS)) \
		-T 300 sh /fb/demo.sh

# Interactive shell, module loaded, tests in PATH.  Ctrl-A X quits.
vm-shell: deps-vm module $(VM_BINS) $(VM_TESTS)
	@$(VM_RUN) -i -l -m $(MODULE) $(addprefix -b ,$(VM_BINS)) \
		$(addprefix -t ,$(VM_TESTS) $(VM_SH_TESTS)) $(addprefix -f ,$(FILES))

# make vm-run CMD='./repro; dmesg | tail' FILES='build/repro'
# CMD reaches the guest through the environment, so any quoting in it survives.
vm-run: export CMD := $(CMD)
vm-run: deps-vm module $(VM_BINS) $(VM_TESTS)
	@test -n "$$CMD" || { echo "usage: make vm-run CMD='command' [FILES='file...']" >&2; exit 2; }
	@$(VM_RUN) -l -m $(MODULE) $(addprefix -b ,$(VM_BINS)) \
		$(addprefix -t ,$(VM_TESTS) $(VM_SH_TESTS)) $(addprefix -f ,$(FILES)) \
		-T $(VM_TIMEOUT) -- "$$CMD"


# ---- housekeeping ---------------------------------------------------------------------
.PHONY: clean distclean help build-unmounted
# Keeps the downloaded kernels (build/kernels) and the caches (build/cache);
# distclean removes them too.  Neither deletes through a mount point: a
# make check-fresh run still going is refused, anything mounted below
# build/ is unmounted first, and they stop when that fails.
clean: build-unmounted
	rm -rf $(filter-out $(BUILD)/kernels $(BUILD)/cache,$(wildcard $(BUILD)/*)) $(CLEAN_FILES)

distclean: build-unmounted
	rm -rf $(BUILD) $(CLEAN_FILES)

build-unmounted:
	@if [ -e $(FRESH_DIR)/.lock ] && ! flock -n $(FRESH_DIR)/.lock true; then \
		echo "make: a make check-fresh run is using $(FRESH_DIR); not deleting" >&2; exit 1; fi
	@scripts/check-fresh.sh --umount $(BUILD)

# Every target and every variable a user may set is here: make lint fails
# otherwise (scripts/doc-check.py).
help:
	@sed -n '3,21p' Makefile | sed 's/^# \{0,1\}//'
	@echo; echo "targets:"
	@echo "  build    all module module-selftest module-host userspace bl-all"
	@echo "  check    check check-host check-vm check-matrix check-debug check-fresh"
	@echo "           abi-m32 (the ABI layout at -m32) lint vg-progs (valgrind_user's programs)"
	@echo "  VM       demo vm-shell vm-run (CMD= FILES=)"
	@echo "  fuzz     fuzz fuzz-parcel (FUZZ_TIME=60) fuzz-build fuzz-deps fuzz-regress"
	@echo "           fuzz-corpus fuzz-replay (FUZZ_CC=clang FUZZ_CORPUS=build/fuzz/corpus"
	@echo "           FUZZ_CORPUS_MAX=4000) fuzz-idl fuzz-idl-corpus (the generated"
	@echo "           stubs' targets, tests/fuzz/fuzz_idl.mk)"
	@echo "  bench    bench (BENCH_ARGS= MODE=wallclock|icount BENCH_TIMEOUT=540)"
	@echo "           bench-ab (REV=main AB_ROUNDS=3 AB_WORKLOADS=rt,bw,oneway,mem)"
	@echo "           bench-profile (PROFILE_ARGS= PROFILE_CALLERS=) bench-sections (SECTIONS_ARGS=)"
	@echo "           bench-contention (CONTENTION_ARGS=; the debug kernel: FBINDER_CACHE_DIR=)"
	@echo "  debug    debug-kernel module-debug (DEBUG_KERNEL_DIR= DEBUG_SCALE=0.5 DEBUG_SLOW=5"
	@echo "           DEBUG_FUZZ_SECONDS=120 DEBUG_TEST_TIMEOUT=400 DEBUG_VM_TIMEOUT=1750"
	@echo "           DEBUG_SOAK_SLAB_KB=65536)"
	@echo "  fresh    check-fresh (FRESH_DIR= FRESH_TIMEOUT=2400 FRESH_MAX_AGE=14"
	@echo "           FRESH_MIRROR= FRESH_KEEP=1)"
	@echo "  install  install uninstall dkms-source install-kver (prints what install"
	@echo "           would build) module-kver (DESTDIR= PREFIX=/usr/local KVER="
	@echo "           DEPMOD=/sbin/depmod INSTALL=install)"
	@echo "  deps     deps deps-all deps-host deps-matrix"
	@echo "           $(addprefix deps-,$(DEPS_GROUPS))"
	@echo "  other    clean distclean build-unmounted help"
	@echo "variables: KERNEL=6.1|6.12|6.1-rt TESTS='name...' CC=cc"
	@echo "           KBUILD_ARGS='W=1 KCFLAGS=-Werror' DRIVER_DIR=driver UAPI_DIR=uapi"
	@echo "           NO_SELFTEST=1 VM_TEST_TIMEOUT=60 VM_TIMEOUT=720"
	@echo "           SKIP_DEPS=1 FBINDER_CACHE_DIR=$(FBINDER_CACHE_DIR)"
	@echo "the tests' knobs, passed into the VM (docs/testing.md): FBINDER_SCALE=1"
	@echo "           FBINDER_SLOW=1 FBINDER_FUZZ_SEED=N FBINDER_FUZZ_* FBINDER_KILLSTORM_*"
	@echo "           FBINDER_SOAK_*"
