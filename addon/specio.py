"""Between Blender properties and a :class:`core.spec.TerrainSpec`: read one from the other, write it back.

``data`` is anything holding the spec annotations of :mod:`.properties`:
a terrain object's ``obj.orogen``, the panel's ``scene.orogen``, or the add
operator itself. Float settings are read as the shortest decimal of their
float32 value (0.6, not 0.6000000238418579), so a spec written by hand with
the panel's numbers gives the same terrain; angles are converted between
Blender's radians and the spec's degrees (rounded to 1e-4 degree).
"""

import math
import warnings

import bpy
import numpy as np

from ..core.colormap import DEFAULT_LAYERS, Layer
from ..core.lighting import LIGHTING_PARAMS
from ..core.masks import MASK_PARAMS
from ..core.params import FILTERS, GENERATORS
from ..core.sources import SOURCE_PARAMS, Source, source_part
from ..core.spec import (
    LAYER_PARAMS,
    MATERIAL_PARAMS,
    SPEC_VERSION,
    WORLD_PARAMS,
    InactiveSettingWarning,
    Step,
    TerrainSpec,
    apply_settings,
)
from .properties import INT32_MAX, wide_name


def _typed(value: float) -> float:
    return float(str(np.float32(value)))


def _read_int(group, p) -> int:
    """An integer setting, whole: a value above Blender's 32-bit range lives in its hidden ``_wide`` text
    while the integer shown holds its low 31 bits; editing the shown integer makes it the value again."""
    shown = getattr(group, p.name)
    wide = getattr(group, wide_name(p.name), "")
    if wide and wide.isdigit() and int(wide) % (INT32_MAX + 1) == shown:
        return int(wide)
    return shown


def _write_int(group, p, value: int) -> None:
    if not hasattr(group, wide_name(p.name)):
        setattr(group, p.name, value)
        return
    setattr(group, wide_name(p.name), str(value) if value > INT32_MAX else "")
    setattr(group, p.name, value % (INT32_MAX + 1))


def read_value(p, value):
    """A property's value as the spec holds it."""
    if p.kind == "float":
        return round(math.degrees(value), 4) if p.unit == "deg" else _typed(value)
    if p.kind in ("range", "color"):
        return tuple(_typed(v) for v in value)
    return value


def _blender_value(p, value):
    return math.radians(value) if p.kind == "float" and p.unit == "deg" else value


def read_group(group, params) -> dict:
    """``{name: value}`` of ``params`` held by a property group."""
    return {p.name: _read_int(group, p) if p.kind == "int" else read_value(p, getattr(group, p.name)) for p in params}


def write_group(group, params, values) -> None:
    """Set a property group's ``params`` from ``values`` (missing names are left as they are)."""
    for p in params:
        if p.name in values and p.kind == "int":
            _write_int(group, p, values[p.name])
        elif p.name in values:
            setattr(group, p.name, _blender_value(p, values[p.name]))


#: Readers of settings stored in an earlier form, each ``(data) -> TerrainSpec | None`` (``None``: not that form),
#: asked first by :func:`read_spec`; :mod:`.versions` registers its own (it imports this module, not the reverse).
earlier_forms: list = []


def read_spec(data) -> TerrainSpec:
    """The spec ``data`` describes. Raises ``ValueError``/``TypeError`` naming a bad setting by its path.

    Settings still in an earlier form (Orogen 0.2's, reached by a route no load handler sees: linked, library
    overridden, made local, appended in Blender 4.2) are converted first (:data:`earlier_forms`)."""
    for read in earlier_forms:
        spec = read(data)
        if spec is not None:
            return spec
    generator = data.generator
    steps = tuple(read_step(item) for item in data.filters)
    if not steps and not getattr(data, "initialized", True):
        steps = TerrainSpec().filters  # settings no spec was written to (a new scene's panel): the default stack
    # Settings that never had layers (a new scene's panel) have the default ones.
    layers = tuple(Layer(**read_group(item, LAYER_PARAMS)) for item in data.layers) or DEFAULT_LAYERS
    return TerrainSpec(
        **read_group(data, WORLD_PARAMS),
        generator=generator,
        params=read_group(getattr(data, generator), GENERATORS[generator].params),
        filters=steps,
        lighting=read_group(data.lighting, LIGHTING_PARAMS),
        material=read_group(data.material, MATERIAL_PARAMS),
        layers=layers,
        sources=read_sources(data),
    )


def read_step(item) -> Step:
    """The filter-stack ``item`` as a :class:`core.spec.Step`: its type, settings, switch and mask."""
    mask = getattr(item, "mask", None)  # an operator's stack from before masks: none
    group = getattr(item, item.type)
    return Step(
        item.type,
        read_group(group, FILTERS[item.type].params),
        item.enabled,
        read_group(mask, MASK_PARAMS) if mask is not None else {},
        {pm.key: read_group(getattr(group, pm.key), pm.params) for pm in FILTERS[item.type].param_maps},
    )


def read_sources(data) -> tuple:
    """The sources stack ``data`` holds (:class:`core.sources.Source` each, with its mask; errors name
    ``sources[i]``).

    A file path (the image stamp's) relative to the .blend file (``//stamp.npy``, what Blender's file browser
    writes) is made absolute, as core reads it outside Blender."""
    out = []
    for i, item in enumerate(getattr(data, "sources", ())):
        part = source_part(item.type, f"sources[{i}].")
        params = read_group(getattr(item, item.type), part.params)
        params.update({p.name: image_path(params[p.name]) for p in part.params if p.kind == "path"})
        values = {**read_group(item, SOURCE_PARAMS), **params}
        mask = getattr(item, "mask", None)  # an item from before source masks: none
        if mask is not None:
            values["mask"] = read_group(mask, MASK_PARAMS)
        out.append(Source.from_values(item.type, values, f"sources[{i}]."))
    return tuple(out)


def _as_property(p, value):
    """``value`` of ``p`` as reading it back from its Blender property gives it (floats held as float32)."""
    if p.kind == "float":
        return read_value(p, float(np.float32(_blender_value(p, value))))
    if p.kind in ("range", "color"):
        return read_value(p, tuple(float(np.float32(v)) for v in value))
    return value


def as_stored(spec: TerrainSpec) -> TerrainSpec:
    """``spec`` as :func:`read_spec` reads it back once :func:`write_spec` wrote it (floats through float32): what
    a spec read without writing it (linked data) must equal."""

    def held(params, values):
        return {**values, **{p.name: _as_property(p, values[p.name]) for p in params if p.name in values}}

    return TerrainSpec(
        **held(WORLD_PARAMS, {p.name: getattr(spec, p.name) for p in WORLD_PARAMS}),
        generator=spec.generator,
        params=held(GENERATORS[spec.generator].params, spec.params),
        filters=tuple(
            Step(
                s.key,
                held(FILTERS[s.key].params, s.params),
                s.enabled,
                held(MASK_PARAMS, s.mask),
                {pm.key: held(pm.params, s.maps[pm.key]) for pm in FILTERS[s.key].param_maps},
            )
            for s in spec.filters
        ),
        lighting=held(LIGHTING_PARAMS, spec.lighting),
        material=held(MATERIAL_PARAMS, spec.material),
        layers=tuple(
            Layer(**held(LAYER_PARAMS, {f: getattr(lay, f) for f in lay.__dataclass_fields__})) for lay in spec.layers
        ),
        sources=tuple(
            Source(
                src.key,
                held(source_part(src.key).params, src.params),
                held(SOURCE_PARAMS, src.settings),
                held(MASK_PARAMS, src.mask),
            )
            for src in spec.sources
        ),
    )


def write_spec(data, spec: TerrainSpec) -> None:
    """Make ``data`` describe ``spec`` (every spec setting is written; the other generators' groups stay).

    A terrain's or the panel's settings are marked with the spec version their values are in
    (``spec_version``; Orogen 0.2 marked none, :mod:`.migrate` converts such settings on load).
    """
    if hasattr(data, "initialized"):
        data.initialized = True
    if hasattr(data, "spec_version"):
        data.spec_version = SPEC_VERSION
    write_group(data, WORLD_PARAMS, {p.name: getattr(spec, p.name) for p in WORLD_PARAMS})
    data.generator = spec.generator
    write_group(getattr(data, spec.generator), GENERATORS[spec.generator].params, spec.params)
    write_filters(data, spec.filters)
    write_group(data.lighting, LIGHTING_PARAMS, spec.lighting)
    write_group(data.material, MATERIAL_PARAMS, spec.material)
    write_layers(data, spec.layers)
    if hasattr(data, "sources"):
        write_sources(data, spec.sources)


def write_source(item, source: Source) -> None:
    """Make sources-stack ``item`` hold ``source``."""
    item.type = source.key
    write_group(item, SOURCE_PARAMS, source.settings)
    write_group(getattr(item, source.key), source_part(source.key).params, source.params)
    if hasattr(item, "mask"):
        write_group(item.mask, MASK_PARAMS, source.mask)


def write_sources(data, sources) -> None:
    """Replace ``data``'s sources stack by ``sources`` (rewritten in place when the types are the same, as
    :func:`write_filters` does)."""
    if [item.type for item in data.sources] == [src.key for src in sources]:
        for item, src in zip(data.sources, sources, strict=True):
            write_source(item, src)
        return
    data.sources.clear()
    for src in sources:
        write_source(data.sources.add(), src)
    data.active_source = max(0, min(data.active_source, len(sources) - 1))


def write_filter(item, step: Step) -> None:
    """Make filter-stack ``item`` hold ``step``."""
    item.type = step.key
    item.enabled = step.enabled
    group = getattr(item, step.key)
    write_group(group, FILTERS[step.key].params, step.params)
    write_group(item.mask, MASK_PARAMS, step.mask)
    for pm in FILTERS[step.key].param_maps:
        write_group(getattr(group, pm.key), pm.params, step.maps[pm.key])


def write_filters(data, steps) -> None:
    """Replace ``data``'s filter stack by ``steps`` (its items rewritten in place when their types are the same:
    a library override's stack can be written, not rebuilt)."""
    if [item.type for item in data.filters] == [step.key for step in steps]:
        for item, step in zip(data.filters, steps, strict=True):
            write_filter(item, step)
        return
    data.filters.clear()
    for step in steps:
        write_filter(data.filters.add(), step)
    data.active_filter = max(0, min(data.active_filter, len(steps) - 1))


def write_layer(item, layer: Layer) -> None:
    """Make layer-list ``item`` hold ``layer``."""
    write_group(item, LAYER_PARAMS, {f: getattr(layer, f) for f in layer.__dataclass_fields__})


def write_layers(data, layers) -> None:
    """Replace ``data``'s colour layers by ``layers`` (rewritten in place when as many: see :func:`write_filters`)."""
    if len(data.layers) == len(layers):
        for item, layer in zip(data.layers, layers, strict=True):
            write_layer(item, layer)
        return
    data.layers.clear()
    for layer in layers:
        write_layer(data.layers.add(), layer)
    data.active_layer = max(0, min(data.active_layer, len(layers) - 1))


def image_path(path: str) -> str:
    """A layer's image path made absolute the way Blender resolves ``//`` paths."""
    return bpy.path.abspath(path) if path else ""


def take_operator_spec(op) -> TerrainSpec:
    """The spec an adding operator (Add Terrain, Add Terrain Tiles) builds: its ``spec`` JSON when given (then
    loaded into the settings the redo panel shows), and its ``set`` assignments applied.

    A new call without one starts from the default filter stack and colour layers where none were given.
    A ``set`` assignment without effect under the resulting spec is reported as a warning.
    Raises ``ValueError``/``TypeError`` for a spec or assignment core refuses.
    """
    if op.spec:
        write_spec(op, TerrainSpec.from_json(op.spec))
        op.spec = ""
    elif not op.defaults_filled:
        default = TerrainSpec()
        if not op.filters:
            write_filters(op, default.filters)
        if not op.layers:
            write_layers(op, default.layers)
    op.defaults_filled = True
    if op.set.strip():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", InactiveSettingWarning)
            spec = apply_settings(read_spec(op), [a for a in op.set.split(";") if a.strip()])
        for w in caught:  # a setting without effect: reported, the terrain is still added
            if issubclass(w.category, InactiveSettingWarning):
                op.report({"WARNING"}, f"Note: {w.message}")
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        write_spec(op, spec)
        op.set = ""
    return read_spec(op)
