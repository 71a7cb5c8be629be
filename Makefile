# tmkit — top-level entry points. The README's two commands are `make demo` and `make test`.
BUILD ?= build
JOBS  ?= $(shell nproc)

.PHONY: all build deps venv test test-real demo bench bench-quick fuzz fuzz-venv clean check-abi

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
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 300 -LE 'advise-real|libitm-suite'

# Tests that download, not in `make test`: tmkit advise on Debian's memcached and zstd sources,
# and GCC's own libitm testsuite (Debian's gcc-12 source package) on tmkit and libitm.
test-real: build venv
	@cd $(BUILD) && ctest --output-on-failure -L 'advise-real|libitm-suite'

demo: build venv
	@bin/tmkit demo

# The benchmark suite (bench/README.md): results in bench/results/<date>-all/, table in README.md.
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

clean:
	rm -rf $(BUILD)
