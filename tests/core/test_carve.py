"""The carve filter: rivers and roads along a curve, in metres, exact in windows."""

import numpy as np
import pytest

import core
from core import inputs
from core.carve import bed_profile, carve_curve, nearest_on_curve, thin
from core.window import Window


def line(*points):
    return inputs.CurveInput((np.array(points, dtype=np.float64),), name="River")


# --- geometry, on carve_curve directly (metres) -----------------------------------------------------------------


def test_a_straight_river_across_a_plane_has_its_width_and_depth():
    h = np.full((21, 21), 10.0)  # cell 1 m: row 10 is y = 0
    c = line((-12, 0, 0), (12, 0, 0))
    out = carve_curve(h, c, cell_size=1.0, width=8.0, depth=2.0, bank=4.0)
    # U profile: bed 8 m (terrain 10 less the depth) at the centre, bed + depth (2d / width)^2 off it
    assert out[6:15, 10].tolist() == [10.0, 9.125, 8.5, 8.125, 8.0, 8.125, 8.5, 9.125, 10.0]
    assert (out[:6] == 10.0).all() and (out[15:] == 10.0).all()
    assert (out[10] == 8.0).all()  # level along the whole row on a plane
    trap = carve_curve(h, c, cell_size=1.0, width=8.0, depth=2.0, bank=4.0, profile="trapezoid")
    assert trap[6:15, 3].tolist() == [10.0, 9.0, 8.0, 8.0, 8.0, 8.0, 8.0, 9.0, 10.0]


def test_a_river_descends_along_its_curve_through_a_bump():
    n = 101
    x, y = inputs.grid_xy((n, n), 1.0)
    terrain = 30.0 - 0.2 * x[None, :] + 0.0 * y[:, None]  # falls to the east
    terrain = terrain + 8.0 * np.exp(-((x[None, :] - 10.0) ** 2 + y[:, None] ** 2) / 50.0)  # a bump on the way
    c = line((-50, 0, 0), (-20, 0, 0), (51, 0, 0))
    out = carve_curve(terrain, c, cell_size=1.0, width=6.0, depth=1.5, bank=3.0)
    bed = out[50, :]  # the curve runs along row 50 (y = 0): d = 0 there
    assert (np.diff(bed) <= 0.0).all()  # never rises downstream
    assert bed[0] == pytest.approx(terrain[50, 0] - 1.5)
    upstream = np.minimum.accumulate(terrain[50] - 1.5)  # the bump is cut through at the upstream level
    assert np.allclose(bed, upstream, atol=1e-9)
    assert bed[60] < terrain[50, 60] - 6.0  # the cut through the bump, 6.6 m deep
    # upstream the other way (east to west): the bed stays at the lowest point reached, the source's
    back = carve_curve(terrain, line((51, 0, 0), (-50, 0, 0)), cell_size=1.0, width=6.0, depth=1.5, bank=3.0)
    assert np.allclose(back[50, :], terrain[50, -1] - 1.5)


def test_a_meandering_river_bed_never_rises():
    s = np.linspace(-40.0, 40.0, 200)
    points = np.stack([s, 15.0 * np.sin(s / 9.0), np.zeros_like(s)], axis=1)
    x, y = inputs.grid_xy((81, 81), 1.0)
    terrain = 50.0 - 0.3 * x[None, :] + 3.0 * np.cos(y[:, None] / 5.0) * np.sin(x[None, :] / 4.0)
    t, z = bed_profile(points, cell_size=1.0, mode="river", depth=2.0, heights=terrain)
    assert (np.diff(t) > 0).all() and (np.diff(z) <= 0.0).all()
    out = carve_curve(terrain, inputs.CurveInput((points,)), cell_size=1.0, width=5.0, depth=2.0, bank=2.0)
    assert (out <= terrain).all() and np.isfinite(out).all()
    d, _, along = nearest_on_curve(x, y, inputs.CurveInput((points,)), reach=0.3)
    on = d <= 0.3
    order = np.argsort(along[on])
    assert on.sum() > 40 and (np.diff(out[on][order]) <= 2.0 * (0.3 / 2.5) ** 2 + 1e-12).all()


def test_river_banks_are_continuous():
    cell = 0.05
    n = 401  # 20 m across
    x, y = inputs.grid_xy((n, n), cell)
    terrain = 10.0 + 0.5 * y[:, None] + 0.0 * x[None, :]  # rises to the north, 10 m along the curve
    out = carve_curve(terrain, line((-11, 0, 0), (11, 0, 0)), cell_size=cell, width=6.0, depth=2.0, bank=3.0)
    across = out[:, 200]
    assert np.abs(np.diff(across)).max() < 0.1  # a step at a bank would be ~1.5 m
    assert across[200] == pytest.approx(8.0)
    north = across[y <= 6.0 + 1e-9][0]  # beyond the bank the terrain as it was
    assert north == 13.0


def test_a_road_on_a_hill_is_level_with_cut_and_fill_slopes():
    cell = 0.5
    n = 121  # 60 m
    x, y = inputs.grid_xy((n, n), cell)
    hill = 30.0 - 0.004 * (x[None, :] ** 2 + (y[:, None] + 25.0) ** 2)  # top at y = -25, 30 m
    road = line((-31, -10, 24.0), (31, -10, 24.0))  # along row 80 at 24 m: cut into the upper side
    out = carve_curve(
        hill, road, cell_size=cell, mode="road", width=6.0, shoulder=1.0, cut_angle=40.0, fill_angle=25.0, reach=12.0
    )
    row = int(np.flatnonzero(y == -10.0)[0])
    d = np.abs(y + 10.0)
    level = d <= 4.0  # width / 2 + shoulder
    assert (out[level] == 24.0).all()
    col = int(np.flatnonzero(x == 0.0)[0])  # hill at y = -10: 30 - 0.9 = 29.1 m, above the bed: a cut
    assert hill[row, col] > 24.0
    cut = [r for r in range(n) if 4.0 < d[r] <= 16.0 and out[r, col] < hill[r, col] and y[r] < -10.0]
    slopes = np.diff(out[cut, col]) / cell
    assert len(cut) > 4
    angle = np.degrees(np.arctan(np.abs(slopes)))
    assert np.allclose(angle, 40.0, atol=1e-9)  # measured between cells inside the cut: exactly the setting
    far = int(np.flatnonzero(x == 28.0)[0])  # out west at x = 28 the hill is lower: 30 - 0.004 (784 + 225) ≈ 26
    low = line((-31, -10, 29.0), (31, -10, 29.0))  # a road above the terrain: filled
    filled = carve_curve(
        hill, low, cell_size=cell, mode="road", width=6.0, shoulder=1.0, cut_angle=40.0, fill_angle=25.0, reach=12.0
    )
    fills = [r for r in range(n) if 4.0 < d[r] <= 16.0 and filled[r, far] > hill[r, far]]
    assert len(fills) > 4 and (filled[level] == 29.0).all()
    rising = np.diff(filled[fills, far]) / cell
    north_side = [i for i in range(len(fills) - 1) if y[fills[i]] > -10.0 and fills[i + 1] == fills[i] + 1]
    assert north_side
    assert np.allclose(np.degrees(np.arctan(np.abs(rising[north_side]))), 25.0, atol=1e-9)
    beyond = d > 16.0 + 1e-9
    assert (out[beyond] == hill[beyond]).all() and (filled[beyond] == hill[beyond]).all()


def test_road_smoothing_keeps_a_level_curve_level_and_evens_a_step():
    h = np.zeros((41, 41))
    level = carve_curve(h, line((-25, 0, 5), (25, 0, 5)), cell_size=1.0, mode="road", width=4.0, smoothing=5.0)
    assert np.allclose(level[20], 5.0, atol=1e-12)
    step = inputs.CurveInput((np.array([[-25, 0, 0], [0, 0, 0], [0.001, 0, 10], [25, 0, 10]], dtype=float),))
    rough = carve_curve(h, step, cell_size=1.0, mode="road", width=4.0)
    smooth = carve_curve(h, step, cell_size=1.0, mode="road", width=4.0, smoothing=5.0)
    assert np.abs(np.diff(rough[20])).max() > 9.0 > 3.0 > np.abs(np.diff(smooth[20])).max()


def test_several_splines_carve_nearest_first():
    h = np.full((21, 21), 5.0)
    two = inputs.CurveInput((np.array([[-12, 4, 0], [12, 4, 0.0]]), np.array([[-12, -4, 0], [12, -4, 0.0]])))
    out = carve_curve(h, two, cell_size=1.0, width=2.0, depth=1.0, bank=1.0)
    assert out[6, 0] == out[14, 0] == 4.0 and out[10, 0] == 5.0


# --- the filter in a spec: inputs, windows, maps, errors ---------------------------------------------------------


def carve_spec(**params):
    return core.TerrainSpec(size=65, seed=3, width=64.0, height=20.0, filters=(("carve", {"curve": "Path", **params}),))


CURVE = inputs.CurveInput(
    (np.array([[-30.0, -20.0, 8.0], [-5.0, 0.0, 9.0], [10.0, 5.0, 10.0], [31.0, 25.0, 12.0]]),), name="Path"
)


@pytest.mark.parametrize("params", [{"mode": "river"}, {"mode": "river", "bed": "curve"}, {"mode": "road"}])
def test_windows_equal_the_whole(params):
    recipe = carve_spec(**params).recipe()
    margin = recipe.margin()
    assert (margin >= 65) == (params == {"mode": "river"})  # a river on the terrain is global, the rest read 0
    with inputs.using({("curve", "Path"): CURVE}):
        whole, ranges = recipe.evaluate(), recipe.world_ranges()
        plain = core.TerrainSpec(size=65, seed=3, width=64.0, height=20.0, filters=()).recipe().evaluate()
        assert np.isfinite(whole).all() and not np.array_equal(whole, plain)
        for win in (Window(0, 0, 20, 65), Window(30, 10, 35, 40), Window(64, 0, 1, 65), Window(5, 50, 7, 15)):
            part = recipe.evaluate(win, ranges)
            assert np.array_equal(part, whole[win.row : win.row + win.rows, win.col : win.col + win.cols])


def test_the_road_bed_is_at_the_curves_height_in_metres_and_maps_say_cut_and_fill():
    spec = carve_spec(mode="road", width=4.0, shoulder=0.5, reach=10.0)
    with inputs.using({("curve", "Path"): CURVE}):
        h, maps = spec.recipe().evaluate_with_maps()
    x, y = inputs.grid_xy(h.shape, spec.width / (spec.size - 1))
    d, _, along = nearest_on_curve(x, y, CURVE, reach=3.0)
    points = CURVE.splines[0]
    arc = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(points[:, :2], axis=0).T))])
    z = np.interp(along, arc, points[:, 2])  # the curve's height at the nearest point
    on = d <= 2.0
    assert on.sum() > 100
    assert np.allclose(h[on].astype(np.float64) * spec.height, z[on], atol=2e-5)
    assert set(maps) == {"removed", "deposited"}
    before = core.TerrainSpec(size=65, seed=3, width=64.0, height=20.0, filters=()).recipe().evaluate()
    change = (h.astype(np.float64) - before) * spec.height
    assert np.allclose(maps["deposited"] - maps["removed"], change, atol=1e-4)
    assert maps["removed"].max() > 0.5 and maps["deposited"].max() > 0.5 and maps["removed"].min() == 0.0


def test_a_missing_or_unnamed_curve_is_named():
    with pytest.raises(ValueError, match=r"carve\.curve: no curve 'Path' was given"):
        carve_spec().recipe().evaluate()
    with pytest.raises(ValueError, match=r"carve\.curve: names no object"):
        core.TerrainSpec(size=33, filters=(("carve", {}),)).recipe().evaluate()
    assert carve_spec().objects() == [("carve.curve", "curve", "Path")]


def test_bad_settings_name_the_setting():
    with pytest.raises(ValueError, match=r"carve\.width must be in"):
        carve_spec(width=0.0)
    with pytest.raises(ValueError, match=r"carve\.cut_angle must be in \[0\.0, 89\.0\]"):
        carve_spec(cut_angle=90.0)
    with pytest.raises(ValueError, match=r"carve\.mode must be one of river, road"):
        carve_spec(mode="canal")


def test_no_nan_from_degenerate_curves_or_a_flat_terrain():
    dup = inputs.CurveInput((np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]),), name="Path")
    far = inputs.CurveInput((np.array([[1e6, 1e6, 0.0], [1e6 + 1, 1e6, 0.0]]),), name="Path")
    for curve in (dup, far):
        for mode in ("river", "road"):
            with inputs.using({("curve", "Path"): curve}):
                h = carve_spec(mode=mode, bank=0.0).recipe().evaluate()
            assert np.isfinite(h).all()
    flat = core.TerrainSpec(size=17, height=0.0, filters=(("carve", {"curve": "Path"}),))
    with inputs.using({("curve", "Path"): CURVE}):
        assert np.isfinite(flat.recipe().evaluate()).all()


def test_the_carve_is_deterministic_and_follows_the_curve():
    spec = carve_spec(mode="river", width=6.0, depth=3.0)
    with inputs.using({("curve", "Path"): CURVE}):
        a = spec.recipe().evaluate()
        b = spec.recipe().evaluate()
    moved = inputs.CurveInput((CURVE.splines[0] + [0.0, 6.0, 0.0],), name="Path")
    with inputs.using({("curve", "Path"): moved}):
        c = spec.recipe().evaluate()
    assert a.tobytes() == b.tobytes() and not np.array_equal(a, c)


# --- worlds of tiles (core.world): a road's tiles are local, a river on the terrain is a global filter ------------


def test_tiles_of_a_world_equal_the_whole_for_a_road_and_for_a_river_built_whole():
    from core.world import (
        TileGrid,
        check_world,
        coarse_block,
        coarse_filters,
        coarse_plan,
        combine_ranges,
        filtered_range,
        global_heights,
        raw_range,
        tile_heights,
        world_recipe,
    )

    grid = TileGrid((65, 65), 17)
    with inputs.using({("curve", "Path"): CURVE}):
        road = world_recipe(carve_spec(mode="road").replace(size=17, width=16.0), (65, 65))
        assert check_world(road, grid) is False  # no global filter: tile by tile
        whole = road.evaluate()
        world_raw = combine_ranges(raw_range(road, grid.window(*t)) for t in grid.indices())
        ranges = (world_raw, combine_ranges(filtered_range(road, grid.window(*t), world_raw) for t in grid.indices()))
        assert not np.array_equal(
            whole,
            world_recipe(core.TerrainSpec(size=17, width=16.0, seed=3, height=20.0, filters=()), (65, 65)).evaluate(),
        )
        for t in grid.indices():
            w = grid.window(*t)
            assert np.array_equal(tile_heights(road, w, ranges), whole[w.row : w.row + w.rows, w.col : w.col + w.cols])
        river = world_recipe(carve_spec(mode="river").replace(size=17, width=16.0), (65, 65))
        assert check_world(river, grid) is True  # global: the world is built whole, at full resolution here
        plan = coarse_plan(river, grid)
        assert plan is not None and plan.factor == 1
        raw = river.world_ranges()[0]
        detail = coarse_filters(plan, coarse_block(plan, Window(0, 0, 65, 65), raw))
        whole = river.evaluate()
        for t in grid.indices():
            w = grid.window(*t)
            assert np.array_equal(
                global_heights(plan, w, raw, detail=detail), whole[w.row : w.row + w.rows, w.col : w.col + w.cols]
            )


@pytest.mark.parametrize("mode", ["river", "road"])
def test_the_memory_guard_holds_the_carves_peak(mode):
    """Every cell within reach (the worst case): the declared bytes a cell are what tracemalloc measures."""
    import tracemalloc

    curve = inputs.CurveInput((np.array([[-200.0, -100.0, 5.0], [0.0, 0.0, 8.0], [200.0, 150.0, 6.0]]),), name="P")
    wide = {"curve": "P", "mode": mode, "width": 400.0, "bank": 100.0, "reach": 200.0}
    spec = core.TerrainSpec(size=257, width=400.0, height=20.0, filters=(("carve", wide),))
    estimate = spec.recipe().peak_bytes()
    with inputs.using({("curve", "P"): curve}):
        tracemalloc.start()
        try:
            spec.heightmap()
            measured = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert 0.75 * estimate <= measured <= 1.25 * estimate


def test_a_curve_out_of_all_proportion_is_refused_by_name():
    with pytest.raises(ValueError, match=r"curve 'Path' spline 0: reaches 1e\+200 m"):  # refused as an input
        inputs.CurveInput((np.array([[0.0, 0.0, 0.0], [1e200, 1e200, 0.0]]),), name="Path")


@pytest.mark.parametrize(
    ("params", "digest"),
    [
        ({"mode": "river"}, "d2561927ba7c299e"),
        ({"mode": "river", "bed": "curve", "profile": "trapezoid"}, "b0916f735277f39d"),
        ({"mode": "road", "smoothing": 7.0, "cut_angle": 50.0}, "34a74f3ac9dd32ba"),
    ],
)
def test_golden_carves_are_the_same_bytes_on_every_numpy(params, digest):
    """Taken when the filter was written (numpy 1.26 and 2.x agree); a change of these bytes is a new spec version."""
    import hashlib

    with inputs.using({("curve", "Path"): CURVE}):
        h = carve_spec(**params).recipe().evaluate()
    assert hashlib.sha256(h.tobytes()).hexdigest()[:16] == digest


def test_a_curve_finer_than_the_grid_is_thinned_and_carves_the_same():
    t = np.linspace(0.0, 1.0, 20001)[:, None]
    dense = (1.0 - t) * np.array([-25.0, -10.0, 8.0]) + t * np.array([25.0, 12.0, 3.0])
    kept = thin(dense, 0.25)
    assert kept[0].tolist() == dense[0].tolist() and kept[-1].tolist() == dense[-1].tolist()
    assert 200 <= len(kept) <= 260  # ~56 m of 3D arc in quarter-metre steps, not 20001 points
    h = np.zeros((41, 41))
    sparse = carve_curve(h, line(dense[0], dense[-1]), cell_size=1.0, mode="road", width=4.0, reach=6.0)
    fine = carve_curve(h, line(*dense), cell_size=1.0, mode="road", width=4.0, reach=6.0)
    assert np.abs(fine - sparse).max() < 1e-9  # a straight line thinned is the same line
    step = np.array([[-25, 0, 0], [0, 0, 0], [0.001, 0, 10], [25, 0, 10]], dtype=float)
    assert len(thin(step, 0.25)) == 4  # a step in height is kept
