# SPDX-License-Identifier: MIT
#
# servicemanager/servicemanager.mk - fb-servicemanager, the daemon that owns
# handle 0 (docs/servicemanager.md).  Static, so the same binary runs on the
# host and in the VM; linked with libbinderlite.a.

SM_SRCS		:= $(wildcard servicemanager/*.c)
SM_OBJS		:= $(patsubst servicemanager/%.c,$(BUILD)/servicemanager/%.o,$(SM_SRCS))
SM_BIN		:= $(BUILD)/bin/fb-servicemanager
SM_CFLAGS	:= -std=c11 -Wall -Wextra -Werror -O2 -g -pthread \
		   -I uapi -I libbinderlite/include

USERSPACE	+= $(SM_BIN)
VM_BINS		+= $(SM_BIN)
INSTALL_SBIN	+= $(SM_BIN)

$(BUILD)/servicemanager/%.o: servicemanager/%.c $(wildcard servicemanager/*.h) \
		libbinderlite/include/binderlite.h uapi/linux/fastbinder.h
	@mkdir -p $(@D)
	$(CC) $(SM_CFLAGS) -c -o $@ $<

$(SM_BIN): $(SM_OBJS) $(BL_A)
	@mkdir -p $(@D)
	$(CC) $(SM_CFLAGS) -static -o $@ $(SM_OBJS) $(BL_A)

# The policy parser alone, for its host test (tests/unit/policy_parser.c).
SM_POLICY_OBJ	:= $(BUILD)/servicemanager/policy.o
$(BUILD)/tests/unit/policy_parser: tests/unit/policy_parser.c $(SM_POLICY_OBJ) \
		servicemanager/policy.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -O1 -I servicemanager $(CHECK_CFLAGS) \
		-o $@ $< $(SM_POLICY_OBJ) $(CHECK_LIBS)
