#!/usr/bin/env bash
# Runs a sluice::dist program as N processes on this host, one per GPU, the way mpirun, torchrun or srun
# would: each process gets SLUICE_DIST_RANK, SLUICE_DIST_WORLD_SIZE and SLUICE_DIST_LOCAL_RANK (its GPU),
# and all of them the same fresh SLUICE_DIST_ID_FILE and SLUICE_DIST_RUN_ID, through which rank 0 hands
# NCCL's unique id to the others (detail/dist/id_file.hpp). Each rank's output goes to the terminal with
# a "[rank R]" prefix. The exit status is the first non-zero status of a rank, else 0.
#   scripts/dist_run.sh N PROGRAM [ARGS...]
#   scripts/dist_run.sh 2 build/release/sluice_dist_launch_check
#   scripts/dist_run.sh 2 build/release/sluice_dist_launch_check --fault missing --timeout-s 20
# For several hosts, use the launcher of the cluster (docs/dist.md) with SLUICE_DIST_ID_FILE on a shared
# filesystem.
set -uo pipefail
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 N PROGRAM [ARGS...]   (N processes, one per GPU)" >&2
  exit 2
fi
n=$1
shift
run_dir=$(mktemp -d "${TMPDIR:-/tmp}/sluice-dist.XXXXXX")
trap 'rm -rf "$run_dir"' EXIT
export SLUICE_DIST_ID_FILE="$run_dir/nccl-id"
export SLUICE_DIST_RUN_ID="$(date +%s%N)-$$"
export SLUICE_DIST_WORLD_SIZE=$n

pids=()
for ((rank = 0; rank < n; ++rank)); do
  SLUICE_DIST_RANK=$rank SLUICE_DIST_LOCAL_RANK=$rank "$@" > >(sed "s/^/[rank $rank] /") 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid"
  rc=$?
  if [ "$status" -eq 0 ] && [ "$rc" -ne 0 ]; then status=$rc; fi
done
wait  # the output filters
exit "$status"
