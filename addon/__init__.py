"""Orogen's Blender layer: settings, operators, panel, mesh and material builders."""

from . import edit, layers, operators, panel, properties, render  # noqa: F401  (render: helpers for scripts)

_modules = (properties, layers, operators, edit, panel)


def register() -> None:
    for module in _modules:
        module.register()


def unregister() -> None:
    for module in reversed(_modules):
        module.unregister()
