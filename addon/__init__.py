"""Orogen's Blender layer: settings, operators, panel, mesh and material builders."""

from . import operators, panel, properties

_modules = (properties, operators, panel)


def register() -> None:
    for module in _modules:
        module.register()


def unregister() -> None:
    for module in reversed(_modules):
        module.unregister()
