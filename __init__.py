"""Orogen: procedural terrain for Blender.

The extension's entry point. The Blender layer lives in ``addon``; the
terrain algorithms in ``core`` (numpy only, usable without Blender).
"""


def register() -> None:
    from . import addon

    addon.register()


def unregister() -> None:
    from . import addon

    addon.unregister()
