#!/usr/bin/env python3
"""Summarises the CSV that scripts/gpu_check.sh's timeline part has ncu write (SLUICE_CHECK_PART=timeline:
each launch's duration, DRAM bytes and SM clock). The launches are cut into runs of one library (CUB's kernels, or
sluice's) in the order they came, and each run's kernels are reported with their launch count and median
duration, DRAM bytes read and written and SM clock; the bench's own kernels (L2 eviction, input generation) are left
out. --launches prints every launch instead, one line each.

    scripts/timeline_summary.py [--launches] build/gpu-check/timeline-kernel.csv
"""
import csv
import statistics
import sys

METRICS = ("gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "sm__cycles_elapsed.avg.per_second")
SCALE = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3,  # to µs
         "byte": 1e-9, "Kbyte": 1e-6, "Mbyte": 1e-3, "Gbyte": 1.0,  # to GB
         "cycle/second": 1e-6, "cycle/usecond": 1.0, "cycle/nsecond": 1e3, "hz": 1e-6, "Khz": 1e-3, "Mhz": 1.0,
         "Ghz": 1e3}  # to MHz


def launches(path):
    """(id, kernel, grid, µs, GB read, GB written, SM MHz) per launch, in launch order (nan: not collected)."""
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(line for line in f if line.startswith('"')):
            launch = rows.setdefault(r["ID"], {"kernel": r["Kernel Name"], "grid": r["Grid Size"]})
            if r["Metric Unit"] not in SCALE:
                sys.exit(f"{path}: unit '{r['Metric Unit']}' of {r['Metric Name']} is not one this script converts")
            launch[r["Metric Name"]] = float(r["Metric Value"].replace(",", "")) * SCALE[r["Metric Unit"]]
    for launch_id, r in rows.items():
        yield (int(launch_id), r["kernel"], r["grid"], *(r.get(m, float("nan")) for m in METRICS))


def print_launches(path):
    for launch_id, kernel, grid, us, read, written, mhz in launches(path):
        print(f"{launch_id:>5} {kernel[:60]:<60} {grid:<16} {us:10.1f} us  read {read:6.3f} GB  written {written:6.3f} GB"
              f"  SM {mhz:5.0f} MHz")


def print_summary(path):
    runs = []
    for launch in launches(path):
        kernel = launch[1]
        if "evict_l2" in kernel or "generate" in kernel:
            continue
        library = "cub" if "cub::" in kernel else "sluice"
        if not runs or runs[-1][0] != library:
            runs.append((library, {}))
        runs[-1][1].setdefault((kernel[:48], launch[2]), []).append(launch)
    for library, kernels in runs:
        print(f"--- {library}")
        for (kernel, grid), rows in kernels.items():
            median = lambda i: statistics.median(row[i] for row in rows)
            print(f"   x{len(rows):<3d} {kernel:<48} {grid:<14} {median(3):9.1f} us  read {median(4):6.3f} GB"
                  f"  written {median(5):6.3f} GB  SM {median(6):5.0f} MHz")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if arguments[:1] == ["--launches"]:
        print_launches(arguments[1])
    else:
        print_summary(arguments[0])
