"""The sources stack in Blender: added and edited from the panel's operators, live, in the spec JSON and presets."""

import json

import bpy
import numpy as np
import pytest


def mesh_z(obj) -> np.ndarray:
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)[:, 2].copy()


@pytest.fixture
def terrain(scene, orogen):
    """A 33 x 33 terrain of hills, 64 x 64 x 8 m, without filters (so sources show as they are)."""
    spec = orogen.core.TerrainSpec(size=33, seed=3, width=64.0, height=8.0, params={"count": 20}, filters=())
    assert bpy.ops.orogen.terrain_add(spec=spec.to_json()) == {"FINISHED"}
    return bpy.context.active_object


def same_heights(obj, spec) -> bool:
    """The mesh holds ``spec``'s heights in metres (compared as sorted values: the vertex order is the mesh's)."""
    return np.allclose(np.sort(mesh_z(obj)), np.sort(spec.heightmap().ravel() * np.float32(spec.height)), atol=1e-4)


def test_a_stamp_added_from_the_panel_changes_the_terrain_live(terrain, orogen):
    specio = orogen.addon.specio
    z0 = mesh_z(terrain)
    assert bpy.ops.orogen.source_add(type="cone") == {"FINISHED"}
    item = terrain.orogen.sources[0]
    assert item.type == "cone" and item.blend == "add" and item.opacity == 1.0 and terrain.orogen.active_source == 0
    z1 = mesh_z(terrain)
    spec = specio.read_spec(terrain.orogen)
    assert spec.sources[0].key == "cone"
    assert not np.array_equal(z0, z1) and same_heights(terrain, spec)
    assert abs(float((z1 - z0).max()) - 10.0) < 0.05  # the cone's 10 m summit (crater rim at 0.4 of the radius)
    # opacity from the panel's property: half the cone
    item.opacity = 0.5
    orogen.addon.live._on_msgbus()
    z2 = mesh_z(terrain)
    assert np.allclose(z2 - z0, (z1 - z0) * 0.5, atol=1e-4)
    assert specio.read_spec(terrain.orogen).sources[0].settings["opacity"] == 0.5


def test_stack_operators_and_poll_messages(terrain, orogen):
    with pytest.raises(RuntimeError, match="The sources stack is empty"):
        bpy.ops.orogen.source_remove()
    for kind in ("crater", "fractal", "ridge"):
        assert bpy.ops.orogen.source_add(type=kind) == {"FINISHED"}
    terrain.orogen.active_source = 2
    assert bpy.ops.orogen.source_move(direction="UP") == {"FINISHED"}
    assert bpy.ops.orogen.source_duplicate() == {"FINISHED"}
    assert [s.type for s in terrain.orogen.sources] == ["crater", "ridge", "ridge", "fractal"]
    terrain.orogen.active_source = 0
    assert bpy.ops.orogen.source_move(direction="UP") == {"CANCELLED"}
    assert bpy.ops.orogen.source_remove() == {"FINISHED"}
    spec = orogen.addon.specio.read_spec(terrain.orogen)
    assert [s.key for s in spec.sources] == ["ridge", "ridge", "fractal"]
    assert same_heights(terrain, spec)


def test_spec_json_round_trip(scene, orogen):
    core = orogen.core
    spec = core.apply_settings(
        core.TerrainSpec(size=33, width=64.0, height=8.0),
        [
            "sources[0].type=crater",
            "sources[0].radius=9.5",
            "sources[0].rotation=30",
            "sources[0].offset_x=-4.5",
            "sources[1].type=fractal",
            "sources[1].blend=max",
            "sources[1].opacity=0.75",
            "sources[1].feature_size=20",
            "sources[1].enabled=false",
        ],
    )
    assert bpy.ops.orogen.terrain_add(spec=spec.to_json()) == {"FINISHED"}
    obj = bpy.context.active_object
    assert [s.type for s in obj.orogen.sources] == ["crater", "fractal"]
    assert obj.orogen.sources[1].fractal.feature_size == 20.0 and not obj.orogen.sources[1].enabled
    back = orogen.addon.specio.read_spec(obj.orogen)
    assert back == spec
    assert json.loads(back.to_json())["sources"] == json.loads(spec.to_json())["sources"]
    # write_spec onto another terrain's settings and read back: the same
    bpy.ops.orogen.terrain_add(size=17)
    other = bpy.context.active_object
    orogen.addon.specio.write_spec(other.orogen, spec)
    assert orogen.addon.specio.read_spec(other.orogen) == spec
    orogen.addon.specio.write_spec(other.orogen, spec.replace(sources=()))
    assert len(other.orogen.sources) == 0


def test_set_reaches_sources(scene, orogen):
    assert bpy.ops.orogen.terrain_add(size=17, set="sources[0].type=mesa;sources[0].height=3") == {"FINISHED"}
    obj = bpy.context.active_object
    assert obj.orogen.sources[0].type == "mesa" and obj.orogen.sources[0].height == 3.0


def test_a_preset_keeps_the_sources(terrain, orogen):
    assert bpy.ops.orogen.source_add(type="crater") == {"FINISHED"}
    terrain.orogen.sources[0].crater.radius = 7.5
    terrain.orogen.sources[0].blend = "min"
    saved = orogen.addon.specio.read_spec(terrain.orogen)
    assert bpy.ops.orogen.preset_save(name="with sources test") == {"FINISHED"}
    try:
        assert bpy.ops.orogen.source_remove() == {"FINISHED"}
        assert len(terrain.orogen.sources) == 0
        assert bpy.ops.orogen.preset_load(name="user:with_sources_test") == {"FINISHED"}
        assert [s.type for s in terrain.orogen.sources] == ["crater"]
        assert orogen.addon.specio.read_spec(terrain.orogen) == saved
        assert bpy.ops.orogen.preset_load(name="island") == {"FINISHED"}  # a preset without sources clears them
        assert len(terrain.orogen.sources) == 0
    finally:
        bpy.ops.orogen.preset_remove(name="with_sources_test")


def test_an_image_stamp_reads_its_file(terrain, orogen, tmp_path):
    img = np.zeros((9, 9), dtype=np.float32)
    img[4, 4] = 1.0
    np.save(tmp_path / "spike.npy", img)
    z0 = mesh_z(terrain)
    assert bpy.ops.orogen.source_add(type="image") == {"FINISHED"}
    assert "image.image" in terrain.orogen.status, terrain.orogen.status  # no file yet: it says why
    assert np.array_equal(mesh_z(terrain), z0)  # and keeps its mesh
    item = terrain.orogen.sources[0]
    item.image.radius = 16.0
    item.height = 5.0
    item.image.image = str(tmp_path / "spike.npy")
    orogen.addon.live._on_msgbus()
    spec = orogen.addon.specio.read_spec(terrain.orogen)
    assert same_heights(terrain, spec)
    assert abs(float((mesh_z(terrain) - z0).max()) - 5.0) < 1e-3
