# tmkit — top-level entry points. The README's two commands are `make demo` and `make test`.
BUILD ?= build
JOBS  ?= $(shell nproc)
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all build deps venv test test-real test-deb demo bench bench-quick fuzz fuzz-venv soak clean \
	check-abi install uninstall deb

all: build

deps:
	@scripts/deps.sh

# Python packages (matplotlib, libclang, jsonschema) in .venv, for plots, advise and tests.
venv:
	@scripts/venv.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build venv fuzz-venv
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 300 -LE 'advise-real|libitm-suite|memcached-suite|install-deb'

# Tests that download, not in `make test`: tmkit advise on Debian's memcached and zstd sources
# (end to end: their own tests on the transactional build, a table each), GCC's own libitm
# testsuite (Debian's gcc-12 source package) on tmkit and libitm, and memcached's own t/*.t
# files (Debian's memcached source package) against kvcache. Verbose: the tables are the point,
# and ctest shows a passing test's output only with -V.
test-real: build venv
	@cd $(BUILD) && ctest -V -L 'advise-real|libitm-suite|memcached-suite'

# The Debian package in a clean Debian root made with mmdebstrap (downloads Debian packages; about
# 10 minutes): install, run a -fgnu-tm program with `tmkit run`, the opt-in system libitm, removal.
test-deb: build
	@cd $(BUILD) && ctest --output-on-failure -L install-deb

# Installing (docs/install.md): PREFIX (default /usr/local), DESTDIR to stage.
install: build
	@BUILD=$(abspath $(BUILD)) PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) scripts/install.sh

uninstall:
	@PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) scripts/uninstall.sh

# build/deb/tmkit_VERSION_amd64.deb (dpkg-buildpackage on packaging/debian), checked by lintian.
deb: deps
	@BUILD=$(abspath $(BUILD)) scripts/deb.sh

demo: build venv
	@bin/tmkit demo

# The benchmark suite (bench/README.md): its latest run replaces bench/results/suite/.
bench: build
	@bin/tmkit bench

# One short repeat of everything, to check the suite runs (results under build/bench-results/).
bench-quick: build
	@bin/tmkit bench --quick

# Long fuzz runs of every parser of untrusted input (docs/fuzzing.md; the short ones are in
# `make test`, ctest -L fuzz): FUZZ_SECONDS per target, record in bench/results/fuzz/.
# atheris for the Python target, in its own venv (scripts/fuzz_venv.sh; optional).
fuzz-venv:
	@scripts/fuzz_venv.sh $(BUILD)/fuzz-venv

FUZZ_SECONDS ?= 300
FUZZ_JOBS ?= 1
fuzz: build venv fuzz-venv
	@bench/fuzz.sh --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS) --build $(BUILD)

# Long soak runs (docs/soak.md; the short ones are in `make test`, ctest -L soak): kvcache and
# the web cache for SOAK_SECONDS each under a load that evicts all the time, recorded in
# bench/results/soak/ (the RSS curves as CSV and a plot).
SOAK_SECONDS ?= 600
SOAK_OUT ?= bench/results/soak
soak: build venv
	@bench/soak.sh --seconds $(SOAK_SECONDS) --build $(BUILD) --out $(SOAK_OUT)

clean:
	rm -rf $(BUILD)
