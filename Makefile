# SPDX-License-Identifier: MIT
#
# fastbinder top-level Makefile.  "make help" lists the targets.
#
#   make                  module (for KERNEL) + user space
#   make demo             boot the VM and show what fastbinder does
#   make check            host unit tests + the VM suite; last line "N passed, M failed"
#   make KERNEL=6.12 ...  6.1 (default), 6.12, 6.1-rt: the Debian 12 kernel to use
#
# User-space parts plug in through fragments: every mk/*.mk and <dir>/*.mk
# of a user-space directory is included (libbinderlite/lib.mk, ...).  A
# fragment appends to USERSPACE (targets "make userspace" builds), VM_BINS
# (static programs copied into the VM's PATH), VM_TEST_LIBS / VM_TEST_DEPS
# (linked into / built before every VM test), HOST_TEST_LIBS (linked into
# the host tests), CLEAN_FILES, INSTALL_BIN / INSTALL_SBIN (programs
# "make install" puts in PREFIX/bin, PREFIX/sbin: mk/install.mk), and
# VM_RUN_ARGS / VM_RUN_DEPS (extra tools/vm/run.sh options of the check
# runs, and what they need built: mk/valgrind.mk).  See docs/testing.md.

KERNEL		?= 6.1
KERNELS		:= 6.1 6.12 6.1-rt
BUILD		:= build

# The module is built in a copy of these (tools/build-module.sh); point them
# at another tree, e.g. a throwaway copy under /tmp, to test that instead.
DRIVER_DIR	?= driver
UAPI_DIR	?= uapi
export DRIVER_DIR UAPI_DIR

# kbuild arguments.  The module must build without a warning, W=1 included,
# on every kernel (issue 9), so warnings are errors.  Add e.g. "C=2
# CHECK=sparse", or set KBUILD_ARGS= to build a work in progress.
KBUILD_ARGS	?= W=1 KCFLAGS=-Werror

CC		?= cc
USER_CFLAGS	:= -std=c11 -Wall -Wextra -Werror -O2 -g -I uapi
VM_CFLAGS	:= -std=gnu11 -Wall -Wextra -Werror -O2 -static -pthread \
		   -I uapi -I tests/vm/lib -I libbinderlite/include
VM_TEST_TIMEOUT	?= 60
# Timeout for the whole VM run (boot + all tests): keeps "make check" under
# 10 minutes even when tests hang where the per-test timeout cannot help.
VM_TIMEOUT	?= 480
# Run only these VM tests (names, space separated); empty = all.
TESTS		?=

# ---- dependencies ----------------------------------------------------------
# Installed at parse time (fast no-op when present) because fragments and
# this file call pkg-config & co. while they are read.  SKIP_DEPS=1 skips.
ifeq ($(SKIP_DEPS)$(filter clean distclean help,$(MAKECMDGOALS)),)
DEPS_RC := $(shell tools/deps.sh $(KERNEL) >&2; echo $$?)
ifneq ($(DEPS_RC),0)
$(error tools/deps.sh failed; install the packages it lists)
endif
endif

# ---- fragments ---------------------------------------------------------------
USERSPACE	:=
VM_BINS		:=
VM_TEST_LIBS	:=
VM_TEST_DEPS	:=
HOST_TEST_LIBS	:=
HOST_TEST_DEPS	:=
CLEAN_FILES	:=
INSTALL_BIN	:=
INSTALL_SBIN	:=
VM_RUN_ARGS	:=
VM_RUN_DEPS	:=
FRAGMENTS := $(sort $(wildcard mk/*.mk libbinderlite/*.mk servicemanager/*.mk \
		examples/*.mk bench/*.mk tools/*.mk tests/*/*.mk))
include $(FRAGMENTS)
.DEFAULT_GOAL := all

# libbinderlite/lib.mk predates these hooks: wire it in here.
ifdef BL_A
USERSPACE	+= bl-all
HOST_TEST_LIBS	+= $(BL_A)
HOST_TEST_DEPS	+= $(BL_A)
VM_TEST_LIBS	+= $(BL_A)
VM_TEST_DEPS	+= $(BL_A)
endif

# ---- the module --------------------------------------------------------------
# Resolved when used (after deps.sh ran), never hard-coded: see tools/kver.sh.
KVER		= $(shell tools/kver.sh $(KERNEL))
KDIR		= /usr/src/linux-headers-$(KVER)
MODULE		:= $(BUILD)/$(KERNEL)/driver/fastbinder.ko
SELFTEST_MODULE	:= $(BUILD)/$(KERNEL)-selftest/driver/fastbinder.ko
HOST_KDIR	:= /lib/modules/$(shell uname -r)/build

.PHONY: all module module-selftest module-host userspace deps
all: module userspace $(if $(wildcard $(HOST_KDIR)/Makefile),module-host)

deps:
	@tools/deps.sh $(KERNEL)

# Phony on purpose: kbuild decides what to rebuild.
module:
	@echo "  MODULE  $(KERNEL) ($(KVER)) -> $(MODULE)"
	@tools/build-module.sh $(KDIR) $(BUILD)/$(KERNEL) $(KBUILD_ARGS)

module-selftest:
	@echo "  MODULE  $(KERNEL) FASTBINDER_SELFTEST=y -> $(SELFTEST_MODULE)"
	@tools/build-module.sh $(KDIR) $(BUILD)/$(KERNEL)-selftest \
		FASTBINDER_SELFTEST=y $(KBUILD_ARGS)

# The running kernel's own headers, for "make install" on a real host.
module-host:
	@echo "  MODULE  host $$(uname -r) -> $(BUILD)/host/driver/fastbinder.ko"
	@tools/build-module.sh $(HOST_KDIR) $(BUILD)/host $(KBUILD_ARGS)

# ---- user space ----------------------------------------------------------------
# Small tools: static, so the same binary runs on the host and in the VM.
TOOLS		:= $(patsubst tools/%.c,$(BUILD)/tools/%,$(wildcard tools/*.c))
USERSPACE	+= $(TOOLS)
VM_BINS		+= $(TOOLS)

userspace: $(USERSPACE)

$(BUILD)/tools/%: tools/%.c $(UAPI_DIR)/linux/fastbinder.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -static -o $@ $<

# ---- VM tests: tests/vm/<name>.c -> build/tests/vm/<name> -----------------------
VM_LIB_OBJS	:= $(patsubst tests/vm/lib/%.c,$(BUILD)/tests/vm-lib/%.o,$(wildcard tests/vm/lib/*.c))
VM_TESTS	:= $(patsubst tests/vm/%.c,$(BUILD)/tests/vm/%,$(wildcard tests/vm/*.c))
VM_SH_TESTS	:= $(wildcard tests/vm/*.sh)

$(BUILD)/tests/vm-lib/%.o: tests/vm/lib/%.c $(wildcard tests/vm/lib/*.h) uapi/linux/fastbinder.h
	@mkdir -p $(@D)
	$(CC) $(VM_CFLAGS) -c -o $@ $<

$(BUILD)/tests/vm/%: tests/vm/%.c $(VM_LIB_OBJS) $(VM_TEST_DEPS) $(wildcard tests/vm/lib/*.h) uapi/linux/fastbinder.h
	@mkdir -p $(@D)
	$(CC) $(VM_CFLAGS) -o $@ $< $(VM_LIB_OBJS) $(VM_TEST_LIBS)

$(BUILD)/tests/vm-bin/fb-nobody: tests/vm/nobody/fb-nobody.c $(BUILD)/tests/vm-lib/fbtest.o tests/vm/lib/fbtest.h
	@mkdir -p $(@D)
	$(CC) $(VM_CFLAGS) -o $@ $< $(BUILD)/tests/vm-lib/fbtest.o

# Keep the helper objects (make would delete them as intermediates).
.SECONDARY: $(VM_LIB_OBJS)

# ---- host tests: tests/host/test_*.c -> build/tests/host/test_* -----------------
# and shell tests tests/host/*.sh (each one pass or one failure, no valgrind).
HOST_SH_TESTS	:= $(wildcard tests/host/*.sh)
# A fragment may give a test its own rule (lib.mk does for test_parcel).
HOST_TESTS	:= $(patsubst tests/host/%.c,$(BUILD)/tests/host/%,$(wildcard tests/host/test_*.c))
# Recursive (=): expanded when used, after deps.sh installed check.
CHECK_CFLAGS	= $(shell pkg-config --cflags check)
CHECK_LIBS	= $(shell pkg-config --libs check)

$(BUILD)/tests/host/%: tests/host/%.c $(HOST_TEST_DEPS) uapi/linux/fastbinder.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -O1 -I libbinderlite/include $(CHECK_CFLAGS) \
		-o $@ $< $(HOST_TEST_LIBS) $(CHECK_LIBS)

# The ABI must be the same for 32-bit processes: compile the layout
# assertions with -m32 when the compiler can (gcc-multilib), else skip.
.PHONY: abi-m32
abi-m32:
	@if echo '#include <linux/types.h>' | $(CC) -m32 -x c -fsyntax-only - 2>/dev/null; then \
		echo "  ABI     -m32 layout"; \
		$(CC) -m32 -std=c11 -Wall -Wextra -Werror -fsyntax-only -DABI_STATIC_ONLY \
			-I uapi tests/host/test_abi_layout.c; \
	fi

# ---- checks ----------------------------------------------------------------------
VM_RUN		= tools/vm/run.sh -k $(KERNEL)
VM_SUITE_ARGS	= -m $(MODULE) $(if $(NO_SELFTEST),,-S $(SELFTEST_MODULE)) \
		  $(addprefix -b ,$(VM_BINS)) $(addprefix -t ,$(VM_TESTS) $(VM_SH_TESTS)) \
		  $(VM_RUN_ARGS) -T $(VM_TIMEOUT) -- \
		  FB_TESTS="'$(TESTS)'" FB_ROOT_TESTS="'$(VM_ROOT_TESTS)'" FB_TEST_TIMEOUT=$(VM_TEST_TIMEOUT) sh /fb/suite.sh
VM_PREREQS	:= module $(if $(NO_SELFTEST),,module-selftest) $(VM_BINS) $(VM_TESTS) \
		   $(VM_RUN_DEPS)

.PHONY: check check-host check-vm check-matrix
check: $(VM_PREREQS) $(HOST_TESTS) abi-m32
	@tools/check.sh --host "$(HOST_TESTS)" --host-sh "$(HOST_SH_TESTS)" \
		--vm -- $(VM_SUITE_ARGS)

check-host: $(HOST_TESTS) abi-m32
	@tools/check.sh --host "$(HOST_TESTS)" --host-sh "$(HOST_SH_TESTS)"

check-vm: $(VM_PREREQS)
	@tools/check.sh --vm -- $(VM_SUITE_ARGS)

# "make check" on every kernel, each timed; fails if any fails.
check-matrix:
	@rc=0; times=; for k in $(KERNELS); do \
		start=$$(date +%s); \
		$(MAKE) --no-print-directory check KERNEL=$$k || rc=1; \
		times="$$times  KERNEL=$$k: $$(( $$(date +%s) - start ))s"; \
	done; \
	echo "check-matrix times:$$times"; exit $$rc

# ---- the VM by hand ----------------------------------------------------------------
.PHONY: demo vm-shell vm-run
demo: module $(VM_BINS)
	@$(VM_RUN) -m $(MODULE) $(addprefix -b ,$(VM_BINS)) -T 300 sh /fb/demo.sh

# Interactive shell, module loaded, tests in PATH.  Ctrl-A X quits.
vm-shell: module $(VM_BINS) $(VM_TESTS)
	@$(VM_RUN) -i -l -m $(MODULE) $(addprefix -b ,$(VM_BINS)) \
		$(addprefix -t ,$(VM_TESTS) $(VM_SH_TESTS)) $(addprefix -f ,$(FILES))

# make vm-run CMD='./repro; dmesg | tail' FILES='build/repro'
# CMD reaches the guest through the environment, so any quoting in it survives.
vm-run: export CMD := $(CMD)
vm-run: module $(VM_BINS) $(VM_TESTS)
	@test -n "$$CMD" || { echo "usage: make vm-run CMD='command' [FILES='file...']" >&2; exit 2; }
	@$(VM_RUN) -l -m $(MODULE) $(addprefix -b ,$(VM_BINS)) \
		$(addprefix -t ,$(VM_TESTS) $(VM_SH_TESTS)) $(addprefix -f ,$(FILES)) \
		-T $(VM_TIMEOUT) -- "$$CMD"

# ---- housekeeping ---------------------------------------------------------------------
.PHONY: clean distclean help
# Keeps the downloaded kernels (build/kernels); distclean removes them too.
clean:
	rm -rf $(filter-out $(BUILD)/kernels,$(wildcard $(BUILD)/*)) $(CLEAN_FILES)

distclean:
	rm -rf $(BUILD) $(CLEAN_FILES)

help:
	@sed -n '3,17p' Makefile | sed 's/^# \{0,1\}//'
	@echo; echo "targets: all module userspace check check-host check-vm check-matrix"
	@echo "         demo vm-shell vm-run clean distclean deps"
	@echo "         install uninstall dkms-source (DESTDIR= PREFIX=/usr/local KVER=)"
	@echo "variables: KERNEL=6.1|6.12|6.1-rt TESTS='name...' CMD='...' FILES='...'"
	@echo "           KBUILD_ARGS='W=1' DRIVER_DIR=dir NO_SELFTEST=1 VM_TEST_TIMEOUT=60"
