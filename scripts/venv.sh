#!/bin/sh
# Creates the project's Python venv (.venv) with the pinned packages the tools need, only when
# something is missing, so a warm machine pays nothing. Quiet unless it installs something.
# python3 on PATH may not see Debian's python3-* packages (docs/design.md): use pip in a venv.
# Exit 0 when .venv/bin/python can import everything; 1 otherwise (callers may degrade).
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=$ROOT/.venv
PY=${PYTHON:-python3}
PINS="matplotlib==3.9.2 libclang==18.1.1 jsonschema==4.23.0 pymemcache==4.0.0"
CHECK="import matplotlib, clang.cindex, jsonschema, pymemcache"

if [ ! -x "$VENV/bin/python" ]; then
    echo "venv: creating $VENV" >&2
    "$PY" -m venv "$VENV" >/dev/null 2>&1 || {
        echo "venv: '$PY -m venv' failed (Debian: apt-get install python3-venv)" >&2
        exit 1
    }
fi
if ! "$VENV/bin/python" -c "$CHECK" >/dev/null 2>&1; then
    echo "venv: installing $PINS" >&2
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check $PINS >&2 || {
        echo "venv: could not install $PINS" >&2
        exit 1
    }
fi
"$VENV/bin/python" -c "$CHECK" >/dev/null 2>&1
