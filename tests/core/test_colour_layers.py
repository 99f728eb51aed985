"""Colour layers in metres, noisy edges, the noise mask, and the presets that look like places."""

from dataclasses import replace

import numpy as np
import pytest

from core import Layer, colormap, layer_weights
from core.colormap import METRE_DISTANCE, NOISE_STD, check_layers, noise_field
from core.lighting.derivatives import slope_degrees
from core.presets import PRESETS, preset_spec
from core.window import Window

LOW = Layer("low", (0.1, 0.3, 0.1), -1.0e5, 0.0, 1900.0, heights="metres")
SNOW = Layer("snow", (0.9, 0.9, 0.9), 1800.0, 1900.0, 1.0e5, heights="metres")


def test_a_metres_layer_stays_at_its_height_when_the_terrain_height_changes():
    h = np.linspace(0.0, 1.0, 101)[None, :]
    for height in (2000.0, 3000.0, 5000.0):
        w = layer_weights(h, (LOW, SNOW), height=height)[0, :, 1]
        z = (h[0].astype(np.float32) * np.float32(height)).astype(np.float64)
        assert (w[z < 1800.0] < 1e-4).all()  # the no-hole fallback only, far below one 8-bit level
        assert (w[z >= 1900.0] > 1.0 - 1e-4).all()
        inside = (z > 1800.0) & (z < 1900.0)
        assert inside.any() and (np.diff(w[inside]) > 0).all()  # the snow fades in between 1800 and 1900 m


def test_normalised_layers_are_unchanged_by_the_new_options():
    h = np.linspace(-0.2, 1.2, 57)[None, :]
    layers = (Layer("a", (1, 0, 0), -1.0, 0.2, 0.5), Layer("b", (0, 0, 1), 0.4, 0.9, 2.0))
    assert np.array_equal(layer_weights(h, layers), layer_weights(h, layers, height=123.0, cell_size=2.0, seed=9))


def test_metres_layers_need_the_height_and_noisy_layers_the_cell_size():
    with pytest.raises(ValueError, match="height"):
        layer_weights(np.zeros((2, 2)), (LOW, SNOW))
    with pytest.raises(ValueError, match="cell_size"):
        layer_weights(
            np.zeros((2, 2)), (replace(LOW, heights="normalised", minimum=-1.0, maximum=2.0, edge_noise=0.1),)
        )


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        (dict(heights="feet"), "heights must be one of"),
        (dict(edge_noise=-1.0), "edge_noise"),
        (dict(slope_noise=91.0), "slope_noise"),
        (dict(noise_size=0.0), "noise_size"),
        (dict(mask="fog"), "mask"),
    ],
)
def test_bad_layer_options_are_named(changes, match):
    with pytest.raises(ValueError, match=match):
        check_layers((replace(SNOW, **changes),))


def test_the_gap_between_metres_layers_is_bridged_in_units_of_a_kilometre():
    # between the layers only the fallback weighs: the nearer layer (in metres / METRE_DISTANCE) wins smoothly
    h = np.array([[1600.0, 1650.0, 1700.0]]) / 2000.0
    w = layer_weights(h, (replace(LOW, maximum=1500.0), SNOW), height=2000.0)[0]
    expected = 1.0 / (1.0 + np.exp(-((1800.0 - 2000 * h[0]) - (2000 * h[0] - 1500.0)) / METRE_DISTANCE / 0.05))
    np.testing.assert_allclose(w[:, 0], expected, atol=1e-5)


# --- the noise field ----------------------------------------------------------------------------------
def test_the_noise_field_has_its_declared_statistics():
    u = np.concatenate(
        [noise_field((513, 513), i, 20.0, cell_size=1.0, seed=s).ravel() for i in range(2) for s in range(2)]
    )
    assert 0.0 <= u.min() and u.max() <= 1.0
    assert abs(u.mean() - 0.5) < 0.02
    assert abs(u.std() - NOISE_STD) < 0.02  # clipping trims the tails a little
    assert 0.01 < np.mean((u == 0.0) | (u == 1.0)) < 0.08


def test_the_noise_field_is_in_world_coordinates():
    whole = noise_field((120, 140), 3, 25.0, cell_size=2.0, seed=4)
    assert np.array_equal(whole[30:70, 50:90], noise_field((40, 40), 3, 25.0, cell_size=2.0, seed=4, origin=(30, 50)))
    coarse = noise_field((61, 71), 3, 25.0, cell_size=4.0, seed=4)  # the same metres at half the resolution
    assert np.array_equal(whole[::2, ::2][:60, :70], coarse[:60, :70])
    other = noise_field((120, 140), 4, 25.0, cell_size=2.0, seed=4)  # each layer its own field
    assert abs(np.corrcoef(whole.ravel(), other.ravel())[0, 1]) < 0.3


def test_edge_noise_moves_a_layers_edge_by_at_most_its_amplitude():
    # a ramp in metres: the snow edge wanders but stays within [min - noise, min + noise] of the ramp
    rows, cols = 200, 200
    h = np.tile(np.linspace(0.0, 1.0, cols), (rows, 1))
    snow = replace(SNOW, minimum=1000.0, optimal=1001.0, edge_noise=100.0, noise_size=40.0)
    low = replace(LOW, maximum=1001.0, optimal=1000.0, minimum=-1.0e5)
    w = layer_weights(h, (low, snow), height=2000.0, cell_size=5.0, seed=3)[..., 1]
    z = h * 2000.0
    assert (w[z < 900.0 - 1e-3] < 1e-4).all() and (w[z > 1101.0 + 1e-3] > 1 - 1e-4).all()
    edge = (w > 0.5).argmax(axis=1) * 2000.0 / (cols - 1)  # where snow begins, per row
    assert edge.std() > 20.0  # not a contour line
    u = noise_field((rows, cols), 1, 40.0, cell_size=5.0, seed=3)
    expected = z - 100.0 * (2 * u - 1) > 1000.5
    assert np.mean(expected == (w > 0.5)) > 0.985  # up to cells on the one-metre ramp


def test_the_noise_mask_covers_its_share_of_the_map():
    patches = Layer("patches", (1, 0, 0), -1.0, 0.5, 2.0, mask="noise", mask_min=0.6, mask_max=1.0, noise_size=30.0)
    ground = Layer("ground", (0, 1, 0), -1.0, 0.5, 2.0)
    w = layer_weights(np.full((300, 300), 0.5), (patches, ground), cell_size=2.0, seed=1)[..., 0]
    u = noise_field((300, 300), 0, 30.0, cell_size=2.0, seed=1)
    assert np.array_equal(w > 0.4, u.astype(np.float32) >= np.float32(0.6))
    assert 0.2 < np.mean(w > 0.4) < 0.45  # P(U >= 0.6) for a normal U of sd 0.25 is 0.34


def test_a_tile_of_the_colour_map_is_the_same_cells_of_the_whole():
    spec = preset_spec("volcanic_island").replace(size=65)
    h = spec.heightmap()
    slope = slope_degrees(h * np.float32(spec.height), spec.cell_size)
    kw = dict(height=spec.height, cell_size=spec.cell_size, seed=spec.seed)
    whole = colormap(h, spec.layers, slope, **kw)
    win = Window(10, 20, 30, 25)
    part = colormap(h[10:40, 20:45], spec.layers, slope[10:40, 20:45], origin=(win.row, win.col), **kw)
    assert np.array_equal(whole[10:40, 20:45], part)


# --- presets that look like places --------------------------------------------------------------------
NEW_PRESETS = ("volcanic_island", "canyon_mesas", "dunes")


def preset_maps(name, size=257):
    spec = preset_spec(name).replace(size=size)
    h = spec.heightmap()
    z = (h * np.float32(spec.height)).astype(np.float64)
    slope = slope_degrees(z, spec.cell_size)
    w = layer_weights(h, spec.layers, slope, height=spec.height, cell_size=spec.cell_size, seed=spec.seed)
    return spec, h, z, slope, w


@pytest.mark.parametrize("name", NEW_PRESETS)
def test_new_presets_are_valid_terrains(name):
    spec, h, z, slope, w = preset_maps(name, 129)
    assert h.dtype == np.float32 and h.min() == 0.0 and np.isfinite(h).all()
    # the thermal pass of the Dunes lowers its highest brinks a little, the erosion of the Volcanic Island
    # (no uplift) its summit (version 3 keeps a filter's metres)
    assert h.max() == 1.0 or (name in ("dunes", "volcanic_island") and 0.9 < h.max() < 1.0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-5)
    assert all(lay.in_metres for lay in spec.layers)
    assert name in PRESETS and PRESETS[name]["label"]


def snow_of(spec):
    return [i for i, lay in enumerate(spec.layers) if lay.name == "snow"]


@pytest.mark.parametrize("name", ["alpine_ridges", "eroded_mountains", "alpine_faults", "diamond_square_peaks"])
def test_snow_only_above_the_snow_line(name):
    """Never below the snow line less the edge noise and, on a slope facing north, less the aspect shift times
    the normal's north component; lower on the slopes facing north than on those facing south."""
    from core.colormap import aspect_north

    spec, h, z, slope, w = preset_maps(name)
    (i,) = snow_of(spec)
    snow = spec.layers[i]
    assert snow.aspect_shift > 0.0
    north = aspect_north(z, spec.cell_size)
    line = snow.minimum - snow.edge_noise - snow.aspect_shift * north  # the lowest the layer's edge comes, per cell
    assert w[..., i][z < line].max(initial=0.0) < 1e-4
    covered = w[..., i] > 0.5
    assert covered.any()  # there is snow, on the high ground
    assert np.median(z[covered]) > snow.minimum - snow.edge_noise
    band = z > snow.minimum - snow.edge_noise - snow.aspect_shift  # where snow may lie on some aspect
    facing_north, facing_south = band & (north > 0.2), band & (north < -0.2)
    assert facing_north.sum() > 20 and facing_south.sum() > 20
    # the snow's mean weight there twice as high on the slopes facing north (measured 2.3-6.9 times)
    assert w[..., i][facing_north].mean() > 2.0 * w[..., i][facing_south].mean() + 0.01
    # and it stays there when the terrain is made taller: the line is in metres
    tall = spec.replace(height=spec.height * 1.5)
    zt = (h * np.float32(tall.height)).astype(np.float64)
    wt = layer_weights(
        h, tall.layers, slope_degrees(zt, tall.cell_size), height=tall.height, cell_size=tall.cell_size, seed=tall.seed
    )[..., i]
    line_tall = snow.minimum - snow.edge_noise - snow.aspect_shift * aspect_north(zt, tall.cell_size)
    assert wt[zt < line_tall].max(initial=0.0) < 1e-4 and (wt > 0.5).any()


@pytest.mark.parametrize("name", ["badlands", "canyon_mesas", "dunes", "volcanic_island", "rolling_farmland"])
def test_no_snow_where_there_should_be_none(name):
    spec = preset_spec(name)
    assert not snow_of(spec)
    assert all(min(lay.color) < 0.7 for lay in spec.layers)  # nothing white


def test_rock_covers_the_steep_slopes_of_the_mountains():
    spec, h, z, slope, w = preset_maps("alpine_ridges")
    steep = [i for i, lay in enumerate(spec.layers) if lay.name == "rock (steep)"][0]
    rock = w[..., [i for i, lay in enumerate(spec.layers) if lay.name.startswith("rock")]].sum(axis=-1)
    assert np.mean(rock[slope > 56.0] > 0.9) > 0.9  # bare rock on the cliffs, whatever their height
    assert np.mean(w[..., steep][slope < 35.0] > 0.1) < 0.02


def test_volcanic_island_has_sea_beaches_and_a_crater():
    spec, h, z, slope, w = preset_maps("volcanic_island")
    level = spec.material["water_level"]
    assert spec.material["water"] is True
    sea = z < level
    assert 0.25 < sea.mean() < 0.75 and not sea[128, 128]  # an island: sea around, land in the middle
    border = np.concatenate([sea[0], sea[-1], sea[:, 0], sea[:, -1]])
    assert border.mean() > 0.9
    beach = [i for i, lay in enumerate(spec.layers) if lay.name == "beach"][0]
    shore = (np.abs(z - level) < 5.0) & (slope < 20.0)
    assert np.mean(w[..., beach][shore] > 0.3) > 0.8
    # the summit crater: the centre is lower than the rim around it
    rows, cols = h.shape
    yy, xx = np.mgrid[:rows, :cols]
    r = np.hypot(yy - rows // 2, xx - cols // 2) * spec.cell_size
    rim = z[(r > 150.0) & (r < 260.0)].mean()
    assert z[r < 40.0].mean() < rim - 30.0


def test_canyon_mesas_are_benches_and_cliffs_of_layered_rock():
    spec, h, z, slope, w = preset_maps("canyon_mesas")
    assert any(s.maps.get("erodibility_map", {}).get("source") == "strata" for s in spec.filters)
    assert np.mean(slope < 10.0) > 0.4  # mesa tops, benches and canyon floors
    assert np.mean(slope > 40.0) > 0.08  # and the cliffs of the hard beds between them
    assert np.mean((slope > 15.0) & (slope < 30.0)) < np.mean(slope < 10.0)  # few moderate slopes: stepped


def test_dunes_crests_run_across_the_wind():
    spec, h, z, slope, w = preset_maps("dunes")
    gy, gx = np.gradient(z.astype(np.float64))
    east, north = gx, -gy
    # the mean axis (0-180 degrees azimuth) of the gradients, weighted by their strength: doubled angles averaged
    # (the thermal pass's 8-neighbour facets make single bins of a histogram spike)
    doubled = 2.0 * np.arctan2(east, north)
    strength = np.hypot(east, north)
    s, c = (strength * np.sin(doubled)).sum(), (strength * np.cos(doubled)).sum()
    axis = np.degrees(np.arctan2(s, c)) / 2.0 % 180.0
    crest = (axis + 90.0) % 180.0  # crests run across the steepest gradients
    expected = (spec.params["wind_direction"] + 90.0) % 180.0
    assert min(abs(crest - expected), 180.0 - abs(crest - expected)) < 15.0
    assert np.hypot(s, c) / strength.sum() > 0.4  # strongly oriented, not isotropic
    sand = [i for i, lay in enumerate(spec.layers)]
    assert len(sand) == 3 and all("sand" in lay.name or "slip" in lay.name for lay in spec.layers)
