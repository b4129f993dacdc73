# SPDX-License-Identifier: MIT
#
# tools/tools.mk - the command-line tools "make install" ships, one
# directory each: fbversion (the module's ABI version), fbservice (the
# service manager's registry), fbstat (the driver's state), fbidl (the
# interface compiler, docs/idl.md) and fbinstance (devices in a
# fastbinderfs mount).  Static
# programs (the top Makefile's rule), linked with libbinderlite.a, so the
# same binary runs on the host and in the VM.  Developer and harness
# scripts live in scripts/, not here.
#
# tools/lib/fbtool.c is what every program shares (tools/lib/fbtool.h: the
# exit statuses, --help, --version, the "cannot use fastbinder" message);
# the tools, fb-servicemanager and the examples link FBTOOL_O.

TOOL_NAMES	:= fbversion fbservice fbstat fbidl fbinstance
TOOL_BINS	:= $(addprefix $(BUILD)/bin/,$(TOOL_NAMES))

USERSPACE	+= $(TOOL_BINS)
STATIC_PROGS	+= $(TOOL_BINS)
VM_BINS		+= $(TOOL_BINS)
INSTALL_BIN	+= $(TOOL_BINS)
CLEAN_FILES	+= $(TOOL_BINS)

TOOL_HDRS	:= libbinderlite/include/binderlite.h uapi/linux/fastbinder.h \
		   tools/lib/fbtool.h
# --version prints the release: dkms.conf's PACKAGE_VERSION (which follows
# the module's MODULE_VERSION).
FBTOOL_VERSION	:= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
FBTOOL_O	:= $(BUILD)/tools/lib/fbtool.o
CLEAN_FILES	+= $(FBTOOL_O)

$(FBTOOL_O): tools/lib/fbtool.c tools/lib/fbtool.h uapi/linux/fastbinder.h dkms.conf
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DFBTOOL_VERSION='"$(FBTOOL_VERSION)"' -c -o $@ $<

$(TOOL_BINS) $(SM_BIN): $(FBTOOL_O)
$(TOOL_BINS) $(SM_BIN): private PROG_CFLAGS += -I tools/lib
# fbstat is several files, one concern each (tools/fbstat/fbstat.h)
FBSTAT_SRCS	:= $(wildcard tools/fbstat/*.c)

$(BUILD)/bin/fbversion: tools/fbversion/fbversion.c $(BL_A) $(TOOL_HDRS)
$(BUILD)/bin/fbinstance: tools/fbinstance/fbinstance.c $(BL_A) $(TOOL_HDRS)
# fbservice call --idl parses interface files with fbidl's parser
$(BUILD)/bin/fbservice: tools/fbservice/fbservice.c tools/fbidl/parse.c \
		tools/fbidl/fbidl.h $(BL_A) $(TOOL_HDRS)
$(BUILD)/bin/fbservice: private PROG_CFLAGS += -I tools/fbidl
$(BUILD)/bin/fbstat: $(FBSTAT_SRCS) tools/fbstat/fbstat.h $(BL_A) $(TOOL_HDRS)
# fbidl: the parser (shared with fbservice call --idl), the generator, the command
FBIDL_SRCS	:= tools/fbidl/parse.c tools/fbidl/gen.c tools/fbidl/fbidl.c
FBIDL		:= $(BUILD)/bin/fbidl
$(FBIDL): $(FBIDL_SRCS) tools/fbidl/fbidl.h

# ---- generated stubs ------------------------------------------------------
# $(BUILD)/idl/NAME.h and NAME.c from an interface file NAME.fbidl (the
# tests' in tests/idl/, the examples' next to them): one fbidl run makes both.
$(BUILD)/idl/%.h $(BUILD)/idl/%.c: tests/idl/%.fbidl $(FBIDL)
	@mkdir -p $(@D)
	$(FBIDL) -o $(@D) $<
