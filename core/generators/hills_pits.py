"""Noise hills and pits: a white-noise base with many small hills raised and pits dug.

After the elevation-map tutorial that starts from a random value per point,
raises many small hills and digs pits (the same paraboloid with a negative
height) and smooths the result with a box blur. Here each hill and pit only
touches the cells its base covers (the tutorial adds every paraboloid to the
whole map), the noise and the placements are hashes of the seed and world
coordinates (so windows of a world match the whole), and the blur passes are
a filter of their own (:func:`core.filters.box_blur`). The base noise is
:mod:`core.noise.white`'s, one hashed value per cell or on a coarser lattice.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..heightmap import check_count, check_number
from ..noise.white import lattice_white_noise, white_noise
from ..rng import check_seed, uniform
from ..window import Window, check_window
from .hills import MAX_HILLS, MAX_RADIUS, HillSet, raw_hills

__all__ = ["noise_hills_pits"]


def _bumps(
    world_shape: tuple[int, int],
    seed: int,
    stream: str,
    count: int,
    radius: tuple[float, float],
    height: tuple[float, float],
) -> tuple[HillSet, npt.NDArray[np.float64]]:
    """Centres, radii and peak heights of ``count`` bumps placed uniformly over the world."""
    rows, cols = world_shape
    i = np.arange(count, dtype=np.int64)
    hills = HillSet(
        rows=uniform(seed, f"{stream}/row", i) * (rows - 1),
        cols=uniform(seed, f"{stream}/col", i) * (cols - 1),
        radii=radius[0] + uniform(seed, f"{stream}/radius", i) * (radius[1] - radius[0]),
    )
    heights = height[0] + uniform(seed, f"{stream}/height", i) * (height[1] - height[0])
    return hills, heights


def _range(value: object, name: str, low: float, high: float, low_open: bool = False) -> tuple[float, float]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{name} must be a (min, max) pair, got {value!r}")
    lo = check_number(value[0], f"{name}[0]", low=low, high=high, low_open=low_open)
    hi = check_number(value[1], f"{name}[1]", low=low, high=high, low_open=low_open)
    if lo > hi:
        raise ValueError(f"{name} must have min <= max, got {tuple(value)}")
    return lo, hi


def noise_hills_pits(
    world_shape: tuple[int, int],
    seed: int = 0,
    *,
    noise: float = 0.1,
    hills: int = 300,
    hill_radius: tuple[float, float] = (4.0, 16.0),
    hill_height: tuple[float, float] = (0.2, 0.6),
    pits: int = 100,
    pit_radius: tuple[float, float] = (3.0, 8.0),
    pit_height: tuple[float, float] = (0.2, 0.5),
    window: Window | None = None,
    grain: float | None = None,
) -> npt.NDArray[np.float64]:
    """White-noise base plus hills (raised) and pits (dug), unnormalised.

    Each hill and pit is a paraboloid ``peak * (1 - d**2 / r**2)`` inside its
    base (radius ``r`` in cells); pits subtract their peak. Smooth the result
    with :func:`.filters.box_blur`.

    Parameters
    ----------
    world_shape : (int, int)
        The world's ``(rows, cols)``.
    seed : int
        In ``[0, 2**64 - 1]``.
    noise : float
        Amplitude of the uniform base noise, ``[0, 1e6]``.
    hills, pits : int
        Counts, ``0 .. MAX_HILLS``.
    hill_radius, pit_radius : (float, float)
        Radius ranges in cells, ``0 < min <= max``.
    hill_height, pit_height : (float, float)
        Peak height ranges (depth for pits), ``0 <= min <= max <= 1e6``.
    window : Window, optional
        Part of the world to compute (default: the whole).
    grain : float, optional
        Spacing of the base noise's lattice in cells (:func:`core.generators.hills_pits.white.lattice_white_noise`);
        ``None``: one value per cell (:func:`core.generators.hills_pits.white.white_noise`, Orogen 0.2).

    Returns
    -------
    ndarray of float64, shape ``window.shape``

    Raises
    ------
    TypeError, ValueError
        For bad parameters, naming the parameter and its range.
    """
    win = check_window(world_shape, window)
    seed = check_seed(seed)
    n_hills = check_count(hills, "hills", low=0, high=MAX_HILLS)
    n_pits = check_count(pits, "pits", low=0, high=MAX_HILLS)
    h_rad = _range(hill_radius, "hill_radius", 0.0, MAX_RADIUS, low_open=True)
    p_rad = _range(pit_radius, "pit_radius", 0.0, MAX_RADIUS, low_open=True)
    h_ht = _range(hill_height, "hill_height", 0.0, 1e6)
    p_ht = _range(pit_height, "pit_height", 0.0, 1e6)
    out = (
        white_noise(world_shape, seed, amplitude=noise, window=win)
        if grain is None
        else lattice_white_noise(world_shape, seed, amplitude=noise, grain=grain, window=win)
    )
    hill_set, hill_peaks = _bumps(world_shape, seed, "noise/hills", n_hills, h_rad, h_ht)
    out += raw_hills(world_shape, hill_set, window=win, heights=hill_peaks)
    pit_set, pit_depths = _bumps(world_shape, seed, "noise/pits", n_pits, p_rad, p_ht)
    out += raw_hills(world_shape, pit_set, window=win, heights=-pit_depths)
    return out
