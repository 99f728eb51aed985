"""Colour layers in the UI: the list in the Terrain panel, and conversion to ``core`` layers and JSON."""

import json
from dataclasses import asdict, fields

import bpy

from ..core.colormap import DEFAULT_LAYERS, MAX_LAYERS, Layer

_FIELDS = tuple(f.name for f in fields(Layer))


def layer_from_item(item) -> Layer:
    """A ``core`` Layer from an ``OROGEN_PG_layer``."""
    return Layer(
        name=item.name or "Layer", color=tuple(item.color), minimum=item.minimum, optimal=item.optimal,
        maximum=item.maximum, slope_min=item.slope_min, slope_max=item.slope_max,
        slope_softness=item.slope_softness, kind=item.kind, image=bpy.path.abspath(item.image) if item.image else "",
        color2=tuple(item.color2), scale=item.scale,
    )


def layers_to_json(layers: tuple[Layer, ...]) -> str:
    """JSON list of layer objects (the operator's ``layers`` property)."""
    return json.dumps([asdict(lay) for lay in layers])


def settings_layers_json(settings) -> str:
    """The colour layers of panel settings as operator JSON ("" for the defaults)."""
    return layers_to_json(tuple(layer_from_item(item) for item in settings.layers)) if settings.layers else ""


def layers_from_json(text: str) -> tuple[Layer, ...]:
    """Layers from :func:`layers_to_json` text; empty text gives the defaults. Raises ``ValueError``/``TypeError``."""
    if not text:
        return DEFAULT_LAYERS
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError("the layers JSON is nested too deeply") from None
    except ValueError as err:
        raise ValueError(f"layers is not valid JSON: {err}") from None
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise TypeError("layers must be a JSON list of layer objects")
    out = []
    for i, d in enumerate(data):
        unknown = set(d) - set(_FIELDS)
        if unknown:
            raise ValueError(f"layers[{i}]: unknown keys {sorted(unknown)}")
        missing = [name for name in ("name", "color", "minimum", "optimal", "maximum") if name not in d]
        if missing:
            raise ValueError(f"layers[{i}]: missing keys {missing}")
        d = {k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items()}
        out.append(Layer(**d))
    return tuple(out)


def fill_defaults(collection) -> None:
    """Replace ``collection``'s items by the default layers."""
    collection.clear()
    for lay in DEFAULT_LAYERS:
        item = collection.add()
        item.name = lay.name
        item.color = lay.color
        item.minimum, item.optimal, item.maximum = lay.minimum, lay.optimal, lay.maximum


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
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return context.scene is not None and len(context.scene.orogen.layers) < MAX_LAYERS

    def execute(self, context):
        settings = context.scene.orogen
        if not settings.layers:
            fill_defaults(settings.layers)
        item = settings.layers.add()
        item.name = f"Layer {len(settings.layers)}"
        settings.active_layer = len(settings.layers) - 1
        return {'FINISHED'}


class OROGEN_OT_layer_remove(bpy.types.Operator):
    """Remove the active colour layer (at least 2 stay)"""

    bl_idname = "orogen.layer_remove"
    bl_label = "Remove Layer"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return context.scene is not None and len(context.scene.orogen.layers) > 2

    def execute(self, context):
        settings = context.scene.orogen
        settings.layers.remove(settings.active_layer)
        settings.active_layer = min(settings.active_layer, len(settings.layers) - 1)
        return {'FINISHED'}


class OROGEN_OT_layers_reset(bpy.types.Operator):
    """Replace the colour layers by the defaults (grass, rock, snow)"""

    bl_idname = "orogen.layers_reset"
    bl_label = "Default Layers"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return context.scene is not None

    def execute(self, context):
        fill_defaults(context.scene.orogen.layers)
        context.scene.orogen.active_layer = 0
        return {'FINISHED'}


def draw_layers(layout, settings) -> None:
    """The layer list and the active layer's settings."""
    if not settings.layers:
        layout.label(text="Default layers: grass, rock, snow")
        layout.operator(OROGEN_OT_layers_reset.bl_idname, text="Edit Layers", icon='PRESET')
        return
    row = layout.row()
    row.template_list("OROGEN_UL_layers", "", settings, "layers", settings, "active_layer", rows=3)
    col = row.column(align=True)
    col.operator(OROGEN_OT_layer_add.bl_idname, text="", icon='ADD')
    col.operator(OROGEN_OT_layer_remove.bl_idname, text="", icon='REMOVE')
    col.separator()
    col.operator(OROGEN_OT_layers_reset.bl_idname, text="", icon='LOOP_BACK')
    if not 0 <= settings.active_layer < len(settings.layers):
        return
    item = settings.layers[settings.active_layer]
    layout.use_property_split = True
    layout.use_property_decorate = False
    col = layout.column()
    col.prop(item, "kind")
    col.prop(item, "color")
    if item.kind == 'IMAGE':
        col.prop(item, "image")
    elif item.kind in {'NOISE', 'VORONOI'}:
        col.prop(item, "color2")
        col.prop(item, "scale")
    sub = layout.column(align=True)
    sub.prop(item, "minimum")
    sub.prop(item, "optimal")
    sub.prop(item, "maximum")
    sub = layout.column(align=True)
    sub.prop(item, "slope_min")
    sub.prop(item, "slope_max")
    sub.prop(item, "slope_softness")


classes = (OROGEN_UL_layers, OROGEN_OT_layer_add, OROGEN_OT_layer_remove, OROGEN_OT_layers_reset)


register, unregister = bpy.utils.register_classes_factory(classes)
