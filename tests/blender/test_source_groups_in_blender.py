"""A filter masked by a vertex group painted on the terrain's source object (issue #20, point 4): the terrain
made with Terrain from Object changes only under the painted part, follows a repaint live, and the terrain's
own group of that name wins over the source's."""

import bpy
import numpy as np
import pytest


def vertices(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def z_of(obj, n=33):
    return vertices(obj)[:, 2].reshape(n, n).copy()


def bumpy_plane():
    """A 20 m plane of 11 x 11 vertices (2 m apart) at the origin, hills of 2 m: a blur changes it."""
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=10, y_subdivisions=10, size=20.0)
    obj = bpy.context.active_object
    co = vertices(obj)
    assert len(co) == 121
    co[:, 2] = 2.0 * np.sin(co[:, 0] / 1.5) * np.cos(co[:, 1] / 2.0)
    obj.data.vertices.foreach_set("co", co.ravel())
    obj.data.update()
    bpy.context.view_layer.update()
    return obj


def from_object(source, spec=""):
    source.hide_set(False)
    for other in bpy.context.selected_objects:
        other.select_set(False)
    source.select_set(True)
    bpy.context.view_layer.objects.active = source
    assert bpy.ops.orogen.terrain_from_object(size=33, spec=spec) == {"FINISHED"}
    return bpy.context.active_object


def blur_spec(orogen, group=None):
    core = orogen.core
    mask = {**core.masks.default_mask(), **({"source": "weights", "group": group} if group else {})}
    return core.TerrainSpec(filters=(core.spec.Step("box_blur", {"radius": 3.0}, True, mask),)).to_json()


def test_a_group_painted_on_the_source_masks_the_filter(scene, orogen):
    source = bumpy_plane()
    co = vertices(source)
    group = source.vertex_groups.new(name="Rock")
    group.add([int(i) for i in np.flatnonzero(co[:, 0] >= 0.0)], 1.0, "REPLACE")  # the east half painted full
    plain = z_of(from_object(source))
    blurred = z_of(from_object(source, blur_spec(orogen)))
    terrain = from_object(source, blur_spec(orogen, "Rock"))
    assert terrain.orogen.live_update and "Rock" not in terrain.vertex_groups
    spec = orogen.addon.specio.read_spec(terrain.orogen)
    found = orogen.addon.inputs.gather(spec, terrain.matrix_world, bpy.context, terrain=terrain)
    assert isinstance(found[("weights", "Rock")], orogen.core.inputs.MeshInput)  # read from the source
    assert "Orogen Weights (temporary)" not in bpy.data.objects and len(bpy.data.node_groups) == 0
    z = z_of(terrain)
    x = vertices(terrain)[:33, 0]  # the first row's x, terrain-local metres (the terrain sits at the origin)
    west, east = x < -2.0 - 1e-4, x >= 0.0  # no painted source vertex within 2 m; painted vertices only
    assert np.abs(plain - blurred)[:, west].max() > 0.05 and np.abs(plain - blurred)[:, east].max() > 0.05
    # (2e-5 m: the float32 steps of a terrain with a filter against one without, as test_filter_masks)
    np.testing.assert_allclose(z[:, west], plain[:, west], atol=2e-5)  # unpainted: unchanged
    np.testing.assert_allclose(z[:, east], blurred[:, east], atol=2e-5)  # painted: blurred in full
    # repainting the source's group is a geometry update of the source: the live terrain follows
    group.add(list(range(len(co))), 1.0, "REPLACE")
    bpy.context.view_layer.update()
    np.testing.assert_allclose(z_of(terrain), blurred, atol=2e-5)
    # the terrain's own group of that name wins over the source's: painted 0 everywhere, the filter is off
    own = terrain.vertex_groups.new(name="Rock")
    own.add(list(range(33 * 33)), 0.0, "REPLACE")
    terrain.orogen.live_update = False
    bpy.context.view_layer.objects.active = terrain
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    np.testing.assert_allclose(z_of(terrain), plain, atol=2e-5)


def test_a_group_on_neither_is_refused_naming_the_setting_and_both(scene, orogen):
    source = bumpy_plane()
    source.vertex_groups.new(name="Rock").add([0, 1, 2], 1.0, "REPLACE")
    added = r"Terrain not added: box_blur\.mask\.group: the new terrain has no vertex group 'Nowhere'.*, nor does its"
    with pytest.raises(RuntimeError, match=added + r" source: the source object 'Grid' has no vertex group 'Nowhere'"):
        from_object(source, blur_spec(orogen, "Nowhere"))
    assert [o.name for o in bpy.data.objects] == ["Grid"]  # nothing added
    terrain = from_object(source, blur_spec(orogen, "Rock"))
    terrain.orogen.live_update = False
    before = z_of(terrain)
    terrain.orogen.filters[0].mask.group = "Nowhere"
    bpy.context.view_layer.objects.active = terrain
    message = (
        r"box_blur\.mask\.group: the terrain .* has no vertex group 'Nowhere' \(it has none\), nor does its "
        r"source: the source object .* has no vertex group 'Nowhere' \(it has 'Rock'\)"
    )
    with pytest.raises(RuntimeError, match=message):
        bpy.ops.orogen.terrain_regenerate()
    assert np.array_equal(z_of(terrain), before)  # the scene as it was
    assert "Orogen Weights (temporary)" not in bpy.data.objects and len(bpy.data.node_groups) == 0


def test_the_source_object_is_the_object_generator_or_its_one_layer_placed_as_the_terrain(scene, orogen):
    core, name_of = orogen.core, orogen.addon.inputs.source_object_name
    assert name_of(core.apply_settings(core.TerrainSpec(generator="object"), ["object.object=Grid"])) == "Grid"
    assert name_of(core.TerrainSpec(generator="noise")) == ""

    def layered(**placed):
        layer = core.sources.Source("object", {"object": "Grid"}, {"blend": "replace", **placed})
        return core.TerrainSpec(generator="noise", sources=(layer,))

    assert name_of(layered()) == "Grid"
    assert name_of(layered(offset_x=5.0)) == ""  # moved: its mesh does not lie in the terrain's frame
    assert name_of(layered(scale=2.0)) == "" and name_of(layered(rotation=30.0)) == ""
    assert name_of(layered(enabled=False)) == ""


def test_the_mask_panel_lists_the_source_objects_groups_when_the_terrain_has_none(scene, orogen):
    draw = orogen.addon.ui.draw
    source = bumpy_plane()
    source.vertex_groups.new(name="Rock")
    terrain = from_object(source, blur_spec(orogen, "Rock"))
    assert draw.group_owner(terrain) == source  # the terrain has no groups: the source's are listed
    searched = []

    class Layout:  # records what each prop_search lists
        def prop_search(self, data, name, owner, collection, **_kw):
            searched.append((name, owner, collection))

        def __getattr__(self, _name):
            return lambda *_a, **_kw: self

    mask = terrain.orogen.filters[0].mask
    draw.draw_params(Layout(), mask, orogen.core.MASK_PARAMS)
    assert searched == [("group", source, "vertex_groups")]
    terrain.vertex_groups.new(name="Own")
    assert draw.group_owner(terrain) == terrain  # its own groups are listed once it has some
