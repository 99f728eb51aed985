import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import flatten, heightmap, normalize
from core.heightmap import MAX_CELLS, check_shape


def test_normalize_maps_min_to_0_and_max_to_1_exactly():
    h = np.array([[3.0, 5.0], [7.0, 11.0]])
    out = normalize(h)
    assert out.dtype == np.float32
    assert out.tolist() == [[0.0, 0.25], [0.5, 1.0]]


def test_normalize_constant_map_gives_zeros_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = normalize(np.full((4, 3), 2.5))
    assert out.dtype == np.float32 and out.shape == (4, 3)
    assert not out.any()


def test_normalize_with_an_explicit_world_range():
    out = normalize(np.array([[2.0, 4.0]]), value_range=(0.0, 8.0))
    assert out.tolist() == [[0.25, 0.5]]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_normalize_refuses_nan_and_inf(bad):
    with pytest.raises(ValueError, match="NaN or Inf"):
        normalize(np.array([[0.0, bad]]))


def test_normalize_refuses_wrong_shapes():
    with pytest.raises(ValueError, match="2-D"):
        normalize(np.zeros(5))
    with pytest.raises(ValueError, match="2-D"):
        normalize(np.zeros((0, 3)))


@given(arrays(np.float64, (5, 7), elements=st.floats(-1e6, 1e6)))
def test_normalize_range_property(h):
    out = normalize(h)
    assert np.isfinite(out).all()
    assert out.min() >= 0.0 and out.max() <= 1.0
    if h.max() > h.min():
        assert out.min() == 0.0 and out.max() == 1.0


def test_flatten_exponent_one_is_identity_and_two_squares():
    h = np.array([[0.0, 0.5, 1.0]], dtype=np.float32)
    assert flatten(h, 1.0).tolist() == [[0.0, 0.5, 1.0]]
    assert flatten(h, 2.0).tolist() == [[0.0, 0.25, 1.0]]
    assert flatten(h, 3).tolist() == [[0.0, 0.125, 1.0]]


@given(
    st.floats(0.01, 64.0),
    arrays(np.float32, 64, elements=st.floats(-0.0078125, 1.0078125, width=32)),
)
def test_flatten_is_finite_bounded_and_monotonic(exponent, values):
    values = np.sort(values).reshape(8, 8)
    out = flatten(values, exponent)
    assert out.dtype == np.float32
    assert np.isfinite(out).all()
    assert out.min() >= 0.0 and out.max() <= 1.0
    assert (np.diff(out.ravel()) >= 0).all()


@pytest.mark.parametrize("exponent", [0.0, -1.0, 65.0, np.nan])
def test_flatten_refuses_bad_exponents(exponent):
    with pytest.raises(ValueError, match=r"exponent must be .*\(0\.0, 64\.0\]"):
        flatten(np.zeros((2, 2)), exponent)


def test_check_shape_refuses_oversized_and_degenerate_maps():
    with pytest.raises(ValueError, match="at most"):
        check_shape((MAX_CELLS, 2))
    with pytest.raises(ValueError, match="rows"):
        check_shape((0, 5))
    with pytest.raises(TypeError, match="pair"):
        check_shape(5)
    with pytest.raises(TypeError, match="integer"):
        check_shape((2.0, 3))


@pytest.mark.parametrize("shape", [(1100, 1000), (37, 5), (3, 70000)])
def test_normalize_and_flatten_in_blocks_are_bit_identical_to_whole_map_float64(monkeypatch, shape):
    """Issue #13: blocks of rows on threads, 0 kept out of pow, and no temporaries change no bit."""
    rng = np.random.default_rng(shape[0])
    u = rng.random(shape) * 1.2 - 0.1
    u[rng.random(shape) < 0.6] = 0.0  # most of a hills map is 0
    u[0, 0], u[-1, -1], u[0, -1] = -0.0, 1.0, 5e-324
    raw = u * 700.0 - 30.0
    for threads in (1 << 20, 1 << 40):  # with and without threads
        monkeypatch.setattr(heightmap, "_THREAD_CELLS", threads)
        for dtype in (np.float32, np.float64):
            x = raw.astype(dtype)
            x64 = x.astype(np.float64)
            lo, hi = float(x64.min()), float(x64.max())
            whole = np.clip((x64 - lo) / (hi - lo), 0.0, 1.0).astype(np.float32)
            assert normalize(x).tobytes() == whole.tobytes()
            whole = np.clip((x64 - 10.0) / 290.0, 0.0, 1.0).astype(np.float32)
            assert normalize(x, (10.0, 300.0)).tobytes() == whole.tobytes()
            v = u.astype(dtype)
            for e in (1.5, 0.37, 7.3):
                whole = np.power(np.clip(v.astype(np.float64), 0.0, 1.0), e).astype(np.float32)
                assert flatten(v, e).tobytes() == whole.tobytes()


def test_surface_heights_are_the_generated_ones_unless_edited():
    from core.heightmap import surface_heights

    gen = np.array([[0.0, 0.5], [0.25, 1.0]], np.float32)
    h, span, edited = surface_heights(gen * np.float32(8.0), gen, 8.0)
    assert h is gen and span == (0.0, 8.0) and edited == 0
    lifted = gen * np.float32(1.5)  # version 3: uplift above Height
    h, span, edited = surface_heights(lifted * np.float32(8.0), lifted, 8.0)
    assert h.min() == 0.0 and h.max() == 1.0 and span == (0.0, 12.0) and edited == 0
    z = gen * np.float32(8.0)
    z[0, 0] = -2.0
    h, span, edited = surface_heights(z, gen, 8.0)
    assert edited == 1 and span == (-2.0, 8.0) and h[0, 0] == 0.0 and h[1, 1] == 1.0 and h.dtype == np.float32
    h, span, edited = surface_heights(np.full((2, 2), 3.0, np.float32), gen, 8.0)
    assert edited == 4 and span == (3.0, 3.0) and not h.any()
