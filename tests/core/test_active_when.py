"""Every ``active_when`` declaration is true: a setting declared inactive under some values of its siblings
changes nothing there (the heightmap, the bake or the colour layers' weights are bit-identical whatever value
it takes), and changes something for at least one value where it is declared active.

The cases are generated from the declarations, so a declaration added later is tested as it is written.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pytest

import core  # noqa: F401  (registers the built-in parts)
from core import inputs
from core.colormap import DEFAULT_LAYERS, layer_weights
from core.lighting import LIGHTING_PARAMS
from core.params import (
    FILTERS,
    GENERATORS,
    AnyOf,
    Condition,
    Param,
    When,
    check_conditions,
    condition_text,
    inactive_reason,
)
from core.spec import (
    LAYER_PARAMS,
    MATERIAL_PARAMS,
    InactiveSettingWarning,
    Step,
    TerrainSpec,
    apply_settings,
    inactive_settings,
)

#: Settings whose effect is outside core (the add-on's material and scene sun): core sees them change nothing
#: anywhere; tests/blender/test_inactive_settings.py proves their declarations on what the add-on makes.
ADDON_ONLY = {
    "lighting.use_scene_sun",
    *(f"material.{p.name}" for p in MATERIAL_PARAMS),
    "layers.image",
    "layers.color2",
    "layers.scale",
}


def _on_number(p: Param, above: float) -> float | int:
    lo, hi = p.soft_bounds or (above, above + 2.0)
    value = (lo + hi) / 2 if (lo + hi) / 2 > above else above + 1.0
    return int(round(value)) if p.kind == "int" else value


def _satisfier(c: Condition, params: Mapping[str, Param]) -> dict[str, Any]:
    if isinstance(c, When):
        return {c.name: c.values[0]} if c.values else {c.name: _on_number(params[c.name], c.above or 0.0)}
    if isinstance(c, AnyOf):
        return _satisfier(c.conditions[0], params)
    out: dict[str, Any] = {}
    for child in c.conditions:
        out.update(_satisfier(child, params))
    return out


def _falsifiers(c: Condition, params: Mapping[str, Param]) -> list[dict[str, Any]]:
    """Assignments of siblings, each making ``c`` false (every way an all-of fails, with the rest true)."""
    if isinstance(c, When):
        p = params[c.name]
        if c.above is not None:
            return [{c.name: int(c.above) if p.kind == "int" else c.above}]
        if p.kind == "bool":
            return [{c.name: not c.values[0]}]
        return [{c.name: next(v for v in p.choices if v not in c.values)}]
    if isinstance(c, AnyOf):
        out: dict[str, Any] = {}
        for child in c.conditions:
            out.update(_falsifiers(child, params)[0])
        return [out]
    cases = []
    for i, child in enumerate(c.conditions):
        rest: dict[str, Any] = {}
        for j, other in enumerate(c.conditions):
            if j != i:
                rest.update(_satisfier(other, params))
        cases.extend({**rest, **f} for f in _falsifiers(child, params))
    return cases


def _variants(p: Param) -> list[Any]:
    """Values of ``p`` to vary it over: its default, its choices, or its slider range's ends and middle."""
    if p.kind == "bool":
        return [False, True]
    if p.kind == "enum":
        return list(p.choices)
    if p.kind in ("string", "path"):
        return ["", "texture.png"]
    if p.kind == "color":
        return [p.default, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0), (0.2, 0.5, 0.8)]
    lo, hi = p.soft_bounds or (0.0, 1.0)
    if p.kind == "range":
        return [p.default, (lo, lo), (lo, hi), (hi, hi), ((lo + hi) / 2, hi)]
    numbers = [p.default, lo, hi, (lo + hi) / 2, lo + (hi - lo) / 7, lo + (hi - lo) / 100]
    return sorted({int(round(v)) for v in numbers} if p.kind == "int" else set(numbers))


# --- what each group's settings compute ---------------------------------------------------------------------
_SIZE = 33


#: A small pyramid over part of the terrain, for the object source (its Fill acts around it).
_PYRAMID = core.inputs.MeshInput(
    np.array([[-20.0, -20.0, 1.0], [20.0, -20.0, 1.0], [20.0, 20.0, 1.0], [-20.0, 20.0, 1.0], [0.0, 0.0, 9.0]]),
    np.array([[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]]),
    name="Pyramid",
)
#: What a source reads: the object source's mesh.
_SOURCE_BASE: dict[str, dict[str, Any]] = {"object": {"object": "Pyramid"}}
#: Filters' settings that make them act on the test terrain (its slopes lie under the default talus angle).
_FILTER_BASE: dict[str, dict[str, Any]] = {"thermal": {"talus_angle": 5.0}, "rivers": {"river_area": 20.0}}


def _generator(key: str) -> Callable[[dict[str, Any]], Any]:
    def run(values: dict[str, Any]) -> Any:
        spec = TerrainSpec(size=_SIZE, width=100.0, generator=key, params=values, filters=())
        with core.inputs.using({("mesh", "Pyramid"): _PYRAMID}):
            return spec.heightmap()

    return run


#: What a filter's ``object`` settings name here (a curve across the terrain, rising and falling).
_INPUTS = {
    ("curve", "test_curve"): inputs.CurveInput(
        (np.array([[-60.0, -40.0, 5.0], [0.0, 0.0, 25.0], [60.0, 40.0, 10.0]]),), name="test_curve"
    ),
}


def _filter(key: str) -> Callable[[dict[str, Any]], Any]:
    objects = {p.name: f"test_{p.object_kind}" for p in FILTERS[key].params if p.kind == "object"}

    def run(values: dict[str, Any]) -> Any:
        step = Step(key, {**objects, **values})
        spec = TerrainSpec(size=_SIZE, width=100.0, seed=3, generator="fractal", filters=(step,))
        with inputs.using(_INPUTS):
            return spec.heightmap()

    return run


_LIGHT_SPEC = TerrainSpec(size=_SIZE, width=100.0, height=300.0, seed=1, generator="fractal", filters=())
_LIGHT_HEIGHTS = _LIGHT_SPEC.heightmap()


def _lighting(values: dict[str, Any]) -> Any:
    maps = _LIGHT_SPEC.replace(lighting=values).bake(_LIGHT_HEIGHTS)
    return (maps.lightmap, maps.slope, maps.curvature, maps.occlusion)


_RNG = np.random.default_rng(5)
_MAPS = {
    name: (_RNG.random((_SIZE, _SIZE)) * scale).astype(np.float32)
    for name, scale in (("drainage_area", 1.0e4), ("deposited", 1.0), ("removed", 1.0), ("water_depth", 0.5))
}


def _layers(values: dict[str, Any]) -> Any:
    layers = list(DEFAULT_LAYERS)
    layers[1] = dataclasses.replace(layers[1], **values)
    maps = _LIGHT_SPEC.bake(_LIGHT_HEIGHTS)
    return layer_weights(
        _LIGHT_HEIGHTS,
        tuple(layers),
        maps.slope,
        maps=_MAPS,
        height=_LIGHT_SPEC.height,
        cell_size=_LIGHT_SPEC.cell_size,
        seed=2,
    )


def _nothing(values: dict[str, Any]) -> Any:
    return None


def _groups() -> list[tuple[str, Sequence[Param], dict[str, Any], Callable[[dict[str, Any]], Any]]]:
    groups: list[tuple[str, Sequence[Param], dict[str, Any], Callable[[dict[str, Any]], Any]]] = []
    groups += [(key, g.params, _SOURCE_BASE.get(key, {}), _generator(key)) for key, g in GENERATORS.items()]
    groups += [(key, f.params, _FILTER_BASE.get(key, {}), _filter(key)) for key, f in FILTERS.items()]
    groups.append(("lighting", LIGHTING_PARAMS, {}, _lighting))
    groups.append(("material", MATERIAL_PARAMS, {}, _nothing))
    layer = {f.name: getattr(DEFAULT_LAYERS[1], f.name) for f in dataclasses.fields(DEFAULT_LAYERS[1])}
    groups.append(("layers", LAYER_PARAMS, layer, _layers))
    return groups


CASES = [
    pytest.param(group, params, base, run, p, id=f"{group}.{p.name}")
    for group, params, base, run in _groups()
    for p in params
    if p.active_when is not None
]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return all(_same(x, y) for x, y in zip(a, b, strict=True))
    if a is None or b is None:
        return a is None and b is None
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))


def _outputs(run: Callable[[dict[str, Any]], Any], values: dict[str, Any], p: Param) -> list[Any]:
    outs = []
    for v in _variants(p):
        try:
            outs.append(run({**values, p.name: v}))
        except ValueError:  # a value this combination refuses (an ordered pair, a length too many cells): skip
            continue
    assert len(outs) >= 2, f"{p.name}: fewer than two of its values could be evaluated"
    return outs


def test_cases_cover_the_declarations() -> None:
    names = {case.id for case in CASES}
    assert {"erosion.channel_width", "erosion.flow_exponent", "fractal.warp_detail", "lighting.azimuth"} <= names
    assert len(names) >= 40


@pytest.mark.parametrize(("group", "params", "base", "run", "param"), CASES)
def test_inactive_setting_changes_nothing(group: str, params: Any, base: Any, run: Any, param: Param) -> None:
    by_name = {p.name: p for p in params}
    assert param.active_when is not None
    for falsifier in _falsifiers(param.active_when, by_name):
        values = {**base, **falsifier}
        reason = inactive_reason(param, values, params)
        assert reason is not None and reason.startswith("Acts only when "), (falsifier, reason)
        outs = _outputs(run, values, param)
        for out in outs[1:]:
            assert _same(outs[0], out), f"{group}.{param.name} changed the result under {falsifier} ({reason})"


@pytest.mark.parametrize(("group", "params", "base", "run", "param"), CASES)
def test_active_setting_changes_something(group: str, params: Any, base: Any, run: Any, param: Param) -> None:
    if f"{group}.{param.name}" in ADDON_ONLY:
        pytest.skip("acts in the add-on only")
    assert param.active_when is not None
    values = {**base, **_satisfier(param.active_when, {p.name: p for p in params})}
    assert inactive_reason(param, values, params) is None
    outs = _outputs(run, values, param)
    assert any(not _same(outs[0], out) for out in outs[1:]), f"{group}.{param.name} never changed the result"


def test_reasons_in_words() -> None:
    erosion = FILTERS["erosion"].params
    by_name = {p.name: p for p in erosion}
    assert inactive_reason(by_name["flow_exponent"], {}, erosion) == "Acts only when Flow Routing is Multiple Flow"
    assert inactive_reason(by_name["flow_exponent"], {"routing": "mfd"}, erosion) is None
    assert inactive_reason(by_name["channel_width"], {}, erosion) == "Acts only when Automatic K and D is off"
    assert inactive_reason(by_name["steps"], {}, erosion) is None
    light = {p.name: p for p in LIGHTING_PARAMS}
    assert condition_text(light["ao_radius"], LIGHTING_PARAMS) == (
        "Acts only when Lightmap is on and Lighting is Hillshade or Multidirectional and Ambient Occlusion is on "
        "and Strength is above 0"
    )
    assert condition_text(light["azimuth"], LIGHTING_PARAMS) == (
        "Acts only when Lightmap is on and (Lighting is Slope or Hillshade or Cast Shadows is on)"
    )
    assert condition_text(light["enabled"], LIGHTING_PARAMS) == ""
    # Six of the stream-power filter's settings do nothing under its defaults.
    assert sorted(p.name for p in erosion if inactive_reason(p, {}, erosion)) == [
        "channel_width",
        "diffusion",
        "flow_exponent",
        "k",
        "marine_diffusion",
        "sea_level",
    ]


def test_conditions_are_checked() -> None:
    a = Param("a", "bool", False)
    with pytest.raises(ValueError, match="not a sibling"):
        check_conditions([a, Param("b", "int", 1, hard=(0, 9), active_when=When("c", True))])
    with pytest.raises(ValueError, match="above= needs a number"):
        check_conditions([a, Param("b", "int", 1, hard=(0, 9), active_when=When("a", above=0))])
    with pytest.raises(TypeError, match="true or false"):
        check_conditions([a, Param("b", "int", 1, hard=(0, 9), active_when=When("a", "yes"))])
    with pytest.raises(ValueError, match="not both or neither"):
        When("a")
    with pytest.raises(ValueError, match="not both or neither"):
        When("a", 1, above=0)
    # Bools and numbers are told apart: True is not 1.
    n = Param("n", "int", 1, hard=(0, 9))
    b = Param("b", "bool", False, active_when=When("n", 1))
    assert inactive_reason(b, {"n": 1}, [n, b]) is None
    assert inactive_reason(b, {"n": 2}, [n, b]) == "Acts only when N is 1"


def test_apply_settings_notes_settings_without_effect_under_the_result() -> None:
    spec = TerrainSpec(size=9, filters=(("erosion", {}),))
    with pytest.warns(InactiveSettingWarning) as caught:
        out = apply_settings(spec, ["channel_width=3", "lighting.softness=2", "lighting.mode=hillshade", "seed=4"])
    assert [str(w.message) for w in caught] == [
        "erosion.channel_width has no effect: acts only when Automatic K and D is off",
        "lighting.softness has no effect: acts only when Lightmap is on and Lighting is Slope",
    ]
    assert out.filters[0].params["channel_width"] == 3.0 and out.seed == 4  # applied all the same
    # The result decides, whatever the order: auto_rates=false after channel_width makes it act.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        apply_settings(spec, ["channel_width=3", "auto_rates=false", "routing=mfd", "flow_exponent=2"])
    # One of two erosion filters acting is enough; none acting is noted once.
    two = TerrainSpec(size=9, filters=(("erosion", {}), ("erosion", {"auto_rates": False})))
    assert inactive_settings(two, ["erosion.k"]) == []
    assert inactive_settings(two, ["erosion.sea_level", "erosion.sea_level"]) == [
        "erosion.sea_level has no effect: acts only when Sea is on"
    ]
    assert inactive_settings(two, ["seed", "generator", "hills.count", "lowpass.passes"]) == []
