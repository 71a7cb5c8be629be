#!/bin/sh
# The back-off after an abort (core/txn.c: tm_backoff): under adaptive, a thread whose commits
# are ~0.4 us apart or more restarts at once, and one that commits back to back backs off.
# prog_grants runs 2 threads of private work then a short transaction on one of 16 shared
# records (16 sums each); the JSON profile counts the restarts that skipped the back-off
# (adaptive_restarts_without_backoff) beside the site's aborts. Checks:
#  - ~800 ns of private work between commits: most restarts skip the back-off;
#  - back to back (the bench's hash set, 256K keys, 10% updates, whose lookups and updates
#    commit ~60 ns apart a thread at 2 threads): few do (only those after a window measured
#    while the thread waited, for the serial lock or a back-off: 10 of 10,728 in one run);
#  - the sums, under every algorithm, at 2 and 4 threads (prog_grants checks them).
# Only where the run aborted enough to judge (100 aborts): adaptive may run it serially; at
# least one of the two shapes must be judged.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
scratch
for algo in $ALGOS; do
    for t in 2 4; do
        expect_rc 0 env TMKIT_ALGO=$algo "$GRANTS_PROG" $t 20000 400 16
    done
done
# fields FILE: aborts of the site, restarts without back-off
fields() { profile_fields "$1" conflict_aborts adaptive_restarts_without_backoff; }
# measured NAME CMD...: runs CMD under adaptive, profiled to $d/NAME.json, up to 3 times until a
# run aborts 100 times; sets $aborts and $quick (its restarts without back-off); false if none did
measured() {
    name=$1; shift
    for attempt in 1 2 3; do
        expect_rc 0 env TMKIT_ALGO=adaptive TMKIT_STATS="$d/$name.json" "$@"
        read -r aborts quick <<EOF
$(fields "$d/$name.json")
EOF
        [ "$aborts" -ge 100 ] && return 0
    done
    return 1
}
checked=0
if measured far "$GRANTS_PROG" 2 300000 400 16; then
    [ $((quick * 2)) -ge "$aborts" ] ||
        fail "commits far apart: only $quick of $aborts restarts skipped the back-off"
    checked=$((checked + 1))
fi
far="$quick of $aborts"
if measured near "$BUILD/bin/hashset-tm" --threads 2 --seconds 0.5; then
    [ $((quick * 3)) -le "$aborts" ] ||
        fail "back to back: $quick of $aborts restarts skipped the back-off"
    checked=$((checked + 1))
fi
[ "$checked" -ge 1 ] || fail "neither shape aborted 100 times in 3 runs: nothing judged"
echo "backoff: ok (restarts without back-off: far apart $far, back to back $quick of $aborts; $checked of 2 checked)"
