import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import flatten, normalize
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
