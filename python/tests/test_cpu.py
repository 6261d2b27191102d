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


def test_bincount_of_bytes():
    image = np.random.default_rng(11).integers(0, 256, 10_007).astype(np.uint8)
    np.testing.assert_array_equal(sluice.bincount(image, 256), np.bincount(image, minlength=256))
    np.testing.assert_array_equal(sluice.bincount(image, 100), np.bincount(image[image < 100], minlength=100))
    w = values(10_007, np.float64, seed=5)
    np.testing.assert_allclose(sluice.bincount(image, 256, weights=w), np.bincount(image, w, minlength=256))


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


# ---- segmented_sort, merge -------------------------------------------------------------------------------
# Sizes around the device's tiers (segments of up to 36 / 20 keys by four lanes, 224 / 160 by a warp, tiles
# of 4352 / 2816 keys for 4- / 8-byte keys) and 0, 1, 31, 33; the host runs the same checks.
SORT_SIZES = [0, 1, 31, 33, 2815, 2817, 4351, 4353, 20_000]
SEGMENT_SIZES = [0, 1, 19, 21, 31, 33, 35, 37, 159, 161, 223, 225, 2815, 2817, 4351, 4353]


def descending_key(x):
    """A key whose ascending stable order is x's descending stable order (no overflow, no NaNs here)."""
    return -x if x.dtype.kind == "f" else ~x


def segmented_oracle(keys, offsets, values=None, descending=False):
    keys_out, values_out = keys.copy(), None if values is None else values.copy()
    for s in range(len(offsets) - 1):
        lo, hi = offsets[s], offsets[s + 1]
        segment = keys[lo:hi]
        order = np.argsort(descending_key(segment) if descending else segment, kind="stable")
        keys_out[lo:hi] = segment[order]
        if values is not None:
            values_out[lo:hi] = values[lo:hi][order]
    return keys_out if values is None else (keys_out, values_out)


def random_offsets(n, seed, first=0, last=None):
    """Offsets of segments of the tier-crossing sizes (cycled, shuffled) within [first, last)."""
    rng = np.random.default_rng(seed)
    last = n if last is None else last
    cuts, at = [first], first
    for size in rng.permutation(SEGMENT_SIZES * 2):
        if at + size > last:
            break
        at += int(size)
        cuts.append(at)
    cuts.append(last)
    return np.array(cuts, dtype=np.int64)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("n", SORT_SIZES)
def test_segmented_sort_one_segment(dtype, n):
    keys = values(n, dtype, high=50)  # many ties: stability shows
    offsets = np.array([0, n], dtype=np.int64)
    np.testing.assert_array_equal(sluice.segmented_sort(keys, offsets), segmented_oracle(keys, offsets),
                                  err_msg=f"n={n} dtype={np.dtype(dtype)}")
    positions = np.arange(n, dtype=np.int64)
    sorted_keys, moved = sluice.segmented_sort(keys, offsets, positions, descending=True)
    expected_keys, expected_positions = segmented_oracle(keys, offsets, positions, descending=True)
    np.testing.assert_array_equal(sorted_keys, expected_keys, err_msg=f"n={n} descending")
    np.testing.assert_array_equal(moved, expected_positions, err_msg=f"n={n} descending")


@pytest.mark.parametrize("dtype", NUMERIC)
def test_segmented_sort_segments(dtype):
    n = 30_000
    keys = values(n, dtype, high=1000)
    offsets = random_offsets(n, seed=5, first=7, last=n - 3)  # keys outside the segments copied through
    assert offsets[0] == 7
    np.testing.assert_array_equal(sluice.segmented_sort(keys, offsets), segmented_oracle(keys, offsets))
    payload = values(n, np.float32 if np.dtype(dtype).itemsize == 4 else np.float64, seed=8)
    out, out_values = np.full(n, 99, dtype=dtype), np.full(n, -1, dtype=payload.dtype)  # poisoned
    result = sluice.segmented_sort(keys, offsets.astype(np.uint64), payload, out=out, out_values=out_values)
    assert result[0] is out and result[1] is out_values
    expected_keys, expected_values = segmented_oracle(keys, offsets, payload)
    np.testing.assert_array_equal(out, expected_keys)
    np.testing.assert_array_equal(out_values, expected_values)


def test_segmented_sort_orders_floats_as_radix_sort():
    keys = np.array([0.0, -0.0, np.inf, -np.inf, 1.5, -1.5], dtype=np.float64)
    result = sluice.segmented_sort(keys, np.array([0, 6], dtype=np.int64))
    np.testing.assert_array_equal(result.view(np.uint64), sluice.radix_sort(keys).view(np.uint64))


def test_segmented_sort_bad_inputs():
    keys = np.arange(10, dtype=np.int32)
    offsets = np.array([0, 5, 10], dtype=np.int64)
    with pytest.raises(TypeError, match="'keys'.*supported"):
        sluice.segmented_sort(keys.astype(np.int16), offsets)
    with pytest.raises(TypeError, match="'offsets'"):
        sluice.segmented_sort(keys, offsets.astype(np.int32))
    with pytest.raises(ValueError, match="'offsets'.*non-decreasing.*index 2"):
        sluice.segmented_sort(keys, np.array([0, 6, 5, 10], dtype=np.int64))
    with pytest.raises(ValueError, match="'offsets'.*beyond"):
        sluice.segmented_sort(keys, np.array([0, 11], dtype=np.int64))
    with pytest.raises(ValueError, match="'offsets'"):
        sluice.segmented_sort(keys, np.array([], dtype=np.int64))
    with pytest.raises(ValueError, match="'values'"):
        sluice.segmented_sort(keys, offsets, np.arange(9, dtype=np.int64))
    with pytest.raises(TypeError, match="'values'"):
        sluice.segmented_sort(keys.astype(np.int64), offsets, np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError, match="'out'"):
        sluice.segmented_sort(keys, offsets, out=np.empty(10, dtype=np.int64))
    with pytest.raises(ValueError, match="'out'"):
        sluice.segmented_sort(keys, offsets, out=np.empty(9, dtype=np.int32))
    with pytest.raises(ValueError, match="'out_values'"):
        sluice.segmented_sort(keys, offsets, out_values=np.empty(10, dtype=np.int64))


def merge_oracle(a, b, a_values=None, b_values=None, descending=False):
    keys = np.concatenate([a, b])
    order = np.argsort(descending_key(keys) if descending else keys, kind="stable")  # ties: a's first
    if a_values is None:
        return keys[order]
    return keys[order], np.concatenate([a_values, b_values])[order]


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("n", SORT_SIZES)
def test_merge(dtype, n):
    a = np.sort(values(n, dtype, high=60))
    b = np.sort(values(n // 2 + 3, dtype, seed=4, high=60))
    np.testing.assert_array_equal(sluice.merge(a, b), merge_oracle(a, b), err_msg=f"n={n} dtype={np.dtype(dtype)}")
    np.testing.assert_array_equal(sluice.merge(b, a), merge_oracle(b, a), err_msg=f"n={n} swapped")
    av, bv = np.arange(len(a), dtype=np.int64), np.arange(len(a), len(a) + len(b), dtype=np.int64)
    out, out_values = np.full(len(a) + len(b), 7, dtype=dtype), np.full(len(a) + len(b), -1, dtype=np.int64)
    keys, moved = sluice.merge(a, b, a_values=av, b_values=bv, out=out, out_values=out_values)
    assert keys is out and moved is out_values
    expected_keys, expected_values = merge_oracle(a, b, av, bv)
    np.testing.assert_array_equal(out, expected_keys, err_msg=f"n={n} pairs")
    np.testing.assert_array_equal(out_values, expected_values, err_msg=f"n={n} pairs")
    ad, bd = a[::-1].copy(), b[::-1].copy()
    np.testing.assert_array_equal(sluice.merge(ad, bd, descending=True), merge_oracle(ad, bd, descending=True))


def test_merge_bad_inputs():
    a, b = np.arange(5, dtype=np.int64), np.arange(3, dtype=np.int64)
    with pytest.raises(TypeError, match="'b'"):
        sluice.merge(a, b.astype(np.int32))
    with pytest.raises(TypeError, match="'a'.*supported"):
        sluice.merge(a.astype(np.int8), b.astype(np.int8))
    with pytest.raises(ValueError, match="'a'.*not sorted.*index 2"):
        sluice.merge(np.array([0, 5, 4], dtype=np.int64), b)
    with pytest.raises(ValueError, match="'b'.*not sorted"):
        sluice.merge(a[::-1].copy(), b, descending=True)
    with pytest.raises(ValueError, match="together"):
        sluice.merge(a, b, a_values=a)
    with pytest.raises(ValueError, match="'a_values'"):
        sluice.merge(a, b, a_values=a[:4], b_values=b)
    with pytest.raises(ValueError, match="'out'"):
        sluice.merge(a, b, out=np.empty(7, dtype=np.int64))


# ---- predecessor, SearchIndex ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("n", [0, 1, 31, 33, 1000])
def test_predecessor_and_search_index(dtype, n):
    keys = np.sort(values(n, dtype, high=200))
    queries = values(300, dtype, seed=9, high=250)
    right = np.searchsorted(keys, queries, "right")
    out = np.full(300, 77, dtype=np.int64)  # poisoned
    assert sluice.predecessor(keys, queries, out=out) is out
    np.testing.assert_array_equal(out, right - 1, err_msg=f"n={n} dtype={np.dtype(dtype)}")
    for layout in ["sorted", "eytzinger", "btree"]:
        index = sluice.SearchIndex(keys, layout)
        assert len(index) == n and index.layout == layout and index.device == -1
        assert index.dtype == np.dtype(dtype).name
        np.testing.assert_array_equal(index.lower_bound(queries), np.searchsorted(keys, queries, "left"))
        np.testing.assert_array_equal(index.upper_bound(queries), right)
        np.testing.assert_array_equal(index.predecessor(queries, out=out), right - 1)


def test_predecessor_of_nan_is_minus_one():
    keys = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(sluice.predecessor(keys, np.array([np.nan, 0.5, 2.0])), [-1, -1, 1])
    np.testing.assert_array_equal(sluice.SearchIndex(keys).predecessor(np.array([np.nan, 9.0])), [-1, 2])


def test_search_index_bad_inputs():
    keys = np.arange(10, dtype=np.int32)
    with pytest.raises(ValueError, match="unknown search layout"):
        sluice.SearchIndex(keys, "bst")
    with pytest.raises(TypeError, match="'sorted_keys'"):
        sluice.SearchIndex(keys.astype(np.int8))
    index = sluice.SearchIndex(keys)
    with pytest.raises(TypeError, match="'queries'"):
        index.lower_bound(np.arange(3, dtype=np.int64))
    with pytest.raises(TypeError, match="'out'"):
        index.lower_bound(keys, out=np.empty(10, dtype=np.int32))
    with pytest.raises(TypeError, match="'queries'"):
        sluice.predecessor(keys, keys.astype(np.float32))


# ---- string_match ----------------------------------------------------------------------------------------
TEXT_SIZES = [0, 1, 31, 33, 8191, 8193, 100_000]


def match_oracle(text, pattern):
    m = len(pattern)
    if m > len(text):
        return np.zeros(0, dtype=np.int64)
    windows = np.lib.stride_tricks.sliding_window_view(text, m)
    return np.flatnonzero((windows == np.frombuffer(pattern, dtype=np.uint8)).all(axis=1))


def random_text(n, alphabet=b"ab", seed=3):
    rng = np.random.default_rng(seed + n)
    return np.frombuffer(alphabet, dtype=np.uint8)[rng.integers(0, len(alphabet), n)]


@pytest.mark.parametrize("n", TEXT_SIZES)
@pytest.mark.parametrize("pattern", [b"a", b"aba", b"abbabaab", b"ab" * 9 + b"b", b"aab" * 13])
def test_string_match(n, pattern):
    text = random_text(n)
    expected = match_oracle(text, pattern)
    np.testing.assert_array_equal(sluice.string_match(text, pattern), expected, err_msg=f"n={n} m={len(pattern)}")
    assert sluice.string_match_count(text, pattern) == len(expected)
    words = max(0, (n - len(pattern) + 1 + 31) // 32)
    out = np.full(words, 0xDEADBEEF, dtype=np.uint32)  # poisoned
    assert sluice.string_match_bitmap(text, pattern, out=out) is out
    bits = np.unpackbits(out.view(np.uint8), bitorder="little")
    np.testing.assert_array_equal(np.flatnonzero(bits), expected, err_msg=f"n={n} bitmap")


def test_string_match_pattern_kinds_and_overlaps():
    text = np.frombuffer(b"aaaaaaaa", dtype=np.uint8)
    for pattern in [b"aaaa", "aaaa", bytearray(b"aaaa"), np.frombuffer(b"aaaa", dtype=np.uint8)]:
        np.testing.assert_array_equal(sluice.string_match(text, pattern), np.arange(5))
    assert sluice.string_match_count(b"abcabc", "bc") == 2  # bytes as the text: the CPU backend


def test_string_match_small_alphabet():
    dna = np.array([0, 1, 2, 3, 0, 1, 2, 3, 1], dtype=np.uint8)
    np.testing.assert_array_equal(sluice.string_match(dna, bytes([1, 2]), alphabet_bits=2), [1, 5])
    with pytest.raises(ValueError, match="'text'.*index 2"):
        sluice.string_match(np.array([0, 1, 4], dtype=np.uint8), bytes([1]), alphabet_bits=2)
    np.testing.assert_array_equal(  # unchecked: compared by the low 2 bits
        sluice.string_match(np.array([0, 1, 5], dtype=np.uint8), bytes([1]), alphabet_bits=2, check_alphabet=False),
        [1, 2])


def test_multi_string_match():
    text = random_text(5000, b"abc")
    patterns = [b"ab", "abc", b"cab", b"a", b"bcabca"]
    positions, ids = sluice.multi_string_match(text, patterns)
    expected = sorted((r, k) for k, p in enumerate(patterns)
                      for r in match_oracle(text, p.encode() if isinstance(p, str) else p))
    assert positions.dtype == np.int64 and ids.dtype == np.int32
    np.testing.assert_array_equal(np.stack([positions, ids], axis=1), np.array(expected).reshape(-1, 2))


def test_string_match_bad_inputs():
    text = random_text(100)
    with pytest.raises(ValueError, match="'pattern'.*empty"):
        sluice.string_match(text, b"")
    with pytest.raises(TypeError, match="'text'"):
        sluice.string_match(text.astype(np.int32), b"a")
    with pytest.raises(TypeError, match="'pattern'"):
        sluice.string_match(text, np.arange(3, dtype=np.int16))
    with pytest.raises(ValueError, match="'alphabet_bits'"):
        sluice.string_match(text, b"a", alphabet_bits=9)
    with pytest.raises(ValueError, match="unknown string match algorithm"):
        sluice.string_match(text, b"a", algorithm="kmp")
    with pytest.raises(ValueError, match="'out'"):
        sluice.string_match_bitmap(text, b"a", out=np.empty(2, dtype=np.uint32))
    with pytest.raises(TypeError, match="'patterns'"):
        sluice.multi_string_match(text, "ab")
    with pytest.raises(ValueError, match="'patterns'"):
        sluice.multi_string_match(text, [b"a", b""])


# ---- SlabHash (device="cpu": the sequential table with the slab hash's semantics) ------------------------
KEY_VALUE = [(np.int32, np.int32), (np.uint32, np.float32), (np.int64, np.float64), (np.uint64, np.uint64)]


@pytest.mark.parametrize("key_dtype,value_dtype", KEY_VALUE)
@pytest.mark.parametrize("n", [0, 1, 31, 33, 1000])
def test_slab_hash_map_on_host(key_dtype, value_dtype, n):
    rng = np.random.default_rng(n)
    keys = rng.permutation(np.arange(n, dtype=key_dtype) * 3)  # distinct
    vals = (np.arange(n) + 0.5 if np.dtype(value_dtype).kind == "f" else np.arange(n)).astype(value_dtype)
    table = sluice.SlabHash(key_dtype, value_dtype, capacity=n, device="cpu")
    assert table.is_map and table.device == -1 and table.key_dtype == np.dtype(key_dtype).name
    table.insert(keys, vals)
    assert len(table) == n
    queries = np.concatenate([keys[: n // 2], np.arange(n, dtype=key_dtype) * 3 + 1])  # present, then absent
    found, present = table.find(queries)
    expected_present = np.concatenate([np.ones(n // 2, bool), np.zeros(n, bool)])
    np.testing.assert_array_equal(present, expected_present)
    np.testing.assert_array_equal(found[: n // 2], vals[: n // 2])
    np.testing.assert_array_equal(found[n // 2:], np.zeros(n, value_dtype))
    np.testing.assert_array_equal(table.find(queries, default=7)[n // 2:], np.full(n, 7, value_dtype))
    np.testing.assert_array_equal(table.contains(queries), expected_present)
    table.insert(keys[:5], vals[:5])  # duplicates kept
    np.testing.assert_array_equal(table.count(keys[:7]), [2] * min(5, n) + [1] * max(0, min(7, n) - 5))
    table.erase(keys[:5])  # the least recent instances
    np.testing.assert_array_equal(table.count(keys[:5]), np.ones(min(5, n), np.uint32))
    table.insert_or_assign(keys, vals[::-1].copy())
    np.testing.assert_array_equal(table.find(keys, default=0), vals[::-1])
    out_keys, out_values = table.retrieve_all()
    order = np.argsort(out_keys)
    np.testing.assert_array_equal(out_keys[order], np.sort(keys))
    np.testing.assert_array_equal(out_values[order], vals[::-1][np.argsort(keys)])
    table.clear()
    assert table.size() == 0 and len(table.retrieve_all()[0]) == 0


@pytest.mark.parametrize("key_dtype", [np.int32, np.uint64])
def test_slab_set_on_host(key_dtype):
    table = sluice.SlabHash(key_dtype, device="cpu")
    assert not table.is_map and table.value_dtype is None
    keys = np.array([5, 9, 5, 1], dtype=key_dtype)
    table.insert_or_assign(keys)  # a set: each key once
    assert len(table) == 3
    table.insert(keys)  # duplicates kept
    np.testing.assert_array_equal(table.count(np.array([5, 9, 2], dtype=key_dtype)), [3, 2, 0])
    np.testing.assert_array_equal(np.sort(table.retrieve_all()), np.sort(np.concatenate([[1, 5, 9], keys])))


def test_slab_hash_bad_inputs():
    with pytest.raises(TypeError, match="'key_dtype'"):
        sluice.SlabHash(np.float32, device="cpu")
    with pytest.raises(TypeError, match="'value_dtype'"):
        sluice.SlabHash(np.int32, np.int64, device="cpu")
    with pytest.raises(TypeError, match="'key_dtype'"):
        sluice.SlabHash("int33", device="cpu")
    table = sluice.SlabHash("int64", "float64", device="cpu")
    keys = np.array([1, -1, 3], dtype=np.int64)
    with pytest.raises(ValueError, match="'keys'.*reserved.*index 1"):
        table.insert(keys, np.zeros(3))
    assert len(table) == 0  # a rejected batch changes nothing
    with pytest.raises(TypeError, match="'keys'"):
        table.insert(keys.astype(np.int32), np.zeros(3))
    with pytest.raises(ValueError, match="'values'"):
        table.insert(np.array([1, 2], dtype=np.int64), np.zeros(3))
    with pytest.raises(ValueError, match="needs 'values'"):
        table.insert(np.array([1, 2], dtype=np.int64))
    with pytest.raises(ValueError, match="no 'values'"):
        sluice.SlabHash("int32", device="cpu").insert(np.array([1], np.int32), np.array([1], np.int32))
    np.testing.assert_array_equal(table.contains(keys), [False, False, False])  # queries: reserved keys absent


@pytest.mark.parametrize("key_dtype,value_dtype", KEY_VALUE)
@pytest.mark.parametrize("n", [0, 1, 31, 33, 1000])
def test_hash_unique_and_group_by_reduce(key_dtype, value_dtype, n):
    rng = np.random.default_rng(n)
    keys = rng.integers(0, max(1, n // 3), n).astype(key_dtype)
    vals = rng.integers(-50 if np.dtype(value_dtype).kind != "u" else 0, 50, n).astype(value_dtype)
    np.testing.assert_array_equal(np.sort(sluice.hash_unique(keys)), np.unique(keys))
    distinct, inverse = np.unique(keys, return_inverse=True)
    for op, ufunc, start in [("sum", np.add, 0), ("min", np.minimum, np.inf), ("max", np.maximum, -np.inf)]:
        expected = np.full(len(distinct), start, dtype=np.float64)
        ufunc.at(expected, inverse.reshape(-1), vals.astype(np.float64))
        out_keys, out_values = sluice.group_by_reduce(keys, vals, op)
        order = np.argsort(out_keys)
        np.testing.assert_array_equal(out_keys[order], distinct, err_msg=f"n={n} op={op}")
        np.testing.assert_array_equal(out_values[order], expected.astype(value_dtype), err_msg=f"n={n} op={op}")


def test_group_by_bad_inputs():
    keys = np.array([1, 2, 1], dtype=np.int32)
    with pytest.raises(TypeError, match="'keys'"):
        sluice.hash_unique(keys.astype(np.float32))
    # every key value is a key, the slab hash's reserved words included
    np.testing.assert_array_equal(np.sort(sluice.hash_unique(np.array([-1, 2, -2, -1], dtype=np.int32))), [-2, -1, 2])
    with pytest.raises(TypeError, match="'values'"):
        sluice.group_by_reduce(keys, np.ones(3, dtype=np.float64))
    with pytest.raises(ValueError, match="'values'"):
        sluice.group_by_reduce(keys, np.ones(2, dtype=np.float32))
    with pytest.raises(ValueError, match="operator 'prod'"):
        sluice.group_by_reduce(keys, np.ones(3, dtype=np.float32), "prod")


# ---- Lsm (device="cpu": a std::map with the LSM's semantics) ---------------------------------------------


@pytest.mark.parametrize("key_dtype,value_dtype", [(np.int32, np.float32), (np.uint32, np.uint32),
                                                   (np.int64, np.int64), (np.uint64, np.float64)])
def test_lsm_on_host(key_dtype, value_dtype):
    lsm = sluice.Lsm(key_dtype, value_dtype, batch_size=64, device="cpu")
    assert lsm.device == -1 and lsm.key_dtype == np.dtype(key_dtype).name
    keys = np.array([5, 3, 9, 3, 1], dtype=key_dtype)
    lsm.insert(keys, np.array([50, 30, 90, 31, 10], dtype=value_dtype))  # the batch's last 3 wins
    lsm.erase(np.array([9, 4], dtype=key_dtype))
    assert len(lsm) == 3
    queries = np.array([1, 3, 4, 5, 9], dtype=key_dtype)
    found, present = lsm.lookup(queries)
    np.testing.assert_array_equal(present, [True, True, False, True, False])
    np.testing.assert_array_equal(found[present], np.array([10, 31, 50], dtype=value_dtype))
    np.testing.assert_array_equal(lsm.lookup(queries, default=-1 if np.dtype(value_dtype).kind != "u" else 7)[2],
                                  -1 if np.dtype(value_dtype).kind != "u" else 7)
    np.testing.assert_array_equal(lsm.contains(queries), present)
    k1, k2 = np.array([0, 2, 6, 5], dtype=key_dtype), np.array([10, 4, 8, 1], dtype=key_dtype)
    np.testing.assert_array_equal(lsm.count(k1, k2), [3, 1, 0, 0])
    offsets, range_keys, range_values = lsm.range(k1, k2)
    np.testing.assert_array_equal(offsets, [0, 3, 4, 4, 4])
    np.testing.assert_array_equal(range_keys, np.array([1, 3, 5, 3], dtype=key_dtype))
    np.testing.assert_array_equal(range_values, np.array([10, 31, 50, 31], dtype=value_dtype))
    succ_keys, succ_values, succ_found = lsm.successor(np.array([2, 6], dtype=key_dtype))
    np.testing.assert_array_equal(succ_keys[succ_found], [3])
    np.testing.assert_array_equal(succ_found, [True, False])
    pred_keys, _, pred_found = lsm.predecessor(np.array([0, 4], dtype=key_dtype))
    np.testing.assert_array_equal(pred_found, [False, True])
    assert pred_keys[1] == 3
    lsm.bulk_build(np.array([2, 2], dtype=key_dtype), np.array([1, 2], dtype=value_dtype))
    assert len(lsm) == 1 and lsm.lookup(np.array([2], dtype=key_dtype), default=0)[0] == 2
    lsm.clear()
    assert lsm.size() == 0


def test_lsm_bad_inputs():
    with pytest.raises(TypeError, match="'key_dtype'"):
        sluice.Lsm(np.float64, np.float64, device="cpu")
    with pytest.raises(TypeError, match="'value_dtype'"):
        sluice.Lsm(np.int64, np.int32, device="cpu")
    lsm = sluice.Lsm(np.int64, np.int64, device="cpu")
    with pytest.raises(TypeError, match="'keys'"):
        lsm.insert(np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int64))
    with pytest.raises(ValueError, match="'values'"):
        lsm.insert(np.arange(3, dtype=np.int64), np.arange(2, dtype=np.int64))
    with pytest.raises(TypeError, match="insert"):
        lsm.insert(np.arange(3, dtype=np.int64), None)
    with pytest.raises(ValueError, match="'k2'"):
        lsm.count(np.arange(3, dtype=np.int64), np.arange(2, dtype=np.int64))
