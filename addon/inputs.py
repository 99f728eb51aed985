"""The Blender objects a spec names, read into :mod:`core.inputs` on the main thread before a job starts.

:meth:`core.spec.TerrainSpec.objects` lists them (each ``object`` setting's name and input kind);
:func:`gather` reads each through the reader of its kind (:data:`READERS`) into terrain-local metres and
returns the inputs the evaluation runs with (``core.inputs.using``), so a worker thread never touches
``bpy``. Everything is read with ``foreach_get`` into numpy buffers, never per vertex in Python. A file source's
PNG or OpenEXR is decoded here too, by Blender's image loader (numpy alone reads neither), as a
:class:`core.inputs.FileInput`; core reads every other format itself and checks them all.

:func:`digest` (:func:`.terrain.compute.inputs_digest`) fingerprints the inputs of an evaluation: a terrain records
it beside its applied spec, so the live-update engine and the depsgraph handler (:mod:`.terrain.target`) tell an
edited source object from no change.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import bpy
import numpy as np
from mathutils import Euler, Matrix

from ..core import inputs as core_inputs
from ..core.generators import sources
from ..core.spec import TerrainSpec
from .io.heightmaps import read_image
from .terrain.compute import check_decode_memory, check_memory, inputs_digest

#: The custom property of a terrain holding the fingerprint of the inputs its mesh was made from.
INPUTS_PROPERTY = "orogen_inputs"

__all__ = [
    "READERS",
    "gather",
    "read_mesh",
    "read_file",
    "local_matrix",
    "digest",
    "frame_of",
    "blend_folder",
    "INPUTS_PROPERTY",
]

#: The fingerprint of an evaluation's inputs (:func:`.terrain.compute.inputs_digest`).
digest = inputs_digest


def local_matrix(frame: Matrix, obj: bpy.types.Object) -> np.ndarray:
    """``float64 (4, 4)``: ``obj``'s world matrix taken into the frame of a terrain whose world matrix is
    ``frame`` (terrain-local metres, :mod:`core.inputs`)."""
    return np.array(frame.inverted_safe() @ obj.matrix_world, dtype=np.float64)


def read_mesh(obj: bpy.types.Object, frame: Matrix, depsgraph) -> core_inputs.MeshInput:
    """The evaluated mesh of ``obj`` (modifiers applied) as triangles in the terrain's local metres.

    ``ValueError`` for an object that gives no mesh (a light, an empty) or no faces."""
    evaluated = obj.evaluated_get(depsgraph) if depsgraph is not None else obj
    try:
        mesh = evaluated.to_mesh()
    except RuntimeError:
        mesh = None
    if mesh is None:
        raise ValueError(f"object {obj.name!r} ({obj.type.lower()}) has no mesh to read")
    try:
        mesh.calc_loop_triangles()
        n, m = len(mesh.vertices), len(mesh.loop_triangles)
        if m == 0:
            raise ValueError(f"object {obj.name!r} has no faces to sample")
        co = np.empty(3 * n, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        tri = np.empty(3 * m, dtype=np.int32)
        mesh.loop_triangles.foreach_get("vertices", tri)
    finally:
        evaluated.to_mesh_clear()
    matrix = local_matrix(frame, obj)
    local = co.reshape(n, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]
    return core_inputs.MeshInput(local, tri.reshape(m, 3), name=obj.name)


#: Reader of each input kind: ``(object, terrain frame, depsgraph) -> input``. Kinds not listed are refused.
READERS: dict[str, Callable[..., core_inputs.Input]] = {"mesh": read_mesh}


def gather(spec: TerrainSpec, frame: Matrix | None = None, context=None) -> dict[tuple[str, str], core_inputs.Input]:
    """The inputs of every object ``spec`` names (:meth:`core.spec.TerrainSpec.objects`), read in the frame of
    the terrain whose world matrix is ``frame`` (default identity: a terrain at the origin).

    ``ValueError`` naming the setting for an object that is missing, of the wrong kind or unreadable."""
    frame = frame if frame is not None else Matrix.Identity(4)
    found: dict[tuple[str, str], core_inputs.Input] = {}
    if spec.generator == "file":
        path = spec.params["path"]
        sources.set_guards(check_memory, check_decode_memory, blend_folder=blend_folder())
        if path and path.lower().endswith(sources.DECODED_SUFFIXES):
            real = sources.resolve_path(path)
            if os.path.lexists(real):
                found[("file", path)] = read_file(real, key=path)
    depsgraph = context.evaluated_depsgraph_get() if context is not None else None
    for path, kind, name in spec.objects():
        if (kind, name) in found:
            continue
        obj = bpy.data.objects.get(name)
        if obj is None:
            raise ValueError(f"{path}: no object named {name!r} in this file")
        reader = READERS.get(kind)
        if reader is None:
            raise ValueError(f"{path}: objects of kind {kind!r} cannot be read yet")
        try:
            found[(kind, name)] = reader(obj, frame, depsgraph)
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from None
    return found


def read_file(path: str, key: str | None = None) -> core_inputs.FileInput:
    """A PNG or OpenEXR heightmap decoded by Blender's image loader, checked by core first (whole, its size
    within the caps and the memory guard, :func:`..io.heightmaps.read_image`) and after (grey, finite:
    :func:`core.generators.sources.grey_values`), named ``key`` (the path as the spec gives it, default
    ``path``). ``ValueError`` starting with ``file.path``."""
    try:
        values = sources.grey_values(read_image(path, check_memory), os.path.basename(path))
    except ValueError as err:
        raise ValueError(f"file.path: {err}") from None
    return core_inputs.FileInput(values, name=key or path)


def blend_folder() -> str | None:
    """The folder of the saved .blend file (what a ``//`` path is relative to), or ``None`` when unsaved."""
    try:
        saved = bpy.data.filepath
    except AttributeError:  # bpy.data is restricted while the extension registers
        return None
    return os.path.dirname(bpy.path.abspath("//")) if saved else None


def frame_of(location, rotation) -> Matrix:
    """The world matrix of a terrain about to be added at ``location`` (metres) with Euler ``rotation``
    (radians): the frame its inputs are read in before the object exists."""
    return Matrix.Translation(location) @ Euler(rotation).to_matrix().to_4x4()
