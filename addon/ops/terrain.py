"""Terrain operators: Add > Mesh > Terrain, Terrain from Object, Generate (the panel's settings), Regenerate and
Rebuild Material.

Add and Regenerate, started from the UI, compute in the background (:class:`..jobs.BackgroundOperator`).
"""

import math
import time
import warnings

import bpy
import numpy as np
from bpy_extras import object_utils
from mathutils import Vector

from ...core.progress import Cancelled
from ...core.spec import MAX_SIDE, MIN_SIDE, WORLD_PARAMS, InactiveSettingWarning, TerrainSpec, apply_settings
from ..displacement import remove_displacement, sync_displacement
from ..inputs import INPUTS_PROPERTY, terrain_inputs
from ..jobs import BackgroundCompute, BackgroundOperator, running
from ..live import same_heights, suspended
from ..material import bake_unlit_color, checked_layers, new_material
from ..mesh import (
    build_grid_mesh,
)
from ..poll import AddsObjects, export_reason, locked_reason, mode_reason, object_by_uid, poll_with, terrain_reason
from ..properties import spec_annotations
from ..specio import read_spec, take_operator_spec, write_spec
from ..terrain.apply import apply_arrays, record_terrain, regenerate_with_notes, set_material, sun_for
from ..terrain.compute import TerrainArrays, announce_work, check_size, compute_terrain, scene_sun
from ..terrain.settle import stop_settling
from ..ui.draw import draw_spec
from ..water import remove_water, sync_water


class OROGEN_OT_terrain_add(AddsObjects, BackgroundOperator, bpy.types.Operator, object_utils.AddObjectHelper):
    """Add a terrain: a grid mesh from a generator and filter stack, with baked lighting and a height-blended \
material"""

    bl_idname = "orogen.terrain_add"
    bl_label = "Add Terrain"
    bl_options = {"REGISTER", "UNDO"}
    _doing = "Adding terrain"
    _failure = "Terrain not added"
    # Its settings (every spec setting, made from core's declarations) are added at register time.

    def draw(self, _context):
        draw_spec(self.layout, self, operator=True)
        col = self.layout.column()
        col.prop(self, "align")
        col.prop(self, "location")
        col.prop(self, "rotation")

    def _prepare(self, context) -> tuple[TerrainSpec, tuple[float, float] | None]:
        """The spec to build and the scene's sun (when the lighting follows it), checked; ``ValueError`` or
        ``TypeError`` naming what is wrong. Nothing in the scene is changed."""
        # Location and rotation (core refuses a non-finite spec setting by its path).
        message = next(
            (
                f"{name.title()} must be a finite number, got {tuple(getattr(self, name))}"
                for name in ("location", "rotation")
                if not all(map(math.isfinite, getattr(self, name)))
            ),
            None,
        )
        if message:
            raise ValueError(message)
        with suspended():
            spec = take_operator_spec(self)
        sun = scene_sun(context.scene) if spec.lighting["use_scene_sun"] else None
        if spec.lighting["use_scene_sun"] and sun is None:
            self.report({"WARNING"}, "No Sun light in the scene: using the Light Azimuth and Altitude")
        checked_layers(spec)
        return spec, sun

    def execute(self, context):
        try:
            spec, sun = self._prepare(context)
            check_size(*spec.shape, spec)
            announce_work(self, spec)
            inputs = terrain_inputs(spec, object_utils.add_object_align_init(context, self), context)
            with running(self._doing, context) as job:
                arrays = compute_terrain(spec, sun, progress=job.part(0.0, 0.99), inputs=inputs)
                if job.cancelled:  # during the bake, after the last check
                    raise Cancelled("cancelled before the terrain was added")
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Terrain not added: {err}")
            return {"CANCELLED"}
        except Cancelled:
            return self._cancelled(context, by_user=True)
        try:
            self._add(context, spec, arrays)
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Terrain not added: {err}")
            return {"CANCELLED"}
        return {"FINISHED"}

    def _add(self, context, spec: TerrainSpec, arrays: TerrainArrays) -> bpy.types.Object:
        """The terrain object, made from ``arrays`` and added to the scene (the only step that changes it).

        All or nothing: if a later step (the Unlit colour bake, the water) raises, what was made is removed
        again before the error goes on, so the scene is as it was.
        """
        mesh = build_grid_mesh(
            "Terrain", arrays.heightmap, arrays.width, arrays.height, arrays.maps.lightmap, arrays.data_maps()
        )
        made_materials = []
        obj = None
        try:
            if spec.material["enabled"]:
                made_materials.append(new_material("Terrain", spec))
                mesh.materials.append(made_materials[-1])
            obj = object_utils.object_data_add(context, mesh, operator=self)
            record_terrain(obj, arrays)
            bake_unlit_color(obj, spec)
            sync_water(obj, spec)
            for note in sync_displacement(obj, spec):
                self.report({"WARNING"}, note)
            with suspended():
                write_spec(obj.orogen, spec)
                obj.orogen.is_terrain = True
                obj.orogen.applied = spec.to_json()
            obj[INPUTS_PROPERTY] = arrays.inputs
            if arrays.notes:  # a filter changed the terrain's scale: say so, and keep it in the status line
                obj.orogen.status = "; ".join(arrays.notes)
                for note in arrays.notes:
                    self.report({"WARNING"}, f"Note: {note}")
        except Exception:
            if obj is not None:
                remove_water(obj)
                remove_displacement(obj)
                bpy.data.objects.remove(obj)
            bpy.data.meshes.remove(mesh)
            for material in made_materials:
                if material.users == 0:
                    bpy.data.materials.remove(material)
            raise
        return obj

    # From the UI (Add > Mesh > Terrain, F3) the terrain is computed in a worker thread while this operator
    # runs modal (jobs.BackgroundOperator): progress in the status bar, Esc cancels and nothing is added.
    # From Python (bpy.ops.orogen.terrain_add(...)) and the redo panel, execute() runs, blocking.
    def invoke(self, context, _event):
        if context.window is None:
            return self.execute(context)
        try:
            spec, sun = self._prepare(context)
            check_size(*spec.shape, spec)
            announce_work(self, spec)
            frame = object_utils.add_object_align_init(context, self)  # location and rotation from the view
            inputs = terrain_inputs(spec, frame, context)
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Terrain not added: {err}")
            return {"CANCELLED"}
        self._spec = spec
        return self._begin(context, BackgroundCompute(spec, sun, spec.shape, inputs=inputs))

    def _apply(self, context, job: BackgroundCompute) -> set[str]:
        try:
            obj = self._add(context, self._spec, job.arrays)
        except (ValueError, TypeError, RuntimeError) as err:
            self._say("ERROR", f"Terrain not added: {err}")
            return {"CANCELLED"}
        rows, cols = job.shape
        self._say("INFO", f"Added terrain {obj.name}, {rows} x {cols}, in {time.perf_counter() - self._started:.2f} s")
        return {"FINISHED"}

    def _cancelled(self, context, by_user: bool) -> set[str]:
        self._say("WARNING", "Add Terrain cancelled: nothing was added")
        return {"CANCELLED"}


class OROGEN_OT_terrain_generate(bpy.types.Operator):
    """Add a terrain with the Terrain panel's settings and colour layers (what Generate does)"""

    bl_idname = "orogen.terrain_generate"
    bl_label = "Generate Terrain"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return poll_with(cls, mode_reason(context))

    def execute(self, context):
        try:
            spec = read_spec(context.scene.orogen)
            if "CANCELLED" in bpy.ops.orogen.terrain_add(spec=spec.to_json()):  # cancelled: it said so
                self.report({"WARNING"}, "Generate cancelled: nothing was added")
                return {"CANCELLED"}
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Terrain not added: {err}")
            return {"CANCELLED"}
        except RuntimeError as err:  # terrain_add reported why; pass it on
            self.report({"ERROR"}, str(err).replace("Error: ", "", 1).strip())
            return {"CANCELLED"}
        return {"FINISHED"}


class OROGEN_OT_terrain_regenerate(BackgroundOperator, bpy.types.Operator):
    """Regenerate the selected terrain from its spec, in place (the object and its material stay)"""

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
            spec = read_spec(obj.orogen)
            check_size(*spec.shape, spec)
            announce_work(self, spec)
            with running(self._doing, context):
                status, notes = regenerate_with_notes(obj, context)
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Terrain not regenerated: {err}")
            return {"CANCELLED"}
        except Cancelled:
            return self._cancelled(context, by_user=True)
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
            check_size(*spec.shape, spec)
            announce_work(self, spec)
            job = BackgroundCompute(
                spec,
                sun_for(spec, context),
                spec.shape,
                inputs=terrain_inputs(spec, obj.matrix_world, context, terrain=obj),
            )
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Terrain not regenerated: {err}")
            return {"CANCELLED"}
        self._uid = obj.session_uid
        stop_settling(obj)  # a full-size pass of the live update running for it is not needed any more
        return self._begin(context, job)

    def _wait_reason(self, context) -> str | None:
        obj = object_by_uid(self._uid)
        return locked_reason(context) or ("leave Edit Mode" if obj is not None and obj.mode != "OBJECT" else None)

    def _apply(self, context, job: BackgroundCompute) -> set[str]:
        obj = object_by_uid(self._uid)
        if obj is None:
            self._say("ERROR", "Terrain not regenerated: the terrain was deleted")
            return {"CANCELLED"}
        try:
            spec = read_spec(obj.orogen)
        except (ValueError, TypeError, RuntimeError) as err:
            self._say("ERROR", f"Terrain not regenerated: {err}")
            return {"CANCELLED"}
        if not same_heights(job.spec, spec):  # its settings changed meanwhile: compute those instead
            try:  # the same guards as a start: a new Size meets the memory guard and the Work Limit
                check_size(*spec.shape, spec)
                announce_work(self, spec)
                inputs = terrain_inputs(spec, obj.matrix_world, context, terrain=obj)
                again = BackgroundCompute(spec, sun_for(spec, context), spec.shape, inputs=inputs)
            except (ValueError, TypeError, RuntimeError) as err:
                self._say("ERROR", f"Terrain not regenerated: {err}")
                return {"CANCELLED"}
            self._restart(context, again)
            return {"RUNNING_MODAL"}
        try:
            status, notes = apply_arrays(obj, spec, spec.shape, job.arrays, self._started)
        except (ValueError, TypeError, RuntimeError) as err:
            self._say("ERROR", f"Terrain not regenerated: {err}")
            return {"CANCELLED"}
        return self._finish(obj, status, notes)

    def _cancelled(self, context, by_user: bool) -> set[str]:
        self._say("WARNING", "Regenerate cancelled: the terrain is as it was")
        return {"CANCELLED"}


def object_reason(context) -> str | None:
    """Why Terrain from Object cannot run now (not Object Mode, no active mesh object), or ``None``."""
    reason = mode_reason(context)
    if reason:
        return reason
    obj = getattr(context, "active_object", None)
    if obj is None:
        return "Select the mesh object to start the terrain from"
    if obj.type != "MESH":
        return f"{obj.name} is a {obj.type.lower()}: Terrain from Object reads a mesh"
    return None


def footprint(obj: bpy.types.Object) -> tuple[float, float, float, float, float, float]:
    """``(centre x, centre y, extent x, extent y, lowest z, highest z)`` in world metres of ``obj``'s bounding
    box (its eight corners through its world matrix)."""
    corners = np.array([tuple(obj.matrix_world @ Vector(c)) for c in obj.bound_box], dtype=np.float64)
    low, high = corners.min(axis=0), corners.max(axis=0)
    centre = (low + high) / 2.0
    extent = high - low
    return float(centre[0]), float(centre[1]), float(extent[0]), float(extent[1]), float(low[2]), float(high[2])


def grid_over(extent_x: float, extent_y: float, side: int) -> tuple[int, int]:
    """``(size, size_y)`` of a grid of ``side`` vertices along the longer of the two extents, the shorter in
    proportion (cells square); ``size_y`` is 0 for a square grid."""
    longer = max(extent_x, extent_y)
    cols = side if extent_x >= extent_y else max(MIN_SIDE, round((side - 1) * extent_x / longer) + 1)
    rows = side if extent_y >= extent_x else max(MIN_SIDE, round((side - 1) * extent_y / longer) + 1)
    return cols, (rows if rows != cols else 0)


class OROGEN_OT_terrain_from_object(bpy.types.Operator):
    """Add a terrain whose source is the active mesh object seen from above (a sculpt, a scan, another terrain): \
the object is kept, hidden; Regenerate and live updates read it again"""

    bl_idname = "orogen.terrain_from_object"
    bl_label = "Terrain from Object"
    bl_options = {"REGISTER", "UNDO"}

    size: bpy.props.IntProperty(
        name="Size",
        default=257,
        min=MIN_SIDE,
        max=MAX_SIDE,
        soft_max=1025,
        description="Vertices along the longer side of the object's footprint (the shorter in proportion)",
    )
    hide_source: bpy.props.BoolProperty(
        name="Hide Object", default=True, description="Hide the source object (it is kept: the terrain reads it)"
    )
    spec: bpy.props.StringProperty(
        name="Spec",
        default="",
        options={"HIDDEN", "SKIP_SAVE"},
        description="Terrain spec as JSON: its filters, lighting, material and layers (its source is the object, "
        "its size and width the object's footprint)",
    )
    set: bpy.props.StringProperty(
        name="Set",
        default="",
        options={"HIDDEN", "SKIP_SAVE"},
        description="Settings by name, 'NAME=VALUE; NAME=VALUE' (thermal.talus_angle=30; object.fill=value), as "
        "Add Terrain's set",
    )

    @classmethod
    def poll(cls, context):
        return poll_with(cls, object_reason(context))

    def _spec(self, source: bpy.types.Object) -> tuple[TerrainSpec, tuple[float, float, float]]:
        """The terrain's spec and location; ``ValueError``/``TypeError`` naming what is wrong."""
        cx, cy, dx, dy, low, high = footprint(source)
        if not all(map(math.isfinite, (cx, cy, dx, dy, low, high))):
            raise ValueError(f"{source.name}'s bounding box is not finite")
        if max(dx, dy) <= 1e-6:
            raise ValueError(f"{source.name} has no extent seen from above (its bounding box is {dx:g} x {dy:g} m)")
        bounds = {p.name: p.hard[1] for p in WORLD_PARAMS if p.name in ("width", "height")}
        if max(dx, dy) > bounds["width"] or max(abs(low), abs(high)) > bounds["height"]:
            raise ValueError(
                f"{source.name} is {max(dx, dy):.3g} m across and reaches {max(abs(low), abs(high)):.3g} m in Z; a "
                f"terrain is at most {bounds['width']:g} m wide and {bounds['height']:g} m high: scale the object down"
            )
        size, size_y = grid_over(dx, dy, self.size)
        base = TerrainSpec.from_json(self.spec) if self.spec else TerrainSpec(filters=())
        spec = base.replace(
            generator="object",
            params={**(base.params if base.generator == "object" else {}), "object": source.name},
            size=size,
            size_y=size_y,
            width=max(dx, dy),
            height=base.height if self.spec else max(high - min(low, 0.0), 1.0),
        )
        assignments = [a for a in self.set.split(";") if a.strip()]
        if assignments:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", InactiveSettingWarning)
                spec = apply_settings(spec, assignments)
            for w in caught:
                if issubclass(w.category, InactiveSettingWarning):
                    self.report({"WARNING"}, f"Note: {w.message}")
            if spec.generator != "object":
                raise ValueError("set generator: a terrain from an object has the object as its source")
        return spec, (cx, cy, 0.0)

    def execute(self, context):
        source = context.active_object
        try:
            spec, location = self._spec(source)
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Terrain not added: {err}")
            return {"CANCELLED"}
        try:
            done = bpy.ops.orogen.terrain_add(spec=spec.to_json(), location=location, rotation=(0.0, 0.0, 0.0))
        except RuntimeError as err:  # terrain_add reported why; pass it on
            self.report({"ERROR"}, str(err).replace("Error: ", "", 1).strip())
            return {"CANCELLED"}
        if "FINISHED" not in done:
            self.report({"WARNING"}, "Terrain from Object cancelled: nothing was added")
            return {"CANCELLED"}
        terrain = context.view_layer.objects.active
        if self.hide_source:
            source.hide_set(True)
            source.hide_render = True
        self.report({"INFO"}, f"Added terrain {terrain.name} from {source.name} ({spec.shape[0]} x {spec.shape[1]})")
        return {"FINISHED"}


class OROGEN_OT_material_rebuild(bpy.types.Operator):
    """Rebuild the selected terrain's material from its colour layers (replaces edits made to that material)"""

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
        for note in set_material(obj, spec):
            self.report({"WARNING"}, note)
        return {"FINISHED"}


def menu_func(self, _context):
    self.layout.operator(OROGEN_OT_terrain_add.bl_idname, text="Terrain", icon="RNDCURVE")
    self.layout.operator(OROGEN_OT_terrain_from_object.bl_idname, text="Terrain from Object", icon="RNDCURVE")


classes = (
    OROGEN_OT_terrain_add,
    OROGEN_OT_terrain_from_object,
    OROGEN_OT_terrain_generate,
    OROGEN_OT_terrain_regenerate,
    OROGEN_OT_material_rebuild,
)


def register() -> None:
    # The add operator holds every spec setting (its redo panel).
    annotations = spec_annotations()
    OROGEN_OT_terrain_add.__annotations__ = {
        **annotations,
        "spec": bpy.props.StringProperty(
            name="Spec",
            default="",
            options={"HIDDEN", "SKIP_SAVE"},
            description="Terrain spec as JSON (any form Orogen wrote: spec, 0.1 recipe, export sidecar); when set "
            "it replaces every other setting (for scripts and presets)",
        ),
        "set": bpy.props.StringProperty(
            name="Set",
            default="",
            options={"HIDDEN", "SKIP_SAVE"},
            description="Settings by name, 'NAME=VALUE; NAME=VALUE' (hills.count=300; lighting.azimuth=90; "
            "count=300 when only one part of the spec has a 'count'), as the scripts' --set",
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
