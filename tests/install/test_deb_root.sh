#!/bin/sh
# The Debian package in a clean Debian root (`make test-deb`, label install-deb): mmdebstrap makes
# a minimal bookworm root with the package's dependencies from this machine's apt sources (no
# mirror written in the tree), then deb_root_inside.sh installs the package there with dpkg,
# runs a -fgnu-tm program with `tmkit run`, the profile, the HTML page, the advisor, the opt-in
# system libitm, and checks that removal leaves no file.
. "$ROOT/tests/unit/lib.sh"
command -v mmdebstrap >/dev/null || fail "mmdebstrap missing (scripts/deps.sh installs it)"
[ "$(id -u)" = 0 ] || fail "needs root (mmdebstrap's root mode and chroot)"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
OUT=$BUILD/test-deb-root
TMPDIR=$T DEB_OUT=$OUT BUILD=$BUILD sh "$ROOT/scripts/deb.sh" > "$T/deb.log" 2>&1 ||
    { cat "$T/deb.log"; fail "make deb failed"; }
deb=$OUT/tmkit_${VERSION}_amd64.deb
deps=$(dpkg-deb -f "$deb" Depends | sed 's/([^)]*)//g; s/|[^,]*//g; s/ //g')
gcc -O2 -g -fgnu-tm -pthread -I"$ROOT/include" "$ROOT/tests/install/prog.c" -o "$T/prog" || fail "build prog"
cat > "$T/cs.c" <<'END'
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n;
void add(void) { pthread_mutex_lock(&m); n++; pthread_mutex_unlock(&m); }
END
sources=""
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -s "$f" ] && sources="$sources $f"
done
nice mmdebstrap --variant=apt --include="$deps" \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --customize-hook="copy-in $deb $T/prog $T/cs.c /tmp" \
    --customize-hook="mv \"\$1/tmp/$(basename "$deb")\" \"\$1/tmp/tmkit.deb\"" \
    --customize-hook="copy-in $ROOT/tests/install/deb_root_inside.sh /tmp" \
    --customize-hook='chroot "$1" sh /tmp/deb_root_inside.sh' \
    bookworm "$T/root" $sources > "$T/mm.log" 2>&1 || { tail -60 "$T/mm.log"; fail "see above"; }
grep "deb-root:" "$T/mm.log"
