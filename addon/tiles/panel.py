"""The Terrain Tiles panel: the selected tile's world, its live switch, levels of detail and export."""

import bpy

from ..poll import selected_active
from ..ui.draw import draw_spec
from .export import OROGEN_OT_tiles_export
from .operators import OROGEN_OT_tile_rebuild, OROGEN_OT_tiles_lod, OROGEN_OT_tiles_regenerate
from .world import world_of


class VIEW3D_PT_orogen_tiles(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Terrain"
    bl_label = "Terrain Tiles"

    @classmethod
    def poll(cls, context):
        return world_of(selected_active(context)) is not None

    def draw(self, context):
        layout = self.layout
        obj = context.active_object
        world = world_of(obj)
        settings = world.orogen_tiles
        layout.label(text=f"{world.name}: {settings.tiles_x} x {settings.tiles_y} tiles", icon="MESH_GRID")
        row = layout.row(align=True)
        row.prop(settings, "live_update", toggle=True, icon="FILE_REFRESH")
        row.operator(OROGEN_OT_tiles_regenerate.bl_idname, text="Regenerate All")
        row = layout.row(align=True)
        row.prop(obj.orogen_tile, "level", text=f"{obj.name} LOD")
        row.operator(OROGEN_OT_tile_rebuild.bl_idname, text="Rebuild Tile")
        row = layout.row(align=True)
        row.prop(settings, "lod_levels")
        row.operator(OROGEN_OT_tiles_lod.bl_idname, text="LOD from Cursor", icon="PIVOT_CURSOR")
        layout.operator(OROGEN_OT_tiles_export.bl_idname, icon="EXPORT")
        if settings.status:
            layout.label(text=settings.status, icon="INFO")
        layout.label(text="World (Size = tile vertices, Width = tile width)")
        draw_spec(layout, world.orogen_world, operator=True)


classes = (VIEW3D_PT_orogen_tiles,)

register, unregister = bpy.utils.register_classes_factory(classes)
