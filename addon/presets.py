"""Presets: built-in looks that show what the algorithms do, and the user's own through Blender's preset system.

Built-in presets live here as data. Loading one sets the Terrain panel's
settings (press Generate to add it); the side-view profile preset adds its
profile directly, as profiles have no panel settings. User presets are
Blender presets: Python files written by ``AddPresetBase`` into the user's
presets folder (``scripts/presets/orogen/terrain``), never into the
extension's folder.
"""

import math

import bpy
from bl_operators.presets import AddPresetBase

from .layers import settings_layers_json
from .properties import setting_names

PRESET_SUBDIR = "orogen/terrain"

#: Built-in presets: label, description, and either panel settings or profile_add arguments.
BUILTIN_PRESETS: dict[str, dict] = {
    "rolling_hills": {
        "label": "Rolling Hills",
        "description": "Many broad circle hills, gently flattened",
        "settings": {"generator": 'hills', "size": 257, "hill_count": 400, "radius_min": 8.0, "radius_max": 40.0,
                     "flattening": 1.3, "width": 200.0, "height": 18.0, "lighting": 'HILLSHADE',
                     "light_altitude": math.radians(40.0)},
    },
    "island": {
        "label": "Island",
        "description": "Hills clustered into an island rising from a flat sea floor",
        "settings": {"generator": 'hills', "size": 257, "hill_count": 800, "radius_min": 10.0, "radius_max": 40.0,
                     "island": True, "flattening": 0.7, "use_sea_level": True, "sea_level": 0.1,
                     "width": 200.0, "height": 25.0, "lighting": 'HILLSHADE', "use_ao": True},
    },
    "alpine_faults": {
        "label": "Alpine Faults",
        "description": "Fault formation smoothed by the erosion filter, steep and shadowed",
        "settings": {"generator": 'faults', "size": 257, "fault_count": 700, "displacement_min": 0.05,
                     "use_erosion": True, "erosion_k": 0.6, "erosion_passes": 2, "flattening": 1.8,
                     "width": 200.0, "height": 45.0, "lighting": 'HILLSHADE', "use_shadows": True,
                     "light_altitude": math.radians(30.0)},
    },
    "diamond_square_peaks": {
        "label": "Diamond-Square Peaks",
        "description": "Fractal mountains from midpoint displacement",
        "settings": {"generator": 'diamond_square', "size": 257, "roughness": 1.1, "flattening": 2.2,
                     "width": 200.0, "height": 50.0, "lighting": 'MULTIDIRECTIONAL', "use_ao": True},
    },
    "badlands": {
        "label": "Badlands",
        "description": "Noise with hills and pits, blurred and terraced",
        "settings": {"generator": 'noise', "size": 257, "noise_amplitude": 0.15, "noise_hill_count": 500,
                     "noise_hill_radius_min": 4.0, "noise_hill_radius_max": 20.0, "pit_count": 150,
                     "use_blur": True, "blur_passes": 4, "use_terrace": True, "terrace_levels": 7,
                     "terrace_smoothness": 0.35, "flattening": 1.0, "width": 200.0, "height": 22.0,
                     "lighting": 'HILLSHADE', "use_shadows": True},
    },
    "side_view_level": {
        "label": "Side-View Level (2D)",
        "description": "A side-view mountain profile for a 2D game level",
        "profile": {"method": 'SECTIONS', "columns": 1024, "length": 200.0, "min_height": 5.0,
                    "max_height": 40.0, "sections": 14, "sub_points": 24, "shift": 0.15, "smoothing_steps": 3000,
                    "base": 0.0, "depth": 0.0},
    },
}


def apply_preset(context, name: str) -> str:
    """Load built-in preset ``name`` into the panel settings (or add its profile); returns what was done."""
    preset = BUILTIN_PRESETS[name]
    if "profile" in preset:
        bpy.ops.orogen.profile_add(**preset["profile"])
        return f"Added {preset['label']}"
    settings = context.scene.orogen
    defaults = settings.bl_rna.properties
    for key in setting_names():  # reset first, so presets do not inherit each other's settings
        prop = defaults[key]
        setattr(settings, key, prop.default_array[:] if getattr(prop, "is_array", False) else prop.default)
    for key, value in preset["settings"].items():
        setattr(settings, key, value)
    return f"Loaded {preset['label']}: press Generate"


class OROGEN_OT_preset_load(bpy.types.Operator):
    """Load a built-in terrain preset into the Terrain panel (a side-view preset adds its profile)"""

    bl_idname = "orogen.preset_load"
    bl_label = "Load Terrain Preset"
    bl_options = {'REGISTER', 'UNDO'}

    name: bpy.props.EnumProperty(
        name="Preset",
        items=[(key, p["label"], p["description"]) for key, p in BUILTIN_PRESETS.items()],
    )

    @classmethod
    def poll(cls, context):
        return context.scene is not None and context.mode == 'OBJECT'

    def execute(self, context):
        self.report({'INFO'}, apply_preset(context, self.name))
        return {'FINISHED'}


class OROGEN_OT_terrain_generate(bpy.types.Operator):
    """Add a terrain with the Terrain panel's settings and colour layers (what Generate does)"""

    bl_idname = "orogen.terrain_generate"
    bl_label = "Generate Terrain"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return context.scene is not None and context.mode == 'OBJECT'

    def execute(self, context):
        settings = context.scene.orogen
        try:
            bpy.ops.orogen.terrain_add(layers=settings_layers_json(settings),
                                       **{n: getattr(settings, n) for n in setting_names()})
        except RuntimeError as err:  # terrain_add reported why; pass it on
            self.report({'ERROR'}, str(err).replace("Error: ", "", 1).strip())
            return {'CANCELLED'}
        return {'FINISHED'}


class OROGEN_MT_terrain_presets(bpy.types.Menu):
    """Built-in presets, then the user's own (Blender presets in the user's presets folder)."""

    bl_label = "Terrain Presets"
    preset_subdir = PRESET_SUBDIR
    preset_operator = "script.execute_preset"

    def draw(self, context):
        layout = self.layout
        for key, preset in BUILTIN_PRESETS.items():
            layout.operator(OROGEN_OT_preset_load.bl_idname, text=preset["label"]).name = key
        layout.separator()
        bpy.types.Menu.draw_preset(self, context)


class OROGEN_OT_terrain_preset_add(AddPresetBase, bpy.types.Operator):
    """Save the Terrain panel's settings as a preset in your presets folder (or remove one)"""

    bl_idname = "orogen.terrain_preset_add"
    bl_label = "Add Terrain Preset"
    preset_menu = "OROGEN_MT_terrain_presets"
    preset_subdir = PRESET_SUBDIR
    preset_defines = ["settings = bpy.context.scene.orogen"]
    preset_values = [f"settings.{name}" for name in setting_names()]


def draw_presets(layout) -> None:
    """Preset menu with add/remove buttons, as Blender's own preset headers."""
    row = layout.row(align=True)
    row.menu("OROGEN_MT_terrain_presets", text=OROGEN_MT_terrain_presets.bl_label)
    row.operator(OROGEN_OT_terrain_preset_add.bl_idname, text="", icon='ADD')
    row.operator(OROGEN_OT_terrain_preset_add.bl_idname, text="", icon='REMOVE').remove_active = True


classes = (OROGEN_OT_preset_load, OROGEN_OT_terrain_generate, OROGEN_MT_terrain_presets,
           OROGEN_OT_terrain_preset_add)


register, unregister = bpy.utils.register_classes_factory(classes)
