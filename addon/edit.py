"""Edit in place: a terrain object keeps its settings and regenerates into the same mesh.

Only the geometry and the baked attributes change; the object's name,
transform, parent, collections, modifiers, custom properties, material slots
and the user's material edits stay as they are. Live updates regenerate a
preview-sized terrain on every change and the full size once changes have
settled (``SETTLE_SECONDS`` without a further change), through a timer.

Changes are observed by the settings' own ``update`` callbacks in sessions
with a user interface (so the new setting and the regenerated mesh form one
undo step), and through the message bus (``bpy.msgbus``) in background
sessions: the ``bpy`` module of Blender 4.2 and 4.5 crashes or hangs at exit
once any property with an update callback was registered, while message-bus
subscriptions are cleared on unregister. Both paths end in
:func:`on_setting_changed`, which regenerates only when a setting that
shapes the terrain really changed.

Undo with live updates: a change regenerates at once (one undo step). For
terrains larger than the preview size, the full-size terrain that follows
once the change settles is not an undo step of its own; undo returns to the
terrain before the change, and redo shows the preview until the next change.
"""

import json
import time
from types import SimpleNamespace

import bpy

from .material import build_material
from .mesh import CURVATURE_ATTRIBUTE, SLOPE_ATTRIBUTE, update_grid_mesh
from .properties import nonfinite_error, range_error, setting_names
from .terrain import compute_terrain, scene_sun

#: Seconds without a further change before a live preview is replaced by the full-size terrain.
SETTLE_SECONDS = 0.4

_pending: dict[str, float] = {}  # object name -> time of its last change
_suspended = 0  # > 0 while settings are written by code, not by the user


class suspended:
    """Context manager: setting changes inside it do not trigger live updates."""

    def __enter__(self):
        global _suspended
        _suspended += 1

    def __exit__(self, *_exc):
        global _suspended
        _suspended -= 1


def active_terrain(context) -> bpy.types.Object | None:
    """The active object if it is a generated Orogen terrain (its settings can regenerate it), else None."""
    obj = context.active_object
    return obj if obj is not None and obj.type == 'MESH' and obj.orogen.is_terrain else None


def store_settings(obj: bpy.types.Object, source, layers_json: str = "") -> None:
    """Copy terrain settings from ``source`` (operator or settings) onto ``obj.orogen``."""
    with suspended():
        for name in setting_names():
            setattr(obj.orogen, name, getattr(source, name))
        obj.orogen.layers_json = layers_json
        obj.orogen.is_terrain = True
    _snapshots[obj.name] = _snapshot(obj)


def regenerate(obj: bpy.types.Object, context, size: int | None = None) -> str:
    """Regenerate ``obj`` from its stored settings at ``size`` (default: its own); returns a status line.

    Raises ``ValueError``/``TypeError`` for settings that cannot make a terrain;
    nothing is changed then.
    """
    settings = obj.orogen
    message = nonfinite_error(settings) or range_error(settings)
    if message:
        raise ValueError(message)
    values = SimpleNamespace(**{name: getattr(settings, name) for name in setting_names()})
    if size is not None:
        values.size = size
    sun = scene_sun(context.scene) if settings.use_scene_sun and context.scene else None
    wm = context.window_manager
    started = time.perf_counter()
    if wm is not None:
        wm.progress_begin(0, 3)
    try:
        arrays = compute_terrain(values, None, sun)
        if wm is not None:
            wm.progress_update(2)
        update_grid_mesh(obj.data, arrays.heightmap, arrays.width, arrays.height, arrays.lightmap,
                         {SLOPE_ATTRIBUTE: arrays.slope, CURVATURE_ATTRIBUTE: arrays.curvature})
    finally:
        if wm is not None:
            wm.progress_end()
    from .operators import RECIPE_PROPERTY, TERRAIN_PROPERTY  # late: operators imports this module

    obj[RECIPE_PROPERTY] = arrays.recipe.to_json()
    obj[TERRAIN_PROPERTY] = json.dumps({"shape": list(arrays.heightmap.shape), "width": arrays.width,
                                        "height": arrays.height})
    rows, cols = arrays.heightmap.shape
    kind = "preview" if size is not None and size != settings.size else "terrain"
    return f"Regenerated {kind} {rows} x {cols} in {time.perf_counter() - started:.2f} s"


_snapshots: dict[str, tuple] = {}  # object name -> settings at its last regeneration
_MSGBUS_OWNER = object()


def _snapshot(obj: bpy.types.Object) -> tuple:
    return tuple(getattr(obj.orogen, name) if not hasattr(getattr(obj.orogen, name), "__len__")
                 else tuple(getattr(obj.orogen, name)) for name in setting_names())


def on_setting_changed(obj: bpy.types.Object, context) -> None:
    """A setting of a terrain object changed: live preview now, full size when the change settles."""
    settings = obj.orogen
    if _suspended or not settings.live_update:
        return
    if obj.mode != 'OBJECT':
        settings.status = "Not regenerated: leave Edit Mode first"
        return
    snapshot = _snapshot(obj)
    if _snapshots.get(obj.name) == snapshot:
        return  # nothing that shapes the terrain changed
    _snapshots[obj.name] = snapshot
    full = settings.size
    preview = min(full, settings.preview_size)
    try:
        settings.status = regenerate(obj, context, preview)
    except (ValueError, TypeError, RuntimeError) as err:
        settings.status = f"Not regenerated: {err}"
        _snapshots.pop(obj.name, None)  # try again on the next change
        return
    if preview < full:
        _pending[obj.name] = time.monotonic()
        if not bpy.app.timers.is_registered(_settle_timer):
            bpy.app.timers.register(_settle_timer, first_interval=SETTLE_SECONDS)


def flush_live_updates(force: bool = False) -> list[str]:
    """Regenerate at full size every object whose changes have settled (all of them with ``force``)."""
    done = []
    now = time.monotonic()
    for name, changed in list(_pending.items()):
        if not force and now - changed < SETTLE_SECONDS:
            continue
        del _pending[name]
        obj = bpy.data.objects.get(name)
        if obj is None or not obj.orogen.is_terrain:
            continue
        try:
            obj.orogen.status = regenerate(obj, bpy.context)
        except (ValueError, TypeError) as err:
            obj.orogen.status = f"Not regenerated: {err}"
        done.append(name)
    if not _pending and bpy.app.timers.is_registered(_settle_timer):
        bpy.app.timers.unregister(_settle_timer)
    return done


def _on_msgbus() -> None:
    """Message-bus notification: a terrain setting changed (the panel edits the active object's)."""
    obj = active_terrain(bpy.context)
    if obj is not None:
        on_setting_changed(obj, bpy.context)


def _subscribe() -> None:
    from .properties import OROGEN_PG_object

    bpy.msgbus.clear_by_owner(_MSGBUS_OWNER)
    for name in setting_names():
        bpy.msgbus.subscribe_rna(key=(OROGEN_PG_object, name), owner=_MSGBUS_OWNER, args=(), notify=_on_msgbus)


@bpy.app.handlers.persistent
def _on_load_post(*_args) -> None:
    """Opening a file clears message-bus subscriptions: subscribe again."""
    _snapshots.clear()
    _subscribe()


def _settle_timer() -> float | None:
    flush_live_updates()
    return 0.1 if _pending else None


class OROGEN_OT_terrain_regenerate(bpy.types.Operator):
    """Regenerate the active terrain from its settings, in place (the object and its material stay)"""

    bl_idname = "orogen.terrain_regenerate"
    bl_label = "Regenerate Terrain"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return active_terrain(context) is not None and context.mode == 'OBJECT'

    def execute(self, context):
        obj = context.active_object
        _pending.pop(obj.name, None)
        try:
            obj.orogen.status = regenerate(obj, context)
        except (ValueError, TypeError) as err:
            self.report({'ERROR'}, f"Terrain not regenerated: {err}")
            return {'CANCELLED'}
        self.report({'INFO'}, obj.orogen.status)
        return {'FINISHED'}


class OROGEN_OT_material_rebuild(bpy.types.Operator):
    """Rebuild the active terrain's material from its colour layers (replaces edits made to that material)"""

    bl_idname = "orogen.material_rebuild"
    bl_label = "Rebuild Material"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return active_terrain(context) is not None

    def execute(self, context):
        obj = context.active_object
        settings = obj.orogen
        from .operators import checked_layers  # late: operators imports this module

        try:
            layers = checked_layers(settings.layers_json)
        except (ValueError, TypeError) as err:
            self.report({'ERROR'}, f"Material not rebuilt: {err}")
            return {'CANCELLED'}
        material = build_material(obj.name, layers, settings.use_lightmap, settings.shading)
        if obj.material_slots:
            obj.material_slots[0].material = material
        else:
            obj.data.materials.append(material)
        return {'FINISHED'}


#: Sizes game engines expect for heightmaps: 2^n + 1 vertices per side.
ENGINE_SIZES = (129, 257, 513, 1025, 2049, 4097)


class OROGEN_OT_size_set(bpy.types.Operator):
    """Set the terrain size to one game engines expect (2^n + 1 vertices per side)"""

    bl_idname = "orogen.size_set"
    bl_label = "Set Size"
    bl_options = {'REGISTER', 'UNDO', 'INTERNAL'}

    size: bpy.props.IntProperty(name="Size", description="Vertices per side", min=2, max=4097, default=257)

    @classmethod
    def poll(cls, context):
        return context.scene is not None and context.mode == 'OBJECT'

    def execute(self, context):
        obj = active_terrain(context)
        if obj is not None:
            obj.orogen.size = self.size
            on_setting_changed(obj, context)
        else:
            context.scene.orogen.size = self.size
        return {'FINISHED'}


class OROGEN_MT_size_presets(bpy.types.Menu):
    bl_label = "Engine Sizes"

    def draw(self, _context):
        for size in ENGINE_SIZES:
            self.layout.operator(OROGEN_OT_size_set.bl_idname, text=f"{size} x {size}").size = size


classes = (OROGEN_OT_terrain_regenerate, OROGEN_OT_material_rebuild, OROGEN_OT_size_set, OROGEN_MT_size_presets)


def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    _subscribe()
    bpy.app.handlers.load_post.append(_on_load_post)


def unregister() -> None:
    bpy.msgbus.clear_by_owner(_MSGBUS_OWNER)
    if _on_load_post in bpy.app.handlers.load_post:
        bpy.app.handlers.load_post.remove(_on_load_post)
    _pending.clear()
    _snapshots.clear()
    if bpy.app.timers.is_registered(_settle_timer):
        bpy.app.timers.unregister(_settle_timer)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
