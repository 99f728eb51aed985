"""Lighting: lightmaps and data maps of a heightmap in metres, by kind, and the one bake.

- :mod:`.gradient`: Horn's gradient block by block, the shared machinery;
- :mod:`.hillshading`: hillshade from one sun or Mark's four;
- :mod:`.derivatives`: slope, curvature and the normal map;
- :mod:`.shadows`: cast shadows, exact in windows of a world;
- :mod:`.occlusion`: ambient occlusion;
- :mod:`.slope_light`: the tutorials' slope lightmap;
- :mod:`.bake`: :func:`.bake.bake_maps`, every map of a terrain in one pass
  (result :class:`.bake.BakedMaps`), and :func:`.bake.combined_lightmap`;
- :mod:`.settings`: the lighting settings (:data:`.settings.LIGHTING_PARAMS`)
  and their translation into the bake's options.

Invariants: heights and cell sizes in metres, azimuth clockwise from north
(row 0 north), altitude above the horizon; outputs ``float32`` of the
heightmap's shape; a plane is exact on every cell (edges extrapolated
linearly); modules share only public names.
"""

from __future__ import annotations

from .bake import (
    LIGHTINGS,
    BakedMaps,
    bake_maps,
    combined_lightmap,
)
from .derivatives import (
    curvature,
    curvature_block,
    normal_block,
    normal_map,
    slope_block,
    slope_degrees,
)
from .gradient import (
    BLOCK_CELLS,
    MAX_HEIGHT,
    MAX_LIGHT_WORK,
    HornGradient,
    check_light_work,
    fill_extension,
    gradient_norm2,
    horn_gradient,
    per_block,
    prepare_heights,
    rows_per_block,
    worker_count,
)
from .hillshading import (
    MULTIDIRECTIONAL_AZIMUTHS,
    hillshade,
    hillshade_block,
    multidirectional_block,
    multidirectional_hillshade,
    sun_vector,
)
from .occlusion import (
    ambient_occlusion,
    ambient_parameters,
    ambient_work,
    occlusion_power,
    trace_occlusion,
)
from .settings import (
    LIGHTING_ORDERED,
    LIGHTING_PARAMS,
    bake_options,
    bakes_occlusion,
    cell_size,
    sun_angles,
)
from .shadows import (
    SHADOW_SAMPLES,
    cast_shadows,
    check_origin,
    shadow_margins,
    shadow_parameters,
    shadow_reach,
    shadow_work,
    trace_shadows,
)
from .slope_light import (
    light_direction,
    slope_lightmap,
)

__all__ = [
    "LIGHTINGS",
    "BakedMaps",
    "bake_maps",
    "combined_lightmap",
    "slope_block",
    "curvature_block",
    "normal_block",
    "normal_map",
    "slope_degrees",
    "curvature",
    "MAX_HEIGHT",
    "MAX_LIGHT_WORK",
    "BLOCK_CELLS",
    "prepare_heights",
    "rows_per_block",
    "fill_extension",
    "HornGradient",
    "horn_gradient",
    "gradient_norm2",
    "per_block",
    "check_light_work",
    "worker_count",
    "sun_vector",
    "hillshade_block",
    "MULTIDIRECTIONAL_AZIMUTHS",
    "multidirectional_block",
    "hillshade",
    "multidirectional_hillshade",
    "ambient_work",
    "ambient_occlusion",
    "ambient_parameters",
    "trace_occlusion",
    "occlusion_power",
    "LIGHTING_PARAMS",
    "LIGHTING_ORDERED",
    "bake_options",
    "bakes_occlusion",
    "cell_size",
    "sun_angles",
    "SHADOW_SAMPLES",
    "shadow_work",
    "cast_shadows",
    "check_origin",
    "shadow_reach",
    "shadow_margins",
    "shadow_parameters",
    "trace_shadows",
    "light_direction",
    "slope_lightmap",
]
