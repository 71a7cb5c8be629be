#!/bin/sh
# Links in README.md, docs/, bench/README.md, the apps' READMEs and bench/results/ resolve, no
# doc has a dated heading, and bench/results/ follows its conventions (tests/unit/doc_links.py).
# First the checker must catch each kind of problem in a made-up tree and pass a clean one.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
for t in ok bad; do
    mkdir -p "$T/$t/docs" "$T/$t/bench/results/suite"
    printf '# Costs\n\n## How it works\n' > "$T/$t/docs/costs.md"
    printf '{"experiment": "suite", "command": "tmkit bench", "date": "2026-01-01 10:00", "commit": "abc", "machine": "2 CPUs"}\n' \
        > "$T/$t/bench/results/suite/context.json"
    printf '# Suite\nRun on 2026-01-01.\n' > "$T/$t/bench/results/suite/README.md"
    printf '# Results\n| [suite](suite/) | |\n' > "$T/$t/bench/results/README.md"
done
printf '# tmkit\nSee [costs](docs/costs.md#how-it-works), bench/results/suite/ and [x](https://example.org/).\n' > "$T/ok/README.md"
OUT=$(python3 "$ROOT/tests/unit/doc_links.py" "$T/ok") || fail "clean tree refused: $OUT"
printf '# tmkit\n[a](docs/none.md) [b](docs/costs.md#nowhere) bench/results/gone/x.csv\n## Run (2026-01-02)\n' > "$T/bad/README.md"
printf '# Costs\nMeasured on 2026-01-03.\n' > "$T/bad/docs/costs.md"
mkdir -p "$T/bad/bench/results/orphan" "$T/bad/bench/results/suite/2026-01-01"
rm "$T/bad/bench/results/suite/context.json"
OUT=$(python3 "$ROOT/tests/unit/doc_links.py" "$T/bad") && fail "bad tree passed"
for want in "missing path: docs/none.md" "missing heading: docs/costs.md#nowhere" \
        "missing results path: bench/results/gone/x.csv" "a dated heading" "costs.md:2: a date" \
        "orphan: not linked from the index" "orphan: no README.md" "suite: no context.json" \
        "a dated run folder"; do
    echo "$OUT" | grep -q "$want" || fail "checker missed '$want' in: $OUT"
done
python3 "$ROOT/tests/unit/doc_links.py" "$ROOT" || fail "the project's pages: see above"
