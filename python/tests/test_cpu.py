"""The bindings on NumPy (host) arrays, run by the CPU backend or the sequential oracles, against NumPy
oracles; the argument checks and error mapping. Runs anywhere (CI has no GPU)."""

import numpy as np
import pytest

import sluice

NUMERIC = [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64]
SIZES = [0, 1, 31, 1000, 70_000]


def values(n, dtype, seed=1, high=100):
    rng = np.random.default_rng(seed + n)
    if np.dtype(dtype).kind == "f":
        return rng.integers(-high, high, n).astype(dtype)  # integral values: exact float sums
    if np.dtype(dtype).kind == "u":
        return rng.integers(0, high, n).astype(dtype)
    return rng.integers(-high, high, n).astype(dtype)


def test_version_and_info():
    assert sluice.__version__
    facts = sluice.info()
    assert "device_count" in facts


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("n", SIZES)
def test_reduce(dtype, n):
    x = values(n, dtype)
    assert sluice.reduce(x).item() == x.sum(dtype=dtype)
    if n:
        assert sluice.reduce(x, "max").item() == x.max()
        assert sluice.reduce(x, "min").item() == x.min()


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("n", SIZES)
def test_scans(dtype, n):
    x = values(n, dtype)
    np.testing.assert_array_equal(sluice.inclusive_scan(x), np.cumsum(x, dtype=dtype))
    exclusive = sluice.exclusive_scan(x, init=5)
    np.testing.assert_array_equal(exclusive, (np.cumsum(x, dtype=dtype) - x + dtype(5)).astype(dtype))
    np.testing.assert_array_equal(sluice.inclusive_scan(x, "max"), np.maximum.accumulate(x) if n else x)


def test_scan_keeps_shape_and_writes_out():
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    out = np.empty_like(x)
    result = sluice.inclusive_scan(x, out=out)
    assert result is out
    np.testing.assert_array_equal(out.reshape(-1), np.cumsum(x))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_segmented(dtype):
    v = values(1000, dtype)
    rng = np.random.default_rng(3)
    flags = (rng.random(1000) < 0.05).astype(np.uint8)
    flags[0] = 1
    starts = np.flatnonzero(flags)
    sums = np.add.reduceat(v, starts)
    np.testing.assert_array_equal(sluice.segmented_reduce(v, flags=flags), sums.astype(dtype))
    offsets = np.append(starts, len(v)).astype(np.int64)
    np.testing.assert_array_equal(sluice.segmented_reduce(v, offsets=offsets), sums.astype(dtype))
    expected = np.concatenate([np.cumsum(s) for s in np.split(v, starts[1:])]).astype(dtype)
    np.testing.assert_array_equal(sluice.segmented_inclusive_scan(v, flags=flags), expected)
    np.testing.assert_array_equal(sluice.segmented_inclusive_scan(v, offsets=offsets), expected)
    np.testing.assert_array_equal(sluice.segmented_exclusive_scan(v, flags=flags), (expected - v).astype(dtype))
    keys = np.cumsum(flags).astype(np.int64)
    np.testing.assert_array_equal(sluice.inclusive_scan_by_key(keys, v), expected)
    unique_keys, aggregates = sluice.reduce_by_key(keys, v)
    np.testing.assert_array_equal(unique_keys, np.unique(keys))
    np.testing.assert_array_equal(aggregates, sums.astype(dtype))


def test_recurrences():
    a = np.full(100, 0.5)
    b = np.arange(100, dtype=np.float64)
    x = sluice.first_order_linear_recurrence(a, b)
    expected = np.empty(100)
    expected[0] = b[0]
    for i in range(1, 100):
        expected[i] = a[i] * expected[i - 1] + b[i]
    np.testing.assert_allclose(x, expected)
    ai = np.arange(50, dtype=np.int64) % 3 - 1
    bi = (np.arange(50, dtype=np.int64) * 7) % 11
    xi = sluice.max_plus_recurrence(ai, bi)
    ref = [bi[0]]
    for i in range(1, 50):
        ref.append(max(ref[-1] + ai[i], bi[i]))
    np.testing.assert_array_equal(xi, ref)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_select_and_partition(dtype):
    x = values(1000, dtype)
    flags = (x % 3 == 0).astype(np.uint8)
    np.testing.assert_array_equal(sluice.select_flagged(x, flags), x[flags != 0])
    np.testing.assert_array_equal(sluice.select_if(x, ">", 10), x[x > 10])
    np.testing.assert_array_equal(sluice.unique(np.sort(x)), np.unique(x))
    out, count = sluice.stable_partition(x, "lt", 5)
    assert count == (x < 5).sum()
    np.testing.assert_array_equal(out, np.concatenate([x[x < 5], x[x >= 5]]))
    out3, first, second = sluice.stable_partition_3way(x, 7)
    np.testing.assert_array_equal(out3, np.concatenate([x[x < 7], x[x == 7], x[x > 7]]))
    assert (first, second) == ((x < 7).sum(), (x == 7).sum())


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.float32, np.float64])
def test_transpose(dtype):
    x = np.arange(35, dtype=dtype).reshape(5, 7)
    np.testing.assert_array_equal(sluice.transpose(x), x.T)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gather_scatter(index_dtype):
    table = np.arange(100, dtype=np.float32) * 2
    idx = np.array([5, 0, 99, 7, 7], dtype=index_dtype)
    np.testing.assert_array_equal(sluice.gather(table, idx), table[idx])
    out = np.zeros(100, dtype=np.float32)
    sluice.scatter(np.arange(5, dtype=np.float32), np.array([3, 1, 4, 1, 5], dtype=index_dtype), out,
                   semantics="last_writer")
    assert out[1] == 3 and out[3] == 0 and out[4] == 2 and out[5] == 4
    with pytest.raises(ValueError, match="index 1"):
        sluice.gather(table, np.array([1, 100, 100], dtype=index_dtype), strict=True)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_multisplit(dtype):
    keys = (np.abs(values(1000, np.int64, high=1000)) % 1000).astype(dtype)
    out, offsets = sluice.multisplit(keys, 10, bucket="delta", delta=100)
    ids = keys.astype(np.int64) // 100
    order = np.argsort(ids, kind="stable")
    np.testing.assert_array_equal(out, keys[order])
    np.testing.assert_array_equal(offsets, np.searchsorted(ids[order], np.arange(11)))
    payload = np.arange(1000, dtype=np.float32 if np.dtype(dtype).itemsize == 4 else np.float64)
    _, moved, _ = sluice.multisplit(keys, 10, values=payload, bucket="delta", delta=100)
    np.testing.assert_array_equal(moved, payload[order])


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("n", SIZES)
def test_sorts(dtype, n):
    keys = values(n, dtype, high=1000)
    np.testing.assert_array_equal(sluice.radix_sort(keys), np.sort(keys, kind="stable"))
    np.testing.assert_array_equal(sluice.radix_sort(keys, descending=True), np.sort(keys)[::-1])
    np.testing.assert_array_equal(sluice.argsort(keys), np.argsort(keys, kind="stable"))
    if np.dtype(dtype).kind == "f":
        np.testing.assert_array_equal(sluice.merge_sort(keys), np.sort(keys, kind="stable"))
        positions = np.arange(n, dtype=np.int64)
        sorted_keys, moved = sluice.merge_sort(keys, positions)
        np.testing.assert_array_equal(moved, np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_search(dtype):
    keys = np.sort(values(500, dtype, high=200))
    queries = values(300, dtype, seed=9, high=250)
    np.testing.assert_array_equal(sluice.lower_bound(keys, queries), np.searchsorted(keys, queries, "left"))
    np.testing.assert_array_equal(sluice.upper_bound(keys, queries),
                                  np.searchsorted(keys, queries, "right"))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_histograms(dtype):
    samples = values(5000, dtype, high=120)
    counts, _ = np.histogram(samples[(samples >= -100) & (samples < 100)], bins=20, range=(-100, 100))
    np.testing.assert_array_equal(sluice.histogram_even(samples, 20, -100, 100), counts)
    splitters = np.array([-50, 0, 10, 60], dtype=dtype)
    expected = [((samples >= lo) & (samples < hi)).sum() for lo, hi in zip(splitters[:-1], splitters[1:])]
    np.testing.assert_array_equal(sluice.histogram_range(samples, splitters), expected)
    weights = np.linspace(0, 1, 5000)
    inside = (samples >= -100) & (samples < 100)  # np.histogram also counts the upper edge; sluice does not
    np.testing.assert_allclose(sluice.histogram_even(samples, 20, -100, 100, weights=weights),
                               np.histogram(samples[inside], bins=20, range=(-100, 100), weights=weights[inside])[0])


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_bincount_and_multireduce(label_dtype):
    labels = values(10_000, label_dtype, high=50)
    kept = labels[labels >= 0]
    np.testing.assert_array_equal(sluice.bincount(labels, 50), np.bincount(kept, minlength=50))
    v = values(10_000, np.float64, seed=5)
    sums = np.zeros(50)
    np.add.at(sums, kept, v[labels >= 0])
    np.testing.assert_array_equal(sluice.multireduce(labels, v, 50), sums)
    np.testing.assert_array_equal(sluice.bincount(labels, 50, weights=v), sums)
    maxima = np.full(50, -np.inf)
    np.maximum.at(maxima, kept, v[labels >= 0])
    if label_dtype == np.int64:
        np.testing.assert_array_equal(sluice.multireduce(labels, v, 50, "max"), maxima)
    else:
        with pytest.raises(ValueError, match="int32 labels"):
            sluice.multireduce(labels, v, 50, "max")
    counts = np.bincount(kept, minlength=50)
    np.testing.assert_allclose(sluice.multireduce(labels, v, 50, "mean"), sums / np.maximum(counts, 1))
    out = np.ones(50)
    sluice.multireduce(labels, v, 50, accumulate=True, out=out)
    np.testing.assert_array_equal(out, sums + 1)


def test_multireduce_operators_int64_labels():
    labels = np.array([0, 1, 0, 2, 1], dtype=np.int64)
    v = np.array([6, 3, 5, 7, 12], dtype=np.int64)
    np.testing.assert_array_equal(sluice.multireduce(labels, v, 3, "prod"), [30, 36, 7])
    np.testing.assert_array_equal(sluice.multireduce(labels, v, 3, "and"), [4, 0, 7])
    np.testing.assert_array_equal(sluice.multireduce(labels, v, 3, "or"), [7, 15, 7])
    np.testing.assert_array_equal(sluice.multireduce(labels, v, 3, "xor"), [3, 15, 7])


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_multiscan_and_multitag(label_dtype):
    labels = values(2000, label_dtype, high=8) % 8
    v = values(2000, np.int64, seed=4)
    inclusive, totals = sluice.multiscan_inclusive(labels, v, 8, totals=True)
    exclusive = sluice.multiscan_exclusive(labels, v, 8)
    rank, counts = sluice.multitag(labels, 8, counts=True)
    running = np.zeros(8, dtype=np.int64)
    seen = np.zeros(8, dtype=np.int64)
    for i, (label, value) in enumerate(zip(labels, v)):
        assert exclusive[i] == running[label] and rank[i] == seen[label]
        running[label] += value
        seen[label] += 1
        assert inclusive[i] == running[label]
    np.testing.assert_array_equal(totals, running)
    np.testing.assert_array_equal(counts, seen)


def test_errors_map_to_python_exceptions():
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(TypeError, match="supported"):
        sluice.reduce(np.arange(10, dtype=np.int8))
    with pytest.raises(TypeError, match="not an array"):
        sluice.reduce([1, 2, 3])
    with pytest.raises(ValueError, match="unknown operator"):
        sluice.reduce(x, "median")
    with pytest.raises(ValueError, match="unknown reduce algorithm"):
        sluice.reduce(x, algorithm="fastest")
    with pytest.raises(ValueError, match="one value per key"):
        sluice.reduce_by_key(np.arange(3), np.arange(4))
    with pytest.raises(ValueError, match="labels"):
        sluice.multireduce(np.array([0, 5]), np.array([1.0, 2.0]), 3, strict=True)
    with pytest.raises(ValueError, match="elements"):
        sluice.inclusive_scan(x, out=np.empty(3, dtype=np.float32))
    with pytest.raises(TypeError, match="dtype"):
        sluice.inclusive_scan(x, out=np.empty(10, dtype=np.float64))


def test_non_contiguous_inputs_are_copied():
    x = np.arange(20, dtype=np.int64)[::2]
    np.testing.assert_array_equal(sluice.inclusive_scan(x), np.cumsum(x))
    with pytest.raises(ValueError, match="contiguous"):
        sluice.inclusive_scan(np.arange(10, dtype=np.int64), out=np.empty(20, dtype=np.int64)[::2])
