#!/bin/sh
# Runs one conformance binary on the system libitm under the listed ITM_DEFAULT_METHODs, in
# order, until one passes: the test passes if one does (it is then proven correct against the
# reference), and the methods after it would change nothing in the verdict. Methods that fail
# are reported so they can be recorded in docs/libitm-differences.md; TMTEST_LIBITM_ALL=1
# (e.g. `TMTEST_LIBITM_ALL=1 ctest -R libitm`) runs every listed method, to see them all.
methods=$1; shift
unset LD_LIBRARY_PATH TMKIT_ALGO
passed=""; failed=""
for m in $(echo "$methods" | tr ',' ' '); do
    if [ -n "$passed" ] && [ "${TMTEST_LIBITM_ALL:-0}" != 1 ]; then
        break
    fi
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
