"""Edit in place: a terrain object holds its spec in ``obj.orogen`` and regenerates into the same mesh.

Only the geometry and the baked attributes change; the object's name,
transform, parent, collections, modifiers, custom properties, material slots
and the user's material edits stay. Editing the colour layers or material
options rebuilds the material only.

Live updates regenerate a preview-sized terrain on every change and the
full size once changes have settled (``SETTLE_SECONDS`` without a further
change). Nothing is kept by object name: each terrain records on itself the
spec its mesh was made from (``orogen.applied``) and whether its mesh is a
preview awaiting its full size (``orogen.preview_pending``), so renaming,
duplicating or deleting a terrain during a pending update is safe.

Changes are seen through the settings' own ``update`` callbacks in sessions
with a user interface (so the setting and the mesh form one undo step), and
through the message bus in background sessions (the ``bpy`` module of
Blender 4.2 and 4.5 crashes or hangs at exit once a property with an update
callback was registered). Undo: a change regenerates at once (one undo
step); for terrains larger than the preview size, the full-size pass that
follows is not an undo step of its own.
"""

import json
import os
import threading
import time
from dataclasses import replace

import bpy
import numpy as np

from ..core.colormap import check_layers
from ..core.lighting import cell_size
from ..core.spec import MAX_SIDE, MIN_SIDE, TerrainSpec
from . import userdata
from .material import build_material
from .mesh import (
    BAKED_COLOR_ATTRIBUTE,
    EROSION_ATTRIBUTES,
    HEIGHT_ATTRIBUTE,
    LIGHTMAP_ATTRIBUTE,
    SLOPE_ATTRIBUTE,
    drop_other_mesh,
    full_size_mesh,
    grid_mesh_for,
    grid_shape_of,
    is_grid_of,
    update_grid_mesh,
)
from .specio import image_path, read_spec, write_spec
from .terrain import TerrainArrays, compute_terrain, preview_shape, scene_sun
from .water import sync_water

#: Seconds without a further change before a live preview is replaced by the full-size terrain.
SETTLE_SECONDS = 0.4
#: Custom property of every Orogen terrain mesh object (generated or imported): the grid as built.
TERRAIN_PROPERTY = "orogen_terrain"

_last_change = [0.0]  # monotonic time of the last live change (one clock for all terrains)
_suspended = [0]  # > 0 while settings are written by code, not by the user


class suspended:
    """Context manager: setting changes inside it do not trigger live updates."""

    def __enter__(self):
        _suspended[0] += 1

    def __exit__(self, *_exc):
        _suspended[0] -= 1


def active_terrain(context) -> bpy.types.Object | None:
    """The active object if it is a generated Orogen terrain (its spec can regenerate it), else None."""
    obj = getattr(context, "active_object", None)
    return obj if obj is not None and obj.type == 'MESH' and obj.orogen.is_terrain else None


def mode_reason(context) -> str | None:
    """Why nothing can be added or edited now (no scene, or not in Object Mode), or ``None``."""
    if getattr(context, "scene", None) is None:
        return "No scene to work in"
    if getattr(context, "mode", 'OBJECT') != 'OBJECT':
        return "Leave Edit Mode first"
    return None


def poll_with(cls, reason: str | None) -> bool:
    """A poll's answer: ``True`` without a reason; else ``False``, with the reason shown on the disabled button
    (``poll_message_set``) and raised by the same call from Python."""
    if reason:
        cls.poll_message_set(reason)
        return False
    return True


def terrain_reason(context) -> str | None:
    """Why the active object cannot be edited as a terrain now (``None`` when it can)."""
    obj = getattr(context, "active_object", None)
    if obj is None:
        return "Select a terrain first"
    if obj.type != 'MESH' or not obj.orogen.is_terrain:
        if obj.type == 'MESH' and TERRAIN_PROPERTY in obj:
            return "An imported heightmap has no generator to re-run: import it again to change it"
        return f"{obj.name} is not an Orogen terrain"
    return mode_reason(context)


def export_reason(context) -> str | None:
    """Why the active object's maps cannot be exported or its material rebuilt now (``None`` when they can)."""
    obj = getattr(context, "active_object", None)
    if obj is None or obj.type != 'MESH' or TERRAIN_PROPERTY not in obj:
        return "Select a terrain (generated or imported) first"
    return mode_reason(context)


def material_layers(spec: TerrainSpec) -> tuple:
    """The spec's layers with image paths resolved as Blender resolves ``//``."""
    return tuple(replace(lay, image=image_path(lay.image)) if lay.image else lay for lay in spec.layers)


def checked_layers(spec: TerrainSpec) -> tuple:
    """The spec's colour layers (image paths resolved), with every image layer's file readable as an image.

    Raises ``ValueError``/``TypeError`` before anything is created (an image
    loaded only to be checked is removed again).
    """
    layers = check_layers(material_layers(spec))
    for i, lay in enumerate(layers):
        if lay.kind != 'IMAGE':
            continue
        if not os.path.isfile(lay.image):
            raise ValueError(f"layers[{i}] ({lay.name!r}): image file not found: {lay.image}")
        known = {image.as_pointer() for image in bpy.data.images}
        try:
            image = bpy.data.images.load(lay.image, check_existing=True)
        except RuntimeError:
            raise ValueError(f"layers[{i}] ({lay.name!r}): not an image Blender can read: {lay.image}") from None
        readable = image.size[0] > 0 and image.size[1] > 0
        if image.as_pointer() not in known:
            bpy.data.images.remove(image)  # build_material loads it again
        if not readable:
            raise ValueError(f"layers[{i}] ({lay.name!r}): not an image Blender can read: {lay.image}")
    return layers


def new_material(name: str, spec: TerrainSpec) -> bpy.types.Material:
    """A material for ``spec``'s layers and options."""
    return build_material(name, material_layers(spec), spec.lighting["enabled"], spec.material["shading"].upper())


def bake_unlit_color(obj: bpy.types.Object, spec: TerrainSpec) -> None:
    """Bake an Unlit terrain's colour into its ``Color`` attribute (removed from other terrains).

    ``core.colormap`` of the mesh's ``height`` and ``slope`` times its
    ``Lightmap``, linear, one value per vertex: what the Unlit material's
    export output shows (see :func:`material._unlit_export_output`), so that
    glTF carries the terrain's colours as ``COLOR_0`` (texture layers
    contribute their colour, as in the exported colour map). It is the render
    colour attribute, and Orogen's: rewritten on every regeneration and layer
    edit.
    """
    from ..core import colormap

    mesh = obj.data
    existing = mesh.color_attributes.get(BAKED_COLOR_ATTRIBUTE)
    if not (spec.material["enabled"] and spec.material["shading"] == "unlit"):
        if existing is not None:
            mesh.color_attributes.remove(existing)
        return
    n = len(mesh.vertices)
    maps = {}
    for name in (HEIGHT_ATTRIBUTE, SLOPE_ATTRIBUTE):
        values = np.zeros(n, dtype=np.float32)
        if mesh.attributes.get(name) is not None:
            mesh.attributes[name].data.foreach_get("value", values)
        maps[name] = values
    erosion = {}
    for name in EROSION_ATTRIBUTES:
        if mesh.attributes.get(name) is not None:
            erosion[name] = np.zeros((1, n), dtype=np.float32)
            mesh.attributes[name].data.foreach_get("value", erosion[name].ravel())
    # On the grid (rows, cols), so that layers with noisy edges see their noise at the vertices' world positions.
    shape = grid_shape_of(mesh) or (1, n)
    rgba = np.ones((n, 4), dtype=np.float32)
    rgba[:, :3] = colormap(maps[HEIGHT_ATTRIBUTE].reshape(shape), check_layers(material_layers(spec)),
                           maps[SLOPE_ATTRIBUTE].reshape(shape), {k: v.reshape(shape) for k, v in erosion.items()},
                           height=spec.height, cell_size=cell_size(shape, spec.width), seed=spec.seed).reshape(n, 3)
    light = mesh.color_attributes.get(LIGHTMAP_ATTRIBUTE)
    if spec.lighting["enabled"] and light is not None:
        grey = np.empty(n * 4, dtype=np.float32)
        light.data.foreach_get("color", grey)
        rgba[:, :3] *= grey.reshape(n, 4)[:, :1]
    layer = existing or mesh.color_attributes.new(BAKED_COLOR_ATTRIBUTE, 'FLOAT_COLOR', 'POINT')
    layer.data.foreach_set("color", rgba.ravel())
    mesh.color_attributes.render_color_index = mesh.color_attributes.find(BAKED_COLOR_ATTRIBUTE)


def set_material(obj: bpy.types.Object, spec: TerrainSpec) -> None:
    """Give ``obj`` a freshly built material in its first slot (or none, when the spec's material is off);
    an Unlit terrain's baked colour and the water surface follow (:func:`bake_unlit_color`,
    :func:`water.sync_water`)."""
    bake_unlit_color(obj, spec)
    sync_water(obj, spec)
    old = obj.material_slots[0].material if obj.material_slots else None
    if not spec.material["enabled"]:
        if obj.material_slots:
            obj.material_slots[0].material = None
    else:
        material = new_material(obj.name, spec)
        if obj.material_slots:
            obj.material_slots[0].material = material
        else:
            obj.data.materials.append(material)
    if old is not None and old.users == 0:
        bpy.data.materials.remove(old)


def record_terrain(obj: bpy.types.Object, arrays: TerrainArrays, source: str = "", **extra) -> None:
    """Write the grid's shape and scale onto ``obj`` (what exports read back); an import adds its ``source``
    file and what it learnt of it (``extra``: a DEM's elevation range and nodata count)."""
    info = {"shape": list(arrays.heightmap.shape), "width": arrays.width, "height": arrays.height, **extra}
    if source:
        info["source"] = source
    obj[TERRAIN_PROPERTY] = json.dumps(info)


def write_arrays(obj: bpy.types.Object, arrays: TerrainArrays) -> list[str]:
    """Write a terrain's heightmap and maps into ``obj``'s mesh and record its shape; returns notes for the user.

    Regenerate touches only what Orogen made. When ``obj.data`` already is
    the grid (:func:`mesh.is_grid_of`: counts and topology) positions and
    Orogen's attributes are rewritten in place and shape keys follow (the
    Basis takes the new positions, the other keys keep their offsets). When
    the size changed, the user's data (vertex groups, shape keys, UV maps,
    colour and other attributes) is read, the grid rebuilt and the data
    written back resampled (:mod:`.userdata`). A mesh that is no longer a
    grid (edited, reordered) is rebuilt when it holds nothing of the user's,
    and refused (``ValueError`` naming what would be lost) when it does.
    """
    mesh = obj.data
    rows, cols = arrays.heightmap.shape
    notes: list[str] = []
    kept = None
    same_grid = is_grid_of(mesh, rows, cols)
    if not same_grid:
        old = grid_shape_of(mesh)
        if old is None and len(mesh.vertices):
            lost = userdata.names(obj, mesh)
            if lost:
                raise ValueError(f"the mesh is no longer Orogen's grid (edited or reordered) and holds your "
                                 f"{', '.join(lost[:6])}{' ...' if len(lost) > 6 else ''}, which cannot be "
                                 "resampled onto a new grid: undo the edit, or remove them to rebuild the grid")
            notes.append("the mesh was no longer Orogen's grid (edited or reordered): rebuilt it")
        elif old is not None:
            kept = userdata.capture(obj, mesh, old)
            if mesh.shape_keys is not None:
                obj.shape_key_clear()
    update_grid_mesh(mesh, arrays.heightmap, arrays.width, arrays.height, arrays.maps.lightmap, arrays.data_maps(),
                     same_grid=same_grid)
    if kept is not None and kept.summary():
        userdata.restore(obj, mesh, kept, (rows, cols))
        items = kept.summary()
        notes.append(f"resampled {', '.join(items[:6])}{' ...' if len(items) > 6 else ''} "
                     f"from {kept.shape[0]} x {kept.shape[1]}")
    record_terrain(obj, arrays)
    return notes


def linked_terrains(obj: bpy.types.Object) -> list[bpy.types.Object]:
    """The other objects showing ``obj``'s mesh (linked duplicates, Alt+D)."""
    return [other for other in bpy.data.objects if other != obj and other.data == obj.data]


def share_spec(obj: bpy.types.Object) -> list[str]:
    """Give every linked duplicate of ``obj`` (the same mesh) ``obj``'s spec and terrain record; their names.

    A linked duplicate shares its mesh, as in Blender: regenerating one
    regenerates the mesh of all. So they are one terrain with one spec, and
    the spec and the geometry never disagree; *Make Single User* (Object ▸
    Relations) first makes a duplicate a terrain of its own.
    """
    others = linked_terrains(obj)
    if not others:
        return []
    spec = read_spec(obj.orogen)
    for other in others:
        with suspended():
            write_spec(other.orogen, spec)
            other.orogen.is_terrain = obj.orogen.is_terrain
            other.orogen.live_update = obj.orogen.live_update
            other.orogen.preview_size = obj.orogen.preview_size
            other.orogen.applied = obj.orogen.applied
            other.orogen.preview_pending = False
        if TERRAIN_PROPERTY in obj:
            other[TERRAIN_PROPERTY] = obj[TERRAIN_PROPERTY]
    return [other.name for other in others]


#: Steps of the status bar's progress (Blender's window-manager progress) while a terrain is computed.
PROGRESS_STEPS = 100


def status_progress(wm):
    """A ``progress(done, total)`` callback for :func:`terrain.compute_terrain` that moves ``wm``'s progress
    (``window_manager.progress_update``: the status bar's, or the console's in the background) through the
    first ``PROGRESS_STEPS - 1`` steps as the generator and filters work; ``None`` without a window manager."""
    if wm is None:
        return None

    def progress(done: int, total: int) -> bool:
        wm.progress_update(min(PROGRESS_STEPS - 1, (PROGRESS_STEPS - 1) * done // max(total, 1)))
        return True

    return progress


def _sun(spec: TerrainSpec, context) -> tuple[float, float] | None:
    scene = getattr(context, "scene", None)
    return scene_sun(scene) if spec.lighting["use_scene_sun"] and scene is not None else None


def regenerate(obj: bpy.types.Object, context, preview: bool = False) -> str:
    """Regenerate ``obj`` from its spec (at its preview size with ``preview``); returns a status line.

    Raises ``ValueError``/``TypeError`` for a spec that cannot make a terrain; nothing is changed then.
    """
    status, notes = regenerate_with_notes(obj, context, preview)
    return "; ".join([status, *notes])


def regenerate_with_notes(obj: bpy.types.Object, context, preview: bool = False) -> tuple[str, list[str]]:
    """:func:`regenerate`, with what it did to the user's data apart: ``(status, notes)``.

    A preview is written into Orogen's own preview mesh (:func:`mesh.grid_mesh_for`),
    the full size into the object's own mesh (:func:`write_arrays`), and then
    every linked duplicate of that mesh takes the spec (:func:`share_spec`).
    """
    settings = obj.orogen
    spec = read_spec(settings)
    shape = preview_shape(spec.shape, settings.preview_size) if preview else spec.shape
    wm = getattr(context, "window_manager", None)
    started = time.perf_counter()
    if wm is not None:
        wm.progress_begin(0, PROGRESS_STEPS)
    try:
        arrays = compute_terrain(spec, _sun(spec, context), shape, status_progress(wm))
        if wm is not None:
            wm.progress_update(PROGRESS_STEPS - 1)
        return apply_arrays(obj, spec, shape, arrays, started, preview)
    finally:
        if wm is not None:
            wm.progress_end()


def apply_arrays(obj: bpy.types.Object, spec: TerrainSpec, shape: tuple[int, int], arrays: TerrainArrays,
                 started: float, preview: bool = False) -> tuple[str, list[str]]:
    """Write ``arrays`` computed from ``spec`` at ``shape`` into ``obj`` (the second half of
    :func:`regenerate_with_notes`); returns ``(status, notes)``."""
    settings = obj.orogen
    if preview:  # a preview lives in a mesh of its own: no topology rebuilt back and forth, no user data
        grid_mesh_for(obj, *shape)
    else:
        full_size_mesh(obj)
        if not settings.live_update:
            drop_other_mesh(obj)
    notes = write_arrays(obj, arrays)
    bake_unlit_color(obj, spec)
    sync_water(obj, spec)
    with suspended():
        settings.applied = spec.to_json()
        settings.preview_pending = shape != spec.shape
    if not preview:
        shared = share_spec(obj)
        for other in linked_terrains(obj):  # each object on the shared mesh has its own water
            sync_water(other, spec)
        if shared:
            notes.append(f"linked duplicates share this mesh and now this spec: {', '.join(shared[:4])}"
                         + (" ..." if len(shared) > 4 else ""))
    rows, cols = shape
    kind = "preview" if shape != spec.shape else "terrain"
    return f"Regenerated {kind} {rows} x {cols} in {time.perf_counter() - started:.2f} s", notes


class BackgroundCompute:
    """A terrain computed in a worker thread (core is numpy only, no ``bpy``), cancellable between erosion steps.

    ``start()`` runs :func:`terrain.compute_terrain` in a thread; ``fraction`` is its progress (0 to 1);
    ``cancel()`` makes the next progress report return ``False`` (core raises ``Cancelled``, nothing is
    returned); ``done()`` says whether the thread finished, and then ``arrays`` or ``error`` holds the outcome.
    Nothing in Blender is touched by the thread: the caller writes ``arrays`` into the object in the main
    thread, so a cancelled run leaves the terrain as it was.
    """

    def __init__(self, spec: TerrainSpec, sun, shape: tuple[int, int]) -> None:
        self.spec, self.sun, self.shape = spec, sun, shape
        self.fraction = 0.0
        self.arrays: TerrainArrays | None = None
        self.error: BaseException | None = None
        self.cancelled = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="orogen-terrain", daemon=True)

    def _progress(self, done: int, total: int) -> bool:
        self.fraction = done / max(total, 1)
        return not self._stop.is_set()

    def _run(self) -> None:
        from ..core.recipe import Cancelled

        try:
            self.arrays = compute_terrain(self.spec, self.sun, self.shape, self._progress)
        except Cancelled:
            self.cancelled = True
        except BaseException as err:  # noqa: BLE001  (handed to the main thread, which reports it)
            self.error = err

    def start(self) -> "BackgroundCompute":
        self._thread.start()
        return self

    def cancel(self) -> None:
        self._stop.set()

    def done(self) -> bool:
        return not self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)


def _only_looks_changed(spec: TerrainSpec, applied: str) -> bool:
    """True when ``spec`` differs from the applied spec only in its layers or material (the mesh stays)."""
    try:
        before = TerrainSpec.from_json(applied)
    except (TypeError, ValueError):
        return False
    return replace(before, layers=spec.layers, material=spec.material) == spec


def _only_water_changed(spec: TerrainSpec, applied: str) -> bool:
    """True when ``spec`` differs from the applied spec only in its water settings (terrain and material stay)."""
    try:
        before = TerrainSpec.from_json(applied)
    except (TypeError, ValueError):
        return False
    water = {k: v for k, v in spec.material.items() if k.startswith("water")}
    return replace(before, material={**before.material, **water}) == spec


def on_setting_changed(obj: bpy.types.Object, context) -> None:
    """A setting of terrain ``obj`` changed: rebuild what it affects, live (a preview, then full size)."""
    settings = obj.orogen
    if _suspended[0] or not settings.is_terrain or not settings.live_update:
        return
    try:
        spec = read_spec(settings)
    except (ValueError, TypeError) as err:
        settings.status = f"Not regenerated: {err}"
        return
    text = spec.to_json()
    if text == settings.applied:
        return  # nothing that shapes the terrain changed (or it was already applied)
    if obj.mode != 'OBJECT':
        settings.status = "Not regenerated: leave Edit Mode first"
        return
    if settings.applied and _only_water_changed(spec, settings.applied):
        sync_water(obj, spec)
        with suspended():
            settings.applied = text
        for other in linked_terrains(obj):
            sync_water(other, spec)
        share_spec(obj)
        settings.status = "Water updated"
        return
    if settings.applied and _only_looks_changed(spec, settings.applied):
        set_material(obj, spec)
        with suspended():
            settings.applied = text
        share_spec(obj)  # the material sits on the shared mesh
        settings.status = "Material rebuilt from the colour layers"
        return
    preview = max(spec.shape) > settings.preview_size
    try:
        settings.status = regenerate(obj, context, preview)
    except (ValueError, TypeError, RuntimeError) as err:
        settings.status = f"Not regenerated: {err}"
        return
    if preview:
        _last_change[0] = time.monotonic()
        if not bpy.app.timers.is_registered(_settle_timer):
            bpy.app.timers.register(_settle_timer, first_interval=SETTLE_SECONDS)


def _pending_objects() -> list:
    return [obj for obj in bpy.data.objects
            if obj.type == 'MESH' and obj.orogen.is_terrain and obj.orogen.preview_pending and obj.users > 0]


def _back_to_full_size(obj: bpy.types.Object) -> None:
    """Show the terrain as it was before its preview (a full-size pass failed), with its recorded shape."""
    full_size_mesh(obj)
    shape = grid_shape_of(obj.data)
    if shape is not None and TERRAIN_PROPERTY in obj:
        info = json.loads(obj[TERRAIN_PROPERTY])
        obj[TERRAIN_PROPERTY] = json.dumps({**info, "shape": list(shape)})


def flush_live_updates(force: bool = False) -> list[str]:
    """Regenerate at full size every terrain whose preview is pending once changes have settled
    (at once with ``force``); returns the names regenerated."""
    if not force and time.monotonic() - _last_change[0] < SETTLE_SECONDS:
        return []
    done = []
    for obj in _pending_objects():
        if obj.mode != 'OBJECT':  # a mesh in Edit Mode cannot be rewritten: it waits until the user leaves
            obj.orogen.status = "Full size waits: leave Edit Mode"
            continue
        try:
            obj.orogen.status = regenerate(obj, bpy.context)
        except (ValueError, TypeError, RuntimeError) as err:
            _back_to_full_size(obj)
            obj.orogen.status = f"Not regenerated: {err}"
            with suspended():
                obj.orogen.preview_pending = False
        done.append(obj.name)
    return done


def _settle_timer() -> float | None:
    flush_live_updates()
    return 0.1 if _pending_objects() else None


def on_update(self, context) -> None:
    """Property update callback of every terrain setting (sessions with a user interface)."""
    owner = getattr(self, "id_data", None)
    if isinstance(owner, bpy.types.Object) and owner.type == 'MESH':
        on_setting_changed(owner, context)


def changed(obj, context) -> None:
    """A collection of ``obj.orogen`` (filters, layers) was edited by an operator: apply it, live."""
    if isinstance(obj, bpy.types.Object):
        on_setting_changed(obj, context)


_MSGBUS_OWNER = object()


def _on_msgbus() -> None:
    """Message-bus notification (background sessions): some terrain setting changed; apply what differs."""
    if _suspended[0]:
        return
    for obj in bpy.data.objects:
        if obj.type == 'MESH' and obj.orogen.is_terrain and obj.users > 0:
            on_setting_changed(obj, bpy.context)


def subscribe(classes) -> None:
    """Watch every property of ``classes`` through the message bus (cleared by :func:`unsubscribe`)."""
    bpy.msgbus.clear_by_owner(_MSGBUS_OWNER)
    for cls in classes:
        for prop in cls.bl_rna.properties:
            if prop.identifier in ("rna_type", "name", "status", "applied", "preview_pending") or \
                    prop.type in ('POINTER', 'COLLECTION'):
                continue
            bpy.msgbus.subscribe_rna(key=(cls, prop.identifier), owner=_MSGBUS_OWNER, args=(), notify=_on_msgbus)


def unsubscribe() -> None:
    bpy.msgbus.clear_by_owner(_MSGBUS_OWNER)
    if bpy.app.timers.is_registered(_settle_timer):
        bpy.app.timers.unregister(_settle_timer)


class OROGEN_OT_terrain_regenerate(bpy.types.Operator):
    """Regenerate the active terrain from its spec, in place (the object and its material stay)"""

    bl_idname = "orogen.terrain_regenerate"
    bl_label = "Regenerate Terrain"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return poll_with(cls, terrain_reason(context))

    def execute(self, context):
        obj = context.active_object
        try:
            status, notes = regenerate_with_notes(obj, context)
        except (ValueError, TypeError) as err:
            self.report({'ERROR'}, f"Terrain not regenerated: {err}")
            return {'CANCELLED'}
        return self._finish(obj, status, notes)

    def _finish(self, obj, status: str, notes: list[str]):
        obj.orogen.status = "; ".join([status, *notes])
        self.report({'WARNING'} if notes else {'INFO'}, obj.orogen.status)
        return {'FINISHED'}

    # From the UI (a button or F3) the terrain is computed in a worker thread while this operator runs modal:
    # the status bar shows the progress and Esc cancels, leaving the terrain as it was. From Python
    # (bpy.ops.orogen.terrain_regenerate()) execute() runs, blocking, as before.
    def invoke(self, context, _event):
        if context.window is None:
            return self.execute(context)
        obj = context.active_object
        try:
            spec = read_spec(obj.orogen)
            sun = _sun(spec, context)
            self._job = BackgroundCompute(spec, sun, spec.shape).start()
        except (ValueError, TypeError) as err:
            self.report({'ERROR'}, f"Terrain not regenerated: {err}")
            return {'CANCELLED'}
        self._obj_name = obj.name
        self._started = time.perf_counter()
        wm = context.window_manager
        wm.progress_begin(0, PROGRESS_STEPS)
        self._timer = wm.event_timer_add(0.1, window=context.window)
        wm.modal_handler_add(self)
        context.workspace.status_text_set("Regenerating terrain: Esc to cancel")
        return {'RUNNING_MODAL'}

    def _end(self, context) -> None:
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        wm.progress_end()
        context.workspace.status_text_set(None)

    def modal(self, context, event):
        job = self._job
        if event.type == 'ESC' and event.value == 'PRESS':
            job.cancel()
        if event.type != 'TIMER' and not (event.type == 'ESC' and event.value == 'PRESS'):
            return {'PASS_THROUGH'}
        if not job.done():
            context.window_manager.progress_update(int((PROGRESS_STEPS - 1) * job.fraction))
            return {'RUNNING_MODAL'}
        self._end(context)
        obj = bpy.data.objects.get(self._obj_name)
        if job.cancelled:
            self.report({'WARNING'}, "Regenerate cancelled: the terrain is as it was")
            return {'CANCELLED'}
        if job.error is not None or obj is None:
            self.report({'ERROR'}, f"Terrain not regenerated: {job.error or 'the terrain was deleted'}")
            return {'CANCELLED'}
        try:
            status, notes = apply_arrays(obj, job.spec, job.shape, job.arrays, self._started)
        except (ValueError, TypeError) as err:
            self.report({'ERROR'}, f"Terrain not regenerated: {err}")
            return {'CANCELLED'}
        return self._finish(obj, status, notes)


class OROGEN_OT_material_rebuild(bpy.types.Operator):
    """Rebuild the active terrain's material from its colour layers (replaces edits made to that material)"""

    bl_idname = "orogen.material_rebuild"
    bl_label = "Rebuild Material"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return poll_with(cls, export_reason(context))

    def execute(self, context):
        obj = context.active_object
        try:
            spec = read_spec(obj.orogen)
            checked_layers(spec)
        except (ValueError, TypeError) as err:
            self.report({'ERROR'}, f"Material not rebuilt: {err}")
            return {'CANCELLED'}
        set_material(obj, spec)
        return {'FINISHED'}


#: Sizes game engines expect for heightmaps: 2^n + 1 vertices per side.
ENGINE_SIZES = (129, 257, 513, 1025, 2049, 4097)
assert ENGINE_SIZES[-1] == MAX_SIDE


class OROGEN_OT_size_set(bpy.types.Operator):
    """Set the terrain size to one game engines expect (2^n + 1 vertices per side)"""

    bl_idname = "orogen.size_set"
    bl_label = "Set Size"
    bl_options = {'REGISTER', 'UNDO', 'INTERNAL'}

    size: bpy.props.IntProperty(name="Size", description="Vertices per side", min=MIN_SIDE, max=MAX_SIDE, default=257)

    @classmethod
    def poll(cls, context):
        return poll_with(cls, mode_reason(context))

    def execute(self, context):
        obj = active_terrain(context)
        settings = obj.orogen if obj is not None else context.scene.orogen
        settings.size = self.size
        if obj is not None:
            on_setting_changed(obj, context)
        return {'FINISHED'}


class OROGEN_MT_size_presets(bpy.types.Menu):
    bl_label = "Engine Sizes"

    def draw(self, _context):
        for size in ENGINE_SIZES:
            self.layout.operator(OROGEN_OT_size_set.bl_idname, text=f"{size} x {size}").size = size


classes = (OROGEN_OT_terrain_regenerate, OROGEN_OT_material_rebuild, OROGEN_OT_size_set, OROGEN_MT_size_presets)


def register(groups) -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    if bpy.app.background:
        subscribe(groups)


def unregister() -> None:
    unsubscribe()
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
