# garaged: build, install by hand, or make the Debian package. See docs/raspberry-pi.md.
#
#   make                     release build (static Swift standard library) in .build-package/
#   sudo make install        installs under $(PREFIX) (default /usr/local); DESTDIR= for staging
#   sudo make uninstall      removes what install put there (not /etc/garaged.conf, not the table)
#   make deb                 .cache/package/garaged_<version>_<arch>.deb (scripts/package.sh)
#   make deb ARCH=arm64      the arm64 package, cross-built on amd64 with Debian's Swift (as root)
#   make package-test        installs that .deb in a Debian 12 chroot and opens the door (as root)
#   make package-test ARCH=arm64   the same in a Debian 13 arm64 chroot, run under qemu-user
#   make release             dist/: both packages (amd64, arm64) and SHA256SUMS, on amd64 as root
#                            (scripts/release.sh)
#
# The build never touches .build/ (the developers' debug builds): it has its own scratch path.

PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
# garaged is a daemon that only root and systemd start: sbin, out of users' PATH.
SBINDIR     ?= $(PREFIX)/sbin
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
DOCDIR      ?= $(DATADIR)/doc/garaged
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
# zsh reads /usr/local/share/zsh/site-functions; the package uses /usr/share/zsh/vendor-completions.
ZSHCOMPDIR  ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
# systemd reads units from /usr/local/lib/systemd/system and /lib/systemd/system (and /usr/lib),
# so $(PREFIX)/lib/systemd/system works for /usr/local and /usr and leaves /etc/systemd/system to
# the administrator's own units and overrides. With another PREFIX set UNITDIR=/etc/systemd/system.
UNITDIR     ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR  ?= /etc

SWIFT       ?= swift
SCRATCH     ?= .build-package
# --disable-local-rpath: no RUNPATH $ORIGIN in the installed binaries (nothing is beside them).
# -z now: bind every symbol at start (full RELRO), as Debian's hardening flags do.
# The press path's functions together: each function in a section of its own, Swift's lld, and
# the order in $(HOTPATH) (scripts/hot-path.sh writes it; docs/decisions.md says why). The path
# is the package's own, relative: SwiftPM links in the package's folder.
HOTPATH     ?= packaging/hot-path.order
SWIFTFLAGS  ?= -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now \
               -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -use-ld=lld \
               -Xlinker --symbol-ordering-file=$(HOTPATH) -Xlinker --no-warn-symbol-ordering
STRIP       ?= strip
INSTALL     ?= install
BUILT       := $(SCRATCH)/release

MANPAGES    := garaged.1 garage-pins.1
# The docs keep the repository's layout, so the README's links (docs/..., wiring/...) still work:
# every page in docs/ (the README is a front page that links to them).
DOCS        := README.md $(sort $(wildcard docs/*.md)) wiring/README.md

.PHONY: all build install uninstall deb package-test release clean print-swiftflags

all: build

build:
	$(SWIFT) build $(SWIFTFLAGS) --scratch-path $(SCRATCH)

# The release flags, for the scripts that build what the package ships (bench.sh, arm64.sh).
print-swiftflags:
	@echo $(SWIFTFLAGS)

install:
	@test -x $(BUILT)/garaged -a -x $(BUILT)/garage-pins || \
		{ echo "make install: no release build in $(BUILT)/; run make first (not as root)" >&2; exit 1; }
	$(INSTALL) -d -m 0755 $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/wiring $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)
	$(INSTALL) -m 0755 $(BUILT)/garaged $(DESTDIR)$(SBINDIR)/garaged
	$(INSTALL) -m 0755 $(BUILT)/garage-pins $(DESTDIR)$(BINDIR)/garage-pins
	$(STRIP) --remove-section=.comment --remove-section=.note \
		$(DESTDIR)$(SBINDIR)/garaged $(DESTDIR)$(BINDIR)/garage-pins
	for m in $(MANPAGES); do \
		gzip -9nc docs/man/$$m > $(DESTDIR)$(MANDIR)/man1/$$m.gz && chmod 0644 $(DESTDIR)$(MANDIR)/man1/$$m.gz || exit 1; \
	done
	@# bash-completion sources the file: its generated #! line means nothing there (lintian says so).
	sed '1{/^#!/d;}' packaging/completions/garage-pins.bash > $(DESTDIR)$(BASHCOMPDIR)/garage-pins
	chmod 0644 $(DESTDIR)$(BASHCOMPDIR)/garage-pins
	$(INSTALL) -m 0644 packaging/completions/_garage-pins $(DESTDIR)$(ZSHCOMPDIR)/_garage-pins
	$(INSTALL) -m 0644 packaging/completions/garage-pins.fish $(DESTDIR)$(FISHCOMPDIR)/garage-pins.fish
	for d in $(DOCS); do $(INSTALL) -m 0644 $$d $(DESTDIR)$(DOCDIR)/$$d || exit 1; done
	$(INSTALL) -m 0644 packaging/debian/copyright $(DESTDIR)$(DOCDIR)/copyright
	sed -e 's|^ExecStart=/usr/sbin/garaged |ExecStart=$(SBINDIR)/garaged |' \
	    -e 's|file:/usr/share/doc/garaged/|file:$(DOCDIR)/|' \
	    -e 's|/etc/garaged.conf|$(SYSCONFDIR)/garaged.conf|' \
	    packaging/garaged.service > $(DESTDIR)$(UNITDIR)/garaged.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/garaged.service
	@# The owner's config is never overwritten (a later install keeps their relay = and PINs' settings).
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/garaged.conf ]; then \
		echo "kept $(DESTDIR)$(SYSCONFDIR)/garaged.conf (the example is packaging/garaged.conf.example)"; \
	else \
		$(INSTALL) -m 0644 packaging/garaged.conf.example $(DESTDIR)$(SYSCONFDIR)/garaged.conf && \
		echo "installed $(DESTDIR)$(SYSCONFDIR)/garaged.conf: set relay = before enabling garaged"; \
	fi
	@# A real install (no DESTDIR): the group the unit names (SupplementaryGroups=garage), and systemd told.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
		getent group garage >/dev/null || groupadd --system garage; \
		if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
		echo "next: sudo garage-pins init --pins /var/lib/garaged/pins.eeprom --master 'Yours'"; \
		echo "      (your own master PIN for Yours: 5 printable ASCII characters, no spaces)"; \
		echo "      sudo systemctl enable --now garaged      (docs/raspberry-pi.md)"; \
	fi

uninstall:
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ] && [ -e $(UNITDIR)/garaged.service ]; then \
		echo "systemctl disable --now garaged"; systemctl disable --now garaged.service || true; \
	fi
	rm -f $(DESTDIR)$(SBINDIR)/garaged $(DESTDIR)$(BINDIR)/garage-pins
	for m in $(MANPAGES); do rm -f $(DESTDIR)$(MANDIR)/man1/$$m.gz; done
	rm -f $(DESTDIR)$(BASHCOMPDIR)/garage-pins $(DESTDIR)$(ZSHCOMPDIR)/_garage-pins \
		$(DESTDIR)$(FISHCOMPDIR)/garage-pins.fish
	for d in $(DOCS) copyright; do rm -f $(DESTDIR)$(DOCDIR)/$$d; done
	-rmdir $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/wiring $(DESTDIR)$(DOCDIR) 2>/dev/null
	rm -f $(DESTDIR)$(UNITDIR)/garaged.service
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
	@echo "kept $(SYSCONFDIR)/garaged.conf, /var/lib/garaged (the PIN table) and the group garage"

deb:
	scripts/package.sh $(if $(ARCH),--arch $(ARCH))

package-test:
	scripts/package-test.sh $(if $(ARCH),--arch $(ARCH))

# Both packages and their checksums in dist/ (gitignored), made anew: what a release hands out.
release:
	scripts/release.sh

clean:
	rm -rf $(SCRATCH) $(SCRATCH)-arm64 .cache/package/stage
