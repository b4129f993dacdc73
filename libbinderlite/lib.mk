# SPDX-License-Identifier: MIT
#
# libbinderlite/lib.mk - libbinderlite.a and libbinderlite.so.1, included
# by the top Makefile (first of the fragments: the others link BL_A).
# Installing is "make install" (mk/install.mk); the library's host test,
# tests/unit/parcel.c, is built and run with the other host tests
# (make check, make check-host).
#
# Defines: BL_VERSION BL_SOVERSION BL_SRCS BL_HDRS BL_OBJS BL_A BL_SO, and
# the phony target bl-all (both libraries).

BL_VERSION	:= 1.0.0
BL_SOVERSION	:= 1
BL_BUILDDIR	:= $(BUILD)/libbinderlite

BL_SRCS		:= libbinderlite/alloc.c libbinderlite/parcel.c \
		   libbinderlite/context.c \
		   libbinderlite/io.c libbinderlite/object.c \
		   libbinderlite/call.c libbinderlite/looper.c \
		   libbinderlite/death.c libbinderlite/smclient.c \
		   libbinderlite/region.c libbinderlite/async.c \
		   libbinderlite/gather.c libbinderlite/freeze.c
BL_HDRS		:= libbinderlite/include/binderlite.h libbinderlite/internal.h \
		   uapi/linux/fastbinder.h
BL_OBJS		:= $(patsubst libbinderlite/%.c,$(BL_BUILDDIR)/%.o,$(BL_SRCS))
BL_A		:= $(BL_BUILDDIR)/libbinderlite.a
BL_SO		:= $(BL_BUILDDIR)/libbinderlite.so.$(BL_SOVERSION)
BL_SO_LINK	:= $(BL_BUILDDIR)/libbinderlite.so
BL_MAP		:= libbinderlite/libbinderlite.map

BL_CFLAGS	:= $(USER_CFLAGS) -fPIC
BL_LDFLAGS	:= -shared -Wl,-soname,libbinderlite.so.$(BL_SOVERSION) \
		   -Wl,--version-script=$(BL_MAP) -Wl,-z,defs -Wl,-z,relro \
		   -Wl,-z,now

USERSPACE	+= bl-all
HOST_TEST_LIBS	+= $(BL_A)
HOST_TEST_DEPS	+= $(BL_A)
VM_TEST_LIBS	+= $(BL_A)
VM_TEST_DEPS	+= $(BL_A)

.PHONY: bl-all

bl-all: $(BL_A) $(BL_SO) $(BL_SO_LINK)

$(BL_BUILDDIR)/%.o: libbinderlite/%.c $(BL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BL_CFLAGS) -c -o $@ $<

$(BL_A): $(BL_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(BL_SO): $(BL_OBJS) $(BL_MAP)
	@mkdir -p $(@D)
	$(CC) $(BL_LDFLAGS) -o $@ $(BL_OBJS) -pthread

$(BL_SO_LINK): $(BL_SO)
	ln -sf $(notdir $<) $@
