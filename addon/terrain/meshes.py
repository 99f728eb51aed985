"""A terrain's two meshes: its own (full size, holding the user's data) and Orogen's preview mesh, swapped in
while a live update shows a preview; the object keeps its name, transform, modifiers and material slots."""

import bpy

from ..mesh import OWNER_PROPERTY, is_grid_of

#: Object custom property holding a terrain's other mesh (an ID pointer): the full-size grid while a
#: live preview is shown, the preview grid otherwise (see :func:`grid_mesh_for`).
OTHER_MESH_PROPERTY = "orogen_other_mesh"


def grid_mesh_for(obj: bpy.types.Object, rows: int, cols: int) -> bpy.types.Mesh:
    """Make ``obj.data`` a mesh of a ``rows x cols`` grid when one is at hand, keeping the current one aside.

    For live updates: a preview of another size would otherwise replace the
    topology of the terrain's mesh, and the full-size pass would build it all
    again. Instead the object keeps two meshes, its own and the other size's
    (``obj[OTHER_MESH_PROPERTY]``), and swaps ``obj.data`` between them; the
    swapped-in mesh gets the current mesh's material slots (so material edits
    follow). Then :func:`update_grid_mesh` only rewrites positions and
    attributes when it meets a grid of its own size again. When the other mesh
    is missing a new one is made (named after the current mesh, with
    ``preview``); when it has yet another size it is reused and
    :func:`update_grid_mesh` rebuilds it. Returns ``obj.data``, unchanged if
    it already is such a grid. Call :func:`drop_other_mesh` when the other
    size is no longer wanted (live updates turned off).
    """
    current = obj.data
    if is_grid_of(current, rows, cols):
        return current
    other = _own_other(obj)
    # Swap only between the object's own mesh and Orogen's preview mesh, never onto another mesh of the user's.
    if (
        other is None
        or other == current
        or bool(other.get(PREVIEW_MESH_PROPERTY)) == bool(current.get(PREVIEW_MESH_PROPERTY))
    ):
        other = bpy.data.meshes.new(f"{current.name} preview")
        other[PREVIEW_MESH_PROPERTY] = True
    _swap_in(obj, other)
    return other


def _swap_in(obj: bpy.types.Object, mesh: bpy.types.Mesh) -> None:
    """Show ``mesh`` on ``obj`` with the current mesh's material slots; keep the current one aside."""
    current = obj.data
    mesh.materials.clear()
    for material in current.materials:
        mesh.materials.append(material)
    obj.data = mesh
    obj[OTHER_MESH_PROPERTY] = current
    mesh[OWNER_PROPERTY] = current[OWNER_PROPERTY] = obj


def _own_other(obj: bpy.types.Object) -> bpy.types.Mesh | None:
    """The mesh ``obj`` keeps aside, if it is ``obj``'s own: a duplicated object inherits the record of the
    original's mesh (a custom property), which must never be swapped into the copy."""
    other = obj.get(OTHER_MESH_PROPERTY)
    if not isinstance(other, bpy.types.Mesh):
        return None
    owner = other.get(OWNER_PROPERTY)
    return other if owner is None or owner == obj else None


#: Mesh custom property marking the preview meshes :func:`grid_mesh_for` makes (Orogen's, holding no user data).
PREVIEW_MESH_PROPERTY = "orogen_preview_mesh"


def full_size_mesh(obj: bpy.types.Object) -> bpy.types.Mesh:
    """Give ``obj`` back its own mesh if a live preview mesh is shown, and return it.

    The user's mesh (with its vertex groups, shape keys, attributes, linked
    duplicates) is the one a full-size pass writes into; a preview mesh made
    by :func:`grid_mesh_for` is Orogen's and never holds user data.
    """
    if not obj.data.get(PREVIEW_MESH_PROPERTY):
        return obj.data
    other = obj.get(OTHER_MESH_PROPERTY)
    if isinstance(other, bpy.types.Mesh) and not other.get(PREVIEW_MESH_PROPERTY):
        if _own_other(obj) is None:  # a duplicate made during a preview: its own copy of the original's mesh
            other = other.copy()
        _swap_in(obj, other)
    return obj.data


def drop_other_mesh(obj: bpy.types.Object) -> None:
    """Forget ``obj``'s other mesh (see :func:`grid_mesh_for`); it is removed if nothing else uses it."""
    other = obj.get(OTHER_MESH_PROPERTY)
    if OTHER_MESH_PROPERTY in obj:
        del obj[OTHER_MESH_PROPERTY]
    if isinstance(other, bpy.types.Mesh) and other != obj.data and other.users == 0:
        bpy.data.meshes.remove(other)
