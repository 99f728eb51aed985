"""The noise family: lattice noises (core.noise.lattice) and their fractal sums (core.noise.fractal).

Values, invariants and statistics: exact windows, resolution independence,
units in metres, ranges, isotropy, the fBm power spectrum, the per-octave
weights, continuity in detail, golden hashes in a fresh process (run under
numpy 1.26 and 2.x), and errors naming the parameter.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from resolution import block_mean

import core
from core.noise import lattice as gradient
from core.noise.fractal import BASES, FRACTALS, fractal_noise
from core.window import Window

ROOT = Path(__file__).resolve().parents[2]


def grid(n_rows, n_cols, x0=-3.7, y0=5.2, dx=0.043, dy=0.051):
    xs = x0 + dx * np.arange(n_cols)
    ys = y0 + dy * np.arange(n_rows)
    return xs, ys, *np.meshgrid(xs, ys)


# --- lattice noises --------------------------------------------------------------------------------------
def test_the_separable_grid_forms_equal_the_point_forms_bit_for_bit():
    xs, ys, x, y = grid(90, 130)
    assert np.array_equal(
        gradient.perlin_grid(xs, ys, 3, lattice=2, amplitude=0.7),
        gradient.perlin_noise(x, y, 3, lattice=2, amplitude=0.7),
    )
    assert np.array_equal(
        gradient.value_grid(xs, ys, 3, lattice=2, amplitude=0.7),
        gradient.value_noise(x, y, 3, lattice=2, amplitude=0.7),
    )


def test_a_lattice_finer_than_the_grid_is_hashed_not_tabulated(monkeypatch):
    xs, ys, x, y = grid(30, 40, dx=700.3, dy=900.7)  # a tabulated box would hold ~7e8 lattice points
    calls = []
    monkeypatch.setattr(gradient, "_box_rows", lambda *a: calls.append(a))
    assert np.array_equal(gradient.perlin_grid(xs, ys, 1), gradient.perlin_noise(x, y, 1))
    assert np.array_equal(gradient.value_grid(xs, ys, 1), gradient.value_noise(x, y, 1))
    assert not calls
    out = fractal_noise((30, 40), 1, feature_size=1e-3, detail=0.0)
    assert np.isfinite(out).all() and out.std() > 0.1


@pytest.mark.parametrize("name", ["perlin", "value", "simplex", "f1", "f2", "f2_f1"])
def test_tabulated_and_hashed_lattice_lookups_agree(monkeypatch, name):
    def evaluate(x, y):
        if name in ("f1", "f2", "f2_f1"):
            return gradient.cellular_noise(x, y, 5, lattice=1, feature=name)
        return getattr(gradient, f"{name}_noise")(x, y, 5, lattice=1)

    _, _, x, y = grid(40, 50)
    boxed = evaluate(x, y)
    monkeypatch.setattr(gradient, "_BOX_MIN", 0)
    monkeypatch.setattr(gradient, "_BOX_PER_POINT", 0)
    assert np.array_equal(boxed, evaluate(x, y))


def test_gradient_noise_is_zero_on_the_lattice_and_within_its_range():
    i = np.arange(-20, 20, dtype=np.float64)
    assert not gradient.perlin_noise(i[None, :], i[:, None], 9).any()
    _, _, x, y = grid(400, 400, dx=0.0371, dy=0.0419)
    for noise in (gradient.perlin_noise, gradient.simplex_noise, gradient.value_noise):
        v = noise(x, y, 9)
        assert v.dtype == np.float32 and -1.0 <= v.min() and v.max() <= 1.0
        assert abs(float(v.mean())) < 0.05
        assert 0.15 < float(v.std()) < 0.6


def test_perlin_reaches_its_bound_when_the_gradients_point_at_the_centre(monkeypatch):
    # All four corners' gradients aimed at the cell centre: the extreme value, exactly 1 after the √2 scale.
    def toward_centre(seed, lattice, amp, iy, ix):
        iy, ix = np.broadcast_arrays(iy, ix)
        gx = np.where(ix % 2 == 0, 1.0, -1.0) * gradient._H * gradient.PERLIN_SCALE
        gy = np.where(iy % 2 == 0, 1.0, -1.0) * gradient._H * gradient.PERLIN_SCALE
        return gx.astype(np.float32) * amp, gy.astype(np.float32) * amp

    monkeypatch.setattr(gradient, "_perlin_at", toward_centre)
    assert gradient.perlin_noise(np.array([0.5]), np.array([0.5]))[0] == pytest.approx(1.0, abs=1e-6)


def brute_force_cellular(x, y, seed, lattice, reach=4):
    """F1 and F2 in float64 from every feature point within ``reach`` cells."""
    ix, iy = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
    d = []
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            jx, jy = gradient._cellular_at(seed, lattice, np.float32(1), iy + dy, ix + dx)
            d.append(np.hypot(ix + dx + jx.astype(np.float64) - x, iy + dy + jy.astype(np.float64) - y))
    d = np.sort(np.array(d), axis=0)
    return d[0], d[1]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**64 - 1), st.floats(-1e5, 1e5), st.floats(-1e5, 1e5))
def test_cellular_f1_and_f2_are_the_true_nearest_distances(seed, x0, y0):
    x = x0 + np.random.default_rng(seed % 1000).random(2000) * 30
    y = y0 + np.random.default_rng(seed % 1000 + 1).random(2000) * 30
    f1, f2 = brute_force_cellular(x, y, seed, 3)
    assert np.allclose(gradient.cellular_noise(x, y, seed, lattice=3, feature="f1"), f1, atol=2e-5)
    assert np.allclose(gradient.cellular_noise(x, y, seed, lattice=3, feature="f2"), f2, atol=2e-5)
    assert np.allclose(gradient.cellular_noise(x, y, seed, lattice=3, feature="f2_f1"), f2 - f1, atol=4e-5)
    assert f1.max() < np.sqrt(2.0) and f2.max() < 1.81


@pytest.mark.parametrize("name", ["perlin", "value", "simplex", "f1", "f2", "f2_f1"])
def test_every_noise_is_continuous(name):
    # Along a line crossing a hundred cells, the largest step between neighbouring samples halves with the
    # spacing (a jump anywhere would not shrink) and stays within a slope of 10.
    def largest_step(spacing):
        t = np.arange(0.0, 120.0, spacing)
        x, y = -7.3 + t * 0.8, 2.1 + t * 0.6
        v = (
            gradient.cellular_noise(x, y, 2, lattice=0, feature=name)
            if name.startswith("f")
            else getattr(gradient, f"{name}_noise")(x, y, 2)
        )
        return np.abs(np.diff(v.astype(np.float64))).max()

    coarse, fine = largest_step(2e-4), largest_step(1e-4)
    assert fine < 10 * 1e-4 and fine / coarse < 0.6


# --- fractal terrain: windows, metres, resolution --------------------------------------------------------
CASES = (
    [(b, "fbm", 0.0) for b in BASES]
    + [("perlin", f, 0.0) for f in FRACTALS[1:]]
    + [
        ("simplex", "ridged_multifractal", 30.0),
        ("value", "hybrid_multifractal", 30.0),
        ("cellular_f2_f1", "hetero_terrain", 30.0),
        ("perlin", "billow", 30.0),
    ]
)


@pytest.mark.parametrize(("basis", "fractal", "distortion"), CASES)
def test_a_window_equals_the_same_cells_of_the_whole(basis, fractal, distortion):
    kw = dict(
        basis=basis,
        fractal=fractal,
        distortion=distortion,
        warp_iterations=2,
        feature_size=40.0,
        cell_size=2.5,
        detail=3.5,
    )
    whole = fractal_noise((120, 150), 5, **kw)
    assert whole.dtype == np.float64 and whole.shape == (120, 150) and np.isfinite(whole).all()
    part = fractal_noise((120, 150), 5, window=Window(17, 33, 60, 71), **kw)
    assert np.array_equal(whole[17:77, 33:104], part)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 99), st.integers(0, 99), st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**64 - 1))
def test_any_window_is_exact(row, col, rows, cols, seed):
    world = (140, 140)
    whole = fractal_noise(world, seed, feature_size=20.0, distortion=5.0)
    part = fractal_noise(world, seed, window=Window(row, col, rows, cols), feature_size=20.0, distortion=5.0)
    assert np.array_equal(whole[row : row + rows, col : col + cols], part)


@pytest.mark.parametrize(("fractal", "distortion"), [(f, 0.0) for f in FRACTALS] + [("fbm", 60.0)])
def test_the_257_preview_is_the_1025_terrain_downsampled(fractal, distortion):
    kw = dict(fractal=fractal, distortion=distortion)
    full = fractal_noise((1025, 1025), 8, cell_size=1.0, **kw)  # 1024 m across
    preview = fractal_noise((257, 257), 8, cell_size=4.0, **kw)
    assert np.array_equal(full[::4, ::4], preview)  # the same world positions give the same bits
    assert np.corrcoef(block_mean(full, 4).ravel(), preview.ravel())[0, 1] >= 0.98


def test_resolution_independence_with_cell_sizes_that_are_not_binary_fractions():
    full = fractal_noise((601, 601), 4, cell_size=0.3, feature_size=30.0, distortion=5.0)
    preview = fractal_noise((151, 151), 4, cell_size=1.2, feature_size=30.0, distortion=5.0)
    assert np.abs(full[::4, ::4] - preview).max() < 1e-4
    assert np.corrcoef(block_mean(full, 4).ravel(), preview.ravel())[0, 1] >= 0.98


@pytest.mark.parametrize("basis", BASES)
def test_lengths_are_in_metres(basis):
    # Doubling every length (cell size, feature size, distortion) gives the same terrain, bit for bit.
    one = fractal_noise((60, 70), 3, basis=basis, cell_size=1.5, feature_size=25.0, distortion=7.0)
    two = fractal_noise((60, 70), 3, basis=basis, cell_size=3.0, feature_size=50.0, distortion=14.0)
    assert np.array_equal(one, two)


def test_one_octave_of_fbm_is_the_lattice_noise_at_the_world_positions():
    out = fractal_noise((50, 60), 6, detail=0.0, cell_size=2.0, feature_size=37.0)
    octave = core.noise.fractal._octaves(6, 0, 37.0, 0.0, 0.5, 2.0)[0]
    x = np.arange(60) * 2.0 * (1.0 / 37.0) + octave.shift_x
    y = np.arange(50) * 2.0 * (1.0 / 37.0) + octave.shift_y
    assert np.array_equal(out, gradient.perlin_grid(x, y, 6, lattice=0).astype(np.float64))
    assert np.array_equal(fractal_noise((50, 60), 6, detail=4.0, roughness=0.0, cell_size=2.0, feature_size=37.0), out)


# --- statistics per fractal type ------------------------------------------------------------------------
def test_value_ranges_of_the_fractal_types():
    kw = dict(feature_size=64.0, detail=5.0, roughness=0.5)
    weights = sum(0.5**k for k in range(6))
    for basis in BASES:
        fbm = fractal_noise((300, 300), 1, basis=basis, **kw)
        assert -1.0 <= fbm.min() and fbm.max() <= 1.0
        assert abs(fbm.mean()) < 0.1
    billow = fractal_noise((300, 300), 1, fractal="billow", **kw)
    assert -1.0 <= billow.min() and billow.max() <= 1.0
    ridged = fractal_noise((300, 300), 1, fractal="ridged_multifractal", offset=1.0, gain=2.0, **kw)
    assert 0.0 <= ridged.min() and ridged.max() <= weights
    hybrid = fractal_noise((300, 300), 1, fractal="hybrid_multifractal", offset=1.0, gain=2.0, **kw)
    assert 0.0 <= hybrid.min() and hybrid.max() <= 2 * weights
    hetero = fractal_noise((300, 300), 1, fractal="hetero_terrain", offset=1.0, **kw)
    first = fractal_noise((300, 300), 1, fractal="hetero_terrain", offset=1.0, **{**kw, "detail": 0.0})
    assert (hetero >= first).all()  # with offset 1 every increment is >= 0
    assert np.allclose(first, fractal_noise((300, 300), 1, **{**kw, "detail": 0.0}) + 1.0, atol=1e-6)


def test_ridges_are_where_the_noise_crosses_zero():
    kw = dict(feature_size=64.0, detail=0.0)
    noise = fractal_noise((200, 200), 2, **kw)
    ridged = fractal_noise((200, 200), 2, fractal="ridged_multifractal", offset=1.0, **kw)
    assert np.allclose(ridged, (1.0 - np.abs(noise)) ** 2, atol=1e-6)


def directional_variances(a):
    """Variance of the difference per unit length along x, y and the two diagonals, relative to their mean."""
    v = np.array(
        [
            np.var(np.diff(a, axis=1)),
            np.var(np.diff(a, axis=0)),
            np.var(a[1:, 1:] - a[:-1, :-1]) / 2,
            np.var(a[1:, :-1] - a[:-1, 1:]) / 2,
        ]
    )
    return v / v.mean()


@pytest.mark.parametrize(("basis", "fractal"), [(b, "fbm") for b in BASES] + [("perlin", f) for f in FRACTALS[1:]])
def test_isotropy(basis, fractal):
    # Smooth fields (many cells per lattice cell): directional derivatives have the same variance every way.
    v = np.mean(
        [
            directional_variances(
                fractal_noise((400, 400), s, basis=basis, fractal=fractal, feature_size=48.0, detail=2.0)
            )
            for s in range(3)
        ],
        axis=0,
    )
    assert np.abs(v - 1.0).max() < 0.08, v


def radial_spectrum_slope(a, low, high):
    n = a.shape[0]
    taper = np.outer(np.hanning(n), np.hanning(n))  # no leakage from the map's non-periodic edges
    power = np.abs(np.fft.rfft2((a - a.mean()) * taper)) ** 2
    radius = np.hypot(np.fft.fftfreq(n)[:, None], np.fft.rfftfreq(n)[None, :])
    edges = np.geomspace(low, high, 9)
    band = np.digitize(radius.ravel(), edges)
    density = [power.ravel()[band == i].sum() / (edges[i] - edges[i - 1]) for i in range(1, len(edges))]
    return np.polyfit(np.log(np.sqrt(edges[1:] * edges[:-1])), np.log(density), 1)[0]


@pytest.mark.parametrize("roughness", [0.35, 0.5, 0.7])
def test_fbm_power_spectrum_falls_as_frequency_to_minus_2h_plus_1(roughness):
    # roughness = lacunarity**-H; the radially integrated spectrum of fBm in the plane goes as f**-(2H + 1).
    h = -np.log2(roughness)
    slopes = [
        radial_spectrum_slope(
            fractal_noise((512, 512), s, detail=7.0, roughness=roughness, feature_size=256.0), 1 / 128, 1 / 8
        )
        for s in range(3)
    ]
    assert np.mean(slopes) == pytest.approx(-(2 * h + 1), abs=0.3)


@pytest.mark.parametrize("roughness", [0.3, 0.5, 0.8])
def test_each_octave_weighs_roughness_times_the_previous(roughness):
    # The unnormalised sums differ by one octave each; their spreads fall by the roughness per octave.
    def total(detail):
        weights = sum(roughness**k for k in range(int(detail) + 1))
        return fractal_noise((400, 400), 3, detail=detail, roughness=roughness, feature_size=200.0) * weights

    sums = [total(d) for d in range(5)]
    spreads = [np.std(sums[k] - sums[k - 1]) for k in range(1, 5)]
    ratios = np.array(spreads[1:]) / np.array(spreads[:-1])
    assert np.allclose(ratios, roughness, rtol=0.15), ratios


@pytest.mark.parametrize("fractal", FRACTALS)
def test_the_terrain_changes_continuously_with_detail(fractal):
    kw = dict(fractal=fractal, feature_size=50.0)
    at_3 = fractal_noise((80, 80), 4, detail=3.0, **kw)
    assert np.abs(fractal_noise((80, 80), 4, detail=2.9999, **kw) - at_3).max() < 1e-3
    assert np.abs(fractal_noise((80, 80), 4, detail=3.0001, **kw) - at_3).max() < 1e-3


def test_fractional_detail_blends_the_last_octave_linearly():
    def total(detail):
        full = int(detail)
        weights = sum(0.5**k for k in range(full + 1)) + (detail - full) * 0.5 ** (full + 1)
        return fractal_noise((60, 60), 4, detail=detail, feature_size=30.0) * weights

    assert np.allclose(total(2.25), 0.75 * total(2.0) + 0.25 * total(3.0), atol=1e-6)


def test_domain_warping_moves_the_terrain_by_at_most_the_distortion():
    # Warped heights are the unwarped terrain's heights somewhere within `distortion` metres (1 m cells),
    # within 1e-3 for the extremes between the grid's samples.
    kw = dict(feature_size=60.0, detail=1.0)
    plain = fractal_noise((200, 200), 3, **kw)
    warped = fractal_noise((200, 200), 3, distortion=12.0, **kw)
    assert np.corrcoef(plain.ravel(), warped.ravel())[0, 1] < 0.99
    near = [plain[12 + dy : 188 + dy, 12 + dx : 188 + dx] for dy in range(-12, 13) for dx in range(-12, 13)]
    inner = warped[12:-12, 12:-12]
    assert (inner >= np.min(near, axis=0) - 1e-3).all() and (inner <= np.max(near, axis=0) + 1e-3).all()
    assert not np.array_equal(warped, fractal_noise((200, 200), 3, distortion=12.0, warp_iterations=2, **kw))
    assert np.array_equal(plain, fractal_noise((200, 200), 3, warp_iterations=3, **kw))  # no distortion, no warp


@pytest.mark.parametrize("direction", [0.0, 30.0, 90.0, 165.0, 180.0])
def test_stretch_runs_features_along_its_direction(direction):
    a = fractal_noise((200, 200), 3, feature_size=30.0, detail=2.0, stretch=4.0, stretch_direction=direction)
    gy, gx = np.gradient(a)
    east, north = gx, -gy
    # the structure tensor's main axis is the gradient's; features (ridges) run across it
    jxx, jyy, jxy = (east * east).mean(), (north * north).mean(), (east * north).mean()
    gradient_azimuth = (90.0 - 0.5 * np.degrees(np.arctan2(2 * jxy, jxx - jyy))) % 180.0
    along = (gradient_azimuth + 90.0) % 180.0
    diff = abs(along - direction % 180.0)
    assert min(diff, 180.0 - diff) < 6.0
    eig = np.linalg.eigvalsh([[jxx, jxy], [jxy, jyy]])
    assert eig[1] / eig[0] > 6.0  # strongly anisotropic (about stretch squared)


@pytest.mark.parametrize("direction", [0.0, 40.0, 180.0])
def test_a_stretched_window_equals_the_whole_and_the_preview_its_cells(direction):
    kw = dict(feature_size=40.0, stretch=3.0, stretch_direction=direction, distortion=8.0)
    whole = fractal_noise((121, 121), 6, cell_size=1.0, **kw)
    part = fractal_noise((121, 121), 6, cell_size=1.0, window=Window(13, 29, 40, 50), **kw)
    assert np.array_equal(whole[13:53, 29:79], part)
    assert np.array_equal(whole[::4, ::4], fractal_noise((31, 31), 6, cell_size=4.0, **kw))


def test_stretch_one_and_cone_zero_leave_the_terrain_unchanged():
    base = fractal_noise((50, 60), 4, feature_size=20.0)
    assert np.array_equal(
        base,
        fractal_noise((50, 60), 4, feature_size=20.0, stretch=1.0, stretch_direction=77.0, cone=0.0, crater_radius=5.0),
    )


def test_the_cone_is_centred_with_its_crater():
    kw = dict(feature_size=50.0, detail=0.0)
    flat = fractal_noise((101, 101), 2, cell_size=10.0, **kw)
    cone = fractal_noise((101, 101), 2, cell_size=10.0, cone=2.0, cone_radius=400.0, crater_radius=100.0, **kw) - flat
    yy, xx = np.mgrid[:101, :101]
    r = np.hypot(yy - 50, xx - 50) * 10.0
    expected = 2.0 * np.clip(1.0 - (np.abs(r - 100.0) + 100.0) / 400.0, 0.0, 1.0)
    np.testing.assert_allclose(cone, expected, atol=1e-12)
    assert cone[50, 50] == pytest.approx(1.0) and cone.max() == pytest.approx(1.5)  # rim at 100 m, floor at 0 m
    assert (cone[r >= 400.0] == 0.0).all()


def test_seeds_give_different_terrains():
    a, b = fractal_noise((100, 100), 1), fractal_noise((100, 100), 2)
    assert abs(np.corrcoef(a.ravel(), b.ravel())[0, 1]) < 0.5


# --- determinism ----------------------------------------------------------------------------------------
CHILD = r"""
import hashlib, json, random
import numpy as np
random.seed(12345); np.random.seed(54321)
from core import fractal_noise, cellular_noise, simplex_noise

def digest(a):
    a = np.ascontiguousarray(a)
    return f"{a.dtype}{a.shape}:" + hashlib.sha256(a.tobytes()).hexdigest()[:24]

x, y = np.meshgrid(np.arange(70) * 0.37 - 3.0, np.arange(50) * 0.41 + 1e4)
print(json.dumps({
    "fbm": digest(fractal_noise((65, 80), 2024)),
    "billow_warp": digest(fractal_noise((60, 70), 7, fractal="billow", feature_size=30.0, distortion=12.0,
                                        warp_iterations=2, cell_size=1.5)),
    "ridged_simplex": digest(fractal_noise((60, 70), 8, basis="simplex", fractal="ridged_multifractal",
                                           feature_size=40.0, detail=4.5)),
    "hybrid_value": digest(fractal_noise((60, 70), 9, basis="value", fractal="hybrid_multifractal",
                                         feature_size=40.0, offset=0.7, gain=1.5, lacunarity=2.3)),
    "hetero_cellular": digest(fractal_noise((60, 70), 10, basis="cellular_f2_f1", fractal="hetero_terrain",
                                            feature_size=25.0, detail=2.0, roughness=0.6)),
    "dunes": digest(fractal_noise((60, 70), 11, fractal="ridged_multifractal", feature_size=30.0, detail=2.0,
                                  stretch=5.0, stretch_direction=165.0, distortion=6.0, cell_size=1.5)),
    "cone": digest(fractal_noise((61, 61), 12, feature_size=30.0, cone=3.0, cone_radius=40.0, crater_radius=8.0,
                                 stretch=3.0, stretch_direction=180.0)),
    "cellular_f2": digest(cellular_noise(x, y, 3, lattice=1, feature="f2")),
    "simplex": digest(simplex_noise(x, y, 3, lattice=1)),
}))
"""

GOLDEN = {
    "fbm": "float64(65, 80):4f2f905cc5c6298bac2f6d93",
    "billow_warp": "float64(60, 70):659733667b19c61943a1bd3e",
    "ridged_simplex": "float64(60, 70):eccd8d0220271fc028e03d80",
    "hybrid_value": "float64(60, 70):b3a5a6c648621258c215af09",
    "hetero_cellular": "float64(60, 70):6cec8f28c0786f193bef90a5",
    "dunes": "float64(60, 70):2a7e379ac3881f00a4867f3d",
    "cone": "float64(61, 61):f44ace1d4b50067df098df5a",
    "cellular_f2": "float32(50, 70):7833dcf2f77dddd0b0e53ce9",
    "simplex": "float32(50, 70):7af91bcd388882fdcbbfbf7b",
}


def test_golden_hashes_in_a_fresh_process():
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == GOLDEN


# --- bad input ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(basis="worley"), ValueError, r"basis must be one of \('perlin'"),
        (dict(basis=3), TypeError, "basis must be a str"),
        (dict(fractal="multifractal"), ValueError, r"fractal must be one of \('fbm'"),
        (dict(feature_size=0.0), ValueError, r"feature_size must be in \(0.0, 1000000.0\]"),
        (dict(feature_size="big"), TypeError, "feature_size must be a real number"),
        (dict(detail=15.5), ValueError, r"detail must be in \[0.0, 15.0\]"),
        (dict(detail=float("nan")), ValueError, "detail must be finite"),
        (dict(roughness=1.5), ValueError, r"roughness must be in \[0.0, 1.0\]"),
        (dict(lacunarity=0.5), ValueError, r"lacunarity must be in \[1.0, 16.0\]"),
        (dict(offset=2000.0), ValueError, r"offset must be in \[-1000.0, 1000.0\]"),
        (dict(gain=-1.0), ValueError, r"gain must be in \[0.0, 1000.0\]"),
        (dict(distortion=-1.0), ValueError, r"distortion must be in \[0.0, 1000000.0\]"),
        (dict(warp_iterations=0), ValueError, r"warp_iterations must be in \[1, 8\]"),
        (dict(warp_iterations=1.0), TypeError, "warp_iterations must be an integer"),
        (dict(warp_detail=-0.5), ValueError, r"warp_detail must be in \[0.0, 15.0\]"),
        (dict(cell_size=0.0), ValueError, r"cell_size must be in \(0.0, 1000000.0\]"),
        (dict(stretch=0.5), ValueError, r"stretch must be in \[1.0, 100.0\]"),
        (dict(stretch_direction=400.0), ValueError, r"stretch_direction must be in \[0.0, 360.0\]"),
        (dict(cone=-1.0), ValueError, r"cone must be in \[0.0, 1000.0\]"),
        (dict(cone_radius=0.0), ValueError, r"cone_radius must be in \(0.0, 1000000.0\]"),
        (dict(crater_radius=-1.0), ValueError, r"crater_radius must be in \[0.0, 1000000.0\]"),
        (dict(window=(0, 0, 2, 2)), TypeError, "window must be a Window"),
        (dict(window=Window(0, 0, 20, 2)), ValueError, "window.rows"),
        (dict(feature_size=1e-3, detail=15.0, lacunarity=4.0), ValueError, "feature_size .* lattice cells across"),
    ],
)
def test_bad_parameters_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        fractal_noise((10, 10), 0, **kwargs)


def test_bad_seed_and_world_shape_are_named():
    with pytest.raises(ValueError, match="seed"):
        fractal_noise((10, 10), -1)
    with pytest.raises(TypeError, match="world_shape"):
        fractal_noise(10, 0)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: gradient.perlin_noise([np.nan], [0.0]), ValueError, "x must be finite"),
        (lambda: gradient.perlin_noise([0.0], [2.0**53]), ValueError, "y must have magnitudes below 2\\*\\*52"),
        (lambda: gradient.value_noise(["a"], [0.0]), TypeError, "x must hold real numbers"),
        (lambda: gradient.simplex_noise([0.0, 1.0], [0.0, 1.0, 2.0]), ValueError, "shape"),
        (lambda: gradient.perlin_noise([0.0, 1.0], [0.0, 1.0, 2.0]), ValueError, "x and y must have broadcastable"),
        (lambda: gradient.perlin_noise([0.0], [0.0], lattice=-1), ValueError, "lattice must be in"),
        (lambda: gradient.perlin_noise([0.0], [0.0], amplitude=np.inf), ValueError, "amplitude must be finite"),
        (lambda: gradient.cellular_noise([0.0], [0.0], feature="f3"), ValueError, "feature must be one of"),
    ],
)
def test_bad_noise_arguments_are_named(call, error, match):
    with pytest.raises(error, match=match):
        call()
