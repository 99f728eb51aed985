"""Blender properties made from core's declarations at register time.

Nothing here lists a parameter: every property group is built from the
:class:`core.params.Param` declarations of the world, the registered
generators and filters, the lighting, the material and the colour layers.
A terrain's settings live in ``obj.orogen`` (and the panel's settings for
new terrains in ``scene.orogen``), laid out as its spec is::

    obj.orogen.size, .seed, .width, .height      world
    obj.orogen.generator                         which generator
    obj.orogen.hills.count                       each generator's parameters, in its own group
    obj.orogen.filters[i].type / .enabled / .box_blur.passes
    obj.orogen.filters[i].mask.source / .low / ...   each filter's mask (core.masks.MASK_PARAMS)
    obj.orogen.filters[i].erosion.erodibility_map    a filter's parameter maps (core.masks.ParamMap)
    obj.orogen.sources[i].type / .blend / .opacity / .crater.radius    the sources stack (core.sources)
    obj.orogen.sources[i].mask.source / .low / ...   each source's mask (the filters' group, MASK_PARAMS)
    obj.orogen.lighting.azimuth, obj.orogen.material.shading
    obj.orogen.layers[i].color

Angles are declared in degrees and held by Blender as radians (its angle
properties); :mod:`.specio` converts.
"""

import math

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from ..core.lighting import LIGHTING_PARAMS
from ..core.masks import MASK_PARAMS
from ..core.params import FILTERS, GENERATORS, condition_text
from ..core.sources import SOURCE_PARAMS, STAMPS
from ..core.spec import LAYER_PARAMS, MATERIAL_PARAMS, WORLD_PARAMS

INT32_MAX = 2**31 - 1
#: Blender's float subtype and unit for each declared unit.
_FLOAT_UNITS = {
    "m": {"subtype": "DISTANCE", "unit": "LENGTH"},
    "deg": {"subtype": "ANGLE", "unit": "ROTATION"},
    "factor": {"subtype": "FACTOR"},
    "px": {"subtype": "PIXEL"},
}


def _description(p, params=()) -> str:
    unit = {
        "cells": "heightmap cells",
        "normalised": "share of Height: 0 = Z 0, 1 = Z Height",
        "vertices": "",
        "m": "",
        "deg": "",
        "factor": "",
        "px": "",
    }.get(p.unit, p.unit)
    when = condition_text(p, params)
    return p.description + (f" ({unit})" if unit else "") + (f". {when}" if when else "")


def blender_property(p, update=None, params=()):
    """The ``bpy.props`` definition of one declared parameter (angles in radians); ``params`` are its siblings,
    the settings its description's "Acts only when ..." names (see :attr:`core.params.Param.active_when`)."""
    kw = {"name": p.label, "description": _description(p, params)}
    if update is not None:
        kw["update"] = update
    if p.kind == "bool":
        return BoolProperty(default=p.default, **kw)
    if p.kind == "enum":
        return EnumProperty(items=p.items, default=p.default, **kw)
    if p.kind == "path" and bpy.app.version >= (4, 5, 0):  # a file picked relative to the .blend file: "//name"
        kw["options"] = {"PATH_SUPPORTS_BLEND_RELATIVE"}  # (core resolves it, core.generators.sources.resolve_path)
    if p.kind in ("string", "path", "object"):  # an object by name (the panel draws a search of bpy.data.objects)
        return StringProperty(default=p.default, subtype="FILE_PATH" if p.kind == "path" else "NONE", **kw)
    if p.kind == "color":
        return FloatVectorProperty(size=3, subtype="COLOR", min=0.0, max=1.0, default=p.default, **kw)
    lo, hi = p.hard
    slo, shi = p.soft_bounds
    if p.kind == "int":
        return IntProperty(
            min=max(int(lo), -INT32_MAX),
            max=min(int(hi), INT32_MAX),
            soft_min=int(slo),
            soft_max=min(int(shi), INT32_MAX),
            default=p.default,
            **kw,
        )
    scale = math.radians(1.0) if p.unit == "deg" else 1.0
    bounds = {"min": lo * scale, "max": hi * scale, "soft_min": slo * scale, "soft_max": shi * scale}
    if p.kind == "range":
        return FloatVectorProperty(size=2, default=p.default, precision=3, **bounds, **kw)
    return FloatProperty(default=p.default * scale, precision=3, **_FLOAT_UNITS.get(p.unit, {}), **bounds, **kw)


def group_class(name: str, params, update=None, extra=None) -> type:
    """A new ``PropertyGroup`` subclass holding ``params`` (and ``extra`` annotations)."""
    annotations = {p.name: blender_property(p, update, params) for p in params}
    annotations.update(extra or {})
    return type(name, (bpy.types.PropertyGroup,), {"__annotations__": annotations, "__doc__": f"Orogen: {name}"})


class Groups:
    """The property-group classes of one registration (made by :func:`register`, dropped by :func:`unregister`)."""

    generators: dict = {}
    filters: dict = {}
    maps: dict = {}
    filter_item = None
    mask = None
    stamps: dict = {}
    source_item = None
    lighting = None
    material = None
    layer = None
    terrain = None
    classes: list = []


def _enum_items(registry):
    return tuple((key, item.label, item.description) for key, item in registry.items())


def wide_name(name: str) -> str:
    """The hidden text property that holds an integer setting too large for Blender's 32-bit integers."""
    return f"{name}_wide"


def spec_annotations(update=None) -> dict:
    """Annotations of every spec setting: the terrain group's and the add operator's."""
    out = {p.name: blender_property(p, update) for p in WORLD_PARAMS}
    for p in WORLD_PARAMS:  # a seed above 2^31 - 1 (any 64-bit seed is a spec's): kept whole beside the integer
        if p.kind == "int" and p.hard[1] > INT32_MAX:
            out[wide_name(p.name)] = StringProperty(
                name=f"{p.label} (whole)",
                default="",
                options={"HIDDEN"},
                description=f"The whole {p.label} when it is above {INT32_MAX}; the {p.label} shown is its low 31 bits",
            )
    out["generator"] = EnumProperty(
        name="Generator",
        description="Algorithm that makes the heightmap",
        items=_enum_items(GENERATORS),
        default=next(iter(GENERATORS)),
        **({"update": update} if update else {}),
    )
    for key, cls in Groups.generators.items():
        out[key] = PointerProperty(type=cls, name=GENERATORS[key].label)
    out["filters"] = CollectionProperty(
        type=Groups.filter_item, name="Filters", description="The filter stack, run in order after the generator"
    )
    out["active_filter"] = IntProperty(name="Active Filter", min=0, default=0, options={"HIDDEN", "SKIP_SAVE"})
    out["sources"] = CollectionProperty(
        type=Groups.source_item,
        name="Sources",
        description="Generators and stamps blended on the generator, in order, before the filters",
    )
    out["active_source"] = IntProperty(name="Active Source", min=0, default=0, options={"HIDDEN", "SKIP_SAVE"})
    out["lighting"] = PointerProperty(type=Groups.lighting, name="Lighting")
    out["material"] = PointerProperty(type=Groups.material, name="Material")
    out["layers"] = CollectionProperty(type=Groups.layer, name="Layers", description="Colour layers of the material")
    out["active_layer"] = IntProperty(name="Active Layer", min=0, default=0, options={"HIDDEN", "SKIP_SAVE"})
    return out


def _terrain_extras(update) -> dict:
    """Settings of a terrain object beyond its spec (how it is edited, not what it is)."""
    return {
        "is_terrain": BoolProperty(
            name="Is Terrain", description="This object is an Orogen terrain", default=False, options={"HIDDEN"}
        ),
        "live_update": BoolProperty(
            name="Live Update",
            default=True,
            description="Regenerate as settings change (a preview while dragging, full size when the change "
            "settles); turn off for heavy terrains and use Regenerate",
        ),
        "preview_size": IntProperty(
            name="Preview Size",
            min=17,
            max=1025,
            default=257,
            description="Vertices per side while settings change during live updates",
        ),
        "status": StringProperty(
            name="Status", description="What the last regeneration did", default="", options={"HIDDEN", "SKIP_SAVE"}
        ),
        "applied": StringProperty(
            name="Applied Spec",
            default="",
            options={"HIDDEN"},
            description="The spec the mesh was last made from, to tell what an edit changed",
        ),
        "initialized": BoolProperty(
            name="Initialized",
            default=False,
            options={"HIDDEN"},
            description="A spec was written here (else the default stack and layers apply)",
        ),
        "preview_pending": BoolProperty(
            name="Preview Pending",
            default=False,
            options={"HIDDEN"},
            description="The mesh is a live-update preview awaiting its full size",
        ),
        "spec_version": IntProperty(
            name="Spec Version",
            default=0,
            min=0,
            options={"HIDDEN"},
            description="Spec version of the values stored here (0: not marked, as Orogen "
            "0.2 wrote them; see addon.migrate)",
        ),
    }


def source_types():
    """The ``type`` items of a source: the stamps, then the generators (core's :func:`core.sources.source_part`)."""
    return (*_enum_items(STAMPS), *_enum_items(GENERATORS))


def _source_extra(update) -> dict:
    """A source item's annotations beyond its declared entry settings: its type, its expansion in the panel, its
    mask (the filters' mask group, :data:`core.masks.MASK_PARAMS`) and one group per generator and stamp (the
    generators' groups are the Generator panel's classes)."""
    return {
        "type": EnumProperty(
            name="Type",
            items=source_types(),
            description="What the source is: a stamp or a generator",
            **({"update": update} if update else {}),
        ),
        "show_expanded": BoolProperty(name="Expanded", default=True, options={"HIDDEN", "SKIP_SAVE"}),
        "show_mask": BoolProperty(name="Mask", default=False, options={"HIDDEN", "SKIP_SAVE"}),
        "mask": PointerProperty(type=Groups.mask, name="Mask", description="Where the source acts (core.masks)"),
        **{key: PointerProperty(type=cls) for key, cls in {**Groups.stamps, **Groups.generators}.items()},
    }


def register(update=None) -> None:
    """Make and register every group from core's declarations; ``update`` is the live-update callback."""
    g = Groups
    g.generators = {key: group_class(f"OROGEN_PG_gen_{key}", gen.params, update) for key, gen in GENERATORS.items()}
    shown = {"show_expanded": BoolProperty(name="Expanded", default=False, options={"HIDDEN", "SKIP_SAVE"})}
    g.maps = {  # each filter's parameter maps (core.masks.ParamMap): a mask and the two values it maps to
        (key, pm.key): group_class(f"OROGEN_PG_map_{key}_{pm.name}", pm.params, update, extra=shown)
        for key, f in FILTERS.items()
        for pm in f.param_maps
    }
    g.filters = {
        key: group_class(
            f"OROGEN_PG_filter_{key}",
            f.params,
            update,
            extra={pm.key: PointerProperty(type=g.maps[(key, pm.key)], name=pm.label) for pm in f.param_maps},
        )
        for key, f in FILTERS.items()
    }
    g.mask = group_class("OROGEN_PG_mask", MASK_PARAMS, update)
    item_extra = {
        "type": EnumProperty(
            name="Type",
            items=_enum_items(FILTERS),
            description="What the filter does",
            **({"update": update} if update else {}),
        ),
        "enabled": BoolProperty(
            name="Enabled",
            default=True,
            description="Run this filter (hidden filters are kept)",
            **({"update": update} if update else {}),
        ),
        "show_expanded": BoolProperty(name="Expanded", default=True, options={"HIDDEN", "SKIP_SAVE"}),
        "show_mask": BoolProperty(name="Mask", default=False, options={"HIDDEN", "SKIP_SAVE"}),
        "mask": PointerProperty(type=g.mask, name="Mask", description="Where the filter acts (core.masks)"),
        **{key: PointerProperty(type=cls) for key, cls in g.filters.items()},
    }
    g.filter_item = group_class("OROGEN_PG_filter", (), extra=item_extra)
    g.stamps = {key: group_class(f"OROGEN_PG_stamp_{key}", st.params, update) for key, st in STAMPS.items()}
    g.source_item = group_class("OROGEN_PG_source", SOURCE_PARAMS, update, extra=_source_extra(update))
    g.lighting = group_class("OROGEN_PG_lighting", LIGHTING_PARAMS, update)
    g.material = group_class("OROGEN_PG_material", MATERIAL_PARAMS, update)
    g.layer = group_class("OROGEN_PG_layer", LAYER_PARAMS, update)
    g.terrain = group_class("OROGEN_PG_terrain", (), extra={**spec_annotations(update), **_terrain_extras(update)})
    g.classes = [
        *g.generators.values(),
        *g.maps.values(),
        *g.filters.values(),
        g.mask,
        g.filter_item,
        *g.stamps.values(),
        g.source_item,
        g.lighting,
        g.material,
        g.layer,
        g.terrain,
    ]
    for cls in g.classes:
        bpy.utils.register_class(cls)
    bpy.types.Scene.orogen = PointerProperty(type=g.terrain, name="Orogen Terrain")
    bpy.types.Object.orogen = PointerProperty(type=g.terrain, name="Orogen Terrain")


def unregister() -> None:
    del bpy.types.Object.orogen
    del bpy.types.Scene.orogen
    for cls in reversed(Groups.classes):
        bpy.utils.unregister_class(cls)
    Groups.classes = []
    Groups.generators, Groups.filters, Groups.maps, Groups.mask, Groups.stamps = {}, {}, {}, None, {}


def nonfinite_error(data) -> str | None:
    """Message naming the first float property of ``data`` that holds NaN or Inf, or ``None``.

    Blender's float properties accept NaN from Python; nothing non-finite may reach a mesh. (Spec settings
    need no such check: core refuses a non-finite value by its path when the spec is read.)
    """
    props = (data.properties if isinstance(data, bpy.types.Operator) else data).bl_rna.properties
    for prop in props:
        if prop.type == "FLOAT":
            value = getattr(data, prop.identifier)
            values = list(value) if prop.is_array else [value]
            if not all(math.isfinite(v) for v in values):
                return f"{prop.name} must be a finite number, got {tuple(values) if prop.is_array else value}"
    return None
