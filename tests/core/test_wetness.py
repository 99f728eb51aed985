"""The scatter's maps: the topographic wetness index, and the declared placeholder kinds."""

import math

import numpy as np
import pytest

import core
from core.erosion import drainage_area, route_flow
from core.scatter import MIN_TAN, SCATTER_KINDS, wetness_index


def tilted_plane(rows=9, cols=12, cell=2.0, grade=0.1):
    """Heights in metres rising east by ``grade`` metres per metre."""
    return np.tile(np.arange(cols, dtype=np.float64) * cell * grade, (rows, 1))


def test_index_on_a_plane_is_ln_of_specific_area_over_the_grade():
    cell, grade = 2.0, 0.1
    z = tilted_plane(cell=cell, grade=grade)
    area = np.full(z.shape, 7.0 * cell * cell)  # as if every cell drained seven cells
    twi = wetness_index(z, cell, drainage=area)
    assert twi.dtype == np.float32 and twi.shape == z.shape
    # Horn's gradient of a plane is its grade everywhere (edges extrapolated linearly).
    assert np.allclose(twi, math.log(7.0 * cell / grade), rtol=0, atol=1e-5)


def test_flat_ground_is_floored_and_small_areas_raised_to_one_cell():
    z = np.zeros((5, 6))
    twi = wetness_index(z, 1.0, drainage=np.zeros((5, 6)))  # below one cell's area: raised to it
    assert np.isfinite(twi).all()
    assert np.allclose(twi, math.log(1.0 / MIN_TAN), atol=1e-5)


def test_valleys_are_wetter_than_ridges_without_a_drainage_map():
    """A V-shaped valley draining south: its floor collects the slopes' water, its rims only their own."""
    rows, cols, cell = 40, 41, 5.0
    x = np.abs(np.arange(cols) - cols // 2) * cell
    z = 0.4 * x[None, :] + 0.05 * (rows - np.arange(rows))[:, None] * cell  # sides 0.4, floor 0.05 to the south
    twi = wetness_index(z, cell)
    floor = twi[rows // 2 :, cols // 2]
    rims = np.concatenate([twi[rows // 2 :, 0], twi[rows // 2 :, -1]])
    assert floor.min() > rims.max() + 4.0
    # The same as given the routing's own drainage area.
    assert np.array_equal(twi, wetness_index(z, cell, drainage=drainage_area(route_flow(z, cell))))


def test_same_input_same_bits():
    rng = np.random.default_rng(3)
    z = np.cumsum(rng.normal(size=(30, 30)), axis=0) + 50.0
    a = wetness_index(z, 3.0)
    assert a.tobytes() == wetness_index(z.copy(), 3.0).tobytes()
    assert core.wetness_index is wetness_index


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"heights_m": np.zeros((4, 4)), "cell_size": 0.0}, ValueError),
        ({"heights_m": np.full((4, 4), np.nan), "cell_size": 1.0}, ValueError),
        ({"heights_m": np.zeros((4, 4)), "cell_size": 1.0, "drainage": np.ones((3, 4))}, ValueError),
        ({"heights_m": np.zeros(4), "cell_size": 1.0}, ValueError),
    ],
)
def test_bad_input_is_refused(kwargs, error):
    with pytest.raises(error):
        wetness_index(**kwargs)


def test_kinds_have_the_sizes_of_real_trees_and_boulders():
    ranges = {"conifers": (10.0, 30.0), "broadleaf": (8.0, 20.0), "boulders": (0.5, 3.0)}
    for name, (low, high) in ranges.items():
        kind = SCATTER_KINDS[name]
        assert kind.size * kind.scale_min == pytest.approx(low)
        assert kind.size * kind.scale_max == pytest.approx(high)
        assert kind.slope_min < kind.slope_max and kind.spacing > 0 and kind.density > 0
        assert set(kind.as_dict()) >= {"size", "density", "spacing", "align"}
    assert SCATTER_KINDS["boulders"].align == 1.0 and SCATTER_KINDS["conifers"].align == 0.0


def test_a_large_grid_is_routed_at_most_max_side_cells_across():
    rng = np.random.default_rng(5)
    z = np.cumsum(np.cumsum(rng.normal(size=(41, 61)), axis=0), axis=1) * 0.1 + 100.0
    assert np.array_equal(wetness_index(z, 2.0, max_side=61), wetness_index(z, 2.0))  # small enough: as it is
    coarse = wetness_index(z, 2.0, max_side=31)
    assert coarse.shape == z.shape and coarse.dtype == np.float32 and np.isfinite(coarse).all()
    # The index of the 21 x 31 grid at twice the cell size, interpolated back: its corners are the coarse grid's.
    from core.resample import resample_points

    small = resample_points(z.reshape(-1, 1), (41, 61), (21, 31), smooth=True).reshape(21, 31)
    assert np.allclose(small, z[::2, ::2])  # (every other point: the coarse grid's points are the fine grid's)
    expected = wetness_index(small, 4.0)
    assert np.allclose(coarse[::2, ::2], expected, atol=1e-5)
    # A drainage map makes the index cheap: max_side then changes nothing.
    area = np.full(z.shape, 8.0)
    assert np.array_equal(wetness_index(z, 2.0, drainage=area, max_side=3), wetness_index(z, 2.0, drainage=area))
    with pytest.raises(ValueError, match="max_side"):
        wetness_index(z, 2.0, max_side=1)
    with pytest.raises(TypeError, match="max_side"):
        wetness_index(z, 2.0, max_side=2.5)
