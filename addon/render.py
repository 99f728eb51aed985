"""Headless rendering of terrains: camera, sun, world and Cycles settings.

Used by ``scripts/render_terrain.py`` and by pipelines; nothing here needs a
window or a 3D View.
"""

import math

import bpy
from mathutils import Vector


def sun_vector(azimuth: float, altitude: float) -> Vector:
    """Unit vector pointing toward the sun.

    ``azimuth`` in radians clockwise from north (+Y), ``altitude`` in radians
    above the horizon.
    """
    return Vector((
        math.sin(azimuth) * math.cos(altitude),
        math.cos(azimuth) * math.cos(altitude),
        math.sin(altitude),
    ))


def _look_at(obj: bpy.types.Object, direction: Vector) -> None:
    """Rotate ``obj`` (camera or light) so that its -Z axis points along ``direction``."""
    obj.rotation_euler = direction.to_track_quat('-Z', 'Y').to_euler()


def add_sun(scene: bpy.types.Scene, azimuth: float, altitude: float, strength: float = 3.0) -> bpy.types.Object:
    """Add a Sun light shining from ``azimuth``/``altitude`` (radians); returns the light object."""
    data = bpy.data.lights.new("Sun", 'SUN')
    data.energy = strength
    data.angle = math.radians(2.0)
    sun = bpy.data.objects.new("Sun", data)
    scene.collection.objects.link(sun)
    _look_at(sun, -sun_vector(azimuth, altitude))
    return sun


def add_camera(
    scene: bpy.types.Scene,
    target: bpy.types.Object,
    view: str = 'OBLIQUE',
    aspect: float = 16 / 9,
) -> bpy.types.Object:
    """Add a camera framing ``target`` and make it the scene camera.

    ``view`` is ``'OBLIQUE'`` (perspective, from the south-east, above) or
    ``'TOP'`` (orthographic, straight down, north up, the whole terrain in
    frame).
    """
    corners = [target.matrix_world @ Vector(c) for c in target.bound_box]
    lo = Vector((min(c.x for c in corners), min(c.y for c in corners), min(c.z for c in corners)))
    hi = Vector((max(c.x for c in corners), max(c.y for c in corners), max(c.z for c in corners)))
    centre = (lo + hi) / 2
    extent = max(hi.x - lo.x, hi.y - lo.y, 1e-6)
    data = bpy.data.cameras.new("Camera")
    cam = bpy.data.objects.new("Camera", data)
    scene.collection.objects.link(cam)
    data.clip_end = extent * 20
    if view == 'TOP':
        data.type = 'ORTHO'
        data.ortho_scale = extent * (aspect if aspect >= 1 else 1 / aspect) * 1.02
        cam.location = (centre.x, centre.y, hi.z + extent)
        cam.rotation_euler = (0.0, 0.0, 0.0)
    elif view == 'OBLIQUE':
        data.lens = 35.0
        offset = Vector((0.55, -1.05, 0.75)) * extent
        cam.location = centre + offset
        _look_at(cam, (centre - Vector((0, 0, (hi.z - lo.z) * 0.2))) - cam.location)
    else:
        raise ValueError(f"view must be 'OBLIQUE' or 'TOP', got {view!r}")
    scene.camera = cam
    return cam


def set_world(scene: bpy.types.Scene, color=(0.45, 0.6, 0.8), strength: float = 0.6) -> None:
    """Give the scene a plain sky-coloured world (a new World if it has none)."""
    world = scene.world or bpy.data.worlds.new("World")
    scene.world = world
    if bpy.app.version < (5, 0, 0):
        world.use_nodes = True
    background = next(n for n in world.node_tree.nodes if n.bl_idname == "ShaderNodeBackground")
    background.inputs["Color"].default_value = (*color, 1.0)
    background.inputs["Strength"].default_value = strength


def configure_cycles(scene: bpy.types.Scene, resolution: tuple[int, int], samples: int) -> None:
    """Cycles on the CPU at ``resolution`` (pixels, x and y) with ``samples``, denoising off."""
    scene.render.engine = 'CYCLES'
    scene.cycles.device = 'CPU'
    scene.cycles.samples = samples
    scene.cycles.use_denoising = False
    scene.cycles.use_adaptive_sampling = False
    scene.render.resolution_x, scene.render.resolution_y = resolution
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = 'PNG'
    scene.render.image_settings.color_mode = 'RGB'
    scene.render.film_transparent = False


def render_still(scene: bpy.types.Scene, filepath: str) -> None:
    """Render the scene's camera view and write it to ``filepath``."""
    scene.render.filepath = filepath
    bpy.ops.render.render(write_still=True, scene=scene.name)
