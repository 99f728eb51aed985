"""Presets carry their trees and rocks: each entry a known kind, known settings, a layer the preset has."""

import pytest

from core.presets import PRESETS, SCATTER_SETTINGS, preset_scatter, preset_spec
from core.scatter import SCATTER_KINDS


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_scatter_entry_names_a_kind_its_settings_and_a_layer_of_the_preset(name):
    layers = {layer.name for layer in preset_spec(name).layers}
    for entry in preset_scatter(name):
        assert entry["kind"] in SCATTER_KINDS, entry
        assert set(entry) - {"kind"} <= set(SCATTER_SETTINGS), entry
        assert entry.get("layer", next(iter(layers), "")) in layers, entry
        assert 0.0 < entry.get("density", SCATTER_KINDS[entry["kind"]].density) <= 1000.0


def test_the_landforms_that_grow_trees_carry_them_and_the_bare_ones_none():
    kinds = {name: {e["kind"] for e in preset_scatter(name)} for name in PRESETS}
    assert "conifers" in kinds["eroded_mountains"] and "conifers" in kinds["alpine_ridges"]
    assert kinds["scree_slopes"] == {"boulders"}
    assert kinds["badlands"] == set() and kinds["dunes"] == set()


def test_the_entries_are_copies_and_an_unknown_preset_is_named():
    preset_scatter("island")[0]["density"] = 1.0e9
    assert preset_scatter("island")[0]["density"] == 40.0
    with pytest.raises(ValueError, match="no built-in preset 'atlantis'"):
        preset_scatter("atlantis")
