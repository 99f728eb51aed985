"""Version 3 to version 4: version 3's erosion algorithms stay behind declared choices.

Version 4 (Orogen 0.3) changes what five erosion algorithms do, each a fault version 3 had:

* the thermal filter's open edges continue each edge's own slope (``outside: "extend"``) instead of a cliff
  down to the input's lowest height (``"lowest"``), which wore every open edge down;
* the stream-power filter's hillslope diffusion is backward Euler split by direction, monotone at any step
  (``diffusion_scheme: "implicit"``), instead of the Peaceman-Rachford scheme (``"peaceman_rachford"``),
  which made new pits and peaks at the filter's long steps;
* its routing drains flats towards lower ground and breaks ties without a direction bias
  (``flats: "towards_lower"``), where version 3 made every flat cell a pit and gave ties to the first
  neighbour (``"first"``);
* its uplift map from the terrain puts the terrain's highest point at ``uplift`` (``uplift_scale: "peak"``)
  where version 3 multiplied by the normalised height (``"height"``), which a terrain raised by an earlier
  filter pushed past the bound;
* the hydraulic filter bounds each step's exchange by the neighbours' heights (``bounded: true``), where
  version 3's was unlimited (``false``) and blew up at the bounds of its rates.

A version-3 spec, recipe, preset or .blend group converts to version 4 by naming version 3's choice for each
(:data:`V3_CHOICES`), so it gives the heightmap it gave.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["V3_CHOICES", "filters_v3_to_v4"]

#: What version 3 did, by filter: the version-4 parameters that say it (every other value is the same).
V3_CHOICES: dict[str, dict[str, Any]] = {
    "thermal": {"outside": "lowest"},
    "hydraulic": {"bounded": False},
    "erosion": {"uplift_scale": "height", "diffusion_scheme": "peaceman_rachford", "flats": "first"},
}


def filters_v3_to_v4(filters: object) -> object:
    """A version-3 filter list (spec or recipe JSON) with version 3's choices named (:data:`V3_CHOICES`).

    A filter that already names a choice keeps it; anything that is not a list of objects with a ``type`` is
    returned as it is (its reader refuses it by name).
    """
    if not isinstance(filters, list):
        return filters
    return [
        {**V3_CHOICES[f["type"]], **f} if isinstance(f, Mapping) and f.get("type") in V3_CHOICES else f for f in filters
    ]
