import numpy as np
import pytest

from core.generators.midpoint_displacement import diamond_square, period
from core.window import Window


@pytest.mark.parametrize("shape", [(100, 60), (2, 2), (4097, 1), (1, 1), (1, 300), (129, 129)])
def test_any_shape_gives_exactly_that_shape(shape):
    h = diamond_square(shape, seed=3)
    assert h.shape == shape and np.isfinite(h).all()


def test_period_is_the_next_power_of_two_grid():
    assert period((1025, 1025)) == 1024
    assert period((1026, 3)) == 2048
    assert period((100, 60)) == 128
    assert period((2, 2)) == 2


def test_map_of_period_plus_one_tiles():
    h = diamond_square((65, 65), seed=8)
    assert np.array_equal(h[0], h[-1]) and np.array_equal(h[:, 0], h[:, -1])


def normalised(h):
    return (h - h.min()) / (h.max() - h.min())


@pytest.mark.parametrize("roughness", [0.5, 1.0, 1.5])
def test_no_creases_along_subdivision_lines(roughness):
    """Second differences across the first subdivision lines match the rest of the map."""
    ratios = []
    for seed in range(30):
        h = normalised(diamond_square((257, 257), seed, roughness=roughness))
        d2 = np.abs(h[:, :-2] - 2 * h[:, 1:-1] + h[:, 2:])  # column c at index c - 1
        lines = np.mean([d2[:, c - 1].mean() for c in (64, 128, 192)])
        ratios.append(lines / d2.mean())
    assert 0.85 < np.mean(ratios) < 1.15, np.mean(ratios)


def test_no_bias_and_equal_roughness_at_the_borders():
    bias, rough = [], []
    for seed in range(30):
        h = normalised(diamond_square((257, 257), seed, roughness=1.0))
        border = np.concatenate([h[0], h[-1], h[:, 0], h[:, -1]])
        bias.append(border.mean() - h.mean())
        d1 = np.abs(np.diff(h, axis=1))
        rough.append(0.5 * (d1[:, 0].mean() + d1[:, -1].mean()) / d1.mean())
    assert abs(np.mean(bias)) < 3 * np.std(bias) / np.sqrt(len(bias)) + 0.01
    assert 0.85 < np.mean(rough) < 1.15


def test_roughness_controls_fine_detail():
    smooth = normalised(diamond_square((129, 129), 1, roughness=1.5))
    rough = normalised(diamond_square((129, 129), 1, roughness=0.5))
    assert np.abs(np.diff(rough, axis=0)).mean() > 3 * np.abs(np.diff(smooth, axis=0)).mean()


def test_random_windows_equal_the_whole():
    world = (300, 500)
    h = diamond_square(world, 9, roughness=0.8)
    rng = np.random.default_rng(0)
    for _ in range(50):
        r, c = int(rng.integers(0, 300)), int(rng.integers(0, 500))
        win = Window(r, c, int(rng.integers(1, 301 - r)), int(rng.integers(1, 501 - c)))
        assert np.array_equal(
            diamond_square(world, 9, roughness=0.8, window=win), h[r : r + win.rows, c : c + win.cols]
        )


@pytest.mark.parametrize("roughness", [0.0, -1.0, 9.0, float("nan")])
def test_bad_roughness(roughness):
    with pytest.raises(ValueError, match="roughness"):
        diamond_square((9, 9), roughness=roughness)
