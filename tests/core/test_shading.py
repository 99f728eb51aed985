import math

import numpy as np
import pytest

from core import shading


def plane(rows, cols, east=0.0, north=0.0, cell=1.0):
    """Heights of the plane z = east * x + north * y (x east, y north; row 0 is north)."""
    r, c = np.mgrid[0:rows, 0:cols].astype(np.float64)
    return east * c * cell + north * (rows - 1 - r) * cell


def test_horn_gradient_of_a_plane_is_exact_also_at_the_border_inside():
    dx, dy = shading.horn_gradient(plane(9, 11, 0.3, -0.7, 2.0), 2.0)
    assert np.allclose(dx[1:-1, 1:-1], 0.3) and np.allclose(dy[1:-1, 1:-1], -0.7)
    assert np.isfinite(dx).all() and np.isfinite(dy).all()


@pytest.mark.parametrize("altitude", [10.0, 30.0, 45.0, 80.0])
def test_flat_ground_gets_sin_altitude(altitude):
    assert np.allclose(shading.hillshade(np.zeros((5, 5)), 1.0, 123.0, altitude), math.sin(math.radians(altitude)))
    assert np.allclose(shading.multidirectional_hillshade(np.zeros((5, 5)), 1.0, altitude),
                       math.sin(math.radians(altitude)))


@pytest.mark.parametrize("azimuth", [0.0, 90.0, 180.0, 270.0, 45.0])
def test_a_slope_facing_the_sun_at_the_right_angle_is_fully_lit(azimuth):
    # A plane facing the sun with slope angle 90 - altitude has its normal along the sun: cosine 1.
    altitude = 30.0
    tilt = math.tan(math.radians(90.0 - altitude))
    az = math.radians(azimuth)
    h = plane(7, 7, -tilt * math.sin(az), -tilt * math.cos(az))  # falls toward the sun
    assert shading.hillshade(h, 1.0, azimuth, altitude)[3, 3] == pytest.approx(1.0, abs=1e-6)
    # The same slope seen by a sun behind it is dark.
    assert shading.hillshade(h, 1.0, azimuth + 180.0, altitude)[3, 3] == 0.0


def test_hillshade_rotates_with_the_map():
    rng = np.random.default_rng(0)
    h = rng.random((20, 20)).cumsum(0).cumsum(1)
    a = shading.hillshade(h, 1.0, 0.0, 40.0)
    b = shading.hillshade(np.rot90(h, -1), 1.0, 90.0, 40.0)  # rotate the map clockwise and the sun too
    assert np.allclose(np.rot90(a, -1)[1:-1, 1:-1], b[1:-1, 1:-1], atol=1e-6)


def test_cast_shadow_behind_a_wall():
    h = np.zeros((40, 60))
    h[:, 40:] = 10.0  # a 10 m cliff along x = 40, sun low in the east
    shadow = shading.cast_shadows(h, 1.0, azimuth=90.0, altitude=30.0, softness=1.0)
    length = 10.0 / math.tan(math.radians(30.0))  # ~17.3 cells of shadow west of the cliff
    assert shadow[20, 40 - 5] == 0.0
    assert shadow[20, int(40 - length) - 3] == 1.0
    assert (shadow[:, 40:] == 1.0).all()  # the plateau itself is lit
    assert shading.cast_shadows(h, 1.0, azimuth=270.0, altitude=30.0).min() == 1.0  # sun behind: no shadow there


def test_ambient_occlusion_open_flat_and_pit():
    assert np.allclose(shading.ambient_occlusion(np.zeros((16, 16)), 1.0, directions=8, radius=8), 1.0)
    r, c = np.mgrid[0:41, 0:41]
    bowl = ((r - 20.0) ** 2 + (c - 20.0) ** 2) * 0.05
    ao = shading.ambient_occlusion(bowl, 1.0, directions=16, radius=20)
    assert ao[20, 20] < 0.8 and ao.min() >= 0.0 and ao.max() <= 1.0
    peak = shading.ambient_occlusion(-bowl, 1.0, directions=16, radius=20)
    assert peak[20, 20] == 1.0


def test_combined_lightmap_is_the_product_of_its_parts():
    rng = np.random.default_rng(3)
    h = rng.random((32, 32)).cumsum(0) * 2
    parts = (shading.hillshade(h, 1.0, 200.0, 35.0).astype(np.float64)
             * shading.cast_shadows(h, 1.0, 200.0, 35.0)
             * shading.ambient_occlusion(h, 1.0, directions=8, radius=16).astype(np.float64) ** 2.0)
    combined = shading.combined_lightmap(h, 1.0, 200.0, 35.0, ambient_strength=2.0, ambient_directions=8,
                                         ambient_radius=16)
    assert np.allclose(combined, parts, atol=1e-6)
    bare = shading.combined_lightmap(h, 1.0, 200.0, 35.0, shadows=False, ambient=False)
    assert np.array_equal(bare, shading.hillshade(h, 1.0, 200.0, 35.0))


def test_normal_map_opengl_convention():
    flat = shading.normal_map(np.zeros((4, 4)))
    assert np.allclose(flat, [0.5, 0.5, 1.0])
    rising_east = shading.normal_map(plane(5, 5, east=1.0))[2, 2]
    assert rising_east[0] == pytest.approx(0.5 - 0.5 / math.sqrt(2)) and rising_east[1] == pytest.approx(0.5)
    rising_north = shading.normal_map(plane(5, 5, north=1.0))[2, 2]
    assert rising_north[1] == pytest.approx(0.5 - 0.5 / math.sqrt(2))  # faces south: green below 0.5


def test_slope_degrees_and_curvature():
    assert shading.slope_degrees(plane(5, 5, east=1.0))[2, 2] == pytest.approx(45.0)
    assert shading.slope_degrees(plane(5, 5, north=2.0, cell=0.5), 0.5)[2, 2] == pytest.approx(
        math.degrees(math.atan(2.0)))
    r, c = np.mgrid[0:9, 0:9].astype(np.float64)
    dome = -((r - 4) ** 2 + (c - 4) ** 2) / 2.0  # Laplacian -2: curvature +2 on the dome
    assert shading.curvature(dome)[4, 4] == pytest.approx(2.0)
    assert shading.curvature(-dome)[4, 4] == pytest.approx(-2.0)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: shading.hillshade(np.zeros((3, 3)), altitude=95.0), "altitude"),
        (lambda: shading.hillshade(np.zeros((3, 3)), cell_size=0.0), "cell_size"),
        (lambda: shading.hillshade(np.zeros((3, 3)), z_factor=-1.0), "z_factor"),
        (lambda: shading.cast_shadows(np.zeros((3, 3)), softness=0.0), "softness"),
        (lambda: shading.ambient_occlusion(np.zeros((3, 3)), directions=2), "directions"),
        (lambda: shading.ambient_occlusion(np.zeros((3, 3)), radius=0), "radius"),
        (lambda: shading.combined_lightmap(np.zeros((3, 3)), ambient_strength=-1.0), "ambient_strength"),
    ],
)
def test_bad_parameters(call, match):
    with pytest.raises(ValueError, match=match):
        call()
