"""The Terrain tab in the 3D View's sidebar."""

import bpy

from .edit import OROGEN_OT_material_rebuild, OROGEN_OT_terrain_regenerate, active_terrain
from .layers import draw_layers, settings_layers_json
from .operators import OROGEN_OT_export_maps, OROGEN_OT_profile_add, OROGEN_OT_terrain_add
from .presets import draw_presets
from .properties import draw_settings, setting_names


class VIEW3D_PT_orogen_terrain(bpy.types.Panel):
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "Terrain"
    bl_label = "Terrain"

    def draw(self, context):
        obj = active_terrain(context)
        if obj is not None:
            self.draw_terrain_object(context, obj)
            return
        settings = context.scene.orogen
        self.layout.label(text="New terrain", icon='ADD')
        draw_presets(self.layout)
        draw_settings(self.layout, settings)
        op = self.layout.operator(OROGEN_OT_terrain_add.bl_idname, text="Generate", icon='RNDCURVE')
        for name in setting_names():
            setattr(op, name, getattr(settings, name))
        op.layers = settings_layers_json(settings)
        self.layout.operator(OROGEN_OT_profile_add.bl_idname, text="Add Side-View Profile", icon='IPO_EASE_IN_OUT')
        if OROGEN_OT_export_maps.poll(context):
            self.layout.operator(OROGEN_OT_export_maps.bl_idname, text="Export Maps", icon='EXPORT')


    def draw_terrain_object(self, context, obj):
        """The selected terrain's own settings: changing them regenerates it in place."""
        layout = self.layout
        layout.label(text=obj.name, icon='RNDCURVE')
        settings = obj.orogen
        row = layout.row(align=True)
        row.prop(settings, "live_update", toggle=True, icon='FILE_REFRESH')
        row.operator(OROGEN_OT_terrain_regenerate.bl_idname, text="Regenerate")
        row.operator(OROGEN_OT_material_rebuild.bl_idname, text="Rebuild Material")
        if settings.live_update:
            layout.prop(settings, "preview_size")
        if settings.status:
            layout.label(text=settings.status, icon='INFO')
        draw_settings(layout, settings)
        if OROGEN_OT_export_maps.poll(context):
            layout.operator(OROGEN_OT_export_maps.bl_idname, text="Export Maps", icon='EXPORT')


class VIEW3D_PT_orogen_layers(bpy.types.Panel):
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "Terrain"
    bl_label = "Colour Layers"
    bl_parent_id = "VIEW3D_PT_orogen_terrain"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        draw_layers(self.layout, context.scene.orogen)


classes = (VIEW3D_PT_orogen_terrain, VIEW3D_PT_orogen_layers)


register, unregister = bpy.utils.register_classes_factory(classes)
