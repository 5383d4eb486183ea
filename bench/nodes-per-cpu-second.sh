#!/bin/bash
# Usage: bench/nodes-per-cpu-second.sh ROUNDS BINARY...
# Nodes per second of CPU time: `BINARY bench` nodes / (its CPU time less the
# CPU time of `BINARY bench 1`, the set-up), for each binary in turn, ROUNDS times.
rounds=$1; shift
for i in $(seq $rounds); do
  for b in "$@"; do
    out=$(perf stat -x, -e task-clock $b bench 2>&1)
    ms=$(echo "$out" | grep task-clock | cut -d, -f1)
    nodes=$(echo "$out" | grep -E "^[0-9]+ nodes" | cut -d' ' -f1)
    wall=$(echo "$out" | grep -E "^[0-9]+ nodes" | cut -d' ' -f3)
    setup=$(perf stat -x, -e task-clock $b bench 1 2>&1 >/dev/null | grep task-clock | cut -d, -f1)
    echo "$b $ms $setup $nodes $wall"
  done
done | awk '{n[$1]=$4; c[$1]=c[$1]" "$2; s[$1]=s[$1]" "$3; r[$1]=r[$1]" "int($4/($2-$3)*1000); w[$1]=w[$1]" "$5} END {for (k in n) {print k, "nodes", n[k]; print "  cpu ms:", c[k]; print "  setup ms:", s[k]; print "  nodes/s cpu:", r[k]; print "  nodes/s wall:", w[k]}}'
