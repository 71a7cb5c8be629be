#!/bin/sh
# The runtime's redo-log check (runtime/core/redo_check.c, docs/algorithms.md): before NOrec or
# orec_lazy can run, the transaction clones of the program and of its -fgnu-tm libraries are
# scanned, and what a redo log gets wrong
#  - refuses TMKIT_ALGO=norec / orec_lazy: exit status 2, the hazard named (kind, clone, object
#    and offset), the program's own code never run; TMKIT_REDO_CHECK=off runs it (and the
#    program then fails: the hazard is real);
#  - leaves NOrec and orec_lazy out of TMKIT_ADAPTIVE_MODES=all: the program runs write-through,
#    the profile (JSON, table, tmkit report) says why; a program without hazards keeps them;
#  - TMKIT_REDO_CHECK=strict also refuses calls of transaction_pure functions, which the
#    default leaves to the user; a stripped -fgnu-tm program cannot be checked and is refused;
#  - the runtime and `tmkit check` find the same hazards in every conformance program.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
T=$ROOT/bin/tmkit
scratch
P=$BUILD/tests/conf_c_redo_pure_fnptr_O2

what="an indirect call through a transaction_pure function pointer"
where="in _ZGTt12insert_named[.a-z0-9]* (conf_c_redo_pure_fnptr_O2+0x[0-9a-f]*)"
for algo in norec orec_lazy; do
    expect_rc 2 env TMKIT_ALGO=$algo "$P"
    echo "$ERR" | grep -q "^tmkit: TMKIT_ALGO=$algo refused: 1 redo-log hazard in the transaction clones (first: $what $where)" ||
        fail "$algo: no refusal naming the hazard: $ERR"
    echo "$ERR" | grep -q "tmkit check $P" || fail "$algo: the refusal does not say what to run: $ERR"
    out=$(TMKIT_ALGO=$algo "$P" 2>&1) # the program itself never ran
    [ "$out" = "$ERR" ] || fail "$algo: the program ran: $out"
    expect_rc 1 env TMKIT_ALGO=$algo TMKIT_REDO_CHECK=off "$P"
    echo "$ERR" | grep -q "out of order" || fail "$algo with the check off: $ERR"
done
expect_rc 2 env TMKIT_ALGO=norec "$BUILD/tests/conf_cxx_redo_pure_fnptr_O0"
echo "$ERR" | grep -q "in _ZGTtN5Index" || fail "C++: $ERR"

# TMKIT_ADAPTIVE_MODES=all: write-through, and the profile says why.
expect_rc 0 env TMKIT_ADAPTIVE_MODES=all TMKIT_STATS=$d/fallback.json "$P"
expect_rc 0 env TMKIT_ADAPTIVE_MODES=all TMKIT_STATS=$d/clean.json "$BUILD/tests/conf_c_barriers_int_O2"
python3 - "$d/fallback.json" "$d/clean.json" <<'PY' || fail "adaptive's modes or the profile's note"
import json, sys
fb, clean = (json.load(open(p)) for p in sys.argv[1:])
assert "norec" not in fb["adaptive_modes"] and "orec_lazy" not in fb["adaptive_modes"], fb["adaptive_modes"]
assert fb["redo_fallback"].startswith("TMKIT_ADAPTIVE_MODES=all ran write-through"), fb
assert "indirect call through a transaction_pure function pointer" in fb["redo_fallback"], fb
assert "norec" in clean["adaptive_modes"] and "redo_fallback" not in clean, clean
PY
"$T" report "$d/fallback.json" | sed -n 2p | grep -q "^  TMKIT_ADAPTIVE_MODES=all ran write-through" ||
    fail "tmkit report's header lacks the note: $("$T" report "$d/fallback.json" | head -3)"
expect_rc 0 env TMKIT_ADAPTIVE_MODES=all TMKIT_STATS=- "$P"
echo "$ERR" | sed -n 2p | grep -q "^TMKIT_ADAPTIVE_MODES=all ran write-through" || fail "table: $ERR"

# strict: the program's own transaction_pure call (a counter outside the transaction).
Q=$BUILD/tests/conf_c_cancel_loop_deep_O2
expect_rc 0 env TMKIT_ALGO=norec "$Q"
expect_rc 2 env TMKIT_ALGO=norec TMKIT_REDO_CHECK=strict "$Q"
echo "$ERR" | grep -q "refused: 1 redo-log hazard .*a call of stray_code (a transaction_pure function)" ||
    fail "strict: $ERR"
expect_rc 2 env TMKIT_ALGO=norec TMKIT_REDO_CHECK=yes "$Q"
echo "$ERR" | grep -q "TMKIT_REDO_CHECK='yes' is not valid; valid: auto, strict, off" || fail "$ERR"

# A hazard in a library the program loads; a stripped program.
cat > "$d/lib.c" <<'C'
struct ix { __attribute__((transaction_pure)) long (*cmp)(const void *, const void *); long n; };
__attribute__((transaction_safe)) long lib_find(struct ix *x, const void *k) { x->n++; return x->cmp(k, x); }
C
cat > "$d/main.c" <<'C'
struct ix { __attribute__((transaction_pure)) long (*cmp)(const void *, const void *); long n; };
__attribute__((transaction_safe)) long lib_find(struct ix *x, const void *k);
static long same(const void *a, const void *b) { return a == b; }
int main(void) { struct ix x = {same, 0}; long r; __transaction_atomic { r = lib_find(&x, &x); } return (int)r - 1; }
C
gcc -O2 -g -fgnu-tm -shared -fPIC "$d/lib.c" -o "$d/libtmix.so" || fail "compile lib.c"
gcc -O2 -g -fgnu-tm "$d/main.c" -L"$d" -ltmix -o "$d/uses-lib" || fail "compile main.c"
expect_rc 2 env TMKIT_ALGO=orec_lazy LD_LIBRARY_PATH=$BUILD/lib:$d "$d/uses-lib"
echo "$ERR" | grep -q "in _ZGTt8lib_find (libtmix.so+0x" || fail "library: $ERR"
expect_rc 0 env TMKIT_ALGO=gl_wt LD_LIBRARY_PATH=$BUILD/lib:$d "$d/uses-lib"
strip -o "$d/stripped" "$BUILD/tests/conf_c_barriers_int_O2"
expect_rc 2 env TMKIT_ALGO=norec "$d/stripped"
echo "$ERR" | grep -q "$d/stripped: no symbol table (stripped)" || fail "stripped: $ERR"

# tmkit run checks first, with source lines, and caches each object's findings under its build
# id: a second run reads the cache (objdump is then not needed: a failing stand-in is first on
# PATH); without a cache and without objdump it says it cannot check, and the runtime refuses.
export XDG_CACHE_HOME=$d/cache
mkdir -p "$d/nobin" && printf '#!/bin/sh\nexit 1\n' > "$d/nobin/objdump" && chmod +x "$d/nobin/objdump"
line=$(grep -n "compare(\*pp" "$ROOT/tests/conformance/c_redo_pure_fnptr.c" | cut -d: -f1)
for algo in norec orec_lazy; do
    expect_rc 2 "$T" run --algo=$algo "$P"
    echo "$ERR" | grep -q "^tmkit run: TMKIT_ALGO=$algo refused for $P: 1 redo-log hazard" ||
        fail "tmkit run --algo=$algo: $ERR"
    echo "$ERR" | grep -q "c_redo_pure_fnptr.c:$line: in _ZGTt12insert_named[.a-z0-9]*: indirect call" ||
        fail "tmkit run --algo=$algo: no source line: $ERR"
done
id=$(readelf -n "$P" | sed -n 's/.*Build ID: //p')
[ -s "$XDG_CACHE_HOME/tmkit/check/$id.json" ] || fail "no cache entry for build id $id"
expect_rc 2 env PATH="$d/nobin:$PATH" "$T" run --algo=norec "$P"
echo "$ERR" | grep -q "c_redo_pure_fnptr.c:$line: in _ZGTt12insert_named" || fail "cache not used: $ERR"
rm -rf "$XDG_CACHE_HOME"
expect_rc 2 env PATH="$d/nobin:$PATH" "$T" run --algo=norec "$P"
echo "$ERR" | grep -q "^tmkit run: cannot check $P" || fail "no objdump, no cache: $ERR"
echo "$ERR" | grep -q "^tmkit: TMKIT_ALGO=norec refused" || fail "the runtime did not refuse: $ERR"
strip -o "$d/fnptr-stripped" "$P" # the same build id: the cache must not mix the two up
expect_rc 2 "$T" run --algo=norec "$P"
expect_rc 2 "$T" run --algo=norec "$d/fnptr-stripped"
echo "$ERR" | grep -q "fnptr-stripped: no symbol table" || fail "stripped copy, cache: $ERR"
expect_rc 2 "$T" run --algo=norec "$P"
echo "$ERR" | grep -q "in _ZGTt12insert_named" || fail "original after its stripped copy: $ERR"
expect_rc 1 env TMKIT_REDO_CHECK=off "$T" run --algo=norec "$P"
expect_rc 0 env TMKIT_ADAPTIVE_MODES=all "$T" run "$P"
echo "$ERR" | grep -q "^tmkit run: TMKIT_ADAPTIVE_MODES=all runs $P write-through: 1 redo-log hazard" ||
    fail "tmkit run, adaptive all: $ERR"
expect_rc 0 "$T" run --algo=norec "$BUILD/tests/conf_c_barriers_int_O2"
[ -z "$ERR" ] || fail "a clean program got a message: $ERR"

# The runtime and tmkit check agree, hazard for hazard, on every conformance program (strict:
# every kind). A program the runtime does not refuse runs, with its loops cut short.
"$ROOT/.venv/bin/python" - "$ROOT" "$BUILD" <<'PY' || fail "the runtime and tmkit check disagree"
import glob, os, re, subprocess, sys
root, build = sys.argv[1:]
sys.path.insert(0, os.path.join(root, "tools"))
from tmkit_cli.check.scan import scan
env = dict(os.environ, TMKIT_ALGO="norec", TMKIT_REDO_CHECK="strict", TEST_SCALE_DIV="100000",
           TEST_THREADS="2")
def compare(prog):
    want = sum(1 for f in scan(prog) if f[0] not in ("call", "global"))  # global: check's only
    try:
        err = subprocess.run([prog], env=env, capture_output=True, timeout=60,
                             stdin=subprocess.DEVNULL).stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        err = ""
    m = re.search(r"refused: (\d+) redo-log hazard", err)
    got = int(m.group(1)) if m else 0
    return None if got == want else (os.path.basename(prog), want, got)
from concurrent.futures import ThreadPoolExecutor
progs = sorted(glob.glob(os.path.join(build, "tests", "conf_*")))
assert len(progs) > 100, progs
with ThreadPoolExecutor(2) as pool:
    bad = [r for r in pool.map(compare, progs) if r]
assert not bad, bad
PY
echo "redo_check: ok"
