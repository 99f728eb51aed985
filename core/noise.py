"""White noise with hills and pits.

After the elevation-map tutorial that starts from a random value per point,
raises many small hills and digs pits (the same paraboloid with a negative
height) and smooths the result with a box blur. Here each hill and pit only
touches the cells its base covers (the tutorial adds every paraboloid to the
whole map), the noise and the placements are hashes of the seed and world
coordinates (so windows of a world match the whole), and the blur passes are
a filter of their own (:func:`.filters.box_blur`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .heightmap import check_count, check_number
from .hills import MAX_HILLS, MAX_RADIUS, HillSet, raw_hills
from .rng import check_seed, uniform
from .window import Window, check_window

__all__ = ["white_noise", "value_noise", "noise_hills_pits"]


def white_noise(
    world_shape: tuple[int, int], seed: int, amplitude: float = 1.0, window: Window | None = None
) -> npt.NDArray[np.float64]:
    """Uniform white noise in ``[0, amplitude)``, one value per world cell, ``float64 window.shape``."""
    win = check_window(world_shape, window)
    amp = check_number(amplitude, "amplitude", 0.0, 1e6)
    return uniform(seed, "noise/base", win.row_coords()[:, None], win.col_coords()[None, :]) * amp


def value_noise(
    world_shape: tuple[int, int], seed: int, amplitude: float, grain: float, window: Window | None = None
) -> npt.NDArray[np.float64]:
    """The white-noise base on a lattice ``grain`` cells apart, bilinearly interpolated, ``float64 window.shape``.

    Lattice point ``(i, j)`` (at cell ``(i * grain, j * grain)``) holds
    :func:`white_noise`'s value of cell ``(i, j)``, so with ``grain = 1`` this
    is :func:`white_noise` bit for bit. Lattice coordinates are ``cell /
    grain``: a grain given in metres (``grain = metres / cell_size``) puts the
    same numbers at the same world positions at any resolution. When the grain
    is finer than a cell (``grain < 1``) the cells sample the lattice sparsely;
    their amplitude is scaled by ``grain``, the standard deviation that
    averaging the fine noise over a cell would leave (the "clamping" of
    frequencies above the grid's, Ebert et al., *Texturing and Modeling*, ch. 2),
    so a coarse preview keeps the look of the fine terrain downsampled.

    Parameters
    ----------
    world_shape : (int, int)
        The world's ``(rows, cols)``.
    seed : int
        In ``[0, 2**64 - 1]``.
    amplitude : float
        In ``[0, 1e6]``: values are in ``[0, amplitude)`` (times ``grain`` when ``grain < 1``).
    grain : float
        Lattice spacing in cells, in ``[1e-6, 1e6]``.
    window : Window, optional
        Part of the world (default: the whole).

    Raises
    ------
    TypeError, ValueError
        For bad parameters, naming the parameter and its range.
    """
    win = check_window(world_shape, window)
    amp = check_number(amplitude, "amplitude", 0.0, 1e6)
    g = check_number(grain, "grain", 1e-6, 1e6)
    ratio = 1.0 / g if g != 1.0 else 1.0

    def split(coords: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        t = coords * ratio
        i = np.floor(t)
        return i.astype(np.int64), t - i

    ri, fy = split(win.row_coords())
    ci, fx = split(win.col_coords())
    if g >= 1.0:  # the lattice is no denser than the cells: hash it once, then gather
        rows_needed = np.arange(int(ri[0]), int(ri[-1]) + 2, dtype=np.int64)
        cols_needed = np.arange(int(ci[0]), int(ci[-1]) + 2, dtype=np.int64)
        lattice = uniform(seed, "noise/base", rows_needed[:, None], cols_needed[None, :]) * amp
        a, b = (ri - ri[0])[:, None], (ci - ci[0])[None, :]
        v00, v01, v10, v11 = lattice[a, b], lattice[a, b + 1], lattice[a + 1, b], lattice[a + 1, b + 1]
    else:  # a sparse sample of a fine lattice: hash the four corners of each cell only
        v00, v01, v10, v11 = (
            uniform(seed, "noise/base", (ri + dr)[:, None], (ci + dc)[None, :]) * amp
            for dr, dc in ((0, 0), (0, 1), (1, 0), (1, 1))
        )
    top = v00 + fx[None, :] * (v01 - v00)
    bottom = v10 + fx[None, :] * (v11 - v10)
    out: npt.NDArray[np.float64] = top + fy[:, None] * (bottom - top)
    if g < 1.0:
        out *= g
    return out


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
    lo = check_number(value[0], f"{name}[0]", low, high, low_open=low_open)
    hi = check_number(value[1], f"{name}[1]", low, high, low_open=low_open)
    if lo > hi:
        raise ValueError(f"{name} must have min <= max, got {tuple(value)}")
    return lo, hi


def noise_hills_pits(
    world_shape: tuple[int, int],
    seed: int = 0,
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
        Spacing of the base noise's lattice in cells (:func:`value_noise`);
        ``None``: one value per cell (:func:`white_noise`, Orogen 0.2).

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
    n_hills = check_count(hills, "hills", 0, MAX_HILLS)
    n_pits = check_count(pits, "pits", 0, MAX_HILLS)
    h_rad = _range(hill_radius, "hill_radius", 0.0, MAX_RADIUS, low_open=True)
    p_rad = _range(pit_radius, "pit_radius", 0.0, MAX_RADIUS, low_open=True)
    h_ht = _range(hill_height, "hill_height", 0.0, 1e6)
    p_ht = _range(pit_height, "pit_height", 0.0, 1e6)
    out = (
        white_noise(world_shape, seed, noise, win)
        if grain is None
        else value_noise(world_shape, seed, noise, grain, win)
    )
    hill_set, hill_peaks = _bumps(world_shape, seed, "noise/hills", n_hills, h_rad, h_ht)
    out += raw_hills(world_shape, hill_set, win, heights=hill_peaks)
    pit_set, pit_depths = _bumps(world_shape, seed, "noise/pits", n_pits, p_rad, p_ht)
    out += raw_hills(world_shape, pit_set, win, heights=-pit_depths)
    return out
