"""The Terrain tab in the 3D View's sidebar, drawn from whatever the spec holds (see :mod:`.draw`).

The tab's panel holds the presets, the terrain's world settings and its buttons; each part of the spec is a
sub-panel of it (Generator, Sources, Filters, Lighting, Material, Colour Layers, Water, Trees and Rocks, Realism
Report), collapsible as Blender's own panels are, those with a switch drawing it in their header.
"""

import bpy

from ..io.export_maps import OROGEN_OT_export_maps
from ..ops.presets import draw_presets
from ..ops.profile import OROGEN_OT_profile_add
from ..ops.report import draw_report
from ..ops.scatter import draw_scatter
from ..ops.terrain import OROGEN_OT_material_rebuild, OROGEN_OT_terrain_generate, OROGEN_OT_terrain_regenerate
from ..poll import active_terrain, selected_active
from .draw import (
    draw_filters,
    draw_generator,
    draw_layers,
    draw_lighting,
    draw_material,
    draw_sources,
    draw_water,
    draw_world,
)


def _split(layout) -> None:
    layout.use_property_split = True
    layout.use_property_decorate = False


def spec_data(context):
    """What the tab edits: the selected active terrain's settings, else the scene's (the next Generate's)."""
    obj = active_terrain(context)
    return obj.orogen if obj is not None else context.scene.orogen


class VIEW3D_PT_orogen_terrain(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Terrain"
    bl_label = "Terrain"

    def draw(self, context):
        layout = self.layout
        obj = active_terrain(context)
        draw_presets(layout)
        if obj is not None:
            self.draw_terrain_object(obj)
        else:
            layout.label(text="New terrain", icon="ADD")
            _split(layout)
            draw_world(layout, context.scene.orogen, operator=False)
            layout.operator(OROGEN_OT_terrain_generate.bl_idname, text="Generate", icon="RNDCURVE")
            layout.operator(OROGEN_OT_profile_add.bl_idname, text="Add Side-View Profile", icon="IPO_EASE_IN_OUT")
        if OROGEN_OT_export_maps.poll(context):
            layout.operator(OROGEN_OT_export_maps.bl_idname, text="Export Maps", icon="EXPORT")

    def draw_terrain_object(self, obj):
        """The selected terrain's own spec: changing it regenerates the terrain in place."""
        layout = self.layout
        layout.label(text=obj.name, icon="RNDCURVE")
        settings = obj.orogen
        row = layout.row(align=True)
        row.prop(settings, "live_update", toggle=True, icon="FILE_REFRESH")
        row.operator(OROGEN_OT_terrain_regenerate.bl_idname, text="Regenerate")
        row.operator(OROGEN_OT_material_rebuild.bl_idname, text="Rebuild Material")
        if settings.live_update:
            layout.prop(settings, "preview_size")
        if settings.status:
            layout.label(text=settings.status, icon="INFO")
        _split(layout)
        draw_world(layout, settings, operator=False)


class _Part:
    """A sub-panel of the Terrain tab drawing one part of the spec."""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Terrain"
    bl_parent_id = "VIEW3D_PT_orogen_terrain"

    def draw(self, context):
        _split(self.layout)
        self.draw_part(self.layout, spec_data(context))

    def draw_part(self, layout, data) -> None:
        raise NotImplementedError


class VIEW3D_PT_orogen_generator(_Part, bpy.types.Panel):
    bl_label = "Generator"

    def draw_part(self, layout, data) -> None:
        draw_generator(layout, data)


class VIEW3D_PT_orogen_sources(_Part, bpy.types.Panel):
    bl_label = "Sources"
    bl_options = {"DEFAULT_CLOSED"}

    def draw_part(self, layout, data) -> None:
        draw_sources(layout, data, operator=False)


class VIEW3D_PT_orogen_filters(_Part, bpy.types.Panel):
    bl_label = "Filters"

    def draw_part(self, layout, data) -> None:
        draw_filters(layout, data, operator=False)


class VIEW3D_PT_orogen_lighting(_Part, bpy.types.Panel):
    bl_label = "Lighting"
    bl_options = {"DEFAULT_CLOSED"}

    def draw_header(self, context):
        self.layout.prop(spec_data(context).lighting, "enabled", text="")

    def draw_part(self, layout, data) -> None:
        draw_lighting(layout, data.lighting, header=False)


class VIEW3D_PT_orogen_material(_Part, bpy.types.Panel):
    bl_label = "Material"
    bl_options = {"DEFAULT_CLOSED"}

    def draw_header(self, context):
        self.layout.prop(spec_data(context).material, "enabled", text="")

    def draw_part(self, layout, data) -> None:
        draw_material(layout, data, header=False)


class VIEW3D_PT_orogen_layers(_Part, bpy.types.Panel):
    bl_label = "Colour Layers"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        draw_layers(self.layout, spec_data(context))


class VIEW3D_PT_orogen_water(_Part, bpy.types.Panel):
    bl_label = "Water"
    bl_options = {"DEFAULT_CLOSED"}

    def draw_header(self, context):
        self.layout.prop(spec_data(context).material, "water", text="")

    def draw_part(self, layout, data) -> None:
        draw_water(layout, data, header=False)


class VIEW3D_PT_orogen_scatter(_Part, bpy.types.Panel):
    bl_label = "Trees and Rocks"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        draw_scatter(self.layout, active_terrain(context))


class VIEW3D_PT_orogen_report(_Part, bpy.types.Panel):
    bl_label = "Realism Report"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        draw_report(self.layout, selected_active(context))


classes = (
    VIEW3D_PT_orogen_terrain,
    VIEW3D_PT_orogen_generator,
    VIEW3D_PT_orogen_sources,
    VIEW3D_PT_orogen_filters,
    VIEW3D_PT_orogen_lighting,
    VIEW3D_PT_orogen_material,
    VIEW3D_PT_orogen_layers,
    VIEW3D_PT_orogen_water,
    VIEW3D_PT_orogen_scatter,
    VIEW3D_PT_orogen_report,
)


register, unregister = bpy.utils.register_classes_factory(classes)
