"""Operators: Add > Mesh > Terrain."""

import bpy
from bpy_extras import object_utils

from ..core import DEFAULT_LAYERS
from .material import build_material
from .mesh import build_grid_mesh
from .properties import TerrainSettings, draw_settings
from .terrain import compute_terrain


class OROGEN_OT_terrain_add(bpy.types.Operator, object_utils.AddObjectHelper, TerrainSettings):
    """Add a terrain: a grid mesh of circle-based hills with a baked lightmap and a height-blended material"""

    bl_idname = "orogen.terrain_add"
    bl_label = "Add Terrain"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return context.mode == 'OBJECT' and context.scene is not None

    def draw(self, _context):
        draw_settings(self.layout, self)
        col = self.layout.column()
        col.prop(self, "align")
        col.prop(self, "location")
        col.prop(self, "rotation")

    def execute(self, context):
        if self.radius_min > self.radius_max:
            self.report({'ERROR'}, f"Radius Min ({self.radius_min:g}) must not exceed Radius Max ({self.radius_max:g})")
            return {'CANCELLED'}
        if self.min_brightness > self.max_brightness:
            self.report({'ERROR'}, f"Min Brightness ({self.min_brightness:g}) must not exceed "
                                   f"Max Brightness ({self.max_brightness:g})")
            return {'CANCELLED'}
        try:
            arrays = compute_terrain(self)
        except (ValueError, TypeError) as err:
            self.report({'ERROR'}, str(err))
            return {'CANCELLED'}
        mesh = build_grid_mesh("Terrain", arrays.heightmap, arrays.width, arrays.height, arrays.lightmap)
        if self.use_material:
            mesh.materials.append(build_material("Terrain", DEFAULT_LAYERS, self.use_lightmap, self.shading))
        object_utils.object_data_add(context, mesh, operator=self)
        return {'FINISHED'}


def menu_func(self, _context):
    self.layout.operator(OROGEN_OT_terrain_add.bl_idname, text="Terrain", icon='RNDCURVE')


classes = (OROGEN_OT_terrain_add,)


def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.VIEW3D_MT_mesh_add.append(menu_func)


def unregister() -> None:
    bpy.types.VIEW3D_MT_mesh_add.remove(menu_func)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
