"""Lakes and rivers in Blender: the Rivers and Lakes filter's maps become the terrain's water object (core's
water mesh, in the terrain's frame), a top view shows water exactly over the river and lake cells, Regenerate
rebuilds it, and the maps export."""

import json
import sys

import bpy
import numpy as np
from top_view import blue_marker, plain_top_view

SIZE, WIDTH, HEIGHT = 64, 630.0, 120.0  # 10 m cells
RIVERS = {"type": "rivers", "river_area": 1.0e4, "runoff": 30.0, "width_coefficient": 15.0}


def spec(rivers=RIVERS, **material):
    return {
        "version": 5,
        "size": SIZE,
        "seed": 21,
        "width": WIDTH,
        "height": HEIGHT,
        "generator": "fractal",
        "filters": [{"type": "erosion", "steps": 6}, rivers],
        "material": {"shading": "unlit", **material},
    }


def water_of(orogen, obj):
    return sys.modules[orogen.__name__ + ".addon.water"].water_of(obj)


def attribute(obj, name):
    values = np.empty(SIZE * SIZE, dtype=np.float32)
    obj.data.attributes[name].data.foreach_get("value", values)
    return values.reshape(SIZE, SIZE)


def positions(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def add(s):
    bpy.ops.orogen.terrain_add(spec=json.dumps(s))
    return bpy.context.active_object


def test_the_water_object_holds_cores_water_mesh_of_the_terrains_maps(scene, orogen):
    terrain = add(spec())
    water = water_of(orogen, terrain)
    assert water is not None and water.parent == terrain
    z = positions(terrain)[:, 2].reshape(SIZE, SIZE)
    maps = {n: attribute(terrain, n) for n in ("lake_depth", "river_width", "river_depth", "flow_direction")}
    assert (maps["river_width"] > 0).sum() > 30
    vertices, quads = orogen.core.surface_water.water_mesh(
        z,
        WIDTH / (SIZE - 1),
        lake_depth=maps["lake_depth"],
        river_width=maps["river_width"],
        river_depth=maps["river_depth"],
        direction=maps["flow_direction"],
    )
    assert len(water.data.polygons) == len(quads) and np.allclose(positions(water), vertices, atol=1e-3)
    assert water.data.materials[0] is not None  # the water material
    # no rivers without the filter: no water (no sea either)
    bpy.ops.orogen.terrain_add(spec=json.dumps({**spec(), "filters": [{"type": "erosion", "steps": 6}]}))
    assert water_of(orogen, bpy.context.active_object) is None


def test_a_top_view_shows_water_exactly_over_the_river_and_lake_cells(scene, orogen, tmp_path):
    terrain = add(spec())
    water = water_of(orogen, terrain)
    water.data.materials[0] = blue_marker()  # the water, seen plainly
    terrain.hide_render = True  # the water alone, from above: a pixel is blue where a ray meets it
    rgb = plain_top_view(orogen, scene, terrain, tmp_path / "rivers.exr", SIZE, WIDTH)
    wet = rgb[..., 2] > 0.5
    width, lake = attribute(terrain, "river_width"), attribute(terrain, "lake_depth") > 0
    code = attribute(terrain, "flow_direction")
    cell = WIDTH / (SIZE - 1)
    assert width.max() < 1.2 * cell and width[width > 0].min() > 0.1 * cell  # narrow enough to test exactly
    river = (width > 0) & (code >= 0)
    assert river.sum() > 30
    near_lake, inner_lake = np.zeros_like(lake), lake.copy()
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            near_lake |= np.roll(np.roll(lake, dr, 0), dc, 1)
            inner_lake &= np.roll(np.roll(lake, dr, 0), dc, 1)
    assert inner_lake.sum() >= 4
    # every river point with a receiver and every lake point inside its lake is under water (a point on a
    # lake's rim is a corner of its quads, where a ray through it may pass either side)...
    assert wet[river].all() and wet[inner_lake].all()
    # ...and no other point is, but those on a ribbon's or a lake's rim (a river's outlet, a lake's shore)
    assert not wet[~(near_lake | (width > 0))].any()


def test_regenerate_rebuilds_the_water_with_the_spec(scene, orogen):
    terrain = add(spec())
    before = len(water_of(orogen, terrain).data.polygons)
    fewer = {**RIVERS, "river_area": 1.2e5}
    orogen.addon.specio.write_spec(terrain.orogen, orogen.core.spec.TerrainSpec.from_json(json.dumps(spec(fewer))))
    orogen.addon.terrain.apply.regenerate(terrain, bpy.context)
    water = water_of(orogen, terrain)
    assert 0 < len(water.data.polygons) < before
    assert (attribute(terrain, "river_width") > 0).sum() < (attribute(terrain, "drainage_area") >= 1.0e4).sum()
    orogen.addon.specio.write_spec(
        terrain.orogen,
        orogen.core.spec.TerrainSpec.from_json(json.dumps({**spec(), "filters": [{"type": "erosion", "steps": 6}]})),
    )
    orogen.addon.terrain.apply.regenerate(terrain, bpy.context)
    assert water_of(orogen, terrain) is None  # the filter gone, its water goes (no sea)


def test_the_lake_and_river_maps_export_with_the_erosion_maps(scene, orogen, tmp_path):
    terrain = add(spec())
    assert bpy.ops.orogen.export_maps(
        directory=str(tmp_path),
        name="t",
        heightmap_format="NONE",
        use_lightmap=False,
        use_colormap=False,
        use_normal_map=False,
        use_data_maps=False,
        use_splat_maps=False,
        use_erosion_maps=True,
    ) == {"FINISHED"}
    sidecar = json.loads((tmp_path / "t_erosion.json").read_text())
    for name in ("lake_depth", "river_width", "river_depth"):
        exr = orogen.addon.io.heightmaps.read_image(str(tmp_path / f"t_{name}.exr"))[..., 0]
        assert np.array_equal(exr, attribute(terrain, name)), name
        assert sidecar["maps"][name]["unit"].startswith("m")
    assert "mask" in sidecar["maps"]["river_width"]["unit"]
