"""Edit in place: a terrain object holds its spec in ``obj.orogen`` and regenerates into the same mesh.

Only the geometry and the baked attributes change; the object's name,
transform, parent, collections, modifiers, custom properties, material slots
and the user's material edits stay. Editing the colour layers or material
options rebuilds the material only.

Live updates regenerate a preview-sized terrain on every change and the
full size once changes have settled (``SETTLE_SECONDS`` without a further
change): with a user interface in the background (:class:`OROGEN_OT_live_settle`:
progress in the status bar, Esc keeps the preview), without one at once.
Add, Regenerate and that full-size pass, started from the UI, share
:class:`BackgroundOperator`: a worker thread computes, Esc cancels, and only
the finished result touches the scene. Nothing is kept by object name: each
terrain records on itself the spec its mesh was made from (``orogen.applied``)
and whether its mesh is a preview awaiting its full size
(``orogen.preview_pending``), so renaming, duplicating or deleting a terrain
during a pending update is safe.

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
from ..core.lighting import bakes_occlusion, cell_size
from ..core.spec import MAX_SIDE, MIN_SIDE, TerrainSpec
from . import userdata
from .material import build_material
from .mesh import (
    BAKED_COLOR_ATTRIBUTE,
    EROSION_ATTRIBUTES,
    HEIGHT_ATTRIBUTE,
    LIGHTMAP_ATTRIBUTE,
    SLOPE_ATTRIBUTE,
    TERRAIN_PROPERTY,
    drop_other_mesh,
    full_size_mesh,
    grid_mesh_for,
    grid_shape_of,
    is_grid_of,
    update_grid_mesh,
)
from .specio import image_path, read_spec, write_spec
from .terrain import TerrainArrays, check_size, compute_terrain, preview_shape, scene_sun
from .water import sync_water

#: Seconds without a further change before a live preview is replaced by the full-size terrain.
SETTLE_SECONDS = 0.4

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
    return obj if obj is not None and obj.type == "MESH" and obj.orogen.is_terrain else None


def mode_reason(context) -> str | None:
    """Why nothing can be added or edited now (no scene, or not in Object Mode), or ``None``."""
    if getattr(context, "scene", None) is None:
        return "No scene to work in"
    if getattr(context, "mode", "OBJECT") != "OBJECT":
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
    if obj.type != "MESH" or not obj.orogen.is_terrain:
        if obj.type == "MESH" and TERRAIN_PROPERTY in obj:
            return "An imported heightmap has no generator to re-run: import it again to change it"
        return f"{obj.name} is not an Orogen terrain"
    return mode_reason(context)


def export_reason(context) -> str | None:
    """Why the active object's maps cannot be exported or its material rebuilt now (``None`` when they can)."""
    obj = getattr(context, "active_object", None)
    if obj is None or obj.type != "MESH" or TERRAIN_PROPERTY not in obj:
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
        if lay.kind != "IMAGE":
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
    return build_material(
        name,
        material_layers(spec),
        spec.lighting["enabled"],
        spec.material["shading"].upper(),
        cavity=spec.material["cavity"] if bakes_occlusion(spec.lighting) else 0.0,
    )


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
    rgba[:, :3] = colormap(
        maps[HEIGHT_ATTRIBUTE].reshape(shape),
        check_layers(material_layers(spec)),
        maps[SLOPE_ATTRIBUTE].reshape(shape),
        {k: v.reshape(shape) for k, v in erosion.items()},
        height=spec.height,
        cell_size=cell_size(shape, spec.width),
        seed=spec.seed,
    ).reshape(n, 3)
    light = mesh.color_attributes.get(LIGHTMAP_ATTRIBUTE)
    if spec.lighting["enabled"] and light is not None:
        grey = np.empty(n * 4, dtype=np.float32)
        light.data.foreach_get("color", grey)
        rgba[:, :3] *= grey.reshape(n, 4)[:, :1]
    layer = existing or mesh.color_attributes.new(BAKED_COLOR_ATTRIBUTE, "FLOAT_COLOR", "POINT")
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
                raise ValueError(
                    f"the mesh is no longer Orogen's grid (edited or reordered) and holds your "
                    f"{', '.join(lost[:6])}{' ...' if len(lost) > 6 else ''}, which cannot be "
                    "resampled onto a new grid: undo the edit, or remove them to rebuild the grid"
                )
            notes.append("the mesh was no longer Orogen's grid (edited or reordered): rebuilt it")
        elif old is not None:
            kept = userdata.capture(obj, mesh, old)
            if mesh.shape_keys is not None:
                obj.shape_key_clear()
    update_grid_mesh(
        mesh,
        arrays.heightmap,
        arrays.width,
        arrays.height,
        arrays.maps.lightmap,
        arrays.data_maps(),
        same_grid=same_grid,
    )
    if kept is not None and kept.summary():
        userdata.restore(obj, mesh, kept, (rows, cols))
        items = kept.summary()
        notes.append(
            f"resampled {', '.join(items[:6])}{' ...' if len(items) > 6 else ''} from {kept.shape[0]} x {kept.shape[1]}"
        )
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
    return regenerate_status(regenerate_with_notes(obj, context, preview))


def regenerate_status(result: tuple[str, list[str]]) -> str:
    """One status line from ``(status, notes)``."""
    status, notes = result
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


def apply_arrays(
    obj: bpy.types.Object,
    spec: TerrainSpec,
    shape: tuple[int, int],
    arrays: TerrainArrays,
    started: float,
    preview: bool = False,
) -> tuple[str, list[str]]:
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
            notes.append(
                f"linked duplicates share this mesh and now this spec: {', '.join(shared[:4])}"
                + (" ..." if len(shared) > 4 else "")
            )
    rows, cols = shape
    kind = "preview" if shape != spec.shape else "terrain"
    return f"Regenerated {kind} {rows} x {cols} in {time.perf_counter() - started:.2f} s", notes


class BackgroundCompute:
    """A terrain computed in a worker thread (core is numpy only, no ``bpy``), cancellable between erosion steps.

    ``start()`` runs :func:`terrain.compute_terrain` in a thread; ``fraction`` is its progress (0 to 1);
    ``cancel()`` makes the next progress report return ``False`` (core raises ``Cancelled``, nothing is
    returned); ``done()`` says whether the thread finished, and then ``arrays`` or ``error`` holds the outcome.
    Nothing in Blender is touched by the thread: the caller writes ``arrays`` into the object in the main
    thread, so a cancelled run leaves the terrain as it was. A caller need not wait for a cancelled thread:
    it stops at its next check (after the generator, each filter and each erosion step) and its result is
    dropped.
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
            arrays = compute_terrain(self.spec, self.sun, self.shape, self._progress)
        except Cancelled:
            self.cancelled = True
        except BaseException as err:  # noqa: BLE001  (handed to the main thread, which reports it)
            self.error = err
        else:
            if self._stop.is_set():  # cancelled during the bake, after the last check
                self.cancelled = True
            else:
                self.arrays = arrays

    def start(self) -> "BackgroundCompute":
        self._thread.start()
        return self

    def cancel(self) -> None:
        self._stop.set()

    def done(self) -> bool:
        return not self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)


#: Seconds between two looks of a modal operator at its background computation (its window timer).
POLL_SECONDS = 0.1


def show_progress(wm, value: int) -> None:
    """Show ``value`` (0 to ``PROGRESS_STEPS``) as ``wm``'s progress (``progress_update``: the cursor's counter)."""
    wm.progress_update(value)


def _locked_reason(context) -> str | None:
    """Why data must not be changed now: a job (a render) locks the interface; else ``None``."""
    wm = getattr(context, "window_manager", None)
    return "wait for the render to end" if wm is not None and wm.is_interface_locked else None


def object_by_uid(uid: int) -> bpy.types.Object | None:
    """The object with this ``session_uid`` (which stays through renames), or ``None`` once it is deleted."""
    return next((obj for obj in bpy.data.objects if obj.session_uid == uid and obj.users > 0), None)


def same_heights(spec: TerrainSpec, other: TerrainSpec) -> bool:
    """True when ``spec`` and ``other`` make the same mesh (they may differ in their layers and material)."""
    return replace(spec, layers=other.layers, material=other.material) == other


class BackgroundOperator:
    """Mixin for operators that compute a terrain in the background while they run modal (started from the UI).

    :meth:`_begin` starts a :class:`BackgroundCompute` and a window timer; on each timer event :meth:`modal`
    moves the status bar's progress (``window_manager.progress_update``, never backwards); Esc cancels at once
    (the worker stops at its next step, its result dropped; nothing in the scene was changed, so the operator
    returns ``CANCELLED`` and leaves no undo step). When the computation ends, :meth:`_apply` writes it into
    the scene in the main thread; an error in the worker is reported and changes nothing. Other events pass
    through, so the user can keep working while it computes.

    Subclasses give ``_doing`` (the status text), :meth:`_wait_reason` (why the result cannot be written in yet:
    it is kept until then), :meth:`_apply` and :meth:`_cancelled`.
    """

    _doing = "Computing terrain"
    _failure = "Terrain not computed"
    # (No annotations here: Blender reads a registered class's annotations as its properties.)
    _job = None  # the BackgroundCompute running
    _timer = None
    _shown = -1  # the progress shown, 0 to PROGRESS_STEPS
    #: ``(level, text)`` of the last report (the tests read it: Blender keeps an operator's reports to itself).
    last_report = None

    def _say(self, level: str, text: str) -> None:
        self.report({level}, text)
        self.last_report = (level, text)

    def _status(self, context, text: str | None) -> None:
        workspace = getattr(context, "workspace", None)
        if workspace is not None:
            workspace.status_text_set(text)

    def _begin(self, context, job: BackgroundCompute) -> set[str]:
        self._job = job.start()
        self._started = time.perf_counter()
        wm = context.window_manager
        wm.progress_begin(0, PROGRESS_STEPS)
        self._shown = -1
        self._show(context, 0)
        self._timer = wm.event_timer_add(POLL_SECONDS, window=context.window)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def _restart(self, context, job: BackgroundCompute) -> None:
        """Compute ``job`` instead (the spec changed while the last one ran); the progress starts again."""
        if self._job is not None and self._job is not job:
            self._job.cancel()
        self._job = job.start()
        self._started = time.perf_counter()
        self._shown = -1
        self._show(context, 0)

    def _show(self, context, value: int) -> None:
        """Show ``value`` (of ``PROGRESS_STEPS``): the window's progress (the cursor's counter) and the
        status bar's text; never backwards."""
        if value > self._shown:
            show_progress(context.window_manager, value)
            self._shown = value
            self._status(context, f"{self._doing}: {100 * value // PROGRESS_STEPS} % (Esc to cancel)")

    def _end(self, context) -> None:
        """Remove the timer, the progress and the status text (once; Blender may call :meth:`cancel` later)."""
        if self._timer is None:
            return
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        self._timer = None
        wm.progress_end()
        self._status(context, None)

    def modal(self, context, event):
        job = self._job
        if event.type == "ESC" and event.value == "PRESS":
            job.cancel()
            self._end(context)
            return self._cancelled(context, by_user=True)
        if event.type != "TIMER" or self._timer is None:
            return {"PASS_THROUGH"}
        if not job.done():
            self._show(context, int((PROGRESS_STEPS - 1) * job.fraction))
            return {"PASS_THROUGH"}
        if job.cancelled:
            self._end(context)
            return self._cancelled(context, by_user=False)
        if job.error is not None:
            self._end(context)
            return self._failed(context, job.error)
        reason = self._wait_reason(context)
        if reason:
            self._status(context, f"{self._doing}: done, waiting: {reason} (Esc to cancel)")
            return {"PASS_THROUGH"}
        self._show(context, PROGRESS_STEPS)
        result = self._apply(context, job)
        if self._job is not job:  # _apply started another computation
            return {"PASS_THROUGH"}
        self._end(context)
        return result

    def cancel(self, context) -> None:
        """Blender ends the operator (a file is loaded, the window closes): stop the worker and clean up."""
        if self._job is not None:
            self._job.cancel()
        self._end(context)

    def _wait_reason(self, context) -> str | None:
        return _locked_reason(context) or mode_reason(context)

    def _failed(self, context, error: BaseException) -> set[str]:
        self._say("ERROR", f"{self._failure}: {error}")
        return {"CANCELLED"}

    def _apply(self, context, job: BackgroundCompute) -> set[str]:
        raise NotImplementedError

    def _cancelled(self, context, by_user: bool) -> set[str]:
        raise NotImplementedError


def _only_looks_changed(spec: TerrainSpec, applied: str) -> bool:
    """True when ``spec`` differs from the applied spec only in its layers or material (the mesh stays)."""
    try:
        before = TerrainSpec.from_json(applied)
    except (TypeError, ValueError):
        return False
    return same_heights(before, spec)


def only_water_changed(spec: TerrainSpec, applied: str) -> bool:
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
    if obj.mode != "OBJECT":
        settings.status = "Not regenerated: leave Edit Mode first"
        return
    if settings.applied and only_water_changed(spec, settings.applied):
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
    _declined.discard(obj.session_uid)
    stop_settling(obj)  # a full size of the previous settings is no longer wanted
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
    return [
        obj
        for obj in bpy.data.objects
        if obj.type == "MESH" and obj.orogen.is_terrain and obj.orogen.preview_pending and obj.users > 0
    ]


def _back_to_full_size(obj: bpy.types.Object) -> None:
    """Show the terrain as it was before its preview (a full-size pass failed), with its recorded shape."""
    full_size_mesh(obj)
    shape = grid_shape_of(obj.data)
    if shape is not None and TERRAIN_PROPERTY in obj:
        info = json.loads(obj[TERRAIN_PROPERTY])
        obj[TERRAIN_PROPERTY] = json.dumps({**info, "shape": list(shape)})


def _full_size_failed(obj: bpy.types.Object, err: BaseException) -> None:
    """The full-size pass of ``obj`` failed: it shows the terrain it had before the preview again."""
    _back_to_full_size(obj)
    obj.orogen.status = f"Not regenerated: {err}"
    with suspended():
        obj.orogen.preview_pending = False


def flush_live_updates(force: bool = False) -> list[str]:
    """Regenerate at full size every terrain whose preview is pending once changes have settled
    (at once with ``force``), here and now (blocking: background sessions and scripts); returns the names
    regenerated. With a user interface the settle timer runs :class:`OROGEN_OT_live_settle` instead."""
    if not force and time.monotonic() - _last_change[0] < SETTLE_SECONDS:
        return []
    done = []
    for obj in _pending_objects():
        if obj.mode != "OBJECT":  # a mesh in Edit Mode cannot be rewritten: it waits until the user leaves
            obj.orogen.status = "Full size waits: leave Edit Mode"
            continue
        try:
            obj.orogen.status = regenerate(obj, bpy.context)
        except (ValueError, TypeError, RuntimeError) as err:
            _full_size_failed(obj, err)
        done.append(obj.name)
    return done


#: ``session_uid`` of terrains whose full-size pass the user cancelled (Esc): they keep their preview until
#: their settings change again (or Regenerate, or an export, makes the full size).
_declined: set[int] = set()
#: The full-size pass running in the background: ``{"uid": object's session_uid, "job": BackgroundCompute,
#: "beat": monotonic time its operator last looked at it}``, or ``None``.
_settling: list[dict | None] = [None]
#: Seconds without a look from its operator after which a full-size pass counts as gone (its operator was
#: ended without being told).
SETTLE_STALE_SECONDS = 2.0


def settling() -> bool:
    """True while a full-size pass runs in the background (:class:`OROGEN_OT_live_settle`)."""
    entry = _settling[0]
    return entry is not None and time.monotonic() - entry["beat"] < SETTLE_STALE_SECONDS


def stop_settling(obj: bpy.types.Object | None = None) -> None:
    """Cancel the background full-size pass (of ``obj`` only, when given): its result will not be used."""
    entry = _settling[0]
    if entry is not None and (obj is None or entry["uid"] == obj.session_uid):
        entry["job"].cancel()


def _settle_targets() -> list[bpy.types.Object]:
    """Terrains whose full size is due now: pending, in Object Mode, not declined (Edit Mode ones are told)."""
    targets = []
    for obj in _pending_objects():
        if obj.session_uid in _declined:
            continue
        if obj.mode != "OBJECT":
            obj.orogen.status = "Full size waits: leave Edit Mode"
            continue
        targets.append(obj)
    return targets


def _start_settle() -> bool:
    """Run :class:`OROGEN_OT_live_settle` from the UI (in the first window); True when it runs modal."""
    for window in bpy.context.window_manager.windows:
        with bpy.context.temp_override(window=window):
            return "RUNNING_MODAL" in bpy.ops.orogen.live_settle("INVOKE_DEFAULT")
    return False


def _settle_timer() -> float | None:
    """Once changes have settled, make the full size of every pending preview: in the background with a user
    interface (progress in the status bar, Esc keeps the previews), here and now without one."""
    if time.monotonic() - _last_change[0] < SETTLE_SECONDS:
        return 0.1
    if settling() or _locked_reason(bpy.context):  # (a render locks the interface: data waits)
        return 0.1
    if _settle_targets():
        if bpy.app.background or not _start_settle():
            flush_live_updates()
    return 0.1 if any(obj.session_uid not in _declined for obj in _pending_objects()) else None


def on_update(self, context) -> None:
    """Property update callback of every terrain setting (sessions with a user interface)."""
    owner = getattr(self, "id_data", None)
    if isinstance(owner, bpy.types.Object) and owner.type == "MESH":
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
        if obj.type == "MESH" and obj.orogen.is_terrain and obj.users > 0:
            on_setting_changed(obj, bpy.context)


def subscribe(classes) -> None:
    """Watch every property of ``classes`` through the message bus (cleared by :func:`unsubscribe`)."""
    bpy.msgbus.clear_by_owner(_MSGBUS_OWNER)
    for cls in classes:
        for prop in cls.bl_rna.properties:
            if prop.identifier in ("rna_type", "name", "status", "applied", "preview_pending") or prop.type in (
                "POINTER",
                "COLLECTION",
            ):
                continue
            bpy.msgbus.subscribe_rna(key=(cls, prop.identifier), owner=_MSGBUS_OWNER, args=(), notify=_on_msgbus)


def unsubscribe() -> None:
    bpy.msgbus.clear_by_owner(_MSGBUS_OWNER)
    if bpy.app.timers.is_registered(_settle_timer):
        bpy.app.timers.unregister(_settle_timer)


class OROGEN_OT_terrain_regenerate(BackgroundOperator, bpy.types.Operator):
    """Regenerate the active terrain from its spec, in place (the object and its material stay)"""

    bl_idname = "orogen.terrain_regenerate"
    bl_label = "Regenerate Terrain"
    bl_options = {"REGISTER", "UNDO"}
    _doing = "Regenerating terrain"
    _failure = "Terrain not regenerated"

    @classmethod
    def poll(cls, context):
        return poll_with(cls, terrain_reason(context))

    def execute(self, context):
        obj = context.active_object
        try:
            status, notes = regenerate_with_notes(obj, context)
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Terrain not regenerated: {err}")
            return {"CANCELLED"}
        return self._finish(obj, status, notes)

    def _finish(self, obj, status: str, notes: list[str]):
        obj.orogen.status = "; ".join([status, *notes])
        self._say("WARNING" if notes else "INFO", obj.orogen.status)
        return {"FINISHED"}

    # From the UI (a button or F3) the terrain is computed in a worker thread while this operator runs modal
    # (BackgroundOperator): the status bar shows the progress and Esc cancels, leaving the terrain as it was.
    # From Python (bpy.ops.orogen.terrain_regenerate()) execute() runs, blocking, as before.
    def invoke(self, context, _event):
        if context.window is None:
            return self.execute(context)
        obj = context.active_object
        try:
            spec = read_spec(obj.orogen)
            check_size(*spec.shape)
            job = BackgroundCompute(spec, _sun(spec, context), spec.shape)
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Terrain not regenerated: {err}")
            return {"CANCELLED"}
        self._uid = obj.session_uid
        stop_settling(obj)  # a full-size pass of the live update running for it is not needed any more
        return self._begin(context, job)

    def _wait_reason(self, context) -> str | None:
        obj = object_by_uid(self._uid)
        return _locked_reason(context) or ("leave Edit Mode" if obj is not None and obj.mode != "OBJECT" else None)

    def _apply(self, context, job: BackgroundCompute) -> set[str]:
        obj = object_by_uid(self._uid)
        if obj is None:
            self._say("ERROR", "Terrain not regenerated: the terrain was deleted")
            return {"CANCELLED"}
        try:
            spec = read_spec(obj.orogen)
        except (ValueError, TypeError) as err:
            self._say("ERROR", f"Terrain not regenerated: {err}")
            return {"CANCELLED"}
        if not same_heights(job.spec, spec):  # its settings changed meanwhile: compute those instead
            self._restart(context, BackgroundCompute(spec, _sun(spec, context), spec.shape))
            return {"RUNNING_MODAL"}
        try:
            status, notes = apply_arrays(obj, spec, spec.shape, job.arrays, self._started)
        except (ValueError, TypeError) as err:
            self._say("ERROR", f"Terrain not regenerated: {err}")
            return {"CANCELLED"}
        return self._finish(obj, status, notes)

    def _cancelled(self, context, by_user: bool) -> set[str]:
        self._say("WARNING", "Regenerate cancelled: the terrain is as it was")
        return {"CANCELLED"}


class OROGEN_OT_live_settle(BackgroundOperator, bpy.types.Operator):
    """Make the full-size terrain of every live-update preview, in the background (Esc keeps the previews)"""

    bl_idname = "orogen.live_settle"
    bl_label = "Full-Size Terrain"
    bl_options = {"INTERNAL"}  # no undo step of its own (see the module docstring)
    _doing = "Full-size terrain"
    _failure = "Full size not made"

    def execute(self, _context):
        flush_live_updates(force=True)  # without a window: here and now
        return {"FINISHED"}

    def invoke(self, context, _event):
        if context.window is None:
            return self.execute(context)
        if settling():
            return {"CANCELLED"}
        self._done: list[str] = []
        job = self._next(context)
        if job is None:
            return {"CANCELLED"}
        return self._begin(context, job)

    def _next(self, context) -> BackgroundCompute | None:
        """The next pending terrain's computation (not started), or ``None`` when none is left."""
        for obj in _settle_targets():
            try:
                spec = read_spec(obj.orogen)
                check_size(*spec.shape)
            except (ValueError, TypeError) as err:
                _full_size_failed(obj, err)
                continue
            self._uid = obj.session_uid
            job = BackgroundCompute(spec, _sun(spec, context), spec.shape)
            _settling[0] = {"uid": self._uid, "job": job, "beat": time.monotonic()}
            obj.orogen.status = f"Making the full size {spec.shape[0]} x {spec.shape[1]} (Esc keeps the preview)"
            return job
        return None

    def modal(self, context, event):
        entry = _settling[0]
        if entry is not None and entry["job"] is self._job:
            entry["beat"] = time.monotonic()
        return super().modal(context, event)

    def _end(self, context) -> None:
        super()._end(context)
        entry = _settling[0]
        if entry is not None and entry["job"] is self._job:
            _settling[0] = None

    def _wait_reason(self, context) -> str | None:
        obj = object_by_uid(self._uid)
        return _locked_reason(context) or ("leave Edit Mode" if obj is not None and obj.mode != "OBJECT" else None)

    def _apply(self, context, job: BackgroundCompute) -> set[str]:
        obj = object_by_uid(self._uid)
        if obj is not None and obj.orogen.preview_pending:  # else: deleted, or made full size meanwhile
            try:
                spec = read_spec(obj.orogen)
                if same_heights(job.spec, spec):  # else: changed meanwhile (its own settle pass follows)
                    obj.orogen.status = regenerate_status(
                        apply_arrays(obj, spec, spec.shape, job.arrays, self._started)
                    )
                    self._done.append(obj.name)
            except (ValueError, TypeError, RuntimeError) as err:
                _full_size_failed(obj, err)
        job = self._next(context)
        if job is not None:
            self._restart(context, job)
            return {"RUNNING_MODAL"}
        if self._done:
            self._say("INFO", f"Full size made: {', '.join(self._done[:4])}" + (" ..." if len(self._done) > 4 else ""))
        return {"FINISHED"}

    def _failed(self, context, error: BaseException) -> set[str]:
        obj = object_by_uid(self._uid)
        if obj is not None and obj.orogen.preview_pending:
            _full_size_failed(obj, error)
        return super()._failed(context, error)

    def _cancelled(self, context, by_user: bool) -> set[str]:
        if not by_user:  # a setting changed: that terrain's next settle pass makes it
            return {"CANCELLED"}
        kept = []
        for obj in _pending_objects():
            _declined.add(obj.session_uid)
            rows, cols = grid_shape_of(obj.data) or (0, 0)
            obj.orogen.status = (
                f"Full size cancelled: showing the {rows} x {cols} preview (change a setting or "
                "Regenerate for the full size)"
            )
            kept.append(obj.name)
        self._say("WARNING", f"Full size cancelled: {', '.join(kept[:4]) or 'the terrain'} keeps its preview")
        return {"CANCELLED"}


class OROGEN_OT_material_rebuild(bpy.types.Operator):
    """Rebuild the active terrain's material from its colour layers (replaces edits made to that material)"""

    bl_idname = "orogen.material_rebuild"
    bl_label = "Rebuild Material"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return poll_with(cls, export_reason(context))

    def execute(self, context):
        obj = context.active_object
        try:
            spec = read_spec(obj.orogen)
            checked_layers(spec)
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Material not rebuilt: {err}")
            return {"CANCELLED"}
        set_material(obj, spec)
        return {"FINISHED"}


#: Sizes game engines expect for heightmaps: 2^n + 1 vertices per side.
ENGINE_SIZES = (129, 257, 513, 1025, 2049, 4097)
assert ENGINE_SIZES[-1] == MAX_SIDE


class OROGEN_OT_size_set(bpy.types.Operator):
    """Set the terrain size to one game engines expect (2^n + 1 vertices per side)"""

    bl_idname = "orogen.size_set"
    bl_label = "Set Size"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

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
        return {"FINISHED"}


class OROGEN_MT_size_presets(bpy.types.Menu):
    bl_label = "Engine Sizes"

    def draw(self, _context):
        for size in ENGINE_SIZES:
            self.layout.operator(OROGEN_OT_size_set.bl_idname, text=f"{size} x {size}").size = size


classes = (
    OROGEN_OT_terrain_regenerate,
    OROGEN_OT_live_settle,
    OROGEN_OT_material_rebuild,
    OROGEN_OT_size_set,
    OROGEN_MT_size_presets,
)


def register(groups) -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    if bpy.app.background:
        subscribe(groups)


def unregister() -> None:
    unsubscribe()
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
