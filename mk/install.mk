# SPDX-License-Identifier: MIT
#
# mk/install.mk - make install, make uninstall, make dkms-source (issue 9).
#
#   make install   [DESTDIR=/stage] [PREFIX=/usr/local] [KVER=ver]
#   make uninstall [the same variables]    removes exactly what install put
#   make install-kver                      prints the kernel install targets
#   make dkms-source [DESTDIR=...]         the DKMS source tree, see README
#
# What goes where (every path below DESTDIR):
#   /lib/modules/KVER/extra/fastbinder.ko   then depmod (depmod -b DESTDIR)
#   /lib/udev/rules.d/60-fastbinder.rules   /dev/fastbinder* mode 0666
#   /lib/systemd/system/fastbinder-servicemanager.service
#   PREFIX/include/linux/fastbinder.h       the uapi header
#   PREFIX/include/binderlite.h
#   PREFIX/lib/libbinderlite.so.1.0.0, .so.1 and .so symlinks, .a
#   PREFIX/lib/pkgconfig/binderlite.pc      generated for this PREFIX
#   PREFIX/sbin/  INSTALL_SBIN              (fb-servicemanager)
#   PREFIX/bin/   INSTALL_BIN               (fbservice, fbstat, fbversion)
#   PREFIX/share/man/manN/                  man/*.N
# The module, udev rule and unit go where the kernel, udev and systemd look
# whatever PREFIX is (/lib is /usr/lib on a merged-/usr system); the rest
# follows PREFIX.  Each directory has a GNU-style variable to override
# (bindir, sbindir, libdir, includedir, mandir, pkgconfigdir, udevrulesdir,
# systemdunitdir, moduledir).
#
# The module installed (KVER): with no KVER=, the running kernel's
# (build/host/, target module-host) when its headers are installed
# (/lib/modules/$(uname -r)/build), else the KERNEL= one (build/KERNEL/,
# target module: a Debian kernel that may be installed but not running).
# KVER=ver installs for kernel ver: the running one's build when ver is the
# running kernel, else a build in build/kver-ver/ against
# /lib/modules/ver/build (or /usr/src/linux-headers-ver).
#
# Contract for the other fragments: append the programs to install to
# INSTALL_SBIN (-> PREFIX/sbin) and INSTALL_BIN (-> PREFIX/bin), and to
# USERSPACE too: install builds them through "make userspace" (the lists
# are read when the recipe runs, so fragments included after this one count).
# A listed program that is not built makes install fail.
#
# Without DESTDIR, install and uninstall also run ldconfig, depmod, and
# reload udev and systemd when they run; uninstall first disables and stops
# the unit.  DEPMOD=: skips depmod (packaging).

PREFIX		?= /usr/local
bindir		?= $(PREFIX)/bin
sbindir		?= $(PREFIX)/sbin
libdir		?= $(PREFIX)/lib
includedir	?= $(PREFIX)/include
mandir		?= $(PREFIX)/share/man
pkgconfigdir	?= $(libdir)/pkgconfig
udevrulesdir	?= /lib/udev/rules.d
systemdunitdir	?= /lib/systemd/system
DEPMOD		?= /sbin/depmod
INSTALL		?= install

FBINDER_UNIT		:= fastbinder-servicemanager.service
FBINDER_UDEV_RULE	:= 60-fastbinder.rules
FBINDER_MANPAGES	:= $(sort $(wildcard man/*.[1-8]))
# lib.mk: BL_SO is libbinderlite.so.1 (its SONAME); installed under its full
# version with the usual two links.
FBINDER_SO_REAL	= libbinderlite.so.$(BL_VERSION)
FBINDER_SO_NAME	= libbinderlite.so.$(BL_SOVERSION)
# depmod's index files (kmod 30-33); uninstall removes them from a DESTDIR
# tree that has no module left, since install created them.
FBINDER_DEPMOD_FILES	:= modules.dep modules.dep.bin modules.alias modules.alias.bin \
		   modules.softdep modules.symbols modules.symbols.bin \
		   modules.builtin.bin modules.builtin.alias.bin modules.devname \
		   modules.weakdep

# depmod -b DESTDIR: a staging tree has no modules.order or modules.builtin,
# and depmod's warnings about them are noise.  Fails when depmod fails.
fbinder_depmod_b	= out=$$($(DEPMOD) -b $(DESTDIR) $(fbinder_inst_kver) 2>&1); rc=$$?; \
		  printf '%s\n' "$$out" | \
		  grep -v 'could not open modules\.\(order\|builtin\)' | grep . >&2; \
		  [ $$rc = 0 ]

# ---- which module, for which kernel --------------------------------------
fbinder_host_kver	:= $(shell uname -r)
fbinder_host_hdrs	:= $(wildcard /lib/modules/$(fbinder_host_kver)/build/Makefile)

ifeq ($(origin KVER),command line)
ifeq ($(KVER)$(if $(fbinder_host_hdrs),,-no-headers),$(fbinder_host_kver))
fbinder_inst_target	:= module-host
fbinder_inst_kver	:= $(fbinder_host_kver)
fbinder_inst_ko	:= $(BUILD)/host/driver/fastbinder.ko
else
fbinder_inst_target	:= module-kver
fbinder_inst_kver	:= $(KVER)
fbinder_inst_ko	:= $(BUILD)/kver-$(KVER)/driver/fastbinder.ko
endif
else ifneq ($(fbinder_host_hdrs),)
fbinder_inst_target	:= module-host
fbinder_inst_kver	:= $(fbinder_host_kver)
fbinder_inst_ko	:= $(BUILD)/host/driver/fastbinder.ko
else
fbinder_inst_target	:= module
# KVER (top Makefile) runs scripts/kver.sh: expanded once, when first used.
fbinder_inst_kver	= $(eval fbinder_inst_kver := $(KVER))$(fbinder_inst_kver)
fbinder_inst_ko	= $(MODULE)
endif
moduledir	?= /lib/modules/$(fbinder_inst_kver)/extra

.PHONY: install uninstall install-kver module-kver dkms-source

install-kver:
	@echo "$(fbinder_inst_kver) $(fbinder_inst_ko) (target $(fbinder_inst_target))"

# KVER=ver that is not the running kernel: a build of its own.
module-kver: | deps-host
	@kdir=/lib/modules/$(KVER)/build; \
	[ -e "$$kdir/Makefile" ] || kdir=/usr/src/linux-headers-$(KVER); \
	echo "  MODULE  $(KVER) -> $(fbinder_inst_ko)"; \
	scripts/build-module.sh "$$kdir" $(BUILD)/kver-$(KVER) $(KBUILD_ARGS)

install: $(fbinder_inst_target) userspace
	@set -e; for f in $(INSTALL_BIN) $(INSTALL_SBIN); do \
		[ -f "$$f" ] || { echo "install: $$f is not built" >&2; exit 1; }; \
	done
	@echo "  INSTALL module $(fbinder_inst_ko) -> $(DESTDIR)$(moduledir)"
	$(INSTALL) -d $(DESTDIR)$(moduledir)
	$(INSTALL) -m 644 $(fbinder_inst_ko) $(DESTDIR)$(moduledir)/fastbinder.ko
ifeq ($(DESTDIR),)
	$(DEPMOD) $(fbinder_inst_kver)
else
	@echo "$(DEPMOD) -b $(DESTDIR) $(fbinder_inst_kver)"; $(fbinder_depmod_b)
endif
	$(INSTALL) -d $(DESTDIR)$(includedir)/linux $(DESTDIR)$(libdir) \
		$(DESTDIR)$(pkgconfigdir)
	$(INSTALL) -m 644 uapi/linux/fastbinder.h $(DESTDIR)$(includedir)/linux/
	$(INSTALL) -m 644 libbinderlite/include/binderlite.h $(DESTDIR)$(includedir)/
	$(INSTALL) -m 644 $(BL_A) $(DESTDIR)$(libdir)/libbinderlite.a
	$(INSTALL) -m 755 $(BL_SO) $(DESTDIR)$(libdir)/$(FBINDER_SO_REAL)
	ln -sf $(FBINDER_SO_REAL) $(DESTDIR)$(libdir)/$(FBINDER_SO_NAME)
	ln -sf $(FBINDER_SO_NAME) $(DESTDIR)$(libdir)/libbinderlite.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(libdir)|' \
	    -e 's|@INCLUDEDIR@|$(includedir)|' -e 's|@VERSION@|$(BL_VERSION)|' \
	    libbinderlite/binderlite.pc.in >$(DESTDIR)$(pkgconfigdir)/binderlite.pc
	chmod 644 $(DESTDIR)$(pkgconfigdir)/binderlite.pc
	$(if $(strip $(INSTALL_SBIN)),$(INSTALL) -d $(DESTDIR)$(sbindir) && \
		$(INSTALL) -m 755 $(INSTALL_SBIN) $(DESTDIR)$(sbindir)/)
	$(if $(strip $(INSTALL_BIN)),$(INSTALL) -d $(DESTDIR)$(bindir) && \
		$(INSTALL) -m 755 $(INSTALL_BIN) $(DESTDIR)$(bindir)/)
	@set -e; for m in $(FBINDER_MANPAGES); do \
		d=$(DESTDIR)$(mandir)/man$${m##*.}; \
		echo "$(INSTALL) -m 644 $$m $$d/"; \
		$(INSTALL) -d $$d; $(INSTALL) -m 644 $$m $$d/; \
	done
	$(INSTALL) -d $(DESTDIR)$(udevrulesdir) $(DESTDIR)$(systemdunitdir)
	$(INSTALL) -m 644 packaging/$(FBINDER_UDEV_RULE) $(DESTDIR)$(udevrulesdir)/
	sed -e 's|@SBINDIR@|$(sbindir)|' packaging/$(FBINDER_UNIT).in \
		>$(DESTDIR)$(systemdunitdir)/$(FBINDER_UNIT)
	chmod 644 $(DESTDIR)$(systemdunitdir)/$(FBINDER_UNIT)
ifeq ($(DESTDIR),)
	ldconfig
	-[ ! -S /run/udev/control ] || udevadm control --reload
	-[ ! -d /run/systemd/system ] || systemctl daemon-reload
	@echo "installed; now: modprobe fastbinder; systemctl enable --now $(FBINDER_UNIT)"
	@[ "$(fbinder_inst_kver)" = "$(fbinder_host_kver)" ] || echo "note: the module is for" \
		"$(fbinder_inst_kver), not the running kernel $(fbinder_host_kver) (no headers for" \
		"it: apt-get install linux-headers-$(fbinder_host_kver), make install again)"
endif

# No prerequisites: never builds.  Pass the DESTDIR, PREFIX and KVER that
# install had.
uninstall:
ifeq ($(DESTDIR),)
	-[ ! -d /run/systemd/system ] || \
		systemctl disable --now $(FBINDER_UNIT) 2>/dev/null || true
endif
	rm -f $(DESTDIR)$(moduledir)/fastbinder.ko
	@set -e; top=$(DESTDIR)/lib/modules/$(fbinder_inst_kver); \
	if [ -z "$(DESTDIR)" ]; then \
		[ ! -d $$top ] || { echo "$(DEPMOD) $(fbinder_inst_kver)"; $(DEPMOD) $(fbinder_inst_kver); }; \
	elif [ -d $$top ] && find $$top -name '*.ko*' | grep -q .; then \
		echo "$(DEPMOD) -b $(DESTDIR) $(fbinder_inst_kver)"; $(fbinder_depmod_b); \
	else \
		echo "rm -f $$top/{depmod indexes}"; \
		for f in $(FBINDER_DEPMOD_FILES); do rm -f $$top/$$f; done; \
	fi
	rm -f $(DESTDIR)$(includedir)/linux/fastbinder.h \
	      $(DESTDIR)$(includedir)/binderlite.h \
	      $(DESTDIR)$(libdir)/libbinderlite.a \
	      $(DESTDIR)$(libdir)/$(FBINDER_SO_REAL) \
	      $(DESTDIR)$(libdir)/$(FBINDER_SO_NAME) \
	      $(DESTDIR)$(libdir)/libbinderlite.so \
	      $(DESTDIR)$(pkgconfigdir)/binderlite.pc \
	      $(addprefix $(DESTDIR)$(sbindir)/,$(notdir $(INSTALL_SBIN))) \
	      $(addprefix $(DESTDIR)$(bindir)/,$(notdir $(INSTALL_BIN))) \
	      $(foreach m,$(FBINDER_MANPAGES),$(DESTDIR)$(mandir)/man$(subst .,,$(suffix $(m)))/$(notdir $(m))) \
	      $(DESTDIR)$(udevrulesdir)/$(FBINDER_UDEV_RULE) \
	      $(DESTDIR)$(systemdunitdir)/$(FBINDER_UNIT)
ifeq ($(DESTDIR),)
	ldconfig
	-[ ! -S /run/udev/control ] || udevadm control --reload
	-[ ! -d /run/systemd/system ] || systemctl daemon-reload
endif

# ---- DKMS ---------------------------------------------------------------------
# The source tree dkms.conf expects: dkms.conf, driver/ and uapi/ side by
# side (driver/Kbuild includes ../uapi), plus the licence.
FBINDER_DKMS_VERSION	:= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
FBINDER_DKMS_DIR	= $(DESTDIR)/usr/src/fastbinder-$(FBINDER_DKMS_VERSION)

dkms-source:
	@test -n "$(FBINDER_DKMS_VERSION)" || { echo "dkms.conf: no PACKAGE_VERSION" >&2; exit 1; }
	rm -rf $(FBINDER_DKMS_DIR)
	$(INSTALL) -d $(FBINDER_DKMS_DIR)
	rsync -a --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*' --exclude='Module.symvers' \
		--exclude='modules.order' driver uapi $(FBINDER_DKMS_DIR)/
	$(INSTALL) -m 644 dkms.conf LICENSE $(FBINDER_DKMS_DIR)/
	@echo "now: dkms add fastbinder/$(FBINDER_DKMS_VERSION)" \
		"&& dkms install fastbinder/$(FBINDER_DKMS_VERSION)"
