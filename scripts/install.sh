#!/bin/sh
# `make install`: installs the build into PREFIX (default /usr/local), staged under DESTDIR when
# set (cmake --install; cmake/install.cmake lists what goes where), and records every file it
# installed in PREFIX/share/tmkit/install-manifest.txt, which `make uninstall` reads.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
PREFIX=${PREFIX:-/usr/local}
case $PREFIX in /*) ;; *) echo "install: PREFIX must be an absolute path ($PREFIX)" >&2; exit 2;; esac
DESTDIR=${DESTDIR:-}
export DESTDIR
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
manifest=$PREFIX/share/tmkit/install-manifest.txt
# (CMake's manifest lists the paths under the prefix; some versions prefix DESTDIR: strip it.)
{ awk -v d="$DESTDIR" '{ print (d != "" && index($0, d) == 1) ? substr($0, length(d) + 1) : $0 }' \
      "$BUILD/install_manifest.txt"
  echo "$manifest"; } | sort -u > "$DESTDIR$manifest.tmp"
mv "$DESTDIR$manifest.tmp" "$DESTDIR$manifest"
echo "install: $(wc -l < "$DESTDIR$manifest") files in ${DESTDIR}$PREFIX (list: $manifest)"
