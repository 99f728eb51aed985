"""Cycles renders of terrains, checked by pixel statistics."""

import json
import math
import sys

import bpy
import numpy as np
import pytest
from mathutils import Vector
from top_view import plain_top_view


@pytest.mark.smoke
def test_lit_render_shows_the_terrain_and_the_lit_side_is_brighter(scene, orogen, tmp_path):
    render = orogen.addon.render
    # One large hill in the middle (island mode centres it), light from the east.
    # No filters: 0.1's flattening 1.0 left the flatten filter out.
    bpy.ops.orogen.terrain_add(
        spec=json.dumps(
            {
                "version": 2,
                "size": 64,
                "seed": 1,
                "width": 20.0,
                "height": 6.0,
                "generator": "hills",
                "hills": {"count": 1, "radius_min": 30, "radius_max": 30, "island": True},
                "filters": [],
                "lighting": {"azimuth": 90.0},
            }
        )
    )
    terrain = bpy.context.active_object
    render.add_camera(scene, terrain, view="TOP", aspect=64 / 48)
    render.add_sun(scene, math.radians(90.0), math.radians(35.0))
    render.set_world(scene, color=(0.0, 0.0, 0.0), strength=0.0)
    render.configure_cycles(scene, (64, 48), samples=8)
    out = tmp_path / "terrain.png"
    render.render_still(scene, str(out))
    rgb = orogen.addon.io.heightmaps.read_image(str(out))[..., :3]
    lum = rgb.mean(axis=-1)
    assert rgb.shape == (48, 64, 3)
    # Not only background: the black world fills the sides, the terrain the middle.
    terrain_mask = lum > 0.02
    assert 0.4 < terrain_mask.mean() < 0.95
    assert not terrain_mask[:, :3].any() and not terrain_mask[:, -3:].any()
    # The hill's east half (right in a north-up top view) faces the light.
    centre = 32
    east = lum[8:40, centre + 4 : centre + 20].mean()
    west = lum[8:40, centre - 20 : centre - 4].mean()
    assert east > 1.5 * west, (east, west)


def test_unlit_render_equals_core_colormap_times_lightmap(scene, orogen, tmp_path):
    """Top-down orthographic Emission render: the node tree mirrors core's colour map exactly."""
    core = orogen.core
    size, width = 48, 47.0  # one metre per cell
    bpy.ops.orogen.terrain_add(
        size=size,
        seed=4,
        width=width,
        height=12.0,
        set="hills.count=60; hills.radius_min=3; hills.radius_max=14; material.shading=unlit; lighting.azimuth=315",
    )
    terrain = bpy.context.active_object
    rendered = plain_top_view(orogen, scene, terrain, tmp_path / "unlit.exr", size, width)

    h = core.circle_hills((size, size), seed=4, count=60, radius_min=3, radius_max=14, flattening=1.5)
    light = core.slope_lightmap(h * np.float32(12.0), azimuth=315.0, softness=1.0, min_brightness=0.25, cell_size=1.0)
    expected = core.colormap(h) * light[..., None]
    inner = (slice(2, -2), slice(2, -2))
    error = np.abs(rendered[inner] - expected[inner])
    assert error.max() < 2 / 255, error.max()
    assert expected[inner].std() > 0.05  # the comparison covers real variation


def test_lit_terrain_follows_the_sun_not_the_baked_light(scene, orogen, tmp_path):
    """Lit: Blender lights the terrain. The lightmap is baked for a sun in the east, and still a sun lamp in the
    west lights the west side exactly as much as one in the east lights the east (no baked light in the base
    colour, which would brighten the east under both)."""
    render = orogen.addon.render
    bpy.ops.orogen.terrain_add(
        spec=json.dumps(
            {
                "version": 2,
                "size": 64,
                "seed": 1,
                "width": 20.0,
                "height": 6.0,
                "generator": "hills",
                "hills": {"count": 1, "radius_min": 30, "radius_max": 30, "island": True},
                "filters": [],
                "lighting": {
                    "mode": "hillshade",
                    "azimuth": 90.0,
                    "altitude": 20.0,
                    "shadows": True,
                    "ao": True,
                    "min_brightness": 0.0,
                },
            }
        )
    )
    terrain = bpy.context.active_object
    tree = terrain.active_material.node_tree
    assert not [n for n in tree.nodes if n.bl_idname == "ShaderNodeVertexColor"]  # the lightmap is not read
    render.add_camera(scene, terrain, view="TOP", aspect=1.0)
    halves = {}
    for azimuth in (90.0, 270.0):
        for obj in [o for o in scene.objects if o.type == "LIGHT"]:
            bpy.data.objects.remove(obj)
        render.light_scene(scene, math.radians(azimuth), math.radians(35.0))
        render.configure_cycles(scene, (48, 48), samples=16)
        out = tmp_path / f"sun{azimuth:.0f}.png"
        render.render_still(scene, str(out))
        lum = orogen.addon.io.heightmaps.read_image(str(out))[..., :3].mean(axis=-1)
        halves[azimuth] = (lum[12:36, 28:40].mean(), lum[12:36, 8:20].mean())  # (east, west)
    (east_e, west_e), (east_w, west_w) = halves[90.0], halves[270.0]
    assert east_e > 1.3 * west_e and west_w > 1.3 * east_w, halves  # the lit side moves with the sun
    assert east_e == pytest.approx(west_w, rel=0.05) and west_e == pytest.approx(east_w, rel=0.05), halves


def test_the_base_closes_the_terrains_edges_down_to_a_floor(scene, orogen):
    """The picture's diorama sides: one wall quad per edge segment, from the edge vertices themselves down to a
    floor a tenth of the relief below the lowest point; the terrain's mesh untouched."""
    bpy.ops.orogen.terrain_add(size=17, size_y=9, width=32.0, height=10.0, seed=3, location=(5.0, -2.0, 1.0))
    terrain = bpy.context.active_object
    before = np.empty(len(terrain.data.vertices) * 3, dtype=np.float32)
    terrain.data.vertices.foreach_get("co", before)
    base = orogen.addon.render.add_base(scene, terrain)
    assert base.name == "Terrain Base" and base.name in scene.collection.objects
    assert len(base.data.polygons) == 2 * (17 - 1) + 2 * (9 - 1)
    co = np.empty(len(base.data.vertices) * 3, dtype=np.float32)
    base.data.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    grid = before.reshape(9, 17, 3)
    edge = np.concatenate([grid[0], grid[-1], grid[:, 0], grid[:, -1]])
    top, bottom = np.split(co, 2)
    assert {tuple(v) for v in top} == {tuple(v) for v in edge}  # the walls start on the edge vertices exactly
    z = before[2::3]
    assert np.allclose(bottom[:, 2], z.min() - 0.1 * (z.max() - z.min()))
    assert np.array_equal(bottom[:, :2], top[:, :2])
    assert np.array_equal(np.array(base.matrix_world), np.array(terrain.matrix_world))
    after = np.empty_like(before)
    terrain.data.vertices.foreach_get("co", after)
    assert np.array_equal(before, after)


def test_the_optional_cavity_term_darkens_a_lit_terrain_by_its_ambient_occlusion(scene, orogen, tmp_path):
    """Lit with *Cavity* 1 and AO baked: the base colour is multiplied by the ``occlusion`` attribute (core's AO
    factor); the same render without the cavity term, divided into it, is that factor. Off (0), or without AO,
    the material does not read it."""
    render = orogen.addon.render
    spec = {
        "version": 3,
        "size": 48,
        "seed": 5,
        "width": 47.0,
        "height": 14.0,
        "generator": "diamond_square",
        "filters": [],
        "material": {"cavity": 1.0},
        "lighting": {"mode": "hillshade", "ao": True, "ao_strength": 2.0, "ao_radius": 12},
    }
    bpy.ops.orogen.terrain_add(spec=json.dumps(spec))
    terrain = bpy.context.active_object
    occlusion = np.empty(48 * 48, dtype=np.float32)
    terrain.data.attributes["occlusion"].data.foreach_get("value", occlusion)
    heights = np.empty(48 * 48, dtype=np.float32)
    terrain.data.attributes["height"].data.foreach_get("value", heights)
    maps = orogen.core.spec.load_spec(spec).bake(heights.reshape(48, 48))
    assert np.array_equal(occlusion.reshape(48, 48), maps.occlusion)  # the attribute is core's factor
    nodes = terrain.active_material.node_tree.nodes
    assert [n.attribute_name for n in nodes if n.bl_idname == "ShaderNodeAttribute" and n.label == "Occlusion"] == [
        "occlusion"
    ]
    cam = render.add_camera(scene, terrain, view="TOP", aspect=1.0)
    cam.data.ortho_scale = 47.0 + 47.0 / 47
    render.light_scene(scene, math.radians(300.0), math.radians(50.0))
    render.configure_cycles(scene, (48, 48), samples=64)
    scene.cycles.max_bounces = 0  # direct light only: light bounced between slopes is not scaled by the colour
    scene.cycles.filter_width = 0.01
    scene.view_settings.view_transform = "Standard"
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "32"
    render.render_still(scene, str(tmp_path / "cavity.exr"))
    dark = orogen.addon.io.heightmaps.read_image(str(tmp_path / "cavity.exr"))[..., :3].mean(axis=-1)
    terrain.orogen.material.cavity = 0.0  # as the panel does: the change notification rebuilds the material
    bpy.context.view_layer.objects.active = terrain
    sys.modules[orogen.__name__ + ".addon.live"]._on_msgbus()
    assert not [n for n in terrain.active_material.node_tree.nodes if n.label == "Occlusion"]
    render.render_still(scene, str(tmp_path / "plain.exr"))
    plain = orogen.addon.io.heightmaps.read_image(str(tmp_path / "plain.exr"))[..., :3].mean(axis=-1)
    inner = (slice(2, -2), slice(2, -2))
    ratio = dark[inner] / np.maximum(plain[inner], 1e-6)
    occ = maps.occlusion[inner]
    assert occ.min() < 0.6 and np.corrcoef(ratio.ravel(), occ.ravel())[0, 1] > 0.8
    # Only the diffuse part is scaled: the specular reflection (white, the same in both) keeps the ratio a little
    # above the factor, never above 1 beyond the noise.
    assert 1.0 <= float(np.median(ratio / occ)) < 1.25 and (ratio < 1.05).mean() > 0.97


def _linear_luminance(rgb):
    """Rec. 709 luminance of sRGB-encoded values in [0, 1] (a PNG's), decoded to linear first."""
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def test_the_landscape_view_looks_across_a_lit_land_with_the_sky_only_above_it(scene, orogen, tmp_path):
    """The default picture of render_terrain.py, small: the camera inside the terrain above its ground, the sun
    to the side, no sky below the horizon (the land continues to it), and no slope facing the camera in black
    shadow (the near-black share that a sun behind the relief gave the old view's pictures: 2-21 %)."""
    landscape, render, read = orogen.addon.landscape, orogen.addon.render, orogen.addon.io.heightmaps.read_image
    spec = orogen.core.preset_spec("eroded_mountains").replace(size=65)
    bpy.ops.orogen.terrain_add(spec=spec.to_json())
    terrain = bpy.context.active_object
    light = spec.lighting
    cam = landscape.stage_view(
        scene, terrain, "LANDSCAPE", aspect=16 / 9, sun_azimuth=light["azimuth"], sun_altitude=light["altitude"]
    )
    assert scene.camera == cam
    # Above the ground: straight down the first thing met is the terrain or its water, straight up the haze's
    # ceiling; inside the terrain's bounds.
    depsgraph = bpy.context.evaluated_depsgraph_get()
    below = scene.ray_cast(depsgraph, cam.location, (0.0, 0.0, -1.0))
    above = scene.ray_cast(depsgraph, cam.location, (0.0, 0.0, 1.0))
    water = orogen.addon.water.water_of(terrain)
    assert below[0] and below[4] in (terrain, water) and cam.location.z > below[1].z
    assert above[0] and above[4].name == "Haze"
    half = terrain.dimensions / 2
    assert abs(cam.location.x) < half.x and abs(cam.location.y) < half.y
    # Level, looking 60-100 degrees from the sun's azimuth.
    view = cam.matrix_world.to_3x3() @ Vector((0.0, 0.0, -1.0))
    assert abs(view.z) < 1e-6
    off = abs((math.degrees(math.atan2(view.x, view.y)) - light["azimuth"] + 180.0) % 360.0 - 180.0)
    assert 60.0 <= off <= 100.0, off
    render.light_scene(scene, math.radians(light["azimuth"]), math.radians(light["altitude"]))
    render.configure_cycles(scene, (160, 90), samples=16)
    # The sky's pixels: where a camera ray meets nothing (transparent film, the haze left out so it hides none).
    haze = bpy.data.objects["Haze"]
    haze.hide_render = True
    scene.render.film_transparent = True
    scene.render.image_settings.color_mode = "RGBA"
    render.render_still(scene, str(tmp_path / "mask.png"))
    sky = read(str(tmp_path / "mask.png"))[..., 3] < 0.999
    assert 0.1 < sky.mean() < 0.6 and sky[:9].mean() > 0.9  # a sky at the top ...
    assert not sky[60:].any()  # ... and none in the bottom third
    haze.hide_render = False
    scene.render.film_transparent = False
    scene.render.image_settings.color_mode = "RGB"
    render.render_still(scene, str(tmp_path / "landscape.png"))
    lum = _linear_luminance(read(str(tmp_path / "landscape.png"))[..., :3].astype(np.float64))
    assert (lum < 0.03).mean() < 0.02, (lum < 0.03).mean()
    land = lum[~sky]
    assert np.percentile(land, 5) > 0.03 and land.std() > 0.01  # shaded slopes keep light, and there is detail


def test_the_surround_continues_the_terrain_across_every_edge(scene, orogen):
    """Mirror images of the terrain and of its water round it, each meeting the terrain edge to edge with the
    same heights; a flat ground beyond at the water level."""
    bpy.ops.orogen.terrain_add(
        size=17, size_y=9, width=32.0, height=10.0, seed=3, location=(5.0, -2.0, 1.0), set="material.water=true"
    )
    terrain = bpy.context.active_object
    water = orogen.addon.water.water_of(terrain)
    made = orogen.addon.landscape.add_surround(scene, terrain, reach=500.0)
    copies = [o for o in made if o.data == terrain.data]
    seas = [o for o in made if water is not None and o.data == water.data]
    assert len(copies) == 24 and len(seas) == 24 and len(made) == 49
    co = np.empty(17 * 9 * 3, dtype=np.float32)
    terrain.data.vertices.foreach_get("co", co)
    grid = co.reshape(9, 17, 3)
    world = np.array(terrain.matrix_world)

    def placed(obj, points):
        m = np.array(obj.matrix_world)
        return points @ m[:3, :3].T + m[:3, 3]

    east_edge = grid[:, -1]
    original = placed(terrain, east_edge)
    # The image next east (mirrored in X): its own east column lands on the terrain's east column.
    east = next(o for o in copies if np.allclose(np.array(o.matrix_world)[:3, 3], world[:3, 3] + (32.0, 0, 0)))
    assert np.allclose(placed(east, east_edge), original, atol=1e-4)
    assert np.array(east.matrix_world)[0, 0] == pytest.approx(-1.0)
    ground = next(o for o in made if o.name.endswith("Ground"))
    z = np.empty(len(ground.data.vertices) * 3, dtype=np.float32)
    ground.data.vertices.foreach_get("co", z)
    level = (terrain.matrix_world.inverted() @ water.matrix_world).translation.z
    assert np.allclose(z[2::3], level)
