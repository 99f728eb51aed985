"""The water surface: an object of the terrain's, at the water level, made, moved and removed with the spec."""

import json
import sys

import bpy
import numpy as np
import pytest
from top_view import blue_marker, plain_top_view

SIZE, WIDTH, HEIGHT, LEVEL = 48, 47.0, 12.0, 4.0  # one metre per cell


def water_spec(**material):
    return json.dumps(
        {
            "version": 2,
            "size": SIZE,
            "seed": 4,
            "width": WIDTH,
            "height": HEIGHT,
            "generator": "hills",
            "hills": {"count": 60, "radius_min": 3, "radius_max": 14},
            "filters": [{"type": "flatten", "exponent": 1.5}],
            "material": {"water": True, "water_level": LEVEL, **material},
        }
    )


def live(orogen):
    return sys.modules[orogen.__name__ + ".addon.live"]


def water_module(orogen):
    module = sys.modules[orogen.__name__ + ".addon.water"]
    module.WATER_KEY = sys.modules[orogen.__name__ + ".addon.material"].WATER_KEY
    return module


def positions(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def change(orogen, obj, **settings):
    """Change material settings as the panel does, then deliver the notification (see test_edit_in_place)."""
    for name, value in settings.items():
        setattr(obj.orogen.material, name, value)
    bpy.context.view_layer.objects.active = obj
    live(orogen)._on_msgbus()


@pytest.mark.smoke
def test_water_object_is_the_terrains_and_follows_the_spec(scene, orogen):
    water = water_module(orogen)
    bystander = bpy.data.objects.new("Terrain Water", bpy.data.meshes.new("mine"))  # a user's, same name
    scene.collection.objects.link(bystander)
    bpy.ops.orogen.terrain_add(spec=water_spec(), location=(5.0, -3.0, 2.0))
    terrain = bpy.context.active_object
    sea = water.water_of(terrain)
    assert sea is not None and sea != bystander and sea.parent == terrain
    assert bpy.context.active_object == terrain  # the water is not made active
    assert sea.name in {o.name for o in terrain.users_collection[0].objects}
    co = positions(sea)
    # The top at the water level over the terrain's bounds; nothing above it, nothing below the terrain.
    assert co[:, 2].max() == pytest.approx(LEVEL)
    assert co[:, 0].min() == pytest.approx(-WIDTH / 2) and co[:, 0].max() == pytest.approx(WIDTH / 2)
    assert co[:, 1].min() == pytest.approx(-WIDTH / 2) and co[:, 1].max() == pytest.approx(WIDTH / 2)
    assert co[:, 2].min() >= -1e-6
    assert (sea.matrix_world.translation - terrain.matrix_world.translation).length < 1e-6
    mat = sea.data.materials[0]
    principled = next(n for n in mat.node_tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    assert principled.inputs["IOR"].default_value == pytest.approx(1.33)
    assert principled.inputs["Transmission Weight"].default_value == 1.0
    (volume,) = [n for n in mat.node_tree.nodes if n.bl_idname.startswith("ShaderNodeVolume")]
    assert volume.bl_idname == "ShaderNodeVolumePrincipled"  # absorption and scattering in one volume closure

    # A new level moves it (a live edit of the water only: the terrain's material stays).
    terrain_material = terrain.active_material
    change(orogen, terrain, water_level=6.5)
    assert water.water_of(terrain) == sea and positions(sea)[:, 2].max() == pytest.approx(6.5)
    assert terrain.active_material == terrain_material
    # Regenerating keeps one water object and its material unless the colour changes.
    bpy.ops.orogen.terrain_regenerate()
    assert water.water_of(terrain) == sea and sea.data.materials[0] == mat
    assert len([o for o in bpy.data.objects if o.get(water.WATER_PROPERTY)]) == 1
    old_name = mat.name
    change(orogen, terrain, water_color=(0.1, 0.2, 0.3))
    assert old_name not in bpy.data.materials  # rebuilt for the new colour, the old one removed
    assert list(sea.data.materials[0][water.WATER_KEY]) == pytest.approx([0.1, 0.2, 0.3])
    # Water off removes it, its mesh and material; the user's object of the same name stays.
    mesh_name = sea.data.name
    change(orogen, terrain, water=False)
    assert water.water_of(terrain) is None
    assert not [o for o in bpy.data.objects if o.get(water.WATER_PROPERTY)]
    assert mesh_name not in bpy.data.meshes
    assert bystander.name in bpy.data.objects and "mine" in bpy.data.meshes
    change(orogen, terrain, water=True)
    assert water.water_of(terrain) is not None


def test_water_never_takes_or_removes_a_users_object(scene, orogen):
    water = water_module(orogen)
    bpy.ops.orogen.terrain_add(spec=water_spec())
    terrain = bpy.context.active_object
    sea = water.water_of(terrain)
    # A user's object pretending to be the water (copied custom properties, pointed at by the terrain).
    impostor = bpy.data.objects.new("Impostor", bpy.data.meshes.new("impostor"))
    scene.collection.objects.link(impostor)
    impostor[water.WATER_PROPERTY] = True
    other = bpy.data.objects.new("Other", None)
    scene.collection.objects.link(other)
    impostor["orogen_owner"] = other
    terrain[water.WATER_OBJECT_PROPERTY] = impostor
    assert water.water_of(terrain) == sea  # found as its child, not through the pointer
    bpy.data.objects.remove(sea)
    terrain[water.WATER_OBJECT_PROPERTY] = impostor
    assert water.water_of(terrain) is None
    change(orogen, terrain, water=False)
    assert impostor.name in bpy.data.objects and len(impostor.data.vertices) == 0
    change(orogen, terrain, water=True)
    assert water.water_of(terrain) not in (None, impostor)


def test_a_users_own_material_on_the_water_is_kept(scene, orogen):
    water = water_module(orogen)
    bpy.ops.orogen.terrain_add(spec=water_spec())
    terrain = bpy.context.active_object
    sea = water.water_of(terrain)
    ours = sea.data.materials[0]
    mine = bpy.data.materials.new("My Sea")
    sea.data.materials[0] = mine
    change(orogen, terrain, water_level=5.0)
    change(orogen, terrain, water_color=(0.2, 0.3, 0.4))
    bpy.ops.orogen.terrain_regenerate()
    assert water.water_of(terrain) == sea and sea.data.materials[0] == mine  # through every sync
    assert positions(sea)[:, 2].max() == pytest.approx(5.0)
    assert ours.name in bpy.data.materials  # (ours, now unused, is left to Blender's purge as any material)
    sea.data.materials[0] = None  # an empty slot gets Orogen's water again
    change(orogen, terrain, water_level=4.5)
    assert list(sea.data.materials[0][water.WATER_KEY]) == pytest.approx([0.2, 0.3, 0.4])


def test_top_down_render_has_water_exactly_where_the_ground_is_below_the_level(scene, orogen, tmp_path):
    """One pixel centre on every vertex: a ray meets the water first exactly where the vertex is below it."""
    bpy.ops.orogen.terrain_add(spec=water_spec(shading="unlit"))
    terrain = bpy.context.active_object
    sea = water_module(orogen).water_of(terrain)
    sea.data.materials[0] = blue_marker()  # the geometry, seen plainly
    rgb = plain_top_view(orogen, scene, terrain, tmp_path / "water.exr", SIZE, WIDTH)
    z = positions(terrain)[:, 2].reshape(SIZE, SIZE)
    wet = rgb[..., 2] > 0.99
    assert np.all(rgb[wet][:, :2] < 1e-6)  # pure marker: nothing else on top
    clear = np.abs(z - LEVEL) > 1e-3
    clear[[0, -1], :] = clear[:, [0, -1]] = False  # rays along the meshes' outer edges graze both
    assert np.array_equal(wet[clear], (z < LEVEL)[clear])
    assert 0.2 < wet.mean() < 0.8


def test_physical_water_is_tinted_by_depth(scene, orogen, tmp_path):
    """Under the sun and sky, water pixels are the depth colour's blue-green, and darker where deeper."""
    render = orogen.addon.render
    bpy.ops.orogen.terrain_add(spec=water_spec(water_color=[0.02, 0.09, 0.1]))
    terrain = bpy.context.active_object
    cam = render.add_camera(scene, terrain, view="TOP", aspect=1.0)
    cam.data.ortho_scale = WIDTH + WIDTH / (SIZE - 1)
    render.light_scene(scene, np.radians(200.0), np.radians(60.0))
    render.configure_cycles(scene, (SIZE, SIZE), samples=16)
    scene.cycles.filter_width = 0.01
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "32"
    render.render_still(scene, str(tmp_path / "sea.exr"))
    wet_rgb = orogen.addon.io.heightmaps.read_image(str(tmp_path / "sea.exr"))[..., :3]
    water_module(orogen).remove_water(terrain)
    render.render_still(scene, str(tmp_path / "dry.exr"))
    dry_rgb = orogen.addon.io.heightmaps.read_image(str(tmp_path / "dry.exr"))[..., :3]
    z = positions(terrain)[:, 2].reshape(SIZE, SIZE)
    inner = np.zeros_like(z, dtype=bool)
    inner[2:-2, 2:-2] = True
    deep = inner & (z < LEVEL - 2.0)
    shallow = inner & (z < LEVEL - 0.2) & (z > LEVEL - 1.0)
    land = inner & (z > LEVEL + 0.5)
    assert deep.sum() > 50 and shallow.sum() > 20 and land.sum() > 50
    # Land is untouched by the water; under water, red goes first (blue-green water), more with depth.
    # (EXR: scene-linear, in the sky's physical units; the water only changes the light land gets a little)
    assert np.abs(wet_rgb[land] - dry_rgb[land]).mean() < 0.02 * dry_rgb[land].mean()
    deep_mean, shallow_mean = wet_rgb[deep].mean(axis=0), wet_rgb[shallow].mean(axis=0)
    assert deep_mean[2] > 1.5 * deep_mean[0] and deep_mean[1] > 1.5 * deep_mean[0], deep_mean
    assert deep_mean.sum() < 0.6 * shallow_mean.sum(), (deep_mean, shallow_mean)
    assert wet_rgb[deep].mean() < 0.5 * dry_rgb[deep].mean()


def test_top_down_render_has_snow_only_above_the_snow_line(scene, orogen, tmp_path):
    """A snow layer in metres with ragged edges (the material's edge noise): seen from above with one pixel
    centre on every vertex, no pixel of ground below the snow line takes any snow, and the ground well above
    it is snow."""
    line, noise, ramp = 7.0, 0.6, 1.0
    ground, snow = (0.05, 0.12, 0.03), (0.8, 0.82, 0.86)
    spec = {
        "version": 3,
        "size": SIZE,
        "seed": 4,
        "width": WIDTH,
        "height": HEIGHT,
        "generator": "hills",
        "hills": {"count": 60, "radius_min": 3.0, "radius_max": 14.0},
        "lighting": {"enabled": False},
        "material": {"shading": "unlit"},
        "layers": [
            {
                "name": "ground",
                "color": list(ground),
                "minimum": -1.0e5,
                "optimal": 0.0,
                "maximum": line + noise + ramp,
                "heights": "metres",
            },
            {
                "name": "snow",
                "color": list(snow),
                "minimum": line + noise,
                "optimal": line + noise + ramp,
                "maximum": 1.0e5,
                "heights": "metres",
                "edge_noise": noise,
                "noise_size": 5.0,
            },
        ],
    }
    bpy.ops.orogen.terrain_add(spec=json.dumps(spec))
    terrain = bpy.context.active_object
    rgb = plain_top_view(orogen, scene, terrain, tmp_path / "snow.exr", SIZE, WIDTH)
    z = positions(terrain)[:, 2].reshape(SIZE, SIZE)
    inner = np.zeros_like(z, dtype=bool)
    inner[1:-1, 1:-1] = True
    snowy = rgb[..., 0] > ground[0] + 0.01  # any share of snow lifts the red channel
    below, above = inner & (z < line), inner & (z > line + 2 * noise + ramp)
    assert below.sum() > 200 and above.sum() > 30, (below.sum(), above.sum())
    assert not snowy[below].any()
    assert np.allclose(rgb[below], ground, atol=2e-3)
    assert np.allclose(rgb[above], snow, atol=2e-3)
    # The edge between is ragged, not a contour line: at one height some vertices have snow and some none.
    band = inner & (z > line + 0.3 * noise) & (z < line + 1.2 * noise)
    assert 0 < snowy[band].sum() < band.sum()


def test_a_users_mesh_put_into_the_water_object_is_never_overwritten(scene, orogen):
    """A user links a mesh of their own into the water object (Object Data ▸ Browse Mesh); Regenerate leaves it
    as it was, material slots and all, gives the water a new mesh of Orogen's, and says so."""
    water = water_module(orogen)
    bpy.ops.orogen.terrain_add(spec=water_spec())
    terrain = bpy.context.active_object
    sea = water.water_of(terrain)
    ours = sea.data
    mine = bpy.data.meshes.new("My Pond")
    mine.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [], [(0, 1, 2)])
    sea.data = mine
    assert ours.users == 0
    terrain.orogen.seed = 5
    bpy.ops.orogen.terrain_regenerate()
    assert "My Pond" in terrain.orogen.status and "does not own" in terrain.orogen.status
    assert water.water_of(terrain) == sea and sea.data not in (mine, ours)
    assert sea.data.get("orogen_owner") == terrain and positions(sea)[:, 2].max() == pytest.approx(LEVEL)
    assert sea.data.materials[0].get("orogen_owner") == terrain
    assert len(mine.vertices) == 3 and len(mine.materials) == 0  # untouched, not given the water's material
    assert mine.use_fake_user and mine.name in bpy.data.meshes  # not lost to the purge on save
    # Linked into an object of the user's too: no fake user needed, and turning the water off keeps it.
    bpy.data.objects.new("Pond", mine)
    mine.use_fake_user = False
    sea.data = mine
    change(orogen, terrain, water=False)
    assert water.water_of(terrain) is None and mine.name in bpy.data.meshes and len(mine.vertices) == 3
    assert len(mine.materials) == 0 and not mine.use_fake_user


def test_deep_water_scatters_light_back_blue_green_not_black(scene, orogen, tmp_path):
    """Water 30 m and more over the whole terrain: what comes back is light the volume scattered, tinted by the
    absorption (blue-green) and dark beside the bare land; without the scattering only the surface's reflection
    of the sky is left."""
    render = orogen.addon.render
    bpy.ops.orogen.terrain_add(spec=water_spec(water_color=[0.02, 0.09, 0.1], water_level=HEIGHT + 30.0))
    terrain = bpy.context.active_object
    cam = render.add_camera(scene, terrain, view="TOP", aspect=1.0)
    cam.data.ortho_scale = WIDTH + WIDTH / (SIZE - 1)
    cam.location.z += 40.0
    render.light_scene(scene, np.radians(200.0), np.radians(60.0))
    render.configure_cycles(scene, (SIZE, SIZE), samples=32)
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "32"
    render.render_still(scene, str(tmp_path / "deep.exr"))
    deep = orogen.addon.io.heightmaps.read_image(str(tmp_path / "deep.exr"))[4:-4, 4:-4, :3].mean(axis=(0, 1))
    sea = water_module(orogen).water_of(terrain)
    volume = next(n for n in sea.active_material.node_tree.nodes if n.bl_idname == "ShaderNodeVolumePrincipled")
    scattering = volume.inputs["Color"].default_value[0] * volume.inputs["Density"].default_value
    assert scattering == pytest.approx(0.02)
    # The same absorption without the scattering.
    color, density, absorption = orogen.addon.material.water_volume([0.02, 0.09, 0.1], scattering=0.0)
    volume.inputs["Color"].default_value = (*color, 1.0)
    volume.inputs["Density"].default_value = density
    volume.inputs["Absorption Color"].default_value = (*absorption, 1.0)
    render.render_still(scene, str(tmp_path / "clear.exr"))
    clear = orogen.addon.io.heightmaps.read_image(str(tmp_path / "clear.exr"))[4:-4, 4:-4, :3].mean(axis=(0, 1))
    water_module(orogen).remove_water(terrain)
    render.render_still(scene, str(tmp_path / "land.exr"))
    land = orogen.addon.io.heightmaps.read_image(str(tmp_path / "land.exr"))[4:-4, 4:-4, :3].mean(axis=(0, 1))
    within = deep - clear  # the light the volume sent back, several times the surface's reflection
    assert deep.sum() > 2.0 * clear.sum(), (deep, clear)
    assert within[1] > 1.15 * within[0] and within[2] > 1.15 * within[0], (deep, clear)  # red absorbed first
    assert deep.mean() < 0.15 * land.mean(), (deep, land)  # and still dark: a few per cent of the light
