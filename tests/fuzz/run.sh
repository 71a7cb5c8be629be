#!/bin/sh
# run.sh FUZZ_BIN_DIR SRC_DIR TARGET SECONDS [ARTIFACT_DIR]: one libFuzzer run of TARGET
# (FUZZ_BIN_DIR/fuzz_TARGET; for the Python target "report", fuzz_report.py under atheris from
# FUZZ_BIN_DIR/../fuzz-venv, or its mutation loop under the project's .venv) for SECONDS, starting from its committed corpus and regression
# inputs (SRC_DIR/corpus/TARGET, SRC_DIR/regressions/TARGET; new inputs go to a scratch
# directory, the committed ones are not changed). A crash, a leak, a hang over 10 s or memory
# over 2 GB fails it, with the input written to ARTIFACT_DIR (default FUZZ_BIN_DIR/artifacts/
# TARGET). Exits 77 (ctest: skipped) when the target was not built: no clang with libFuzzer.
bin=$1/fuzz_$3 src=$2 t=$3 secs=$4 art=${5:-$1/artifacts/$3}
if [ "$t" = report ]; then # Python: atheris from build/fuzz-venv, else the project's venv
    py=$1/../fuzz-venv/bin/python
    "$py" -c "import atheris" >/dev/null 2>&1 || py=$src/../../.venv/bin/python
    work=$(mktemp -d "${TMPDIR:-/tmp}/tmkit-fuzz-$t.XXXXXX") || exit 1
    # TMPDIR: the script's own scratch files go under $work too, removed below
    TMPDIR=$work "$py" "$src/fuzz_report.py" --seconds "$secs" --artifacts "$art" \
        --work "$work/inputs" "$src/corpus/$t" "$src/regressions/$t"
    rc=$?
    rm -rf "$work"
    exit $rc
fi
if [ ! -x "$bin" ]; then
    echo "SKIP: $bin was not built: no clang with libFuzzer here" \
         "(scripts/deps.sh installs clang-14 and libclang-rt-14-dev; then reconfigure)"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tmkit-fuzz-$t.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$art"
set -- "$src/corpus/$t"
[ -d "$src/regressions/$t" ] && set -- "$@" "$src/regressions/$t"
# ASan: leaks are findings; UBSan: stop at the first report (-fno-sanitize-recover at build)
# (not exec: the trap removes the scratch directory when the run ends)
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$art/" "$work" "$@"
