# SPDX-License-Identifier: MIT
#
# servicemanager/servicemanager.mk - fb-servicemanager, the daemon that owns
# handle 0 (docs/servicemanager.md).  A static program (the top Makefile's
# rule), linked with libbinderlite.a and tools/lib's FBTOOL_O (tools/tools.mk).

SM_SRCS		:= $(wildcard servicemanager/*.c)
SM_OBJS		:= $(patsubst servicemanager/%.c,$(BUILD)/servicemanager/%.o,$(SM_SRCS))
SM_BIN		:= $(BUILD)/bin/fb-servicemanager

USERSPACE	+= $(SM_BIN)
STATIC_PROGS	+= $(SM_BIN)
VM_BINS		+= $(SM_BIN)
INSTALL_SBIN	+= $(SM_BIN)

$(BUILD)/servicemanager/%.o: servicemanager/%.c $(wildcard servicemanager/*.h) \
		libbinderlite/include/binderlite.h uapi/linux/fastbinder.h \
		tools/lib/fbtool.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I tools/lib -c -o $@ $<

$(SM_BIN): $(SM_OBJS) $(BL_A)

# The policy parser alone, for its host test (tests/unit/policy_parser.c).
SM_POLICY_OBJ	:= $(BUILD)/servicemanager/policy.o
$(BUILD)/tests/unit/policy_parser: tests/unit/policy_parser.c $(SM_POLICY_OBJ) \
		servicemanager/policy.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -O1 -I servicemanager $(CHECK_CFLAGS) \
		-o $@ $< $(SM_POLICY_OBJ) $(CHECK_LIBS)
