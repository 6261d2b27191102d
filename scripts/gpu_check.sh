#!/usr/bin/env bash
# The GPU check, run on the GPU machine for every change to device code:
#   scripts/gpu_check.sh [LOGDIR]   (LOGDIR, else $SLUICE_CHECK_LOGS, else build/gpu-check)
# Steps: configure and build (release preset, all cores) → gpu tests → host tests → compute-sanitizer
# memcheck, racecheck and synccheck over the gpu tests (side by side, each in SLUICE_SANITIZER_SHARDS
# gtest shards, default 4) → resource report of sluice's kernels (spills) → sluice info → sluice bench
# (default --quick --gpu-only) → the SSSP example. Each step writes LOGDIR/NAME.log and a verdict line in
# LOGDIR/NAME.status; the bench also writes LOGDIR/results.json, results.csv and plots/ (sluice bench
# --json/--csv/--plot), and LOGDIR/machine.log names the GPU, driver,
# nvcc and cmake. The bench table and a one-line-per-step summary are printed last; the exit status is 0
# only if every step passed.
# Settings (environment):
#   SLUICE_CHECK_PART   all (default), or a part that fits one device call, each building first (a no-op
#                       when the build is current): tests (gpu and host tests, resources, info),
#                       sanitizers, bench (info, bench, examples), build, profile, timeline, dist (the
#                       sluice::dist suite on every visible GPU, the launch check as one process per GPU
#                       and its four faults, sluice_dist_bench $SLUICE_DIST_BENCH_ARGS, default --quick)
#   SLUICE_COMMIT       the commit being checked (the GPU machine's copy has no git history)
#   SLUICE_CHECK_SOURCE a `git archive` (.tgz) to check instead of the working tree; unpacked once into
#                       build/checked-source, whose build is kept for the next call
#   SLUICE_PREBUILT     build/prebuilt.tar.xz from scripts/pack_prebuilt.sh: binaries built elsewhere,
#                       unpacked into build/release; the build is skipped, and steps whose binary is
#                       missing are skipped, saying so
#   SLUICE_SKIP_BUILD=1 the build is current (a build part ran first), so parts may run side by side
#   SLUICE_BUILD_TARGET the build part builds only this target (e.g. sluice_cli)
#   SLUICE_TEST_FILTER  a gtest filter for the gpu tests and sanitizers
#   SLUICE_TEST_SHARDS  gtest shards the gpu tests run in, side by side (default 1)
#   SLUICE_SANITIZERS   the sanitizer part's tools (default "memcheck racecheck synccheck")
#   SLUICE_BENCH_ARGS   the bench's arguments, shell quoting applies (default --quick --gpu-only;
#                       e.g. 'multisplit --case "bit-field buckets keys"')
#   SLUICE_BENCH_BEFORE a `sluice bench --json` file: after the bench, `sluice bench --compare` of it
#                       against this run's results.json (step "compare", a regression fails it)
# SLUICE_CHECK_PART=profile runs Nsight Compute over `sluice bench $SLUICE_BENCH_ARGS`: SLUICE_PROFILE_COUNT
# (default 1) launches of the kernels matching the regex SLUICE_PROFILE_KERNEL (matched against
# SLUICE_PROFILE_NAME_BASE: function, the default, or demangled) after skipping SLUICE_PROFILE_SKIP (default
# 0); the report goes to profile-$SLUICE_PROFILE_NAME.ncu-rep with its details page and source-level SASS
# (CSV) beside it; at ncu's locked base clocks with flushed caches unless SLUICE_PROFILE_CLOCKS=none /
# SLUICE_PROFILE_CACHE=none.
# SLUICE_CHECK_PART=timeline runs Nsight Compute over the bench at the GPU's own clocks without cache
# flushes, reading each launch's duration, DRAM bytes and SM clock (SLUICE_PROFILE_KERNEL, default every
# kernel; SLUICE_PROFILE_COUNT, default 400 launches) into timeline-$SLUICE_PROFILE_NAME.csv;
# SLUICE_TIMELINE_CLOCKS=base and SLUICE_TIMELINE_CACHE=all take the profile's clocks and flushes instead.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -n "${SLUICE_CHECK_SOURCE:-}" ]; then
  checked=build/checked-source
  stamp=$(md5sum "$SLUICE_CHECK_SOURCE" | cut -d' ' -f1)
  if [ "$(cat "$checked/.archive" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$checked" && mkdir -p "$checked" && tar xzf "$SLUICE_CHECK_SOURCE" -C "$checked" || exit 1
    [ -d .deps ] && cp -r .deps "$checked/"
    echo "$stamp" >"$checked/.archive"
  fi
  logs_dir=$(realpath -m "${1:-${SLUICE_CHECK_LOGS:-build/gpu-check}}")
  SLUICE_CHECK_SOURCE= exec "$checked/scripts/gpu_check.sh" "$logs_dir"
fi
export PATH="/usr/local/cuda/bin:$PATH"
# SLUICE_PREBUILT=build/prebuilt.tar.xz (scripts/pack_prebuilt.sh): binaries built elsewhere for the
# commit; unpacked into the build folder, with their shared libraries, and the build is skipped.
if [ -n "${SLUICE_PREBUILT:-}" ]; then
  mkdir -p build/release && tar xJf "$SLUICE_PREBUILT" -C build/release || exit 1
  export LD_LIBRARY_PATH="$PWD/build/release/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" SLUICE_SKIP_BUILD=1
  export SLUICE_COMMIT="${SLUICE_COMMIT:-$(cat build/release/COMMIT)}"
fi
logs="${1:-${SLUICE_CHECK_LOGS:-build/gpu-check}}"
mkdir -p "$logs"
rm -f "$logs"/*.status
build=build/release
gpu_tests="$build/tests/sluice_gpu_tests"
# Sanitizers slow kernels 10-100x: leave out the tests sized for memory (2^31 elements and up), and
# the *ApiError* tests, which make runtime calls fail on purpose (the sanitizer counts those as errors).
test_filter="${SLUICE_TEST_FILTER:-*}"
sanitizer_filter="--gtest_filter=${test_filter}-*Large*:*ApiError*"

step() {  # step NAME COMMAND...: output in $logs/NAME.log, verdict line in $logs/NAME.status
  local name=$1
  shift
  local start=$SECONDS
  "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  local took=$((SECONDS - start))
  if [ $rc -eq 0 ]; then printf '%-12s pass  %4ss\n' "$name" "$took" >"$logs/$name.status"
  else printf '%-12s FAIL  %4ss  (exit %s, see %s)\n' "$name" "$took" "$rc" "$logs/$name.log" >"$logs/$name.status"; fi
  echo "[$name] exit $rc after ${took}s"
  return $rc
}
# The bench's arguments as the shell would split them, quotes included.
eval "bench_args=(${SLUICE_BENCH_ARGS:---quick --gpu-only})"
part="${SLUICE_CHECK_PART:-all}"
# Each part builds first (a no-op on a warm machine whose build is current).
case "$part" in
  all) steps="configure build gpu-tests host-tests memcheck racecheck synccheck resources info bench examples" ;;
  tests) steps="configure build gpu-tests host-tests resources info" ;;
  sanitizers) steps="configure build ${SLUICE_SANITIZERS:-memcheck racecheck synccheck}" ;;
  bench) steps="configure build info bench examples" ;;
  profile) steps="configure build profile" ;;
  timeline) steps="configure build timeline" ;;
  build) steps="configure build" ;;
  dist) steps="configure build dist-tests dist-launch dist-faults dist-bench" ;;
  *) echo "SLUICE_CHECK_PART must be all, tests, sanitizers, bench, profile, timeline, build or dist (got '$part')" >&2; exit 2 ;;
esac
# SLUICE_SKIP_BUILD=1: the build is current (a `build` part ran first), so parts may run side by side.
[ -n "${SLUICE_SKIP_BUILD:-}" ] && steps=${steps/configure build/}
wants() { [[ " $steps " == *" $1 "* ]]; }
summary() {
  local names=${steps/profile/profile-${SLUICE_PROFILE_NAME:-kernel}}
  for name in ${names/timeline/timeline-${SLUICE_PROFILE_NAME:-kernel}}; do cat "$logs/$name.status" 2>/dev/null; done
}

# sanitize TOOL: the gpu tests under compute-sanitizer, sweeps capped (tests/support/gpu_test.hpp). The tool
# is host-bound, so the tests run as SLUICE_SANITIZER_SHARDS (default 4) gtest shards side by side; the
# shards' logs are joined into TOOL.log, and the step fails if any shard does.
# in_shards NAME SHARDS COMMAND...: COMMAND as SHARDS gtest shards side by side, logs NAME.shardK.log joined
# into the step's log; fails if any shard does.
in_shards() {
  local name=$1 shards=$2 shard failed=0
  shift 2
  for ((shard = 0; shard < shards; shard++)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard "$@" >"$logs/$name.shard$shard.log" 2>&1 &
  done
  for ((shard = 0; shard < shards; shard++)); do wait -n || failed=1; done
  cat "$logs/$name".shard*.log
  return $failed
}

sanitize() {
  local tool=$1
  export SLUICE_UNDER_SANITIZER=1  # sanitizer steps run in background subshells: the tests never see it
  in_shards "$tool" "${SLUICE_SANITIZER_SHARDS:-4}" \
    compute-sanitizer --tool "$tool" --error-exitcode 1 $([ "$tool" = memcheck ] && echo --leak-check full) \
    "$gpu_tests" "$sanitizer_filter"
}

# Resource report of sluice's kernels (registers, stack, local memory): spills show as STACK/LOCAL > 0.
resources() {
  local report
  local raw
  raw=$(for binary in "$gpu_tests" "$build/sluice"; do cuobjdump --dump-resource-usage "$binary"; done 2>&1)
  report=$(echo "$raw" | grep -A1 'Function .*6sluice')
  if [ -z "$report" ]; then
    echo "no resource report: cuobjdump printed no sluice kernel ($(command -v cuobjdump || echo 'not on PATH')); its first lines:"
    echo "$raw" | head -12
    return 0
  fi
  echo "$report" | grep -o 'REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*' | sort | uniq -c | sort -rn
  echo "sluice kernels with stack or local memory (spills):"
  echo "$report" | grep -v '^--$' | paste - - | grep -E 'STACK:[1-9]|LOCAL:[1-9]' | cut -c1-240 || true
}

# Binaries built elsewhere (SLUICE_SKIP_BUILD) may come without some targets (a device call carries 64 MiB):
# the steps that need a missing one are skipped, saying so.
if [ -n "${SLUICE_SKIP_BUILD:-}" ]; then
  for need in info:sluice bench:sluice examples:examples/sssp_delta_stepping host-tests:tests/sluice_host_tests \
      dist-tests:tests/sluice_dist_tests dist-launch:sluice_dist_launch_check dist-faults:sluice_dist_launch_check \
      dist-bench:sluice_dist_bench; do
    if wants "${need%%:*}" && [ ! -x "$build/${need#*:}" ]; then
      echo "${need%%:*}: skipped, $build/${need#*:} is not there"; steps=${steps/ ${need%%:*}/}
    fi
  done
fi
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1;
  cmake --version | head -1; } 2>&1 | tee "$logs/machine.log"

if wants build; then
  step configure cmake --preset release || { summary; exit 1; }
  # shellcheck disable=SC2086  # SLUICE_BUILD_TARGET: one target (e.g. sluice) to save build time
  step build cmake --build --preset release -j "$(nproc)" ${SLUICE_BUILD_TARGET:+--target $SLUICE_BUILD_TARGET} || { tail -40 "$logs/build.log"; summary; exit 1; }
fi
if wants gpu-tests; then
  step gpu-tests in_shards gpu-tests "${SLUICE_TEST_SHARDS:-1}" "$gpu_tests" --gtest_filter="$test_filter"
fi
if wants host-tests; then step host-tests "$build/tests/sluice_host_tests"; fi
# The three sanitizers are independent and mostly host-bound: run them side by side.
for tool in memcheck racecheck synccheck; do
  if wants $tool; then step $tool sanitize $tool & fi
done
wait
if wants resources; then step resources resources; fi
if wants info; then step info "$build/sluice" info; fi
if wants bench; then
  step bench "$build/sluice" bench "${bench_args[@]}" --json "$logs/results.json" --csv "$logs/results.csv" --plot "$logs/plots"
  if [ -n "${SLUICE_BENCH_BEFORE:-}" ]; then
    steps="$steps compare"
    step compare "$build/sluice" bench --compare "$SLUICE_BENCH_BEFORE" "$logs/results.json" --fail-on-regression
  fi
fi
if wants examples; then step examples "$build/examples/sssp_delta_stepping"; fi
profile() {  # Nsight Compute over the bench, the sections that say what bounds a kernel, and its source page
  local report="$logs/profile-${SLUICE_PROFILE_NAME:-kernel}"
  ncu --clock-control "${SLUICE_PROFILE_CLOCKS:-base}" --cache-control "${SLUICE_PROFILE_CACHE:-all}" \
    --kernel-name-base "${SLUICE_PROFILE_NAME_BASE:-function}" \
    --kernel-name "regex:${SLUICE_PROFILE_KERNEL:?set SLUICE_PROFILE_KERNEL}" --launch-skip "${SLUICE_PROFILE_SKIP:-0}" \
    --launch-count "${SLUICE_PROFILE_COUNT:-1}" --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats \
    --import-source yes --section SourceCounters -f -o "$report" \
    "$build/sluice" bench "${bench_args[@]}" >/dev/null || return 1
  ncu --import "$report.ncu-rep" --page details >"$report.txt" &&
    ncu --import "$report.ncu-rep" --page source --csv --print-source sass >"$report-sass.csv"
}
if wants profile; then step "profile-${SLUICE_PROFILE_NAME:-kernel}" profile; fi
timeline() {  # each launch's duration and DRAM bytes at the GPU's own clocks, caches kept: CSV
  local csv="$logs/timeline-${SLUICE_PROFILE_NAME:-kernel}.csv"
  ncu --clock-control "${SLUICE_TIMELINE_CLOCKS:-none}" --cache-control "${SLUICE_TIMELINE_CACHE:-none}" \
    --kernel-name-base "${SLUICE_PROFILE_NAME_BASE:-function}" \
    --kernel-name "regex:${SLUICE_PROFILE_KERNEL:-.}" --launch-count "${SLUICE_PROFILE_COUNT:-400}" \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_elapsed.avg.per_second \
    --csv --log-file "$csv" \
    "$build/sluice" bench "${bench_args[@]}" >/dev/null || return 1
  scripts/timeline_summary.py --launches "$csv"  # the step's log: one line per launch
}
if wants timeline; then step "timeline-${SLUICE_PROFILE_NAME:-kernel}" timeline; fi

# sluice::dist's binaries link libnccl.so.2; where the loader finds none, the machine's python3 may hold
# the nvidia-nccl-cu13 wheel, whose library folder is added.
find_nccl() {
  local binary
  for binary in tests/sluice_dist_tests sluice_dist_launch_check sluice_dist_bench; do
    [ -x "$build/$binary" ] && break
  done
  ldd "$build/$binary" 2>/dev/null | grep -q 'libnccl.so.2 => not found' || return 0
  local wheel
  wheel=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null) || return 0
  export LD_LIBRARY_PATH="$wheel${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}
gpu_count() { nvidia-smi -L | grep -c '^GPU'; }
dist_faults() {
  local fault
  for fault in mismatch missing oom drill; do
    echo "--fault $fault"
    scripts/dist_run.sh "$(gpu_count)" "$build/sluice_dist_launch_check" --fault "$fault" --timeout-s 20 || return 1
  done
}
if [[ " $steps " == *" dist-"* ]]; then find_nccl; fi
if wants dist-tests; then step dist-tests "$build/tests/sluice_dist_tests" "--gtest_filter=$test_filter"; fi
if wants dist-launch; then step dist-launch scripts/dist_run.sh "$(gpu_count)" "$build/sluice_dist_launch_check"; fi
if wants dist-faults && [ "$(gpu_count)" -ge 2 ]; then step dist-faults dist_faults; fi
eval "dist_bench_args=(${SLUICE_DIST_BENCH_ARGS:---quick})"
if wants dist-bench; then
  step dist-bench "$build/sluice_dist_bench" "${dist_bench_args[@]}" --json "$logs/dist-results.json"
fi

for name in gpu-tests host-tests memcheck racecheck synccheck dist-tests; do
  wants "$name" || continue
  grep -E '^\[  (FAILED|PASSED|SKIPPED) |========= (ERROR|Invalid|Race|Barrier)|ERROR SUMMARY' "$logs/$name.log" |
    tail -8 | sed "s/^/$name: /"
done
if wants resources; then echo; head -3 "$logs/resources.log"; fi
if wants examples; then echo; tail -6 "$logs/examples.log"; fi
if wants info; then cat "$logs/info.log"; echo; fi
if wants bench; then sed -n '/^family /,$p' "$logs/bench.log"; fi
if wants compare; then echo; grep -E '^(before|after|warning|compare):|SLOWER|FASTER|NOT VERIFIED' "$logs/compare.log"; fi
for name in dist-launch dist-faults dist-bench; do if wants "$name"; then echo; cat "$logs/$name.log"; fi; done
if wants timeline; then scripts/timeline_summary.py "$logs/timeline-${SLUICE_PROFILE_NAME:-kernel}.csv"; fi
if wants profile; then
  grep -E '^  [^ ]|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued|Executed Ipc A' \
    "$logs/profile-${SLUICE_PROFILE_NAME:-kernel}.txt" | head -60
fi
echo
summary
if grep -q FAIL "$logs"/*.status; then echo "GPU CHECK FAILED"; exit 1; fi
echo "GPU CHECK PASSED"
