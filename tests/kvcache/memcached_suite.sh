#!/bin/sh
# memcached's own regression tests against kvcache (label kvcache-real, `make test-real`: not part
# of `make test`, it downloads). Debian's memcached source package is fetched at run time with
# apt-get source (tests/debsrc.sh: the machine's own mirrors) into BUILD/kvcache-real/ and never
# enters the tree; its t/*.t files run unchanged, each against Debian's /usr/bin/memcached,
# kvcache-baseline and kvcache-tmkit on tmkit, through memcached_suite.py (which says how the
# harness is pointed at a server). apps/kvcache/README.md ("memcached's test files") says which
# files apply and lists every known difference with its reason; this fails when a file that
# passes on memcached fails on a kvcache build without being listed there.
#   memcached_suite.sh ROOT BUILD [FILE.t ...]   (files: run only those; default: every one)
ROOT=$1 BUILD=$2
[ -n "$ROOT" ] && [ -n "$BUILD" ] || { echo "usage: $0 ROOT BUILD [FILE.t ...]"; exit 2; }
shift 2
W=$BUILD/kvcache-real
. "$ROOT/tests/debsrc.sh"
debsrc_init "$W"
[ -x /usr/bin/memcached ] || { echo "FAIL: /usr/bin/memcached missing (apt package memcached)"; exit 1; }
command -v perl >/dev/null || { echo "FAIL: perl missing"; exit 1; }
for b in kvcache-baseline kvcache-tmkit; do
    [ -x "$BUILD/bin/$b" ] || { echo "FAIL: $BUILD/bin/$b missing (cmake --build $BUILD)"; exit 1; }
done

# The source package, once (cached in W): the newest version the lists name, else the older ones.
if ! ls -d "$W"/memcached-1.*/t >/dev/null 2>&1; then
    debsrc_update
    (cd "$W" && { $APT source --download-only memcached >/dev/null 2>&1 ||
        for v in $(apt-cache ${APT#apt-get -q} showsrc memcached 2>/dev/null |
                   sed -n 's/^Version: //p' | sort -rVu); do
            $APT source --download-only "memcached=$v" >/dev/null 2>&1 && break
        done; } && for t in memcached_*.orig.tar.*; do
            case $t in *.asc) ;; *) tar xf "$t" ;; esac
        done) || { echo "FAIL: apt-get source memcached"; exit 1; }
fi
SRC=$(ls -d "$W"/memcached-1.* | sort -V | tail -1)
[ -d "$SRC/t" ] || { echo "FAIL: no t/ in $SRC"; exit 1; }
exec python3 "$ROOT/tests/kvcache/memcached_suite.py" --src "$SRC" --build "$BUILD" \
    --readme "$ROOT/apps/kvcache/README.md" "$@"
