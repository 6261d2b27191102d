#!/usr/bin/env bash
# scripts/bench_grep.sh [SIZE_GIB] [DIR]: `sluice grep -F -c` against `grep -F -c` (and ripgrep's `rg -F -c`
# where it is installed) on one generated text file in the page cache, end to end, in the same run.
#
#   SLUICE=build/release/sluice scripts/bench_grep.sh 4 /tmp
#
# The file: lines of random words (a 64 MiB block written by Python, repeated to SIZE_GIB GiB; default 4),
# with the word "needle" on about one line in 10 000. Patterns: "needle" (rare), "the" (on most lines)
# and a 32-character phrase cut from the block. The file is read once before timing (into the page
# cache); each command then runs 3 times and the median wall time counts. Every tool must print the same
# count, or the script fails. `cat FILE > /dev/null` is printed as the rate the page cache hands out bytes
# to one reader, the host side of the bound; `sluice grep --cpu` is the CPU fallback. The full bound of the
# GPU path (page cache → pinned buffer → device) is the `sluice --transfer-only` row: the same reads and
# copies, two chunks in flight, with no matching and no line walking.
set -euo pipefail
size_gib=${1:-4}
dir=${2:-/tmp}
sluice=${SLUICE:-build/release/sluice}
file="$dir/sluice_grep_bench.txt"
block="$dir/sluice_grep_bench.block"

[ -x "$sluice" ] || { echo "bench_grep: $sluice is not built (cmake --build build/release --target sluice_cli)" >&2; exit 2; }

python3 - "$block" <<'EOF'
import random, sys
random.seed(1)
words = ("the then there a ab abc sluice gpu grep stream chunk halo pattern text line word match count "
         "rabin karp fingerprint window warp block scan").split()
out, size, lines = [], 0, 0
while size < 64 << 20:
    line = " ".join(random.choice(words) for _ in range(random.randint(0, 14)))
    lines += 1
    if lines % 10007 == 0:
        line += " needle"
    out.append(line)
    size += len(line) + 1
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF
phrase=$(sed -n 1000p "$block" | cut -c1-32)
[ ${#phrase} -eq 32 ] || phrase=$(awk 'length($0) >= 32 {print substr($0, 1, 32); exit}' "$block")
: > "$file"
for _ in $(seq $((size_gib * 16))); do cat "$block" >> "$file"; done
rm -f "$block"
cat "$file" > /dev/null
bytes=$(stat -c %s "$file")

median_seconds() {  # median_seconds CMD...: the median of 3 wall times; the command's output in $dir/out
  local times=()
  for _ in 1 2 3; do
    local start end
    start=$(date +%s.%N)
    "$@" > "$dir/out" 2> /dev/null || true
    end=$(date +%s.%N)
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n 2p
}

count() { local c; c=$(cat "$dir/out"); echo "${c:-0}"; }  # rg prints nothing for no match

printf '%-22s %-34s %10s %10s %14s\n' tool pattern seconds GB/s count
row() {  # row TOOL PATTERN CMD...
  local tool=$1 pattern=$2
  shift 2
  local s
  s=$(median_seconds "$@")
  printf '%-22s %-34s %10.3f %10.2f %14s\n' "$tool" "\"$pattern\"" "$s" "$(awk -v b="$bytes" -v s="$s" 'BEGIN { print b / s / 1e9 }')" "$(count)"
}
row "cat > /dev/null" "-" sh -c 'cat "$1" > /dev/null' cat "$file"
row "sluice --transfer-only" "zzzzzzzz" "$sluice" grep --transfer-only -F -c -e zzzzzzzz "$file"
for pattern in needle the "$phrase" zzzzzzzz; do
  row "sluice grep -F -c" "$pattern" "$sluice" grep -F -c -e "$pattern" "$file"
  expected=$(count)
  if [ "$pattern" = needle ]; then  # the CPU fallback once: it runs at grep's pace
    row "sluice grep --cpu" "$pattern" "$sluice" grep --cpu -F -c -e "$pattern" "$file"
    [ "$(count)" = "$expected" ] || { echo "bench_grep: counts differ (sluice --cpu)" >&2; exit 1; }
  fi
  row "grep -F -c" "$pattern" env LC_ALL=C grep -F -c -e "$pattern" "$file"
  [ "$(count)" = "$expected" ] || { echo "bench_grep: counts differ (grep)" >&2; exit 1; }
  if command -v rg > /dev/null; then
    row "rg -F -c" "$pattern" rg -F -c -e "$pattern" "$file"
    [ "$(count)" = "$expected" ] || { echo "bench_grep: counts differ (rg)" >&2; exit 1; }
  fi
done
rm -f "$file" "$dir/out"
