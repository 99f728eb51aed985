"""Drawing a spec's settings into a layout: shared by the Terrain panel, the add operator's redo panel and
the importer.

Nothing here names a generator's or filter's parameter: each group is drawn
from core's declarations, so a newly declared generator appears as it is.
"""

import bpy

from ...core.lighting import LIGHTING_PARAMS, bakes_occlusion
from ...core.masks import MASK_PARAMS
from ...core.params import FILTERS, GENERATORS, inactive_reason
from ...core.sources import SOURCE_PARAMS, source_part
from ...core.spec import LAYER_PARAMS, MATERIAL_PARAMS, WORLD_PARAMS
from ..ops.stack import (
    OROGEN_OT_filter_add,
    OROGEN_OT_filter_duplicate,
    OROGEN_OT_filter_move,
    OROGEN_OT_filter_remove,
    OROGEN_OT_layer_add,
    OROGEN_OT_layer_remove,
    OROGEN_OT_layers_reset,
    OROGEN_OT_source_add,
    OROGEN_OT_source_duplicate,
    OROGEN_OT_source_move,
    OROGEN_OT_source_remove,
)
from ..specio import read_group

#: Lighting settings the scene's Sun replaces when Use Scene Sun is on (the add-on's, not core's, choice).
SUN_SETTINGS = {name: "The scene's Sun replaces it (Use Scene Sun is on)" for name in ("azimuth", "altitude")}
#: Why Cavity does nothing without the lighting's ambient occlusion (a condition across two groups).
CAVITY_WITHOUT_AO = {"cavity": "Acts only when the Lightmap bakes Ambient Occlusion (a Hillshade mode with it on)"}


def inactive_settings(group, params, greyed=None) -> dict:
    """``{name: reason}`` of the settings of ``group`` that do nothing under its current values (core's
    :func:`~orogen.core.params.inactive_reason`); ``greyed`` (``{name: reason}``) adds reasons from outside
    the group."""
    try:
        values = read_group(group, params)
    except (ValueError, TypeError):  # a value core refuses (the panel shows it; the spec says why): grey nothing
        return {}
    out = {p.name: inactive_reason(p, values, params) for p in params}
    out.update(greyed or {})
    return {name: reason for name, reason in out.items() if reason}


def group_owner(terrain: bpy.types.Object) -> bpy.types.Object:
    """The object whose vertex groups a mask's *Vertex Group* field lists: the terrain's own, or, when it has
    none and its generator is ``object``, its source mesh's (whose group a mask reads then,
    :func:`..inputs.read_group`)."""
    if len(terrain.vertex_groups) == 0 and terrain.orogen.generator == "object":
        source = bpy.data.objects.get(terrain.orogen.object.object)
        if source is not None and source.type == "MESH" and len(source.vertex_groups) > 0:
            return source
    return terrain


def draw_params(layout, group, params, active: bool = True, greyed=None) -> None:
    """Each setting of ``group``; one that does nothing under the current values is greyed out (still editable,
    Blender's convention for dependent settings) and its tooltip says when it acts."""
    inactive = inactive_settings(group, params, greyed)
    col = layout.column(align=True)
    for p in params:
        row = col.row(align=True)
        row.active = active and p.name not in inactive
        if p.kind == "object" and p.object_kind == "weights":  # a vertex group of the terrain (or its source)
            owner = group.id_data
            if isinstance(owner, bpy.types.Object) and owner.type == "MESH":
                row.prop_search(group, p.name, group_owner(owner), "vertex_groups")
            else:
                row.prop(group, p.name)
        elif p.kind == "object":
            row.prop_search(group, p.name, bpy.data, "objects")
        else:
            row.prop(group, p.name)


def draw_world(layout, data, operator: bool) -> None:
    """The world's settings (size, seed, width, height); the panel's Size has the engine sizes beside it."""
    col = layout.column()
    for p in WORLD_PARAMS:
        if p.name == "size" and not operator:  # engine sizes (2^n + 1) one click away
            row = col.row(align=True)
            row.prop(data, "size")
            row.menu("OROGEN_MT_size_presets", text="", icon="PRESET")
        else:
            col.prop(data, p.name)


def draw_generator(layout, data) -> None:
    """The generator menu and the generator's settings."""
    layout.prop(data, "generator")
    generator = GENERATORS.get(data.generator)
    if generator is not None:
        draw_params(layout, getattr(data, data.generator), generator.params)


def draw_filter_items(layout, data) -> None:
    """Each filter of the stack as a collapsible item, as Blender draws modifiers: its switch and name in the
    header, its settings in the body (greyed out when it is switched off)."""
    for i, item in enumerate(data.filters):
        header, body = layout.panel_prop(item, "show_expanded")
        header.prop(item, "enabled", text="")
        header.label(text=f"{i + 1}. {FILTERS[item.type].label}")
        if body is not None:
            draw_params(body, getattr(item, item.type), FILTERS[item.type].params, active=item.enabled)
            draw_mask(body, item)
            for pm in FILTERS[item.type].param_maps:
                draw_param_map(body, getattr(getattr(item, item.type), pm.key), pm, item.enabled)


def draw_mask(layout, item) -> None:
    """A filter's or a source's Mask sub-panel (collapsed by default; ``item`` has ``mask``, ``show_mask`` and
    ``enabled``): its source in the header, its settings in the body, each greyed out where it does nothing
    (source None, or a source-specific setting of another source)."""
    header, body = layout.panel_prop(item, "show_mask")
    header.active = item.enabled
    header.label(text="Mask")
    if item.mask.source != "none":
        header.label(text=MASK_SOURCE_LABELS.get(item.mask.source, item.mask.source))
    if body is not None:
        draw_params(body, item.mask, MASK_PARAMS, active=item.enabled)


def draw_param_map(layout, group, pm, active: bool) -> None:
    """A filter's parameter map (:class:`core.masks.ParamMap`, Erodibility Map ...) as a collapsed sub-panel:
    its label and source in the header, its mask and two values in the body."""
    header, body = layout.panel_prop(group, "show_expanded")
    header.active = active
    header.label(text=f"{pm.label} Map")
    if group.source != "none":
        header.label(text=MASK_SOURCE_LABELS.get(group.source, group.source))
    if body is not None:
        draw_params(body, group, pm.params, active=active)


#: The label of each mask source (what the collapsed Mask header shows).
MASK_SOURCE_LABELS = {item[0]: item[1] for item in MASK_PARAMS[0].items}


def _draw_stack_list(layout, data, items: str, active: str, operators) -> None:
    """A stack's list with its add (a menu of types), remove, move and duplicate buttons beside it."""
    add, remove, move, duplicate = operators
    row = layout.row()
    row.template_list(f"OROGEN_UL_{items}", "", data, items, data, active, rows=3)
    col = row.column(align=True)
    col.operator_menu_enum(add.bl_idname, "type", text="", icon="ADD")
    col.operator(remove.bl_idname, text="", icon="REMOVE")
    col.separator()
    col.operator(move.bl_idname, text="", icon="TRIA_UP").direction = "UP"
    col.operator(move.bl_idname, text="", icon="TRIA_DOWN").direction = "DOWN"
    col.operator(duplicate.bl_idname, text="", icon="DUPLICATE")


def draw_filters(layout, data, operator: bool) -> None:
    """The stack: a list with add, remove, move and duplicate (the panel), and each filter's settings."""
    if not operator:
        if not getattr(data, "initialized", True) and not data.filters:
            layout.label(text="Default stack: Flatten (1.5)", icon="INFO")
        ops = (OROGEN_OT_filter_add, OROGEN_OT_filter_remove, OROGEN_OT_filter_move, OROGEN_OT_filter_duplicate)
        _draw_stack_list(layout, data, "filters", "active_filter", ops)
    else:
        layout.label(text="Filters (run top to bottom)")
    draw_filter_items(layout, data)


def draw_source_items(layout, data) -> None:
    """Each source as a collapsible item (as :func:`draw_filter_items`): its switch and type in the header, its
    type, blend, opacity, height, placement and its part's settings in the body, then its Mask sub-panel
    (:func:`draw_mask`, as a filter's)."""
    for i, item in enumerate(data.sources):
        try:
            part = source_part(item.type)
        except ValueError:
            continue
        header, body = layout.panel_prop(item, "show_expanded")
        header.prop(item, "enabled", text="")
        header.label(text=f"{i + 1}. {part.label}")
        if body is None:
            continue
        body.prop(item, "type")
        draw_params(body, item, [p for p in SOURCE_PARAMS if p.name != "enabled"], active=item.enabled)
        draw_params(body, getattr(item, item.type), part.params, active=item.enabled)
        draw_mask(body, item)


def draw_sources(layout, data, operator: bool) -> None:
    """The sources stack: a list with add, remove, move and duplicate (the panel), and each source's settings."""
    if not operator:
        ops = (OROGEN_OT_source_add, OROGEN_OT_source_remove, OROGEN_OT_source_move, OROGEN_OT_source_duplicate)
        _draw_stack_list(layout, data, "sources", "active_source", ops)
    elif data.sources:
        layout.label(text="Sources (blended top to bottom)")
    draw_source_items(layout, data)


def draw_lighting(layout, light, header: bool = True) -> None:
    """The lighting settings, those that do nothing under its mode greyed out; ``header=False`` leaves the
    Lightmap switch to a panel header that draws it."""
    params = LIGHTING_PARAMS if header else LIGHTING_PARAMS[1:]
    greyed = SUN_SETTINGS if light.use_scene_sun else None
    draw_params(layout, light, params, greyed=greyed)


def draw_material(layout, data, header: bool = True) -> None:
    """The material's settings (Cavity also greyed out without ambient occlusion to darken by); ``header=False``
    leaves the Material switch to a panel header."""
    shown = ("enabled", "shading", "cavity", "detail", "strata_spacing", "map_tint", "displacement", "dicing_rate")
    params = [p for p in MATERIAL_PARAMS if p.name in shown]
    greyed = None if bakes_occlusion(read_group(data.lighting, LIGHTING_PARAMS)) else CAVITY_WITHOUT_AO
    inactive = inactive_settings(data.material, MATERIAL_PARAMS, greyed)
    col = layout.column(align=True)
    for p in params if header else params[1:]:
        row = col.row(align=True)
        row.active = p.name not in inactive
        row.prop(data.material, p.name)


def draw_water(layout, data, header: bool = True) -> None:
    """The water surface's settings; ``header=False`` leaves the Water switch to a panel header."""
    params = [p for p in MATERIAL_PARAMS if p.name in ("water", "water_level", "water_color")]
    draw_params(layout, data.material, params if header else params[1:])


def draw_spec(layout, data, operator: bool = False) -> None:
    """Every setting of a spec held by ``data`` (terrain object, panel settings or the add operator), each part
    in a collapsible layout panel (the redo panel and the tile world's panel; the Terrain tab has sub-panels)."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    draw_world(layout, data, operator)
    for idname, label, draw in (
        ("generator", "Generator", draw_generator),
        ("sources", "Sources", lambda box, d: draw_sources(box, d, operator)),
        ("filters", "Filters", lambda box, d: draw_filters(box, d, operator)),
        ("lighting", "Lighting", lambda box, d: draw_lighting(box, d.lighting)),
        ("material", "Material", draw_material),
        ("water", "Water", draw_water),
    ):
        header, body = layout.panel(f"OROGEN_{idname}", default_closed=idname not in ("generator", "filters"))
        header.label(text=label)
        if body is not None:
            draw(body, data)


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
    inactive = inactive_settings(item, LAYER_PARAMS)
    for group in (
        ("kind", "color", "image", "color2", "scale"),
        ("heights", "minimum", "optimal", "maximum"),
        ("slope_min", "slope_max", "slope_softness"),
        ("mask", "mask_min", "mask_max"),
        ("edge_noise", "slope_noise", "noise_size"),
        ("aspect_shift",),
    ):
        col = layout.column(align=True)
        for name in group:
            row = col.row(align=True)
            row.active = name not in inactive
            row.prop(item, name)
