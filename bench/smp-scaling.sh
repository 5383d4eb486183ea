#!/bin/bash
# Usage: bench/smp-scaling.sh BINARY [OUT_DIR]
# Lazy SMP scaling, as one prepared run for a many-core machine (issue 54):
#
# 1. `BINARY bench DEPTH --threads N` for each N of THREADS, in turn, ROUNDS
#    times (the settings alternate, so a drifting host meets all alike). For
#    each N: the median time to depth (nodes / nodes per second, the search
#    alone), nodes per second, nodes, and the speedup against 1 thread (the
#    median of the per-round ratios).
# 2. With GAMES > 0, a match of MATCH_THREADS threads against 1 at TC, one
#    game at a time, in opening pairs; its summary.
#
# Settings (environment): THREADS (default "1 2 4 8 16"), ROUNDS (5),
# DEPTH (8), GAMES (0), MATCH_THREADS (8), TC (1+0.01), VARIANT (tablut),
# SEED (54). Raw lines and the match log go to OUT_DIR (default: a new
# temporary folder), the table to its summary.txt and to stdout.
#
# On the project's 2-core machine: `THREADS="1 2" bench/smp-scaling.sh
# target/release/konakis`. With the defaults and GAMES=40 it takes about
# 6 minutes on a 16-core machine.
set -euo pipefail
bin=$1
out=${2:-$(mktemp -d)}
threads=${THREADS:-1 2 4 8 16}
rounds=${ROUNDS:-5}
depth=${DEPTH:-8}
games=${GAMES:-0}
match_threads=${MATCH_THREADS:-8}
tc=${TC:-1+0.01}
variant=${VARIANT:-tablut}
seed=${SEED:-54}
mkdir -p "$out"
raw="$out/bench-raw.txt"
: > "$raw"
{
  echo "# $(date -u +%Y-%m-%dT%H:%MZ) $bin bench $depth, $rounds rounds, threads: $threads"
  echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) logical CPUs"
} | tee "$out/summary.txt"
for round in $(seq "$rounds"); do
  for n in $threads; do
    # The last line: "<nodes> nodes <nps> nps".
    line=$("$bin" bench "$depth" --threads "$n" | tail -1)
    echo "$round $n $line" >> "$raw"
  done
done
awk '
  { n = $2; nodes = $3; nps = $5; t = nodes / nps
    time[n, $1] = t; times[n] = times[n] " " t; rates[n] = rates[n] " " nps
    counts[n] = counts[n] " " nodes; if (!(n in seen)) { seen[n] = 1; order[++k] = n }
    if ($1 > rounds) rounds = $1 }
  function median(list,   a, m, i, j, x) {
    m = split(list, a, " ")
    for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  END {
    printf "%8s %14s %14s %14s %10s\n", "threads", "time to depth", "nodes/s", "nodes", "speedup"
    for (i = 1; i <= k; i++) {
      n = order[i]; ratios = ""
      for (r = 1; r <= rounds; r++) ratios = ratios " " time[order[1], r] / time[n, r]
      printf "%8d %12.3f s %14.0f %14.0f %9.2fx\n", n, median(times[n]), median(rates[n]), median(counts[n]), median(ratios)
    }
  }' "$raw" | tee -a "$out/summary.txt"
if [ "$games" -gt 0 ]; then
  echo "# match: $match_threads threads against 1, $variant, $tc, $games games" | tee -a "$out/summary.txt"
  "$bin" match --engine cmd="$bin" name="t$match_threads" option.Threads="$match_threads" \
    --engine cmd="$bin" name=t1 option.Threads=1 --variant "$variant" --tc "$tc" \
    --games "$games" --repeat --concurrency 1 --openings random:4 --seed "$seed" --resign off \
    > "$out/match.txt" 2>&1 || true
  sed -n '/^Match /,$p' "$out/match.txt" | head -3 | tee -a "$out/summary.txt"
fi
