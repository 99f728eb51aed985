"""Lighting settings, declared once, and their translation into the options of the one bake.

:data:`LIGHTING_PARAMS` declares a terrain's lighting (checked with
:func:`core.params.check_values` against :data:`LIGHTING_ORDERED`);
:func:`bake_options` turns checked settings into the keyword options of
:func:`.bake.bake_maps`, the only bake (what :meth:`core.spec.TerrainSpec.bake`,
:func:`core.world.window_maps`, the add-on, the exporter and the scripts run).
The add-on only moves the arrays into Blender's attributes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from ..elementary import atan2
from ..heightmap import check_number
from ..params import AllOf, AnyOf, Param, When, check_conditions

__all__ = [
    "LIGHTING_PARAMS",
    "LIGHTING_ORDERED",
    "bake_options",
    "bakes_occlusion",
    "cell_size",
    "sun_angles",
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


def bakes_occlusion(lighting: Mapping[str, Any]) -> bool:
    """Whether a bake with these lighting settings makes the ambient-occlusion factor
    (:attr:`.bake.BakedMaps.occlusion`): lighting on, a hillshade mode and AO on."""
    return bool(lighting["enabled"] and lighting["ao"] and lighting["mode"] in ("hillshade", "multidirectional"))


def cell_size(shape: tuple[int, int], width: float) -> float:
    """Metres per cell of a ``shape`` grid ``width`` metres across its longer side (vertices at cell corners).

    Raises ``ValueError`` for a non-positive or non-finite width.
    """
    width = check_number(width, "width", low=0.0, high=None, low_open=True)
    return width / max(shape[0] - 1, shape[1] - 1, 1)


def sun_angles(x: float, y: float, z: float) -> tuple[float, float]:
    """``(azimuth, altitude)`` in degrees, rounded to 1e-4, of a vector toward the sun.

    The inverse of :func:`.hillshading.sun_vector`; the vector need not be unit length.
    """
    azimuth = math.degrees(float(atan2(x, y))) % 360.0  # core.elementary: the same bits on every platform
    altitude = min(max(math.degrees(float(atan2(z, math.sqrt(x * x + y * y)))), 0.0), 90.0)
    return round(azimuth, 4) % 360.0, round(altitude, 4)


def bake_options(lighting: Mapping[str, Any], sun: tuple[float, float] | None = None) -> dict[str, Any]:
    """The keyword options of :func:`.bake.bake_maps` for checked lighting settings.

    Parameters
    ----------
    lighting : mapping
        Values of every :data:`LIGHTING_PARAMS`, as :func:`core.params.check_values` returns them.
    sun : (float, float), optional
        ``(azimuth, altitude)`` in degrees replacing the lighting's own (the scene's Sun).

    Returns
    -------
    dict
        ``lighting`` (the mode, ``None`` when lighting is off), the sun, the brightness range, cast shadows
        and ambient occlusion: ``bake_maps(metres, cell_size, **bake_options(light))``.
    """
    azimuth, altitude = sun if sun is not None else (lighting["azimuth"], lighting["altitude"])
    return {
        "lighting": lighting["mode"] if lighting["enabled"] else None,
        "azimuth": azimuth,
        "altitude": altitude,
        "light_softness": lighting["softness"],
        "min_brightness": lighting["min_brightness"],
        "max_brightness": lighting["max_brightness"],
        "shadows": lighting["shadows"],
        "shadow_softness": lighting["shadow_softness"],
        "ambient": lighting["ao"],
        "ambient_strength": lighting["ao_strength"],
        "ambient_directions": lighting["ao_directions"],
        "ambient_radius": lighting["ao_radius"],
    }
