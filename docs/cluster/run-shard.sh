#!/bin/sh
# One shard of a `konakis match`, under a cluster scheduler:
#   Slurm array job:        SLURM_ARRAY_TASK_ID (from 0) of SLURM_ARRAY_TASK_COUNT
#   Kubernetes Indexed Job: JOB_COMPLETION_INDEX (from 0) of SHARDS
# Usage: run-shard.sh RECORDS_DIR MATCH_OPTIONS...
# Writes RECORDS_DIR/shard-K.txt; merge them with
#   konakis stats RECORDS_DIR/shard-*.txt [--sprt elo0=… elo1=… alpha=… beta=…]
# The konakis binary is $KONAKIS, or konakis on the PATH.
set -eu
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  k=$SLURM_ARRAY_TASK_ID
  n=${SLURM_ARRAY_TASK_COUNT:?SLURM_ARRAY_TASK_COUNT is not set}
elif [ -n "${JOB_COMPLETION_INDEX:-}" ]; then
  k=$JOB_COMPLETION_INDEX
  n=${SHARDS:?set SHARDS to the number of completions of the Job}
else
  echo "run-shard.sh: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set" >&2
  exit 2
fi
dir=$1
shift
mkdir -p "$dir"
exec "${KONAKIS:-konakis}" match "$@" --shard "$k/$n" --records "$dir/shard-$k.txt"
