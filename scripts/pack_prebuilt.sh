#!/usr/bin/env bash
# Packs the release preset's GPU-side binaries, built here for the committed tree, into build/prebuilt.tar.xz
# (with the shared libraries they link that the GPU machine's image may lack: libcudart.so.13, libtbb.so.12),
# so that a GPU call spends its time running rather than on a cold build (about 270 s with 16 cores).
# scripts/gpu_check.sh takes it as SLUICE_PREBUILT=build/prebuilt.tar.xz. Refuses a tree with uncommitted
# changes: the binaries must be those of the commit named in the check's logs. Arguments name the targets
# to pack (paths under build/release; default all four below): the working tree and the pack together must
# stay under the device call's 64 MiB. SLUICE_PACK_TESTS="multisplit radix_sort" packs a tests/sluice_gpu_tests
# linked from those test files' objects alone (tests/gpu/NAME_test.cu; the same link line as the full
# binary's), which is how the gpu tests of a few suites fit beside the bench. SLUICE_PACK_BENCH_CASES="radix_sort
# multisplit" likewise packs a `sluice` whose bench holds those cases alone (bench/cases/NAME.cu; the full
# binary's link line, ~6 MB packed instead of 22), so that two builds can be timed side by side in one call.
# SLUICE_PACK_SKIP_BUILD=1 builds nothing and packs no whole binary unless named: the chosen objects were
# compiled one by one (ninja OBJECT), and a full build would first recompile every other stale object.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "pack_prebuilt: commit first (the tree has uncommitted changes)" >&2
  exit 1
fi
build() { [ "${SLUICE_PACK_SKIP_BUILD:-}" = 1 ] || cmake --build --preset release --target "$@"; }
targets=("$@")
if [ ${#targets[@]} -eq 0 ] && [ "${SLUICE_PACK_SKIP_BUILD:-}" != 1 ]; then
  targets=(tests/sluice_gpu_tests tests/sluice_host_tests sluice examples/sssp_delta_stepping)
fi
[ ${#targets[@]} -eq 0 ] || build "${targets[@]##*/}"
staging=build/prebuilt-staging
rm -rf "$staging" && mkdir -p "$staging/lib"
for target in "${targets[@]+"${targets[@]}"}"; do install -D "build/release/$target" "$staging/$target"; done
if [ -n "${SLUICE_PACK_TESTS:-}" ]; then
  build sluice_gpu_tests
  objects=(build/release/tests/CMakeFiles/sluice_gpu_tests.dir/support/gpu_main.cu.o)
  for name in $SLUICE_PACK_TESTS; do objects+=("build/release/tests/CMakeFiles/sluice_gpu_tests.dir/gpu/${name}_test.cu.o"); done
  # The full binary's link line (build.ninja), with the chosen objects only.
  libraries=$(awk '/^build tests\/sluice_gpu_tests:/ { found = 1 } found && /LINK_LIBRARIES/ { sub(/^ *LINK_LIBRARIES = /, ""); print; exit }' build/release/build.ninja)
  mkdir -p "$staging/tests"
  # shellcheck disable=SC2086  # the link line is a list of words
  c++ -O3 "${objects[@]}" -o "$staging/tests/sluice_gpu_tests" -L/usr/local/cuda/targets/x86_64-linux/lib $libraries
fi
if [ -n "${SLUICE_PACK_BENCH_CASES:-}" ]; then
  build sluice
  # The full binary's link line (build.ninja) with the chosen cases' objects only.
  mapfile -t inputs < <(awk '/^build sluice:/ { for (i = 4; i <= NF && $i != "|"; ++i) print $i; exit }' build/release/build.ninja |
    grep -v '/cases/')
  for name in $SLUICE_PACK_BENCH_CASES; do
    case_object=$(ls build/release/bench/CMakeFiles/sluice_bench.dir/cases/"$name".cu*.o)
    inputs+=("${case_object#build/release/}")
  done
  libraries=$(awk '/^build sluice:/ { found = 1 } found && /LINK_LIBRARIES/ { sub(/^ *LINK_LIBRARIES = /, ""); print; exit }' build/release/build.ninja)
  # shellcheck disable=SC2086  # the link line is a list of words
  (cd build/release && c++ -O3 "${inputs[@]}" -o "../../$staging/sluice" $libraries)
fi
for library in libcudart.so.13 libtbb.so.12; do
  for binary in $(find "$staging" -type f -perm -u+x); do
    path=$(ldd "$binary" | awk -v l="$library" '$1 == l { print $3 }')
    if [ -n "$path" ]; then cp -L "$path" "$staging/lib/" && break; fi
  done
done
git rev-parse --short HEAD >"$staging/COMMIT"
tar cf - -C "$staging" . | xz -9 -T0 >build/prebuilt.tar.xz
echo "build/prebuilt.tar.xz: $(du -h build/prebuilt.tar.xz | cut -f1) for $(cat "$staging/COMMIT")"
