"""core.versions: every earlier form converts to the current version, each conversion with exact values."""

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest

import core.versions
from core.recipe import Recipe
from core.spec import WORLD_PARAMS, TerrainSpec, from_v1_settings, load_spec
from core.versions import (
    SPEC_VERSION,
    preset_v2_to_v3,
    recipe_01_to_v2,
    settings_01,
    spec_v2_to_v3,
    upgrade_recipe,
    upgrade_spec,
)

ROOT = Path(__file__).resolve().parents[2]
V01 = ROOT / "tests" / "fixtures" / "v0_1"
WORLD = {p.name: p for p in WORLD_PARAMS}


def test_the_public_api_defaults_to_the_current_version():
    assert SPEC_VERSION == 5
    assert Recipe().version == SPEC_VERSION and Recipe("faults", 1, (9, 9)).to_dict()["version"] == SPEC_VERSION
    assert TerrainSpec().to_dict()["version"] == SPEC_VERSION
    # A recipe of today's vocabulary needs no version: lengths in metres.
    assert Recipe("hills", 1, (9, 9), {"radius_min": 2.0}, (("lowpass", {"length": 2.0}),)).filters == (
        ("lowpass", {"length": 2.0, "passes": 1}),
    )
    with pytest.raises(ValueError, match="unknown parameters k"):
        Recipe("hills", 1, (9, 9), {}, (("lowpass", {"k": 0.5}),))  # version 2's vocabulary needs version=2


# --- Orogen 0.1 -> version 2 -> current -------------------------------------------------------------------------
def test_a_0_1_recipe_becomes_version_2_then_current():
    data = json.loads((V01 / "recipe_alpine.json").read_text())
    assert recipe_01_to_v2(data) == {
        "version": 2,
        "generator": "faults",
        "seed": 5,
        "shape": [30, 30],
        "params": {"spacing": "orogen_0_1", "faults": 60, "displacement_max": 1.0, "displacement_min": 0.1},
        "filters": [{"type": "lowpass", "k": 0.5, "passes": 1}],
    }
    spec = load_spec(data).to_dict()
    assert {k: spec[k] for k in ("version", "size", "size_y", "seed", "width", "height", "fit_height")} == {
        "version": 5,
        "size": 30,
        "size_y": 0,
        "seed": 5,
        "width": 100.0,
        "height": 20.0,
        "fit_height": True,
    }
    assert spec["faults"] == {"faults": 60, "displacement_max": 1.0, "displacement_min": 0.1, "spacing": "orogen_0_1"}
    cell = 100.0 / 29
    assert spec["filters"] == [{"type": "lowpass", "enabled": True, "length": -cell / math.log(0.5), "passes": 1}]
    assert spec["filters"][0]["length"] == 4.974810485824012
    # The heightmap 0.1 made, bit for bit (faults unchanged; the low-pass k goes through its length).
    v2 = Recipe.from_dict(data)
    assert v2.version == 2 and v2.filters == (("lowpass", {"k": 0.5, "passes": 1}),)
    assert np.abs(load_spec(data).heightmap() - v2.evaluate()).max() <= 1e-6


def test_a_0_1_sidecar_becomes_current():
    data = json.loads((V01 / "peaks_height.npy.json").read_text())
    spec = load_spec(data)
    assert (spec.size, spec.size_y, spec.seed, spec.width, spec.height, spec.fit_height) == (
        33,
        0,
        9,
        100.0,
        20.0,
        True,
    )
    assert spec.generator == "diamond_square" and spec.params == {"roughness": 1.2, "lattice": "grid"}
    assert [(s.key, s.params) for s in spec.filters] == [("flatten", {"exponent": 2.0})]
    assert np.array_equal(spec.heightmap(), Recipe.from_dict(data["recipe"]).evaluate())  # 0.1's, bit for bit
    with pytest.raises(ValueError, match="no recipe"):
        load_spec({**data, "recipe": None})


def test_0_1_settings_become_a_version_2_recipe_then_current():
    recipe, rest = settings_01(
        {"generator": 1, "fault_count": 30, "use_erosion": 1, "erosion_k": 0.6, "light_azimuth": math.pi / 2},
        terrain={"width": 58.0, "height": 7.0},
    )
    assert recipe == {
        "version": 2,
        "generator": "faults",
        "seed": 0,
        "shape": [129, 129],
        "params": {"faults": 30, "displacement_max": 1.0, "displacement_min": 0.05, "spacing": "orogen_0_1"},
        "filters": [{"type": "flatten", "exponent": 1.5}, {"type": "lowpass", "k": 0.6, "passes": 1}],
    }
    assert (rest["width"], rest["height"], rest["lighting"]["azimuth"], rest["layers"]) == (58.0, 7.0, 90.0, None)
    spec = from_v1_settings(
        {"generator": 1, "fault_count": 30, "use_erosion": 1, "erosion_k": 0.6, "light_azimuth": math.pi / 2},
        terrain={"width": 58.0, "height": 7.0},
    )
    assert (spec.width, spec.height, spec.lighting["azimuth"], spec.fit_height) == (58.0, 7.0, 90.0, True)
    assert [s.key for s in spec.filters] == ["flatten", "lowpass"]
    assert spec.filters[1].params == {"length": -(58.0 / 128) / math.log(0.6), "passes": 1}


# --- version 2 -> version 3 --------------------------------------------------------------------------------------
V2_SPEC = {
    "version": 2,
    "size": 65,
    "width": 128.0,  # 2 m cells
    "generator": "hills",
    "hills": {"radius_min": 2.0},
    "filters": [
        {"type": "box_blur", "passes": 6},
        {"type": "lowpass", "k": 0.5, "enabled": False},
        {"type": "thermal", "iterations": 9},
        {"type": "erosion", "steps": 3},
    ],
}


def test_a_version_2_spec_becomes_version_3_with_exact_values():
    out = spec_v2_to_v3(V2_SPEC, WORLD)
    assert (out["version"], out["fit_height"], out["size"], out["width"]) == (3, True, 65, 128.0)
    assert out["hills"] == {"count": 150, "radius_min": 4.0, "radius_max": 40.0, "island": False}
    blur, lowpass, thermal, erosion = out["filters"]
    assert blur == {"type": "box_blur", "radius": 4.0, "method": "passes"}  # sqrt(6 / 1.5) cells of 2 m
    assert lowpass == {"type": "lowpass", "enabled": False, "length": -2.0 / math.log(0.5), "passes": 1}
    assert thermal == {
        "type": "thermal",
        "talus_angle": 35.0,
        "time": "passes",  # version 2 counted passes, as version 4 did
        "duration": 10.0,
        "diffusivity": 1.0,
        "steps": 9,
        "rate": 0.5,
        "edges": "closed",
        "outside": "lowest",  # version 3's open edges (version 2 had the same)
    }
    five = upgrade_spec(V2_SPEC, WORLD)["filters"][2]
    assert five == thermal
    assert (erosion["steps"], erosion["lake_fill"], erosion["auto_scale"]) == (3, False, "cell")
    upgraded = {**out, "version": 5, "filters": [blur, lowpass, five, erosion]}
    assert upgrade_spec(V2_SPEC, WORLD) == upgraded and TerrainSpec.from_dict(V2_SPEC) == TerrainSpec.from_dict(out)


def test_a_version_2_thermal_filter_gives_the_heightmap_it_gave():
    """Version 2's thermal filter said ``iterations``: a version-2 recipe runs it so, its spec says ``steps``."""
    filters = [{"type": "flatten", "exponent": 1.4}, {"type": "thermal", "talus_angle": 25.0, "iterations": 6}]
    data = {"version": 2, "size": 40, "width": 60.0, "height": 12.0, "seed": 4, "generator": "fractal"}
    spec = TerrainSpec.from_dict({**data, "filters": filters})
    assert spec.filters[1].params == {
        "talus_angle": 25.0,
        "time": "passes",
        "duration": 10.0,
        "diffusivity": 1.0,
        "steps": 6,
        "rate": 0.5,
        "edges": "closed",
        "outside": "lowest",
    }
    stack = tuple((f["type"], {k: v for k, v in f.items() if k != "type"}) for f in filters)
    v2 = Recipe("fractal", 4, (40, 40), {}, stack, spec.cell_size, 12.0, version=2)
    assert v2.filters[1] == (
        "thermal",
        {
            "talus_angle": 25.0,
            "time": "passes",
            "duration": 10.0,
            "diffusivity": 1.0,
            "iterations": 6,
            "rate": 0.5,
            "edges": "closed",
            "outside": "lowest",
        },
    )
    assert np.array_equal(spec.heightmap(), v2.evaluate())
    recipe = {"version": 2, "seed": 4, "shape": [40, 40], "generator": "fractal", "params": {}, "filters": filters}
    assert load_spec(recipe).filters[1].params["steps"] == 6  # a version-2 recipe file too


def test_a_version_2_preset_becomes_a_version_3_preset():
    preset = {"generator": "diamond_square", "size": 65, "width": 128.0, "filters": [{"type": "box_blur", "passes": 6}]}
    assert preset_v2_to_v3(preset, WORLD) == {
        "generator": "diamond_square",
        "size": 65,
        "width": 128.0,
        "diamond_square": {"roughness": 1.0, "lattice": "world"},
        "filters": [{"type": "box_blur", "radius": 4.0, "method": "gaussian"}],
    }


# --- version 3 as development builds wrote it -> current ---------------------------------------------------------
OLD_V3 = {"version": 3, "size": 33, "seed": 2, "generator": "fractal", "height": 30.0}


def test_a_version_3_spec_with_thermal_iterations_loads_with_steps():
    old = {**OLD_V3, "filters": [{"type": "thermal", "iterations": 7, "talus_angle": 30.0}]}
    new = {**OLD_V3, "filters": [{"type": "thermal", "steps": 7, "talus_angle": 30.0}]}
    spec = TerrainSpec.from_dict(old)
    assert spec == TerrainSpec.from_dict(new) == load_spec(old) == TerrainSpec.from_json(json.dumps(old))
    assert spec.filters[0].params == {
        "talus_angle": 30.0,
        "time": "passes",
        "duration": 10.0,
        "diffusivity": 1.0,
        "steps": 7,
        "rate": 0.5,
        "edges": "closed",
        "outside": "lowest",
    }
    assert spec.to_dict()["filters"][0]["steps"] == 7 and "iterations" not in spec.to_dict()["filters"][0]
    assert np.array_equal(spec.heightmap(), TerrainSpec.from_dict(new).heightmap())
    assert load_spec({"spec": old}) == spec  # an export sidecar's spec, a user preset file: the same reader
    with pytest.raises(ValueError, match="iterations"):  # both names: the old one is refused by name
        TerrainSpec.from_dict({**OLD_V3, "filters": [{"type": "thermal", "iterations": 7, "steps": 7}]})


def test_a_version_3_recipe_with_thermal_iterations_loads_with_steps():
    old = {"version": 3, "shape": [20, 20], "params": {}, "filters": [{"type": "thermal", "iterations": 4}]}
    assert upgrade_recipe(old)["filters"] == [{"type": "thermal", "time": "passes", "steps": 4, "outside": "lowest"}]
    assert upgrade_recipe(old)["fit_height"] is False
    recipe = Recipe.from_dict(old)
    assert recipe.filters == (
        (
            "thermal",
            {
                "talus_angle": 35.0,
                "time": "passes",
                "duration": 10.0,
                "diffusivity": 1.0,
                "steps": 4,
                "rate": 0.5,
                "edges": "closed",
                "outside": "lowest",
            },
        ),
    )
    assert recipe == Recipe.from_dict({**old, "filters": [{"type": "thermal", "steps": 4}]})
    assert load_spec(old).filters[0].params["steps"] == 4


def test_the_current_presets_say_steps():
    from core.presets import PRESETS

    for name, preset in PRESETS.items():
        for f in preset["spec"].get("filters", []):
            assert "iterations" not in f, name


# --- one room ----------------------------------------------------------------------------------------------------
#: What code outside the versions room may take from core.versions: the entry points and the version picker.
ENTRY_POINTS = {
    "SPEC_VERSION",
    "Upgraded",
    "upgrade",
    "upgrade_spec",
    "upgrade_recipe",
    "recipe_to_spec",  # a checked recipe to a spec: spec.py checks it with core.recipe first
    "settings_01",  # 0.1's panel settings: no file form, core.spec.from_v1_settings
    "part",  # the declaration a version-2 recipe runs
    "V1_FILTER_KEYS",  # documented in the JSON Schema
}
#: The conversion tables and functions: named only inside core/versions/ and addon/versions.py (with its
#: version-3 part, addon/versions3.py).
CONVERSIONS = set(core.versions.__all__) - ENTRY_POINTS | {"migrate_v2", "v2_params_to_v3", "preset_from_v2"}


def _outside_the_room():
    for path in sorted(
        [*(ROOT / "core").rglob("*.py"), *(ROOT / "addon").rglob("*.py"), *(ROOT / "scripts").glob("*.py")]
    ):
        rel = path.relative_to(ROOT).as_posix()
        if not (rel.startswith("core/versions/") or rel in ("addon/versions.py", "addon/versions3.py")):
            yield rel, ast.parse(path.read_text(encoding="utf-8"))


def test_no_module_outside_the_versions_room_holds_a_conversion():
    assert CONVERSIONS >= {"V2_PARTS", "V2_TO_V3", "V1_DEFAULTS", "spec_v2_to_v3", "v2_params_to_v3", "V3_RENAMED"}
    for rel, tree in _outside_the_room():
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        names |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        assert not names & CONVERSIONS, (rel, sorted(names & CONVERSIONS))


def test_the_versions_room_reads_plain_data_below_the_spec_and_the_recipe():
    """core.spec and core.recipe import core.versions, never the other way (no import loop)."""
    for path in (ROOT / "core" / "versions").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert not imported & {"spec", "recipe", "presets", "world"}, (path.name, imported)


# --- what is not a spec is refused as what it is --------------------------------------------
def test_a_dict_without_version_that_is_not_a_0_1_recipe_is_refused():
    # today's "erosion" is stream power; read as a 0.1 recipe it silently became the low-pass filter
    with pytest.raises(ValueError, match=r'needs "version": 5: add it.*not one \(it has no shape\)'):
        load_spec({"generator": "hills", "filters": [{"type": "erosion", "k": 0.5}]})
    with pytest.raises(ValueError, match=r'needs "version": 5: add it.*\(it has size, width\)'):
        load_spec({"generator": "hills", "size": 33, "width": 50.0})
    assert (
        load_spec({"version": 3, "generator": "hills", "size": 9, "filters": [{"type": "erosion"}]}).filters[0].key
        == "erosion"
    )
    # a 0.1 recipe is still one: its keys only, with its shape
    data = json.loads((V01 / "recipe_alpine.json").read_text())
    assert load_spec(data).filters[0].key == "lowpass"


def test_a_sidecar_without_a_spec_is_refused_as_a_sidecar():
    from core.io.formats import sidecar_info

    info = sidecar_info("dem_height.png", (33, 33), "PNG16", absolute=False, height_range=(0.0, 20.0))
    imported = {"spec": None, "cell_size_m": 3.0, "width_m": 96.0, **info}
    with pytest.raises(ValueError, match=r"sidecar of the heightmap 'dem_height.png', not a terrain spec.*imported"):
        load_spec(imported)
    spec = TerrainSpec(size=9)
    edited = {**imported, "edited_vertices": 4, "spec_before_edits": spec.to_dict()}
    with pytest.raises(ValueError, match="not a terrain spec.*edited by hand"):
        load_spec(edited)
    assert load_spec({**imported, "spec": spec.to_dict()}) == spec  # a generated terrain's sidecar holds its spec


def test_a_terrain_too_small_for_erosion_says_so():
    with pytest.raises(ValueError, match=r"too small for the erosion filter: 2 x 2 vertices, it needs at least 3 x 3"):
        TerrainSpec(size=2).replace(filters=(("erosion", {}),)).heightmap()
