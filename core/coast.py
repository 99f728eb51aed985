"""The Coastal Erosion filter: sea cliffs cut back by the waves, beaches from their debris in the coves.

The filter's declaration beside its wrapper (the algorithm is :mod:`core.erosion.coast`); it runs on the whole
heightmap (the exposure of a coast depends on the sea all around it), in metres and years, and gives back the
normalised heightmap. Its ``removed``/``deposited`` maps show the rock cut and the beaches laid.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .drain import add_change_maps, sea_in_metres, sea_level_param
from .erosion.coast import BEACH_ROWS, coast_steps, coastal_erosion
from .params import Filter, Param, register_filter

__all__ = ["STEP_PASSES"]

_WHOLE_WORLD = 1 << 30
#: Fitted defaults: the open coast retreats this share of the terrain's width over the declared duration, and
#: the exposure is measured over this share of it.
RETREAT_SHARE = 0.02
FETCH_SHARE = 0.05
_DURATION = 5000.0


#: Cell passes of one time step (the shore, its retreat and the front carried on: about 15 whole-array passes).
STEP_PASSES = 15


def _passes(p: Any) -> int:
    """The cell passes of a run (the work estimates of :mod:`core.work`): :data:`STEP_PASSES` a step, the steps
    :func:`core.erosion.coast.coast_steps` counts at the recipe's cell size (a 1 m cell where it is not known),
    and the exposure and the beaches."""
    cell = float(p.get("cell_size", 0.0)) or 1.0
    steps = coast_steps(float(p.get("duration", _DURATION)), float(p.get("retreat_rate", 0.1)), cell)
    return STEP_PASSES * steps + 8 * (1 + BEACH_ROWS)


def _fit_coast(s: Any) -> dict[str, Any]:
    """Retreat and exposure radius fitted to the terrain's width (:data:`RETREAT_SHARE`, :data:`FETCH_SHARE`)."""
    return {
        "retreat_rate": float(f"{RETREAT_SHARE * s['width'] / _DURATION:.3g}"),
        "fetch": float(f"{max(FETCH_SHARE * s['width'], s['cell_size']):.3g}"),
    }


def _coast(
    heightmap: Any,
    *,
    cell_size: float,
    height: float,
    sea_level: float,
    duration: float,
    retreat_rate: float,
    platform_depth: float,
    fetch: float,
    beach_share: float,
    berm: float,
    maps: dict[str, Any] | None = None,
    callback: Any = None,
) -> Any:
    """Coastal erosion of a normalised heightmap at the terrain's scale, back to normalised units."""
    scale = max(float(height), 1e-6)
    metres = np.asarray(heightmap, dtype=np.float64) * scale
    result = coastal_erosion(
        metres,
        cell_size,
        sea_level=sea_in_metres(metres, sea_level),
        duration=duration,
        retreat_rate=retreat_rate,
        platform_depth=platform_depth,
        fetch=max(fetch, cell_size),
        beach_share=beach_share,
        berm=berm,
        callback=callback,
    )
    add_change_maps(maps, deposited=result.deposited, removed=result.removed)
    return (result.heights / scale).astype(np.float32)


register_filter(
    Filter(
        "coast",
        "Coastal Erosion",
        "Waves cut sea cliffs back over a shore platform; their debris builds beaches in the sheltered coves",
        _coast,
        (
            sea_level_param(),
            Param(
                "duration",
                "float",
                _DURATION,
                hard=(0.0, 1e7),
                soft=(0.0, 1e5),
                unit="yr",
                label="Duration",
                description="Years of wave attack",
            ),
            Param(
                "retreat_rate",
                "float",
                0.1,
                hard=(0.0, 100.0),
                soft=(0.0, 2.0),
                unit="m/yr",
                label="Retreat Rate",
                description="Cliff retreat of an open straight coast (hard rock 0.001-0.01, soft rock 0.1-1); "
                "headlands retreat up to twice as fast, coves slower",
            ),
            Param(
                "platform_depth",
                "float",
                2.0,
                hard=(0.0, 1000.0),
                soft=(0.0, 20.0),
                unit="m",
                label="Platform Depth",
                description="Depth below the sea level at which the waves cut the shore platform",
            ),
            Param(
                "fetch",
                "float",
                500.0,
                hard=(0.0, 1e6),
                soft=(10.0, 5000.0),
                unit="m",
                label="Exposure Radius",
                description="Radius over which a coast's exposure to the open sea is measured (at least a cell)",
            ),
            Param(
                "beach_share",
                "float",
                0.3,
                hard=(0.0, 1.0),
                unit="factor",
                label="Beach Share",
                description="Share of the rock cut that is laid as beaches in the sheltered coves",
            ),
            Param(
                "berm",
                "float",
                2.0,
                hard=(0.0, 100.0),
                soft=(0.0, 10.0),
                unit="m",
                label="Berm Height",
                description="Height of a beach's berm above the sea level (with a Beach Share above 0)",
            ),
        ),
        source="Sunamura 1992; Trenhaile 2000; Walkden & Hall 2005",
        margin=lambda _p: _WHOLE_WORLD,
        passes=_passes,
        fit=_fit_coast,
        uses_scale=True,
        makes_maps=True,
    )
)
