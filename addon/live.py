"""Live updates: one engine for every thing that regenerates from its spec (a terrain object, a world of tiles).

A *target* holds a spec (``settings``, read by :func:`specio.read_spec`) and a state (``state``: its
``live_update`` switch, the ``applied`` spec its geometry was made from, and a ``status`` line). When a setting
changes, :func:`on_setting_changed` rebuilds what the change affects, and only that: nothing when the spec
equals the applied one; the water alone when only the water settings changed; the material alone when only
the colour layers or material options changed (targets that can restyle); else the geometry, through the
target's own ``regenerate`` (a terrain shows a preview first and its full size once changes have settled,
:mod:`.terrain.settle`). Kinds of targets are registered by :func:`register` (:class:`Kind`): the engine knows
no terrain or tile.

Changes are seen through the settings' own ``update`` callbacks in sessions with a user interface (so the
setting and the geometry form one undo step), and through the message bus in background sessions (the ``bpy``
module of Blender 4.2 and 4.5 crashes or hangs at exit once a property with an update callback was
registered). Undo: a change regenerates at once (one undo step).
"""

from dataclasses import replace
from typing import Protocol

import bpy

from ..core.progress import Cancelled
from ..core.spec import TerrainSpec
from . import properties
from .specio import read_spec

_suspended = [0]  # > 0 while settings are written by code, not by the user


class suspended:
    """Context manager: setting changes inside it do not trigger live updates."""

    def __enter__(self):
        _suspended[0] += 1

    def __exit__(self, *_exc):
        _suspended[0] -= 1


class Target(Protocol):
    """A thing that regenerates from its spec (a terrain object, a world collection)."""

    #: The ID it is (the object, the collection).
    owner: object
    #: The property group holding the spec (``obj.orogen``, ``collection.orogen_world``).
    settings: object
    #: The group holding ``live_update``, ``applied`` and ``status``.
    state: object
    #: Whether a change of the layers or material alone rebuilds the material only (:meth:`restyle`).
    restyles: bool

    def busy(self) -> str | None:
        """Why it cannot be rewritten now (for example Edit Mode), or ``None``."""

    def rewater(self, spec: TerrainSpec, text: str) -> str:
        """Follow a change of the water settings alone; record ``text`` as applied; the status line."""

    def restyle(self, spec: TerrainSpec, text: str) -> str:
        """Follow a change of the layers or material alone; record ``text`` as applied; the status line."""

    def regenerate(self, spec: TerrainSpec, context) -> str:
        """Rebuild the geometry from ``spec``; the status line. Raises ``ValueError``/``TypeError``/``RuntimeError``."""


class Kind(Protocol):
    """A kind of target: finds the target of an ID and every target in the file."""

    def of(self, owner) -> Target | None:
        """The target ``owner`` (an ID: an object, a collection) is, or ``None``."""

    def every(self) -> list[Target]:
        """Every live target of this kind in ``bpy.data``."""


_kinds: list[Kind] = []


def target_of(owner) -> Target | None:
    """The target ``owner`` (an object, a collection) is, of any registered kind, or ``None``."""
    for kind in _kinds:
        target = kind.of(owner)
        if target is not None:
            return target
    return None


def every_target() -> list[Target]:
    """Every live target of every registered kind in ``bpy.data`` (terrains, worlds of tiles)."""
    return [target for kind in _kinds for target in kind.every()]


def same_heights(spec: TerrainSpec, other: TerrainSpec) -> bool:
    """True when ``spec`` and ``other`` make the same mesh (they may differ in their layers and material)."""
    return replace(spec, layers=other.layers, material=other.material) == other


def _only_looks_changed(spec: TerrainSpec, applied: str) -> bool:
    """True when ``spec`` differs from the applied spec only in its layers or material (the mesh stays)."""
    try:
        before = TerrainSpec.from_json(applied)
    except (TypeError, ValueError):
        return False
    return same_heights(before, spec)


def only_water_changed(spec: TerrainSpec, applied: str) -> bool:
    """True when ``spec`` differs from the applied spec only in its water settings (terrain and material stay)."""
    try:
        before = TerrainSpec.from_json(applied)
    except (TypeError, ValueError):
        return False
    water = {k: v for k, v in spec.material.items() if k.startswith("water")}
    return replace(before, material={**before.material, **water}) == spec


def on_setting_changed(owner, context) -> None:
    """A setting of ``owner`` (a terrain object, a world collection) changed: rebuild what it affects, live."""
    target = target_of(owner)
    if _suspended[0] or target is None or not target.state.live_update:
        return
    state = target.state
    try:
        spec = read_spec(target.settings)
    except (ValueError, TypeError) as err:
        state.status = f"Not regenerated: {err}"
        return
    text = spec.to_json()
    same = text == state.applied  # then only the objects it reads may have changed: the geometry follows them
    if same and not _inputs_changed(target, context):
        return  # nothing that shapes it changed (or it was already applied), nor the objects it reads
    reason = target.busy()
    if reason:
        state.status = f"Not regenerated: {reason}"
        return
    if not same and state.applied and only_water_changed(spec, state.applied):
        state.status = target.rewater(spec, text)
        return
    if not same and state.applied and target.restyles and _only_looks_changed(spec, state.applied):
        try:
            state.status = target.restyle(spec, text)
        except (ValueError, TypeError) as err:  # an Image layer's file refused: the material stays
            state.status = f"Material not rebuilt: {err}"
        return
    try:
        state.status = target.regenerate(spec, context)
    except (ValueError, TypeError, RuntimeError) as err:
        state.status = f"Not regenerated: {err}"
    except Cancelled:
        state.status = "Not regenerated: cancelled (it shows what it showed before)"


def _inputs_changed(target: Target, context) -> bool:
    """Whether the objects ``target``'s spec reads changed since its geometry was made (a target that reads
    none, or whose kind cannot tell, says no): its optional ``inputs_changed(context)``."""
    check = getattr(target, "inputs_changed", None)
    return bool(check(context)) if check is not None else False


def on_update(self, context) -> None:
    """Property update callback of every spec setting (sessions with a user interface)."""
    on_setting_changed(getattr(self, "id_data", None), context)


def changed(owner, context) -> None:
    """A collection of ``owner``'s spec (filters, layers) was edited by an operator: apply it, live."""
    on_setting_changed(owner, context)


_MSGBUS_OWNER = object()


def _on_msgbus() -> None:
    """Message-bus notification (background sessions): some spec setting changed; apply what differs."""
    if _suspended[0]:
        return
    for kind in list(_kinds):
        for target in kind.every():
            on_setting_changed(target.owner, bpy.context)


def subscribe(classes) -> None:
    """Watch every property of ``classes`` through the message bus (cleared by :func:`unsubscribe`)."""
    bpy.msgbus.clear_by_owner(_MSGBUS_OWNER)
    for cls in classes:
        for prop in cls.bl_rna.properties:
            if prop.identifier in ("rna_type", "name", "status", "applied", "preview_pending") or prop.type in (
                "POINTER",
                "COLLECTION",
            ):
                continue
            bpy.msgbus.subscribe_rna(key=(cls, prop.identifier), owner=_MSGBUS_OWNER, args=(), notify=_on_msgbus)


def unsubscribe() -> None:
    """Stop watching the settings through the message bus."""
    bpy.msgbus.clear_by_owner(_MSGBUS_OWNER)


def on_load_post() -> None:
    """A file was opened: watch the settings again (loading clears the message bus)."""
    if bpy.app.background:
        subscribe(properties.Groups.classes)


def add_kind(kind: Kind) -> None:
    """Let the engine follow targets of ``kind`` (removed again by :func:`remove_kind`)."""
    if kind not in _kinds:
        _kinds.append(kind)


def remove_kind(kind: Kind) -> None:
    """Stop following targets of ``kind``."""
    if kind in _kinds:
        _kinds.remove(kind)


def register() -> None:
    """Register the property groups (with the live-update callback in sessions with a user interface) and,
    in background sessions, watch them through the message bus."""
    # With a user interface, a setting's own update callback regenerates what it belongs to (one undo step for
    # the setting and the mesh). Background sessions (blender -b, the bpy module) watch through the message
    # bus instead: the bpy module of Blender 4.2/4.5 crashes or hangs at exit once a property with an update
    # callback was registered.
    properties.register(None if bpy.app.background else on_update)
    if bpy.app.background:
        subscribe(properties.Groups.classes)


def unregister() -> None:
    unsubscribe()
    _kinds.clear()
    properties.unregister()
