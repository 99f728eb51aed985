"""Resampling a grid mesh's data onto a grid of another size: what a terrain's size change does to the user's
vertex groups, shape keys, UV maps and attributes (the add-on reads them out of Blender and writes them back).

A grid of ``(rows, cols)`` vertices has its points row-major (row 0 north), ``rows - 1`` by ``cols - 1`` quad
faces with four corners each, and its edges east-west first, then north-south. Two grids of any sizes span the
same extent: corner on corner. Values keep their dtype; integer data is taken from the nearest (``smooth``
False), floating data interpolated.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["resample", "resample_points"]

Array = npt.NDArray[Any]
F64 = npt.NDArray[np.float64]
Index = npt.NDArray[np.intp]


def _axis(old: int, new: int, offset: float = 0.0) -> F64:
    """Old-grid coordinates of the new grid's points ``0 .. new-1`` (+ ``offset``) along one axis."""
    scale = (old - 1) / (new - 1) if new > 1 else 0.0
    return (np.arange(new, dtype=np.float64) + offset) * scale


def _cell(coord: F64, cells: int) -> tuple[Index, F64]:
    """The cell ``0 .. cells-1`` holding each coordinate and the fraction across it (may leave [0, 1] at edges)."""
    index = np.clip(np.floor(coord).astype(np.intp), 0, max(cells - 1, 0))
    return index, coord - index


def resample_points(values: Array, old: tuple[int, int], new: tuple[int, int], *, smooth: bool) -> Array:
    """Point values ``(old_rows * old_cols, k)`` of an ``old`` grid on the ``new`` grid (row-major, row 0 north):
    bilinear (``smooth``, same dtype) or nearest. The grids span the same extent (corners on corners)."""
    grid = values.reshape(old[0], old[1], -1)
    y, x = _axis(old[0], new[0]), _axis(old[1], new[1])
    if not smooth:
        rows = np.clip(np.rint(y).astype(np.intp), 0, old[0] - 1)
        cols = np.clip(np.rint(x).astype(np.intp), 0, old[1] - 1)
        nearest: Array = grid[rows[:, None], cols[None, :]].reshape(new[0] * new[1], -1)
        return nearest
    i, fy = _cell(y, old[0] - 1)
    j, fx = _cell(x, old[1] - 1)
    i1, j1 = np.minimum(i + 1, old[0] - 1), np.minimum(j + 1, old[1] - 1)
    fy, fx = fy[:, None, None], fx[None, :, None]
    top = grid[i[:, None], j[None, :]] * (1 - fx) + grid[i[:, None], j1[None, :]] * fx
    bottom = grid[i1[:, None], j[None, :]] * (1 - fx) + grid[i1[:, None], j1[None, :]] * fx
    result: Array = (top * (1 - fy) + bottom * fy).astype(values.dtype).reshape(new[0] * new[1], -1)
    return result


def _corners(values: Array, old: tuple[int, int], new: tuple[int, int], smooth: bool) -> Array:
    """Face-corner values ``(faces*4, k)`` on the new grid, from the old face under each new face's centre."""
    faces = values.reshape(old[0] - 1, old[1] - 1, 4, -1)  # corners: top-left, bottom-left, bottom-right, top-right
    i, _ = _cell(_axis(old[0], new[0], 0.0)[:-1] + 0.5 * (old[0] - 1) / max(new[0] - 1, 1), old[0] - 1)
    j, _ = _cell(_axis(old[1], new[1], 0.0)[:-1] + 0.5 * (old[1] - 1) / max(new[1] - 1, 1), old[1] - 1)
    picked = faces[i[:, None], j[None, :]]  # (new rows - 1, new cols - 1, 4, k)
    out = np.empty_like(picked)
    y, x = _axis(old[0], new[0]), _axis(old[1], new[1])
    for k, (dr, dc) in enumerate(((0, 0), (1, 0), (1, 1), (0, 1))):
        fy = (y[dr : len(y) - 1 + dr] - i)[:, None, None]
        fx = (x[dc : len(x) - 1 + dc] - j)[None, :, None]
        if not smooth:
            fy, fx = np.clip(np.rint(fy), 0, 1), np.clip(np.rint(fx), 0, 1)
        tl, bl, br, tr = (picked[:, :, c] for c in range(4))
        out[:, :, k] = ((tl * (1 - fx) + tr * fx) * (1 - fy) + (bl * (1 - fx) + br * fx) * fy).astype(values.dtype)
    result: Array = out.reshape(-1, values.shape[1])
    return result


def _faces(values: Array, old: tuple[int, int], new: tuple[int, int]) -> Array:
    """Face values: the old face under each new face's centre."""
    grid = values.reshape(old[0] - 1, old[1] - 1, -1)
    i, _ = _cell(_axis(old[0], new[0])[:-1] + 0.5 * (old[0] - 1) / max(new[0] - 1, 1), old[0] - 1)
    j, _ = _cell(_axis(old[1], new[1])[:-1] + 0.5 * (old[1] - 1) / max(new[1] - 1, 1), old[1] - 1)
    result: Array = grid[i[:, None], j[None, :]].reshape(-1, values.shape[1])
    return result


def _edges(values: Array, old: tuple[int, int], new: tuple[int, int]) -> Array:
    """Edge values (east-west edges first, then north-south, as the add-on's grid mesh): the nearest old edge
    of the same direction."""
    across = old[0] * (old[1] - 1)
    east_west = values[:across].reshape(old[0], old[1] - 1, -1)
    north_south = values[across:].reshape(old[0] - 1, old[1], -1)
    half_y, half_x = 0.5 * (old[0] - 1) / max(new[0] - 1, 1), 0.5 * (old[1] - 1) / max(new[1] - 1, 1)
    rows = np.clip(np.rint(_axis(old[0], new[0])).astype(np.intp), 0, old[0] - 1)
    cols = np.clip(np.rint(_axis(old[1], new[1])).astype(np.intp), 0, old[1] - 1)
    cells_x, _ = _cell(_axis(old[1], new[1])[:-1] + half_x, old[1] - 1)
    cells_y, _ = _cell(_axis(old[0], new[0])[:-1] + half_y, old[0] - 1)
    first = east_west[rows[:, None], cells_x[None, :]].reshape(-1, values.shape[1])
    second = north_south[cells_y[:, None], cols[None, :]].reshape(-1, values.shape[1])
    return np.concatenate([first, second])


def resample(values: Array, domain: str, *, smooth: bool, old: tuple[int, int], new: tuple[int, int]) -> Array:
    """``values`` ``(count, k)`` of an ``old`` grid mesh's ``domain`` on the ``new`` grid (``(rows, cols)`` each).

    ``domain`` is ``"POINT"`` (:func:`resample_points`), ``"CORNER"`` (the old face under each new face's
    centre, its four corners interpolated, or nearest without ``smooth``), ``"FACE"`` (the old face under each
    new face's centre) or ``"EDGE"`` (the nearest old edge of the same direction; east-west edges first, then
    north-south, as the add-on's grid mesh orders them).
    """
    if domain == "POINT":
        return resample_points(values, old, new, smooth=smooth)
    if domain == "CORNER":
        return _corners(values, old, new, smooth)
    if domain == "FACE":
        return _faces(values, old, new)
    return _edges(values, old, new)
