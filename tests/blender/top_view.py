"""Plain top-down renders for tests: one pixel centre on every vertex, read back as linear RGB."""

import bpy


def emission_material(name, color):
    """A new material that is an emission of linear RGB ``color`` alone: geometry seen plainly in a render."""
    material = bpy.data.materials.new(name)
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    tree = material.node_tree
    tree.nodes.clear()
    emit = tree.nodes.new("ShaderNodeEmission")
    emit.inputs["Color"].default_value = (*color, 1.0)
    tree.links.new(emit.outputs[0], tree.nodes.new("ShaderNodeOutputMaterial").inputs["Surface"])
    return material


def blue_marker():
    """An emission of pure blue (1 in blue, 0 in red and green): the marker the water tests look for."""
    return emission_material("marker", (0.0, 0.0, 1.0))


def plain_top_view(orogen, scene, terrain, path, size, width):
    """Render ``terrain`` (``size x size`` vertices, ``width`` metres) from straight above, one pixel centre on
    every vertex, under a black world (only emission and the scene's lamps light it), to a 32-bit EXR at
    ``path``; its linear RGB, ``(size, size, 3)`` with row 0 north."""
    render = orogen.addon.render
    cam = render.add_camera(scene, terrain, view="TOP", aspect=1.0)
    cam.data.ortho_scale = width + width / (size - 1)
    render.set_world(scene, color=(0.0, 0.0, 0.0), strength=0.0)
    render.configure_cycles(scene, (size, size), samples=1)
    scene.cycles.filter_width = 0.01
    scene.view_settings.view_transform = "Standard"
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "32"
    render.render_still(scene, str(path))
    return orogen.addon.io.heightmaps.read_image(str(path))[..., :3]
