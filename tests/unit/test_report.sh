#!/bin/sh
# `tmkit report`: the table on a real profile and on fixtures (tests/unit/profiles: a.json, its
# forked child a.json.4101, b.json), --merge, --compare, --html (the comparison page's tables of
# abort reasons on the fixtures and on two real runs), and clear errors (exit 1) for profiles it
# cannot read.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
T=$ROOT/bin/tmkit
P=$ROOT/tests/unit/profiles
src=$ROOT/tests/unit/prog_stats.c
scratch
cancel_line=$(grep -n SITE_CANCEL "$src" | cut -d: -f1)
unsafe_line=$(grep -n UNSAFE_CALL "$src" | cut -d: -f1)
has() { echo "$out" | grep -Eq "$1" || fail "$2: no line matching '$1' in:
$out"; }

# A real profile: sites named, serializing call named, a total row.
expect_rc 0 env TMKIT_ALGO=norec TMKIT_STATS="$d/run.json" "$STATS_PROG"
out=$("$T" report "$d/run.json") || fail "report failed"
has "^main \(prog_stats.c:$cancel_line\) .*100.0%.*cancel 1000" "cancel site"
has "serialized by main \(prog_stats.c:$unsafe_line\)" "serializing call"
has "^total +[0-9]+ +[0-9]+ " "total row"
# --merge picks up PATH.<pid> written by a forked child: counts add up, one row per process.
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["pid"]=777; json.dump(p, open(sys.argv[1]+".777","w"))' "$d/run.json"
out=$("$T" report --merge "$d/run.json") || fail "report --merge failed"
has "^main \(prog_stats.c:$cancel_line\) +2000 +0 +100.0%.*cancel 2000" "merged cancel site"
has "^pid 777 " "child's total"

# Fixtures (objects without debug information: sites are object+offset), sorted by wasted time.
out=$("$T" report "$P/a.json") || fail "report a.json failed"
[ "$(echo "$out" | sed -n 3p | cut -d' ' -f1)" = "app+0x1000" ] || fail "not sorted by wasted time: $out"
has "^app\+0x1000 +1000 +900 +10.0% +8.9% +2-3 +10.0/20 +2.0/4 +2.00 +1.00 +33.3% +0  read_conflict 60, validation 40$" "fixture site"
has "^app\+0x2000 .* 50  serialized by app\+0x2040$" "fixture serializing call"
has "^total +1700 +1500 +11.8% " "fixture total"
out=$("$T" report --merge "$P/a.json") || fail "report --merge a.json failed"
has "^app\+0x1000 +1100 +1000 +9.1% .* 10.0/40 " "merged fixture site (max of maxima)"
has "^app\+0x5000 +10 +10 " "site only in the child"
has "^pid 4100 \(app\) +1700 " "parent's total"
has "^pid 4101 \(app\) +110 " "child's total"
has "^total +1810 +1610 " "merged total"

# --compare: B relative to A, ratios and abort-rate points; one-sided sites listed.
out=$("$T" report "$P/a.json" "$P/b.json" --compare) || fail "compare failed"
has "^app\+0x1000 +1000 +2000 +x2.00 +900 +1500 +x1.67 +10.0% +25.0% +\+15.0pt +3.00 +9.00 +x3.00$" "compared site"
has "^app\+0x2000 +500 +500 += +500 +500 += +0.0% +0.0% +\+0.0pt +0.50 +0.25 +x0.50$" "unchanged site"
has "^total +1700 +2800 +x1.65 " "compared total"
echo "$out" | grep -A1 "^only in A:" | grep -q "app+0x3000 .*starts 200" || fail "site only in A: $out"
echo "$out" | grep -A1 "^only in B:" | grep -q "app+0x4000 .*starts 300" || fail "site only in B: $out"
expect_rc 2 "$T" report "$P/a.json" --compare
echo "$ERR" | grep -q "exactly two profiles" || fail "--compare with one profile: $ERR"

# Profiles it cannot read: exit 1, one clear line, no traceback.
echo '{"tmkit_stats_version": 99, "sites": []}' > "$d/v99.json"
echo '[1, 2]' > "$d/list.json"
for case in "v99.json:unsupported profile version 99" "list.json:not a profile" \
            "nonexistent.json:cannot read" ; do
    expect_rc 1 "$T" report "$d/${case%%:*}"
    echo "$ERR" | grep -q "^tmkit report: .*${case#*:}" || fail "${case%%:*}: $ERR"
done
expect_rc 1 "$T" report "$P/bad_json.json"
echo "$ERR" | grep -q "bad_json.json: not valid JSON" || fail "bad_json: $ERR"
expect_rc 1 "$T" report "$P/a.json" "$P/bad_counter.json"
echo "$ERR" | grep -q "bad_counter.json: malformed profile: site 0: counter 'commits' is '10'" || fail "bad_counter: $ERR"
echo "$ERR" | grep -q Traceback && fail "traceback: $ERR"

# --html: one self-contained page; PNG plots when the project venv has matplotlib.
expect_rc 0 "$T" report "$P/a.json" --html "$d/np.html" --no-plots
grep -q "app+0x1000" "$d/np.html" && grep -q "Plots not drawn" "$d/np.html" || fail "page without plots"
grep -q '<img' "$d/np.html" && fail "--no-plots page has images"

# The comparison page's reason tables: why and where (as in the text), then every reason of every
# matched site, A vs B and the change; sites without aborts on either side are left out.
table() { # table PAGE HEADING: the rows of the table after <h2>HEADING</h2>, cells joined by |
    python3 -c '
import html.parser, sys
class P(html.parser.HTMLParser):
    tag, head, state, rows = None, "", 0, []   # state 0: before the heading, 1: after, 2: in the table
    def handle_starttag(self, t, a):
        self.tag = t
        if self.state == 1 and t == "table": self.state = 2
        if self.state == 2 and t == "tr": self.rows.append([])
        if self.state == 2 and t == "td": self.rows[-1].append("")
    def handle_endtag(self, t):
        self.tag = None
        if self.state == 0 and t == "h2" and self.head == sys.argv[2]: self.state = 1
        if self.state == 2 and t == "table": self.state = 3
        if t == "h2": self.head = ""
    def handle_data(self, x):
        if self.tag == "h2": self.head += x
        if self.state == 2 and self.tag == "td": self.rows[-1][-1] += x
p = P(); p.feed(open(sys.argv[1]).read())
print("\n".join("|".join(r) for r in p.rows if r))' "$1" "$2"
}
row() { echo "$rows" | grep -qxF "$1" || fail "$2: no row '$1' in:
$rows"; }
expect_rc 0 "$T" report "$P/a.json" "$P/b.json" --compare --html "$d/cmpnp.html" --no-plots
rows=$(table "$d/cmpnp.html" "why and where")
row "app+0x1000|100: read_conflict 60, validation 40|500: read_conflict 300, validation 200|0|0|1.00|5.00|" "why: compared site"
row "app+0x2000|0|0|50|50|0.00|0.00|app+0x2040" "why: serialized site"
row "total|200: cancel 100, read_conflict 60|500: read_conflict 300, validation 200|50|50|1.10|5.00|" "why: total"
rows=$(table "$d/cmpnp.html" "aborts by reason, A vs B")
[ "$(echo "$rows" | grep -v '^total|')" = "app+0x1000|all|100|500|x5.00
app+0x1000|read_conflict|60|300|x5.00
app+0x1000|validation|40|200|x5.00" ] || fail "reasons of the matched sites (app+0x2000 never aborts): $rows"
[ "$(echo "$rows" | grep '^total|')" = "total|all|200|500|x2.50
total|read_conflict|60|300|x5.00
total|validation|40|200|x5.00
total|cancel|100|0|x0.00" ] || fail "reasons of the totals (cancel only in A's app+0x3000): $rows"
grep -q "1 matched site with aborts in neither A nor B not listed" "$d/cmpnp.html" || fail "left-out site not said"
# Real profiles: the run above (norec) against one under serialirr, where only the cancelling
# site aborts (1000 times in both). Each side's reason counts must be the profile's own sums.
expect_rc 0 env TMKIT_ALGO=serialirr TMKIT_STATS="$d/serial.json" "$STATS_PROG"
expect_rc 0 "$T" report "$d/run.json" "$d/serial.json" --compare --html "$d/real.html" --no-plots
rows=$(table "$d/real.html" "aborts by reason, A vs B")
row "main (prog_stats.c:$cancel_line)|all|1000|1000|=" "real: cancel site"
row "main (prog_stats.c:$cancel_line)|cancel|1000|1000|=" "real: cancel reason"
echo "$rows" | grep "^main (prog_stats.c:$cancel_line)|" | grep -Evq "\|(cancel|all)\|" \
    && fail "real: cancel site has other reasons: $rows"
want=$(python3 -c '
import json, sys
a, b = (json.load(open(f))["sites"] for f in sys.argv[1:])
n = lambda sites, k: sum(s.get(k, 0) for s in sites)
ks = [k for k in a[0] if k.startswith("abort_") and (n(a, k) or n(b, k))]
print("all|%d|%d" % (sum(n(a, k) for k in ks), sum(n(b, k) for k in ks)))
for k in ks: print("%s|%d|%d" % (k[6:], n(a, k), n(b, k)))' "$d/run.json" "$d/serial.json" | sort)
got=$(echo "$rows" | grep '^total|' | cut -d'|' -f2-4 | sort)
[ "$got" = "$want" ] || fail "real: totals by reason '$got', the profiles say '$want'"
# Per site: "all" is the sum of its reasons on each side; the sites' "all" in A add to the total.
bad=$(echo "$rows" | awk -F'|' '$1 == "total" { next } $2 == "all" { all[$1] = $3 " " $4; a += $3; next }
    { ra[$1] += $3; rb[$1] += $4 } END { for (s in all) if (all[s] != ra[s] " " rb[s]) print s; print "A " a }')
[ "$bad" = "A $(echo "$want" | grep '^all|' | cut -d'|' -f2)" ] || fail "real: per-site sums ($bad): $rows"
if "$ROOT/.venv/bin/python" -c "import matplotlib" 2>/dev/null; then
    expect_rc 0 "$T" report "$d/run.json" --html "$d/run.html"
    grep -q '<img src="data:image/png;base64,' "$d/run.html" || fail "no embedded plot in run.html"
    grep -q "main (prog_stats.c:$cancel_line)" "$d/run.html" || fail "site names missing in run.html"
    grep -Eq '(src|href)="(https?:|/|file:)' "$d/run.html" && fail "run.html refers to external assets"
    expect_rc 0 "$T" report "$P/a.json" "$P/b.json" --compare --html "$d/cmp.html"
    grep -q '<img src="data:image/png;base64,' "$d/cmp.html" && grep -q "+15.0pt" "$d/cmp.html" \
        || fail "comparison page"
else
    echo "report: .venv has no matplotlib; plots not checked" >&2
fi
echo "report: ok"
