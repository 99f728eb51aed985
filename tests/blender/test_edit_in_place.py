"""A terrain keeps its settings and regenerates in place, keeping everything the user added."""

import json
import sys

import bpy
import numpy as np
import pytest


def positions(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


@pytest.fixture
def terrain(scene):
    bpy.ops.orogen.terrain_add(
        size=40,
        seed=3,
        width=39.0,
        height=8.0,
        location=(1.0, 2.0, 3.0),
        set="hills.count=60; hills.radius_min=3; hills.radius_max=10",
    )
    return bpy.context.active_object


def change(obj, **settings):
    """Change settings as the panel does (``hills__radius_min`` is ``obj.orogen.hills.radius_min``); Blender
    then notifies the add-on through the message bus, which only runs in a window's event loop, so the
    notification is delivered here by hand."""
    for name, value in settings.items():
        *groups, prop = name.split("__")
        data = obj.orogen
        for group in groups:
            data = getattr(data, group)
        setattr(data, prop, value)
    bpy.context.view_layer.objects.active = obj
    sys.modules[type(obj.orogen).__module__.rsplit(".", 1)[0] + ".live"]._on_msgbus()


def customise(obj):
    """Everything a user may add to a terrain."""
    obj.name = "My Valley"
    obj.rotation_euler = (0.1, 0.2, 0.3)
    obj.scale = (2.0, 2.0, 1.5)
    parent = bpy.data.objects.new("Rig", None)
    bpy.context.scene.collection.objects.link(parent)
    obj.parent = parent
    extra = bpy.data.collections.new("Level")
    bpy.context.scene.collection.children.link(extra)
    extra.objects.link(obj)
    obj.modifiers.new("Sub", "SUBSURF")
    obj["game_id"] = 42
    material = obj.active_material
    material.diffuse_color = (1.0, 0.0, 0.0, 1.0)
    material.node_tree.nodes.new("ShaderNodeValue").name = "my node"
    obj.data.materials.append(bpy.data.materials.new("Extra"))
    return parent, extra


def test_the_object_keeps_its_settings(terrain):
    settings = terrain.orogen
    assert settings.is_terrain and settings.size == 40 and settings.seed == 3 and settings.hills.count == 60
    assert settings.height == pytest.approx(8.0)


@pytest.mark.smoke
def test_changing_a_setting_regenerates_the_same_object_and_keeps_user_edits(terrain, orogen):
    parent, extra = customise(terrain)
    mesh, before = terrain.data, positions(terrain)
    pointer = mesh.as_pointer()
    change(terrain, seed=4)  # live update: same size, so positions and attributes are rewritten in place
    after = positions(terrain)
    assert terrain.data.as_pointer() == pointer and len(after) == 1600
    assert not np.array_equal(before[:, 2], after[:, 2])
    assert np.array_equal(before[:, :2], after[:, :2])
    expected = orogen.core.circle_hills(
        (40, 40), 4, count=60, radius_min=3.0, radius_max=10.0, flattening=1.5
    ) * np.float32(8.0)
    assert np.array_equal(after[:, 2].reshape(40, 40), expected)
    # Everything the user added is still there.
    assert bpy.data.objects.get("My Valley") is terrain
    assert tuple(terrain.location) == pytest.approx((1.0, 2.0, 3.0))
    assert tuple(terrain.rotation_euler) == pytest.approx((0.1, 0.2, 0.3))
    assert tuple(terrain.scale) == pytest.approx((2.0, 2.0, 1.5))
    assert terrain.parent is parent and terrain.name in extra.objects
    assert [m.type for m in terrain.modifiers] == ["SUBSURF"] and terrain["game_id"] == 42
    assert [slot.material.name for slot in terrain.material_slots][1] == "Extra"
    material = terrain.material_slots[0].material
    assert tuple(material.diffuse_color) == pytest.approx((1.0, 0.0, 0.0, 1.0))
    assert "my node" in material.node_tree.nodes
    assert json.loads(terrain.orogen.applied)["seed"] == 4  # the spec the mesh was made from


def test_live_preview_then_full_size_when_settled(terrain, orogen):
    terrain.orogen.preview_size = 17
    change(terrain, size=65)
    assert len(terrain.data.vertices) == 17 * 17  # the preview
    assert "preview" in terrain.orogen.status
    assert orogen.addon.terrain.settle.flush_live_updates(force=True) == [terrain.name]
    assert len(terrain.data.vertices) == 65 * 65
    assert terrain.orogen.status.startswith("Regenerated terrain 65 x 65")
    assert positions(terrain)[:, 2].max() == pytest.approx(8.0)


def test_live_update_off_waits_for_regenerate(terrain):
    before = positions(terrain)
    terrain.orogen.live_update = False
    change(terrain, seed=9)
    assert np.array_equal(positions(terrain), before)
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert not np.array_equal(positions(terrain), before)


def test_bad_live_settings_change_nothing_and_say_why(terrain):
    before = positions(terrain)
    change(terrain, hills__radius_min=30.0)  # above radius_max
    assert np.array_equal(positions(terrain), before)
    assert "hills.radius_min (30) must not exceed hills.radius_max (10)" in terrain.orogen.status
    with pytest.raises(RuntimeError, match=r"hills\.radius_min"):
        bpy.ops.orogen.terrain_regenerate()


def test_rebuild_material_replaces_only_the_terrain_material(terrain):
    customise(terrain)
    old = terrain.material_slots[0].material
    assert bpy.ops.orogen.material_rebuild() == {"FINISHED"}
    new = terrain.material_slots[0].material
    assert new is not old and "my node" not in new.node_tree.nodes
    assert terrain.material_slots[1].material.name == "Extra"


def test_generating_and_editing_are_undoable_steps(orogen):
    # Every operator that changes data registers an undo step (test_undo.py undoes and redoes each).
    for op in (
        bpy.ops.orogen.terrain_add,
        bpy.ops.orogen.terrain_regenerate,
        bpy.ops.orogen.material_rebuild,
        bpy.ops.orogen.profile_add,
        bpy.ops.orogen.layer_add,
        bpy.ops.orogen.layer_remove,
        bpy.ops.orogen.filter_add,
        bpy.ops.orogen.filter_remove,
        bpy.ops.orogen.filter_move,
        bpy.ops.orogen.filter_duplicate,
        bpy.ops.orogen.preset_load,
    ):
        assert {"REGISTER", "UNDO"} <= set(op.bl_options), op


def test_engine_size_presets_set_the_scene_or_the_terrain(scene, orogen):
    assert orogen.addon.ui.sizes.ENGINE_SIZES == (129, 257, 513, 1025, 2049, 4097)
    bpy.ops.orogen.size_set(size=513)
    assert scene.orogen.size == 513
    bpy.ops.orogen.terrain_add(size=17)
    terrain = bpy.context.active_object
    bpy.ops.orogen.size_set(size=129)
    assert terrain.orogen.size == 129 and scene.orogen.size == 513
    assert len(terrain.data.vertices) == 129 * 129  # live update at full size (129 is below the preview size)


def test_the_ui_update_callback_regenerates_the_owning_terrain(terrain, orogen):
    """The update callback used in sessions with a UI (not registered in background ones) ends in the
    same regeneration as the message bus."""
    assert bpy.app.background
    live = orogen.addon.live
    before = positions(terrain)
    terrain.orogen.seed = 21
    live.on_update(terrain.orogen, bpy.context)
    assert not np.array_equal(positions(terrain), before)
    before = positions(terrain)
    terrain.orogen.hills.count = 5
    live.on_update(terrain.orogen.hills, bpy.context)  # a setting of a group inside the terrain's spec
    assert not np.array_equal(positions(terrain), before)
    scene_settings = bpy.context.scene.orogen
    scene_settings.seed = 5
    live.on_update(scene_settings, bpy.context)  # not a terrain: ignored
    assert len(bpy.data.objects) == 1


@pytest.mark.parametrize("shape", [(1025, 3), (3, 1025), (1025, 2)])
def test_a_live_edit_of_an_extreme_aspect_ratio_previews_then_makes_the_full_size(scene, orogen, shape):
    """A preview scaled to *Preview Size* along the longer side would be 257 x 1 (257 x 2 after the 2-vertex
    floor): too small for stream-power erosion (3 x 3 at least). The preview keeps at least 3 vertices (or the
    terrain's own count when smaller) across, so it computes, and the full size follows."""
    rows, cols = shape
    bpy.ops.orogen.terrain_add(size=cols, seed=3, width=1024.0, height=20.0, set=f"size_y={rows}")
    obj = bpy.context.active_object
    assert len(obj.data.vertices) == rows * cols
    assert bpy.ops.orogen.filter_add(type="erosion" if min(shape) >= 3 else "thermal") == {"FINISHED"}
    assert orogen.addon.terrain.settle.flush_live_updates(force=True) == [obj.name]  # the filter's own edit
    assert len(obj.data.vertices) == rows * cols, obj.orogen.status
    change(obj, seed=4)
    preview = orogen.addon.mesh.grid_shape_of(obj.data)
    assert obj.orogen.preview_pending, obj.orogen.status
    assert obj.orogen.status.startswith(f"Regenerated preview {preview[0]} x {preview[1]}"), obj.orogen.status
    assert max(preview) == 257 and min(preview) == min(3, min(shape))
    assert orogen.addon.terrain.settle.flush_live_updates(force=True) == [obj.name]
    assert obj.orogen.status.startswith(f"Regenerated terrain {rows} x {cols}"), obj.orogen.status
    assert len(obj.data.vertices) == rows * cols and not obj.orogen.preview_pending
    expected = orogen.core.TerrainSpec.from_json(obj.orogen.applied).heightmap() * 20.0
    assert np.allclose(positions(obj)[:, 2], expected.ravel(), atol=1e-4)


def test_a_preview_that_fails_falls_back_and_the_full_size_follows(scene, orogen, monkeypatch):
    """Whatever makes a preview fail where the full size would not, the live edit says so and the full size
    still follows (here the preview's computation is made to fail)."""
    bpy.ops.orogen.terrain_add(size=40, seed=3, width=39.0, height=8.0)
    obj = bpy.context.active_object
    obj.orogen.preview_size = 17
    apply = sys.modules[orogen.__name__ + ".addon.terrain.apply"]
    real = apply.compute_terrain

    def failing_preview(spec, sun=None, shape=None, progress=None, inputs=None):
        if shape is not None and shape != spec.shape:
            raise ValueError("heights_m must be at least 3 x 3 cells")
        return real(spec, sun, shape, progress, inputs)

    monkeypatch.setattr(apply, "compute_terrain", failing_preview)
    before = positions(obj)
    change(obj, seed=5)
    assert np.array_equal(positions(obj), before)  # no preview
    assert obj.orogen.status == ("Preview not made (the full size follows): heights_m must be at least 3 x 3 cells"), (
        obj.orogen.status
    )
    assert obj.orogen.preview_pending
    assert orogen.addon.terrain.settle.flush_live_updates(force=True) == [obj.name]
    assert obj.orogen.status.startswith("Regenerated terrain 40 x 40") and not obj.orogen.preview_pending
    assert json.loads(obj.orogen.applied)["seed"] == 5
    assert not np.array_equal(positions(obj), before)


@pytest.mark.parametrize("size", [40, 57])  # the same grid rewritten in place, and a new grid
def test_dimensions_and_bounds_follow_an_in_place_regenerate(terrain, size):
    """Frame Selected and camera framing read ``obj.dimensions`` and ``bound_box``: after a Regenerate with a new
    Width and Height they are the new size, without the user touching anything else."""
    assert tuple(terrain.dimensions)[:2] == pytest.approx((39.0, 39.0))
    terrain.orogen.size = size
    terrain.orogen.width = 120.0
    terrain.orogen.height = 30.0
    terrain.orogen.seed = 8
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    z = positions(terrain)[:, 2]
    assert tuple(terrain.dimensions) == pytest.approx((120.0, 120.0, float(z.max() - z.min())), rel=1e-6)
    assert z.max() - z.min() > 20.0  # the new Height, not the old 8 m
    corners = np.array([tuple(c) for c in terrain.bound_box])
    assert corners.min(axis=0) == pytest.approx([-60.0, -60.0, float(z.min())], abs=1e-4)
    assert corners.max(axis=0) == pytest.approx([60.0, 60.0, float(z.max())], abs=1e-4)
