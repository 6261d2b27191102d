"""Drop-ins for CuPy calls with CuPy's semantics (docs/python.md, "Drop-ins"). Import cupy before calling
them. unique does not merge NaNs (each NaN is its own value), unlike NumPy's equal_nan=True."""

import cupy

from . import _sluice


def bincount(x, weights=None, minlength=None):
    """cupy.bincount(x, weights, minlength): int64 counts, or float64 sums of weights."""
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim > 1 else "object of too small depth for desired array")
    if x.dtype.kind not in "iu":
        raise TypeError("x must be int type")
    if minlength is not None and minlength < 0:
        raise ValueError("minlength must be non-negative")
    if x.dtype not in (cupy.uint8, cupy.int32, cupy.int64):  # uint8: the byte histogram, read as bytes
        x = x.astype(cupy.int64)
    if weights is not None:
        if weights.shape != x.shape:
            raise ValueError("The weights and list don't have the same length.")
        weights = weights.astype(cupy.float64, copy=False)
    size = 0
    if x.size > 0:
        if int(x.min()) < 0:
            raise ValueError("The first argument of bincount must be non-negative")
        size = int(x.max()) + 1
    if minlength is not None:
        size = max(size, minlength)
    if size == 0:
        return cupy.zeros(0, dtype=cupy.int64 if weights is None else cupy.float64)
    return _sluice.bincount(x, size, weights=weights)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """cupy.unique(ar, ...) for axis=None: the sorted distinct values of the flattened array, with the
    first index of each, the inverse (shaped like ar) and the counts on request."""
    if axis is not None:
        raise NotImplementedError("sluice.cupy.unique: axis is not supported")
    flat = cupy.ascontiguousarray(ar).reshape(-1)
    n = flat.size
    if return_index or return_inverse:
        order = _sluice.argsort(flat)
        ordered = flat[order]
    else:
        order = None
        ordered = _sluice.radix_sort(flat)
    heads = cupy.empty(n, dtype=cupy.bool_)
    if n:
        heads[0] = True
        cupy.not_equal(ordered[1:], ordered[:-1], out=heads[1:])
    values = _sluice.select_flagged(ordered, heads)
    results = [values]
    if return_index:
        results.append(_sluice.select_flagged(order, heads))
    if return_inverse:
        rank = cupy.cumsum(heads, dtype=cupy.int64) - 1
        inverse = cupy.empty(n, dtype=cupy.int64)
        _sluice.scatter(rank, order, inverse)
        results.append(inverse.reshape(ar.shape))
    if return_counts:
        starts = cupy.flatnonzero(heads)
        results.append(cupy.diff(cupy.append(starts, n)))
    return results[0] if len(results) == 1 else tuple(results)


__all__ = ["bincount", "unique"]
