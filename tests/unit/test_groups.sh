#!/bin/sh
# Lock groups (runtime/ext/group*.c): a precise message for each misuse, groups given up by
# threads that end holding them and absent from a forked child, the same with membarrier failing (both sides then fence), a
# writer not starved by readers that always hold the group, calls inside transactions
# (composed: group_tx.c) and their refusals, a deadlock of an irrevocable transaction stopped
# with a message instead of a hang, and the profile's counts at the calls' sites (outside and
# inside transactions), shown by `tmkit report`.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
P=$BUILD/tests/unit_prog_groups
refused() { # refused CASE MESSAGE-PATTERN
    ERR=$("$P" "$1" 2>&1 >/dev/null) && fail "$1: not refused"
    echo "$ERR" | grep -q "^tmkit: .*$2" || fail "$1: unexpected message: $ERR"
}
expect_rc 0 "$P" inside
refused inside-order "tm_group_enter: group 0x[0-9a-f]* is taken after group 0x[0-9a-f]*, against the one order"
refused inside-upgrade "tm_group_lock inside a transaction: group 0x[0-9a-f]* is held in shared mode by this thread"
refused inside-notheld "tm_group_exit: group 0x[0-9a-f]* is not held by this thread"
scratch
# an irrevocable transaction waiting for a group whose holder begins a transaction (or waits for
# a group the transaction holds): a message about a second later, under every algorithm (the
# timeout is the hang it replaces). The runs wait for that second, so they run at once.
for algo in $ALGOS; do
    (TMKIT_ALGO=$algo timeout 20 "$P" deadlock 2>"$d/deadlock.$algo" >/dev/null
     echo $? > "$d/deadlock.$algo.rc") &
done
(timeout 20 "$P" deadlock-held 2>"$d/deadlock-held" >/dev/null; echo $? > "$d/deadlock-held.rc") &
wait
for algo in $ALGOS; do
    ERR=$(cat "$d/deadlock.$algo")
    [ "$(cat "$d/deadlock.$algo.rc")" != 0 ] || fail "deadlock ($algo): not stopped"
    echo "$ERR" | grep -q "^tmkit: tm_group_enter inside a transaction that can no longer roll back (irrevocable): group 0x[0-9a-f]* is held by a thread that is beginning a transaction" ||
        fail "deadlock ($algo): unexpected message: $ERR"
done
ERR=$(cat "$d/deadlock-held")
[ "$(cat "$d/deadlock-held.rc")" != 0 ] || fail "deadlock-held: not stopped"
echo "$ERR" | grep -q "^tmkit: tm_group_enter inside a transaction that can no longer roll back (irrevocable): group 0x[0-9a-f]* is held by a thread that waits for group 0x[0-9a-f]*, which this transaction holds" ||
    fail "deadlock-held: unexpected message: $ERR"
refused order "tm_group_enter: group 0x[0-9a-f]* is taken after group 0x[0-9a-f]*, against the one order"
refused upgrade "tm_group_lock: group 0x[0-9a-f]* is held in shared mode by this thread"
refused notheld "tm_group_exit: group 0x[0-9a-f]* is not held by this thread"
refused mode "tm_group_unlock: group 0x[0-9a-f]* was taken by tm_group_enter"
expect_rc 0 timeout 20 "$P" exits
expect_rc 0 timeout 20 "$NOMB_PROG" "$P" exits
expect_rc 0 timeout 20 "$P" fork
# a writer among readers that always hold the group is not starved, under every algorithm and
# with membarrier failing (the timeout is the failure: 200 locks take well under a second)
for algo in $ALGOS; do
    expect_rc 0 timeout 30 env TMKIT_ALGO=$algo "$P" starve
done
expect_rc 0 timeout 30 "$NOMB_PROG" "$P" starve
for algo in $ALGOS; do
    expect_rc 0 timeout 60 env TMKIT_ALGO=$algo "$NOMB_PROG" "$BUILD/tests/conf_mt_group_O2"
done
expect_rc 0 env TMKIT_STATS="$d/g.json" "$P" profile
src=$(dirname "$0")/prog_groups.c
enter_line=$(grep -n "PROFILE-ENTER" "$src" | cut -d: -f1)
lock_line=$(grep -n "PROFILE-LOCK" "$src" | cut -d: -f1)
python3 - "$d/g.json" "$enter_line" "$lock_line" <<'PY' || fail "profile: $(head -c 1500 "$d/g.json")"
import json, sys
p = json.load(open(sys.argv[1]))
enter_line, lock_line = int(sys.argv[2]), int(sys.argv[3])
sites = p["sites"]
enters = [s for s in sites if s.get("group_enters")]
locks = [s for s in sites if s.get("group_locks")]
assert sum(s["group_enters"] for s in enters) == 4000, enters
assert sum(s["group_locks"] for s in locks) == 40, locks
assert all(s["cycles_group_held"] > 0 for s in locks), locks
PY
# inside transactions: one thread, so every call counts once (no attempt rolls back)
expect_rc 0 env TMKIT_STATS="$d/t.json" "$P" profile-tx
tx_enter_line=$(grep -n "PROFILE-TX-ENTER" "$src" | cut -d: -f1)
tx_lock_line=$(grep -n "PROFILE-TX-LOCK" "$src" | cut -d: -f1)
out=$("$ROOT/bin/tmkit" report "$d/t.json")
echo "$out" | grep -q "prog_groups.c:$tx_enter_line.*groups 1000 shared" ||
    fail "tmkit report does not show the entries inside transactions at line $tx_enter_line: $out"
echo "$out" | grep -q "prog_groups.c:$tx_lock_line.*groups 10 exclusive" ||
    fail "tmkit report does not show the locks inside transactions at line $tx_lock_line: $out"
out=$("$ROOT/bin/tmkit" report "$d/g.json")
echo "$out" | grep -q "prog_groups.c:$lock_line.*groups 40 exclusive" ||
    fail "tmkit report does not show the exclusive group holds at line $lock_line: $out"
echo "$out" | grep -q "prog_groups.c:$enter_line.*groups 4000 shared" ||
    fail "tmkit report does not show the shared group entries at line $enter_line: $out"
echo "groups: ok"
