# jail — build, test, install.  See README.md.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/jail
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
DESTDIR ?=
CC      ?= cc
PKG_CONFIG ?= pkg-config
LIBS_PC := libmnl libnftnl libseccomp libcap-ng inih fuse3
WERROR  ?= 0
SANITIZE ?= 0

WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes \
        -Wswitch-default -Wcast-qual -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN += -Werror
endif
HARDEN := -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fPIE
CFLAGS ?= -O2 -g
ifeq ($(SANITIZE),1)
CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer
HARDEN := -fPIE
LDFLAGS += -fsanitize=address,undefined
BUILD ?= build-asan
endif
BUILD   ?= build
ALL_CFLAGS := -std=gnu11 -D_GNU_SOURCE $(WARN) $(HARDEN) $(CFLAGS) -DJAIL_DATADIR='"$(DATADIR)"' \
              $(shell $(PKG_CONFIG) --cflags $(LIBS_PC)) -Isrc -I$(BUILD)
ALL_LDFLAGS := -pie -Wl,-z,relro,-z,now $(LDFLAGS)
LDLIBS  := $(shell $(PKG_CONFIG) --libs $(LIBS_PC))

SRCS    := $(filter-out src/main.c,$(wildcard src/*.c))
OBJS    := $(SRCS:src/%.c=$(BUILD)/%.o) $(BUILD)/embedded_policy.o
UNIT    := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(filter-out tests/unit/t.c,$(wildcard tests/unit/test_*.c)))

.PHONY: all check check-realworld unit asan bench install install-apparmor clean
all: $(BUILD)/jail $(BUILD)/probe

$(BUILD)/jail: $(BUILD)/main.o $(BUILD)/libjail.a
	@echo "  LD      $@"
	@$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# Made anew each time: `ar rcs` on an old archive keeps members whose source is
# gone (a renamed module's stub would still win at link time).
$(BUILD)/libjail.a: $(OBJS)
	@rm -f $@
	@$(AR) rcs $@ $^

$(BUILD)/%.o: src/%.c $(wildcard src/*.h) | $(BUILD)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) -c -o $@ $<

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
	@$(CC) $(ALL_CFLAGS) -Itests/unit $(ALL_LDFLAGS) -o $@ $< tests/unit/t.c $(BUILD)/libjail.a $(LDLIBS)

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
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(DATADIR)/policies
	install -m 0755 $(BUILD)/jail $(DESTDIR)$(BINDIR)/jail
	install -m 0644 man/jail.1 $(DESTDIR)$(MANDIR)/man1/jail.1
	-install -m 0644 man/jail.ini.5 $(DESTDIR)$(MANDIR)/man5/jail.ini.5
	install -m 0644 policies/*.ini $(DESTDIR)$(DATADIR)/policies/
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	sed 's|@DATADIR@|$(DATADIR)|' completions/jail.bash > $(DESTDIR)$(BASHCOMPDIR)/jail
	sed 's|@DATADIR@|$(DATADIR)|' completions/_jail > $(DESTDIR)$(ZSHCOMPDIR)/_jail
	$(MAKE) install-apparmor

# Ubuntu >= 23.10 lets only programs whose AppArmor profile grants "userns"
# create unprivileged user namespaces.
install-apparmor:
	@if [ -d /etc/apparmor.d ] && command -v apparmor_parser >/dev/null && \
	    apparmor_parser -V 2>/dev/null | grep -q 'version [4-9]'; then \
	  install -d $(DESTDIR)/etc/apparmor.d; \
	  sed 's|@BINDIR@|$(BINDIR)|' scripts/apparmor/jail > $(DESTDIR)/etc/apparmor.d/jail; \
	  if [ -z "$(DESTDIR)" ]; then apparmor_parser -r /etc/apparmor.d/jail || true; fi; \
	fi

clean:
	rm -rf build build-asan
