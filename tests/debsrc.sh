# Sourced by the tests that download Debian source packages (tests/advise/real.sh,
# tests/libitm_suite/run.sh): `debsrc_init DIR` makes DIR a private apt state with bookworm's
# deb-src list (the machine's own apt configuration is left alone) and sets APT to an apt-get
# command that uses it; `debsrc_update` fetches the source lists once (cached in DIR/lists).
debsrc_init() {
    mkdir -p "$1/lists/partial"
    cat > "$1/src.sources" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    APT="apt-get -q -o Dir::Etc::sourcelist=$1/src.sources -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$1/lists"
    DEBSRC_DIR=$1
}

debsrc_update() {
    ls "$DEBSRC_DIR/lists"/*Sources* >/dev/null 2>&1 || $APT update >/dev/null 2>&1 ||
        { echo "FAIL: apt-get update of the source lists"; exit 1; }
}
