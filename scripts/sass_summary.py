#!/usr/bin/env python3
"""Summarises the source-level SASS page that the profile part of scripts/gpu_check.sh writes
(profile-NAME-sass.csv, plain or gzipped): where a kernel's warps stall, and where its global
traffic goes, so that two kernels (ours and a baseline) can be compared instruction by instruction.

  scripts/sass_summary.py stalls FILE...        stall samples by reason, over the whole kernel
  scripts/sass_summary.py top FILE [N]          the N instructions with the most stall samples
  scripts/sass_summary.py sectors FILE          each global access's L2 sectors (all, excessive, ideal)
"""
import csv
import gzip
import sys
from collections import Counter

ALL_SAMPLES = "Warp Stall Sampling (All Samples)"
SECTORS = ("L2 Theoretical Sectors Global", "L2 Theoretical Sectors Global Excessive",
           "L2 Theoretical Sectors Global Ideal")
TOP_REASONS = ("stall_barrier", "stall_long_sb", "stall_short_sb", "stall_wait", "stall_lg", "stall_mio")


def read(path):
    """The page's header row and instruction rows (the first line names the kernel)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        rows = list(csv.reader(f))
    header = rows[1]
    return {name: i for i, name in enumerate(header)}, rows[2:]


def number(text):
    try:
        return float(text or 0)
    except ValueError:
        return 0.0


def stalls(path):
    column, rows = read(path)
    reasons = [name for name in column if name.startswith("stall_")]
    totals = Counter()
    for row in rows:
        for reason in reasons:
            totals[reason] += number(row[column[reason]])
    samples = sum(number(row[column[ALL_SAMPLES]]) for row in rows)
    print(f"{path}: {samples:.0f} samples")
    for reason, count in totals.most_common(12):
        print(f"  {reason:30s} {count:9.0f} {100 * count / samples:5.1f}%")


def top(path, count=20):
    column, rows = read(path)
    samples = sum(number(row[column[ALL_SAMPLES]]) for row in rows)
    ranked = sorted(range(len(rows)), key=lambda i: -number(rows[i][column[ALL_SAMPLES]]))
    for i in ranked[:count]:
        row = rows[i]
        reasons = " ".join(f"{r[6:]}={row[column[r]]}" for r in TOP_REASONS if r in column)
        here = number(row[column[ALL_SAMPLES]])
        print(f"{i:5d} {here:7.0f} {100 * here / samples:4.1f}%  {reasons}  "
              f"{row[column['Source']].strip()[:60]}  executed {row[column['Instructions Executed']]}")


def sectors(path):
    column, rows = read(path)
    totals = [0.0, 0.0, 0.0]
    for i, row in enumerate(rows):
        values = [number(row[column[name]]) for name in SECTORS]
        if values[0] > 0:
            print(f"{i:5d} {values[0]:12.0f} {values[1]:12.0f} {values[2]:12.0f}  "
                  f"{row[column['Source']].strip()[:60]}  executed {row[column['Instructions Executed']]}")
            totals = [a + b for a, b in zip(totals, values)]
    print(f"total {totals[0]:.0f} sectors, {totals[1]:.0f} excessive, {totals[2]:.0f} ideal")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("stalls", "top", "sectors"):
        sys.exit(__doc__)
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "stalls":
        for file in arguments:
            stalls(file)
    elif command == "top":
        top(arguments[0], int(arguments[1]) if len(arguments) > 1 else 20)
    else:
        sectors(arguments[0])
