"""The size menu: terrain sizes game engines expect for heightmaps (2^n + 1 vertices per side)."""

import bpy

from ...core.spec import MAX_SIDE, MIN_SIDE
from ..live import on_setting_changed
from ..poll import active_terrain, mode_reason, poll_with

#: Sizes game engines expect for heightmaps: 2^n + 1 vertices per side.
ENGINE_SIZES = (129, 257, 513, 1025, 2049, 4097)
assert ENGINE_SIZES[-1] == MAX_SIDE


class OROGEN_OT_size_set(bpy.types.Operator):
    """Set the terrain size to one game engines expect (2^n + 1 vertices per side)"""

    bl_idname = "orogen.size_set"
    bl_label = "Set Size"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    size: bpy.props.IntProperty(name="Size", description="Vertices per side", min=MIN_SIDE, max=MAX_SIDE, default=257)

    @classmethod
    def poll(cls, context):
        return poll_with(cls, mode_reason(context))

    def execute(self, context):
        obj = active_terrain(context)
        settings = obj.orogen if obj is not None else context.scene.orogen
        settings.size = self.size
        if obj is not None:
            on_setting_changed(obj, context)
        return {"FINISHED"}


class OROGEN_MT_size_presets(bpy.types.Menu):
    bl_label = "Engine Sizes"

    def draw(self, _context):
        for size in ENGINE_SIZES:
            self.layout.operator(OROGEN_OT_size_set.bl_idname, text=f"{size} x {size}").size = size


classes = (OROGEN_OT_size_set, OROGEN_MT_size_presets)

register, unregister = bpy.utils.register_classes_factory(classes)
