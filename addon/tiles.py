"""Terrain Tiles: an N x M grid of terrain objects, each a window of one world spec, seamless at their edges.

The world's spec lives once, on the tiles' collection (``collection.orogen_world``, the same property group as a
terrain's ``obj.orogen``); its Size is the tile size in vertices and its Width the width of one tile, so the
world has the spec's cell size and ``(tiles - 1) * (size - 1) + size`` vertices per side. Each tile object
records its window and its level of detail (``obj.orogen_tile``). Core does the exact part
(:mod:`core.world`: a window of a world equals the same cells of the whole world bit for bit); this module
adds the maps' margins, the level of detail and the Blender objects.

Seams:

- **Positions.** Every tile's vertices are written in the world's own frame (centred on the world, not on
  the tile), from the world row and column of each vertex, and every tile object has the same transform: a
  vertex shared by two tiles has bit-identical coordinates in both.
- **Maps.** Slope, curvature and the lightmap of a tile are baked on its window grown by the margin they read
  (:func:`map_margins`: one cell for Horn's gradient, the curvature and the slope lighting; the ambient-occlusion
  radius; the cast shadows' reach over the world's relief in metres, which version 3's uplift may raise above
  Height, toward the sun only) and then cropped, so a cell's maps are those of the whole
  world: cast shadows trace the world's rays (:func:`core.shading.cast_shadows` with the window's origin).
- **Level of detail.** A tile at level ``k`` keeps every ``2^k``-th vertex of its window (``(size - 1) / 2^k + 1``
  per side), so its vertices are vertices of the full-resolution tile, with the same values. Where a finer
  tile meets a coarser one, the finer tile's edge vertices between two coarse vertices are moved onto the
  straight line between them (their ``height`` attribute too): no cracks, no skirts.

Water: one object for the whole world (:func:`sync_tile_water`, :func:`water.sync_world_water`), walled at the
world's outer edge only (:func:`world_edge_ring`), so no wall stands inside the water where two tiles meet.
"""

import contextlib
import json
import math
import os
import shutil
import time

import bpy
import numpy as np
from bpy_extras import object_utils

from ..core.heightmap import MAX_CELLS, normalize
from ..core.recipe import Recipe
from ..core.spec import TerrainSpec
from ..core.window import Window, crop
from ..core.world import (
    Margins,
    TileGrid,
    check_world,
    combine_ranges,
    filtered_range,
    grow,
    raw_range,
    to_uint16,
    window_maps,
    world_recipe,
)
from ..core.world import map_margins as map_margins_of
from .draw import draw_spec
from .export import check_path, commit, stage_dir, write_image
from .live import (
    bake_unlit_color,
    checked_layers,
    mode_reason,
    new_material,
    only_water_changed,
    poll_with,
    suspended,
)
from .mesh import CURVATURE_ATTRIBUTE, OCCLUSION_ATTRIBUTE, SLOPE_ATTRIBUTE, grid_side, update_grid_mesh
from .properties import Groups, spec_annotations
from .specio import read_spec, take_operator_spec, write_spec
from .terrain import check_memory, scene_sun
from .water import remove_water, sync_world_water

#: Custom property of a world collection: the world's ranges, with the recipe they belong to (reused by
#: rebuilding one tile).
RANGES_PROPERTY = "orogen_world_ranges"


# --- geometry and maps (numpy; no objects) -------------------------------------------------------------------
def world_grid(spec: TerrainSpec, tiles_y: int, tiles_x: int) -> TileGrid:
    """The world's tile grid: ``tiles_y x tiles_x`` square tiles of ``spec.size`` vertices sharing their edges."""
    if spec.size_y not in (0, spec.size):
        raise ValueError(f"tiles are square: Size Y must be 0 (or Size, {spec.size}), got {spec.size_y}")
    tile = spec.size
    return TileGrid((tiles_y * (tile - 1) + 1, tiles_x * (tile - 1) + 1), tile)


def max_level(tile: int) -> int:
    """The coarsest level of detail of a ``tile``-vertex tile: ``2^k`` divides ``tile - 1``, at least 2 vertices."""
    k = 0
    while (tile - 1) % (2 ** (k + 1)) == 0 and (tile - 1) // 2 ** (k + 1) >= 1:
        k += 1
    return k


def map_margins(spec: TerrainSpec, sun: tuple[float, float] | None = None, relief: float | None = None) -> Margins:
    """Cells of world a tile's maps read beyond each side (:func:`core.world.map_margins`: one cell, the
    ambient-occlusion radius, the cast shadows' reach toward the sun), for tiles of ``spec.size`` vertices.

    ``relief`` is how many metres the world's highest point rises above its lowest (:func:`world_relief`);
    ``None`` takes ``spec.height``, the relief of heights fitted to [0, 1]."""
    return map_margins_of(
        spec.lighting, max(spec.height if relief is None else relief, 1e-6), spec.cell_size, spec.size, sun
    )


def world_relief(spec: TerrainSpec, recipe: Recipe, filtered_range: tuple[float, float]) -> float:
    """Metres between the world's lowest and highest point: ``Height`` when the heights are fitted to [0, 1],
    else the world's range after the filters (version 3: heights in units of Height, which uplift may raise
    above 1 or a filter lower below 0) times Height. The cast shadows' margin must cover it."""
    if recipe.fit_height:
        return float(spec.height)
    low, high = filtered_range
    return (float(high) - float(low)) * float(spec.height)


def world_ranges(recipe: Recipe, grid: TileGrid):
    """The world's ``((raw_low, raw_high), (low, high))``: from the whole world when it fits in one heightmap,
    else in two passes over the tiles (:mod:`core.world`)."""
    if recipe.shape[0] * recipe.shape[1] <= MAX_CELLS:
        return recipe.world_ranges()
    raw = combine_ranges(raw_range(recipe, grid.window(ty, tx)) for ty, tx in grid.indices())
    return raw, combine_ranges(filtered_range(recipe, grid.window(ty, tx), raw) for ty, tx in grid.indices())


def tile_positions(grid: TileGrid, window: Window, heights, height: float, cell: float, step: int):
    """Vertex positions ``float32 (rows, cols, 3)`` of a tile in the world's frame (centred on the world).

    The same arithmetic as :func:`addon.mesh.grid_coordinates` for the whole world, so a vertex has the same
    coordinates in every tile that holds it, and in the world built whole.
    """
    rows_w, cols_w = grid.shape
    r = np.arange(window.row, window.row + window.rows, step, dtype=np.float64)
    c = np.arange(window.col, window.col + window.cols, step, dtype=np.float64)
    co = np.empty((len(r), len(c), 3), np.float32)
    co[..., 0] = ((c - (cols_w - 1) / 2.0) * cell)[None, :]
    co[..., 1] = (((rows_w - 1) / 2.0 - r) * cell)[:, None]
    np.multiply(heights, np.float32(height), out=co[..., 2])
    return co


def snap_line(values, ratio: int):
    """``values`` (``float32 (n,)``, ``n - 1`` a multiple of ``ratio``) with every value between two samples
    ``ratio`` apart replaced by the straight line between them (the coarser neighbour's edge)."""
    n = len(values)
    i = np.arange(n)
    i0 = (i // ratio) * ratio
    i1 = np.minimum(i0 + ratio, n - 1)
    t = (i - i0) / ratio
    a, b = values[i0].astype(np.float64), values[i1].astype(np.float64)
    return (a + (b - a) * t).astype(np.float32)


#: Edges of a tile: the neighbour's offset and the slice of a (rows, cols) array along that edge.
EDGES = {
    "north": ((-1, 0), (0, slice(None))),
    "south": ((1, 0), (-1, slice(None))),
    "west": ((0, -1), (slice(None), 0)),
    "east": ((0, 1), (slice(None), -1)),
}


def snap_edges(co, heights, level: int, neighbour_levels: dict) -> list[str]:
    """Put the edge vertices of a tile at ``level`` onto each coarser neighbour's edge (in place); the edges."""
    snapped = []
    for edge, (_offset, where) in EDGES.items():
        other = neighbour_levels.get(edge)
        if other is None or other <= level:
            continue
        ratio = 2 ** (other - level)
        co[where + (2,)] = snap_line(co[where + (2,)], ratio)
        heights[where] = snap_line(heights[where], ratio)
        snapped.append(edge)
    return snapped


class WorldCache:
    """What every tile of one world build shares: spec, grid, recipe, ranges, the margin and, with a global
    filter, the whole world's heights."""

    def __init__(self, spec: TerrainSpec, grid: TileGrid, sun, ranges=None) -> None:
        self.spec, self.grid, self.sun = spec, grid, sun
        self.recipe = world_recipe(spec, grid.shape)
        self.whole = None
        if check_world(self.recipe, grid):  # a global filter (erosion): the world is computed whole once
            self.whole = self.recipe.evaluate()
            ranges = None
        self.ranges = ranges if ranges is not None or self.whole is not None else world_ranges(self.recipe, grid)
        filtered = (float(self.whole.min()), float(self.whole.max())) if self.whole is not None else self.ranges[1]
        #: The world's heights after the filters, in units of Height (``[0, 1]`` when fitted).
        self.filtered_range = (0.0, 1.0) if self.recipe.fit_height else (float(filtered[0]), float(filtered[1]))
        self.relief = world_relief(spec, self.recipe, filtered)
        self.margins = map_margins(spec, sun, self.relief)
        self.margin = self.margins.widest

    def tile(self, ty: int, tx: int, level: int = 0):
        """``(heights, maps, positions)`` of tile ``(ty, tx)`` at ``level`` (heights ``float32 (n, n)``)."""
        window = self.grid.window(ty, tx)
        outer = grow(self.grid.shape, window, self.margins)
        if self.whole is not None:
            h_outer = np.ascontiguousarray(crop(self.whole, Window(0, 0, *self.grid.shape), outer))
        else:
            h_outer = self.recipe.evaluate(outer, self.ranges)
        maps = window_maps(h_outer, outer, self.spec.height, self.spec.cell_size, self.spec.lighting, self.sun)
        step = 2**level
        cut = (
            slice(window.row - outer.row, window.row - outer.row + window.rows, step),
            slice(window.col - outer.col, window.col - outer.col + window.cols, step),
        )
        heights = np.ascontiguousarray(h_outer[cut])
        out = {
            SLOPE_ATTRIBUTE: np.ascontiguousarray(maps.slope[cut]),
            CURVATURE_ATTRIBUTE: np.ascontiguousarray(maps.curvature[cut]),
        }
        if maps.occlusion is not None:
            out[OCCLUSION_ATTRIBUTE] = np.ascontiguousarray(maps.occlusion[cut])
        lightmap = None if maps.lightmap is None else np.ascontiguousarray(maps.lightmap[cut])
        co = tile_positions(self.grid, window, heights, self.spec.height, self.spec.cell_size, step)
        return heights, out, lightmap, co


# --- Blender objects --------------------------------------------------------------------------------------------
def world_of(obj):
    """The world collection of tile ``obj`` (or ``None``)."""
    if obj is None or obj.type != "MESH" or not obj.orogen_tile.is_tile:
        return None
    world = obj.orogen_tile.world
    return world if world is not None and world.orogen_tiles.is_world else None


def tiles_of(world) -> dict:
    """``{(ty, tx): obj}`` of the world's tiles."""
    return {
        (o.orogen_tile.ty, o.orogen_tile.tx): o
        for o in world.objects
        if o.type == "MESH" and o.orogen_tile.is_tile and o.orogen_tile.world == world
    }


def _ranges(world, cache_key: str):
    data = world.get(RANGES_PROPERTY)
    if data:
        try:
            stored = json.loads(data)
        except ValueError:
            return None
        if stored.get("recipe") == cache_key:
            return tuple(tuple(pair) for pair in stored["ranges"])
    return None


def world_cache(world, context) -> WorldCache:
    """The :class:`WorldCache` of ``world``'s spec now (its ranges reused when the recipe is unchanged)."""
    spec = read_spec(world.orogen_world)
    settings = world.orogen_tiles
    grid = world_grid(spec, settings.tiles_y, settings.tiles_x)
    sun = scene_sun(context.scene) if spec.lighting["use_scene_sun"] and getattr(context, "scene", None) else None
    key = world_recipe(spec, grid.shape).to_json()
    cache = WorldCache(spec, grid, sun, _ranges(world, key))
    if cache.whole is None:
        world[RANGES_PROPERTY] = json.dumps({"recipe": key, "ranges": [list(r) for r in cache.ranges]})
    return cache


def _write_positions(mesh, co) -> None:
    flat = co.reshape(-1)
    attribute = mesh.attributes.get("position")
    if attribute is not None:
        attribute.data.foreach_set("vector", flat)
    else:
        mesh.vertices.foreach_set("co", flat)
    mesh.update()


def _neighbour_levels(tiles: dict, ty: int, tx: int, top: int) -> dict:
    """``{edge: level}`` of the tile's neighbours (as built: at most ``top``)."""
    out = {}
    for edge, ((dy, dx), _where) in EDGES.items():
        key = (ty + dy, tx + dx)
        if key in tiles:
            out[edge] = min(tiles[key].orogen_tile.level, top)
    return out


def build_tile(obj, cache: WorldCache, tiles: dict, material=None) -> None:
    """(Re)write tile ``obj``'s mesh from ``cache`` at its level, snapped to its coarser neighbours."""
    t = obj.orogen_tile
    top = max_level(cache.grid.tile)
    level = min(t.level, top)
    heights, maps, lightmap, co = cache.tile(t.ty, t.tx, level)
    snap_edges(co, heights, level, _neighbour_levels(tiles, t.ty, t.tx, top))
    update_grid_mesh(obj.data, heights, cache.spec.width, cache.spec.height, lightmap, maps)
    _write_positions(obj.data, co)
    if material is not None:
        if obj.data.materials:
            obj.data.materials[0] = material
        else:
            obj.data.materials.append(material)
    elif not cache.spec.material["enabled"] and obj.data.materials:
        obj.data.materials[0] = None
    bake_unlit_color(obj, cache.spec)
    with suspended():
        t.applied = json.dumps({"spec": cache.spec.to_json(), "level": level})


def border_gaps(tiles: dict, tiles_y: int, tiles_x: int) -> list[tuple[int, int]]:
    """``(ty, tx)`` of the world's border tiles that are missing or whose mesh is not a square grid (of at least
    2 x 2 vertices), north-west first: where :func:`world_edge_ring` cannot read the world's outer edge."""
    border = sorted(
        {(ty, tx) for ty in range(tiles_y) for tx in range(tiles_x) if ty in (0, tiles_y - 1) or tx in (0, tiles_x - 1)}
    )
    gaps = []
    for key in border:
        obj = tiles.get(key)
        count = 0 if obj is None else len(obj.data.vertices)
        if count < 4 or math.isqrt(count) ** 2 != count:
            gaps.append(key)
    return gaps


def world_edge_ring(tiles: dict, tiles_y: int, tiles_x: int) -> np.ndarray | None:
    """The world's outer edge, once round it: ``float32 (n, 3)`` vertex positions in the tiles' frame, clockwise
    seen from above from the north-west corner (as :func:`mesh.grid_edge_ring` runs round one grid), read from
    the tiles on the world's border at their own levels of detail. ``None`` when a border tile is missing or is
    not a square grid."""
    if border_gaps(tiles, tiles_y, tiles_x):
        return None

    def side(key, name):
        n = math.isqrt(len(tiles[key].data.vertices))
        return grid_side(tiles[key].data, n, n, name)

    runs = (
        [side((0, tx), "north") for tx in range(tiles_x)]
        + [side((ty, tiles_x - 1), "east") for ty in range(tiles_y)]
        + [side((tiles_y - 1, tx), "south") for tx in reversed(range(tiles_x))]
        + [side((ty, 0), "west") for ty in reversed(range(tiles_y))]
    )
    # Each run starts where the one before it ended (a shared tile corner): keep that vertex once.
    ring = np.concatenate([runs[0], *(run[1:] for run in runs[1:])])
    return ring[:-1]  # the last vertex is the first (the north-west corner)


def sync_tile_water(world, spec: TerrainSpec, tiles: dict) -> str | None:
    """The world's water (:func:`water.sync_world_water`) over its tiles as they are now: ``None``, or why it
    could not follow them (a border tile missing or not a grid, :func:`border_gaps`: the water stays as it was)."""
    settings = world.orogen_tiles
    ring = world_edge_ring(tiles, settings.tiles_y, settings.tiles_x) if spec.material.get("water") else None
    sync_world_water(world, spec, ring, tiles.get((0, 0)))
    if ring is not None or not spec.material.get("water"):
        return None
    gaps = border_gaps(tiles, settings.tiles_y, settings.tiles_x)
    names = ", ".join(f"x{tx} y{ty}" for ty, tx in gaps[:4]) + (" ..." if len(gaps) > 4 else "")
    return f"water not updated: border tile {names} missing or not a grid (the water follows the world's edge)"


def _world_material(world, spec: TerrainSpec):
    """A fresh material for the world's tiles (``None`` when the spec's material is off)."""
    if not spec.material["enabled"]:
        return None
    checked_layers(spec)
    return new_material(world.name, spec)


def _drop_unused(materials) -> None:
    for material in materials:
        if material is not None and material.users == 0:
            bpy.data.materials.remove(material)


def regenerate_world(world, context, only=None) -> str:
    """Rebuild the world's tiles (or the tiles at the ``only`` keys) from its spec, with progress; a status line.

    Raises ``ValueError``/``TypeError`` naming a bad setting; tiles already rebuilt stay rebuilt.
    """
    started = time.perf_counter()
    cache = world_cache(world, context)
    tiles = tiles_of(world)
    keys = sorted(tiles) if only is None else [k for k in sorted(set(only)) if k in tiles]
    check_memory(cache.spec.size, cache.spec.size)
    old = {o.data.materials[0] for o in tiles.values() if o.data.materials}
    material = (
        _world_material(world, cache.spec)
        if only is None
        else (next(iter(old)) if len(old) == 1 else _world_material(world, cache.spec))
    )
    wm = getattr(context, "window_manager", None)
    if wm is not None:
        wm.progress_begin(0, max(len(keys), 1))
    try:
        for i, key in enumerate(keys):
            build_tile(tiles[key], cache, tiles, material)
            if wm is not None:
                wm.progress_update(i + 1)
    except BaseException:
        if material not in old:
            _drop_unused([material])  # made for this build and on no tile yet
        raise
    finally:
        if wm is not None:
            wm.progress_end()
    _drop_unused(old)
    water = sync_tile_water(world, cache.spec, tiles)
    status = (
        f"Rebuilt {len(keys)} of {len(tiles)} tiles ({cache.grid.shape[0]} x {cache.grid.shape[1]} world, "
        f"margin {cache.margin} cells) in {time.perf_counter() - started:.2f} s"
    )
    if water:
        status += f"; {water}"
    with suspended():
        if only is None:
            world.orogen_tiles.applied = cache.spec.to_json()
        world.orogen_tiles.status = status
    return status


def set_levels(world, context, levels: dict) -> str:
    """Give tiles new levels of detail (``{(ty, tx): level}``) and rebuild those whose level or whose
    neighbours' levels changed (their snapped edges)."""
    tiles = tiles_of(world)
    before = {k: o.orogen_tile.level for k, o in tiles.items()}
    tile = world.orogen_world.size
    top = max_level(tile)
    for key, level in levels.items():
        if key in tiles:
            tiles[key].orogen_tile.level = max(0, min(int(level), top))
    after = {k: o.orogen_tile.level for k, o in tiles.items()}
    changed = {k for k in tiles if before[k] != after[k]}
    dirty = set(changed)
    for ty, tx in changed:
        dirty.update((ty + dy, tx + dx) for (dy, dx), _w in EDGES.values())
    return regenerate_world(world, context, only=dirty & set(tiles))


def levels_from_point(world, point) -> dict:
    """Levels of detail from a point (the 3D cursor): full resolution on the tile under it, one level coarser
    per ring of tiles away (Chebyshev distance), at most the world's ``lod_levels``."""
    tiles = tiles_of(world)
    settings = world.orogen_tiles
    if not tiles:
        return {}
    spec_size = world.orogen_world.size
    cell = world.orogen_world.width / max(spec_size - 1, 1)
    any_tile = next(iter(tiles.values()))
    local = any_tile.matrix_world.inverted() @ point
    rows = settings.tiles_y * (spec_size - 1) + 1
    cols = settings.tiles_x * (spec_size - 1) + 1
    col = local.x / cell + (cols - 1) / 2.0
    row = (rows - 1) / 2.0 - local.y / cell
    cy = min(max(int(row // (spec_size - 1)), 0), settings.tiles_y - 1)
    cx = min(max(int(col // (spec_size - 1)), 0), settings.tiles_x - 1)
    top = min(settings.lod_levels, max_level(spec_size))
    return {(ty, tx): min(max(abs(ty - cy), abs(tx - cx)), top) for ty, tx in tiles}


def on_world_changed(world, context) -> str | None:
    """A world's settings changed: regenerate its tiles when what they are made of differs."""
    settings = world.orogen_tiles
    if not settings.live_update:
        return None
    try:
        spec = read_spec(world.orogen_world)
    except (ValueError, TypeError) as err:
        settings.status = f"Not regenerated: {err}"
        return None
    text = spec.to_json()
    if text == settings.applied:
        return None
    if settings.applied and only_water_changed(spec, settings.applied):  # the tiles stay as they are
        water = sync_tile_water(world, spec, tiles_of(world))
        with suspended():
            settings.applied = text
            settings.status = water[0].upper() + water[1:] if water else "Water updated"
        return settings.status
    try:
        return regenerate_world(world, context)
    except (ValueError, TypeError, RuntimeError) as err:
        settings.status = f"Not regenerated: {err}"
        return None


_busy = [0]
_MSGBUS_OWNER = object()


def _on_msgbus() -> None:
    """Some terrain setting changed (the world's spec uses the terrain's property groups): check every world."""
    if _busy[0]:
        return
    _busy[0] += 1
    try:
        for world in bpy.data.collections:
            if world.orogen_tiles.is_world and world.users > 0:
                on_world_changed(world, bpy.context)
    finally:
        _busy[0] -= 1


def subscribe() -> None:
    """Watch every spec property through the message bus (in the user interface and in background sessions;
    property update callbacks are the terrain objects' own)."""
    bpy.msgbus.clear_by_owner(_MSGBUS_OWNER)
    for cls in Groups.classes:
        for prop in cls.bl_rna.properties:
            if prop.identifier in ("rna_type", "name", "status", "applied", "preview_pending") or prop.type in (
                "POINTER",
                "COLLECTION",
            ):
                continue
            bpy.msgbus.subscribe_rna(key=(cls, prop.identifier), owner=_MSGBUS_OWNER, args=(), notify=_on_msgbus)


@bpy.app.handlers.persistent
def _on_load_post(*_args) -> None:
    subscribe()  # loading a file clears the message bus


# --- properties --------------------------------------------------------------------------------------------
class OROGEN_PG_tiles_world(bpy.types.PropertyGroup):
    """A collection holding a world of terrain tiles."""

    is_world: bpy.props.BoolProperty(name="Is Tile World", default=False, options={"HIDDEN"})
    tiles_x: bpy.props.IntProperty(name="Tiles X", min=1, max=64, default=3, description="Tiles west to east")
    tiles_y: bpy.props.IntProperty(name="Tiles Y", min=1, max=64, default=3, description="Tiles north to south")
    lod_levels: bpy.props.IntProperty(
        name="LOD Levels",
        min=0,
        max=12,
        default=2,
        description="Coarsest level of detail set from the 3D cursor: each level halves a tile's vertices per side",
    )
    live_update: bpy.props.BoolProperty(
        name="Live Update", default=True, description="Regenerate every tile when the world's settings change"
    )
    applied: bpy.props.StringProperty(name="Applied Spec", default="", options={"HIDDEN"})
    status: bpy.props.StringProperty(name="Status", default="", options={"HIDDEN", "SKIP_SAVE"})


class OROGEN_PG_tile(bpy.types.PropertyGroup):
    """A terrain tile: its place in the world and its level of detail."""

    is_tile: bpy.props.BoolProperty(name="Is Tile", default=False, options={"HIDDEN"})
    world: bpy.props.PointerProperty(
        type=bpy.types.Collection, name="World", description="The collection holding the world's spec"
    )
    ty: bpy.props.IntProperty(name="Tile Row", min=0, default=0, description="Tile row, north first")
    tx: bpy.props.IntProperty(name="Tile Column", min=0, default=0, description="Tile column, west first")
    level: bpy.props.IntProperty(
        name="Level of Detail",
        min=0,
        max=12,
        default=0,
        description="0 = full resolution; each level halves the vertices per side",
    )
    applied: bpy.props.StringProperty(name="Applied", default="", options={"HIDDEN"})


# --- operators ---------------------------------------------------------------------------------------------
def _tile_reason(context) -> str | None:
    obj = getattr(context, "active_object", None)
    if world_of(obj) is None:
        return "Select a terrain tile first"
    return mode_reason(context)


class OROGEN_OT_tiles_add(bpy.types.Operator, object_utils.AddObjectHelper):
    """Add a world of terrain tiles: an N x M grid of terrain objects, each a window of one spec, seamless"""

    bl_idname = "orogen.tiles_add"
    bl_label = "Add Terrain Tiles"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return poll_with(cls, mode_reason(context))

    def draw(self, _context):
        col = self.layout.column()
        col.prop(self, "tiles_x")
        col.prop(self, "tiles_y")
        draw_spec(self.layout, self, operator=True)
        col = self.layout.column()
        col.prop(self, "align")
        col.prop(self, "location")
        col.prop(self, "rotation")

    def execute(self, context):
        try:
            with suspended():
                spec = take_operator_spec(self)
            world_grid(spec, self.tiles_y, self.tiles_x)
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Tiles not added: {err}")
            return {"CANCELLED"}
        world = bpy.data.collections.new("Terrain World")
        context.scene.collection.children.link(world)
        _busy[0] += 1
        try:
            with suspended():
                write_spec(world.orogen_world, spec)
                settings = world.orogen_tiles
                settings.is_world = True
                settings.tiles_x, settings.tiles_y = self.tiles_x, self.tiles_y
            matrix = object_utils.add_object_align_init(context, self)
            for ty in range(self.tiles_y):
                for tx in range(self.tiles_x):
                    name = f"Tile_x{tx}_y{ty}"
                    obj = bpy.data.objects.new(name, bpy.data.meshes.new(name))
                    world.objects.link(obj)
                    obj.matrix_world = matrix
                    with suspended():
                        obj.orogen_tile.is_tile = True
                        obj.orogen_tile.world = world
                        obj.orogen_tile.ty, obj.orogen_tile.tx = ty, tx
            status = regenerate_world(world, context)
        except (ValueError, TypeError, RuntimeError) as err:
            remove_water(world)
            materials = set()
            for obj in list(world.objects):
                mesh = obj.data
                materials.update(mesh.materials)
                bpy.data.objects.remove(obj)
                bpy.data.meshes.remove(mesh)
            _drop_unused(materials)  # the tiles' material, made by this add
            bpy.data.collections.remove(world)
            self.report({"ERROR"}, f"Tiles not added: {err}")
            return {"CANCELLED"}
        finally:
            _busy[0] -= 1
        for obj in context.view_layer.objects:
            obj.select_set(False)
        first = tiles_of(world)[(0, 0)]
        first.select_set(True)
        context.view_layer.objects.active = first
        self.report({"INFO"}, status)
        return {"FINISHED"}


class OROGEN_OT_tiles_regenerate(bpy.types.Operator):
    """Regenerate every tile of the active tile's world from the world's spec"""

    bl_idname = "orogen.tiles_regenerate"
    bl_label = "Regenerate Tiles"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return poll_with(cls, _tile_reason(context))

    def execute(self, context):
        world = world_of(context.active_object)
        try:
            status = regenerate_world(world, context)
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Tiles not regenerated: {err}")
            return {"CANCELLED"}
        self.report({"INFO"}, status)
        return {"FINISHED"}


class OROGEN_OT_tile_rebuild(bpy.types.Operator):
    """Rebuild the selected tiles alone (at their level of detail), and the edges of their neighbours"""

    bl_idname = "orogen.tile_rebuild"
    bl_label = "Rebuild Tile"
    bl_options = {"REGISTER", "UNDO"}

    level: bpy.props.IntProperty(
        name="Level of Detail",
        min=-1,
        max=12,
        default=-1,
        description="New level for the selected tiles (-1 keeps each tile's own)",
    )

    @classmethod
    def poll(cls, context):
        return poll_with(cls, _tile_reason(context))

    def execute(self, context):
        world = world_of(context.active_object)
        chosen = [o for o in context.selected_objects if world_of(o) == world] or [context.active_object]
        keys = [(o.orogen_tile.ty, o.orogen_tile.tx) for o in chosen]
        try:
            if self.level >= 0:
                status = set_levels(world, context, {k: self.level for k in keys})
            else:
                status = regenerate_world(world, context, only=keys)
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Tile not rebuilt: {err}")
            return {"CANCELLED"}
        self.report({"INFO"}, status)
        return {"FINISHED"}


class OROGEN_OT_tiles_lod(bpy.types.Operator):
    """Set each tile's level of detail from the 3D cursor: full resolution under it, coarser ring by ring"""

    bl_idname = "orogen.tiles_lod"
    bl_label = "Level of Detail from Cursor"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return poll_with(cls, _tile_reason(context))

    def execute(self, context):
        world = world_of(context.active_object)
        try:
            status = set_levels(world, context, levels_from_point(world, context.scene.cursor.location))
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Levels not set: {err}")
            return {"CANCELLED"}
        self.report({"INFO"}, status)
        return {"FINISHED"}


#: Tile files an export writes: folder, extension (the conventions of ``scripts/build_world.py``).
TILE_FORMATS = {"PNG16": ("unreal", ".png"), "R16": ("unity", ".r16"), "EXR": ("exr", ".exr")}


def tile_file(fmt: str, name: str, ty: int, tx: int, tiles_y: int) -> str:
    """Relative path of tile ``(ty, tx)`` in ``fmt``: ``_x{X}_y{Y}`` with X the column from the west and Y the row
    from the north (Unreal, EXR) or from the south (Unity's RAW tiles, +Z north)."""
    folder, ext = TILE_FORMATS[fmt]
    y = tiles_y - 1 - ty if fmt == "R16" else ty
    return f"{folder}/{name}_x{tx}_y{y}{ext}"


def export_world(world, context, directory: str, name: str, fmts) -> list[str]:
    """Write every tile of ``world`` at full resolution (whatever its level of detail) in ``fmts``; the paths.

    As ``scripts/build_world.py`` writes them: 16-bit PNG (``0 -> 0``, ``1 -> 65535``, row 0 north), RAW
    little-endian uint16 with its first row the tile's south edge (Unity), 32-bit float EXR (channel ``Y``,
    normalised); neighbours share their edge rows and columns byte for byte. The values are the heights
    normalised over the world's range after the filters (with Fit Height, or heights within [0, 1]: the
    heights themselves, 0 and 1 standing for 0 m and Height), so uplift above Height is not clipped;
    ``NAME.json`` beside the folders records the metres 0 and 1 stand for and the spec. All files are staged
    and then committed together (verified, atomic).
    """
    folder = check_path(directory)
    cache = world_cache(world, context)
    tiles = tiles_of(world)
    ny = cache.grid.tiles[0]
    stage = stage_dir(folder)
    pairs = []
    low, high = cache.filtered_range
    if low >= 0.0 and high <= 1.0:  # the files hold the heights themselves: 0 -> 0 m, 1 -> Height
        low, high = 0.0, 1.0
    try:
        for ty, tx in sorted(tiles):
            heights = cache.tile(ty, tx, 0)[0]
            if (low, high) != (0.0, 1.0):  # version 3 raised above Height (or lowered below 0): not clipped
                heights = normalize(heights, (low, high))
            levels = to_uint16(heights)
            for fmt in fmts:
                rel = tile_file(fmt, name, ty, tx, ny)
                staged = os.path.join(stage, rel.replace("/", "_"))
                if fmt == "PNG16":
                    write_image(staged, levels.astype(np.float64) / 65535.0, depth="16")
                elif fmt == "EXR":
                    write_image(staged, heights, depth="32", file_format="OPEN_EXR")
                else:
                    with open(staged, "wb") as f:
                        f.write(np.ascontiguousarray(levels[::-1]).astype("<u2").tobytes())
                pairs.append((staged, os.path.join(folder, rel)))
        metres = {
            "low": low * cache.spec.height,
            "high": high * cache.spec.height,
            "formula": "metres = low + value * (high - low), value in 0..1 (16-bit levels / 65535)",
        }
        staged = os.path.join(stage, name + ".json")
        with open(staged, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "format": "orogen-tiles",
                    "spec": cache.spec.to_dict(),
                    "metres": metres,
                    "tiles_y": ny,
                    "tiles_x": cache.grid.tiles[1],
                    "tile": cache.grid.tile,
                    "cell_size_m": cache.spec.cell_size,
                },
                f,
                indent=1,
                sort_keys=True,
            )
        pairs.append((staged, os.path.join(folder, name + ".json")))
        made = []  # the folders, once every file is staged; removed again if the export fails
        try:
            for target in sorted({os.path.dirname(t) for _, t in pairs}):
                if not os.path.isdir(target):
                    os.makedirs(target)
                    made.append(target)
            commit(pairs, (cache.grid.tile, cache.grid.tile))
        except BaseException:
            for target in reversed(made):
                with contextlib.suppress(OSError):
                    os.rmdir(target)  # only if still empty
            raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return [target for _, target in pairs]


class OROGEN_OT_tiles_export(bpy.types.Operator):
    """Export every tile of the active tile's world as engine terrain tiles (16-bit PNG, RAW .r16, EXR)"""

    bl_idname = "orogen.tiles_export"
    bl_label = "Export Tiles"
    bl_options = {"REGISTER"}

    directory: bpy.props.StringProperty(name="Folder", subtype="DIR_PATH", default="//tiles/")
    name: bpy.props.StringProperty(name="Name", default="terrain", description="File name stem of every tile")
    png16: bpy.props.BoolProperty(
        name="16-bit PNG (Unreal)",
        default=True,
        description="Grey 16-bit PNG per tile in unreal/ (Unreal World Partition names)",
    )
    r16: bpy.props.BoolProperty(
        name="RAW .r16 (Unity)",
        default=True,
        description="Little-endian 16-bit RAW per tile in unity/ (Unity terrain tiles)",
    )
    exr: bpy.props.BoolProperty(
        name="OpenEXR",
        default=True,
        description="32-bit float OpenEXR per tile in exr/ (the same 0..1 values, unquantised)",
    )

    @classmethod
    def poll(cls, context):
        return poll_with(cls, _tile_reason(context))

    def invoke(self, context, _event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        world = world_of(context.active_object)
        fmts = [f for f, on in (("PNG16", self.png16), ("R16", self.r16), ("EXR", self.exr)) if on]
        name = self.name.strip()
        if not fmts or not name or any(c in name for c in "/\\:") or len(name.encode("utf-8")) > 200:
            self.report(
                {"ERROR"}, "Tiles not exported: choose a format and a file name without slashes, at most 200 bytes long"
            )
            return {"CANCELLED"}
        try:
            written = export_world(world, context, self.directory, name, fmts)
        except (ValueError, TypeError, OSError, RuntimeError) as err:  # RuntimeError: Blender's image writer
            self.report({"ERROR"}, f"Tiles not exported: {err}")
            return {"CANCELLED"}
        self.report({"INFO"}, f"Exported {len(written)} tile files to {os.path.dirname(os.path.dirname(written[0]))}")
        return {"FINISHED"}


class VIEW3D_PT_orogen_tiles(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Terrain"
    bl_label = "Terrain Tiles"

    @classmethod
    def poll(cls, context):
        return world_of(getattr(context, "active_object", None)) is not None

    def draw(self, context):
        layout = self.layout
        obj = context.active_object
        world = world_of(obj)
        settings = world.orogen_tiles
        layout.label(text=f"{world.name}: {settings.tiles_x} x {settings.tiles_y} tiles", icon="MESH_GRID")
        row = layout.row(align=True)
        row.prop(settings, "live_update", toggle=True, icon="FILE_REFRESH")
        row.operator(OROGEN_OT_tiles_regenerate.bl_idname, text="Regenerate All")
        row = layout.row(align=True)
        row.prop(obj.orogen_tile, "level", text=f"{obj.name} LOD")
        row.operator(OROGEN_OT_tile_rebuild.bl_idname, text="Rebuild Tile")
        row = layout.row(align=True)
        row.prop(settings, "lod_levels")
        row.operator(OROGEN_OT_tiles_lod.bl_idname, text="LOD from Cursor", icon="PIVOT_CURSOR")
        layout.operator(OROGEN_OT_tiles_export.bl_idname, icon="EXPORT")
        if settings.status:
            layout.label(text=settings.status, icon="INFO")
        layout.label(text="World (Size = tile vertices, Width = tile width)")
        draw_spec(layout, world.orogen_world, operator=True)


def menu_func(self, _context):
    self.layout.operator(OROGEN_OT_tiles_add.bl_idname, text="Terrain Tiles", icon="MESH_GRID")


classes = (
    OROGEN_PG_tiles_world,
    OROGEN_PG_tile,
    OROGEN_OT_tiles_add,
    OROGEN_OT_tiles_regenerate,
    OROGEN_OT_tile_rebuild,
    OROGEN_OT_tiles_lod,
    OROGEN_OT_tiles_export,
    VIEW3D_PT_orogen_tiles,
)


def register() -> None:
    OROGEN_OT_tiles_add.__annotations__ = {
        "tiles_x": bpy.props.IntProperty(name="Tiles X", min=1, max=64, default=3, description="Tiles west to east"),
        "tiles_y": bpy.props.IntProperty(name="Tiles Y", min=1, max=64, default=3, description="Tiles north to south"),
        **spec_annotations(),
        "spec": bpy.props.StringProperty(
            name="Spec",
            default="",
            options={"HIDDEN", "SKIP_SAVE"},
            description="World spec as JSON (replaces every other setting)",
        ),
        "set": bpy.props.StringProperty(
            name="Set",
            default="",
            options={"HIDDEN", "SKIP_SAVE"},
            description="Settings by name, 'NAME=VALUE; NAME=VALUE'",
        ),
        "defaults_filled": bpy.props.BoolProperty(default=False, options={"HIDDEN", "SKIP_SAVE"}),
    }
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Collection.orogen_world = bpy.props.PointerProperty(type=Groups.terrain, name="Orogen World")
    bpy.types.Collection.orogen_tiles = bpy.props.PointerProperty(type=OROGEN_PG_tiles_world, name="Orogen Tiles")
    bpy.types.Object.orogen_tile = bpy.props.PointerProperty(type=OROGEN_PG_tile, name="Orogen Tile")
    bpy.types.VIEW3D_MT_mesh_add.append(menu_func)
    subscribe()
    bpy.app.handlers.load_post.append(_on_load_post)


def unregister() -> None:
    if _on_load_post in bpy.app.handlers.load_post:
        bpy.app.handlers.load_post.remove(_on_load_post)
    bpy.msgbus.clear_by_owner(_MSGBUS_OWNER)
    bpy.types.VIEW3D_MT_mesh_add.remove(menu_func)
    del bpy.types.Object.orogen_tile
    del bpy.types.Collection.orogen_tiles
    del bpy.types.Collection.orogen_world
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
