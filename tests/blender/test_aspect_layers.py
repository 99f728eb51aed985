"""A colour layer that follows the aspect: the material reads the normal's north component and lays snow lower on
the slopes facing north, as core's colour map does (the same layer weights within the two normals' difference)."""

import json
from importlib import import_module

import bpy
import numpy as np
from top_view import plain_top_view

SIZE, WIDTH, HEIGHT = 64, 63.0, 30.0  # one metre per cell
SNOW = {"name": "snow", "color": [0.9, 0.9, 0.9], "minimum": 0.45, "optimal": 0.6, "maximum": 2.0}
GROUND = {"name": "ground", "color": [0.1, 0.08, 0.05], "minimum": -1.0, "optimal": 0.2, "maximum": 0.5}


def spec_json(shift):
    return json.dumps(
        {
            "version": 5,
            "generator": "hills",
            "hills": {"count": 40, "radius_min": 8.0, "radius_max": 20.0},
            "size": SIZE,
            "seed": 11,
            "width": WIDTH,
            "height": HEIGHT,
            "layers": [GROUND, {**SNOW, "aspect_shift": shift}],
            "lighting": {"enabled": False},
            "material": {"shading": "unlit"},
        }
    )


def test_the_material_reads_the_normals_north_component(scene, orogen):
    bpy.ops.orogen.terrain_add(spec=spec_json(0.3))
    tree = bpy.context.active_object.active_material.node_tree
    by_aspect = next(n for n in tree.nodes if n.label == "snow height by aspect")
    assert by_aspect.operation == "MULTIPLY_ADD" and abs(by_aspect.inputs[1].default_value - 0.3) < 1e-6
    north = by_aspect.inputs[0].links[0].from_node
    assert north.bl_idname == "ShaderNodeSeparateXYZ" and by_aspect.inputs[0].links[0].from_socket.name == "Y"
    source = north.inputs["Vector"].links[0]
    assert source.from_node.bl_idname == "ShaderNodeTexCoord" and source.from_socket.name == "Normal"
    bpy.ops.orogen.terrain_add(spec=spec_json(0.0))
    plain = bpy.context.active_object.active_material.node_tree
    assert not any(n.label.endswith("height by aspect") for n in plain.nodes)


def test_a_render_lays_snow_lower_on_the_slopes_facing_north_as_core_does(scene, orogen, tmp_path):
    core = orogen.core
    bpy.ops.orogen.terrain_add(spec=spec_json(0.3))
    terrain = bpy.context.active_object
    heights = np.empty(SIZE * SIZE, np.float32)
    terrain.data.attributes["height"].data.foreach_get("value", heights)
    h = heights.reshape(SIZE, SIZE)
    rendered = plain_top_view(orogen, scene, terrain, tmp_path / "aspect.exr", SIZE, WIDTH)
    spec = core.spec.TerrainSpec.from_json(spec_json(0.3))
    expected = core.colormap(h, spec.layers, None, height=HEIGHT, cell_size=1.0)
    flat = core.colormap(h, core.spec.TerrainSpec.from_json(spec_json(0.0)).layers, None, height=HEIGHT, cell_size=1.0)
    inner = (slice(2, -2), slice(2, -2))
    # core.colormap is the function (the package re-exports it); its module by name
    north = import_module(core.__name__ + ".colormap").aspect_north(h.astype(np.float64) * HEIGHT, 1.0)
    facing_north, facing_south = north[inner] > 0.3, north[inner] < -0.3
    assert facing_north.mean() > 0.05 and facing_south.mean() > 0.05
    snow = rendered[inner][..., 0]
    # the render follows core's colour map with the aspect (the normals differ a little: Blender's vertex
    # normals against Horn's gradient), and differs from the one without it where the slopes face north or south
    error = np.abs(rendered[inner] - expected[inner])[..., 0]
    assert float(error.mean()) < 0.005 and float(np.percentile(error, 95)) < 0.02, (error.mean(), error.max())
    assert float(np.abs(rendered[inner] - flat[inner])[..., 0].mean()) > 0.04  # 0.0005 against 0.078 measured
    moved = np.abs(expected[inner] - flat[inner])[..., 0] > 0.1
    assert moved.mean() > 0.05
    # more snow on the slopes facing north than on those facing south, at the same heights
    band = (h[inner] > 0.35) & (h[inner] < 0.65)
    assert float(snow[band & facing_north].mean()) > float(snow[band & facing_south].mean()) + 0.2
