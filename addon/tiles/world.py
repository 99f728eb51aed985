"""A world of tiles in Blender: tile objects written from :mod:`core.world`'s arrays, seamless at their edges.

The world's spec lives once, on the tiles' collection (``collection.orogen_world``, the same property group as a
terrain's ``obj.orogen``); its Size is the tile size in vertices and its Width the width of one tile, so the
world has the spec's cell size and ``(tiles - 1) * (size - 1) + size`` vertices per side. Each tile object
records its window and its level of detail (``obj.orogen_tile``). Core does the exact part
(:mod:`core.world`: a window of a world equals the same cells of the whole world bit for bit) and the
arithmetic of the tiles (:class:`core.world.WorldCache`: margins, positions, snapped edges); this module
moves their arrays into the Blender objects.

Seams:

- **Positions.** Every tile's vertices are written in the world's own frame (centred on the world, not on
  the tile), from the world row and column of each vertex, and every tile object has the same transform: a
  vertex shared by two tiles has bit-identical coordinates in both.
- **Maps.** Slope, curvature and the lightmap of a tile are baked on its window grown by the margin they read
  (:func:`core.world.spec_margins`: one cell for Horn's gradient, the curvature and the slope lighting;
  the ambient-occlusion radius; the cast shadows' reach over the world's relief in metres, which version 3's
  uplift may raise above Height, toward the sun only) and then cropped, so a cell's maps are those of the whole
  world: cast shadows trace the world's rays (:func:`core.shading.cast_shadows` with the window's origin).
- **Level of detail.** A tile at level ``k`` keeps every ``2^k``-th vertex of its window (``(size - 1) / 2^k + 1``
  per side), so its vertices are vertices of the full-resolution tile, with the same values. Where a finer
  tile meets a coarser one, the finer tile's edge vertices between two coarse vertices are moved onto the
  straight line between them (their ``height`` attribute too): no cracks, no skirts.

Water: one object for the whole world (:func:`sync_tile_water`, :func:`water.sync_world_water`), walled at the
world's outer edge only (:func:`world_edge_ring`), so no wall stands inside the water where two tiles meet.
"""

import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field

import bpy
import numpy as np

from ...core import inputs as core_inputs
from ...core.progress import Cancelled
from ...core.spec import TerrainSpec
from ...core.world import TILE_EDGES, TileGrid, WorldCache, max_level, snap_edges, world_grid, world_recipe
from ..inputs import INPUTS_PROPERTY, gather
from ..jobs import running
from ..live import add_kind, remove_kind, suspended
from ..material import bake_unlit_color, checked_layers, new_material
from ..mesh import tag_positions_changed, update_grid_mesh
from ..poll import mode_reason, selected_active
from ..specio import read_spec
from ..terrain.compute import check_memory, inputs_digest, scene_sun
from .water_edge import sync_tile_water

#: Custom property of a world collection: the world's ranges, with the recipe they belong to (reused by
#: rebuilding one tile).
RANGES_PROPERTY = "orogen_world_ranges"


def world_of(obj):
    """The world collection of tile ``obj`` (or ``None``)."""
    if obj is None or obj.type != "MESH" or not obj.orogen_tile.is_tile:
        return None
    world = obj.orogen_tile.world
    return world if world is not None and world.orogen_tiles.is_world else None


def tile_reason(context) -> str | None:
    """Why the active object's world cannot be edited now (not a selected tile, not in Object Mode), or ``None``."""
    obj = selected_active(context)
    if world_of(obj) is None:
        return "Select a terrain tile first"
    return mode_reason(context)


@dataclass
class Census:
    """A world's tiles counted by the world's own record (``orogen_tiles.record``), not by what its collection
    holds: ``tiles`` ``{(ty, tx): obj}`` wherever each is now; ``missing`` the places of the grid with no tile
    (deleted); ``moved`` the tiles no longer in the world's collection; ``copies`` objects that claim to be a
    tile of the world but are not the one its record names (a Shift+D duplicate, a copy pasted in)."""

    tiles: dict = field(default_factory=dict)
    missing: list = field(default_factory=list)
    moved: list = field(default_factory=list)
    copies: list = field(default_factory=list)

    def notes(self) -> list[str]:
        """What the user should know about the world's tiles, one line per kind (empty when all is well)."""

        def names(items, show):
            return ", ".join(show(i) for i in items[:4]) + (" ..." if len(items) > 4 else "")

        notes = []
        if self.missing:
            notes.append(f"tile {names(self.missing, _place)} missing (deleted): Export Tiles still writes it")
        if self.moved:
            notes.append(
                f"tile {names(self.moved, lambda o: f'{_place(_key(o))} ({o.name})')} is outside the world's "
                "collection: still a tile of the world"
            )
        if self.copies:
            notes.append(
                f"{names(self.copies, lambda o: f'{o.name} (of {_place(_key(o))})')}: a copy, not a tile of the "
                "world: not rebuilt or exported (delete it)"
            )
        return notes


def _key(obj) -> tuple[int, int]:
    return obj.orogen_tile.ty, obj.orogen_tile.tx


def _place(key) -> str:
    return f"x{key[1]} y{key[0]}"


def claimants(world) -> list:
    """Every object in a scene's collections that says it is a tile of ``world`` (its own tiles and copies)."""
    return [
        o
        for o in bpy.data.objects
        if o.type == "MESH" and o.orogen_tile.is_tile and o.orogen_tile.world == world and o.users_collection
    ]


def census(world) -> Census:
    """``world``'s tiles as its record names them (:class:`Census`). Reads only: :func:`remember` writes.

    The record holds each place's tile name and mark (a token also on the tile, ``orogen_tile.mark``). A copy
    carries the mark too, so among the objects with a place's mark the one with the recorded name is the tile
    (the record follows a rename once it is the only one); without one of that name, the first made. A world
    from before the record (Orogen 0.2) is counted by its collection, each place's first by name.
    """
    settings = world.orogen_tiles
    found = claimants(world)
    try:
        record = json.loads(settings.record) if settings.record else None
    except ValueError:
        record = None
    out = Census()
    if not isinstance(record, dict):  # no record yet: the collection's tiles are the world's
        for o in sorted((o for o in found if world in o.users_collection), key=lambda o: o.name):
            out.tiles.setdefault(_key(o), o)
    else:
        for place, entry in record.items():
            try:
                key = tuple(int(v) for v in place.split(","))
                name, mark = str(entry["name"]), str(entry["mark"])
            except (ValueError, TypeError, KeyError):
                continue
            same = [o for o in found if _key(o) == key and o.orogen_tile.mark == mark]
            named = [o for o in same if o.name == name]
            chosen = named[0] if named else min(same, key=lambda o: o.session_uid, default=None)
            if chosen is not None:
                out.tiles[key] = chosen
    for ty in range(settings.tiles_y):
        for tx in range(settings.tiles_x):
            if (ty, tx) not in out.tiles:
                out.missing.append((ty, tx))
    chosen_ids = {o.session_uid for o in out.tiles.values()}
    out.copies = sorted((o for o in found if o.session_uid not in chosen_ids), key=lambda o: o.name)
    out.moved = [o for _k, o in sorted(out.tiles.items()) if world not in o.users_collection]
    return out


def remember(world, tiles: dict) -> None:
    """Write ``world``'s record of its tiles ``{(ty, tx): obj}``: each tile's name and mark (a new mark for a tile
    without one)."""
    record = {}
    for (ty, tx), obj in sorted(tiles.items()):
        with suspended():
            if not obj.orogen_tile.mark:
                obj.orogen_tile.mark = secrets.token_hex(8)
        record[f"{ty},{tx}"] = {"name": obj.name, "mark": obj.orogen_tile.mark}
    text = json.dumps(record, sort_keys=True)
    if world.orogen_tiles.record != text:
        with suspended():
            world.orogen_tiles.record = text


def tiles_of(world) -> dict:
    """``{(ty, tx): obj}`` of the world's tiles, by its record (:func:`census`): copies are not among them, a tile
    moved to another collection is."""
    return census(world).tiles


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


def check_world_memory(spec: TerrainSpec, tiles_y: int, tiles_x: int) -> None:
    """Refuse (``ValueError``, before anything is made) a world whose tiles would not fit in memory together:
    the guard of one terrain (:func:`..terrain.compute.check_memory`) on every vertex of the world, the tiles'
    meshes all being in Blender at once."""
    rows, cols = world_grid(spec, tiles_y, tiles_x).shape
    try:
        check_memory(rows, cols)
    except ValueError as err:
        raise ValueError(
            f"a world of {tiles_y} x {tiles_x} tiles of {spec.size} vertices: {err}, or fewer tiles"
        ) from None


def world_cache(world, context, progress=None) -> WorldCache:
    """The :class:`WorldCache` of ``world``'s spec now (its ranges reused when the recipe is unchanged);
    ``progress(done, total)`` follows a whole world's evaluation (:class:`core.world.WorldCache`)."""
    spec = read_spec(world.orogen_world)
    settings = world.orogen_tiles
    grid = world_grid(spec, settings.tiles_y, settings.tiles_x)
    sun = scene_sun(context.scene) if spec.lighting["use_scene_sun"] and getattr(context, "scene", None) else None
    key = world_recipe(spec, grid.shape).to_json() + inputs_digest(core_inputs.current())
    cache = WorldCache(spec, grid, sun, _ranges(world, key), progress=progress)
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
    tag_positions_changed(mesh)
    mesh.update()


def _neighbour_levels(tiles: dict, ty: int, tx: int, top: int) -> dict:
    """``{edge: level}`` of the tile's neighbours (as built: at most ``top``)."""
    out = {}
    for edge, ((dy, dx), _where) in TILE_EDGES.items():
        key = (ty + dy, tx + dx)
        if key in tiles:
            out[edge] = min(tiles[key].orogen_tile.level, top)
    return out


def tile_level(obj, cache: WorldCache) -> int:
    """The level of detail tile ``obj`` is built at (its own, at most the tile size allows)."""
    return min(obj.orogen_tile.level, max_level(cache.grid.tile))


def build_tile(obj, cache: WorldCache, tiles: dict, material=None, tile=None) -> None:
    """(Re)write tile ``obj``'s mesh from ``cache`` at its level, snapped to its coarser neighbours (``tile``:
    its :meth:`core.world.WorldCache.tile` at that level when already computed)."""
    t = obj.orogen_tile
    top = max_level(cache.grid.tile)
    level = tile_level(obj, cache)
    if tile is None:
        tile = cache.tile(t.ty, t.tx, level)
    snap_edges(tile.positions, tile.heights, level=level, neighbour_levels=_neighbour_levels(tiles, t.ty, t.tx, top))
    update_grid_mesh(obj.data, tile.heights, cache.spec.width, cache.spec.height, tile.lightmap, tile.maps)
    _write_positions(obj.data, tile.positions)
    if material is not None:
        if obj.data.materials:
            obj.data.materials[0] = material
        else:
            obj.data.materials.append(material)
    elif not cache.spec.material["enabled"] and obj.data.materials:
        obj.data.materials[0] = None
    bake_unlit_color(obj, cache.spec)
    with suspended():
        t.applied = json.dumps({"spec": cache.spec.to_json(), "level": level, "positions": positions_digest(obj.data)})


def positions_digest(mesh) -> str:
    """SHA-256 of ``mesh``'s vertex positions (float32, read through the ``position`` attribute)."""
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    attribute = mesh.attributes.get("position")
    if attribute is not None:
        attribute.data.foreach_get("vector", co)
    else:
        mesh.vertices.foreach_get("co", co)
    return hashlib.sha256(co.tobytes()).hexdigest()


def hand_edited(obj) -> bool:
    """Whether tile ``obj``'s mesh is no longer what Orogen last built (moved vertices, added or removed ones);
    ``False`` for a tile built before Orogen recorded its positions."""
    try:
        digest = json.loads(obj.orogen_tile.applied).get("positions")
    except (ValueError, AttributeError):
        return False
    return isinstance(digest, str) and digest != positions_digest(obj.data)


def _world_material(world, spec: TerrainSpec):
    """A fresh material for the world's tiles (``None`` when the spec's material is off)."""
    if not spec.material["enabled"]:
        return None
    checked_layers(spec)
    return new_material(world.name, spec)


def drop_unused(materials) -> None:
    """Remove the materials of ``materials`` that nothing uses any more (``None`` entries are skipped)."""
    for material in materials:
        if material is not None and material.users == 0:
            bpy.data.materials.remove(material)


@dataclass
class WorldBuild:
    """A rebuild of a world's tiles: what :func:`plan_world` read from Blender (main thread) and what
    :func:`compute_world` made of it (numpy only, any thread: nothing in Blender is touched)."""

    spec: TerrainSpec
    grid: TileGrid
    sun: tuple[float, float] | None
    ranges: object  # the stored ranges when the recipe is unchanged, else None
    levels: dict  # {(ty, tx): level} of the tiles to rebuild
    everything: bool = True  # every tile of the world (no ``only``): a new material, the spec applied
    cache: WorldCache | None = None
    made: dict = field(default_factory=dict)  # {(ty, tx): core.world.TileMaps}
    #: The objects the spec reads (:func:`..inputs.gather`, main thread), in the world's frame: its centre at the
    #: scene's origin.
    inputs: dict = field(default_factory=dict)


def plan_world(world, context, only=None, levels=None) -> WorldBuild:
    """What rebuilding ``world``'s tiles (those at the ``only`` keys; at the ``levels`` ``{(ty, tx): level}``
    given, else their own) needs; ``ValueError``/``TypeError`` naming a bad setting (:func:`check_world_memory`
    included). Reads only."""
    spec = read_spec(world.orogen_world)
    settings = world.orogen_tiles
    check_world_memory(spec, settings.tiles_y, settings.tiles_x)
    grid = world_grid(spec, settings.tiles_y, settings.tiles_x)
    sun = scene_sun(context.scene) if spec.lighting["use_scene_sun"] and getattr(context, "scene", None) else None
    tiles = census(world).tiles
    keys = sorted(tiles) if only is None else [k for k in sorted(set(only)) if k in tiles]
    top = max_level(grid.tile)
    levels = {k: min((levels or {}).get(k, tiles[k].orogen_tile.level), top) for k in keys}
    inputs = gather(spec, None, context)
    ranges = _ranges(world, world_recipe(spec, grid.shape).to_json() + inputs_digest(inputs))
    return WorldBuild(spec, grid, sun, ranges, levels, everything=only is None, inputs=inputs)


def compute_world(build: WorldBuild, progress=None) -> WorldBuild:
    """Compute ``build``'s world (:class:`core.world.WorldCache`) and its tiles; ``progress(done, total)`` returning
    ``False`` raises ``core.Cancelled``. Numpy only: safe in a worker thread."""
    part = progress or (lambda _done, _total: True)
    with core_inputs.using(build.inputs):
        build.cache = WorldCache(
            build.spec, build.grid, build.sun, build.ranges, progress=lambda d, t: part(d, 2 * max(t, 1))
        )
        count = len(build.levels)
        for i, (key, level) in enumerate(sorted(build.levels.items())):
            build.made[key] = build.cache.tile(*key, level)
            if part(count + i + 1, 2 * count) is False:
                raise Cancelled(f"cancelled after {i + 1} of {count} tiles", done=i + 1, total=count)
    return build


def apply_world(world, build: WorldBuild, started: float) -> str:
    """Write a computed ``build`` into ``world``'s tiles (main thread; not cancellable); a status line."""
    cache = build.cache
    assert cache is not None
    settings = world.orogen_tiles
    if cache.whole is None:
        key = cache.recipe.to_json() + inputs_digest(build.inputs)
        world[RANGES_PROPERTY] = json.dumps({"recipe": key, "ranges": [list(r) for r in cache.ranges]})
    counted = census(world)
    tiles = counted.tiles
    remember(world, tiles)
    keys = [k for k in sorted(build.levels) if k in tiles]
    old = {o.data.materials[0] for o in tiles.values() if o.data.materials}
    material = _world_material(world, cache.spec) if build.everything or len(old) != 1 else next(iter(old))
    try:
        for key in keys:
            made = build.made.pop(key, None)  # (recomputed if its level changed meanwhile)
            build_tile(
                tiles[key], cache, tiles, material, made if tile_level(tiles[key], cache) == build.levels[key] else None
            )
    except BaseException:
        if material not in old:
            drop_unused([material])  # made for this build and on no tile yet
        raise
    drop_unused(old)
    water = sync_tile_water(world, cache.spec, tiles)
    status = "; ".join(
        [
            f"Rebuilt {len(keys)} of {settings.tiles_y * settings.tiles_x} tiles ({cache.grid.shape[0]} x "
            f"{cache.grid.shape[1]} world, margin {cache.margin} cells) in {time.perf_counter() - started:.2f} s",
            *counted.notes(),
            *([water] if water else []),
        ]
    )
    with suspended():
        if build.everything:
            world.orogen_tiles.applied = cache.spec.to_json()
            world[INPUTS_PROPERTY] = inputs_digest(build.inputs)  # what a live update compares (inputs_changed)
        world.orogen_tiles.status = status
    return status


def regenerate_world(world, context, only=None) -> str:
    """Rebuild the world's tiles (or the tiles at the ``only`` keys) from its spec, with progress; a status line.

    All or nothing: every tile is computed first (:func:`compute_world`, with the progress of
    :func:`..jobs.running`; a cancel raises ``core.Cancelled`` and leaves the world as it was), then written
    (:func:`apply_world`). Raises ``ValueError``/``TypeError`` naming a bad setting.
    """
    started = time.perf_counter()
    with running("Building tiles", context) as job:
        build = compute_world(plan_world(world, context, only), job.part(0.0, 0.95))
        return apply_world(world, build, started)


class WorldTarget:
    """A world of tiles as a target of the live-update engine (:mod:`..live`): its spec on the collection
    (``orogen_world``), its state in ``orogen_tiles``; every tile rebuilt when what they are made of changes."""

    restyles = False  # the tiles share one material: a layer edit rebuilds the tiles (and it)

    def __init__(self, world) -> None:
        self.owner = world
        self.settings = world.orogen_world
        self.state = world.orogen_tiles

    def busy(self) -> str | None:
        """Never busy: its tiles are rebuilt whatever their mode."""
        return None

    def inputs_changed(self, context) -> bool:
        """Whether the objects the world's spec reads differ from those its tiles were made from; a spec that
        reads none says no, one whose objects cannot be read says yes (the update says why)."""
        try:
            spec = read_spec(self.settings)
            if not spec.objects() and spec.generator != "file":
                return False
            inputs = gather(spec, None, context)
        except (ValueError, TypeError):
            return True
        return inputs_digest(inputs) != self.owner.get(INPUTS_PROPERTY, "")

    def rewater(self, spec: TerrainSpec, text: str) -> str:
        """The world's one water object follows its tiles as they are; the status says when it could not."""
        water = sync_tile_water(self.owner, spec, tiles_of(self.owner))  # the tiles stay as they are
        with suspended():
            self.state.applied = text
        return water[0].upper() + water[1:] if water else "Water updated"

    def restyle(self, spec: TerrainSpec, text: str) -> str:
        """Not used (``restyles`` is False): the tiles are rebuilt with their new material."""
        return self.regenerate(spec, bpy.context)

    def regenerate(self, spec: TerrainSpec, context) -> str:
        """Every tile rebuilt from the world's spec (:func:`regenerate_world`)."""
        return regenerate_world(self.owner, context)


class Worlds:
    """The kind of :class:`WorldTarget`: collections holding a world of tiles."""

    @staticmethod
    def of(owner) -> WorldTarget | None:
        """The target of a collection holding a world of tiles, else ``None``."""
        if isinstance(owner, bpy.types.Collection) and owner.orogen_tiles.is_world:
            return WorldTarget(owner)
        return None

    @staticmethod
    def every() -> list[WorldTarget]:
        """Every world of tiles in ``bpy.data`` that is in use."""
        return [WorldTarget(world) for world in bpy.data.collections if world.orogen_tiles.is_world and world.users > 0]


def register() -> None:
    """Let the live-update engine follow worlds of tiles."""
    add_kind(Worlds)


def unregister() -> None:
    remove_kind(Worlds)
