# packaging.mk - the release build, man pages, completions, install and the
# Debian package (README.md, "Installing"). Included by the top-level Makefile.
#
#   make release                 .build/release/forcetrace, the Swift runtime linked statically
#   make man completions         out/package/{man,completions}, made by that binary from its own --help
#   make install [PREFIX=/usr/local] [DESTDIR=...]   and   make uninstall (same PREFIX and DESTDIR)
#   make deb                     out/package/forcetrace_VERSION_ARCH.deb, its tree in out/package/root
#   make test-install            installs into a temp DESTDIR, lints, runs completions in bash, zsh and fish, lintian
#   make portable                out/portable/forcetrace: only the C library at run time (packaging/portable.sh)
#   make dist                    out/dist/forcetrace-VERSION-linux-ARCH.tar.gz, with install.sh --prefix
#   make wheel                   out/dist: the platform wheel carrying the portable binary, and the pure one
#   make test-portable           the archive and the wheel in a minimal Debian root with none of the libraries

PREFIX ?= /usr/local
DESTDIR ?=
RELEASE_BIN := .build/release/forcetrace
PACKAGE_OUT := out/package
# The package's tree: make test ships its binary to the kernel tests' guest.
PACKAGE_ROOT := $(PACKAGE_OUT)/root
# ... and its udev rule and md5sums, for the ft-package scenario (Tests/kernel/README.md).
export KERNEL_PACKAGE ?= $(abspath $(PACKAGE_ROOT))
# Man pages carry the last commit's date, so a rebuild gives the same files.
PACKAGE_EPOCH := $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null || date +%s))
man deb: export SOURCE_DATE_EPOCH := $(PACKAGE_EPOCH)

.PHONY: release man completions install uninstall deb test-install

# One release build for demo, install, deb and the tests; swift build only relinks when nothing changed.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --product forcetrace

# pages.sh makes each set in a temporary folder and moves it into place whole.
man: release
	packaging/pages.sh $(RELEASE_BIN) $(PACKAGE_OUT) man

completions: release
	packaging/pages.sh $(RELEASE_BIN) $(PACKAGE_OUT) completions

install: release man completions
	DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' packaging/install.sh install $(RELEASE_BIN) $(PACKAGE_OUT)/man $(PACKAGE_OUT)/completions

uninstall:
	DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' packaging/install.sh uninstall

# dpkg-shlibdeps (dpkg-dev) works out Depends; the tests read the pages with
# mandoc and man (man-db, groff) and check the package with lintian.
.PHONY: packaging-tools
packaging-tools:
	@dpkg -s dpkg-dev mandoc man-db lintian >/dev/null 2>&1 || { echo "installing dpkg-dev mandoc man-db lintian"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev mandoc man-db lintian >/dev/null; }

# zsh and fish: the tests run each shell's own completion on the generated scripts.
.PHONY: completion-shells
completion-shells:
	@dpkg -s zsh fish >/dev/null 2>&1 || { echo "installing zsh fish"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh fish >/dev/null; }

deb: release man completions packaging-tools
	packaging/deb.sh $(RELEASE_BIN) $(PACKAGE_OUT)/man $(PACKAGE_OUT)/completions $(PACKAGE_OUT)

# The installed files, the man pages (mandoc, man), completions run in bash, zsh and fish,
# the binary without Swift on the library path, uninstall, and lintian on the .deb.
test-install: deb completion-shells
	FORCETRACE_RELEASE=$(abspath $(RELEASE_BIN)) FORCETRACE_PACKAGE=$(abspath $(PACKAGE_OUT)) \
		$(PYTHON) -m pytest -q Tests/install

# The portable build: the same sources and libraries, linked so that only the
# C library is needed at run time; static archives come with the -dev packages
# (libaec-dev holds szip's, which Debian's static HDF5 needs).
PORTABLE_OUT := out/portable
DIST_OUT := out/dist
.PHONY: portable dist wheel portable-deps test-portable bare-root
portable-deps: deps
	@dpkg -s libaec-dev binutils >/dev/null 2>&1 || { echo "installing libaec-dev binutils"; apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libaec-dev binutils >/dev/null; }

portable: portable-deps
	SWIFT=$(SWIFT) packaging/portable.sh $(PORTABLE_OUT)

dist: portable
	SOURCE_DATE_EPOCH=$(PACKAGE_EPOCH) packaging/dist.sh $(PORTABLE_OUT)/forcetrace $(DIST_OUT)

wheel: portable
	SOURCE_DATE_EPOCH=$(PACKAGE_EPOCH) $(PYTHON) packaging/wheel.py $(PORTABLE_OUT) $(DIST_OUT)

# The minimal Debian root (debootstrap, cached outside the checkout) and
# wheels of the package's dependencies for its Python.
CACHE_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/forcetrace
BARE_ROOT ?= $(CACHE_DIR)/bare-root
.PHONY: debootstrap
debootstrap:
	@dpkg -s debootstrap >/dev/null 2>&1 || { echo "installing debootstrap"; apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }

bare-root: debootstrap
	@bash Tests/portable/bare-root.sh $(BARE_ROOT)

# The archive and the wheels on a system with none of forcetrace's libraries,
# against the Debian build's results on the host (Tests/portable).
test-portable: release dist wheel bare-root
	FORCETRACE_RELEASE=$(abspath $(RELEASE_BIN)) FORCETRACE_PORTABLE=$(abspath $(PORTABLE_OUT)) \
	FORCETRACE_DIST=$(abspath $(DIST_OUT)) FORCETRACE_BARE_ROOT=$(BARE_ROOT) \
		$(PYTHON) -m pytest -q Tests/portable
