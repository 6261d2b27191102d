#!/usr/bin/env python3
"""Plots the sweeps of a `sluice bench` JSON file, one line per implementation:
- over n: one PNG per (family, case) measured at three or more sizes, bandwidth (GB/s) against n on a
  log2 axis, with the measured copy bandwidth as the ceiling;
- over m: cases named "<case>, m = 2^k" (host: Eilers Fig. 2.1-2.7; device: the multireduce sweeps of
  Figs. 4.10-4.16) or "<case>, m = <count>, <labels>" (the order-preserving multireduce and multiscan
  sweeps), one PNG per (family, case, labels, n, host or device), ns per element against the bucket (or
  table) count m;
- over segment length: cases named "<prefix> 2^k per segment <suffix>" (the segmented sweep), one PNG
  per (family, prefix, suffix), GB/s against the segment length, with the copy bandwidth as the ceiling.
With --simulate, the CSV of `sluice simulate --csv` instead (one PNG named after it): measured against
simulated ns per element over m, naive and partial sort, and the naive loop simulated with one miss in
flight (Eilers' model).
Usage: plot_bench.py results.json output_directory
       plot_bench.py --simulate simulate.csv output_directory"""
import csv
import json
import os
import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

M_SWEEP = re.compile(r"(.*), m = 2\^(\d+)$")
LABELLED_M_SWEEP = re.compile(r"(.*), m = (\d+), (.*)$")
LENGTH_SWEEP = re.compile(r"(.*) 2\^(\d+) per segment (.*)$")


def draw(out_dir, name, title, xlabel, ylabel, lines, ceiling=None, styles=None, logy=False):
    """One PNG: `lines` maps an implementation to its (x, y) points; x on a log2 axis (y too with
    `logy`); `styles` maps an implementation to extra matplotlib line arguments."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for impl, points in lines.items():
        points.sort()
        ax.plot([x for x, _ in points], [y for _, y in points], marker="o", markersize=3, label=impl,
                **(styles or {}).get(impl, {}))
    if ceiling:
        ax.axhline(ceiling[0], color="grey", linestyle="--", linewidth=1, label=ceiling[1])
    ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") + ".png"), dpi=120)
    plt.close(fig)


def main(results_path, out_dir):
    with open(results_path) as f:
        document = json.load(f)
    env = document["environment"]
    over_n = defaultdict(lambda: defaultdict(list))
    over_m = defaultdict(lambda: defaultdict(list))
    over_length = defaultdict(lambda: defaultdict(list))
    for row in document["rows"]:
        match = M_SWEEP.match(row["case"])
        labelled = LABELLED_M_SWEEP.match(row["case"])
        length = LENGTH_SWEEP.match(row["case"])
        if length:
            case = f"{length.group(1)} per segment {length.group(3)}"
            over_length[(row["family"], case)][row["implementation"]].append((2 ** int(length.group(2)), row["gb_per_s"]))
        elif match or labelled:
            case, m = (match.group(1), 2 ** int(match.group(2))) if match else (
                f"{labelled.group(1)}, {labelled.group(3)}", int(labelled.group(2)))
            ns_per_element = row["median_ms"] * 1e6 / row["n"]
            over_m[(row["family"], case, row["n"], row["on_device"])][row["implementation"]].append((m, ns_per_element))
        else:
            over_n[(row["family"], row["case"])][row["implementation"]].append(row)
    os.makedirs(out_dir, exist_ok=True)
    written = 0
    for (family, case), by_impl in over_n.items():
        if len({row["n"] for rows in by_impl.values() for row in rows}) < 3:
            continue
        on_device = any(r["on_device"] for rows in by_impl.values() for r in rows)
        copy = env["device_copy_bandwidth_bytes_per_s" if on_device else "host_copy_bandwidth_bytes_per_s"] / 1e9
        lines = {impl: [(r["n"], r["gb_per_s"]) for r in rows] for impl, rows in by_impl.items()}
        draw(out_dir, f"{family}-{case}", f"{family}: {case}\n{env['device']}, {env['date'][:10]}, {env['commit'][:12]}",
             "n (elements)", "GB/s (minimum bytes moved / time)", lines,
             (copy, f"copy {copy:.0f} GB/s") if copy > 0 else None)
        written += 1
    for (family, case, n, on_device), lines in over_m.items():
        where = env["device"] if on_device else "host"
        draw(out_dir, f"m-sweep-{family}-{case}",
             f"{family}: {case}, n = 2^{n.bit_length() - 1}\n{where}, {env['date'][:10]}, {env['commit'][:12]}",
             "m (buckets / table entries)", "ns per element (median)", lines)
        written += 1
    copy = env["device_copy_bandwidth_bytes_per_s"] / 1e9
    for (family, case), lines in over_length.items():
        if len({x for points in lines.values() for x, _ in points}) < 3:
            continue
        draw(out_dir, f"length-sweep-{family}-{case}",
             f"{family}: {case}, segment length swept\n{env['device']}, {env['date'][:10]}, {env['commit'][:12]}",
             "segment length (elements)", "GB/s (minimum bytes moved / time)", lines,
             (copy, f"copy {copy:.0f} GB/s") if copy > 0 else None)
        written += 1
    print(f"plot_bench: {written} plot(s) in {out_dir}")


def simulate(csv_path, out_dir):
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    columns = {"naive, measured": ("naive_measured_ns", {"color": "C0"}),
               "naive, simulated": ("naive_simulated_ns", {"color": "C0", "linestyle": "--"}),
               "naive, simulated with one miss in flight": ("naive_no_mlp_ns", {"color": "C0", "linestyle": ":"}),
               "partial sort, measured": ("partial_sort_measured_ns", {"color": "C1"}),
               "partial sort, simulated": ("partial_sort_simulated_ns", {"color": "C1", "linestyle": "--"})}
    lines = {label: [(2 ** int(r["log2_m"]), float(r[column])) for r in rows] for label, (column, _) in columns.items()}
    os.makedirs(out_dir, exist_ok=True)
    name = os.path.splitext(os.path.basename(csv_path))[0]
    draw(out_dir, name, f"sluice simulate: sequential multireduce, simulated against measured ({name}.csv)",
         "m (buckets)", "ns per element", lines, styles={label: style for label, (_, style) in columns.items()},
         logy=True)
    print(f"plot_bench: {name}.png in {out_dir}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--simulate":
        simulate(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3:
        main(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)
