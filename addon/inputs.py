"""The Blender objects a spec names, read into :mod:`core.inputs` on the main thread before a job starts.

:meth:`core.spec.TerrainSpec.objects` lists them (each ``object`` setting's name and input kind);
:func:`gather` reads each through the reader of its kind (:data:`READERS`) into terrain-local metres and
returns the inputs the evaluation runs with (``core.inputs.using``), so a worker thread never touches
``bpy``. Everything is read with ``foreach_get`` into numpy buffers, never per vertex in Python.

A ``weights`` input is a vertex group of the terrain itself (a filter mask's ``group``: the setting's value
is the group's name), painted with Blender's Weight Paint. Blender's Python API has no ``foreach_get`` for
vertex-group weights, so :func:`read_weights` evaluates the terrain's own mesh once through a temporary
Geometry Nodes modifier that stores the group as a float attribute (on a temporary object sharing the mesh,
removed at once) and reads that attribute with ``foreach_get``. When the terrain has no group of that name
and it is sampled from a mesh object (the ``object`` generator, or its one source layer of type ``object``
placed as the terrain), the group painted on that source object is read instead (:func:`read_group`,
:func:`read_source_weights`: the same probe on a temporary copy of the source, keeping its modifiers) as a
:class:`core.inputs.MeshInput` with ``values`` in the terrain's frame, which core rasterises from above. The
terrain's own group wins when both have one. Repainting the source's group is a geometry update of the
source object for the depsgraph, so a live terrain follows it (:mod:`.terrain.target`).

A file source's PNG or OpenEXR is decoded here too, by Blender's image loader (numpy alone reads neither), as a
:class:`core.inputs.FileInput`; core reads every other format itself and checks them all. :func:`digest`
(:func:`.terrain.compute.inputs_digest`) fingerprints the inputs of an evaluation: a terrain records it beside
its applied spec, so the live-update engine and the depsgraph handler (:mod:`.terrain.target`) tell an edited
source object from no change.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import bpy
import numpy as np
from mathutils import Euler, Matrix
from mathutils.geometry import interpolate_bezier

from ..core import inputs as core_inputs
from ..core.generators import sources
from ..core.spec import TerrainSpec
from .io.heightmaps import read_image
from .mesh import grid_shape_of
from .specio import read_spec
from .terrain.compute import check_decode_memory, check_memory, inputs_digest
from .terrain.meshes import OTHER_MESH_PROPERTY, PREVIEW_MESH_PROPERTY

#: The custom property of a terrain holding the fingerprint of the inputs its mesh was made from.
INPUTS_PROPERTY = "orogen_inputs"

__all__ = [
    "READERS",
    "gather",
    "read_mesh",
    "read_curve",
    "read_weights",
    "read_source_weights",
    "read_group",
    "source_object_name",
    "NoGroupError",
    "read_file",
    "local_matrix",
    "terrain_inputs",
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


def _chains(n: int, edges: np.ndarray) -> list[tuple[int, int, bool]]:
    """``(first, stop, cyclic)`` of each run of consecutive vertices joined by edges ``(i, i + 1)`` (how Blender
    converts a non-extruded curve: each spline's points in order, a cyclic one closed by ``(last, first)``)."""
    lo, hi = edges.min(axis=1), edges.max(axis=1)
    joined = np.zeros(max(n - 1, 0), dtype=bool)
    joined[lo[hi == lo + 1]] = True
    starts = np.concatenate([[0], np.flatnonzero(~joined) + 1])
    stops = np.concatenate([starts[1:], [n]])
    closing = {(int(a), int(b)) for a, b in zip(lo[hi > lo + 1], hi[hi > lo + 1], strict=True)}
    return [(int(a), int(b), (int(a), int(b) - 1) in closing) for a, b in zip(starts, stops, strict=True)]


def _spline_points(spline) -> tuple[np.ndarray, bool]:
    """One spline of a curve's own data evaluated in its object's space: Bezier segments at its resolution
    (``interpolate_bezier``), a poly or NURBS spline's points (a NURBS spline's control polygon)."""
    cyclic = bool(spline.use_cyclic_u)
    if spline.type == "BEZIER":
        knots = spline.bezier_points
        count = len(knots)
        if count < 2:
            return np.zeros((count, 3)), cyclic
        res = max(int(spline.resolution_u), 1)
        pieces = []
        for i in range(count if cyclic else count - 1):
            a, b = knots[i], knots[(i + 1) % count]
            segment = interpolate_bezier(a.co, a.handle_right, b.handle_left, b.co, res + 1)
            pieces.append(np.array([tuple(v) for v in segment[:-1]], dtype=np.float64))
        if not cyclic:
            pieces.append(np.array([tuple(knots[-1].co)], dtype=np.float64))
        return np.vstack(pieces), cyclic
    co = np.empty(4 * len(spline.points), dtype=np.float32)
    spline.points.foreach_get("co", co)
    return co.reshape(-1, 4)[:, :3].astype(np.float64), cyclic


def read_curve(obj: bpy.types.Object, frame: Matrix, depsgraph) -> core_inputs.CurveInput:
    """The curve of ``obj`` (Bezier, NURBS and poly splines) as polylines in the terrain's local metres, each
    spline from its first point to its last.

    A curve without bevel or extrusion is read from its evaluated mesh (the points Blender draws, at the
    curve's resolution, modifiers applied); a bevelled or extruded one from its own splines (Bezier segments
    at their resolution, poly points, a NURBS spline's control points). ``ValueError`` for an object that is
    not a curve or has no spline of two points or more."""
    if obj.type != "CURVE":
        raise ValueError(f"object {obj.name!r} is a {obj.type.lower()}, not a curve")
    evaluated = obj.evaluated_get(depsgraph) if depsgraph is not None else obj
    splines: list[np.ndarray] = []
    cyclic: list[bool] = []
    try:
        mesh = evaluated.to_mesh()
    except RuntimeError:
        mesh = None
    try:
        if mesh is not None and len(mesh.polygons) == 0 and len(mesh.edges) > 0:
            n, m = len(mesh.vertices), len(mesh.edges)
            co = np.empty(3 * n, dtype=np.float32)
            mesh.vertices.foreach_get("co", co)
            edges = np.empty(2 * m, dtype=np.int32)
            mesh.edges.foreach_get("vertices", edges)
            points = co.reshape(n, 3).astype(np.float64)
            for first, stop, closed in _chains(n, edges.reshape(m, 2)):
                splines.append(points[first:stop])
                cyclic.append(closed)
        else:
            for spline in obj.data.splines:
                points, closed = _spline_points(spline)
                splines.append(points)
                cyclic.append(closed)
    finally:
        if mesh is not None:
            evaluated.to_mesh_clear()
    kept = [(s, c) for s, c in zip(splines, cyclic, strict=True) if len(s) >= 2]
    if not kept:
        raise ValueError(f"curve {obj.name!r} has no spline of two points or more")
    matrix = local_matrix(frame, obj)
    local = [s @ matrix[:3, :3].T + matrix[:3, 3] for s, _ in kept]
    return core_inputs.CurveInput(tuple(local), tuple(c for _, c in kept), name=obj.name)


#: The attribute :func:`read_weights`' temporary Geometry Nodes modifier stores a vertex group in.
_WEIGHTS_ATTRIBUTE = "orogen_weights"


def _weights_nodes(group: str) -> bpy.types.NodeTree:
    """A Geometry Nodes tree storing vertex group ``group`` as the point attribute ``orogen_weights``."""
    tree = bpy.data.node_groups.new("Orogen Weights (temporary)", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    given, out = tree.nodes.new("NodeGroupInput"), tree.nodes.new("NodeGroupOutput")
    named = tree.nodes.new("GeometryNodeInputNamedAttribute")
    named.data_type = "FLOAT"
    named.inputs["Name"].default_value = group
    store = tree.nodes.new("GeometryNodeStoreNamedAttribute")
    store.data_type = "FLOAT"
    store.domain = "POINT"
    store.inputs["Name"].default_value = _WEIGHTS_ATTRIBUTE
    tree.links.new(given.outputs[0], store.inputs["Geometry"])
    tree.links.new(named.outputs["Attribute"], store.inputs["Value"])
    tree.links.new(store.outputs["Geometry"], out.inputs[0])
    return tree


def _user_mesh(terrain: bpy.types.Object) -> bpy.types.Mesh:
    """The terrain's own mesh, where the user paints (not Orogen's live-preview mesh, which holds no user data)."""
    mesh = terrain.data
    other = terrain.get(OTHER_MESH_PROPERTY)
    if mesh.get(PREVIEW_MESH_PROPERTY) and isinstance(other, bpy.types.Mesh) and not other.get(PREVIEW_MESH_PROPERTY):
        return other
    return mesh


class NoGroupError(ValueError):
    """An object has no vertex group of that name (the message names the object and the groups it has)."""


def _group_names(obj: bpy.types.Object) -> list[str]:
    return [g.name for g in obj.vertex_groups]


def _missing(what: str, obj: bpy.types.Object, names: list[str], group: str) -> NoGroupError:
    have = ", ".join(repr(n) for n in names[:8]) or "none"
    return NoGroupError(f"{what} {obj.name!r} has no vertex group {group!r} (it has {have})")


def _evaluate_group(probe: bpy.types.Object, group: str, context, read: Callable[[bpy.types.Mesh], object]):
    """``read(mesh)`` of ``probe``'s evaluated mesh with vertex group ``group`` stored as the float point
    attribute :data:`_WEIGHTS_ATTRIBUTE` by a temporary Geometry Nodes modifier appended to its stack; the
    temporary ``probe`` (linked to the scene for the evaluation) and node tree are removed after, whatever
    happens."""
    tree = None
    try:
        tree = _weights_nodes(group)
        probe.modifiers.new("Orogen Weights", "NODES").node_group = tree
        context.scene.collection.objects.link(probe)
        evaluated = probe.evaluated_get(context.evaluated_depsgraph_get())
        data = evaluated.to_mesh()
        try:
            return read(data)
        finally:
            evaluated.to_mesh_clear()
    finally:
        bpy.data.objects.remove(probe)
        if tree is not None:
            bpy.data.node_groups.remove(tree)
        # resync the view layer: else its objects hold a stale None for the removed probe until the next
        # evaluation, and iterating them (bpy_extras.object_utils.object_data_add: Add Terrain) fails
        context.evaluated_depsgraph_get()


def _attribute_values(mesh: bpy.types.Mesh) -> np.ndarray:
    """The stored group's weight per vertex of ``mesh``, ``float32 (n,)`` clipped to 0..1 (``foreach_get``)."""
    values = np.zeros(len(mesh.vertices), dtype=np.float32)
    mesh.attributes[_WEIGHTS_ATTRIBUTE].data.foreach_get("value", values)
    return np.clip(values, 0.0, 1.0)


def read_weights(terrain: bpy.types.Object, group: str, context=None) -> core_inputs.WeightsInput:
    """Vertex group ``group`` of the terrain object ``terrain``'s grid as a :class:`core.inputs.WeightsInput`
    ``float32 (rows, cols)`` (row 0 north: the grid's vertex order; unassigned vertices weigh 0).

    ``ValueError`` for a terrain whose mesh is not its grid; :class:`NoGroupError` (a ``ValueError``) for a
    terrain without that group (naming it and the groups it has)."""
    if terrain is None or terrain.type != "MESH":
        raise ValueError(f"vertex group {group!r} needs the terrain object it is painted on")
    mesh = _user_mesh(terrain)  # a live preview's mesh is shown: the groups are on the user's (names too)
    shape = grid_shape_of(mesh)
    if shape is None:
        raise ValueError(f"the terrain {terrain.name!r}'s mesh is not its grid: its vertex groups cannot be read")
    context = context or bpy.context
    probe = bpy.data.objects.new("Orogen Weights (temporary)", mesh)
    names = _group_names(probe)
    if group not in names:
        bpy.data.objects.remove(probe)
        raise _missing("the terrain", terrain, names, group)
    values = _evaluate_group(probe, group, context, _attribute_values)
    return core_inputs.WeightsInput(np.asarray(values).reshape(shape), name=group)


def read_source_weights(obj: bpy.types.Object, group: str, frame: Matrix, context=None) -> core_inputs.MeshInput:
    """Vertex group ``group`` painted on the mesh object ``obj`` (a terrain's source) as a
    :class:`core.inputs.MeshInput` with ``values``: the evaluated mesh (``obj``'s modifiers applied, as
    :func:`read_mesh` reads it) in the terrain's local metres and the group's weight per vertex (0 where
    unassigned), which the mask rasterises from above (:func:`core.generators.sources.rasterise_values`).

    Read as :func:`read_weights` reads a terrain's group (Blender has no ``foreach_get`` for vertex-group
    weights): a temporary copy of ``obj`` (sharing its mesh, with its modifiers) gets a Geometry Nodes modifier
    storing the group as an attribute, and positions, triangles and weights all come from that one evaluated
    mesh with ``foreach_get``. :class:`NoGroupError` when ``obj`` has no such group, ``ValueError`` for an
    object that is not a mesh or has no faces."""
    if obj.type != "MESH":
        raise ValueError(f"object {obj.name!r} is a {obj.type.lower()}: its vertex groups cannot be read")
    names = _group_names(obj)
    if group not in names:
        raise _missing("the source object", obj, names, group)
    context = context or bpy.context
    probe = obj.copy()  # shares the mesh; keeps the modifiers, so the surface is the object source's
    probe.name = "Orogen Weights (temporary)"
    probe.hide_viewport = False

    def read(mesh: bpy.types.Mesh) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        mesh.calc_loop_triangles()
        n, m = len(mesh.vertices), len(mesh.loop_triangles)
        if m == 0:
            raise ValueError(f"object {obj.name!r} has no faces to sample")
        co = np.empty(3 * n, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        tri = np.empty(3 * m, dtype=np.int32)
        mesh.loop_triangles.foreach_get("vertices", tri)
        return co.reshape(n, 3), tri.reshape(m, 3), _attribute_values(mesh)

    co, tri, values = _evaluate_group(probe, group, context, read)  # type: ignore[misc]
    matrix = local_matrix(frame, obj)
    local = co.astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]
    return core_inputs.MeshInput(local, tri, values=values, name=group)


def source_object_name(spec: TerrainSpec) -> str:
    """The mesh object a terrain of ``spec`` is sampled from, whose vertex groups its masks may read: the
    ``object`` generator's ``object``, else the one enabled source layer of type ``object`` placed as the
    terrain (no offset, scale 1, no rotation: its mesh lies in the terrain's frame); ``""`` when none is."""
    if spec.generator == "object":
        return str(spec.params["object"])
    layers = [s for s in spec.sources if s.enabled and s.key == "object" and s.params.get("object")]
    if len(layers) == 1:
        placed = layers[0].settings
        if (placed["offset_x"], placed["offset_y"], placed["scale"], placed["rotation"]) == (0.0, 0.0, 1.0, 0.0):
            return str(layers[0].params["object"])
    return ""


def read_group(
    spec: TerrainSpec, terrain: bpy.types.Object | None, group: str, frame: Matrix, context=None
) -> core_inputs.WeightsInput | core_inputs.MeshInput:
    """The ``weights`` input of vertex group ``group`` for a terrain of ``spec``: the terrain's own group when
    it has one (:func:`read_weights`; it wins over the source's), else the group painted on the terrain's
    source object (:func:`source_object_name`, :func:`read_source_weights`). ``ValueError`` naming both when
    neither has it."""
    try:
        return read_weights(terrain, group, context)
    except NoGroupError as err:
        missing = str(err)
    except ValueError as err:
        if terrain is not None:  # its mesh is not its grid: say so rather than read another object's group
            raise
        missing = f"the new terrain has no vertex group {group!r} ({err})"  # (one about to be added has none)
    name = source_object_name(spec)
    source = bpy.data.objects.get(name) if name else None
    if source is None or source.type != "MESH":
        raise ValueError(missing)
    try:
        return read_source_weights(source, group, frame, context)
    except NoGroupError as err:
        raise ValueError(f"{missing}, nor does its source: {err}") from None


#: Reader of each input kind: ``(object, terrain frame, depsgraph) -> input``; ``weights`` is read from the
#: terrain itself, ``(terrain, group name, context) -> input`` (:func:`read_weights`; :func:`gather` falls
#: back on the source object's group through :func:`read_group`). Other kinds are refused.
READERS: dict[str, Callable[..., core_inputs.Input]] = {"mesh": read_mesh, "curve": read_curve, "weights": read_weights}


def gather(
    spec: TerrainSpec, frame: Matrix | None = None, context=None, terrain=None
) -> dict[tuple[str, str], core_inputs.Input]:
    """The inputs of every object ``spec`` names (:meth:`core.spec.TerrainSpec.objects`), read in the frame of
    the terrain whose world matrix is ``frame`` (default identity: a terrain at the origin); ``terrain`` is the
    terrain object, whose vertex groups the ``weights`` inputs are.

    ``ValueError`` naming the setting for an object or vertex group that is missing, of the wrong kind or
    unreadable."""
    frame = frame if frame is not None else Matrix.Identity(4)
    depsgraph = None
    found: dict[tuple[str, str], core_inputs.Input] = {}
    if spec.generator == "file":
        path = spec.params["path"]
        sources.set_guards(check_memory, check_decode_memory, blend_folder=blend_folder())
        if path and path.lower().endswith(sources.DECODED_SUFFIXES):
            real = sources.resolve_path(path)
            if os.path.lexists(real):
                found[("file", path)] = read_file(real, key=path)
    for path, kind, name in spec.objects():
        if (kind, name) in found:
            continue
        if kind == "weights":
            try:
                found[(kind, name)] = read_group(spec, terrain, name, frame, context)
            except ValueError as err:
                raise ValueError(f"{path}: {err}") from None
            continue
        if depsgraph is None and context is not None:
            depsgraph = context.evaluated_depsgraph_get()
        obj = bpy.data.objects.get(name)
        if obj is None:
            raise ValueError(f"{path}: no object named {name!r} in this file")
        if terrain is not None and kind == "mesh":  # (a terrain is a mesh: only a mesh read can close a loop)
            loop = reading_chain(obj, terrain.name)
            if len(loop) == 1:
                raise ValueError(f"{path}: {name!r} is this terrain: a terrain cannot read itself")
            if loop:
                raise ValueError(
                    f"{path}: {' reads '.join(repr(n) for n in (terrain.name, *loop))}: a terrain cannot read "
                    "itself through other terrains (its heights would change on every build)"
                )
        reader = READERS.get(kind)
        if reader is None:
            raise ValueError(f"{path}: objects of kind {kind!r} cannot be read yet")
        try:
            found[(kind, name)] = reader(obj, frame, depsgraph)
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from None
    return found


def reading_chain(obj: bpy.types.Object, target: str, seen: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The names from ``obj`` to the terrain named ``target`` when ``obj`` is it or an Orogen terrain that reads
    it, directly or through other terrains (``("B", "A")``: ``obj`` B reads A, the target); ``()`` when not."""
    if obj.name == target:
        return (obj.name,)
    if obj.name in seen or obj.type != "MESH" or not obj.orogen.is_terrain:
        return ()
    try:
        names = [name for _path, kind, name in read_spec(obj.orogen).objects() if kind != "weights"]
    except (ValueError, TypeError):
        return ()
    for name in names:
        other = bpy.data.objects.get(name)
        if other is not None:
            rest = reading_chain(other, target, seen | {obj.name})
            if rest:
                return (obj.name, *rest)
    return ()


def terrain_inputs(
    spec: TerrainSpec, frame: Matrix | None, context, terrain=None
) -> dict[tuple[str, str], core_inputs.Input]:
    """:func:`gather` for a terrain whose world matrix is ``frame`` (an existing terrain's ``matrix_world``, or
    where one is about to be added), without touching the depsgraph when ``spec`` names no object (``{}``);
    ``terrain`` is the terrain object (its vertex groups are the ``weights`` inputs; ``None`` for one about to
    be added, which has none). A file source's PNG or OpenEXR is read too (:func:`read_file`)."""
    return gather(spec, frame, context, terrain=terrain) if spec.objects() or spec.generator == "file" else {}


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
