#!/bin/bash
# Usage: bench/paired-cores.sh ROUNDS OLD NEW
# Runs `OLD bench` and `NEW bench` at the same time, each pinned to its own
# core (`taskset`), swapping the cores every round, and prints both nodes/s
# and NEW's ratio to OLD. On a shared host whose speed drifts by ±15% from
# minute to minute, both binaries then meet the same conditions at once;
# the median of the ratios is the figure to quote. Needs two idle cores.
rounds=$1; old=$2; new=$3
out=$(mktemp -d)
for i in $(seq "$rounds"); do
  if [ $((i % 2)) = 0 ]; then co=0; cn=1; else co=1; cn=0; fi
  taskset -c $co "$old" bench 2>&1 | tail -1 > "$out/old" &
  taskset -c $cn "$new" bench 2>&1 | tail -1 > "$out/new" &
  wait
  no=$(cut -d' ' -f3 "$out/old"); nn=$(cut -d' ' -f3 "$out/new")
  echo "$no $nn $(echo "scale=3; $nn/$no" | bc)"
done | tee "$out/all"
sort -n -k3 "$out/all" | awk '{r[NR]=$3} END {printf "median ratio %.3f over %d rounds\n", (r[int((NR+1)/2)]+r[int((NR+2)/2)])/2, NR}'
rm -r "$out"
