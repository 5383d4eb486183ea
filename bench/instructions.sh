#!/bin/bash
# Usage: bench/instructions.sh BINARY...
# Instructions each binary's `konakis bench` executes, counted by valgrind's
# cachegrind (Debian: `apt install valgrind`): deterministic, so one run
# tells a change of a few tenths of a percent that the shared host's timing
# noise (±10%) hides. Also prints the instructions of memset (the hash
# table cleared before each position: set-up, not search) and, with
# `CACHE=yes`, the simulated first-level data-cache misses.
# Valgrind reports no AVX-512, so the NNUE runs its AVX2 kernels here.
sim=${CACHE:-no}
for b in "$@"; do
  out=$(mktemp)
  log=$(valgrind --tool=cachegrind --cache-sim="$sim" --cachegrind-out-file="$out" "$b" bench 2>&1)
  refs=$(echo "$log" | grep -E "I +refs" | awk '{print $NF}')
  d1=$(echo "$log" | grep -E "D1 +misses" | awk '{print $4}')
  nodes=$(echo "$log" | grep -E "^[0-9]+ nodes" | cut -d' ' -f1)
  memset=$(cg_annotate "$out" 2>/dev/null | grep -m1 "memset" | awk '{print $1}')
  echo "$b nodes $nodes instructions $refs memset $memset ${d1:+d1-misses $d1}"
  rm -f "$out"
done
