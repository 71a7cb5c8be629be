#!/bin/bash
# usage: after.sh PID command...   (waits for PID to exit, then runs the command)
p=$1; shift; while kill -0 $p 2>/dev/null; do sleep 5; done; exec "$@"
