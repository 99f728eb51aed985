import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import DEFAULT_LAYERS, Layer, colormap, layer_weights

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
        ((), ValueError, "at least one"),
        ((Layer("x", (1, 0, 0), 0.5, 0.5, 0.9),), ValueError, "minimum < optimal < maximum"),
        ((Layer("x", (1, 2, 0), 0.1, 0.5, 0.9),), ValueError, r"color.g must be in \[0.0, 1.0\]"),
        (("grass",), TypeError, "Layer"),
    ],
)
def test_bad_layers(layers, error, match):
    with pytest.raises(error, match=match):
        colormap(np.zeros((2, 2)), layers)
