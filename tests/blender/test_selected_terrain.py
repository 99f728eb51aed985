"""Operators act on the terrain the user picked: the selected active object, never one left active after a
deselect (Blender keeps the last object active when everything is deselected)."""

import json

import bpy
import numpy as np
import pytest


def heights(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co[2::3].copy()


def test_the_console_sequence_loads_a_preset_into_the_panel_not_the_last_terrain(scene, orogen):
    """The README's and the console guide's sequence, as typed: a terrain, deselect, load a preset, Generate."""
    bpy.ops.orogen.terrain_add(size=33, seed=7, width=100, height=22, set="count=300; island=true")
    first = bpy.context.active_object
    spec, z, stack = first.orogen.applied, heights(first), [f.type for f in first.orogen.filters]
    bpy.ops.object.select_all(action="DESELECT")
    assert bpy.context.active_object == first and not first.select_get()  # Blender keeps it active
    assert bpy.ops.orogen.preset_load(name="badlands") == {"FINISHED"}
    assert first.orogen.applied == spec and np.array_equal(heights(first), z)  # the old terrain is as it was
    assert first.orogen.generator == "hills" and [f.type for f in first.orogen.filters] == stack
    preset = orogen.core.presets.preset_spec("badlands").to_dict()
    assert orogen.addon.specio.read_spec(scene.orogen).to_dict() == preset  # the panel's settings took it
    scene.orogen.size = 33
    assert bpy.ops.orogen.terrain_generate() == {"FINISHED"}
    second = bpy.context.active_object
    assert second != first and second.orogen.generator == preset["generator"]
    assert json.loads(second.orogen.applied)["filters"] == json.loads(json.dumps(preset["filters"]))
    # With the terrain picked again, the preset goes into it (and it regenerates).
    bpy.ops.object.select_all(action="DESELECT")
    first.select_set(True)
    bpy.context.view_layer.objects.active = first
    assert bpy.ops.orogen.preset_load(name="dunes") == {"FINISHED"}
    assert first.orogen.generator == orogen.core.presets.preset_spec("dunes").generator


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: bpy.ops.orogen.terrain_regenerate(), "Select a terrain first"),
        (lambda: bpy.ops.orogen.material_rebuild(), "Select a terrain"),
        (lambda: bpy.ops.orogen.export_maps(directory="/nonexistent", name="t"), "Select a terrain"),
    ],
)
def test_operators_on_the_terrain_refuse_an_unselected_active_object(scene, call, message):
    bpy.ops.orogen.terrain_add(size=17, seed=2)
    obj = bpy.context.active_object
    before = heights(obj)
    obj.orogen.seed = 3
    bpy.ops.object.select_all(action="DESELECT")
    with pytest.raises(RuntimeError, match=message):
        call()
    assert np.array_equal(heights(obj), before)


def test_filter_edits_go_to_the_panel_when_no_terrain_is_selected(scene):
    bpy.ops.orogen.terrain_add(size=17, seed=2)
    obj = bpy.context.active_object
    stack = [f.type for f in obj.orogen.filters]
    bpy.ops.object.select_all(action="DESELECT")
    assert bpy.ops.orogen.filter_add(type="thermal") == {"FINISHED"}
    assert [f.type for f in obj.orogen.filters] == stack and [f.type for f in scene.orogen.filters][-1] == "thermal"
    obj.select_set(True)
    assert bpy.ops.orogen.filter_add(type="thermal") == {"FINISHED"}
    assert [f.type for f in obj.orogen.filters] == [*stack, "thermal"]


def test_tile_operators_act_on_a_selected_tile_only(scene, tmp_path):
    assert bpy.ops.orogen.tiles_add(tiles_x=1, tiles_y=1, size=9, width=8.0) == {"FINISHED"}
    tile = bpy.context.active_object
    bpy.ops.object.select_all(action="DESELECT")
    assert bpy.context.active_object == tile
    with pytest.raises(RuntimeError, match="Select a terrain tile first"):
        bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="w")
    assert list(tmp_path.iterdir()) == []
    tile.select_set(True)
    assert bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="w") == {"FINISHED"}
