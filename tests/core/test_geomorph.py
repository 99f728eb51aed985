"""core.geomorph: the realism report's measures against an oracle (fastscapelib) and exact cases."""

import json

import numpy as np
import oracles
import pytest

from core import geomorph
from core.erosion.river_network import depression_share
from core.presets import preset_spec


def fbm(n, beta, seed):
    """Spectral synthesis: power ~ k^-beta, periodic, n x n."""
    rng = np.random.default_rng(seed)
    k = np.hypot(*np.meshgrid(np.fft.fftfreq(n), np.fft.fftfreq(n), indexing="ij"))
    k[0, 0] = 1.0
    amp = k ** (-beta / 2)
    amp[0, 0] = 0.0
    f = amp * np.exp(2j * np.pi * rng.random((n, n)))
    z = np.fft.ifft2(f).real
    return np.ascontiguousarray(1000.0 * (z - z.min()) / np.ptp(z))


def cone(n=65):
    yy, xx = np.mgrid[0:n, 0:n] - (n - 1) / 2
    return np.maximum(0.0, (n - 1) / 2 - np.hypot(yy, xx))


@pytest.fixture(scope="module")
def eroded():
    spec = preset_spec("eroded_mountains").replace(size=129)
    return (spec.heightmap() * np.float32(spec.height)).astype(np.float64), spec.cell_size


def pitted():
    z = fbm(64, 2.0, 3)
    z[10:14, 20:24] -= 200.0
    z[40, 40] -= 500.0
    return z


@pytest.mark.parametrize("which", ["fbm", "eroded", "pits"])
def test_d8_routing_and_drainage_area_equal_fastscapelib(which, request):
    fs = oracles.fastscapelib()
    if which == "fbm":
        z, cell = fbm(64, 2.0, 1), 1.0
    elif which == "eroded":
        z, cell = request.getfixturevalue("eroded")
    else:
        z, cell = pitted(), 1.0
    rec, dist = geomorph.d8_routing(z, cell)
    g = oracles.grid(z.shape, cell)
    graph = fs.FlowGraph(g, [fs.SingleFlowRouter()])
    graph.update_routes(np.asarray(z, dtype=np.float64))
    impl = graph.impl()
    ref_rec = impl.receivers[:, 0].astype(np.int64).copy()
    ref_dist = impl.receivers_distance[:, 0].copy()
    ref_area = graph.accumulate(1.0).copy().ravel() / (cell * cell)
    del impl, graph, g
    assert np.array_equal(rec, ref_rec)
    np.testing.assert_allclose(dist, ref_dist, rtol=1e-12)
    np.testing.assert_allclose(geomorph.drainage_area_cells(rec), ref_area, rtol=1e-12)


def test_closed_depression_share_zero_on_eroded_high_on_white_noise(eroded):
    z, cell = eroded  # its sea (the flat floor the sea_level filter leaves) is base level, as in nature
    assert geomorph.closed_depression_share(z, cell, sea_level=float(z.min())) < 0.005
    # without the sea its floor lies below every edge: the sea and the channels under its spill level are closed
    assert geomorph.closed_depression_share(z, cell) > 0.05
    drained = oracles.filled(fbm(128, 2.0, 5), 1.0)  # priority flood + epsilon: every cell drains to an edge
    assert geomorph.closed_depression_share(drained, 1.0) == 0.0
    noise = np.random.default_rng(0).random((128, 128))
    share = geomorph.closed_depression_share(noise, 1.0, min_area=10)
    assert share is not None and share > 0.5


@pytest.mark.parametrize("which", ["fbm", "eroded", "noise"])
def test_closed_depression_share_equals_fastscapelibs(which, eroded):
    """The share on Orogen's routing and fill equals the one on fastscapelib's D8 routing and priority flood."""
    oracles.fastscapelib()
    if which == "eroded":
        z, cell = eroded
    elif which == "fbm":
        z, cell = fbm(128, 2.0, 5) * 40.0, 10.0
    else:
        z, cell = np.random.default_rng(0).random((96, 96)) * 5.0, 1.0
    _, _, area = oracles.routing(z, cell)
    ref = depression_share(z, oracles.filled(z, cell), area, min_area=50 * cell * cell)
    # the same cells are closed; which cells of a flat lake floor collect area (channel cells) depends on how
    # each routing crosses flats: 7.2 % against 8.6 % on the eroded preset's sea floor without its sea
    assert geomorph.closed_depression_share(z, cell) == pytest.approx(ref, abs=0.02)


def test_sea_is_base_level():
    z = pitted()
    low = float(z[40, 40])
    without = geomorph.closed_depression_share(z, 1.0, min_area=5)
    with_sea = geomorph.closed_depression_share(z, 1.0, min_area=5, sea_level=low)
    assert without is not None and with_sea is not None and with_sea < without


def test_hypsometric_integral_of_a_cone_and_a_plane():
    n = 1025
    yy, xx = np.mgrid[0:n, 0:n] - (n - 1) / 2
    r = np.hypot(yy, xx) / ((n - 1) / 2)
    inside = r <= 1.0
    # HI over the cone's own disc: (mean - min) / relief = 1/3
    z = 1.0 - r[inside]
    assert abs(geomorph.hypsometric_integral(z[None, :]) - 1 / 3) < 1e-3
    plane = np.add.outer(np.arange(64.0), np.zeros(64))
    assert geomorph.hypsometric_integral(plane) == 0.5
    assert geomorph.hypsometric_integral(np.zeros((4, 4))) is None


@pytest.mark.parametrize("beta", [1.6, 2.0, 2.6])
def test_spectrum_slope_of_fbm_is_recovered(beta):
    got, rollover, r2 = geomorph.power_spectrum_slope(fbm(256, beta, 7), 10.0)
    assert abs(got - beta) < 0.3 and r2 > 0.9
    crop = fbm(1024, beta, 3)[100:356, 200:456]  # not periodic: the plane and the window keep the slope
    got, _, r2 = geomorph.power_spectrum_slope(crop, 10.0)
    assert abs(got - beta) < 0.3 and r2 > 0.9


def test_geomorphons_of_a_peak_a_pit_and_a_plane():
    z = cone()
    c = 32
    peak = geomorph.GEOMORPHON_CLASSES.index("peak")
    pit = geomorph.GEOMORPHON_CLASSES.index("pit")
    assert geomorph.geomorphons(z, 1.0, radius=5)[c, c] == peak
    assert geomorph.geomorphons(-z, 1.0, radius=5)[c, c] == pit
    plane = np.add.outer(np.arange(32.0), np.zeros(32))
    forms = geomorph.geomorphons(plane, 1.0, radius=5)
    assert set(np.unique(forms[5:-5, 5:-5])) == {geomorph.GEOMORPHON_CLASSES.index("slope")}
    flat = geomorph.geomorphons(plane * 1e-3, 1.0, radius=5, flat_deg=1.0)
    assert set(np.unique(flat)) == {0}


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="cell_size"):
        geomorph.report(np.zeros((16, 16)), 0.0)
    with pytest.raises(ValueError, match="radius"):
        geomorph.geomorphons(np.zeros((16, 16)), 1.0, radius=0)
    with pytest.raises(ValueError, match="flat_deg"):
        geomorph.geomorphons(np.zeros((16, 16)), 1.0, flat_deg=90)


def test_report_is_json_with_finite_numbers_and_reasons():
    r = geomorph.report(np.zeros((16, 16)), 1.0)
    data = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert data["measures"]["hypsometric_integral"]["value"] is None
    assert data["measures"]["hypsometric_integral"]["reason"]
    assert abs(sum(b["share"] for b in data["slope_histogram"]) - 1.0) < 1e-12
    assert abs(sum(data["geomorphons"].values()) - 1.0) < 1e-12


def test_report_of_an_eroded_preset(eroded):
    z, cell = eroded
    r = geomorph.report(z, cell, sea_level=float(z.min()))
    assert r.measure("closed_depression_share").verdict == "real-like"
    assert r.measure("hack_exponent").verdict == "real-like"
    assert r == geomorph.report(z, cell, sea_level=float(z.min()))


def test_report_of_the_jacksboro_dem():
    cbook = pytest.importorskip("matplotlib.cbook")
    from core.io.geotiff import metres_per_degree

    d = cbook.get_sample_data("jacksboro_fault_dem.npz")
    a, b = metres_per_degree(36.6)
    cell = float(np.sqrt(d["dx"] * a * d["dy"] * b))
    r = geomorph.report(d["elevation"].astype(np.float64), cell)
    for name in ("hypsometric_integral", "median_slope_deg", "spectrum_beta"):
        assert r.measure(name).verdict == "real-like", r.measure(name).text
    assert 0.4 < r.measure("hack_exponent").value < 0.65
    assert 4.7 < r.measure("spectrum_beta").value < 5.1  # smoother than any fractal at short wavelengths


def test_rough_noise_has_a_low_spectrum_slope():
    z = fbm(256, 2.6, 5)  # a fractal with Hurst exponent 0.3: rougher than landscapes are
    m = geomorph.report(z * 100.0, 10.0).measure("spectrum_beta")
    assert m.verdict == "low" and abs(m.value - 2.6) < 0.3
