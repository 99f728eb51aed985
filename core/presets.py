"""Built-in presets: terrain specs that show what the algorithms do.

Each preset is a partial spec of the current version (what it does not say
takes the defaults; lengths in metres); :func:`preset_spec` gives the whole
:class:`core.spec.TerrainSpec`. :func:`core.versions.preset_v2_to_v3`
converts a preset written with version-2 numbers (lengths in cells). The
add-on's preset menu, ``bpy.ops.orogen.preset_load(name=...)`` and the
scripts' ``--preset`` all read these; user presets are spec JSON files in
Blender's user presets folder.
"""

from __future__ import annotations

from typing import Any

from .spec import SPEC_VERSION, TerrainSpec

__all__ = ["PRESETS", "preset_spec"]

#: Far below or above any terrain (metres): a layer that never fades out on that side.
_FAR = 1.0e5


def _layer(
    name: str, color: tuple[float, float, float], minimum: float, optimal: float, maximum: float, **options: Any
) -> dict[str, Any]:
    """A colour layer with heights in metres (a snow line stays put when the Height changes)."""
    return {
        "name": name,
        "color": list(color),
        "minimum": minimum,
        "optimal": optimal,
        "maximum": maximum,
        "heights": "metres",
        **options,
    }


def _rock_on_steep(color: tuple[float, float, float], slope_min: float, noise_size: float) -> dict[str, Any]:
    """Bare rock on every slope steeper than ``slope_min`` degrees, at any height, with a ragged edge."""
    return _layer(
        "rock (steep)",
        color,
        -_FAR,
        0.0,
        _FAR,
        slope_min=slope_min,
        slope_softness=6.0,
        slope_noise=5.0,
        noise_size=noise_size,
    )


def _snow(snow_line: float, noise: float, ramp: float, noise_size: float, slope_max: float = 40.0) -> dict[str, Any]:
    """Snow above ``snow_line`` metres and never below it: its minimum is ``noise`` higher, the most the edge noise
    lowers it; full cover ``ramp`` metres above the minimum; off slopes steeper than ``slope_max``."""
    return _layer(
        "snow",
        (0.8, 0.82, 0.86),
        snow_line + noise,
        snow_line + noise + ramp,
        _FAR,
        slope_max=slope_max,
        slope_softness=5.0,
        edge_noise=noise,
        noise_size=noise_size,
    )


def _flat(layer: dict[str, Any], slope_max: float) -> dict[str, Any]:
    """``layer`` only on slopes up to ``slope_max`` degrees (so rock shows on the steep ones)."""
    return {**layer, "slope_max": slope_max, "slope_softness": 6.0, "slope_noise": 4.0}


#: Built-in presets by name: label, description and the spec.
PRESETS: dict[str, dict[str, Any]] = {
    "rolling_hills": {
        "label": "Rolling Hills",
        "description": "Many broad circle hills, gently flattened",
        "spec": {
            "size": 257,
            "width": 200.0,
            "height": 18.0,
            "generator": "hills",
            "hills": {"count": 400, "radius_min": 6.25, "radius_max": 31.25},
            "filters": [{"type": "flatten", "exponent": 1.3}],
            "lighting": {"mode": "hillshade", "altitude": 40.0},
        },
    },
    "island": {
        "label": "Island",
        "description": "Hills clustered into an island rising from a flat sea floor",
        "spec": {
            "size": 257,
            "width": 200.0,
            "height": 25.0,
            "generator": "hills",
            "hills": {"count": 800, "radius_min": 7.8125, "radius_max": 31.25, "island": True},
            "filters": [{"type": "flatten", "exponent": 0.7}, {"type": "sea_level", "level": 0.1}],
            "lighting": {"mode": "hillshade", "ao": True},
        },
    },
    "alpine_faults": {
        "label": "Alpine Faults",
        "description": "Fault formation smoothed by the low-pass filter, steep and shadowed",
        "spec": {
            "size": 257,
            "width": 200.0,
            "height": 45.0,
            "generator": "faults",
            "faults": {"faults": 700, "displacement_max": 1.0, "displacement_min": 0.05},
            "filters": [{"type": "flatten", "exponent": 1.8}, {"type": "lowpass", "length": 1.53, "passes": 2}],
            "lighting": {"mode": "hillshade", "altitude": 30.0, "shadows": True},
        },
    },
    "diamond_square_peaks": {
        "label": "Diamond-Square Peaks",
        "description": "Fractal mountains from midpoint displacement",
        "spec": {
            "size": 257,
            "width": 200.0,
            "height": 50.0,
            "generator": "diamond_square",
            "diamond_square": {"roughness": 1.1},
            "filters": [{"type": "flatten", "exponent": 2.2}],
            "lighting": {"mode": "multidirectional", "ao": True},
        },
    },
    "badlands": {
        "label": "Badlands",
        "description": "Noise with hills and pits, blurred and terraced",
        "spec": {
            "size": 257,
            "width": 200.0,
            "height": 22.0,
            "generator": "noise",
            "noise": {
                "noise": 0.15,
                "grain": 0.78125,
                "hills": 500,
                "hill_radius": [3.125, 15.625],
                "pits": 150,
                "pit_radius": [2.34375, 6.25],
            },
            "filters": [{"type": "box_blur", "radius": 1.28}, {"type": "terrace", "levels": 7, "smoothness": 0.35}],
            "lighting": {"mode": "hillshade", "shadows": True},
        },
    },
    "eroded_mountains": {
        "label": "Eroded Mountains",
        "description": "Diamond-square uplift cut by rivers (stream-power erosion) down to a sea in the lowest basins",
        # The lowest basins of the start (below 15 % of the range) are sea, the base level beside the map's edge:
        # with the uplift taken from the terrain they would stay closed lakes. Diffusion of 0.006 m2/yr (more
        # than the automatic one) rounds the sills so 20 steps drain the rest (tests/core/test_erosion_presets.py).
        # fit_height: 20 steps of uplift at 1e-3 m/yr raise the peaks to about 1800 m; fitted back to 1500 m as before
        "spec": {
            "size": 257,
            "width": 12800.0,
            "height": 1500.0,
            "fit_height": True,
            "generator": "diamond_square",
            "diamond_square": {"roughness": 1.0},
            "filters": [
                {
                    "type": "erosion",
                    "steps": 20,
                    "dt": 3.0e4,
                    "auto_rates": False,
                    "k": 1.6e-5,
                    "diffusion": 0.006,
                    "use_sea_level": True,
                    "sea_level": 0.15,
                },
                {"type": "sea_level", "level": 0.15},
            ],
            "lighting": {"mode": "hillshade", "altitude": 35.0, "shadows": True},
        },
    },
    "river_valleys": {
        "label": "River Valleys",
        "description": "Ridged fractal hills drained by a dendritic river network into lakes",
        # fit_height: 80 steps of uplift raise the ridges to about 1700 m; fitted back to 600 m as before
        "spec": {
            "size": 257,
            "width": 8000.0,
            "height": 600.0,
            "fit_height": True,
            "generator": "fractal",
            "fractal": {"fractal": "ridged_multifractal", "feature_size": 3000.0, "detail": 4.0},
            # 80 steps: lakes between the ridges are drained by channels cutting back into them a cell per
            # step; the lowest troughs (under 15 %) are lakes at the sea level
            # auto_scale "cell": the automatic diffusion over one cell (version 2's); the map-scaled one
            # (1/64 of the width, 125 m) smooths its small channels below the concavity gate (θ 0.23)
            "filters": [
                {"type": "erosion", "steps": 80, "use_sea_level": True, "sea_level": 0.15, "auto_scale": "cell"},
                {"type": "sea_level", "level": 0.15},
            ],
            "lighting": {"mode": "multidirectional"},
        },
    },
    "scree_slopes": {
        "label": "Scree Slopes",
        "description": "Sharp fault blocks softened by thermal erosion at a 33 degree talus",
        "spec": {
            "size": 257,
            "width": 400.0,
            "height": 120.0,
            "generator": "faults",
            "faults": {"faults": 400, "displacement_min": 0.1},
            "filters": [{"type": "thermal", "talus_angle": 33.0, "duration": 1000.0, "diffusivity": 1.0, "rate": 1.0}],
            "lighting": {"mode": "hillshade", "shadows": True},
        },
    },
    "alpine_ridges": {
        "label": "Alpine Ridges",
        "description": "Ridged multifractal with domain warping",
        "spec": {
            "size": 257,
            "width": 6000.0,
            "height": 1300.0,
            "generator": "fractal",
            "fractal": {"fractal": "ridged_multifractal", "feature_size": 2500.0, "detail": 6.0, "distortion": 300.0},
            "filters": [{"type": "flatten", "exponent": 1.3}],
            "lighting": {"mode": "hillshade", "altitude": 30.0, "shadows": True},
        },
    },
    "rolling_farmland": {
        "label": "Rolling Farmland",
        "description": "Gentle fBm of gradient noise, low relief",
        "spec": {
            "size": 257,
            "width": 3000.0,
            "height": 60.0,
            "generator": "fractal",
            "fractal": {"feature_size": 1200.0, "detail": 3.0, "roughness": 0.4},
            "filters": [],
            "lighting": {"mode": "hillshade", "altitude": 40.0},
            # meadows and fields, no snow on 60 m of relief
            "layers": [
                {"name": "meadow", "color": [0.05, 0.14, 0.03], "minimum": -1.0, "optimal": 0.3, "maximum": 0.8},
                {"name": "fields", "color": [0.24, 0.21, 0.08], "minimum": 0.45, "optimal": 0.9, "maximum": 2.0},
            ],
        },
    },
}

# --- places: presets whose colour layers are in metres (snow lines, beaches) -------------------------------------
PRESETS.update(
    {
        "volcanic_island": {
            "label": "Volcanic Island",
            "description": "A cone with a summit crater on fractal noise, rising from the sea: beaches, green flanks, "
            "dark lava rock above",
            "spec": {
                "size": 257,
                "width": 4000.0,
                "height": 900.0,
                "generator": "fractal",
                "fractal": {
                    "feature_size": 700.0,
                    "detail": 5.0,
                    "roughness": 0.45,
                    "cone": 4.0,
                    "cone_radius": 1800.0,
                    "crater_radius": 220.0,
                    "distortion": 150.0,
                },
                "filters": [{"type": "flatten", "exponent": 1.3}],
                "lighting": {"mode": "hillshade", "altitude": 35.0, "shadows": True},
                "material": {"water": True, "water_level": 110.0},
                "layers": [
                    _layer("sea floor sand", (0.3, 0.26, 0.17), -_FAR, 60.0, 112.0),
                    _layer("beach", (0.55, 0.47, 0.31), 95.0, 113.0, 128.0, edge_noise=6.0, noise_size=120.0),
                    _flat(
                        _layer("forest", (0.025, 0.07, 0.02), 112.0, 250.0, 620.0, edge_noise=60.0, noise_size=250.0),
                        32.0,
                    ),
                    _layer("lava rock", (0.045, 0.04, 0.038), 480.0, 700.0, _FAR, edge_noise=70.0, noise_size=200.0),
                    _layer(
                        "cinder",
                        (0.16, 0.06, 0.035),
                        700.0,
                        900.0,
                        _FAR,
                        edge_noise=40.0,
                        noise_size=150.0,
                        mask="noise",
                        mask_min=0.45,
                        mask_max=1.0,
                    ),
                    _rock_on_steep((0.06, 0.05, 0.045), 32.0, 150.0),
                ],
            },
        },
        "canyon_mesas": {
            "label": "Canyon Mesas",
            "description": "Fractal plateaus cut into terraces: flat mesas, sandstone cliffs in bands, no snow",
            "spec": {
                "size": 257,
                "width": 3000.0,
                "height": 320.0,
                "generator": "fractal",
                "fractal": {
                    "fractal": "hybrid_multifractal",
                    "feature_size": 1100.0,
                    "detail": 4.0,
                    "roughness": 0.45,
                    "distortion": 120.0,
                },
                "filters": [{"type": "terrace", "levels": 5, "smoothness": 0.12}],
                "lighting": {"mode": "hillshade", "altitude": 35.0, "shadows": True},
                # The terraces stand at about 0, 64, 128, 192 and 256 m: each level its own rock.
                "layers": [
                    _flat(
                        _layer("wash", (0.5, 0.36, 0.2), -_FAR, 40.0, 100.0, edge_noise=12.0, noise_size=120.0), 25.0
                    ),
                    _layer("red band", (0.38, 0.11, 0.045), 80.0, 128.0, 165.0, edge_noise=12.0, noise_size=150.0),
                    _layer("buff band", (0.58, 0.38, 0.2), 150.0, 192.0, 235.0, edge_noise=12.0, noise_size=150.0),
                    _flat(
                        _layer("cap rock", (0.66, 0.56, 0.42), 220.0, 270.0, _FAR, edge_noise=10.0, noise_size=150.0),
                        25.0,
                    ),
                    _layer(
                        "scrub",
                        (0.12, 0.12, 0.05),
                        -_FAR,
                        0.0,
                        _FAR,
                        slope_max=8.0,
                        mask="noise",
                        mask_min=0.62,
                        mask_max=1.0,
                        noise_size=40.0,
                    ),
                    _rock_on_steep((0.36, 0.14, 0.07), 30.0, 100.0),
                ],
            },
        },
        "dunes": {
            "label": "Dunes",
            "description": "Ridged noise stretched across the wind: transverse sand dunes, sand only",
            # The wind blows from the west-south-west; transverse dune crests run across it (stretch direction 165).
            "spec": {
                "size": 257,
                "width": 1500.0,
                "height": 35.0,
                "generator": "fractal",
                "fractal": {
                    "fractal": "ridged_multifractal",
                    "feature_size": 160.0,
                    "detail": 1.0,
                    "roughness": 0.35,
                    "stretch": 6.0,
                    "stretch_direction": 165.0,
                    "distortion": 40.0,
                },
                "filters": [{"type": "flatten", "exponent": 1.2}],
                "lighting": {"mode": "hillshade", "altitude": 30.0, "azimuth": 250.0, "shadows": True},
                "layers": [
                    _layer("trough sand", (0.45, 0.26, 0.11), -_FAR, 0.0, 18.0, edge_noise=3.0, noise_size=60.0),
                    _layer("dune sand", (0.62, 0.4, 0.19), 5.0, 25.0, _FAR, edge_noise=3.0, noise_size=60.0),
                    _layer(
                        "slip face",
                        (0.55, 0.34, 0.15),
                        -_FAR,
                        0.0,
                        _FAR,
                        slope_min=22.0,
                        slope_softness=6.0,
                        slope_noise=3.0,
                        noise_size=40.0,
                    ),
                ],
            },
        },
    }
)

#: Colour layers in metres for the presets above that had the default layers: snow above a snow line on
#: mountains, rock on steep slopes, no snow on badlands (kept apart from the entries so they merge easily).
_PLACE_LAYERS: dict[str, list[dict[str, Any]]] = {
    # Alpine Ridges is steep (median slope about 49 degrees at 257²): meadows hold to 55, bare rock beyond.
    "alpine_ridges": [
        _flat(_layer("meadow", (0.05, 0.11, 0.03), -_FAR, 150.0, 620.0, edge_noise=60.0, noise_size=300.0), 55.0),
        _flat(
            _layer("alpine tundra", (0.14, 0.13, 0.07), 450.0, 700.0, 950.0, edge_noise=60.0, noise_size=300.0), 55.0
        ),
        _layer("rock", (0.22, 0.2, 0.18), 700.0, 900.0, _FAR),
        _snow(780.0, 60.0, 60.0, 300.0, slope_max=58.0),
        _rock_on_steep((0.2, 0.18, 0.16), 57.0, 200.0),
    ],
    "eroded_mountains": [
        _layer("shore", (0.32, 0.28, 0.18), -_FAR, 0.0, 30.0, edge_noise=8.0, noise_size=300.0),
        _flat(_layer("forest", (0.03, 0.075, 0.025), 5.0, 150.0, 650.0, edge_noise=80.0, noise_size=500.0), 30.0),
        _flat(
            _layer("alpine grass", (0.13, 0.12, 0.06), 450.0, 750.0, 1100.0, edge_noise=80.0, noise_size=500.0), 30.0
        ),
        _layer("rock", (0.17, 0.155, 0.14), 850.0, 1100.0, _FAR),
        _snow(1050.0, 80.0, 60.0, 500.0),
        _rock_on_steep((0.1, 0.09, 0.08), 30.0, 400.0),
    ],
    "alpine_faults": [
        _flat(_layer("grass", (0.05, 0.12, 0.025), -_FAR, 5.0, 26.0, edge_noise=3.0, noise_size=12.0), 32.0),
        _layer("rock", (0.16, 0.125, 0.09), 18.0, 28.0, _FAR),
        _snow(31.0, 2.5, 2.0, 12.0),
        _rock_on_steep((0.09, 0.075, 0.06), 32.0, 10.0),
    ],
    "diamond_square_peaks": [
        _flat(_layer("grass", (0.05, 0.12, 0.025), -_FAR, 2.0, 22.0, edge_noise=3.0, noise_size=12.0), 32.0),
        _layer("rock", (0.16, 0.125, 0.09), 14.0, 26.0, _FAR),
        _snow(30.0, 3.0, 2.0, 12.0),
        _rock_on_steep((0.09, 0.075, 0.06), 32.0, 10.0),
    ],
    # No snow on badlands: bands of clay and sandstone by height.
    "badlands": [
        _layer("grey clay", (0.2, 0.16, 0.15), -_FAR, 6.0, 9.5, edge_noise=0.6, noise_size=15.0),
        _layer("red clay", (0.36, 0.12, 0.06), 7.5, 10.5, 13.0, edge_noise=0.6, noise_size=15.0),
        _layer("ochre", (0.5, 0.29, 0.11), 11.5, 14.0, 16.5, edge_noise=0.6, noise_size=15.0),
        _layer("cream sandstone", (0.58, 0.47, 0.32), 15.0, 18.0, _FAR, edge_noise=0.6, noise_size=15.0),
        _rock_on_steep((0.25, 0.1, 0.05), 35.0, 10.0),
    ],
    # Low green hills: meadow and a drier grass on the tops, no snow.
    "rolling_hills": [
        _flat(_layer("meadow", (0.045, 0.11, 0.025), -_FAR, 2.0, 11.0, edge_noise=1.5, noise_size=15.0), 30.0),
        _flat(_layer("dry grass", (0.16, 0.15, 0.06), 8.0, 15.0, _FAR, edge_noise=1.5, noise_size=15.0), 30.0),
        _layer(
            "clover", (0.03, 0.09, 0.02), -_FAR, 0.0, _FAR, mask="noise", mask_min=0.7, mask_max=1.0, noise_size=12.0
        ),
        _rock_on_steep((0.16, 0.13, 0.1), 30.0, 10.0),
    ],
    # A sea floor at 2.5 m under water at 3.8 m, sand on the beach, grass inland, rock on the steep flanks.
    "island": [
        _layer("sea floor", (0.3, 0.26, 0.17), -_FAR, 2.5, 3.6),
        _layer("beach", (0.55, 0.47, 0.31), 3.2, 3.9, 4.9, edge_noise=0.35, noise_size=8.0),
        _flat(_layer("grass", (0.05, 0.12, 0.03), 4.4, 9.0, _FAR, edge_noise=1.5, noise_size=12.0), 30.0),
        _rock_on_steep((0.17, 0.14, 0.11), 30.0, 8.0),
    ],
    # Valleys and their rivers (large drainage areas) in gravel, forest on the slopes, rock and snow above.
    "river_valleys": [
        _layer("mud flats", (0.2, 0.18, 0.12), -_FAR, 0.0, 8.0),
        _flat(_layer("valley grass", (0.06, 0.12, 0.03), 2.0, 80.0, 260.0, edge_noise=25.0, noise_size=250.0), 28.0),
        _flat(_layer("forest", (0.025, 0.065, 0.02), 150.0, 300.0, 470.0, edge_noise=35.0, noise_size=300.0), 34.0),
        _layer("rock", (0.17, 0.155, 0.14), 380.0, 520.0, _FAR),
        _snow(540.0, 20.0, 20.0, 300.0),
        _layer("river gravel", (0.3, 0.28, 0.24), -_FAR, 0.0, _FAR, mask="drainage", mask_min=3.0e6, mask_max=1.0e15),
        _rock_on_steep((0.1, 0.09, 0.08), 34.0, 300.0),
    ],
    # Cliffs in bare rock, the scree the thermal filter deposited below them lighter and greyer.
    "scree_slopes": [
        _flat(_layer("grass", (0.07, 0.11, 0.035), -_FAR, 10.0, 60.0, edge_noise=6.0, noise_size=30.0), 30.0),
        _layer("scree", (0.2, 0.19, 0.17), -_FAR, 0.0, _FAR, mask="deposited", mask_min=2.0, mask_max=1.0e15),
        _rock_on_steep((0.15, 0.13, 0.12), 36.0, 20.0),
    ],
}
for _name, _layers in _PLACE_LAYERS.items():
    PRESETS[_name]["spec"]["layers"] = _layers
#: A water surface on the presets with a sea (its level just above the sea floor the sea-level filter left).
_WATER: dict[str, float] = {"island": 3.8, "eroded_mountains": 8.0, "river_valleys": 4.0}
for _name, _level in _WATER.items():
    PRESETS[_name]["spec"]["material"] = {
        **PRESETS[_name]["spec"].get("material", {}),
        "water": True,
        "water_level": _level,
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
