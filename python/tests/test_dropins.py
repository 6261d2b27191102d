"""The drop-ins against their library's own results: sluice.torch.scatter_reduce / index_add / bincount
against torch's, sluice.cupy.bincount / unique against CuPy's. Skips, saying why, without a GPU, torch or
CuPy."""

import pytest

from conftest import gpu_library

REDUCTIONS = ["sum", "prod", "mean", "amax", "amin"]


@pytest.fixture
def torch():
    return gpu_library("torch")


@pytest.fixture
def cupy():
    return gpu_library("cupy")


def close(torch, got, expected, what):
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype} != {expected.dtype}"
    assert got.shape == expected.shape, f"{what}: shape {tuple(got.shape)} != {tuple(expected.shape)}"
    if got.is_floating_point():
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5, msg=what)
    else:
        assert torch.equal(got, expected), what


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("m", [1, 32, 4096, 1 << 18])
def test_scatter_reduce_1d(torch, reduce, include_self, dtype, m):
    import sluice.torch as st

    n = 100_000
    g = torch.Generator(device="cuda").manual_seed(m)
    dt = getattr(torch, dtype)
    if dt.is_floating_point:
        src = torch.randint(-4, 5, (n,), generator=g, device="cuda").to(dt)  # exact sums and products of small values
        base = torch.randint(-4, 5, (m,), generator=g, device="cuda").to(dt)
    else:
        src = torch.randint(-3, 4, (n,), generator=g, device="cuda", dtype=dt)
        base = torch.randint(-3, 4, (m,), generator=g, device="cuda", dtype=dt)
    if reduce == "prod":
        src = torch.where(src == 0, torch.ones_like(src), src.sign())  # ±1: no overflow
    index = torch.randint(0, m, (n,), generator=g, device="cuda")
    expected = torch.scatter_reduce(base, 0, index, src, reduce, include_self=include_self)
    got = st.scatter_reduce(base, 0, index, src, reduce, include_self=include_self)
    close(torch, got, expected, f"scatter_reduce {reduce} include_self={include_self} {dtype} m={m}")


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_reduce_nd(torch, reduce, dim):
    import sluice.torch as st

    g = torch.Generator(device="cuda").manual_seed(5)
    base = torch.randint(-4, 5, (6, 7, 5), generator=g, device="cuda").float()
    src = torch.randint(-4, 5, (6, 9, 5), generator=g, device="cuda").float()  # at least index's shape
    index_shape = (6, 7, 4) if dim == 1 else (5, 7, 4)  # within input's shape off dim
    index = torch.randint(0, base.shape[dim], index_shape, generator=g, device="cuda")
    for include_self in (True, False):
        expected = torch.scatter_reduce(base, dim, index, src, reduce, include_self=include_self)
        got = st.scatter_reduce(base, dim, index, src, reduce, include_self=include_self)
        close(torch, got, expected, f"scatter_reduce N-D {reduce} dim={dim} include_self={include_self}")


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("alpha", [1, 3])
def test_index_add(torch, index_dtype, alpha):
    import sluice.torch as st

    g = torch.Generator(device="cuda").manual_seed(2)
    base = torch.randint(-9, 9, (1000,), generator=g, device="cuda").float()
    index = torch.randint(0, 1000, (50_000,), generator=g, device="cuda").to(getattr(torch, index_dtype))
    source = torch.randint(-9, 9, (50_000,), generator=g, device="cuda").float()
    close(torch, st.index_add(base, 0, index, source, alpha=alpha), base.index_add(0, index, source, alpha=alpha),
          f"index_add 1-D {index_dtype} alpha={alpha}")
    matrix = torch.randint(-9, 9, (8, 30, 4), generator=g, device="cuda").double()
    rows = torch.randint(0, 30, (17,), generator=g, device="cuda").to(getattr(torch, index_dtype))
    slices = torch.randint(-9, 9, (8, 17, 4), generator=g, device="cuda").double()
    close(torch, st.index_add(matrix, 1, rows, slices, alpha=alpha), matrix.index_add(1, rows, slices, alpha=alpha),
          f"index_add N-D {index_dtype} alpha={alpha}")


@pytest.mark.parametrize("weights_dtype", [None, "float32", "float64", "int64"])
@pytest.mark.parametrize("minlength", [0, 10, 5000])
def test_torch_bincount(torch, weights_dtype, minlength):
    import sluice.torch as st

    g = torch.Generator(device="cuda").manual_seed(3)
    x = torch.randint(0, 3000, (100_000,), generator=g, device="cuda")
    weights = None if weights_dtype is None else torch.randint(0, 9, (100_000,), generator=g, device="cuda").to(
        getattr(torch, weights_dtype))
    close(torch, st.bincount(x, weights, minlength), torch.bincount(x, weights, minlength),
          f"bincount weights={weights_dtype} minlength={minlength}")
    close(torch, st.bincount(x[:0], None, minlength), torch.bincount(x[:0], None, minlength), "bincount empty")
    with pytest.raises(RuntimeError):
        st.bincount(x - 5000)


def test_torch_bincount_of_bytes(torch):
    import sluice.torch as st

    g = torch.Generator(device="cuda").manual_seed(4)
    image = torch.randint(0, 256, ((1 << 20) + 3,), generator=g, device="cuda").to(torch.uint8)
    for minlength in (0, 300):
        close(torch, st.bincount(image[1:], None, minlength), torch.bincount(image[1:], None, minlength),
              f"bincount uint8 minlength={minlength}")


@pytest.mark.parametrize("weights", [False, True])
def test_cupy_bincount(cupy, weights):
    import sluice.cupy as sc

    x = cupy.random.default_rng(1).integers(0, 700, 100_000)
    w = cupy.random.default_rng(2).random(100_000) if weights else None
    for minlength in (None, 5, 2000):
        got, expected = sc.bincount(x, w, minlength), cupy.bincount(x, w, minlength)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        cupy.testing.assert_allclose(got, expected)
    with pytest.raises(ValueError):
        sc.bincount(x - 1000)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_cupy_unique(cupy, dtype):
    import sluice.cupy as sc

    x = cupy.random.default_rng(3).integers(-500, 500, (300, 7)).astype(dtype)
    for flags in [(False, False, False), (True, True, True), (False, True, False), (True, False, True)]:
        got = sc.unique(x, *flags)
        expected = cupy.unique(x, *flags)
        got = got if isinstance(got, tuple) else (got,)
        expected = expected if isinstance(expected, tuple) else (expected,)
        for g, e in zip(got, expected):
            assert g.shape == e.shape, f"unique {dtype} {flags}: shape {g.shape} != {e.shape}"
            cupy.testing.assert_array_equal(g, e)
