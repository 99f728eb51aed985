"""Cast shadows along rays anchored at each cell: the same values in any window of a world (seamless tiles).

:func:`core.shading.cast_shadows` sweeps the whole map from its sunward side; its digital rays are translates
of one line anchored at the map's edge, so two overlapping windows of a world trace slightly different rays
through the same cell when the sun is not on an axis or a diagonal. Here every cell's ray is the same
pattern of offsets *from that cell*: step ``k`` toward the sun is ``k`` cells along the axis the sun's
direction crosses faster and ``round(k * drift)`` cells across it (``drift`` in ``[0, 1]``), at
``k * cell_size / cos`` metres. So a cell's shadow depends only on the heights within ``reach`` cells of it
toward the sun: a window grown by ``reach`` cells and cropped equals the whole world.

A cell sees the sun from altitude ``a`` when ``(h(p) - h(x)) / d(p) <= tan(a)`` for every sample ``p`` of its
ray (``d`` the distance in metres); the result is the share of ``samples`` altitudes across the sun's disc
(``softness`` degrees wide, centres of equal bands) it sees, as :func:`core.shading.cast_shadows`. Cells
beyond the map do not occlude. Reading only ``reach`` cells is exact when nothing farther can rise above the
ray: for heights within a range of ``H`` metres, ``reach >= H / (tan(lowest altitude) * cell_size)``.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .heightmap import as_heightmap, check_count, check_number
from .shading import check_light_work

__all__ = ["ray_offsets", "ray_shadows", "shadow_reach"]

F32 = npt.NDArray[np.float32]


def ray_offsets(azimuth: float, reach: int) -> list[tuple[int, int, float]]:
    """``(d_row, d_col, run)`` of the ray's steps ``k = 1 .. reach`` toward the sun (``run`` in cells).

    ``azimuth`` in degrees clockwise from north (row 0 side); the major axis advances ``k`` cells, the
    other ``round(k * drift)`` (numpy's ``rint``), and ``run = k / max(|sin|, |cos|)`` cells.
    """
    az = math.radians(check_number(azimuth, "azimuth") % 360.0)
    d_row, d_col = -math.cos(az), math.sin(az)
    d_row, d_col = (0.0 if abs(d_row) < 1e-12 else d_row), (0.0 if abs(d_col) < 1e-12 else d_col)
    major = max(abs(d_row), abs(d_col))
    k = np.arange(1, check_count(reach, "reach", 0, 1 << 20) + 1, dtype=np.float64)
    rows = np.rint(k * d_row / major).astype(np.int64)
    cols = np.rint(k * d_col / major).astype(np.int64)
    return [(int(r), int(c), float(kk / major)) for r, c, kk in zip(rows, cols, k, strict=True)]


def shadow_reach(relief: float, cell_size: float, altitude: float, softness: float, samples: int = 8) -> int | None:
    """Cells beyond which nothing casts a shadow: ``ceil(relief / (tan(lowest altitude) * cell_size)) + 1``.

    ``relief`` (metres, ``>= 0``) bounds how far any point rises above another; the lowest altitude is the
    lowest of the ``samples`` across the sun's disc. ``0`` for a sun whose whole disc is at or above 90
    degrees; ``None`` (unbounded) when the lowest sample is at or below the horizon.
    """
    relief = check_number(relief, "relief", 0.0, 1e9)
    cell = check_number(cell_size, "cell_size", 1e-9, 1e9)
    lowest = min(_altitudes(altitude, softness, samples))
    if lowest >= 90.0:
        return 0
    if lowest <= 0.0:
        return None
    return math.ceil(relief / (math.tan(math.radians(lowest)) * cell)) + 1


def _altitudes(altitude: float, softness: float, samples: int) -> list[float]:
    alt = check_number(altitude, "altitude", 0.0, 90.0)
    soft = check_number(softness, "softness", 0.01, 45.0)
    k = check_count(samples, "samples", 1, 64)
    return [alt - soft / 2.0 + soft * (j + 0.5) / k for j in range(k)]


def ray_shadows(
    heights_m: npt.ArrayLike,
    cell_size: float,
    azimuth: float,
    altitude: float,
    softness: float = 2.0,
    reach: int = 64,
    samples: int = 8,
) -> F32:
    """The share of the sun's disc each cell sees along its own ray, ``reach`` cells long.

    Parameters
    ----------
    heights_m : array_like, shape (rows, cols)
        Heights in metres (finite).
    cell_size : float
        Metres per cell, ``[1e-9, 1e9]``.
    azimuth, altitude : float
        The sun: degrees clockwise from north, and above the horizon ``[0, 90]``.
    softness : float
        Width of the sun's disc (the penumbra) in degrees, ``[0.01, 45]``.
    reach : int
        Cells along the ray's major axis, ``[0, 2**20]`` (see :func:`shadow_reach`).
    samples : int
        Altitudes sampled across the disc, ``[1, 64]``.

    Returns
    -------
    ndarray of float32, shape (rows, cols), in ``[0, 1]`` (multiples of ``1 / samples``): 1 lit.

    Raises
    ------
    TypeError, ValueError
        For bad parameters (naming them), or more than :data:`core.shading.MAX_LIGHT_WORK` cell samples.
    """
    h: F32 = as_heightmap(heights_m)
    cell = check_number(cell_size, "cell_size", 1e-9, 1e9)
    altitudes = _altitudes(altitude, softness, samples)
    steps = ray_offsets(azimuth, reach)
    rows, cols = h.shape
    check_light_work(rows * cols * max(len(steps), 1), f"ray_shadows: reach {reach} over {rows} x {cols} cells")
    steps = [(r, c, run) for r, c, run in steps if abs(r) < rows and abs(c) < cols]
    pad = max((max(abs(r), abs(c)) for r, c, _ in steps), default=0)
    padded = np.full((rows + 2 * pad, cols + 2 * pad), -np.inf, np.float32)
    padded[pad : pad + rows, pad : pad + cols] = h
    horizon = np.full(h.shape, -np.inf, np.float32)  # steepest tan(elevation) of the ray's samples
    tmp = np.empty(h.shape, np.float32)
    for r, c, run in steps:  # a loop over the ray's steps; each is a whole-map operation
        np.subtract(padded[pad + r : pad + r + rows, pad + c : pad + c + cols], h, out=tmp)
        tmp *= np.float32(1.0 / (run * cell))
        np.maximum(horizon, tmp, out=horizon)
    count = np.zeros(h.shape, np.float32)
    for a in altitudes:
        if a >= 90.0:
            count += np.float32(1.0)
        else:
            count += horizon <= np.float32(math.tan(math.radians(a)))
    count *= np.float32(1.0 / len(altitudes))
    return count
