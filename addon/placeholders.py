"""Placeholder trees and boulders made from primitives, so a scatter renders out of the box.

Each kind of :data:`core.scatter.SCATTER_KINDS` gets one collection of a few variants (``variants``), built with
``bmesh`` from a handful of primitives: a conifer is a cylinder trunk under one or two cones, a broadleaf tree a
trunk under an ico-sphere crown, a boulder an ico-sphere squashed and displaced. Trees are ``size`` metres tall
with their trunk's foot at the origin; boulders ``size`` across with their centre a quarter of that above it.
The objects stand at the origin and the collection is linked to no scene (only the scatter shows them): find
them in the Outliner's Blender File view, or link the collection into a scene to edit them.

Everything is marked as Orogen's (:data:`PLACEHOLDER_PROPERTY` holds the kind, on the collection, its objects,
meshes and materials): :func:`placeholder_collection` reuses a collection so marked and never takes a user's.
The shapes are deterministic: the displacement comes from a fixed seed per variant.
"""

import bmesh
import bpy
import numpy as np

from ..core.scatter import SCATTER_KINDS, ScatterKind

#: Custom property marking Orogen's placeholder collections, objects, meshes and materials (its value: the kind).
PLACEHOLDER_PROPERTY = "orogen_scatter_placeholder"

#: Base colours (linear RGB) and roughness of the placeholder materials.
MATERIALS = {
    "bark": ((0.09, 0.055, 0.03), 0.9),
    "needles": ((0.012, 0.075, 0.03), 0.8),
    "leaves": ((0.06, 0.16, 0.035), 0.7),
    "rock": ((0.23, 0.22, 0.2), 0.85),
}


def _material(name: str, kind: str) -> bpy.types.Material:
    """Orogen's placeholder material ``name`` (one of :data:`MATERIALS`), reused when one so marked exists."""
    title = f"Orogen {name.title()}"
    for material in bpy.data.materials:
        if material.get(PLACEHOLDER_PROPERTY) and material.get("orogen_part") == name and material.library is None:
            return material
    color, roughness = MATERIALS[name]
    material = bpy.data.materials.new(title)
    if bpy.app.version < (5, 0, 0):  # (5.0 gives every new material its nodes)
        material.use_nodes = True
    principled = next(n for n in material.node_tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    principled.inputs["Base Color"].default_value = (*color, 1.0)
    principled.inputs["Roughness"].default_value = roughness
    material.diffuse_color = (*color, 1.0)  # the Solid view's colour
    material[PLACEHOLDER_PROPERTY] = kind
    material["orogen_part"] = name
    return material


def _mark(verts, part: int) -> None:
    """Give the faces of a new primitive (its vertices ``verts``) the material slot ``part``."""
    for face in {f for v in verts for f in v.link_faces}:
        face.material_index = part


def _cylinder(bm: bmesh.types.BMesh, low: float, high: float, depth: float, z: float, segments: int, part: int):
    """A capped cone or cylinder (radii ``low`` at its foot, ``high`` at its top) from ``z`` to ``z + depth``,
    its faces in material slot ``part``; returns its vertices."""
    made = bmesh.ops.create_cone(bm, cap_ends=True, segments=segments, radius1=low, radius2=high, depth=depth)
    bmesh.ops.translate(bm, verts=made["verts"], vec=(0.0, 0.0, z + depth / 2.0))
    _mark(made["verts"], part)
    return made["verts"]


def _sphere(bm: bmesh.types.BMesh, radius: float, subdivisions: int, part: int):
    verts = bmesh.ops.create_icosphere(bm, subdivisions=subdivisions, radius=radius)["verts"]
    _mark(verts, part)
    return verts


def _jitter(verts, amount: float, seed: int) -> None:
    """Move each vertex out or in from the origin by a factor within ``1 +- amount`` (deterministic)."""
    factors = 1.0 + amount * (2.0 * np.random.default_rng(seed).random(len(verts)) - 1.0)
    for vert, factor in zip(verts, factors, strict=True):
        vert.co *= float(factor)


def _conifer(bm: bmesh.types.BMesh, size: float, variant: int) -> None:
    """A conifer ``size`` tall: a trunk (slot 0) and one (variant 0) or two stacked cones (slot 1)."""
    width = (0.2, 0.24, 0.17)[variant % 3] * size
    _cylinder(bm, 0.025 * size, 0.02 * size, 0.2 * size, 0.0, 8, 0)
    if variant % 3 == 0:
        _cylinder(bm, width, 0.0, 0.88 * size, 0.12 * size, 10, 1)
    else:
        _cylinder(bm, width, 0.25 * width, 0.5 * size, 0.12 * size, 10, 1)
        _cylinder(bm, 0.75 * width, 0.0, 0.5 * size, 0.5 * size, 10, 1)


def _broadleaf(bm: bmesh.types.BMesh, size: float, variant: int) -> None:
    """A broadleaf tree ``size`` tall: a trunk (slot 0) and an ico-sphere crown (slot 1), a little uneven."""
    radius = (0.38, 0.42, 0.34)[variant % 3] * size
    _cylinder(bm, 0.045 * size, 0.03 * size, 0.5 * size, 0.0, 8, 0)
    crown = _sphere(bm, radius, 2, 1)
    _jitter(crown, 0.12, 11 + variant)
    for vert in crown:  # a little flattened, its top at about the tree's height
        vert.co.z = vert.co.z * 0.9 + (size - 0.9 * radius)


def _boulder(bm: bmesh.types.BMesh, size: float, variant: int) -> None:
    """A boulder ``size`` across: an ico-sphere displaced by up to 25 % and squashed to half to 70 % in height."""
    verts = _sphere(bm, size / 2.0, 2, 0)
    _jitter(verts, 0.25, 101 + variant)
    for vert in verts:
        vert.co.z = vert.co.z * (0.5, 0.6, 0.7)[variant % 3] + size / 4.0


_BUILDERS = {"conifers": (_conifer, ("bark", "needles")), "broadleaf": (_broadleaf, ("bark", "leaves"))}
_BUILDERS["boulders"] = (_boulder, ("rock",))


def _placeholder_object(name: str, kind: str, spec: ScatterKind, variant: int) -> bpy.types.Object:
    build, parts = _BUILDERS[kind]
    bm = bmesh.new()
    try:
        build(bm, spec.size, variant)
        mesh = bpy.data.meshes.new(name)
        bm.to_mesh(mesh)
    finally:
        bm.free()
    for part in parts:
        mesh.materials.append(_material(part, kind))
    mesh.polygons.foreach_set("use_smooth", np.full(len(mesh.polygons), kind != "conifers"))
    mesh[PLACEHOLDER_PROPERTY] = kind
    obj = bpy.data.objects.new(name, mesh)
    obj[PLACEHOLDER_PROPERTY] = kind
    return obj


def find_placeholder_collection(kind: str) -> bpy.types.Collection | None:
    """Orogen's placeholder collection of ``kind`` in this file (marked, local, with objects), or ``None``."""
    for collection in bpy.data.collections:
        if collection.get(PLACEHOLDER_PROPERTY) == kind and collection.library is None and collection.objects:
            return collection
    return None


def placeholder_collection(kind: str) -> tuple[bpy.types.Collection, bool]:
    """``(collection, made)``: Orogen's placeholder collection of ``kind`` (a key of ``SCATTER_KINDS``), made
    when this file has none (``made`` True). Raises ``KeyError`` for another kind."""
    spec = SCATTER_KINDS[kind]
    found = find_placeholder_collection(kind)
    if found is not None:
        return found, False
    collection = bpy.data.collections.new(f"Orogen {spec.label}")
    collection[PLACEHOLDER_PROPERTY] = kind
    for variant in range(spec.variants):
        collection.objects.link(_placeholder_object(f"Orogen {spec.label} {variant + 1}", kind, spec, variant))
    return collection, True


def remove_placeholder_collection(collection: bpy.types.Collection) -> None:
    """Remove a placeholder collection Orogen made, with its objects, meshes and (unused) materials."""
    if not collection.get(PLACEHOLDER_PROPERTY):
        return
    for obj in list(collection.objects):
        if obj.get(PLACEHOLDER_PROPERTY):
            mesh = obj.data
            materials = [m for m in mesh.materials if m is not None]
            bpy.data.objects.remove(obj)
            if mesh.users == 0:
                bpy.data.meshes.remove(mesh)
            for material in materials:
                if material.users == 0 and material.get(PLACEHOLDER_PROPERTY):
                    bpy.data.materials.remove(material)
    bpy.data.collections.remove(collection)
