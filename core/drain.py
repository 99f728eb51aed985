"""The Drain Depressions filter: every closed depression filled to its spill level or breached.

The filter's declaration beside its wrapper (the algorithm is :mod:`core.erosion.depressions`); it runs
on the whole heightmap (a depression's spill point may lie anywhere), in metres, and gives back the
normalised heightmap. Its ``removed``/``deposited`` maps show what breaching cut and filling laid down.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .erosion.depressions import drain_depressions
from .params import Filter, Param, When, register_filter

__all__ = ["add_change_maps", "add_height_change", "sea_in_metres", "sea_level_param", "sea_params"]

_WHOLE_WORLD = 1 << 30


def sea_level_param(**options: Any) -> Param:
    """The *Sea Level* setting of a filter that works at the sea (Drain Depressions, Coastal Erosion): a share of
    the height range when the filter runs; ``options`` as :class:`Param`'s (``active_when``)."""
    return Param(
        "sea_level",
        "float",
        0.1,
        hard=(0.0, 1.0),
        unit="normalised",
        label="Sea Level",
        description="Sea level as a share of the height range when the filter runs",
        **options,
    )


def sea_params(description: str) -> tuple[Param, Param]:
    """The *Sea* switch (``use_sea_level``, saying what it does in ``description``) and its *Sea Level*, of a
    filter for which cells under the sea are base level (Drain Depressions, Rivers and Lakes)."""
    switch = Param("use_sea_level", "bool", False, label="Sea", description=description)
    return switch, sea_level_param(active_when=When("use_sea_level", True))


def sea_in_metres(metres: Any, share: float) -> float:
    """The sea level in metres of heights ``metres`` (float64 array) at ``share`` of their range above the lowest."""
    low = float(metres.min())
    return low + share * (float(metres.max()) - low)


def add_change_maps(maps: dict[str, Any] | None, *, deposited: Any, removed: Any) -> None:
    """Add a filter's ``deposited`` and ``removed`` metres (arrays >= 0) to the recipe's ``maps`` (float32, summed
    over the filters); nothing when ``maps`` is ``None``."""
    if maps is None:
        return
    for name, part in (("deposited", deposited), ("removed", removed)):
        part = np.asarray(part, dtype=np.float32)
        maps[name] = part if maps.get(name) is None else maps[name] + part


def add_height_change(maps: dict[str, Any] | None, before: Any, after: Any) -> None:
    """Add what a filter laid down and cut, ``after - before`` (metres, float64 arrays) split into its positive
    and negative parts, to ``maps`` as :func:`add_change_maps` does; nothing when ``maps`` is ``None``."""
    if maps is None:
        return
    change = after - before
    add_change_maps(maps, deposited=np.maximum(change, 0.0), removed=np.maximum(-change, 0.0))


def _drain(
    heightmap: Any,
    *,
    cell_size: float,
    height: float,
    mode: str,
    use_sea_level: bool,
    sea_level: float,
    maps: dict[str, Any] | None = None,
    callback: Any = None,
) -> Any:
    """Drain the closed depressions of a normalised heightmap at the terrain's scale, back to normalised units."""
    scale = max(float(height), 1e-6)
    metres = np.asarray(heightmap, dtype=np.float64) * scale
    sea = sea_in_metres(metres, sea_level) if use_sea_level else None
    drained = drain_depressions(metres, cell_size, mode=mode, sea_level=sea)
    add_height_change(maps, metres, drained)
    return (drained / scale).astype(np.float32)


register_filter(
    Filter(
        "drain",
        "Drain Depressions",
        "Fill every closed depression to its spill level or cut through its sill, so all water leaves the map",
        _drain,
        (
            Param(
                "mode",
                "enum",
                "fill",
                label="Mode",
                description="How a closed depression is drained",
                items=(
                    ("fill", "Fill", "Raise it to its spill level: a flat floor, like a silted-up lake"),
                    ("breach", "Breach", "Lower the path over its sill to its floor: a channel through the sill"),
                ),
            ),
            *sea_params("Cells under the sea level are base level (a sea), not depressions"),
        ),
        source="Barnes, Lehman & Mulla 2014; Soille 2004; Lindsay 2016; Cordonnier, Bovy & Braun 2019",
        margin=lambda _p: _WHOLE_WORLD,
        passes=lambda _p: 8,
        uses_scale=True,
        makes_maps=True,
    )
)
