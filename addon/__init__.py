"""Orogen's Blender layer: it moves core's arrays in and out of Blender (no add-on function computes terrain).

Rooms:

- ``ui/``: the Terrain panel, drawing a spec's settings (shared with the operators' redo panels), the size menu;
- ``ops/``: operators on terrains (add, generate, regenerate, rebuild material), profiles, presets, the
  filter and layer stacks, the scatter;
- ``io/``: import and export operators, heightmap files and Blender's image API;
- ``tiles/``: worlds of terrain tiles (objects, operators, export, panel, properties);
- ``terrain/``: a terrain object: its spec computed into arrays, written into its mesh (the user's data
  resampled), its preview mesh, its full-size pass and its place in the live-update engine;
- top level: :mod:`.live` (the one live-update engine), :mod:`.jobs` (background jobs with progress and
  cancel), :mod:`.preferences` (the Work Limit), :mod:`.poll` (poll reasons), :mod:`.material` and
  :mod:`.nodes`, :mod:`.water`, :mod:`.scatter` and :mod:`.placeholders` (trees and rocks), :mod:`.thumbnails`
  (preset pictures), :mod:`.mesh`, :mod:`.specio`, :mod:`.properties`, :mod:`.render` and :mod:`.landscape`
  (pictures, for scripts), :mod:`.versions`.

Imports point down: the panels use the operators; the operators use ``ui/draw.py``, ``terrain/`` and the
top-level modules; ``terrain/`` uses the top-level modules; everything uses :mod:`core`, which never imports
``bpy``. No module imports one that imports it back (``tests/core/test_layout.py``).
"""

import bpy

from . import landscape, live, preferences, render, thumbnails, versions  # noqa: F401  (landscape, render: scripts)
from .io import export_maps, import_heightmap
from .ops import presets, profile, report, stack
from .ops import scatter as scatter_ops
from .ops import terrain as terrain_ops
from .terrain import settle, target
from .tiles import export as tiles_export
from .tiles import operators as tiles_operators
from .tiles import panel as tiles_panel
from .tiles import properties as tiles_properties
from .tiles import world
from .ui import panel, sizes

#: Every module with classes or handlers, registered in this order and unregistered in reverse (as Blender's
#: ``bl_operators``): the preferences first (the Work Limit reaches core before anything can run), then the live
#: engine (it registers the property groups with its update callback).
modules = (
    preferences,
    live,
    target,
    settle,
    stack,
    terrain_ops,
    profile,
    report,
    thumbnails,
    presets,
    scatter_ops,
    import_heightmap,
    export_maps,
    sizes,
    panel,
    tiles_properties,
    world,
    tiles_operators,
    tiles_export,
    tiles_panel,
    versions,
)


@bpy.app.handlers.persistent
def _on_load_post(*_args) -> None:
    """Opening a file: migrate 0.1 and 0.2 settings, and watch the settings again (loading clears the message bus)."""
    versions.on_load_post()
    live.on_load_post()


def register() -> None:
    for module in modules:
        module.register()
    bpy.app.handlers.load_post.append(_on_load_post)


def unregister() -> None:
    if _on_load_post in bpy.app.handlers.load_post:
        bpy.app.handlers.load_post.remove(_on_load_post)
    for module in reversed(modules):
        module.unregister()
