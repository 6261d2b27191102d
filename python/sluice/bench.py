"""python -m sluice.bench: each binding against the call a PyTorch or CuPy user would write instead, in the
same process, in the table shape of `sluice bench` (docs/python.md, "Benchmarks").

Timing: CUDA events on the library's current stream around one call, after warm-up, the L2 evicted
before each repetition (a write of twice its size, outside the timed region), the median of the
repetitions. Every sluice result is compared with the baseline's (column ok). GB/s is the minimum traffic
of the work (inputs read once, outputs written once) over the time; %copy relates it to the
device-to-device copy bandwidth measured here. The last rows: the per-call time of a tiny reduce through
the binding (with out= and with a new output) against the C++ entry point called directly.

    python -m sluice.bench [--library torch|cupy|both] [--n LOG2] [--quick] [--repetitions R] [--json PATH]
"""

import argparse
import json
import statistics
import sys
import time

import sluice
from sluice import _sluice


class Library:
    """The few calls the benchmark needs from torch or CuPy."""

    def __init__(self, name):
        self.name = name
        if name == "torch":
            import torch

            self.lib = torch
            self.device = torch.device("cuda")
        else:
            import cupy

            self.lib = cupy

    # arrays
    def randint(self, high, n, dtype, seed=1):
        if self.name == "torch":
            g = self.lib.Generator(device="cuda").manual_seed(seed)
            return self.lib.randint(0, high, (n,), generator=g, device=self.device, dtype=getattr(self.lib, dtype))
        return self.lib.random.default_rng(seed).integers(0, high, n, dtype=dtype)

    def rand(self, n, seed=2):
        if self.name == "torch":
            g = self.lib.Generator(device="cuda").manual_seed(seed)
            return self.lib.rand(n, generator=g, device=self.device)
        return self.lib.random.default_rng(seed).random(n, dtype="float32")

    def zeros(self, n, dtype):
        if self.name == "torch":
            return self.lib.zeros(n, dtype=getattr(self.lib, dtype), device=self.device)
        return self.lib.zeros(n, dtype=dtype)

    def equal(self, a, b, tolerance=0.0):
        if self.name == "torch":
            if a.shape != b.shape:
                return False
            if tolerance:
                return bool(self.lib.allclose(a.double(), b.double(), rtol=tolerance, atol=tolerance))
            return bool(self.lib.equal(a, b))
        if a.shape != b.shape:
            return False
        if tolerance:
            return bool(self.lib.allclose(a.astype("float64"), b.astype("float64"), rtol=tolerance, atol=tolerance))
        return bool((a == b).all())

    # timing
    def event(self):
        if self.name == "torch":
            return self.lib.cuda.Event(enable_timing=True)
        return self.lib.cuda.Event()

    def record(self, event):
        event.record()

    def elapsed_ms(self, start, stop):
        if self.name == "torch":
            stop.synchronize()
            return start.elapsed_time(stop)
        stop.synchronize()
        return self.lib.cuda.get_elapsed_time(start, stop)

    def synchronize(self):
        if self.name == "torch":
            self.lib.cuda.synchronize()
        else:
            self.lib.cuda.Device().synchronize()

    def l2_bytes(self):
        return int(sluice.info()["l2_cache_bytes"])


class Bench:
    def __init__(self, library, repetitions):
        self.library = library
        self.repetitions = repetitions
        self.rows = []
        self.scrub = library.zeros(2 * library.l2_bytes() // 4, "int32")
        self.copy_gbps = self.measure_copy()

    def evict_l2(self):
        if self.library.name == "torch":
            self.scrub.add_(1)
        else:
            self.scrub += 1

    def time_ms(self, fn):
        lib = self.library
        fn()
        fn()  # warm-up: allocators, contexts, module loading
        times = []
        for _ in range(self.repetitions):
            self.evict_l2()
            start, stop = lib.event(), lib.event()
            lib.record(start)
            fn()
            lib.record(stop)
            times.append(lib.elapsed_ms(start, stop))
        return statistics.median(times)

    def measure_copy(self):
        n = 1 << 26
        source, target = self.library.zeros(n, "float32"), self.library.zeros(n, "float32")
        if self.library.name == "torch":
            ms = self.time_ms(lambda: target.copy_(source))
        else:
            ms = self.time_ms(lambda: self.library.lib.copyto(target, source))
        return 2 * 4 * n / ms / 1e6

    def case(self, family, case, n, items, traffic_bytes, baseline, subjects, tolerance=0.0):
        """baseline: (name, fn); subjects: [(name, fn)]; each fn returns its result, compared with the
        baseline's."""
        base_name, base_fn = baseline
        expected = base_fn()
        base_ms = self.time_ms(base_fn)
        self.row(family, case, base_name, n, base_ms, items, traffic_bytes, None, True)
        for name, fn in subjects:
            ok = self.library.equal(fn(), expected, tolerance)
            ms = self.time_ms(fn)
            self.row(family, case, name, n, ms, items, traffic_bytes, base_ms / ms, ok)

    def row(self, family, case, implementation, n, ms, items, traffic_bytes, ratio, ok):
        gbps = traffic_bytes / ms / 1e6
        self.rows.append({"family": family, "case": case, "implementation": implementation, "n": n, "ms": ms,
                          "gbps": gbps, "copy_percent": 100 * gbps / self.copy_gbps, "gitems": items / ms / 1e6,
                          "vs_base": ratio, "ok": ok, "library": self.library.name})
        print(format_row(self.rows[-1]), flush=True)


def size_text(n):
    return f"2^{n.bit_length() - 1}" if n and n & (n - 1) == 0 else str(n)


def format_row(r):
    ratio = "base" if r["vs_base"] is None else f"{r['vs_base']:.2f}x"
    return (f"{r['family']:<14} {r['case']:<34} {r['implementation']:<38} {size_text(r['n']):>6} {r['ms']:>10.4f} "
            f"{r['gbps']:>9.1f} {r['copy_percent']:>7.1f} {r['gitems']:>10.2f} {ratio:>8}  {'yes' if r['ok'] else 'NO'}")


def header():
    return (f"{'family':<14} {'case':<34} {'implementation':<38} {'n':>6} {'ms':>10} {'GB/s':>9} {'%copy':>7} "
            f"{'Gitems/s':>10} {'vs base':>8}  ok")


def run_torch(bench, n, sweep):
    import torch

    import sluice.torch as st

    lib = bench.library
    keys = lib.randint(1 << 30, n, "int32")
    floats = lib.rand(n)
    bench.case("reduce", "sum f32", n, n, 4 * n, ("torch.sum", lambda: floats.sum()),
               [("sluice.reduce", lambda: sluice.reduce(floats))], tolerance=1e-3)
    bench.case("scan", "cumsum i32", n, n, 8 * n, ("torch.cumsum", lambda: torch.cumsum(keys, 0, dtype=torch.int32)),
               [("sluice.inclusive_scan", lambda: sluice.inclusive_scan(keys))])
    bench.case("radix_sort", "sort i32 keys", n, n, 8 * n, ("torch.sort", lambda: torch.sort(keys).values),
               [("sluice.radix_sort", lambda: sluice.radix_sort(keys))])
    bench.case("radix_sort", "argsort i32 keys (stable)", n, n, 12 * n,
               ("torch.argsort(stable=True)", lambda: torch.argsort(keys, stable=True)),
               [("sluice.argsort", lambda: sluice.argsort(keys))])
    sorted_keys = torch.sort(lib.randint(1 << 30, n // 4, "int32")).values
    bench.case("search", "searchsorted i32, n/4 keys", n, n, 4 * (n // 4) + 12 * n,
               ("torch.searchsorted", lambda: torch.searchsorted(sorted_keys, keys)),
               [("sluice.lower_bound", lambda: sluice.lower_bound(sorted_keys, keys))])
    bench.case("select", "unique i32 (sorted output)", n, n, 8 * n, ("torch.unique", lambda: torch.unique(keys)),
               [("sluice.radix_sort + unique", lambda: sluice.unique(sluice.radix_sort(keys)))])
    values = floats
    for m in sweep:
        index = lib.randint(m, n, "int64")
        index32 = index.to(torch.int32)
        target = lib.zeros(m, "float32")
        case = f"m = {size_text(m)}"
        bench.case("histogram", "bincount " + case, n, n, 8 * n + 8 * m,
                   ("torch.bincount", lambda: torch.bincount(index, minlength=m)),
                   [("sluice.torch.bincount", lambda: st.bincount(index, minlength=m)),
                    ("sluice.bincount (m given)", lambda: sluice.bincount(index, m)),
                    ("sluice.bincount int32 samples", lambda: sluice.bincount(index32, m))])
        bench.case("multireduce", "index_add_ f32 " + case, n, n, 12 * n + 8 * m,
                   ("Tensor.index_add_", lambda: target.clone().index_add_(0, index, values)),
                   [("sluice.torch.index_add", lambda: st.index_add(target, 0, index, values)),
                    ("sluice.multireduce accumulate",
                     lambda: sluice.multireduce(index, values, m, accumulate=True, out=target.clone()))],
                   tolerance=1e-3)
        for reduce in ("sum", "amax", "mean"):
            bench.case("multireduce", f"scatter_reduce {reduce} f32 " + case, n, n, 12 * n + 8 * m,
                       ("torch.scatter_reduce",
                        lambda: torch.scatter_reduce(target, 0, index, values, reduce, include_self=True)),
                       [("sluice.torch.scatter_reduce",
                         lambda: st.scatter_reduce(target, 0, index, values, reduce, include_self=True))],
                       tolerance=1e-3)


def run_cupy(bench, n, sweep):
    import cupy

    import sluice.cupy as sc

    lib = bench.library
    keys = lib.randint(1 << 30, n, "int32")
    floats = lib.rand(n)
    bench.case("reduce", "sum f32", n, n, 4 * n, ("cupy.sum", lambda: floats.sum()),
               [("sluice.reduce", lambda: sluice.reduce(floats))], tolerance=1e-3)
    bench.case("scan", "cumsum i32", n, n, 8 * n, ("cupy.cumsum", lambda: cupy.cumsum(keys, dtype=cupy.int32)),
               [("sluice.inclusive_scan", lambda: sluice.inclusive_scan(keys))])
    bench.case("radix_sort", "sort i32 keys", n, n, 8 * n, ("cupy.sort", lambda: cupy.sort(keys)),
               [("sluice.radix_sort", lambda: sluice.radix_sort(keys))])
    bench.case("radix_sort", "argsort i32 keys", n, n, 12 * n, ("cupy.argsort", lambda: cupy.argsort(keys)),
               [("sluice.argsort", lambda: sluice.argsort(keys))])
    sorted_keys = cupy.sort(lib.randint(1 << 30, n // 4, "int32"))
    bench.case("search", "searchsorted i32, n/4 keys", n, n, 4 * (n // 4) + 12 * n,
               ("cupy.searchsorted", lambda: cupy.searchsorted(sorted_keys, keys)),
               [("sluice.lower_bound", lambda: sluice.lower_bound(sorted_keys, keys))])
    bench.case("select", "unique i32", n, n, 8 * n, ("cupy.unique", lambda: cupy.unique(keys)),
               [("sluice.cupy.unique", lambda: sc.unique(keys))])
    for m in sweep:
        index = lib.randint(m, n, "int64")
        bench.case("histogram", f"bincount m = {size_text(m)}", n, n, 8 * n + 8 * m,
                   ("cupy.bincount", lambda: cupy.bincount(index, minlength=m)),
                   [("sluice.cupy.bincount", lambda: sc.bincount(index, minlength=m)),
                    ("sluice.bincount (m given)", lambda: sluice.bincount(index, m))])


def overhead(library, repetitions=2000):
    """Per-call wall time of a tiny reduce (32 float32) through the binding and through the C++ entry
    point, the stream drained between calls (outside the timed region) in both."""
    x = library.zeros(32, "float32")
    out = library.zeros(1, "float32")
    rows = {}
    for name, fn in (("sluice.reduce(x, out=out)", lambda: sluice.reduce(x, out=out)),
                     ("sluice.reduce(x) (allocates)", lambda: sluice.reduce(x))):
        times = []
        for _ in range(repetitions):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
            library.synchronize()
        rows[name] = statistics.median(times) * 1e6
    rows["C++ sluice::reduce"] = _sluice._time_cpp_reduce(x, out, repetitions) * 1e6
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sluice.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--library", choices=["torch", "cupy", "both"], default="both")
    parser.add_argument("--n", type=int, default=28, help="log2 of the input size (default 28)")
    parser.add_argument("--quick", action="store_true", help="2^24 elements, m in {32, 4096, 2^20}, 10 repetitions")
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--json", help="write the rows and the overhead to this file")
    args = parser.parse_args(argv)
    if sluice.device_count() == 0:
        print("sluice.bench: no CUDA device (" + str(sluice.info().get("reason")) + ")", file=sys.stderr)
        return 1
    n = 1 << (24 if args.quick else args.n)
    sweep = [32, 4096, 1 << 20] if args.quick else [32, 256, 4096, 1 << 16, 1 << 20, 1 << 24]
    repetitions = 10 if args.quick else args.repetitions
    facts = sluice.info()
    names = ["torch", "cupy"] if args.library == "both" else [args.library]
    report = {"device": facts, "rows": [], "overhead_us": {}}
    for name in names:
        try:
            library = Library(name)
        except ImportError:
            print(f"sluice.bench: {name} is not installed; skipped", file=sys.stderr)
            continue
        bench = Bench(library, repetitions)
        print(f"device: {facts['name']}, {facts['sm_count']} SMs, L2 {facts['l2_cache_bytes'] >> 20} MB; "
              f"CCCL {facts['cccl_version']}, CUDA runtime {facts['cuda_runtime_version']}; {name} "
              f"{library.lib.__version__}")
        print(f"bandwidth: measured copy {bench.copy_gbps:.1f} GB/s ({name} device-to-device copy, read + write)")
        print(header())
        (run_torch if name == "torch" else run_cupy)(bench, n, sweep)
        report["rows"] += bench.rows
        report["overhead_us"][name] = overhead(library)
        for call, us in report["overhead_us"][name].items():
            print(f"overhead       tiny reduce (32 f32), {name:<19} {call:<38} {us:>8.2f} us per call")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0 if all(r["ok"] for r in report["rows"]) else 2


if __name__ == "__main__":
    sys.exit(main())
