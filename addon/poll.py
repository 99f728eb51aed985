"""Poll reasons: why an operator cannot run now, shown on its disabled button and raised from Python.

Every operator's ``poll`` answers with :func:`poll_with` and one of the reasons here (``None``: it can run).
"""

import bpy

from .mesh import TERRAIN_PROPERTY


def selected_active(context) -> bpy.types.Object | None:
    """The active object when it is also selected, else ``None``.

    "The terrain" an operator or the panel acts on is the one the user picked: deselecting everything
    (``object.select_all(action="DESELECT")``, a click in empty space) leaves the last object active in
    Blender, but no longer picked, so the panel's settings and the Generate button take over again.
    """
    obj = getattr(context, "active_object", None)
    if obj is None:
        return None
    selected = getattr(context, "selected_objects", None)
    return obj if (obj in selected if selected is not None else obj.select_get()) else None


def active_terrain(context) -> bpy.types.Object | None:
    """The selected active object if it is a generated Orogen terrain (its spec can regenerate it), else None."""
    obj = selected_active(context)
    return obj if obj is not None and obj.type == "MESH" and obj.orogen.is_terrain else None


def mode_reason(context) -> str | None:
    """Why nothing can be added or edited now (no scene, or not in Object Mode), or ``None``."""
    if getattr(context, "scene", None) is None:
        return "No scene to work in"
    if getattr(context, "mode", "OBJECT") != "OBJECT":
        return "Leave Edit Mode first"
    return None


def poll_with(cls, reason: str | None) -> bool:
    """A poll's answer: ``True`` without a reason; else ``False``, with the reason shown on the disabled button
    (``poll_message_set``) and raised by the same call from Python."""
    if reason:
        cls.poll_message_set(reason)
        return False
    return True


def linked_reason(obj: bpy.types.Object) -> str | None:
    """Why Orogen cannot write ``obj``'s geometry: the object or its mesh is linked from a library (read-only
    there; a library override of the object still shows the library's mesh), or ``None``. The advice comes before
    the library's path: Blender cuts a long poll message short."""
    for id_data, what in ((obj, obj.name), (obj.data, f"the mesh {getattr(obj.data, 'name', '')!r} of {obj.name}")):
        library = getattr(id_data, "library", None)
        if library is not None:
            return (
                f"{what} is linked from {library.name} and cannot be written: make it local first "
                f"(Object > Relations > Make Local); the library is {library.filepath}"
            )
    return None


def terrain_reason(context) -> str | None:
    """Why the active object cannot be edited as a terrain now (``None`` when it can): it must be selected."""
    obj = selected_active(context)
    if obj is None:
        return "Select a terrain first"
    if obj.type != "MESH" or not obj.orogen.is_terrain:
        if obj.type == "MESH" and TERRAIN_PROPERTY in obj:
            return "An imported heightmap has no generator to re-run: import it again to change it"
        return f"{obj.name} is not an Orogen terrain"
    return linked_reason(obj) or mode_reason(context)


def export_reason(context) -> str | None:
    """Why the active object's maps cannot be exported or its material rebuilt now (``None`` when they can)."""
    obj = selected_active(context)
    if obj is None or obj.type != "MESH" or TERRAIN_PROPERTY not in obj:
        return "Select a terrain (generated or imported) first"
    return mode_reason(context)


def locked_reason(context) -> str | None:
    """Why data must not be changed now: a job (a render) locks the interface; else ``None``."""
    wm = getattr(context, "window_manager", None)
    return "wait for the render to end" if wm is not None and wm.is_interface_locked else None


def object_by_uid(uid: int) -> bpy.types.Object | None:
    """The object with this ``session_uid`` (which stays through renames), or ``None`` once it is deleted."""
    return next((obj for obj in bpy.data.objects if obj.session_uid == uid and obj.users > 0), None)


class AddsObjects:
    """Mixin for operators that add objects: their poll asks for Object Mode with a scene (:func:`mode_reason`)."""

    @classmethod
    def poll(cls, context):
        return poll_with(cls, mode_reason(context))
