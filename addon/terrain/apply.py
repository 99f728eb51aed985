"""Writing a terrain's arrays into its object: the mesh (in place when the grid stays, the user's data resampled
when it changes), Orogen's attributes, the terrain record, the material, the water and the linked duplicates.

Only the geometry and the baked attributes change; the object's name, transform, parent, collections,
modifiers, custom properties, material slots and the user's material edits stay. :func:`regenerate` computes
(:func:`.compute.compute_terrain`) and writes, blocking; the background operators compute in a worker
(:mod:`..jobs`) and write with :func:`apply_arrays`.
"""

import json
import os
import time

import bpy

from ...core.generators import sources
from ...core.generators.sources import file_digest
from ...core.progress import Cancelled
from ...core.spec import TerrainSpec
from ..displacement import sync_displacement
from ..inputs import INPUTS_PROPERTY, terrain_inputs
from ..jobs import running
from ..live import suspended
from ..material import bake_unlit_color, checked_files, new_material, refused_images
from ..mesh import TERRAIN_PROPERTY, grid_shape_of, is_grid_of, update_grid_mesh
from ..scatter import sync_scatter
from ..specio import read_spec, write_spec
from ..water import sync_water
from . import userdata
from .compute import TerrainArrays, compute_terrain, preview_shape, scene_sun
from .meshes import drop_other_mesh, full_size_mesh, grid_mesh_for


def set_material(obj: bpy.types.Object, spec: TerrainSpec) -> list[str]:
    """Give ``obj`` a freshly built material in its first slot (or none, when the spec's material is off);
    an Unlit terrain's baked colour and the water surface follow (:func:`bake_unlit_color`,
    :func:`water.sync_water`), then the render displacement (:func:`displacement.sync_displacement`). Its Image
    layers' files are checked first (:func:`checked_files`): a ``ValueError`` leaves the terrain as it was. Returns
    the water's and the displacement's notes for the user."""
    if spec.material["enabled"]:
        checked_files(spec)
    bake_unlit_color(obj, spec)
    notes = sync_water(obj, spec)
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
    return notes + sync_displacement(obj, spec)


def record_terrain(obj: bpy.types.Object, arrays: TerrainArrays, source: str = "", **extra) -> None:
    """Write the grid's shape and scale onto ``obj`` (what exports read back); an import adds its ``source``
    file and what it learnt of it (``extra``: a DEM's elevation range and nodata count)."""
    info = {"shape": list(arrays.heightmap.shape), "width": arrays.width, "height": arrays.height, **extra}
    if source:
        info["source"] = source
    obj[TERRAIN_PROPERTY] = json.dumps(info)


#: The custom property of a terrain whose source is a file: ``{"path", "size", "mtime", "sha256"}`` of the file
#: as last built, so that Regenerate can say when it changed.
SOURCE_PROPERTY = "orogen_source_file"


def _stamp(path: str, old: dict | None = None) -> dict:
    """The file's size, modification time and SHA-256 (the old digest kept when size and time are the same)."""
    st = os.stat(path)
    stamp = {"path": path, "size": st.st_size, "mtime": st.st_mtime_ns}
    same = old is not None and all(old.get(k) == stamp[k] for k in stamp)
    stamp["sha256"] = old["sha256"] if same and old is not None else file_digest(path)
    return stamp


def record_source(obj: bpy.types.Object, spec: TerrainSpec) -> str | None:
    """Record the stamp of ``spec``'s source file on ``obj`` (:data:`SOURCE_PROPERTY`); a note when the file
    differs from the one the terrain was last built from ("the file ... changed since the last build"), else
    ``None``. A spec without a file source clears the record."""
    path = spec.params.get("path") if spec.generator == "file" else None
    try:
        path = sources.resolve_path(path) if path else None
    except ValueError:
        path = None
    if not path or not os.path.isfile(path):
        obj.pop(SOURCE_PROPERTY, None)
        return None
    try:
        old = json.loads(obj.get(SOURCE_PROPERTY, "null"))
    except ValueError:
        old = None
    old = old if isinstance(old, dict) and old.get("path") == path else None
    try:
        stamp = _stamp(path, old)
    except (OSError, ValueError):
        return None
    obj[SOURCE_PROPERTY] = json.dumps(stamp)
    if old is not None and old.get("sha256") != stamp["sha256"]:
        return f"the file {os.path.basename(path)} changed since the last build: the terrain follows it"
    return None


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
    return [*arrays.notes, *notes]


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


def sun_for(spec: TerrainSpec, context) -> tuple[float, float] | None:
    """The scene's sun ``(azimuth, altitude)`` when ``spec``'s lighting follows it (and the context has a
    scene), else ``None`` (the spec's own angles)."""
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

    A preview is written into Orogen's own preview mesh (:func:`.meshes.grid_mesh_for`),
    the full size into the object's own mesh (:func:`write_arrays`), and then
    every linked duplicate of that mesh takes the spec (:func:`share_spec`).
    """
    settings = obj.orogen
    spec = read_spec(settings)
    shape = preview_shape(spec.shape, settings.preview_size) if preview else spec.shape
    started = time.perf_counter()
    with running("Regenerating terrain", context) as job:
        inputs = terrain_inputs(spec, obj.matrix_world, context, terrain=obj)
        arrays = compute_terrain(spec, sun_for(spec, context), shape, job.part(0.0, 0.99), inputs)
        if job.cancelled:  # cancelled during the bake, after the last check: nothing is written
            raise Cancelled("cancelled before the terrain was written")
        return apply_arrays(obj, spec, shape, arrays, started, preview)


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
    notes += sync_water(obj, spec)
    notes += sync_displacement(obj, spec)  # the height texture follows the heights
    scattered = sync_scatter(obj, spec)  # its maps follow the terrain (a preview's notes would repeat each edit)
    notes += [] if preview else scattered
    if spec.material["enabled"]:
        notes += refused_images(spec)  # the terrain is regenerated; the material could not take the image
    with suspended():
        settings.applied = spec.to_json()
        settings.preview_pending = shape != spec.shape
    obj[INPUTS_PROPERTY] = arrays.inputs
    if not preview:
        shared = share_spec(obj)
        for other in linked_terrains(obj):  # each object on the shared mesh has its own water and modifier
            notes += sync_water(other, spec)
            notes += sync_displacement(other, spec)
        if shared:
            notes.append(
                f"linked duplicates share this mesh and now this spec: {', '.join(shared[:4])}"
                + (" ..." if len(shared) > 4 else "")
            )
    rows, cols = shape
    kind = "preview" if shape != spec.shape else "terrain"
    status = f"Regenerated {kind} {rows} x {cols} in {time.perf_counter() - started:.2f} s"
    changed = record_source(obj, spec)
    return (f"{status}; {changed}" if changed else status), notes
