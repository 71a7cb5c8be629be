#!/bin/sh
# User errors end with one clear message and exit status 2, never a Python traceback.
ROOT=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
expect() {  # expect PATTERN -- advise args...
    pat=$1; shift
    "$ROOT/bin/tmkit" advise "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ $rc -ne 2 ] || ! grep -q -- "$pat" "$T/err" || grep -q Traceback "$T/err"; then
        echo "FAIL: advise $* (exit $rc), expected /$pat/:"; cat "$T/err"; fails=1
    fi
}
expect "no such file" "$T/missing.c"
echo '{"x": ' > "$T/compile_commands.json"
expect "not valid JSON" -p "$T"
echo '[{"file": "a.c"}]' > "$T/compile_commands.json"
expect "lacks 'directory'" --compdb "$T/compile_commands.json"
expect "cannot read" -p "$T/nodir"
printf 'int f(void) { return undeclared_thing + ; }\n' > "$T/bad.c"
expect "bad.c:1:.*error" "$T/bad.c"
expect "nothing to analyse"
"$ROOT/bin/tmkit" advise --help >/dev/null || { echo "FAIL: --help"; fails=1; }
[ $fails -eq 0 ] && echo "ok: errors"
exit $fails
