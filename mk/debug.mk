# SPDX-License-Identifier: MIT
#
# make check-debug: the whole VM suite on a debug kernel (KASAN, lockdep,
# kmemleak, UBSAN, DEBUG_ATOMIC_SLEEP, fault injection; and userfaultfd,
# which attack_stalled_sender stalls a copy with) built from Debian's
# linux-source-6.1 by scripts/debug-kernel.sh into DEBUG_KERNEL_DIR (about 25
# minutes of both cores here, once: later runs reuse it), plus the tests that
# need that kernel (the DEBUG_TESTS lists of tests/*/list.mk: fault
# injection) and a kmemleak scan
# (scripts/vm/suite.sh does it where /sys/kernel/debug/kmemleak exists).
# Everything runs about 5-10x slower there: DEBUG_SCALE shrinks the
# fixed-size workloads (FBINDER_SCALE in the guest), DEBUG_SLOW lengthens the
# attack tests' deadlines (FBINDER_SLOW, fbinder_deadline_ms()), the fuzzer runs
# DEBUG_FUZZ_SECONDS.  The closing line says how long it took.
#
#   make check-debug                      the whole suite
#   make check-debug TESTS='fuzz_ioctl'   some tests
#   make debug-kernel                     only build (or find) the kernel
#
# The kernel tree is cached in FBINDER_CACHE_DIR (default build/cache, which
# make clean keeps; CI uses /var/cache/fastbinder, outside the clone) as
# debug-kernel-KEY, KEY a hash of what it is built from (the linux-source-6.1
# version, scripts/debug-kernel.sh with its configuration, the compiler:
# scripts/debug-kernel-key.sh -v).  A change to any of them builds a new tree;
# a missing one only costs the build.  The build holds debug-kernel-KEY.lock
# (two runs never build the same tree at once); after a build, trees of
# other keys beyond the two newest are deleted.  DEBUG_KERNEL_DIR=dir uses
# dir instead, as it is.

DEBUG_KERNEL_KEY	= $(eval DEBUG_KERNEL_KEY := $(shell scripts/debug-kernel-key.sh))$(DEBUG_KERNEL_KEY)
DEBUG_KERNEL_DIR	?= $(FBINDER_CACHE_DIR)/debug-kernel-$(DEBUG_KERNEL_KEY)
DEBUG_KDIR		= $(DEBUG_KERNEL_DIR)/src
DEBUG_IMAGE		= $(DEBUG_KDIR)/arch/x86/boot/bzImage
DEBUG_MODULE		:= $(BUILD)/debug/driver/fastbinder.ko
DEBUG_SELFTEST_MODULE	:= $(BUILD)/debug-selftest/driver/fastbinder.ko
DEBUG_SCALE		?= 0.5
# the attack tests' "bounded" deadlines are this many times longer there
DEBUG_SLOW		?= 5
DEBUG_FUZZ_SECONDS	?= 120
DEBUG_TEST_TIMEOUT	?= 400
DEBUG_VM_TIMEOUT	?= 1750
# KASAN keeps freed objects in quarantine (slab looks bigger for a while);
# kmemleak is the leak check there.
DEBUG_SOAK_SLAB_KB	?= 65536

# The tests of the debug kernel only (DEBUG_VM_TESTS, DEBUG_VM_SH_TESTS,
# DEBUG_ROOT_TESTS) are listed and built by tests/tests.mk.

.PHONY: debug-kernel module-debug check-debug
# deps-debug first: the key names linux-source-6.1's installed version.
debug-kernel: deps-debug
	@mkdir -p $(dir $(DEBUG_KERNEL_DIR))
	@flock $(DEBUG_KERNEL_DIR).lock scripts/debug-kernel.sh $(DEBUG_KERNEL_DIR) >/dev/null
	@echo "  KERNEL  debug: $(DEBUG_KERNEL_DIR)"
ifeq ($(origin DEBUG_KERNEL_DIR),file)
	@cd $(dir $(DEBUG_KERNEL_DIR)) && \
	keep="$(notdir $(DEBUG_KERNEL_DIR)) $$(ls -dt debug-kernel-*/src/.fb-debug-done 2>/dev/null | \
		head -n 2 | cut -d/ -f1 | tr '\n' ' ')"; \
	for d in debug-kernel-*/; do \
		d=$${d%/}; \
		case " $$keep " in *" $$d "*) continue ;; esac; \
		[ -d "$$d" ] && flock -n $$d.lock rm -rf $$d && rm -f $$d.lock && \
			echo "  PRUNE   $(dir $(DEBUG_KERNEL_DIR))$$d (another debug kernel)"; \
	done; true
endif

module-debug: debug-kernel
	@echo "  MODULE  debug ($(DEBUG_KDIR)) -> $(DEBUG_MODULE)"
	@scripts/build-module.sh $(DEBUG_KDIR) $(BUILD)/debug $(KBUILD_ARGS)
	@scripts/build-module.sh $(DEBUG_KDIR) $(BUILD)/debug-selftest $(DEV_BUILD_ARGS) $(KBUILD_ARGS)

# lockdep.lock_stat=0: the suite needs lockdep's checks, not its lock
# statistics (CONFIG_LOCK_STAT, for make bench-contention, which turns them
# on through /proc/sys/kernel/lock_stat): collecting them slows every lock.
check-debug: module-debug
	@$(MAKE) --no-print-directory $(VM_BINS) $(VM_TESTS) $(DEBUG_VM_TESTS) $(VM_RUN_DEPS)
	@start=$$(date +%s); \
	scripts/check.sh --vm -- -k debug -K $(DEBUG_IMAGE) -M 2048 -a lockdep.lock_stat=0 \
		-m $(DEBUG_MODULE) $(if $(NO_SELFTEST),,-S $(DEBUG_SELFTEST_MODULE)) \
		$(addprefix -b ,$(VM_BINS)) \
		$(addprefix -t ,$(VM_TESTS) $(VM_SH_TESTS) $(DEBUG_VM_TESTS) $(DEBUG_VM_SH_TESTS)) \
		$(VM_RUN_ARGS) -T $(DEBUG_VM_TIMEOUT) -- \
		FBINDER_TESTS="'$(TESTS)'" FBINDER_ROOT_TESTS="'$(VM_ROOT_TESTS) $(DEBUG_ROOT_TESTS)'" \
		FBINDER_TEST_TIMEOUT=$(DEBUG_TEST_TIMEOUT) \
		FBINDER_SCALE=$(DEBUG_SCALE) FBINDER_SLOW=$(DEBUG_SLOW) FBINDER_FUZZ_SECONDS=$(DEBUG_FUZZ_SECONDS) \
		FBINDER_SOAK_SLAB_KB=$(DEBUG_SOAK_SLAB_KB) sh /fb/suite.sh; \
	rc=$$?; \
	echo "check-debug: $$(( ($$(date +%s) - start) / 60 )) min $$(( ($$(date +%s) - start) % 60 )) s on $$(basename $(DEBUG_IMAGE)) of $(DEBUG_KDIR) (exit $$rc)"; \
	exit $$rc
