"""Built-in presets load and generate; user presets go through Blender's preset system."""

import os
from pathlib import Path

import bpy
import numpy as np
import pytest

BUILTINS = ("rolling_hills", "island", "alpine_faults", "diamond_square_peaks", "badlands", "side_view_level")


def test_the_built_in_presets_are_there(orogen):
    assert tuple(orogen.addon.presets.BUILTIN_PRESETS) == BUILTINS


@pytest.mark.parametrize("name", BUILTINS)
def test_each_built_in_preset_loads_and_generates(scene, orogen, name):
    settings = scene.orogen
    settings.size = 33  # keep the test small; the preset resets it
    assert bpy.ops.orogen.preset_load(name=name) == {'FINISHED'}
    preset = orogen.addon.presets.BUILTIN_PRESETS[name]
    if "profile" in preset:
        obj = bpy.context.active_object
        assert obj.name.startswith("Terrain Profile") and len(obj.data.vertices) == 2 * 1024
        return
    for key, value in preset["settings"].items():
        assert getattr(settings, key) == pytest.approx(value) if isinstance(value, float) else getattr(
            settings, key) == value
    settings.size = 65
    names = orogen.addon.properties.setting_names()
    assert bpy.ops.orogen.terrain_add(**{n: getattr(settings, n) for n in names}) == {'FINISHED'}
    co = np.empty(65 * 65 * 3, dtype=np.float32)
    bpy.context.active_object.data.vertices.foreach_get("co", co)
    z = co[2::3]
    assert np.isfinite(z).all() and z.max() == pytest.approx(settings.height)
    assert z.std() > 0.02 * settings.height  # a real terrain, not a flat one


def test_presets_do_not_inherit_each_other(scene):
    bpy.ops.orogen.preset_load(name="badlands")
    assert scene.orogen.use_terrace
    bpy.ops.orogen.preset_load(name="rolling_hills")
    assert not scene.orogen.use_terrace and scene.orogen.generator == 'hills'


def test_user_presets_are_saved_in_the_users_presets_folder_and_load(scene, orogen, user_dir):
    settings = scene.orogen
    settings.generator, settings.seed, settings.roughness, settings.height = 'diamond_square', 77, 1.7, 31.0
    assert bpy.ops.orogen.terrain_preset_add(name="My Ridge") == {'FINISHED'}
    folder = Path(bpy.utils.user_resource('SCRIPTS', path=os.path.join("presets", "orogen", "terrain")))
    saved = folder / "My_Ridge.py"
    assert saved.is_file() and str(saved).startswith(user_dir)
    extension_dir = Path(orogen.__file__).parent
    assert not list(extension_dir.rglob("My_Ridge.py"))
    settings.generator, settings.seed, settings.height = 'hills', 1, 5.0
    bpy.ops.script.execute_preset(filepath=str(saved), menu_idname="OROGEN_MT_terrain_presets")
    assert (settings.generator, settings.seed, settings.height) == ('diamond_square', 77, pytest.approx(31.0))
    assert settings.roughness == pytest.approx(1.7)
    # Remove it again, as the panel's minus button does.
    bpy.types.OROGEN_MT_terrain_presets.bl_label = "My Ridge"
    assert bpy.ops.orogen.terrain_preset_add(name="My Ridge", remove_active=True) == {'FINISHED'}
    assert not saved.exists()


def test_generate_adds_the_loaded_preset_with_the_panel_layers(scene):
    bpy.ops.orogen.preset_load(name="island")
    scene.orogen.size = 33
    bpy.ops.orogen.layers_reset()
    scene.orogen.layers[0].color = (1.0, 0.0, 0.0)
    assert bpy.ops.orogen.terrain_generate() == {'FINISHED'}
    obj = bpy.context.active_object
    assert obj.orogen.island and obj.orogen.hill_count == 800 and len(obj.data.vertices) == 33 * 33
    assert '"color": [1.0, 0.0, 0.0]' in obj["orogen_layers"]
    scene.orogen.radius_min = 80.0  # above radius_max
    with pytest.raises(RuntimeError, match="Radius Min"):
        bpy.ops.orogen.terrain_generate()
