#!/usr/bin/env python3
"""Summarises a timeline log of scripts/gpu_check.sh (SLUICE_CHECK_PART=timeline): the launches are cut
into runs of one library (CUB's kernels, or sluice's) in the order they came, and each run's kernels are
reported with their launch count and median duration, DRAM bytes read and written. The bench's own
kernels (L2 eviction, input generation) are left out.

    scripts/timeline_summary.py build/gpu-check/timeline-kernel.log
"""
import re
import statistics
import sys

TIME = {"ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}
BYTES = {"byte": 1e-9, "Kbyte": 1e-6, "Mbyte": 1e-3, "Gbyte": 1.0}
LINE = re.compile(r"\s*(\d+) (.{60}) (\(.*?\))\s+([\d,.]+) (\w+)\s+([\d,.]+) (\w+)\s+([\d,.]+) (\w+)")


def launches(path):
    for line in open(path):
        m = LINE.match(line)
        if not m:
            continue
        _, kernel, grid, t, t_unit, r, r_unit, w, w_unit = m.groups()
        number = lambda text: float(text.replace(",", ""))
        yield (kernel.strip(), grid, number(t) * TIME[t_unit], number(r) * BYTES[r_unit], number(w) * BYTES[w_unit])


def main(path):
    runs = []
    for launch in launches(path):
        if "evict_l2" in launch[0] or "generate" in launch[0]:
            continue
        library = "cub" if "cub::" in launch[0] else "sluice"
        if not runs or runs[-1][0] != library:
            runs.append((library, {}))
        runs[-1][1].setdefault((launch[0][:48], launch[1]), []).append(launch)
    for library, kernels in runs:
        print(f"--- {library}")
        for (kernel, grid), rows in kernels.items():
            median = lambda i: statistics.median(row[i] for row in rows)
            print(f"   x{len(rows):<3d} {kernel:<48} {grid:<14} {median(2):9.1f} us  read {median(3):6.3f} GB"
                  f"  written {median(4):6.3f} GB")


if __name__ == "__main__":
    main(sys.argv[1])
