"""Drain Depressions: every closed depression filled to its spill level or breached through its sill."""

import numpy as np
import oracles
import pytest

import core
from core.erosion import drain_depressions, route_flow
from core.spec import SPEC_VERSION


def bowl(n=41):
    """A flat-floored bowl 10 m deep in a plateau tilted to the west, a channel from its rim to the west edge."""
    y, x = np.mgrid[0:n, 0:n].astype(np.float64)
    c = n // 2
    r = np.hypot(x - c, y - c)
    z = 0.05 * x + np.where(r < 10, 10.0, 20.0)  # a floor at 10 m and a plateau at 20 m, both tilted
    z[c, : c - 9] = 15.0 + 0.05 * np.arange(c - 9)  # the channel: the lowest pass, 15.5 m at the rim
    return z, r


def depth_below_fill(z):
    """How far ``z`` lies below the priority-flood filled surface (fastscapelib's, an independent filler)."""
    return float((oracles.filled(z, 1.0) - z).max())


def test_fill_raises_the_bowl_to_its_notch_and_nothing_else():
    z, r = bowl()
    assert depth_below_fill(z) > 4.0  # a closed depression before
    out = drain_depressions(z, 1.0, mode="fill")
    assert depth_below_fill(out) < 1e-9
    assert (out >= z).all()
    raised = out > z
    spill = 15.0 + 0.05 * (z.shape[0] // 2 - 10)  # the channel's cell on the rim
    assert np.allclose(out[raised], spill, atol=1e-9)
    assert np.array_equal(raised, (z < spill) & (r < 10))  # the bowl below the spill, not the channel


def test_breach_cuts_the_notch_down_to_the_floor_and_raises_nothing():
    z, r = bowl()
    out = drain_depressions(z, 1.0, mode="breach")
    assert depth_below_fill(out) < 1e-9
    assert (out <= z).all()
    lowered = out < z
    c = z.shape[0] // 2
    floor = z[c, c - 9]  # the floor's cell beside the channel, its lowest on the path out
    assert np.allclose(out[lowered], floor)  # one channel at that height
    assert lowered.sum() < 30  # a channel through the rim, not the bowl
    assert lowered[c, c - 14 : c - 9].all()  # along the channel, the lowest pass


@pytest.mark.parametrize("mode", ["fill", "breach"])
def test_a_draining_terrain_is_left_as_it_is(mode):
    z = np.add.outer(np.arange(30.0), np.arange(40.0)) * 0.5  # a plane falling to the north-west corner
    assert np.array_equal(drain_depressions(z, 2.0, mode=mode), z)


@pytest.mark.parametrize("mode", ["fill", "breach"])
def test_noise_drains_completely(mode):
    z = np.random.default_rng(5).random((60, 70)) * 20.0
    out = drain_depressions(z, 3.0, mode=mode)
    assert depth_below_fill(out) < 1e-9
    assert route_flow(out, 3.0).depressions == 0 or depth_below_fill(out) < 1e-9
    assert np.array_equal(out, drain_depressions(z, 3.0, mode=mode))  # deterministic


def test_the_sea_is_base_level_not_a_depression():
    z, r = bowl()
    sea = 12.0  # the bowl's floor lies under the sea: it is sea, not a depression
    out = drain_depressions(z, 1.0, mode="fill", sea_level=sea)
    assert np.array_equal(out[z < sea], z[z < sea])


def test_the_filter_in_a_spec_drains_and_reports_its_deposit():
    base = {"version": SPEC_VERSION, "size": 65, "width": 640.0, "height": 100.0, "generator": "diamond_square"}
    before = core.TerrainSpec.from_dict(base).heightmap().astype(np.float64) * 100.0
    assert depth_below_fill(before) > 1.0
    drained = core.TerrainSpec.from_dict({**base, "filters": [{"type": "drain", "mode": "fill"}]})
    h, maps = drained.recipe().evaluate_with_maps()
    z = h.astype(np.float64) * 100.0
    assert depth_below_fill(z) < 1e-3  # float32 normalised heights: flats, no closed depression
    assert (z >= before - 1e-3).all()
    assert maps["deposited"].max() == pytest.approx(float((z - before).max()), abs=1e-3)


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="mode"):
        drain_depressions(bowl()[0], 1.0, mode="dig")
    with pytest.raises(ValueError, match="cell_size"):
        drain_depressions(bowl()[0], 0.0)
