"""Drop-ins for PyTorch calls, with PyTorch's semantics, run by sluice's multireduce and histogram
(docs/python.md, "Drop-ins"). Import torch before calling them; inputs are CUDA (or CPU) tensors.

Differences from PyTorch, all outside its valid inputs: an index outside the target is dropped (PyTorch
raises or asserts on the device); amax/amin combine with ``a < b ? b : a``, so a NaN is kept only where it
comes first (PyTorch propagates every NaN); float16/bfloat16 values are not taken (TypeError).
"""

import torch

from . import _sluice

_OPERATORS = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "max", "amin": "min"}


def _identity(op, dtype):
    if op in ("sum", "mean"):
        return 0
    if op == "prod":
        return 1
    if dtype.is_floating_point:
        return float("-inf") if op == "max" else float("inf")
    info = torch.iinfo(dtype)
    return info.min if op == "max" else info.max


def _strides(shape):
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return list(reversed(strides))


def _scatter_labels(input, dim, index):
    """The flat position in input of every element of index (index[p] replacing p's coordinate dim)."""
    if input.dim() <= 1:
        return index.reshape(-1)
    strides = _strides(input.shape)
    labels = index.to(torch.int64) * strides[dim]
    for d in range(index.dim()):
        if d == dim:
            continue
        shape = [1] * index.dim()
        shape[d] = index.shape[d]
        labels = labels + torch.arange(index.shape[d], device=index.device).reshape(shape) * strides[d]
    return labels.reshape(-1)


def _reduce_into(out, labels, values, op, include_self):
    flat = out.view(-1)
    m = flat.numel()
    if m == 0 or labels.numel() == 0:
        return out
    counts = None
    if not include_self or op == "mean":
        counts = _sluice.bincount(labels, m)
    if not include_self:
        flat.masked_fill_(counts > 0, _identity(op, out.dtype))
    _sluice.multireduce(labels, values, m, "sum" if op == "mean" else op, accumulate=True, out=flat)
    if op == "mean":
        count = (counts + 1 if include_self else counts).clamp_(min=1)
        if out.is_floating_point():
            flat.div_(count.to(out.dtype))
        else:
            flat.div_(count, rounding_mode="floor")
    return out


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """torch.scatter_reduce(input, dim, index, src, reduce, include_self=include_self): reduce is one of
    sum, prod, mean, amax, amin; any number of dimensions."""
    if reduce not in _OPERATORS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if index.dim() != src.dim() or (input.dim() != index.dim() and input.dim() > 0):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    dim = dim % max(input.dim(), 1)
    values = src[tuple(slice(0, extent) for extent in index.shape)] if src.dim() else src
    out = input.clone(memory_format=torch.contiguous_format)
    return _reduce_into(out, _scatter_labels(input, dim, index), values.contiguous().reshape(-1), _OPERATORS[reduce],
                        include_self)


def index_add(input, dim, index, source, *, alpha=1):
    """torch.index_add(input, dim, index, source, alpha=alpha): out = input with source's slices added
    at index along dim (index int32 or int64, 1-D)."""
    dim = dim % max(input.dim(), 1)
    if alpha != 1:
        source = source * alpha
    out = input.clone(memory_format=torch.contiguous_format)
    if input.dim() <= 1:
        labels = index.reshape(-1)
    else:
        outer = 1
        for extent in input.shape[:dim]:
            outer *= extent
        inner = _strides(input.shape)[dim]
        depth = input.shape[dim]
        labels = (torch.arange(outer, device=index.device).reshape(outer, 1, 1) * (depth * inner)
                  + index.to(torch.int64).reshape(1, -1, 1) * inner
                  + torch.arange(inner, device=index.device).reshape(1, 1, inner)).reshape(-1)
    return _reduce_into(out, labels, source.contiguous().reshape(-1), "sum", True)


def bincount(input, weights=None, minlength=0):
    """torch.bincount(input, weights, minlength): counts (int64) or sums of weights (float32 weights stay
    float32, others become float64) of every value of a 1-D non-negative integer tensor."""
    if input.dim() != 1 or input.is_floating_point() or input.dtype == torch.bool:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.dtype not in (torch.uint8, torch.int32, torch.int64):  # uint8: the byte histogram, read as bytes
        input = input.to(torch.int64)
    if weights is not None:
        if weights.dim() != 1 or weights.shape[0] != input.shape[0]:
            raise RuntimeError("weights should be 1-d and have the same length as input")
        if weights.dtype != torch.float32:
            weights = weights.to(torch.float64)
    m = minlength
    if input.numel() > 0:
        lowest, highest = torch.stack(torch.aminmax(input)).tolist()  # one pass, one wait for the host
        if lowest < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        m = max(highest + 1, minlength)
    if m == 0:
        return torch.zeros(0, dtype=torch.int64 if weights is None else weights.dtype, device=input.device)
    return _sluice.bincount(input, m, weights=weights)


__all__ = ["scatter_reduce", "index_add", "bincount"]
