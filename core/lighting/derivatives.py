"""Slope, curvature and normal map: the data maps of Horn's gradient.

All are ``float32`` of the heightmap's shape (the normal map ``(rows, cols,
3)``), heights and cell size in metres, computed block by block from one
:class:`.gradient.HornGradient` pass (a plane's slope and normal are exact on
every cell, its curvature 0).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..elementary import atan
from .gradient import F32, fill_extension, per_block, prepare_heights, rows_per_block

__all__ = [
    "slope_block",
    "curvature_block",
    "normal_block",
    "normal_map",
    "slope_degrees",
    "curvature",
]


def slope_block(g2: F32, out: F32) -> None:
    """Slope in degrees, ``atan(sqrt(g2))``, into ``out``.

    In float64 by :func:`core.elementary.atan` (numpy's ``arctan`` differs
    between processors), rounded once to float32: the same bits everywhere.
    """
    np.copyto(out, atan(np.sqrt(g2, dtype=np.float64)) * (180.0 / math.pi), casting="same_kind")


def curvature_block(ext: F32, scale: float, out: F32, *, tmp: F32) -> None:
    """``-scale * laplacian`` of the heights in ``ext`` (the block with its border) into ``out``."""
    centre = ext[1:-1, 1:-1]
    np.subtract(ext[1:-1, :-2], centre, out=out)
    for other in (ext[1:-1, 2:], ext[:-2, 1:-1], ext[2:, 1:-1]):
        np.subtract(other, centre, out=tmp)
        out += tmp
    out *= np.float32(-scale)


def normal_block(dx: F32, dy: F32, g2: F32, *, out: F32, tmp: F32, tmp2: F32) -> None:
    """OpenGL tangent-space normal ``(-dx, -dy, 1) / |.|`` mapped to ``[0, 1]`` into ``out`` (b, cols, 3)."""
    np.add(g2, np.float32(1.0), out=tmp)
    np.sqrt(tmp, out=tmp)
    np.divide(np.float32(-0.5), tmp, out=tmp)  # minus half the inverse length
    np.multiply(dx, tmp, out=tmp2)
    tmp2 += np.float32(0.5)
    out[..., 0] = tmp2
    np.multiply(dy, tmp, out=tmp2)
    tmp2 += np.float32(0.5)
    out[..., 1] = tmp2
    np.subtract(np.float32(0.5), tmp, out=tmp2)
    out[..., 2] = tmp2


def normal_map(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> F32:
    """Tangent-space normal map, OpenGL convention: ``float32 (rows, cols, 3)`` in ``[0, 1]``.

    The unit normal ``(-dz/dx, -dz/dy, 1) / |.|`` with X east (red) and Y
    north (green, "Y+" as OpenGL, Blender and Unity expect; flip green for
    DirectX/Unreal), mapped from ``[-1, 1]`` to ``[0, 1]``: flat ground is
    ``(0.5, 0.5, 1)``. Horn's gradient, edges as the module docstring says.
    """
    return per_block(
        heightmap,
        cell_size,
        z_factor,
        shape_tail=(3,),
        kernel=lambda ext, dx, dy, g2, out, tmp, tmp2: normal_block(dx, dy, g2, out=out, tmp=tmp, tmp2=tmp2),
    )


def slope_degrees(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> F32:
    """Slope angle in degrees, ``[0, 90)``: ``atan(|grad|)`` with Horn's gradient (as ``gdaldem slope
    -compute_edges``, edges as the module docstring says). ``float32 (rows, cols)``."""
    return per_block(
        heightmap,
        cell_size,
        z_factor,
        shape_tail=(),
        kernel=lambda ext, dx, dy, g2, out, tmp, tmp2: slope_block(g2, out),
    )


def curvature(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> F32:
    """Curvature in 1/metres: minus the Laplacian of the heights, positive on ridges and peaks.

    ``-(d2z/dx2 + d2z/dy2)`` by central differences (Zevenbergen and Thorne,
    "Quantitative analysis of land surface topography", 1987, whose total
    curvature this is up to sign). Border cells extrapolate their missing
    neighbours linearly, as the gradient does: a plane's curvature is 0
    everywhere, and on an edge only the second difference along the edge
    remains. ``float32 (rows, cols)``.
    """
    h, cell, z = prepare_heights(heightmap, cell_size, z_factor)
    scale = z / (cell * cell)
    rows, cols = h.shape
    block = rows_per_block(cols)
    ext_buf = np.empty((min(block, rows) + 2, cols + 2), np.float32)
    tmp_buf = np.empty((min(block, rows), cols), np.float32)
    out = np.empty(h.shape, np.float32)
    for r0 in range(0, rows, block):
        r1 = min(rows, r0 + block)
        ext = ext_buf[: r1 - r0 + 2]
        fill_extension(ext, h, r0, r1=r1)
        curvature_block(ext, scale, out[r0:r1], tmp=tmp_buf[: r1 - r0])
    return out
