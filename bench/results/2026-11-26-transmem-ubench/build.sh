#!/bin/bash
# build.sh TRANSMEM STDCXX_BUILT: how the programs were built (GCC 12.2, 64-bit only).
#   TRANSMEM: a copy of github.com/mfs409/transmem at 23b5d7e, libtmcondvar's GCC 12 fix applied
#             (`return 0;` at the end of broadcast_iterate in libs/libtmcondvar/tmcondvar.cc)
#   STDCXX_BUILT: a built libs/libstdc++_tm (the 2026-11-26-stamp-cxx build, copied in whole)
set -e
T=$1
CXX12="g++-12 -isystem /usr/lib/gcc/x86_64-linux-gnu/12/include -isystem /usr/include/x86_64-linux-gnu"
rm -rf "$T/libs/libstdc++_tm" && cp -a "$2" "$T/libs/libstdc++_tm"
# GCC 12: "exception specification ... depends on itself" in pair::swap (pair test only;
# inline template, no library rebuild)
sed -i 's/noexcept(noexcept(swap(first, __p.first))/noexcept(noexcept(std::swap(first, __p.first))/;
        s/&& noexcept(swap(second, __p.second)))/\&\& noexcept(std::swap(second, __p.second)))/' \
    "$T/libs/libstdc++_tm/libstdc++-v3/include/bits/stl_pair.h"
(cd "$T/libs/libtmcondvar" && rm -rf obj64 && make CXX=g++-12 obj64/libtmcondvar.a)
"$(dirname "$0")/mkvariants.py" "$T"
for d in ubench ubench_chk; do (cd "$T/benchmarks/$d" && make BITS=64 CXX="$CXX12"); done
for d in tmcondvar_validation tmcondvar_chk; do (cd "$T/tests/$d" && make BITS=64 CXX=g++-12); done
cd "$T/tests/libstdc++_validation"
for c in list deque tuple pair; do (cd $c && make BITS=64 CXX="$CXX12"); done
# map: a plain function pointer passed as the transaction_safe comparator type (GCC 12 error)
(cd map && make BITS=64 CXX="$CXX12 -fpermissive")
# vector, unordered_map, unordered_set, unordered_multiset do not build (see README)
for c in vector unordered_map unordered_set unordered_multiset; do
  (cd $c && make BITS=64 CXX="$CXX12") || echo "$c: does not build"
done
