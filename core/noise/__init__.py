"""Noise: hashed lattice noises and their fractal sums, the bases of the noise generator.

- :mod:`.lattice`: Perlin, simplex, value and cellular (Worley) noise at
  points or on grids, ``float32``, hashed from the seed and the lattice
  number (:func:`core.rng.hash_u64`), so any point is computed alone;
- :mod:`.fractal`: fBm, billow and Musgrave's multifractals over those
  bases, with domain warping, in metres on world coordinates;
- :mod:`.white`: white noise, one hashed uniform per world cell, and the
  same values on a coarser lattice (the base of noise hills-and-pits).

Invariants: outputs depend only on the seed and world coordinates (windows
match the whole world), and every input is checked before any work.
"""

from __future__ import annotations

from .fractal import (
    BASES,
    FRACTALS,
    MAX_DETAIL,
    MAX_STRETCH,
    fractal_noise,
)
from .lattice import (
    CELLULAR_FEATURES,
    cellular_feature,
    cellular_noise,
    cellular_points_kernel,
    lattice_coordinates,
    perlin_grid,
    perlin_grid_kernel,
    perlin_noise,
    perlin_points_kernel,
    simplex_noise,
    simplex_points_kernel,
    value_grid,
    value_grid_kernel,
    value_noise,
    value_points_kernel,
)
from .white import (
    lattice_white_noise,
    white_noise,
)

__all__ = [
    "BASES",
    "FRACTALS",
    "MAX_DETAIL",
    "MAX_STRETCH",
    "fractal_noise",
    "CELLULAR_FEATURES",
    "perlin_noise",
    "perlin_grid",
    "simplex_noise",
    "value_noise",
    "value_grid",
    "cellular_noise",
    "lattice_coordinates",
    "perlin_points_kernel",
    "perlin_grid_kernel",
    "value_points_kernel",
    "value_grid_kernel",
    "simplex_points_kernel",
    "cellular_feature",
    "cellular_points_kernel",
    "white_noise",
    "lattice_white_noise",
]
