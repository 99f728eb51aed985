"""Orogen's Blender layer: settings, operators, panel, mesh and material builders."""

from . import edit, layers, operators, panel, presets, properties, render  # noqa: F401  (render: for scripts)

_modules = (properties, layers, operators, edit, presets, panel)


def register() -> None:
    for module in _modules:
        module.register()


def unregister() -> None:
    for module in reversed(_modules):
        module.unregister()
