"""Filters added to a terrain take values fitted to its scale; a filter that changes the scale says so.

Issue #18, point 6: adding any filter to any terrain gives a plausible result at that terrain's scale. The
declared defaults stay what a spec without a key takes (golden hashes untouched); adding a filter
(:meth:`core.spec.TerrainSpec.with_filter`, the add-on's Add Filter) fills in :func:`core.fitted_defaults`.
"""

import warnings

import numpy as np
import pytest

import core
from core import inputs
from core.scale import SCALE_FACTOR, ScaleChangeWarning, scale_notes
from core.spec import Step, TerrainSpec

#: The default terrain (100 m x 20 m, hills of 3-16 m) and the same landscape at 10 km x 2000 m.
TERRAINS = {
    "default": TerrainSpec(),
    "10 km": TerrainSpec(width=1.0e4, height=2000.0, params={"radius_min": 300.0, "radius_max": 1600.0}),
}
#: Plausible relief, as a share of Height, of the default stack plus each filter with its fitted values: within
#: Height (a little over for the rivers' uplift and the carved bed), and at least half of it. The sea level
#: keeps 1 - level (0.8) by design; the glacial filter (slow at these sizes) is checked by its fitted values below.
PLAUSIBLE = (0.5, 1.0 + 0.05)
SKIPPED = {"glacial"}


def _curve(width):
    points = np.array([[-0.4 * width, -0.3 * width, 0.0], [0.0, 0.05 * width, 0.0], [0.4 * width, 0.3 * width, 0.0]])
    return {("curve", "River"): inputs.CurveInput((points,), name="River")}


def _relief(spec):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with inputs.using(_curve(spec.width)):
            h = spec.heightmap()
    notes = [w.message for w in caught if issubclass(w.category, ScaleChangeWarning)]
    return (float(h.max()) - float(h.min())) * spec.height, notes


@pytest.mark.parametrize("terrain", list(TERRAINS))
@pytest.mark.parametrize("key", [k for k in core.FILTERS if k not in SKIPPED])
def test_every_filter_added_with_fitted_values_keeps_the_relief_plausible(key, terrain):
    base = TERRAINS[terrain]
    spec = base.with_filter(key, {"curve": "River"} if key == "carve" else None)
    assert spec.filters[:-1] == base.filters and spec.filters[-1].key == key
    relief, notes = _relief(spec)
    assert PLAUSIBLE[0] * spec.height <= relief <= PLAUSIBLE[1] * spec.height, relief
    assert notes == []


@pytest.mark.parametrize("key", [k for k in core.FILTERS if k not in SKIPPED])
def test_fitted_values_are_valid_and_scale_with_the_terrain(key):
    small = core.fitted_defaults(key, width=100.0, height=20.0, cell_size=100.0 / 128)
    large = core.fitted_defaults(key, width=1.0e4, height=2000.0, cell_size=1.0e4 / 128)
    assert set(small) == {p.name for p in core.FILTERS[key].params}
    assert core.FILTERS[key].check(small) == small and core.FILTERS[key].check(large) == large
    for p in core.FILTERS[key].params:  # a length in metres, fitted, grows with the terrain; nothing else changes
        if small[p.name] != large[p.name]:
            assert p.unit in ("m", "m/yr") and large[p.name] == pytest.approx(100.0 * small[p.name])


def test_the_stream_power_uplift_fits_the_height():
    values = core.fitted_defaults("erosion", width=100.0, height=20.0, cell_size=100.0 / 128)
    assert values["uplift"] * values["dt"] * values["steps"] == pytest.approx(0.1 * 20.0)
    # the declared default a spec without the key takes is unchanged (existing specs keep their heightmaps)
    assert Step("erosion").params["uplift"] == 1.0e-3
    assert TerrainSpec().fitted_filter("hydraulic").params["depth_scale"] == pytest.approx(0.2)


def test_the_573_m_spire_is_gone_with_fitted_values_and_noted_with_the_old_ones():
    fitted, notes = _relief(TerrainSpec().with_filter("erosion"))
    assert fitted <= 20.0 and notes == []
    spire, notes = _relief(TerrainSpec().with_filter("erosion", {"uplift": 1.0e-3}))
    assert spire == pytest.approx(573.55, abs=0.01)
    (note,) = notes
    assert (note.key, note.index, note.before, round(note.after, 2)) == ("erosion", 1, 20.0, 573.55)
    text = str(note)
    assert text.startswith("filter 2 (Stream-Power Erosion) changes the relief from 20 m to 574 m")
    assert "600 m of uplift against the terrain's Height of 20 m" in text


def test_a_change_within_a_factor_of_two_is_quiet_and_the_sea_level_never_warns():
    assert SCALE_FACTOR == 2.0
    _, notes = _relief(TerrainSpec().with_filter("erosion", {"uplift": 1.0e-3 / 30}))  # 20 m of uplift
    assert notes == []
    _, notes = _relief(TerrainSpec().with_filter("sea_level", {"level": 0.9}))  # a tenth of the relief: its purpose
    assert notes == []
    _, notes = _relief(TerrainSpec().with_filter("box_blur", {"radius": 30.0}))  # blurred flat
    assert [n.key for n in notes] == ["box_blur"] and "Radius 30 m" in str(notes[0])


def test_notes_are_collected_in_this_thread_instead_of_warned():
    spec = TerrainSpec().with_filter("erosion", {"uplift": 1.0e-3})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with scale_notes() as notes:
            spec.heightmap()
    assert [n.key for n in notes] == ["erosion"]
    assert not [w for w in caught if issubclass(w.category, ScaleChangeWarning)]


@pytest.mark.filterwarnings("ignore::core.ScaleChangeWarning")
def test_existing_specs_give_the_same_heightmap():
    """A spec written with the key takes its value, whatever the fit: the fit only fills in a filter being added."""
    old = TerrainSpec(filters=(("flatten", {"exponent": 1.5}), ("erosion", {"steps": 2})))
    again = TerrainSpec.from_json(old.to_json())
    assert again.filters[1].params["uplift"] == 1.0e-3
    assert np.array_equal(old.heightmap(), again.heightmap())


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="filter type must be one of"):
        core.fitted_defaults("nope", width=100.0, height=20.0, cell_size=1.0)
    with pytest.raises(ValueError, match="cell_size"):
        core.fitted_defaults("erosion", width=100.0, height=20.0, cell_size=0.0)
    with pytest.raises(ValueError, match="uplift"):
        TerrainSpec().with_filter("erosion", {"uplift": 5.0})


def test_a_stack_fitted_to_height_does_not_warn():
    _, notes = _relief(TerrainSpec(fit_height=True).with_filter("erosion", {"uplift": 1.0e-3}))
    assert notes == []


def test_the_glacial_filter_is_fitted_to_the_range():
    """The ELA on the upper part of the range and the sliding's coupling length at the valleys' scale."""
    for width, height in ((100.0, 20.0), (1.2e4, 2500.0)):
        fitted = core.fitted_defaults("glacial", width=width, height=height, cell_size=width / 256)
        assert fitted["ela"] == pytest.approx(0.6 * height) and fitted["coupling_length"] == pytest.approx(0.06 * width)
