"""White noise: one hashed uniform value per world cell, and the same values on a coarser lattice.

Values are :func:`core.rng.uniform` of the seed and the world coordinates of
a cell (stream ``"noise/base"``), so a window of a world holds the whole
world's values. Both return ``float64`` arrays of the window's shape in
``[0, amplitude)``; :func:`lattice_white_noise` with ``grain = 1`` is
:func:`white_noise` bit for bit.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..heightmap import check_number
from ..rng import uniform
from ..window import Window, check_window

__all__ = ["white_noise", "lattice_white_noise"]


def white_noise(
    world_shape: tuple[int, int], seed: int, *, amplitude: float = 1.0, window: Window | None = None
) -> npt.NDArray[np.float64]:
    """Uniform white noise in ``[0, amplitude)``, one value per world cell, ``float64 window.shape``."""
    win = check_window(world_shape, window)
    amp = check_number(amplitude, "amplitude", low=0.0, high=1e6)
    return uniform(seed, "noise/base", win.row_coords()[:, None], win.col_coords()[None, :]) * amp


def lattice_white_noise(
    world_shape: tuple[int, int], seed: int, *, amplitude: float, grain: float, window: Window | None = None
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
    amp = check_number(amplitude, "amplitude", low=0.0, high=1e6)
    g = check_number(grain, "grain", low=1e-6, high=1e6)
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
