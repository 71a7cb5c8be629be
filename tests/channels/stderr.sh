#!/bin/sh
# stderr.sh — runs one channels test script through harness.lua and checks its stderr.
#   sh stderr.sh LUA HARNESS LIBDIR MODULE SCRIPT
# A script names what its failing Lua processes must report in comment lines of its own,
#   -- stderr: ERE
# each of which must match a line of stderr; and every "channels: error in Lua process" line
# must match one of them, so no process fails unnoticed. stderr is passed on.
lua=$1 harness=$2 lib=$3 module=$4 script=$5
err=$(mktemp) || exit 1
pats=$(mktemp) || exit 1
trap 'rm -f "$err" "$pats"' EXIT
"$lua" "$harness" "$lib" "$module" "$script" 2>"$err"
rc=$?
cat "$err" >&2
[ "$rc" -eq 0 ] || exit "$rc"
sed -n 's/^-- stderr: //p' "$script" >"$pats"
while IFS= read -r p; do
  if ! grep -Eq -- "$p" "$err"; then
    echo "stderr.sh: no line on stderr matches: $p" >&2
    exit 1
  fi
done <"$pats"
# (an empty pattern file matches nothing: then every process error is unexpected)
unexpected=$(grep 'channels: error in Lua process' "$err" | grep -Ev -f "$pats")
if [ -n "$unexpected" ]; then
  echo "stderr.sh: unexpected errors in Lua processes: $unexpected" >&2
  exit 1
fi
