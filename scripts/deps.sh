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
[ -e "$(gcc -print-file-name=libitm.so.1 2>/dev/null)" ] || need="$need libitm1"
[ -e "$(gcc -print-file-name=libitm.so 2>/dev/null)" ] || need="$need libgcc-12-dev"
if [ -n "$need" ]; then
    echo "deps: installing:$need" >&2
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi
