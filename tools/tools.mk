# SPDX-License-Identifier: MIT
#
# tools/tools.mk - the command-line tools "make install" ships, one
# directory each: fbversion (the module's ABI version), fbservice (the
# service manager's registry) and fbstat (the driver's state).  Static
# programs (the top Makefile's rule), linked with libbinderlite.a, so the
# same binary runs on the host and in the VM.  Developer and harness
# scripts live in scripts/, not here.

TOOL_NAMES	:= fbversion fbservice fbstat
TOOL_BINS	:= $(addprefix $(BUILD)/bin/,$(TOOL_NAMES))

USERSPACE	+= $(TOOL_BINS)
STATIC_PROGS	+= $(TOOL_BINS)
VM_BINS		+= $(TOOL_BINS)
INSTALL_BIN	+= $(TOOL_BINS)
CLEAN_FILES	+= $(TOOL_BINS)

$(foreach t,$(TOOL_NAMES),$(eval $(BUILD)/bin/$(t): tools/$(t)/$(t).c $(BL_A) \
	libbinderlite/include/binderlite.h uapi/linux/fastbinder.h))
