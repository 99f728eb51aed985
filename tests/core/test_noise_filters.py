import numpy as np
import pytest

from core.filters import box_blur, erosion_filter, erosion_margin, sea_level, terrace
from core.generators.hills_pits import noise_hills_pits
from core.noise.white import white_noise


def test_white_noise_is_uniform_in_its_amplitude():
    n = white_noise((200, 200), 1, amplitude=0.5)
    assert n.min() >= 0.0 and n.max() < 0.5
    assert abs(n.mean() - 0.25) < 0.01


def test_hills_raise_and_pits_dig_only_where_they_touch():
    base = noise_hills_pits((64, 64), 2, noise=0.0, hills=0, pits=0)
    assert not base.any()
    hill = noise_hills_pits((64, 64), 2, noise=0.0, hills=1, hill_radius=(5, 5), hill_height=(2, 2), pits=0)
    assert hill.max() == pytest.approx(2.0, abs=0.2) and hill.min() == 0.0
    assert 0 < (hill > 0).sum() <= np.pi * 25 + 1
    pit = noise_hills_pits((64, 64), 2, noise=0.0, hills=0, pits=1, pit_radius=(5, 5), pit_height=(1, 1))
    assert pit.min() == pytest.approx(-1.0, abs=0.2) and pit.max() == 0.0


def test_box_blur_smooths_edges_too_and_keeps_constants():
    assert np.array_equal(box_blur(np.full((5, 4), 3.0), 4), np.full((5, 4), 3.0, dtype=np.float32))
    h = np.zeros((5, 5))
    h[0, 0] = 4.0
    b = box_blur(h, 1)
    assert b[0, 0] == pytest.approx(1.0)  # corner: mean of 4 cells
    assert b[1, 1] == pytest.approx(4.0 / 9.0)
    assert b[0, 1] == pytest.approx(4.0 / 6.0)  # edge: mean of 6 cells
    assert b[3, 3] == 0.0
    assert box_blur(h, 0).tolist() == h.tolist()


def test_erosion_filter_has_no_directional_bias():
    h = np.zeros((41, 41))
    h[20, 20] = 1.0
    e = erosion_filter(h, 0.5, 1).astype(np.float64)
    assert np.allclose(e, e.T, atol=1e-7)
    assert np.allclose(e, e[::-1, ::-1], atol=1e-7)
    assert e[20, 20] < 1.0 and e[20, 21] > 0.0


def test_erosion_filter_one_pole_values():
    row = np.array([[0.0, 1.0, 1.0, 1.0]])
    e = erosion_filter(np.repeat(row, 1, axis=0), 0.5, 1)
    # left to right: 0, .5, .75, .875; then right to left from .875; columns of one row are unchanged.
    lr = [0.0, 0.5, 0.75, 0.875]
    rl = [0.0, 0.0, 0.0, lr[3]]
    rl[2] = 0.5 * rl[3] + 0.5 * lr[2]
    rl[1] = 0.5 * rl[2] + 0.5 * lr[1]
    rl[0] = 0.5 * rl[1] + 0.5 * lr[0]
    assert e[0].tolist() == pytest.approx(rl)
    assert erosion_filter(row, 0.0, 3).tolist() == row.tolist()


def test_erosion_margin_bounds_the_tail():
    m = erosion_margin(0.5, 1)
    assert 0.5**m <= 1e-7 < 0.5 ** (m - 1)
    assert erosion_margin(0.5, 3) == 3 * m


def test_terrace_is_monotonic_stepped_and_keeps_the_ends():
    h = np.linspace(0.0, 1.0, 1001)[None, :]
    t = terrace(h, levels=4, smoothness=0.25)[0]
    assert t[0] == 0.0 and t[-1] == 1.0
    assert (np.diff(t) >= 0).all()
    assert t[100] == 0.0 and t[300] == 0.25  # flat parts of the first two terraces


def test_sea_level_clamps_below():
    assert sea_level(np.array([[0.1, 0.5]]), 0.3)[0].tolist() == pytest.approx([0.3, 0.5])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: erosion_filter(np.zeros((3, 3)), 1.0), r"k must be in \[0.0, 1.0\)"),
        (lambda: erosion_filter(np.zeros((3, 3)), -0.1), "k must be in"),
        (lambda: box_blur(np.zeros((3, 3)), -1), r"passes must be in \[0, 1000\]"),
        (lambda: terrace(np.zeros((3, 3)), 0), "levels"),
        (lambda: terrace(np.zeros((3, 3)), 3, 0.0), "smoothness"),
        (lambda: sea_level(np.zeros((3, 3)), 1.5), "level"),
        (lambda: noise_hills_pits((8, 8), hills=-2), "hills"),
        (lambda: noise_hills_pits((8, 8), hill_radius=(5, 1)), "hill_radius must have min <= max"),
        (lambda: noise_hills_pits((8, 8), pit_height=(0.1,)), "pit_height must be a"),
    ],
)
def test_bad_parameters(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
