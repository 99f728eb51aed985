"""The dune-field generator and the Dunes preset: slip faces at repose, gentle stoss slopes, real proportions."""

import hashlib
import math

import numpy as np
import pytest

from core.generators.dunes import MAX_DEFECTS, dune_field
from core.presets import preset_spec
from core.recipe import Recipe
from core.spec import TerrainSpec
from core.window import Window


def preset_metres(size):
    spec = preset_spec("dunes").replace(size=size)
    return spec, spec.heightmap().astype(np.float64) * spec.height


def slopes(z, cell, wind_from):
    """Slope (degrees) and the slope along the wind (rise per metre downwind) of each cell."""
    gy, gx = np.gradient(z, cell)
    east, north = gx, -gy
    a = math.radians(wind_from + 180.0)  # where the sand goes
    downwind = east * math.sin(a) + north * math.cos(a)
    return np.degrees(np.arctan(np.hypot(east, north))), downwind


def spectral_spacing(z, cell, pad=4):
    """Wavelength (metres) and the azimuth (degrees, axial) of the strongest wave of ``z``'s power spectrum."""
    n = z.shape[0]
    power = np.abs(np.fft.rfft2(z - z.mean(), s=(pad * n, pad * n))) ** 2
    ky = np.fft.fftfreq(pad * n, cell)[:, None]
    kx = np.fft.rfftfreq(pad * n, cell)[None, :]
    power[0, 0] = 0.0
    i, j = np.unravel_index(power.argmax(), power.shape)
    k_east, k_north = kx[0, j], -ky[i, 0]
    return 1.0 / math.hypot(k_east, k_north), math.degrees(math.atan2(k_east, k_north)) % 180.0


@pytest.fixture(scope="module", params=[257, 513])
def preset(request):
    spec, z = preset_metres(request.param)
    return spec, z, *slopes(z, spec.cell_size, spec.params["wind_direction"])


def test_the_preset_is_a_dune_field_of_real_size():
    spec = preset_spec("dunes")
    assert spec.generator == "dunes" and spec.width == 3000.0 and spec.height == 40.0
    assert 1000.0 <= spec.width <= 5000.0 and 10.0 <= spec.height <= 100.0
    assert [f.key for f in spec.filters] == ["thermal"] and spec.filters[0].params["talus_angle"] == 33.0


def test_slip_faces_stand_at_the_angle_of_repose(preset):
    spec, z, slope, downwind = preset
    lee = (downwind < 0.0) & (slope > 20.0)
    assert 0.04 < lee.mean() < 0.12  # slip faces are a narrow share of the field
    p50, p95 = np.percentile(slope[lee], [50, 95])
    assert 30.0 <= p95 <= 34.5 and 29.0 <= p50 <= 34.0
    assert np.percentile(slope, 99.9) < 36.0  # nothing steeper than repose (a cell of rounding at the brinks)
    # the steep cells face downwind: a slip face on the lee side, never on the stoss
    steep = slope > 25.0
    assert np.mean(downwind[steep] < 0.0) > 0.95


def test_stoss_slopes_are_gentle_and_the_dunes_asymmetric(preset):
    spec, z, slope, downwind = preset
    stoss = (downwind > 0.0) & (slope > 2.0)
    along = np.degrees(np.arctan(np.median(downwind[stoss])))
    assert 5.0 <= along <= 15.0
    lee = (downwind < 0.0) & (slope > 2.0)
    assert slope[lee].mean() > 1.8 * slope[stoss].mean()  # downwind faces far steeper than upwind ones
    assert stoss.sum() > 2.5 * lee.sum()  # and far shorter: long stoss slopes, short slip faces
    assert np.mean(slope < 2.0) > 0.2  # flat interdune corridors between the dunes


def test_spacing_runs_along_the_wind_and_height_is_in_the_measured_ratio(preset):
    spec, z, slope, downwind = preset
    spacing, azimuth = spectral_spacing(z, spec.cell_size)
    wind = spec.params["wind_direction"] % 180.0
    assert min(abs(azimuth - wind), 180.0 - abs(azimuth - wind)) < 15.0  # the waves run along the wind
    assert 425.0 <= spacing <= 575.0  # the preset's 500 m, within 15 %
    height = np.percentile(z, 99) - np.percentile(z, 1)  # crest to interdune trough
    assert 0.03 <= height / spacing <= 0.1  # crescentic and transverse dunes (Lancaster 1988)
    assert 25.0 <= height <= 40.0


def test_crests_vary_no_regular_wave():
    spec, z = preset_metres(257)
    power = np.abs(np.fft.rfft2(z - z.mean())) ** 2
    power[0, 0] = 0.0
    share = np.sort(power.ravel())[::-1]
    assert share[0] / share.sum() < 0.15  # no single wave holds the field (a sine pattern holds nearly all)
    # crest heights vary: the highest cells of each 300 m block are far apart
    blocks = z[:255, :255].reshape(15, 17, 15, 17).max(axis=(1, 3))
    assert blocks.std() > 5.0 and blocks.min() < 0.5 * blocks.max()


def test_the_preset_is_the_same_field_at_every_size():
    _, z257 = preset_metres(257)
    _, z1025 = preset_metres(1025)
    r = np.corrcoef(z257.ravel(), z1025[::4, ::4].ravel())[0, 1]
    assert r >= 0.98


def test_the_generator_keeps_its_angles_before_any_filter():
    cell = 3000.0 / 256
    z = dune_field((257, 257), 3, cell_size=cell, stoss_slope=10.0, slip_face=32.0, defects=0.0)
    slope, downwind = slopes(z, cell, 250.0)
    assert z.min() == 0.0 and z.max() <= 0.08 * 500.0
    lee = (downwind < 0.0) & (slope > 20.0)
    assert 30.5 <= np.percentile(slope[lee], 75) <= 32.5
    stoss = (downwind > 0.0) & (slope > 2.0)
    assert 8.0 <= np.degrees(np.arctan(np.median(downwind[stoss]))) <= 11.0


def test_wind_direction_turns_the_slip_faces():
    cell = 20.0
    for wind in (0.0, 90.0, 250.0):
        z = dune_field((129, 129), 5, cell_size=cell, wind_direction=wind, spacing=400.0, defects=0.0)
        slope, downwind = slopes(z, cell, wind)
        steep = slope > 25.0
        assert steep.any() and np.mean(downwind[steep] < 0.0) > 0.95, wind


def test_deterministic_and_a_window_is_the_same_cells_of_the_whole():
    kw = dict(cell_size=10.0, spacing=300.0, defects=3.0)
    whole = dune_field((150, 170), 42, **kw)
    assert np.array_equal(whole, dune_field((150, 170), 42, **kw))
    assert not np.array_equal(whole, dune_field((150, 170), 43, **kw))
    win = Window(30, 40, 70, 90)
    assert np.array_equal(dune_field((150, 170), 42, window=win, **kw), whole[30:100, 40:130])
    spec = preset_spec("dunes").replace(size=65)
    assert np.array_equal(spec.heightmap(), spec.heightmap())


def digest(a):
    a = np.ascontiguousarray(a)
    return f"{a.dtype}{a.shape}:" + hashlib.sha256(a.tobytes()).hexdigest()[:24]


def test_the_field_and_the_preset_are_pinned():
    # golden digests, the same on numpy 1.26 and 2.x (core.elementary's atan2, exp and sincos)
    field = dune_field((60, 70), 11, cell_size=15.0, spacing=200.0, defects=40.0)
    assert digest(field) == "float64(60, 70):c6d93cc8d6719d0df86007a8"
    h = preset_spec("dunes").replace(size=65).heightmap()
    assert digest(h) == "float32(65, 65):925aefa4bc5518a39425aebf"  # its thermal pass in years (spec version 5)
    assert np.array_equal(TerrainSpec.from_json(preset_spec("dunes").replace(size=65).to_json()).heightmap(), h)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"spacing": 0.0}, r"spacing must be in"),
        ({"aspect": 0.9}, r"aspect must be in"),
        ({"aspect": 0.2}, r"aspect \(0\.2\) is too large"),
        ({"stoss_slope": 40.0, "slip_face": 33.0}, r"stoss_slope \(40 degrees\) must be below slip_face"),
        ({"slip_face": 85.0}, r"slip_face must be in"),
        ({"wind_direction": 400.0}, r"wind_direction must be in"),
        ({"sinuosity": -1.0}, r"sinuosity must be in"),
        ({"height_variation": 2.0}, r"height_variation must be in"),
        ({"defects": float("nan")}, r"defects"),
        ({"cell_size": 0.0}, r"cell_size must be in"),
    ],
)
def test_bad_input_is_refused_by_name(kwargs, message):
    with pytest.raises(ValueError, match=message):
        dune_field((9, 9), 0, **{"cell_size": 10.0, **kwargs})


def test_too_many_defects_are_refused_before_any_work():
    with pytest.raises(ValueError, match=rf"defects \(1000 per km²\) makes .* more than {MAX_DEFECTS}"):
        dune_field((1001, 1001), 0, cell_size=10.0, defects=1000.0)


def test_the_spec_refuses_bad_values_by_path():
    with pytest.raises(ValueError, match=r"dunes\.slip_face must be in"):
        TerrainSpec(generator="dunes", params={"slip_face": 95.0})
    recipe = Recipe("dunes", shape=(33, 33), params={"spacing": 200.0}, cell_size=20.0)
    assert recipe.evaluate().shape == (33, 33)
