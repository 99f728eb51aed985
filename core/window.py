"""Windows of a world: how every 2-D generator is evaluated.

A *world* is a grid of ``world_shape = (rows, cols)`` cells at integer
coordinates ``(row, col)``, row 0 the north edge. A *window* is a rectangle of
it. Every generator computes a cell's value from the seed and the cell's world
coordinates alone (random values come from the counter-based hash in
:mod:`.rng`), so a window is bit-identical to the same cells of any larger
window of the same world; seamless tiles and chunks stand on this.

Filters with a neighbourhood (box blur, the erosion filter) read a margin
around the window: :func:`expand` grows a window by a margin, clamped to the
world (at the world's edges the filters' own edge rules apply, exactly as for
the whole), and :func:`crop` cuts the result back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .heightmap import check_count, check_shape, check_world_shape

__all__ = ["Window", "whole", "check_window", "expand", "crop"]


@dataclass(frozen=True)
class Window:
    """A rectangle of world cells: top-left ``(row, col)`` and ``(rows, cols)`` cells."""

    row: int
    col: int
    rows: int
    cols: int

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the window."""
        return (self.rows, self.cols)

    def row_coords(self) -> npt.NDArray[np.int64]:
        """World row of each window row, ``int64 (rows,)``."""
        return np.arange(self.row, self.row + self.rows, dtype=np.int64)

    def col_coords(self) -> npt.NDArray[np.int64]:
        """World column of each window column, ``int64 (cols,)``."""
        return np.arange(self.col, self.col + self.cols, dtype=np.int64)


def whole(world_shape: tuple[int, int]) -> Window:
    """The window covering the whole world."""
    rows, cols = check_shape(world_shape, "world_shape")
    return Window(0, 0, rows, cols)


def check_window(world_shape: tuple[int, int], window: Window | None) -> Window:
    """Validate ``window`` against the world (``None`` means the whole world).

    A world's sides may reach :data:`.heightmap.MAX_WORLD_SIDE`; what is
    computed at once, the window (or the whole world when ``window`` is
    ``None``), holds at most :data:`.heightmap.MAX_CELLS` cells.

    Raises
    ------
    TypeError
        If ``window`` is not a :class:`Window`.
    ValueError
        If it is empty, reaches outside the world, or has more than
        ``MAX_CELLS`` cells.
    """
    if window is None:
        rows, cols = check_shape(world_shape, "world_shape")
        return Window(0, 0, rows, cols)
    rows, cols = check_world_shape(world_shape)
    if not isinstance(window, Window):
        raise TypeError(f"window must be a Window or None, got {type(window).__name__}")
    check_count(window.rows, "window.rows", low=1, high=rows)
    check_count(window.cols, "window.cols", low=1, high=cols)
    check_shape((window.rows, window.cols), "window")
    r = check_count(window.row, "window.row", low=0, high=rows - window.rows)
    c = check_count(window.col, "window.col", low=0, high=cols - window.cols)
    return Window(r, c, int(window.rows), int(window.cols))


def expand(world_shape: tuple[int, int], window: Window, margin: int) -> Window:
    """Grow ``window`` by ``margin`` cells on each side, clamped to the world."""
    rows, cols = world_shape
    r0, c0 = max(window.row - margin, 0), max(window.col - margin, 0)
    r1, c1 = min(window.row + window.rows + margin, rows), min(window.col + window.cols + margin, cols)
    return Window(r0, c0, r1 - r0, c1 - c0)


def crop(values: npt.NDArray[np.float32], outer: Window, inner: Window) -> npt.NDArray[np.float32]:
    """Cut the cells of ``inner`` out of ``values`` computed on ``outer`` (which contains it)."""
    r, c = inner.row - outer.row, inner.col - outer.col
    return values[r : r + inner.rows, c : c + inner.cols]
