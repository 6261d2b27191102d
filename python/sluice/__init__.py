"""sluice: data-parallel primitives on CuPy, PyTorch and NumPy arrays (docs/python.md).

Every function takes arrays of any library with ``__cuda_array_interface__`` or ``__dlpack__`` (CuPy,
torch, JAX, Numba) without copying them, runs on the caller's current stream (or ``stream=``) and
returns arrays of the caller's library; NumPy (host) arrays run on the CPU backend.
"""

import sys

try:
    from . import _sluice
except ImportError:  # a development build: PYTHONPATH names the build folder that holds _sluice
    import _sluice  # type: ignore[no-redef]

    sys.modules[__name__ + "._sluice"] = _sluice

from ._sluice import (  # noqa: F401
    argsort,
    bincount,
    device_count,
    exclusive_scan,
    exclusive_scan_by_key,
    first_order_linear_recurrence,
    gather,
    histogram_even,
    histogram_range,
    inclusive_scan,
    inclusive_scan_by_key,
    lower_bound,
    max_plus_recurrence,
    merge_sort,
    multiscan_exclusive,
    multiscan_inclusive,
    multisplit,
    multitag,
    radix_sort,
    radix_sort_pairs,
    reduce,
    reduce_by_key,
    scatter,
    segmented_exclusive_scan,
    segmented_inclusive_scan,
    segmented_reduce,
    select_flagged,
    select_if,
    stable_partition,
    stable_partition_3way,
    synchronize,
    transpose,
    unique,
    upper_bound,
)

__version__ = "0.1.0"


def info(device=0):
    """The device (name, SMs, memory, L2, bandwidth), the CCCL and CUDA runtime versions; without a
    GPU, device_count 0 and the reason."""
    return _sluice.info(device)


def _divide_by_counts(sums, counts):
    """sums / max(counts, 1), floor-divided for integers (torch.scatter_reduce's mean), in the arrays'
    own library."""
    if hasattr(sums, "div_"):  # torch
        counts = counts.clamp(min=1).to(sums.dtype)
        if sums.is_floating_point():
            return sums.div_(counts)
        return sums.div_(counts, rounding_mode="floor")
    counts = counts.clip(1, None).astype(sums.dtype)
    if sums.dtype.kind == "f":
        sums /= counts
    else:
        sums //= counts
    return sums


def multireduce(labels, values, m, op="sum", *, algorithm="automatic", accumulate=False, strict=False,
                deterministic=False, sets=0, partial_sort_bits=-1, out=None, stream=None):
    """out[k] = op over the values labelled k (labels outside [0, m) are dropped). op: sum, prod, min,
    max, and, or, xor (labels int64; int32 labels take sum, min, max), or mean (sum / count, integers
    floor-divided, empty buckets 0)."""
    if op != "mean":
        return _sluice.multireduce(labels, values, m, op, algorithm=algorithm, accumulate=accumulate, strict=strict,
                                   deterministic=deterministic, sets=sets, partial_sort_bits=partial_sort_bits,
                                   out=out, stream=stream)
    if accumulate:
        raise ValueError("sluice.multireduce: 'mean' does not accumulate")
    sums = _sluice.multireduce(labels, values, m, "sum", algorithm=algorithm, strict=strict,
                               deterministic=deterministic, sets=sets, partial_sort_bits=partial_sort_bits, out=out,
                               stream=stream)
    counts = _sluice.bincount(labels, m, stream=stream)
    return _divide_by_counts(sums, counts)


__all__ = [name for name in dir() if not name.startswith("_")]
