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

TOOL_HDRS	:= libbinderlite/include/binderlite.h uapi/linux/fastbinder.h
# fbstat is several files, one concern each (tools/fbstat/fbstat.h)
FBSTAT_SRCS	:= $(wildcard tools/fbstat/*.c)

$(BUILD)/bin/fbversion: tools/fbversion/fbversion.c $(BL_A) $(TOOL_HDRS)
$(BUILD)/bin/fbservice: tools/fbservice/fbservice.c $(BL_A) $(TOOL_HDRS)
$(BUILD)/bin/fbstat: $(FBSTAT_SRCS) tools/fbstat/fbstat.h $(BL_A) $(TOOL_HDRS)
