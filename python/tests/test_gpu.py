"""The bindings on CUDA arrays of torch and CuPy against NumPy oracles: outputs of the caller's library,
non-default streams, device errors. Skips, saying why, without a GPU, torch or CuPy."""

import numpy as np
import pytest

import sluice
from conftest import gpu_library

LIBRARIES = ["torch", "cupy"]


class Arrays:
    """Moves NumPy arrays to the library's device and back."""

    def __init__(self, name):
        self.name = name
        self.lib = gpu_library(name)

    def device(self, host):
        if self.name == "torch":
            return self.lib.from_numpy(np.ascontiguousarray(host)).cuda()
        return self.lib.asarray(host)

    def host(self, array):
        if self.name == "torch":
            return array.cpu().numpy()
        return self.lib.asnumpy(array)

    def is_mine(self, array):
        return isinstance(array, self.lib.Tensor if self.name == "torch" else self.lib.ndarray)

    def stream(self):
        return self.lib.cuda.Stream() if self.name == "torch" else self.lib.cuda.Stream(non_blocking=True)

    def use(self, stream):
        return self.lib.cuda.stream(stream) if self.name == "torch" else stream

    def sync(self):
        if self.name == "torch":
            self.lib.cuda.synchronize()
        else:
            self.lib.cuda.Device().synchronize()


@pytest.fixture(params=LIBRARIES)
def arrays(request):
    return Arrays(request.param)


SIZES = [0, 1, 1000, (1 << 20) + 3]


def rng_values(n, dtype, high=1000, seed=0):
    rng = np.random.default_rng(seed + n)
    low = 0 if np.dtype(dtype).kind == "u" else -high
    return rng.integers(low, high, n).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.uint64, np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_reduce_and_scans(arrays, dtype, n):
    h = rng_values(n, dtype)
    d = arrays.device(h)
    total = sluice.reduce(d)
    assert arrays.is_mine(total)
    assert arrays.host(total).item() == h.sum(dtype=dtype), f"n={n} dtype={np.dtype(dtype)}"
    scanned = sluice.inclusive_scan(d)
    assert arrays.is_mine(scanned)
    np.testing.assert_array_equal(arrays.host(scanned), np.cumsum(h, dtype=dtype), err_msg=f"n={n}")
    np.testing.assert_array_equal(arrays.host(sluice.exclusive_scan(d)), np.cumsum(h, dtype=dtype) - h)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_sorts_and_search(arrays, dtype, n):
    h = rng_values(n, dtype)
    d = arrays.device(h)
    np.testing.assert_array_equal(arrays.host(sluice.radix_sort(d)), np.sort(h), err_msg=f"n={n}")
    np.testing.assert_array_equal(arrays.host(sluice.argsort(d)), np.argsort(h, kind="stable"), err_msg=f"n={n}")
    if np.dtype(dtype).kind == "f":
        np.testing.assert_array_equal(arrays.host(sluice.merge_sort(d)), np.sort(h), err_msg=f"n={n}")
    keys = np.sort(h)
    queries = rng_values(777, dtype, seed=3)
    np.testing.assert_array_equal(arrays.host(sluice.lower_bound(arrays.device(keys), arrays.device(queries))),
                                  np.searchsorted(keys, queries, "left"))
    np.testing.assert_array_equal(arrays.host(sluice.upper_bound(arrays.device(keys), arrays.device(queries))),
                                  np.searchsorted(keys, queries, "right"))


@pytest.mark.parametrize("m", [1, 32, 4096, 1 << 20])
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_bincount_multireduce(arrays, m, label_dtype):
    n = 1 << 20
    labels = rng_values(n, label_dtype, high=m)
    kept = labels >= 0
    v = rng_values(n, np.float64, seed=7, high=100)
    dl, dv = arrays.device(labels), arrays.device(v)
    np.testing.assert_array_equal(arrays.host(sluice.bincount(dl, m)), np.bincount(labels[kept], minlength=m))
    sums = np.zeros(m)
    np.add.at(sums, labels[kept], v[kept])
    np.testing.assert_array_equal(arrays.host(sluice.multireduce(dl, dv, m)), sums, err_msg=f"m={m}")
    if label_dtype == np.int64:  # int32 labels take the sum only
        maxima = np.full(m, -np.inf)
        np.maximum.at(maxima, labels[kept], v[kept])
        np.testing.assert_array_equal(arrays.host(sluice.multireduce(dl, dv, m, "max")), maxima, err_msg=f"m={m}")
        counts = np.maximum(np.bincount(labels[kept], minlength=m), 1)
        np.testing.assert_allclose(arrays.host(sluice.multireduce(dl, dv, m, "mean")), sums / counts, err_msg=f"m={m}")


def test_segmented_select_multisplit_multiscan(arrays):
    n = 100_000
    v = rng_values(n, np.int64, high=100)
    flags = (rng_values(n, np.int64, seed=1, high=100) > 90).astype(np.uint8)
    flags[0] = 1
    starts = np.flatnonzero(flags)
    np.testing.assert_array_equal(arrays.host(sluice.segmented_reduce(arrays.device(v), flags=arrays.device(flags))),
                                  np.add.reduceat(v, starts))
    np.testing.assert_array_equal(arrays.host(sluice.select_if(arrays.device(v), ">", 50)), v[v > 50])
    keys = np.abs(v).astype(np.uint32)
    out, offsets = sluice.multisplit(arrays.device(keys), 5, bucket="delta", delta=25)  # keys ≤ 100
    order = np.argsort(keys // 25, kind="stable")
    np.testing.assert_array_equal(arrays.host(out), keys[order])
    labels = (np.abs(v) % 16).astype(np.int32)
    rank = arrays.host(sluice.multitag(arrays.device(labels), 16))
    seen = np.zeros(16, dtype=np.int64)
    expected = np.empty(n, dtype=np.int64)
    for i, label in enumerate(labels):
        expected[i] = seen[label]
        seen[label] += 1
    np.testing.assert_array_equal(rank, expected)


def test_non_default_stream(arrays):
    h = rng_values(1 << 22, np.float64)  # sums of integers: exact
    stream = arrays.stream()
    with arrays.use(stream):
        d = arrays.device(h)
        result = sluice.inclusive_scan(d)  # the library's current stream: the new one
    explicit = sluice.radix_sort(d, stream=stream)
    arrays.sync()
    np.testing.assert_array_equal(arrays.host(result), np.cumsum(h))
    np.testing.assert_array_equal(arrays.host(explicit), np.sort(h))


def test_device_errors(arrays):
    d = arrays.device(np.arange(10, dtype=np.float32))
    with pytest.raises(ValueError, match="host memory"):
        sluice.gather(d, np.arange(3, dtype=np.int64))
    with pytest.raises(ValueError, match="index 1"):
        sluice.gather(d, arrays.device(np.array([0, 11], dtype=np.int64)), strict=True)
    with pytest.raises(TypeError, match="supported"):
        sluice.multireduce(arrays.device(np.zeros(4, dtype=np.float32)), d[:4], 3)


def test_cuda_array_interface_and_dlpack(arrays):
    h = rng_values(5000, np.int64)
    d = arrays.device(h)

    class Interface:  # a bare producer (Numba-like): outputs come from CuPy or torch
        def __init__(self, wrapped):
            self.__cuda_array_interface__ = wrapped.__cuda_array_interface__

    result = sluice.inclusive_scan(Interface(d))
    np.testing.assert_array_equal(np.asarray(result.get() if hasattr(result, "get") else result.cpu()), np.cumsum(h))


def test_info_names_the_device():
    if sluice.device_count() == 0:
        pytest.skip("no CUDA device")
    facts = sluice.info()
    assert facts["sm_count"] > 0 and facts["name"]
