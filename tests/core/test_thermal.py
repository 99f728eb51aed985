"""Thermal erosion: conservation, the talus angle as an end state, the cone a spike becomes, bounds."""

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
from core.erosion.thermal import MAX_EROSION_HEIGHT, thermal_erosion
from core.progress import Cancelled
from core.recipe import Recipe

ROOT = Path(__file__).resolve().parents[2]


def rough(n=33, seed=1, relief=40.0):
    """A diamond-square terrain in metres with slopes far beyond any talus angle."""
    return Recipe("diamond_square", seed, (n, n), version=2).evaluate().astype(np.float64) * relief


def max_slope_degrees(h, cell=1.0):
    """Steepest slope between 8-neighbours, degrees."""
    h = np.asarray(h, np.float64)
    drops = [
        np.abs(np.diff(h, axis=0)).max() / cell,
        np.abs(np.diff(h, axis=1)).max() / cell,
        np.abs(h[1:, 1:] - h[:-1, :-1]).max() / (cell * math.sqrt(2)),
        np.abs(h[1:, :-1] - h[:-1, 1:]).max() / (cell * math.sqrt(2)),
    ]
    return math.degrees(math.atan(max(drops)))


def conservation_error(before, result, cell):
    """|removed - deposited - lost| relative to the material above the lowest input height."""
    total = float((before - before.min()).sum())
    removed = result.removed.astype(np.float64).sum()
    deposited = result.deposited.astype(np.float64).sum()
    return abs(removed - deposited - result.lost_volume / cell**2) / total


@pytest.mark.parametrize("edges", ["closed", "open"])
def test_material_is_conserved(edges):
    h = rough(65) + 500.0
    r = thermal_erosion(h, talus_angle=30, cell_size=1.0, steps=300, rate=1.0, edges=edges)
    assert conservation_error(h, r, 1.0) < 1e-6
    assert r.removed.sum() > 0.05 * (h - h.min()).sum() / 40  # it moved a real amount
    if edges == "closed":
        assert r.lost_volume == 0.0
        assert abs(r.heights.astype(np.float64).sum() - h.sum()) < 1e-6 * h.sum()
    else:
        assert r.lost_volume > 0.0
    # deposited/removed are the two parts of the change
    np.testing.assert_allclose(
        r.heights.astype(np.float64) - h.astype(np.float32), r.deposited.astype(np.float64) - r.removed, atol=1e-4
    )
    assert (r.deposited >= 0).all() and (r.removed >= 0).all()
    assert not ((r.deposited > 0) & (r.removed > 0)).any()


def test_open_edges_lose_what_slides_off_at_a_cell_size():
    h = rough(33)
    r = thermal_erosion(h, talus_angle=20, cell_size=2.5, steps=200, edges="open")
    assert r.lost_volume > 0
    assert conservation_error(h, r, 2.5) < 1e-6


def test_after_enough_steps_no_slope_exceeds_the_talus_angle():
    h = rough(33, relief=25.0)
    assert max_slope_degrees(h) > 60
    for talus in (20.0, 35.0):
        r = thermal_erosion(h, talus_angle=talus, cell_size=1.0, steps=3000, rate=1.0)
        assert max_slope_degrees(r.heights) <= talus + 0.5
    # cell size scales the slopes: the same heights on 2 m cells are half as steep
    r2 = thermal_erosion(h, talus_angle=20.0, cell_size=2.0, steps=3000, rate=1.0)
    assert max_slope_degrees(r2.heights, cell=2.0) <= 20.5


def test_a_spike_spreads_into_a_cone_at_the_talus_angle():
    n, c, height, talus = 41, 20, 200.0, 30.0
    h = np.zeros((n, n))
    h[c, c] = height
    r = thermal_erosion(h, talus_angle=talus, cell_size=1.0, steps=2000, rate=1.0)
    out = r.heights.astype(np.float64)
    tan = math.tan(math.radians(talus))
    assert out.argmax() == c * n + c  # the apex stays where the spike was
    assert out.sum() == pytest.approx(height, rel=1e-6)  # all material kept
    # Along the four axes the flank falls at exactly the talus slope from the apex to the foot.
    for profile in (out[c, c:], out[c, c::-1], out[c:, c], out[c::-1, c]):
        flank = profile[: int(np.argmax(profile < 1e-3))]
        steps = -np.diff(flank)
        assert len(steps) >= 6
        np.testing.assert_allclose(steps[:-1], tan, rtol=0.02)
    # A cone: symmetric under the 8 symmetries of the grid, heights falling with distance.
    for sym in (out.T, out[::-1], out[:, ::-1], out[::-1, ::-1].T):
        np.testing.assert_allclose(sym, out, atol=1e-6)
    rr, cc = np.mgrid[0:n, 0:n]
    dist = np.hypot(rr - c, cc - c)
    ring = [out[(dist >= k) & (dist < k + 1)].mean() for k in range(0, 7)]
    assert all(a > b for a, b in zip(ring, ring[1:], strict=False)) and ring[-1] > 0
    assert out[dist >= 9].max() == 0.0
    assert max_slope_degrees(out) <= talus + 0.5


def test_nothing_moves_below_the_talus_angle():
    rr, cc = np.mgrid[0:20, 0:30].astype(np.float64)
    ramp = rr * math.tan(math.radians(25)) * 2.0 + cc * 0.1  # 25 degrees-ish on 2 m cells, below 35
    assert max_slope_degrees(ramp, cell=2.0) < 35
    r = thermal_erosion(ramp, talus_angle=35, cell_size=2.0, steps=20)
    np.testing.assert_array_equal(r.heights, ramp.astype(np.float32))
    assert r.removed.max() == 0 and r.deposited.max() == 0


def test_zero_steps_and_flat_maps_are_unchanged():
    h = rough(17)
    r = thermal_erosion(h, steps=0)
    np.testing.assert_array_equal(r.heights, h.astype(np.float32))
    assert r.steps_done == 0
    flat = np.full((9, 7), 3.5)
    np.testing.assert_array_equal(thermal_erosion(flat, talus_angle=0, steps=10).heights, flat.astype(np.float32))


def test_callback_reports_progress_and_cancels():
    seen = []
    r = thermal_erosion(rough(17), steps=10, callback=lambda i, n: seen.append((i, n)))
    assert seen == [(i, 10) for i in range(1, 11)] and r.steps_done == 10
    with pytest.raises(Cancelled, match="after step 4 of 10") as stop:
        thermal_erosion(rough(17), steps=10, callback=lambda i, n: i < 4)
    r = stop.value.result
    assert (stop.value.done, stop.value.total) == (4, 10) and r.steps_done == 4
    assert np.array_equal(r.heights, thermal_erosion(rough(17), steps=4).heights)


@settings(max_examples=120, deadline=None)
@given(
    rows=st.integers(1, 12),
    cols=st.integers(1, 12),
    seed=st.integers(0, 2**31),
    scale=st.sampled_from([1e-3, 1.0, 1e3, MAX_EROSION_HEIGHT]),
    talus=st.floats(0.0, 89.0),
    cell=st.sampled_from([1e-6, 0.01, 1.0, 1e6]),
    rate=st.floats(1e-9, 1.0),
    steps=st.integers(0, 40),
    edges=st.sampled_from(["closed", "open"]),
)
def test_any_parameters_in_bounds_give_finite_conserving_results(
    rows, cols, seed, scale, talus, cell, rate, steps, edges
):
    h = (core.white_noise((rows, cols), seed) * 2.0 - 1.0) * scale
    r = thermal_erosion(h, talus_angle=talus, cell_size=cell, steps=steps, rate=rate, edges=edges)
    for a in (r.heights, r.deposited, r.removed):
        assert a.dtype == np.float32 and a.shape == (rows, cols) and np.isfinite(a).all()
    assert math.isfinite(r.lost_volume) and r.lost_volume >= 0
    total = float(np.abs(h - h.min()).sum()) + 1e-30
    moved = r.removed.astype(np.float64).sum() - r.deposited.astype(np.float64).sum() - r.lost_volume / cell**2
    # float32 outputs: each cell rounds to 6e-8 of its height
    assert abs(moved) <= 1e-6 * total + 1e-7 * float(np.abs(h).sum())


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"talus_angle": 90.0}, ValueError, r"talus_angle must be in \[0.0, 89.0\]"),
        ({"talus_angle": -1.0}, ValueError, "talus_angle"),
        ({"cell_size": 0.0}, ValueError, r"cell_size must be in \[1e-06, 1000000.0\]"),
        ({"rate": 0.0}, ValueError, r"rate must be in \(0.0, 1.0\]"),
        ({"rate": 1.5}, ValueError, "rate"),
        ({"steps": -1}, ValueError, r"steps must be in \[0, 100000\]"),
        ({"steps": 2.0}, TypeError, "steps must be an integer"),
        ({"edges": "wrap"}, ValueError, "edges must be one of"),
        ({"callback": 3}, TypeError, "callback must be callable"),
        ({"heightmap": np.full((4, 4), 2e9)}, ValueError, "within"),
        ({"heightmap": np.array([[1.0, np.nan]])}, ValueError, "NaN"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    kwargs = {"heightmap": np.zeros((8, 8)), **kwargs}
    with pytest.raises(error, match=match):
        thermal_erosion(**kwargs)


def test_work_bound_names_the_largest_steps_for_the_size(monkeypatch):
    from core.erosion.thermal import THERMAL_STEP_COST, check_step_work

    assert check_step_work((4097, 4097), 100_000, THERMAL_STEP_COST, what="steps", most=100_000) == 100_000
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "1min")  # 3.6e9 cell passes: 685 steps of 5 at 1025^2
    with pytest.raises(
        ValueError,
        match=r"^steps: 686 over 1025 x 1025 cells: about 60 seconds .*set by OROGEN_WORK_LIMIT: steps must be in "
        r"\[0, 685\] at this size",
    ):
        thermal_erosion(np.zeros((1025, 1025), np.float32), steps=686)
    thermal_erosion(np.zeros((1025, 1025), np.float32), steps=1)


CHILD = r"""
import hashlib, json, random
import numpy as np
random.seed(1); np.random.seed(2)
from core.recipe import Recipe
from core.erosion.thermal import thermal_erosion
def digest(a):
    a = np.ascontiguousarray(a)
    return f"{a.dtype}{a.shape}:" + hashlib.sha256(a.tobytes()).hexdigest()[:24]
h = Recipe("diamond_square", 4, (45, 61), version=2).evaluate().astype(np.float64) * 30.0
closed = thermal_erosion(h, talus_angle=33, cell_size=0.75, steps=60, rate=0.8)
opened = thermal_erosion(h, talus_angle=28, cell_size=1.5, steps=40, rate=0.5, edges="open", outside="lowest")
print(json.dumps({"closed": [digest(closed.heights), digest(closed.deposited), digest(closed.removed)],
                  "open": [digest(opened.heights), opened.lost_volume.hex()]}))
"""

GOLDEN = {
    "closed": [
        "float32(45, 61):1eb85189a3369eca6d5516fa",
        "float32(45, 61):b94e09a36d7ec8f9603ad375",
        "float32(45, 61):390bd450a913a4a10ba6acce",
    ],
    "open": ["float32(45, 61):a3a65986d3d320d03d7b9971", "0x1.50ede7eaee500p+14"],
}


def test_golden_hashes_in_a_fresh_process():
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == GOLDEN


@pytest.mark.parametrize("edges, outside", [("closed", "extend"), ("open", "extend"), ("open", "lowest")])
def test_strips_of_rows_give_the_same_bits(monkeypatch, edges, outside):
    """A step works in strips of rows that fit the cache: two-row strips, a few rows and the whole map at once
    give the same bits (each cell adds its inflows in the same order whatever the strips; a strip is at least
    2 rows)."""
    from core.erosion import thermal

    h = rough(33, seed=4)[:, :29]
    results = []
    for strip_bytes in (1, 80 * 31 * 5, 1 << 40):  # 2 rows, 5 rows, one strip
        monkeypatch.setattr(thermal, "_STRIP_BYTES", strip_bytes)
        results.append(thermal_erosion(h, talus_angle=30.0, steps=12, rate=1.0, edges=edges, outside=outside))
    for r in results[1:]:
        for field in ("heights", "deposited", "removed"):
            assert getattr(r, field).tobytes() == getattr(results[0], field).tobytes()
        assert r.lost_volume == results[0].lost_volume
    assert float(np.abs(results[0].heights - h).max()) > 1.0  # it did erode
