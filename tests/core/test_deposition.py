"""Transport-limited deposition of the stream-power filter (Yuan, Braun, Guerit, Rouby & Cordonnier 2019).

``dz/dt = U - K A^m S^n + (G / A) ∫_A (U - dz/dt) dA``: ``G = 0`` is the detachment-limited run bit for bit,
``G > 0`` builds fans where rivers leave the mountains, keeps the sediment budget and steepens steady channels to
``K A^m S^n = (1 + G) U``. fastscapelib 0.3.0 has no deposition term (its ``SPLEroder`` takes no ``G``), so it is
no oracle here: the steady-state relation of Yuan et al. 2019 is.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.erosion.flow import accumulate, base_level_mask
from core.erosion.stream_power import step_work, stream_power_erosion, stream_power_passes, stream_power_step

CELL = 100.0


def _block_and_plain(rows: int = 30, cols: int = 48) -> tuple[np.ndarray, np.ndarray]:
    """A 500 m mountain block uplifted at 1 mm/yr east of a flat (not uplifted) plain draining to the west edge."""
    rng = np.random.default_rng(7)
    z = rng.random((rows, cols))
    u = np.zeros((rows, cols))
    u[:, cols // 2 :] = 1e-3
    z[:, cols // 2 :] += 500.0
    return z, u


def _run(deposition: float, **kw: object):
    z, u = _block_and_plain()
    options = dict(k=2e-5, m=0.45, uplift=u, diffusion=0.0, dt=1e4, steps=40, open_edges="w")
    options.update(kw)
    return stream_power_erosion(z, CELL, deposition=deposition, **options)


def test_zero_deposition_is_the_run_without_it() -> None:
    z, u = _block_and_plain()
    options = dict(k=2e-5, m=0.45, uplift=u, diffusion=5.0, dt=1e4, steps=10, open_edges="w", lake_fill=True)
    without = stream_power_erosion(z, CELL, **options)
    with_zero = stream_power_erosion(z, CELL, deposition=0.0, **options)
    assert without.heights.tobytes() == with_zero.heights.tobytes()
    assert without.eroded.tobytes() == with_zero.eroded.tobytes()
    assert stream_power_passes(30) == stream_power_passes(30, deposition=0.0)
    assert step_work((64, 64)) == step_work((64, 64), deposition=0.0)


def test_fan_builds_on_the_plain() -> None:
    r = _run(1.0)
    eroded = np.maximum(r.eroded, 0.0).astype(np.float64)
    deposited = np.maximum(-r.eroded, 0.0).astype(np.float64)
    gy, gx = np.gradient(r.heights.astype(np.float64), CELL)
    gentle = np.degrees(np.arctan(np.hypot(gx, gy))) < 5.0
    kept = float(deposited[gentle].sum() / eroded.sum())
    assert kept >= 0.05
    plain = r.heights[:, 1:24]
    assert float(plain.max()) > 10.0  # the plain started below 1 m and is not uplifted
    assert float(np.maximum(-_run(0.0).eroded, 0.0).sum()) == 0.0  # detachment-limited: nothing deposited


@pytest.mark.parametrize("g", [0.5, 10.0])
def test_sediment_budget(g: float) -> None:
    """One step without diffusion: what the cells lost is what left through the base level, and no cell keeps
    more than reaches it (the flux accumulated down to any cell is never negative)."""
    z, u = _block_and_plain()
    z = _run(0.0).heights.astype(np.float64)  # a landscape with valleys
    dt = 1e4
    h, routing, _ = stream_power_step(
        z, CELL, k=2e-5, m=0.45, uplift=u, diffusion=0.0, dt=dt, open_edges="w", deposition=g
    )
    base = base_level_mask(z, "w", None)
    uplifted = z + np.where(base, 0.0, u) * dt
    net = (uplifted - h).ravel() * CELL * CELL  # m³ each cell lost (negative: kept)
    assert float(-net[net < 0].sum()) > 0.0  # something was deposited
    flux = net.copy()
    accumulate(routing, flux)
    assert float(flux.min()) >= -1e-6 * float(np.abs(net).sum())
    out = float(flux[base.ravel()].sum())
    eroded, deposited = float(net[net > 0].sum()), float(-net[net < 0].sum())
    assert eroded - deposited - out == pytest.approx(0.0, abs=1e-9 * eroded)


@pytest.mark.parametrize(("g", "n"), [(1.0, 1.0), (2.0, 1.0), (1.0, 2.0)])
def test_steady_state_slope(g: float, n: float) -> None:
    """A river strip under uniform uplift reaches Yuan et al. 2019's steady state ``K A^m S^n = (1 + G) U``."""
    k, m, uplift = 1e-4, 0.5, 1e-3
    z = np.zeros((3, 40))
    z[:, 1:] = np.linspace(1.0, 40.0, 39)
    # implicit in time: 60 long steps reach the same steady state as 400 short ones
    kw = dict(k=k, m=m, n=n, uplift=uplift, diffusion=0.0, dt=1e6, open_edges="w", deposition=g)
    r = stream_power_erosion(z, CELL, steps=60, **kw)
    h, routing, area = stream_power_step(r.heights.astype(np.float64), CELL, **kw)
    flat, rec, dist = h.ravel(), routing.receivers, routing.distances
    ok = dist > 0.0
    slope = (flat[ok] - flat[rec[ok]]) / dist[ok]
    ratio = k * area.ravel()[ok] ** m * slope**n / uplift
    np.testing.assert_allclose(ratio, 1.0 + g, rtol=1e-3)


def test_deterministic() -> None:
    a, b = _run(1.0, steps=8), _run(1.0, steps=8)
    assert a.heights.tobytes() == b.heights.tobytes()
    assert a.eroded.tobytes() == b.eroded.tobytes()


@pytest.mark.parametrize("bad", [-0.1, 10.5, float("nan")])
def test_bad_deposition_refused(bad: float) -> None:
    z, _ = _block_and_plain(8, 8)
    with pytest.raises(ValueError, match="deposition"):
        stream_power_erosion(z, CELL, steps=1, deposition=bad)
    with pytest.raises(ValueError, match="deposition"):
        stream_power_step(z, CELL, k=1e-5, deposition=bad)


def test_multiple_flow_refused() -> None:
    z, _ = _block_and_plain(8, 8)
    with pytest.raises(ValueError, match="deposition"):
        stream_power_erosion(z, CELL, steps=1, routing="mfd", deposition=1.0)
    stream_power_erosion(z, CELL, steps=1, routing="mfd", deposition=0.0)


def test_work_estimate_counts_the_sweeps() -> None:
    assert stream_power_passes(30, deposition=1.0) > stream_power_passes(30)
    r = _run(2.0, steps=10)
    assert r.work <= step_work((30, 48), deposition=2.0) * 10


def test_filter_declares_deposition() -> None:
    import core.catalog  # noqa: F401  (registers the filters)
    from core.params import FILTERS

    assert any(p.name == "deposition" and p.default == 0.0 for p in FILTERS["erosion"].params)
