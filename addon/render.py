"""Headless rendering of terrains: camera, sun, world and Cycles settings.

Used by ``scripts/render_terrain.py`` and by pipelines; nothing here needs a
window or a 3D View.
"""

import math

import bpy
from mathutils import Vector

from ..core.lighting import sun_vector as core_sun_vector


def sun_vector(azimuth: float, altitude: float) -> Vector:
    """Unit vector pointing toward the sun (:func:`core.lighting.sun_vector`), from radians as Blender holds them.

    ``azimuth`` in radians clockwise from north (+Y), ``altitude`` in radians
    above the horizon.
    """
    return Vector(core_sun_vector(math.degrees(azimuth), math.degrees(altitude)))


def _look_at(obj: bpy.types.Object, direction: Vector) -> None:
    """Rotate ``obj`` (camera or light) so that its -Z axis points along ``direction``."""
    obj.rotation_euler = direction.to_track_quat('-Z', 'Y').to_euler()


def add_sun(scene: bpy.types.Scene, azimuth: float, altitude: float, strength: float = 4.0) -> bpy.types.Object:
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
        data.sensor_fit = 'AUTO'
        # Frame the ground corners and the top of the centre: bounding-box top corners are rarely terrain.
        ground = [Vector((x, y, lo.z)) for x in (lo.x, hi.x) for y in (lo.y, hi.y)]
        target = Vector((centre.x, centre.y, lo.z))
        _frame_oblique(cam, [*ground, Vector((centre.x, centre.y, hi.z))], target,
                       Vector((0.55, -1.0, 0.75)).normalized(), aspect)
    else:
        raise ValueError(f"view must be 'OBLIQUE' or 'TOP', got {view!r}")
    scene.camera = cam
    return cam


def _frame_oblique(cam: bpy.types.Object, corners: list[Vector], centre: Vector, direction: Vector,
                   aspect: float, margin: float = 0.92) -> None:
    """Aim a perspective camera at ``centre`` from along ``direction`` so every corner is in frame.

    The distance grows in 2 % steps until all corners project inside ``margin``
    of the frame's half-size (a handful of vector operations, no scene update).
    """
    half = cam.data.sensor_width / 2 / cam.data.lens  # tan of the half field of view, on the wider side
    tan_x, tan_y = (half, half / aspect) if aspect >= 1 else (half * aspect, half)
    distance = 0.25 * max((c - centre).length for c in corners)
    for _ in range(200):
        cam.location = centre + direction * distance
        _look_at(cam, centre - cam.location)
        to_cam = cam.rotation_euler.to_matrix().transposed()
        fits = True
        for c in corners:
            p = to_cam @ (c - cam.location)
            if p.z >= 0 or abs(p.x / -p.z) > margin * tan_x or abs(p.y / -p.z) > margin * tan_y:
                fits = False
                break
        if fits:
            return
        distance *= 1.02


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
    """Cycles on the CPU at ``resolution`` (pixels, x and y) with ``samples``, denoising and stamp metadata off."""
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
    # No stamp metadata (date, time, file name, frame, camera) in the PNG. Cycles still records its
    # render times, so two renders of one scene have the same pixels but not always the same bytes.
    scene.render.use_stamp = False
    for name in dir(scene.render):
        if name.startswith("use_stamp_") and isinstance(getattr(scene.render, name), bool):
            setattr(scene.render, name, False)


def render_still(scene: bpy.types.Scene, filepath: str) -> None:
    """Render the scene's camera view and write it to ``filepath``."""
    scene.render.filepath = filepath
    bpy.ops.render.render(write_still=True, scene=scene.name)
