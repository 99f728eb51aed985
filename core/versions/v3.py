"""Spec version 3 (Orogen 0.3's development builds before version 4), and what its early builds wrote
differently.

Orogen's development builds of version 3 wrote the thermal filter's time steps as ``iterations`` (the name
version 2 gave them); the released version 3 calls them ``steps``, as the stream-power and hydraulic filters
do. A version-3 spec, recipe, preset or .blend group that says ``iterations`` loads with them as ``steps``
(the same number: the same heightmap).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["SPEC_VERSION", "V3_RENAMED", "rename_params", "rename_filters"]

#: Version of the spec's JSON form (5: the thermal and hydraulic filters' time in years and seconds,
#: :mod:`.v4_to_v5`; 4: version 3 with its erosion faults fixed, :mod:`.v3_to_v4`; 3: lengths in metres; 2: Orogen
#: 0.2, lengths in cells; 0.1 wrote none).
SPEC_VERSION = 5

#: Parameters renamed since development builds of version 3 wrote them, by part (old name to today's).
V3_RENAMED: dict[str, dict[str, str]] = {"thermal": {"iterations": "steps"}}


def rename_params(key: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """Part ``key``'s version-3 ``params`` with old names as today's (:data:`V3_RENAMED`).

    A value given under both names keeps both, so the declaration refuses the old one by name.
    """
    names = V3_RENAMED.get(key, {})
    return {(names[k] if k in names and names[k] not in params else k): v for k, v in params.items()}


def rename_filters(filters: object) -> object:
    """A filter list (spec or recipe JSON: objects with a ``type``) with old parameter names as today's.

    Anything that is not such a list or object is returned as it is (its reader refuses it by name).
    """
    if not isinstance(filters, list):
        return filters
    return [
        rename_params(f["type"], f) if isinstance(f, Mapping) and isinstance(f.get("type"), str) else f for f in filters
    ]
