# Sourced after tests/debsrc.sh by the tests that carry Debian source packages through
# `tmkit advise` (tests/advise/real.sh, tests/advise/e2e/): `debsrc_fetch PACKAGE DIRGLOB`
# downloads PACKAGE's source package into DEBSRC_DIR (set by debsrc_init) and unpacks its
# upstream tarball there, unless a directory matching DIRGLOB is already unpacked (the cache:
# nothing is fetched twice). The Debian patches are not applied: the upstream tree is what gets
# configured, built and advised. When the newest version cannot be fetched (a mirror may list
# a security update whose files it does not serve yet), the other versions the source lists
# name are tried, newest first. Exits 1 with a FAIL line when none can be fetched.
debsrc_versions() {
    apt-cache ${APT#apt-get -q} showsrc "$1" 2>/dev/null | sed -n 's/^Version: //p' | sort -rVu
}

debsrc_fetch() {
    ls -d "$DEBSRC_DIR"/$2 >/dev/null 2>&1 && return 0
    debsrc_update
    (cd "$DEBSRC_DIR" && { $APT source --download-only "$1" >/dev/null 2>&1 ||
        for v in $(debsrc_versions "$1"); do
            $APT source --download-only "$1=$v" >/dev/null 2>&1 && break
        done; } && for t in "$1"_*.orig.tar.*; do
            case $t in *.asc) ;; *) tar xf "$t" ;; esac
        done) || { echo "FAIL: apt-get source $1 (no version of it could be fetched)"; exit 1; }
}
