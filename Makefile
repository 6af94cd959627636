# jail — build, test, install.  See README.md.
# Directories may be given at build or at install time: the binary also finds
# its policies relative to itself (BINDIR/../share/jail/policies).
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/jail
SYSCONFDIR ?= /etc
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
DESTDIR ?=
CC      ?= cc
PKG_CONFIG ?= pkg-config
LIBS_PC := libmnl libnftnl libseccomp libcap-ng inih fuse3 openssl libnghttp2
WERROR  ?= 0
SANITIZE ?= 0
# V=1 shows every command line
V ?= 0
ifeq ($(V),1)
Q :=
else
Q := @
endif

# The version: a release tarball carries a VERSION file; a git checkout says
# what `git describe` says (BASE_VERSION plus the commit when there is no tag).
BASE_VERSION := 0.2.0
VERSION := $(shell cat VERSION 2>/dev/null || \
	git describe --tags --dirty --match 'v[0-9]*' 2>/dev/null | sed 's/^v//' || true)
ifeq ($(VERSION),)
VERSION := $(BASE_VERSION)$(shell git rev-parse --short=12 HEAD >/dev/null 2>&1 && \
	echo "+git.$$(git rev-parse --short=12 HEAD)$$(git diff --quiet HEAD 2>/dev/null || echo .dirty)")
endif

WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes \
        -Wswitch-default -Wcast-qual -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN += -Werror
endif
HARDEN := -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fPIE
CFLAGS ?= -O2 -g
ifeq ($(SANITIZE),1)
CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer
HARDEN := -fPIE
LDFLAGS += -fsanitize=address,undefined
BUILD ?= build-asan
endif
BUILD   ?= build
# The user's (or dpkg-buildflags') CPPFLAGS/CFLAGS/LDFLAGS are added to ours;
# the hardening flags come last, so none of them can be turned off or weakened
# (a packager's _FORTIFY_SOURCE=2 becomes 3).
# One directory per subsystem (the layout shows the architecture); module
# names are unique across them, so objects share one build directory.
SRCDIRS := src src/sandbox src/view src/net src/broker src/export
ALL_CFLAGS := -std=gnu11 -D_GNU_SOURCE $(WARN) $(CPPFLAGS) $(CFLAGS) $(HARDEN) \
              -DJAIL_DATADIR='"$(DATADIR)"' \
              $(shell $(PKG_CONFIG) --cflags $(LIBS_PC)) $(addprefix -I,$(SRCDIRS)) -I$(BUILD)
ALL_LDFLAGS := $(LDFLAGS) -pie -Wl,-z,relro,-z,now
# OpenSSL and nghttp2 are not linked: src/broker/tlslib.c opens them when the broker needs them
# libmnl and libnftnl are not linked either: src/net/nftlib.c opens them for --net allow
# (their sonames are read from the development libraries)
LINKED_PC := $(filter-out openssl libnghttp2 libmnl libnftnl,$(LIBS_PC))
# The four libraries every start loads are linked in from their archives
# (STATIC_LIBS=yes, the default, where the -dev packages install them):
# loading and relocating a shared library costs each start about 0.05 ms,
# and the supervisor's exec is on the start's path (jail --version: 0.21 ms
# less wall time, 0.3 ms less CPU). Distribution packages build with
# STATIC_LIBS=no, their policy: a library's security update then reaches
# jail without a rebuild.
STATIC_LIBS ?= yes
pc_archive = $(if $(filter yes,$(STATIC_LIBS)),$(wildcard $(shell $(PKG_CONFIG) --variable=libdir $(1))/lib$(patsubst lib%,%,$(1)).a))
pc_link    = $(or $(call pc_archive,$(1)),$(shell $(PKG_CONFIG) --libs $(1)))
LDLIBS  := $(foreach p,$(LINKED_PC),$(call pc_link,$(p))) \
           $(filter-out $(shell $(PKG_CONFIG) --libs $(LINKED_PC)),$(shell $(PKG_CONFIG) --libs --static $(LINKED_PC)))
soname   = $(shell objdump -p $(shell $(PKG_CONFIG) --variable=libdir $(1))/$(1).so 2>/dev/null | awk '/SONAME/ {print $$2}')
MNL_SONAME   := $(call soname,libmnl)
NFTNL_SONAME := $(call soname,libnftnl)
ALL_CFLAGS += $(if $(MNL_SONAME),-DMNL_SONAME='"$(MNL_SONAME)"') \
              $(if $(NFTNL_SONAME),-DNFTNL_SONAME='"$(NFTNL_SONAME)"')

SRCS    := $(filter-out src/main.c,$(foreach d,$(SRCDIRS),$(wildcard $(d)/*.c)))
HDRS    := $(foreach d,$(SRCDIRS),$(wildcard $(d)/*.h))
OBJS    := $(addprefix $(BUILD)/,$(notdir $(SRCS:.c=.o))) $(BUILD)/embedded_policy.o
vpath %.c $(SRCDIRS)
UNIT    := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(filter-out tests/unit/t.c,$(wildcard tests/unit/test_*.c)))

.PHONY: all check check-realworld unit asan bench install install-apparmor uninstall dist clean FORCE
all: $(BUILD)/jail $(BUILD)/probe

$(BUILD)/jail: $(BUILD)/main.o $(BUILD)/libjail.a
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# Made anew each time: `ar rcs` on an old archive keeps members whose source is
# gone (a renamed module's stub would still win at link time).
$(BUILD)/libjail.a: $(OBJS)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

# version.h is rewritten only when the version changes, so a plain rebuild
# recompiles nothing.
$(BUILD)/version.h: FORCE | $(BUILD)
	$(Q)printf '#define JAIL_VERSION "%s"\n' '$(VERSION)' > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(BUILD)/main.o: $(BUILD)/version.h
FORCE:

$(BUILD)/%.o: %.c $(HDRS) | $(BUILD)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The embedded default policy: policies/default.ini as a C string, so jail works
# with nothing installed.
$(BUILD)/embedded_policy.c: policies/default.ini scripts/embed | $(BUILD)
	sh scripts/embed $< embedded_default_policy > $@
$(BUILD)/embedded_policy.o: $(BUILD)/embedded_policy.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The probe runs inside the jail in the security suite: static, so it needs nothing
# from the jail's root.
$(BUILD)/probe: tests/security/probe.c | $(BUILD)
	$(CC) -std=gnu11 -O1 -static $(WARN) -o $@ $<

$(BUILD)/unit/%: tests/unit/%.c tests/unit/t.c tests/unit/t.h $(BUILD)/libjail.a | $(BUILD)
	@mkdir -p $(BUILD)/unit
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit $(ALL_LDFLAGS) -o $@ $< tests/unit/t.c $(BUILD)/libjail.a $(LDLIBS)

$(BUILD):
	@mkdir -p $(BUILD)

unit: $(UNIT)

# The whole suite: unit tests, then the real binary as an unprivileged user.
check: all unit
	BUILD=$(BUILD) tests/run

# Real projects' own test suites, on the host and in the jail, compared (slow:
# minutes; CPython's regression tests need libpython3.11-testsuite).
check-realworld: all
	BUILD=$(BUILD) TEST_TIMEOUT=3600 tests/run realworld

asan:
	$(MAKE) SANITIZE=1 check

bench: all
	BUILD=$(BUILD) scripts/bench

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(DATADIR)/policies $(DESTDIR)$(DATADIR)/apparmor
	install -m 0755 $(BUILD)/jail $(DESTDIR)$(BINDIR)/jail
	install -m 0644 man/jail.1 $(DESTDIR)$(MANDIR)/man1/jail.1
	install -m 0644 man/jail.ini.5 $(DESTDIR)$(MANDIR)/man5/jail.ini.5
	install -m 0644 policies/*.ini $(DESTDIR)$(DATADIR)/policies/
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	sed 's|@DATADIR@|$(DATADIR)|' completions/jail.bash > $(DESTDIR)$(BASHCOMPDIR)/jail
	sed 's|@DATADIR@|$(DATADIR)|' completions/_jail > $(DESTDIR)$(ZSHCOMPDIR)/_jail
	sed 's|@BINDIR@|$(BINDIR)|' scripts/apparmor/jail > $(DESTDIR)$(DATADIR)/apparmor/jail
	$(MAKE) --no-print-directory install-apparmor

# Ubuntu >= 23.10 lets only programs whose AppArmor profile grants "userns"
# create unprivileged user namespaces.  The profile needs AppArmor 4 (abi 4.0,
# the userns rule); AppArmor 3 neither restricts user namespaces nor parses
# the rule.  The profile is always installed under DATADIR/apparmor; it goes
# into SYSCONFDIR/apparmor.d where the target's AppArmor is 4 or newer
# (APPARMOR=yes forces it, for a package built for such a distribution;
# debian/postinst makes the same choice on the machine it installs on).
APPARMOR ?= auto
install-apparmor:
	@if [ "$(APPARMOR)" = yes ] || { [ "$(APPARMOR)" = auto ] && \
	    command -v apparmor_parser >/dev/null && \
	    apparmor_parser -V 2>/dev/null | grep -q 'version [4-9]'; }; then \
	  install -d $(DESTDIR)$(SYSCONFDIR)/apparmor.d; \
	  sed 's|@BINDIR@|$(BINDIR)|' scripts/apparmor/jail > $(DESTDIR)$(SYSCONFDIR)/apparmor.d/jail; \
	  echo "  AA      $(DESTDIR)$(SYSCONFDIR)/apparmor.d/jail"; \
	  if [ -z "$(DESTDIR)" ]; then apparmor_parser -r $(SYSCONFDIR)/apparmor.d/jail || true; fi; \
	fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/jail $(DESTDIR)$(MANDIR)/man1/jail.1 \
		$(DESTDIR)$(MANDIR)/man5/jail.ini.5 $(DESTDIR)$(BASHCOMPDIR)/jail \
		$(DESTDIR)$(ZSHCOMPDIR)/_jail
	rm -rf $(DESTDIR)$(DATADIR)
	@if [ -f $(DESTDIR)$(SYSCONFDIR)/apparmor.d/jail ]; then \
	  if [ -z "$(DESTDIR)" ] && command -v apparmor_parser >/dev/null; then \
	    apparmor_parser -R $(SYSCONFDIR)/apparmor.d/jail 2>/dev/null || true; fi; \
	  rm -f $(DESTDIR)$(SYSCONFDIR)/apparmor.d/jail; \
	fi

# A release tarball: the tracked files of HEAD plus VERSION, with fixed owners,
# order and times (the commit's), so the same commit gives the same bytes.
DIST := jail-$(VERSION)
dist:
	@git diff --quiet HEAD || { echo "make dist: uncommitted changes; commit first" >&2; exit 1; }
	$(Q)rm -rf $(BUILD)/dist && mkdir -p $(BUILD)/dist/$(DIST)
	$(Q)git archive --format=tar HEAD | tar -x -C $(BUILD)/dist/$(DIST)
	$(Q)printf '%s\n' '$(VERSION)' > $(BUILD)/dist/$(DIST)/VERSION
	$(Q)t=$$(git log -1 --format=%ct HEAD); \
	  tar -C $(BUILD)/dist --sort=name --mtime=@$$t --owner=0 --group=0 --numeric-owner \
	    --mode=go-w --format=gnu -cf - $(DIST) | gzip -n -9 > $(DIST).tar.gz
	$(Q)rm -rf $(BUILD)/dist
	@echo "  DIST    $(DIST).tar.gz"

clean:
	rm -rf build build-asan
