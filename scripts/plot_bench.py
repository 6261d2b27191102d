#!/usr/bin/env python3
"""Plots the sweeps of a `sluice bench` JSON file: one PNG per (family, case) measured at three or
more sizes, bandwidth (GB/s) against n on a log2 axis, one line per implementation, with the measured
copy bandwidth as the ceiling. Usage: plot_bench.py results.json output_directory"""
import json
import os
import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(results_path, out_dir):
    with open(results_path) as f:
        document = json.load(f)
    env = document["environment"]
    series = defaultdict(lambda: defaultdict(list))
    for row in document["rows"]:
        series[(row["family"], row["case"])][row["implementation"]].append(row)
    written = 0
    for (family, case), by_impl in series.items():
        sizes = {row["n"] for rows in by_impl.values() for row in rows}
        if len(sizes) < 3:
            continue
        fig, ax = plt.subplots(figsize=(7, 4.2))
        for impl, rows in by_impl.items():
            rows.sort(key=lambda r: r["n"])
            ax.plot([r["n"] for r in rows], [r["gb_per_s"] for r in rows], marker="o", label=impl)
        on_device = any(r["on_device"] for rows in by_impl.values() for r in rows)
        copy = env["device_copy_bandwidth_bytes_per_s" if on_device else "host_copy_bandwidth_bytes_per_s"] / 1e9
        if copy > 0:
            ax.axhline(copy, color="grey", linestyle="--", linewidth=1, label=f"copy {copy:.0f} GB/s")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("GB/s (minimum bytes moved / time)")
        ax.set_title(f"{family}: {case}\n{env['device']}, {env['date'][:10]}, {env['commit'][:12]}", fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{family}-{case}").strip("_") + ".png"
        fig.savefig(os.path.join(out_dir, name), dpi=120)
        plt.close(fig)
        written += 1
    print(f"plot_bench: {written} plot(s) in {out_dir}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
