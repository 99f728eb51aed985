"""Filter masks in Blender: set in the panel's properties, a vertex group painted on the terrain, undo."""

import json
import os
import sys
from pathlib import Path

import bpy
import numpy as np
import pytest
from recording_layout import RecordingLayout


def z_of(obj) -> np.ndarray:
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)[:, 2].reshape(obj.orogen.size_y or obj.orogen.size, obj.orogen.size)


def expected_z(orogen, spec, inputs=None) -> np.ndarray:
    core = orogen.core
    with core.inputs.using(inputs or {}):
        return spec.heightmap() * np.float32(spec.height)


@pytest.fixture
def terrain(scene, orogen):
    assert bpy.ops.orogen.terrain_add(size=33, seed=4, width=64.0, height=16.0, generator="noise") == {"FINISHED"}
    obj = bpy.context.active_object
    obj.orogen.live_update = False
    obj.orogen.filters[0].type = "box_blur"
    obj.orogen.filters[0].box_blur.radius = 6.0
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    return obj


def read_spec(orogen, obj):
    return sys.modules[orogen.__name__ + ".addon.specio"].read_spec(obj.orogen)


def test_a_mask_set_in_the_properties_is_the_specs_and_acts(terrain, orogen):
    mask = terrain.orogen.filters[0].mask
    assert mask.source == "none"
    unmasked = z_of(terrain).copy()
    mask.source = "height"
    mask.low = 8.0
    mask.feather = 2.0
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    spec = read_spec(orogen, terrain)
    assert spec.filters[0].mask["source"] == "height" and spec.filters[0].mask["low"] == 8.0
    assert spec.to_dict()["filters"][0]["mask"]["feather"] == 2.0
    np.testing.assert_allclose(z_of(terrain), expected_z(orogen, spec), atol=2e-5)
    assert not np.allclose(z_of(terrain), unmasked, atol=1e-4)
    mask.strength = 0.0  # a mask of strength 0: the filter changes nothing
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    bare = spec.replace(filters=())
    np.testing.assert_allclose(z_of(terrain), expected_z(orogen, bare), atol=2e-5)
    # the spec's JSON carries it back into a new terrain's properties
    assert bpy.ops.orogen.terrain_add(spec=read_spec(orogen, terrain).to_json()) == {"FINISHED"}
    copy = bpy.context.active_object
    assert copy.orogen.filters[0].mask.source == "height" and copy.orogen.filters[0].mask.strength == 0.0


def test_a_painted_vertex_group_limits_the_filter(terrain, orogen):
    core = orogen.core
    before = z_of(terrain).copy()
    rows, cols = before.shape
    group = terrain.vertex_groups.new(name="Rock")
    east = [r * cols + c for r in range(rows) for c in range(cols // 2 + 1, cols)]
    group.add(east, 1.0, "REPLACE")  # the east half painted full
    mask = terrain.orogen.filters[0].mask
    mask.source = "weights"
    mask.group = "Rock"
    mask.low = 0.5
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    spec = read_spec(orogen, terrain)
    assert spec.objects() == [("box_blur.mask.group", "weights", "Rock")]
    painted = np.zeros((rows, cols), np.float32)
    painted[:, cols // 2 + 1 :] = 1.0
    z = z_of(terrain)
    np.testing.assert_allclose(
        z, expected_z(orogen, spec, {("weights", "Rock"): core.inputs.WeightsInput(painted, "Rock")}), atol=2e-5
    )
    bare = expected_z(orogen, spec.replace(filters=()))
    np.testing.assert_allclose(z[:, : cols // 2 + 1], bare[:, : cols // 2 + 1], atol=2e-5)  # untouched west
    np.testing.assert_allclose(z[:, cols // 2 + 1 :], before[:, cols // 2 + 1 :], atol=2e-5)  # blurred east
    assert not np.allclose(z[:, : cols // 2 + 1], before[:, : cols // 2 + 1], atol=1e-4)
    assert "Rock" in terrain.vertex_groups and len(bpy.data.node_groups) == 0  # the reader left nothing behind
    assert not [o for o in bpy.data.objects if o.name.startswith("Orogen Weights")]


def test_a_missing_vertex_group_is_refused_naming_the_setting(terrain, orogen):
    before = z_of(terrain).copy()
    mask = terrain.orogen.filters[0].mask
    mask.source = "weights"
    mask.group = "Nowhere"
    with pytest.raises(RuntimeError, match=r"box_blur\.mask\.group: the terrain .* has no vertex group 'Nowhere'"):
        bpy.ops.orogen.terrain_regenerate()
    assert np.array_equal(z_of(terrain), before)


def test_the_mask_panel_draws_every_mask_setting(terrain, orogen):
    draw = sys.modules[orogen.__name__ + ".addon.ui.draw"]
    layout = RecordingLayout()
    shown = layout.shown
    draw.draw_filter_items(layout, terrain.orogen)
    mask = terrain.orogen.filters[0].mask
    names = {name for data, name in shown if data == mask}
    assert names == {p.name for p in orogen.core.MASK_PARAMS}
    assert dict(draw.inactive_settings(mask, orogen.core.MASK_PARAMS))["low"].startswith("Acts only when Mask is")
    mask.source = "slope"
    inactive = draw.inactive_settings(mask, orogen.core.MASK_PARAMS)
    assert "low" not in inactive and "group" in inactive and "noise_size" in inactive
    # the stream-power filter draws its parameter maps too, each with the mask's settings and its two values
    terrain.orogen.filters[0].type = "erosion"
    shown.clear()
    draw.draw_filter_items(layout, terrain.orogen)
    group = terrain.orogen.filters[0].erosion
    for pm in orogen.core.FILTERS["erosion"].param_maps:
        drawn = {name for data, name in shown if data == getattr(group, pm.key)}
        assert drawn == {p.name for p in pm.params}, pm.key


def test_undo_of_a_mask_edit_and_its_regenerate(terrain, orogen):
    bpy.ops.ed.undo_push(message="terrain")
    name = terrain.name
    before = z_of(terrain).copy()
    terrain.orogen.filters[0].mask.source = "slope"
    terrain.orogen.filters[0].mask.low = 20.0
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    bpy.ops.ed.undo_push(message="Regenerate Terrain")
    after = z_of(bpy.data.objects[name]).copy()
    assert not np.array_equal(before, after)
    assert bpy.ops.ed.undo() == {"FINISHED"}
    obj = bpy.data.objects[name]
    assert obj.orogen.filters[0].mask.source == "none" and np.array_equal(z_of(obj), before)
    assert bpy.ops.ed.redo() == {"FINISHED"}
    obj = bpy.data.objects[name]
    assert obj.orogen.filters[0].mask.source == "slope" and np.array_equal(z_of(obj), after)


def test_an_erodibility_map_in_the_properties(scene, orogen):
    assert bpy.ops.orogen.terrain_add(size=33, seed=2, width=64.0, height=30.0) == {"FINISHED"}
    obj = bpy.context.active_object
    obj.orogen.live_update = False
    item = obj.orogen.filters[0]
    item.type = "erosion"
    item.erosion.steps = 3
    hard = item.erosion.erodibility_map
    assert hard.source == "none" and hard.map_min == 1.0
    hard.source = "height"
    hard.low, hard.high = 15.0, 1e9
    hard.map_min, hard.map_max = 1.0, 0.0  # weight 1 above 15 m: K = 0
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    spec = read_spec(orogen, obj)
    entry = spec.to_dict()["filters"][0]
    assert entry["erodibility_map"]["source"] == "height" and entry["erodibility_map"]["map_max"] == 0.0
    np.testing.assert_allclose(z_of(obj), expected_z(orogen, spec), atol=2e-5)
    plain = spec.replace(filters=(orogen.core.spec.Step("erosion", spec.filters[0].params),))
    assert not np.allclose(z_of(obj), expected_z(orogen, plain), atol=1e-4)


def test_a_user_preset_keeps_the_masks_and_maps(scene, orogen, user_dir):
    settings = scene.orogen
    bpy.ops.orogen.preset_load(name="rolling_hills")
    item = settings.filters[0]
    item.mask.source = "aspect"
    item.mask.low, item.mask.high = -45.0, 45.0
    assert bpy.ops.orogen.preset_save(name="Masked Hills") == {"FINISHED"}
    folder = Path(bpy.utils.user_resource("SCRIPTS", path=os.path.join("presets", "orogen", "terrain")))
    saved = folder / "Masked_Hills.json"
    entry = json.loads(saved.read_text())["filters"][0]
    assert entry["mask"]["source"] == "aspect" and entry["mask"]["low"] == -45.0
    item.mask.source = "none"
    assert bpy.ops.orogen.preset_load(name="Masked_Hills") == {"FINISHED"}
    assert settings.filters[0].mask.source == "aspect" and settings.filters[0].mask.high == 45.0
    assert bpy.ops.orogen.preset_remove(name="Masked_Hills") == {"FINISHED"}


def test_a_live_preview_reads_the_painted_group_resampled(terrain, orogen):
    rows, cols = 33, 33
    group = terrain.vertex_groups.new(name="Rock")
    group.add([r * cols + c for r in range(rows) for c in range(20, cols)], 1.0, "REPLACE")
    mask = terrain.orogen.filters[0].mask
    mask.source, mask.group, mask.low = "weights", "Rock", 0.5
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    terrain.orogen.preview_size = 17
    terrain.orogen.live_update = True
    terrain.orogen.seed = 9
    bpy.context.view_layer.objects.active = terrain
    sys.modules[orogen.__name__ + ".addon.live"]._on_msgbus()  # the panel's edit: a preview at 17 x 17
    assert len(terrain.data.vertices) == 17 * 17 and terrain.orogen.preview_pending, terrain.orogen.status
    assert "not" not in terrain.orogen.status.lower(), terrain.orogen.status
    spec = read_spec(orogen, terrain)
    painted = np.zeros((rows, cols), np.float32)
    painted[:, 20:] = 1.0
    weights = {("weights", "Rock"): orogen.core.inputs.WeightsInput(painted, "Rock")}
    with orogen.core.inputs.using(weights):
        preview = spec.heightmap((17, 17)) * np.float32(spec.height)
    co = np.empty(17 * 17 * 3, np.float32)
    terrain.data.vertices.foreach_get("co", co)
    np.testing.assert_allclose(co.reshape(-1, 3)[:, 2].reshape(17, 17), preview, atol=2e-5)
    assert orogen.addon.terrain.settle.flush_live_updates(force=True) == [terrain.name]  # the full size
    assert terrain.orogen.status.startswith("Regenerated terrain 33 x 33"), terrain.orogen.status
    assert len(terrain.data.vertices) == rows * cols and "Rock" in terrain.vertex_groups
    np.testing.assert_allclose(z_of(terrain), expected_z(orogen, spec, weights), atol=2e-5)
