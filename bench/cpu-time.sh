#!/bin/bash
# Usage: bench/cpu-time.sh ROUNDS BINARY...
# Runs `BINARY bench` for each binary in turn, ROUNDS times, under
# `perf stat -e task-clock`, and prints each binary's CPU times in ms: CPU time
# is what waiting for a core on a shared machine does not add to.
rounds=$1; shift
for i in $(seq $rounds); do
  for b in "$@"; do
    ms=$(perf stat -x, -e task-clock $b bench 2>&1 >/dev/null | grep task-clock | cut -d, -f1)
    echo "$b $ms"
  done
done | awk '{a[$1]=a[$1]" "$2} END {for (k in a) print k, a[k]}'
