"""Version 4 to version 5: the thermal and hydraulic filters' time in physical units, version 4's passes kept.

Version 5 counts the time of two erosion filters in physical units, so the same spec gives the same landform
at every size (the terrain's width is fixed, so a larger Size is a smaller cell):

* the thermal filter runs ``duration`` years of loose material moving at ``speed`` metres a year
  (``time: "years"``), the passes following from the cell size (:func:`core.erosion.thermal.thermal_passes`:
  twice as many at half the cell size), where version 4 ran ``steps`` passes over the grid whatever its cell
  size (``time: "passes"``), so a fault scarp relaxed half as far in metres at twice the size;
* the hydraulic filter simulates ``duration`` seconds of flow (``time: "seconds"``) in stable time steps
  (:func:`core.erosion.hydraulic.hydraulic_steps`), where version 4 ran ``steps`` steps of half the stable
  time step (``time: "steps"``), a shorter time at a smaller cell size.

A version-4 spec, recipe, preset or .blend group converts to version 5 by naming version 4's choice for each
(:data:`V4_CHOICES`), its ``steps`` kept, so it gives the heightmap it gave bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["V4_CHOICES", "filters_v4_to_v5"]

#: What version 4 did, by filter: the version-5 parameters that say it (every other value is the same).
V4_CHOICES: dict[str, dict[str, Any]] = {
    "thermal": {"time": "passes"},
    "hydraulic": {"time": "steps"},
}


def filters_v4_to_v5(filters: object) -> object:
    """A version-4 filter list (spec or recipe JSON) with version 4's choices named (:data:`V4_CHOICES`).

    A filter that already names a choice keeps it; anything that is not a list of objects with a ``type`` is
    returned as it is (its reader refuses it by name).
    """
    if not isinstance(filters, list):
        return filters
    return [
        {**V4_CHOICES[f["type"]], **f} if isinstance(f, Mapping) and f.get("type") in V4_CHOICES else f for f in filters
    ]
