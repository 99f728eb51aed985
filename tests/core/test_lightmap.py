import numpy as np
import pytest

from core import light_direction, slope_lightmap


def cone(n=65):
    """A single symmetric cone peaking at the centre (heights in cells)."""
    rr, cc = np.mgrid[0:n, 0:n]
    c = (n - 1) / 2
    return np.maximum(20.0 - np.hypot(rr - c, cc - c), 0.0)


# For each azimuth: (row, col) offsets from the centre of a cell on the slope
# facing the light and of one on the slope facing away.
SIDES = {
    0.0: ((-10, 0), (10, 0)),  # light from the north: north slope lit
    90.0: ((0, 10), (0, -10)),  # east
    180.0: ((10, 0), (-10, 0)),  # south
    270.0: ((0, -10), (0, 10)),  # west
    45.0: ((-7, 7), (7, -7)),  # north-east
    200.0: ((9, -3), (-9, 3)),
}


@pytest.mark.parametrize("azimuth", sorted(SIDES))
def test_slopes_facing_the_light_are_brighter(azimuth):
    light = slope_lightmap(cone(), azimuth=azimuth, softness=2.0, min_brightness=0.0, max_brightness=1.0)
    (fr, fc), (ar, ac) = SIDES[azimuth]
    facing, away = light[32 + fr, 32 + fc], light[32 + ar, 32 + ac]
    assert facing == 1.0
    # The cone's slope is 1 (rise over run): 1 - 1 / softness = 0.5 along the light's axis.
    assert away < 0.75
    if azimuth % 90 == 0:
        assert away == pytest.approx(0.5, abs=1e-6)


def test_light_direction_is_exact_on_the_axes():
    assert light_direction(0.0) == (-1.0, 0.0)
    assert light_direction(90.0) == (0.0, 1.0)
    assert light_direction(180.0) == (1.0, 0.0)
    assert light_direction(270.0) == (0.0, -1.0)
    assert light_direction(450.0) == (0.0, 1.0)


def test_flat_ground_gets_max_brightness_and_output_is_clamped():
    flat = slope_lightmap(np.zeros((8, 8)), max_brightness=0.8)
    assert flat.dtype == np.float32 and (flat == np.float32(0.8)).all()
    steep = slope_lightmap(cone() * 100, azimuth=90, min_brightness=0.3)
    assert steep.min() == np.float32(0.3) and steep.max() == 1.0


def test_softness_and_cell_size_scale_the_slope():
    h = np.tile(np.arange(10, dtype=np.float64), (5, 1))  # rises to the east, slope 1 per cell
    # The slope faces west: lit by a western light, shaded by an eastern one.
    assert slope_lightmap(h, azimuth=270.0, softness=4.0)[2, 5] == 1.0
    east_light = slope_lightmap(h, azimuth=90.0, softness=4.0, min_brightness=0.0)
    assert east_light[2, 5] == pytest.approx(1.0 - 1.0 / 4.0)
    assert slope_lightmap(h, azimuth=90.0, softness=4.0, min_brightness=0.0, cell_size=2.0)[2, 5] == pytest.approx(
        1.0 - 0.5 / 4.0
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"softness": 0.0}, "softness"),
        ({"min_brightness": 0.9, "max_brightness": 0.1}, "min_brightness"),
        ({"max_brightness": 1.5}, r"max_brightness must be in \[0.0, 1.0\]"),
        ({"cell_size": -1.0}, "cell_size"),
        ({"azimuth": float("inf")}, "azimuth must be finite"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        slope_lightmap(np.zeros((4, 4)), **kwargs)
