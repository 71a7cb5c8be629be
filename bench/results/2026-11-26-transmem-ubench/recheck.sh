#!/bin/bash
# recheck.sh IN: judge every valid1.sh result line of IN again from its log (CHECK_ONLY=1).
here=$(cd "$(dirname "$0")" && pwd)
while read -r c cfg thr tag rest; do
  case $c in \#*) echo "$c $cfg $thr $tag $rest"; continue ;; esac
  PREV="$c $cfg $thr $tag $rest" CHECK_ONLY=1 "$here/valid1.sh" $c $cfg $thr $tag
done <"$1"
