"""Sources in Blender, driven as a user: an imported file is a terrain with a file source (filters, Regenerate,
missing and changed files said), and a mesh object becomes a terrain that follows it when it is edited."""

import json

import bpy
import numpy as np
import pytest


def vertices(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def spec_of(orogen, obj):
    return orogen.addon.specio.read_spec(obj.orogen)


def metres_npy(orogen, tmp_path, name="below.npy", rows=21, cols=33):
    formats = orogen.core.io.formats
    y, x = np.mgrid[0:rows, 0:cols]
    metres = (-37.5 + 118.0 * (0.5 + 0.5 * np.sin(x / 4.0) * np.cos(y / 3.0))).astype(np.float32)
    metres[0, 0], metres[-1, -1] = -37.5, 80.5
    path = str(tmp_path / name)
    formats.write_npy(path, metres)
    info = formats.sidecar_info(
        path,
        metres.shape,
        "NPY",
        absolute=True,
        height_range=(-37.5, 80.5),
        extra={"width_m": 320.0, "height_m": 128.0},
    )
    (tmp_path / (name + ".json")).write_text(json.dumps(info))
    return path, metres


def test_an_import_is_a_terrain_with_a_file_source(scene, orogen, tmp_path):
    path, metres = metres_npy(orogen, tmp_path)
    assert bpy.ops.orogen.heightmap_import(filepath=path, location=(0, 0, 0)) == {"FINISHED"}
    obj = bpy.context.active_object
    spec = spec_of(orogen, obj)
    assert spec.generator == "file" and spec.params["path"] == path and spec.filters == ()
    assert obj.orogen.is_terrain and (spec.size, spec.size_y) == (33, 21)
    assert np.array_equal(vertices(obj)[:, 2].reshape(metres.shape), metres)  # the file's metres, bit for bit
    # Regenerate reads the file again: the same metres
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert np.array_equal(vertices(obj)[:, 2].reshape(metres.shape), metres)


def test_an_import_takes_filters_from_spec_and_set(scene, orogen, tmp_path):
    path, metres = metres_npy(orogen, tmp_path)
    look = orogen.core.TerrainSpec(filters=(("terrace", {"levels": 4}),), lighting={"mode": "hillshade"})
    assert bpy.ops.orogen.heightmap_import(
        filepath=path, spec=look.to_json(), set="terrace.levels=6; lighting.azimuth=90", location=(0, 0, 0)
    ) == {"FINISHED"}
    obj = bpy.context.active_object
    spec = spec_of(orogen, obj)
    assert [s.key for s in spec.filters] == ["terrace"] and spec.filters[0].params["levels"] == 6
    assert spec.lighting["mode"] == "hillshade" and spec.lighting["azimuth"] == 90.0
    z = vertices(obj)[:, 2].reshape(metres.shape)
    expected = spec.heightmap() * np.float32(spec.height)
    assert np.array_equal(z, expected) and not np.array_equal(z, metres)
    # a filter added later, then Regenerate: the file filtered again
    obj.orogen.live_update = False
    obj.orogen.filters[0].enabled = False
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert np.array_equal(vertices(obj)[:, 2].reshape(metres.shape), metres)


def test_an_import_takes_sources_and_masks_from_spec(scene, orogen, tmp_path):
    path, metres = metres_npy(orogen, tmp_path)
    core = orogen.core
    stamp = core.sources.Source("cone", {"radius": 60.0}, {"blend": "max", "height": 150.0})
    look = core.TerrainSpec(
        filters=(core.spec.Step("box_blur", {"radius": 20.0}, mask={"source": "height", "low": 20.0, "high": 1e4}),),
        sources=(stamp,),
    )
    assert bpy.ops.orogen.heightmap_import(filepath=path, spec=look.to_json(), location=(0, 0, 0)) == {"FINISHED"}
    spec = spec_of(orogen, bpy.context.active_object)
    assert [s.key for s in spec.sources] == ["cone"] and spec.sources[0].settings["height"] == 150.0
    assert spec.filters[0].masked and spec.filters[0].mask["low"] == 20.0
    z = vertices(bpy.context.active_object)[:, 2].reshape(metres.shape)
    assert z.max() > 100.0 and np.array_equal(z, spec.heightmap() * np.float32(spec.height))


def test_regenerate_says_when_the_file_changed_or_is_missing(scene, orogen, tmp_path, capsys):
    path, metres = metres_npy(orogen, tmp_path)
    assert bpy.ops.orogen.heightmap_import(filepath=path, location=(0, 0, 0)) == {"FINISHED"}
    obj = bpy.context.active_object
    obj.orogen.live_update = False
    orogen.core.io.formats.write_npy(path, metres + np.float32(2.0))
    capsys.readouterr()
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert "changed since the last build" in obj.orogen.status
    assert "changed since the last build" in capsys.readouterr().out
    assert np.array_equal(vertices(obj)[:, 2].reshape(metres.shape), metres + np.float32(2.0))
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert "changed" not in obj.orogen.status  # the same file again: nothing to say
    before = vertices(obj).copy()
    (tmp_path / "below.npy").unlink()
    with pytest.raises(RuntimeError, match=r"file\.path: no such file"):
        bpy.ops.orogen.terrain_regenerate()
    assert np.array_equal(vertices(obj), before) and obj.name in bpy.data.objects  # the scene as it was


def test_a_png_source_is_decoded_by_blender_and_read_again(scene, orogen, tmp_path):
    heightmaps = orogen.addon.io.heightmaps
    ramp = np.tile(np.linspace(0.0, 1.0, 17), (9, 1))
    path = str(tmp_path / "ramp.png")
    heightmaps.write_image(path, ramp, depth="16")
    assert bpy.ops.orogen.heightmap_import(filepath=path, height=10.0, location=(0, 0, 0)) == {"FINISHED"}
    obj = bpy.context.active_object
    z = vertices(obj)[:, 2].reshape(9, 17)
    assert z.min() == 0.0 and z.max() == 10.0 and spec_of(orogen, obj).generator == "file"
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert np.array_equal(vertices(obj)[:, 2].reshape(9, 17), z)


def plane(size=10.0, subdivisions=4, location=(0.0, 0.0, 0.0)):
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=subdivisions, y_subdivisions=subdivisions, size=size)
    obj = bpy.context.active_object
    obj.location = location
    bpy.context.view_layer.update()
    return obj


def test_terrain_from_object_samples_the_surface_and_hides_the_object(scene, orogen):
    source = plane(size=20.0, location=(5.0, -3.0, 2.0))
    co = vertices(source)
    co[:, 2] = 0.25 * co[:, 0] + 0.1 * co[:, 1]  # a tilted plane in the object's frame
    source.data.vertices.foreach_set("co", co.ravel())
    source.data.update()
    bpy.context.view_layer.update()
    assert bpy.ops.orogen.terrain_from_object(size=33) == {"FINISHED"}
    terrain = bpy.context.active_object
    assert terrain is not source and source.name in bpy.data.objects
    assert source.hide_get() and source.hide_render
    spec = spec_of(orogen, terrain)
    assert spec.generator == "object" and spec.params["object"] == source.name
    assert tuple(terrain.location) == pytest.approx((5.0, -3.0, 0.0)) and spec.width == pytest.approx(20.0)
    world = vertices(terrain) + np.array(terrain.location, np.float32)
    plane_z = 2.0 + 0.25 * (world[:, 0] - 5.0) + 0.1 * (world[:, 1] + 3.0)
    assert np.abs(world[:, 2] - plane_z).max() <= 1e-4  # the object's surface in world metres


def test_an_edited_object_is_read_again_live_and_on_regenerate(scene, orogen):
    source = plane(size=10.0, subdivisions=2)
    assert bpy.ops.orogen.terrain_from_object(size=11, set="object.fill=value") == {"FINISHED"}
    terrain = bpy.context.active_object
    assert np.abs(vertices(terrain)[:, 2]).max() == 0.0
    # move the centre vertex of the 3 x 3 grid up by 4 m, as a sculpt would
    co = vertices(source)
    centre = int(np.argmin(np.abs(co[:, 0]) + np.abs(co[:, 1])))
    co[centre, 2] = 4.0
    source.data.vertices.foreach_set("co", co.ravel())
    source.data.update()
    bpy.context.view_layer.update()  # the depsgraph handler: the terrain's live update
    z = vertices(terrain)[:, 2].reshape(11, 11)
    assert z[5, 5] == pytest.approx(4.0) and z[0, 0] == 0.0
    # with live updates off, Regenerate reads it again
    terrain.orogen.live_update = False
    co[centre, 2] = -2.0
    source.data.vertices.foreach_set("co", co.ravel())
    source.data.update()
    bpy.context.view_layer.update()
    assert vertices(terrain)[:, 2].reshape(11, 11)[5, 5] == pytest.approx(4.0)
    bpy.context.view_layer.objects.active = terrain
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert vertices(terrain)[:, 2].reshape(11, 11)[5, 5] == pytest.approx(-2.0)


def test_a_uv_sphere_gives_its_top_and_erodes(scene, orogen):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=5.0, location=(0.0, 0.0, 0.0), segments=64, ring_count=32)
    assert bpy.ops.orogen.terrain_from_object(size=21, set="object.fill=value; fill_height=-1") == {"FINISHED"}
    terrain = bpy.context.active_object
    z = vertices(terrain)[:, 2].reshape(21, 21)
    assert z[10, 10] == pytest.approx(5.0, abs=1e-3) and z[0, 0] == -1.0
    top = vertices(terrain)
    inside = np.hypot(top[:, 0], top[:, 1]) < 4.0
    assert np.allclose(top[inside, 2], np.sqrt(25.0 - top[inside, 0] ** 2 - top[inside, 1] ** 2), atol=0.1)
    terrain.orogen.live_update = False
    assert bpy.ops.orogen.filter_add(type="thermal") == {"FINISHED"}
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert not np.array_equal(vertices(terrain)[:, 2].reshape(21, 21), z)


def test_terrain_from_object_polls_and_refuses_with_reasons(scene, orogen):
    bpy.ops.object.empty_add()
    assert not bpy.ops.orogen.terrain_from_object.poll()
    with pytest.raises(RuntimeError, match="is a empty: Terrain from Object reads a mesh"):
        bpy.ops.orogen.terrain_from_object()
    plane()
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match="Terrain not added"):
        bpy.ops.orogen.terrain_from_object(set="generator=hills")
    assert len(bpy.data.objects) == before
    huge = plane()
    huge.scale = (1e8, 1e8, 1.0)
    bpy.context.view_layer.update()
    with pytest.raises(RuntimeError, match=r"is 1e\+09 m across .* at most 1e\+06 m wide .* scale the object down"):
        bpy.ops.orogen.terrain_from_object()
    assert len(bpy.data.objects) == before + 1 and not huge.hide_get()


def test_a_path_relative_to_the_blend_file_is_read(scene, orogen, tmp_path):
    path, metres = metres_npy(orogen, tmp_path)
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "scene.blend"), copy=False)
    spec = orogen.core.TerrainSpec(
        size=33, size_y=21, width=320.0, height=128.0, generator="file", params={"path": "//below.npy"}, filters=()
    )
    assert bpy.ops.orogen.terrain_add(spec=spec.to_json(), location=(0, 0, 0)) == {"FINISHED"}
    assert np.array_equal(vertices(bpy.context.active_object)[:, 2].reshape(metres.shape), metres)


def test_an_object_edit_waits_while_the_terrain_is_in_edit_mode(scene, orogen):
    source = plane(size=10.0, subdivisions=2)
    assert bpy.ops.orogen.terrain_from_object(size=11, set="object.fill=value") == {"FINISHED"}
    terrain = bpy.context.active_object
    bpy.ops.object.mode_set(mode="EDIT")
    co = vertices(source)
    centre = int(np.argmin(np.abs(co[:, 0]) + np.abs(co[:, 1])))
    co[centre, 2] = 3.0
    source.data.vertices.foreach_set("co", co.ravel())
    source.data.update()
    bpy.context.view_layer.update()
    assert terrain.orogen.status == "Not regenerated: leave Edit Mode first"
    bpy.ops.object.mode_set(mode="OBJECT")
    assert vertices(terrain)[:, 2].reshape(11, 11)[5, 5] == 0.0  # nothing written while it was edited
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert vertices(terrain)[:, 2].reshape(11, 11)[5, 5] == pytest.approx(3.0)


def test_a_preset_dresses_a_source_terrain_and_keeps_its_source(scene, orogen, tmp_path, capsys):
    path, metres = metres_npy(orogen, tmp_path)
    assert bpy.ops.orogen.heightmap_import(filepath=path, location=(0, 0, 0)) == {"FINISHED"}
    obj = bpy.context.active_object
    obj.orogen.live_update = False
    capsys.readouterr()
    assert bpy.ops.orogen.preset_load(name="scree_slopes") == {"FINISHED"}
    assert "(kept its file source)" in capsys.readouterr().out
    spec = spec_of(orogen, obj)
    preset = orogen.core.preset_spec("scree_slopes")
    assert spec.generator == "file" and spec.params["path"] == path and (spec.size, spec.size_y) == (33, 21)
    assert spec.filters == preset.filters and spec.lighting == preset.lighting and spec.layers == preset.layers
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert not np.array_equal(vertices(obj)[:, 2].reshape(metres.shape), metres)  # the preset's filters ran


def test_moving_a_carve_curve_updates_its_terrain_live(scene, orogen):
    """The depsgraph handler is generic over the kinds of objects a spec reads: a carve filter's curve too."""
    data = bpy.data.curves.new("River", "CURVE")
    data.dimensions = "3D"
    spline = data.splines.new("POLY")
    spline.points.add(2)
    for p, x in zip(spline.points, (-70.0, 0.0, 70.0), strict=True):
        p.co = (x, 0.0, 0.0, 1.0)
    river = bpy.data.objects.new("River", data)
    bpy.context.scene.collection.objects.link(river)
    spec = orogen.core.TerrainSpec(
        size=65,
        width=100.0,
        height=20.0,
        seed=3,
        params={"count": 40},
        filters=(("carve", {"curve": "River", "width": 8.0, "depth": 3.0, "bank": 4.0}),),
    )
    assert bpy.ops.orogen.terrain_add(spec=spec.to_json(), location=(0, 0, 0)) == {"FINISHED"}
    terrain = bpy.context.active_object
    assert terrain.orogen.live_update
    before = vertices(terrain)[:, 2].reshape(65, 65).copy()
    river.location = (0.0, -25.0, 0.0)
    bpy.context.view_layer.update()  # the handler: the terrain's live update reads the curve again
    after = vertices(terrain)[:, 2].reshape(65, 65)
    assert not np.array_equal(before, after)
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}  # what Regenerate makes of the moved curve
    assert np.array_equal(vertices(terrain)[:, 2].reshape(65, 65), after)
    # its own update did not start another: the recorded fingerprint is the curve's now
    assert "curve:River:" in terrain["orogen_inputs"]


def test_a_terrain_made_from_a_terrain_follows_it_live(scene, orogen):
    source = plane(size=10.0, subdivisions=2)
    assert bpy.ops.orogen.terrain_from_object(size=11, set="object.fill=value") == {"FINISHED"}
    first = bpy.context.active_object
    first.select_set(True)
    assert bpy.ops.orogen.terrain_from_object(size=11, hide_source=False, set="object.fill=value") == {"FINISHED"}
    second = bpy.context.active_object
    assert second is not first and spec_of(orogen, second).params["object"] == first.name
    co = vertices(source)
    centre = int(np.argmin(np.abs(co[:, 0]) + np.abs(co[:, 1])))
    co[centre, 2] = 3.0
    source.data.vertices.foreach_set("co", co.ravel())
    source.data.update()
    bpy.context.view_layer.update()  # the source changed: the first follows, and the second follows the first
    assert vertices(first)[:, 2].reshape(11, 11)[5, 5] == pytest.approx(3.0)
    assert vertices(second)[:, 2].reshape(11, 11)[5, 5] == pytest.approx(3.0)


def test_a_terrain_that_reads_itself_is_refused(scene, orogen):
    plane(size=10.0, subdivisions=2)
    assert bpy.ops.orogen.terrain_from_object(size=11, set="object.fill=value") == {"FINISHED"}
    first = bpy.context.active_object
    first.select_set(True)
    assert bpy.ops.orogen.terrain_from_object(size=11, hide_source=False, set="object.fill=value") == {"FINISHED"}
    second = bpy.context.active_object
    before = vertices(first).copy()
    first.orogen.live_update = second.orogen.live_update = False
    orogen.addon.specio.write_spec(first.orogen, spec_of(orogen, first).replace(params={"object": second.name}))
    bpy.context.view_layer.objects.active = first
    first.select_set(True)
    with pytest.raises(RuntimeError, match=r"object\.object: .* reads .* a terrain cannot read itself"):
        bpy.ops.orogen.terrain_regenerate()
    assert np.array_equal(vertices(first), before)
    orogen.addon.specio.write_spec(first.orogen, spec_of(orogen, first).replace(params={"object": first.name}))
    with pytest.raises(RuntimeError, match="a terrain cannot read itself"):
        bpy.ops.orogen.terrain_regenerate()
    assert np.array_equal(vertices(first), before)
