"""Orogen 0.1: recipes without a version, export sidecars, panel settings and user presets.

0.1 wrote no spec. Its recipes (``{"generator", "seed", "shape", "params", "filters"}``, no ``version``) named
the one-pole low-pass filter ``erosion`` and spaced faults its own way; its export sidecars held such a recipe
with ``width_m`` and ``height_range_m``; its panel (and its user presets, and the objects it made) held flat
settings (``hill_count``, ``use_erosion``, ``light_azimuth`` in radians...). Each converts to version-2
recipe JSON (what 0.1's heightmap is in today's terms: lengths in cells) plus the spec's other keys, which
:mod:`core.versions.v2_to_v3` takes on to the current version.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..heightmap import check_number
from ..io.jsonio import load_json

__all__ = ["V1_FILTER_KEYS", "V1_ENUMS", "V1_DEFAULTS", "recipe_01_to_v2", "sidecar_01", "settings_01"]

#: Filter keys renamed since 0.1: its one-pole "erosion" filter is the low-pass filter.
V1_FILTER_KEYS = {"erosion": "lowpass"}


def recipe_01_to_v2(data: Mapping[str, Any]) -> dict[str, Any]:
    """0.1's recipe JSON (no ``version``) as version-2 recipe JSON: ``erosion`` filters are ``lowpass``, faults
    keep 0.1's spacing (``spacing: "orogen_0_1"``, unless the recipe says otherwise).

    Entries that are not filter objects are left as they are (the recipe reader refuses them by name).
    """
    out = {**data, "version": 2}
    filters = data.get("filters", [])
    if isinstance(filters, list):
        out["filters"] = [
            {**f, "type": V1_FILTER_KEYS.get(str(f["type"]), str(f["type"]))}
            if isinstance(f, Mapping) and "type" in f
            else f
            for f in filters
        ]
    params = data.get("params", {})
    if data.get("generator") == "faults" and isinstance(params, Mapping):
        out["params"] = {"spacing": "orogen_0_1", **params}  # 0.1 spaced its faults so: its recipes keep it
    return out


def sidecar_01(data: Mapping[str, Any]) -> tuple[object, dict[str, Any]]:
    """0.1's export sidecar (``recipe``, ``width_m``, ``height_range_m``) as its recipe and the spec's world.

    Raises
    ------
    ValueError
        For a height range that is not ``[low, high]`` in metres, or a sidecar without a recipe (an imported
        heightmap: nothing to regenerate).
    """
    height = data.get("height_range_m", [0.0, 20.0])
    if not (isinstance(height, list) and len(height) == 2):
        raise ValueError("height_range_m must be [low, high] in metres")
    width = data.get("width_m", 100.0)
    if data["recipe"] is None:
        raise ValueError("this sidecar has no recipe (an imported heightmap): nothing to regenerate")
    rest = {
        "width": width,
        "height": check_number(height[1], "height_range_m[1]") - check_number(height[0], "height_range_m[0]"),
    }
    return data["recipe"], rest


#: 0.1's enum items, in the order 0.1 declared them (a .blend stores an enum as its item's index).
V1_ENUMS = {
    "generator": ("hills", "faults", "diamond_square", "noise"),
    "lighting": ("SLOPE", "HILLSHADE", "MULTIDIRECTIONAL"),
    "shading": ("LIT", "UNLIT"),
}
#: 0.1's defaults of its panel settings (angles in radians, as 0.1 stored them).
V1_DEFAULTS: dict[str, Any] = {
    "size": 129,
    "seed": 0,
    "generator": "hills",
    "hill_count": 150,
    "radius_min": 4.0,
    "radius_max": 20.0,
    "island": False,
    "flattening": 1.5,
    "fault_count": 200,
    "displacement_min": 0.05,
    "roughness": 1.0,
    "noise_amplitude": 0.1,
    "noise_hill_count": 300,
    "noise_hill_radius_min": 4.0,
    "noise_hill_radius_max": 16.0,
    "noise_hill_height_min": 0.2,
    "noise_hill_height_max": 0.6,
    "pit_count": 100,
    "pit_radius_min": 3.0,
    "pit_radius_max": 8.0,
    "pit_depth_min": 0.2,
    "pit_depth_max": 0.5,
    "use_blur": False,
    "blur_passes": 3,
    "use_erosion": False,
    "erosion_k": 0.5,
    "erosion_passes": 1,
    "use_terrace": False,
    "terrace_levels": 8,
    "terrace_smoothness": 0.5,
    "use_sea_level": False,
    "sea_level": 0.2,
    "width": 100.0,
    "height": 20.0,
    "use_lightmap": True,
    "light_azimuth": math.radians(315.0),
    "lighting": "SLOPE",
    "light_altitude": math.radians(45.0),
    "use_scene_sun": False,
    "use_shadows": False,
    "shadow_softness": math.radians(2.0),
    "use_ao": False,
    "ao_strength": 1.0,
    "ao_directions": 16,
    "ao_radius": 32,
    "light_softness": 1.0,
    "min_brightness": 0.25,
    "max_brightness": 1.0,
    "use_material": True,
    "shading": "LIT",
}


def _typed(value: float) -> float:
    """A float32 setting as the user typed it: the shortest decimal of its float32 value (0.6, not 0.6000000238)."""
    return float(str(np.float32(value)))


def _degrees(radians: float) -> float:
    """An angle setting (float32 radians) in degrees, rounded to 1e-4 degree (90 typed is exactly 90)."""
    return round(math.degrees(radians), 4)


def _v1_heightmap(s: Mapping[str, Any]) -> dict[str, Any]:
    """The recipe 0.1 made from its settings (its ``recipe_from_settings``), as version-2 recipe JSON."""
    params = {
        "hills": lambda: {
            "count": s["hill_count"],
            "radius_min": s["radius_min"],
            "radius_max": s["radius_max"],
            "island": s["island"],
        },
        "faults": lambda: {
            "faults": s["fault_count"],
            "displacement_max": 1.0,
            "displacement_min": s["displacement_min"],
            "spacing": "orogen_0_1",
        },
        "diamond_square": lambda: {"roughness": s["roughness"]},
        "noise": lambda: {
            "noise": s["noise_amplitude"],
            "hills": s["noise_hill_count"],
            "hill_radius": (s["noise_hill_radius_min"], s["noise_hill_radius_max"]),
            "hill_height": (s["noise_hill_height_min"], s["noise_hill_height_max"]),
            "pits": s["pit_count"],
            "pit_radius": (s["pit_radius_min"], s["pit_radius_max"]),
            "pit_height": (s["pit_depth_min"], s["pit_depth_max"]),
        },
    }[s["generator"]]()
    stack: list[tuple[str, dict[str, Any]]] = []
    if s["flattening"] != 1.0:
        stack.append(("flatten", {"exponent": s["flattening"]}))
    if s["use_blur"]:
        stack.append(("box_blur", {"passes": s["blur_passes"]}))
    if s["use_erosion"]:
        stack.append(("lowpass", {"k": s["erosion_k"], "passes": s["erosion_passes"]}))
    if s["use_terrace"]:
        stack.append(("terrace", {"levels": s["terrace_levels"], "smoothness": s["terrace_smoothness"]}))
    if s["use_sea_level"]:
        stack.append(("sea_level", {"level": s["sea_level"]}))
    return {
        "version": 2,
        "generator": s["generator"],
        "seed": s["seed"],
        "shape": [s["size"], s["size"]],
        "params": params,
        "filters": [{"type": key, **p} for key, p in stack],
    }


def settings_01(
    settings: Mapping[str, Any], *, recipe: object = None, layers: object = None, terrain: object = None
) -> tuple[object, dict[str, Any]]:
    """Orogen 0.1's terrain settings (panel, object or user preset) as the recipe of their heightmap (version-2
    recipe JSON, or the 0.1 recipe the object stored) and the spec's other keys.

    Parameters
    ----------
    settings : mapping
        0.1's settings by their 0.1 names (``hill_count``, ``use_erosion``, ``light_azimuth`` in radians...);
        enums as identifiers or as 0.1's item indices; missing ones take 0.1's defaults.
    recipe : mapping or str, optional
        The recipe 0.1 stored on the object (``orogen_recipe``): it made the heightmap, so it wins over the
        generator settings (0.1 regenerated from the settings and lost a recipe; the recipe is what the user
        asked for).
    layers : list or str, optional
        The object's colour layers (``orogen_layers``).
    terrain : mapping or str, optional
        The object's ``orogen_terrain`` (width and height in metres).

    Raises
    ------
    TypeError, ValueError
        For settings no spec can hold.
    """
    s = dict(V1_DEFAULTS)
    generator = settings.get("generator", "hills")
    if isinstance(generator, str) and generator not in V1_ENUMS["generator"]:
        raise ValueError(
            f"generator must be one of {', '.join(V1_ENUMS['generator'])} in 0.1 settings, got {generator!r:.40}"
        )
    for key, value in settings.items():
        if key in V1_ENUMS and isinstance(value, int) and not isinstance(value, bool):
            value = V1_ENUMS[key][value] if 0 <= value < len(V1_ENUMS[key]) else V1_DEFAULTS[key]
        if key in s and isinstance(V1_DEFAULTS[key], bool):
            if isinstance(value, bool) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
                s[key] = bool(value)  # a .blend stores booleans as 0 and 1
            else:  # 'false' is a true value in Python: refuse it rather than read it as True
                raise ValueError(f"{key} must be True or False (or 0 or 1) in 0.1 settings, got {value!r:.40}")
        elif key in s:
            s[key] = _typed(value) if isinstance(value, float) else value
    if isinstance(terrain, str):
        terrain = load_json(terrain, "orogen_terrain")
    if isinstance(terrain, Mapping):
        s["width"], s["height"] = terrain.get("width", s["width"]), terrain.get("height", s["height"])
    light = {
        "enabled": bool(s["use_lightmap"]),
        "mode": str(s["lighting"]).lower(),
        "azimuth": _degrees(settings.get("light_azimuth", s["light_azimuth"])) % 360.0,
        "altitude": _degrees(settings.get("light_altitude", s["light_altitude"])),
        "use_scene_sun": bool(s["use_scene_sun"]),
        "softness": s["light_softness"],
        "min_brightness": s["min_brightness"],
        "max_brightness": s["max_brightness"],
        "shadows": bool(s["use_shadows"]),
        "shadow_softness": _degrees(settings.get("shadow_softness", s["shadow_softness"])),
        "ao": bool(s["use_ao"]),
        "ao_strength": s["ao_strength"],
        "ao_directions": s["ao_directions"],
        "ao_radius": s["ao_radius"],
    }
    if isinstance(recipe, str):
        recipe = load_json(recipe, "orogen_recipe") if recipe else None
    heightmap = recipe if isinstance(recipe, Mapping) else _v1_heightmap(s)
    if isinstance(layers, str):
        layers = load_json(layers, "orogen_layers") if layers else None
    return heightmap, {
        "width": s["width"],
        "height": s["height"],
        "lighting": light,
        "material": {"enabled": bool(s["use_material"]), "shading": str(s["shading"]).lower()},
        "layers": layers or None,
    }
