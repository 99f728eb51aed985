"""Orogen's terrain core: numpy only, no Blender.

Heightmaps are ``float32`` arrays of shape ``(rows, cols)`` = ``(y, x)``, row 0
the north edge, values normalised to ``[0, 1]`` unless a function says
otherwise (see :mod:`.heightmap`). Every random step takes an explicit seed
and draws from the counter-based hash in :mod:`.rng`.

The public functions are here at the top level (``core.fault_formation``,
``core.hillshade``, ``core.TerrainSpec``, ...). They live in sub-packages by
subject, each module named after what it does:

- :mod:`.generators`: hills, faults, diamond-square, noise hills-and-pits, profiles;
- :mod:`core.generators.hills_pits`: the lattice noises, their fractal sums, white noise;
- :mod:`.erosion`: flow routing, stream power, hillslope diffusion, lake
  filling, thermal and hydraulic erosion, river-network statistics;
- :mod:`core.lighting.settings`: Horn's gradient, hillshade, slope/curvature/normals,
  cast shadows, ambient occlusion, the slope lightmap, the one bake
  (:func:`bake_maps`, :class:`BakedMaps`) and the lighting settings;
- :mod:`.io`: safe files, RAW/NPY formats, GeoTIFF, image headers, JSON.

At the top level stay what ties them together: the parameter declarations
(:mod:`.params`, :mod:`.catalog`), the whole terrain (:mod:`.spec`, its
heightmap part :mod:`.recipe`, its sources and stamps :mod:`.sources`, exact
windows :mod:`.window`, worlds of tiles :mod:`.world`), presets (:mod:`.presets`), the shared checks
(:mod:`.heightmap`), randomness (:mod:`.rng`), units (:mod:`.units`),
colours (:mod:`.colormap`), a landscape camera's vantage (:mod:`.viewpoint`), the realism report
(:mod:`.geomorph`), masks of filters (:mod:`.masks`), the simple filters (:mod:`.filters`) and one
cancellation protocol (:mod:`.progress`: a callback ``progress(done, total)``
returning ``False`` raises :class:`Cancelled`). Options past the first one to
three data arguments are keyword-only everywhere.
"""

from . import catalog, geomorph, params, presets, spec  # noqa: F401  (catalog registers the built-in generators and filters)
from .colormap import DEFAULT_LAYERS, Layer, colormap, layer_presence, layer_weights, splat_maps
from .erosion.depressions import drain_depressions
from .erosion.diffusion import hillslope_diffusion
from .erosion.flow import (
    FlowRouting,
    MultipleFlowRouting,
    drainage_area,
    flow_direction,
    flow_length,
    route_flow,
    route_multiple_flow,
)
from .erosion.glacial import GlacialResult, glacial_erosion
from .erosion.hydraulic import PiledSedimentWarning, hydraulic_erosion
from .erosion.lakes import LakeFill, fill_lakes
from .erosion.stream_power import StreamPowerResult, stream_power_erosion
from .erosion.thermal import ErosionResult, thermal_erosion
from .filters import box_blur, erosion_filter, sea_level, terrace
from .generators.faults import fault_formation
from .generators.hills import add_hill, circle_hills, hill_parameters, raw_hills
from .generators.hills_pits import noise_hills_pits
from .generators.midpoint_displacement import diamond_square
from .generators.profiles import sectioned_profile, slope_walk
from .heightmap import MAX_CELLS, as_heightmap, flatten, normalize
from .io.jsonio import load_json
from .lighting.bake import BakedMaps, bake_maps, combined_lightmap
from .lighting.derivatives import curvature, normal_map, slope_degrees
from .lighting.hillshading import hillshade, multidirectional_hillshade, sun_vector
from .lighting.occlusion import ambient_occlusion
from .lighting.settings import sun_angles
from .lighting.shadows import cast_shadows
from .lighting.slope_light import light_direction, slope_lightmap
from .masks import MASK_PARAMS, blend_masked, mask_weights, strata_phase
from .noise.fractal import fractal_noise
from .noise.lattice import cellular_noise, perlin_grid, perlin_noise, simplex_noise, value_grid, value_noise
from .noise.white import lattice_white_noise, white_noise
from .params import FILTERS, GENERATORS, Filter, Generator, Param, fitted_defaults, register_filter, register_generator
from .presets import PRESETS, preset_spec
from .progress import Cancelled, ProgressBar, progress_text, time_left
from .recipe import Recipe
from .rng import sub_seed, uniform
from .scale import ScaleChangeWarning
from .scatter import SCATTER_KINDS, ScatterKind, wetness_index
from .sources import STAMPS, Source, Stamp, register_stamp
from .spec import TerrainSpec, apply_settings, json_schema, load_spec
from .viewpoint import Viewpoint, frame_top, landscape_viewpoint
from .window import Window

__all__ = [
    "BakedMaps",
    "Cancelled",
    "DEFAULT_LAYERS",
    "ErosionResult",
    "FILTERS",
    "fitted_defaults",
    "Filter",
    "FlowRouting",
    "MultipleFlowRouting",
    "GENERATORS",
    "Generator",
    "Layer",
    "MAX_CELLS",
    "MASK_PARAMS",
    "PRESETS",
    "Param",
    "ProgressBar",
    "Recipe",
    "STAMPS",
    "Source",
    "Stamp",
    "register_stamp",
    "StreamPowerResult",
    "TerrainSpec",
    "Viewpoint",
    "Window",
    "add_hill",
    "ambient_occlusion",
    "apply_settings",
    "as_heightmap",
    "bake_maps",
    "blend_masked",
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
    "frame_top",
    "fractal_noise",
    "hill_parameters",
    "hillshade",
    "hillslope_diffusion",
    "PiledSedimentWarning",
    "ScaleChangeWarning",
    "SCATTER_KINDS",
    "ScatterKind",
    "wetness_index",
    "hydraulic_erosion",
    "GlacialResult",
    "glacial_erosion",
    "json_schema",
    "landscape_viewpoint",
    "layer_presence",
    "layer_weights",
    "light_direction",
    "load_json",
    "load_spec",
    "mask_weights",
    "strata_phase",
    "multidirectional_hillshade",
    "noise_hills_pits",
    "normal_map",
    "normalize",
    "perlin_grid",
    "perlin_noise",
    "preset_spec",
    "progress_text",
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
    "time_left",
    "splat_maps",
    "stream_power_erosion",
    "fill_lakes",
    "drain_depressions",
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
    "lattice_white_noise",
]
