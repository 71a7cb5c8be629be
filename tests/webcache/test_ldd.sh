#!/bin/sh
# webcache-tm resolves libitm.so.1 to tmkit (its RUNPATH) without any library path, and to the
# system libitm when LD_LIBRARY_PATH names that directory (searched before RUNPATH).
# usage: test_ldd.sh WEBCACHE_TM TMKIT_LIB_DIR SYSTEM_LIBITM_DIR
bin=$1 tmkit=$(realpath "$2") sys=$(realpath "$3")
fail() { echo "FAIL: $*" >&2; exit 1; }
resolved() { dirname "$(realpath "$(env "$@" ldd "$bin" | awk '/libitm\.so\.1/ {print $3}')")"; }
got=$(resolved -u LD_LIBRARY_PATH) || fail "ldd"
[ "$got" = "$tmkit" ] || fail "default: libitm from $got, expected $tmkit"
got=$(resolved LD_LIBRARY_PATH="$3")
[ "$got" = "$sys" ] || fail "LD_LIBRARY_PATH=$3: libitm from $got, expected $sys"
readelf -d "$bin" | grep -q "RUNPATH.*$2" || fail "no RUNPATH to $2"
echo "ldd: ok"
