"""The Blender objects a spec names, read into :mod:`core.inputs` on the main thread before a job starts.

:meth:`core.spec.TerrainSpec.objects` lists them (each ``object`` setting's name and input kind);
:func:`gather` reads each through the reader of its kind (:data:`READERS`) into terrain-local metres and
returns the inputs the evaluation runs with (``core.inputs.using``), so a worker thread never touches
``bpy``. Everything is read with ``foreach_get`` into numpy buffers, never per vertex in Python.
"""

from __future__ import annotations

from collections.abc import Callable

import bpy
import numpy as np
from mathutils import Matrix

from ..core import inputs as core_inputs
from ..core.spec import TerrainSpec

__all__ = ["READERS", "gather", "read_mesh", "local_matrix"]


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
    depsgraph = context.evaluated_depsgraph_get() if context is not None else None
    found: dict[tuple[str, str], core_inputs.Input] = {}
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
