"""Drawing a spec's settings into a layout: shared by the Terrain panel, the add operator's redo panel and
the importer.

Nothing here names a generator's or filter's parameter: each group is drawn
from core's declarations, so a newly declared generator appears as it is.
"""

from ...core.params import FILTERS, GENERATORS
from ...core.spec import WORLD_PARAMS
from ..ops.stack import (
    OROGEN_OT_filter_add,
    OROGEN_OT_filter_duplicate,
    OROGEN_OT_filter_move,
    OROGEN_OT_filter_remove,
    OROGEN_OT_layer_add,
    OROGEN_OT_layer_remove,
    OROGEN_OT_layers_reset,
)


def draw_params(layout, group, params) -> None:
    col = layout.column(align=True)
    for p in params:
        col.prop(group, p.name)


def draw_world(layout, data, operator: bool) -> None:
    col = layout.column()
    col.prop(data, "generator")
    for p in WORLD_PARAMS:
        if p.name == "size" and not operator:  # engine sizes (2^n + 1) one click away
            row = col.row(align=True)
            row.prop(data, "size")
            row.menu("OROGEN_MT_size_presets", text="", icon="PRESET")
        else:
            col.prop(data, p.name)


def draw_filters(layout, data, operator: bool) -> None:
    """The stack: a list with add, remove, move and duplicate, and the active filter's settings."""
    layout.label(text="Filters (run top to bottom)")
    if operator:  # the redo panel: each filter's settings, in order
        for i, item in enumerate(data.filters):
            box = layout.box()
            box.prop(item, "enabled", text=f"{i + 1}. {FILTERS[item.type].label}")
            draw_params(box, getattr(item, item.type), FILTERS[item.type].params)
        return
    if not getattr(data, "initialized", True) and not data.filters:
        layout.label(text="Default stack: Flatten (1.5)", icon="INFO")
    row = layout.row()
    row.template_list("OROGEN_UL_filters", "", data, "filters", data, "active_filter", rows=3)
    col = row.column(align=True)
    col.operator_menu_enum(OROGEN_OT_filter_add.bl_idname, "type", text="", icon="ADD")
    col.operator(OROGEN_OT_filter_remove.bl_idname, text="", icon="REMOVE")
    col.separator()
    col.operator(OROGEN_OT_filter_move.bl_idname, text="", icon="TRIA_UP").direction = "UP"
    col.operator(OROGEN_OT_filter_move.bl_idname, text="", icon="TRIA_DOWN").direction = "DOWN"
    col.operator(OROGEN_OT_filter_duplicate.bl_idname, text="", icon="DUPLICATE")
    if 0 <= data.active_filter < len(data.filters):
        item = data.filters[data.active_filter]
        draw_params(layout, getattr(item, item.type), FILTERS[item.type].params)


def draw_lighting(layout, light) -> None:
    """The lighting settings that apply to its mode."""
    col = layout.column(heading="Bake")
    col.prop(light, "enabled")
    sub = col.column()
    sub.active = light.enabled
    sub.prop(light, "mode")
    sub.prop(light, "use_scene_sun")
    sun = sub.column()
    sun.active = not light.use_scene_sun
    if light.mode != "multidirectional":
        sun.prop(light, "azimuth")
    if light.mode == "slope":
        sub.prop(light, "softness")
    else:
        sun.prop(light, "altitude")
        sub.prop(light, "shadows")
        if light.shadows:
            sub.prop(light, "shadow_softness")
        sub.prop(light, "ao")
        if light.ao:
            ao = sub.column(align=True)
            for name in ("ao_strength", "ao_directions", "ao_radius"):
                ao.prop(light, name)
    sub.prop(light, "min_brightness")
    sub.prop(light, "max_brightness")


def draw_spec(layout, data, operator: bool = False) -> None:
    """Every setting of a spec held by ``data`` (terrain object, panel settings or the add operator)."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    draw_world(layout, data, operator)
    generator = GENERATORS.get(data.generator)
    if generator is not None:
        draw_params(layout, getattr(data, data.generator), generator.params)
    draw_filters(layout, data, operator)
    draw_lighting(layout, data.lighting)
    col = layout.column()
    col.prop(data.material, "enabled")
    sub = col.column()
    sub.active = data.material.enabled
    sub.prop(data.material, "shading")
    row = sub.row()
    row.active = data.material.enabled and data.material.shading == "lit" and data.lighting.ao
    row.prop(data.material, "cavity")
    col = layout.column()
    col.prop(data.material, "water")
    sub = col.column()
    sub.active = data.material.water
    sub.prop(data.material, "water_level")
    sub.prop(data.material, "water_color")


def draw_layers(layout, data) -> None:
    """The layer list and the active layer's settings."""
    row = layout.row()
    row.template_list("OROGEN_UL_layers", "", data, "layers", data, "active_layer", rows=3)
    col = row.column(align=True)
    col.operator(OROGEN_OT_layer_add.bl_idname, text="", icon="ADD")
    col.operator(OROGEN_OT_layer_remove.bl_idname, text="", icon="REMOVE")
    col.separator()
    col.operator(OROGEN_OT_layers_reset.bl_idname, text="", icon="LOOP_BACK")
    if not 0 <= data.active_layer < len(data.layers):
        return
    item = data.layers[data.active_layer]
    layout.use_property_split = True
    layout.use_property_decorate = False
    col = layout.column()
    col.prop(item, "kind")
    col.prop(item, "color")
    if item.kind == "IMAGE":
        col.prop(item, "image")
    elif item.kind in {"NOISE", "VORONOI"}:
        col.prop(item, "color2")
        col.prop(item, "scale")
    for group in (("minimum", "optimal", "maximum"), ("slope_min", "slope_max", "slope_softness")):
        sub = layout.column(align=True)
        for name in group:
            sub.prop(item, name)
