#!/bin/sh
# Runs the kvcache build named by KV_VALGRIND_TARGET under valgrind's memcheck, with the
# arguments the harness gives a server; memcheck's errors make the server's exit status 99,
# which the harness checks when KV_EXIT_ZERO is set (kv_harness.py).
exec valgrind -q --error-exitcode=99 --leak-check=no --log-file="${KV_VALGRIND_LOG:-/dev/stderr}" \
    "$KV_VALGRIND_TARGET" "$@"
