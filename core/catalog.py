"""The built-in generators and filters, each declared once with its parameters.

Importing :mod:`core` registers them in :data:`core.params.GENERATORS` and
:data:`core.params.FILTERS`. Parameter names are the functions' keyword
names; bounds are the functions' own (the UI's slider ranges are the soft
bounds).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import filters
from .faults import MAX_FAULTS, fault_formation
from .heightmap import flatten
from .hills import MAX_HILLS, hills_raw
from .midpoint import diamond_square
from .noise import noise_hills_pits
from .params import Filter, Generator, Param, register_filter, register_generator

__all__ = ["RADIUS_MAX", "OPEN_LOW"]

#: Largest radius the UI offers (cells); the functions accept up to 1e6.
RADIUS_MAX = 1.0e6
#: Stand-in for "greater than 0" in inclusive hard bounds.
OPEN_LOW = 1e-6


def _radius(name: str, label: str, default: float, what: str) -> Param:
    return Param(name, "float", default, hard=(OPEN_LOW, RADIUS_MAX), soft=(0.5, 256.0), unit="cells",
                 label=label, description=f"{what}, in heightmap cells")


def _pair(name: str, label: str, default: tuple[float, float], unit: str, description: str,
          hard: tuple[float, float], soft: tuple[float, float]) -> Param:
    return Param(name, "range", default, hard=hard, soft=soft, unit=unit, label=label, description=description)


register_generator(Generator(
    "hills", "Hills", "Circle-based hills (paraboloids on random circles, summed), optionally clustered into an island",
    hills_raw,
    (
        Param("count", "int", 150, hard=(0, MAX_HILLS), soft=(0, 5000), label="Hills",
              description="Number of circle-based hills raised on the terrain"),
        _radius("radius_min", "Radius Min", 4.0, "Smallest hill radius"),
        _radius("radius_max", "Radius Max", 20.0, "Largest hill radius (at least Radius Min)"),
        Param("island", "bool", False, label="Island",
              description="Cluster the hills around the centre into one island"),
    ),
    source="Nystrom's and Lighthouse 3D's hill tutorials",
    ordered=(("radius_min", "radius_max"),),
))

register_generator(Generator(
    "faults", "Fault Formation", "Random fault lines, each raising one side; smooth with the low-pass filter",
    fault_formation,
    (
        Param("faults", "int", 200, hard=(0, MAX_FAULTS), soft=(0, 5000), label="Faults",
              description="Number of fault lines"),
        Param("displacement_max", "float", 1.0, hard=(OPEN_LOW, 1.0e6), soft=(0.01, 10.0), label="First Displacement",
              description="Displacement of the first fault (heights are normalised afterwards, so only the ratio "
                          "to Last Displacement matters)"),
        Param("displacement_min", "float", 0.05, hard=(0.0, 1.0e6), soft=(0.0, 1.0), label="Last Displacement",
              description="Displacement of the last fault (the displacement falls linearly from the first)"),
    ),
    source="Polack 2002; fractal-terrain tutorials",
    ordered=(("displacement_min", "displacement_max"),),
))

register_generator(Generator(
    "diamond_square", "Diamond-Square", "Midpoint displacement: fractal mountains with a roughness",
    diamond_square,
    (
        Param("roughness", "float", 1.0, hard=(0.01, 8.0), soft=(0.05, 3.0), label="Roughness",
              description="Offsets shrink by 2^-roughness per level: above 1 smooth, below 1 rough and chaotic"),
    ),
    source="Fournier, Fussell & Carpenter 1982; Miller 1986",
))

register_generator(Generator(
    "noise", "Noise, Hills and Pits", "White noise with hills and pits; smooth with the box blur",
    noise_hills_pits,
    (
        Param("noise", "float", 0.1, hard=(0.0, 1.0e6), soft=(0.0, 2.0), label="Noise",
              description="Amplitude of the white-noise base, relative to hill heights"),
        Param("hills", "int", 300, hard=(0, MAX_HILLS), soft=(0, 5000), label="Hills",
              description="Number of hills raised on the noise"),
        _pair("hill_radius", "Hill Radius", (4.0, 16.0), "cells", "Smallest and largest hill radius, in cells",
              (OPEN_LOW, RADIUS_MAX), (0.5, 256.0)),
        _pair("hill_height", "Hill Height", (0.2, 0.6), "", "Lowest and highest hill peak, relative to the noise",
              (0.0, 1.0e6), (0.0, 5.0)),
        Param("pits", "int", 100, hard=(0, MAX_HILLS), soft=(0, 5000), label="Pits",
              description="Number of pits dug into the noise"),
        _pair("pit_radius", "Pit Radius", (3.0, 8.0), "cells", "Smallest and largest pit radius, in cells",
              (OPEN_LOW, RADIUS_MAX), (0.5, 256.0)),
        _pair("pit_height", "Pit Depth", (0.2, 0.5), "", "Shallowest and deepest pit, relative to the noise",
              (0.0, 1.0e6), (0.0, 5.0)),
    ),
    source="the elevation-map tutorial's hills and pits",
))


def _passes(params: Mapping[str, Any]) -> int:
    return int(params.get("passes", 1))


register_filter(Filter(
    "flatten", "Flatten", "Raise heights to an exponent: above 1 broad lowlands and sharp peaks",
    flatten,
    (Param("exponent", "float", 1.5, hard=(OPEN_LOW, 64.0), soft=(0.1, 8.0), label="Exponent",
           description="Exponent applied to the normalised heights: 1 = none, above 1 = broad lowlands and "
                       "sharp peaks, below 1 = plateaus"),),
    source="Lighthouse 3D's hill tutorial",
))

register_filter(Filter(
    "box_blur", "Box Blur", "3 x 3 mean, edges included, N passes",
    filters.box_blur,
    (Param("passes", "int", 3, hard=(0, filters.MAX_PASSES), soft=(1, 50), label="Passes",
           description="Box blur passes"),),
    source="the elevation-map tutorial",
    margin=_passes,
    passes=_passes,
))

register_filter(Filter(
    "lowpass", "Low-pass (FIR erosion filter)",
    "One-pole low-pass filter y = k*y[-1] + (1 - k)*x run in all four directions (the fault-formation smoothing)",
    filters.erosion_filter,
    (
        Param("k", "float", 0.5, hard=(0.0, 0.999), soft=(0.0, 0.99), unit="factor", label="Filter",
              description="Filter coefficient k: 0 keeps the map, near 1 smooths strongly"),
        Param("passes", "int", 1, hard=(0, filters.MAX_PASSES), soft=(1, 20), label="Passes",
              description="Low-pass filter passes"),
    ),
    source="Polack 2002 (the 'FIR erosion filter')",
    margin=lambda p: filters.erosion_margin(p.get("k", 0.5), p.get("passes", 1)),
    passes=_passes,
))

register_filter(Filter(
    "terrace", "Terrace", "Quantise heights into smooth steps",
    filters.terrace,
    (
        Param("levels", "int", 8, hard=(1, 4096), soft=(1, 64), label="Levels", description="Number of terraces"),
        Param("smoothness", "float", 0.5, hard=(0.01, 1.0), unit="factor", label="Smoothness",
              description="Share of each step that rises to the next: 1 rounded, near 0 cliffs"),
    ),
))

register_filter(Filter(
    "sea_level", "Sea Level", "Flatten everything below a level",
    filters.sea_level,
    (Param("level", "float", 0.2, hard=(0.0, 1.0), unit="normalised", label="Level",
           description="Sea level as a share of the height range"),),
))
