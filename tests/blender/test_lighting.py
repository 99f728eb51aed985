"""Lighting modes, data maps, colour layers with slopes and textures, in real Blender."""

import json
import math
import os

import bpy
import numpy as np
import pytest
from top_view import plain_top_view

SLOPED_LAYERS = [
    {
        "name": "grass",
        "color": [0.1, 0.35, 0.08],
        "minimum": -1.0,
        "optimal": 0.2,
        "maximum": 0.7,
        "slope_max": 25.0,
        "slope_softness": 8.0,
    },
    {
        "name": "rock",
        "color": [0.35, 0.3, 0.25],
        "minimum": -1.0,
        "optimal": 0.5,
        "maximum": 2.0,
        "slope_min": 25.0,
        "slope_softness": 8.0,
    },
    {"name": "snow", "color": [0.9, 0.9, 0.95], "minimum": 0.6, "optimal": 0.9, "maximum": 2.0, "slope_max": 40.0},
]


def point(obj, name):
    attr = obj.data.attributes[name]
    values = np.empty(len(attr.data), dtype=np.float32)
    attr.data.foreach_get("value", values)
    return values


def lightmap_of(obj):
    values = np.empty(len(obj.data.vertices) * 4, dtype=np.float32)
    obj.data.color_attributes["Lightmap"].data.foreach_get("color", values)
    return values.reshape(-1, 4)[:, 0]


def spec(**values):
    """Spec JSON for ``terrain_add(spec=...)``: the default filter stack of a new terrain unless given."""
    return json.dumps({"version": 2, "filters": [{"type": "flatten", "exponent": 1.5}], **values})


def heights(orogen, size, seed, **params):
    """Version 2's heightmap (what a version-2 spec migrates to): normalised after the filters."""
    recipe = orogen.core.recipe.Recipe(
        "diamond_square", seed, (size, size), params, (("flatten", {"exponent": 1.5}),), version=2
    )
    return recipe.evaluate()


def metres(orogen, generator, size, seed, width, height, params, filters=(("flatten", {"exponent": 1.5}),)):
    """The Z of a version-3 terrain (``terrain_add``'s own): its heightmap, in units of Height, times Height."""
    recipe = orogen.core.recipe.Recipe(
        generator,
        seed,
        (size, size),
        params,
        filters,
        cell_size=width / (size - 1),
        height=height,
        version=3,
        fit_height=False,
    )
    return recipe.evaluate() * np.float32(height)


def z_of(obj, shape):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(*shape, 3)[..., 2]


def test_slope_and_curvature_attributes_match_core(scene, orogen):
    bpy.ops.orogen.terrain_add(generator="diamond_square", size=33, seed=2, width=32.0, height=9.0)
    obj = bpy.context.active_object
    h = metres(orogen, "diamond_square", 33, 2, 32.0, 9.0, {"roughness": 1.0, "lattice": "world"})
    assert np.array_equal(z_of(obj, (33, 33)), h)  # the maps are the mesh's own heights' (metres)
    shading = orogen.core.lighting
    assert np.array_equal(point(obj, "slope").reshape(33, 33), shading.slope_degrees(h, 1.0))
    assert np.array_equal(point(obj, "curvature").reshape(33, 33), shading.curvature(h, 1.0))


@pytest.mark.parametrize("mode", ["hillshade", "multidirectional"])
def test_hillshade_modes_with_shadows_and_ao(scene, orogen, mode):
    bpy.ops.orogen.terrain_add(
        generator="diamond_square",
        size=40,
        seed=5,
        width=39.0,
        height=15.0,
        set=f"lighting.mode={mode}; lighting.azimuth=120; lighting.altitude=30; "
        "lighting.shadows=true; lighting.ao=true; lighting.ao_strength=1.5; "
        "lighting.ao_directions=8; lighting.ao_radius=12; lighting.min_brightness=0; "
        "lighting.max_brightness=1",
    )
    obj = bpy.context.active_object
    h = metres(orogen, "diamond_square", 40, 5, 39.0, 15.0, {"roughness": 1.0, "lattice": "world"})
    assert np.array_equal(z_of(obj, (40, 40)), h)
    expected = orogen.core.lighting.combined_lightmap(
        h,
        1.0,
        azimuth=120.0,
        altitude=30.0,
        multidirectional=mode == "multidirectional",
        shadow_softness=2.0,
        ambient_strength=np.float32(1.5).item(),
        ambient_directions=8,
        ambient_radius=12,
    )
    assert np.allclose(lightmap_of(obj).reshape(40, 40), expected, atol=1e-5)


def test_maps_are_baked_from_the_mesh_metres_when_uplift_raises_the_terrain_above_height(scene, orogen):
    """Version 3 keeps the filtered heights (no final normalisation): uplift lifts this terrain to about 1.39 x
    Height. Slope, curvature and the lightmap (shadows, AO) are those of the mesh's Z, in metres, as it stands."""
    size, width, height = 33, 3200.0, 200.0
    assert bpy.ops.orogen.terrain_add(
        spec=json.dumps(
            {
                "version": 3,
                "size": size,
                "seed": 3,
                "width": width,
                "height": height,
                "generator": "diamond_square",
                "filters": [
                    {"type": "erosion", "steps": 5, "dt": 2.0e4, "uplift": 1.0e-3, "auto_rates": False, "k": 1.0e-5}
                ],
                "lighting": {
                    "mode": "hillshade",
                    "azimuth": 290.0,
                    "altitude": 20.0,
                    "shadows": True,
                    "ao": True,
                    "ao_radius": 4,
                    "min_brightness": 0.0,
                    "max_brightness": 1.0,
                },
            }
        )
    ) == {"FINISHED"}
    obj = bpy.context.active_object
    z = z_of(obj, (size, size))
    assert z.max() > 1.3 * height and z.min() >= 0.0  # well above Height: a [0, 1] assumption would show
    assert np.array_equal(point(obj, "height").reshape(size, size) * np.float32(height), z)
    cell = width / (size - 1)
    shading = orogen.core.lighting
    assert np.array_equal(point(obj, "slope").reshape(size, size), shading.slope_degrees(z, cell))
    assert np.array_equal(point(obj, "curvature").reshape(size, size), shading.curvature(z, cell))
    expected = shading.combined_lightmap(
        z,
        cell,
        azimuth=290.0,
        altitude=20.0,
        shadow_softness=2.0,
        ambient_strength=1.0,
        ambient_directions=16,
        ambient_radius=4,
    )
    assert np.allclose(lightmap_of(obj).reshape(size, size), expected, atol=1e-6)
    assert (expected < 0.05).mean() > 0.02  # cast shadows are part of it


def test_scene_sun_sets_the_light_direction(scene, orogen):
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    scene.collection.objects.link(sun)
    orogen.addon.render._look_at(sun, -orogen.addon.render.sun_vector(math.radians(250.0), math.radians(40.0)))
    bpy.context.view_layer.update()
    assert orogen.addon.terrain.compute.scene_sun(scene) == pytest.approx((250.0, 40.0), abs=1e-3)
    bpy.ops.orogen.terrain_add(
        size=24,
        seed=1,
        width=23.0,
        height=6.0,
        set="lighting.mode=hillshade; lighting.use_scene_sun=true; "
        "lighting.min_brightness=0; lighting.azimuth=0; lighting.altitude=80",
    )
    obj = bpy.context.active_object
    h = metres(orogen, "hills", 24, 1, 23.0, 6.0, {})  # the default hills: 150, radii 3 to 16 m
    assert np.array_equal(z_of(obj, (24, 24)), h)
    sun_az, sun_alt = orogen.addon.terrain.compute.scene_sun(scene)
    expected = orogen.core.lighting.hillshade(h, 1.0, azimuth=sun_az, altitude=sun_alt)
    assert np.allclose(lightmap_of(obj).reshape(24, 24), expected, atol=1e-6)


def test_unlit_render_with_slope_layers_equals_core_colour_map_times_lightmap(scene, orogen, tmp_path):
    """Top-down orthographic Emission render at 1 sample: the node tree mirrors core, slope terms included."""
    core = orogen.core
    size, width, height = 48, 47.0, 20.0
    bpy.ops.orogen.terrain_add(
        spec=spec(
            generator="diamond_square",
            size=size,
            seed=4,
            width=width,
            height=height,
            material={"shading": "unlit"},
            lighting={"mode": "hillshade", "azimuth": 300.0, "altitude": 40.0, "min_brightness": 0.2},
            layers=SLOPED_LAYERS,
        )
    )
    terrain = bpy.context.active_object
    rendered = plain_top_view(orogen, scene, terrain, tmp_path / "unlit.exr", size, width)

    h = heights(orogen, size, 4, roughness=1.0)
    metres = h * np.float32(height)
    slope = core.lighting.slope_degrees(metres, 1.0)
    layers = core.spec.layers_from_data(SLOPED_LAYERS)
    light = np.float32(0.2) + np.float32(0.8) * core.lighting.hillshade(metres, 1.0, azimuth=300.0, altitude=40.0)
    expected = core.colormap(h, layers, slope) * light[..., None]
    inner = (slice(2, -2), slice(2, -2))
    assert np.abs(rendered[inner] - expected[inner]).max() < 2 / 255
    weights = core.layer_weights(h, layers, slope)[inner]
    assert (weights[..., 1] > 0.5).mean() > 0.1 and (weights[..., 0] > 0.5).mean() > 0.1  # both terms matter


def test_texture_layers_build_valid_nodes_with_uvs_and_extend(scene, tmp_path):
    image = bpy.data.images.new("checker", 8, 8)
    image.filepath_raw = str(tmp_path / "checker.png")
    image.file_format = "PNG"
    image.save()
    layers = [
        {
            "name": "img",
            "color": [0.5, 0.5, 0.5],
            "minimum": -1.0,
            "optimal": 0.2,
            "maximum": 0.6,
            "kind": "IMAGE",
            "image": str(tmp_path / "checker.png"),
        },
        {
            "name": "noise",
            "color": [0.2, 0.3, 0.1],
            "color2": [0.4, 0.5, 0.2],
            "minimum": 0.2,
            "optimal": 0.5,
            "maximum": 0.8,
            "kind": "NOISE",
            "scale": 12.0,
        },
        {
            "name": "vor",
            "color": [0.6, 0.6, 0.6],
            "color2": [0.3, 0.3, 0.3],
            "minimum": 0.5,
            "optimal": 0.9,
            "maximum": 2.0,
            "kind": "VORONOI",
        },
    ]
    assert bpy.ops.orogen.terrain_add(spec=spec(size=16, layers=layers)) == {"FINISHED"}
    tree = bpy.context.active_object.active_material.node_tree
    assert all(link.is_valid for link in tree.links)
    images = [n for n in tree.nodes if n.bl_idname == "ShaderNodeTexImage"]
    assert len(images) == 1 and images[0].extension == "EXTEND"
    assert images[0].inputs["Vector"].links[0].from_node.uv_map == "UVMap"
    assert [n.bl_idname for n in tree.nodes if n.bl_idname in {"ShaderNodeTexNoise", "ShaderNodeTexVoronoi"}]
    noise = next(n for n in tree.nodes if n.bl_idname == "ShaderNodeTexNoise")
    assert noise.inputs["Scale"].default_value == pytest.approx(12.0)


def test_missing_image_is_reported_and_leaves_nothing(scene):
    before = (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials))
    layers = [
        {
            "name": "img",
            "color": [0.5, 0.5, 0.5],
            "minimum": -1.0,
            "optimal": 0.5,
            "maximum": 2.0,
            "kind": "IMAGE",
            "image": "/nonexistent/texture.png",
        }
    ]
    with pytest.raises(RuntimeError, match="image file not found"):
        bpy.ops.orogen.terrain_add(spec=spec(size=8, layers=layers))
    assert (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials)) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_folder_or_fifo_as_an_image_layer_is_said_to_be_no_regular_file(scene, tmp_path):
    # it exists, so "image file not found" would be wrong; opening the FIFO would block until a writer came
    (tmp_path / "folder.png").mkdir()
    os.mkfifo(tmp_path / "fifo.png")
    before = (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials), len(bpy.data.images))
    for name, kind in [("folder.png", "a folder"), ("fifo.png", r"a FIFO \(named pipe\)")]:
        layer = {"name": "img", "color": [0.5] * 3, "minimum": -1.0, "optimal": 0.5, "maximum": 2.0}
        layer.update(kind="IMAGE", image=str(tmp_path / name))
        with pytest.raises(RuntimeError, match=rf"layers\[0\] \('img'\): {name} is {kind}, not a regular file"):
            bpy.ops.orogen.terrain_add(spec=spec(size=8, layers=[layer]))
        counts = (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials), len(bpy.data.images))
        assert counts == before


def test_layer_list_operators_and_generate_with_the_panel_layers(scene, orogen):
    settings = scene.orogen
    # A new scene's panel settings hold the default layers.
    assert [lay.name for lay in orogen.addon.specio.read_spec(settings).layers] == ["low", "mid", "high"]
    bpy.ops.orogen.layers_reset()
    assert [item.name for item in settings.layers] == ["low", "mid", "high"]
    bpy.ops.orogen.layer_add()
    assert len(settings.layers) == 4 and settings.active_layer == 3
    bpy.ops.orogen.layer_remove()
    bpy.ops.orogen.layer_remove()
    assert len(settings.layers) == 2
    assert not bpy.ops.orogen.layer_remove.poll()  # two layers stay
    settings.layers[1].slope_min = math.radians(30.0)  # an angle property: radians in Blender
    settings.size = 12
    assert bpy.ops.orogen.terrain_generate() == {"FINISHED"}  # the panel's Generate: its settings and layers
    obj = bpy.context.active_object
    assert [lay.name for lay in obj.orogen.layers] == ["low", "mid"]
    assert obj.orogen.layers[1].slope_min == pytest.approx(math.radians(30.0))
    tree = obj.active_material.node_tree
    assert "slope" in [n.attribute_name for n in tree.nodes if n.bl_idname == "ShaderNodeAttribute"]


def counts():
    return len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials), len(bpy.data.images)


@pytest.mark.parametrize(
    ("layers", "match"),
    [
        (
            [{"name": None, "color": [0.1, 0.2, 0.3], "minimum": 0, "optimal": 0.5, "maximum": 1}],
            r"layers\[0\]\.name must be text",
        ),
        (
            [
                {
                    "name": "x",
                    "color": [0.1, 0.2, 0.3],
                    "minimum": 0,
                    "optimal": 0.5,
                    "maximum": 1,
                    "kind": "IMAGE",
                    "image": __file__,
                }
            ],
            "test_lighting.py cannot be read: not a PNG, JPEG, TIFF or OpenEXR file",
        ),
        ("[" * 100_000 + "]" * 100_000, "terrain spec nests 100001 levels deep, more than the 32 allowed"),
        ("[{]", "terrain spec is not valid JSON: Expecting property name"),
        (
            [{"name": "x", "color": [0.1, 0.2, 0.3], "optimal": 0.5}],
            r"layers\[0\]: missing keys \['minimum', 'maximum'\]",
        ),
    ],
)
def test_bad_layers_leave_nothing_behind(scene, layers, match):
    before = counts()
    # Layers reach the add operator inside a spec; malformed layers JSON makes malformed spec JSON.
    text = spec(size=8, layers=layers) if not isinstance(layers, str) else spec(size=8)[:-1] + f', "layers": {layers}}}'
    with pytest.raises(RuntimeError, match=match):
        bpy.ops.orogen.terrain_add(spec=text)
    assert counts() == before


def test_rebuild_material_with_a_missing_image_is_reported(scene):
    bpy.ops.orogen.terrain_add(size=8)
    obj = bpy.context.active_object
    obj.orogen.live_update = False  # only the operator below may touch the material
    obj.orogen.layers[0].kind = "IMAGE"
    obj.orogen.layers[0].image = "/nonexistent.png"
    before = counts()
    with pytest.raises(RuntimeError, match="image file not found"):
        bpy.ops.orogen.material_rebuild()
    assert counts() == before
