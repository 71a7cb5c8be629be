# Sourced by the tests that download Debian source packages (tests/advise/real.sh,
# tests/libitm_suite/run.sh): `debsrc_init DIR` makes DIR a private apt state whose deb-src list
# is built from the machine's own apt sources (tests/debsrc_sources.py: the same mirrors, suites
# and keys as its `deb` entries, so it works behind any mirror; the machine's apt configuration
# is left alone) and sets APT to an apt-get command that uses it; `debsrc_update` fetches the
# source lists once (cached in DIR/lists). The caller sets ROOT, the source tree.
debsrc_init() {
    mkdir -p "$1/lists/partial"
    python3 "$ROOT/tests/debsrc_sources.py" > "$1/src.sources.new" 2>"$1/src.err" ||
        { echo "FAIL: $(cat "$1/src.err")"; exit 1; }
    mv "$1/src.sources.new" "$1/src.sources"
    APT="apt-get -q -o Dir::Etc::sourcelist=$1/src.sources -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$1/lists"
    DEBSRC_DIR=$1
}

debsrc_update() {
    ls "$DEBSRC_DIR/lists"/*Sources* >/dev/null 2>&1 || $APT update >/dev/null 2>&1 ||
        { echo "FAIL: apt-get update of the source lists ($DEBSRC_DIR/src.sources)"; exit 1; }
}
