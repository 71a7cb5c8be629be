#!/bin/sh
# The stock interpreter with ThreadSanitizer's runtime preloaded, for a module built with
# -fsanitize=thread (lua5.4 itself is not instrumented; the runtime must be loaded first).
#   CH_TSAN_RT=<libtsan.so> CH_LUA_BIN=<lua5.4> sh tsan_lua.sh ARGS...
# Only the interpreter gets the preload: the shells and tools around it would not start with it.
[ -n "$CH_TSAN_RT" ] && [ -n "$CH_LUA_BIN" ] || { echo "tsan_lua.sh: CH_TSAN_RT and CH_LUA_BIN must be set" >&2; exit 2; }
LD_PRELOAD=$CH_TSAN_RT exec "$CH_LUA_BIN" "$@"
