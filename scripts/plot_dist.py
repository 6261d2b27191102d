#!/usr/bin/env python3
"""Plots a `sluice_dist_bench --json` file: for each bench, the scaling (weak scaling efficiency, or the
strong speedup) against the number of GPUs beside the ideal, and the slowest rank's phase times of each
distributed row as stacked bars beside the one-GPU baseline and NCCL's all-to-all of the same world.
Usage: plot_dist.py results.json output_directory   (writes <first bench>-scaling.png, -phases.png)"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(row):
    return f"{row['bench']}, {row['per_gpu']:,} a GPU"


def distributed(rows):
    return [r for r in rows if r["implementation"].startswith("dist::")]


def plot_scaling(rows, path):
    series = {}
    for r in distributed(rows):
        implementation = r["implementation"].replace(" (world of 1)", "")
        series.setdefault((label(r) if "weak" in r["bench"] else r["bench"], implementation), []).append(r)
    fig, ax = plt.subplots(figsize=(8, 5))
    for (name, implementation), points in sorted(series.items()):
        points.sort(key=lambda r: r["gpus"])
        xs, ys = [p["gpus"] for p in points], [p["scaling"] for p in points]
        ax.plot(xs, ys, marker="o", label=f"{name} ({implementation})")
    worlds = sorted({r["gpus"] for r in rows})
    ax.plot(worlds, [1] * len(worlds), "k--", linewidth=0.8, label="ideal weak efficiency")
    if any("strong" in name for name, _ in series):
        ax.plot(worlds, worlds, "k:", linewidth=0.8, label="ideal strong speedup")
    ax.set_xlabel("GPUs")
    ax.set_xscale("log", base=2)
    ax.set_ylabel("weak efficiency, or strong speedup (× one GPU)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_phases(rows, path):
    bars = [r for r in distributed(rows) if r["gpus"] > 1]
    phases = []
    for r in bars:
        for p in r["phases_ms"]:
            if p not in phases:
                phases.append(p)
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(bars)), 5))
    names = [f"{r['bench']}\n{r['implementation'].replace('dist::', '')}\n{r['gpus']} GPUs, {r['per_gpu'] >> 20}M" for r in bars]
    bottoms = [0.0] * len(bars)
    for p in phases:
        heights = [r["phases_ms"].get(p, 0.0) for r in bars]
        ax.bar(names, heights, bottom=bottoms, label=p)
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    ax.scatter(names, [r["median_ms"] for r in bars], color="black", marker="_", s=400, label="wall (median)", zorder=3)
    ax.set_ylabel("ms (phases: the slowest rank's GPU time)")
    ax.tick_params(axis="x", labelsize=6)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = json.load(open(sys.argv[1]))["rows"]
    os.makedirs(sys.argv[2], exist_ok=True)
    stem = distributed(rows)[0]["bench"].split()[0] if distributed(rows) else "dist"
    plot_scaling(rows, os.path.join(sys.argv[2], f"{stem}-scaling.png"))
    plot_phases(rows, os.path.join(sys.argv[2], f"{stem}-phases.png"))


if __name__ == "__main__":
    main()
