"""Worlds larger than one terrain: a grid of engine tiles with shared edges, built window by window.

A *world* is a :class:`core.recipe.Recipe` whose shape may exceed what one
heightmap holds (sides up to :data:`core.heightmap.MAX_WORLD_SIDE`). It is
cut into square *tiles* of ``tile`` vertices that share their edge rows and
columns with their neighbours, as game engines' terrain tiles do (Unity
terrains, Unreal's tiled landscape import): tile ``(ty, tx)`` covers world rows
``ty * (tile - 1) ... ty * (tile - 1) + tile - 1`` and the same for columns,
so a world of ``n * (tile - 1) + 1`` vertices per side has ``n`` tiles per side.

Every cell depends only on the seed and its world coordinates, and local
filters read a bounded margin (:mod:`core.window`), so a tile is computed
alone. Normalisation needs the world's two ranges (the generator's raw range
and the range after the filters, see :mod:`core.recipe`); they are the
minimum and maximum over the tiles, so a build runs three passes over the
tiles, each bounded by one tile's memory:

1. :func:`raw_range` of each tile, combined by :func:`combine_ranges`;
2. :func:`filtered_range` of each tile with the world's raw range, combined;
3. :func:`tile_heights`, the final ``float32`` tile in ``[0, 1]``.

With exact filters (all local filters but the low-pass one) the tiles equal
the same cells of the whole world bit for bit; the low-pass filter's reach
decays geometrically, so tiles match within ``core.filters.WINDOW_TOLERANCE``.
Global filters (the erosion filters: stream power, thermal, hydraulic) read
the whole world around any tile; a world with one is built whole once (it
must hold at most :data:`core.heightmap.MAX_CELLS` cells) and then cut into
tiles (:func:`check_world`).

A world from a terrain spec keeps the spec's cell size (:func:`world_recipe`):
a larger world is more land at the same resolution, not the same land in
finer cells. Generator parameters are taken as they are; counts (hills,
faults, noise hills and pits) are per world, so a larger world with the same
count is sparser.

numpy only: the scheduling (Dask) and the file formats live in
``scripts/build_world.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .heightmap import MAX_CELLS, check_count, check_world_shape
from .recipe import Ranges, Recipe
from .spec import SPEC_VERSION, TerrainSpec
from .window import Window

__all__ = [
    "MAX_TILE",
    "TileGrid",
    "world_recipe",
    "check_world",
    "raw_range",
    "filtered_range",
    "combine_ranges",
    "tile_heights",
    "to_uint16",
]

#: Largest tile side in vertices: one tile is one heightmap (8193 x 8193 at most).
MAX_TILE = 8193


@dataclass(frozen=True)
class TileGrid:
    """Square tiles of ``tile`` vertices sharing edges, covering a world of ``shape = (rows, cols)``.

    Raises
    ------
    TypeError, ValueError
        For a bad shape, a ``tile`` outside ``[2, MAX_TILE]``, or sides that
        are not ``n * (tile - 1) + 1`` (the message names the nearest sizes
        that fit).
    """

    shape: tuple[int, int]
    tile: int

    def __post_init__(self) -> None:
        rows, cols = check_world_shape(self.shape)
        tile = check_count(self.tile, "tile", 2, MAX_TILE)
        for side, what in ((rows, "rows"), (cols, "cols")):
            if (side - 1) % (tile - 1) or side < tile:
                n = max((side - 1) // (tile - 1), 1)
                raise ValueError(
                    f"world {what} ({side}) must be n x (tile - 1) + 1 for tiles of {tile} vertices sharing edges, "
                    f"e.g. {n * (tile - 1) + 1} or {(n + 1) * (tile - 1) + 1}")
        object.__setattr__(self, "shape", (rows, cols))
        object.__setattr__(self, "tile", tile)

    @property
    def stride(self) -> int:
        """Cells between the first rows (columns) of neighbouring tiles: ``tile - 1``."""
        return self.tile - 1

    @property
    def tiles(self) -> tuple[int, int]:
        """``(tiles_y, tiles_x)``: tiles per column (north to south) and per row (west to east)."""
        return ((self.shape[0] - 1) // self.stride, (self.shape[1] - 1) // self.stride)

    def indices(self) -> list[tuple[int, int]]:
        """Every tile's ``(ty, tx)``, row by row from the north-west corner."""
        ny, nx = self.tiles
        return [(ty, tx) for ty in range(ny) for tx in range(nx)]

    def window(self, ty: int, tx: int) -> Window:
        """The world cells of tile ``(ty, tx)``: ``tile x tile``, edges shared with its neighbours."""
        ny, nx = self.tiles
        check_count(ty, "ty", 0, ny - 1)
        check_count(tx, "tx", 0, nx - 1)
        return Window(ty * self.stride, tx * self.stride, self.tile, self.tile)

    def owned(self, ty: int, tx: int) -> Window:
        """The cells tile ``(ty, tx)`` writes into a whole-world store: the owned windows partition the world.

        Its ``stride x stride`` top-left block, plus the shared edge row (column)
        on the world's south (east) border. Aligned to chunks of ``stride``
        cells, so no two tiles write the same chunk.
        """
        ny, nx = self.tiles
        win = self.window(ty, tx)
        rows = self.stride + (1 if ty == ny - 1 else 0)
        cols = self.stride + (1 if tx == nx - 1 else 0)
        return Window(win.row, win.col, rows, cols)


def world_recipe(spec: TerrainSpec, shape: tuple[int, int]) -> Recipe:
    """The heightmap part of ``spec`` over a world of ``shape = (rows, cols)`` vertices at the spec's cell size.

    The world is ``(cols - 1) * spec.cell_size`` metres wide: ``spec.width``
    is the spec's own grid's width, and a larger world extends it at the same
    resolution (fractal noise, which works in metres, continues the same
    landscape). Heights keep ``spec.height`` (the global filters' metres).
    The spec's size limit (``MAX_SIDE``, Blender terrains) does not apply.
    """
    if not isinstance(spec, TerrainSpec):
        raise TypeError(f"spec must be a TerrainSpec, got {type(spec).__name__}")
    shape = check_world_shape(shape)
    return Recipe(spec.generator, spec.seed, shape, spec.params,
                  tuple((s.key, s.params) for s in spec.filters if s.enabled),
                  spec.cell_size, max(spec.height, 1e-6), version=SPEC_VERSION, fit_height=spec.fit_height)


def check_world(recipe: Recipe, grid: TileGrid) -> bool:
    """Whether ``recipe`` over ``grid`` is built whole once (``True``: it has a global filter) or tile by tile.

    Raises
    ------
    ValueError
        If the grid does not cover the recipe's world, or a global filter
        (stream-power, thermal or hydraulic erosion) would need a world of more
        than :data:`MAX_CELLS` cells in memory at once.
    """
    if not isinstance(recipe, Recipe) or not isinstance(grid, TileGrid):
        raise TypeError("check_world takes a Recipe and a TileGrid")
    if recipe.shape != grid.shape:
        raise ValueError(f"the tile grid covers {grid.shape}, the recipe's world is {recipe.shape}")
    global_keys = recipe.global_filters()
    if not global_keys:
        return False
    rows, cols = grid.shape
    if rows * cols > MAX_CELLS:
        raise ValueError(
            f"filter {', '.join(repr(k) for k in global_keys)} reads the whole world around every tile (a global "
            f"filter), so the world must be computed whole: {rows} x {cols} cells is more than one heightmap holds "
            f"(at most 8193 x 8193). Build a world of at most 8193 x 8193 vertices, or remove that filter (local "
            f"filters: flatten, box_blur, lowpass, terrace, sea_level)")
    return True


def raw_range(recipe: Recipe, window: Window) -> tuple[float, float]:
    """``(min, max)`` of the generator's raw heights over ``window`` (pass 1 of a world build)."""
    raw = recipe.raw_heights(window)
    return float(raw.min()), float(raw.max())


def filtered_range(recipe: Recipe, window: Window, world_raw: tuple[float, float]) -> tuple[float, float]:
    """``(min, max)`` over ``window`` of the heights after the filters, given the world's raw range (pass 2)."""
    h = recipe.filtered_heights(window, world_raw)
    return float(h.min()), float(h.max())


def combine_ranges(ranges: Iterable[tuple[float, float]]) -> tuple[float, float]:
    """The range covering every ``(low, high)`` of ``ranges`` (exact: a minimum and a maximum).

    Raises ``ValueError`` for no ranges.
    """
    pairs = list(ranges)
    if not pairs:
        raise ValueError("combine_ranges needs at least one (low, high) range")
    return min(float(p[0]) for p in pairs), max(float(p[1]) for p in pairs)


def tile_heights(recipe: Recipe, window: Window, ranges: Ranges) -> npt.NDArray[np.float32]:
    """The final heights of ``window``: ``float32 window.shape`` in ``[0, 1]`` (pass 3).

    ``ranges`` are the world's ``((raw_low, raw_high), (low, high))`` from
    passes 1 and 2 (equal to ``recipe.world_ranges()`` for a world that
    fits): the result equals ``recipe.evaluate(window, ranges)``.
    """
    return recipe.evaluate(window, ranges)


def to_uint16(heights: npt.ArrayLike) -> npt.NDArray[np.uint16]:
    """16-bit levels of normalised heights as Orogen exports them: ``0 -> 0``, ``1 -> 65535``, rounded.

    ``uint16`` (little-endian) of the input's shape; values outside ``[0, 1]``
    are clipped first.
    """
    h = np.asarray(heights, dtype=np.float64)
    levels: npt.NDArray[np.uint16] = np.rint(np.clip(h, 0.0, 1.0) * 65535.0).astype("<u2")
    return levels
