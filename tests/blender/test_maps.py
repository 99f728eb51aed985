"""Maps with the right values: splat PNGs byte for byte, and Unlit terrains through Blender's glTF exporter.

Files are read back by readers independent of Blender: Pillow for PNG, the
JSON and binary buffers of a .gltf with numpy.
"""

import json
import os

import bpy
import numpy as np
import pytest
from PIL import Image

COLOURS = [
    (0.8, 0.1, 0.1),
    (0.1, 0.7, 0.1),
    (0.1, 0.1, 0.9),
    (0.9, 0.9, 0.1),
    (0.5, 0.2, 0.6),
    (0.1, 0.6, 0.6),
    (0.4, 0.3, 0.2),
    (0.95, 0.95, 0.95),
]


def spec_with_layers(count, **extra):
    """A spec with ``count`` overlapping colour layers spread over the height range (every pixel mixes two or
    three of them, so splat channels hold small values beside a small alpha)."""
    layers = []
    for i in range(count):
        optimal = i / (count - 1)
        layers.append(
            {
                "name": f"layer{i}",
                "color": list(COLOURS[i]),
                "minimum": optimal - 0.6,
                "optimal": optimal,
                "maximum": optimal + 0.6,
            }
        )
    return json.dumps(
        {
            "version": 2,
            "size": 33,
            "seed": 4,
            "width": 32.0,
            "height": 10.0,
            "generator": "diamond_square",
            "layers": layers,
            **extra,
        }
    )


@pytest.mark.parametrize("count", [4, 5, 6, 7, 8])
def test_splat_pixels_equal_cores_splat_maps_and_sum_to_255(scene, orogen, tmp_path, count):
    bpy.ops.orogen.terrain_add(spec=spec_with_layers(count))
    obj = bpy.context.active_object
    assert bpy.ops.orogen.export_maps(
        directory=str(tmp_path),
        name="t",
        heightmap_format="NONE",
        use_lightmap=False,
        use_colormap=False,
        use_normal_map=False,
        use_data_maps=False,
        use_splat_maps=True,
    ) == {"FINISHED"}
    core = orogen.core
    h = orogen.addon.io.heightmaps.heightmap_from_mesh(obj)
    slope = core.lighting.slope_degrees(h * np.float32(10.0), 1.0)
    spec = orogen.addon.specio.read_spec(obj.orogen)
    expected = core.splat_maps(core.layer_weights(h, orogen.addon.material.checked_layers(spec), slope))
    assert len(expected) == (count + 3) // 4
    files = sorted(tmp_path.glob("t_splat*.png"))
    assert [f.name for f in files] == [f"t_splat{i}.png" for i in range(len(expected))]
    total = np.zeros(h.shape, dtype=np.int64)
    for path, want in zip(files, expected, strict=True):
        with Image.open(path) as image:
            assert image.mode == "RGBA" and image.size == (33, 33)
            got = np.asarray(image)
        assert np.array_equal(got, want)  # every byte, alpha included
        total += got.astype(np.int64).sum(axis=-1)
    assert (total == 255).all()
    if count % 4 == 0:  # the case from the report: colour channels beside a partial alpha, not divided by it
        assert any(((0 < w[..., 3]) & (w[..., 3] < 128) & (w[..., :3].sum(axis=-1) > 0)).any() for w in expected)


def test_rgba_data_pngs_keep_every_level_whatever_the_alpha(orogen, tmp_path):
    levels = np.arange(256, dtype=np.float64)
    rgba = np.stack(np.meshgrid(levels, levels), axis=-1)  # every pair of levels
    rgba = np.concatenate([rgba, rgba[..., ::-1]], axis=-1) / 255.0  # R, G and alpha over 0..255 each
    path = orogen.addon.io.heightmaps.write_image(str(tmp_path / "levels.png"), rgba)
    with Image.open(path) as image:
        assert np.array_equal(np.asarray(image), np.rint(rgba * 255).astype(np.uint8))


# --- glTF ---------------------------------------------------------------------------------------
def accessor(gltf, index, folder):
    """The values of a glTF accessor as float64 ``(count, width)`` (normalised integers scaled to [0, 1])."""
    acc = gltf["accessors"][index]
    view = gltf["bufferViews"][acc["bufferView"]]
    with open(os.path.join(folder, gltf["buffers"][view["buffer"]]["uri"]), "rb") as f:
        raw = f.read()
    dtype = {5126: np.float32, 5123: np.uint16, 5121: np.uint8}[acc["componentType"]]
    width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[acc["type"]]
    values = np.frombuffer(raw, dtype, acc["count"] * width, view.get("byteOffset", 0) + acc.get("byteOffset", 0))
    values = values.reshape(acc["count"], width).astype(np.float64)
    if acc.get("normalized"):
        values /= np.iinfo(dtype).max
    return values


def export_gltf(folder):
    path = os.path.join(folder, "terrain.gltf")
    bpy.ops.export_scene.gltf(filepath=path, export_format="GLTF_SEPARATE", use_selection=True)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def expected_colour(orogen, obj):
    """core.colormap × lightmap at each vertex (what the Unlit material shows), linear."""
    ex, core = orogen.addon.io.heightmaps, orogen.core
    spec = orogen.addon.specio.read_spec(obj.orogen)
    rows, cols = ex.terrain_shape(obj)
    h, slope = ex.point_map(obj, "height"), ex.point_map(obj, "slope")
    colour = core.colormap(h, orogen.addon.material.checked_layers(spec), slope)
    light = ex.point_map(obj, "Lightmap")
    if light is not None:
        colour = colour * light[..., None]
    return colour.reshape(rows * cols, 3)


def gltf_colours(orogen, obj, folder):
    """(material, COLOR_0 per glTF vertex, that vertex's terrain vertex): glTF splits vertices, so each is
    matched to the terrain's by its position."""
    gltf = export_gltf(str(folder))
    (mesh,) = gltf["meshes"]
    (primitive,) = mesh["primitives"]
    material = gltf["materials"][primitive["material"]]
    colour = accessor(gltf, primitive["attributes"]["COLOR_0"], str(folder))[:, :3]
    position = accessor(gltf, primitive["attributes"]["POSITION"], str(folder))
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    # glTF is Y-up: (x, y, z) in Blender is (x, z, -y).
    blender = np.stack([position[:, 0], -position[:, 2], position[:, 1]], axis=1)
    rows, cols = orogen.addon.io.heightmaps.terrain_shape(obj)
    cell = co[1, 0] - co[0, 0]
    col = np.rint((blender[:, 0] - co[0, 0]) / cell).astype(int)
    row = np.rint((co[0, 1] - blender[:, 1]) / cell).astype(int)
    index = row * cols + col
    assert np.allclose(co[index], blender, atol=1e-4)
    return material, colour, index


@pytest.mark.parametrize("lighting", [True, False])
def test_an_unlit_terrain_exports_as_an_unlit_gltf_material_with_its_colours_in_color_0(
    scene, orogen, tmp_path, lighting
):
    bpy.ops.orogen.terrain_add(spec=spec_with_layers(3, material={"shading": "unlit"}, lighting={"enabled": lighting}))
    obj = bpy.context.active_object
    material, colour, index = gltf_colours(orogen, obj, tmp_path)
    assert "KHR_materials_unlit" in material.get("extensions", {})
    base = material.get("pbrMetallicRoughness", {}).get("baseColorFactor", [1, 1, 1, 1])
    assert base == [1, 1, 1, 1] and "emissiveFactor" not in material  # not black with a white emission
    expected = expected_colour(orogen, obj)[index]
    assert np.abs(colour - expected).max() < 1e-3  # COLOR_0 is the baked colour × lightmap (float or 16-bit)
    assert np.ptp(colour) > 0.1  # not 1.0 everywhere


def test_the_baked_colour_follows_regeneration_and_layer_edits(scene, orogen, tmp_path):
    bpy.ops.orogen.terrain_add(spec=spec_with_layers(3, material={"shading": "unlit"}))
    obj = bpy.context.active_object
    obj.orogen.live_update = False
    obj.orogen.seed = 9
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    obj.orogen.layers[0].color = (1.0, 0.0, 0.0)
    orogen.addon.terrain.apply.set_material(obj, orogen.addon.specio.read_spec(obj.orogen))  # what a layer edit runs
    _, colour, index = gltf_colours(orogen, obj, tmp_path)
    assert np.abs(colour - expected_colour(orogen, obj)[index]).max() < 1e-3


def test_lit_terrains_have_no_baked_colour_and_the_render_reads_the_node_tree(scene, orogen):
    bpy.ops.orogen.terrain_add(spec=spec_with_layers(3))
    assert "Color" not in bpy.context.active_object.data.color_attributes
    bpy.ops.orogen.terrain_add(spec=spec_with_layers(3, material={"shading": "unlit"}))
    tree = bpy.context.active_object.active_material.node_tree
    render = [n for n in tree.nodes if n.bl_idname == "ShaderNodeOutputMaterial" and n.target in ("CYCLES", "EEVEE")]
    assert len(render) == 2 and all(n.inputs[0].links[0].from_node.bl_idname == "ShaderNodeEmission" for n in render)
