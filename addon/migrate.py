"""Orogen 0.1's settings in a .blend and its user presets, turned into terrain specs.

0.1 kept a terrain's settings as flat properties of ``obj.orogen``
(``hill_count``, ``use_erosion``, ``light_azimuth``...), its recipe and colour
layers as custom properties, and saved user presets as Python files of
``settings.NAME = VALUE`` lines. Opening such a file migrates every object
and scene once (a ``load_post`` handler, before anything reads the new
settings); a 0.1 preset is read without running it.
"""

import ast

import bpy

from ..core.spec import V1_DEFAULTS, TerrainSpec, from_v1_settings
from .live import suspended
from .specio import write_spec

#: Custom properties 0.1 wrote on a terrain object (its recipe and layers; the spec holds them now).
V1_RECIPE_PROPERTY = "orogen_recipe"
V1_LAYERS_PROPERTY = "orogen_layers"
_V1_ONLY = set(V1_DEFAULTS) - {"size", "seed", "width", "height", "generator"} | {"layers_json"}
#: 0.1's keys that today's settings never store (``lighting`` and ``layers`` name groups of the spec now).
_V1_MARKERS = _V1_ONLY - {"lighting", "layers"}
_V1_LAYER_KINDS = ("COLOR", "IMAGE", "NOISE", "VORONOI")


def _stored(id_data):
    """The stored (raw) ``orogen`` property group of an ID, or ``None``.

    Blender 5.0 keeps properties defined by add-ons apart from custom properties
    (``bl_system_properties_get``); 4.2 and 4.5 keep them among them.
    """
    getter = getattr(id_data, "bl_system_properties_get", None)
    store = getter() if getter is not None else id_data
    if store is None:
        return None
    group = store.get("orogen")
    return group if hasattr(group, "to_dict") else None


def _v1_layers(items) -> list | None:
    """0.1's scene layer list (id-property dicts, enums as indices) as layer JSON data."""
    out = []
    for item in items or ():
        d = dict(item)
        kind = d.get("kind", 0)
        d["kind"] = _V1_LAYER_KINDS[kind] if isinstance(kind, int) and 0 <= kind < 4 else "COLOR"
        out.append({k: (list(v) if hasattr(v, "__len__") and not isinstance(v, str) else v) for k, v in d.items()})
    return out or None


def v1_spec(id_data) -> TerrainSpec | None:
    """The spec of a 0.1 object or scene, or ``None`` when it holds no 0.1 settings."""
    group = _stored(id_data)
    if group is None:
        return None
    raw = group.to_dict()
    if not _V1_MARKERS & set(raw):
        return None
    settings = {k: (bool(v) if isinstance(V1_DEFAULTS.get(k), bool) else v) for k, v in raw.items()
                if k in V1_DEFAULTS}
    layers = id_data.get(V1_LAYERS_PROPERTY) or _v1_layers(raw.get("layers"))
    return from_v1_settings(settings, recipe=id_data.get(V1_RECIPE_PROPERTY), layers=layers,
                            terrain=id_data.get("orogen_terrain"))


def migrate(id_data) -> bool:
    """Migrate one 0.1 object or scene in place; returns whether it was one.

    The 0.1 keys are removed from the stored group first (some now name groups, such as ``lighting``),
    then the spec is written; a terrain object's mesh is marked as made from it.
    """
    try:
        spec = v1_spec(id_data)
    except (TypeError, ValueError) as err:
        print(f"Orogen: {id_data.name} kept its 0.1 settings, which no spec can hold: {err}")
        return False
    if spec is None:
        return False
    group = _stored(id_data)
    was_terrain = bool(group.get("is_terrain", False))
    for key in list(group.keys()):
        if key in _V1_ONLY or key in ("lighting", "shading", "layers", "active_layer", "is_terrain"):
            del group[key]
    for key in (V1_RECIPE_PROPERTY, V1_LAYERS_PROPERTY):
        if key in id_data:
            del id_data[key]
    with suspended():
        write_spec(id_data.orogen, spec)
        if isinstance(id_data, bpy.types.Object):
            id_data.orogen.is_terrain = was_terrain
            id_data.orogen.applied = spec.to_json() if was_terrain else ""
    return True


def migrate_all() -> list[str]:
    """Migrate every 0.1 object and scene of the open file; returns their names."""
    return [id_data.name for id_data in (*bpy.data.objects, *bpy.data.scenes) if migrate(id_data)]


@bpy.app.handlers.persistent
def on_load_post(*_args) -> None:
    names = migrate_all()
    if names:
        print(f"Orogen: migrated 0.1 settings of {', '.join(names)}")


def v1_preset(text: str) -> TerrainSpec:
    """The spec of a 0.1 user preset file's text (``settings.NAME = VALUE`` lines), read without running it.

    Raises ``ValueError`` for a line that is not such an assignment of a literal.
    """
    settings = {}
    try:
        tree = ast.parse(text)
    except SyntaxError as err:
        raise ValueError(f"not a 0.1 preset: {err.msg} on line {err.lineno}") from None
    except (MemoryError, RecursionError):
        raise ValueError("not a 0.1 preset: nested too deeply to read") from None
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            continue  # import bpy; settings = bpy.context.scene.orogen
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == "settings"):
            raise ValueError(f"not a 0.1 preset: line {node.lineno} is not 'settings.NAME = VALUE'")
        try:
            settings[target.attr] = ast.literal_eval(node.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise ValueError(f"not a 0.1 preset: line {node.lineno} does not set a plain value") from None
    try:
        return from_v1_settings(settings)
    except (KeyError, TypeError, OverflowError) as err:  # a value of the wrong kind for a 0.1 setting
        raise ValueError(f"not a 0.1 preset: {err!s:.200}") from None
