"""Cast shadows of a window of a world equal the whole world's: one tracer (core.lighting.cast_shadows) whose rays
are anchored at the world's line 0, read over a margin toward the sun of core.lighting.shadows.shadow_reach cells."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.lighting.shadows import cast_shadows, shadow_margins, shadow_reach
from core.spec import TerrainSpec
from core.window import Window, crop


def terrain(size=97, seed=3):
    """Hills in metres (30 m of relief, 2 m cells): thin ridges and long shadows."""
    spec = TerrainSpec(
        size=size,
        seed=seed,
        width=2.0 * (size - 1),
        height=30.0,
        params={"count": 80, "radius_min": 3.0, "radius_max": 15.0},
    )
    return spec.heightmap() * np.float32(spec.height), spec.cell_size, spec.height


def grown(shape, window, margins):
    north, south, west, east = margins
    r0, c0 = max(window.row - north, 0), max(window.col - west, 0)
    r1, c1 = min(window.row + window.rows + south, shape[0]), min(window.col + window.cols + east, shape[1])
    return Window(r0, c0, r1 - r0, c1 - c0)


def window_shadows(h, cell, azimuth, altitude, softness, window, reach, origin=(0, 0), max_distance=None):
    outer = grown(h.shape, window, shadow_margins(azimuth, reach))
    part = cast_shadows(
        h[outer.row : outer.row + outer.rows, outer.col : outer.col + outer.cols],
        cell,
        azimuth=azimuth,
        altitude=altitude,
        softness=softness,
        max_distance=max_distance,
        origin=(origin[0] + outer.row, origin[1] + outer.col),
    )
    return crop(part, outer, window)


def test_reach_and_margins():
    assert shadow_reach(30.0, 2.0, 45.0, softness=2.0) == math.ceil(30.0 / (math.tan(math.radians(44.125)) * 2.0)) + 1
    assert shadow_reach(30.0, 2.0, 0.5, softness=2.0) is None  # the disc reaches the horizon: unbounded
    assert shadow_reach(0.0, 2.0, 45.0, softness=2.0) == 1  # flat: nothing rises above a ray
    # Only the sides toward the sun: (north, south, west, east).
    assert shadow_margins(0.0, 9) == (9, 0, 0, 0)
    assert shadow_margins(90.0, 9) == (0, 0, 0, 9)
    assert shadow_margins(135.0, 9) == (0, 9, 0, 9)
    assert shadow_margins(200.0, 9) == (0, 9, 9, 0)
    assert shadow_margins(270.0, 9) == (0, 0, 9, 0)
    assert shadow_margins(300.0, 9) == (9, 0, 9, 0)


def test_a_sun_whose_disc_passes_the_zenith_casts_no_shadow_and_needs_no_margin():
    assert shadow_reach(30.0, 2.0, 90.0, softness=1.0, samples=1) == 0


@pytest.mark.parametrize(
    "azimuth", [a * 7.5 + 1.3 for a in range(48)] + [0.0, 45.0, 90.0, 135.0, 180.0, 225.0, 270.0, 315.0]
)
def test_four_by_four_windows_equal_the_whole_at_every_azimuth(azimuth):
    h, cell, relief = terrain()
    altitude = 25.0
    whole = cast_shadows(h, cell, azimuth=azimuth, altitude=altitude, softness=2.0)
    reach = shadow_reach(relief, cell, altitude, softness=2.0)
    assert 0.02 < 1.0 - whole.mean() and whole.min() == 0.0  # there are shadows, and penumbrae
    assert np.any((whole > 0.0) & (whole < 1.0))
    for ty in range(4):
        for tx in range(4):
            window = Window(ty * 24, tx * 24, 25, 25)
            got = window_shadows(h, cell, azimuth, altitude, 2.0, window, reach)
            assert np.array_equal(got, crop(whole, Window(0, 0, *h.shape), window)), (azimuth, ty, tx)


@settings(max_examples=60, deadline=None)
@given(
    azimuth=st.floats(0.0, 360.0),
    altitude=st.floats(8.0, 75.0),
    softness=st.floats(1.0, 10.0),
    row=st.integers(0, 80),
    col=st.integers(0, 80),
    rows=st.integers(1, 40),
    cols=st.integers(1, 40),
    origin=st.tuples(st.integers(0, 200_000), st.integers(0, 200_000)),
    max_distance=st.sampled_from([None, 5, 17]),
)
def test_a_window_grown_toward_the_sun_by_the_reach_equals_the_whole(
    azimuth, altitude, softness, row, col, rows, cols, origin, max_distance
):
    """Any sun, any window, anywhere in a world (``origin``): exact, soft shadows included."""
    h, cell, relief = terrain()
    rows, cols = min(rows, 97 - row), min(cols, 97 - col)
    whole = cast_shadows(
        h, cell, azimuth=azimuth, altitude=altitude, softness=softness, origin=origin, max_distance=max_distance
    )
    reach = shadow_reach(relief, cell, altitude, softness=softness)
    if max_distance is not None:
        reach = min(reach, max_distance)
    window = Window(row, col, rows, cols)
    got = window_shadows(h, cell, azimuth, altitude, softness, window, reach, origin, max_distance)
    assert np.array_equal(got, crop(whole, Window(0, 0, *h.shape), window))


def test_the_world_anchor_moves_rays_not_the_physics():
    """Two origins trace rays one cell apart in places: the same shadows but for cells on shadow edges."""
    h, cell, _ = terrain()
    a = cast_shadows(h, cell, azimuth=290.0, altitude=25.0)
    # A west sun's rays step one column at a time: the row origin moves nothing.
    assert np.array_equal(a, cast_shadows(h, cell, azimuth=290.0, altitude=25.0, origin=(7, 0)))
    moved = cast_shadows(h, cell, azimuth=290.0, altitude=25.0, origin=(0, 5))  # rays rounded across rows differently
    assert 0.0 < np.mean(moved != a) < 0.05
    assert np.abs(moved.mean() - a.mean()) < 0.01


@pytest.mark.parametrize(
    "origin, match", [((-1, 0), "origin row"), ((0, 1 << 21), "origin col"), ((1, 2, 3), "origin"), (5, "origin")]
)
def test_bad_origin_is_named(origin, match):
    with pytest.raises((TypeError, ValueError), match=match):
        cast_shadows(np.zeros((4, 4)), 1.0, azimuth=10.0, altitude=30.0, origin=origin)
