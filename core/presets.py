"""Built-in presets: terrain specs that show what the algorithms do.

Each preset is a partial spec of the current version (what it does not say
takes the defaults; lengths in metres); :func:`preset_spec` gives the whole
:class:`core.spec.TerrainSpec`. :func:`preset_from_v2` converts a preset
written with version-2 numbers (lengths in cells). The
add-on's preset menu, ``bpy.ops.orogen.preset_load(name=...)`` and the
scripts' ``--preset`` all read these; user presets are spec JSON files in
Blender's user presets folder.
"""

from __future__ import annotations

from typing import Any

from .spec import SPEC_VERSION, TerrainSpec, migrate_v2

__all__ = ["PRESETS", "preset_spec", "preset_from_v2"]

#: Built-in presets by name: label, description and the spec.
PRESETS: dict[str, dict[str, Any]] = {
    "rolling_hills": {
        "label": "Rolling Hills", "description": "Many broad circle hills, gently flattened",
        "spec": {"size": 257, "width": 200.0, "height": 18.0, "generator": "hills",
                 "hills": {"count": 400, "radius_min": 6.25, "radius_max": 31.25},
                 "filters": [{"type": "flatten", "exponent": 1.3}],
                 "lighting": {"mode": "hillshade", "altitude": 40.0}},
    },
    "island": {
        "label": "Island", "description": "Hills clustered into an island rising from a flat sea floor",
        "spec": {"size": 257, "width": 200.0, "height": 25.0, "generator": "hills",
                 "hills": {"count": 800, "radius_min": 7.8125, "radius_max": 31.25, "island": True},
                 "filters": [{"type": "flatten", "exponent": 0.7}, {"type": "sea_level", "level": 0.1}],
                 "lighting": {"mode": "hillshade", "ao": True}},
    },
    "alpine_faults": {
        "label": "Alpine Faults", "description": "Fault formation smoothed by the low-pass filter, steep and shadowed",
        "spec": {"size": 257, "width": 200.0, "height": 45.0, "generator": "faults",
                 "faults": {"faults": 700, "displacement_max": 1.0, "displacement_min": 0.05},
                 "filters": [{"type": "flatten", "exponent": 1.8}, {"type": "lowpass", "length": 1.53, "passes": 2}],
                 "lighting": {"mode": "hillshade", "altitude": 30.0, "shadows": True}},
    },
    "diamond_square_peaks": {
        "label": "Diamond-Square Peaks", "description": "Fractal mountains from midpoint displacement",
        "spec": {"size": 257, "width": 200.0, "height": 50.0, "generator": "diamond_square",
                 "diamond_square": {"roughness": 1.1}, "filters": [{"type": "flatten", "exponent": 2.2}],
                 "lighting": {"mode": "multidirectional", "ao": True}},
    },
    "badlands": {
        "label": "Badlands", "description": "Noise with hills and pits, blurred and terraced",
        "spec": {"size": 257, "width": 200.0, "height": 22.0, "generator": "noise",
                 "noise": {"noise": 0.15, "grain": 0.78125, "hills": 500, "hill_radius": [3.125, 15.625], "pits": 150,
                           "pit_radius": [2.34375, 6.25]},
                 "filters": [{"type": "box_blur", "radius": 1.28},
                             {"type": "terrace", "levels": 7, "smoothness": 0.35}],
                 "lighting": {"mode": "hillshade", "shadows": True}},
    },
    "eroded_mountains": {
        "label": "Eroded Mountains",
        "description": "Diamond-square uplift cut by rivers (stream-power erosion) down to a sea in the lowest basins",
        # The lowest basins of the start (below 15 % of the range) are sea, the base level beside the map's edge:
        # with the uplift taken from the terrain they would stay closed lakes. Diffusion of 0.006 m2/yr (more
        # than the automatic one) rounds the sills so 20 steps drain the rest (tests/core/test_erosion_presets.py).
        # fit_height: 20 steps of uplift at 1e-3 m/yr raise the peaks to about 1800 m; fitted back to 1500 m as before
        "spec": {"size": 257, "width": 12800.0, "height": 1500.0, "fit_height": True, "generator": "diamond_square",
                 "diamond_square": {"roughness": 1.0},
                 "filters": [{"type": "erosion", "steps": 20, "dt": 3.0e4, "auto_rates": False, "k": 1.6e-5,
                              "diffusion": 0.006, "use_sea_level": True, "sea_level": 0.15},
                             {"type": "sea_level", "level": 0.15}],
                 "lighting": {"mode": "hillshade", "altitude": 35.0, "shadows": True}},
    },
    "river_valleys": {
        "label": "River Valleys", "description": "Ridged fractal hills drained by a dendritic river network into lakes",
        # fit_height: 80 steps of uplift raise the ridges to about 1700 m; fitted back to 600 m as before
        "spec": {"size": 257, "width": 8000.0, "height": 600.0, "fit_height": True, "generator": "fractal",
                 "fractal": {"fractal": "ridged_multifractal", "feature_size": 3000.0, "detail": 4.0},
                 # 80 steps: lakes between the ridges are drained by channels cutting back into them a cell per
                 # step; the lowest troughs (under 15 %) are lakes at the sea level
                 "filters": [{"type": "erosion", "steps": 80, "use_sea_level": True, "sea_level": 0.15},
                             {"type": "sea_level", "level": 0.15}],
                 "lighting": {"mode": "multidirectional"}},
    },
    "scree_slopes": {
        "label": "Scree Slopes", "description": "Sharp fault blocks softened by thermal erosion at a 33 degree talus",
        "spec": {"size": 257, "width": 400.0, "height": 120.0, "generator": "faults",
                 "faults": {"faults": 400, "displacement_min": 0.1},
                 "filters": [{"type": "thermal", "talus_angle": 33.0, "iterations": 500, "rate": 1.0}],
                 "lighting": {"mode": "hillshade", "shadows": True}},
    },
    "alpine_ridges": {
        "label": "Alpine Ridges", "description": "Ridged multifractal with domain warping",
        "spec": {"size": 257, "width": 6000.0, "height": 1300.0, "generator": "fractal",
                 "fractal": {"fractal": "ridged_multifractal", "feature_size": 2500.0, "detail": 6.0,
                             "distortion": 300.0},
                 "filters": [{"type": "flatten", "exponent": 1.3}],
                 "lighting": {"mode": "hillshade", "altitude": 30.0, "shadows": True}},
    },
    "rolling_farmland": {
        "label": "Rolling Farmland", "description": "Gentle fBm of gradient noise, low relief",
        "spec": {"size": 257, "width": 3000.0, "height": 60.0, "generator": "fractal",
                 "fractal": {"feature_size": 1200.0, "detail": 3.0, "roughness": 0.4},
                 "filters": [], "lighting": {"mode": "hillshade", "altitude": 40.0},
                 # meadows and fields, no snow on 60 m of relief
                 "layers": [{"name": "meadow", "color": [0.05, 0.14, 0.03], "minimum": -1.0, "optimal": 0.3,
                             "maximum": 0.8},
                            {"name": "fields", "color": [0.24, 0.21, 0.08], "minimum": 0.45, "optimal": 0.9,
                             "maximum": 2.0}]},
    },
}


def preset_spec(name: str) -> TerrainSpec:
    """The whole spec of built-in preset ``name``.

    Raises
    ------
    ValueError
        For an unknown name (listing the built-in ones).
    """
    if name not in PRESETS:
        raise ValueError(f"no built-in preset {name!r:.40}; built-in: {', '.join(PRESETS)}")
    return TerrainSpec.from_dict({"version": SPEC_VERSION, **PRESETS[name]["spec"]})


def preset_from_v2(spec: dict[str, Any]) -> dict[str, Any]:
    """A preset written with version-2 numbers (lengths in cells) as a version-3 preset that looks the same.

    Lengths become metres at the preset's own cell size (as :func:`core.spec.migrate_v2`), but with version 3's
    algorithms: the diamond-square world lattice, the Gaussian blur of the same radius, and no ``fit_height``
    (relief a filter lowers in metres stays lowered). The result is a partial spec for :data:`PRESETS`.

    Raises
    ------
    TypeError, ValueError
        For values no version-2 spec holds.
    """
    out = migrate_v2({**spec, "version": 2})
    del out["version"], out["fit_height"]
    if out.get("generator") == "diamond_square":
        out["diamond_square"] = {**out["diamond_square"], "lattice": "world"}
    out["filters"] = [{**f, "method": "gaussian"} if isinstance(f, dict) and f.get("type") == "box_blur" else f
                      for f in out.get("filters", [])]
    return out
