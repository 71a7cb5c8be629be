#!/bin/sh
# Runs one conformance binary on the system libitm under each listed ITM_DEFAULT_METHOD.
# Passes if at least one method passes (the test is then proven correct against the reference);
# methods that fail are reported so they can be recorded in docs/libitm-differences.md.
methods=$1; shift
unset LD_LIBRARY_PATH TMKIT_ALGO
passed=""; failed=""
for m in $(echo "$methods" | tr ',' ' '); do
    if ITM_DEFAULT_METHOD=$m "$@" >/tmp/run_libitm.$$ 2>&1; then
        passed="$passed $m"
    else
        failed="$failed $m"
        echo "--- libitm method $m failed:"; tail -n 20 /tmp/run_libitm.$$
    fi
done
rm -f /tmp/run_libitm.$$
echo "libitm passed:${passed:- none}; failed:${failed:- none}"
[ -n "$passed" ]
