"""Cast shadows along rays anchored at each cell: any window grown by the reach equals the whole, and the
values agree with the sweep of core.shading.cast_shadows."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.rayshadow import ray_offsets, ray_shadows, shadow_reach
from core.shading import cast_shadows
from core.spec import TerrainSpec
from core.window import Window, crop, expand


def terrain(size=97, seed=3):
    spec = TerrainSpec(size=size, seed=seed, width=2.0 * (size - 1), height=30.0,
                       params={"count": 80, "radius_min": 6.0, "radius_max": 30.0})
    return spec.heightmap() * np.float32(spec.height), spec.cell_size, spec.height


def test_offsets_step_one_cell_along_the_major_axis():
    assert ray_offsets(0.0, 3) == [(-1, 0, 1.0), (-2, 0, 2.0), (-3, 0, 3.0)]  # north: toward row 0
    assert ray_offsets(90.0, 2) == [(0, 1, 1.0), (0, 2, 2.0)]
    steps = ray_offsets(315.0, 2)
    assert [(r, c) for r, c, _ in steps] == [(-1, -1), (-2, -2)]
    assert steps[1][2] == pytest.approx(2.0 * math.sqrt(2.0))
    assert [(r, c) for r, c, _ in ray_offsets(300.0, 3)] == [(-1, -1), (-1, -2), (-2, -3)]  # west, tan(30°) north


def test_reach_bounds_the_shadow():
    assert shadow_reach(30.0, 2.0, 45.0, 2.0) == math.ceil(30.0 / (math.tan(math.radians(44.125)) * 2.0)) + 1
    assert shadow_reach(30.0, 2.0, 0.5, 2.0) is None  # the disc reaches the horizon
    assert shadow_reach(0.0, 2.0, 45.0, 2.0) == 1  # flat: nothing rises above a ray
    h, cell, relief = terrain()
    for azimuth in (30.0, 135.0, 250.0):
        reach = shadow_reach(relief, cell, 20.0, 2.0)
        assert reach is not None
        # Farther samples cannot occlude: a longer ray gives the same shadows.
        assert np.array_equal(ray_shadows(h, cell, azimuth, 20.0, 2.0, reach),
                              ray_shadows(h, cell, azimuth, 20.0, 2.0, 3 * reach))


@settings(max_examples=25, deadline=None)
@given(azimuth=st.floats(0.0, 360.0), altitude=st.floats(5.0, 60.0), row=st.integers(0, 64),
       col=st.integers(0, 64), rows=st.integers(2, 32), cols=st.integers(2, 32))
def test_a_window_grown_by_the_reach_equals_the_whole(azimuth, altitude, row, col, rows, cols):
    h, cell, relief = terrain()
    reach = min(shadow_reach(relief, cell, altitude, 2.0), 96)
    whole = ray_shadows(h, cell, azimuth, altitude, 2.0, reach)
    window = Window(row, col, min(rows, 97 - row), min(cols, 97 - col))
    outer = expand(h.shape, window, reach)
    part = ray_shadows(h[outer.row:outer.row + outer.rows, outer.col:outer.col + outer.cols], cell, azimuth,
                       altitude, 2.0, reach)
    assert np.array_equal(crop(part, outer, window), crop(whole, Window(0, 0, *h.shape), window))


@pytest.mark.parametrize("azimuth", [0.0, 90.0, 135.0, 225.0, 315.0, 20.0, 250.0])
def test_agrees_with_the_sweep(azimuth):
    h, cell, relief = terrain()
    reach = shadow_reach(relief, cell, 25.0, 2.0)
    ours = ray_shadows(h, cell, azimuth, 25.0, 2.0, reach)
    sweep = cast_shadows(h, cell, azimuth, 25.0, softness=2.0)
    differ = np.abs(ours - sweep) > 1e-6
    assert 0.05 < ours.mean() < 1.0 and ours.min() == 0.0  # there are shadows
    if azimuth % 45.0 == 0.0:  # axes and diagonals: the same digital rays
        assert differ.mean() < 0.001
    else:  # digital rays one cell apart in places: cells along shadow edges differ by a few penumbra steps
        assert differ.mean() < 0.05 and np.abs(ours - sweep).mean() < 0.03


def test_bad_input_is_named():
    h, cell, _ = terrain(17)
    with pytest.raises(ValueError, match="altitude"):
        ray_shadows(h, cell, 0.0, 95.0)
    with pytest.raises(ValueError, match="reach"):
        ray_shadows(h, cell, 0.0, 30.0, reach=-1)
    with pytest.raises(ValueError, match="softness"):
        ray_shadows(h, cell, 0.0, 30.0, softness=0.0)
