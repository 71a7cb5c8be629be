#!/bin/sh
# The manual (BUILD/man, tools/mangen): every page renders with man -l and no warning; every
# `tmkit` command has its tmkit-COMMAND(1) (`tmkit bench NAME` its tmkit-bench-NAME(1)), every TMKIT_* variable of the runtime's table
# (runtime/core/config.c, read from the source, not through the generator) its entry in
# tmkit(7), and every name a section 3 page documents is defined in include/ and has a page.
. "$ROOT/tests/unit/lib.sh"
M=$BUILD/man
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
[ -f "$M/stamp" ] || fail "$M: no manual built (cmake/man.cmake)"
n=0
for page in "$M"/man*/*.[137]; do
    head -1 "$page" | grep -q '^\.so ' && page_so=1 || page_so=0
    out=$(cd "$M" && LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>"$T/err")
    [ ! -s "$T/err" ] || fail "$(basename "$page"): $(cat "$T/err")"
    echo "$out" | grep -q "^NAME" || fail "$(basename "$page") renders no NAME section"
    [ $page_so = 1 ] || echo "$out" | grep -q "^SEE ALSO" || fail "$(basename "$page"): no SEE ALSO"
    n=$((n + 1))
done
[ "$n" -gt 20 ] || fail "only $n pages"
# Commands: the ones `tmkit --help` lists, and the experiments with their own options
cmds=$(python3 "$ROOT/bin/tmkit" --help | sed -n 's/^    \([a-z][a-z-]*\) .*/\1/p; s/^    \([a-z][a-z-]*\)$/\1/p')
[ -n "$cmds" ] || fail "no commands in tmkit --help"
for c in $cmds; do
    [ -f "$M/man1/tmkit-$c.1" ] || fail "tmkit $c has no page tmkit-$c(1)"
done
exps=$(python3 -c "import sys; sys.path.insert(0, '$ROOT/tools'); from tmkit_cli.main import RAW_BENCH; print(' '.join(RAW_BENCH))")
for e in $exps; do
    [ -f "$M/man1/tmkit-bench-$e.1" ] || fail "tmkit bench $e has no page tmkit-bench-$e(1)"
done
for c in run report stat advise check bench; do
    echo "$cmds" | grep -qx "$c" || fail "tmkit --help does not list $c"
done
# Variables: every name in config.c's table
vars=$(sed -n 's/^ *{"\(TMKIT_[A-Z_]*\)",.*/\1/p' "$ROOT/runtime/core/config.c")
[ "$(echo "$vars" | wc -l)" -ge 10 ] || fail "config.c's table not found: $vars"
for v in $vars; do
    [ "$v" = TMKIT_COUNT_LINES ] && continue   # only in the -DTMKIT_COUNT_LINES=ON build
    grep -qx "\.B $v" "$M/man7/tmkit.7" ||
        fail "$v has no entry in tmkit(7)"
done
# Section 3: the pages the issue names, and each documented name defined in the headers
for p in tm_retry tm_cond_wait tm_counter_add tm_group_lock tm_atomic_fetch_add tm_on_commit; do
    [ -f "$M/man3/$p.3" ] || fail "no page $p(3)"
done
names=$(sed -n '/^\.SH NAME/{n;p}' "$M"/man3/*.3 | sed 's/ \\- .*//; s/\\-/-/g; s/,//g')
for name in $names; do
    base=${name#tmkit::}
    grep -rqE "^#define $base\\b|^([A-Za-z_].*[ *])?$base\\(" "$ROOT/include" ||
        fail "$name (in a section 3 page) is not defined in include/"
    case $name in tmkit::*|TM_*) ;; *)
        [ -f "$M/man3/$name.3" ] || fail "$name has no page of its own (.so link)";;
    esac
done
echo "man: $n pages render; $(echo "$cmds" | wc -w) commands, $(echo "$vars" | wc -w) variables, $(echo "$names" | wc -w) API names covered"
