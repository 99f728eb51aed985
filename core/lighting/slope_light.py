"""Slope-based lightmaps.

The slope lighting of the classic terrain tutorials (Nystrom, "Terrain
Generation Tutorial: Slope Lighting"; used with the circle-hill generator):
each cell is compared with the cell one step toward the light. If that cell is
higher, the cell lies on a slope facing away from the light and is darkened in
proportion to the height difference divided by a *softness*; otherwise it is
fully lit. The result is clamped between a minimum and maximum brightness.

Orogen generalises the tutorial's eight directions to any azimuth by sampling
the neighbour toward the light bilinearly, and makes the measure independent
of resolution by dividing the height difference by the step length (a slope,
rise over run, when heights and ``cell_size`` are both in metres).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..elementary import sincos
from ..heightmap import as_heightmap, check_number

F32 = npt.NDArray[np.float32]

__all__ = ["light_direction", "slope_lightmap"]


def light_direction(azimuth: float) -> tuple[float, float]:
    """Unit step toward the light in array coordinates ``(d_row, d_col)``.

    ``azimuth`` is a compass bearing in degrees, clockwise from north
    (0 = north = row 0 side, 90 = east = last column side), as in GIS
    hillshading. Components within 1e-12 of zero are snapped to exactly zero,
    so 0, 90, 180 and 270 degrees give exact axis steps.
    """
    a = math.radians(check_number(azimuth, "azimuth") % 360.0)
    sin_a, cos_a = sincos(a)
    return _snap(-cos_a), _snap(sin_a)


def _snap(v: float) -> float:
    """Zero for rounding residue (``cos(90 degrees)`` is 6e-17, not 0)."""
    return 0.0 if abs(v) < 1e-12 else v


class SlopeLight:
    """The slope lightmap block by block, in float32 (what :func:`slope_lightmap` and :func:`.bake.bake_maps` run).

    The neighbour one cell toward the light is sampled bilinearly from the
    heights with repeated border cells (as ``slope_lightmap``); the rise is
    summed as weighted differences from the cell (exact-ish in float32).
    """

    def __init__(
        self, h: F32, run: float, azimuth: float, softness: float, lo: float, hi: float, ext_shape: tuple[int, ...]
    ) -> None:
        self.h, self.lo, self.hi = h, lo, hi
        d_row, d_col = light_direction(azimuth)
        r0, c0 = math.floor(d_row), math.floor(d_col)
        tr, tc = d_row - r0, d_col - c0
        taps = [
            (r0, c0, (1.0 - tr) * (1.0 - tc)),
            (r0, c0 + 1, (1.0 - tr) * tc),
            (r0 + 1, c0, tr * (1.0 - tc)),
            (r0 + 1, c0 + 1, tr * tc),
        ]
        self.taps = [(dr, dc, np.float32(w)) for dr, dc, w in taps if w != 0.0]
        self.scale = np.float32(-1.0 / (run * softness))  # brightness = 1 - rise / (cell * softness)
        self.rep = np.empty(ext_shape, np.float32)

    def block(self, r0: int, r1: int, out: F32, tmp: F32) -> None:
        h = self.h
        rows, cols = h.shape
        b = r1 - r0
        rep = self.rep[: b + 2]
        rep[1:-1, 1:-1] = h[r0:r1]
        rep[0, 1:-1] = h[max(r0 - 1, 0)]
        rep[-1, 1:-1] = h[min(r1, rows - 1)]
        rep[:, 0] = rep[:, 1]
        rep[:, -1] = rep[:, -2]
        centre = rep[1:-1, 1:-1]
        out.fill(0.0)
        for dr, dc, w in self.taps:
            np.subtract(rep[1 + dr : 1 + dr + b, 1 + dc : 1 + dc + cols], centre, out=tmp)
            if w != 1.0:
                tmp *= w
            out += tmp
        out *= self.scale
        out += np.float32(1.0)
        np.clip(out, np.float32(self.lo), np.float32(self.hi), out=out)


def slope_lightmap(
    heightmap: npt.ArrayLike,
    *,
    azimuth: float = 315.0,
    softness: float = 1.0,
    min_brightness: float = 0.2,
    max_brightness: float = 1.0,
    cell_size: float = 1.0,
) -> npt.NDArray[np.float32]:
    """Shade each cell by the slope toward the light.

    ``brightness = clip(1 - rise / softness, min_brightness, max_brightness)``
    where ``rise = (h(toward light) - h) / cell_size`` and ``h(toward light)``
    is the height one cell length toward the light, sampled bilinearly.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Finite heights, in the same unit as ``cell_size`` (metres) for a
        physical slope, or normalised heights with ``cell_size`` in that unit.
    azimuth : float
        Direction of the light in degrees, clockwise from north (any finite
        value; taken modulo 360).
    softness : float
        Slope (rise over run) that darkens a cell from 1 to 0, in
        ``[1e-9, 1e9]``. Larger is softer, lower contrast.
    min_brightness, max_brightness : float
        Clamp range, ``0 <= min_brightness <= max_brightness <= 1``.
    cell_size : float
        Distance between neighbouring cells, in ``[1e-9, 1e9]``.

    Returns
    -------
    ndarray of float32, shape (rows, cols)
        Brightness in ``[min_brightness, max_brightness]`` (within ``[0, 1]``).
        Flat ground and slopes facing the light get ``max_brightness``. At the
        map's border the neighbour outside the map is taken to equal the
        border cell (edge replication).

    Raises
    ------
    TypeError, ValueError
        For a non-numeric or non-finite map, or parameters out of range.
    """
    h: npt.NDArray[np.float32] = as_heightmap(heightmap)
    soft = check_number(softness, "softness", low=1e-9, high=1e9)
    lo = check_number(min_brightness, "min_brightness", low=0.0, high=1.0)
    hi = check_number(max_brightness, "max_brightness", low=0.0, high=1.0)
    if lo > hi:
        raise ValueError(f"min_brightness ({lo}) must be <= max_brightness ({hi})")
    cell = check_number(cell_size, "cell_size", low=1e-9, high=1e9)
    rows, cols = h.shape
    out = np.empty((rows, cols), np.float32)
    block = max(1, (1 << 16) // cols)  # rows per block: a few hundred kB of working arrays
    light = SlopeLight(h, cell, check_number(azimuth, "azimuth"), soft, lo, hi, (block + 2, cols + 2))
    tmp = np.empty((block, cols), np.float32)
    with np.errstate(over="ignore"):  # extreme slopes saturate; the clip bounds them
        for r0 in range(0, rows, block):
            r1 = min(r0 + block, rows)
            light.block(r0, r1, out[r0:r1], tmp[: r1 - r0])
    return out
