"""Orogen's terrain core: numpy only, no Blender.

Heightmaps are ``float32`` arrays of shape ``(rows, cols)`` = ``(y, x)``, row 0
the north edge, values normalised to ``[0, 1]`` unless a function says
otherwise (see :mod:`.heightmap`). Every random step takes an explicit seed
and draws from the counter-based hash in :mod:`.rng`.

The public functions are here at the top level (``core.fault_formation``,
``core.hillshade``, ``core.Recipe``, ...); each lives in a module named after
what it does: :mod:`.hills`, :mod:`.faults`, :mod:`.midpoint`
(diamond-square), :mod:`.noise`, :mod:`.filters`, :mod:`.profiles`,
:mod:`.lightmap`, :mod:`.shading`, :mod:`.bake`, :mod:`.colormap`, :mod:`.recipe`,
:mod:`.window`, :mod:`.rng`.
"""

from .bake import BakedMaps, bake_maps
from .colormap import DEFAULT_LAYERS, Layer, colormap, layer_presence, layer_weights, splat_maps
from .faults import fault_formation
from .filters import box_blur, erosion_filter, sea_level, terrace
from .heightmap import MAX_CELLS, as_heightmap, flatten, normalize
from .hills import add_hill, circle_hills, hill_parameters, raw_hills
from .lightmap import light_direction, slope_lightmap
from .midpoint import diamond_square
from .noise import noise_hills_pits, white_noise
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
)
from .window import Window

__all__ = [
    "DEFAULT_LAYERS",
    "Layer",
    "MAX_CELLS",
    "Recipe",
    "Window",
    "BakedMaps",
    "add_hill",
    "ambient_occlusion",
    "as_heightmap",
    "bake_maps",
    "box_blur",
    "cast_shadows",
    "circle_hills",
    "colormap",
    "combined_lightmap",
    "curvature",
    "diamond_square",
    "erosion_filter",
    "fault_formation",
    "flatten",
    "hill_parameters",
    "hillshade",
    "layer_presence",
    "layer_weights",
    "light_direction",
    "multidirectional_hillshade",
    "noise_hills_pits",
    "normal_map",
    "normalize",
    "raw_hills",
    "sea_level",
    "sectioned_profile",
    "slope_degrees",
    "slope_lightmap",
    "slope_walk",
    "splat_maps",
    "sub_seed",
    "terrace",
    "uniform",
    "white_noise",
]
