#!/bin/sh
# Installing into a staging root and using tmkit from there, outside the tree (docs/install.md):
# `make install`'s script with DESTDIR, then a C and a C++ program built with pkg-config and both
# built with CMake find_package(tmkit), run on the installed runtime (the C one on GCC's libitm
# too); `tmkit --version`,
# `tmkit run`, `tmkit report` and `tmkit system-libitm` from the installed command; then
# `make uninstall`'s script must leave no file behind.
. "$ROOT/tests/unit/lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
D=$T/stage
P=/usr/local
I=$D$P
DESTDIR=$D PREFIX=$P BUILD=$BUILD sh "$ROOT/scripts/install.sh" || fail "install failed"
for f in bin/tmkit lib/tmkit/libitm.so.1 lib/tmkit/libitm.so lib/tmkit/tmkit-info include/tmkit.h \
         include/tmkit/wait.h lib/pkgconfig/tmkit.pc lib/cmake/tmkit/tmkitConfig.cmake \
         share/tmkit/stats.schema.json share/man/man1/tmkit-run.1 share/man/man7/tmkit.7 \
         share/man/man3/tm_retry.3 lib/python3/dist-packages/tmkit_cli/main.py; do
    [ -e "$I/$f" ] || fail "not installed: $P/$f"
done
grep -q "^Requires-Dist: matplotlib" "$I"/lib/python3/dist-packages/tmkit-*.dist-info/METADATA ||
    fail "the package's metadata declares no dependencies"
mkdir "$T/work"; cp "$ROOT/tests/install/prog.c" "$ROOT/tests/install/prog.cc" "$T/work/"
cp -r "$ROOT/tests/install/consumer" "$T/work/"
cd "$T/work" || fail "cd"
env_clean() { env -u LD_LIBRARY_PATH -u PYTHONPATH -u TMKIT_ALGO -u TMKIT_STATS "$@"; }

# pkg-config: the staged prefix stands in for /usr/local (--define-prefix: from the .pc's place)
pc() { PKG_CONFIG_PATH=$I/lib/pkgconfig pkg-config --define-prefix "$@" tmkit; }
cflags=$(pc --cflags) && libs=$(pc --libs) || fail "pkg-config tmkit failed"
case $cflags in *-fgnu-tm*) ;; *) fail "pkg-config --cflags: no -fgnu-tm ($cflags)";; esac
case $libs in *"-Wl,-rpath,$I/lib/tmkit"*) ;; *) fail "pkg-config --libs: no run path ($libs)";; esac
gcc -O2 $cflags -pthread -c prog.c -o prog_c.o || fail "C compile with pkg-config"
gcc prog_c.o -o prog_c $libs -pthread || fail "C link with pkg-config"
g++ -O2 $cflags -pthread prog.cc -o prog_cxx $libs || fail "C++ build with pkg-config"
check_run() { # check_run PROG: runs on the staged runtime
    out=$(env_clean "./$1") || fail "$1 failed: $out"
    case $out in "tmkit $VERSION "*"|$I/lib/tmkit/libitm.so.1|"*) ;;
        *) fail "$1 did not run on the installed runtime: $out";; esac
}
check_run prog_c
check_run prog_cxx
# The same program on GCC's libitm (LD_LIBRARY_PATH goes before the run path): it needs no
# version of tmkit's (docs/abi.md, "Exported set"), so it starts there, and its transactions and
# tmkit.h's counter (falling back) run on GCC's libitm.
readelf -d prog_c | grep -q RUNPATH ||
    fail "pkg-config --libs: a DT_RPATH, which LD_LIBRARY_PATH cannot override"
sysdir=$(dirname "$(gcc -print-file-name=libitm.so.1)")
out=$(env_clean env LD_LIBRARY_PATH="$sysdir" ./prog_c 2>&1); rc=$?
[ "$rc" = 1 ] && [ "$out" = "not running on tmkit|20000|20000" ] ||
    fail "prog_c (pkg-config) on GCC's libitm, exit $rc: $out"

# CMake: find_package(tmkit) from the staged prefix
env_clean cmake -S consumer -B cm -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$I" >cm.log 2>&1 || { cat cm.log; fail "cmake configure with find_package(tmkit)"; }
cmake --build cm >>cm.log 2>&1 || { cat cm.log; fail "cmake build against tmkit::tmkit"; }
(cd cm && check_run prog_c && check_run prog_cxx) || exit 1

# The installed command
TM=$I/bin/tmkit
v=$(env_clean "$TM" --version) || fail "tmkit --version"
for want in "tmkit $VERSION" "runtime: $I/lib/tmkit/libitm.so.1: tmkit $VERSION (" "algorithms: adaptive (default)"; do
    echo "$v" | grep -qF "$want" || fail "tmkit --version lacks '$want': $v"
done
[ "$(env_clean "$TM" run --version)" = "$v" ] || fail "tmkit run --version differs from tmkit --version"
gcc -O2 -g -fgnu-tm -pthread -I"$I/include" prog.c -o prog_sys || fail "plain -fgnu-tm build"
out=$(env_clean "$TM" run --algo=gl_wt --stats=prof.json ./prog_sys) || fail "tmkit run: $out"
case $out in *"|$I/lib/tmkit/libitm.so.1|"*) ;; *) fail "tmkit run did not use the installed runtime: $out";; esac
rep=$(env_clean "$TM" report prof.json) || fail "tmkit report failed"
echo "$rep" | grep -q "work" || fail "tmkit report names no site in work(): $rep"
"$TM" algos --names | grep -qx norec || fail "tmkit algos"
mkdir ld
"$TM" system-libitm enable --conf-dir ld --no-ldconfig || fail "system-libitm enable"
grep -qx "$I/lib/tmkit" ld/00-tmkit.conf || fail "system-libitm wrote: $(cat ld/00-tmkit.conf)"
st=$("$TM" system-libitm status --conf-dir ld) && echo "$st" | grep -q present ||
    fail "system-libitm status: $st"
"$TM" system-libitm disable --conf-dir ld --no-ldconfig && [ ! -e ld/00-tmkit.conf ] ||
    fail "system-libitm disable"
cd "$T" || fail "cd"
"$TM" bench 2>/dev/null && fail "tmkit bench ran from an installation"

DESTDIR=$D PREFIX=$P sh "$ROOT/scripts/uninstall.sh" || fail "uninstall failed"
left=$(find "$D" ! -type d)
[ -z "$left" ] || fail "uninstall left files: $left"
left=$(find "$D" -type d -path '*tmkit*')
[ -z "$left" ] || fail "uninstall left directories: $left"
echo "install: staged, built with pkg-config and CMake, ran, uninstalled without a trace"
