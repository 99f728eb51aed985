"""Placeholder trees and boulders made from primitives, so a scatter renders out of the box.

Each kind of :data:`core.scatter.SCATTER_KINDS` gets one collection of ``variants`` genuinely different models,
built with ``bmesh`` from a handful of primitives and shaped with numpy (``foreach_get``/``foreach_set``, no
vertex loops): a conifer is a cylinder trunk under one to four stacked cones, narrow and spruce-like or broader
(:data:`CONIFERS`); a broadleaf tree a trunk of its own height under an irregular crown of overlapping lumpy
ico-spheres (:data:`BROADLEAF`); a boulder a lumpy ico-sphere scaled to a round stone, a slab or a block
(:data:`BOULDERS`). A few hundred vertices each at most: a forest holds tens of thousands of instances. Trees
are ``size`` metres tall with their trunk's foot at the origin; boulders about ``size`` across with their centre
a quarter of that above it.
The objects stand at the origin and the collection is linked to no scene (only the scatter shows them): find
them in the Outliner's Blender File view, or link the collection into a scene to edit them.

Everything is marked as Orogen's (:data:`PLACEHOLDER_PROPERTY` holds the kind, on the collection, its objects,
meshes and materials): :func:`placeholder_collection` reuses a collection so marked and never takes a user's.
The shapes are deterministic: the displacement comes from a fixed seed per variant (numpy's ``default_rng``).
"""

from dataclasses import dataclass

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


@dataclass(frozen=True)
class _Lump:
    """An ico-sphere made at the origin (its vertices tagged ``tag`` in the :data:`LUMP_LAYER` layer), to be
    displaced by :func:`_lumpy`, scaled by ``scale`` and moved by ``offset`` once the mesh is made (numpy on the
    mesh's coordinates)."""

    tag: int
    amount: float
    seed: int
    scale: tuple[float, float, float]
    offset: tuple[float, float, float]


#: The temporary integer vertex layer telling each lump's vertices (0: none): bmesh may reuse freed slots and
#: later operations may move vertices in its storage, so a range of indices would not do.
LUMP_LAYER = "orogen_lump"


def _sphere(bm: bmesh.types.BMesh, radius: float, subdivisions: int, part: int) -> int:
    """An ico-sphere of ``radius`` at the origin, its faces in slot ``part``; returns its tag (its vertices'
    value in :data:`LUMP_LAYER`, from 1)."""
    layer = bm.verts.layers.int.get(LUMP_LAYER) or bm.verts.layers.int.new(LUMP_LAYER)
    tag = 1 + max((v[layer] for v in bm.verts), default=0)
    verts = bmesh.ops.create_icosphere(bm, subdivisions=subdivisions, radius=radius)["verts"]
    _mark(verts, part)
    for vert in verts:  # (a few hundred at most, once per placeholder)
        vert[layer] = tag
    return tag


def _lumpy(co: np.ndarray, amount: float, seed: int) -> np.ndarray:
    """``co`` (n x 3, about the origin) moved out or in along its direction by a smooth factor within
    ``1 +- amount``: a sum of five random waves of the direction (lumps, not spikes; deterministic in ``seed``)."""
    rng = np.random.default_rng(seed)
    axes = rng.normal(size=(5, 3))
    axes /= np.linalg.norm(axes, axis=1)[:, None]
    freq, phase = rng.uniform(1.2, 2.6, 5), rng.uniform(0.0, 2.0 * np.pi, 5)
    unit = co / np.maximum(np.linalg.norm(co, axis=1), 1e-9)[:, None]
    wave = np.sin(np.pi * freq * (unit @ axes.T) + phase).sum(axis=1) / np.sqrt(5.0)
    return co * (1.0 + amount * np.clip(wave, -1.0, 1.0))[:, None]


#: Conifer variants: (tiers of cones, crown's width at its foot over the height, trunk's height over it);
#: narrow spruce-like ones, broader pine-like ones, one to four tiers.
CONIFERS = ((1, 0.14, 0.16), (2, 0.2, 0.2), (3, 0.17, 0.14), (4, 0.13, 0.12), (3, 0.26, 0.24), (2, 0.24, 0.28))
#: Broadleaf variants: (trunk's height over the tree's, main crown radius over it, lobes: (x, y, z, radius)
#: of each further ico-sphere relative to the main crown's centre and radius).
BROADLEAF = (
    (0.35, 0.36, ((0.55, 0.1, -0.15, 0.7), (-0.45, -0.35, 0.05, 0.6))),
    (0.45, 0.3, ((0.3, 0.5, 0.1, 0.75), (-0.5, 0.0, -0.2, 0.7), (0.1, -0.55, 0.0, 0.65))),
    (0.3, 0.4, ((0.6, -0.2, -0.3, 0.55),)),
    (0.5, 0.26, ((0.0, 0.0, 0.7, 0.8), (0.45, 0.3, -0.25, 0.6))),
    (0.4, 0.33, ((-0.6, 0.3, -0.1, 0.65), (0.5, 0.4, 0.0, 0.55), (0.2, -0.6, -0.2, 0.6), (0.0, 0.1, 0.5, 0.6))),
    (0.38, 0.38, ((0.4, -0.4, 0.2, 0.6), (-0.35, 0.45, -0.1, 0.65))),
)
#: Boulder variants: (scale in x, y, z of a sphere ``size`` across, lumpiness): round, flat slabs, long blocks.
BOULDERS = (
    ((1.0, 1.0, 0.6), 0.2),
    ((1.2, 0.8, 0.45), 0.15),
    ((0.9, 0.9, 0.8), 0.28),
    ((1.3, 0.7, 0.6), 0.22),
    ((1.0, 0.85, 0.35), 0.12),
    ((0.8, 0.75, 0.7), 0.32),
)


def _conifer(bm: bmesh.types.BMesh, size: float, variant: int) -> tuple[list[_Lump], tuple | None]:
    """A conifer ``size`` tall (variant of :data:`CONIFERS`): a trunk (slot 0) under stacked cones (slot 1), each
    narrower than the one below, the top one's tip at ``size``."""
    tiers, width, trunk = CONIFERS[variant % len(CONIFERS)]
    _cylinder(bm, 0.025 * size, 0.02 * size, trunk * size, 0.0, 8, 0)
    foot = 0.6 * trunk * size
    step = (size - foot) / (tiers + 0.6)
    for tier in range(tiers):
        base = foot + tier * step
        radius = width * size * (1.0 - 0.5 * tier / max(tiers - 1, 1))
        if tier == tiers - 1:
            _cylinder(bm, radius, 0.0, size - base, base, 10, 1)
        else:
            _cylinder(bm, radius, 0.45 * radius, 1.6 * step, base, 10, 1)
    return [], None


def _broadleaf(bm: bmesh.types.BMesh, size: float, variant: int) -> tuple[list[_Lump], tuple | None]:
    """A broadleaf tree ``size`` tall (variant of :data:`BROADLEAF`): a trunk (slot 0) under an irregular crown
    (slot 1) of a main ico-sphere and lobes, each lumpy and a little flattened, the crown stretched in height
    from 0.7 of the trunk's height to ``size``."""
    trunk, main, lobes = BROADLEAF[variant % len(BROADLEAF)]
    _cylinder(bm, 0.045 * size, 0.03 * size, trunk * size, 0.0, 8, 0)
    radius = main * size
    centre = trunk * size + 0.55 * radius
    made = []
    for i, (x, y, z, r) in enumerate(((0.0, 0.0, 0.0, 1.0), *lobes)):
        tag = _sphere(bm, r * radius, 3 if i == 0 else 2, 1)
        where = (x * radius, y * radius, centre + z * radius)
        made.append(_Lump(tag, 0.12, 11 + 7 * variant + i, (1.0, 1.0, 0.85), where))
    return made, (0.7 * trunk * size, size)


def _boulder(bm: bmesh.types.BMesh, size: float, variant: int) -> tuple[list[_Lump], tuple | None]:
    """A boulder about ``size`` across (variant of :data:`BOULDERS`): a lumpy ico-sphere scaled to a round stone,
    a slab or a block, its centre a quarter of ``size`` above the origin."""
    scale, amount = BOULDERS[variant % len(BOULDERS)]
    tag = _sphere(bm, size / 2.0, 3, 0)
    return [_Lump(tag, amount, 101 + variant, scale, (0.0, 0.0, size / 4.0))], None


_BUILDERS = {"conifers": (_conifer, ("bark", "needles")), "broadleaf": (_broadleaf, ("bark", "leaves"))}
_BUILDERS["boulders"] = (_boulder, ("rock",))


def _shape(mesh: bpy.types.Mesh, lumps: list[_Lump], span: tuple | None) -> None:
    """Displace, scale and move ``lumps`` in ``mesh`` (then drop its :data:`LUMP_LAYER`); with ``span``
    ``(bottom, top)``, then stretch them all in height to fill it."""
    if not lumps:
        return
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float64)
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    tags = np.empty(len(mesh.vertices), dtype=np.int32)
    mesh.attributes[LUMP_LAYER].data.foreach_get("value", tags)
    mesh.attributes.remove(mesh.attributes[LUMP_LAYER])
    for lump in lumps:
        part = tags == lump.tag
        co[part] = _lumpy(co[part], lump.amount, lump.seed) * lump.scale + lump.offset
    if span is not None:
        parts = tags > 0
        z = co[parts, 2]
        co[parts, 2] = span[0] + (z - z.min()) * (span[1] - span[0]) / (z.max() - z.min())
    mesh.vertices.foreach_set("co", co.astype(np.float32).ravel())
    mesh.update()


def _placeholder_object(name: str, kind: str, spec: ScatterKind, variant: int) -> bpy.types.Object:
    build, parts = _BUILDERS[kind]
    bm = bmesh.new()
    try:
        lumps, span = build(bm, spec.size, variant)
        mesh = bpy.data.meshes.new(name)
        bm.to_mesh(mesh)
    finally:
        bm.free()
    _shape(mesh, lumps, span)
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
