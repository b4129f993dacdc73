# SPDX-License-Identifier: MIT
#
# examples/examples.mk - every examples/<name>/<prog>.c is one static
# program (the top Makefile's rule), build/examples/<prog>, linked with
# libbinderlite.a and put on the VM's PATH (VM_BINS).  Headers next to the
# sources are dependencies, their directory is on the include path.  Each
# links tools/lib's FBTOOL_O (tools/tools.mk) for the message and exit
# status 3 every fastbinder program gives when the device cannot be used.

EX_SRCS		:= $(wildcard examples/*/*.c)
EX_BINS		:= $(patsubst %.c,$(BUILD)/examples/%,$(notdir $(EX_SRCS)))

USERSPACE	+= $(EX_BINS)
STATIC_PROGS	+= $(EX_BINS)
VM_BINS		+= $(EX_BINS)
CLEAN_FILES	+= $(EX_BINS)

# The prerequisites and flags of each: $(1) is examples/<name>/<prog>.c.
define EX_RULE
$(BUILD)/examples/$(basename $(notdir $(1))): $(1) $(wildcard $(dir $(1))*.h) \
		$(BL_A) $(FBTOOL_O) tools/lib/fbtool.h libbinderlite/include/binderlite.h \
		uapi/linux/fastbinder.h
$(BUILD)/examples/$(basename $(notdir $(1))): private PROG_CFLAGS := -I $(dir $(1)) -I tools/lib
endef
$(foreach s,$(EX_SRCS),$(eval $(call EX_RULE,$(s))))
