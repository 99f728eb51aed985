"""Rivers and lakes (core.surface_water): lakes at the spill level, rivers by hydraulic geometry, beds carved
without steps, the water mesh over exactly those cells, and the filter's maps."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core import spec as spec_mod
from core.erosion.flow import NEIGHBOR_OFFSETS, route_flow
from core.surface_water import SECONDS_PER_YEAR, surface_water, water_mesh


def bowl_and_valley(rows=40, cols=48, cell=10.0):
    """A valley falling to the south edge (3 m a row, a V of 5 m a column across), a closed bowl 30 m deep in it."""
    r, c = np.mgrid[0:rows, 0:cols].astype(np.float64)
    z = 300.0 - 3.0 * r + 5.0 * np.abs(c - cols / 2)
    d = np.hypot(r - 10, c - cols / 2)
    z -= 30.0 * np.clip(1.0 - d / 6.0, 0.0, None)
    return z, cell


def upward(q):
    """The Z of the cross product of each quad's first two edges: > 0 when it runs counter-clockwise from above."""
    e1, e2 = q[:, 1, :2] - q[:, 0, :2], q[:, 2, :2] - q[:, 0, :2]
    return e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]


def test_lakes_fill_each_closed_depression_to_its_spill_level_and_no_more():
    z, cell = bowl_and_valley()
    w = surface_water(z, cell, open_edges="s")
    from core.erosion.depressions import drain_depressions

    filled = drain_depressions(z, cell, mode="fill", open_edges="s")
    depth = filled - z
    np.testing.assert_array_equal(w.lake_depth, np.where(depth >= 1e-3, depth, 0.0).astype(np.float32))
    assert (w.lake_depth > 0).sum() >= 3 and w.lake_depth.max() > 5.0
    lake = w.lake_depth > 0
    levels = (z + w.lake_depth)[lake]
    assert levels.max() - levels.min() < 1e-6  # one flat water plane
    assert (w.river_width[lake] == 0).all()  # a lake is no river


def test_rivers_begin_at_the_river_area_with_leopold_and_maddock_geometry():
    z, cell = bowl_and_valley()
    w = surface_water(
        z, cell, open_edges="s", river_area=2.0e4, runoff=30.0, width_coefficient=5.0, depth_coefficient=0.25
    )
    river = w.river_width > 0
    area = w.drainage_area.astype(np.float64)
    np.testing.assert_array_equal(river, (area >= 2.0e4) & (w.lake_depth == 0))
    q = area * 30.0 / SECONDS_PER_YEAR
    np.testing.assert_allclose(w.discharge, q, rtol=1e-6)
    np.testing.assert_allclose(w.river_width[river], 5.0 * q[river] ** 0.5, rtol=1e-6)
    np.testing.assert_allclose(w.river_depth[river], 0.25 * q[river] ** 0.4, rtol=1e-6)
    assert river.sum() > 20
    np.testing.assert_allclose(w.heights, z - w.river_depth.astype(np.float64), atol=1e-3)
    assert (w.heights <= z + 1e-3).all()  # (puddles under a millimetre are filled)


@settings(max_examples=60, deadline=None)
@example(seed=191, runoff=1.0)  # a puddle under a millimetre once let the surface rise
@given(seed=st.integers(0, 2**32 - 1), runoff=st.floats(0.1, 5.0))
def test_the_water_surface_never_rises_downstream_and_the_carving_opens_no_pit(seed, runoff):
    rng = np.random.default_rng(seed)
    rows, cols, cell = 24, 28, 25.0
    r = np.arange(rows, dtype=np.float64)[:, None]
    z = 50.0 + 2.0 * (rows - r) + rng.random((rows, cols)) * 6.0
    w = surface_water(z, cell, river_area=10 * cell * cell, runoff=runoff)
    surface = w.heights + w.river_depth + w.lake_depth
    code = w.direction.astype(np.int64)
    rr, cc = np.nonzero((w.river_width > 0) & (code >= 0))
    off = np.asarray(NEIGHBOR_OFFSETS)[code[rr, cc]]
    down = surface[rr + off[:, 0], cc + off[:, 1]]
    assert (down <= surface[rr, cc] + 1e-6).all()  # (the depths are float32: a micrometre of rounding)
    bed_down = w.heights[rr + off[:, 0], cc + off[:, 1]]
    is_river_down = w.river_width[rr + off[:, 0], cc + off[:, 1]] > 0
    assert (bed_down[is_river_down] <= w.heights[rr, cc][is_river_down] + 1e-6).all()  # the bed has no steps
    # carving made no closed depression the uncarved ground did not have
    before = route_flow(z, cell, resolve_depressions=False).depressions
    after = route_flow(w.heights, cell, resolve_depressions=False).depressions
    assert after <= before


def test_a_draining_terrain_too_small_for_rivers_comes_back_unchanged():
    r, c = np.mgrid[0:20, 0:20].astype(np.float64)
    z = 10.0 + r + 0.1 * c  # a tilted plane: drains, no pit
    w = surface_water(z, 1.0, river_area=1.0e6)
    np.testing.assert_array_equal(w.heights, z)
    assert not w.lake_depth.any() and not w.river_width.any() and not w.river_depth.any()


def test_sea_cells_are_neither_lake_nor_river():
    z, cell = bowl_and_valley()
    sea = float(np.quantile(z, 0.2))
    w = surface_water(z, cell, open_edges="", sea_level=sea, river_area=1.0e3, runoff=10.0)
    below = z < sea
    assert below.any() and not w.river_width[below].any() and not w.lake_depth[below].any()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"river_area": 0.0}, "river_area"),
        ({"runoff": -1.0}, "runoff"),
        ({"runoff": float("nan")}, "runoff"),
        ({"width_coefficient": -2.0}, "width_coefficient"),
        ({"depth_coefficient": 1e9}, "depth_coefficient"),
    ],
)
def test_bad_settings_are_refused_by_name(kwargs, message):
    z, cell = bowl_and_valley()
    with pytest.raises(ValueError, match=message):
        surface_water(z, cell, **kwargs)


def test_the_lake_quads_cover_the_lake_cells_at_the_spill_level_and_no_lower_ground():
    z, cell = bowl_and_valley()
    w = surface_water(z, cell, open_edges="s", river_area=1e12)
    vertices, quads = water_mesh(
        w.heights,
        cell,
        lake_depth=w.lake_depth,
        river_width=w.river_width,
        river_depth=w.river_depth,
        direction=w.direction,
    )
    assert vertices.dtype == np.float32 and quads.dtype == np.int32 and quads.shape[1] == 4
    rows, cols = z.shape
    level = float((z + w.lake_depth)[w.lake_depth > 0].max())
    np.testing.assert_allclose(vertices[:, 2], level, atol=1e-4)
    col = np.rint(vertices[:, 0] / cell + (cols - 1) / 2).astype(int)
    row = np.rint((rows - 1) / 2 - vertices[:, 1] / cell).astype(int)
    np.testing.assert_allclose(vertices[:, 0], (col - (cols - 1) / 2) * cell, atol=1e-3)  # on grid points
    covered = np.zeros(z.shape, dtype=bool)
    covered[row, col] = True
    lake = w.lake_depth > 0
    assert covered[lake].all()  # every lake point is a corner of a water quad
    assert (z[covered & ~lake] >= level - 1e-3).all()  # and every other corner is shore above the water
    # counter-clockwise from above: normals up
    q = vertices[quads]
    assert (upward(q) > 0).all()


def test_river_ribbons_run_from_each_river_point_to_its_receiver_as_wide_as_the_channel():
    z, cell = bowl_and_valley()
    w = surface_water(z, cell, open_edges="s", river_area=3.0e4, runoff=50.0, width_coefficient=20.0)
    lake_free = np.zeros_like(w.lake_depth)
    vertices, quads = water_mesh(
        w.heights,
        cell,
        lake_depth=lake_free,
        river_width=w.river_width,
        river_depth=w.river_depth,
        direction=w.direction,
    )
    river = (w.river_width > 0) & (w.direction >= 0)
    assert len(quads) == river.sum() > 5
    q = vertices[quads].astype(np.float64)
    upstream_width = np.hypot(*(q[:, 3, :2] - q[:, 0, :2]).T)
    np.testing.assert_allclose(np.sort(upstream_width), np.sort(w.river_width[river]), rtol=1e-4)
    surface = w.heights + w.river_depth
    np.testing.assert_allclose(np.sort(q[:, 0, 2]), np.sort(surface[river]), rtol=1e-6)
    assert (q[:, 1, 2] <= q[:, 0, 2] + 1e-4).all()  # downhill along every ribbon
    assert (upward(q) > 0).all()


def test_no_water_gives_an_empty_mesh_and_bad_maps_are_refused():
    z = np.zeros((4, 5))
    zero = np.zeros_like(z)
    v, q = water_mesh(z, 1.0, lake_depth=zero, river_width=zero, river_depth=zero, direction=zero - 1)
    assert v.shape == (0, 3) and q.shape == (0, 4)
    with pytest.raises(ValueError, match="lake_depth"):
        water_mesh(z, 1.0, lake_depth=zero - 1, river_width=zero, river_depth=zero, direction=zero)
    with pytest.raises(ValueError, match="direction"):
        water_mesh(z, 1.0, lake_depth=zero, river_width=zero, river_depth=zero, direction=zero + 9)
    with pytest.raises(ValueError, match="off the grid"):
        water_mesh(z, 1.0, lake_depth=zero, river_width=zero + 1, river_depth=zero, direction=zero + 1)  # north
    with pytest.raises(ValueError, match="river_width"):
        water_mesh(z, 1.0, lake_depth=zero, river_width=np.zeros((3, 3)), river_depth=zero, direction=zero)


def test_the_rivers_filter_carves_and_makes_its_maps():
    s = spec_mod.TerrainSpec.from_dict(
        {
            "version": 5,
            "size": 65,
            "seed": 3,
            "width": 6400.0,
            "height": 600.0,
            "generator": "fractal",
            "filters": [{"type": "erosion", "steps": 6}, {"type": "rivers", "river_area": 2.0e5, "runoff": 1.0}],
        }
    )
    heights, maps = s.recipe().evaluate_with_maps()
    assert {"lake_depth", "river_width", "river_depth", "drainage_area", "flow_direction"} <= set(maps)
    for name in ("lake_depth", "river_width", "river_depth"):
        assert maps[name].dtype == np.float32 and maps[name].shape == (65, 65) and (maps[name] >= 0).all()
    assert (maps["river_width"] > 0).sum() > 20
    base = s.replace(filters=s.filters[:1]).recipe().evaluate() * 600.0
    w = surface_water(base.astype(np.float64), s.cell_size, river_area=2.0e5, runoff=1.0)
    np.testing.assert_allclose(heights * 600.0, w.heights, atol=1e-3)
    np.testing.assert_array_equal(maps["river_width"], w.river_width)
    assert np.array_equal(s.recipe().evaluate(), heights)  # deterministic, and the same without maps
