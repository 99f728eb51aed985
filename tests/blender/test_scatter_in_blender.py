"""Trees and rocks: the "Orogen Scatter" Geometry Nodes modifier, its placeholders and Add Scatter."""

import json
import math
import sys

import bpy
import numpy as np
import pytest
from top_view import emission_material, plain_top_view

SIZE, WIDTH = 65, 256.0  # 4 m cells
CLIFF_X = 0.0  # west of it gentle ground (5 degrees), east of it a cliff face (60 degrees)


def terrain(seed=4):
    bpy.ops.orogen.terrain_add(
        spec=json.dumps(
            {
                "version": 2,
                "size": SIZE,
                "seed": seed,
                "width": WIDTH,
                "height": 60.0,
                "generator": "hills",
                "hills": {"count": 20, "radius_min": 10, "radius_max": 40},
                "filters": [],
            }
        )
    )
    return bpy.context.active_object


def gentle_and_cliff(obj):
    """Reshape the mesh: rising 5 degrees eastward to x = 0, then 60 degrees (its normals follow)."""
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    x = co[:, 0].astype(np.float64) + WIDTH / 2
    edge = WIDTH / 2 + CLIFF_X
    co[:, 2] = np.where(x < edge, x * math.tan(math.radians(5)), edge * math.tan(math.radians(5)))
    co[:, 2] += np.clip(x - edge, 0, None) * math.tan(math.radians(60))
    obj.data.vertices.foreach_set("co", co.ravel())
    obj.data.update()


def scatter_module(orogen):
    return sys.modules[orogen.__name__ + ".addon.scatter"]


def instances(obj):
    """World positions and matrices of the instances the scatter puts on ``obj``, in the depsgraph's order."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    depsgraph.update()
    mats = [
        np.array(i.matrix_world, dtype=np.float64)
        for i in depsgraph.object_instances
        if i.is_instance and i.parent is not None and i.parent.original == obj and i.object.type == "MESH"
    ]
    return np.array(mats).reshape(-1, 4, 4)


def add_scatter(**settings):
    settings.setdefault("viewport_points", False)  # the test's depsgraph is a viewport's: show the instances
    return bpy.ops.orogen.scatter_add(**settings)


@pytest.mark.smoke
def test_density_follows_the_slope_and_spacing_is_kept(scene, orogen):
    obj = terrain()
    gentle_and_cliff(obj)
    assert add_scatter(kind="CONIFERS", seed=3, density=400.0, spacing=3.0) == {"FINISHED"}
    mats = instances(obj)
    xy = mats[:, :2, 3]
    gentle = (xy[:, 0] < CLIFF_X - 8).sum() / ((WIDTH / 2 - 8) * WIDTH)
    cliff = (xy[:, 0] > CLIFF_X + 8).sum() / ((WIDTH / 2 - 8) * WIDTH)
    assert gentle * 1e4 > 100.0  # per hectare: a forest on the gentle side ...
    assert gentle > 20 * max(cliff, 1e-9)  # ... and next to nothing on the cliff (slope max 35 + 5 degrees)
    # Poisson disc: no two trees closer than the spacing (on the surface: all are sunk by the same 0.5 m).
    xyz = mats[:, :3, 3]
    d = np.linalg.norm(xyz[:, None, :] - xyz[None, :, :], axis=2)
    np.fill_diagonal(d, np.inf)
    assert d.min() >= 3.0 * 0.999
    # Conifers stand upright (align 0) and range 10 to 30 m (scale 0.5 to 1.5 of 20 m).
    up = mats[:, :3, 2] / np.linalg.norm(mats[:, :3, 2], axis=1)[:, None]
    assert up[:, 2].min() > 0.9999
    scale = np.linalg.norm(mats[:, :3, 2], axis=1)
    assert scale.min() >= 0.5 - 1e-6 and scale.max() <= 1.5 + 1e-6 and scale.max() - scale.min() > 0.5


def test_same_seed_same_instances_another_seed_others(scene, orogen):
    obj = terrain()
    add_scatter(kind="BOULDERS", seed=7)
    first = instances(obj)
    assert len(first) > 50
    modifier = obj.modifiers["Orogen Boulders"]
    module = scatter_module(orogen)
    module.set_inputs(modifier, {"Seed": 8})
    other = instances(obj)
    assert len(other) > 50 and (len(other) != len(first) or not np.array_equal(other, first))
    module.set_inputs(modifier, {"Seed": 7})
    assert np.array_equal(instances(obj), first)
    # A new terrain and scatter with the same settings: the same instances, bit for bit.
    bpy.ops.wm.read_homefile(use_empty=True)
    obj = terrain()
    add_scatter(kind="BOULDERS", seed=7)
    assert np.array_equal(instances(obj), first)
    # Boulders lean with the ground (align 1): their Z axis is the surface normal, not the vertical.
    up = first[:, :3, 2] / np.linalg.norm(first[:, :3, 2], axis=1)[:, None]
    assert up[:, 2].min() < 0.99


def test_rerunning_updates_one_modifier_and_regenerate_keeps_it(scene, orogen):
    obj = terrain()
    module = scatter_module(orogen)
    add_scatter(kind="CONIFERS", seed=1)
    add_scatter(kind="CONIFERS", seed=2, density=50.0)
    assert [m.name for m in module.scatter_modifiers(obj)] == ["Orogen Conifers"]
    assert module.get_input(obj.modifiers["Orogen Conifers"], "Seed") == 2
    add_scatter(kind="BROADLEAF")
    assert [m.name for m in module.scatter_modifiers(obj)] == ["Orogen Conifers", "Orogen Broadleaf Trees"]
    groups = [g for g in bpy.data.node_groups if g.get(module.GROUP_PROPERTY)]
    collections = [c for c in bpy.data.collections if c.get("orogen_scatter_placeholder")]
    assert len(groups) == 1 and len(collections) == 2
    assert all(c.name not in scene.collection.children for c in collections)  # linked to no scene
    before = instances(obj)
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert len(module.scatter_modifiers(obj)) == 2 and np.array_equal(instances(obj), before)
    assert obj.data.attributes.get(module.WETNESS_ATTRIBUTE) is not None
    # The kind's defaults: conifers 10-30 m upright, boulders aligned.
    conifers = obj.modifiers["Orogen Conifers"]
    assert module.get_input(conifers, "Align") == 0.0
    assert module.get_input(conifers, "Scale Min") * 20.0 == pytest.approx(10.0)
    # Remove takes every scatter off and the placeholders no scatter uses.
    assert bpy.ops.orogen.scatter_remove() == {"FINISHED"}
    assert module.scatter_modifiers(obj) == [] and len(instances(obj)) == 0
    assert not [g for g in bpy.data.node_groups if g.get(module.GROUP_PROPERTY)]
    assert not [c for c in bpy.data.collections if c.get("orogen_scatter_placeholder")]


def test_viewport_shows_points_renders_instances(scene, orogen):
    obj = terrain()
    add_scatter(kind="CONIFERS", seed=3, viewport_points=True)
    assert len(instances(obj)) == 0  # the viewport: points only
    depsgraph = bpy.context.evaluated_depsgraph_get()
    clouds = [len(i.object.data.points) for i in depsgraph.object_instances if i.object.type == "POINTCLOUD"]
    assert len(clouds) == 1 and clouds[0] > 50
    module = scatter_module(orogen)
    module.set_inputs(obj.modifiers["Orogen Conifers"], {"Viewport Points": False})
    assert len(instances(obj)) == clouds[0]  # one instance on each point
    group = obj.modifiers["Orogen Conifers"].node_group
    assert any(n.bl_idname == "GeometryNodeIsViewport" for n in group.nodes)  # a render shows the instances
    assert not any(n.bl_idname == "GeometryNodeRealizeInstances" for n in group.nodes)


def test_wetness_and_a_colour_layer_steer_the_density(scene, orogen):
    obj = terrain()
    module = scatter_module(orogen)
    add_scatter(kind="BROADLEAF", seed=5, density=400.0, spacing=2.0, wetness_min=-100.0)
    assert obj.data.attributes.get(module.WETNESS_ATTRIBUTE) is None  # no scatter reads it: not baked
    everywhere = len(instances(obj))
    add_scatter(kind="BROADLEAF", seed=5, density=400.0, spacing=2.0, wetness_min=-99.0)  # all ground is wetter
    assert len(instances(obj)) == everywhere
    wet = np.empty(len(obj.data.vertices), dtype=np.float32)
    obj.data.attributes[module.WETNESS_ATTRIBUTE].data.foreach_get("value", wet)
    assert np.isfinite(wet).all() and wet.max() - wet.min() > 3.0
    median = float(np.median(wet))
    add_scatter(kind="BROADLEAF", seed=5, density=400.0, spacing=2.0, wetness_min=median, wetness_softness=0.0)
    assert 0.3 * everywhere < len(instances(obj)) < 0.7 * everywhere  # the wetter half of the ground
    # A colour layer: only where it shows (the default layers' first).
    layer = obj.orogen.layers[0].name if len(obj.orogen.layers) else None
    if layer is None:
        pytest.skip("the terrain has no colour layers")
    add_scatter(kind="BROADLEAF", seed=5, density=400.0, spacing=2.0, wetness_min=-100.0, layer=layer)
    weight = obj.data.attributes[module.layer_attribute(layer)]
    values = np.empty(len(weight.data), dtype=np.float32)
    weight.data.foreach_get("value", values)
    assert values.min() >= 0.0 and values.max() <= 1.0 + 1e-6
    assert 0 < len(instances(obj)) < everywhere
    with pytest.raises(RuntimeError, match="no colour layer called 'no such layer'"):
        add_scatter(kind="BROADLEAF", layer="no such layer")


def test_errors_leave_the_scene_as_it_was(scene, orogen, monkeypatch):
    obj = terrain()
    with pytest.raises(RuntimeError, match="no collection called"):
        add_scatter(kind="CONIFERS", collection="Nope")
    with pytest.raises(RuntimeError, match="Scale Min"):
        add_scatter(kind="CONIFERS", scale_min=2.0, scale_max=1.0)
    assert len(obj.modifiers) == 0
    assert not [g for g in bpy.data.node_groups if g.get("orogen_scatter_group")]
    assert not [c for c in bpy.data.collections if c.get("orogen_scatter_placeholder")]
    # A failed re-run leaves the scatter as it was.
    add_scatter(kind="BOULDERS", seed=5)
    module = scatter_module(orogen)
    boulders = obj.modifiers["Orogen Boulders"]
    before = {k: boulders[k] for k in boulders.keys() if not hasattr(boulders[k], "name")}
    with pytest.raises(RuntimeError, match="no colour layer"):
        add_scatter(kind="BOULDERS", seed=6, layer="nope")
    with pytest.raises(RuntimeError, match="holds no objects"):
        bpy.data.collections.new("Empty")
        add_scatter(kind="BOULDERS", seed=6, collection="Empty")
    ops = sys.modules[orogen.__name__ + ".addon.ops.scatter"]

    def failing_bake(*_args):
        raise ValueError("the bake failed")

    monkeypatch.setattr(ops, "sync_scatter", failing_bake)  # a failure after the inputs were set
    with pytest.raises(RuntimeError, match="the bake failed"):
        add_scatter(kind="BOULDERS", seed=6, density=1.0)
    monkeypatch.undo()
    assert {k: boulders[k] for k in before} == before and module.get_input(boulders, "Seed") == 5
    assert module.get_input(boulders, "Collection").get("orogen_scatter_placeholder") == "boulders"
    bpy.ops.orogen.scatter_remove()
    # A modifier of the user's own with the scatter's name is not taken.
    obj.modifiers.new("Orogen Conifers", "SMOOTH")
    with pytest.raises(RuntimeError, match="of its own"):
        add_scatter(kind="CONIFERS")
    assert [m.type for m in obj.modifiers] == ["SMOOTH"]
    # Not a terrain: the poll says why.
    bpy.ops.object.select_all(action="DESELECT")
    with pytest.raises(RuntimeError, match="Select a terrain"):
        add_scatter(kind="CONIFERS")


def test_a_users_collection_is_placed(scene, orogen):
    obj = terrain()
    mine = bpy.data.collections.new("My Rocks")
    rock = bpy.data.objects.new("rock", bpy.data.meshes.new("rock"))
    mine.objects.link(rock)
    assert add_scatter(kind="BOULDERS", collection="My Rocks", seed=2) == {"FINISHED"}
    depsgraph = bpy.context.evaluated_depsgraph_get()
    placed = {
        i.object.original.name
        for i in depsgraph.object_instances
        if i.is_instance and i.parent is not None and i.parent.original == obj
    }
    assert placed == {"rock"}
    assert not [c for c in bpy.data.collections if c.get("orogen_scatter_placeholder")]


def test_a_render_shows_the_trees_the_viewport_shows_as_points(scene, orogen, tmp_path):
    """Top view, the ground a white emission under a black world: the placeholder trees (lit by nothing) are the
    dark pixels; with Viewport Points on the render still has them."""
    obj = terrain()
    white = emission_material("white", (1.0, 1.0, 1.0))
    obj.data.materials.clear()
    obj.data.materials.append(white)
    bare = plain_top_view(orogen, scene, obj, tmp_path / "bare.exr", SIZE, WIDTH)
    inner = (slice(1, -1), slice(1, -1))  # (rays along the mesh's outer edges graze it)
    assert (bare[inner].mean(axis=2) < 0.5).mean() == 0.0
    add_scatter(kind="CONIFERS", seed=3, density=300.0, viewport_points=True)
    assert len(instances(obj)) == 0  # the viewport: points
    wooded = plain_top_view(orogen, scene, obj, tmp_path / "wooded.exr", SIZE, WIDTH)
    assert (wooded[inner].mean(axis=2) < 0.5).mean() > 0.1  # the render: trees


def test_a_saved_file_opens_with_the_same_instances_and_the_heights_export_as_before(scene, orogen, tmp_path):
    obj = terrain()
    add_scatter(kind="BROADLEAF", seed=4, wetness_min=5.0)  # (reads the wetness: a baked attribute)
    add_scatter(kind="BOULDERS", seed=4)
    before = instances(obj)
    heights = orogen.addon.io.heightmaps.mesh_heights(obj)
    assert heights[2] == 0  # the scatter changes no vertex: the terrain exports as its heights
    path = str(tmp_path / "scattered.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    obj = bpy.data.objects["Terrain"]
    # The placeholders, linked to no scene, are kept by the modifiers that use them.
    assert len([c for c in bpy.data.collections if c.get("orogen_scatter_placeholder")]) == 2
    assert np.array_equal(instances(obj), before)


def test_nothing_grows_under_the_water(scene, orogen):
    bpy.ops.orogen.terrain_add(
        spec=json.dumps(
            {
                "version": 2,
                "size": SIZE,
                "seed": 4,
                "width": WIDTH,
                "height": 60.0,
                "generator": "hills",
                "hills": {"count": 20, "radius_min": 10, "radius_max": 40},
                "filters": [],
                "material": {"water": True, "water_level": 20.0},
            }
        )
    )
    obj = bpy.context.active_object
    add_scatter(kind="CONIFERS", seed=2, density=400.0, spacing=2.0, slope_max=90.0)
    modifier = obj.modifiers["Orogen Conifers"]
    module = scatter_module(orogen)
    assert module.get_input(modifier, "Altitude Min") == pytest.approx(20.0 + 20.0)  # level + softness
    feet = instances(obj)[:, 2, 3] + 0.5  # (sunk 0.5 m)
    assert len(feet) > 100 and feet.min() >= 20.0 - 1e-3
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    assert (co[2::3] < 20.0).mean() > 0.1  # (there is ground under the water to keep clear)
    # Given, it is kept.
    add_scatter(kind="BOULDERS", altitude_min=0.0)
    assert module.get_input(obj.modifiers["Orogen Boulders"], "Altitude Min") == 0.0


def test_the_wetness_of_a_large_terrain_is_routed_on_a_coarser_grid(scene, orogen, monkeypatch):
    module = scatter_module(orogen)
    monkeypatch.setattr(module, "WETNESS_MAX_SIDE", 33)  # (as 1025 does for a larger terrain)
    obj = terrain()
    add_scatter(kind="BROADLEAF", seed=1)  # (its Wetness Min 6: the wetness is baked)
    baked = np.empty(SIZE * SIZE, dtype=np.float32)
    obj.data.attributes[module.WETNESS_ATTRIBUTE].data.foreach_get("value", baked)
    height = np.empty(SIZE * SIZE, dtype=np.float32)
    obj.data.attributes["height"].data.foreach_get("value", height)
    metres = height.reshape(SIZE, SIZE).astype(np.float64) * 60.0
    cell = WIDTH / (SIZE - 1)
    expected = orogen.core.wetness_index(metres, cell, max_side=33)
    assert np.array_equal(baked.reshape(SIZE, SIZE), expected)
    assert not np.array_equal(expected, orogen.core.wetness_index(metres, cell))


def test_the_panel_draws_a_button_per_kind_and_each_scatters_inputs(scene, orogen):
    ops = sys.modules[orogen.__name__ + ".addon.ops.scatter"]

    class Layout:
        def __init__(self, out):
            self.out = out

        def operator(self, idname, **kw):
            self.out.append(("operator", idname, kw.get("text")))
            return type("Props", (), {})()

        def prop(self, data, name, **kw):
            self.out.append(("prop", name, kw.get("text")))

        def __getattr__(self, _name):  # row(), box(), label(), ...
            return lambda *a, **k: self

    drawn = []
    ops.draw_scatter(Layout(drawn), None)
    assert drawn == []  # (a label only: select a terrain)
    obj = terrain()
    ops.draw_scatter(Layout(drawn), obj)
    assert [d[2] for d in drawn] == ["Conifers", "Broadleaf", "Boulders"]
    add_scatter(kind="CONIFERS")
    drawn.clear()
    ops.draw_scatter(Layout(drawn), obj)
    texts = [d[2] for d in drawn]
    assert "Orogen Conifers" in texts and all(name in texts for name in ops.PANEL_INPUTS)
    assert ("operator", "orogen.scatter_remove", None) in drawn


@pytest.mark.parametrize(("kind", "size", "foliage"), [("conifers", 20.0, "needles"), ("broadleaf", 14.0, "leaves")])
def test_the_placeholder_trees_have_bark_below_and_foliage_above(scene, orogen, kind, size, foliage):
    collection, made = orogen.addon.placeholders.placeholder_collection(kind)
    assert made and len(collection.objects) == orogen.core.scatter.SCATTER_KINDS[kind].variants
    for obj in collection.objects:
        mesh = obj.data
        co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        assert co[:, 2].min() == pytest.approx(0.0, abs=1e-4) and co[:, 2].max() == pytest.approx(size, rel=0.05)
        parts = [mesh.materials[p.material_index]["orogen_part"] for p in mesh.polygons]
        for polygon, part in zip(mesh.polygons, parts, strict=True):
            corners = co[list(polygon.vertices)]
            rim, top = np.hypot(corners[:, 0], corners[:, 1]).max(), corners[:, 2].max()
            if polygon.area < 1e-6:  # (a cone's tip cap: all its corners on the axis)
                continue
            if rim < 0.05 * size and top <= 0.5 * size + 1e-4:  # the trunk's faces: inside its radius, low
                assert part == "bark", (obj.name, polygon.index)
            else:  # everything wider or higher is crown
                assert part == foliage, (obj.name, polygon.index)
        assert set(parts) == {"bark", foliage}


def test_a_builtin_preset_loaded_into_a_terrain_brings_its_trees_and_rocks(scene, orogen):
    """Alpine Ridges: conifers on its meadow, boulders on its tundra, as core.presets declares them."""
    obj = terrain()
    bpy.ops.orogen.preset_load(name="Alpine Ridges")  # its label, as the menu passes it
    mods = {m.name: m for m in scatter_module(orogen).scatter_modifiers(obj)}
    assert set(mods) == {"Orogen Conifers", "Orogen Boulders"}
    get = scatter_module(orogen).get_input
    assert get(mods["Orogen Conifers"], "Layer Attribute") == scatter_module(orogen).layer_attribute("meadow")
    assert get(mods["Orogen Conifers"], "Density") == pytest.approx(60.0)
    assert get(mods["Orogen Boulders"], "Density") == pytest.approx(20.0)


def test_scree_slopes_has_boulders_on_its_scree_once_regenerated(scene, orogen):
    obj = terrain()
    bpy.ops.orogen.preset_load(name="scree_slopes")
    obj.orogen.size = 97  # smaller than the preset's 257: a quick test
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    (mod,) = scatter_module(orogen).scatter_modifiers(obj)
    assert mod.name == "Orogen Boulders"
    scatter_module(orogen).set_inputs(mod, {"Viewport Points": False})  # the test's depsgraph is a viewport's
    placed = instances(obj)
    assert 100 < len(placed) < 200.0 * 16  # 200 per hectare at most, over 16 ha, where the scree shows


def test_a_preset_loads_without_its_scatter_when_asked_and_a_bare_one_has_none(scene, orogen):
    obj = terrain()
    bpy.ops.orogen.preset_load(name="eroded_mountains", scatter=False)
    assert scatter_module(orogen).scatter_modifiers(obj) == []
    bpy.ops.orogen.preset_load(name="badlands")
    assert scatter_module(orogen).scatter_modifiers(obj) == []


def test_nothing_grows_in_a_lake(scene, orogen):
    """Noise with closed basins and the Rivers and Lakes filter: no instance stands where every corner of its
    grid cell is lake; with the lake map gone, trees fill the basins too."""
    s = {
        "version": 5,
        "size": SIZE,
        "seed": 4,
        "width": WIDTH,
        "height": 60.0,
        "generator": "noise",
        "filters": [{"type": "rivers"}],
    }
    bpy.ops.orogen.terrain_add(spec=json.dumps(s))
    obj = bpy.context.active_object
    lake = np.empty(SIZE * SIZE, dtype=np.float32)
    obj.data.attributes["lake_depth"].data.foreach_get("value", lake)
    lake = lake.reshape(SIZE, SIZE) > 0.0
    assert 0.05 < lake.mean() < 0.6  # basins to keep clear, and dry ground to grow on
    add_scatter(kind="CONIFERS", seed=2, density=400.0, spacing=2.0, slope_max=90.0, altitude_min=0.0)
    cell = WIDTH / (SIZE - 1)

    def in_lake(feet):
        col = np.clip(np.floor((feet[:, 0] + WIDTH / 2) / cell).astype(int), 0, SIZE - 2)
        row = np.clip(np.floor((WIDTH / 2 - feet[:, 1]) / cell).astype(int), 0, SIZE - 2)
        return lake[row, col] & lake[row + 1, col] & lake[row, col + 1] & lake[row + 1, col + 1]

    feet = instances(obj)[:, :2, 3]
    assert len(feet) > 100 and not in_lake(feet).any()
    obj.data.attributes.remove(obj.data.attributes["lake_depth"])
    obj.data.update()
    assert in_lake(instances(obj)[:, :2, 3]).sum() > 20
