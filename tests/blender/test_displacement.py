"""Render displacement in Blender: the height texture holds the spline coefficients of the mesh's heights, the
material and the modifier are wired for Cycles' adaptive subdivision, a top-view render of the displaced
surface's height is the bicubic spline through the vertices (and the grid without it), and switching it off
takes everything away again."""

import json
import sys

import bpy
import numpy as np
import pytest
from top_view import plain_top_view

SIZE, WIDTH, HEIGHT = 17, 160.0, 40.0  # 10 m cells


def spec(**material):
    return {
        "version": 5,
        "size": SIZE,
        "seed": 5,
        "width": WIDTH,
        "height": HEIGHT,
        "generator": "fractal",
        "fractal": {"feature_size": 60.0},
        "material": {"displacement": True, **material},
    }


def add(s):
    bpy.ops.orogen.terrain_add(spec=json.dumps(s))
    return bpy.context.active_object


def module(orogen, name):
    return sys.modules[f"{orogen.__name__}.{name}"]


def heights(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(SIZE, SIZE, 3)[..., 2]


def texture_of(orogen, obj):
    d = module(orogen, "addon.displacement")
    return obj.material_slots[0].material.node_tree.nodes[d.HEIGHT_NODE].image


def test_the_texture_holds_the_spline_coefficients_and_the_material_and_modifier_are_wired(scene, orogen):
    d = module(orogen, "addon.displacement")
    obj = add(spec())
    image = texture_of(orogen, obj)
    assert image.is_float and tuple(image.size) == (SIZE, SIZE) and image.packed_file is not None
    assert image.colorspace_settings.is_data and image.get(d.IMAGE_PROPERTY) == obj.data.name
    pixels = np.empty(SIZE * SIZE * 4, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    pixels = pixels.reshape(SIZE, SIZE, 4)[::-1]  # the image's rows run south to north
    expected = orogen.core.spline.bspline_coefficients(heights(obj))
    assert np.array_equal(pixels[..., 0], expected) and np.array_equal(pixels[..., 2], expected)
    material = obj.material_slots[0].material
    assert material.displacement_method == "BOTH"
    nodes = material.node_tree.nodes
    assert nodes[d.HEIGHT_NODE].interpolation == "Cubic" and nodes[d.HEIGHT_NODE].extension == "EXTEND"
    outputs = [n for n in nodes if n.bl_idname == "ShaderNodeOutputMaterial"]
    assert outputs and all(o.inputs["Displacement"].links for o in outputs)
    assert all(o.inputs["Displacement"].links[0].from_node.name == f"{d.NODE_PREFIX} Output" for o in outputs)
    scale = nodes[d.MAPPING_NODE].inputs["Scale"].default_value
    cell = WIDTH / (SIZE - 1)
    assert scale[0] == pytest.approx(1 / (cell * SIZE)) and scale[1] == pytest.approx(1 / (cell * SIZE))
    modifier = obj.modifiers[-1]
    assert modifier.name == d.MODIFIER_NAME and modifier.subdivision_type == "SIMPLE" and modifier.levels == 0
    if bpy.app.version >= (5, 0, 0):
        assert modifier.use_adaptive_subdivision and modifier.adaptive_pixel_size == pytest.approx(1.0)
    else:
        assert obj.cycles.use_adaptive_subdivision and obj.cycles.dicing_rate == pytest.approx(1.0)
    # the viewport's evaluated mesh is the grid itself
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    assert len(evaluated.data.vertices) == SIZE * SIZE


def test_off_takes_the_modifier_nodes_and_texture_away_and_a_plain_terrain_has_none(scene, orogen):
    d = module(orogen, "addon.displacement")
    plain = add({**spec(), "material": {}})
    assert d.MODIFIER_NAME not in plain.modifiers
    assert not [n for n in plain.material_slots[0].material.node_tree.nodes if n.name.startswith(d.NODE_PREFIX)]
    obj = add(spec())
    name = texture_of(orogen, obj).name
    d.sync_displacement(obj, orogen.core.spec.TerrainSpec.from_json(obj.orogen.applied))  # again: reused
    assert texture_of(orogen, obj).name == name and len([i for i in bpy.data.images if d.IMAGE_PROPERTY in i]) == 1
    off = orogen.core.spec.TerrainSpec.from_json(obj.orogen.applied)
    off = orogen.core.spec.TerrainSpec.from_dict({**off.to_dict(), "material": {**off.material, "displacement": False}})
    assert d.sync_displacement(obj, off) == []
    assert d.MODIFIER_NAME not in obj.modifiers and name not in bpy.data.images
    assert obj.material_slots[0].material.displacement_method == "BUMP"
    assert not [n for n in obj.material_slots[0].material.node_tree.nodes if n.name.startswith(d.NODE_PREFIX)]


def test_a_users_modifier_of_that_name_is_left_alone_with_a_note(scene, orogen):
    d = module(orogen, "addon.displacement")
    obj = add({**spec(), "material": {}})
    mine = obj.modifiers.new(d.MODIFIER_NAME, "SMOOTH")
    notes = d.sync_displacement(obj, orogen.core.spec.TerrainSpec.from_dict(spec()))
    assert notes and "rename" in notes[0] and obj.modifiers[d.MODIFIER_NAME] == mine and mine.type == "SMOOTH"


def _height_view(orogen, scene, obj, tmp_path, name):
    """A top view of the rendered surface's Z, four pixels per cell (pixel (4i, 4j) on vertex (i, j))."""
    material = obj.material_slots[0].material
    tree = material.node_tree
    geometry = tree.nodes.new("ShaderNodeNewGeometry")
    emit = tree.nodes.new("ShaderNodeEmission")
    tree.links.new(geometry.outputs["Position"], emit.inputs["Color"])
    for output in (n for n in tree.nodes if n.bl_idname == "ShaderNodeOutputMaterial"):
        tree.links.new(emit.outputs[0], output.inputs["Surface"])
    for modifier in obj.modifiers:
        if modifier.type == "NODES":
            modifier.show_render = False
    pixels = 4 * (SIZE - 1) + 1
    return plain_top_view(orogen, scene, obj, tmp_path / f"{name}.exr", pixels, WIDTH)[..., 2]


def test_a_render_lies_on_the_bicubic_spline_through_the_vertices(scene, orogen, tmp_path):
    obj = add(spec(dicing_rate=0.5))
    z = heights(obj)
    rendered = _height_view(orogen, scene, obj, tmp_path, "displaced")
    r, c = np.mgrid[0 : 4 * (SIZE - 1) + 1, 0 : 4 * (SIZE - 1) + 1] / 4.0
    spline = orogen.core.spline.bspline_sample(orogen.core.spline.bspline_coefficients(z), r, c)
    relief = float(z.max() - z.min())
    assert relief > 10.0
    error = np.abs(rendered - spline)
    assert np.abs(rendered[::4, ::4] - z).max() < 0.002 * relief  # through every vertex
    assert error.max() < 0.004 * relief and error.mean() < 0.001 * relief
    # without displacement the render is the grid's flat faces: off the spline between the vertices
    obj.hide_render = True
    flat = add(spec(displacement=False))
    grid = _height_view(orogen, scene, flat, tmp_path, "grid")
    between = np.ones(r.shape, bool)
    between[::4, ::4] = False
    assert np.abs(grid[::4, ::4] - z).max() < 0.002 * relief
    assert np.abs(grid - spline)[between].mean() > 10 * error[between].mean()
