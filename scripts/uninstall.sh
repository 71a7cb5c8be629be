#!/bin/sh
# `make uninstall`: removes what `make install` installed into PREFIX (under DESTDIR when set),
# as its manifest lists it, then the directories of tmkit's own that are left empty
# (lib/tmkit, include/tmkit, share/tmkit, the Python package's), and undoes
# `tmkit system-libitm enable` if that pointed at this prefix.
set -e
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
manifest=$PREFIX/share/tmkit/install-manifest.txt
if [ ! -f "$DESTDIR$manifest" ]; then
    echo "uninstall: ${DESTDIR}$manifest not found: no tmkit installed there" >&2
    exit 1
fi
conf=$DESTDIR/etc/ld.so.conf.d/00-tmkit.conf
if [ -f "$conf" ] && grep -q "^$PREFIX/" "$conf" 2>/dev/null; then
    rm -f "$conf"
    [ -n "$DESTDIR" ] || /sbin/ldconfig
    echo "uninstall: tmkit is no longer the system libitm ($conf removed)"
fi
list=$(mktemp); trap 'rm -f "$list"' EXIT
cp "$DESTDIR$manifest" "$list"
n=0
while IFS= read -r f; do
    [ -n "$f" ] || continue
    rm -f "$DESTDIR$f"
    n=$((n + 1))
done < "$list"
# Directories, deepest first: remove those named tmkit* (and their subdirectories) once empty.
sed 's|/[^/]*$||' "$list" | sort -u | awk '{ print length($0) " " $0 }' |
    sort -rn | cut -d' ' -f2- | while IFS= read -r d; do
    while [ "$d" != "$PREFIX" ] && [ "${d#"$PREFIX"/}" != "$d" ]; do
        case ${d#"$PREFIX"} in */tmkit*) ;; *) break ;; esac
        rm -rf "$DESTDIR$d/__pycache__"   # byte code a python run wrote (not in the manifest)
        rmdir "$DESTDIR$d" 2>/dev/null || break
        d=${d%/*}
    done
done
echo "uninstall: removed $n files from ${DESTDIR}$PREFIX"
