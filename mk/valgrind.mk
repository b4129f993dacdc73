# SPDX-License-Identifier: MIT
#
# mk/valgrind.mk - the user code that talks to /dev/fastbinder under
# valgrind memcheck, in the VM (tests/system/valgrind_user.sh).
#
# memcheck replaces malloc & co. through a preloaded shared object, so it
# tracks the heap of dynamically linked programs only: on a static glibc
# program it sees no heap at all ("no leaks are possible") and reports
# false errors inside glibc.  The VM's programs are static, so this builds
# dynamically linked twins of the ones the test runs, into VG_DIR:
#   async_calls, calls, oneway_batches, regions, thread_pool
#                            tests/library/*.c with the test helpers
#   fb-servicemanager        the objects of servicemanager.mk
#   fbservice, fbstat        the sources of tools/tools.mk
# each linked with libbinderlite.a (the same -fPIC objects as the .so,
# without its export map, which hides nothing the test needs) and
# dynamically with glibc.  "make check" passes "-V VG_DIR" to
# scripts/vm/run.sh when the run includes valgrind_user: run.sh puts memcheck,
# these programs (/fb/vg) and the shared libraries they load (ldd) into the
# initramfs, about 2 MB gzipped, only then.
#
# Read after servicemanager.mk (SM_OBJS) and tests/tests.mk (FBT_LIB_OBJS):
# the top Makefile's FRAGMENTS order.

VG_DIR		:= $(BUILD)/tests/vm-dyn
VG_TEST		:= valgrind_user
VG_CFLAGS	:= $(filter-out -static,$(VM_CFLAGS)) $(VM_BL_CFLAGS) -g
VG_LIB_OBJS	:= $(patsubst $(BUILD)/tests/lib/%,$(VG_DIR)-lib/%,$(FBT_LIB_OBJS))
VG_TESTS	:= $(VG_DIR)/async_calls $(VG_DIR)/calls $(VG_DIR)/oneway_batches $(VG_DIR)/regions \
		   $(VG_DIR)/thread_pool
VG_PROGS	:= $(VG_TESTS) $(VG_DIR)/fb-servicemanager \
		   $(VG_DIR)/fbservice $(VG_DIR)/fbstat

# Only when the run includes the test (TESTS empty or naming it): the
# other runs keep their small initramfs.
VG_WANTED	= $(if $(TESTS),$(filter $(VG_TEST),$(TESTS)),all)
VM_RUN_ARGS	+= $(if $(VG_WANTED),-V $(VG_DIR))
VM_RUN_DEPS	+= $(if $(VG_WANTED),$(VG_PROGS))

.PHONY: vg-progs
vg-progs: $(VG_PROGS)

$(VG_DIR)-lib/%.o: tests/lib/%.c $(FBT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(VG_CFLAGS) -c -o $@ $<

$(VG_TESTS): $(VG_DIR)/%: tests/library/%.c $(VG_LIB_OBJS) $(BL_A) $(FBT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(VG_CFLAGS) -o $@ $< $(VG_LIB_OBJS) $(BL_A)

$(VG_DIR)/fb-servicemanager: $(SM_OBJS) $(FBTOOL_O) $(BL_A)
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $(SM_OBJS) $(FBTOOL_O) $(BL_A)

$(VG_DIR)/fbservice: tools/fbservice/fbservice.c tools/fbidl/parse.c tools/fbidl/fbidl.h \
		$(FBTOOL_O) $(BL_A) $(TOOL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I tools/lib -I tools/fbidl -o $@ $< tools/fbidl/parse.c \
		$(FBTOOL_O) $(BL_A)

$(VG_DIR)/fbstat: $(FBSTAT_SRCS) tools/fbstat/fbstat.h $(FBTOOL_O) $(BL_A) $(TOOL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I tools/lib -o $@ $(FBSTAT_SRCS) $(FBTOOL_O) $(BL_A)

.SECONDARY: $(VG_LIB_OBJS)
