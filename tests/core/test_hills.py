import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import add_hill, circle_hills, hill_parameters, raw_hills


def test_lone_hill_peaks_at_radius_squared_and_follows_the_parabola():
    h = np.zeros((21, 21))
    add_hill(h, 10.0, 10.0, radius=5.0)
    assert h[10, 10] == 25.0
    assert h[10, 13] == 25.0 - 9.0
    assert h[13, 14] == 0.0  # d**2 = 25: the rim
    assert h[10, 16] == 0.0  # outside: negative part ignored


def test_hill_touches_only_the_cells_it_covers():
    h = np.full((40, 40), 7.0)
    add_hill(h, 20.3, 11.6, radius=4.2)
    rr, cc = np.mgrid[0:40, 0:40]
    outside = (rr - 20.3) ** 2 + (cc - 11.6) ** 2 >= 4.2**2
    assert (h[outside] == 7.0).all()
    assert (h[~outside] > 7.0).all()


def test_hill_partly_outside_the_map():
    h = np.zeros((10, 10))
    add_hill(h, -2.0, 5.0, radius=4.0)
    assert h[0, 5] == 16.0 - 4.0
    assert h[2, 5] == 0.0


def test_overlapping_hills_add():
    shape = (30, 30)
    hills = hill_parameters(shape, seed=3, count=2, radius_min=8, radius_max=8)
    total = raw_hills(shape, hills)
    single = [np.zeros(shape), np.zeros(shape)]
    for i in range(2):
        add_hill(single[i], hills.rows[i], hills.cols[i], radius=hills.radii[i])
    assert np.array_equal(total, single[0] + single[1])


def test_circle_hills_is_normalised_float32_and_deterministic():
    a = circle_hills((64, 48), seed=11, count=40, radius_min=3, radius_max=9)
    b = circle_hills((64, 48), seed=11, count=40, radius_min=3, radius_max=9)
    assert a.dtype == np.float32 and a.shape == (64, 48)
    assert a.min() == 0.0 and a.max() == 1.0
    assert np.array_equal(a, b)
    assert not np.array_equal(a, circle_hills((64, 48), seed=12, count=40, radius_min=3, radius_max=9))


def test_radii_lie_in_the_range():
    hills = hill_parameters((100, 100), seed=5, count=500, radius_min=2.5, radius_max=6.0)
    assert hills.radii.min() >= 2.5 and hills.radii.max() <= 6.0
    assert hills.radii.max() - hills.radii.min() > 3.0


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(2, 300),
    cols=st.integers(2, 300),
    seed=st.integers(0, 2**64 - 1),
    rmin=st.floats(0.5, 40.0),
    span=st.floats(0.0, 40.0),
)
def test_island_hills_stay_inside_the_map(rows, cols, seed, rmin, span):
    rmax = rmin + span
    hills = hill_parameters((rows, cols), seed, 50, radius_min=rmin, radius_max=rmax, island=True)
    fits = hills.radii <= (min(rows, cols) - 1) / 2
    r, c, rad = hills.rows[fits], hills.cols[fits], hills.radii[fits]
    eps = 1e-9
    assert (r - rad >= -eps).all() and (r + rad <= rows - 1 + eps).all()
    assert (c - rad >= -eps).all() and (c + rad <= cols - 1 + eps).all()
    # A hill larger than the map sits on the centre.
    assert np.allclose(hills.rows[~fits], (rows - 1) / 2) and np.allclose(hills.cols[~fits], (cols - 1) / 2)


def test_island_mode_concentrates_height_in_the_middle():
    h = circle_hills((128, 128), seed=2, count=300, radius_min=4, radius_max=16, island=True)
    centre = h[32:96, 32:96].mean()
    border = np.concatenate([h[:8].ravel(), h[-8:].ravel(), h[:, :8].ravel(), h[:, -8:].ravel()]).mean()
    assert centre > 4 * border


def test_flattening_lowers_the_lowlands_and_keeps_the_peak():
    plain = circle_hills((64, 64), seed=9, count=60, radius_min=4, radius_max=12)
    flat = circle_hills((64, 64), seed=9, count=60, radius_min=4, radius_max=12, flattening=2.0)
    assert np.array_equal(flat, (plain.astype(np.float64) ** 2).astype(np.float32))
    assert flat.max() == 1.0


def test_no_hill_gives_a_flat_zero_map():
    assert not circle_hills((5, 5), seed=0, count=0).any()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"radius_min": 5.0, "radius_max": 2.0}, ValueError, r"radius_min \(5.0\) must be <= radius_max"),
        ({"radius_min": 0.0}, ValueError, r"radius_min must be in \(0.0, 1000000.0\]"),
        ({"radius_max": 10**400}, ValueError, "radius_max must be in .* too large"),
        ({"radius_min": 1e154, "radius_max": 1e154}, ValueError, "radius_min must be in"),
        ({"island": "no"}, TypeError, "island must be a bool"),
        ({"count": -1}, ValueError, r"count must be in \[0, 1000000\]"),
        ({"count": 2.5}, TypeError, "count must be an integer"),
        ({"flattening": 0.0}, ValueError, "flattening"),
        ({"radius_max": float("nan")}, ValueError, "radius_max must be finite"),
        ({"seed": -3}, ValueError, "seed must be in"),
    ],
)
def test_bad_parameters_name_the_parameter_and_range(kwargs, error, match):
    with pytest.raises(error, match=match):
        circle_hills((16, 16), **kwargs)
