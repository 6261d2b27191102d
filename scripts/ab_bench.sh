#!/usr/bin/env bash
# A same-machine A/B of bench packs (run on the GPU machine): scripts/ab_bench.sh PACK... takes each
# build/PACK.tar.xz (scripts/pack_prebuilt.sh with SLUICE_PACK_BENCH_CASES="radix_sort multisplit", copied
# under its own name), and benches them alternately, two rounds, with scripts/gpu_check.sh's bench part
# (`radix_sort --quick --gpu-only --implementation "onesweep]"`; CUB in every run), then one u32 pairs
# timeline of each; SASS="PACK..." also dumps the u32 pairs pass kernel's SASS of those packs. Everything
# goes into $OUT/ab.tgz. Its runs of 2026-11-26 are stored at commit e1bf470
# (docs/benchmarks/2026-11-26-h100-ab-a49ad91-*; the first had no --implementation filter on the timeline).
# Other families: AB_BENCH_ARGS (the bench's arguments), AB_ROWS (a grep -E of the rows to show) and
# AB_TIMELINE=0 (no timeline, no SASS); a PACK may be a path under build/ (pk/v1 is build/pk/v1.tar.xz).
set -u
bench_args=${AB_BENCH_ARGS:-'radix_sort --quick --gpu-only --implementation "onesweep]"'}
rows=${AB_ROWS:-^radix_sort}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
# gpu_check.sh unpacks each pack into build/release (SLUICE_PREBUILT) and names its commit.
mkdir -p "$OUT/ab"
for r in 1 2; do for p in "$@"; do
  name=$(basename "$p")
  SLUICE_PREBUILT="build/$p.tar.xz" SLUICE_CHECK_PART=bench SLUICE_BENCH_ARGS="$bench_args" \
    scripts/gpu_check.sh "$OUT/ab/rs-$name-$r" >"$OUT/ab/rs-$name-$r.txt" 2>&1
  echo "== $p round $r ($(cat build/release/COMMIT))"; grep -E "$rows" "$OUT/ab/rs-$name-$r.txt"
done; done
[ "${AB_TIMELINE:-1}" = 0 ] && set --
for p in "$@"; do
  SLUICE_PREBUILT="build/$p.tar.xz" SLUICE_CHECK_PART=timeline SLUICE_PROFILE_NAME=$p \
    SLUICE_BENCH_ARGS='radix_sort --case "u32 pairs" --quick --gpu-only --implementation "onesweep]"' \
    scripts/gpu_check.sh "$OUT/ab/tl" >"$OUT/ab/tl-$p.txt" 2>&1
  echo "== timeline $p"; grep -E "us  read" "$OUT/ab/tl-$p.txt"
  if [[ " ${SASS:-} " == *" $p "* ]] && command -v cuobjdump >/dev/null; then  # the u32 pairs pass kernel
    cuobjdump -sass -fun '_ZN6sluice6detail10radix_sort15onesweep_kernelINS1_14onesweep_shapeIjjjLi8ELb0EEEjjNS1_11radix_digitIjEEEEvNS1_16onesweep_portionIT0_T1_T2_EE' build/release/sluice >"$OUT/ab/sass-$p.txt" 2>&1
    echo "sass $p: $(grep -cE 'LDG|STG' "$OUT/ab/sass-$p.txt") LDG/STG"
  fi
done
rm -f "$OUT"/ab/tl/*.csv
tar czf "$OUT/ab.tgz" -C "$OUT" ab && rm -rf "$OUT/ab"
