"""The Lit material's ground stage: the terrain's own maps tint it and detail below the grid varies it.

Wiring is read from the material's node tree; the tint is measured in top-view renders under a sun straight
above with direct light only, where a pixel is the base colour times the same light with the tint and without,
so their ratio is the tint itself: channels darker by the wet share, hillslopes untouched.
"""

import json
import math
import sys

import bpy
import numpy as np
from top_view import plain_top_view

SIZE, WIDTH, HEIGHT = 64, 3150.0, 300.0


def spec(**material):
    return {
        "version": 5,
        "generator": "fractal",
        "size": SIZE,
        "seed": 11,
        "width": WIDTH,
        "height": HEIGHT,
        "filters": [{"type": "erosion", "steps": 8}],
        "layers": [{"name": "ground", "color": [0.3, 0.3, 0.3], "minimum": -1.0, "optimal": 0.5, "maximum": 2.0}],
        "lighting": {"enabled": False},
        "material": {"shading": "lit", **material},
    }


def add(s):
    bpy.ops.orogen.terrain_add(spec=json.dumps(s))
    return bpy.context.active_object


def labels(obj):
    return {n.label for n in obj.active_material.node_tree.nodes}


def test_the_ground_stage_reads_the_maps_and_bumps_the_normal(scene, orogen):
    terrain = add(spec())
    tree = terrain.active_material.node_tree
    attributes = {n.attribute_name for n in tree.nodes if n.bl_idname == "ShaderNodeAttribute"}
    assert {"drainage_area", "orogen_wetness", "deposited"} <= attributes
    (bsdf,) = [n for n in tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled"]
    normal_in = bsdf.inputs["Normal"].links[0].from_node
    assert normal_in.bl_idname == "ShaderNodeBump" and normal_in.label == "Ground bump"
    assert normal_in.inputs["Strength"].default_value == 0.5  # detail 1
    base = bsdf.inputs["Base Color"].links[0].from_node
    assert (base.label, base.operation) == ("Albedo at most", "MINIMUM")
    assert tuple(base.inputs[1].default_value) == (np.float32(0.9),) * 3
    floor = base.inputs[0].links[0].from_node
    assert (floor.operation, tuple(floor.inputs[1].default_value)) == ("MAXIMUM", (np.float32(0.04),) * 3)
    beds = sorted(n.label for n in tree.nodes if n.bl_idname == "ShaderNodeTexWave")
    assert beds == ["Rock beds 16.2 m", "Rock beds 6 m"]  # the strata spacing and 2.7 times it
    noise = [n for n in tree.nodes if n.bl_idname == "ShaderNodeTexNoise" and n.noise_dimensions == "3D"]
    assert sorted(round(1.0 / n.inputs["Scale"].default_value, 3) for n in noise) == [2.5, 24.0, 180.0]
    assert "drainage_area" in terrain.data.attributes  # the stream-power filter baked what the tint reads


def test_the_ground_stage_is_off_with_no_detail_and_no_tint_and_for_unlit(scene, orogen):
    smooth = add(spec(detail=0.0, map_tint=0.0))
    assert not labels(smooth) & {"Ground bump", "Albedo at most", "Wet ground darker"}
    tint_only = add(spec(detail=0.0))
    assert "Wet ground darker" in labels(tint_only) and "Ground bump" not in labels(tint_only)
    unlit = add(spec(shading="unlit"))
    assert not labels(unlit) & {"Ground bump", "Albedo at most", "Wet ground darker"}
    detail_only = add(spec(map_tint=0.0, strata_spacing=3.0))
    assert "Ground bump" in labels(detail_only) and "Drainage" not in labels(detail_only)
    assert "Rock beds 3 m" in labels(detail_only)


def lit_top_view(orogen, scene, terrain, path):
    """A top view of ``terrain`` under a sun straight above, direct light only: grey ``(SIZE, SIZE)``."""
    render = orogen.addon.render
    if scene.camera is None:
        plain_top_view(orogen, scene, terrain, path, SIZE, WIDTH)  # the camera, one pixel per vertex, the output
        render.light_scene(scene, math.radians(180.0), math.radians(90.0))
        render.set_world(scene, color=(0.0, 0.0, 0.0), strength=0.0)
        scene.cycles.samples = 16
        scene.cycles.max_bounces = 0
    render.render_still(scene, str(path))
    return orogen.addon.io.heightmaps.read_image(str(path))[..., :3].mean(axis=-1)


def test_channels_render_darker_by_the_wet_share_and_hillslopes_do_not(scene, orogen, tmp_path):
    terrain = add(spec(detail=0.0))
    area = np.empty(SIZE * SIZE, dtype=np.float32)
    terrain.data.attributes["drainage_area"].data.foreach_get("value", area)
    deposited = np.empty(SIZE * SIZE, dtype=np.float32)
    terrain.data.attributes["deposited"].data.foreach_get("value", deposited)
    area, deposited = area.reshape(SIZE, SIZE), deposited.reshape(SIZE, SIZE)
    tinted = lit_top_view(orogen, scene, terrain, tmp_path / "tinted.exr")
    terrain.orogen.material.map_tint = 0.0  # as the panel does: the change rebuilds the material
    bpy.context.view_layer.objects.active = terrain
    sys.modules[orogen.__name__ + ".addon.live"]._on_msgbus()
    assert "Wet ground darker" not in labels(terrain)
    plain = lit_top_view(orogen, scene, terrain, tmp_path / "plain.exr")
    inner = np.zeros((SIZE, SIZE), dtype=bool)
    inner[2:-2, 2:-2] = True
    ratio = tinted / np.maximum(plain, 1e-6)
    channel = inner & (area >= 1.0e6) & (deposited < 0.2)
    hillslope = inner & (area <= 1.0e4) & (deposited < 0.2)
    assert channel.sum() >= 10 and hillslope.sum() >= 100
    # the mesh interpolates the tint between vertices, so a channel pixel is darkened about WET_DARKEN
    assert 0.6 < np.median(ratio[channel]) < 0.75
    assert abs(np.median(ratio[hillslope]) - 1.0) < 0.03
