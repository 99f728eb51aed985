"""The filter stack, the sources stack and the colour layers as lists, like Blender's modifier stack.

Their operators act on the settings the Terrain panel shows: the active
terrain's own (``obj.orogen``, and then it regenerates live) or the panel's
settings for new terrains (``scene.orogen``).
"""

import bpy

from ...core.colormap import MAX_LAYERS, Layer
from ...core.params import FILTERS, GENERATORS
from ...core.recipe import MAX_FILTERS
from ...core.sources import MAX_SOURCES, STAMPS, Source
from ...core.spec import Step, TerrainSpec
from ..live import changed
from ..poll import active_terrain, mode_reason, poll_with
from ..properties import source_types
from ..specio import (
    read_sources,
    read_spec,
    read_step,
    write_filter,
    write_layer,
    write_layers,
    write_source,
    write_spec,
)

_MIN_LAYERS = 2


def shown(context):
    """``(owner, settings)``: the selected active terrain and its settings, or the scene and the panel's settings."""
    obj = active_terrain(context)
    if obj is not None:
        return obj, obj.orogen
    scene = getattr(context, "scene", None)
    return scene, (scene.orogen if scene is not None else None)


def target(context):
    """:func:`shown`, with a new scene's default stack and layers made real first (in ``execute`` only)."""
    owner, settings = shown(context)
    if settings is not None and not getattr(settings, "initialized", True):
        write_spec(settings, read_spec(settings))
    return owner, settings


def _poll(cls, context, check=None) -> bool:
    _owner, settings = shown(context)  # a poll may not write
    reason = mode_reason(context) if settings is None or context.mode != "OBJECT" else None
    return poll_with(cls, reason or (check(settings) if check is not None else None))


def _room(settings) -> str | None:
    return f"A stack holds at most {MAX_FILTERS} filters" if len(settings.filters) >= MAX_FILTERS else None


def _active_filter(settings) -> str | None:
    return None if 0 <= settings.active_filter < len(settings.filters) else "The filter stack is empty"


def _remove_active(settings, items: str, active: str) -> None:
    """Remove the active item of collection ``items`` (its index in ``active``), keeping the index in range."""
    collection = getattr(settings, items)
    collection.remove(getattr(settings, active))
    setattr(settings, active, max(0, min(getattr(settings, active), len(collection) - 1)))


def _move_active(op, settings, items: str, active: str, what: str) -> bool:
    """Move the active item of ``items`` one place in ``op.direction``; ``False`` (reported) at the end."""
    collection = getattr(settings, items)
    i = getattr(settings, active)
    j = i - 1 if op.direction == "UP" else i + 1
    if not 0 <= j < len(collection):
        op.report({"WARNING"}, f"The {what} is already at the {'top' if j < 0 else 'bottom'} of the stack")
        return False
    collection.move(i, j)
    setattr(settings, active, j)
    return True


def _place_below_active(settings, items: str, active: str) -> None:
    """Move the last item of ``items`` (just added) below the active one, and make it active."""
    collection = getattr(settings, items)
    i = getattr(settings, active)
    collection.move(len(collection) - 1, i + 1)
    setattr(settings, active, i + 1)


_DIRECTIONS = (("UP", "Up", "Run earlier"), ("DOWN", "Down", "Run later"))


def _fitted(settings, key: str) -> Step:
    """Filter ``key`` with the values that fit the terrain's scale (:meth:`core.spec.TerrainSpec.fitted_filter`);
    the declared defaults when the settings do not make a valid terrain (the panel reports why elsewhere)."""
    try:
        return read_spec(settings).fitted_filter(key)
    except (TypeError, ValueError):
        return Step(key)


class OROGEN_OT_filter_add(bpy.types.Operator):
    """Add a filter at the end of the stack, its settings fitted to the terrain's scale"""

    bl_idname = "orogen.filter_add"
    bl_label = "Add Filter"
    bl_options = {"REGISTER", "UNDO"}
    bl_property = "type"

    type: bpy.props.EnumProperty(
        name="Type",
        description="Filter to add",
        items=lambda _s, _c: [(k, f.label, f.description) for k, f in FILTERS.items()],
    )

    @classmethod
    def poll(cls, context):
        return _poll(cls, context, _room)

    def execute(self, context):
        owner, settings = target(context)
        write_filter(settings.filters.add(), _fitted(settings, self.type))
        settings.active_filter = len(settings.filters) - 1
        changed(owner, context)
        return {"FINISHED"}


class OROGEN_OT_filter_remove(bpy.types.Operator):
    """Remove the active filter from the stack"""

    bl_idname = "orogen.filter_remove"
    bl_label = "Remove Filter"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return _poll(cls, context, _active_filter)

    def execute(self, context):
        owner, settings = target(context)
        _remove_active(settings, "filters", "active_filter")
        changed(owner, context)
        return {"FINISHED"}


class OROGEN_OT_filter_move(bpy.types.Operator):
    """Move the active filter up or down the stack (filters run from top to bottom)"""

    bl_idname = "orogen.filter_move"
    bl_label = "Move Filter"
    bl_options = {"REGISTER", "UNDO"}

    direction: bpy.props.EnumProperty(name="Direction", items=_DIRECTIONS)

    @classmethod
    def poll(cls, context):
        return _poll(cls, context, _active_filter)

    def execute(self, context):
        owner, settings = target(context)
        if not _move_active(self, settings, "filters", "active_filter", "filter"):
            return {"CANCELLED"}
        changed(owner, context)
        return {"FINISHED"}


class OROGEN_OT_filter_duplicate(bpy.types.Operator):
    """Duplicate the active filter below it"""

    bl_idname = "orogen.filter_duplicate"
    bl_label = "Duplicate Filter"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return _poll(cls, context, lambda s: _active_filter(s) or _room(s))

    def execute(self, context):
        owner, settings = target(context)
        i = settings.active_filter
        item = settings.filters[i]
        step = read_step(item)
        write_filter(settings.filters.add(), step)
        _place_below_active(settings, "filters", "active_filter")
        changed(owner, context)
        return {"FINISHED"}


class OROGEN_UL_filters(bpy.types.UIList):
    """The filter stack: type, label and a show/hide toggle."""

    def draw_item(self, _context, layout, _data, item, _icon, _active_data, _active_propname, index):
        f = FILTERS.get(item.type)
        row = layout.row(align=True)
        row.label(text=f"{index + 1}. {f.label if f else item.type}")
        row.prop(item, "enabled", text="", emboss=False, icon="HIDE_OFF" if item.enabled else "HIDE_ON")


def _source_room(settings) -> str | None:
    return f"A terrain has at most {MAX_SOURCES} sources" if len(settings.sources) >= MAX_SOURCES else None


def _active_source(settings) -> str | None:
    return None if 0 <= settings.active_source < len(settings.sources) else "The sources stack is empty"


class OROGEN_OT_source_add(bpy.types.Operator):
    """Add a source (a stamp or a generator) at the end of the sources stack"""

    bl_idname = "orogen.source_add"
    bl_label = "Add Source"
    bl_options = {"REGISTER", "UNDO"}
    bl_property = "type"

    type: bpy.props.EnumProperty(name="Type", description="Source to add", items=lambda _s, _c: source_types())

    @classmethod
    def poll(cls, context):
        return _poll(cls, context, _source_room)

    def execute(self, context):
        owner, settings = target(context)
        write_source(settings.sources.add(), Source(self.type))
        settings.active_source = len(settings.sources) - 1
        changed(owner, context)
        return {"FINISHED"}


class OROGEN_OT_source_remove(bpy.types.Operator):
    """Remove the active source from the sources stack"""

    bl_idname = "orogen.source_remove"
    bl_label = "Remove Source"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return _poll(cls, context, _active_source)

    def execute(self, context):
        owner, settings = target(context)
        _remove_active(settings, "sources", "active_source")
        changed(owner, context)
        return {"FINISHED"}


class OROGEN_OT_source_move(bpy.types.Operator):
    """Move the active source up or down the stack (sources are blended from top to bottom)"""

    bl_idname = "orogen.source_move"
    bl_label = "Move Source"
    bl_options = {"REGISTER", "UNDO"}

    direction: bpy.props.EnumProperty(name="Direction", items=_DIRECTIONS)

    @classmethod
    def poll(cls, context):
        return _poll(cls, context, _active_source)

    def execute(self, context):
        owner, settings = target(context)
        if not _move_active(self, settings, "sources", "active_source", "source"):
            return {"CANCELLED"}
        changed(owner, context)
        return {"FINISHED"}


class OROGEN_OT_source_duplicate(bpy.types.Operator):
    """Duplicate the active source below it"""

    bl_idname = "orogen.source_duplicate"
    bl_label = "Duplicate Source"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return _poll(cls, context, lambda s: _active_source(s) or _source_room(s))

    def execute(self, context):
        owner, settings = target(context)
        try:
            source = read_sources(settings)[settings.active_source]
        except (TypeError, ValueError) as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        write_source(settings.sources.add(), source)
        _place_below_active(settings, "sources", "active_source")
        changed(owner, context)
        return {"FINISHED"}


class OROGEN_UL_sources(bpy.types.UIList):
    """The sources stack: type, blend and opacity, and a show/hide toggle."""

    def draw_item(self, _context, layout, _data, item, _icon, _active_data, _active_propname, index):
        part = STAMPS.get(item.type) or GENERATORS.get(item.type)
        row = layout.row(align=True)
        row.label(text=f"{index + 1}. {part.label if part else item.type}")
        row.label(text=f"{item.blend} {item.opacity:.2f}")
        row.prop(item, "enabled", text="", emboss=False, icon="HIDE_OFF" if item.enabled else "HIDE_ON")


class OROGEN_UL_layers(bpy.types.UIList):
    def draw_item(self, _context, layout, _data, item, _icon, _active_data, _active_propname, _index):
        row = layout.row(align=True)
        row.prop(item, "color", text="")
        row.prop(item, "name", text="", emboss=False)
        row.label(text=f"{item.minimum:.2f} / {item.optimal:.2f} / {item.maximum:.2f}")


class OROGEN_OT_layer_add(bpy.types.Operator):
    """Add a colour layer (at most 8)"""

    bl_idname = "orogen.layer_add"
    bl_label = "Add Layer"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return _poll(
            cls,
            context,
            lambda s: f"A terrain has at most {MAX_LAYERS} colour layers" if len(s.layers) >= MAX_LAYERS else None,
        )

    def execute(self, context):
        owner, settings = target(context)
        write_layer(settings.layers.add(), Layer(f"Layer {len(settings.layers)}", (0.5, 0.5, 0.5), 0.0, 0.5, 1.0))
        settings.active_layer = len(settings.layers) - 1
        changed(owner, context)
        return {"FINISHED"}


class OROGEN_OT_layer_remove(bpy.types.Operator):
    """Remove the active colour layer (at least 2 stay)"""

    bl_idname = "orogen.layer_remove"
    bl_label = "Remove Layer"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return _poll(
            cls,
            context,
            lambda s: f"A terrain keeps at least {_MIN_LAYERS} colour layers" if len(s.layers) <= _MIN_LAYERS else None,
        )

    def execute(self, context):
        owner, settings = target(context)
        settings.layers.remove(min(settings.active_layer, len(settings.layers) - 1))
        settings.active_layer = max(0, min(settings.active_layer, len(settings.layers) - 1))
        changed(owner, context)
        return {"FINISHED"}


class OROGEN_OT_layers_reset(bpy.types.Operator):
    """Replace the colour layers by the defaults (grass, rock, snow)"""

    bl_idname = "orogen.layers_reset"
    bl_label = "Default Layers"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return _poll(cls, context)

    def execute(self, context):
        owner, settings = target(context)
        write_layers(settings, TerrainSpec().layers)
        changed(owner, context)
        return {"FINISHED"}


classes = (
    OROGEN_OT_filter_add,
    OROGEN_OT_filter_remove,
    OROGEN_OT_filter_move,
    OROGEN_OT_filter_duplicate,
    OROGEN_UL_filters,
    OROGEN_OT_source_add,
    OROGEN_OT_source_remove,
    OROGEN_OT_source_move,
    OROGEN_OT_source_duplicate,
    OROGEN_UL_sources,
    OROGEN_UL_layers,
    OROGEN_OT_layer_add,
    OROGEN_OT_layer_remove,
    OROGEN_OT_layers_reset,
)

register, unregister = bpy.utils.register_classes_factory(classes)
