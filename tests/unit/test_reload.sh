#!/bin/sh
# Indirect calls in transactions across dlclose and dlopen (abi/clone_table.c: the tables of
# clones and each thread's memo of its lookups). prog_reload loads library A, calls its
# transaction-safe function through a pointer in transactions from 1 + N threads, unloads A,
# loads B at the same address (same function offsets, different clone offsets) and calls
# again: every transaction must have run the loaded library's clone. Under every algorithm,
# at 2 and 4 threads (more than the cores).
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
for algo in $ALGOS; do
    for t in 2 4; do
        TMKIT_ALGO=$algo "$RELOAD_PROG" "$RELOAD_A" "$RELOAD_B" $t; rc=$?
        [ $rc = 77 ] && { echo "SKIP: the loader put B elsewhere"; exit 77; }
        [ $rc = 0 ] || fail "$algo, $t threads: prog_reload exited $rc"
    done
done
echo "reload: ok"
