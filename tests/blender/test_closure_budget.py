"""Cycles' closure budget: no Orogen material asks for more closures than Cycles' SVM kernel holds.

Cycles sizes its closure storage by the most any shader could need, counted from the nodes of its graph
(``ShaderGraph::get_num_closures``: a Principled BSDF 12, any volume node ``MAX_VOLUME_STACK_SIZE`` = 32,
glass and principled hair 2, a subsurface node 3, any other closure 1), and past ``MAX_CLOSURE`` = 64 it clamps
the storage and logs "Maximum number of closures exceeded: N > 64". The water material of a Volume Absorption
beside a Volume Scatter counted 77 (12 + 1 + 32 + 32); its one Principled Volume now makes 45.
"""

import math
import re

import bpy
import numpy as np
import pytest

#: Cycles' ``MAX_CLOSURE`` (kernel/types.h).
MAX_CLOSURE = 64
#: The most closures any of Orogen's materials may count (Cycles' limit holds per material): three quarters of
#: the limit, which leaves the water (45) room for a few closure nodes more and none for a second volume node.
BUDGET = 48
#: Closures that Cycles counts for a node (``ShaderGraph::get_num_closures``), by the node's kind.
COUNTS = {
    "ShaderNodeBsdfPrincipled": 12,
    "ShaderNodeSubsurfaceScattering": 3,
    "ShaderNodeBsdfGlass": 2,
    "ShaderNodeBsdfHairPrincipled": 2,
}
VOLUME_CLOSURES = 32  # MAX_VOLUME_STACK_SIZE, for each volume node
CLOSURE_PREFIXES = (
    "ShaderNodeBsdf",
    "ShaderNodeVolume",  # Absorption, Scatter, Principled Volume, Volume Coefficients
    "ShaderNodeEmission",
    "ShaderNodeBackground",
    "ShaderNodeHoldout",
    "ShaderNodeSubsurfaceScattering",
    "ShaderNodeEeveeSpecular",
)
WARNING = re.compile(r"Maximum number of closures exceeded: (\d+) > (\d+)")


def _two_volumes(tree, output):
    """The water volume of the earlier tree: Volume Absorption plus Volume Scatter (32 closures each)."""
    absorb = tree.nodes.new("ShaderNodeVolumeAbsorption")
    scatter = tree.nodes.new("ShaderNodeVolumeScatter")
    add = tree.nodes.new("ShaderNodeAddShader")
    tree.links.new(absorb.outputs[0], add.inputs[0])
    tree.links.new(scatter.outputs[0], add.inputs[1])
    tree.links.new(add.outputs[0], output.inputs["Volume"])


def cycles_output(tree: bpy.types.NodeTree) -> bpy.types.Node | None:
    """The Material Output Cycles renders: one for Cycles if there is any, else one for All (the active one
    of them first), as Blender's ``ntreeShaderOutputNode`` picks it."""
    outputs = [n for n in tree.nodes if n.bl_idname == "ShaderNodeOutputMaterial"]
    for target in ("CYCLES", "ALL"):
        found = [n for n in outputs if n.target == target]
        if found:
            return next((n for n in found if n.is_active_output), found[0])
    return None


def _closures(node: bpy.types.Node) -> int:
    kind = node.bl_idname
    if kind.startswith("ShaderNodeVolume"):
        return VOLUME_CLOSURES
    if kind == "ShaderNodeBsdfGlossy" and getattr(node, "distribution", "") == "MULTI_GGX":
        return 2
    if kind.startswith(CLOSURE_PREFIXES):
        return COUNTS.get(kind, 1)
    return 0


def closure_count(material: bpy.types.Material) -> tuple[int, list[str]]:
    """Cycles' count of ``material``'s closures and the closure nodes counted: every closure node that the
    output Cycles renders reaches (surface, volume and displacement; inside node groups too). An upper bound
    of Cycles' own, which first folds away the branch of a Mix Shader whose factor is a constant 0 or 1."""
    if material.node_tree is None:
        return 0, []
    start = cycles_output(material.node_tree)
    if start is None:
        return 0, []
    total, kinds, seen = 0, [], set()
    stack = [start]
    while stack:
        node = stack.pop()
        if node.as_pointer() in seen or node.mute:
            continue
        seen.add(node.as_pointer())
        if node.bl_idname == "ShaderNodeGroup" and node.node_tree is not None:
            group_out = [n for n in node.node_tree.nodes if n.bl_idname == "NodeGroupOutput"]
            stack.extend(group_out)
        if node.bl_idname == "NodeGroupInput":
            continue  # (its inputs are the group node's, already followed)
        n = _closures(node)
        if n:
            total += n
            kinds.append(node.bl_idname)
        for socket in node.inputs:
            stack.extend(link.from_node for link in socket.links if not link.is_muted)
    return total, sorted(kinds)


def materials_in_render() -> dict[str, bpy.types.Material]:
    """Every material an object of the file holds (the scattered trees' and rocks' collections too)."""
    found = {}
    for obj in bpy.data.objects:
        for slot in obj.material_slots:
            if slot.material is not None:
                found[slot.material.name] = slot.material
    return found


def preset_landscape(orogen, scene, size: int = 65):
    """A preset with water, its trees and rocks, set up as ``render_terrain.py`` sets up its default view:
    the land continued by mirror images of it and of its water, under haze. Returns the terrain."""
    key = "eroded_mountains"  # the demo: stream-power erosion to a sea, water, snow, groves
    spec = orogen.core.preset_spec(key).replace(size=size)
    assert spec.material["water"]
    bpy.ops.orogen.terrain_add(spec=spec.to_json())
    terrain = bpy.context.active_object
    added, failed = orogen.addon.ops.presets.add_preset_scatter(terrain, key)
    assert added and not failed, failed
    light = spec.lighting
    orogen.addon.landscape.stage_view(
        scene, terrain, "LANDSCAPE", aspect=16 / 9, sun_azimuth=light["azimuth"], sun_altitude=light["altitude"]
    )
    orogen.addon.render.light_scene(scene, math.radians(light["azimuth"]), math.radians(light["altitude"]))
    return terrain


def test_every_material_of_a_preset_with_water_is_within_the_closure_budget(scene, orogen):
    terrain = preset_landscape(orogen, scene)
    water = orogen.addon.water.water_of(terrain)
    counts = {name: closure_count(m) for name, m in materials_in_render().items()}
    # The terrain's layered Lit material, the water's, and those of the haze, the surround and the scatter.
    assert terrain.active_material.name in counts and water.active_material.name in counts
    assert any(name.startswith("Haze") for name in counts) and len(counts) >= 5, sorted(counts)
    over = {name: c for name, c in counts.items() if c[0] > BUDGET}
    assert not over, f"over {BUDGET} closures (Cycles' limit {MAX_CLOSURE}): {over}"
    # One Principled BSDF shades the layered terrain, whatever its number of colour layers.
    assert len(terrain.active_material.node_tree.nodes) > 50
    assert counts[terrain.active_material.name] == (12, ["ShaderNodeBsdfPrincipled"])
    # The water: its surface, the shadow rays' Transparent BSDF, and one volume node.
    water_count, water_kinds = counts[water.active_material.name]
    assert [k for k in water_kinds if k.startswith("ShaderNodeVolume")] == ["ShaderNodeVolumePrincipled"]
    assert water_count == 12 + 1 + VOLUME_CLOSURES


def test_the_one_volume_node_absorbs_and_scatters_as_the_two_did(orogen):
    """Principled Volume's coefficients (Cycles' ``svm_node_principled_volume``): scattering ``D c``, absorption
    ``D (1 - c)(1 - sqrt(A))`` per channel; they are Beer-Lambert's for the depth colour over 3 m, and 0.02 per
    metre, as the Volume Absorption and the Volume Scatter gave them."""
    material = orogen.addon.material
    depth_color = (0.02, 0.09, 0.1)
    mat = material.build_water_material("Probe Water", depth_color)
    try:
        (volume,) = [n for n in mat.node_tree.nodes if n.bl_idname.startswith("ShaderNodeVolume")]
        assert volume.outputs["Volume"].links[0].to_socket.name == "Volume"
        c = np.array(volume.inputs["Color"].default_value[:3], dtype=np.float64)
        d = volume.inputs["Density"].default_value
        a = np.array(volume.inputs["Absorption Color"].default_value[:3], dtype=np.float64)
        assert volume.inputs["Anisotropy"].default_value == 0.0
        assert volume.inputs["Density Attribute"].default_value == ""  # no attribute scales it
        scattering = d * c
        absorption = d * (1.0 - c) * (1.0 - np.sqrt(a))
        assert scattering == pytest.approx([material.WATER_SCATTERING] * 3, rel=1e-5)
        beer_lambert = -np.log(depth_color) / material.WATER_COLOR_DEPTH
        assert absorption == pytest.approx(beer_lambert, rel=1e-5)
        old_color, old_density = material.water_absorption(depth_color)  # the Volume Absorption's
        assert absorption == pytest.approx(old_density * (1.0 - np.array(old_color)), rel=1e-5)
        assert closure_count(mat)[0] == 12 + 1 + VOLUME_CLOSURES
    finally:
        bpy.data.materials.remove(mat)


def test_a_render_of_it_logs_no_closure_overflow(scene, orogen, tmp_path, capfd):
    """Rendered by Cycles (CPU, SVM), the scene logs no overflow; a probe with the water's old volume (a Volume
    Absorption and a Volume Scatter) logs the count this file's :func:`closure_count` gives it."""
    render = orogen.addon.render
    preset_landscape(orogen, scene)
    render.configure_cycles(scene, (32, 18), samples=1)
    scene.cycles.shading_system = False  # SVM (OSL reserves the limit for every shader and never warns)

    # The probe: the old water material, on a small box under the camera's ground.
    probe = bpy.data.materials.new("Closure Probe")
    if bpy.app.version < (5, 0, 0):
        probe.use_nodes = True
    tree = probe.node_tree
    tree.nodes.clear()
    output = tree.nodes.new("ShaderNodeOutputMaterial")
    principled = tree.nodes.new("ShaderNodeBsdfPrincipled")
    clear = tree.nodes.new("ShaderNodeBsdfTransparent")
    mix = tree.nodes.new("ShaderNodeMixShader")
    path = tree.nodes.new("ShaderNodeLightPath")
    tree.links.new(path.outputs["Is Shadow Ray"], mix.inputs[0])
    tree.links.new(principled.outputs[0], mix.inputs[1])
    tree.links.new(clear.outputs[0], mix.inputs[2])
    tree.links.new(mix.outputs[0], output.inputs["Surface"])
    _two_volumes(tree, output)
    mesh = bpy.data.meshes.new("Closure Probe")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [], [(0, 1, 2)])
    mesh.materials.append(probe)
    box = bpy.data.objects.new("Closure Probe", mesh)
    scene.collection.objects.link(box)
    assert closure_count(probe) == (
        77,
        sorted(
            [
                "ShaderNodeBsdfPrincipled",
                "ShaderNodeBsdfTransparent",
                "ShaderNodeVolumeAbsorption",
                "ShaderNodeVolumeScatter",
            ]
        ),
    )
    capfd.readouterr()
    render.render_still(scene, str(tmp_path / "probe.png"))
    logged = capfd.readouterr()
    probe_warnings = WARNING.findall(logged.out + logged.err)
    bpy.data.objects.remove(box)
    bpy.data.meshes.remove(mesh)
    bpy.data.materials.remove(probe)
    if not probe_warnings:
        pytest.skip(f"Blender {bpy.app.version_string} does not log Cycles' closure warning (5.0 does)")
    assert set(probe_warnings) == {("77", str(MAX_CLOSURE))}  # Cycles counts the probe as closure_count does

    render.render_still(scene, str(tmp_path / "landscape.png"))
    logged = capfd.readouterr()
    assert not WARNING.search(logged.out + logged.err), logged.out + logged.err


def test_a_files_water_of_the_old_tree_gets_the_new_one_on_the_next_update(scene, orogen):
    """A water material saved before the tree's version 2 (a Volume Absorption beside a Volume Scatter, no
    version mark) is rebuilt by the next update of the water, as a new depth colour rebuilds it."""
    material = orogen.addon.material
    bpy.ops.orogen.terrain_add(size=33, width=32.0, height=10.0, seed=3, set="material.water=true")
    terrain = bpy.context.active_object
    old = orogen.addon.water.water_of(terrain).active_material
    assert old[material.WATER_VERSION_KEY] == material.WATER_TREE_VERSION
    del old[material.WATER_VERSION_KEY]
    tree = old.node_tree
    output = cycles_output(tree)
    _two_volumes(tree, output)
    assert closure_count(old)[0] == 77
    old_name = old.name

    terrain.orogen.material.water_level = terrain.orogen.material.water_level + 1.0
    bpy.context.view_layer.objects.active = terrain
    orogen.addon.live._on_msgbus()

    new = orogen.addon.water.water_of(terrain).active_material
    assert new.name == old_name or old_name not in bpy.data.materials  # the old one is gone, not left unused
    assert new[material.WATER_VERSION_KEY] == material.WATER_TREE_VERSION
    assert closure_count(new)[0] == 12 + 1 + VOLUME_CLOSURES
