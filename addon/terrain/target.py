"""A terrain object as a target of the live-update engine (:mod:`..live`): its spec in ``obj.orogen``, its mesh
regenerated in place, a preview first when it is larger than its preview size (:mod:`.settle`).

The objects a terrain reads (its spec's :meth:`core.spec.TerrainSpec.objects`: an object source's mesh, a
carve filter's curve, any kind) are followed too: :func:`on_depsgraph_update` sees one of them change geometry
or transform and asks the engine for the terrain's live update, which regenerates when the inputs' fingerprint
(:func:`..inputs.digest`) differs from the one its mesh was made from. The terrain's own update does not
trigger it again (a terrain is never its own input, and the handler does not run inside itself).
"""

import bpy

from ...core.generators import sources
from ...core.spec import TerrainSpec
from ..inputs import INPUTS_PROPERTY, blend_folder, digest, terrain_inputs
from ..live import add_kind, every_target, on_setting_changed, remove_kind, suspended
from ..poll import linked_reason
from ..specio import read_spec
from ..water import sync_water
from . import settle
from .apply import linked_terrains, regenerate, set_material, share_spec
from .compute import check_decode_memory, check_memory


class TerrainTarget:
    """A generated terrain object (``obj.orogen.is_terrain``)."""

    restyles = True

    def __init__(self, obj: bpy.types.Object) -> None:
        self.owner = obj
        self.settings = self.state = obj.orogen

    def inputs_changed(self, context) -> bool:
        """Whether the objects the spec reads (and a decoded source file) differ from those the mesh was made
        from; a spec that reads none says no, one whose objects cannot be read says yes (the update says why)."""
        obj = self.owner
        try:
            spec = read_spec(self.settings)
            if not spec.objects() and spec.generator != "file":
                return False
            inputs = terrain_inputs(spec, obj.matrix_world, context, terrain=obj)
        except (ValueError, TypeError):
            return True
        return digest(inputs) != obj.get(INPUTS_PROPERTY, "")

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


_in_handler = [False]


def _changed_objects(depsgraph) -> set[str]:
    """Names of the objects whose geometry or transform this depsgraph update changed."""
    names = set()
    for update in depsgraph.updates:
        ident = update.id
        if isinstance(ident, bpy.types.Object) and (update.is_updated_geometry or update.is_updated_transform):
            names.add(ident.original.name if ident.original is not None else ident.name)
    return names


def _read_names(obj: bpy.types.Object) -> set[str]:
    """The objects ``obj``'s mesh was made from (the names in its inputs' fingerprint, cheap to read on every
    depsgraph update); after a failed update (the object was missing), the ones its spec names now."""
    names = set()
    for line in obj.get(INPUTS_PROPERTY, "").splitlines():
        kind, _, rest = line.partition(":")
        name = rest.rpartition(":")[0]
        # (weights: a vertex group's name, not an object's; a group painted on the source object is followed
        # through the source's own "mesh" line: repainting it is a geometry update of that object)
        if kind not in ("file", "weights") and name:
            names.add(name)
    if obj.orogen.status.startswith("Not regenerated"):
        try:
            names |= {name for _path, _kind, name in read_spec(obj.orogen).objects()}
        except (ValueError, TypeError):
            pass
    return names


def _spec_names(target) -> set[str]:
    """The objects (not vertex groups) a target's spec names; none when its spec cannot be read."""
    try:
        return {name for _path, kind, name in read_spec(target.settings).objects() if kind != "weights"}
    except (ValueError, TypeError):
        return set()


@bpy.app.handlers.persistent
def on_depsgraph_update(_scene, depsgraph) -> None:
    """An object changed: every live terrain whose spec reads it (other than itself) takes its live update."""
    if _in_handler[0]:
        return
    changed = _changed_objects(depsgraph)
    if not changed:
        return
    _in_handler[0] = True
    try:
        done: set[int] = set()
        while changed:  # a terrain that read a changed object changes too: the terrains that read it follow
            followed = set()
            for target in every_target():  # terrains and worlds of tiles
                owner = target.owner
                if id(owner) in done or not target.state.live_update:
                    continue
                if isinstance(owner, bpy.types.Object):
                    names = _read_names(owner) - {owner.name}
                else:  # a world of tiles: the objects its spec names
                    names = _spec_names(target)
                if names & changed:
                    on_setting_changed(owner, bpy.context)
                    done.add(id(owner))  # each at most once an update (cycles are refused by gather)
                    if isinstance(owner, bpy.types.Object):
                        followed.add(owner.name)
            changed = followed
    finally:
        _in_handler[0] = False


def register() -> None:
    """Let the live-update engine follow terrain objects and the objects they read."""
    add_kind(Terrains)
    sources.set_guards(check_memory, check_decode_memory, blend_folder=blend_folder())
    if on_depsgraph_update not in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.append(on_depsgraph_update)


def unregister() -> None:
    if on_depsgraph_update in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.remove(on_depsgraph_update)
    sources.set_guards()
    remove_kind(Terrains)
