# Shared helpers for the unit test scripts.
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() { # expect_rc WANT CMD... : runs CMD, stores stderr in $ERR
    want=$1; shift
    ERR=$("$@" 2>&1 >/dev/null); rc=$?
    [ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want; stderr: $ERR"
}
