"""Orogen's Blender layer: properties made from core's declarations, operators, panel, mesh and material.

Imports point one way: panel -> (operators, presets, stack) -> live -> (mesh, material, specio, terrain) -> core.
"""

import bpy

from . import live, migrate, operators, panel, presets, properties, render, stack, tiles  # noqa: F401  (render: scripts)


@bpy.app.handlers.persistent
def _on_load_post(*_args) -> None:
    """Opening a file: migrate 0.1 and 0.2 settings, and watch the settings again (loading clears the message bus)."""
    migrate.on_load_post()
    if bpy.app.background:
        live.subscribe(properties.Groups.classes)


def register() -> None:
    # With a user interface, a setting's own update callback regenerates its terrain (one undo step for the
    # setting and the mesh). Background sessions (blender -b, the bpy module) watch through the message bus
    # instead: the bpy module of Blender 4.2/4.5 crashes or hangs at exit once a property with an update
    # callback was registered.
    properties.register(None if bpy.app.background else live.on_update)
    live.register(properties.Groups.classes)
    stack.register()
    operators.register()
    presets.register()
    panel.register()
    tiles.register()
    migrate.register()
    bpy.app.handlers.load_post.append(_on_load_post)


def unregister() -> None:
    if _on_load_post in bpy.app.handlers.load_post:
        bpy.app.handlers.load_post.remove(_on_load_post)
    migrate.unregister()
    tiles.unregister()
    panel.unregister()
    presets.unregister()
    operators.unregister()
    stack.unregister()
    live.unregister()
    properties.unregister()
