"""The Terrain tab in the 3D View's sidebar, drawn from whatever the spec holds (see :mod:`.draw`)."""

import bpy

from ..io.export_maps import OROGEN_OT_export_maps
from ..ops.presets import draw_presets
from ..ops.profile import OROGEN_OT_profile_add
from ..ops.terrain import OROGEN_OT_material_rebuild, OROGEN_OT_terrain_generate, OROGEN_OT_terrain_regenerate
from ..poll import active_terrain
from .draw import draw_layers, draw_spec


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
            draw_spec(layout, context.scene.orogen)
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
        draw_spec(layout, settings)


class VIEW3D_PT_orogen_layers(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Terrain"
    bl_label = "Colour Layers"
    bl_parent_id = "VIEW3D_PT_orogen_terrain"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        obj = active_terrain(context)
        draw_layers(self.layout, obj.orogen if obj is not None else context.scene.orogen)


classes = (VIEW3D_PT_orogen_terrain, VIEW3D_PT_orogen_layers)


register, unregister = bpy.utils.register_classes_factory(classes)
