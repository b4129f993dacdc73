# SPDX-License-Identifier: MIT
#
# examples/examples.mk - every examples/<name>/<prog>.c is one static
# program (the top Makefile's rule), build/examples/<prog>, linked with
# libbinderlite.a and put on the VM's PATH (VM_BINS).  Headers next to the
# sources are dependencies, their directory is on the include path.  Each
# links tools/lib's FBTOOL_O (tools/tools.mk) for the message and exit
# status 3 every fastbinder program gives when the device cannot be used.
# An example with an interface file (examples/<name>/<iface>.fbidl) links
# the C fbidl generates from it, build/examples/gen/<iface>.c, and finds
# <iface>.h there.

EX_SRCS		:= $(wildcard examples/*/*.c)
EX_BINS		:= $(patsubst %.c,$(BUILD)/examples/%,$(notdir $(EX_SRCS)))

USERSPACE	+= $(EX_BINS)
STATIC_PROGS	+= $(EX_BINS)
VM_BINS		+= $(EX_BINS)
CLEAN_FILES	+= $(EX_BINS)

EX_IDLS		:= $(wildcard examples/*/*.fbidl)
EX_GEN		:= $(BUILD)/examples/gen
CLEAN_FILES	+= $(EX_GEN)
vpath %.fbidl $(sort $(dir $(EX_IDLS)))
# in the VM's /fb/files too, for fbservice call --idl (example_calculator.sh)
VM_RUN_ARGS	+= $(addprefix -f ,$(EX_IDLS))
$(EX_GEN)/%.h $(EX_GEN)/%.c: %.fbidl $(FBIDL)
	@mkdir -p $(@D)
	$(FBIDL) -o $(@D) $<
.SECONDARY: $(foreach f,$(EX_IDLS),$(EX_GEN)/$(basename $(notdir $(f))).c \
		$(EX_GEN)/$(basename $(notdir $(f))).h)

# The prerequisites and flags of each: $(1) is examples/<name>/<prog>.c.
ex_gen_of	= $(foreach f,$(wildcard $(dir $(1))*.fbidl),\
		  $(EX_GEN)/$(basename $(notdir $(f))).c $(EX_GEN)/$(basename $(notdir $(f))).h)
define EX_RULE
$(BUILD)/examples/$(basename $(notdir $(1))): $(1) $(wildcard $(dir $(1))*.h) \
		$(call ex_gen_of,$(1)) \
		$(BL_A) $(FBTOOL_O) tools/lib/fbtool.h libbinderlite/include/binderlite.h \
		uapi/linux/fastbinder.h
$(BUILD)/examples/$(basename $(notdir $(1))): private PROG_CFLAGS := -I $(dir $(1)) -I tools/lib \
		$(if $(call ex_gen_of,$(1)),-I $(EX_GEN))
endef
$(foreach s,$(EX_SRCS),$(eval $(call EX_RULE,$(s))))
