"""The grove settings of the scatter (core.scatter.CLUMP_OPTIONS) and auto_clump_size."""

import math

import pytest

from core.scatter import AUTO_CLUMP, CLUMP_OPTIONS, SCATTER_KINDS, auto_clump_size


def test_auto_clump_size_is_a_sixteenth_of_the_extent_within_its_bounds():
    low, high, share = AUTO_CLUMP
    assert auto_clump_size(256.0) == pytest.approx(low)  # a small terrain: the least grove size
    assert auto_clump_size(4000.0) == pytest.approx(4000.0 * share) == pytest.approx(250.0)
    assert auto_clump_size(15000.0) == pytest.approx(high)
    assert auto_clump_size(0.0) == pytest.approx(low)
    sizes = [auto_clump_size(e) for e in (100.0, 500.0, 1000.0, 3000.0, 8000.0, 1e6)]
    assert sizes == sorted(sizes)  # never smaller for a larger terrain


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf, 2e7])
def test_auto_clump_size_refuses_a_bad_extent_by_name(bad):
    with pytest.raises(ValueError, match="extent_m"):
        auto_clump_size(bad)


def test_clump_options_bounds_and_check():
    options = {o.name: o for o in CLUMP_OPTIONS}
    assert set(options) == {"clump_size", "clumping", "site_scale"}
    assert (options["clump_size"].low, options["clump_size"].unit) == (0.0, "m")
    assert options["clump_size"].high >= 1e4
    for name in ("clumping", "site_scale"):
        assert (options[name].low, options[name].high, options[name].unit) == (0.0, 1.0, "")
    for option in CLUMP_OPTIONS:
        assert option.check(option.low) == option.low and option.check(option.high) == option.high
        assert option.description
        for bad in (option.low - 1e-3, option.high + 1.0, math.nan):
            with pytest.raises(ValueError, match=option.name):
                option.check(bad)


def test_every_kinds_grove_defaults_lie_in_the_bounds():
    for kind in SCATTER_KINDS.values():
        for option in CLUMP_OPTIONS:
            option.check(getattr(kind, option.name))
        assert kind.variants >= 6
    assert SCATTER_KINDS["conifers"].clumping > 0.5 and SCATTER_KINDS["broadleaf"].site_scale > 0.0
