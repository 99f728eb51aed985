"""A terrain object as a target of the live-update engine (:mod:`..live`): its spec in ``obj.orogen``, its mesh
regenerated in place, a preview first when it is larger than its preview size (:mod:`.settle`)."""

import bpy

from ...core.spec import TerrainSpec
from ..live import add_kind, remove_kind, suspended
from ..poll import linked_reason
from ..water import sync_water
from . import settle
from .apply import linked_terrains, regenerate, set_material, share_spec


class TerrainTarget:
    """A generated terrain object (``obj.orogen.is_terrain``)."""

    restyles = True

    def __init__(self, obj: bpy.types.Object) -> None:
        self.owner = obj
        self.settings = self.state = obj.orogen

    def busy(self) -> str | None:
        """A linked mesh cannot be rewritten; one in Edit Mode waits until the user leaves."""
        return linked_reason(self.owner) or ("leave Edit Mode first" if self.owner.mode != "OBJECT" else None)

    def rewater(self, spec: TerrainSpec, text: str) -> str:
        """The water of the terrain and of its linked duplicates follows; the spec is shared with them."""
        obj = self.owner
        notes = sync_water(obj, spec)
        with suspended():
            self.state.applied = text
        for other in linked_terrains(obj):
            notes += sync_water(other, spec)
        share_spec(obj)
        return "; ".join(["Water updated", *notes])

    def restyle(self, spec: TerrainSpec, text: str) -> str:
        """A fresh material from the colour layers (the mesh stays); the spec is shared with linked duplicates."""
        obj = self.owner
        notes = set_material(obj, spec)
        with suspended():
            self.state.applied = text
        share_spec(obj)  # the material sits on the shared mesh
        return "; ".join(["Material rebuilt from the colour layers", *notes])

    def regenerate(self, spec: TerrainSpec, context) -> str:
        """A preview when the terrain is larger than its preview size (its full size follows once changes have
        settled, :mod:`.settle`), else the full size."""
        obj = self.owner
        settle.wanted_again(obj)
        preview = max(spec.shape) > self.state.preview_size
        try:
            status = regenerate(obj, context, preview)
        except (ValueError, TypeError) as err:
            if not preview:
                raise
            # What fails at the preview's size may not at the full size: the full-size pass still follows (and
            # says why, if it fails too); the terrain shows what it showed until then.
            with suspended():
                self.state.preview_pending = True
            status = f"Preview not made (the full size follows): {err}"
        if preview:
            settle.preview_made()
        return status


class Terrains:
    """The kind of :class:`TerrainTarget`: mesh objects holding a generated terrain."""

    @staticmethod
    def of(owner) -> TerrainTarget | None:
        """The target of a mesh object holding a generated terrain, else ``None``."""
        if (
            isinstance(owner, bpy.types.Object)
            and owner.type == "MESH"
            and owner.orogen.is_terrain
            and owner.library is None  # (linked: its settings cannot change here, nor can it be written)
        ):
            return TerrainTarget(owner)
        return None

    @staticmethod
    def every() -> list[TerrainTarget]:
        """Every generated terrain in ``bpy.data`` that is in use."""
        return [
            TerrainTarget(obj)
            for obj in bpy.data.objects
            if obj.type == "MESH" and obj.orogen.is_terrain and obj.users > 0 and obj.library is None
        ]


def register() -> None:
    """Let the live-update engine follow terrain objects."""
    add_kind(Terrains)


def unregister() -> None:
    remove_kind(Terrains)
