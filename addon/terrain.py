"""From terrain settings to arrays: the only place the add-on calls the generators."""

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core import circle_hills, slope_lightmap


@dataclass(frozen=True)
class TerrainArrays:
    """What a terrain object is built from.

    ``heightmap`` is ``float32 (size, size)`` normalised to ``[0, 1]``;
    ``lightmap`` is ``float32 (size, size)`` in ``[0, 1]`` or ``None`` when the
    lightmap is off; ``width`` and ``height`` are in metres.
    """

    heightmap: npt.NDArray[np.float32]
    lightmap: npt.NDArray[np.float32] | None
    width: float
    height: float


def azimuth_degrees(radians: float) -> float:
    """An angle property (radians, stored as float32) in degrees, rounded to 1e-4 degree.

    The rounding removes float32 residue, so 90 degrees typed in the UI is
    exactly 90 for ``core`` (an exact east light, no diagonal blend).
    """
    return round(math.degrees(radians), 4)


def compute_terrain(settings) -> TerrainArrays:
    """Run the generators for ``settings`` (operator or scene settings).

    Raises ``ValueError``/``TypeError`` from ``core`` with a message naming the
    bad setting; nothing in Blender is touched, so a caller can report the
    error and leave the scene as it was.
    """
    size = settings.size
    heightmap = circle_hills(
        (size, size),
        seed=settings.seed,
        count=settings.hill_count,
        radius_min=settings.radius_min,
        radius_max=settings.radius_max,
        island=settings.island,
        flattening=settings.flattening,
    )
    lightmap = None
    if settings.use_lightmap:
        lightmap = slope_lightmap(
            heightmap * np.float32(settings.height),
            azimuth=azimuth_degrees(settings.light_azimuth),
            softness=settings.light_softness,
            min_brightness=settings.min_brightness,
            max_brightness=settings.max_brightness,
            cell_size=settings.width / (size - 1),
        )
    return TerrainArrays(heightmap, lightmap, float(settings.width), float(settings.height))
