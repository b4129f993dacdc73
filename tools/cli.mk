# SPDX-License-Identifier: MIT
#
# tools/cli.mk - the command-line tools fbservice (tools/fbservice/) and
# fbstat (tools/fbstat/): static, linked with libbinderlite.a, so the same
# binary runs on the host and in the VM.  (The top Makefile builds every
# tools/*.c as a single-file tool; these live in subdirectories instead.)

CLI_CFLAGS	:= $(USER_CFLAGS) -pthread -I libbinderlite/include
CLI_BINS	:= $(BUILD)/bin/fbservice $(BUILD)/bin/fbstat

USERSPACE	+= $(CLI_BINS)
VM_BINS		+= $(CLI_BINS)
INSTALL_BIN	+= $(CLI_BINS)
CLEAN_FILES	+= $(CLI_BINS)

$(BUILD)/bin/fbservice: tools/fbservice/fbservice.c $(BL_A) \
		libbinderlite/include/binderlite.h uapi/linux/fastbinder.h
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -static -o $@ $< $(BL_A)

FBSTAT_SRCS	:= $(wildcard tools/fbstat/*.c)

$(BUILD)/bin/fbstat: $(FBSTAT_SRCS) tools/fbstat/fbstat.h $(BL_A) \
		libbinderlite/include/binderlite.h uapi/linux/fastbinder.h
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -static -o $@ $(FBSTAT_SRCS) $(BL_A)
