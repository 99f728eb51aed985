"""Lighting settings, declared once, and the bake: heightmap + lighting -> lightmap, slope, curvature
(one pass of :func:`core.bake.bake_maps`, from one Horn gradient).

The add-on only moves these arrays into Blender's attributes; the exporter
and the scripts call the same :func:`bake`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .bake import bake_maps
from .heightmap import as_heightmap, check_number
from .params import AllOf, AnyOf, Param, When, check_conditions, check_values
from .shading import sun_vector

__all__ = [
    "LIGHTING_PARAMS",
    "LIGHTING_ORDERED",
    "Maps",
    "bakes_occlusion",
    "cell_size",
    "sun_vector",
    "sun_angles",
    "bake",
]

F32 = npt.NDArray[np.float32]

#: The lighting settings of a terrain (a spec's ``lighting`` object; ``lighting.NAME`` in Blender and ``--set``).
LIGHTING_PARAMS: tuple[Param, ...] = (
    Param(
        "enabled", "bool", True, label="Lightmap", description="Bake the lightmap into the 'Lightmap' colour attribute"
    ),
    Param(
        "mode",
        "enum",
        "slope",
        label="Lighting",
        description="How the lightmap is computed",
        items=(
            ("slope", "Slope", "Each vertex against the ground one cell toward the light (the classic tutorials)"),
            ("hillshade", "Hillshade", "GIS hillshade (Horn's gradient), sun azimuth and altitude"),
            ("multidirectional", "Multidirectional", "GIS hillshade from four lights weighted by aspect (Mark 1992)"),
        ),
        active_when=When("enabled", True),
    ),
    Param(
        "azimuth",
        "float",
        315.0,
        hard=(0.0, 360.0),
        unit="deg",
        label="Light Azimuth",
        description="Direction the light comes from, clockwise from north (+Y)",
        active_when=AllOf(When("enabled", True), AnyOf(When("mode", "slope", "hillshade"), When("shadows", True))),
    ),
    Param(
        "altitude",
        "float",
        45.0,
        hard=(0.0, 90.0),
        unit="deg",
        label="Light Altitude",
        description="Height of the sun above the horizon",
        active_when=AllOf(When("enabled", True), When("mode", "hillshade", "multidirectional")),
    ),
    Param(
        "use_scene_sun",
        "bool",
        False,
        label="Use Scene Sun",
        description="Take the light's azimuth and altitude from the first Sun light in the scene",
        active_when=When("enabled", True),
    ),
    Param(
        "softness",
        "float",
        1.0,
        hard=(0.01, 100.0),
        soft=(0.01, 10.0),
        label="Softness",
        description="Slope (rise over run) that darkens a slope facing away from the light fully; larger is softer",
        active_when=AllOf(When("enabled", True), When("mode", "slope")),
    ),
    Param(
        "min_brightness",
        "float",
        0.25,
        hard=(0.0, 1.0),
        unit="factor",
        label="Min Brightness",
        description="Darkest value of the lightmap",
        active_when=When("enabled", True),
    ),
    Param(
        "max_brightness",
        "float",
        1.0,
        hard=(0.0, 1.0),
        unit="factor",
        label="Max Brightness",
        description="Brightest value of the lightmap (at least Min Brightness)",
        active_when=When("enabled", True),
    ),
    Param(
        "shadows",
        "bool",
        False,
        label="Cast Shadows",
        description="Shadow cells the terrain hides from the sun",
        active_when=AllOf(When("enabled", True), When("mode", "hillshade", "multidirectional")),
    ),
    Param(
        "shadow_softness",
        "float",
        2.0,
        hard=(1.0, 45.0),
        unit="deg",
        label="Penumbra",
        description="Width of the soft shadow edge (angle of the sun disc)",
        active_when=AllOf(When("enabled", True), When("mode", "hillshade", "multidirectional"), When("shadows", True)),
    ),
    Param(
        "ao",
        "bool",
        False,
        label="Ambient Occlusion",
        description="Darken cells that see less of the sky",
        active_when=AllOf(When("enabled", True), When("mode", "hillshade", "multidirectional")),
    ),
    Param(
        "ao_strength",
        "float",
        1.0,
        hard=(0.0, 10.0),
        soft=(0.0, 3.0),
        label="Strength",
        description="Exponent of the ambient occlusion term",
        active_when=AllOf(When("enabled", True), When("mode", "hillshade", "multidirectional"), When("ao", True)),
    ),
    Param(
        "ao_directions",
        "int",
        16,
        hard=(4, 64),
        label="Directions",
        description="Horizon directions sampled for ambient occlusion",
        active_when=AllOf(
            When("enabled", True),
            When("mode", "hillshade", "multidirectional"),
            When("ao", True),
            When("ao_strength", above=0),
        ),
    ),
    Param(
        "ao_radius",
        "int",
        32,
        hard=(1, 4096),
        soft=(1, 256),
        unit="cells",
        label="Radius",
        description="Search radius of ambient occlusion, in heightmap cells",
        active_when=AllOf(
            When("enabled", True),
            When("mode", "hillshade", "multidirectional"),
            When("ao", True),
            When("ao_strength", above=0),
        ),
    ),
)
check_conditions(LIGHTING_PARAMS, "lighting.")
#: Pairs that must be ordered.
LIGHTING_ORDERED = (("min_brightness", "max_brightness"),)


@dataclass(frozen=True)
class Maps:
    """What a bake gives: ``lightmap`` (``float32 (rows, cols)`` in [0, 1], or ``None`` when off),
    ``slope`` in degrees and ``curvature`` in 1/m (``float32 (rows, cols)``, positive on ridges)."""

    lightmap: F32 | None
    slope: F32
    curvature: F32
    #: The ambient-occlusion factor in the lightmap (``AO^strength``, [0, 1]), ``None`` without AO: what a Lit
    #: material's optional cavity term darkens its base colour by.
    occlusion: F32 | None = None


def bakes_occlusion(lighting: Mapping[str, Any]) -> bool:
    """Whether a bake with these lighting settings makes the ambient-occlusion factor (:attr:`Maps.occlusion`):
    lighting on, a hillshade mode and AO on."""
    return bool(lighting["enabled"] and lighting["ao"] and lighting["mode"] in ("hillshade", "multidirectional"))


def cell_size(shape: tuple[int, int], width: float) -> float:
    """Metres per cell of a ``shape`` grid ``width`` metres across its longer side (vertices at cell corners).

    Raises ``ValueError`` for a non-positive or non-finite width.
    """
    width = check_number(width, "width", 0.0, None, low_open=True)
    return width / max(shape[0] - 1, shape[1] - 1, 1)


def sun_angles(x: float, y: float, z: float) -> tuple[float, float]:
    """``(azimuth, altitude)`` in degrees, rounded to 1e-4, of a vector toward the sun.

    The inverse of :func:`sun_vector`; the vector need not be unit length.
    """
    norm = math.sqrt(x * x + y * y + z * z) or 1.0
    azimuth = math.degrees(math.atan2(x, y)) % 360.0
    altitude = min(max(math.degrees(math.asin(max(-1.0, min(1.0, z / norm)))), 0.0), 90.0)
    return round(azimuth, 4) % 360.0, round(altitude, 4)


def bake(
    heightmap: npt.ArrayLike,
    width: float,
    height: float,
    lighting: Mapping[str, Any] | None = None,
    sun: tuple[float, float] | None = None,
) -> Maps:
    """Lightmap, slope and curvature of a heightmap in units of ``height`` metres.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Heights in units of ``height`` (``[0, 1]`` when fitted; version 3's filters may move them outside),
        row 0 north: the maps are those of ``heightmap * height`` metres, the mesh's Z.
    width, height : float
        The terrain's width (metres across its longer side) and height range (metres).
    lighting : mapping, optional
        Values of :data:`LIGHTING_PARAMS` (missing ones take their defaults).
    sun : (float, float), optional
        ``(azimuth, altitude)`` in degrees replacing the lighting's own (the scene's Sun).

    Returns
    -------
    Maps
        ``float32`` maps of the heightmap's shape.

    Raises
    ------
    TypeError, ValueError
        For a bad heightmap or setting, naming it.
    """
    h = as_heightmap(heightmap)
    light = check_values(LIGHTING_PARAMS, lighting or {}, "lighting.", LIGHTING_ORDERED)
    height = check_number(height, "height", 0.0, 1.0e6)
    cell = cell_size((h.shape[0], h.shape[1]), width)
    metres = h * np.float32(height)
    azimuth, altitude = sun if sun is not None else (light["azimuth"], light["altitude"])
    maps = bake_maps(
        metres,
        cell,
        lighting=light["mode"] if light["enabled"] else None,
        azimuth=azimuth,
        altitude=altitude,
        light_softness=light["softness"],
        min_brightness=light["min_brightness"],
        max_brightness=light["max_brightness"],
        shadows=light["shadows"],
        shadow_softness=light["shadow_softness"],
        ambient=light["ao"],
        ambient_strength=light["ao_strength"],
        ambient_directions=light["ao_directions"],
        ambient_radius=light["ao_radius"],
    )
    return Maps(maps.lightmap, maps.slope, maps.curvature, maps.occlusion)
