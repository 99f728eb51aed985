"""The landscape camera's vantage (core.viewpoint): above the ground, inside the bounds, looking across at
the relief with the sun to the side."""

import math

import numpy as np
import pytest

from core.viewpoint import SIDE_ANGLES, Viewpoint, frame_top, landscape_viewpoint

CELL = 10.0  # metres
N = 101  # vertices a side: 1000 m


def _grid():
    x = (np.arange(N) - (N - 1) / 2) * CELL  # east
    y = ((N - 1) / 2 - np.arange(N)) * CELL  # north, row 0 first
    return np.meshgrid(x, y)


def _mountain_in_the_west():
    """A 300 m Gaussian mountain 300 m west of the centre on a plain at 5 m."""
    x, y = _grid()
    return (5.0 + 300.0 * np.exp(-((x + 300.0) ** 2 + y**2) / (2 * 120.0**2))).astype(np.float32)


def _height_at(heights, x, y):
    """Bilinear, as the vantage samples (x east, y north, metres from the centre)."""
    c, r = x / CELL + (N - 1) / 2, (N - 1) / 2 - y / CELL
    c0, r0 = int(math.floor(c)), int(math.floor(r))
    fc, fr = c - c0, r - r0
    h = heights.astype(np.float64)
    return (
        h[r0, c0] * (1 - fc) * (1 - fr)
        + h[r0, c0 + 1] * fc * (1 - fr)
        + h[r0 + 1, c0] * (1 - fc) * fr
        + h[r0 + 1, c0 + 1] * fc * fr
    )


def _angle(a, b):
    return abs((a - b + 180.0) % 360.0 - 180.0)


def test_the_camera_stands_near_the_far_side_and_looks_across_at_the_mountain_with_the_sun_aside():
    heights = _mountain_in_the_west()
    view = landscape_viewpoint(heights, CELL, sun_azimuth=0.0, max_silhouette=1.0)  # the sun in the north
    x, y, z = view.position
    assert isinstance(view, Viewpoint)
    # West, the mountain's way (270 +- 30), not east (90 +- 30); the sun 60-100 degrees to the side.
    assert 240.0 <= view.azimuth <= 300.0, view.azimuth
    assert _angle(view.azimuth, 0.0) in SIDE_ANGLES
    # From near the east edge, inside the bounds by the inset (4 % of the half-size, 20 m here).
    assert 400.0 < x <= 480.0 + 1e-9 and abs(y) <= 480.0 + 1e-9
    assert view.ground == pytest.approx(_height_at(heights, x, y), abs=1e-9)
    # Drone height: a fifth of the 300 m relief above the plain (nothing near to clear, no wall to rise over).
    assert z == pytest.approx(view.ground + 0.2 * float(heights.max() - heights.min()), abs=1e-6)
    dx, dy, dz = view.direction
    assert dz == 0.0 and dx < -0.8 and math.hypot(dx, dy) == pytest.approx(1.0)
    # The mountain rises above eye level ahead; the far edge lies within the terrain's width.
    assert view.silhouette > 0.05
    assert 900.0 < view.far < 1200.0


def test_the_camera_is_never_under_the_terrain_along_the_first_part_of_its_view():
    """A ridge just in front of the vantage lifts the camera over it, clear by half the drone height."""
    x, y = _grid()
    heights = (_mountain_in_the_west() + 120.0 * np.exp(-((x - 300.0) ** 2) / (2 * 30.0**2))).astype(np.float32)
    view = landscape_viewpoint(heights, CELL, sun_azimuth=0.0, drone=20.0)
    px, py, z = view.position
    dx, dy, _ = view.direction
    for t in np.linspace(0.0, 0.2 * view.far, 200):
        assert z >= _height_at(heights, px + dx * t, py + dy * t) + 10.0 - 1e-6
    assert z > view.ground + 20.0  # lifted above the plain's drone height


def test_no_terrain_rises_above_the_highest_angle_allowed():
    heights = _mountain_in_the_west() * np.float32(6.0)  # 1800 m: a wall from the east edge at 800 m
    view = landscape_viewpoint(heights, CELL, sun_azimuth=0.0, max_silhouette=0.1)
    assert view.silhouette <= 0.1 + 1e-9
    assert view.position[2] > view.ground + 0.2 * float(heights.max() - heights.min())


def test_a_flat_terrain_gets_the_first_candidate_at_a_drone_height_from_its_width():
    heights = np.full((N, N), 7.0, dtype=np.float32)
    view = landscape_viewpoint(heights, CELL, sun_azimuth=30.0)
    assert view.azimuth == 30.0 + SIDE_ANGLES[0]  # every direction scores the same: the first wins
    assert view.ground == 7.0 and view.position[2] == pytest.approx(7.0 + 30.0)  # 3 % of the 1000 m width
    small = landscape_viewpoint(heights[:21, :21], CELL, sun_azimuth=30.0)
    assert small.position[2] == 7.0 + 15.0  # 200 m wide: the lowest drone height, 15 m
    assert view.silhouette < 0.0  # all the land below eye level
    x, y, _ = view.position
    a = math.radians(view.azimuth)
    assert x == pytest.approx(-480.0)  # on the west edge (inset 20 m), the view heading 110 degrees
    # Back from the centre along the view: on the line through the centre.
    assert x * math.cos(a) - y * math.sin(a) == pytest.approx(0.0, abs=1e-9)


def test_a_camera_finds_the_valley_off_the_centre_line_instead_of_the_plateau():
    """A plateau 100 m high cut by one valley running north-south at x = 220 m: the camera stands in the valley
    (one of the :data:`LATERAL` places across the view), not on the plateau the centre line crosses."""
    x, _ = _grid()
    heights = np.where(np.abs(x - 220.0) < 40.0, 0.0, 100.0).astype(np.float32)
    view = landscape_viewpoint(heights, CELL, sun_azimuth=90.0)  # the sun in the east: views about N or S
    assert view.ground == 0.0 and abs(view.position[0] - 220.0) < 40.0
    assert abs(math.sin(math.radians(view.azimuth))) < 0.2  # looking along the valley


def test_the_vantage_is_deterministic_and_leaves_the_heights_alone():
    heights = _mountain_in_the_west()
    before = heights.copy()
    first = landscape_viewpoint(heights, CELL, sun_azimuth=135.0, half_fov=25.0)
    assert landscape_viewpoint(heights, CELL, sun_azimuth=135.0, half_fov=25.0) == first
    assert np.array_equal(heights, before)
    rect = heights[:, :61]  # a non-square grid: still inside its own bounds
    x, y, _ = landscape_viewpoint(rect, CELL, sun_azimuth=135.0).position
    assert abs(x) <= 300.0 and abs(y) <= 500.0


@pytest.mark.parametrize(
    ("heights", "kwargs", "error"),
    [
        (np.zeros((1, 5), np.float32), {}, ValueError),
        (np.zeros(5, np.float32), {}, ValueError),
        (np.full((4, 4), np.nan, np.float32), {}, ValueError),
        (np.zeros((4, 4), np.float32), {"cell": 0.0}, ValueError),
        (np.zeros((4, 4), np.float32), {"half_fov": 90.0}, ValueError),
        (np.zeros((4, 4), np.float32), {"drone": -1.0}, ValueError),
        (np.zeros((4, 4), np.float32), {"max_silhouette": -0.1}, ValueError),
        (np.zeros((4, 4), np.float32), {"sun_azimuth": math.inf}, ValueError),
        (np.zeros((4, 4), np.float32), {"sun_azimuth": "north"}, TypeError),
    ],
)
def test_bad_input_is_refused(heights, kwargs, error):
    cell = kwargs.pop("cell", 1.0)
    with pytest.raises(error):
        landscape_viewpoint(heights, cell, **{"sun_azimuth": 0.0, **kwargs})


def test_frame_top_leaves_sky_above_the_higher_of_the_silhouette_and_the_horizon():
    assert frame_top(-0.05, 0.3, sky=0.25) == pytest.approx(0.15)  # the horizon a quarter down the frame
    assert frame_top(0.2, 0.3, sky=0.25) == pytest.approx(0.35)
    assert frame_top(0.0, 0.3, sky=0.0) == 0.0
    for bad in ({"tan_half_height": 0.0}, {"sky": 1.0}, {"silhouette": math.nan}):
        with pytest.raises(ValueError):
            frame_top(**{"silhouette": 0.0, "tan_half_height": 0.3, **bad})
