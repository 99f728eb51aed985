"""Terrain Tiles operators: add a world, regenerate it, rebuild tiles, levels of detail from the 3D cursor."""

import time

import bpy
from bpy_extras import object_utils

from ...core.progress import Cancelled
from ...core.world import TILE_EDGES, TileGrid, max_level, tile_levels, world_grid
from ..inputs import gather
from ..jobs import BackgroundOperator, BackgroundTask, running
from ..live import suspended
from ..poll import locked_reason, mode_reason, poll_with
from ..properties import spec_annotations
from ..specio import read_spec, take_operator_spec, write_spec
from ..terrain.compute import scene_sun
from ..ui.draw import draw_spec
from ..water import remove_water
from .world import (
    WorldBuild,
    apply_world,
    check_world_memory,
    compute_world,
    drop_unused,
    plan_world,
    regenerate_world,
    remember,
    tile_reason,
    tiles_of,
    world_of,
)


def level_changes(world, levels: dict) -> tuple[dict, set]:
    """``(new levels, tiles to rebuild)`` of giving tiles new levels of detail (``{(ty, tx): level}``): those whose
    level or whose neighbours' levels change (their snapped edges). Reads only."""
    tiles = tiles_of(world)
    before = {k: o.orogen_tile.level for k, o in tiles.items()}
    top = max_level(world.orogen_world.size)
    after = {**before, **{k: max(0, min(int(v), top)) for k, v in levels.items() if k in tiles}}
    changed = {k for k in tiles if before[k] != after[k]}
    dirty = set(changed)
    for ty, tx in changed:
        dirty.update((ty + dy, tx + dx) for (dy, dx), _w in TILE_EDGES.values())
    return after, dirty & set(tiles)


def write_levels(world, levels: dict) -> None:
    """Give the world's tiles their ``levels`` ``{(ty, tx): level}``."""
    for key, obj in tiles_of(world).items():
        if key in levels:
            obj.orogen_tile.level = levels[key]


def set_levels(world, context, levels: dict) -> str:
    """Give tiles new levels of detail (``{(ty, tx): level}``) and rebuild those whose level or whose
    neighbours' levels changed; all or nothing (a cancel, ``core.Cancelled``, leaves the levels as they were)."""
    started = time.perf_counter()
    after, dirty = level_changes(world, levels)
    with running("Building tiles", context) as job:
        build = compute_world(plan_world(world, context, dirty, after), job.part(0.0, 0.95))
        write_levels(world, after)
        return apply_world(world, build, started)


def levels_from_point(world, point) -> dict:
    """Levels of detail from a point (the 3D cursor): full resolution on the tile under it, one level coarser
    per ring of tiles away (:func:`core.world.tile_levels`), at most the world's ``lod_levels``."""
    tiles = tiles_of(world)
    settings = world.orogen_tiles
    if not tiles:
        return {}
    spec_size = world.orogen_world.size
    cell = world.orogen_world.width / max(spec_size - 1, 1)
    local = next(iter(tiles.values())).matrix_world.inverted() @ point
    grid = TileGrid((settings.tiles_y * (spec_size - 1) + 1, settings.tiles_x * (spec_size - 1) + 1), spec_size)
    top = min(settings.lod_levels, max_level(spec_size))
    return tile_levels(grid, tiles, x=local.x, y=local.y, cell=cell, top=top)


class OROGEN_OT_tiles_add(BackgroundOperator, bpy.types.Operator, object_utils.AddObjectHelper):
    """Add a world of terrain tiles: an N x M grid of terrain objects, each a window of one spec, seamless"""

    bl_idname = "orogen.tiles_add"
    bl_label = "Add Terrain Tiles"
    bl_options = {"REGISTER", "UNDO"}
    _doing = "Building tiles"
    _failure = "Tiles not added"

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

    def _prepare(self):
        """The world's spec, checked (``ValueError``/``TypeError`` naming what is wrong); nothing is changed."""
        with suspended():
            spec = take_operator_spec(self)
        check_world_memory(spec, self.tiles_y, self.tiles_x)  # the grid's checks, then the whole world's memory
        return spec

    def execute(self, context):
        self._started = time.perf_counter()
        try:
            spec = self._prepare()
            world, status = self._make(context, spec, object_utils.add_object_align_init(context, self))
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Tiles not added: {err}")
            return {"CANCELLED"}
        except Cancelled:
            self.report({"WARNING"}, "Add Terrain Tiles cancelled: nothing was added")
            return {"CANCELLED"}
        return self._select(context, world, status)

    def _make(self, context, spec, matrix, build=None):
        """Add the world with ``spec`` at ``matrix``, its tiles built (from ``build`` when computed already);
        ``(world, status)``. All or nothing: on an error or a cancel what was made is removed before it goes on."""
        world = bpy.data.collections.new("Terrain World")
        context.scene.collection.children.link(world)
        try:
            with suspended():  # no live update of the world while it is made
                write_spec(world.orogen_world, spec)
                settings = world.orogen_tiles
                settings.is_world = True
                settings.tiles_x, settings.tiles_y = self.tiles_x, self.tiles_y
                made = {}
                for ty in range(self.tiles_y):
                    for tx in range(self.tiles_x):
                        name = f"Tile_x{tx}_y{ty}"
                        obj = bpy.data.objects.new(name, bpy.data.meshes.new(name))
                        world.objects.link(obj)
                        obj.matrix_world = matrix
                        obj.orogen_tile.is_tile = True
                        obj.orogen_tile.world = world
                        obj.orogen_tile.ty, obj.orogen_tile.tx = ty, tx
                        made[(ty, tx)] = obj
                remember(world, made)  # the world's own record of its tiles: a copy of one is not one of them
                if build is None:
                    status = regenerate_world(world, context)
                else:
                    status = apply_world(world, build, self._started)
        except BaseException:
            remove_water(world)
            materials = set()
            for obj in list(world.objects):
                mesh = obj.data
                materials.update(mesh.materials)
                bpy.data.objects.remove(obj)
                bpy.data.meshes.remove(mesh)
            drop_unused(materials)  # the tiles' material, made by this add
            bpy.data.collections.remove(world)
            raise
        return world, status

    def _select(self, context, world, status: str) -> set[str]:
        for obj in context.view_layer.objects:
            obj.select_set(False)
        first = tiles_of(world)[(0, 0)]
        first.select_set(True)
        context.view_layer.objects.active = first
        self._say("INFO", status)
        return {"FINISHED"}

    # From the UI (Add > Mesh > Terrain Tiles, F3) the world is computed in a worker thread while the operator runs
    # modal (progress in the status bar, Esc cancels and nothing is added); then its objects are made and written.
    def invoke(self, context, _event):
        if context.window is None:
            return self.execute(context)
        try:
            spec = self._prepare()
            grid = world_grid(spec, self.tiles_y, self.tiles_x)
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Tiles not added: {err}")
            return {"CANCELLED"}
        self._spec, self._matrix = spec, object_utils.add_object_align_init(context, self).copy()
        sun = scene_sun(context.scene) if spec.lighting["use_scene_sun"] else None
        try:
            inputs = gather(spec, None, context)
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Tiles not added: {err}")
            return {"CANCELLED"}
        build = WorldBuild(spec, grid, sun, None, dict.fromkeys(grid.indices(), 0), inputs=inputs)
        return self._begin(context, BackgroundTask(lambda progress: compute_world(build, progress)))

    def _wait_reason(self, context) -> str | None:
        return locked_reason(context) or mode_reason(context)

    def _apply(self, context, job: BackgroundTask) -> set[str]:
        try:
            world, status = self._make(context, self._spec, self._matrix, job.result)
        except (ValueError, TypeError, RuntimeError) as err:
            self._say("ERROR", f"Tiles not added: {err}")
            return {"CANCELLED"}
        return self._select(context, world, status)

    def _cancelled(self, context, by_user: bool) -> set[str]:
        self._say("WARNING", "Add Terrain Tiles cancelled: nothing was added")
        return {"CANCELLED"}


class WorldJob(BackgroundOperator):
    """Mixin of the operators that rebuild a world's tiles: from the UI the tiles are computed in a worker thread
    (:func:`.world.compute_world`) while the operator runs modal (progress in the status bar, Esc cancels and the
    world stays as it was); then written in the main thread. From Python ``execute`` runs, blocking."""

    _doing = "Building tiles"
    _failure = "Tiles not rebuilt"
    _what = "Tiles"

    def _request(self, context, world) -> tuple[set | None, dict | None]:
        """``(only, levels)``: the tiles to rebuild (``None``: all) and their new levels (``None``: their own)."""
        return None, None

    def invoke(self, context, _event):
        if context.window is None:
            return self.execute(context)
        world = world_of(context.active_object)
        try:
            self._only, self._levels = self._request(context, world)
            build = plan_world(world, context, self._only, self._levels)
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"{self._failure}: {err}")
            return {"CANCELLED"}
        self._world = world.name
        return self._begin(context, BackgroundTask(lambda progress: compute_world(build, progress)))

    def _wait_reason(self, context) -> str | None:
        return locked_reason(context)

    def _apply(self, context, job: BackgroundTask) -> set[str]:
        world = bpy.data.collections.get(self._world)
        if world is None or not world.orogen_tiles.is_world:
            self._say("ERROR", f"{self._failure}: the world was deleted")
            return {"CANCELLED"}
        try:
            if read_spec(world.orogen_world).to_json() != job.result.spec.to_json():  # changed meanwhile
                build = plan_world(world, context, self._only, self._levels)
                self._restart(context, BackgroundTask(lambda progress: compute_world(build, progress)))
                return {"RUNNING_MODAL"}
            if self._levels is not None:
                write_levels(world, self._levels)
            status = apply_world(world, job.result, self._started)
        except (ValueError, TypeError, RuntimeError) as err:
            self._say("ERROR", f"{self._failure}: {err}")
            return {"CANCELLED"}
        self._say("INFO", status)
        return {"FINISHED"}

    def _cancelled(self, context, by_user: bool) -> set[str]:
        self._say("WARNING", f"{self._what} cancelled: the tiles are as they were")
        return {"CANCELLED"}


class OROGEN_OT_tiles_regenerate(WorldJob, bpy.types.Operator):
    """Regenerate every tile of the selected tile's world from the world's spec"""

    bl_idname = "orogen.tiles_regenerate"
    bl_label = "Regenerate Tiles"
    bl_options = {"REGISTER", "UNDO"}
    _failure = "Tiles not regenerated"
    _what = "Regenerate Tiles"

    @classmethod
    def poll(cls, context):
        return poll_with(cls, tile_reason(context))

    def execute(self, context):
        world = world_of(context.active_object)
        try:
            status = regenerate_world(world, context)
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Tiles not regenerated: {err}")
            return {"CANCELLED"}
        except Cancelled:
            self.report({"WARNING"}, "Regenerate Tiles cancelled: the tiles are as they were")
            return {"CANCELLED"}
        self.report({"INFO"}, status)
        return {"FINISHED"}


class OROGEN_OT_tile_rebuild(WorldJob, bpy.types.Operator):
    """Rebuild the selected tiles alone (at their level of detail), and the edges of their neighbours"""

    bl_idname = "orogen.tile_rebuild"
    bl_label = "Rebuild Tile"
    bl_options = {"REGISTER", "UNDO"}
    _failure = "Tile not rebuilt"
    _what = "Rebuild Tile"

    level: bpy.props.IntProperty(
        name="Level of Detail",
        min=-1,
        max=12,
        default=-1,
        description="New level for the selected tiles (-1 keeps each tile's own)",
    )

    @classmethod
    def poll(cls, context):
        return poll_with(cls, tile_reason(context))

    def _keys(self, context, world) -> list:
        chosen = [o for o in context.selected_objects if world_of(o) == world] or [context.active_object]
        return [(o.orogen_tile.ty, o.orogen_tile.tx) for o in chosen]

    def _request(self, context, world) -> tuple[set | None, dict | None]:
        keys = self._keys(context, world)
        if self.level >= 0:
            after, dirty = level_changes(world, {k: self.level for k in keys})
            return dirty, after
        return set(keys), None

    def execute(self, context):
        world = world_of(context.active_object)
        keys = self._keys(context, world)
        try:
            if self.level >= 0:
                status = set_levels(world, context, {k: self.level for k in keys})
            else:
                status = regenerate_world(world, context, only=keys)
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Tile not rebuilt: {err}")
            return {"CANCELLED"}
        except Cancelled:
            self.report({"WARNING"}, "Rebuild Tile cancelled: the tiles are as they were")
            return {"CANCELLED"}
        self.report({"INFO"}, status)
        return {"FINISHED"}


class OROGEN_OT_tiles_lod(WorldJob, bpy.types.Operator):
    """Set each tile's level of detail from the 3D cursor: full resolution under it, coarser ring by ring"""

    bl_idname = "orogen.tiles_lod"
    bl_label = "Level of Detail from Cursor"
    bl_options = {"REGISTER", "UNDO"}
    _failure = "Levels not set"
    _what = "Level of Detail"

    def _request(self, context, world) -> tuple[set | None, dict | None]:
        after, dirty = level_changes(world, levels_from_point(world, context.scene.cursor.location))
        return dirty, after

    @classmethod
    def poll(cls, context):
        return poll_with(cls, tile_reason(context))

    def execute(self, context):
        world = world_of(context.active_object)
        try:
            status = set_levels(world, context, levels_from_point(world, context.scene.cursor.location))
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Levels not set: {err}")
            return {"CANCELLED"}
        except Cancelled:
            self.report({"WARNING"}, "Level of Detail cancelled: the tiles are as they were")
            return {"CANCELLED"}
        self.report({"INFO"}, status)
        return {"FINISHED"}


def menu_func(self, _context):
    self.layout.operator(OROGEN_OT_tiles_add.bl_idname, text="Terrain Tiles", icon="MESH_GRID")


classes = (OROGEN_OT_tiles_add, OROGEN_OT_tiles_regenerate, OROGEN_OT_tile_rebuild, OROGEN_OT_tiles_lod)


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
    bpy.types.VIEW3D_MT_mesh_add.append(menu_func)


def unregister() -> None:
    bpy.types.VIEW3D_MT_mesh_add.remove(menu_func)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
