"""A terrain's water surface: an object of Orogen's, parented to the terrain, filled to the water level.

The spec's ``material.water`` turns it on, ``material.water_level`` is its
height in metres above the terrain's Z = 0 (its lowest point), and
``material.water_color`` the colour light takes on crossing water
(:func:`material.build_water_material`). :func:`sync_water` makes, updates or
removes it; the add operator, regenerate, live updates and material rebuilds
call it, so the water follows the terrain.

The water is a closed mesh so that Cycles can absorb light with depth in its
volume: the top is the water plane over the terrain's bounds; the sides run
down each edge of the terrain to the terrain's own edge profile (so no side
hangs below the ground where the terrain's edge is above the sea floor) and
the volume is closed underneath by the terrain itself, which is opaque. The
object, its mesh and its material are marked as the terrain's (``OWNER_PROPERTY`` holds the terrain, as
Orogen's preview meshes do) and Orogen only ever changes or removes a water
object whose mark names that terrain: a user's object is never touched. Nor is a
user's mesh put into that object: the water gets a new mesh of Orogen's, the
user's stays as it was (kept with a fake user when nothing else shows it), and
the sync says so.

The same object holds the terrain's **lakes and rivers** when its filters made them (the Rivers and Lakes
filter's ``lake_depth``, ``river_width`` and ``river_depth`` attributes, :func:`inland_geometry`): flat
quads at each lake's spill level and ribbons along the rivers, as wide as their channels
(:func:`core.surface_water.water_mesh`), with the same water material. They are open surfaces over an opaque
terrain, which closes their volume as it closes the sea's.

A world of terrain tiles has one water object for the whole world
(:func:`sync_world_water`): owned by the world's collection, linked into it and
parented to its first tile; its sides run down the world's outer edge only, so
no wall stands inside the water where two tiles meet.
"""

import json

import bpy
import numpy as np

from ..core.spec import TerrainSpec
from ..core.surface_water import water_mesh
from .material import WATER_KEY, WATER_TREE_VERSION, WATER_VERSION_KEY, build_water_material
from .mesh import OWNER_PROPERTY, TERRAIN_PROPERTY, grid_edge_ring, write_polygons

#: Object custom property marking Orogen's water objects (its value is True).
WATER_PROPERTY = "orogen_water"
#: Terrain object custom property pointing at its water object.
WATER_OBJECT_PROPERTY = "orogen_water_object"


def water_of(owner) -> bpy.types.Object | None:
    """``owner``'s own water object, or ``None``: one marked as Orogen's water and owned by ``owner`` (a terrain
    object, or a tile world's collection).

    Found through ``owner``'s pointer, or among its children (an object's) or objects (a collection's), for a
    pointer lost to a copy; an object that only looks like it (another terrain's, a user's) is not returned.
    """
    members = owner.children if isinstance(owner, bpy.types.Object) else owner.objects
    candidates = [owner.get(WATER_OBJECT_PROPERTY), *members]
    for water in candidates:
        if (
            isinstance(water, bpy.types.Object)
            and water.get(WATER_PROPERTY)
            and water.get(OWNER_PROPERTY) == owner
            and water.library is None
        ):
            return water
    return None


def remove_water(owner) -> None:
    """Remove ``owner``'s water object (a terrain's or a tile world's), and its mesh and material when they are
    Orogen's and nothing else uses them (a user's mesh in the object stays, with a fake user if it has no other)."""
    water = water_of(owner)
    if WATER_OBJECT_PROPERTY in owner:
        del owner[WATER_OBJECT_PROPERTY]
    if water is None:
        return
    mesh = water.data
    ours = owns(owner, mesh)
    materials = [m for m in mesh.materials if m is not None] if ours else []
    bpy.data.objects.remove(water)
    if mesh is not None and mesh.users == 0:
        if ours:
            bpy.data.meshes.remove(mesh)
        else:  # a user's mesh put into the water object stays, saved with the file
            mesh.use_fake_user = True
    for material in materials:
        if material.users == 0 and WATER_KEY in material:
            bpy.data.materials.remove(material)


def edge_profile(obj: bpy.types.Object) -> tuple[np.ndarray, tuple[int, int]] | None:
    """The terrain mesh's edge vertices as ``float32 (n, 3)`` positions (local), once round the grid, and the
    grid's ``(rows, cols)`` from the terrain's record; ``None`` when the mesh is not the grid its record says.
    The loop is :func:`mesh.grid_edge_ring`'s.
    """
    record = obj.get(TERRAIN_PROPERTY)
    try:
        rows, cols = json.loads(record)["shape"]
    except (TypeError, ValueError, KeyError):
        return None
    if rows < 2 or cols < 2 or len(obj.data.vertices) != rows * cols:
        return None
    return grid_edge_ring(obj.data, rows, cols), (rows, cols)


def water_geometry(ring: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vertices and faces of the water over a terrain whose edge loop is ``ring`` (``(n, 3)``, clockwise seen
    from above, as :func:`edge_profile` gives it), at Z = ``level``.

    Returns ``(co, corners, sizes)``: positions ``float32 (2n + 1, 3)``; each face's vertex indices one after
    another, ``uint32``; and each face's corner count, ``uint32`` (what :func:`mesh.write_polygons` takes).
    Vertices: the loop at the water level (``0 .. n-1``), the loop at the terrain's edge height capped at the
    level (``n .. 2n-1``), and the centre of the top. Faces: a fan of triangles from the centre (the water
    plane, facing up) and one quad per edge segment down to the terrain's edge (facing out), left out where
    the terrain's edge is above the water on both ends. The terrain closes the volume underneath.
    """
    n = len(ring)
    top = ring.astype(np.float32)
    top[:, 2] = level
    low = ring.astype(np.float32)
    low[:, 2] = np.minimum(ring[:, 2], np.float32(level))
    centre = np.array(
        [[(ring[:, 0].min() + ring[:, 0].max()) / 2, (ring[:, 1].min() + ring[:, 1].max()) / 2, level]],
        dtype=np.float32,
    )
    co = np.concatenate([top, low, centre]).astype(np.float32)
    i = np.arange(n, dtype=np.uint32)
    j = np.roll(i, -1)
    # The loop runs clockwise from above: (centre, next, this) faces up; (this, next, next low, this low)
    # faces out, down the outside of the edge.
    wet = (low[i, 2] < level) | (low[j, 2] < level)
    # Per segment, in order: its fan triangle, then its wall when it has one (rows padded to 4 corners).
    faces = np.zeros((n, 2, 4), np.uint32)
    faces[:, 0, :3] = np.stack([np.full(n, 2 * n, np.uint32), j, i], axis=1)
    faces[:, 1] = np.stack([i, j, n + j, n + i], axis=1)
    sizes = np.stack([np.full(n, 3, np.uint32), np.where(wet, 4, 0).astype(np.uint32)], axis=1).ravel()
    corners = faces.reshape(-1, 4)[np.arange(4)[None, :] < sizes[:, None]]
    return co, corners, sizes[sizes > 0]


#: The terrain attributes :func:`inland_geometry` reads (the Rivers and Lakes filter's maps and its routing).
INLAND_ATTRIBUTES = ("lake_depth", "river_width", "river_depth", "flow_direction")


def inland_geometry(obj: bpy.types.Object) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The lakes and rivers of terrain ``obj`` as ``(co, corners, sizes)`` (as :func:`water_geometry` gives
    them), from its mesh's Z and its ``lake_depth``, ``river_width``, ``river_depth`` and ``flow_direction``
    point attributes; ``None`` when the mesh lacks one of them, is not its recorded grid, or holds no water."""
    profile = edge_profile(obj)
    mesh = obj.data
    if profile is None or any(mesh.attributes.get(name) is None for name in INLAND_ATTRIBUTES):
        return None
    rows, cols = profile[1]
    maps = {}
    for name in INLAND_ATTRIBUTES:
        attr = mesh.attributes[name]
        if attr.domain != "POINT" or attr.data_type != "FLOAT":
            return None
        values = np.empty(rows * cols, dtype=np.float32)
        attr.data.foreach_get("value", values)
        maps[name] = values.reshape(rows, cols)
    if not ((maps["lake_depth"] > 0).any() or (maps["river_width"] > 0).any()):
        return None
    co = np.empty(rows * cols * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(rows, cols, 3)
    cell = float(abs(co[0, 1, 0] - co[0, 0, 0]))
    if not (np.isfinite(co).all() and cell > 0.0):
        return None
    try:
        vertices, quads = water_mesh(
            co[..., 2],
            cell,
            lake_depth=maps["lake_depth"],
            river_width=maps["river_width"],
            river_depth=maps["river_depth"],
            direction=maps["flow_direction"],
        )
    except ValueError:  # attributes a user edited out of range: no inland water rather than a broken mesh
        return None
    vertices[:, 0] += co[0, 0, 0] - np.float32(-(cols - 1) / 2.0 * cell)  # the mesh's own frame, if shifted
    vertices[:, 1] += co[0, 0, 1] - np.float32((rows - 1) / 2.0 * cell)
    return vertices, quads.astype(np.uint32).ravel(), np.full(len(quads), 4, dtype=np.uint32)


def _joined(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Geometry parts ``(co, corners, sizes)`` as one, each part's corner indices moved past the ones before."""
    offsets = np.cumsum([0] + [len(co) for co, _, _ in parts[:-1]])
    co = np.concatenate([co for co, _, _ in parts]).astype(np.float32)
    corners = np.concatenate([c + np.uint32(o) for (_, c, _), o in zip(parts, offsets, strict=True)])
    sizes = np.concatenate([s for _, _, s in parts])
    return co, corners.astype(np.uint32), sizes.astype(np.uint32)


def sync_water(obj: bpy.types.Object, spec: TerrainSpec) -> list[str]:
    """Give terrain ``obj`` the water its spec asks for: made, moved to the level, or removed.

    The water object is named after the terrain, parented to it (it follows the terrain's transform), linked
    to the terrain's collections and holds a copy of no user data; its mesh is rewritten on every call (the
    terrain's edge may have changed), its material rebuilt only when the depth colour changed (edits to it
    otherwise stay, and a material of the user's own put in its place is kept as it is). With
    ``material.water`` off any water of ``obj``'s is removed. Returns notes for the user (a mesh of the user's
    found in the water object, left as it was). The terrain's lakes and rivers (:func:`inland_geometry`) join
    the sea in the same object, and keep it when ``material.water`` is off.
    """
    profile = edge_profile(obj) if spec.material.get("water", False) else None
    ring = None if profile is None else profile[0]
    inland = inland_geometry(obj)
    return _sync(obj, spec, ring, obj, obj.users_collection or (bpy.context.scene.collection,), inland)


def sync_world_water(
    world: bpy.types.Collection, spec: TerrainSpec, ring: np.ndarray | None, parent: bpy.types.Object | None
) -> list[str]:
    """Give the tile world ``world`` (its collection) the water its spec asks for, as :func:`sync_water` does
    for a terrain: one object over the whole world, linked into ``world`` and parented to ``parent`` (a tile:
    tiles share one frame), down to the world's outer edge ``ring`` (``float32 (n, 3)`` in the tiles' frame,
    clockwise seen from above; ``None`` leaves the water as it is). Removed when ``material.water`` is off.
    Returns notes for the user, as :func:`sync_water` does.
    """
    return _sync(world, spec, ring, parent, (world,))


def owns(owner, data) -> bool:
    """Whether ``data`` (a mesh or material) is one Orogen made for ``owner``'s water (its mark names ``owner``)."""
    return data is not None and data.library is None and data.get(OWNER_PROPERTY) == owner


def _own_mesh(owner, water: bpy.types.Object) -> list[str]:
    """Give ``water`` a mesh of Orogen's when the one it shows is not (a user's, linked in): the user's mesh is
    left as it was, kept with a fake user when nothing else shows it. Returns the note saying so."""
    theirs = water.data
    if owns(owner, theirs):
        return []
    mesh = bpy.data.meshes.new(f"{owner.name} Water")
    mesh[OWNER_PROPERTY] = owner
    water.data = mesh
    if theirs is None:
        return []
    kept = ""
    if theirs.users == 0:
        theirs.use_fake_user = True
        kept = " (kept with a fake user)"
    return [
        f"the water object {water.name} showed your mesh {theirs.name}, which Orogen does not own: left it "
        f"as it was{kept} and gave the water a new mesh of its own"
    ]


def _sync(owner, spec: TerrainSpec, ring: np.ndarray | None, parent, collections, inland=None) -> list[str]:
    material = spec.material
    sea = bool(material.get("water", False))
    if not sea and inland is None:
        remove_water(owner)
        return []
    if sea and ring is None:
        return []
    parts = [water_geometry(ring, float(material["water_level"]))] if sea else []
    if inland is not None:
        parts.append(inland)
    co, corners, sizes = _joined(parts)
    water = water_of(owner)
    notes: list[str] = []
    if water is None:
        mesh = bpy.data.meshes.new(f"{owner.name} Water")
        water = bpy.data.objects.new(f"{owner.name} Water", mesh)
        water[WATER_PROPERTY] = True
        water[OWNER_PROPERTY] = owner
        mesh[OWNER_PROPERTY] = owner
        for collection in collections:
            collection.objects.link(water)
    else:
        notes += _own_mesh(owner, water)
    owner[WATER_OBJECT_PROPERTY] = water
    if water.parent != parent:
        water.parent = parent
    water.matrix_parent_inverse.identity()
    water.location = (0.0, 0.0, 0.0)
    water.rotation_euler = (0.0, 0.0, 0.0)
    water.scale = (1.0, 1.0, 1.0)
    write_polygons(water.data, co, corners, sizes)
    mesh = water.data
    color = [float(c) for c in material["water_color"][:3]]
    current = mesh.materials[0] if len(mesh.materials) else None
    ours = current is not None and WATER_KEY in current  # a user's own material stays
    if current is None or (
        ours and (list(current[WATER_KEY]) != color or current.get(WATER_VERSION_KEY, 1) != WATER_TREE_VERSION)
    ):
        new = build_water_material(f"{owner.name} Water", color)
        new[OWNER_PROPERTY] = owner
        if len(mesh.materials):
            mesh.materials[0] = new
        else:
            mesh.materials.append(new)
        if current is not None and current.users == 0 and WATER_KEY in current:
            bpy.data.materials.remove(current)
    return notes
