#!/bin/sh
# Installs what the build and tests need, only when something is missing, so a warm machine
# pays nothing and a fresh Debian machine needs no manual step.
set -e
need=""
command -v cmake  >/dev/null 2>&1 || need="$need cmake"
command -v ninja  >/dev/null 2>&1 || need="$need ninja-build"
command -v gcc    >/dev/null 2>&1 || need="$need gcc"
command -v g++    >/dev/null 2>&1 || need="$need g++"
command -v python3 >/dev/null 2>&1 || need="$need python3"
command -v valgrind >/dev/null 2>&1 || need="$need valgrind"
[ -e /usr/include/zlib.h ] || need="$need zlib1g-dev"           # webcache: gzipped man pages
command -v man2html >/dev/null 2>&1 || need="$need man2html"      # webcache backend
command -v wrk    >/dev/null 2>&1 || need="$need wrk"             # webcache cross-check client
command -v siege  >/dev/null 2>&1 || need="$need siege"
command -v slowhttptest >/dev/null 2>&1 || need="$need slowhttptest"   # webcache: slowloris/slow-read attacks
[ -x /usr/sbin/nginx ] || need="$need nginx-light"                          # webcache: differential test
[ -e /usr/share/man/man3/printf.3.gz ] || need="$need manpages manpages-dev"  # webcache pages
# advise: a libclang and clang's resource headers of one version (tools/tmkit_cli/advise/parse.py)
[ -e /usr/lib/llvm-19/lib/libclang-19.so.1 ] || need="$need libclang1-19"
[ -e /usr/lib/llvm-19/lib/clang/19/include/emmintrin.h ] || need="$need libclang-common-19-dev"
command -v bear >/dev/null 2>&1 || need="$need bear"                     # advise: real programs (make test-real)
[ -e /usr/include/event2/event.h ] || need="$need libevent-dev"         # advise: building memcached's sources
[ -e "$(gcc -print-file-name=libitm.so.1 2>/dev/null)" ] || need="$need libitm1"
[ -e "$(gcc -print-file-name=libitm.so 2>/dev/null)" ] || need="$need libgcc-12-dev"
[ -e "$(gcc -print-file-name=plugin)/include/gcc-plugin.h" ] || need="$need gcc-12-plugin-dev"  # tools/gcc-plugin
command -v memcached >/dev/null 2>&1 || need="$need memcached"            # kvcache: the reference server
command -v memcslap >/dev/null 2>&1 || need="$need libmemcached-tools"   # kvcache: load and memccapable
command -v lua5.4 >/dev/null 2>&1 || need="$need lua5.4"                 # channels: the stock interpreter
command -v clang-14 >/dev/null 2>&1 || need="$need clang-14"             # fuzz: libFuzzer builds (tests/fuzz)
[ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] ||
    need="$need libclang-rt-14-dev"                                      # fuzz: libFuzzer and sanitizer runtimes
[ -e /usr/include/lua5.4/lua.h ] || need="$need liblua5.4-dev"          # channels: the C module's API
command -v help2man >/dev/null 2>&1 || need="$need help2man"               # the manual pages (tools/mangen)
command -v dh >/dev/null 2>&1 || need="$need debhelper"                   # make deb (packaging/debian)
command -v lintian >/dev/null 2>&1 || need="$need lintian"                # make deb: the package checked
command -v mmdebstrap >/dev/null 2>&1 || need="$need mmdebstrap"          # make test-deb: a clean Debian root
if [ -n "$need" ]; then
    echo "deps: installing:$need" >&2
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi
