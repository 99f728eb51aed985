"""File > Import > Orogen Heightmap: a heightmap file (PNG, TIFF or GeoTIFF, OpenEXR, RAW, .npy) as a terrain."""

import os
from pathlib import Path

import bpy
from bpy_extras import object_utils
from bpy_extras.io_utils import ImportHelper

from ...core import normalize
from ...core.heightmap import check_number
from ...core.io import geotiff
from ...core.io.jsonio import load_json
from ...core.lighting import LIGHTING_PARAMS
from ...core.spec import MATERIAL_PARAMS, TerrainSpec, load_spec
from ..io import heightmaps
from ..live import suspended
from ..material import bake_unlit_color, new_material
from ..mesh import (
    CURVATURE_ATTRIBUTE,
    SLOPE_ATTRIBUTE,
    build_grid_mesh,
)
from ..poll import AddsObjects
from ..properties import nonfinite_error, spec_annotations
from ..specio import read_group, write_spec
from ..terrain.apply import record_terrain
from ..terrain.compute import TerrainArrays, check_size, scene_sun
from ..ui.draw import draw_lighting
from ..water import sync_water


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
    width = check_number(data["width_m"], f"{name}: width_m", low=0.001, high=1.0e6)
    span = data.get("height_range_m", [0.0, 20.0])
    if not isinstance(span, list) or len(span) != 2:
        raise ValueError(f"{name}: height_range_m must be [low, high] in metres")
    low, high = (check_number(v, f"{name}: height_range_m", low=-1.0e6, high=1.0e6) for v in span)
    return width, check_number(high - low, f"{name}: height range", low=0.0, high=1.0e5)


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
            values, dem = heightmaps.read_elevation(self.filepath, check_size=check_size)
            grid, side = values, None
            if self.use_sidecar_scale and dem is not None and dem.cell_size is not None:
                # a georeferenced DEM: its own scale, in metres, on square cells over its true extents
                grid, side = geotiff.dem_square_grid(values, dem, check_size=check_size)
                width, height = geotiff.dem_extent(grid, side)
                spec = spec.replace(width=width, height=height)
            heightmap = normalize(grid)
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
            self.report({"WARNING"} if dem.nodata else {"INFO"}, geotiff.dem_summary(grid, dem, side))
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
        **{k: annotations[k] for k in ("width", "height", "lighting", "material")},
    }
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
