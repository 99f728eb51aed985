import math

import numpy as np
import pytest

from core import elementary
from core import lighting as shading
from core.lighting import occlusion, shadows


def plane(rows, cols, east=0.0, north=0.0, cell=1.0):
    """Heights of the plane z = east * x + north * y (x east, y north; row 0 is north)."""
    r, c = np.mgrid[0:rows, 0:cols].astype(np.float64)
    return east * c * cell + north * (rows - 1 - r) * cell


def test_horn_gradient_of_a_plane_is_exact_on_every_cell():
    dx, dy = shading.horn_gradient(plane(9, 11, 0.3, -0.7, 2.0), 2.0)
    assert np.allclose(dx, 0.3, rtol=0, atol=1e-12) and np.allclose(dy, -0.7, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("rows", "cols"), [(7, 9), (2, 5), (4, 2), (2, 2)])
def test_a_plane_is_exact_on_edges_and_corners(rows, cols):
    """Issue #12: z = x with 1 m cells has slope 45 degrees on the edge columns too, curvature 0."""
    h = plane(rows, cols, east=1.0)
    assert np.allclose(shading.slope_degrees(h), 45.0, atol=1e-5)
    assert np.abs(shading.curvature(h)).max() <= 1e-5
    tilted = plane(rows, cols, 0.4, -1.3, 0.5)
    slope = math.degrees(math.atan(math.hypot(0.4, 1.3)))
    assert np.allclose(shading.slope_degrees(tilted, 0.5), slope, atol=1e-4)
    assert np.abs(shading.curvature(tilted, 0.5)).max() <= 1e-4
    shade = shading.hillshade(tilted, 0.5, azimuth=340.0, altitude=35.0)
    assert np.allclose(shade, shade[0, 0], atol=1e-6) and shade[0, 0] > 0
    multi = shading.multidirectional_hillshade(tilted, 0.5, altitude=35.0)
    assert np.allclose(multi, multi[0, 0], atol=1e-6)
    normals = shading.normal_map(tilted, 0.5)
    assert np.allclose(normals, normals[0, 0], atol=1e-6)


def test_edge_curvature_keeps_the_second_difference_along_the_edge():
    r, c = np.mgrid[0:6, 0:8].astype(np.float64)
    trough = (c - 3.0) ** 2  # d2z/dx2 = 2 everywhere, nothing across rows
    curv = shading.curvature(trough)
    assert np.allclose(curv[:, 1:-1], -2.0, atol=1e-5)  # top and bottom rows included
    assert np.allclose(curv[:, [0, -1]], 0.0, atol=1e-5)  # across the side edges: extrapolated linearly


@pytest.mark.parametrize("altitude", [10.0, 30.0, 45.0, 80.0])
def test_flat_ground_gets_sin_altitude(altitude):
    assert np.allclose(
        shading.hillshade(np.zeros((5, 5)), 1.0, azimuth=123.0, altitude=altitude), math.sin(math.radians(altitude))
    )
    assert np.allclose(
        shading.multidirectional_hillshade(np.zeros((5, 5)), 1.0, altitude=altitude), math.sin(math.radians(altitude))
    )


@pytest.mark.parametrize("azimuth", [0.0, 90.0, 180.0, 270.0, 45.0])
def test_a_slope_facing_the_sun_at_the_right_angle_is_fully_lit(azimuth):
    # A plane facing the sun with slope angle 90 - altitude has its normal along the sun: cosine 1.
    altitude = 30.0
    tilt = math.tan(math.radians(90.0 - altitude))
    az = math.radians(azimuth)
    h = plane(7, 7, -tilt * math.sin(az), -tilt * math.cos(az))  # falls toward the sun
    assert shading.hillshade(h, 1.0, azimuth=azimuth, altitude=altitude)[3, 3] == pytest.approx(1.0, abs=1e-6)
    # The same slope seen by a sun behind it is dark.
    assert shading.hillshade(h, 1.0, azimuth=azimuth + 180.0, altitude=altitude)[3, 3] == 0.0


def test_hillshade_rotates_with_the_map():
    rng = np.random.default_rng(0)
    h = rng.random((20, 20)).cumsum(0).cumsum(1)
    a = shading.hillshade(h, 1.0, azimuth=0.0, altitude=40.0)
    b = shading.hillshade(np.rot90(h, -1), 1.0, azimuth=90.0, altitude=40.0)  # rotate the map clockwise and the sun too
    assert np.allclose(np.rot90(a, -1)[1:-1, 1:-1], b[1:-1, 1:-1], atol=1e-6)


def wall_shadow(azimuth, altitude, softness=0.5, samples=8, height=10.0, size=161):
    """Cast shadows of a one-cell wall through the middle of a flat map, and the exact expected value.

    The wall runs along the column (or the row) the sun's direction crosses
    fastest; a cell ``k`` cells away from it across the wall sees the sun at
    altitude ``a`` when ``height <= k / |cos| * tan(a)`` (``cos`` the
    direction's component across the wall). Only cells whose ray reaches the
    wall inside the map are returned.
    """
    east, north = math.sin(math.radians(azimuth)), math.cos(math.radians(azimuth))
    across_columns = abs(east) >= abs(north)
    mid = size // 2
    h = np.zeros((size, size))
    if across_columns:
        h[:, mid] = height
    else:
        h[mid, :] = height
    shadow = shading.cast_shadows(h, 1.0, azimuth=azimuth, altitude=altitude, softness=softness, samples=samples)
    bands = [altitude - softness / 2 + softness * (j + 0.5) / samples for j in range(samples)]
    across, along = (abs(east), abs(north)) if across_columns else (abs(north), abs(east))
    got, want = [], []
    for line in range(size):
        for k in range(1, mid):
            drift = along / across * k
            if not (1 <= line - drift and line + drift <= size - 2):
                continue  # the ray leaves the map before it reaches the wall
            if across_columns:
                cell = (line, mid - k if east > 0 else mid + k)
            else:
                cell = (mid + k if north > 0 else mid - k, line)
            got.append(shadow[cell])
            want.append(sum(height <= k / across * math.tan(math.radians(a)) for a in bands) / samples)
    return np.array(got), np.array(want)


@pytest.mark.parametrize("azimuth", [90.0, 0.0, 60.0, 120.0, 247.0, 300.0, 20.0, 160.0, 45.0, 225.0, 333.0])
@pytest.mark.parametrize("altitude", [4.0, 20.0, 45.0, 75.0])
def test_a_one_cell_wall_casts_an_unbroken_shadow_of_the_right_length(azimuth, altitude):
    """Issue #12: no occluder within reach is skipped, however thin: no stripes behind a one-cell wall."""
    got, want = wall_shadow(azimuth, altitude)
    assert len(got) > 500
    assert np.array_equal(got, want)


def brute_shadows(h, azimuth, altitude, softness, samples, max_distance=None, origin=(0, 0)):
    """Cell by cell: the steepest rise along each cell's ray (the same digital lines, anchored at the world's line
    0), then the disc samples."""
    v, back, drift, base = shadows._sun_frame(h.astype(np.float32), azimuth % 360.0, origin)
    n, width = v.shape
    offsets = np.rint((np.arange(n) + base) * drift).astype(int)
    step = math.hypot(1.0, drift)
    bands = [altitude - softness / 2 + softness * (j + 0.5) / samples for j in range(samples)]
    out = np.zeros(v.shape)
    for i in range(n):
        for w in range(width):
            steepest = -np.inf
            for k in range(1, i + 1):
                if max_distance is not None and k > 1 and k * step > max_distance + 1e-9:
                    break
                wp = w + offsets[i] - offsets[i - k]
                if 0 <= wp < width:
                    steepest = max(steepest, (float(v[i - k, wp]) - float(v[i, w])) / (k * step))
            out[i, w] = sum(a >= 90.0 or steepest <= math.tan(math.radians(a)) for a in bands) / samples
    return back(out.astype(np.float32))


@pytest.mark.parametrize("seed", range(12))
def test_cast_shadows_match_a_cell_by_cell_march(seed):
    rng = np.random.default_rng(seed)
    h = rng.random((13, 17)).cumsum(0) * rng.random() * 3 + rng.random((13, 17)) * 2
    azimuth, altitude, softness = rng.uniform(0, 360), rng.uniform(0, 60), rng.uniform(0.5, 10)
    max_distance = [None, 3, 5][seed % 3]
    origin = (0, 0) if seed < 6 else (int(rng.integers(0, 5000)), int(rng.integers(0, 5000)))
    expected = brute_shadows(h, azimuth, altitude, softness, 8, max_distance, origin)
    got = shading.cast_shadows(
        h, 1.0, azimuth=azimuth, altitude=altitude, softness=softness, max_distance=max_distance, origin=origin
    )
    assert np.abs(got - expected).max() <= 1e-6


def test_cast_shadows_samples_and_zenith():
    h = np.zeros((20, 20))
    h[10, 10] = 5.0
    assert shading.cast_shadows(h, 1.0, azimuth=0.0, altitude=90.0).min() == 1.0
    flat_low = shading.cast_shadows(np.zeros((9, 9)), 1.0, azimuth=90.0, altitude=0.0, softness=2.0, samples=4)
    assert np.allclose(flat_low[:, :-1], 0.5) and np.allclose(flat_low[:, -1], 1.0)  # half the disc below
    assert set(
        np.unique(shading.cast_shadows(h, 1.0, azimuth=30.0, altitude=10.0, softness=8.0, samples=5) * 5).round(5)
    ) <= {
        0.0,
        1.0,
        2.0,
        3.0,
        4.0,
        5.0,
    }


def test_cast_shadow_behind_a_wall():
    h = np.zeros((40, 60))
    h[:, 40:] = 10.0  # a 10 m cliff along x = 40, sun low in the east
    shadow = shading.cast_shadows(h, 1.0, azimuth=90.0, altitude=30.0, softness=1.0)
    length = 10.0 / math.tan(math.radians(30.0))  # ~17.3 cells of shadow west of the cliff
    assert shadow[20, 40 - 5] == 0.0
    assert shadow[20, int(40 - length) - 3] == 1.0
    assert (shadow[:, 40:] == 1.0).all()  # the plateau itself is lit
    assert shading.cast_shadows(h, 1.0, azimuth=270.0, altitude=30.0).min() == 1.0  # sun behind: no shadow there


def reference_ambient_occlusion(h, cell, z_factor, directions, radius):
    """The straightforward march: whole-map float64 operations, one sample distance at a time."""
    h = np.asarray(h, np.float64) * z_factor
    rows, cols = h.shape
    sky = np.zeros(h.shape)
    for k in range(directions):
        az = 2.0 * math.pi * k / directions
        best = np.full(h.shape, -np.inf)
        east, north = elementary.sincos(az)  # the plan's directions (rounded sample offsets: the same bits matter)
        for d in occlusion._march_distances(float(radius), 1.25):
            dr, dc = int(round(-north * d)), int(round(east * d))
            if abs(dr) >= rows or abs(dc) >= cols or (dr == 0 and dc == 0):
                continue
            r0, r1, c0, c1 = max(0, -dr), min(rows, rows - dr), max(0, -dc), min(cols, cols - dc)
            rise = (h[r0 + dr : r1 + dr, c0 + dc : c1 + dc] - h[r0:r1, c0:c1]) / (math.hypot(dr, dc) * cell)
            np.maximum(best[r0:r1, c0:c1], rise, out=best[r0:r1, c0:c1])
        t = np.maximum(best, 0.0)
        sky += 1.0 - t / np.sqrt(1.0 + t * t)
    return np.clip(sky / directions, 0.0, 1.0)


@pytest.mark.parametrize(
    ("shape", "directions", "radius", "z_factor"),
    [((64, 80), 16, 64, 1.0), ((33, 47), 7, 10, 2.5), ((12, 300), 12, 290, 1.0), ((300, 9), 5, 400, 0.5)],
)
def test_ambient_occlusion_equals_the_straightforward_march(shape, directions, radius, z_factor):
    """Issue #13: the blocked float32 march gives the same values (well within 1/255)."""
    rng = np.random.default_rng(shape[0])
    h = rng.random(shape).cumsum(1) * 0.3 + rng.random(shape) * 4
    got = shading.ambient_occlusion(h, 0.7, z_factor=z_factor, directions=directions, radius=radius)
    assert np.abs(got - reference_ambient_occlusion(h, 0.7, z_factor, directions, radius)).max() <= 1e-5


def blocked_ambient_occlusion_before_pairing(h, cell, z, directions, radius):
    """``core.shading.ambient_occlusion`` before opposite directions shared their rises (issue #13's reference).

    Every sample of every direction for one block of rows of float32 heights, the map padded with -inf
    columns; one thread here (the threads only split the rows).
    """
    h = np.asarray(h, np.float32)
    rows, cols = h.shape
    plan = occlusion._ambient_plan((rows, cols), directions, radius)
    scaled = [[(dr, dc, np.float32(inv * z / cell)) for dr, dc, inv in steps] for steps in plan]
    pad = min(256, max((abs(dc) for steps in plan for _, dc, _ in steps), default=0))
    padded = np.full((rows, cols + 2 * pad), -np.inf, np.float32)
    padded[:, pad : pad + cols] = h
    out = np.empty(h.shape, np.float32)
    block = max(1, (1 << 18) // cols)
    best, tmp, sky = (np.empty((min(block, rows), cols), np.float32) for _ in range(3))
    for r0 in range(0, rows, block):
        r1 = min(rows, r0 + block)
        b = r1 - r0
        best_b, tmp_b, sky_b = best[:b], tmp[:b], sky[:b]
        sky_b.fill(0.0)
        for steps in scaled:
            best_b.fill(0.0)
            for dr, dc, inv in steps:
                a0, a1 = max(r0, -dr), min(r1, rows - dr)
                if a0 >= a1:
                    continue
                if abs(dc) <= pad:
                    c0, c1 = 0, cols
                    source = padded[a0 + dr : a1 + dr, pad + dc : pad + dc + cols]
                else:
                    c0, c1 = max(0, -dc), min(cols, cols - dc)
                    source = h[a0 + dr : a1 + dr, c0 + dc : c1 + dc]
                t = tmp_b[a0 - r0 : a1 - r0, c0:c1]
                np.subtract(source, h[a0:a1, c0:c1], out=t)
                t *= inv
                view = best_b[a0 - r0 : a1 - r0, c0:c1]
                np.maximum(view, t, out=view)
            np.multiply(best_b, best_b, out=tmp_b)
            tmp_b += np.float32(1.0)
            np.sqrt(tmp_b, out=tmp_b)
            np.divide(best_b, tmp_b, out=tmp_b)
            sky_b += tmp_b
        target = out[r0:r1]
        np.multiply(sky_b, np.float32(-1.0 / len(plan)), out=target)
        target += np.float32(1.0)
        np.clip(target, 0.0, 1.0, out=target)
    return out


@pytest.mark.parametrize(
    ("shape", "directions", "radius", "z_factor", "block_cells"),
    [
        ((300, 310), 16, 64, 1.0, 1 << 18),
        ((300, 310), 16, 64, 1.0, 3000),
        ((517, 530), 16, 40, 3.0, 1 << 12),
        ((90, 700), 7, 300, 1.0, 1 << 14),
        ((700, 90), 12, 500, 0.5, 1 << 13),
        ((41, 37), 360, 20, 1.0, 1 << 18),
        ((5, 5), 4, 1, 1.0, 1 << 18),
    ],
)
def test_ambient_occlusion_equals_the_march_before_opposite_directions_shared_rises(
    monkeypatch, shape, directions, radius, z_factor, block_cells
):
    """Issue #13: pairing opposite directions (one rise serves both), the padded contiguous layout and
    the bands of rows on threads leave the horizons bit-identical; only the order in which the
    directions' sky shares are summed changed (float32 rounding, below 1e-5: far within 1/255).
    Small blocks move the opposite directions' buffer many times and split the map into many bands."""
    rng = np.random.default_rng(shape[1])
    h = (rng.random(shape).cumsum(0) * 0.2 + rng.random(shape) * 3 + rng.random(shape).cumsum(1) * 0.1) * 10
    before = blocked_ambient_occlusion_before_pairing(h, 0.7, z_factor, directions, radius)
    monkeypatch.setattr(occlusion, "_AO_BLOCK_CELLS", block_cells)
    got = shading.ambient_occlusion(h, 0.7, z_factor=z_factor, directions=directions, radius=radius)
    assert np.abs(got - before).max() <= 1e-5  # 360 directions summed in another order: 5e-6
    for workers in (1, 2, 3):  # the same values whatever the blocks, bands and threads
        monkeypatch.setattr(occlusion, "worker_count", lambda cells, w=workers: w)
        assert np.array_equal(
            shading.ambient_occlusion(h, 0.7, z_factor=z_factor, directions=directions, radius=radius), got
        )
    monkeypatch.setattr(occlusion, "_AO_BLOCK_CELLS", 1 << 18)
    assert np.array_equal(
        shading.ambient_occlusion(h, 0.7, z_factor=z_factor, directions=directions, radius=radius), got
    )


def test_shadow_and_ambient_work_is_bounded():
    """Issue #12: requests that would run for minutes are refused up front, naming the parameters."""
    big = np.zeros((4097, 4097), np.float32)
    assert shading.ambient_work((4097, 4097), 16, 64) == 4097 * 4097 * 272
    with pytest.raises(ValueError, match=r"ambient_occlusion: 360 directions x radius 4096 over 4097 x 4097"):
        shading.ambient_occlusion(big, directions=360, radius=4096)
    with pytest.raises(ValueError, match="more than 1e\\+11"):
        shading.combined_lightmap(big, ambient_directions=360, ambient_radius=4096, shadows=False)
    assert shading.shadow_work((4097, 4097)) == 4097 * 4097 * 8
    assert shading.shadow_work((100, 100), 8, 50) == 100 * 100 * 8 * (2 + 6)
    with pytest.raises(ValueError, match="cast_shadows"):
        shading.check_light_work(shading.MAX_LIGHT_WORK + 1, "cast_shadows")


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
    parts = (
        shading.hillshade(h, 1.0, azimuth=200.0, altitude=35.0).astype(np.float64)
        * shading.cast_shadows(h, 1.0, azimuth=200.0, altitude=35.0)
        * shading.ambient_occlusion(h, 1.0, directions=8, radius=16).astype(np.float64) ** 2.0
    )
    combined = shading.combined_lightmap(
        h, 1.0, azimuth=200.0, altitude=35.0, ambient_strength=2.0, ambient_directions=8, ambient_radius=16
    )
    assert np.allclose(combined, parts, atol=1e-6)
    bare = shading.combined_lightmap(h, 1.0, azimuth=200.0, altitude=35.0, shadows=False, ambient=False)
    assert np.array_equal(bare, shading.hillshade(h, 1.0, azimuth=200.0, altitude=35.0))


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
        math.degrees(math.atan(2.0))
    )
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
        (lambda: shading.cast_shadows(np.zeros((3, 3)), samples=0), "samples"),
        (lambda: shading.cast_shadows(np.zeros((3, 3)), max_distance=0), "max_distance"),
        (lambda: shading.combined_lightmap(np.zeros((3, 3)), ambient_strength=-1.0), "ambient_strength"),
    ],
)
def test_bad_parameters(call, match):
    with pytest.raises(ValueError, match=match):
        call()
