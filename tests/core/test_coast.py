"""Coastal erosion (core.erosion.coast, the ``coast`` filter): cliffs retreat in metres per year, headlands
faster than coves, the debris laid as beaches, the same coast at every cell size."""

import json

import numpy as np
import pytest

from core.erosion.coast import coast_steps, coastal_erosion, exposure
from core.presets import preset_spec
from core.spec import TerrainSpec


def ramp(cols=200, rows=40, cell=10.0, slope=0.2):
    """A coast along x: sea (below 0 m) in the west, land rising eastwards at ``slope``."""
    x = (np.arange(cols) - cols // 4) * cell
    return np.tile(x * slope, (rows, 1))


def shoreline(z, sea=0.0):
    """The first land column of each row, in cells."""
    return (z > sea).argmax(axis=1)


def test_a_straight_coast_retreats_at_its_rate():
    z = ramp()
    res = coastal_erosion(z, 10.0, sea_level=0.0, duration=2000.0, retreat_rate=0.1, beach_share=0.0)
    moved = (shoreline(res.heights) - shoreline(z)) * 10.0
    # an open straight coast's exposure is r / (2r + 1) (the shore cell's own column is land): 200 m x 0.9
    assert np.all(moved == moved[0]) and 170.0 <= moved[0] <= 200.0
    cut = res.heights < z - 1e-9
    assert np.allclose(res.heights[cut], -2.0)  # the platform, 2 m below the sea
    assert res.deposited.sum() == 0.0 and res.removed.sum() == pytest.approx(float((z - res.heights).sum()))


def test_headlands_retreat_faster_than_coves():
    rows, cols, cell = 120, 160, 10.0
    y = np.arange(rows)[:, None]
    coast = 40 + 15 * np.sin(2 * np.pi * y / 60.0)  # the shore's column: headlands where it reaches west
    z = (np.arange(cols)[None, :] - coast) * cell * 0.3
    res = coastal_erosion(z, cell, sea_level=0.0, duration=3000.0, retreat_rate=0.05, fetch=300.0, beach_share=0.0)
    moved = shoreline(res.heights) - shoreline(z)
    head = np.argmin(coast[:, 0])
    cove = np.argmax(coast[:, 0])
    assert moved[head] > 2 * moved[cove] >= 0
    # the coast is straighter: the shoreline's spread shrinks
    assert np.ptp(shoreline(res.heights)) < np.ptp(shoreline(z))


def test_the_beaches_hold_their_share_of_the_cut_in_the_coves():
    rows, cols, cell = 120, 160, 10.0
    y = np.arange(rows)[:, None]
    coast = 40 + 15 * np.sin(2 * np.pi * y / 60.0)
    z = (np.arange(cols)[None, :] - coast) * cell * 0.3
    res = coastal_erosion(z, cell, sea_level=0.0, duration=3000.0, retreat_rate=0.05, fetch=300.0)
    assert 0.0 < res.deposited.sum() <= 0.3 * res.removed.sum() * (1 + 1e-12)  # the rest is carried offshore
    assert res.heights[res.deposited > 0].max() <= 2.0 + 1e-12  # at most the berm above the sea
    laid = res.deposited.sum(axis=1)
    head, cove = np.argmin(coast[:, 0]), np.argmax(coast[:, 0])
    assert laid[cove] > 0 and laid[head] == 0  # sheltered bays, not exposed headlands


def test_the_same_coast_in_metres_at_two_cell_sizes():
    coarse = coastal_erosion(ramp(200, 20, 10.0), 10.0, sea_level=0.0, duration=2000.0, beach_share=0.0)
    fine = coastal_erosion(ramp(400, 20, 5.0), 5.0, sea_level=0.0, duration=2000.0, beach_share=0.0)
    a = (shoreline(coarse.heights) - shoreline(ramp(200, 20, 10.0)))[0] * 10.0
    b = (shoreline(fine.heights) - shoreline(ramp(400, 20, 5.0)))[0] * 5.0
    assert abs(a - b) <= 10.0 and coast_steps(2000.0, 0.1, 5.0) == 2 * coast_steps(2000.0, 0.1, 10.0) == 80


def test_the_same_input_gives_the_same_bits():
    rng = np.random.default_rng(3)
    z = ramp() + rng.normal(0.0, 3.0, (40, 200))
    a = coastal_erosion(z, 10.0, sea_level=0.0)
    b = coastal_erosion(z.copy(), 10.0, sea_level=0.0)
    assert a.heights.tobytes() == b.heights.tobytes() and a.deposited.tobytes() == b.deposited.tobytes()


def test_exposure_counts_the_sea_around_each_cell():
    sea = np.zeros((7, 7), dtype=bool)
    sea[:, :3] = True
    e = exposure(sea, 1)
    assert e[3, 4] == 0.0 and e[3, 3] == pytest.approx(1 / 3) and e[3, 2] == pytest.approx(2 / 3) and e[3, 0] == 1.0
    with pytest.raises(ValueError, match="radius"):
        exposure(sea, 0)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"duration": -1.0}, "duration"),
        ({"retreat_rate": 1e3}, "retreat_rate"),
        ({"beach_share": 1.5}, "beach_share"),
        ({"fetch": 1.0}, "fetch"),
        ({"platform_depth": float("nan")}, "platform_depth"),
        ({"duration": 1e7, "retreat_rate": 10.0}, "duration x retreat_rate"),
    ],
)
def test_bad_settings_are_refused_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        coastal_erosion(ramp(), 10.0, sea_level=0.0, **kwargs)


def test_the_filter_in_a_spec_cuts_the_island_coast_and_maps_it():
    raw = json.loads(preset_spec("island").replace(size=129).to_json())
    raw["filters"] = [f for f in raw["filters"] if f["type"] != "erosion"]  # the start, its sea
    raw["filters"].insert(1, {"type": "coast", "sea_level": 0.1, "duration": 5000.0, "retreat_rate": 0.05})
    spec = TerrainSpec.from_json(json.dumps(raw))
    h, maps = spec.recipe().evaluate_with_maps()
    assert h.dtype == np.float32 and h.shape == (129, 129) and np.isfinite(h).all()
    assert maps["removed"].max() > 0 and maps["deposited"].max() > 0
    assert float(maps["deposited"].sum()) <= 0.3 * float(maps["removed"].sum()) * (1 + 1e-4)
    assert h.tobytes() == spec.recipe().evaluate_with_maps()[0].tobytes()


def test_a_callback_follows_each_step_and_can_end_the_run():
    seen = []
    whole = coastal_erosion(ramp(), 10.0, sea_level=0.0, duration=2000.0, beach_share=0.0)
    cut = coastal_erosion(
        ramp(),
        10.0,
        sea_level=0.0,
        duration=2000.0,
        beach_share=0.0,
        callback=lambda d, t: seen.append((d, t)) or d < 5,
    )
    assert whole.steps == 40 and cut.steps == 5 and seen == [(d, 40) for d in range(1, 6)]
    assert cut.removed.sum() < whole.removed.sum()
    with pytest.raises(TypeError, match="callback"):
        coastal_erosion(ramp(), 10.0, sea_level=0.0, callback=3)
