#!/bin/sh
# The runtime's layers, top to bottom: abi -> ext -> stats -> algo -> core (runtime/core/hooks.h
# describes them). A layer may use the layers below it; it reaches a layer above only through
# the algorithm's dispatch table (core/dispatch.h) and the hooks that upper layers fill in at
# start-up (core/hooks.h), never by naming one of its headers or symbols. Two checks:
#  1. every `#include "../X/..."` in runtime/<layer>/ names the same or a lower layer;
#  2. every undefined symbol of a layer's object file (nm) that some runtime object defines is
#     defined in the same or a lower layer. Symbols no runtime object defines (libc, libgcc,
#     the C++ runtime's weak references) are not the runtime's and are not checked.
# An exception must be listed in ALLOW below with its reason; the list is empty and should
# stay so: an upward call belongs in core/hooks.h.
. "$(dirname "$0")/lib.sh"
RT=$ROOT/runtime
OBJ=$BUILD/runtime/CMakeFiles
LAYERS="core algo stats ext abi" # bottom first

# "FILE SYMBOL" pairs allowed to point upwards, one a line, each with a comment saying why.
ALLOW=""

rank() {
    r=0
    for l in $LAYERS; do
        [ "$l" = "$1" ] && { echo $r; return; }
        r=$((r + 1))
    done
    echo -1
}

bad=""

# 1. includes
for layer in $LAYERS; do
    lr=$(rank "$layer")
    for f in "$RT/$layer"/*.c "$RT/$layer"/*.h "$RT/$layer"/*.S; do
        [ -e "$f" ] || continue
        for to in $(sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./\([a-z_]*\)/.*|\1|p' "$f"); do
            tr=$(rank "$to")
            if [ "$tr" -lt 0 ] || [ "$tr" -gt "$lr" ]; then
                bad="$bad
  include: runtime/$layer/$(basename "$f") includes ../$to/ (a layer above $layer)"
            fi
        done
    done
done

# 2. symbols. The runtime's objects: the object library (tmkit_rt_obj) and the shared
# library's own sources (abi/interpose.c), each named after its source (abi/entry.c).
objs=$(find "$OBJ/tmkit_rt_obj.dir" "$OBJ/itm.dir" -name '*.o' 2>/dev/null | sort)
[ -n "$objs" ] || fail "no runtime object files under $OBJ (build first)"
tab=$(mktemp)
trap 'rm -f "$tab"' EXIT
for o in $objs; do
    rel=${o#"$OBJ"/*.dir/}
    rel=${rel%.o}
    layer=${rel%%/*}
    [ "$(rank "$layer")" -ge 0 ] || continue
    [ -e "$RT/$rel" ] || continue # left behind in the build tree by a source since moved
    # D LAYER FILE SYMBOL for global definitions, U LAYER FILE SYMBOL for undefined references
    nm "$o" | awk -v l="$layer" -v f="$rel" '
        NF == 2 && ($1 == "U" || $1 == "w" || $1 == "v") { print "U", l, f, $2; next }
        NF == 3 && $2 ~ /^[A-TV-Z]$|^[iu]$/ { print "D", l, f, $3 }'
done > "$tab"
ranks=""
for l in $LAYERS; do ranks="$ranks $l=$(rank "$l")"; done
up=$(awk -v ranks="$ranks" -v allow="$ALLOW" '
    BEGIN {
        n = split(ranks, kv, " ")
        for (i = 1; i <= n; i++) { split(kv[i], p, "="); r[p[1]] = p[2] }
        m = split(allow, al, "\n")
        for (i = 1; i <= m; i++) { split(al[i], p, " "); if (p[2] != "") ok[p[1] " " p[2]] = 1 }
    }
    $1 == "D" { defl[$4] = $2; deff[$4] = $3; next }
    $1 == "U" { ul[++nu] = $2; uf[nu] = $3; us[nu] = $4 }
    END {
        for (i = 1; i <= nu; i++) {
            s = us[i]
            if (!(s in defl) || r[defl[s]] <= r[ul[i]] || ((uf[i] " " s) in ok))
                continue
            printf "  symbol: %s uses %s, defined in %s (a layer above %s)\n", uf[i], s, deff[s], ul[i]
        }
    }' "$tab")
[ -z "$up" ] || bad="$bad
$up"

[ -z "$bad" ] || fail "dependencies against the layers (abi -> ext -> stats -> algo -> core; \
upward only through core/dispatch.h and core/hooks.h):$bad"
echo "ok: runtime/ layers: includes and symbols point downward only"
