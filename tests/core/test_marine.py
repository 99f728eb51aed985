"""Marine deposition of the stream-power filter: river sediment laid on the sea floor (Yuan et al. 2019).

``spread_on_sea`` conserves what it spreads and lays none of it on land; in the filter, ``marine_diffusion = 0``
is the run without it bit for bit, and with it the sea floor beside the river mouths rises, never above the
sea level, while the land is the run without it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.erosion.marine import marine_spread_cells, spread_on_sea
from core.erosion.stream_power import stream_power_erosion, stream_power_step

CELL = 50.0


def _cone(n: int = 65) -> np.ndarray:
    """A 400 m cone in a 100 m deep sea (the sea level at 0), a little roughness so rivers form."""
    y, x = np.mgrid[0:n, 0:n]
    r = np.hypot(x - n // 2, y - n // 2) * CELL
    rng = np.random.default_rng(3)
    return 400.0 * np.clip(1.0 - r / 1200.0, 0.0, None) - 100.0 + rng.random((n, n))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    sigma=st.floats(0.0, 30.0),
    share=st.floats(0.05, 0.95),
)
def test_what_reaches_the_sea_is_laid_on_the_sea(seed: int, sigma: float, share: float) -> None:
    rng = np.random.default_rng(seed)
    sea = rng.random((23, 31)) < share
    supply = rng.random((23, 31)) * (rng.random((23, 31)) < 0.2)
    out = spread_on_sea(supply, sea, sigma)
    assert out.dtype == np.float64 and out.shape == supply.shape
    assert float(out[~sea].max(initial=0.0)) == 0.0
    assert float(out.min()) >= 0.0
    assert float(out.sum()) == pytest.approx(float(supply[sea].sum()), rel=1e-10, abs=1e-12)


def test_a_mouth_fills_its_bay_first_and_the_deposit_falls_off_with_distance() -> None:
    sea = np.zeros((41, 41), dtype=bool)
    sea[:, 20:] = True  # an open sea east of a straight coast
    supply = np.zeros((41, 41))
    supply[20, 20] = 100.0
    out = spread_on_sea(supply, sea, 4.0)
    row = out[20, 20:30]
    assert np.all(np.diff(row) < 0.0)  # thinner away from the mouth
    assert out[20, 20] == pytest.approx(out[20, 20:].max())
    assert out[16, 20] == pytest.approx(out[24, 20], rel=1e-12)  # symmetric along the coast
    # no land: the half of the Gaussian that would fall on land is laid on the sea
    assert float(out.sum()) == pytest.approx(100.0, rel=1e-12)
    assert spread_on_sea(supply, sea, 0.0).tobytes() == supply.tobytes()


def test_the_spread_is_the_diffusion_length_of_a_step() -> None:
    assert marine_spread_cells(0.03, 3.0e4, 15.625) == pytest.approx(np.sqrt(2 * 0.03 * 3.0e4) / 15.625)
    assert marine_spread_cells(0.0, 1.0, 1.0) == 0.0


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: spread_on_sea(-np.ones((3, 3)), np.ones((3, 3), bool), 1.0), "supply"),
        (lambda: spread_on_sea(np.ones((3, 3)), np.ones((3, 4), bool), 1.0), "sea"),
        (lambda: spread_on_sea(np.ones((3, 3)), np.ones((3, 3), bool), -1.0), "sigma"),
        (lambda: marine_spread_cells(-1.0, 1.0, 1.0), "marine_diffusion"),
        (
            lambda: stream_power_erosion(_cone(9), CELL, sea_level=0.0, steps=1, marine_diffusion=2e6),
            "marine_diffusion",
        ),
    ],
)
def test_bad_values_are_refused_by_name(call, name) -> None:
    with pytest.raises(ValueError, match=name):
        call()


def test_zero_marine_diffusion_is_the_run_without_it() -> None:
    options = dict(k=2e-5, uplift=0.0, diffusion=0.5, dt=2e4, steps=6, sea_level=0.0, lake_fill=True)
    without = stream_power_erosion(_cone(), CELL, **options)
    with_zero = stream_power_erosion(_cone(), CELL, marine_diffusion=0.0, **options)
    assert without.heights.tobytes() == with_zero.heights.tobytes()
    assert without.eroded.tobytes() == with_zero.eroded.tobytes()


def test_one_step_lays_the_rivers_load_on_the_sea_floor_only() -> None:
    z = stream_power_erosion(_cone(), CELL, k=2e-5, uplift=0.0, diffusion=0.5, dt=2e4, steps=5, sea_level=0.0)
    z = z.heights.astype(np.float64)
    options = dict(k=2e-5, uplift=0.0, diffusion=0.5, dt=2e4, sea_level=0.0)
    plain, _, _ = stream_power_step(z, CELL, **options)
    marine, _, _ = stream_power_step(z, CELL, marine_diffusion=0.05, **options)
    sea = z < 0.0
    change = marine - plain
    assert float(np.abs(change[~sea]).max()) == 0.0  # the land is the step without it
    assert float(change[sea].min()) >= 0.0 and float(change.sum()) > 0.0
    assert float(marine[sea].max()) <= 0.0  # never above the sea level
    # what the land lost this step (incision less what the lakes and the slopes kept) bounds what the sea got
    lost_by_land = float((z - plain)[~sea].clip(min=0.0).sum())
    assert float(change.sum()) <= lost_by_land * (1.0 + 1e-9)


def test_deltas_build_out_from_the_coast() -> None:
    options = dict(k=2e-6, uplift=0.0, diffusion=0.05, dt=2e4, steps=20, sea_level=0.0, lake_fill=True)
    start = _cone()
    plain = stream_power_erosion(start, CELL, **options).heights.astype(np.float64)
    marine = stream_power_erosion(start, CELL, marine_diffusion=0.05, **options).heights.astype(np.float64)
    sea = start < 0.0
    raised = marine - plain
    assert float(raised[sea].max()) > 10.0  # tens of metres of sediment at the mouths
    # near the coast the sea floor rose more than far out
    near, far = sea & _within(~sea, 3), sea & ~_within(~sea, 12)
    assert float(raised[near].mean()) > 5.0 * float(raised[far].mean())


def _within(mask: np.ndarray, cells: int) -> np.ndarray:
    """Cells at most ``cells`` steps (8-neighbourhood) from ``mask``."""
    out = mask.copy()
    for _ in range(cells):
        grown = np.pad(out, 1)
        out = np.zeros_like(out)
        for dr in (0, 1, 2):
            for dc in (0, 1, 2):
                out |= grown[dr : dr + mask.shape[0], dc : dc + mask.shape[1]]
    return out


@pytest.mark.parametrize("sigma", [0.7, 3.0, 5.5])
def test_the_kernel_is_a_gaussian_of_that_spread(sigma: float) -> None:
    from core.filters import gaussian_convolve

    impulse = np.zeros((81, 81))
    impulse[40, 40] = 1.0
    kernel = gaussian_convolve(impulse, sigma)
    y, x = np.mgrid[0:81, 0:81] - 40
    assert float(kernel.sum()) == pytest.approx(1.0, rel=1e-12)
    assert float((kernel * x * x).sum()) == pytest.approx(sigma**2, rel=1e-9)
    assert float((kernel * y * y).sum()) == pytest.approx(sigma**2, rel=1e-9)
    assert kernel[40, 40] == kernel.max() and kernel[40, 41] == pytest.approx(kernel[41, 40], rel=1e-12)
