"""Operators: Add > Mesh > Terrain and Add > Mesh > Terrain Profile."""

import json
import math
import os
import shutil
import time
from pathlib import Path

import bpy
import numpy as np
from bpy_extras import object_utils
from bpy_extras.io_utils import ImportHelper

from ..core import geotiff, normalize
from ..core.colormap import DEFAULT_LAYERS, check_layers
from ..core.heightmap import check_number
from ..core.jsonio import load_json
from ..core.lighting import LIGHTING_PARAMS, cell_size
from ..core.profiles import sectioned_profile, slope_walk
from ..core.spec import MATERIAL_PARAMS, TerrainSpec, load_spec
from . import export
from .draw import draw_lighting, draw_spec
from .live import (
    PROGRESS_STEPS,
    BackgroundCompute,
    BackgroundOperator,
    bake_unlit_color,
    checked_layers,
    export_reason,
    material_layers,
    mode_reason,
    new_material,
    poll_with,
    record_terrain,
    regenerate,
    status_progress,
    suspended,
)
from .material import build_material
from .mesh import (
    CURVATURE_ATTRIBUTE,
    EROSION_ATTRIBUTES,
    SLOPE_ATTRIBUTE,
    TERRAIN_PROPERTY,
    build_grid_mesh,
    build_profile_mesh,
)
from .properties import nonfinite_error, spec_annotations
from .specio import read_group, read_spec, take_operator_spec, write_spec
from .terrain import TerrainArrays, check_size, compute_terrain, scene_sun
from .water import remove_water, sync_water


class _AddsObjects:
    """Mixin for operators that add objects: Object Mode with a scene."""

    @classmethod
    def poll(cls, context):
        return poll_with(cls, mode_reason(context))


class OROGEN_OT_terrain_add(_AddsObjects, BackgroundOperator, bpy.types.Operator, object_utils.AddObjectHelper):
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
            context.window_manager.progress_begin(0, PROGRESS_STEPS)
            try:
                arrays = compute_terrain(spec, sun, progress=status_progress(context.window_manager))
            finally:
                context.window_manager.progress_end()
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Terrain not added: {err}")
            return {"CANCELLED"}
        try:
            self._add(context, spec, arrays)
        except (ValueError, TypeError) as err:
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
            with suspended():
                write_spec(obj.orogen, spec)
                obj.orogen.is_terrain = True
                obj.orogen.applied = spec.to_json()
        except Exception:
            if obj is not None:
                remove_water(obj)
                bpy.data.objects.remove(obj)
            bpy.data.meshes.remove(mesh)
            for material in made_materials:
                if material.users == 0:
                    bpy.data.materials.remove(material)
            raise
        return obj

    # From the UI (Add > Mesh > Terrain, F3) the terrain is computed in a worker thread while this operator
    # runs modal (live.BackgroundOperator): progress in the status bar, Esc cancels and nothing is added.
    # From Python (bpy.ops.orogen.terrain_add(...)) and the redo panel, execute() runs, blocking.
    def invoke(self, context, _event):
        if context.window is None:
            return self.execute(context)
        try:
            spec, sun = self._prepare(context)
            check_size(*spec.shape)
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Terrain not added: {err}")
            return {"CANCELLED"}
        object_utils.add_object_align_init(context, self)  # location and rotation from the view it is added from
        self._spec = spec
        return self._begin(context, BackgroundCompute(spec, sun, spec.shape))

    def _apply(self, context, job: BackgroundCompute) -> set[str]:
        try:
            obj = self._add(context, self._spec, job.arrays)
        except (ValueError, TypeError) as err:
            self._say("ERROR", f"Terrain not added: {err}")
            return {"CANCELLED"}
        rows, cols = job.shape
        self._say("INFO", f"Added terrain {obj.name}, {rows} x {cols}, in {time.perf_counter() - self._started:.2f} s")
        return {"FINISHED"}

    def _cancelled(self, context, by_user: bool) -> set[str]:
        self._say("WARNING", "Add Terrain cancelled: nothing was added")
        return {"CANCELLED"}


class OROGEN_OT_profile_add(_AddsObjects, bpy.types.Operator, object_utils.AddObjectHelper):
    """Add a side-view terrain: the area between a 2D mountain profile and a base line"""

    bl_idname = "orogen.profile_add"
    bl_label = "Add Terrain Profile"
    bl_options = {"REGISTER", "UNDO"}

    method: bpy.props.EnumProperty(
        name="Method",
        description="How the profile is generated",
        items=(
            ("WALK", "Slope Walk", "Random walk of the slope; it turns at the height limits (no plateaus)"),
            ("SECTIONS", "Sections", "One random point per section, interpolated, shifted and smoothed"),
        ),
        default="SECTIONS",
    )
    columns: bpy.props.IntProperty(
        name="Columns", description="Heights along the profile", min=2, max=1_000_000, soft_max=8192, default=512
    )
    seed: bpy.props.IntProperty(
        name="Seed", description="Level seed; sections use sub-seeds of it", min=0, max=2**31 - 1, default=0
    )
    length: bpy.props.FloatProperty(
        name="Length",
        description="Length of the profile along X",
        min=0.001,
        max=1.0e6,
        soft_max=10_000.0,
        default=100.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    min_height: bpy.props.FloatProperty(
        name="Min Height",
        description="Lowest point of the profile",
        min=-1.0e5,
        max=1.0e5,
        default=2.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    max_height: bpy.props.FloatProperty(
        name="Max Height",
        description="Highest point of the profile",
        min=-1.0e5,
        max=1.0e5,
        default=30.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    base: bpy.props.FloatProperty(
        name="Base",
        description="Height of the base line the profile is filled down to",
        min=-1.0e5,
        max=1.0e5,
        default=0.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    depth: bpy.props.FloatProperty(
        name="Depth",
        description="Extrusion along Y; 0 gives a flat 2D shape",
        min=0.0,
        max=1.0e5,
        soft_max=1000.0,
        default=0.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    max_slope: bpy.props.FloatProperty(
        name="Max Slope",
        description="Steepest slope, metres per column",
        min=0.001,
        max=1.0e4,
        soft_max=10.0,
        default=0.6,
    )
    slope_change: bpy.props.FloatProperty(
        name="Slope Change",
        description="Largest change of the slope per column; larger is jagged",
        min=0.0,
        max=1.0e4,
        soft_max=5.0,
        default=0.15,
    )
    sections: bpy.props.IntProperty(
        name="Sections",
        description="Number of sections (one random point each)",
        min=1,
        max=65536,
        soft_max=256,
        default=12,
    )
    sub_points: bpy.props.IntProperty(
        name="Sub-points", description="Interpolated points per section", min=1, max=4096, soft_max=64, default=6
    )
    shift: bpy.props.FloatProperty(
        name="Shift",
        description="How far sub-points are offset, as a fraction",
        min=0.0,
        max=1.0,
        default=0.25,
        subtype="FACTOR",
    )
    smoothing_steps: bpy.props.IntProperty(
        name="Smoothing",
        description="Random smoothing steps per section",
        min=0,
        max=10_000_000,
        soft_max=10_000,
        default=300,
    )
    use_material: bpy.props.BoolProperty(name="Material", description="Colour the profile by height", default=True)

    def draw(self, _context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        col = layout.column()
        for name in ("method", "columns", "seed", "length", "min_height", "max_height", "base", "depth"):
            col.prop(self, name)
        col = layout.column(align=True)
        names = (
            ("max_slope", "slope_change")
            if self.method == "WALK"
            else ("sections", "sub_points", "shift", "smoothing_steps")
        )
        for name in names:
            col.prop(self, name)
        layout.prop(self, "use_material")
        col = layout.column()
        col.prop(self, "align")
        col.prop(self, "location")
        col.prop(self, "rotation")

    def execute(self, context):
        message = nonfinite_error(self)
        if message:
            self.report({"ERROR"}, message)
            return {"CANCELLED"}
        if self.base >= self.min_height:
            self.report({"ERROR"}, f"Base ({self.base:g}) must be below Min Height ({self.min_height:g})")
            return {"CANCELLED"}
        try:
            if self.method == "WALK":
                profile = slope_walk(
                    self.columns, self.seed, self.min_height, self.max_height, self.max_slope, self.slope_change
                )
            else:
                profile = sectioned_profile(
                    self.columns,
                    self.seed,
                    self.sections,
                    self.sub_points,
                    self.shift,
                    self.smoothing_steps,
                    self.min_height,
                    self.max_height,
                )
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Profile not added: {err}")
            return {"CANCELLED"}
        mesh = build_profile_mesh("Terrain Profile", profile, self.length, self.base, self.depth)
        if self.use_material:
            mesh.materials.append(build_material("Terrain Profile", DEFAULT_LAYERS, use_lightmap=False))
        object_utils.object_data_add(context, mesh, operator=self)
        return {"FINISHED"}


def sidecar_scale(path: str) -> tuple[float, float] | None:
    """``(width, height)`` in metres from the JSON sidecar Orogen writes beside an exported heightmap;
    ``None`` when there is no sidecar or it records no scale.

    A generated terrain's sidecar holds its spec; an imported terrain's (``"spec": null``) and 0.1's hold
    ``width_m`` and ``height_range_m``. Raises ``ValueError`` for a sidecar that is there but cannot say a
    scale (broken, or a width or height range that is not a positive, finite number of metres).
    """
    sidecar = path + ".json"
    if not os.path.isfile(sidecar):  # none, or not a regular file (which the RAW reader refuses, naming it)
        return None
    name = os.path.basename(sidecar)
    data = load_json(Path(sidecar), name)  # a regular file of bounded size (FIFOs, devices refused)
    if isinstance(data, dict) and isinstance(data.get("spec"), dict):
        spec = load_spec(data)
        return spec.width, spec.height
    if not isinstance(data, dict):
        raise ValueError(f"{name} must be a JSON object (a sidecar Orogen writes)")
    if "width_m" not in data:
        return None  # a sidecar with a RAW file's shape only
    width = check_number(data["width_m"], f"{name}: width_m", 0.001, 1.0e6)
    span = data.get("height_range_m", [0.0, 20.0])
    if not isinstance(span, list) or len(span) != 2:
        raise ValueError(f"{name}: height_range_m must be [low, high] in metres")
    low, high = (check_number(v, f"{name}: height_range_m", -1.0e6, 1.0e6) for v in span)
    return width, check_number(high - low, f"{name}: height range", 0.0, 1.0e5)


class OROGEN_OT_heightmap_import(_AddsObjects, bpy.types.Operator, ImportHelper, object_utils.AddObjectHelper):
    """Import a heightmap (8- or 16-bit PNG, TIFF, OpenEXR, 16-bit RAW, .npy) as a terrain, lit and coloured"""

    bl_idname = "orogen.heightmap_import"
    bl_label = "Import Heightmap"
    bl_options = {"REGISTER", "UNDO"}

    filter_glob: bpy.props.StringProperty(default=";".join("*" + s for s in export.IMPORT_SUFFIXES), options={"HIDDEN"})
    use_sidecar_scale: bpy.props.BoolProperty(
        name="Scale from File",
        default=True,
        description="Take the width and height from the JSON sidecar Orogen exports beside a heightmap, or from "
        "a GeoTIFF's georeferencing, if there is one (Width and Height otherwise)",
    )
    # width, height, lighting and material: made from core's declarations at register time.

    def draw(self, _context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        col = layout.column()
        col.prop(self, "use_sidecar_scale")
        col.prop(self, "width")
        col.prop(self, "height")
        draw_lighting(layout, self.lighting)
        layout.prop(self.material, "enabled")
        layout.prop(self.material, "shading")

    def _spec(self, context) -> tuple[TerrainSpec, tuple[float, float] | None]:
        scale = sidecar_scale(self.filepath) if self.use_sidecar_scale else None
        width, height = scale or (self.width, self.height)
        if scale is not None:
            self.report(
                {"INFO"},
                f"Width {width:g} m and height {height:g} m from {os.path.basename(self.filepath)}"
                ".json (turn off Scale from File to set them)",
            )
        spec = TerrainSpec(
            width=width,
            height=height,
            lighting=read_group(self.lighting, LIGHTING_PARAMS),
            material=read_group(self.material, MATERIAL_PARAMS),
        )
        return spec, scene_sun(context.scene) if spec.lighting["use_scene_sun"] else None

    def execute(self, context):
        message = nonfinite_error(self)
        if message:
            self.report({"ERROR"}, message)
            return {"CANCELLED"}
        try:
            if not os.path.isfile(self.filepath):
                raise ValueError(f"no such file: {self.filepath}")
            spec, sun = self._spec(context)
            values, dem = export.read_elevation(self.filepath, check_size=check_size)
            if self.use_sidecar_scale and dem is not None and dem.cell_size is not None:
                width, height = geotiff.dem_extent(values, dem)  # a georeferenced DEM: its own scale, in metres
                spec = spec.replace(width=width, height=height)
            heightmap = normalize(values)
            arrays = TerrainArrays(heightmap, spec.bake(heightmap, sun), spec.width, spec.height, None)
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Heightmap not imported: {err}")
            return {"CANCELLED"}
        name = os.path.splitext(os.path.basename(self.filepath))[0] or "Terrain"
        mesh = build_grid_mesh(
            name,
            arrays.heightmap,
            arrays.width,
            arrays.height,
            arrays.maps.lightmap,
            {SLOPE_ATTRIBUTE: arrays.maps.slope, CURVATURE_ATTRIBUTE: arrays.maps.curvature},
        )
        if spec.material["enabled"]:
            mesh.materials.append(new_material(name, spec))
        obj = object_utils.object_data_add(context, mesh, operator=self)
        record_terrain(obj, arrays, source=self.filepath, **geotiff.dem_record(values, dem))
        bake_unlit_color(obj, spec)
        sync_water(obj, spec)
        with suspended():
            write_spec(obj.orogen, spec)  # its layers, lighting and scale; no generator to re-run (not is_terrain)
        if dem is not None:
            self.report({"WARNING"} if dem.nodata else {"INFO"}, geotiff.dem_summary(values, dem))
        return {"FINISHED"}


class OROGEN_OT_export_maps(bpy.types.Operator):
    """Export the active terrain's heightmap and baked maps to a folder"""

    bl_idname = "orogen.export_maps"
    bl_label = "Export Terrain Maps"
    bl_options = {"REGISTER"}

    directory: bpy.props.StringProperty(name="Folder", description="Folder to write into", subtype="DIR_PATH")
    name: bpy.props.StringProperty(name="Name", description="File name stem", default="terrain")
    heightmap_format: bpy.props.EnumProperty(
        name="Heightmap",
        description="File format of the heightmap",
        items=(
            ("PNG16", "PNG 16-bit", "Grey 16-bit PNG: 0 -> 0, 1 -> 65535"),
            ("EXR", "OpenEXR", "32-bit float OpenEXR"),
            ("R16", "RAW 16-bit", "Little-endian unsigned 16-bit, row-major, no header (.r16)"),
            ("NPY", "NumPy", "float32 .npy"),
            ("NONE", "None", "No heightmap"),
        ),
        default="PNG16",
    )
    absolute: bpy.props.BoolProperty(
        name="Metres",
        description="EXR/NPY hold absolute heights in metres instead of 0-1; a JSON sidecar records the range",
        default=False,
    )
    use_lightmap: bpy.props.BoolProperty(name="Lightmap", description="Lightmap as grey PNG", default=True)
    use_colormap: bpy.props.BoolProperty(
        name="Colour Map", description="Height-blended colours as sRGB PNG", default=True
    )
    use_normal_map: bpy.props.BoolProperty(
        name="Normal Map", description="Tangent-space normal map, OpenGL (Y+)", default=True
    )
    use_data_maps: bpy.props.BoolProperty(
        name="Slope and Curvature", description="Slope (degrees) and curvature (1/m) as float EXR", default=True
    )
    use_splat_maps: bpy.props.BoolProperty(
        name="Splat Maps", description="Layer weights, four per RGBA PNG, summing to 255", default=True
    )
    use_erosion_maps: bpy.props.BoolProperty(
        name="Erosion Maps",
        description="Drainage area, flow direction, water depth, deposited and removed (those the terrain's "
        "erosion filters made) as float EXR and as 16-bit PNG masks scaled to their range, the "
        "ranges in a JSON sidecar",
        default=True,
    )

    @classmethod
    def poll(cls, context):
        return poll_with(cls, export_reason(context))

    def invoke(self, context, _event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        obj = context.active_object
        if not self.directory:
            self.report({"ERROR"}, "Export failed: choose a folder to write into")
            return {"CANCELLED"}
        notes: list[str] = []
        try:
            written = export_terrain_maps(obj, self, notes=notes)
        except (ValueError, TypeError, KeyError, OSError, RuntimeError) as err:
            self.report({"ERROR"}, f"Export failed: {err}")
            return {"CANCELLED"}
        if not written:
            self.report({"WARNING"}, "Nothing exported: choose a heightmap format or some maps")
            return {"CANCELLED"}
        self.report(
            {"WARNING"} if notes else {"INFO"},
            "; ".join([f"Wrote {len(written)} files to {os.path.dirname(written[0])}", *notes]),
        )
        return {"FINISHED"}


def export_terrain_maps(obj, options, formats=None, notes: list[str] | None = None) -> list[str]:
    """Write the maps ``options`` asks for (see :class:`OROGEN_OT_export_maps`); returns the paths.

    ``formats`` lists the heightmap formats to write, each with its sidecar
    (default: ``options.heightmap_format`` alone); the other maps are written
    once. All or nothing: the files are written into a hidden staging folder inside
    the target folder and moved into place only once every one of them was
    written, so a failure (a full disk, a folder where a file should go)
    leaves the target folder as it was. The heights are the mesh's as the
    user sees it (:func:`export.mesh_heights`); ``notes`` receives a line when
    they hold hand edits. Raises ``ValueError``, ``OSError`` or
    ``RuntimeError`` (Blender's image writer). A terrain still showing a live-update preview is
    regenerated at full size first: an export is of the terrain, never of its preview.
    """
    folder = export.check_path(options.directory)
    if obj.orogen.is_terrain and obj.orogen.preview_pending:
        obj.orogen.status = regenerate(obj, bpy.context)
    staging = export.stage_dir(folder)
    try:
        stem = os.path.join(staging, bpy.path.clean_name(options.name) or "terrain")
        formats = (options.heightmap_format,) if formats is None else tuple(dict.fromkeys(formats))  # each once
        staged = _write_maps(obj, options, stem, formats, notes)
        finals = [os.path.join(folder, os.path.basename(path)) for path in staged]
        export.commit(list(zip(staged, finals, strict=True)), export.terrain_shape(obj))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return finals


def _write_maps(obj, options, stem: str, formats: tuple[str, ...], notes: list[str] | None = None) -> list[str]:
    """Write the heightmap in each of ``formats`` and the maps to ``stem`` + suffixes; returns the paths (and adds
    to ``notes`` what the user should know: hand edits exported)."""
    from ..core import colormap, layer_weights, shading
    from ..core.colormap import splat_maps

    info = json.loads(obj[TERRAIN_PROPERTY])
    h, (low, high), edited = export.mesh_heights(obj)  # what the mesh holds, hand edits included
    metres = h * np.float32(high - low)
    cell = cell_size(tuple(info["shape"]), info["width"])
    written: list[str] = []
    spec = read_spec(obj.orogen)
    # An edited mesh is no longer what its spec makes: its sidecar keeps that spec apart (an import then takes
    # the width and the edited height range, not the spec's).
    made_by = spec.to_dict() if obj.orogen.is_terrain else None
    sidecar = {
        "spec": None if edited else made_by,
        "cell_size_m": cell,
        "width_m": info["width"],
        **({"edited_vertices": edited, "spec_before_edits": made_by} if edited else {}),
    }
    if edited and notes is not None:
        notes.append(
            f"exported the mesh as edited ({edited} vertices differ from the generated terrain; heights "
            f"{low:.6g} to {high:.6g} m; the lightmap is the one baked before the edits)"
        )
    for fmt in formats:
        if fmt != "NONE":
            written += export.write_heightmap(
                stem + "_height", h, fmt, height_range=(low, high), absolute=options.absolute, sidecar=sidecar
            )
    lightmap = export.point_map(obj, "Lightmap")
    if options.use_lightmap and lightmap is not None:
        written.append(export.write_image(stem + "_lightmap.png", lightmap))
    slope = shading.slope_degrees(metres, cell)
    layers = check_layers(material_layers(spec))
    erosion = {name: m for name in EROSION_ATTRIBUTES if (m := export.point_map(obj, name)) is not None}
    # The colour layers see what the material sees: heights in units of Height (the ``height`` attribute, which
    # version 3 lets rise above 1 or sink below 0) and metres = that x Height, the mesh's Z; an edited mesh's
    # own Z in those units.
    height = float(info["height"])
    if not edited:
        units = export.heightmap_from_mesh(obj)
    elif height > 0.0:
        units = ((low + h.astype(np.float64) * (high - low)) / height).astype(np.float32)
    else:
        units, height = h, float(high - low)
    scale = {"height": height, "cell_size": cell, "seed": spec.seed}  # metres layers, noisy edges
    if options.use_colormap:
        written.append(
            export.write_image(stem + "_color.png", colormap(units, layers, slope, erosion, **scale), data=False)
        )
    if options.use_normal_map:
        written.append(export.write_image(stem + "_normal.png", shading.normal_map(metres, cell)))
    if options.use_data_maps:
        written.append(export.write_image(stem + "_slope.exr", slope, depth="32", file_format="OPEN_EXR"))
        written.append(
            export.write_image(
                stem + "_curvature.exr", shading.curvature(metres, cell), depth="32", file_format="OPEN_EXR"
            )
        )
    if options.use_splat_maps:
        for i, rgba in enumerate(splat_maps(layer_weights(units, layers, slope, erosion, **scale))):
            written.append(export.write_image(f"{stem}_splat{i}.png", rgba / 255.0))
    if getattr(options, "use_erosion_maps", False) and erosion:
        written += export.write_erosion_maps(stem, erosion)
    return written


def menu_export(self, _context):
    self.layout.operator(OROGEN_OT_export_maps.bl_idname, text="Orogen Terrain Maps")


def menu_import(self, _context):
    self.layout.operator(OROGEN_OT_heightmap_import.bl_idname, text="Orogen Heightmap (.png, .tif, .exr, .r16, .npy)")


def menu_func(self, _context):
    self.layout.operator(OROGEN_OT_terrain_add.bl_idname, text="Terrain", icon="RNDCURVE")
    self.layout.operator(OROGEN_OT_profile_add.bl_idname, text="Terrain Profile", icon="IPO_EASE_IN_OUT")


classes = (OROGEN_OT_terrain_add, OROGEN_OT_profile_add, OROGEN_OT_heightmap_import, OROGEN_OT_export_maps)


def register() -> None:
    # The add operator holds every spec setting (its redo panel); the importer the scale, lighting and material.
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
    OROGEN_OT_heightmap_import.__annotations__ = {
        **{
            k: v
            for k, v in OROGEN_OT_heightmap_import.__annotations__.items()
            if k in ("filter_glob", "use_sidecar_scale")
        },
        **{k: annotations[k] for k in ("width", "height", "lighting", "material")},
    }
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.VIEW3D_MT_mesh_add.append(menu_func)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.VIEW3D_MT_mesh_add.remove(menu_func)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
