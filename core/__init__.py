"""Orogen's terrain core: numpy only, no Blender.

Heightmaps are ``float32`` arrays of shape ``(rows, cols)`` = ``(y, x)``, row 0
the north edge, values normalised to ``[0, 1]`` unless a function says
otherwise (see :mod:`.heightmap`). Every random step takes an explicit seed
and draws from the counter-based hash in :mod:`.rng`.
"""

from .colormap import DEFAULT_LAYERS, Layer, colormap, layer_presence, layer_weights
from .heightmap import MAX_CELLS, as_heightmap, flatten, normalize
from .hills import add_hill, circle_hills, hill_parameters, raw_hills
from .lightmap import light_direction, slope_lightmap
from .rng import sub_seed, uniform

__all__ = [
    "DEFAULT_LAYERS",
    "Layer",
    "MAX_CELLS",
    "add_hill",
    "as_heightmap",
    "circle_hills",
    "colormap",
    "flatten",
    "hill_parameters",
    "layer_presence",
    "layer_weights",
    "light_direction",
    "normalize",
    "raw_hills",
    "slope_lightmap",
    "sub_seed",
    "uniform",
]
