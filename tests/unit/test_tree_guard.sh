#!/bin/sh
# Nothing third-party in the tracked files: no patch, no script that fetches or builds a fetched
# repository, no package mirror's host name (tests/unit/tree_guard.py). First the guard must
# catch each kind in a made-up tree (and pass a clean one), then it runs on the project.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$T/ok/bench" "$T/bad/bench/results/x" "$T/bad/docs"
printf '#!/bin/sh\napt-get source memcached\npip install jsonschema\n' > "$T/ok/bench/run.sh"
printf 'A diff is shown as --- and +++ lines in prose.\n' > "$T/ok/README.md"
OUT=$(python3 "$ROOT/tests/unit/tree_guard.py" "$T/ok") || fail "clean tree refused: $OUT"
printf 'x\n' > "$T/bad/local.patch"
printf 'notes\n--- a/src/x.c\n+++ b/src/x.c\n@@ -1,2 +1,2 @@\n-a\n+b\n' > "$T/bad/docs/notes.md"
printf '#!/bin/sh\ngit clone https://example.org/x.git\n' > "$T/bad/bench/get.sh"
printf 'cp -r /work/.mirror/a /tmp\n' > "$T/bad/bench/copy.sh"
printf 'cd /tmp/x && curl -sO https://example.org/x.tgz\n' > "$T/bad/bench/dl.sh"
printf 'URIs: http://deb.debian.org/debian\n' > "$T/bad/docs/apt.md"
printf 'print(1)\n' > "$T/bad/bench/results/x/summarize.py"
OUT=$(python3 "$ROOT/tests/unit/tree_guard.py" "$T/bad") && fail "bad tree passed"
for want in "local.patch: a patch file" "notes.md:2: holds a diff" "get.sh:2: runs git" \
        "copy.sh:1: reads the fetched" "dl.sh:1: downloads" "apt.md:1: names a package mirror" \
        "summarize.py: a script inside bench/results"; do
    echo "$OUT" | grep -q "$want" || fail "guard missed '$want' in: $OUT"
done
python3 "$ROOT/tests/unit/tree_guard.py" "$ROOT" || fail "the project's tree: see above"
