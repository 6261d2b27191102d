#!/usr/bin/env bash
# Repository check: the rules below hold for the tree, or each violation is printed and the exit status
# is 1. Needs only bash, coreutils, grep and find.
#   scripts/check_repo.sh [ROOT]     check the tree at ROOT (default: this repository)
#   scripts/check_repo.sh --self-test   check the checker on a fake tree in a temporary folder
set -uo pipefail

# ---- Rule 1: layers point one way ------------------------------------------------------------------
# Files under include/sluice/LAYER/ may `#include <sluice/...>` only the folders listed on LAYER's line.
# Layers not listed here (data/, host/, the public family headers) are not constrained.
LAYER_RULES='
core        core/
warp        core/ warp/
block       core/ warp/ block/
detail      core/ warp/ block/ detail/ options/
reference   core/ reference/
'
# None of these layers may include a public family header (include/sluice/*.cuh at the top level, such
# as <sluice/scan.cuh>) or the host backend (<sluice/host/...>); the lists above already leave them out,
# this only names them in the message.

# ---- Rule 2: docs/benchmarks stays small -----------------------------------------------------------
BENCH_DIR='docs/benchmarks'
BENCH_MAX_BYTES=$((8 * 1024 * 1024))  # 8 MiB, the sum of the files' sizes
BENCH_MAX_FILES=600
# File kinds that are not results (logs, verdicts, test XML, compressed pages, profiler reports,
# programs, objects): such things stay in the GPU call's output, not in the tree.
BENCH_FORBIDDEN='*.log *.status *.xml *.gz *.xz *.ncu-rep *.cu *.cpp *.o'

# ---- Rule 3: kernels in headers are templates or static -------------------------------------------
# A header's non-template `__global__` function with external linkage is defined again in every
# translation unit that includes it, and the link of two such units fails (duplicate host stubs).
# A kernel is a template when the code line before `__global__` holds `template` or ends in `>`.
# ------------------------------------------------------------------------------------------------------
violations=0
violation() { echo "check_repo: $*" >&2; violations=$((violations + 1)); }
indent() { local l; while IFS= read -r l; do echo "  $l"; done <<<"$1"; }

check_layers() {  # check_layers ROOT
  local root=$1 layer allowed dir file line text target ok a why
  while read -r layer allowed; do
    [ -n "$layer" ] || continue
    dir="$root/include/sluice/$layer"
    [ -d "$dir" ] || continue
    while IFS=: read -r file line text; do
      target=""
      [[ "$text" =~ [\<\"]sluice/([^\>\"]*)[\>\"] ]] && target=${BASH_REMATCH[1]}
      ok=0
      for a in $allowed; do [[ "$target" == "$a"* ]] && ok=1; done
      ((ok)) && continue
      if [[ "$target" != */* ]]; then why="a public family header"
      elif [[ "$target" == host/* ]]; then why="the host backend"
      else why="layer ${target%%/*}/"; fi
      violation "layers: ${file#"$root"/}:$line includes <sluice/$target> ($why); $layer/ may include only: $allowed"
    done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]sluice/' "$dir" | sort)
  done <<<"$LAYER_RULES"
}

check_benchmarks() {  # check_benchmarks ROOT
  local dir="$1/$BENCH_DIR" bytes size files pattern found
  [ -d "$dir" ] || return 0
  bytes=0
  while read -r size; do bytes=$((bytes + size)); done < <(find "$dir" -type f -printf '%s\n')
  files=$(find "$dir" -type f | wc -l)
  if ((bytes > BENCH_MAX_BYTES)); then
    violation "benchmarks: $BENCH_DIR holds $bytes bytes, more than $BENCH_MAX_BYTES; keep only the latest results (docs/benchmarks/README.md)"
  fi
  if ((files > BENCH_MAX_FILES)); then
    violation "benchmarks: $BENCH_DIR holds $files files, more than $BENCH_MAX_FILES; keep only the latest results (docs/benchmarks/README.md)"
  fi
  local -a patterns
  read -ra patterns <<<"$BENCH_FORBIDDEN"  # no globbing: the patterns go to find as they are
  for pattern in "${patterns[@]}"; do
    while read -r found; do
      [ -n "$found" ] && violation "benchmarks: ${found#"$1"/} is not a result ($pattern files do not belong in $BENCH_DIR)"
    done < <(find "$dir" -type f -name "$pattern" | sort)
  done
}

check_kernels() {  # check_kernels ROOT
  local root=$1 file line
  [ -d "$root/include" ] || return 0
  while IFS=: read -r file line; do
    violation "kernels: ${file#"$root"/}:$line declares a non-template __global__ function without static"
  done < <(find "$root/include" -type f \( -name '*.cuh' -o -name '*.hpp' -o -name '*.h' \) -print0 | sort -z |
    xargs -0 -r awk '
      FNR == 1 { previous = "" }
      /^[[:space:]]*(\/\/|$)/ { next }
      /__global__/ && $0 !~ /static/ && previous !~ /template/ && previous !~ />[[:space:]]*$/ { print FILENAME ":" FNR }
      { previous = $0 }')
}

self_test() {
  local self failed=0 cases=0
  self=$(realpath "$0")
  tmp=$(mktemp -d)  # global: the EXIT trap removes it
  trap 'rm -rf "$tmp"' EXIT
  # put CASE PATH [CONTENT]: a file in the fake tree of CASE.
  put() { mkdir -p "$tmp/$1/$(dirname "$2")" && printf '%s\n' "${3:-}" >"$tmp/$1/$2"; }
  # expect ok|fail CASE [TEXT]: the check of CASE's tree passes, or fails with a message containing TEXT.
  expect() {
    local verdict=$1 name=$2 text=${3:-} out rc
    out=$("$self" "$tmp/$name" 2>&1)
    rc=$?
    cases=$((cases + 1))
    if [ "$verdict" = ok ] && [ $rc -ne 0 ]; then
      echo "self-test: $name: expected ok, got exit $rc:"; indent "$out"; failed=$((failed + 1))
    elif [ "$verdict" = fail ] && { [ $rc -eq 0 ] || ! grep -qF -- "$text" <<<"$out"; }; then
      echo "self-test: $name: expected a violation naming $text, got exit $rc:"; indent "$out"; failed=$((failed + 1))
    fi
  }
  # case VERDICT NAME PATH CONTENT: a tree holding only PATH, and its verdict (a failure must name PATH).
  case_of() { put "$2" "$3" "$4" && expect "$1" "$2" "$3"; }
  local inc=include/sluice run=docs/benchmarks/h100/2026-11-27-abc1234-quick i
  case_of ok   core-good      $inc/core/a.hpp            '#include <sluice/core/config.hpp>'
  case_of fail core-bad       $inc/core/a.hpp            '#include <sluice/warp/shuffle.cuh>'
  case_of ok   warp-good      $inc/warp/a.cuh            $'#include <sluice/core/config.hpp>\n#include <sluice/warp/b.cuh>'
  case_of fail warp-bad       $inc/warp/a.cuh            '#include <sluice/block/load.cuh>'
  case_of ok   block-good     $inc/block/a.cuh           $'#include <sluice/warp/b.cuh>\n#  include <sluice/block/c.cuh>'
  case_of fail block-bad      $inc/block/run_scan.cuh    '#include <sluice/detail/scan/tile.cuh>'
  case_of ok   detail-good    $inc/detail/x/a.cuh        $'#include <sluice/block/load.cuh>\n#include <sluice/options/scan.hpp>'
  case_of fail detail-family  $inc/detail/x/onesweep.cuh '#include <sluice/scan.cuh>'
  case_of fail detail-host    $inc/detail/x/a.cuh        '#include "sluice/host/reduce.hpp"'
  case_of ok   reference-good $inc/reference/a.hpp       $'#include <sluice/core/span.hpp>\n#include <sluice/reference/b.hpp>'
  case_of fail reference-bad  $inc/reference/a.hpp       '#include <sluice/detail/scan/tile.cuh>'
  case_of ok   public-free    $inc/scan.cuh              '#include <sluice/detail/scan/scan.cuh>'
  case_of ok   kernel-template $inc/detail/x/k.cuh        $'template <typename T>\n__global__ void k(T* p) {}'
  case_of ok   kernel-multiline $inc/detail/x/k.cuh       $'template <typename T,\n          int N>\n// why\n__global__ void k(T* p) {}'
  case_of ok   kernel-static  $inc/detail/x/k.cuh         $'}\n\nstatic __global__ void k(int* p) {}'
  case_of fail kernel-plain   $inc/detail/x/k.cuh         $'}\n/// what it does\n__global__ void k(int* p) {}'
  case_of ok   bench-good     $run/sluice-bench.txt      'family     case'
  case_of fail bench-log      $run/bench.log             'a log'
  case_of fail bench-probe    $run/probe.cu              'int main() {}'
  # Past the limits: one (sparse) file a byte too large, then one file too many.
  put bench-bytes $run/results.json '{}'
  truncate -s $((BENCH_MAX_BYTES + 1)) "$tmp/bench-bytes/$run/results.json"
  expect fail bench-bytes "bytes, more than $BENCH_MAX_BYTES"
  for ((i = 0; i <= BENCH_MAX_FILES; ++i)); do put bench-files "$run/$i.txt"; done
  expect fail bench-files "files, more than $BENCH_MAX_FILES"
  if ((failed)); then echo "repository check self-test: $failed of $cases cases FAILED"; return 1; fi
  echo "repository check self-test: ok ($cases cases)"
}

if [ "${1:-}" = --self-test ]; then self_test; exit $?; fi
root=${1:-"$(dirname "$0")/.."}
[ -d "$root" ] || { echo "check_repo: no such folder: $root" >&2; exit 2; }
root=$(realpath "$root")
check_layers "$root"
check_benchmarks "$root"
check_kernels "$root"
if ((violations)); then
  echo "repository check: FAILED ($violations violations)" >&2
  exit 1
fi
echo "repository check: ok"
