"""Source masks in Blender: a source's Mask set in the Sources panel's properties, live, a painted vertex group,
the spec JSON, presets, an import's spec= and set=, and undo."""

import json
import sys

import bpy
import numpy as np
import pytest
from recording_layout import RecordingLayout


def z_of(obj) -> np.ndarray:
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)[:, 2].reshape(obj.orogen.size_y or obj.orogen.size, obj.orogen.size)


def expected_z(orogen, spec, inputs=None) -> np.ndarray:
    with orogen.core.inputs.using(inputs or {}):
        return spec.heightmap() * np.float32(spec.height)


def specio(orogen):
    return sys.modules[orogen.__name__ + ".addon.specio"]


@pytest.fixture
def terrain(scene, orogen):
    """A 33 x 33 terrain of hills, 64 x 64 x 16 m, without filters, with a cone source of 6 m over most of it."""
    spec = orogen.core.TerrainSpec(size=33, seed=3, width=64.0, height=16.0, params={"count": 20}, filters=())
    assert bpy.ops.orogen.terrain_add(spec=spec.to_json()) == {"FINISHED"}
    obj = bpy.context.active_object
    assert bpy.ops.orogen.source_add(type="cone") == {"FINISHED"}
    item = obj.orogen.sources[0]
    item.cone.radius, item.cone.crater, item.height = 30.0, 0.0, 6.0
    orogen.addon.live._on_msgbus()
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    return obj


def test_a_mask_set_in_the_panel_limits_the_source_live(terrain, orogen):
    item = terrain.orogen.sources[0]
    assert item.mask.source == "none" and not item.show_mask
    stamped = z_of(terrain).copy()
    bare = expected_z(orogen, specio(orogen).read_spec(terrain.orogen).replace(sources=()))
    low = float(np.median(bare))
    item.mask.source = "height"
    item.mask.low = low
    orogen.addon.live._on_msgbus()  # the live update a property edit starts (no Regenerate)
    spec = specio(orogen).read_spec(terrain.orogen)
    assert spec.sources[0].mask["source"] == "height" and abs(spec.sources[0].mask["low"] - low) < 1e-4
    z = z_of(terrain)
    np.testing.assert_allclose(z, expected_z(orogen, spec), atol=2e-5)
    above = bare >= spec.sources[0].mask["low"]
    assert (above & (stamped != bare)).any() and (~above & (np.abs(stamped - bare) > 1e-3)).any()
    np.testing.assert_allclose(z[~above], bare[~above], atol=2e-5)  # unchanged where the mask is 0
    np.testing.assert_allclose(z[above], stamped[above], atol=2e-5)  # the whole source where it is 1
    item.mask.strength = 0.0  # strength 0: the source changes nothing
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    np.testing.assert_allclose(z_of(terrain), bare, atol=2e-5)


def test_a_painted_vertex_group_limits_the_source(terrain, orogen):
    core = orogen.core
    stamped = z_of(terrain).copy()
    rows, cols = stamped.shape
    group = terrain.vertex_groups.new(name="Crater Field")
    west = [r * cols + c for r in range(rows) for c in range(cols // 2)]
    group.add(west, 1.0, "REPLACE")
    mask = terrain.orogen.sources[0].mask
    mask.source, mask.group = "weights", "Crater Field"
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    spec = specio(orogen).read_spec(terrain.orogen)
    assert spec.objects() == [("sources[0].mask.group", "weights", "Crater Field")]
    painted = np.zeros((rows, cols), np.float32)
    painted[:, : cols // 2] = 1.0
    z = z_of(terrain)
    weights = {("weights", "Crater Field"): core.inputs.WeightsInput(painted, "Crater Field")}
    np.testing.assert_allclose(z, expected_z(orogen, spec, weights), atol=2e-5)
    bare = expected_z(orogen, spec.replace(sources=()))
    np.testing.assert_allclose(z[:, : cols // 2], stamped[:, : cols // 2], atol=2e-5)  # painted: the source
    np.testing.assert_allclose(z[:, cols // 2 :], bare[:, cols // 2 :], atol=2e-5)  # unpainted: as without it
    mask.group = "Nowhere"
    with pytest.raises(RuntimeError, match=r"sources\[0\]\.mask\.group"):
        bpy.ops.orogen.terrain_regenerate()
    np.testing.assert_array_equal(z_of(terrain), z)  # refused: the mesh as it was


def test_spec_json_round_trip_and_preset(terrain, orogen, user_dir):
    core = orogen.core
    spec = core.apply_settings(
        specio(orogen).read_spec(terrain.orogen),
        ["sources[0].mask.source=slope", "sources[0].mask.low=12", "sources[0].mask.blur=3", "sources[1].type=mesa"],
    )
    assert bpy.ops.orogen.terrain_add(spec=spec.to_json()) == {"FINISHED"}
    obj = bpy.context.active_object
    assert obj.orogen.sources[0].mask.source == "slope" and obj.orogen.sources[1].mask.source == "none"
    back = specio(orogen).read_spec(obj.orogen)
    assert back == spec
    data = json.loads(back.to_json())["sources"]
    assert data[0]["mask"]["low"] == 12.0 and "mask" not in data[1]  # written only when not the default
    np.testing.assert_allclose(z_of(obj), expected_z(orogen, spec), atol=2e-5)
    assert bpy.ops.orogen.preset_save(name="masked sources test") == {"FINISHED"}
    try:
        obj.orogen.sources[0].mask.source = "none"
        assert bpy.ops.orogen.preset_load(name="user:masked_sources_test") == {"FINISHED"}
        assert obj.orogen.sources[0].mask.source == "slope" and obj.orogen.sources[0].mask.blur == 3.0
        assert specio(orogen).read_spec(obj.orogen) == spec
    finally:
        bpy.ops.orogen.preset_remove(name="masked_sources_test")
    # duplicating the source keeps its mask
    obj.orogen.active_source = 0
    assert bpy.ops.orogen.source_duplicate() == {"FINISHED"}
    assert obj.orogen.sources[1].mask.source == "slope" and obj.orogen.sources[1].mask.low == 12.0


def test_undo_of_a_source_mask_edit(terrain, orogen):
    bpy.ops.ed.undo_push(message="terrain")
    name = terrain.name
    before = z_of(terrain).copy()
    terrain.orogen.sources[0].mask.source = "slope"
    terrain.orogen.sources[0].mask.high = 8.0
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    bpy.ops.ed.undo_push(message="Regenerate Terrain")
    after = z_of(bpy.data.objects[name]).copy()
    assert not np.array_equal(before, after)
    assert bpy.ops.ed.undo() == {"FINISHED"}
    obj = bpy.data.objects[name]
    assert obj.orogen.sources[0].mask.source == "none" and np.array_equal(z_of(obj), before)
    assert bpy.ops.ed.redo() == {"FINISHED"}
    obj = bpy.data.objects[name]
    assert obj.orogen.sources[0].mask.source == "slope" and np.array_equal(z_of(obj), after)


def test_the_sources_panel_draws_each_sources_mask(terrain, orogen):
    draw = sys.modules[orogen.__name__ + ".addon.ui.draw"]
    layout = RecordingLayout()
    shown = layout.shown
    draw.draw_source_items(layout, terrain.orogen)
    mask = terrain.orogen.sources[0].mask
    assert {name for data, name in shown if data == mask} == {p.name for p in orogen.core.MASK_PARAMS}
    mask.source = "noise"
    inactive = draw.inactive_settings(mask, orogen.core.MASK_PARAMS)
    assert "noise_size" not in inactive and "group" in inactive and "image" in inactive


def test_an_import_keeps_a_sources_mask_from_spec_and_set(scene, orogen, tmp_path):
    """A heightmap file as the terrain's start, a cone on it only above 20 m: from the importer's spec= and
    set=, the mesh the spec's heights."""
    core = orogen.core
    y, x = np.mgrid[0:21, 0:33]
    metres = (40.0 * (0.5 + 0.5 * np.sin(x / 4.0) * np.cos(y / 3.0))).astype(np.float32)
    path = str(tmp_path / "start.npy")
    core.io.formats.write_npy(path, metres)
    cone = core.sources.Source("cone", {"radius": 40.0, "crater": 0.0}, {"height": 15.0}, {"source": "height"})
    look = core.TerrainSpec(filters=(), sources=(cone,))
    assert bpy.ops.orogen.heightmap_import(
        filepath=path, width=64.0, height=40.0, spec=look.to_json(), set="sources[0].mask.low=20", location=(0, 0, 0)
    ) == {"FINISHED"}
    obj = bpy.context.active_object
    assert obj.orogen.sources[0].mask.source == "height" and obj.orogen.sources[0].mask.low == 20.0
    spec = specio(orogen).read_spec(obj.orogen)
    z = z_of(obj)
    np.testing.assert_allclose(z, expected_z(orogen, spec), atol=2e-5)
    bare = expected_z(orogen, spec.replace(sources=()))
    below = bare < 20.0
    assert below.any() and (~below).any()
    np.testing.assert_allclose(z[below], bare[below], atol=2e-5)  # the cone only where the file is above 20 m
    assert not np.allclose(z[~below], bare[~below], atol=1e-3)
