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

__all__ = ["PRESETS", "SCATTER_SETTINGS", "preset_scatter", "preset_spec"]

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
    """Snow above ``snow_line`` metres on flat ground and never below it there: its minimum is ``noise`` higher,
    the most the edge noise lowers it; full cover ``ramp`` metres above the minimum; off slopes steeper than
    ``slope_max``. On slopes facing north (shaded in the northern hemisphere) it comes down by a fifth of the
    snow line times the sine of the slope, on those facing south it goes up as much: at 30° the two sides' snow
    lines are a fifth of the line apart (400 m at 2000 m; the Alps' north and south faces differ by 300-500 m)."""
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
        aspect_shift=0.2 * snow_line,
    )


def _flat(layer: dict[str, Any], slope_max: float) -> dict[str, Any]:
    """``layer`` only on slopes up to ``slope_max`` degrees (so rock shows on the steep ones)."""
    return {**layer, "slope_max": slope_max, "slope_softness": 6.0, "slope_noise": 4.0}


def _glacial(width: float, *, ela: float, steps: int = 200) -> dict[str, Any]:
    """A glacial filter for an alpine range ``width`` metres wide, its ELA ``ela`` metres.

    The ELA is the range's glacial one, some 500 m under its snow line today (the Alps' ELA at the Last
    Glacial Maximum lay 1000-1500 m below today's, Ivy-Ochs et al. 2008), so valley glaciers fill its upper
    valleys; the sliding's coupling length is the fitted 6 % of the width (:data:`core.glacial.COUPLING_SHARE`);
    the ice flows on a grid of 300 m (coarser than :data:`core.glacial.ICE_CELL`, well under the coupling length),
    so every size gets the same glaciers, with 60 sub-steps a step, so the ice lives through twice the years of
    the default 30 (its clock runs far behind the bed's) and fills the troughs, for the cost of the default's 30
    on 200 m cells; ``steps`` steps of 3000 years (at most 5 m of erosion each) carve them.
    """
    return {
        "type": "glacial",
        "ela": ela,
        "coupling_length": 0.06 * width,
        "steps": steps,
        "ice_cell": 300.0,
        "max_substeps": 60,
    }


def _channel_head_area(width: float, heads: float = 16.0) -> float:
    """Drainage area in m² at which a preset's channels begin: ``heads`` cells of a 257² grid ``width`` m wide.

    Channel heads sit where hillslope transport gives way to incision, at a source area of about 1e3 to 1e5
    m² in soil-mantled and steep terrain (Montgomery & Dietrich 1988, 1989); tied to the map's width rather
    than its cells, the head lies at one place at every size. Three significant digits, as the spec keeps
    them.
    """
    return float(f"{heads * (width / 256.0) ** 2:.3g}")


def _fluvial(
    width: float,
    *,
    steps: int,
    dt: float = 3.0e4,
    crossings: float = 4.0,
    smoothing: float = 0.01,
    m: float = 0.45,
    heads: float = 16.0,
    **options: Any,
) -> dict[str, Any]:
    """A stream-power filter with its rates written out for a terrain ``width`` metres wide.

    The automatic rates' rules with the preset's own strengths: K lets a knickpoint cross half the width
    ``L`` ``crossings`` times in the run (:func:`core.erosion.stream_power.default_erodibility` is 4), the
    hillslope diffusion smooths over ``smoothing`` of ``L`` (``sqrt(D t)``; the automatic one is 1/32,
    which rounds the small valleys a landform keeps) and channels are ``L / 512`` wide
    (:func:`core.erosion.stream_power.default_channel_width`), so every size erodes alike.

    Channels begin at ``heads`` cells of the 257² preview's grid (:func:`_channel_head_area`): on the cells
    that drain less, hillslope diffusion works alone, so a finer grid does not cut rills the preview cannot
    hold, and each size is the same landscape.
    """
    half = 0.5 * width
    duration = steps * dt
    return {
        "type": "erosion",
        "steps": steps,
        "dt": dt,
        "auto_rates": False,
        "k": float(f"{crossings * half ** (1.0 - 2.0 * m) / duration:.3g}"),
        "m": m,
        "diffusion": float(f"{(smoothing * half) ** 2 / duration:.3g}"),
        "channel_width": round(half / 512.0, 4),
        "channel_area": _channel_head_area(width, heads),
        **options,
    }


#: Canyon Mesas' rock: the hard top 40 % of every 80 m bed (a strata mask, :func:`core.masks.strata_phase`).
_STRATA: dict[str, Any] = {
    "source": "strata",
    "low": 0.6,
    "high": 1.0,
    "feather": 0.05,
    "strata_thickness": 80.0,
    "strata_dip": 2.0,
    "strata_dip_direction": 120.0,
}

#: The last filter of a preset with a sea: the basins channels have not yet cut into are breached down to
#: their floors (a channel over the sill, not a flat fill), the flat sea the Sea Level filter leaves (within
#: 0.1 % of the range of its floor) their base level. Channels that begin at a head area leave more such basins
#: on a fine grid than on the preview's (issue 18: at most 5 % of channel cells closed at every size).
_BREACH_TO_SEA: dict[str, Any] = {"type": "drain", "mode": "breach", "use_sea_level": True, "sea_level": 0.001}

#: Built-in presets by name: label, description and the spec.
PRESETS: dict[str, dict[str, Any]] = {
    "rolling_hills": {
        "label": "Rolling Hills",
        "description": "Hills 4 km across and 150 m high, worn by streams into valleys that drain off the map",
        "spec": {
            "size": 257,
            "width": 4000.0,
            "height": 150.0,
            "fit_height": True,
            "generator": "hills",
            "hills": {"count": 400, "radius_min": 125.0, "radius_max": 625.0},
            "filters": [
                {"type": "flatten", "exponent": 1.3},
                _fluvial(4000.0, steps=20, smoothing=0.02, deposition=1.0),
                {"type": "drain"},
            ],
            "lighting": {"mode": "hillshade", "altitude": 40.0},
        },
    },
    "island": {
        "label": "Island",
        "description": "An island 5 km across and 300 m high: streams run to the sea, waves cut its cliffs",
        "spec": {
            "size": 257,
            "width": 5000.0,
            "height": 300.0,
            "fit_height": True,
            "generator": "hills",
            "hills": {"count": 800, "radius_min": 195.0, "radius_max": 781.0, "island": True},
            "filters": [
                {"type": "flatten", "exponent": 0.7},
                _fluvial(5000.0, steps=20, use_sea_level=True, sea_level=0.1),
                # 5000 years of waves at 0.03 m/yr: headlands cut back into sea cliffs, beaches in the coves
                {"type": "coast", "sea_level": 0.1, "duration": 5000.0, "retreat_rate": 0.03},
                {"type": "sea_level", "level": 0.1},
            ],
            "lighting": {"mode": "hillshade", "ao": True},
        },
    },
    "alpine_faults": {
        "label": "Alpine Faults",
        "description": (
            "A faulted range 12 km across with 2500 m of relief, cut by rivers and glaciers, its slopes at rest"
        ),
        "spec": {
            "size": 257,
            "width": 12000.0,
            "height": 2500.0,
            "fit_height": True,
            "generator": "faults",
            "faults": {"faults": 700, "displacement_max": 1.0, "displacement_min": 0.05},
            "filters": [
                {"type": "flatten", "exponent": 1.8},
                {"type": "lowpass", "length": 92.0, "passes": 2},
                _fluvial(12000.0, steps=30, crossings=6.0, smoothing=0.015),
                _glacial(12000.0, ela=1300.0),
                {"type": "thermal", "talus_angle": 38.0, "duration": 87800.0},
                {"type": "drain"},
            ],
            "lighting": {"mode": "hillshade", "altitude": 30.0, "shadows": True},
        },
    },
    "diamond_square_peaks": {
        "label": "Diamond-Square Peaks",
        "description": "Fractal mountains 10 km across and 2200 m high from midpoint displacement, cut by rivers",
        "spec": {
            "size": 257,
            "width": 10000.0,
            "height": 2200.0,
            "fit_height": True,
            "generator": "diamond_square",
            "diamond_square": {"roughness": 1.1},
            "filters": [
                {"type": "flatten", "exponent": 2.2},
                # G = 3 (Yuan et al. 2019): the low valley floors silt up where the rivers leave the steep ground,
                # so 5.9 % of what the filters remove stays on slopes under 5° at 257² (1.3 % without it)
                _fluvial(10000.0, steps=25, crossings=5.0, smoothing=0.015, deposition=3.0),
                {"type": "thermal", "talus_angle": 38.0, "duration": 61000.0},
                {"type": "drain"},
            ],
            "lighting": {"mode": "multidirectional", "ao": True},
        },
    },
    "badlands": {
        "label": "Badlands",
        "description": "Soft layered clays 1 km across and 80 m high, cut by a dense net of rills and gullies",
        "spec": {
            "size": 257,
            "width": 1000.0,
            "height": 80.0,
            "fit_height": True,
            "generator": "noise",
            "noise": {
                "noise": 0.15,
                "grain": 3.9,
                "hills": 500,
                "hill_radius": [15.6, 78.0],
                "pits": 150,
                "pit_radius": [11.7, 31.3],
            },
            "filters": [
                {"type": "box_blur", "radius": 6.4},
                _fluvial(1000.0, steps=30, crossings=8.0, smoothing=0.0156),
                {"type": "drain"},
            ],
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
                    "channel_width": 12.5,
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
            # the automatic K over 1.6 Myr; diffusion over 1/256 of the half width (16 m; the map-scaled
            # automatic one, 1/32, smooths its small channels below the concavity gate, θ 0.23; 1/128 gives
            # θ 0.32) and channels 7.8 m wide, so each size erodes alike (257² correlates 0.988 with 513²)
            "filters": [
                _fluvial(8000.0, steps=80, dt=2.0e4, smoothing=1.0 / 256.0, use_sea_level=True, sea_level=0.15),
                {"type": "sea_level", "level": 0.15},
                _BREACH_TO_SEA,
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
            # the hollows between the fault blocks fill with the talus until they drain (Drain Depressions)
            "filters": [
                {"type": "thermal", "talus_angle": 33.0, "duration": 1000.0, "diffusivity": 1.0, "rate": 1.0},
                {"type": "drain"},
            ],
            "lighting": {"mode": "hillshade", "shadows": True},
        },
    },
    "alpine_ridges": {
        "label": "Alpine Ridges",
        "description": (
            "Sharp alpine ridges 15 km across with 2800 m of relief, cut by rivers and glaciers, slopes at rest"
        ),
        "spec": {
            "size": 257,
            "width": 15000.0,
            "height": 2800.0,
            "fit_height": True,
            "generator": "fractal",
            "fractal": {"fractal": "ridged_multifractal", "feature_size": 6000.0, "detail": 6.0, "distortion": 700.0},
            "filters": [
                {"type": "flatten", "exponent": 1.3},
                _fluvial(15000.0, steps=30, crossings=6.0, smoothing=0.015),
                _glacial(15000.0, ela=1500.0),
                {"type": "thermal", "talus_angle": 38.0, "duration": 137000.0},
                {"type": "drain"},
            ],
            "lighting": {"mode": "hillshade", "altitude": 30.0, "shadows": True},
        },
    },
    "rolling_farmland": {
        "label": "Rolling Farmland",
        "description": "Gentle farmland 3 km across with 60 m of relief: mature valleys with wide floors",
        "spec": {
            "size": 257,
            "width": 3000.0,
            "height": 60.0,
            "fit_height": True,
            "generator": "fractal",
            "fractal": {"feature_size": 1200.0, "detail": 3.0, "roughness": 0.4},
            "filters": [_fluvial(3000.0, steps=20, deposition=1.0), {"type": "drain"}],
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
                # no uplift: a cone built by eruptions, then worn by its streams into gullies down to the sea;
                # what they carry builds lobed fan deltas at their mouths (marine diffusivity 0.03 m²/yr: each
                # step's load spreads about 40 m; 11 % of the eroded volume stays on slopes under 5° at 257²)
                "filters": [
                    {"type": "flatten", "exponent": 1.3},
                    _fluvial(
                        4000.0,
                        steps=20,
                        crossings=6.0,
                        uplift=0.0,
                        use_sea_level=True,
                        sea_level=0.12,
                        marine_diffusion=0.03,
                    ),
                ],
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
            "description": "A plateau of layered sandstone 3 km across, canyons cut back into its caprock: mesas, "
            "stepped cliffs with talus below, no snow",
            # Rivers cut back from the map's edges into beds of hard caprock over soft shale (the strata
            # mask: the top 40 % of every 80 m bed, dipping 2 degrees to the east-south-east, erodes at 8 %
            # of the rate and stands at up to 80 degrees), so cliffs form in the hard beds and benches on them.
            "spec": {
                "size": 257,
                "width": 3000.0,
                "height": 320.0,
                "fit_height": True,
                "generator": "fractal",
                "fractal": {
                    "fractal": "hybrid_multifractal",
                    "feature_size": 1800.0,
                    "detail": 3.0,
                    "roughness": 0.4,
                    "distortion": 120.0,
                },
                "filters": [
                    {"type": "flatten", "exponent": 0.6},
                    {
                        **_fluvial(3000.0, steps=40, crossings=12.0, smoothing=0.015, heads=48.0),
                        "uplift_from_terrain": False,
                        "uplift": 6.0e-4,
                        "erodibility_map": {**_STRATA, "map_min": 1.0, "map_max": 0.08},
                    },
                    {
                        "type": "thermal",
                        "talus_angle": 34.0,
                        "duration": 4110.0,
                        "talus_map": {**_STRATA, "map_min": 34.0, "map_max": 80.0},
                    },
                    {"type": "drain"},
                ],
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
            "description": "A transverse and barchanoid dune field: gentle stoss slopes, slip faces at the angle of "
            "repose, crests that fork and end; sand only",
            # The wind blows from the west-south-west (250 degrees): crests run across it, slip faces look east-north-
            # east. Spacing 500 m and dunes up to 0.08 x 500 = 40 m high (Lancaster 1988); the thermal pass at the
            # angle of repose of dry sand leaves every slip face at 33 degrees.
            "spec": {
                "size": 257,
                "width": 3000.0,
                "height": 40.0,
                "generator": "dunes",
                "dunes": {
                    "wind_direction": 250.0,
                    "spacing": 500.0,
                    "aspect": 0.08,
                    "stoss_slope": 9.0,
                    "slip_face": 33.0,
                    "sinuosity": 0.8,
                    "height_variation": 0.75,
                    "defects": 1.0,
                },
                "filters": [{"type": "thermal", "talus_angle": 33.0, "duration": 4110.0, "rate": 0.5}],
                "lighting": {"mode": "hillshade", "altitude": 30.0, "azimuth": 250.0, "shadows": True},
                "layers": [
                    _layer("interdune sand", (0.45, 0.26, 0.11), -_FAR, 0.0, 12.0, edge_noise=2.0, noise_size=60.0),
                    _layer("dune sand", (0.62, 0.4, 0.19), 4.0, 28.0, _FAR, edge_noise=2.0, noise_size=60.0),
                    _layer(
                        "slip face",
                        (0.55, 0.34, 0.15),
                        -_FAR,
                        0.0,
                        _FAR,
                        slope_min=25.0,
                        slope_softness=4.0,
                        slope_noise=2.0,
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
    # Alpine Ridges is steep (median slope about 45 degrees at 257²): meadows hold to 55, bare rock beyond;
    # a snow line at 2000 m of its 2800.
    "alpine_ridges": [
        _flat(_layer("meadow", (0.05, 0.11, 0.03), -_FAR, 300.0, 1300.0, edge_noise=120.0, noise_size=700.0), 48.0),
        _flat(
            _layer("alpine tundra", (0.14, 0.13, 0.07), 1000.0, 1500.0, 2000.0, edge_noise=120.0, noise_size=700.0),
            48.0,
        ),
        _layer("rock", (0.22, 0.2, 0.18), 1500.0, 1900.0, _FAR),
        _snow(2000.0, 120.0, 120.0, 700.0, slope_max=50.0),
        _rock_on_steep((0.2, 0.18, 0.16), 48.0, 500.0),
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
        _flat(_layer("grass", (0.05, 0.12, 0.025), -_FAR, 300.0, 1400.0, edge_noise=150.0, noise_size=700.0), 32.0),
        _layer("rock", (0.16, 0.125, 0.09), 1000.0, 1550.0, _FAR),
        _snow(1750.0, 130.0, 100.0, 700.0),
        _rock_on_steep((0.09, 0.075, 0.06), 32.0, 600.0),
    ],
    "diamond_square_peaks": [
        _flat(_layer("grass", (0.05, 0.12, 0.025), -_FAR, 100.0, 950.0, edge_noise=130.0, noise_size=600.0), 32.0),
        _layer("rock", (0.16, 0.125, 0.09), 600.0, 1150.0, _FAR),
        _snow(1300.0, 130.0, 90.0, 600.0),
        _rock_on_steep((0.09, 0.075, 0.06), 32.0, 500.0),
    ],
    # No snow on badlands: bands of clay and sandstone by height.
    "badlands": [
        _layer("grey clay", (0.2, 0.16, 0.15), -_FAR, 21.0, 35.0, edge_noise=2.1, noise_size=75.0),
        _layer("red clay", (0.36, 0.12, 0.06), 27.0, 38.0, 47.0, edge_noise=2.1, noise_size=75.0),
        _layer("ochre", (0.5, 0.29, 0.11), 42.0, 51.0, 60.0, edge_noise=2.1, noise_size=75.0),
        _layer("cream sandstone", (0.58, 0.47, 0.32), 55.0, 65.0, _FAR, edge_noise=2.1, noise_size=75.0),
        _rock_on_steep((0.25, 0.1, 0.05), 35.0, 50.0),
    ],
    # Low green hills: meadow and a drier grass on the tops, no snow.
    "rolling_hills": [
        _flat(_layer("meadow", (0.045, 0.11, 0.025), -_FAR, 17.0, 92.0, edge_noise=12.0, noise_size=300.0), 30.0),
        _flat(_layer("dry grass", (0.16, 0.15, 0.06), 67.0, 125.0, _FAR, edge_noise=12.0, noise_size=300.0), 30.0),
        _layer(
            "clover", (0.03, 0.09, 0.02), -_FAR, 0.0, _FAR, mask="noise", mask_min=0.7, mask_max=1.0, noise_size=240.0
        ),
        _rock_on_steep((0.16, 0.13, 0.1), 30.0, 200.0),
    ],
    # A sea floor at 0 m under water at 15 m, sand on the beach, grass inland, rock on the steep flanks.
    "island": [
        _layer("sea floor", (0.3, 0.26, 0.17), -_FAR, 0.0, 13.0),
        _layer("beach", (0.55, 0.47, 0.31), 8.5, 17.0, 29.0, edge_noise=4.0, noise_size=200.0),
        _flat(_layer("grass", (0.05, 0.12, 0.03), 23.0, 78.0, _FAR, edge_noise=18.0, noise_size=300.0), 30.0),
        _rock_on_steep((0.17, 0.14, 0.11), 30.0, 200.0),
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
_WATER: dict[str, float] = {"island": 15.0, "eroded_mountains": 8.0, "river_valleys": 4.0}
for _name, _level in _WATER.items():
    PRESETS[_name]["spec"]["material"] = {
        **PRESETS[_name]["spec"].get("material", {}),
        "water": True,
        "water_level": _level,
    }

#: The trees and rocks each preset is scattered with (the add-on's Add Scatter, ``orogen.scatter_add``): a kind
#: of :data:`core.scatter.SCATTER_KINDS` and the settings that differ from its defaults. A colour layer limits a
#: kind to where that layer shows (forest, meadow, scree), so the scatter follows the preset's own zones.
_SCATTER: dict[str, list[dict[str, Any]]] = {
    "rolling_hills": [{"kind": "broadleaf", "layer": "meadow", "density": 25.0, "spacing": 9.0}],
    "island": [{"kind": "broadleaf", "layer": "grass", "density": 40.0}],
    "alpine_faults": [
        {"kind": "conifers", "layer": "grass", "density": 60.0},
        {"kind": "boulders", "slope_min": 25.0, "slope_max": 45.0, "density": 30.0},
    ],
    "diamond_square_peaks": [{"kind": "conifers", "layer": "grass", "density": 60.0}],
    "eroded_mountains": [{"kind": "conifers", "layer": "forest", "density": 80.0}],
    "river_valleys": [
        {"kind": "conifers", "layer": "forest", "density": 80.0},
        {"kind": "broadleaf", "layer": "valley grass", "density": 15.0},
    ],
    "scree_slopes": [{"kind": "boulders", "layer": "scree", "density": 200.0, "spacing": 2.5}],
    "alpine_ridges": [
        {"kind": "conifers", "layer": "meadow", "density": 60.0},
        {"kind": "boulders", "layer": "alpine tundra", "density": 20.0},
    ],
    "rolling_farmland": [{"kind": "broadleaf", "layer": "meadow", "density": 8.0, "spacing": 12.0}],
    "volcanic_island": [{"kind": "broadleaf", "layer": "forest", "density": 60.0}],
    "canyon_mesas": [{"kind": "boulders", "slope_min": 20.0, "slope_max": 40.0, "density": 40.0}],
}
for _name, _entries in _SCATTER.items():
    PRESETS[_name]["scatter"] = _entries

#: The settings a preset's scatter entry may give (besides ``kind``): Add Scatter's, in its units (instances per
#: hectare, metres, degrees, wetness index units, factors).
SCATTER_SETTINGS = (
    "seed",
    "layer",
    "density",
    "spacing",
    "slope_min",
    "slope_max",
    "slope_softness",
    "altitude_min",
    "altitude_max",
    "altitude_softness",
    "wetness_min",
    "wetness_softness",
    "scale_min",
    "scale_max",
    "rotation",
    "align",
    "sink",
)


def preset_scatter(name: str) -> list[dict[str, Any]]:
    """The scatter of built-in preset ``name``: a list (empty when it has none) of dicts, each with a ``kind`` of
    :data:`core.scatter.SCATTER_KINDS` and some of :data:`SCATTER_SETTINGS` (copies: edit them freely).

    Raises
    ------
    ValueError
        For an unknown name (listing the built-in ones).
    """
    if name not in PRESETS:
        raise ValueError(f"no built-in preset {name!r:.40}; built-in: {', '.join(PRESETS)}")
    return [dict(entry) for entry in PRESETS[name].get("scatter", ())]


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
