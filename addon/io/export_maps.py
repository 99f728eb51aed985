"""File > Export > Orogen Terrain Maps: a terrain's heightmap and baked maps (lightmap, colour, normal, slope and
curvature, splat and erosion maps), staged and committed together."""

import json
import os
import shutil
from pathlib import Path

import bpy
import numpy as np

from ...core.colormap import check_layers
from ...core.io import formats as formats_io
from ...core.io.jsonio import load_json
from ...core.lighting import cell_size
from ...core.progress import Cancelled
from ..io import heightmaps
from ..jobs import running
from ..material import material_layers, refused_images
from ..mesh import (
    EROSION_ATTRIBUTES,
    TERRAIN_PROPERTY,
)
from ..poll import export_reason, poll_with
from ..specio import read_spec
from ..terrain.apply import regenerate


class OROGEN_OT_export_maps(bpy.types.Operator):
    """Export the selected terrain's heightmap and baked maps to a folder"""

    bl_idname = "orogen.export_maps"
    bl_label = "Export Terrain Maps"
    bl_options = {"REGISTER"}

    directory: bpy.props.StringProperty(name="Folder", description="Folder to write into", subtype="DIR_PATH")
    name: bpy.props.StringProperty(name="Name", description="File name stem", default="terrain")
    heightmap_format: bpy.props.EnumProperty(
        name="Heightmap",
        description="File format of the heightmap",
        items=(
            ("PNG16", "PNG 16-bit", "Grey 16-bit PNG: 0 -> the lowest metre, 65535 -> the highest"),
            ("EXR", "OpenEXR", "32-bit float OpenEXR"),
            (
                "R16",
                "RAW 16-bit",
                "Little-endian unsigned 16-bit, row-major, no header (.r16): 0 -> the lowest metre, 65535 -> the "
                "highest",
            ),
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
        said: list[str] = []
        try:
            written = export_terrain_maps(obj, self, notes=notes, said=said)
        except (ValueError, TypeError, KeyError, OSError, RuntimeError) as err:
            self.report({"ERROR"}, f"Export failed: {err}")
            return {"CANCELLED"}
        except Cancelled:
            self.report({"WARNING"}, "Export cancelled: no file was written or changed")
            return {"CANCELLED"}
        if not written:
            self.report({"WARNING"}, "Nothing exported: choose a heightmap format or some maps")
            return {"CANCELLED"}
        self.report(
            {"WARNING"} if notes else {"INFO"},
            "; ".join([f"Wrote {len(written)} files to {os.path.dirname(written[0])}", *said, *notes]),
        )
        return {"FINISHED"}


def export_terrain_maps(
    obj, options, formats=None, notes: list[str] | None = None, said: list[str] | None = None
) -> list[str]:
    """Write the maps ``options`` asks for (see :class:`OROGEN_OT_export_maps`); returns the paths.

    ``formats`` lists the heightmap formats to write, each with its sidecar
    (default: ``options.heightmap_format`` alone); the other maps are written
    once. All or nothing: the files are written into a hidden staging folder inside
    the target folder and moved into place only once every one of them was
    written, so a failure (a full disk, a folder where a file should go)
    leaves the target folder as it was. The heights are the mesh's as the
    user sees it (:func:`heightmaps.mesh_heights`); ``notes`` receives a line when
    they hold hand edits, ``said`` the metres of a PNG16 or R16 heightmap's levels 0 and 65535 (and what to
    type into Unity and Unreal, :func:`core.io.formats.levels_text`). Raises ``ValueError``, ``OSError`` or
    ``RuntimeError`` (Blender's image writer). A terrain still showing a live-update preview is
    regenerated at full size first: an export is of the terrain, never of its preview.
    """
    folder = heightmaps.check_path(options.directory)
    with running("Exporting terrain maps", bpy.context) as job:
        if obj.orogen.is_terrain and obj.orogen.preview_pending:
            obj.orogen.status = regenerate(obj, bpy.context)
        staging = heightmaps.stage_dir(folder)
        try:
            stem = os.path.join(staging, bpy.path.clean_name(options.name) or "terrain")
            formats = (options.heightmap_format,) if formats is None else tuple(dict.fromkeys(formats))  # each once
            # A cancel (core.Cancelled, from a step's tick) leaves the staging folder, removed below: no file.
            try:
                staged = _write_maps(obj, options, stem, formats, notes, job.ticker(0.5, 0.95, len(formats) + 6), said)
            except OSError as err:  # a full disk: name the file in the folder, not the staging copy
                raise heightmaps.staged_error(err, staging, folder) from None
            finals = [os.path.join(folder, os.path.basename(path)) for path in staged]
            refuse_foreign_json(finals)
            heightmaps.commit(list(zip(staged, finals, strict=True)), heightmaps.terrain_shape(obj))
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        job.show(1.0)
    return finals


def refuse_foreign_json(targets: list[str]) -> None:
    """Raise ``ValueError`` naming the JSON files among ``targets`` that exist and are not Orogen's, so that
    nothing is replaced: the map files carry the name the user chose and are theirs to overwrite (as
    Blender's exporters overwrite the file chosen), but the sidecars and ``NAME_erosion.json`` are named by
    Orogen and replace only what Orogen wrote there: a heightmap sidecar (``file`` naming its heightmap, and
    ``sidecar_version``, or Orogen 0.2's ``encoding`` and ``orientation``) or an erosion maps' record (``maps``
    and ``png``), a regular file, not a link."""
    foreign = [
        os.path.basename(path)
        for path in targets
        if path.endswith(".json") and os.path.lexists(path) and not _orogen_json(path)
    ]
    if foreign:
        raise ValueError(
            f"{', '.join(foreign[:4])}{' ...' if len(foreign) > 4 else ''} in {os.path.dirname(targets[0])} "
            f"{'is' if len(foreign) == 1 else 'are'} not Orogen's (no sidecar an export wrote) and would be "
            "replaced; nothing was written: move them, or choose another folder or name"
        )


def _orogen_json(path: str) -> bool:
    if os.path.islink(path) or not os.path.isfile(path):
        return False
    try:
        data = load_json(Path(path), os.path.basename(path), max_bytes=16 << 20)
    except (ValueError, OSError):
        return False
    if not isinstance(data, dict):
        return False
    # a sidecar names its heightmap; Orogen 0.2's had no sidecar_version, but their encoding and orientation
    marked = "sidecar_version" in data or ("encoding" in data and "orientation" in data)
    sidecar = marked and data.get("file") == os.path.basename(path).removesuffix(".json")
    return sidecar or ("maps" in data and "png" in data)


def _write_maps(
    obj,
    options,
    stem: str,
    formats: tuple[str, ...],
    notes: list[str] | None = None,
    tick=lambda: None,
    said: list[str] | None = None,
) -> list[str]:
    """Write the heightmap in each of ``formats`` and the maps to ``stem`` + suffixes; returns the paths (and adds
    to ``notes`` what the user should know: hand edits exported; to ``said`` what the export reports: the metres
    of a 16-bit heightmap's levels 0 and 65535). ``tick()`` is called after each of ``len(formats) + 6`` steps
    (it raises ``core.Cancelled`` to stop)."""
    from ...core import colormap, layer_weights
    from ...core import lighting as shading
    from ...core.colormap import splat_maps

    info = json.loads(obj[TERRAIN_PROPERTY])
    h, (low, high), edited = heightmaps.mesh_heights(obj)  # what the mesh holds, hand edits included
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
        **heightmaps.terrain_sidecar(obj, spec),
        **({"edited_vertices": edited, "spec_before_edits": made_by} if edited else {}),
    }
    if notes is not None:
        notes += refused_images(spec)  # the maps are written; the layer's image is not in them, nor in the material
    if edited and notes is not None:
        notes.append(
            f"exported the mesh as edited ({edited} vertices differ from the generated terrain; heights "
            f"{low:.6g} to {high:.6g} m; the lightmap is the one baked before the edits)"
        )
    z = heightmaps.surface_z(obj)  # the metres an absolute file holds and a 16-bit file's levels span
    for fmt in formats:
        if fmt != "NONE":
            written += heightmaps.write_heightmap(
                stem + "_height", h, fmt, height_range=(low, high), absolute=options.absolute, sidecar=sidecar, metres=z
            )
        tick()
    if said is not None and {"PNG16", "R16"} & set(formats):
        said.append(formats_io.levels_text(formats_io.value_range(z)))
    lightmap = heightmaps.point_map(obj, "Lightmap")
    if options.use_lightmap and lightmap is not None:
        written.append(heightmaps.write_image(stem + "_lightmap.png", lightmap))
    tick()
    slope = shading.slope_degrees(metres, cell)
    layers = check_layers(material_layers(spec))
    erosion = {name: m for name in EROSION_ATTRIBUTES if (m := heightmaps.point_map(obj, name)) is not None}
    # The colour layers see what the material sees: heights in units of Height (the ``height`` attribute, which
    # version 3 lets rise above 1 or sink below 0) and metres = that x Height, the mesh's Z; an edited mesh's
    # own Z in those units.
    height = float(info["height"])
    if not edited:
        units = heightmaps.heightmap_from_mesh(obj)
    elif height > 0.0:
        units = ((low + h.astype(np.float64) * (high - low)) / height).astype(np.float32)
    else:
        units, height = h, float(high - low)
    scale = {"height": height, "cell_size": cell, "seed": spec.seed}  # metres layers, noisy edges
    if options.use_colormap:
        written.append(
            heightmaps.write_image(
                stem + "_color.png", colormap(units, layers, slope, maps=erosion, **scale), data=False
            )
        )
    tick()
    if options.use_normal_map:
        written.append(heightmaps.write_image(stem + "_normal.png", shading.normal_map(metres, cell)))
    tick()
    if options.use_data_maps:
        written.append(heightmaps.write_image(stem + "_slope.exr", slope, depth="32", file_format="OPEN_EXR"))
        written.append(
            heightmaps.write_image(
                stem + "_curvature.exr", shading.curvature(metres, cell), depth="32", file_format="OPEN_EXR"
            )
        )
    tick()
    if options.use_splat_maps:
        for i, rgba in enumerate(splat_maps(layer_weights(units, layers, slope, maps=erosion, **scale))):
            written.append(heightmaps.write_image(f"{stem}_splat{i}.png", rgba / 255.0))
    tick()
    if getattr(options, "use_erosion_maps", False) and erosion:
        written += heightmaps.write_erosion_maps(stem, erosion)
    tick()
    return written


def menu_export(self, _context):
    self.layout.operator(OROGEN_OT_export_maps.bl_idname, text="Orogen Terrain Maps")


classes = (OROGEN_OT_export_maps,)


def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
