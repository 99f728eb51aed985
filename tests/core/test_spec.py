"""The terrain spec: declarations, JSON, the published schema, --set, and every 0.1 form migrated."""

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import core
from core.params import FILTERS, GENERATORS, Generator, Param, register_generator, unregister
from core.presets import PRESETS, preset_spec
from core.spec import TerrainSpec, apply_settings, json_schema, load_spec, setting_paths

ROOT = Path(__file__).resolve().parents[2]
V01 = ROOT / "tests" / "fixtures" / "v0_1"
SCHEMA = ROOT / "docs" / "terrain-spec.schema.json"


def sha(h):
    return hashlib.sha256(np.ascontiguousarray(h, dtype=np.float32).tobytes()).hexdigest()


def test_every_declared_parameter_is_complete():
    for part in (*GENERATORS.values(), *FILTERS.values()):
        assert part.label and part.description, part.key
        for p in part.params:
            assert p.label and p.description and p.unit in core.params.UNITS, (part.key, p.name)
            if p.kind in ("int", "float", "range"):
                lo, hi = p.hard
                slo, shi = p.soft_bounds
                assert lo <= slo <= shi <= hi, (part.key, p.name)
            assert p.check(p.default) == p.default


def test_spec_json_round_trip_is_exact_and_sorted():
    for name in PRESETS:
        spec = preset_spec(name)
        text = spec.to_json()
        assert TerrainSpec.from_json(text) == spec
        assert json.loads(text)["version"] == 5
        assert json.dumps(json.loads(text), sort_keys=True) == text


def test_values_are_checked_by_path():
    with pytest.raises(ValueError, match=r"hills\.radius_max \(2\) must not exceed|hills\.radius_min \(9\) must "):
        TerrainSpec(params={"radius_min": 9.0, "radius_max": 2.0})
    with pytest.raises(ValueError, match=r"lighting\.azimuth must be in \[0.0, 360.0\], got 400"):
        TerrainSpec(lighting={"azimuth": 400.0})
    with pytest.raises(ValueError, match=r"size must be in \[2, 4097\], got 5000"):
        TerrainSpec(size=5000)
    with pytest.raises(ValueError, match=r"must be finite"):
        TerrainSpec(width=float("nan"))
    with pytest.raises(ValueError, match=r"filters\[1\]: lowpass\.length must be in"):
        TerrainSpec(filters=(("flatten", {}), ("lowpass", {"length": -1.5})))
    with pytest.raises(ValueError, match=r"filters\[1\]: lowpass\.k must be in"):  # a version-2 spec: k per cell
        TerrainSpec.from_dict({"version": 2, "filters": [{"type": "flatten"}, {"type": "lowpass", "k": 1.5}]})
    for version in (2, 3):
        with pytest.raises(ValueError, match="unknown spec keys: bogus"):
            TerrainSpec.from_dict({"version": version, "bogus": 1})


def test_apply_settings_uses_the_same_names_and_refuses_what_does_not_apply():
    spec = TerrainSpec(filters=(("lowpass", {"length": 0.5}), ("lowpass", {"length": 0.2})))
    out = apply_settings(
        spec,
        [
            "count=300",
            "hills.island=true",
            "lighting.azimuth=90",
            "lowpass.length=0.7",
            "material.shading=unlit",
            "size=65",
            "hill_radius=[1,2]",
        ][:6],
    )
    assert out.params["count"] == 300 and out.params["island"] is True
    assert out.lighting["azimuth"] == 90.0 and out.material["shading"] == "unlit" and out.size == 65
    assert [s.params["length"] for s in out.filters] == [0.7, 0.7]
    with pytest.raises(ValueError, match="a parameter of 'noise'"):
        apply_settings(spec, ["hill_radius=[1,2]"])
    with pytest.raises(ValueError, match="a parameter of 'faults'"):
        apply_settings(spec, ["faults=900"])
    with pytest.raises(ValueError, match="ambiguous"):
        apply_settings(TerrainSpec(filters=(("thermal", {}), ("hydraulic", {"steps": 1}))), ["edges=open"])
    with pytest.raises(ValueError, match="no such setting"):
        apply_settings(spec, ["nothing=1"])
    switched = apply_settings(spec, ["generator=faults", "faults=900"])
    assert switched.generator == "faults" and switched.params["faults"] == 900
    with pytest.raises(ValueError, match="nests 100 levels deep, more than the 2 allowed"):
        apply_settings(spec, ["size=" + "[" * 100])


def test_the_published_schema_is_the_one_the_declarations_make():
    assert json.loads(SCHEMA.read_text()) == json_schema(), "run scripts/write_schema.py"


def test_presets_and_default_spec_validate_against_the_schema():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json_schema())
    for name in PRESETS:
        validator.validate(preset_spec(name).to_dict())
    validator.validate(TerrainSpec().to_dict())
    bad = TerrainSpec().to_dict()
    bad["hills"]["count"] = -1
    assert list(validator.iter_errors(bad))


def test_a_throwaway_generator_declared_in_core_only_is_a_whole_part_of_the_spec():
    def tilt_plane(world_shape, seed, window=None, amplitude=1.0, tilt=0.5):
        from core.window import check_window

        win = check_window(world_shape, window)
        rows = win.row_coords()[:, None].astype(np.float64)
        cols = win.col_coords()[None, :].astype(np.float64)
        return amplitude * (rows * tilt + cols * (1 - tilt))

    register_generator(
        Generator(
            "toy_plane",
            "Toy Plane",
            "A tilted plane",
            tilt_plane,
            (
                Param(
                    "amplitude", "float", 1.0, hard=(0.0, 10.0), label="Amplitude", description="Height of the plane"
                ),
                Param(
                    "tilt", "float", 0.5, hard=(0.0, 1.0), unit="factor", label="Tilt", description="Share along rows"
                ),
            ),
        )
    )
    try:
        spec = apply_settings(TerrainSpec(size=9), ["generator=toy_plane", "tilt=1.0"])
        assert TerrainSpec.from_json(spec.to_json()) == spec
        assert json.loads(spec.to_json())["toy_plane"] == {"amplitude": 1.0, "tilt": 1.0}
        h = spec.replace(filters=()).heightmap()
        assert np.array_equal(h, np.repeat(np.linspace(0, 1, 9, dtype=np.float32)[:, None], 9, axis=1))
        assert "toy_plane.tilt" in setting_paths(spec)
        assert "toy_plane" in json_schema()["properties"]
    finally:
        unregister("toy_plane")


@pytest.mark.parametrize("name", ["IslandHills", "NoiseLayers", "Peaks", "RecipeFaults"])
def test_0_1_recipes_give_the_heightmaps_0_1_made(name):
    expected = json.loads((V01 / "expected.json").read_text())[name]
    spec = load_spec(expected["recipe"])
    assert list(spec.shape) == expected["shape"]
    assert sha(spec.heightmap()) == expected["sha256"]


def test_0_1_recipe_file_and_sidecars_load_with_their_scale():
    recipe = TerrainSpec.from_json((V01 / "recipe_alpine.json").read_text())
    assert recipe.generator == "faults" and recipe.shape == (30, 30)
    assert [s.key for s in recipe.filters] == ["lowpass"]
    expected = json.loads((V01 / "expected.json").read_text())["Peaks"]
    for sidecar in ("peaks_height.r16.json", "peaks_height.npy.json"):
        spec = TerrainSpec.from_json((V01 / sidecar).read_text())
        assert (spec.width, spec.height) == (100.0, 20.0)
        assert sha(spec.heightmap()) == expected["sha256"]


def test_0_1_panel_settings_become_the_same_recipe():
    from core.spec import from_v1_settings

    settings = {
        "generator": 1,
        "fault_count": 321,
        "size": 65,
        "use_erosion": 1,
        "erosion_k": 0.699999988079071,
        "light_azimuth": 2.0,
        "flattening": 1.5,
        "lighting": 2,
        "shading": 1,
    }
    spec = from_v1_settings(settings)
    assert spec.generator == "faults" and spec.params["faults"] == 321 and spec.size == 65
    # 0.1's k per cell is a decay length in metres at the spec's cell size (100 m / 64 cells)
    assert [s.key for s in spec.filters] == ["flatten", "lowpass"] and spec.fit_height
    assert spec.filters[1].params == {"length": pytest.approx(-100.0 / 64 / np.log(0.7), rel=1e-15), "passes": 1}
    assert spec.lighting["mode"] == "multidirectional" and spec.material["shading"] == "unlit"
    assert spec.lighting["azimuth"] == round(np.degrees(2.0), 4)
