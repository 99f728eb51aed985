"""Orogen's terrain core: numpy only, no Blender.

Heightmaps are ``float32`` arrays of shape ``(rows, cols)`` = ``(y, x)``, row 0
the north edge, values normalised to ``[0, 1]`` unless a function says
otherwise (see :mod:`.heightmap`). Every random step takes an explicit seed
and draws from the counter-based hash in :mod:`.rng`.

The public functions are here at the top level (``core.fault_formation``,
``core.hillshade``, ``core.TerrainSpec``, ...); each lives in a module named
after what it does: generators :mod:`.hills`, :mod:`.faults`, :mod:`.midpoint`
(diamond-square), :mod:`.noise`, :mod:`.fractal` (fBm and Musgrave's
multifractals over the lattice noises of :mod:`.gradient`); filters
:mod:`.filters`, :mod:`.thermal`, :mod:`.hydraulic`, :mod:`.stream_power`
(with :mod:`.flow` and :mod:`.geomorph`); :mod:`.profiles`; lighting
:mod:`.lightmap`, :mod:`.shading`, :mod:`.bake`, :mod:`.lighting`;
:mod:`.colormap`; the parameter declarations in :mod:`.params` and
:mod:`.catalog`, the whole terrain in :mod:`.spec` (its heightmap part in
:mod:`.recipe`, exact windows in :mod:`.window`), built-in presets in
:mod:`.presets`, JSON in :mod:`.jsonio`, randomness in :mod:`.rng`.
"""

from . import catalog, params, presets, spec  # noqa: F401  (catalog registers the built-in generators and filters)
from .bake import BakedMaps, bake_maps
from .colormap import DEFAULT_LAYERS, Layer, colormap, layer_presence, layer_weights, splat_maps
from .faults import fault_formation
from .filters import box_blur, erosion_filter, sea_level, terrace
from .flow import (
    FlowRouting,
    MultipleFlowRouting,
    drainage_area,
    flow_direction,
    flow_length,
    route_flow,
    route_multiple_flow,
)
from .fractal import fractal_noise
from .gradient import cellular_noise, perlin_grid, perlin_noise, simplex_noise, value_grid, value_noise
from .heightmap import MAX_CELLS, as_heightmap, flatten, normalize
from .hills import add_hill, circle_hills, hill_parameters, raw_hills
from .hydraulic import hydraulic_erosion
from .jsonio import load_json
from .lighting import bake, sun_angles
from .lightmap import light_direction, slope_lightmap
from .midpoint import diamond_square
from .noise import noise_hills_pits, white_noise
from .params import FILTERS, GENERATORS, Filter, Generator, Param, register_filter, register_generator
from .presets import PRESETS, preset_spec
from .profiles import sectioned_profile, slope_walk
from .recipe import Recipe
from .rng import sub_seed, uniform
from .shading import (
    ambient_occlusion,
    cast_shadows,
    combined_lightmap,
    curvature,
    hillshade,
    multidirectional_hillshade,
    normal_map,
    slope_degrees,
    sun_vector,
)
from .spec import TerrainSpec, apply_settings, json_schema, load_spec
from .stream_power import (
    LakeFill,
    StreamPowerCancelled,
    StreamPowerResult,
    fill_lakes,
    hillslope_diffusion,
    stream_power_erosion,
)
from .thermal import ErosionResult, thermal_erosion
from .window import Window

__all__ = [
    "BakedMaps",
    "DEFAULT_LAYERS",
    "ErosionResult",
    "FILTERS",
    "Filter",
    "FlowRouting",
    "MultipleFlowRouting",
    "GENERATORS",
    "Generator",
    "Layer",
    "MAX_CELLS",
    "PRESETS",
    "Param",
    "Recipe",
    "StreamPowerCancelled",
    "StreamPowerResult",
    "TerrainSpec",
    "Window",
    "add_hill",
    "ambient_occlusion",
    "apply_settings",
    "as_heightmap",
    "bake",
    "bake_maps",
    "box_blur",
    "cast_shadows",
    "cellular_noise",
    "circle_hills",
    "colormap",
    "combined_lightmap",
    "curvature",
    "diamond_square",
    "drainage_area",
    "erosion_filter",
    "fault_formation",
    "flatten",
    "flow_direction",
    "flow_length",
    "fractal_noise",
    "hill_parameters",
    "hillshade",
    "hillslope_diffusion",
    "hydraulic_erosion",
    "json_schema",
    "layer_presence",
    "layer_weights",
    "light_direction",
    "load_json",
    "load_spec",
    "multidirectional_hillshade",
    "noise_hills_pits",
    "normal_map",
    "normalize",
    "perlin_grid",
    "perlin_noise",
    "preset_spec",
    "raw_hills",
    "register_filter",
    "register_generator",
    "route_flow",
    "route_multiple_flow",
    "sea_level",
    "sectioned_profile",
    "simplex_noise",
    "slope_degrees",
    "slope_lightmap",
    "slope_walk",
    "splat_maps",
    "stream_power_erosion",
    "fill_lakes",
    "LakeFill",
    "sub_seed",
    "sun_angles",
    "sun_vector",
    "terrace",
    "thermal_erosion",
    "uniform",
    "value_grid",
    "value_noise",
    "white_noise",
]
