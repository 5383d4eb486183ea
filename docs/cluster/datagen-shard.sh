#!/bin/sh
# One shard of a `konakis datagen` run, under a cluster scheduler:
#   Slurm array job:        SLURM_ARRAY_TASK_ID (from 0) of SLURM_ARRAY_TASK_COUNT
#   Kubernetes Indexed Job: JOB_COMPLETION_INDEX (from 0)
# Usage: datagen-shard.sh DATA_DIR DATAGEN_OPTIONS...
# Each shard plays its own games with the seed SEED + K (SEED defaults to
# 1) and writes DATA_DIR/shard-K.bin; merge them into one training file with
#   konakis datagen --merge DATA_DIR/shard-*.bin --out FILE
# The konakis binary is $KONAKIS, or konakis on the PATH.
set -eu
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  k=$SLURM_ARRAY_TASK_ID
elif [ -n "${JOB_COMPLETION_INDEX:-}" ]; then
  k=$JOB_COMPLETION_INDEX
else
  echo "datagen-shard.sh: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set" >&2
  exit 2
fi
dir=$1
shift
mkdir -p "$dir"
exec "${KONAKIS:-konakis}" datagen "$@" --seed $(( ${SEED:-1} + k )) --out "$dir/shard-$k.bin"
