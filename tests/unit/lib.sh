# Shared helpers for the unit test scripts.
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() { # expect_rc WANT CMD... : runs CMD, stores stderr in $ERR
    want=$1; shift
    ERR=$("$@" 2>&1 >/dev/null); rc=$?
    [ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want; stderr: $ERR"
}
# scratch: a scratch directory $d, removed when the script exits, also when a check fails.
scratch() {
    d=$(mktemp -d)
    trap 'rm -rf "$d"' EXIT
}
# The RTM tests (test_htm_*.sh): skip (77) on a CPU without RTM; the runtime under test; a
# scratch directory $d.
htm_test_setup() {
    grep -qw rtm /proc/cpuinfo || { echo "SKIP: no RTM on this CPU"; exit 77; }
    export LD_LIBRARY_PATH=$BUILD/lib
    scratch
}
# profile_fields FILE KEY...: values from a JSON profile (TMKIT_STATS), space-separated in the
# order asked; a KEY is a top-level field, a dotted path into one (adaptive_epochs.serial), or
# conflict_aborts: the sites' read-conflict, write-conflict and validation aborts summed.
profile_fields() {
    python3 - "$@" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["conflict_aborts"] = sum(s["abort_read_conflict"] + s["abort_write_conflict"] +
                           s["abort_validation"] for s in p["sites"])
def field(path):
    v = p
    for k in path.split("."):
        v = v[k]
    return v
print(*(field(k) for k in sys.argv[2:]))
PY
}
# crowded_retry WHAT CMD...: runs CMD (a run and its profile check) again, up to 3 times in all,
# while it exits 78 (its threads hardly ran at once); then 78 or 77 skips the test (77) and
# anything but 0 fails it.
crowded_retry() {
    what=$1; shift
    for attempt in 1 2 3; do
        "$@"; rc=$?
        [ $rc = 78 ] || break
    done
    [ $rc = 78 ] && { echo "SKIP: the machine is crowded: the threads never ran at once"; exit 77; }
    [ $rc = 77 ] && exit 77
    [ $rc = 0 ] || fail "$what: profile check failed"
}
