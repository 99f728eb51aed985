"""Hydraulic erosion: conservation, water budget, gullies on a tilted plane, bounds, determinism."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core.erosion.hydraulic import hydraulic_erosion, max_time_step
from core.progress import Cancelled
from core.recipe import Recipe

ROOT = Path(__file__).resolve().parents[2]


def rough(n=48, seed=3, relief=30.0):
    return Recipe("diamond_square", seed, (n, n), version=2).evaluate().astype(np.float64) * relief


def tilted_plane(n=64, seed=5, slope=0.3, noise=0.2):
    """A plane falling to the south (row n - 1) at ``slope`` m/m, roughened by ``noise`` metres."""
    rows = np.arange(n, dtype=np.float64)[:, None] * np.ones((1, n))
    return (n - rows) * slope + core.white_noise((n, n), seed) * noise


def material_error(before, r, cell):
    """|removed - deposited - suspended - lost| relative to the material above the lowest input height."""
    total = float((before - before.min()).sum())
    balance = (
        r.removed.astype(np.float64).sum()
        - r.deposited.astype(np.float64).sum()
        - r.sediment.astype(np.float64).sum()
        - r.lost_volume / cell**2
    )
    return abs(balance) / total


@pytest.mark.parametrize(("edges", "settle"), [("closed", True), ("closed", False), ("open", True), ("open", False)])
def test_terrain_and_sediment_are_conserved(edges, settle):
    h = rough() + 300.0
    r = hydraulic_erosion(h, cell_size=2.0, steps=120, edges=edges, settle=settle)
    assert material_error(h, r, 2.0) < 1e-6
    assert r.removed.max() > 0.1  # it eroded a real amount
    if settle:
        assert r.sediment.max() == 0.0
    else:
        assert r.sediment.sum() > 0.0
    if edges == "closed":
        assert r.lost_volume == 0.0
    assert (r.water >= 0).all() and (r.sediment >= 0).all()


def test_open_edges_carry_sediment_and_water_out():
    h = tilted_plane()
    closed = hydraulic_erosion(h, steps=150)
    opened = hydraulic_erosion(h, steps=150, edges="open")
    assert opened.lost_volume > 0.0
    assert opened.water.sum() < 0.5 * closed.water.sum()
    assert material_error(h, opened, 1.0) < 1e-6


def test_a_closed_box_keeps_every_drop_of_rain():
    h = rough(40)
    steps, dt, rain = 80, 0.05, 0.03
    r = hydraulic_erosion(h, steps=steps, time_step=dt, rain_rate=rain, evaporation_rate=0.0)
    expected = steps * rain * dt * h.size
    assert r.water.astype(np.float64).sum() == pytest.approx(expected, rel=1e-5)
    assert r.water.max() > 3 * steps * rain * dt  # it gathered in the hollows


def test_still_water_on_a_flat_neither_erodes_nor_moves():
    flat = np.full((12, 9), 7.0)
    steps, dt, rain, ke = 30, 0.04, 0.01, 0.5
    r = hydraulic_erosion(flat, steps=steps, time_step=dt, rain_rate=rain, evaporation_rate=ke)
    np.testing.assert_array_equal(r.heights, flat.astype(np.float32))
    depth = 0.0
    for _ in range(steps):
        depth = (depth + rain * dt) * math.exp(-ke * dt)
    np.testing.assert_allclose(r.water, depth, rtol=1e-5)


def test_rain_on_a_tilted_plane_carves_along_the_slope_and_deposits_at_the_foot():
    n = 64
    h = tilted_plane(n)
    r = hydraulic_erosion(h, steps=150)
    rows = np.arange(n)[:, None] * np.ones((1, n))
    removed, deposited = r.removed.astype(np.float64), r.deposited.astype(np.float64)

    def centre(m):
        return (rows * m).sum() / m.sum()

    assert centre(deposited) > centre(removed) + n / 8  # the deposit's centre lies downhill (south)
    assert deposited[-n // 8 :].sum() > 0.4 * deposited.sum()  # much of it in the lowest eighth, at the foot
    assert material_error(h, r, 1.0) < 1e-6


def test_water_gathers_in_troughs_and_cuts_them_deeper_than_the_ridges():
    # A plane with shallow furrows along the slope: the water runs in the furrows and erodes there.
    n = 64
    rr, cc = np.mgrid[0:n, 0:n].astype(np.float64)
    furrows = np.cos(2 * np.pi * cc / 16)
    h = (n - rr) * 0.3 + 0.2 * furrows + core.white_noise((n, n), 5) * 0.01
    r = hydraulic_erosion(h, steps=300)
    band = slice(n // 4, 3 * n // 4)
    trough, crest = furrows[band] < -0.7, furrows[band] > 0.7
    assert r.removed[band][trough].mean() > 1.5 * r.removed[band][crest].mean()
    assert r.water[band][trough].mean() > 3 * r.water[band][crest].mean()


def test_zero_steps_and_callback():
    h = rough(16)
    r = hydraulic_erosion(h, steps=0)
    np.testing.assert_array_equal(r.heights, h.astype(np.float32))
    assert r.steps_done == 0 and r.water.max() == 0
    seen = []
    hydraulic_erosion(h, steps=5, callback=lambda i, n: seen.append((i, n)))
    assert seen == [(i, 5) for i in range(1, 6)]
    with pytest.raises(Cancelled, match="after step 7 of 20") as stop:
        hydraulic_erosion(h, steps=20, callback=lambda i, n: i < 7)
    stopped = stop.value.result
    assert (stop.value.done, stop.value.total) == (7, 20) and stopped.steps_done == 7
    assert np.array_equal(stopped.heights, hydraulic_erosion(h, steps=7).heights)


def test_halving_the_time_step_gives_nearly_the_same_water():
    # Rates are per second: the same simulated time in twice the steps keeps the water budget.
    h = rough(32)
    a = hydraulic_erosion(h, steps=40, time_step=0.06)
    b = hydraulic_erosion(h, steps=80, time_step=0.03)
    assert b.water.sum() == pytest.approx(a.water.sum(), rel=0.02)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.integers(1, 10),
    cols=st.integers(1, 10),
    seed=st.integers(0, 2**31),
    scale=st.sampled_from([0.0, 1e-3, 1.0, 100.0, 1e9]),
    cell=st.sampled_from([0.01, 0.3, 1.0, 50.0, 1e4]),
    dt_share=st.floats(1e-6, 1.0),
    gravity=st.sampled_from([0.1, 9.81, 100.0]),
    rain=st.sampled_from([0.0, 1e-4, 0.02, 10.0]),
    capacity=st.sampled_from([0.0, 0.02, 100.0]),
    ks=st.sampled_from([0.0, 2.0, 1e4]),
    kd=st.sampled_from([0.0, 2.0, 1e4]),
    ke=st.sampled_from([0.0, 0.2, 1e4]),
    min_tilt=st.sampled_from([0.0, 1.0, 90.0]),
    depth_scale=st.sampled_from([0.0, 0.2, 1e4]),
    edges=st.sampled_from(["closed", "open"]),
    settle=st.booleans(),
    steps=st.integers(0, 25),
)
def test_any_parameters_in_bounds_give_finite_non_negative_conserving_results(
    rows,
    cols,
    seed,
    scale,
    cell,
    dt_share,
    gravity,
    rain,
    capacity,
    ks,
    kd,
    ke,
    min_tilt,
    depth_scale,
    edges,
    settle,
    steps,
):
    h = core.white_noise((rows, cols), seed) * scale
    r = hydraulic_erosion(
        h,
        cell_size=cell,
        steps=steps,
        time_step=dt_share * max_time_step(cell, gravity),
        rain_rate=rain,
        capacity=capacity,
        dissolve_rate=ks,
        deposit_rate=kd,
        evaporation_rate=ke,
        min_tilt=min_tilt,
        gravity=gravity,
        depth_scale=depth_scale,
        edges=edges,
        settle=settle,
    )
    for a in (r.heights, r.deposited, r.removed, r.water, r.sediment):
        assert a.dtype == np.float32 and a.shape == (rows, cols) and np.isfinite(a).all()
    assert (r.water >= 0).all() and (r.sediment >= 0).all()
    assert math.isfinite(r.lost_volume) and r.lost_volume >= 0
    balance = (
        r.removed.astype(np.float64).sum()
        - r.deposited.astype(np.float64).sum()
        - r.sediment.astype(np.float64).sum()
        - r.lost_volume / cell**2
    )
    # float32 outputs round each cell to 6e-8 of its height (or of what moved); the float64 state rounds to
    # 1e-16 of the gross exchange, which can dwarf a net change that nearly cancels (2 cells at 0 m, 1e-28 m net)
    scale_of_rounding = float(np.abs(h).sum() + r.removed.sum() + r.deposited.sum() + r.sediment.sum())
    assert abs(balance) <= (1e-6 * float((h - h.min()).sum()) + 1e-7 * scale_of_rounding + 1e-12 * r.exchanged + 1e-30)


def test_time_step_bound_follows_the_cell_size():
    assert max_time_step(1.0) == pytest.approx(0.5 / math.sqrt(9.81))
    assert max_time_step(0.1) == pytest.approx(0.5 * math.sqrt(0.1 / 9.81))
    with pytest.raises(ValueError, match=r"time_step must be in \(0.0, 0.159"):
        hydraulic_erosion(np.zeros((4, 4)), time_step=0.2)
    hydraulic_erosion(np.zeros((4, 4)), cell_size=4.0, time_step=0.2, steps=2)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"cell_size": 0.0}, ValueError, r"cell_size must be in \[0.01, 10000.0\]"),
        ({"time_step": 0.0}, ValueError, "time_step"),
        ({"rain_rate": -1.0}, ValueError, r"rain_rate must be in \[0.0, 10.0\]"),
        ({"capacity": 101.0}, ValueError, r"capacity must be in \[0.0, 100.0\]"),
        ({"dissolve_rate": -0.1}, ValueError, "dissolve_rate"),
        ({"deposit_rate": 2e4}, ValueError, "deposit_rate"),
        ({"evaporation_rate": float("nan")}, ValueError, "evaporation_rate must be finite"),
        ({"min_tilt": 91.0}, ValueError, r"min_tilt must be in \[0.0, 90.0\]"),
        ({"gravity": 0.0}, ValueError, r"gravity must be in \[0.1, 100.0\]"),
        ({"depth_scale": -1.0}, ValueError, "depth_scale"),
        ({"steps": -1}, ValueError, r"steps must be in \[0, 100000\]"),
        ({"steps": 1.0}, TypeError, "steps must be an integer"),
        ({"edges": "periodic"}, ValueError, "edges must be one of"),
        ({"settle": 1}, TypeError, "settle must be a bool"),
        ({"callback": "x"}, TypeError, "callback must be callable"),
        ({"heightmap": np.full((3, 3), -2e9)}, ValueError, "within"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    kwargs = {"heightmap": np.zeros((8, 8)), **kwargs}
    with pytest.raises(error, match=match):
        hydraulic_erosion(**kwargs)


def test_work_bound_names_the_largest_steps_for_the_size(monkeypatch):
    from core.work import limit_work

    monkeypatch.setenv("OROGEN_WORK_LIMIT", "1min")  # 3.6e9 cell passes of 6 a cell and step
    with pytest.raises(ValueError, match=r"steps must be in \[0, 571\] at this size"):
        hydraulic_erosion(np.zeros((1025, 1025), np.float32), steps=572)
    most = limit_work(257 * 257) // (257 * 257 * 6)  # 11 979: a small map does more passes a second
    with pytest.raises(ValueError, match=rf"steps: {most + 1} over 257 x 257 cells: .* steps must be in \[0, {most}\]"):
        hydraulic_erosion(np.zeros((257, 257), np.float32), steps=most + 1)


CHILD = r"""
import hashlib, json, random
import numpy as np
random.seed(1); np.random.seed(2)
from core.recipe import Recipe
from core.erosion.hydraulic import hydraulic_erosion
def digest(a):
    a = np.ascontiguousarray(a)
    return f"{a.dtype}{a.shape}:" + hashlib.sha256(a.tobytes()).hexdigest()[:24]
h = Recipe("diamond_square", 4, (45, 61), version=2).evaluate().astype(np.float64) * 30.0
closed = hydraulic_erosion(h, cell_size=0.75, steps=60, bounded=False)  # spec version 3's unbounded exchange
opened = hydraulic_erosion(h, cell_size=1.5, steps=40, edges="open", settle=False, depth_scale=0.0, bounded=False)
print(json.dumps({"closed": [digest(closed.heights), digest(closed.water), digest(closed.deposited)],
                  "open": [digest(opened.heights), digest(opened.sediment), opened.lost_volume.hex()]}))
"""

GOLDEN = {
    "closed": [
        "float32(45, 61):0b07c138937fd7011379b9ae",
        "float32(45, 61):6f403f1512ec3a3bf8f037e0",
        "float32(45, 61):a08def3357c27456b5f2b93f",
    ],
    "open": [
        "float32(45, 61):3ed2c1433f00f1735aa4614c",
        "float32(45, 61):d7b467fba5356f5e83dc8709",
        "0x1.ce110214df878p+7",
    ],
}


def test_golden_hashes_in_a_fresh_process():
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == GOLDEN


def test_sediment_piled_far_above_the_start_is_warned_of_and_ordinary_runs_are_quiet():
    """At the corner of its bounds where water evaporates before it can drop its load and never deposits, the
    sediment it carried settles in piles far above any starting height: the result says so by a warning naming
    the settings, while an ordinary run stays inside its starting range and says nothing."""
    import warnings

    z = (np.random.default_rng(3).random((65, 65)) * 20.0).astype(np.float32)
    with pytest.warns(core.PiledSedimentWarning, match=r"capacity 100, deposit_rate 0, evaporation_rate 10000"):
        r = core.hydraulic_erosion(
            z, 1.0, steps=200, rain_rate=10, capacity=100, dissolve_rate=1e4, deposit_rate=0, evaporation_rate=1e4
        )
    assert r.heights.max() > 40.0  # the pile the warning is about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = core.hydraulic_erosion(z, 1.0, steps=200)
    assert 0.0 <= quiet.heights.min() and quiet.heights.max() <= 20.0


@pytest.mark.parametrize("edges", ["closed", "open"])
def test_strips_of_rows_give_the_same_bits(monkeypatch, edges):
    """A step works in strips of rows that fit the cache (the flow's strips and the transport's): one-row
    strips, a few rows and the whole map at once give the same bits."""
    from core.erosion import hydraulic

    h = (Recipe("diamond_square", 3, (33, 33), version=2).evaluate().astype(np.float64) * 20.0)[:29]
    results = []
    # 1 row, a few rows (the transport 5, its 9 float64 arrays 7 rows of 35; the flow 3), one strip
    for strip_bytes, flow_rows in ((1, 1), (9 * 8 * 35 * 7, 3), (1 << 40, 1 << 20)):
        monkeypatch.setattr(hydraulic, "_STRIP_BYTES", strip_bytes)
        monkeypatch.setattr(hydraulic, "_FLOW_ROWS", flow_rows)
        results.append(hydraulic_erosion(h, 1.0, steps=30, edges=edges, settle=False))
    for r in results[1:]:
        for field in ("heights", "deposited", "removed", "water", "sediment"):
            assert getattr(r, field).tobytes() == getattr(results[0], field).tobytes()
        assert (r.lost_volume, r.exchanged) == (results[0].lost_volume, results[0].exchanged)
    assert float(results[0].sediment.max()) > 0.0 and results[0].exchanged > 0.0  # sediment moved
