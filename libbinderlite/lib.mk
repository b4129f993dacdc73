# SPDX-License-Identifier: MIT
#
# libbinderlite/lib.mk - build fragment for libbinderlite and its host tests.
#
# Self-contained: paths are relative to the repository top, so the
# top-level Makefile can `include libbinderlite/lib.mk`, and it also works
# alone:   make -f libbinderlite/lib.mk [bl-all|bl-check|bl-clean]
# (installing is the top-level "make install": mk/install.mk)
#
# Defines: BL_SRCS BL_OBJS BL_A BL_SO BL_CFLAGS BL_TESTS, and the phony
# targets bl-all (both libraries), bl-check (host tests under valgrind),
# bl-test (host tests without valgrind), bl-clean.
# Every variable and target is prefixed, so nothing collides with the
# including makefile; when included, the including makefile's default goal
# is kept.

ifeq ($(notdir $(firstword $(MAKEFILE_LIST))),lib.mk)
.DEFAULT_GOAL := bl-all
endif

CC ?= cc
BL_VERSION	:= 1.0.0
BL_SOVERSION	:= 1
BL_BUILDDIR	:= build/libbinderlite
BL_TESTDIR	:= build/tests/unit

BL_SRCS		:= libbinderlite/alloc.c libbinderlite/parcel.c \
		   libbinderlite/context.c \
		   libbinderlite/io.c libbinderlite/object.c \
		   libbinderlite/call.c libbinderlite/looper.c \
		   libbinderlite/death.c libbinderlite/smclient.c
BL_HDRS		:= libbinderlite/include/binderlite.h libbinderlite/internal.h \
		   uapi/linux/fastbinder.h
BL_OBJS		:= $(patsubst libbinderlite/%.c,$(BL_BUILDDIR)/%.o,$(BL_SRCS))
BL_A		:= $(BL_BUILDDIR)/libbinderlite.a
BL_SO		:= $(BL_BUILDDIR)/libbinderlite.so.$(BL_SOVERSION)
BL_SO_LINK	:= $(BL_BUILDDIR)/libbinderlite.so
BL_MAP		:= libbinderlite/libbinderlite.map

BL_CFLAGS	:= -std=c11 -Wall -Wextra -Werror -O2 -fPIC -g -pthread \
		   -I uapi -I libbinderlite/include $(BL_EXTRA_CFLAGS)
BL_LDFLAGS	:= -shared -Wl,-soname,libbinderlite.so.$(BL_SOVERSION) \
		   -Wl,--version-script=$(BL_MAP) -Wl,-z,defs -Wl,-z,relro \
		   -Wl,-z,now

.PHONY: bl-all bl-check bl-test bl-clean

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

# ---- host tests (libcheck), linked against the static library ----------

BL_CHECK_CFLAGS	:= $(shell pkg-config --cflags check 2>/dev/null)
BL_CHECK_LIBS	:= $(shell pkg-config --libs check 2>/dev/null)
BL_TEST_SRCS	:= tests/unit/parcel.c
BL_TESTS	:= $(patsubst tests/unit/%.c,$(BL_TESTDIR)/%,$(BL_TEST_SRCS))
BL_VALGRIND	:= valgrind --error-exitcode=1 --leak-check=full \
		   --errors-for-leak-kinds=all --show-leak-kinds=all -q

$(BL_TESTDIR)/parcel: tests/unit/parcel.c $(BL_A) $(BL_HDRS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -Werror -O1 -g -I uapi \
	    -I libbinderlite/include $(BL_CHECK_CFLAGS) -o $@ $< $(BL_A) \
	    $(BL_CHECK_LIBS)

bl-test: $(BL_TESTS)
	@set -e; for t in $(BL_TESTS); do echo "  RUN $$t"; $$t; done

# CK_FORK=no: one process, so valgrind sees every test and the leak check
# covers the library's allocations.
bl-check: $(BL_TESTS)
	@set -e; for t in $(BL_TESTS); do \
	    echo "  VALGRIND $$t"; CK_FORK=no $(BL_VALGRIND) $$t; done

bl-clean:
	rm -rf $(BL_BUILDDIR) $(BL_TESTS)
