#!/bin/sh
# scripts/fuzz_venv.sh DIR: a venv in DIR (build/fuzz-venv) with atheris, the coverage-guided
# fuzzer for Python that tests/fuzz/fuzz_report.py uses when it can (docs/fuzzing.md). Apart
# from the project's .venv, which the fuzz target does not need. Quiet when it is there; when
# it cannot be made (no network, no wheel) it says so and exits 0: the Python target then runs
# its seeded mutation loop instead.
DIR=${1:?usage: scripts/fuzz_venv.sh DIR}
PY=${PYTHON:-python3}
PIN="atheris==3.0.0"
"$DIR/bin/python" -c "import atheris" >/dev/null 2>&1 && exit 0
echo "fuzz-venv: installing $PIN in $DIR" >&2
if ! { [ -x "$DIR/bin/python" ] || "$PY" -m venv "$DIR" >/dev/null 2>&1; } ||
   ! "$DIR/bin/python" -m pip install -q --disable-pip-version-check "$PIN" >&2; then
    echo "fuzz-venv: could not install $PIN; the Python fuzz target uses its mutation loop" >&2
fi
exit 0
