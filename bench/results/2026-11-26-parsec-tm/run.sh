#!/bin/bash
# Run the PARSEC TM builds (build.sh) on libitm and tmkit and check their outputs.
# Usage: run.sh BENCH...   (streamcluster dedup fluidanimate x264)
# Env: THREADS (default "1 2 4"), REPS (2), CONFIGS (all below), TM_LIBDIR (directory
# with tmkit's libitm.so.1, default /work/main/build-parsec/lib), TMROOT, TO (timeout s).
# Configurations: pth = the pthreads build (reference); itm, itm-gl_wt, itm-serialirr =
# the TM build on GCC's libitm (default method / ITM_DEFAULT_METHOD); tk-<algo> = the TM
# build on tmkit (LD_LIBRARY_PATH, TMKIT_ALGO). The first tmkit repeat runs with
# TMKIT_STATS=- and must print tmkit's profile (proof that tmkit was loaded).
# Prints one CSV line per run: bench,config,threads,rep,rc,seconds,check.
set -u
TMROOT=${TMROOT:-/tmp/parsec-tm}
B=$TMROOT/build; I=$TMROOT/inputs; W=$TMROOT/runs
TM_LIBDIR=${TM_LIBDIR:-/work/main/build-parsec/lib}
THREADS=${THREADS:-"1 2 4"}; REPS=${REPS:-2}; TO=${TO:-120}
CONFIGS=${CONFIGS:-"pth itm itm-gl_wt itm-serialirr tk-adaptive tk-orec_eager tk-gl_wt tk-serialirr tk-norec tk-orec_lazy"}
mkdir -p $W; cd $W
ulimit -c 0
ulimit -f 2000000   # 2 GB per file: a looping writer must not fill the disk

[ -f $I/doc16.tar ] || head -c 16000000 $I/doc.tar > $I/doc16.tar

cmdline() { # cmdline BENCH BIN T OUT
  case $1 in
    streamcluster) echo "$2/streamcluster 10 20 16 256 256 100 none $4 $3" ;;
    dedup)         echo "$2/dedup -c -p -t $3 -i $I/doc16.tar -o $4" ;;
    fluidanimate)  echo "$2/fluidanimate $3 5 $I/fluid.fluid $4" ;;
    x264)          echo "$2/x264 --quiet --qp 20 --partitions b8x8,i4x4 --ref 5 --direct auto --b-pyramid --weightb --mixed-refs --no-fast-pskip --me umh --subme 7 --analyse b8x8,i4x4 --frames 24 --threads $3 -o $4 $I/video.y4m" ;;
  esac
}

check() { # check BENCH T OUT -> prints ok/FAIL-reason
  local ref=$W/ref-$1-$2
  [ -s "$3" ] || { echo FAIL-nooutput; return; }
  case $1 in
    fluidanimate)
      r=$($B/fluidanimate-pth/fluidcmp "$3" $ref --ptol 1e-5 --vtol 1e-3 2>&1)
      if [ "$(echo "$r" | grep -c PASS)" = 2 ]; then echo ok; else echo FAIL-fluidcmp; fi ;;
    *) if cmp -s "$3" $ref; then echo ok; else echo FAIL-differs; fi ;;
  esac
}

for bench in "$@"; do
  for t in $THREADS; do
    # reference: the pthreads build at the same thread count
    ref=$W/ref-$bench-$t
    if [ ! -f $ref ]; then
      timeout $TO $(cmdline $bench $B/$bench-pth $t $ref) >/dev/null 2>&1 || echo "# reference run failed: $bench $t" >&2
      if [ $bench = dedup ]; then
        $B/dedup-pth/dedup -u -p -t 2 -i $ref -o $W/rt.out >/dev/null 2>&1
        cmp -s $W/rt.out $I/doc16.tar || echo "# dedup reference round trip FAILED" >&2
        rm -f $W/rt.out
      fi
    fi
    for c in $CONFIGS; do
      for r in $(seq 1 $REPS); do
        out=$W/out-$bench-$c-$t-$r; rm -f $out
        bin=$B/$bench-tm; envs=()
        case $c in
          pth) bin=$B/$bench-pth ;;
          itm) ;;
          itm-*) envs=(ITM_DEFAULT_METHOD=${c#itm-}) ;;
          tk-*) envs=(LD_LIBRARY_PATH=$TM_LIBDIR TMKIT_ALGO=${c#tk-})
                [ $r = 1 ] && envs+=(TMKIT_STATS=-) ;;
        esac
        s=$(date +%s.%N)
        env "${envs[@]}" timeout $TO $(cmdline $bench $bin $t $out) >$W/log-$bench-$c-$t-$r 2>&1
        rc=$?
        e=$(date +%s.%N)
        ck=$(check $bench $t $out)
        if [ $rc = 124 ]; then ck=TIMEOUT; elif [ $rc != 0 ]; then ck="FAIL-rc$rc"; fi
        if [[ $c == tk-* && $r = 1 ]] && ! grep -q "^tmkit statistics (${c#tk-}" $W/log-$bench-$c-$t-$r; then
          ck="$ck-NOTMKIT"
        fi
        printf '%s,%s,%s,%s,%s,%.2f,%s\n' $bench $c $t $r $rc $(echo "$e - $s" | bc) $ck
        [ "$ck" = ok ] && rm -f $out
      done
    done
  done
done
