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
            return self.lib.from_numpy(np.array(host, order="C", copy=True)).cuda()  # writable, as torch wants
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


@pytest.mark.parametrize("m", [1, 100, 256, 1000])
@pytest.mark.parametrize("offset", [0, 5])
def test_bincount_of_bytes(arrays, m, offset):
    image = np.random.default_rng(m + offset).integers(0, 256, (1 << 20) + 9).astype(np.uint8)
    counts = arrays.host(sluice.bincount(arrays.device(image)[offset:], m))
    np.testing.assert_array_equal(counts, np.bincount(image[offset:][image[offset:] < m], minlength=m))


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


# ---- segmented_sort, merge (oracles: NumPy's stable argsort) ---------------------------------------------
# 0, 1, 31, 33, the tiles of 8- and 4-byte keys (2816, 4352) ± 1, and a larger size.
SORT_SIZES = [0, 1, 31, 33, 2815, 2817, 4351, 4353, (1 << 20) + 3]
SEGMENT_SIZES = [0, 1, 19, 21, 35, 37, 159, 161, 223, 225, 2815, 2817, 4351, 4353, 50_000]


def stable_order(keys, descending=False):
    return np.argsort((-keys if keys.dtype.kind == "f" else ~keys) if descending else keys, kind="stable")


def segment_offsets(n, seed):
    rng = np.random.default_rng(seed)
    cuts, at = [0], 0
    while True:
        size = int(rng.choice(SEGMENT_SIZES))
        if at + size > n:
            break
        at += size
        cuts.append(at)
    cuts.append(n)
    return np.array(cuts, dtype=np.int64)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64])
@pytest.mark.parametrize("n", SORT_SIZES)
def test_segmented_sort(arrays, dtype, n):
    keys = rng_values(n, dtype, high=100)
    offsets = segment_offsets(n, seed=n)
    expected_keys, expected_positions = keys.copy(), np.arange(n, dtype=np.int64)
    for lo, hi in zip(offsets[:-1], offsets[1:]):
        order = stable_order(keys[lo:hi], descending=True)
        expected_keys[lo:hi] = keys[lo:hi][order]
        expected_positions[lo:hi] = lo + order
    dk, do = arrays.device(keys), arrays.device(offsets)
    out = arrays.device(np.full(n, 7, dtype=dtype))  # poisoned
    out_values = arrays.device(np.full(n, -1, dtype=np.int64))
    sorted_keys, moved = sluice.segmented_sort(dk, do, arrays.device(np.arange(n, dtype=np.int64)), descending=True,
                                               out=out, out_values=out_values)
    assert sorted_keys is out and arrays.is_mine(moved)
    np.testing.assert_array_equal(arrays.host(out), expected_keys, err_msg=f"n={n} dtype={np.dtype(dtype)} pairs")
    np.testing.assert_array_equal(arrays.host(out_values), expected_positions, err_msg=f"n={n} pairs")
    ascending = arrays.host(sluice.segmented_sort(dk, do))
    for lo, hi in zip(offsets[:-1], offsets[1:]):
        np.testing.assert_array_equal(ascending[lo:hi], np.sort(keys[lo:hi], kind="stable"),
                                      err_msg=f"n={n} dtype={np.dtype(dtype)} segment [{lo}, {hi})")


def test_segmented_sort_validates_offsets(arrays):
    keys = arrays.device(np.arange(10, dtype=np.int32))
    with pytest.raises(ValueError, match="'offsets'.*index 2"):
        sluice.segmented_sort(keys, arrays.device(np.array([0, 6, 5, 10], dtype=np.int64)), validate_offsets=True)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64])
@pytest.mark.parametrize("n", SORT_SIZES)
def test_merge(arrays, dtype, n):
    a = np.sort(rng_values(n, dtype, high=100))
    b = np.sort(rng_values(n // 3 + 5, dtype, seed=2, high=100))
    keys = np.concatenate([a, b])
    order = stable_order(keys)  # ties: a's keys first
    out = arrays.device(np.full(len(keys), 3, dtype=dtype))  # poisoned
    result = sluice.merge(arrays.device(a), arrays.device(b), out=out)
    assert result is out
    np.testing.assert_array_equal(arrays.host(out), keys[order], err_msg=f"n={n} dtype={np.dtype(dtype)}")
    positions = np.arange(len(keys), dtype=np.int64)
    merged, moved = sluice.merge(arrays.device(a), arrays.device(b), a_values=arrays.device(positions[:len(a)]),
                                 b_values=arrays.device(positions[len(a):]))
    assert arrays.is_mine(merged) and arrays.is_mine(moved)
    np.testing.assert_array_equal(arrays.host(moved), order, err_msg=f"n={n} dtype={np.dtype(dtype)} pairs")
    if np.dtype(dtype).itemsize == 4:
        small = positions.astype(np.uint32)
        _, moved32 = sluice.merge(arrays.device(a), arrays.device(b), a_values=arrays.device(small[:len(a)]),
                                  b_values=arrays.device(small[len(a):]))
        np.testing.assert_array_equal(arrays.host(moved32), order, err_msg=f"n={n} 4-byte values")


# ---- predecessor, SearchIndex ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 31, 33, 4095, 4097, (1 << 20) + 3])
def test_predecessor_and_search_index(arrays, dtype, n):
    keys = np.sort(rng_values(n, dtype, high=1 << 20))
    queries = rng_values(5000, dtype, seed=4, high=(1 << 20) + 100)
    right = np.searchsorted(keys, queries, "right")
    dk, dq = arrays.device(keys), arrays.device(queries)
    out = arrays.device(np.full(len(queries), 77, dtype=np.int64))  # poisoned
    assert sluice.predecessor(dk, dq, out=out) is out
    np.testing.assert_array_equal(arrays.host(out), right - 1, err_msg=f"n={n} dtype={np.dtype(dtype)}")
    for layout in ["sorted", "eytzinger", "btree"]:
        index = sluice.SearchIndex(dk, layout)
        assert len(index) == n and index.layout == layout and index.device == 0
        out = arrays.device(np.full(len(queries), 77, dtype=np.int64))
        index.lower_bound(dq, out=out)
        np.testing.assert_array_equal(arrays.host(out), np.searchsorted(keys, queries, "left"),
                                      err_msg=f"n={n} dtype={np.dtype(dtype)} layout={layout} lower_bound")
        upper = index.upper_bound(dq)
        assert arrays.is_mine(upper)
        np.testing.assert_array_equal(arrays.host(upper), right, err_msg=f"n={n} layout={layout} upper_bound")
        np.testing.assert_array_equal(arrays.host(index.predecessor(dq)), right - 1,
                                      err_msg=f"n={n} layout={layout} predecessor")


def test_search_index_other_stream_and_device_errors(arrays):
    keys = np.arange(0, 20_000, 2, dtype=np.int64)
    index = sluice.SearchIndex(arrays.device(keys), "btree")
    stream = arrays.stream()
    queries = np.arange(-3, 20_003, dtype=np.int64)
    with arrays.use(stream):
        dq = arrays.device(queries)
        result = index.predecessor(dq)
    arrays.sync()
    np.testing.assert_array_equal(arrays.host(result), np.searchsorted(keys, queries, "right") - 1)
    with pytest.raises(ValueError, match="index"):
        index.lower_bound(queries)  # host queries, device index


# ---- string_match ----------------------------------------------------------------------------------------


def match_oracle(text, pattern):
    m = len(pattern)
    if m > len(text):
        return np.zeros(0, dtype=np.int64)
    windows = np.lib.stride_tricks.sliding_window_view(text, m)
    return np.flatnonzero((windows == np.frombuffer(bytes(pattern), dtype=np.uint8)).all(axis=1))


@pytest.mark.parametrize("algorithm", ["automatic", "crk", "drk", "hrk", "drk_2s"])
@pytest.mark.parametrize("n", [0, 1, 31, 33, 8191, 8193, (1 << 22) + 5])
def test_string_match(arrays, algorithm, n):
    rng = np.random.default_rng(n)
    text = np.frombuffer(b"ab", dtype=np.uint8)[rng.integers(0, 2, n)]
    dt = arrays.device(text)
    for pattern in [b"ab", b"abbabaab", b"ab" * 9 + b"b", b"aab" * 13]:
        if algorithm == "drk_2s" and len(pattern) < 8:
            continue
        expected = match_oracle(text, pattern)
        positions = sluice.string_match(dt, pattern, algorithm=algorithm)
        assert arrays.is_mine(positions)
        np.testing.assert_array_equal(arrays.host(positions), expected,
                                      err_msg=f"n={n} m={len(pattern)} algorithm={algorithm}")
        assert sluice.string_match_count(dt, arrays.device(np.frombuffer(pattern, dtype=np.uint8)),
                                         algorithm=algorithm) == len(expected)
        words = max(0, (n - len(pattern) + 1 + 31) // 32)
        out = arrays.device(np.full(words, 0xDEADBEEF, dtype=np.uint32))  # poisoned
        sluice.string_match_bitmap(dt, pattern, algorithm=algorithm, out=out)
        bits = np.unpackbits(arrays.host(out).view(np.uint8), bitorder="little")
        np.testing.assert_array_equal(np.flatnonzero(bits), expected, err_msg=f"n={n} m={len(pattern)} bitmap")


@pytest.mark.parametrize("n", [0, 1, 33, 100_000])
def test_multi_string_match(arrays, n):
    rng = np.random.default_rng(n)
    text = np.frombuffer(b"abc", dtype=np.uint8)[rng.integers(0, 3, n)]
    patterns = [b"ab", b"abc", b"cab", b"a", b"bcabca"]
    positions, ids = sluice.multi_string_match(arrays.device(text), patterns)
    assert arrays.is_mine(positions) and arrays.is_mine(ids)
    expected = sorted((r, k) for k, p in enumerate(patterns) for r in match_oracle(text, p))
    got = np.stack([arrays.host(positions), arrays.host(ids)], axis=1)
    np.testing.assert_array_equal(got, np.array(expected, dtype=np.int64).reshape(-1, 2), err_msg=f"n={n}")


def test_string_match_errors(arrays):
    text = arrays.device(np.array([0, 1, 4, 1], dtype=np.uint8))
    with pytest.raises(ValueError, match="'text'.*index 2"):
        sluice.string_match(text, bytes([1]), alphabet_bits=2)
    with pytest.raises(ValueError, match="'pattern'"):
        sluice.string_match(text, b"")


# ---- SlabHash ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key_dtype,value_dtype", [(np.int32, np.int32), (np.uint32, np.float32),
                                                   (np.int64, np.float64), (np.uint64, np.uint64)])
@pytest.mark.parametrize("n", [0, 1, 31, 33, 4095, 4097, (1 << 20) + 3])
def test_slab_hash_map(arrays, key_dtype, value_dtype, n):
    rng = np.random.default_rng(n)
    keys = rng.permutation(np.arange(n, dtype=key_dtype) * 3)  # distinct
    vals = rng.integers(0, 1 << 20, n).astype(value_dtype)
    table = sluice.SlabHash(key_dtype, value_dtype, capacity=n // 4)  # grows
    dk, dv = arrays.device(keys), arrays.device(vals)
    table.insert(dk, dv)
    assert table.size() == n, f"n={n} {np.dtype(key_dtype)}"
    queries = np.concatenate([keys[: n // 2], np.arange(n, dtype=key_dtype) * 3 + 1])  # present, then absent
    found, present = table.find(arrays.device(queries))
    assert arrays.is_mine(found) and arrays.is_mine(present)
    expected_present = np.concatenate([np.ones(n // 2, bool), np.zeros(n, bool)])
    np.testing.assert_array_equal(arrays.host(present), expected_present, err_msg=f"n={n} contains")
    np.testing.assert_array_equal(arrays.host(found)[: n // 2], vals[: n // 2], err_msg=f"n={n} find")
    with_default = arrays.host(table.find(arrays.device(queries), default=7))
    np.testing.assert_array_equal(with_default[n // 2:], np.full(n, 7, value_dtype), err_msg=f"n={n} default")
    table.insert(dk[:100], dv[:100])  # duplicates kept
    counts = arrays.host(table.count(dk[:200]))
    np.testing.assert_array_equal(counts, [2] * min(100, n) + [1] * max(0, min(200, n) - 100), err_msg=f"n={n}")
    table.erase(dk[:100])
    table.insert_or_assign(dk, arrays.device(vals[::-1].copy()))
    np.testing.assert_array_equal(arrays.host(table.find(dk, default=0)), vals[::-1], err_msg=f"n={n} assign")
    out_keys, out_values = table.retrieve_all()
    assert arrays.is_mine(out_keys)
    order = np.argsort(arrays.host(out_keys))
    np.testing.assert_array_equal(arrays.host(out_keys)[order], np.sort(keys), err_msg=f"n={n} retrieve_all")
    np.testing.assert_array_equal(arrays.host(out_values)[order], vals[::-1][np.argsort(keys)])
    table.clear()
    assert len(table) == 0


def test_slab_set_and_errors(arrays):
    table = sluice.SlabHash(np.uint64)
    keys = arrays.device(np.array([5, 9, 5, 1], dtype=np.uint64))
    table.insert_or_assign(keys)
    assert len(table) == 3
    np.testing.assert_array_equal(arrays.host(table.contains(keys)), [True] * 4)
    with pytest.raises(ValueError, match="'keys'.*index 1"):
        table.insert(arrays.device(np.array([3, (1 << 64) - 1], dtype=np.uint64)))
    assert len(table) == 3  # a rejected batch changes nothing
    with pytest.raises(ValueError, match="host memory"):
        table.insert(np.array([3], dtype=np.uint64))


@pytest.mark.parametrize("value_dtype", [np.int32, np.float32, np.int64, np.float64])
@pytest.mark.parametrize("n", [0, 1, 31, 33, 4097, (1 << 20) + 3])
def test_hash_unique_and_group_by_reduce(arrays, value_dtype, n):
    key_dtype = np.int32 if np.dtype(value_dtype).itemsize == 4 else np.uint64
    rng = np.random.default_rng(n)
    keys = rng.integers(0, max(1, n // 5), n).astype(key_dtype)
    vals = rng.integers(-100, 100, n).astype(value_dtype)  # integral: float sums exact
    dk, dv = arrays.device(keys), arrays.device(vals)
    unique_keys = sluice.hash_unique(dk)
    assert arrays.is_mine(unique_keys)
    np.testing.assert_array_equal(np.sort(arrays.host(unique_keys)), np.unique(keys), err_msg=f"n={n}")
    distinct, inverse = np.unique(keys, return_inverse=True)
    for op, ufunc, start in [("sum", np.add, 0), ("min", np.minimum, np.inf), ("max", np.maximum, -np.inf)]:
        expected = np.full(len(distinct), start, dtype=np.float64)
        ufunc.at(expected, inverse.reshape(-1), vals.astype(np.float64))
        out_keys, out_values = sluice.group_by_reduce(dk, dv, op)
        order = np.argsort(arrays.host(out_keys))
        np.testing.assert_array_equal(arrays.host(out_keys)[order], distinct, err_msg=f"n={n} op={op}")
        np.testing.assert_array_equal(arrays.host(out_values)[order], expected.astype(value_dtype),
                                      err_msg=f"n={n} op={op} values={np.dtype(value_dtype)}")


# ---- Lsm --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key_dtype,value_dtype", [(np.int32, np.float32), (np.uint32, np.uint32),
                                                   (np.int64, np.int64), (np.uint64, np.float64)])
@pytest.mark.parametrize("n", [0, 1, 31, 33, 4095, 4097, (1 << 20) + 3])
def test_lsm(arrays, key_dtype, value_dtype, n):
    rng = np.random.default_rng(n)
    low = -(1 << 20) if np.dtype(key_dtype).kind == "i" else 0
    keys = rng.integers(low, 1 << 20, n).astype(key_dtype)
    vals = rng.integers(0, 1 << 20, n).astype(value_dtype)
    erased = keys[: n // 4]
    model = dict(zip(keys.tolist(), vals.tolist()))  # the last of equal keys wins
    for k in erased.tolist():
        model.pop(k, None)
    lsm = sluice.Lsm(key_dtype, value_dtype, batch_size=4096, capacity=4 * n + 4096)
    lsm.insert(arrays.device(keys), arrays.device(vals))
    lsm.erase(arrays.device(erased))
    assert lsm.size() == len(model), f"n={n}"
    queries = rng.integers(low, 1 << 20, 5000).astype(key_dtype)
    found, present = lsm.lookup(arrays.device(queries))
    assert arrays.is_mine(found)
    expected_present = np.array([q in model for q in queries.tolist()], dtype=bool)
    np.testing.assert_array_equal(arrays.host(present), expected_present, err_msg=f"n={n} lookup")
    np.testing.assert_array_equal(arrays.host(found)[expected_present],
                                  np.array([model[q] for q in queries[expected_present].tolist()], dtype=value_dtype))
    live = np.array(sorted(model), dtype=key_dtype)
    k1 = np.sort(queries[:100])
    k2 = k1 + key_dtype(5000)  # keys stay below 2^20 + 5000: no overflow
    expected_counts = np.searchsorted(live, k2, "right") - np.searchsorted(live, k1, "left")
    np.testing.assert_array_equal(arrays.host(lsm.count(arrays.device(k1), arrays.device(k2))), expected_counts)
    offsets, range_keys, _ = lsm.range(arrays.device(k1), arrays.device(k2))
    np.testing.assert_array_equal(np.diff(arrays.host(offsets)), expected_counts, err_msg=f"n={n} range")
    np.testing.assert_array_equal(arrays.host(range_keys),
                                  np.concatenate([live[np.searchsorted(live, a): np.searchsorted(live, b, "right")]
                                                  for a, b in zip(k1, k2)] + [np.zeros(0, key_dtype)]))
    succ_keys, _, succ_found = lsm.successor(arrays.device(queries))
    at = np.searchsorted(live, queries, "left")
    np.testing.assert_array_equal(arrays.host(succ_found), at < len(live), err_msg=f"n={n} successor")
    np.testing.assert_array_equal(arrays.host(succ_keys)[at < len(live)], live[at[at < len(live)]])
    lsm.cleanup()
    assert len(lsm) == len(model)
