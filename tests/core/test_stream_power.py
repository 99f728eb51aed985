"""Stream-power erosion: invariants, determinism, fastscapelib as the oracle, and geomorphic statistics."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import oracles
import pytest

from core.erosion import flow, lakes, stream_power
from core.erosion import river_network as geomorph
from core.generators.faults import fault_formation
from core.generators.midpoint_displacement import diamond_square
from core.params import FILTERS
from core.progress import Cancelled
from core.recipe import Recipe
from core.work import WORK_PER_SECOND, limit_work

ROOT = Path(__file__).resolve().parents[2]

#: Spec version 3's schemes, which are fastscapelib's (ADI diffusion, ties to the first neighbour, flats as
#: pits): the oracle comparisons and version 3's golden hashes run them.
V3 = {"diffusion_scheme": "peaceman_rachford", "flats": "first"}


def ds_terrain(n, seed, roughness, relief):
    z = diamond_square((n, n), seed, roughness=roughness)
    z = (z - z.min()) / (z.max() - z.min()) * relief
    z[[0, -1], :] = 0.0
    z[:, [0, -1]] = 0.0
    return z


# --- invariants ---------------------------------------------------------------------------------
def test_a_run_keeps_base_level_adds_up_and_has_no_nan():
    z0 = ds_terrain(65, 4, 1.2, 300.0)
    res = stream_power.stream_power_erosion(z0, 50.0, steps=8, dt=1e4, uplift=2e-3)
    for a in (res.heights, res.drainage_area, res.eroded, res.incision):
        assert a.dtype == np.float32 and a.shape == z0.shape and np.isfinite(a).all()
    assert res.receivers.dtype == np.int32 and res.direction.dtype == np.int8
    edge = np.zeros(z0.shape, dtype=bool)
    edge[[0, -1], :] = edge[:, [0, -1]] = True
    assert (res.heights[edge] == 0.0).all() and (res.eroded[edge] == 0.0).all()
    assert (res.incision >= 0.0).all() and res.incision.max() > 1.0
    # start + uplift - eroded = end
    lifted = np.where(edge, 0.0, 2e-3 * 8 * 1e4)
    assert np.allclose(z0 + lifted - res.eroded, res.heights, atol=1e-3)
    # drainage area sums to the map's area at the outlets
    assert res.drainage_area[edge].sum() == pytest.approx(65 * 65 * 2500.0, rel=1e-6)


def test_uplift_map_sea_level_and_closed_edges():
    z0 = ds_terrain(49, 6, 1.5, 200.0) + 10.0
    uplift = (z0 / z0.max() * 1e-3).astype(np.float32)  # the terrain itself as the uplift map
    res = stream_power.stream_power_erosion(z0, 100.0, steps=5, uplift=uplift, sea_level=60.0, open_edges="")
    sea = z0 < 60.0
    assert np.array_equal(res.heights[sea], z0[sea].astype(np.float32))
    # nothing is cut below the sea floor it drains to, nor rises above the uplift
    assert np.isfinite(res.heights).all() and res.heights.min() >= z0.min() - 1e-3
    assert res.heights.max() <= z0.max() + 5 * 2e4 * 1e-3 and res.incision[~sea].max() > 1.0


def test_zero_steps_returns_the_start():
    z0 = ds_terrain(17, 1, 1.0, 10.0)
    res = stream_power.stream_power_erosion(z0, 10.0, steps=0)
    assert np.array_equal(res.heights, z0.astype(np.float32)) and (res.eroded == 0).all()


def test_callback_reports_progress_and_cancels():
    z0 = ds_terrain(33, 2, 1.0, 50.0)
    seen = []
    stream_power.stream_power_erosion(z0, 10.0, steps=3, callback=lambda s, n: seen.append((s, n)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    with pytest.raises(Cancelled, match="after step 2 of 5") as err:
        stream_power.stream_power_erosion(z0, 10.0, steps=5, callback=lambda s, n: s < 2)
    assert err.value.result.heights.shape == (33, 33)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"steps": -1}, ValueError, "steps must be in"),
        ({"steps": 2000}, ValueError, r"steps: 2000 .* steps must be in \[0, "),
        ({"k": -1.0}, ValueError, "k must be in"),
        ({"m": 3.0}, ValueError, "m must be in"),
        ({"n": 0.0}, ValueError, "n must be in"),
        ({"dt": 0.0}, ValueError, "dt must be in"),
        ({"diffusion": -1.0}, ValueError, "diffusion must be in"),
        ({"uplift": np.zeros((3, 3))}, ValueError, "uplift must be a number or a map"),
        ({"open_edges": ""}, ValueError, "no base level"),
        ({"callback": 5}, TypeError, "callback"),
    ],
)
def test_bad_parameters_are_refused_by_name(kwargs, error, words, monkeypatch):
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "10s")  # 2000 steps at 257^2 are about 30 s of work
    with pytest.raises(error, match=words):
        stream_power.stream_power_erosion(np.zeros((257, 257)), 10.0, **kwargs)


def test_work_bound_refuses_only_past_the_users_limit(monkeypatch):

    per_step = stream_power.step_work((1025, 1025))
    assert stream_power.check_stream_power_work((1025, 1025), 10_000) == 10_000 * per_step / WORK_PER_SECOND
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "1min")
    most = 60 * WORK_PER_SECOND // per_step
    stream_power.check_stream_power_work((1025, 1025), most)
    with pytest.raises(
        ValueError,
        match=rf"^steps: {most + 1} stream-power steps \(d8\) over 1025 x 1025 cells: about 6\d seconds "
        rf".* the limit of 60 seconds set by OROGEN_WORK_LIMIT: at this size steps must be in \[0, {most}\]",
    ):
        stream_power.check_stream_power_work((1025, 1025), most + 1)


def test_nonlinear_slope_exponent_solves_the_implicit_equation():
    """One cell draining to the edge: δ + F δ^n = δ0, for n below and above 1."""
    z = np.zeros((3, 3))
    z[1, 1] = 10.0
    for n in (0.7, 1.0, 1.8):
        out, routing, area = stream_power.stream_power_step(z, 100.0, k=1e-4, m=0.5, n=n, uplift=0.0, dt=1e4)
        f = 1e-4 * 1e4 * area[1, 1] ** 0.5 / 100.0**n
        delta = out[1, 1]
        assert delta + f * delta**n == pytest.approx(10.0, abs=1e-8)


def test_golden_hash_in_a_fresh_process():
    """Same bytes on numpy 1.26 and 2.x (scripts/test.sh runs the core tests in both)."""
    code = (
        "import hashlib, numpy as np\n"
        "from core.erosion import stream_power\n"
        "from core.generators import midpoint_displacement as midpoint\n"
        f"V3 = {V3!r}\n"
        "z = midpoint.diamond_square((37, 45), 9, roughness=1.1) * 200\n"
        "r = stream_power.stream_power_erosion(z, 25.0, steps=6, n=1.3, sea_level=-20.0, **V3)\n"
        "print(hashlib.sha256(r.heights.tobytes() + r.drainage_area.tobytes() + r.eroded.tobytes())"
        ".hexdigest()[:24])"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == GOLDEN


GOLDEN = "0e55a4d350d6e13ebddd4f85"


def test_lake_fill_golden_hash_in_a_fresh_process():
    """lake_fill (sorts, cumulative sums, float64 steps) gives the same bytes on numpy 1.26 and 2.x."""
    code = (
        "import hashlib, numpy as np\n"
        "from core.erosion import stream_power\n"
        "from core.generators import midpoint_displacement as midpoint\n"
        f"V3 = {V3!r}\n"
        "z = midpoint.diamond_square((37, 45), 9, roughness=1.1) * 200\n"
        "r = stream_power.stream_power_erosion(z, 25.0, steps=6, n=1.3, lake_fill=True, **V3,\n"
        "                                      uplift=1e-3 * (z - z.min()) / np.ptp(z))\n"
        "assert r.eroded.min() < -10.0\n"
        "print(hashlib.sha256(r.heights.tobytes() + r.drainage_area.tobytes() + r.eroded.tobytes())"
        ".hexdigest()[:24])"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "cb38d5291aa8e52a16bada04"


# --- fastscapelib as the oracle ---------------------------------------------------------------
@pytest.mark.parametrize("n", [1.0, 2.0])
def test_ten_steps_equal_fastscapelib(n):
    """Same start, uplift, K, m, n, D, dt and routing: fastscapelib's "mountain" loop, 10 steps on 257².

    The start is a smooth diamond-square terrain with closed depressions
    (114 at the first step): where the basin graph's spanning tree is unique
    the two routings are identical (test_flow.py), so the heights agree to
    rounding. (On white noise equally high passes make the tree ambiguous:
    see test_flow.py's white-noise test.) fastscapelib 0.3.0 treats any
    n < 1 as n = 1 (its linearity test lacks an absolute value), so n < 1 is
    checked against the implicit equation instead.
    """
    z0 = ds_terrain(257, 3, 1.5, 500.0)
    kw = {"k": 2e-4, "m": 0.4, "n": n, "uplift": 1e-3, "diffusion": 0.01, "dt": 2e4}
    ref = oracles.run(z0, 200.0, steps=10, **kw)
    z = z0
    for _ in range(10):
        z, _, _ = stream_power.stream_power_step(z, 200.0, **kw, **V3)
    relief = ref.max() - ref.min()
    assert np.abs(z - ref).max() <= 1e-3 * relief
    assert np.abs(z - ref).max() <= 1e-9 * relief  # in fact to rounding


@pytest.mark.parametrize("n", [1.0, 2.0])
def test_version_4_schemes_agree_with_fastscapelib_to_their_difference(n):
    """Version 4's monotone diffusion (backward Euler split by direction) against fastscapelib's ADI one.

    One step: the two diffusion schemes differ by ``O((D dt / dx²)²)`` of the curvature terms (here
    ``D dt / dx² = 0.005``), measured 5.6e-5 and 4.0e-5 of the relief, and the routing is the same but
    for the ties version 4 breaks by a hash (the cells beside the corners). Ten
    steps: the few centimetres move receivers at near-ties of the basin graph and the runs diverge cell by
    cell (as white noise does in test_flow.py), but the landscape is the same: mean height within 0.5 % of the
    relief (measured 0.16 % and 1e-6) and the median within 0.1 %. Version 3's schemes agree to rounding
    (test_ten_steps_equal_fastscapelib).
    """
    z0 = ds_terrain(257, 3, 1.5, 500.0)
    kw = {"k": 2e-4, "m": 0.4, "n": n, "uplift": 1e-3, "diffusion": 0.01, "dt": 2e4}
    one = oracles.run(z0, 200.0, steps=1, **kw)
    z1, r, _ = stream_power.stream_power_step(z0, 200.0, **kw)
    assert np.abs(z1 - one).max() <= 1e-4 * np.ptp(one)
    rec, _, _ = oracles.routing(z0 + np.where(r.base_level, 0.0, 1e-3 * 2e4), 200.0)
    differ = {(int(i) // 257, int(i) % 257) for i in np.flatnonzero(r.receivers != rec)}
    # the only exact ties: a cell beside a corner drains as steeply to both edges (fastscapelib: the first)
    assert differ <= {(1, 1), (1, 255), (255, 1), (255, 255)}
    ref = oracles.run(z0, 200.0, steps=10, **kw)
    z = z0
    for _ in range(10):
        z, _, _ = stream_power.stream_power_step(z, 200.0, **kw)
    relief = np.ptp(ref)
    assert abs(z.mean() - ref.mean()) <= 5e-3 * relief
    assert abs(np.median(z) - np.median(ref)) <= 1e-3 * relief


def concavity_theta(z, cell):
    rec, dist, area = oracles.routing(z, cell)
    return -geomorph.concavity(z, rec, dist, area=area, min_area=50 * cell * cell).exponent


@pytest.mark.slow
def test_steady_state_matches_fastscapelib():
    """fastscapelib's mountain example (noise start, block uplift) run to steady state by both.

    From white noise the two diverge cell by cell (equally high passes, see
    test_flow.py), but the steady state is the same landscape: concavity θ
    (log S vs log A over channel cells, both measured with fastscapelib's
    routing) within 0.02 and mean height within 3 %.
    """
    n, cell = 257, 200.0  # a 257^2 grid at 200 m
    z0 = np.random.default_rng(1234).random((n, n))
    z0[[0, -1], :] = 0.0
    z0[:, [0, -1]] = 0.0
    kw = {"k": 2e-4, "m": 0.45, "n": 1.0, "uplift": 1e-3, "diffusion": 0.01, "dt": 5e4}
    ref = oracles.run(z0, cell, steps=120, **kw)
    ours = stream_power.stream_power_erosion(z0, cell, steps=120, **kw).heights.astype(np.float64)
    assert ours.mean() == pytest.approx(ref.mean(), rel=0.03)
    assert concavity_theta(ours, cell) == pytest.approx(concavity_theta(ref, cell), abs=0.02)
    assert concavity_theta(ours, cell) == pytest.approx(0.45, abs=0.05)


# --- multiple flow direction ----------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("p", [1.0, 1.1])
def test_mfd_ten_steps_equal_fastscapelib(p):
    """fastscapelib's loop on a SingleFlowRouter + MSTSinkResolver(Kruskal, carve) + MultiFlowRouter(p) graph, 257².

    Same routing (test_flow.py: the filled surface bit for bit, areas to
    1e-12) and the same implicit equation per cell over its receivers, so
    the heights agree to rounding (measured 2e-9 and 1.2e-8 of the relief).
    Only n = 1: for n != 1 fastscapelib 0.3.0's multiple-flow Newton
    iteration keeps the last receiver's solution only (its comment: "only
    valid for single flow direction"), so Orogen's (all receivers, with a
    bracket) is checked against its equation below instead.
    """
    z0 = ds_terrain(257, 3, 1.5, 500.0)
    kw = {"k": 2e-4, "m": 0.4, "n": 1.0, "uplift": 1e-3, "diffusion": 0.01, "dt": 2e4}
    ref = oracles.run(z0, 200.0, steps=10, mfd_exponent=p, **kw)
    z = z0
    for _ in range(10):
        z, r, _ = stream_power.stream_power_step(z, 200.0, routing="mfd", flow_exponent=p, **kw, **V3)
    assert isinstance(r, flow.MultipleFlowRouting)
    relief = ref.max() - ref.min()
    assert np.abs(z - ref).max() <= 1e-3 * relief
    assert np.abs(z - ref).max() <= 1e-7 * relief  # in fact to rounding
    d8 = oracles.run(z0, 200.0, steps=10, **kw)
    assert np.abs(d8 - ref).max() > 0.01 * relief  # and multiple flow is not D8


@pytest.mark.parametrize("n", [0.6, 1.0, 1.7])
def test_mfd_nonlinear_slope_exponent_solves_the_implicit_equation(n):
    """A peak draining to all eight edge cells (at 0): x + Σ_r F_r x^n = z with F_r = K dt (A w_r)^m / d_r^n.

    The shares are Quinn's (slope to each neighbour, orthogonal 1/d, diagonal 1/(d sqrt 2)).
    """
    z = np.zeros((3, 3))
    z[1, 1] = 10.0
    k, m, dt, cs = 1e-4, 0.5, 1e4, 100.0
    out, r, area = stream_power.stream_power_step(z, cs, k=k, m=m, n=n, uplift=0.0, dt=dt, routing="mfd")
    w = r.weights[:, 4]
    d = r.distances
    quinn = np.where(np.isin(np.arange(8), [1, 3, 4, 6]), 1.0, 1 / np.sqrt(2)) / (4 + 4 / np.sqrt(2))
    assert np.allclose(w, quinn, rtol=1e-12)
    x = out[1, 1]
    residual = x - 10.0 + (k * dt * (area[1, 1] * w) ** m / d**n * x**n).sum()
    assert 0.0 < x < 10.0 and residual == pytest.approx(0.0, abs=1e-8)


def test_mfd_run_keeps_base_level_and_conserves_area():
    z0 = ds_terrain(65, 4, 1.2, 300.0)
    res = stream_power.stream_power_erosion(z0, 50.0, steps=8, dt=1e4, uplift=2e-3, routing="mfd", flow_exponent=1.1)
    d8 = stream_power.stream_power_erosion(z0, 50.0, steps=8, dt=1e4, uplift=2e-3)
    edge = np.zeros(z0.shape, dtype=bool)
    edge[[0, -1], :] = edge[:, [0, -1]] = True
    assert np.isfinite(res.heights).all() and (res.heights[edge] == 0.0).all()
    assert (res.incision >= 0.0).all() and res.incision.max() > 1.0
    assert res.drainage_area[edge].sum() == pytest.approx(65 * 65 * 2500.0, rel=1e-6)
    # water spreads: more cells carry a few cells' area than with D8, and the D8 maps still come out
    few = lambda a: ((a > 2 * 2500.0) & (a < 20 * 2500.0)).mean()  # noqa: E731
    assert few(res.drainage_area) > 1.5 * few(d8.drainage_area)
    assert set(np.unique(res.direction)) <= set(range(-1, 8))
    with pytest.raises(ValueError, match="routing must be one of d8, mfd"):
        stream_power.stream_power_erosion(z0, 50.0, steps=1, routing="dinf")
    with pytest.raises(ValueError, match="flow_exponent"):
        stream_power.stream_power_erosion(z0, 50.0, steps=1, routing="mfd", flow_exponent=50.0)
    with pytest.raises(ValueError, match=r"steps: 400 stream-power steps \(mfd\)"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("OROGEN_WORK_LIMIT", "1min")
            stream_power.check_stream_power_work((1025, 1025), 400, "mfd")


def test_the_erosion_filter_declares_routing_and_its_maps_are_the_mfd_ones():
    stack = (("erosion", {"steps": 4, "routing": "mfd", "flow_exponent": 1.1}),)
    r = Recipe("fractal", 5, (33, 40), {}, stack, cell_size=50.0, height=800.0, version=2)
    _, maps = r.evaluate_with_maps()
    start = (
        Recipe("fractal", 5, (33, 40), {}, (), cell_size=50.0, height=800.0, version=2).evaluate().astype(np.float64)
    )
    result = stream_power.stream_power_erosion(
        start * 800.0, 50.0, uplift=1e-3 * start, steps=4, dt=2e4, routing="mfd", flow_exponent=1.1, **V3
    )  # a version-2 recipe runs version 3's schemes
    assert np.array_equal(maps["drainage_area"], result.drainage_area)
    params = {p.name: p for p in FILTERS["erosion"].params}
    assert params["routing"].default == "d8" and params["routing"].choices == ("d8", "mfd")
    assert params["flow_exponent"].hard == (0.0, 20.0)


# --- geomorphic statistics, measured with an independent routing (fastscapelib's) -----------------
def gates(z, cell):
    rec, dist, area = oracles.routing(z, cell)
    threshold = 50 * cell * cell
    share = geomorph.depression_share(z, oracles.filled(z, cell), area, min_area=threshold)
    theta = -geomorph.concavity(z, rec, dist, area=area, min_area=threshold).exponent
    hack = geomorph.hack_exponent(geomorph.upstream_length(rec, dist), area, threshold).exponent
    return {
        "depression_share": share,
        "theta": theta,
        "hack": hack,
        "passed": {"depressions": share <= 0.05, "theta": 0.35 <= theta <= 0.6, "hack": 0.5 <= hack <= 0.6},
    }


@pytest.fixture(scope="module")
def diamond_start():
    z = diamond_square((513, 513), 11, roughness=1.0)
    return (z - z.min()) / (z.max() - z.min()) * 1000.0


@pytest.mark.slow
def test_eroded_terrain_passes_the_river_network_gates(diamond_start):
    res = stream_power.stream_power_erosion(diamond_start, 50.0, steps=30)  # the defaults otherwise
    g = gates(res.heights.astype(np.float64), 50.0)
    assert all(g["passed"].values()), g


@pytest.mark.slow
def test_eroded_fault_terrain_passes_the_gates():
    z = fault_formation((257, 257), 5, faults=300)
    z = (z - z.min()) / (z.max() - z.min()) * 800.0
    res = stream_power.stream_power_erosion(z, 100.0, steps=40)
    g = gates(res.heights.astype(np.float64), 100.0)
    assert all(g["passed"].values()), g


def test_the_gates_fail_on_uneroded_diamond_square(diamond_start):
    g = gates(diamond_start, 50.0)
    assert not g["passed"]["depressions"] and not g["passed"]["theta"], g


# --- lakes filled by the sediment eroded upstream (lake_fill) ----------------------------------------
def bowl():
    """5 x 5: open edges at 10 m around a closed 3 x 3 basin whose lowest cell is 0 m (capacity 54 m·cells)."""
    z = np.full((5, 5), 10.0)
    z[1:4, 1:4] = [[4.0, 5.0, 6.0], [3.0, 0.0, 2.0], [8.0, 1.0, 7.0]]
    return z


def test_a_lake_fills_from_its_floor_up_with_what_reaches_it():
    z = bowl()
    routing = flow.route_flow(z, 10.0)
    sed = np.zeros(25)
    sed[12] = 3.5  # the floor cell's own incision, which stays in the lake
    f = lakes.fill_lakes(routing, z, sed)
    assert f.exit.size == 1 and f.spill[0] == 10.0 and f.capacity[0] == pytest.approx(90.0 - 36.0)
    assert f.inflow[0] == pytest.approx(3.5) and f.deposited[0] == pytest.approx(3.5)
    # the three lowest cells (0, 1, 2 m) rise to L with 3 L - 3 = 3.5; the others stay
    new = f.heights.reshape(5, 5)
    level = 6.5 / 3.0
    raised = np.isin(z, [0.0, 1.0, 2.0])
    assert np.allclose(new[raised], level, rtol=0.0, atol=1e-12) and np.array_equal(new[~raised], z[~raised])
    assert (new - z).sum() == pytest.approx(3.5, rel=1e-12)
    # more than it holds: full to the spill level, the rest passes on
    sed[12] = 200.0
    f = lakes.fill_lakes(routing, z, sed)
    assert f.deposited[0] == pytest.approx(54.0) and f.inflow[0] == pytest.approx(200.0)
    assert np.allclose(f.heights.reshape(5, 5)[1:4, 1:4], 10.0, rtol=0.0, atol=1e-12)
    assert (f.heights >= 10.0).all()


def test_no_lake_nothing_changes():
    z = np.add.outer(np.arange(6.0), np.arange(7.0))  # a plane to the north-west corner: no depression
    routing = flow.route_flow(z, 10.0)
    f = lakes.fill_lakes(routing, z, np.ones(42))
    assert f.exit.size == 0 and np.array_equal(f.heights, z.ravel()) and (f.lake == -1).all()


@pytest.mark.parametrize("seed, scale", [(1, 0.01), (2, 0.3), (3, 3.0), (4, 1e4)])
def test_lake_fill_conserves_mass_and_stays_below_the_spill(seed, scale):
    """Deposit per lake <= what was eroded upstream of it (accumulated independently, without lakes) and <= its
    volume; the heights rise by exactly the deposit; no cell above the priority-flood surface (fastscapelib's).
    ``scale`` from lakes barely touched to every lake full."""
    cell = 20.0
    z = diamond_square((97, 97), seed, roughness=1.1) * 300.0
    routing = flow.route_flow(z, cell)
    assert routing.depressions > 10
    sed = scale * (0.5 + 0.5 * np.sin(np.arange(z.size) * 0.37 + seed) ** 2)
    f = lakes.fill_lakes(routing, z, sed)
    new = f.heights.reshape(z.shape)
    assert np.isfinite(new).all() and (new >= z).all()
    assert np.array_equal(new[f.lake.reshape(z.shape) < 0], z[f.lake.reshape(z.shape) < 0])
    # what was eroded upstream of each lake: all the sediment through its outflow cells, lakes ignored
    upstream = flow.drainage_area(routing, runoff=sed.reshape(z.shape)).ravel() / cell**2
    rec = routing.receivers
    outflow = (f.lake >= 0) & (f.lake[rec] < 0)
    eroded_above = np.bincount(f.lake[outflow], upstream[outflow], minlength=f.exit.size)
    assert (f.deposited <= eroded_above * (1.0 + 1e-6)).all()
    assert (f.deposited <= f.capacity * (1.0 + 1e-12)).all() and (f.deposited > 0.0).any()
    assert (f.deposited <= f.inflow).all() and (f.inflow <= eroded_above * (1.0 + 1e-6)).all()
    rise = np.bincount(f.lake[f.lake >= 0], (new.ravel() - z.ravel())[f.lake >= 0], minlength=f.exit.size)
    assert np.allclose(rise, f.deposited, rtol=1e-9, atol=1e-9)
    # below each lake's spill level (its exit's height), up to the float64 steps of the deposit's gradient
    lake = f.lake >= 0
    assert (new.ravel()[lake] <= f.spill[f.lake[lake]] + 1e-9).all()
    oracles.fastscapelib()
    assert (new <= oracles.filled(z, cell) + 1e-9).all()
    if scale >= 1e4:  # every lake full: no closed depression left, the flow crosses the deposits
        assert np.allclose(f.deposited, f.capacity)
        assert (oracles.filled(new, cell) - new).max() <= 1e-9


def test_lake_fill_in_a_run_drains_the_basins_below_the_edges():
    """Uplift from the terrain with open edges: the start's low basins get almost no uplift and stay lakes;
    with lake_fill the sediment from their slopes fills them."""
    z0 = diamond_square((129, 129), 5, roughness=1.0)
    z0 = (z0 - z0.min()) / (z0.max() - z0.min()) * 600.0
    kw = {"steps": 12, "dt": 4e4, "uplift": 1e-3 * z0 / 600.0}
    off = stream_power.stream_power_erosion(z0, 100.0, **kw)
    on = stream_power.stream_power_erosion(z0, 100.0, lake_fill=True, **kw)
    assert np.isfinite(on.heights).all() and on.heights.dtype == np.float32
    oracles.fastscapelib()
    lakes = [float((oracles.filled(r.heights.astype(np.float64), 100.0) - r.heights > 1e-3).mean()) for r in (off, on)]
    assert lakes[0] > 0.05 and lakes[1] < 0.2 * lakes[0], lakes
    # deposits are negative erosion; the channel incision is the same bookkeeping as without
    assert on.eroded.min() < -1.0 and (on.incision >= 0.0).all()


def test_lake_fill_is_declared_once_on_by_default_and_off_for_version_2():
    from core.spec import load_spec
    from core.versions import part

    params = {p.name: p for p in FILTERS["erosion"].params}
    assert params["lake_fill"].default is True and params["lake_fill"].kind == "bool"
    assert {p.name: p for p in part("erosion", 2).params}["lake_fill"].default is False
    v2 = load_spec({"version": 2, "generator": "fractal", "filters": [{"type": "erosion", "steps": 2}]})
    assert v2.filters[0].params["lake_fill"] is False  # a version-2 spec keeps the heightmap it gave
    with pytest.raises(TypeError, match="lake_fill"):
        stream_power.stream_power_erosion(ds_terrain(17, 1, 1.0, 10.0), 10.0, steps=1, lake_fill="yes")
    with pytest.raises(TypeError, match="routing"):
        lakes.fill_lakes(None, np.zeros(9), np.zeros(9))


# --- the same landscape at every size (spec version 3) ----------------------------------------
def test_a_channel_narrower_than_the_cell_scales_the_incision_by_width_over_cell():
    z = ds_terrain(33, 4, 1.0, 60.0)
    kw = dict(k=2e-4, m=0.5, uplift=0.0, dt=1e4)
    narrow, _, _ = stream_power.stream_power_step(z, 10.0, channel_width=2.5, **kw)
    scaled, _, _ = stream_power.stream_power_step(z, 10.0, **{**kw, "k": 2e-4 * (2.5 / 10.0)})
    assert np.array_equal(narrow, scaled)
    plain, _, _ = stream_power.stream_power_step(z, 10.0, **kw)
    wide, _, _ = stream_power.stream_power_step(z, 10.0, channel_width=10.0, **kw)  # as wide as a cell: no change
    assert np.array_equal(plain, wide) and (z - narrow).sum() < (z - plain).sum()
    with pytest.raises(ValueError, match="channel_width"):
        stream_power.stream_power_step(z, 10.0, channel_width=-1.0, **kw)


@pytest.mark.parametrize("routing", ["d8", "mfd"])
def test_cells_draining_less_than_the_channel_area_are_not_incised(routing):
    z = ds_terrain(33, 5, 1.0, 60.0)
    kw = dict(k=2e-4, m=0.5, uplift=0.0, dt=1e4, routing=routing)
    out, _, area = stream_power.stream_power_step(z, 10.0, channel_area=2000.0, **kw)
    hillslope = area < 2000.0
    assert 0.5 < hillslope.mean() < 1.0
    assert np.array_equal(out[hillslope], z[hillslope])
    assert (out[~hillslope] < z[~hillslope]).any()
    everywhere, _, _ = stream_power.stream_power_step(z, 10.0, **kw)
    assert (everywhere[hillslope] < z[hillslope]).any()
    with pytest.raises(ValueError, match="channel_area"):
        stream_power.stream_power_step(z, 10.0, channel_area=-1.0, **kw)


def test_the_map_scaled_rates_do_not_depend_on_the_cell_size():
    for n in (129, 257, 1025):
        cell = 400.0 / (n - 1)
        assert stream_power.map_diffusivity((n, n), cell, 2e5) == pytest.approx((200.0 / 32.0) ** 2 / 2e5)
        assert stream_power.default_channel_width((n, n), cell) == pytest.approx(400.0 / 1024.0)
    assert stream_power.default_diffusivity(400.0 / 256, 2e5) == pytest.approx(
        16 * stream_power.default_diffusivity(400.0 / 1024, 2e5)
    )  # version 2's: one cell, sixteen times the D at 257² as at 1025²


def test_the_resolution_settings_are_declared_once_and_version_2_keeps_its_rates():
    from core.spec import load_spec
    from core.versions import part

    params = {p.name: p for p in FILTERS["erosion"].params}
    assert params["auto_scale"].default == "map" and params["channel_area"].default == 0.0
    assert params["channel_area"].unit == "m2" and params["channel_width"].unit == "m"
    assert params["channel_width"].default == 0.0
    v2 = {p.name: p for p in part("erosion", 2).params}
    assert v2["auto_scale"].default == "cell"
    spec = load_spec({"version": 2, "generator": "fractal", "filters": [{"type": "erosion", "steps": 2}]})
    assert spec.filters[0].params["auto_scale"] == "cell" and spec.filters[0].params["channel_area"] == 0.0


# --- the work bound counts what a step costs, Newton iterations included ----------------------------------------------
def _start(size, generator):
    from core.spec import TerrainSpec

    return TerrainSpec(size=size, generator=generator).replace(filters=()).heightmap().astype(np.float64) * 20.0


@pytest.mark.parametrize(
    ("size", "generator", "routing", "n"),
    [
        (33, "hills", "d8", 4.0),
        (65, "noise", "d8", 4.0),
        (65, "diamond_square", "d8", 0.25),
        (33, "noise", "mfd", 0.25),
        (65, "hills", "mfd", 4.0),
        (65, "diamond_square", "mfd", 2.0),
        (65, "noise", "mfd", 1.0),
    ],
)
def test_the_counted_work_of_a_run_is_within_its_estimate(size, generator, routing, n):
    z0 = _start(size, generator)
    steps = 3
    res = stream_power.stream_power_erosion(z0, 100.0 / (size - 1), k=1.0, n=n, routing=routing, steps=steps)
    estimate = steps * stream_power.step_work(z0.shape, routing=routing, n=n)
    # the recipe's bound (filter passes over the grid) is at least the step estimate at every shape
    from core.filters import filter_work

    assert filter_work(z0.shape, stream_power.stream_power_passes(steps, routing=routing, n=n)) >= estimate
    assert res.work <= estimate
    # and honest the other way: K = 1 makes the Newton solve work hard, the count is a real share of the estimate
    assert res.work >= (0.99 if n == 1.0 else 0.2) * estimate


def test_newton_work_is_counted_and_n_1_has_none():
    z0 = _start(33, "hills")
    linear = stream_power.stream_power_erosion(z0, 3.0, k=1.0, n=1.0, steps=2)
    assert linear.work == 2 * 33 * 33 * stream_power.STEP_COST
    power = stream_power.stream_power_erosion(z0, 3.0, k=1.0, n=4.0, steps=2)
    assert power.work > 2 * linear.work


def test_multiple_flow_with_n_4_is_refused_where_it_would_run_past_the_limit(monkeypatch):
    # the case that ran away: 100 steps at 65^2, multiple flow, n = 4, K = 1 ran 152 s; the bound admitted 14 min
    z0 = _start(65, "hills")
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "4s")  # about a dozen such steps at 65^2
    most = limit_work(65 * 65) // stream_power.step_work((65, 65), routing="mfd", n=4.0)
    assert 10 <= most < 100
    with pytest.raises(
        ValueError, match=rf"steps: 100 stream-power steps \(mfd, n = 4\).*steps must be in \[0, {most}\]"
    ):
        stream_power.stream_power_erosion(z0, 1.5, k=1.0, n=4.0, routing="mfd", steps=100)
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "1min")
    with pytest.raises(ValueError, match=r"erosion.steps: 100 over 257 x 257 .* must be at most \d+ "):
        Recipe(
            generator="hills",
            shape=(257, 257),
            filters=(("erosion", {"steps": 100, "routing": "mfd", "n": 4.0, "auto_rates": False, "k": 1.0}),),
        ).check_work()
    Recipe(
        generator="hills", shape=(257, 257), filters=(("erosion", {"steps": 100, "routing": "mfd", "n": 1.0}),)
    ).check_work()


def test_a_callback_returning_false_stops_inside_the_first_step():
    z0 = _start(65, "noise")
    seen = []

    def stop(done, total):
        seen.append((done, total))
        return False

    # one multiple-flow step with n = 0.25 counts about 3e8 cell passes: the callback is polled inside it
    with pytest.raises(Cancelled, match="after step 0 of 3") as err:
        stream_power.stream_power_erosion(z0, 1.5, k=1.0, n=0.25, routing="mfd", steps=3, callback=stop)
    assert seen == [(0, 3)]
    assert err.value.done == 0
    assert np.array_equal(err.value.result.heights, z0.astype(np.float32))
    assert 0 < err.value.result.work <= stream_power.step_work(z0.shape, routing="mfd", n=0.25)


def test_a_long_step_without_newton_iterations_is_cancelled_between_its_phases():
    # n = 1 at 1025^2: a step of about 4e7 cell passes polls the callback after its routing
    z0 = diamond_square((1025, 1025), 3, roughness=1.0).astype(np.float64) * 50.0
    seen = []

    def stop(done, total):
        seen.append((done, total))
        return False

    with pytest.raises(Cancelled, match="after step 0 of 2") as err:
        stream_power.stream_power_erosion(z0, 10.0, steps=2, callback=stop)
    assert seen == [(0, 2)] and err.value.done == 0
    assert np.array_equal(err.value.result.heights, z0.astype(np.float32))
