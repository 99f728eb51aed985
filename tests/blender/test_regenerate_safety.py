"""Regenerate owns only what it made: shape keys, the user's data, linked duplicates, edited meshes, exports."""

import json

import bpy
import numpy as np
import pytest


def positions(mesh):
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def key_co(block):
    co = np.empty(len(block.data) * 3, dtype=np.float32)
    block.data.foreach_get("co", co)
    return co.reshape(-1, 3)


def evaluated_positions(obj):
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        return positions(mesh)
    finally:
        evaluated.to_mesh_clear()


@pytest.fixture
def terrain(scene):
    bpy.ops.orogen.terrain_add(
        size=40, seed=3, width=39.0, height=8.0, set="hills.count=60; hills.radius_min=3; hills.radius_max=10"
    )
    obj = bpy.context.active_object
    obj.orogen.live_update = False
    return obj


def expected_z(orogen, size, seed):
    """The fixture's terrain at ``size`` vertices: 39 m wide whatever its size, hill radii 3 to 10 m (version 3:
    a size change resamples the same landscape), flattened, in units of Height (8 m)."""
    hills = {"count": 60, "radius_min": 3.0, "radius_max": 10.0}
    recipe = orogen.core.recipe.Recipe(
        "hills",
        seed,
        (size, size),
        hills,
        (("flatten", {"exponent": 1.5}),),
        cell_size=39.0 / (size - 1),
        height=8.0,
        version=3,
        fit_height=False,
    )
    return (recipe.evaluate() * np.float32(8.0)).ravel()


def regenerate(obj, **settings):
    for name, value in settings.items():
        setattr(obj.orogen, name, value)
    obj.select_set(True)  # picked as a click does: selected and active
    bpy.context.view_layer.objects.active = obj
    return bpy.ops.orogen.terrain_regenerate()


def add_raise_key(obj, rise=2.0):
    obj.shape_key_add(name="Basis")
    key = obj.shape_key_add(name="Raise", from_mix=False)
    co = key_co(key)
    co[:, 2] += rise
    key.data.foreach_set("co", co.ravel())
    key.value = 0.5
    return key


# --- shape keys --------------------------------------------------------------------------------
def test_shape_keys_follow_a_regeneration_at_the_same_size(terrain, orogen):
    add_raise_key(terrain)
    assert regenerate(terrain, seed=4) == {"FINISHED"}
    keys = terrain.data.shape_keys.key_blocks
    z = expected_z(orogen, 40, 4)
    assert np.array_equal(key_co(keys["Basis"])[:, 2], z)  # the Basis, which Blender shows, is the new terrain
    assert np.allclose(key_co(keys["Raise"])[:, 2] - z, 2.0, atol=1e-5)  # the key keeps its offset
    assert np.allclose(evaluated_positions(terrain)[:, 2], z + 1.0, atol=1e-5)  # what the viewport shows
    assert np.array_equal(positions(terrain.data)[:, 2], z)


def test_shape_keys_are_resampled_on_a_size_change_and_edit_mode_stays_finite(terrain, orogen):
    add_raise_key(terrain)
    terrain.data.shape_keys.key_blocks["Raise"].slider_max = 3.0
    terrain.data.shape_keys.key_blocks["Raise"].value = 2.5
    assert regenerate(terrain, size=60) == {"FINISHED"}
    keys = terrain.data.shape_keys.key_blocks
    assert [k.name for k in keys] == ["Basis", "Raise"] and all(len(k.data) == 3600 for k in keys)
    assert keys["Raise"].value == pytest.approx(2.5) and keys["Raise"].slider_max == pytest.approx(3.0)
    assert keys["Raise"].relative_key == keys["Basis"]
    z = expected_z(orogen, 60, 3)
    assert np.array_equal(key_co(keys["Basis"])[:, 2], z)
    assert np.allclose(key_co(keys["Raise"])[:, 2] - z, 2.0, atol=1e-5)
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.object.mode_set(mode="OBJECT")
    co = positions(terrain.data)
    assert np.isfinite(co).all() and np.abs(co).max() < 100
    assert np.allclose(evaluated_positions(terrain)[:, 2], z + 5.0, atol=1e-5)


def test_a_grid_with_shape_keys_is_never_rebuilt_with_stale_keys(terrain, orogen):
    add_raise_key(terrain)
    h = np.zeros((7, 7), np.float32)
    with pytest.raises(ValueError, match="shape keys"):
        orogen.addon.mesh.update_grid_mesh(terrain.data, h, 10.0, 2.0)


# --- the user's data on a size change ----------------------------------------------------------
def paint_user_data(obj):
    """A vertex group, a second UV map, a painted colour, a corner colour, custom attributes (a linear ramp
    in x each, so the resampled values are known), a face material index and sharp edges."""
    mesh = obj.data
    co = positions(mesh)
    ramp = (co[:, 0] - co[:, 0].min()) / np.ptp(co[:, 0])  # 0 on the west edge, 1 on the east
    group = obj.vertex_groups.new(name="Forest")
    east = np.flatnonzero(ramp >= 0.5)
    for i in east:
        group.add([int(i)], float(ramp[i]), "REPLACE")
    mesh.attributes.new("wetness", "FLOAT", "POINT").data.foreach_set("value", ramp)
    mesh.attributes.new("zone", "INT", "POINT").data.foreach_set("value", (ramp > 0.5).astype(np.int32))
    paint = mesh.color_attributes.new("Paint", "FLOAT_COLOR", "POINT")
    rgba = np.stack([ramp, 1 - ramp, np.zeros_like(ramp), np.ones_like(ramp)], axis=1).astype(np.float32)
    paint.data.foreach_set("color", rgba.ravel())
    uv = mesh.uv_layers.new(name="Detail")
    base = np.empty(len(mesh.loops) * 2, dtype=np.float32)
    mesh.uv_layers["UVMap"].data.foreach_get("uv", base)
    uv.data.foreach_set("uv", (base * 4.0).ravel())  # a tiling UV map: four repeats
    mesh.attributes.new("material_index", "INT", "FACE").data.foreach_set(
        "value", np.arange(len(mesh.polygons), dtype=np.int32) % 2
    )
    return ramp


def test_a_size_change_keeps_the_users_data_resampled(terrain, orogen):
    paint_user_data(terrain)
    assert regenerate(terrain, size=60) == {"FINISHED"}
    assert "resampled" in terrain.orogen.status
    mesh = terrain.data
    assert len(mesh.vertices) == 3600
    co = positions(mesh)
    ramp = (co[:, 0] - co[:, 0].min()) / np.ptp(co[:, 0])
    wetness = np.empty(3600, np.float32)
    mesh.attributes["wetness"].data.foreach_get("value", wetness)
    assert np.allclose(wetness, ramp, atol=1e-5)  # bilinear on the grid: a linear ramp is exact
    paint = np.empty(3600 * 4, np.float32)
    mesh.color_attributes["Paint"].data.foreach_get("color", paint)
    assert np.allclose(paint.reshape(-1, 4)[:, 0], ramp, atol=1e-5)
    zone = np.empty(3600, np.int32)
    mesh.attributes["zone"].data.foreach_get("value", zone)
    assert set(np.unique(zone)) == {0, 1} and np.all(zone[ramp < 0.45] == 0) and np.all(zone[ramp > 0.55] == 1)
    # The second UV map: still a UV map, still four repeats of the terrain's own.
    assert [uv.name for uv in mesh.uv_layers] == ["UVMap", "Detail"]
    base, detail = (np.empty(len(mesh.loops) * 2, np.float32) for _ in range(2))
    mesh.uv_layers["UVMap"].data.foreach_get("uv", base)
    mesh.uv_layers["Detail"].data.foreach_get("uv", detail)
    assert np.allclose(detail, base * 4.0, atol=1e-4)
    # The vertex group: members where the old members were, weights the ramp.
    group = terrain.vertex_groups["Forest"]
    weights = np.full(3600, -1.0)
    for vertex in mesh.vertices:
        for element in vertex.groups:
            if element.group == group.index:
                weights[vertex.index] = element.weight
    members = weights >= 0
    assert np.all(members[ramp > 0.52]) and not np.any(members[ramp < 0.48])
    inside = members & (ramp > 0.53)  # away from the group's border: bilinear among members, exact on a ramp
    assert np.allclose(weights[inside], ramp[inside], atol=1e-4)
    assert np.allclose(weights[members], ramp[members], atol=1.0 / 39)  # on it: the members' side, within a cell
    materials = np.empty(len(mesh.polygons), np.int32)
    mesh.attributes["material_index"].data.foreach_get("value", materials)
    assert set(np.unique(materials)) == {0, 1}
    # Orogen's own attributes are rewritten, not resampled.
    z = expected_z(orogen, 60, 3)
    assert np.array_equal(co[:, 2], z)
    assert mesh.validate() is False


def test_the_same_size_keeps_the_users_data_untouched(terrain):
    paint_user_data(terrain)
    before = np.empty(1600, np.float32)
    terrain.data.attributes["wetness"].data.foreach_get("value", before)
    assert regenerate(terrain, seed=9) == {"FINISHED"}
    after = np.empty(1600, np.float32)
    terrain.data.attributes["wetness"].data.foreach_get("value", after)
    assert np.array_equal(before, after) and "Forest" in terrain.vertex_groups and "Detail" in terrain.data.uv_layers


def test_live_preview_and_full_size_keep_the_users_data(terrain, orogen):
    paint_user_data(terrain)
    terrain.orogen.live_update = True
    terrain.orogen.preview_size = 20
    own = terrain.data
    live = orogen.addon.live
    terrain.orogen.seed = 5
    live.on_setting_changed(terrain, bpy.context)  # a preview 20 x 20 in Orogen's own preview mesh
    assert len(terrain.data.vertices) == 400 and terrain.data != own
    orogen.addon.terrain.settle.flush_live_updates(force=True)
    assert terrain.data == own and len(own.vertices) == 1600 and "wetness" in own.attributes
    assert "Forest" in terrain.vertex_groups


# --- meshes that are no longer Orogen's grid ---------------------------------------------------
def reorder_vertices(obj):
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.mesh.sort_elements(type="RANDOMIZE", elements={"VERT"}, seed=1)
    bpy.ops.object.mode_set(mode="OBJECT")


def test_a_reordered_mesh_is_not_taken_for_the_grid(terrain, orogen):
    reorder_vertices(terrain)
    assert len(terrain.data.vertices) == 1600 and not orogen.addon.mesh.is_grid_of(terrain.data, 40, 40)
    assert regenerate(terrain, seed=4) == {"FINISHED"}
    assert "no longer Orogen's grid" in terrain.orogen.status and "rebuilt" in terrain.orogen.status
    assert orogen.addon.mesh.is_grid_of(terrain.data, 40, 40)
    assert np.array_equal(positions(terrain.data)[:, 2], expected_z(orogen, 40, 4))


def test_an_edited_mesh_with_the_users_data_is_refused_with_what_would_be_lost(terrain, orogen):
    paint_user_data(terrain)
    reorder_vertices(terrain)
    before = positions(terrain.data).copy()
    with pytest.raises(RuntimeError, match="no longer Orogen's grid.*'Forest'"):
        regenerate(terrain, seed=4)
    assert np.array_equal(positions(terrain.data), before) and "wetness" in terrain.data.attributes


def test_edited_faces_with_the_same_counts_are_not_the_grid(terrain, orogen):
    mesh = terrain.data
    corners = np.empty(len(mesh.loops), np.int32)
    mesh.attributes[".corner_vert"].data.foreach_get("value", corners)
    corners[:4] = corners[[1, 2, 3, 0]]  # one face turned: same counts, other corners
    mesh.attributes[".corner_vert"].data.foreach_set("value", corners)
    assert not orogen.addon.mesh.is_grid_of(mesh, 40, 40)
    assert orogen.addon.mesh.grid_shape_of(mesh) is None


# --- linked duplicates -------------------------------------------------------------------------
def test_linked_duplicates_share_the_spec_with_their_mesh(terrain, orogen):
    twin = terrain.copy()  # Alt+D: a second object on the same mesh, with its own copy of the settings
    bpy.context.scene.collection.objects.link(twin)
    assert twin.data == terrain.data
    assert regenerate(terrain, seed=11) == {"FINISHED"}
    assert twin.name in terrain.orogen.status
    assert twin.data == terrain.data  # still linked: editing one edits both, as Blender's linked data does
    assert twin.orogen.seed == 11 and twin.orogen.applied == terrain.orogen.applied
    assert json.loads(twin["orogen_terrain"]) == json.loads(terrain["orogen_terrain"])
    # The twin's own spec regenerates the same geometry it shows.
    z = positions(twin.data)[:, 2].copy()
    assert regenerate(twin) == {"FINISHED"}
    assert np.array_equal(positions(terrain.data)[:, 2], z)


# --- export of an edited mesh ------------------------------------------------------------------
def export(obj, folder, fmt="NPY"):
    obj.select_set(True)  # picked as a click does: selected and active
    bpy.context.view_layer.objects.active = obj
    return bpy.ops.orogen.export_maps(
        directory=str(folder),
        name="t",
        heightmap_format=fmt,
        use_lightmap=False,
        use_colormap=False,
        use_normal_map=False,
        use_data_maps=False,
        use_splat_maps=False,
    )


def test_export_writes_the_mesh_as_edited(terrain, orogen, tmp_path):
    co = positions(terrain.data)
    co[500, 2] += 3.0  # a hand edit
    terrain.data.vertices.foreach_set("co", co.ravel())
    terrain.data.update()
    assert export(terrain, tmp_path) == {"FINISHED"}
    h = np.load(tmp_path / "t_height.npy")
    sidecar = json.loads((tmp_path / "t_height.npy.json").read_text())
    low, high = sidecar["height_range_m"]
    assert np.allclose(low + h.ravel() * (high - low), co[:, 2], atol=1e-4)
    assert sidecar["edited_vertices"] == 1 and sidecar["spec"] is None and sidecar["spec_before_edits"]["seed"] == 3


def test_export_includes_shape_keys_as_shown(terrain, orogen, tmp_path):
    add_raise_key(terrain)
    assert export(terrain, tmp_path) == {"FINISHED"}
    h = np.load(tmp_path / "t_height.npy")
    low, high = json.loads((tmp_path / "t_height.npy.json").read_text())["height_range_m"]
    assert np.allclose(low + h.ravel() * (high - low), expected_z(orogen, 40, 3) + 1.0, atol=1e-4)


def test_an_unedited_export_is_the_generated_heightmap_bit_for_bit(terrain, orogen, tmp_path):
    assert export(terrain, tmp_path) == {"FINISHED"}
    h = np.load(tmp_path / "t_height.npy")
    assert np.array_equal(h, orogen.addon.io.heightmaps.heightmap_from_mesh(terrain))
    assert "edited_vertices" not in json.loads((tmp_path / "t_height.npy.json").read_text())


def test_a_mesh_moved_off_its_grid_is_not_exported_as_a_heightmap(terrain, tmp_path):
    co = positions(terrain.data)
    co[500, 0] += 0.4
    terrain.data.vertices.foreach_set("co", co.ravel())
    terrain.data.update()
    with pytest.raises(RuntimeError, match="no longer stand on the terrain's grid"):
        export(terrain, tmp_path)
