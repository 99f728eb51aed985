import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import DEFAULT_LAYERS, Layer, colormap, layer_presence, layer_weights


def core_layer(i):
    return Layer(f"l{i}", (0.1, 0.1, 0.1), -1.0, 0.5, 2.0)


GAPPED = (
    Layer("a", (1.0, 0.0, 0.0), 0.0, 0.1, 0.3),
    Layer("b", (0.0, 0.0, 1.0), 0.6, 0.8, 0.9),
)


def test_presence_is_full_at_the_optimal_height():
    layers = (Layer("x", (1, 0, 0), 0.0, 0.2, 0.4), Layer("y", (0, 1, 0), 0.6, 0.8, 1.0))
    w = layer_weights(np.array([[0.2, 0.8, 0.1]]), layers)
    assert w[0, 0, 0] == pytest.approx(1.0, abs=1e-5)
    assert w[0, 1, 1] == pytest.approx(1.0, abs=1e-5)
    assert w[0, 2, 0] == pytest.approx(1.0, abs=1e-5)  # only x present, at 50 %: normalised to 1


def test_overlapping_layers_blend_by_presence():
    layers = (Layer("x", (1, 0, 0), 0.0, 0.2, 0.6), Layer("y", (0, 1, 0), 0.2, 0.6, 1.0))
    w = layer_weights(np.array([[0.4]]), layers)
    assert w[0, 0].tolist() == pytest.approx([0.5, 0.5], abs=1e-6)
    assert colormap(np.array([[0.4]]), layers)[0, 0].tolist() == pytest.approx([0.5, 0.5, 0.0], abs=1e-6)


@given(st.floats(-3.0, 4.0))
def test_weights_sum_to_one_everywhere_even_in_gaps(h):
    for layers in (DEFAULT_LAYERS, GAPPED):
        w = layer_weights(np.array([[h]]), layers)
        assert (w >= 0).all()
        assert float(w.sum()) == pytest.approx(1.0, abs=1e-6)


def test_gap_between_layers_is_filled_continuously_by_the_nearest_layer():
    heights = np.linspace(0.0, 1.0, 2001)[None, :]
    w = layer_weights(heights, GAPPED)[0]
    assert w[int(0.32 * 2000), 0] > 0.99  # near a's range: a
    assert w[int(0.58 * 2000), 1] > 0.99  # near b's range: b
    assert np.abs(np.diff(w, axis=0)).max() < 0.05  # no jump anywhere


def test_default_colormap_shape_dtype_and_colours():
    h = np.linspace(0.0, 1.0, 12, dtype=np.float32).reshape(3, 4)
    c = colormap(h)
    assert c.shape == (3, 4, 3) and c.dtype == np.float32
    assert c[0, 0].tolist() == pytest.approx(DEFAULT_LAYERS[0].color, abs=1e-4)
    assert c[-1, -1].tolist() == pytest.approx(DEFAULT_LAYERS[2].color, abs=1e-4)
    assert c.min() >= 0.0 and c.max() <= 1.0


@pytest.mark.parametrize(
    ("layers", "error", "match"),
    [
        ((), ValueError, "1 to 8"),
        (tuple(core_layer(i) for i in range(9)), ValueError, "1 to 8"),
        ((Layer("x", (1, 0, 0), 0.1, 0.5, 0.9, slope_min=50, slope_max=20),), ValueError, "slope_min <= slope_max"),
        ((Layer("x", (1, 0, 0), 0.1, 0.5, 0.9, kind="IMAGE"),), ValueError, "without an image path"),
        ((Layer("x", (1, 0, 0), 0.1, 0.5, 0.9, kind="PLAID"),), ValueError, "kind must be one of"),
        ((Layer("x", (1, 0, 0), 0.5, 0.5, 0.9),), ValueError, "minimum < optimal < maximum"),
        ((Layer("x", (1, 2, 0), 0.1, 0.5, 0.9),), ValueError, r"color.g must be in \[0.0, 1.0\]"),
        (("grass",), TypeError, "Layer"),
    ],
)
def test_bad_layers(layers, error, match):
    with pytest.raises(error, match=match):
        colormap(np.zeros((2, 2)), layers)


ROCK_ON_STEEP = (
    Layer("grass", (0.1, 0.4, 0.1), -1.0, 0.5, 2.0, slope_max=30.0, slope_softness=10.0),
    Layer("rock", (0.4, 0.35, 0.3), -1.0, 0.5, 2.0, slope_min=30.0, slope_softness=10.0),
)


def test_slope_ranges_put_rock_on_steep_ground_with_a_soft_edge():
    h = np.full((1, 5), 0.5)
    slope = np.array([[0.0, 25.0, 35.0, 45.0, 80.0]])
    w = layer_weights(h, ROCK_ON_STEEP, slope)[0]
    assert w[0].tolist() == pytest.approx([1.0, 0.0], abs=1e-5)  # flat: grass
    assert w[4].tolist() == pytest.approx([0.0, 1.0], abs=1e-5)  # cliff: rock
    assert w[1, 0] > w[1, 1] and w[3, 1] > w[3, 0]  # blended near 30 degrees
    assert np.allclose(w.sum(axis=-1), 1.0, atol=1e-6)
    with pytest.raises(ValueError, match="slope \\(degrees\\) is required"):
        layer_weights(h, ROCK_ON_STEEP)


def test_weights_stay_continuous_across_slope_gaps():
    gap = (
        Layer("flat", (1, 0, 0), -1.0, 0.5, 2.0, slope_max=10.0, slope_softness=1.0),
        Layer("steep", (0, 0, 1), -1.0, 0.5, 2.0, slope_min=60.0, slope_softness=1.0),
    )
    slope = np.linspace(0.0, 90.0, 9001)[None, :]
    w = layer_weights(np.full(slope.shape, 0.5), gap, slope)[0]
    assert np.allclose(w.sum(axis=-1), 1.0, atol=1e-6)
    assert np.abs(np.diff(w, axis=0)).max() < 0.05


@pytest.mark.parametrize("n_layers", [1, 3, 4, 5, 8])
def test_splat_maps_pack_four_layers_per_map_and_sum_to_255(n_layers):
    from core.colormap import splat_maps

    rng = np.random.default_rng(n_layers)
    w = rng.random((16, 12, n_layers))
    w /= w.sum(axis=-1, keepdims=True)
    maps = splat_maps(w)
    assert len(maps) == (n_layers + 3) // 4
    assert all(m.dtype == np.uint8 and m.shape == (16, 12, 4) for m in maps)
    levels = np.concatenate(maps, axis=-1).astype(int)
    assert (levels.sum(axis=-1) == 255).all()
    assert np.abs(levels[..., :n_layers] - w * 255).max() < 1.0
    assert (levels[..., n_layers:] == 0).all()


def test_layer_presence_is_a_tent_over_the_height_range_times_the_slope_factor():
    layer = Layer("rock", (0.5, 0.5, 0.5), 0.2, 0.6, 1.0, slope_min=30.0, slope_max=60.0, slope_softness=10.0)
    heights = np.array([0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.5])
    assert layer_presence(heights, layer).tolist() == pytest.approx([0.0, 0.0, 0.5, 1.0, 0.5, 0.0, 0.0])
    slopes = np.array([15.0, 20.0, 25.0, 45.0, 65.0, 70.0, 95.0])
    full = np.full(7, 0.6)
    assert layer_presence(full, layer, slopes).tolist() == pytest.approx([0.0, 0.0, 0.5, 1.0, 0.5, 0.0, 0.0])


@pytest.mark.parametrize(
    ("heights", "layer", "slopes", "error", "match"),
    [
        (np.array([np.nan]), DEFAULT_LAYERS[0], None, ValueError, "heights must be finite"),
        (np.array([0.5]), DEFAULT_LAYERS[0], np.array([np.inf]), ValueError, "slopes must be finite"),
        (np.zeros(3), DEFAULT_LAYERS[0], np.zeros(2), ValueError, r"slopes must have the shape of heights \(3,\)"),
        (np.zeros(3), "grass", None, TypeError, "Layer"),
        (np.zeros(3), Layer("x", (0, 0, 0), 0.5, 0.5, 1.0), None, ValueError, "minimum < optimal < maximum"),
    ],
)
def test_layer_presence_refuses_bad_input(heights, layer, slopes, error, match):
    with pytest.raises(error, match=match):
        layer_presence(heights, layer, slopes)


@pytest.mark.parametrize(
    ("heights", "error", "match"),
    [
        ([["0.5"]], TypeError, "heights must hold real numbers, got dtype <U3"),
        (np.array([[0.5 + 1j]]), TypeError, "heights must hold real numbers, got dtype complex128"),
        (np.ma.masked_array([[0.5]], mask=[[True]]), TypeError, "heights must not be a masked array"),
    ],
)
def test_layer_presence_refuses_what_is_not_real_numbers(heights, error, match):
    with pytest.raises(error, match=match):
        layer_presence(heights, DEFAULT_LAYERS[0])


def test_layer_numbers_of_other_types_become_floats():
    from fractions import Fraction

    layer = Layer("f", (Fraction(1, 2), 0.5, 0.5), Fraction(0), Fraction(1, 2), Fraction(1))
    presence = layer_presence(np.array([[0.25]]), layer)
    assert presence.dtype == np.float64 and presence[0, 0] == 0.5
    weights = layer_weights(np.array([[0.25]]), (layer, DEFAULT_LAYERS[2]))
    assert weights.dtype == np.float32 and float(weights.sum()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("changes", "error", "match"),
    [
        ({"kind": np.array(["COLOR"])}, ValueError, r"kind must be one of"),
        ({"kind": "IMAGE", "image": 5}, TypeError, r"image must be a file path \(str\), got int"),
        ({"image": ["a.png"]}, TypeError, r"image must be a file path \(str\), got list"),
    ],
)
def test_layer_kind_and_image_types_are_checked(changes, error, match):
    from dataclasses import replace

    with pytest.raises(error, match=match):
        layer_weights(np.zeros((2, 2)), (replace(DEFAULT_LAYERS[0], **changes),))


def test_splat_maps_refuse_what_is_not_real_weights():
    from core import splat_maps

    with pytest.raises(TypeError, match="weights must hold real numbers"):
        splat_maps(np.full((2, 2, 2), "0.5"))
    with pytest.raises(TypeError, match="weights must not be a masked array"):
        splat_maps(np.ma.masked_array(np.ones((2, 2, 2)), mask=np.zeros((2, 2, 2), bool)))


def _ridge(rows=64, cols=48):
    """A ridge along the rows' middle, 100 m high on 5 m cells: its north flank faces north, its south flank south,
    the two alike at mirrored rows (row ``32 - k`` and ``32 + k``)."""
    y = np.arange(rows, dtype=np.float64)[:, None] * np.ones((1, cols))
    return 1.0 - np.abs(y - 32.0) / 32.0


def test_the_north_component_of_the_normal_is_sin_slope_cos_aspect():
    from core.colormap import aspect_north

    h = _ridge() * 100.0
    north = aspect_north(h, 5.0)
    expected = np.sin(np.arctan(100.0 / 32.0 / 5.0))  # both flanks: rise 100 m over 32 cells of 5 m
    assert north[10, 20] == pytest.approx(expected, rel=1e-12)  # the north flank faces north
    assert north[50, 20] == pytest.approx(-expected, rel=1e-12)
    assert aspect_north(np.zeros((5, 5)), 1.0).tolist() == np.zeros((5, 5)).tolist()
    tilted = np.ones((9, 9)) * np.arange(9.0)  # rising to the east: facing west, no north component
    assert float(np.abs(aspect_north(tilted, 1.0)).max()) == 0.0


def test_snow_lies_lower_on_the_flank_facing_north():
    grass = Layer("grass", (0.1, 0.4, 0.1), -1.0, 0.2, 0.7)
    plain = Layer("snow", (1.0, 1.0, 1.0), 0.6, 0.8, 2.0)
    shaded = Layer("snow", (1.0, 1.0, 1.0), 0.6, 0.8, 2.0, aspect_shift=0.2)
    h = _ridge()
    kw = {"height": 100.0, "cell_size": 5.0}
    flat = layer_weights(h, (grass, plain), **kw)[..., 1]
    aspect = layer_weights(h, (grass, shaded), **kw)[..., 1]
    assert flat[20, 10] == flat[44, 10]  # without it the mirrored flanks are alike
    # row 20 (h 0.625) faces north: it sees 0.625 + 0.2 x 0.53 and gets snow; row 44 sees 0.52 and gets none
    assert aspect[20, 10] > flat[20, 10] + 0.3 and aspect[44, 10] < 1e-5
    unshifted = dataclasses.replace(shaded, aspect_shift=0.0)
    assert layer_weights(h, (grass, unshifted), **kw).tobytes() == layer_weights(h, (grass, plain), **kw).tobytes()


def test_an_aspect_layer_needs_the_height_and_the_cell_size_and_a_bounded_shift():
    shaded = Layer("snow", (1.0, 1.0, 1.0), 0.6, 0.8, 2.0, aspect_shift=0.2)
    with pytest.raises(ValueError, match="height and cell_size"):
        layer_weights(_ridge(), (shaded,), height=100.0)
    with pytest.raises(ValueError, match=r"layers\[0\].aspect_shift"):
        layer_weights(
            _ridge(), (Layer("x", (1.0, 1.0, 1.0), 0.0, 0.5, 1.0, aspect_shift=2e6),), height=1.0, cell_size=1.0
        )
