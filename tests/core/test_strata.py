"""The strata mask: the place of each cell in a stack of tilted rock beds, for layered erosion."""

import math

import numpy as np
import pytest

from core.masks import mask_weights, strata_phase
from core.window import Window


def test_flat_beds_repeat_every_thickness_upwards():
    z = np.array([[0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 79.0, 80.0]])
    phase = strata_phase(z, cell_size=5.0, thickness=40.0)
    assert phase == pytest.approx(np.array([[0.0, 0.25, 0.5, 0.75, 0.0, 0.25, 0.975, 0.0]]), abs=1e-12)


def test_tilted_beds_dip_down_towards_their_direction():
    z = np.zeros((3, 5))  # a flat surface cuts the tilted beds: the phase changes along the dip only
    phase = strata_phase(z, cell_size=10.0, thickness=40.0, dip=45.0, dip_direction=90.0)  # dipping east
    x = (np.arange(5) - 2) * 10.0
    assert np.allclose(phase, np.broadcast_to((x / 40.0) % 1.0, (3, 5)))
    north = strata_phase(z, cell_size=10.0, thickness=40.0, dip=45.0, dip_direction=0.0)
    y = (1 - np.arange(3)) * 10.0  # row 0 is north
    assert np.allclose(north, np.broadcast_to(((y / 40.0) % 1.0)[:, None], (3, 5)))
    # one bed's base: going down dip by d metres, the same phase lies tan(dip) * d lower
    d = 20.0
    dip = math.radians(10.0)
    a = strata_phase(
        np.array([[30.0, 30.0 - math.tan(dip) * d]]), cell_size=d, thickness=50.0, dip=10.0, dip_direction=90.0
    )
    assert a[0, 0] == pytest.approx(a[0, 1])


def test_a_window_of_the_strata_is_the_whole_cut_out():
    rng = np.random.default_rng(3)
    z = rng.random((40, 50)) * 300.0
    whole = strata_phase(z, cell_size=7.0, thickness=33.0, dip=12.0, dip_direction=215.0)
    win = Window(5, 11, 20, 25)
    part = strata_phase(
        z[5:25, 11:36], cell_size=7.0, thickness=33.0, dip=12.0, dip_direction=215.0, world_shape=(40, 50), window=win
    )
    assert np.array_equal(part, whole[5:25, 11:36])


def test_a_strata_mask_marks_the_hard_top_of_every_bed():
    z = np.linspace(0.0, 1.0, 161, dtype=np.float32)[None, :].repeat(3, axis=0)  # 0..160 m, 1 m a column
    w = mask_weights(
        {"source": "strata", "low": 0.75, "high": 1.0, "strata_thickness": 40.0}, z, cell_size=1.0, height=160.0
    )
    hard = np.flatnonzero(w[0] > 0.5)
    assert hard.tolist() == [m for m in range(161) if (m % 40) >= 30]  # the top 10 m of each 40 m bed


def test_bad_strata_settings_are_refused_by_name():
    z = np.zeros((3, 3), np.float32)
    with pytest.raises(ValueError, match="strata_thickness"):
        mask_weights({"source": "strata", "strata_thickness": 0.0}, z, cell_size=1.0, height=1.0)
    with pytest.raises(ValueError, match="strata_dip"):
        mask_weights({"source": "strata", "strata_dip": 95.0}, z, cell_size=1.0, height=1.0)
