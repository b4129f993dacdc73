# SPDX-License-Identifier: MIT
#
# examples/examples.mk - every examples/<name>/<prog>.c is one static
# program, build/examples/<prog>, linked with libbinderlite.a and put on
# the VM's PATH (VM_BINS).  Headers next to the sources are dependencies.
#
# This fragment is read before libbinderlite/lib.mk (fragments are sorted),
# so BL_A is not defined yet: name the library by its path.

EX_BL_A		:= build/libbinderlite/libbinderlite.a
EX_CFLAGS	:= $(USER_CFLAGS) -pthread -I libbinderlite/include
EX_SRCS		:= $(wildcard examples/*/*.c)
EX_BINS		:= $(patsubst %.c,$(BUILD)/examples/%,$(notdir $(EX_SRCS)))

USERSPACE	+= $(EX_BINS)
VM_BINS		+= $(EX_BINS)
CLEAN_FILES	+= $(EX_BINS)

# One rule per source: $(1) is examples/<name>/<prog>.c.
define EX_RULE
$(BUILD)/examples/$(basename $(notdir $(1))): $(1) $(wildcard $(dir $(1))*.h) \
		$(EX_BL_A) libbinderlite/include/binderlite.h uapi/linux/fastbinder.h
	@mkdir -p $$(@D)
	$$(CC) $$(EX_CFLAGS) -I $(dir $(1)) -static -o $$@ $$< $$(EX_BL_A)
endef
$(foreach s,$(EX_SRCS),$(eval $(call EX_RULE,$(s))))
