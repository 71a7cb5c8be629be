#!/bin/bash
# Build the TM-ported PARSEC 3.0 benchmarks of mfs409/transmem (commit 23b5d7e) from a
# local checkout, by hand, without parsecmgmt or PARSEC's bundled libraries.
# Each benchmark is built twice: "tm" (-fgnu-tm -DENABLE_TM, linked with the system
# -litm and libtmcondvar) and "pth" (the same sources, -pthread, no -fgnu-tm), the
# reference. The sources are first copied and patched with parsec-local.patch (GCC 12
# compile fixes and two missing tmcondvar_thread_init calls; see README.md).
# Usage: build.sh [bench...]   (default: streamcluster dedup fluidanimate x264)
# Env: TMROOT (default /tmp/parsec-tm, a copy of the transmem checkout), OUT (default
# $TMROOT/build).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TMROOT=${TMROOT:-/tmp/parsec-tm}
CV=$TMROOT/libs/libtmcondvar
OUT=${OUT:-$TMROOT/build}
P=$OUT/pkgs
CC=gcc-12; CXX=g++-12
BASE="-O2 -g -DPARSEC_VERSION=3.0-beta-20150206"
TMF="-I$CV -fgnu-tm -DENABLE_TM"
TMLIBS="-L$CV/obj64 -lrt -lpthread -litm -ltmcondvar"
mkdir -p "$OUT"

# libtmcondvar (needs the one-line `return 0;` fix in broadcast_iterate for GCC 12, see
# ../2026-11-26-tm-memcached-condvar/transmem-gcc12.patch)
if [ ! -f "$CV/obj64/libtmcondvar.a" ]; then
  (cd "$CV" && mkdir -p obj64 && $CXX -O3 -g -fgnu-tm -std=c++11 -pthread -c tmcondvar.cc -o obj64/tmcondvar.o \
     && ar rcs obj64/libtmcondvar.a obj64/tmcondvar.o)
fi

if [ ! -d "$P" ]; then
  cp -a "$TMROOT/benchmarks/parsec-3.0/pkgs" "$P"
  (cd "$P" && patch -p1 < "$HERE/parsec-local.patch")
fi

fresh() { # fresh <src dir> <dest>
  rm -rf "$2"; mkdir -p "$2"; cp -a "$1"/. "$2"/
}
flags() { # flags <tm|pth>: sets F (compiler flags) and L (libraries)
  if [ "$1" = tm ]; then F="$BASE $TMF"; L="$TMLIBS"; else F="$BASE"; L="-lpthread"; fi
}
# The PARSEC makefiles append to CFLAGS/CXXFLAGS/LIBS, so pass ours through the
# environment (a make command-line assignment would override their additions).

build_streamcluster() {
  for v in tm pth; do
    d=$OUT/streamcluster-$v; fresh $P/kernels/streamcluster/src $d; flags $v
    CXXFLAGS="$F -fpermissive -fno-exceptions" LIBS="$L" \
      make -C $d CXX=$CXX version=$( [ $v = tm ] && echo tm || echo pthreads ) >$d/build.log 2>&1
    test -x $d/streamcluster
  done
}

build_dedup() {
  for v in tm pth; do
    d=$OUT/dedup-$v; fresh $P/kernels/dedup/src $d; flags $v
    # -I.: use the bundled OpenSSL SHA-1 header, not /usr/include/openssl/sha.h;
    # -fcommon: `conf` and `cache` are defined in several files (pre-GCC-10 C).
    CFLAGS="$F -I. -fcommon" LIBS="$L" \
      make -C $d CC=$CC CXX=$CXX version=$( [ $v = tm ] && echo tm || echo pthreads ) >$d/build.log 2>&1
    test -x $d/dedup
  done
}

build_fluidanimate() {
  for v in tm pth; do
    d=$OUT/fluidanimate-$v; fresh $P/apps/fluidanimate/src $d; flags $v
    CXXFLAGS="$F -fpermissive -fno-exceptions" LIBS="$L" \
      make -C $d CXX=$CXX version=$( [ $v = tm ] && echo tm || echo pthreads ) >$d/build.log 2>&1
    test -x $d/fluidanimate
  done
}

build_x264() {
  for v in tm pth; do
    d=$OUT/x264-$v; fresh $P/apps/x264/src $d; flags $v
    # x264_cqm_init/delete index quant4_mf[4] with i < 6 into the adjacent quant8_mf
    # array; GCC 12 exploits that undefined behaviour and the pthreads build then
    # double-frees at exit. -fno-aggressive-loop-optimizations restores the old code.
    F="$F -fno-aggressive-loop-optimizations"
    # --disable-asm: no yasm here. configure adds -s (strip); drop it to keep symbols.
    (cd $d && CC=$CC ./configure --enable-pthread --disable-asm --extra-cflags="$F" \
        --extra-ldflags="$L -lstdc++" && sed -i 's/ -s\b//g' config.mak \
        && make CC=$CC CXX=$CXX RANLIB=ranlib) >$d/build.log 2>&1
    test -x $d/x264
  done
}

for b in ${@:-streamcluster dedup fluidanimate x264}; do
  echo "building $b"; build_$b
done
