#!/bin/sh
# `make deb`: builds BUILD/deb/tmkit_VERSION_amd64.deb (DEB_OUT: another directory) with dpkg-buildpackage (packaging/debian)
# from a copy of the files the package is built from, so the tree gets no debian/ directory and
# nothing is written beside it; then runs lintian on the package (its output: BUILD/deb/lintian.txt;
# the exit status is lintian's, non-zero on an error). The version is CMakeLists.txt's.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=${DEB_OUT:-$BUILD/deb}
version=$(sed -n 's/^project(tmkit VERSION \([0-9.]*\) .*/\1/p' "$ROOT/CMakeLists.txt")
[ -n "$version" ] || { echo "deb: no version in CMakeLists.txt's project()" >&2; exit 2; }
src=$OUT/tmkit-$version
rm -rf "$OUT"
mkdir -p "$src"
cd "$ROOT"
PARTS="CMakeLists.txt cmake runtime include tools bin docs/stats.schema.json"
if git rev-parse --git-dir >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard -- $PARTS | xargs -0 cp --parents -t "$src"
else
    cp -r --parents $PARTS "$src"
fi
cp -r packaging/debian "$src/debian"
cat > "$src/debian/changelog" <<END
tmkit ($version) unstable; urgency=medium

  * Built from the tmkit tree (version $version, CMakeLists.txt).

 -- $(sed -n 's/^Maintainer: //p' packaging/debian/control)  $(date -R)
END
echo "deb: dpkg-buildpackage in $src" >&2
(cd "$src" && DEB_BUILD_OPTIONS="parallel=${JOBS:-2}" nice dpkg-buildpackage -b -us -uc \
    > "$OUT/build.log" 2>&1) || { tail -30 "$OUT/build.log" >&2; echo "deb: failed; log: $OUT/build.log" >&2; exit 1; }
deb=$OUT/tmkit_${version}_amd64.deb
echo "deb: $deb" >&2
rc=0
lintian --fail-on error "$deb" > "$OUT/lintian.txt" 2>&1 || rc=$?
cat "$OUT/lintian.txt"
echo "deb: lintian: $(grep -c '^E:' "$OUT/lintian.txt") errors, $(grep -c '^W:' "$OUT/lintian.txt") warnings (exit $rc)" >&2
exit $rc
