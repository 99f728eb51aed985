"""File > Import > Orogen Heightmap: a heightmap file (PNG, TIFF or GeoTIFF, OpenEXR, RAW, .npy) as a terrain.

An import is Add Terrain with a file source (the ``file`` generator, :mod:`core.generators.sources`): the
terrain's spec names the file, so filters, live updates, Regenerate (which reads the file again, and says when
it changed or is missing) and export work on it as on any terrain.
"""

import json
import os
import warnings

import bpy
import numpy as np
from bpy_extras import object_utils
from bpy_extras.io_utils import ImportHelper

from ...core import inputs as core_inputs
from ...core.colormap import DEFAULT_LAYERS, Layer
from ...core.io import formats, geotiff
from ...core.lighting import LIGHTING_PARAMS
from ...core.progress import Cancelled
from ...core.spec import (
    LAYER_PARAMS,
    MATERIAL_PARAMS,
    MAX_ASSIGNMENTS,
    SPEC_VERSION,
    InactiveSettingWarning,
    TerrainSpec,
    apply_settings,
    load_spec,
)
from ..inputs import INPUTS_PROPERTY
from ..io import heightmaps
from ..jobs import running
from ..live import suspended
from ..material import bake_unlit_color, new_material
from ..mesh import (
    CURVATURE_ATTRIBUTE,
    SLOPE_ATTRIBUTE,
    build_grid_mesh,
)
from ..poll import AddsObjects
from ..properties import nonfinite_error, spec_annotations
from ..specio import read_group, write_group, write_layers, write_spec
from ..terrain.apply import record_source, record_terrain
from ..terrain.compute import check_size, compute_terrain, scene_sun
from ..ui.draw import draw_lighting
from ..water import remove_water, sync_water


class Sidecar:
    """What the JSON sidecar beside a heightmap says (any version, :func:`core.io.formats.sidecar_scale`):
    ``scale``, and the width and Height (metres per unit of its heights) from it or from the spec it holds
    (``None`` when it says neither)."""

    def __init__(self, path: str) -> None:
        name = os.path.basename(path) + ".json"
        data = formats.read_sidecar(path)  # a regular file of bounded size (FIFOs, devices refused)
        if not isinstance(data, dict):
            raise ValueError(f"{name} must be a JSON object (a sidecar Orogen writes)")
        self.name = name
        self.scale = formats.sidecar_scale(data, name)
        spec = load_spec(data) if isinstance(data.get("spec"), dict) else None
        self.width = self.scale.width if self.scale.width is not None else spec.width if spec else None
        self.height = self.scale.height if self.scale.height is not None else spec.height if spec else None
        look = self.scale.look if self.scale.look is not None else data.get("spec")
        self.look = load_spec(look) if isinstance(look, dict) else None


def read_sidecar(path: str) -> Sidecar | None:
    """The sidecar beside ``path``, or ``None`` when there is none (or it is not a regular file, which the RAW
    reader refuses, naming it). Raises ``ValueError``/``TypeError`` for one that cannot say its scale."""
    if not os.path.isfile(path + ".json"):
        return None
    return Sidecar(path)


#: The parts of a spec an import does not take from ``set=``: its size and source are the file's.
FILE_KEYS = ("size", "size_y", "seed", "generator")


def _stack_json(spec: TerrainSpec) -> str:
    """The filter and source stacks of ``spec`` as spec JSON (``{"filters": [...], "sources": [...]}``), what the
    importer keeps between its redo runs."""
    data = spec.to_dict()
    return json.dumps({"filters": data["filters"], "sources": data.get("sources", [])})


class OROGEN_OT_heightmap_import(AddsObjects, bpy.types.Operator, ImportHelper, object_utils.AddObjectHelper):
    """Import a heightmap (8- or 16-bit PNG, TIFF, OpenEXR, 16-bit RAW, .npy) as a terrain, lit and coloured"""

    bl_idname = "orogen.heightmap_import"
    bl_label = "Import Heightmap"
    bl_options = {"REGISTER", "UNDO"}

    filter_glob: bpy.props.StringProperty(
        default=";".join("*" + s for s in heightmaps.IMPORT_SUFFIXES), options={"HIDDEN"}
    )
    use_sidecar_scale: bpy.props.BoolProperty(
        name="Scale from File",
        default=True,
        description="Take the width, height, base height, place (a tile's) and look (lighting, material, water, "
        "colour layers) from the JSON sidecar Orogen exports beside a heightmap, or the scale from a GeoTIFF's "
        "georeferencing, if there is one; a Width or Height you give wins over the file's",
    )
    # width, height, lighting, material and layers: made from core's declarations at register time.

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

    def _given(self, name: str) -> bool:
        """Whether the user gave ``name`` (from Python, the redo panel or ``set=``)."""
        return self.properties.is_property_set(name)

    def _take_settings(self, sidecar: Sidecar | None) -> None:
        """Fill the look (lighting, material, water, colour layers) once: from ``spec=`` JSON, else the
        sidecar's; then apply ``set=`` through core's declarations (:func:`core.spec.apply_settings`).
        ``ValueError``/``TypeError`` for a spec or setting core refuses, or one an import has not."""
        if not self.look_filled:
            given = TerrainSpec.from_json(self.spec) if self.spec else None
            look = given if given is not None else sidecar.look if sidecar else None
            if given is not None:  # its filter and source stacks too (the heights start from the file's)
                self.stack_json = _stack_json(given)
            if look is not None:
                write_group(self.lighting, LIGHTING_PARAMS, look.lighting)
                write_group(self.material, MATERIAL_PARAMS, look.material)
                write_layers(self, look.layers)
            elif not self.layers:
                write_layers(self, TerrainSpec().layers)
            self.spec = ""
            self.look_filled = True
        assignments = [a.strip() for a in self.set.split(";") if a.strip()]
        if len(assignments) > MAX_ASSIGNMENTS:
            raise ValueError(f"set takes at most {MAX_ASSIGNMENTS} settings at once, got {len(assignments)}")
        spec = self._settings()
        for item in assignments:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", InactiveSettingWarning)
                after = apply_settings(spec, [item])
            before_d, after_d = spec.to_dict(), after.to_dict()
            changed = [k for k in after_d if before_d.get(k) != after_d[k] and k in FILE_KEYS]
            if changed:
                raise ValueError(
                    f"set {item.partition('=')[0].strip()}: an imported heightmap's size and source are the "
                    "file's; it takes every other setting (filters, lighting.*, material.*, width, height)"
                )
            for w in caught:
                if issubclass(w.category, InactiveSettingWarning):
                    self.report({"WARNING"}, f"Note: {w.message}")
            name = item.partition("=")[0].strip()
            if name in ("width", "height"):
                setattr(self, name, getattr(after, name))  # given: it wins over the sidecar's
            spec = after
        write_group(self.lighting, LIGHTING_PARAMS, spec.lighting)
        write_group(self.material, MATERIAL_PARAMS, spec.material)
        self.stack_json = _stack_json(spec)
        self.fit_height = spec.fit_height
        self.set = ""

    def _settings(self) -> TerrainSpec:
        """The spec of the terrain: the file as its source (its absolute path), the operator's scale and look,
        the filters and sources ``spec=`` and ``set=`` gave (none by default: the heights are the file's), masks
        and parameter maps included."""
        stack = TerrainSpec.from_dict({"version": SPEC_VERSION, **json.loads(self.stack_json or "{}")})
        return TerrainSpec(
            width=self.width,
            height=self.height,
            fit_height=self.fit_height,
            generator="file",
            params={
                "path": os.path.abspath(bpy.path.abspath(self.filepath)),
                "scale_from_file": self.use_sidecar_scale,
            },
            filters=stack.filters,
            sources=stack.sources,
            lighting=read_group(self.lighting, LIGHTING_PARAMS),
            material=read_group(self.material, MATERIAL_PARAMS),
            layers=tuple(Layer(**read_group(item, LAYER_PARAMS)) for item in self.layers) or DEFAULT_LAYERS,
        )

    def _scale(self, sidecar: Sidecar | None) -> tuple[float, float, float | None]:
        """``(width, height, sidecar Height or None)``: the sidecar's unless given (then said, with the file's)."""
        width, height = self.width, self.height
        known = None
        if sidecar is not None:
            known = sidecar.height
            taken, kept = [], []
            for name, value in (("width", sidecar.width), ("height", sidecar.height)):
                if value is None:
                    continue
                if self._given(name):
                    kept.append(f"{name} {getattr(self, name):g} m as given (the file says {value:g} m)")
                else:
                    taken.append(f"{name} {value:g} m")
            width = width if self._given("width") or sidecar.width is None else sidecar.width
            height = height if self._given("height") or sidecar.height is None else sidecar.height
            if kept:
                self.report({"INFO"}, f"{sidecar.name}: " + "; ".join(kept))
            if taken:
                self.report(
                    {"INFO"},
                    f"{' and '.join(taken).capitalize()} from {sidecar.name} (give Width or Height, or turn off "
                    "Scale from File, to set them)",
                )
        return width, height, known

    def execute(self, context):
        message = nonfinite_error(self)
        if message:
            self.report({"ERROR"}, message)
            return {"CANCELLED"}
        try:
            if not os.path.lexists(self.filepath):  # a folder or a FIFO exists: the readers say what it is
                raise ValueError(f"no such file: {self.filepath}")
            sidecar = read_sidecar(self.filepath) if self.use_sidecar_scale else None
            self._take_settings(sidecar)
            width, height, _known = self._scale(sidecar)
            spec = self._settings().replace(width=width, height=height)
            sun = scene_sun(context.scene) if spec.lighting["use_scene_sun"] else None
            with running("Importing heightmap", context) as job:
                tick = job.ticker(0.0, 0.9, 3)  # read, scale, bake; nothing in the scene changes until the end
                values, dem = heightmaps.read_elevation(self.filepath, check_size=check_size)
                tick()
                grid, side = values, None
                if self.use_sidecar_scale and dem is not None and dem.cell_size is not None:
                    # a georeferenced DEM: its own scale, in metres, on square cells over its true extents
                    grid, side = geotiff.dem_square_grid(values, dem, check_size=check_size)
                    dem_width, dem_height = geotiff.dem_extent(grid, side)
                    spec = spec.replace(width=dem_width, height=dem_height)
                rows, cols = grid.shape
                spec = spec.replace(size=cols, size_y=rows if rows != cols else 0)
                path = spec.params["path"]
                # The file source makes the heights (the file's metres, base height included, as before); PNG and
                # OpenEXR pixels Blender decoded above go to it as they are, so the file is decoded once.
                decoded = path.lower().endswith((".png", ".exr"))
                given = {("file", path): core_inputs.FileInput(values, name=path)} if decoded else {}
                tick()
                try:
                    arrays = compute_terrain(spec, sun, inputs=given)
                except ValueError as err:
                    raise ValueError(f"{sidecar.name}: {err}" if sidecar is not None else str(err)) from None
                if not np.isfinite(arrays.heightmap * np.float32(spec.height)).all():
                    raise ValueError(
                        f"{sidecar.name if sidecar else 'the file'}: heights at a Height of {spec.height:g} m leave "
                        "float32's range: give the Height"
                    )
                tick()
        except (ValueError, TypeError, RuntimeError) as err:
            self.report({"ERROR"}, f"Heightmap not imported: {err}")
            return {"CANCELLED"}
        except Cancelled:
            self.report({"WARNING"}, "Import cancelled: nothing was added")
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
        material = new_material(name, spec) if spec.material["enabled"] else None
        if material is not None:
            mesh.materials.append(material)
        place = sidecar.scale.location if sidecar is not None else None
        if place is not None and not self.properties.is_property_set("location"):
            self.location = place  # a tile at its place in its world (a location given wins)
            self.report({"INFO"}, f"Placed at ({place[0]:g}, {place[1]:g}, {place[2]:g}) m, its place in its world")
        obj = object_utils.object_data_add(context, mesh, operator=self)
        try:
            record_terrain(obj, arrays, source=self.filepath, **geotiff.dem_record(values, dem))
            record_source(obj, spec)
            bake_unlit_color(obj, spec)
            sync_water(obj, spec)
            with suspended():
                write_spec(obj.orogen, spec)  # a terrain like any other, its generator the file
                obj.orogen.is_terrain = True
                obj.orogen.applied = spec.to_json()
            obj[INPUTS_PROPERTY] = arrays.inputs
        except (ValueError, TypeError, RuntimeError) as err:  # all or nothing: the scene as it was
            remove_water(obj)
            bpy.data.objects.remove(obj)
            bpy.data.meshes.remove(mesh)
            if material is not None and material.users == 0:
                bpy.data.materials.remove(material)
            self.report({"ERROR"}, f"Heightmap not imported: {err}")
            return {"CANCELLED"}
        if dem is not None:
            self.report({"WARNING"} if dem.nodata or dem.note else {"INFO"}, geotiff.dem_summary(grid, dem, side))
        return {"FINISHED"}


def menu_import(self, _context):
    self.layout.operator(OROGEN_OT_heightmap_import.bl_idname, text="Orogen Heightmap (.png, .tif, .exr, .r16, .npy)")


classes = (OROGEN_OT_heightmap_import,)


def register() -> None:
    # The importer holds the scale, lighting and material settings (made from core's declarations).
    annotations = spec_annotations()
    OROGEN_OT_heightmap_import.__annotations__ = {
        **{
            k: v
            for k, v in OROGEN_OT_heightmap_import.__annotations__.items()
            if k in ("filter_glob", "use_sidecar_scale")
        },
        **{k: annotations[k] for k in ("width", "height", "lighting", "material", "layers", "active_layer")},
        "spec": bpy.props.StringProperty(
            name="Spec",
            default="",
            options={"HIDDEN", "SKIP_SAVE"},
            description="Terrain spec as JSON (any form Orogen wrote: spec, 0.1 recipe, export sidecar): its "
            "filters, lighting, material, water and colour layers replace the file's (the heights are the file's, "
            "filtered)",
        ),
        "set": bpy.props.StringProperty(
            name="Set",
            default="",
            options={"HIDDEN", "SKIP_SAVE"},
            description="Settings by name, 'NAME=VALUE; NAME=VALUE' (lighting.mode=hillshade; material.water=true; "
            "width=500; terrace.levels=8 for a filter spec= gave), as Add Terrain's set: any but the size",
        ),
        "stack_json": bpy.props.StringProperty(
            name="Stacks",
            default="",
            options={"HIDDEN", "SKIP_SAVE"},
            description="The filter and source stacks as spec JSON (from spec= and set=): they run on the file's "
            "heights",
        ),
        "fit_height": annotations["fit_height"],
        "look_filled": bpy.props.BoolProperty(default=False, options={"HIDDEN", "SKIP_SAVE"}),
    }
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
