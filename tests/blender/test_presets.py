"""Built-in presets load and generate; user presets are JSON specs in the user's presets folder."""

import json
import os
from pathlib import Path

import bpy
import numpy as np
import pytest

SPECS = (
    "rolling_hills",
    "island",
    "alpine_faults",
    "diamond_square_peaks",
    "badlands",
    "eroded_mountains",
    "river_valleys",
    "scree_slopes",
    "alpine_ridges",
    "rolling_farmland",
    "volcanic_island",
    "canyon_mesas",
    "dunes",
)
PROFILES = ("side_view_level",)
BUILTINS = SPECS + PROFILES


def test_the_built_in_presets_are_there(orogen):
    assert tuple(orogen.core.presets.PRESETS) == SPECS
    assert tuple(orogen.addon.ops.presets.PROFILE_PRESETS) == PROFILES


@pytest.mark.parametrize("name", BUILTINS)
def test_each_built_in_preset_loads_and_generates(scene, orogen, name):
    settings = scene.orogen
    settings.size = 33  # keep the test small; the preset resets it
    assert bpy.ops.orogen.preset_load(name=name) == {"FINISHED"}
    if name in PROFILES:
        obj = bpy.context.active_object
        assert obj.name.startswith("Terrain Profile") and len(obj.data.vertices) == 2 * 1024
        return
    # The panel's settings are now exactly the preset's spec (its size too).
    loaded = orogen.addon.specio.read_spec(settings).to_dict()
    assert loaded == orogen.core.presets.preset_spec(name).to_dict()
    settings.size = 65
    assert bpy.ops.orogen.terrain_generate() == {"FINISHED"}
    co = np.empty(65 * 65 * 3, dtype=np.float32)
    bpy.context.active_object.data.vertices.foreach_get("co", co)
    z = co[2::3]
    # spec version 3: the generator spans Height and the filters work in metres, nothing stretches them back
    assert np.isfinite(z).all() and 0.5 * settings.height < z.max() <= 1.5 * settings.height
    assert z.std() > 0.02 * settings.height  # a real terrain, not a flat one


def test_presets_do_not_inherit_each_other(scene):
    bpy.ops.orogen.preset_load(name="canyon_mesas")
    assert "thermal" in [item.type for item in scene.orogen.filters]
    bpy.ops.orogen.preset_load(name="rolling_hills")
    assert "thermal" not in [item.type for item in scene.orogen.filters] and scene.orogen.generator == "hills"


def test_user_presets_are_saved_in_the_users_presets_folder_and_load(scene, orogen, user_dir):
    settings = scene.orogen
    settings.generator, settings.seed, settings.height = "diamond_square", 77, 31.0
    settings.diamond_square.roughness = 1.7
    assert bpy.ops.orogen.preset_save(name="My Ridge") == {"FINISHED"}
    folder = Path(bpy.utils.user_resource("SCRIPTS", path=os.path.join("presets", "orogen", "terrain")))
    saved = folder / "My_Ridge.json"
    assert saved.is_file() and str(saved).startswith(user_dir)
    assert json.loads(saved.read_text())["diamond_square"]["roughness"] == 1.7
    extension_dir = Path(orogen.__file__).parent
    assert not list(extension_dir.rglob("My_Ridge.*"))
    settings.generator, settings.seed, settings.height = "hills", 1, 5.0
    settings.diamond_square.roughness = 1.0
    assert bpy.ops.orogen.preset_load(name="My_Ridge") == {"FINISHED"}
    assert (settings.generator, settings.seed, settings.height) == ("diamond_square", 77, pytest.approx(31.0))
    assert settings.diamond_square.roughness == pytest.approx(1.7)
    # Remove it again, as the panel's minus menu does.
    assert bpy.ops.orogen.preset_remove(name="My_Ridge") == {"FINISHED"}
    assert not saved.exists()


@pytest.mark.smoke
def test_generate_adds_the_loaded_preset_with_the_panel_layers(scene):
    bpy.ops.orogen.preset_load(name="island")
    scene.orogen.size = 33
    bpy.ops.orogen.layers_reset()
    scene.orogen.layers[0].color = (1.0, 0.0, 0.0)
    assert bpy.ops.orogen.terrain_generate() == {"FINISHED"}
    obj = bpy.context.active_object
    assert obj.orogen.hills.island and obj.orogen.hills.count == 800 and len(obj.data.vertices) == 33 * 33
    assert tuple(obj.orogen.layers[0].color) == (1.0, 0.0, 0.0)
    scene.orogen.hills.radius_min = 900.0  # above radius_max
    with pytest.raises(RuntimeError, match=r"hills\.radius_min \(900\) must not exceed hills\.radius_max"):
        bpy.ops.orogen.terrain_generate()


def test_a_user_preset_named_like_a_built_in_label_loads_the_users(scene, orogen, user_dir):
    settings = scene.orogen
    settings.generator, settings.seed = "faults", 4242
    assert bpy.ops.orogen.preset_save(name="Island") == {"FINISHED"}  # "Island" is the island preset's label
    try:
        settings.generator, settings.seed = "hills", 1
        assert bpy.ops.orogen.preset_load(name="Island") == {"FINISHED"}
        assert (settings.generator, settings.seed) == ("faults", 4242)
        assert bpy.ops.orogen.preset_load(name="island") == {"FINISHED"}  # the key still names the built-in
        assert settings.generator == "hills" and settings.hills.island
    finally:
        bpy.ops.orogen.preset_remove(name="Island")


def _preset_folder():
    return Path(bpy.utils.user_resource("SCRIPTS", path=os.path.join("presets", "orogen", "terrain"), create=True))


@pytest.mark.parametrize("name", ["island", "rolling_hills", "rolling hills", "side_view_level"])
def test_a_preset_cannot_be_saved_under_a_built_in_name(scene, orogen, user_dir, name):
    before = sorted(p.name for p in _preset_folder().iterdir())
    with pytest.raises(RuntimeError, match="is a built-in preset's name: choose another"):
        bpy.ops.orogen.preset_save(name=name)
    assert sorted(p.name for p in _preset_folder().iterdir()) == before


def test_a_file_of_yours_named_like_a_built_in_loads_itself_from_the_menu(scene, orogen, user_dir):
    # saved by an earlier Orogen, or copied in: listed as yours, the menu's entry loads it, not the built-in
    from bl_ext.user_default.orogen.addon.ops import presets  # noqa: PLC0415

    path = _preset_folder() / "island.json"
    spec = {"version": 3, "size": 33, "seed": 4242, "generator": "faults"}
    path.write_text(json.dumps(spec))
    try:
        assert "island" in presets.user_presets()
        assert bpy.ops.orogen.preset_load(name=presets.USER_PREFIX + "island") == {"FINISHED"}
        assert (scene.orogen.generator, scene.orogen.seed) == ("faults", 4242)
        assert bpy.ops.orogen.preset_load(name="island") == {"FINISHED"}  # the key names the built-in
        assert scene.orogen.generator == "hills" and scene.orogen.hills.island
        with pytest.raises(RuntimeError, match="no preset of yours is called 'nothing'"):
            bpy.ops.orogen.preset_load(name=presets.USER_PREFIX + "nothing")
    finally:
        path.unlink()


def test_saving_on_a_full_disk_reports_it_and_leaves_no_file(scene, orogen, user_dir, monkeypatch):
    import errno

    from bl_ext.user_default.orogen.core.io import files  # noqa: PLC0415

    def full(_fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full)
    before = sorted(p.name for p in _preset_folder().iterdir())
    with pytest.raises(RuntimeError, match="Preset not saved: No space left on device"):
        bpy.ops.orogen.preset_save(name="Full Disk")
    monkeypatch.undo()
    assert sorted(p.name for p in _preset_folder().iterdir()) == before
