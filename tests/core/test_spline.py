"""The heightmap's cubic B-spline: through every sample, linear ramps reproduced inside, bad input refused."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core.spline import bspline_coefficients, bspline_sample


@settings(max_examples=60, deadline=None)
@given(arrays(np.float32, st.tuples(st.integers(1, 12), st.integers(1, 12)), elements=st.floats(-1e3, 1e3, width=32)))
def test_the_spline_passes_through_every_sample(h):
    c = bspline_coefficients(h)
    assert c.dtype == np.float32 and c.shape == h.shape
    r, q = np.mgrid[0 : h.shape[0], 0 : h.shape[1]]
    assert np.abs(bspline_sample(c, r, q) - h).max() <= 2e-6 * max(1.0, float(np.abs(h).max()))


def test_a_linear_ramp_is_reproduced_between_samples_away_from_the_edges():
    y, x = np.mgrid[0:24, 0:24].astype(np.float32)
    c = bspline_coefficients(3.0 * x - 2.0 * y)
    assert bspline_sample(c, 11.3, 12.6) == pytest.approx(3.0 * 12.6 - 2.0 * 11.3, abs=1e-4)


def test_a_spike_rings_and_cubic_sampling_of_the_heights_themselves_would_lower_it():
    h = np.zeros((9, 9), np.float32)
    h[4, 4] = 6.0
    c = bspline_coefficients(h)
    assert c[4, 4] > 6.0 and c[4, 3] < 0.0  # the prefilter sharpens
    assert bspline_sample(h, 4, 4) == pytest.approx(6.0 * (4 / 6) ** 2)  # the plain texture's peak: 2.67


@pytest.mark.parametrize("bad", [np.zeros((0, 3)), np.array([[1.0, np.nan]]), np.zeros(4)])
def test_bad_heightmaps_are_refused_by_name(bad):
    with pytest.raises(ValueError, match="heightmap"):
        bspline_coefficients(bad)
