"""Settings saved by earlier Orogens in a .blend and its user presets, turned into today's terrain specs.

0.1 kept a terrain's settings as flat properties of ``obj.orogen``
(``hill_count``, ``use_erosion``, ``light_azimuth``...), its recipe and colour
layers as custom properties, and saved user presets as Python files of
``settings.NAME = VALUE`` lines. Opening such a file migrates every object
and scene once (a ``load_post`` handler, before anything reads the new
settings); a 0.1 preset is read without running it.

0.2 kept them as today's groups do, but in spec version 2: lengths in cells
(``hills.radius_min = 8`` cells, which today's property reads as 8 m), and
values whose properties are gone (``box_blur.passes``, ``lowpass.k``) still in
the file as ID properties. Today's add-on marks every group it writes with its
spec version (``spec_version``, by :func:`.specio.write_spec`, on load and on
save); a group storing settings without that mark is 0.2's. On load (and on
append, in Blender 4.3 and later) such a group is read as the version-2 spec it
held, converted by :func:`core.versions.spec_v2_to_v3` (the heightmap it gave is kept:
the version-2 algorithms behind declared choices, ``fit_height`` on) and
written back; the mesh stays as it is, and Regenerate gives the same heights
(bit for bit, or within the float32 round trip of the converted lengths). The
Info log says what was converted. Library overrides are converted as local data;
linked (library) data is read-only and is read through the conversion, never
written; whatever reaches the add-on by another route (made local, appended in
Blender 4.2, which has no append handler) is converted when it is first read
(:func:`on_read`).

Development builds of version 3 stored the thermal filter's ``steps`` as
``iterations``: a version-3 group holding the old name gets the value under
today's (:data:`core.versions.V3_RENAMED`). Version-3 groups
get version 3's erosion algorithms named and version-3 and -4 groups version 4's
thermal and hydraulic time counts, by every route (:mod:`.versions3`).

Every value is converted by :mod:`core.versions`; this module reads the old
properties, writes the new ones and runs the handlers.
"""

import ast
import json

import bpy

from ..core.lighting import LIGHTING_PARAMS
from ..core.params import FILTERS, GENERATORS
from ..core.spec import LAYER_PARAMS, MATERIAL_PARAMS, WORLD_PARAMS, TerrainSpec, from_v1_settings
from ..core.versions import SPEC_VERSION, V1_DEFAULTS, V2_PARTS, V3_RENAMED, v2_params_to_v3
from . import versions3
from .live import suspended
from .specio import as_stored, earlier_forms, read_group, read_spec, read_value, write_group, write_spec

#: Custom properties 0.1 wrote on a terrain object (its recipe and layers; the spec holds them now).
V1_RECIPE_PROPERTY = "orogen_recipe"
V1_LAYERS_PROPERTY = "orogen_layers"
_V1_ONLY = set(V1_DEFAULTS) - {"size", "seed", "width", "height", "generator"} | {"layers_json"}
#: 0.1's keys that today's settings never store (``lighting`` and ``layers`` name groups of the spec now).
_V1_MARKERS = _V1_ONLY - {"lighting", "layers"}
_V1_LAYER_KINDS = ("COLOR", "IMAGE", "NOISE", "VORONOI")


def _raw(struct):
    """The stored (raw) ID properties of an ID or a property group, or ``None``.

    Blender 5.0 keeps properties defined by add-ons apart from custom properties
    (``bl_system_properties_get``); 4.2 and 4.5 keep them among them.
    """
    getter = getattr(struct, "bl_system_properties_get", None)
    return getter() if getter is not None else struct


def _stored(id_data, name: str = "orogen"):
    """The stored (raw) ``name`` property group of an ID (default ``orogen``), or ``None``."""
    store = _raw(id_data)
    if store is None:
        return None
    group = store.get(name)
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
    settings = {k: (bool(v) if isinstance(V1_DEFAULTS.get(k), bool) else v) for k, v in raw.items() if k in V1_DEFAULTS}
    layers = id_data.get(V1_LAYERS_PROPERTY) or _v1_layers(raw.get("layers"))
    return from_v1_settings(
        settings, recipe=id_data.get(V1_RECIPE_PROPERTY), layers=layers, terrain=id_data.get("orogen_terrain")
    )


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


# --- Orogen 0.2: version-2 values in today's property groups ----------------------------------------------------
#: The settings groups Orogen keeps on an ID: a terrain's and the panel's (``orogen``), a tile world's (on its
#: collection).
_GROUP_NAMES = ("orogen", "orogen_world")


def _holders(ids=None):
    """``(id_data, group name)`` of each local or library-overridden ID (of ``ids``, default every object, scene
    and collection of the open file) that stores Orogen settings. Linked data is left alone (read-only; it is
    read through the conversion, :func:`on_read`)."""
    if ids is None:
        ids = (*bpy.data.objects, *bpy.data.scenes, *bpy.data.collections)
    for id_data in ids:
        if getattr(id_data, "library", None) is not None:
            continue
        for name in _GROUP_NAMES:
            if hasattr(id_data, name) and _stored(id_data, name) is not None:
                yield id_data, name


def stored_version(id_data, name: str = "orogen") -> int | None:
    """The spec version of the settings an ID stores in its ``name`` group, or ``None`` when it stores none.

    A group today's add-on wrote is marked (``spec_version``); one written before the mark existed but in
    version 3 holds ``fit_height`` (a setting new in version 3 that every spec write stores; today's unmarked
    groups are marked on save); a group holding 0.1's keys is 0.1's (1); any other group storing settings is
    Orogen 0.2's (2).
    """
    group = _stored(id_data, name)
    if group is None or not group.keys():
        return None
    if group.get("spec_version"):
        return int(group["spec_version"])
    if _V1_MARKERS & set(group.keys()):
        return 1
    return 3 if "fit_height" in group else 2


def _v2_values(struct, params) -> dict:
    """The values of version-2 ``params`` stored in property group ``struct``, read as Orogen 0.2 read them
    (float32 settings as their shortest decimal); a value never stored is left out (its version-2 default)."""
    raw = _raw(struct)
    out = {}
    for p in params:
        if raw is None or p.name not in raw:
            continue
        value = raw[p.name]
        if p.kind == "bool":
            value = bool(value)
        elif p.kind in ("range", "color"):
            value = tuple(value)
        out[p.name] = read_value(p, value)
    return out


def _part_values(struct, key: str) -> dict:
    """Generator or filter ``key``'s values in its group, in version 2."""
    if key in V2_PARTS:
        return _v2_values(struct, V2_PARTS[key].params)
    return read_group(struct, (GENERATORS[key] if key in GENERATORS else FILTERS[key]).params)


def v2_settings(data) -> dict:
    """Settings group ``data`` (``obj.orogen``, ``scene.orogen``) as the version-2 spec Orogen 0.2 read from it
    (its JSON form: lengths in cells, ``box_blur.passes``, ``lowpass.k``)."""
    generator = data.generator
    filters = [
        {"type": item.type, "enabled": item.enabled, **_part_values(getattr(item, item.type), item.type)}
        for item in data.filters
    ]
    if not filters and not data.initialized:
        filters = TerrainSpec().to_dict()["filters"]  # the default stack (the same in version 2)
    out = {
        "version": 2,
        **read_group(data, [p for p in WORLD_PARAMS if p.name != "fit_height"]),
        "generator": generator,
        generator: _part_values(getattr(data, generator), generator),
        "filters": filters,
        "lighting": read_group(data.lighting, LIGHTING_PARAMS),
        "material": read_group(data.material, MATERIAL_PARAMS),
    }
    layers = [read_group(item, LAYER_PARAMS) for item in data.layers]
    if layers:
        out["layers"] = [{k: (list(v) if isinstance(v, tuple) else v) for k, v in lay.items()} for lay in layers]
    return out


def _number(value) -> str:
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_number(v) for v in value) + ")"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _changes(path: str, before: dict, after: dict) -> list[str]:
    """What converting one generator or filter changed: ``path.name old -> new`` (new values in metres)."""

    def plain(value):
        return tuple(value) if isinstance(value, list) else value

    out = []
    for name in (*before, *(k for k in after if k not in before)):
        if name in ("type", "enabled") or plain(before.get(name)) == plain(after.get(name)):
            continue
        if name not in after:
            out.append(f"{path}.{name} {_number(before[name])} dropped")
        elif name not in before:
            out.append(f"{path}.{name} = {_number(after[name])}")
        else:
            out.append(f"{path}.{name} {_number(before[name])} -> {_number(after[name])}")
    return out


def _summary(id_data, old: dict, new: dict, others: list[str]) -> str:
    """One line for the Info log: which settings converting ``id_data`` changed."""
    gen = old["generator"]
    full = {**V2_PARTS[gen].check(old[gen])} if gen in V2_PARTS else old[gen]
    changes = _changes(gen, full, new[gen]) if gen in V2_PARTS else []
    for i, (f, g) in enumerate(zip(old["filters"], new["filters"], strict=True)):
        if f["type"] in V2_PARTS:
            changes += _changes(
                f"filters[{i}].{f['type']}",
                V2_PARTS[f["type"]].check({k: v for k, v in f.items() if k not in ("type", "enabled")}),
                g,
            )
    changes.append("fit_height on")
    cell = TerrainSpec.from_dict(new).cell_size
    kind = type(id_data).__name__.lower()
    return (
        f"Orogen: {kind} {id_data.name!r}: Orogen 0.2 settings converted to spec version {SPEC_VERSION} "
        f"(lengths in metres, cell {cell:.4g} m): " + ", ".join(changes + others)
    )


def migrate_v2_settings(id_data, name: str = "orogen") -> str | None:
    """Convert an ID's version-2 (Orogen 0.2) settings in place; returns the Info log line, or ``None`` when it
    holds none. Settings no version-3 spec can hold are left as they are, marked version 2 (and reported)."""
    if stored_version(id_data, name) != 2 or id_data.library is not None:
        return None
    data = getattr(id_data, name)
    try:
        old = v2_settings(data)
        new = TerrainSpec.from_dict(old).to_dict()  # from_dict converts version 2 (core.versions.upgrade_spec)
        spec = TerrainSpec.from_dict(new)
    except (TypeError, ValueError) as err:
        with suspended():
            data.spec_version = 2
        return f"Orogen: {id_data.name!r} kept its Orogen 0.2 settings, which no spec can hold: {err!s:.200}"
    others = []
    with suspended():
        for key in V2_PARTS:  # the other generators' groups: values the user set, in cells too
            if key in GENERATORS and key != spec.generator:
                values = _v2_values(getattr(data, key), V2_PARTS[key].params)
                if values:
                    try:
                        converted = v2_params_to_v3(key, values, spec.cell_size)
                    except (TypeError, ValueError):
                        continue
                    write_group(getattr(data, key), GENERATORS[key].params, converted)
                    others.append(f"{key} (not in use) converted too")
        write_spec(data, spec)
        applied = getattr(data, "applied", "")
        if applied:
            data.applied = _applied(applied, spec, read_spec(data))
    return _summary(id_data, old, new, others)


def on_read(data) -> TerrainSpec | None:
    """:func:`.specio.read_spec`'s first look at a terrain's or a tile world's settings: still Orogen 0.2's (an ID
    no load or append handler converted: linked, library-overridden, made local, appended in Blender 4.2), they
    are converted in place when the ID can be written (once: the conversion marks them; the Info log says so) and
    ``None`` is returned, so the converted values are read; linked data, or data that cannot be written now (a
    panel drawing), is read through the conversion without writing it. ``None`` for every other group."""
    id_data = getattr(data, "id_data", None)
    name = next((n for n in _GROUP_NAMES if getattr(id_data, n, None) == data), None)
    if not isinstance(id_data, (bpy.types.Object, bpy.types.Collection)) or name is None:
        return None  # (a scene's panel may hold values set today but not yet marked: on_save_pre marks them)
    group = _stored(id_data, name)
    version = stored_version(id_data, name) if group is not None else None
    if version in (3, 4) and not versions3.busy():
        spec, lines = versions3.read_v3(id_data, name, version)  # Orogen 0.3's, by a route no handler saw
        report(lines)
        return spec
    if group is None or group.get("spec_version") or stored_version(id_data, name) != 2:
        return None
    if name == "orogen" and not group.get("is_terrain"):
        return None
    if id_data.library is None:
        try:
            report([line for line in (migrate_v2_settings(id_data, name),) if line])
            return None
        except (AttributeError, RuntimeError):  # writing is not allowed here (drawing): read it through
            pass
    return as_stored(TerrainSpec.from_dict(v2_settings(data)))


def _applied(applied: str, spec: TerrainSpec, now: TerrainSpec) -> str:
    """The applied spec of a converted terrain: the settings as now stored when the mesh was made from them (so
    editing a layer only rebuilds the material), else the applied version-2 spec converted."""
    try:
        before = TerrainSpec.from_dict(json.loads(applied))
    except (TypeError, ValueError):
        return applied
    return now.to_json() if before == spec else before.to_json()


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
            isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
        ):
            continue  # import bpy; settings = bpy.context.scene.orogen
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if not (
            isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "settings"
        ):
            raise ValueError(f"not a 0.1 preset: line {node.lineno} is not 'settings.NAME = VALUE'")
        try:
            settings[target.attr] = ast.literal_eval(node.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise ValueError(f"not a 0.1 preset: line {node.lineno} does not set a plain value") from None
    try:
        return from_v1_settings(settings)
    except (KeyError, TypeError, OverflowError) as err:  # a value of the wrong kind for a 0.1 setting
        raise ValueError(f"not a 0.1 preset: {err!s:.200}") from None


def rename_v3_settings(id_data, name: str = "orogen") -> str | None:
    """Give a version-3 group's filters the values a development build stored under renamed parameters
    (:data:`core.versions.V3_RENAMED`: the thermal filter's ``iterations`` are ``steps``); returns the Info log
    line, or ``None`` when there was nothing to rename."""
    if (stored_version(id_data, name) or 0) < 3 or id_data.library is not None:
        return None
    done = []
    for i, item in enumerate(getattr(getattr(id_data, name), "filters", ())):
        names = V3_RENAMED.get(item.type, {})
        group = getattr(item, item.type, None) if names else None
        raw = _raw(group) if group is not None else None
        for old, new in names.items():
            if raw is not None and old in raw:
                with suspended():
                    setattr(group, new, raw[old])
                del raw[old]
                done.append(f"filters[{i}].{item.type}.{old} is {new}")
    if not done:
        return None
    return f"Orogen: {type(id_data).__name__.lower()} {id_data.name!r}: " + ", ".join(done)


def migrate_all_v2(ids=None) -> list[str]:
    """Convert the Orogen 0.2 settings of ``ids`` (default: the open file's IDs), mark the others that hold
    version-3 values and rename what development builds stored under old names; returns the Info log lines."""
    holders = list(_holders(ids))
    lines = [line for id_data, name in holders if (line := migrate_v2_settings(id_data, name))]
    lines += [line for id_data, name in holders if (line := rename_v3_settings(id_data, name))]
    lines += [
        line for i, n in holders if (v := stored_version(i, n)) in (3, 4) and (line := versions3.migrate_v3(i, n, v))
    ]
    return lines


class OROGEN_OT_migration_report(bpy.types.Operator):
    """Put what opening or appending converted in the Info log"""

    bl_idname = "orogen.migration_report"
    bl_label = "Orogen Migration Report"
    bl_options = {"INTERNAL"}

    message: bpy.props.StringProperty(options={"SKIP_SAVE"})

    def execute(self, _context):
        for line in self.message.splitlines():
            self.report({"WARNING"} if "kept its" in line else {"INFO"}, line)
        return {"FINISHED"}


def report(lines: list[str]) -> None:
    """Report ``lines`` in the Info log (printed when no operator can run)."""
    if not lines:
        return
    try:
        bpy.ops.orogen.migration_report(message="\n".join(lines))
    except (RuntimeError, AttributeError):
        for line in lines:
            print(line)


@bpy.app.handlers.persistent
def on_load_post(*_args) -> None:
    names = migrate_all()
    if names:
        print(f"Orogen: migrated 0.1 settings of {', '.join(names)}")
    report(migrate_all_v2())


@bpy.app.handlers.persistent
def on_save_pre(*_args) -> None:
    """Mark the panel settings this session stored without writing a spec (a new scene's panel, edited): every
    group a file held was converted and marked on load, so an unmarked one is today's."""
    for id_data, name in _holders(bpy.data.scenes):
        if not _stored(id_data, name).get("spec_version"):
            with suspended():
                getattr(id_data, name).spec_version = SPEC_VERSION


@bpy.app.handlers.persistent
def on_blend_import_post(context, *_args) -> None:
    """Appended objects, scenes and collections (Blender 4.3+): convert 0.1 and 0.2 settings as on load."""
    ids = [item.id for item in context.import_items if item.id is not None]
    names = [
        id_data.name
        for id_data in ids
        if isinstance(id_data, (bpy.types.Object, bpy.types.Scene))
        and getattr(id_data, "library", None) is None
        and migrate(id_data)
    ]
    if names:
        print(f"Orogen: migrated 0.1 settings of {', '.join(names)}")
    report(migrate_all_v2(ids))


def register() -> None:
    bpy.utils.register_class(OROGEN_OT_migration_report)
    earlier_forms.append(on_read)
    bpy.app.handlers.save_pre.append(on_save_pre)
    if hasattr(bpy.app.handlers, "blend_import_post"):
        bpy.app.handlers.blend_import_post.append(on_blend_import_post)


def unregister() -> None:
    for handlers, handler in (
        (getattr(bpy.app.handlers, "blend_import_post", []), on_blend_import_post),
        (bpy.app.handlers.save_pre, on_save_pre),
    ):
        if handler in handlers:
            handlers.remove(handler)
    if on_read in earlier_forms:
        earlier_forms.remove(on_read)
    bpy.utils.unregister_class(OROGEN_OT_migration_report)
