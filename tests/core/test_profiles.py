import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.generators.profiles import section_columns, sectioned_profile, slope_walk


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**64 - 1), st.floats(0.1, 10.0), st.floats(0.0, 5.0))
def test_slope_walk_stays_in_bounds_without_plateaus(seed, max_slope, change):
    p = slope_walk(3000, seed, min_height=10.0, max_height=60.0, max_slope=max_slope, slope_change=change)
    assert p.dtype == np.float32 and p.shape == (3000,)
    assert p.min() >= 10.0 and p.max() <= 60.0
    for bound in (10.0, 60.0):
        at = p == bound
        # The walk turns at a bound: it never stays there. (A column just before the bound can round
        # to it in float32, so two equal columns can occur; three cannot.)
        assert not (at[:-2] & at[1:-1] & at[2:]).any()
    steps = np.abs(np.diff(p.astype(np.float64)))
    assert steps.max() <= max_slope + 1e-4


def test_slope_walk_reaches_the_bounds_and_turns():
    p = slope_walk(5000, 1, min_height=0.0, max_height=50.0, max_slope=3.0, slope_change=1.0)
    assert (p == 50.0).sum() > 0 and (p == 0.0).sum() > 0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 40), st.integers(1, 9))
def test_sections_alone_equal_the_whole(seed, sections, sub_points):
    columns = 37 * sections + 5
    whole = sectioned_profile(columns, seed, sections=sections, sub_points=sub_points, shift=0.3, smoothing_steps=50)
    assert whole.shape == (columns,)
    for i in range(sections):
        start, stop = section_columns(columns, seed, sections, section=i)
        part = sectioned_profile(
            columns, seed, sections=sections, sub_points=sub_points, shift=0.3, smoothing_steps=50, section=i
        )
        assert np.array_equal(part, whole[start:stop])


def test_sectioned_profile_bounds_and_smoothing():
    rough = sectioned_profile(
        4000, 7, sections=20, sub_points=8, shift=0.5, smoothing_steps=0, min_height=5, max_height=80
    )
    smooth = sectioned_profile(
        4000, 7, sections=20, sub_points=8, shift=0.5, smoothing_steps=4000, min_height=5, max_height=80
    )
    for p in (rough, smooth):
        assert p.min() >= 5.0 and p.max() <= 80.0
    curvature = lambda p: np.abs(np.diff(p.astype(np.float64), 2)).sum()  # noqa: E731
    assert curvature(smooth) < curvature(rough)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: slope_walk(0), "columns"),
        (lambda: slope_walk(10, min_height=5, max_height=5), "min_height"),
        (lambda: slope_walk(10, max_slope=0), "max_slope"),
        (lambda: sectioned_profile(10, sections=20), "columns"),
        (lambda: sectioned_profile(100, shift=2.0), "shift"),
        (lambda: sectioned_profile(100, sections=4, section=4), "section"),
    ],
)
def test_bad_parameters(call, match):
    with pytest.raises(ValueError, match=match):
        call()
