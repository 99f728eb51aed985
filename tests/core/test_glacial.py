"""Glacial erosion (core.erosion.glacial and the glacial filter): values and invariants."""

import numpy as np
import pytest

from core.erosion.glacial import IceGrid, glacial_erosion
from core.glacial import ICE_CELL
from core.recipe import MAP_NAMES, Recipe

CELL = 100.0
#: Most share by which a valley's eroded volume on a 2x coarser ice grid differs from the terrain grid's.
VOLUME_TOLERANCE = 0.4


def trough(n=33, cols=33):
    """A V-shaped valley tilted from 2400 m (north) down 0.15 per metre, sides rising 0.5 to 400 m above it."""
    y, x = np.mgrid[0:n, 0:cols] * CELL
    return 2400.0 - 0.15 * y + np.minimum(0.5 * np.abs(x - (cols - 1) / 2 * CELL), 400.0)


def test_below_the_ela_there_is_no_ice_and_no_change():
    z = trough()
    r = glacial_erosion(z, CELL, ela=3000.0, steps=5, dt=1000.0)
    assert r.ice_thickness.max() == 0.0 and r.eroded.max() == 0.0
    assert np.array_equal(r.heights, z.astype(np.float32))
    assert r.accumulated == 0.0 and r.melted == 0.0 and r.lost_volume == 0.0


def test_the_first_step_grows_ice_only_above_the_ela():
    z = trough()
    r = glacial_erosion(z, CELL, ela=2200.0, steps=1, dt=1.0, max_substeps=1)
    assert r.ice_thickness.max() > 0.0
    assert np.array_equal(r.ice_thickness > 0.0, z > 2200.0)


def test_ice_volume_balances_accumulation_melt_and_edge_loss():
    r = glacial_erosion(trough(), CELL, ela=2000.0, steps=20, dt=500.0, max_substeps=40)
    volume = float(r.ice_thickness.astype(np.float64).sum()) * CELL * CELL
    budget = r.accumulated - r.melted - r.lost_volume
    assert r.melted > 0.0 and r.lost_volume >= 0.0
    assert abs(budget - volume) <= 1e-4 * r.accumulated  # the float32 rounding of the final thickness
    assert r.ice_thickness.min() >= 0.0


def test_the_ice_erodes_under_the_glacier_only_and_is_deterministic():
    z = trough()
    a = glacial_erosion(z, CELL, ela=2000.0, steps=10, dt=2000.0, max_substeps=30)
    b = glacial_erosion(z, CELL, ela=2000.0, steps=10, dt=2000.0, max_substeps=30)
    for name in ("heights", "ice_thickness", "eroded", "sliding_speed"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.eroded.max() > 0.0
    assert (a.eroded[a.ice_thickness == 0.0] == 0.0).all()
    assert np.allclose(a.heights, z - a.eroded, atol=1e-3)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("balance_gradient", -0.005),
        ("balance_gradient", 0.0),
        ("max_accumulation", -1.0),
        ("dt", 0.0),
        ("sliding", -1.0),
        ("erosion_constant", -1e-4),
        ("coupling_length", -1.0),
        ("flow_factor", -1.0),
        ("ela", float("nan")),
    ],
)
def test_bad_input_is_refused_naming_the_parameter(name, value):
    with pytest.raises(ValueError, match=name):
        glacial_erosion(trough(), CELL, **{"ela": 2000.0, "steps": 1, name: value})


def test_the_filter_bakes_ice_thickness_and_removed_without_changing_other_maps():
    stack = (("glacial", {"ela": 500.0, "steps": 3, "dt": 1000.0, "max_substeps": 10}),)
    r = Recipe("fractal", 5, (33, 40), {}, stack, cell_size=50.0, height=800.0)
    h, maps = r.evaluate_with_maps()
    assert np.array_equal(h, r.evaluate())
    assert set(maps) == {"ice_thickness", "deposited", "removed"} <= set(MAP_NAMES)
    assert maps["ice_thickness"].max() > 0.0 and maps["deposited"].max() == 0.0
    assert maps["removed"].min() >= 0.0


def power_exponent(profile, half):
    """The exponent b of the cross profile z - z_floor ~ |x|^b (least squares in logs, both sides averaged)."""
    c = len(profile) // 2
    d = np.arange(1, half + 1) * CELL
    rise = 0.5 * (profile[c + 1 : c + 1 + half] + profile[c - half : c][::-1]) - profile[c]
    return float(np.polyfit(np.log(d), np.log(np.maximum(rise, 1e-6)), 1)[0])


def test_a_v_shaped_valley_becomes_u_shaped():
    z = trough(41, 41)
    r = glacial_erosion(z, CELL, ela=2000.0, steps=60, dt=3000.0, max_substeps=30)
    h = r.heights.astype(np.float64)
    for row in (10, 20):
        assert r.ice_thickness[row, 20] > 100.0
        before, after = power_exponent(z[row], 8), power_exponent(h[row], 8)
        assert abs(before - 1.0) < 1e-9
        assert after > 1.15, (row, after)  # from a V (b = 1) towards a U (b = 2)


def test_a_tributary_is_left_hanging_above_its_trunk():
    y, x = np.mgrid[0:41, 0:41] * CELL
    axis, junction = 14 * CELL, 20 * CELL
    trunk = 2400.0 - 0.15 * y + np.minimum(0.5 * np.abs(x - axis), 400.0)
    tributary = 2400.0 - 0.15 * junction + 0.1 * (x - axis) + np.minimum(0.5 * np.abs(y - junction), 100.0)
    z = np.where(x >= axis, np.minimum(trunk, tributary), trunk)
    r = glacial_erosion(z, CELL, ela=2000.0, steps=60, dt=3000.0, max_substeps=30, coupling_length=300.0)
    h = r.heights.astype(np.float64)
    step_before = z[14:27, 18].min() - z[16:25, 14].min()
    step_after = h[14:27, 18].min() - h[16:25, 14].min()
    assert r.eroded[16:25, 14].max() > 2.0 * r.eroded[20, 18]
    assert step_after > step_before + 30.0, (step_before, step_after)


def test_a_callback_returning_false_cancels_with_the_steps_done():
    from core.progress import Cancelled

    calls = []
    with pytest.raises(Cancelled) as err:
        glacial_erosion(trough(), CELL, ela=2000.0, steps=5, callback=lambda d, t: calls.append((d, t)) or d < 2)
    assert calls == [(1, 5), (2, 5)] and err.value.done == 2 and err.value.result.steps_done == 2


def test_the_filter_is_the_function_at_the_terrains_scale():
    stack = (("glacial", {"ela": 500.0, "steps": 2, "dt": 1000.0, "max_substeps": 5}),)
    base = Recipe("fractal", 5, (33, 40), {}, (), cell_size=50.0, height=800.0, fit_height=False).evaluate()
    h = Recipe("fractal", 5, (33, 40), {}, stack, cell_size=50.0, height=800.0, fit_height=False).evaluate()
    r = glacial_erosion(
        base.astype(np.float64) * 800.0, 50.0, ela=500.0, steps=2, dt=1000.0, max_substeps=5, ice_cell=ICE_CELL
    )
    assert r.ice_cell == ICE_CELL and r.ice_shape == (9, 10)  # 33 x 40 cells of 50 m under 200 m ice cells
    assert np.array_equal(h, (r.heights / np.float32(800.0)).astype(np.float32))


# --- the ice grid (ice_cell) ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("ice_cell", [0.5 * CELL, CELL])
def test_an_ice_cell_no_coarser_than_the_terrains_is_the_terrains_grid_bit_for_bit(ice_cell):
    z = trough()
    a = glacial_erosion(z, CELL, ela=2000.0, steps=4, dt=2000.0, max_substeps=20)
    b = glacial_erosion(z, CELL, ela=2000.0, steps=4, dt=2000.0, max_substeps=20, ice_cell=ice_cell)
    assert b.ice_cell == CELL and b.ice_shape == z.shape
    for name in ("heights", "ice_thickness", "eroded", "sliding_speed"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.ice_volume == b.ice_volume and a.substeps == b.substeps


def test_the_ice_grid_averages_by_area_for_any_ratio_and_comes_back_bilinearly():
    # 10 x 8 cells of 1 m under cells of 2.5 m: 4 x 4 of them, overhanging the 8 columns by 1 m each side
    grid = IceGrid.fit((10, 8), 1.0, 2.5)
    assert grid.coarse and grid.shape == (4, 4) and grid.cell == 2.5
    z = np.tile(np.arange(8.0) ** 2, (10, 1))
    down = grid.down(z)
    # columns [-1, 1.5), [1.5, 4), [4, 6.5), [6.5, 9): the overlaps, what is outside the map counting nothing
    expected = [0.5 * 1 / 1.5, (0.5 * 1 + 4 + 9) / 2.5, (16 + 25 + 0.5 * 36) / 2.5, (0.5 * 36 + 49) / 1.5]
    assert np.allclose(down, np.tile(expected, (4, 1)), rtol=0, atol=1e-12)
    assert np.allclose(grid.down(np.full((10, 8), 3.0)), 3.0, rtol=0, atol=1e-12)
    # the ice cells' centres at 0.25, 2.75, 5.25, 7.75 m; the terrain's at 0.5 ... 7.5 m
    up = grid.up(np.tile([0.25, 2.75, 5.25, 7.75], (4, 1)))
    assert up.shape == (10, 8) and np.allclose(up, np.tile(np.arange(8) + 0.5, (10, 1)), rtol=0, atol=1e-12)
    assert np.allclose(grid.up(np.full((4, 4), 2.0)), 2.0, rtol=0, atol=1e-12)
    # capped to keep 3 ice cells across the narrower side
    assert IceGrid.fit((9, 30), 1.0, 10.0).shape == (3, 10)


def test_a_coarser_ice_grid_erodes_a_valley_like_the_terrains_grid():
    z = trough(41, 41)
    fine = glacial_erosion(z, CELL, ela=2000.0, steps=60, dt=3000.0, max_substeps=30)
    coarse = glacial_erosion(z, CELL, ela=2000.0, steps=60, dt=3000.0, max_substeps=30, ice_cell=2.0 * CELL)
    assert coarse.ice_shape == (21, 21) and coarse.ice_thickness.shape == z.shape == coarse.eroded.shape
    a, b = fine.eroded.astype(np.float64), coarse.eroded.astype(np.float64)
    assert abs(b.sum() / a.sum() - 1.0) < VOLUME_TOLERANCE, b.sum() / a.sum()
    assert np.corrcoef(a.ravel(), b.ravel())[0, 1] > 0.8
    for row in (10, 20):
        assert abs(b[row, 20] / a[row, 20] - 1.0) < 0.2, (row, a[row, 20], b[row, 20])
        assert coarse.ice_thickness[row, 20] > 100.0
        assert power_exponent(coarse.heights[row].astype(np.float64), 8) > 1.1  # towards a U
    assert (b[coarse.ice_thickness == 0.0] == 0.0).all()


def test_the_same_valley_at_two_resolutions_gets_the_same_glaciers_on_one_ice_grid():
    runs = []
    for cell in (CELL, 0.5 * CELL):
        n = int(round(40 * CELL / cell)) + 1
        y, x = np.mgrid[0:n, 0:n] * cell
        z = 2400.0 - 0.15 * y + np.minimum(0.5 * np.abs(x - 20 * CELL), 400.0)
        r = glacial_erosion(z, cell, ela=2000.0, steps=60, dt=3000.0, max_substeps=30, ice_cell=2.0 * CELL)
        step = int(round(CELL / cell))
        runs.append((r, r.eroded[::step, ::step].astype(np.float64)))
    (a, ea), (b, eb) = runs
    assert a.ice_shape == b.ice_shape == (21, 21)
    assert np.corrcoef(ea.ravel(), eb.ravel())[0, 1] > 0.999
    assert abs(eb.max() / ea.max() - 1.0) < 0.01
    assert abs(b.ice_volume / a.ice_volume - 1.0) < 0.01


def test_the_work_estimate_counts_the_ice_grids_share_of_the_cells():
    from core.erosion.glacial import glacial_passes
    from core.params import FILTERS

    assert glacial_passes(100, 30) == glacial_passes(100, 30, cell_size=50.0, ice_cell=40.0) == 100 * (30 * 40 + 20)
    # 50 m cells under 200 m ice cells: the ice on 1/16 of the cells at 8x the speed, 10 passes a step (75 / 8
    # rounded up), and 1 on the terrain's grid
    assert glacial_passes(100, 30, cell_size=50.0, ice_cell=200.0) == 100 * (10 + 1)
    declared = FILTERS["glacial"].passes({"steps": 100, "max_substeps": 30, "cell_size": 50.0})
    assert declared == glacial_passes(100, 30, cell_size=50.0, ice_cell=ICE_CELL)
    grid = IceGrid.fit((257, 257), 50.0, 200.0)
    assert grid.passes(30) == int(np.ceil(1200 * 65 * 65 / 257**2 / 8)) + 1  # 65 x 65 ice cells over 257 x 257
