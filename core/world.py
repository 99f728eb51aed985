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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from .filters import check_filter_work
from .heightmap import MAX_CELLS, as_heightmap, check_count, check_number, check_world_shape
from .lighting.bake import BakedMaps, bake_maps
from .lighting.settings import LIGHTING_ORDERED, LIGHTING_PARAMS, bake_options
from .lighting.shadows import SHADOW_SAMPLES, shadow_margins, shadow_reach
from .params import Filter, check_values
from .progress import Progress
from .recipe import Ranges, Recipe
from .spec import SPEC_VERSION, TerrainSpec, step_masks, step_param_maps
from .versions import part
from .window import Window, crop, expand

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
    "COARSE_SIDE",
    "CoarsePlan",
    "coarse_plan",
    "coarse_block",
    "coarse_filters",
    "upsample",
    "global_heights",
    "MAX_SHADOW_TILES",
    "Margins",
    "map_margins",
    "grow",
    "window_maps",
    "TILE_FILES",
    "tile_file",
    "world_grid",
    "max_level",
    "spec_margins",
    "world_relief",
    "world_ranges",
    "tile_positions",
    "snap_line",
    "TILE_EDGES",
    "snap_edges",
    "tile_levels",
    "TileMaps",
    "WorldCache",
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
        tile = check_count(self.tile, "tile", low=2, high=MAX_TILE)
        for side, what in ((rows, "rows"), (cols, "cols")):
            if (side - 1) % (tile - 1) or side < tile:
                n = max((side - 1) // (tile - 1), 1)
                raise ValueError(
                    f"world {what} ({side}) must be n x (tile - 1) + 1 for tiles of {tile} vertices sharing edges, "
                    f"e.g. {n * (tile - 1) + 1} or {(n + 1) * (tile - 1) + 1}"
                )
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
        check_count(ty, "ty", low=0, high=ny - 1)
        check_count(tx, "tx", low=0, high=nx - 1)
        return Window(ty * self.stride, tx * self.stride, self.tile, self.tile)

    def centre(self, ty: int, tx: int, cell: float) -> tuple[float, float]:
        """``(x, y)`` in metres of tile ``(ty, tx)``'s centre in the world's frame (centred on the world, +Y
        north), for cells of ``cell`` metres: the arithmetic of :func:`tile_positions`."""
        win = self.window(ty, tx)
        rows, cols = self.shape
        x = (win.col + (win.cols - 1) / 2.0 - (cols - 1) / 2.0) * cell
        y = ((rows - 1) / 2.0 - win.row - (win.rows - 1) / 2.0) * cell
        return x, y

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
    return Recipe(
        spec.generator,
        spec.seed,
        shape,
        spec.params,
        tuple((s.key, s.params) for s in spec.filters if s.enabled),
        spec.cell_size,
        max(spec.height, 1e-6),
        version=SPEC_VERSION,
        fit_height=spec.fit_height,
        masks=step_masks(spec.filters),
        param_maps=step_param_maps(spec.filters),
        sources=tuple((src.key, src.values()) for src in spec.sources),
    )


def check_world(recipe: Recipe, grid: TileGrid) -> bool:
    """Whether ``recipe`` over ``grid`` is built whole once (``True``: it has a global filter, or a source whose
    drainage mask reads the whole world) or tile by tile.

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
    if recipe.sources_margin() >= max(recipe.shape):  # a drainage-masked source reads the whole world too
        global_keys = [*global_keys, "sources (a drainage mask)"]
    if not global_keys:
        return False
    rows, cols = grid.shape
    if rows * cols > MAX_CELLS:
        raise ValueError(
            f"filter {', '.join(repr(k) for k in global_keys)} reads the whole world around every tile (a global "
            f"filter), so the world must be computed whole: {rows} x {cols} cells is more than one heightmap holds "
            f"(at most 8193 x 8193). Build a world of at most 8193 x 8193 vertices, or remove that filter (local "
            f"filters: flatten, box_blur, lowpass, terrace, sea_level)"
        )
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


# --- the maps of a tile: slope, curvature, lightmap (hillshade x cast shadows x ambient occlusion) -------------
#: Longest cast shadow a tile's maps follow, in tiles: a sun so low that its shadows reach farther (or whose
#: disc touches the horizon) has them cut there, and its shadows are then not seamless.
MAX_SHADOW_TILES = 2


@dataclass(frozen=True)
class Margins:
    """Cells of world a tile's maps read beyond each side: ``north``, ``south``, ``west``, ``east``.

    ``reach`` is the cast shadows' reach (0 without shadows), ``cut`` whether it
    was cut at :data:`MAX_SHADOW_TILES` tiles (the shadows are then not exact).
    """

    north: int
    south: int
    west: int
    east: int
    reach: int = 0
    cut: bool = False

    @property
    def widest(self) -> int:
        """The largest of the four margins."""
        return max(self.north, self.south, self.west, self.east)


def _lighting(lighting: Mapping[str, Any] | None) -> dict[str, Any]:
    return check_values(LIGHTING_PARAMS, lighting or {}, "lighting.", ordered=LIGHTING_ORDERED)


def _sun(light: Mapping[str, Any], sun: tuple[float, float] | None) -> tuple[float, float]:
    return (float(light["azimuth"]), float(light["altitude"])) if sun is None else (float(sun[0]), float(sun[1]))


def map_margins(
    lighting: Mapping[str, Any] | None,
    relief: float,
    cell_size: float,
    *,
    tile: int,
    sun: tuple[float, float] | None = None,
    z_factor: float = 1.0,
) -> Margins:
    """The margins a tile's maps read (:func:`window_maps`), from the lighting, the relief and the sun.

    - 1 cell on every side: Horn's gradient (slope, hillshade), the curvature's
      Laplacian, the slope lighting's neighbour;
    - ambient occlusion: its radius (``ao_radius`` cells, its farthest sample) on every side;
    - cast shadows: their reach, :func:`.shadows.shadow_reach` ``= ceil(relief / (tan(a) x cell_size)) + 1``
      with ``a`` the lowest altitude sampled across the sun's disc, and only on the sides toward the sun
      (:func:`core.lighting.shadows.shadow_margins`). A ray toward the sun that has risen ``relief`` metres above a
      cell has passed every point that could hide it; a normalised world rises at most its height range
      (``relief``, metres, times ``z_factor``). Cut at :data:`MAX_SHADOW_TILES` tiles.

    Parameters
    ----------
    lighting : mapping or None
        Values of :data:`core.lighting.settings.LIGHTING_PARAMS` (missing ones take their defaults).
    relief : float
        Metres, ``[0, 1e12]``: how far any point of the world rises above another.
    cell_size : float
        Metres per cell, ``[1e-9, 1e9]``.
    tile : int
        Tile side in vertices, ``[2, MAX_TILE]`` (the cap's unit).
    sun : (float, float), optional
        ``(azimuth, altitude)`` in degrees replacing the lighting's own.
    z_factor : float
        Vertical exaggeration of the bake, ``[1e-9, 1e9]``.
    """
    light = _lighting(lighting)
    tile = check_count(tile, "tile", low=2, high=MAX_TILE)
    relief = check_number(relief, "relief", low=0.0, high=1e12) * check_number(z_factor, "z_factor", low=1e-9, high=1e9)
    base = 1  # Horn's gradient (slope, hillshade), the curvature's Laplacian, the slope lighting's neighbour
    shade = light["enabled"] and light["mode"] in ("hillshade", "multidirectional")
    if shade and light["ao"] and light["ao_strength"] > 0:
        base = max(base, int(light["ao_radius"]))
    if not (shade and light["shadows"]):
        return Margins(base, base, base, base)
    azimuth, altitude = _sun(light, sun)
    reach = shadow_reach(relief, cell_size, altitude, softness=float(light["shadow_softness"]), samples=SHADOW_SAMPLES)
    cap = MAX_SHADOW_TILES * (tile - 1)
    cut = reach is None or reach > cap
    reach = cap if reach is None else min(reach, cap)
    n, s, w, e = shadow_margins(azimuth, reach)
    return Margins(max(base, n), max(base, s), max(base, w), max(base, e), reach, cut)


def grow(world_shape: tuple[int, int], window: Window, margins: Margins) -> Window:
    """``window`` grown by ``margins`` on each side, clamped to the world (at its edges the maps' own edge
    rules apply, as for the whole world)."""
    rows, cols = world_shape
    r0, c0 = max(window.row - margins.north, 0), max(window.col - margins.west, 0)
    r1 = min(window.row + window.rows + margins.south, rows)
    c1 = min(window.col + window.cols + margins.east, cols)
    return Window(r0, c0, r1 - r0, c1 - c0)


def window_maps(
    heights: npt.ArrayLike,
    outer: Window,
    height: float,
    *,
    cell_size: float,
    lighting: Mapping[str, Any] | None = None,
    sun: tuple[float, float] | None = None,
) -> BakedMaps:
    """Lightmap, slope and curvature of ``heights`` (units of ``height`` metres) covering the world cells ``outer``.

    As :meth:`core.spec.TerrainSpec.bake` of the whole world, cell for cell: crop the
    result to a tile whose window grown by :func:`map_margins` (:func:`grow`)
    is ``outer``, and every map equals the whole world's bit for bit
    (hillshade, slope and curvature read one cell, ambient occlusion its
    radius; cast shadows trace the world's own rays from ``outer``'s origin,
    :func:`core.lighting.shadows.cast_shadows`), unless the shadows were cut
    (``Margins.cut``).

    Parameters
    ----------
    heights : array_like, shape (outer.rows, outer.cols)
        Heights in units of ``height`` (the world's: ``[0, 1]`` when fitted, else as the filters left them).
    outer : Window
        The world cells ``heights`` covers.
    height : float
        Metres per unit of ``heights`` (the spec's Height), ``[0, 1e6]``.
    cell_size : float
        Metres per cell, ``[1e-9, 1e9]`` (the whole world's ``width / (cols - 1)``, the same float).
    lighting, sun :
        As :meth:`core.spec.TerrainSpec.bake`.

    Raises
    ------
    TypeError, ValueError
        For a bad heightmap, window or setting, naming it.
    """
    h = as_heightmap(heights)
    if not isinstance(outer, Window) or h.shape != outer.shape:
        raise ValueError(f"heights {h.shape} must have the shape of the window outer")
    light = _lighting(lighting)
    height = check_number(height, "height", low=0.0, high=1.0e6)
    azimuth, altitude = _sun(light, sun)
    return bake_maps(
        h * np.float32(height), cell_size, origin=(outer.row, outer.col), **bake_options(light, (azimuth, altitude))
    )


# --- global filters: a coarse pass over the whole world, full-resolution detail per tile -------------------------
#: Default largest side of the coarse world a build's global filters run on (16.8 M cells: a few hundred MB for
#: the erosion filters' working arrays).
COARSE_SIDE = 4097

FilterStack = tuple[tuple[str, Mapping[str, Any]], ...]


@dataclass(frozen=True)
class CoarsePlan:
    """How a world with global filters is built: the stack cut at its global filters, and the coarse grid.

    ``prefix`` is the recipe up to the first global filter (its generator and the local filters before it),
    evaluated at full resolution in any window; ``middle`` the filters from the first global filter to the last
    (run once, over the whole world every ``factor``-th vertex, ``shape`` vertices, at ``factor x cell_size``
    metres per cell); ``suffix`` the local filters after the last global one (per tile, full resolution, over
    their margin). ``factor`` divides the tile stride, so every tile's corners are coarse vertices.
    """

    factor: int
    shape: tuple[int, int]
    prefix: Recipe
    middle: FilterStack
    suffix: FilterStack

    @property
    def cell_size(self) -> float:
        """Metres per coarse cell: ``factor x`` the world's."""
        return self.prefix.cell_size * self.factor

    def describe(self) -> dict[str, Any]:
        """What identifies the coarse pass (for a build's manifest and its resume check)."""
        return {
            "factor": self.factor,
            "shape": list(self.shape),
            "cell_size_m": self.cell_size,
            "filters": [key for key, _ in self.middle],
            "local_after": [key for key, _ in self.suffix],
        }


def coarse_plan(recipe: Recipe, grid: TileGrid, max_side: int = COARSE_SIDE) -> CoarsePlan | None:
    """The coarse pass of ``recipe`` over ``grid``, or ``None`` when its stack has no global filter.

    The factor is the smallest divisor of the tile stride that brings the coarse world to at most ``max_side``
    vertices per side (1, the full resolution, when the world fits).

    Raises
    ------
    ValueError
        If the grid does not cover the recipe's world, ``max_side`` is outside ``[3, 8193]``, or no divisor of
        the stride is coarse enough (the message asks for larger tiles).
    """
    if not isinstance(recipe, Recipe) or not isinstance(grid, TileGrid):
        raise TypeError("coarse_plan takes a Recipe and a TileGrid")
    if recipe.shape != grid.shape:
        raise ValueError(f"the tile grid covers {grid.shape}, the recipe's world is {recipe.shape}")
    max_side = check_count(max_side, "max_side", low=3, high=MAX_TILE)
    side = max(recipe.shape)
    is_global = [m >= side for m in recipe.filter_margins()]
    if not any(is_global):
        return None
    if recipe.masks or recipe.param_maps:
        raise ValueError(
            "a world with a global filter (erosion) is built through a coarse world, which does not take filter "
            "masks yet: remove the masks, or build it as one terrain"
        )
    first = is_global.index(True)
    last = len(is_global) - 1 - is_global[::-1].index(True)
    rows, cols = grid.shape
    factor = next(
        (f for f in range(1, grid.stride + 1) if grid.stride % f == 0 and (max(rows, cols) - 1) // f + 1 <= max_side),
        None,
    )
    if factor is None:
        raise ValueError(
            f"a {rows} x {cols} world's global filters run on a coarse world of at most {max_side} "
            f"vertices per side, every n-th vertex with n dividing the tile stride ({grid.stride}): "
            "use larger tiles (e.g. 1025) or a larger coarse side"
        )
    prefix = Recipe(
        recipe.generator,
        recipe.seed,
        recipe.shape,
        recipe.params,
        recipe.filters[:first],
        recipe.cell_size,
        recipe.height,
        version=recipe.version,
        fit_height=recipe.fit_height,
        sources=recipe.sources,  # blended before any filter
    )
    shape = ((rows - 1) // factor + 1, (cols - 1) // factor + 1)
    return CoarsePlan(factor, shape, prefix, tuple(recipe.filters[first : last + 1]), tuple(recipe.filters[last + 1 :]))


def coarse_block(plan: CoarsePlan, window: Window, world_raw: tuple[float, float]) -> npt.NDArray[np.float32]:
    """The prefix heights (normalised by ``world_raw``, local filters applied) of ``window``'s coarse vertices.

    ``window`` starts on a coarse vertex (a tile's owned window does); returns its every ``factor``-th row and
    column, ``float32``, the world's own cells whichever windows cover the world.
    """
    f = plan.factor
    if window.row % f or window.col % f:
        raise ValueError(f"window must start on a coarse vertex (a multiple of {f}), got ({window.row}, {window.col})")
    h = plan.prefix.filtered_heights(window, world_raw)
    return np.ascontiguousarray(h[::f, ::f])


def coarse_filters(plan: CoarsePlan, coarse: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """The global filters (``plan.middle``) over the whole coarse world, at ``plan.cell_size`` metres per cell.

    ``coarse`` is :func:`coarse_block` over the world, ``float32 plan.shape``. Returns what a tile adds to its
    prefix heights, upsampled (:func:`upsample`): the filters' change ``filtered - coarse`` when ``factor > 1``,
    and the filtered heights themselves at full resolution (``factor == 1``: tiles are then the whole world's
    cells bit for bit).

    Raises
    ------
    ValueError
        For a coarse world of another shape, or filtering that would run for minutes.
    """
    c0 = as_heightmap(coarse)
    if c0.shape != plan.shape:
        raise ValueError(f"coarse heights {c0.shape} must be the plan's coarse world {plan.shape}")
    declared = [(cast(Filter, part(key, plan.prefix.version)), params) for key, params in plan.middle]
    scales = [{"cell_size": plan.cell_size, "height": plan.prefix.height} if f.uses_scale else {} for f, _ in declared]
    check_filter_work(
        plan.shape,
        sum(f.passes({**params, **scale}) for (f, params), scale in zip(declared, scales, strict=True)),
        "global filters (coarse pass)",
    )
    h = c0.copy()
    for (f, params), scale in zip(declared, scales, strict=True):
        placed = {"window": Window(0, 0, *plan.shape), "world_shape": plan.shape} if f.uses_window else {}
        h = as_heightmap(f.function(h, **scale, **params, **placed))
    if plan.factor == 1:
        return h
    diff: npt.NDArray[np.float32] = h - c0
    return diff


def upsample(coarse: npt.ArrayLike, window: Window, factor: int) -> npt.NDArray[np.float32]:
    """Bilinear values at ``window``'s world cells of a coarse grid sampled every ``factor`` cells.

    World cell ``(r, c)`` reads the four coarse vertices around ``(r / factor, c / factor)``; the weights and
    the arithmetic (float64, rows then columns, then float32) depend on the world coordinates alone, so any
    two windows give a shared cell the same value bit for bit. Coarse vertices keep their values exactly.
    ``coarse`` may be a memory-mapped array: only the rows and columns the window needs are read.
    """
    f = check_count(factor, "factor", low=1, high=MAX_TILE)
    grid = np.asanyarray(coarse)

    def axis(
        start: int, count: int, n: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        world = np.arange(start, start + count, dtype=np.int64)
        i0 = world // f
        if int(i0[-1]) > n - 1 or (int(i0[-1]) == n - 1 and int(world[-1] % f) != 0):
            raise ValueError(f"window {window} reaches beyond the coarse grid {grid.shape} x {f}")
        t = (world - i0 * f).astype(np.float64) / f
        return i0, np.minimum(i0 + 1, n - 1), t

    r0, r1, ty = axis(window.row, window.rows, grid.shape[0])
    c0, c1, tx = axis(window.col, window.cols, grid.shape[1])
    lo_r, hi_r, lo_c, hi_c = int(r0[0]), int(r1[-1]) + 1, int(c0[0]), int(c1[-1]) + 1
    block = np.asarray(grid[lo_r:hi_r, lo_c:hi_c], dtype=np.float64)
    across = (1.0 - tx) * block[:, c0 - lo_c] + tx * block[:, c1 - lo_c]  # (coarse rows, window cols)
    out = (1.0 - ty)[:, None] * across[r0 - lo_r] + ty[:, None] * across[r1 - lo_r]
    result: npt.NDArray[np.float32] = out.astype(np.float32)
    return result


def global_heights(
    plan: CoarsePlan, window: Window, world_raw: tuple[float, float], *, detail: npt.ArrayLike
) -> npt.NDArray[np.float32]:
    """Heights of ``window`` after the whole stack, before the final normalisation (a world with global filters).

    The prefix heights at full resolution plus ``detail`` (:func:`coarse_filters`) upsampled, then the local
    filters after the last global one over their margin; at ``factor == 1`` the filtered coarse world's cells
    themselves. Their minimum and maximum over the tiles are the world's range after the filters; the final
    heights are ``normalize(global_heights(...), that range)``. Tiles share their edges bit for bit.
    """
    rows, cols = plan.prefix.shape
    margin = sum(plan.prefix.filter_margins(plan.suffix))
    outer = expand((rows, cols), window, margin)
    if plan.factor == 1:
        h = np.array(
            np.asanyarray(detail)[outer.row : outer.row + outer.rows, outer.col : outer.col + outer.cols],
            dtype=np.float32,
        )
    else:
        h = plan.prefix.filtered_heights(outer, world_raw)
        h += upsample(detail, outer, plan.factor)
    for key, params in plan.suffix:
        f = cast(Filter, part(key, plan.prefix.version))
        scale = {"cell_size": plan.prefix.cell_size, "height": plan.prefix.height} if f.uses_scale else {}
        placed = {"window": outer, "world_shape": (rows, cols)} if f.uses_window else {}
        h = as_heightmap(f.function(h, **scale, **params, **placed))
    return np.ascontiguousarray(crop(h, outer, window))


# --- file names of engine tiles ------------------------------------------------------------------------------------
#: Folder and extension of each engine tile format: 16-bit PNG (Unreal), RAW ``.r16`` (Unity), OpenEXR.
TILE_FILES = {"png": ("unreal", ".png"), "r16": ("unity", ".r16"), "exr": ("exr", ".exr")}


def tile_file(fmt: str, name: str, *, ty: int, tx: int, tiles_y: int) -> str:
    """Relative path of tile ``(ty, tx)``'s file in ``fmt`` (a key of :data:`TILE_FILES`).

    ``FOLDER/NAME_x{X}_y{Y}.EXT`` with X the tile column from the west and Y
    the tile row from the north (Unreal, EXR) or from the south (Unity's RAW
    tiles, whose first row is at Z = 0, +Z north): the one naming rule of
    ``scripts/build_world.py`` and the add-on's Export Tiles.

    Raises
    ------
    KeyError
        For a format not in :data:`TILE_FILES`.
    """
    folder, ext = TILE_FILES[fmt]
    y = tiles_y - 1 - ty if fmt == "r16" else ty
    return f"{folder}/{name}_x{tx}_y{y}{ext}"


# --- a world of tile objects: geometry and maps per tile -----------------------------------------------------------
def world_grid(spec: TerrainSpec, tiles_y: int, tiles_x: int) -> TileGrid:
    """The tile grid of a world of ``tiles_y x tiles_x`` square tiles of ``spec.size`` vertices sharing edges.

    Raises
    ------
    ValueError
        When ``spec.size_y`` is set and differs from ``spec.size`` (tiles are square), or the grid is bad.
    """
    if spec.size_y not in (0, spec.size):
        raise ValueError(f"tiles are square: Size Y must be 0 (or Size, {spec.size}), got {spec.size_y}")
    tile = spec.size
    return TileGrid((tiles_y * (tile - 1) + 1, tiles_x * (tile - 1) + 1), tile)


def max_level(tile: int) -> int:
    """The coarsest level of detail of a ``tile``-vertex tile: the largest ``k`` with ``2^k`` dividing
    ``tile - 1`` (a level-``k`` tile keeps every ``2^k``-th vertex, at least 2 per side)."""
    k = 0
    while (tile - 1) % (2 ** (k + 1)) == 0 and (tile - 1) // 2 ** (k + 1) >= 1:
        k += 1
    return k


def spec_margins(spec: TerrainSpec, sun: tuple[float, float] | None = None, relief: float | None = None) -> Margins:
    """:func:`map_margins` of tiles of ``spec.size`` vertices with ``spec``'s lighting and cell size.

    ``relief`` is how many metres the world's highest point rises above its
    lowest (:func:`world_relief`); ``None`` takes ``spec.height``, the relief
    of heights fitted to [0, 1]. ``sun``: ``(azimuth, altitude)`` degrees
    replacing the spec's own.
    """
    return map_margins(
        spec.lighting, max(spec.height if relief is None else relief, 1e-6), spec.cell_size, tile=spec.size, sun=sun
    )


def world_relief(spec: TerrainSpec, recipe: Recipe, filtered: tuple[float, float]) -> float:
    """Metres between the world's lowest and highest point.

    ``spec.height`` when the heights are fitted to [0, 1]; else the world's
    range after the filters (``filtered``, in units of Height: version 3's
    uplift may raise it above 1, a filter lower it below 0) times Height.
    The cast shadows' margin must cover it.
    """
    if recipe.fit_height:
        return float(spec.height)
    low, high = filtered
    return (float(high) - float(low)) * float(spec.height)


def world_ranges(recipe: Recipe, grid: TileGrid) -> Ranges:
    """The world's ``((raw_low, raw_high), (low, high))``: from the whole world when it fits in one heightmap
    (:data:`core.heightmap.MAX_CELLS`), else in two passes over the tiles (:func:`raw_range`,
    :func:`filtered_range`)."""
    if recipe.shape[0] * recipe.shape[1] <= MAX_CELLS:
        return recipe.world_ranges()
    raw = combine_ranges(raw_range(recipe, grid.window(ty, tx)) for ty, tx in grid.indices())
    return raw, combine_ranges(filtered_range(recipe, grid.window(ty, tx), raw) for ty, tx in grid.indices())


def tile_positions(
    grid: TileGrid, window: Window, heights: npt.ArrayLike, *, height: float, cell: float, step: int
) -> npt.NDArray[np.float32]:
    """Vertex positions ``float32 (rows, cols, 3)`` of a tile in the world's frame (centred on the world), metres.

    ``heights`` (``(rows, cols)``, units of Height) are the tile's at every
    ``step``-th vertex of ``window``. The same arithmetic as the add-on's
    grid mesh for the whole world, so a vertex has the same coordinates in
    every tile that holds it, and in the world built whole.
    """
    rows_w, cols_w = grid.shape
    r = np.arange(window.row, window.row + window.rows, step, dtype=np.float64)
    c = np.arange(window.col, window.col + window.cols, step, dtype=np.float64)
    co = np.empty((len(r), len(c), 3), np.float32)
    co[..., 0] = ((c - (cols_w - 1) / 2.0) * cell)[None, :]
    co[..., 1] = (((rows_w - 1) / 2.0 - r) * cell)[:, None]
    np.multiply(heights, np.float32(height), out=co[..., 2])
    return co


def snap_line(values: npt.NDArray[np.float32], ratio: int) -> npt.NDArray[np.float32]:
    """``values`` (``float32 (n,)``, ``n - 1`` a multiple of ``ratio``) with every value between two samples
    ``ratio`` apart replaced by the straight line between them (the coarser neighbour's edge)."""
    n = len(values)
    i = np.arange(n)
    i0 = (i // ratio) * ratio
    i1 = np.minimum(i0 + ratio, n - 1)
    t = (i - i0) / ratio
    a, b = values[i0].astype(np.float64), values[i1].astype(np.float64)
    line: npt.NDArray[np.float32] = (a + (b - a) * t).astype(np.float32)
    return line


#: Edges of a tile: the neighbour's ``(dy, dx)`` offset and the index of a ``(rows, cols)`` array along that edge.
TILE_EDGES: dict[str, tuple[tuple[int, int], tuple[Any, Any]]] = {
    "north": ((-1, 0), (0, slice(None))),
    "south": ((1, 0), (-1, slice(None))),
    "west": ((0, -1), (slice(None), 0)),
    "east": ((0, 1), (slice(None), -1)),
}


def snap_edges(
    co: npt.NDArray[np.float32], heights: npt.NDArray[np.float32], *, level: int, neighbour_levels: Mapping[str, int]
) -> list[str]:
    """Put the edge vertices of a tile at ``level`` onto each coarser neighbour's edge, in place; the edges snapped.

    ``co`` is ``float32 (rows, cols, 3)`` (its Z moves), ``heights`` ``float32
    (rows, cols)``; ``neighbour_levels`` maps an edge of :data:`TILE_EDGES` to
    the level of the tile beyond it. No cracks where a finer tile meets a
    coarser one.
    """
    snapped = []
    for edge, (_offset, where) in TILE_EDGES.items():
        other = neighbour_levels.get(edge)
        if other is None or other <= level:
            continue
        ratio = 2 ** (other - level)
        co[where + (2,)] = snap_line(co[where + (2,)], ratio)
        heights[where] = snap_line(heights[where], ratio)
        snapped.append(edge)
    return snapped


def tile_levels(
    grid: TileGrid, tiles: Iterable[tuple[int, int]], *, x: float, y: float, cell: float, top: int
) -> dict[tuple[int, int], int]:
    """Levels of detail around a point: ``{(ty, tx): level}`` for ``tiles``.

    ``(x, y)`` is the point in the world's frame (metres, centred on the
    world, +Y north); the tile under it (clamped to the grid) gets level 0,
    each ring of tiles around it one level more (Chebyshev distance), at
    most ``top``.
    """
    rows, cols = grid.shape
    ny, nx = grid.tiles
    col = x / cell + (cols - 1) / 2.0
    row = (rows - 1) / 2.0 - y / cell
    cy = min(max(int(row // grid.stride), 0), ny - 1)
    cx = min(max(int(col // grid.stride), 0), nx - 1)
    return {(ty, tx): min(max(abs(ty - cy), abs(tx - cx)), top) for ty, tx in tiles}


@dataclass(frozen=True)
class TileMaps:
    """One tile at one level of detail: ``heights`` ``float32 (n, n)`` (units of Height), ``maps``
    ``{"slope", "curvature"[, "occlusion"]: float32 (n, n)}``, ``lightmap`` ``float32 (n, n)`` or ``None``,
    and ``positions`` ``float32 (n, n, 3)`` in the world's frame (:func:`tile_positions`)."""

    heights: npt.NDArray[np.float32]
    maps: dict[str, npt.NDArray[np.float32]]
    lightmap: npt.NDArray[np.float32] | None
    positions: npt.NDArray[np.float32]


class WorldCache:
    """What every tile of one world build shares: spec, grid, recipe, ranges, margins and, with a global
    filter, the whole world's heights (computed once, :func:`check_world`).

    ``ranges`` (the world's :data:`core.recipe.Ranges`) may be given to skip
    their passes when the recipe is unchanged; ``sun`` replaces the spec's.
    ``progress(done, total)`` (:mod:`core.progress`) follows the whole world's
    evaluation when there is one (the same heights, bit for bit,
    :meth:`core.recipe.Recipe.evaluate_with_maps`); returning ``False`` raises
    :class:`core.progress.Cancelled`.
    """

    def __init__(
        self,
        spec: TerrainSpec,
        grid: TileGrid,
        sun: tuple[float, float] | None = None,
        ranges: Ranges | None = None,
        *,
        progress: Progress | None = None,
    ) -> None:
        self.spec, self.grid, self.sun = spec, grid, sun
        self.recipe = world_recipe(spec, grid.shape)
        self.whole: npt.NDArray[np.float32] | None = None
        if check_world(self.recipe, grid):  # a global filter (erosion): the world is computed whole once
            self.whole = self.recipe.evaluate() if progress is None else self.recipe.evaluate_with_maps(progress)[0]
            ranges = None
        if ranges is None and self.whole is None:
            ranges = world_ranges(self.recipe, grid)
        self.ranges = ranges
        if self.whole is not None:
            filtered = (float(self.whole.min()), float(self.whole.max()))
        else:
            assert ranges is not None
            filtered = ranges[1]
        #: The world's heights after the filters, in units of Height (``[0, 1]`` when fitted).
        self.filtered_range = (0.0, 1.0) if self.recipe.fit_height else (float(filtered[0]), float(filtered[1]))
        self.relief = world_relief(spec, self.recipe, filtered)
        self.margins = spec_margins(spec, sun, self.relief)
        self.margin = self.margins.widest

    def tile(self, ty: int, tx: int, level: int = 0) -> TileMaps:
        """Tile ``(ty, tx)`` at ``level`` (every ``2^level``-th vertex of its window), maps cropped from its
        window grown by :attr:`margins`: a cell's values equal the whole world's."""
        window = self.grid.window(ty, tx)
        outer = grow(self.grid.shape, window, self.margins)
        if self.whole is not None:
            h_outer = np.ascontiguousarray(crop(self.whole, Window(0, 0, *self.grid.shape), outer))
        else:
            h_outer = self.recipe.evaluate(outer, self.ranges)
        maps = window_maps(
            h_outer, outer, self.spec.height, cell_size=self.spec.cell_size, lighting=self.spec.lighting, sun=self.sun
        )
        step = 2**level
        cut = (
            slice(window.row - outer.row, window.row - outer.row + window.rows, step),
            slice(window.col - outer.col, window.col - outer.col + window.cols, step),
        )
        heights = np.ascontiguousarray(h_outer[cut])
        out = {"slope": np.ascontiguousarray(maps.slope[cut]), "curvature": np.ascontiguousarray(maps.curvature[cut])}
        if maps.occlusion is not None:
            out["occlusion"] = np.ascontiguousarray(maps.occlusion[cut])
        lightmap = None if maps.lightmap is None else np.ascontiguousarray(maps.lightmap[cut])
        co = tile_positions(self.grid, window, heights, height=self.spec.height, cell=self.spec.cell_size, step=step)
        return TileMaps(heights, out, lightmap, co)
