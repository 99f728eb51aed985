"""Spec version 2 (Orogen 0.2): the declarations of the parts whose parameters changed in version 3.

A version-2 recipe (Orogen 0.2's, or 0.1's read as version 2) runs these declarations, so it gives exactly
the heightmap it gave: lengths in cells, the diamond-square lattice hashed by grid cell, the 3 x 3 blur in
passes, the one-pole low-pass filter's ``k``, the erosion filter without lake filling and with automatic
rates scaled to the cell, the thermal filter's ``iterations``. The algorithms themselves stay where they
live (:mod:`core.hills`, :mod:`core.midpoint`, :mod:`core.filters`, ...); :func:`part` is the one place that
picks a declaration by version. The conversion of version-2 values to version 3 is
:mod:`core.versions.v2_to_v3`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .. import filters
from ..catalog import OPEN_LOW, RADIUS_MAX, passes_of, range_param
from ..generators.hills import MAX_HILLS, hills_raw
from ..generators.hills_pits import noise_hills_pits
from ..generators.midpoint_displacement import diamond_square
from ..params import FILTERS, GENERATORS, Filter, Generator, Param
from .v3_to_v4 import V3_CHOICES
from .v4_to_v5 import V4_CHOICES

__all__ = ["V2_PARTS", "V2_DEFAULTS", "V2_RENAMED", "part"]


def _radius(name: str, label: str, default: float, what: str) -> Param:
    return Param(
        name,
        "float",
        default,
        hard=(OPEN_LOW, RADIUS_MAX),
        soft=(0.5, 256.0),
        unit="cells",
        label=label,
        description=f"{what}, in heightmap cells",
    )


V2_PARTS: dict[str, Generator | Filter] = {
    "hills": Generator(
        "hills",
        "Hills",
        "Circle-based hills (version 2: radii in cells)",
        hills_raw,
        (
            Param(
                "count",
                "int",
                150,
                hard=(0, MAX_HILLS),
                soft=(0, 5000),
                label="Hills",
                description="Number of circle-based hills raised on the terrain",
            ),
            _radius("radius_min", "Radius Min", 4.0, "Smallest hill radius"),
            _radius("radius_max", "Radius Max", 20.0, "Largest hill radius (at least Radius Min)"),
            Param(
                "island",
                "bool",
                False,
                label="Island",
                description="Cluster the hills around the centre into one island",
            ),
        ),
        ordered=(("radius_min", "radius_max"),),
    ),
    "diamond_square": Generator(
        "diamond_square",
        "Diamond-Square",
        "Midpoint displacement (version 2: lattice hashed by grid cell)",
        diamond_square,
        (
            Param(
                "roughness",
                "float",
                1.0,
                hard=(0.01, 8.0),
                soft=(0.05, 3.0),
                label="Roughness",
                description="Offsets shrink by 2^-roughness per level",
            ),
        ),
    ),
    "noise": Generator(
        "noise",
        "Noise, Hills and Pits",
        "White noise with hills and pits (version 2: one value per cell, radii in cells)",
        noise_hills_pits,
        (
            Param(
                "noise",
                "float",
                0.1,
                hard=(0.0, 1.0e6),
                soft=(0.0, 2.0),
                label="Noise",
                description="Amplitude of the white-noise base, relative to hill heights",
            ),
            Param(
                "hills",
                "int",
                300,
                hard=(0, MAX_HILLS),
                soft=(0, 5000),
                label="Hills",
                description="Number of hills raised on the noise",
            ),
            range_param(
                "hill_radius",
                "Hill Radius",
                (4.0, 16.0),
                unit="cells",
                description="Smallest and largest hill radius, in cells",
                hard=(OPEN_LOW, RADIUS_MAX),
                soft=(0.5, 256.0),
            ),
            range_param(
                "hill_height",
                "Hill Height",
                (0.2, 0.6),
                unit="",
                description="Lowest and highest hill peak, relative to the noise",
                hard=(0.0, 1.0e6),
                soft=(0.0, 5.0),
            ),
            Param(
                "pits",
                "int",
                100,
                hard=(0, MAX_HILLS),
                soft=(0, 5000),
                label="Pits",
                description="Number of pits dug into the noise",
            ),
            range_param(
                "pit_radius",
                "Pit Radius",
                (3.0, 8.0),
                unit="cells",
                description="Smallest and largest pit radius, in cells",
                hard=(OPEN_LOW, RADIUS_MAX),
                soft=(0.5, 256.0),
            ),
            range_param(
                "pit_height",
                "Pit Depth",
                (0.2, 0.5),
                unit="",
                description="Shallowest and deepest pit, relative to the noise",
                hard=(0.0, 1.0e6),
                soft=(0.0, 5.0),
            ),
        ),
    ),
    "box_blur": Filter(
        "box_blur",
        "Box Blur",
        "3 x 3 mean, edges included, N passes (version 2)",
        filters.box_blur,
        (
            Param(
                "passes",
                "int",
                3,
                hard=(0, filters.MAX_PASSES),
                soft=(1, 50),
                label="Passes",
                description="Box blur passes",
            ),
        ),
        margin=passes_of,
        passes=passes_of,
    ),
    "lowpass": Filter(
        "lowpass",
        "Low-pass (FIR erosion filter)",
        "One-pole low-pass filter, k per cell (version 2)",
        filters.erosion_filter,
        (
            Param(
                "k",
                "float",
                0.5,
                hard=(0.0, 0.999),
                soft=(0.0, 0.99),
                unit="factor",
                label="Filter",
                description="Filter coefficient k: 0 keeps the map, near 1 smooths strongly",
            ),
            Param(
                "passes",
                "int",
                1,
                hard=(0, filters.MAX_PASSES),
                soft=(1, 20),
                label="Passes",
                description="Low-pass filter passes",
            ),
        ),
        margin=lambda p: filters.erosion_margin(p.get("k", 0.5), p.get("passes", 1)),
        passes=passes_of,
    ),
}


#: Version-3 defaults that differ from what version 2 did: a version-2 spec or recipe that does not say them
#: keeps version 2's behaviour (lakes were not filled before version 3, and the automatic rates scaled with the
#: cell).
V2_DEFAULTS: dict[str, dict[str, Any]] = {"erosion": {"lake_fill": False, "auto_scale": "cell"}}
for _key, _defaults in V2_DEFAULTS.items():
    _new = FILTERS[_key]
    V2_PARTS[_key] = dataclasses.replace(
        _new,
        params=tuple(
            dataclasses.replace(p, default=_defaults[p.name]) if p.name in _defaults else p for p in _new.params
        ),
    )


#: Parameters version 3 renamed (version 2's name to today's), by part: one name per option across filters
#: (the thermal filter's ``iterations`` are the time steps the other erosion filters call ``steps``). Version 2
#: declares them under their old names, so a version-2 spec or recipe saying them runs as before.
V2_RENAMED: dict[str, dict[str, str]] = {"thermal": {"iterations": "steps"}}


def _renamed_function(function: Any, names: dict[str, str]) -> Any:
    """``function`` taking its renamed keywords by their old ``names`` (old name to new)."""

    def run(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **{names.get(k, k): v for k, v in kwargs.items()})

    run.__doc__ = function.__doc__
    return run


def _renamed_filter(key: str, names: dict[str, str]) -> Filter:
    """Today's declaration of filter ``key`` with its parameters under their version-2 ``names``."""
    new = FILTERS[key]
    back = {v: k for k, v in names.items()}
    return dataclasses.replace(
        new,
        function=_renamed_function(new.function, names),
        params=tuple(dataclasses.replace(p, name=back.get(p.name, p.name)) for p in new.params),
        margin=lambda p: new.margin({names.get(k, k): v for k, v in p.items()}),
        passes=lambda p: new.passes({names.get(k, k): v for k, v in p.items()}),
    )


for _key, _names in V2_RENAMED.items():
    V2_PARTS[_key] = _renamed_filter(_key, _names)

# Version 2 ran version 3's erosion algorithms where version 4 changed them (:data:`.v3_to_v4.V3_CHOICES`).
for _key, _choices in V3_CHOICES.items():
    if _key in V2_PARTS:
        V2_PARTS[_key] = dataclasses.replace(
            V2_PARTS[_key],
            params=tuple(
                dataclasses.replace(p, default=_choices[p.name]) if p.name in _choices else p
                for p in V2_PARTS[_key].params
            ),
        )


# Version 2 counted the thermal filter's time in passes, as version 4 did (:data:`.v4_to_v5.V4_CHOICES`).
for _key, _choices in V4_CHOICES.items():
    if _key in V2_PARTS:
        V2_PARTS[_key] = dataclasses.replace(
            V2_PARTS[_key],
            params=tuple(
                dataclasses.replace(p, default=_choices[p.name]) if p.name in _choices else p
                for p in V2_PARTS[_key].params
            ),
        )


def part(key: str, version: int) -> Generator | Filter:
    """The declaration of generator or filter ``key`` in a spec or recipe of ``version`` (2 or 3).

    Raises ``KeyError`` for an unregistered key.
    """
    if version <= 2 and key in V2_PARTS:
        return V2_PARTS[key]
    return GENERATORS[key] if key in GENERATORS else FILTERS[key]
