# forcetrace: build, test, demo and benchmarks.
# Every target installs what it needs, so a fresh Debian machine (as root) works.

export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
PYTHON ?= python3
FORCETRACE := .build/debug/forcetrace
APT_PACKAGES := libhdf5-dev zlib1g-dev libdeflate-dev pkg-config libevdev-dev libyaml-dev hdf5-tools
PY_MODULES := h5py numpy pandas pytest xdist matplotlib nbformat nbclient ipykernel xarray h5netcdf dask distributed tables setuptools wheel pyarrow orjson mypy auditwheel

.PHONY: all deps build test test-swift test-python test-notebooks python-package demo samples bench bench-smoke clean
comma := ,

# `make` alone builds: kernel.mk, included below, must not become the default goal.
.DEFAULT_GOAL := all

# The live-kernel scenarios: the harness's own, then the recorder's (Tests/kernel/README.md).
KERNEL_SCENARIOS ?= evemu-smoke,player-selftest,ft-record,ft-sigkill,ft-flood,ft-unplug,ft-grab,ft-initial,ft-keys,ft-calibrate,ft-quirks,ft-kills,ft-pen,ft-levels,ft-whatif,ft-whatif-sim,ft-whatif-shared,ft-whatif-versions-touchpad,ft-whatif-versions-pen,ft-plugin,ft-package,ft-symlink-dirs,ft-force,ft-pressurepad
# The guest runs the Debian package's binary (make deb), which has no Swift to lean on.
KERNEL_BINS ?= out/package/root/usr/bin/forcetrace
include Tests/kernel/kernel.mk
include Tests/libinput/libinput.mk
include packaging/packaging.mk
test-kernel: deb libinput-oracles

all: build

# System libraries from Debian; Python test packages from PyPI.
deps:
	@if ! dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
		echo "installing $(APT_PACKAGES)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	fi
	@if ! $(PYTHON) -c 'import $(subst $(eval) ,$(comma) ,$(PY_MODULES))' >/dev/null 2>&1; then \
		echo "installing Python test packages: $(PY_MODULES)"; \
		$(PYTHON) -m pip install -q -r Tests/python/requirements.txt; \
	fi
	@$(MAKE) --no-print-directory python-package

# The Python package (python/), editable, so the notebooks' kernels import this checkout's.
python-package:
	@if ! $(PYTHON) -c 'import forcetrace, sys; sys.exit(not forcetrace.__file__.startswith("$(abspath python)/"))' >/dev/null 2>&1; then \
		echo "installing the forcetrace Python package from python/ (editable)"; \
		$(PYTHON) -m pip install -q --no-deps --no-build-isolation -e ./python; \
	fi

build: deps
	$(SWIFT) build

# test-kernel boots a real Linux kernel under qemu; it skips only where qemu cannot run.
# Its guest runs on one core while the other suites run (after every package
# is installed, so that no two apt-get runs meet): its log is printed when it
# ends, and either side failing fails `make test`.
test: build deb libinput-tools libinput-oracles libevemu chromium gsettings lua portable-deps debootstrap
	@mkdir -p out; rm -f out/test-kernel.status; git status --porcelain > out/test-status.before 2>/dev/null || true
	@( KERNEL_SCENARIOS='$(KERNEL_SCENARIOS)' KERNEL_BINS='$(KERNEL_BINS)' bash Tests/kernel/test-kernel.sh \
		> out/test-kernel.log 2>&1; echo $$? > out/test-kernel.status ) & \
	$(MAKE) --no-print-directory test-swift test-python test-browser bench-smoke test-install test-portable; suites=$$?; \
	wait; echo "---- test-kernel (ran alongside the suites above) ----"; cat out/test-kernel.log; \
	kernel=$$(cat out/test-kernel.status 2>/dev/null || echo 1); \
	echo "make test: suites exit $$suites, kernel scenarios exit $$kernel"; \
	[ $$suites = 0 ] && [ $$kernel = 0 ]
	@# Tests write only into their own temporary folders: anything new in the checkout fails.
	@git status --porcelain > out/test-status.after 2>/dev/null || true; \
	if ! cmp -s out/test-status.before out/test-status.after; then \
		echo "make test: the tests changed the checkout (git status --porcelain, new since the start):"; \
		diff out/test-status.before out/test-status.after | sed -n 's/^> /  /p'; exit 1; fi

# libinput-tools: the Swift and Python tests check every quirks file forcetrace
# writes with `libinput quirks validate`, and multi-device libinput exports with
# libinput replay's and analyze recording's own code, which needs python3-yaml.
.PHONY: libinput-tools
libinput-tools:
	@dpkg -s libinput-tools python3-yaml >/dev/null 2>&1 || { echo "installing libinput-tools python3-yaml"; apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libinput-tools python3-yaml >/dev/null; }

# libevemu-dev and gcc: test_name_roundtrip.py reads every evemu export with
# libevemu's own evemu_read (Tests/python/evemu_reader.c, built by the test).
.PHONY: libevemu
libevemu:
	@dpkg -s libevemu-dev gcc pkg-config >/dev/null 2>&1 || { echo "installing libevemu-dev gcc pkg-config"; apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libevemu-dev gcc pkg-config >/dev/null; }

test-swift: libinput-tools lua
	FORCETRACE_REQUIRE_LIBINPUT=1 FORCETRACE_REQUIRE_LUA=1 $(SWIFT) test --disable-swift-testing

# gsettings and GNOME's schemas: the pen suggestion's gsettings commands are
# run and read back (Tests/python/test_pen_settings.py).
.PHONY: gsettings
gsettings:
	@dpkg -s libglib2.0-bin gsettings-desktop-schemas >/dev/null 2>&1 || { echo "installing libglib2.0-bin gsettings-desktop-schemas"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libglib2.0-bin gsettings-desktop-schemas >/dev/null; }

# lua5.4 and luac5.4: the libinput plugin (suggest --format libinput-plugin) is
# checked by luac and run in a stand-in for libinput (LibinputPluginTests), and
# the Hyprland output is read back by lua (Tests/python/test_pen_settings.py).
.PHONY: lua
lua:
	@dpkg -s lua5.4 >/dev/null 2>&1 || { echo "installing lua5.4"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lua5.4 >/dev/null; }

# The Python, browser and bench-smoke suites run the release build, the binary
# the package ships (its forcetrace runs use about a quarter of the debug
# build's CPU); XCTest builds and checks the debug build, with its assertions.
TEST_FORCETRACE := $(RELEASE_BIN)
# Two pytest workers (pytest-xdist), each taking whole files, so that a file's
# module fixtures are made once; PYTEST_WORKERS=0 runs them in this process.
PYTEST_WORKERS ?= 2
test-python: release wheel libinput-tools libinput-oracles libevemu gsettings lua
	FORCETRACE_REQUIRE_GSETTINGS=1 FORCETRACE_REQUIRE_LUA=1 FORCETRACE=$(abspath $(TEST_FORCETRACE)) FORCETRACE_WHEELS=$(abspath $(DIST_OUT)) $(PYTHON) -m pytest -q \
		$(if $(filter-out 0,$(PYTEST_WORKERS)),-n $(PYTEST_WORKERS) --dist loadfile) Tests/python

# The notebooks alone, each in a fresh kernel (also part of test-python).
test-notebooks: release wheel
	FORCETRACE=$(abspath $(TEST_FORCETRACE)) FORCETRACE_WHEELS=$(abspath $(DIST_OUT)) $(PYTHON) -m pytest -q Tests/python/test_notebook.py

# report --html in Debian's chromium, headless and offline (Tests/browser).
.PHONY: chromium
chromium:
	@if ! command -v chromium >/dev/null 2>&1; then \
		echo "installing chromium"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi

test-browser: release chromium
	FORCETRACE=$(abspath $(TEST_FORCETRACE)) FORCETRACE_REQUIRE_BROWSER=1 $(PYTHON) -m pytest -q Tests/browser

# Every command's man page as text under docs/commands/, from the built binary,
# dated by the last change to Sources/forcetrace
# (packaging/pages.sh writes the pages; mandoc renders them).
.PHONY: docs-commands
docs-commands: build
	@command -v mandoc >/dev/null || apt-get install -y -q mandoc
	SOURCE_DATE_EPOCH=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct -- Sources/forcetrace)} bash packaging/pages.sh $(FORCETRACE) out/pages man
	@mkdir -p docs/commands && rm -f docs/commands/*.txt
	@for page in out/pages/man/*.1; do mandoc -T ascii -O width=80 $$page | col -bx >docs/commands/$$(basename $$page .1).txt; done
	@echo "docs/commands: $$(ls docs/commands | wc -l) pages"

# The samples' HTML report as the PNG the README shows (docs/report-samples.png).
screenshot: build chromium
	@mkdir -p out
	$(FORCETRACE) import samples/*.evemu -o out/samples.h5 --force
	$(FORCETRACE) report out/samples.h5 --html out/samples.html --contacts 8 --force >/dev/null
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,2200 \
		--screenshot=$(abspath docs/report-samples.png) file://$(abspath out/samples.html) 2>/dev/null
	@echo "docs/report-samples.png"

# The main job on the bundled samples: import them and describe the result.
# With the release build, the one make install installs.
demo: FORCETRACE := $(RELEASE_BIN)
demo: release
	@mkdir -p out
	$(FORCETRACE) import samples/*.evemu -o out/samples.h5 --force
	$(FORCETRACE) info out/samples.h5
	$(FORCETRACE) report out/samples.h5
	$(FORCETRACE) report out/samples.h5 --html out/samples.html --force >/dev/null
	@echo "HTML report: $(abspath out/samples.html)"
	$(FORCETRACE) record --replay samples/touchscreen-mixed.evemu --fast -o out/recorded.h5 --force
	$(FORCETRACE) info out/recorded.h5
	$(FORCETRACE) calibrate --replay samples/calibration/touchpad.evemu --protocol touchpad -o out/calibration.h5 --fast --force
	$(FORCETRACE) suggest out/calibration.h5 --format quirks -o out/forcetrace.quirks --force
	@echo "out/forcetrace.quirks: copy it to /etc/libinput/local-overrides.quirks to use it"
	$(FORCETRACE) calibrate --replay samples/calibration/pen.evemu --protocol pen -o out/pen-calibration.h5 --fast --force --quiet
	for format in xsetwacom gsettings kwin libinput-range hyprland libinput-plugin quirks; do $(FORCETRACE) suggest out/pen-calibration.h5 --format $$format || exit 1; done
	$(FORCETRACE) whatif out/calibration.h5 --quirks out/forcetrace.quirks
	$(FORCETRACE) whatif out/calibration.h5 --quirks out/forcetrace.quirks --libinput all

# Regenerates samples/ with the simulator; the commands are in samples/README.md.
samples: build
	$(FORCETRACE) simulate --seed 1 --presses 24 -o samples/touchscreen-mixed.evemu --force
	$(FORCETRACE) simulate --seed 7 --presses 30 --kinds deep,peek,tap -o samples/touchscreen-deep-presses.evemu --force
	$(FORCETRACE) simulate --seed 1 --protocol touchpad --device touchpad -o samples/calibration/touchpad.evemu --force
	$(FORCETRACE) simulate --seed 1 --protocol pen -o samples/calibration/pen.evemu --force

# forcetrace against numpy peers, bare reads and gzip at three sizes (about
# 1.4 M, 7 M and 14 M samples), simulated once into out/bench/; prints one
# table of ratios and writes it to out/bench/last-run.md (Tests/bench/run_bench.py).
BENCH_PRESSES ?= 20000,100000,100000x2
# The same static release build as make release (a plain -c release would share
# .build/release with it and rebuild everything each time one follows the other).
# forcetrace-bare-read, the bench's yardstick, beside the release binary (same flags, so the library is not rebuilt).
.PHONY: bench-tools
bench-tools: release
	$(SWIFT) build -c release --static-swift-stdlib --product forcetrace-bare-read
bench: bench-tools portable
	$(PYTHON) Tests/bench/run_bench.py --forcetrace $(RELEASE_BIN) --portable $(PORTABLE_OUT)/forcetrace --presses $(BENCH_PRESSES)

# The same benchmark code on tiny inputs, so it cannot rot; make test runs it.
# Its times mean nothing.
bench-smoke: bench-tools portable
	$(PYTHON) Tests/bench/run_bench.py --forcetrace $(TEST_FORCETRACE) --portable $(PORTABLE_OUT)/forcetrace --presses 60,60x2 --repeat 1 --recorder-seconds 5 --out out/bench-smoke

# The Python package's timed promises (Tests/bench/bench_python.py): to_xarray
# against samples, distributed.report on 64 files against one report call.
.PHONY: bench-python
bench-python: release
	PYTHONPATH=$(abspath python) $(PYTHON) Tests/bench/bench_python.py --forcetrace $(RELEASE_BIN)

# libFuzzer harnesses for each parser (evemu, libinput, raw, getevent, inkml, svc2004; Fuzz/fuzz.sh),
# FUZZ_SECONDS each, one after the other; crash inputs land in
# Tests/fuzz-regressions/<parser>/, which make test replays (FuzzRegressionTests).
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/fuzz.sh

# The mutation study (Tests/mutation/README.md). First the rule-made mutants
# (rules.py): generated by operator over Analysis, Calibration, Report, Formats,
# Events, Support and python/forcetrace, the Swift ones compiled as schemata into
# one build of a private copy. FILES='paths or globs' runs a subset; MUTATION_ARGS
# passes its options, e.g. MUTATION_ARGS='--sample 150 --seed 26' or '--no-confirm'.
# Then, without FILES, the curated list (run.py, mutations.json, about a minute
# and a half per mutation), CURATED_ARGS passing its options, e.g.
# CURATED_ARGS='--only pop-class-boundary'. Not part of `make test`; the
# generator's own quick self-test (Tests/python/test_mutation_schemata.py) is.
.PHONY: mutation
mutation: deps
	$(PYTHON) Tests/mutation/rules.py $(if $(FILES),--files '$(FILES)') $(MUTATION_ARGS)
	$(if $(FILES),,$(PYTHON) Tests/mutation/run.py $(CURATED_ARGS))

clean:
	rm -rf .build out
