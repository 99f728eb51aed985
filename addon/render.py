"""Headless rendering of terrains: camera, sun, world and Cycles settings.

Used by ``scripts/render_terrain.py`` and by pipelines; nothing here needs a
window or a 3D View.
"""

import math

import bpy
import numpy as np
from mathutils import Vector

from ..core.lighting import sun_vector as core_sun_vector
from .displacement import use_experimental_cycles


def sun_vector(azimuth: float, altitude: float) -> Vector:
    """Unit vector pointing toward the sun (:func:`core.lighting.sun_vector`), from radians as Blender holds them.

    ``azimuth`` in radians clockwise from north (+Y), ``altitude`` in radians
    above the horizon.
    """
    return Vector(core_sun_vector(math.degrees(azimuth), math.degrees(altitude)))


def _look_at(obj: bpy.types.Object, direction: Vector) -> None:
    """Rotate ``obj`` (camera or light) so that its -Z axis points along ``direction``."""
    obj.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()


def add_sun(
    scene: bpy.types.Scene, azimuth: float, altitude: float, strength: float = 4.0, color=(1.0, 1.0, 1.0)
) -> bpy.types.Object:
    """Add a Sun light shining from ``azimuth``/``altitude`` (radians); returns the light object."""
    data = bpy.data.lights.new("Sun", "SUN")
    data.energy = strength
    data.color = color
    data.angle = math.radians(2.0)
    sun = bpy.data.objects.new("Sun", data)
    scene.collection.objects.link(sun)
    _look_at(sun, -sun_vector(azimuth, altitude))
    return sun


def add_camera(
    scene: bpy.types.Scene,
    target: bpy.types.Object,
    view: str = "OBLIQUE",
    aspect: float = 16 / 9,
    horizon: float | None = None,
) -> bpy.types.Object:
    """Add a camera framing ``target`` and make it the scene camera.

    ``view`` is ``'OBLIQUE'`` (perspective, from the south-east, above) or
    ``'TOP'`` (orthographic, straight down, north up, the whole terrain in
    frame). ``horizon`` (OBLIQUE only): a lower camera, its frame shifted up
    (lens shift, so verticals stay vertical) until the horizon lies that
    fraction of the frame's height below its top edge: sky above, the whole
    terrain below. ``None`` aims at the terrain's centre from higher up.
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
    if view == "TOP":
        data.type = "ORTHO"
        data.ortho_scale = extent * (aspect if aspect >= 1 else 1 / aspect) * 1.02
        cam.location = (centre.x, centre.y, hi.z + extent)
        cam.rotation_euler = (0.0, 0.0, 0.0)
    elif view == "OBLIQUE":
        data.lens = 35.0
        data.sensor_fit = "AUTO"
        # Frame the ground corners and the top of the centre: bounding-box top corners are rarely terrain.
        ground = [Vector((x, y, lo.z)) for x in (lo.x, hi.x) for y in (lo.y, hi.y)]
        target = Vector((centre.x, centre.y, lo.z))
        across = Vector((0.55, -1.0, 0.0))
        shift = 0.0  # vertical lens shift, in tangent units (the frame's half-height is tan_y)
        if horizon is None:
            direction = (across + Vector((0.0, 0.0, 0.75))).normalized()
        else:
            if not 0.0 <= horizon < 0.5:
                raise ValueError(f"horizon must be in [0, 0.5), got {horizon!r}")
            data.lens = 28.0
            tan_y = _half_tangents(data, aspect)[1]
            # The terrain's centre at TERRAIN_AT of the frame's height from the bottom, the horizon (eye level,
            # tan(elevation) above the view's centre) at ``horizon`` from the top: that fixes the elevation.
            shift = tan_y * (1.0 - 2.0 * TERRAIN_AT)
            rise = tan_y * (2.0 - 2.0 * TERRAIN_AT - 2.0 * horizon)
            direction = (across + Vector((0.0, 0.0, rise * across.length))).normalized()
            data.shift_y = shift / (2.0 * _half_tangents(data, 1.0)[0])  # in units of the larger sensor side
        _frame_oblique(cam, [*ground, Vector((centre.x, centre.y, hi.z))], target, direction, aspect, shift=shift)
    else:
        raise ValueError(f"view must be 'OBLIQUE' or 'TOP', got {view!r}")
    scene.camera = cam
    return cam


#: Where :func:`add_camera` with a ``horizon`` puts the terrain's centre: this fraction of the frame's height
#: from the bottom.
TERRAIN_AT = 0.4


def _half_tangents(data: bpy.types.Camera, aspect: float) -> tuple[float, float]:
    """Tangents of a perspective camera's half field of view across and up (sensor fit Auto)."""
    half = data.sensor_width / 2 / data.lens  # on the wider side
    return (half, half / aspect) if aspect >= 1 else (half * aspect, half)


def _frame_oblique(
    cam: bpy.types.Object,
    corners: list[Vector],
    centre: Vector,
    direction: Vector,
    aspect: float,
    margin: float = 0.92,
    shift: float = 0.0,
) -> None:
    """Aim a perspective camera at ``centre`` from along ``direction`` so every corner is in frame.

    The distance grows in 2 % steps until all corners project inside ``margin``
    of the frame's half-size (a handful of vector operations, no scene update).
    ``shift``: the camera's vertical lens shift in tangent units (the frame
    spans ``shift ± tan_y`` up the view).
    """
    tan_x, tan_y = _half_tangents(cam.data, aspect)
    distance = 0.25 * max((c - centre).length for c in corners)
    for _ in range(200):
        cam.location = centre + direction * distance
        _look_at(cam, centre - cam.location)
        to_cam = cam.rotation_euler.to_matrix().transposed()
        fits = True
        for c in corners:
            p = to_cam @ (c - cam.location)
            if p.z >= 0 or abs(p.x / -p.z) > margin * tan_x or abs(p.y / -p.z - shift) > margin * tan_y:
                fits = False
                break
        if fits:
            return
        distance *= 1.02


#: Irradiance of the Sky Texture's sun disc on a surface facing it, linear RGB in Blender's units (W/m²), by
#: sun altitude in degrees: measured in Blender 5.0.1 (multiple scattering sky, default atmosphere) by rendering
#: a white diffuse plane under the sky with its sun disc on and off (the difference, divided by the sine of the
#: altitude). Blender 4.2's Nishita sky gives the same within 10 % (the 4.x values at 2°, 20° and 90°:
#: (33.8, 12.2, 1.5), (146, 111, 73), (172, 143, 119)).
SUN_IRRADIANCE = (
    (2.0, (38.0, 12.3, 1.64)),
    (5.0, (81.1, 41.8, 13.1)),
    (10.0, (121.2, 80.9, 40.8)),
    (20.0, (154.4, 119.8, 80.3)),
    (35.0, (172.3, 142.6, 108.5)),
    (60.0, (181.9, 155.5, 126.2)),
    (90.0, (184.9, 159.4, 131.6)),
)
#: Irradiance of the same sky without its sun on a horizontal surface, by sun altitude (same measurement).
SKY_IRRADIANCE = (
    (2.0, (2.5, 3.0, 4.1)),
    (5.0, (3.8, 5.4, 7.7)),
    (10.0, (5.3, 8.3, 13.0)),
    (20.0, (7.0, 11.4, 18.7)),
    (35.0, (8.5, 14.0, 23.4)),
    (60.0, (9.9, 16.5, 28.0)),
    (90.0, (10.5, 17.6, 30.0)),
)
#: Scene-linear value a white horizontal surface in sun and sky is exposed to by :func:`light_scene`.
WHITE_EXPOSED = 1.6


def _by_altitude(table, altitude_degrees: float) -> tuple[float, float, float]:
    """Linear interpolation of a ``(altitude, rgb)`` table, clamped at its ends."""
    alts = [a for a, _ in table]
    a = min(max(altitude_degrees, alts[0]), alts[-1])
    for (a0, c0), (a1, c1) in zip(table[:-1], table[1:], strict=True):
        if a <= a1:
            t = (a - a0) / (a1 - a0)
            return tuple(x0 + t * (x1 - x0) for x0, x1 in zip(c0, c1, strict=True))  # type: ignore[return-value]
    return table[-1][1]


def _luminance(rgb) -> float:
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]


def sky_type() -> str:
    """The Sky Texture's physical model in this Blender: ``'MULTIPLE_SCATTERING'`` (5.0 and later) or
    ``'NISHITA'`` (4.x; 5.0 calls it ``'SINGLE_SCATTERING'``)."""
    items = bpy.types.ShaderNodeTexSky.bl_rna.properties["sky_type"].enum_items
    return "MULTIPLE_SCATTERING" if "MULTIPLE_SCATTERING" in items else "NISHITA"


def set_sky(scene: bpy.types.Scene, azimuth: float, altitude: float, strength: float = 1.0) -> bpy.types.World:
    """Give the scene Blender's physical sky (the Sky Texture node, :func:`sky_type`) for a sun at
    ``azimuth``/``altitude`` (radians, azimuth clockwise from north), without its sun disc: the sun is a
    lamp (:func:`light_scene`). A new World, so the user's worlds are left as they are."""
    world = bpy.data.worlds.new("Sky")
    scene.world = world
    if bpy.app.version < (5, 0, 0):
        world.use_nodes = True
    tree = world.node_tree
    tree.nodes.clear()
    sky = tree.nodes.new("ShaderNodeTexSky")
    sky.sky_type = sky_type()
    sky.sun_disc = False
    sky.sun_elevation = max(altitude, 0.0)
    sky.sun_rotation = azimuth % (2 * math.pi)  # the Sky Texture's rotation is clockwise from +Y (north)
    background = tree.nodes.new("ShaderNodeBackground")
    background.inputs["Strength"].default_value = strength
    sky.location, background.location = (-300, 0), (0, 0)
    tree.links.new(sky.outputs["Color"], background.inputs["Color"])
    # Seen by the camera, the sky below the horizon (black or nearly, as there is no ground) is the sky above
    # mirrored, like a calm sea far off; light still comes from the sky as it is.
    coords = tree.nodes.new("ShaderNodeTexCoord")
    split = tree.nodes.new("ShaderNodeSeparateXYZ")
    up = tree.nodes.new("ShaderNodeMath")
    up.operation = "ABSOLUTE"
    join = tree.nodes.new("ShaderNodeCombineXYZ")
    mirrored = tree.nodes.new("ShaderNodeTexSky")
    for name in ("sky_type", "sun_disc", "sun_elevation", "sun_rotation"):
        setattr(mirrored, name, getattr(sky, name))
    seen = tree.nodes.new("ShaderNodeBackground")
    seen.inputs["Strength"].default_value = strength
    path = tree.nodes.new("ShaderNodeLightPath")
    mix = tree.nodes.new("ShaderNodeMixShader")
    output = tree.nodes.new("ShaderNodeOutputWorld")
    for node, x, y in (
        (coords, -1100, -300),
        (split, -900, -300),
        (up, -700, -350),
        (join, -500, -300),
        (mirrored, -300, -300),
        (seen, 0, -300),
        (path, 0, 300),
        (mix, 250, 0),
        (output, 500, 0),
    ):
        node.location = (x, y)
    tree.links.new(coords.outputs["Generated"], split.inputs[0])
    tree.links.new(split.outputs["X"], join.inputs["X"])
    tree.links.new(split.outputs["Y"], join.inputs["Y"])
    tree.links.new(split.outputs["Z"], up.inputs[0])
    tree.links.new(up.outputs[0], join.inputs["Z"])
    tree.links.new(join.outputs[0], mirrored.inputs["Vector"])
    tree.links.new(mirrored.outputs["Color"], seen.inputs["Color"])
    tree.links.new(path.outputs["Is Camera Ray"], mix.inputs[0])
    tree.links.new(background.outputs["Background"], mix.inputs[1])
    tree.links.new(seen.outputs["Background"], mix.inputs[2])
    tree.links.new(mix.outputs[0], output.inputs["Surface"])
    return world


def light_scene(scene: bpy.types.Scene, azimuth: float, altitude: float) -> bpy.types.Object:
    """Daylight for a sun at ``azimuth``/``altitude`` (radians): a Sun lamp and the physical sky.

    The lamp has the colour and strength of the Sky Texture's own sun disc at that altitude
    (:data:`SUN_IRRADIANCE`: white-yellow at noon, orange near the horizon); the sky
    (:func:`set_sky`) lights the shadows blue. Both in the sky's physical units, so the view transform
    (AgX) gets an exposure that shows a white horizontal surface in sun and sky at
    :data:`WHITE_EXPOSED`, whatever the sun's height. Returns the lamp.
    """
    degrees = math.degrees(altitude)
    sun = _by_altitude(SUN_IRRADIANCE, degrees)
    peak = max(sun)
    lamp = add_sun(scene, azimuth, altitude, strength=peak, color=tuple(c / peak for c in sun))
    set_sky(scene, azimuth, altitude)
    white = _luminance(sun) * math.sin(max(altitude, 0.0)) + _luminance(_by_altitude(SKY_IRRADIANCE, degrees))
    scene.view_settings.view_transform = "AgX"
    scene.view_settings.look = "None"
    scene.view_settings.exposure = math.log2(WHITE_EXPOSED * math.pi / white)
    scene.view_settings.gamma = 1.0
    return lamp


def add_base(scene: bpy.types.Scene, terrain: bpy.types.Object, color=(0.11, 0.09, 0.07)) -> bpy.types.Object | None:
    """Close the terrain's cut edges for a picture: walls from each edge vertex down to a floor below the lowest
    point (by a tenth of the relief), in an earth colour, as a diorama's sides. Without them an oblique camera
    sees the open sheet's dark underside where an edge runs high. A separate object named "<terrain> Base"
    (the terrain's own mesh is not touched); ``None`` for a mesh that is not an Orogen grid.
    """
    from .mesh import grid_edge_ring, grid_shape_of, new_mesh

    shape = grid_shape_of(terrain.data)
    if shape is None:
        return None
    ring = grid_edge_ring(terrain.data, *shape)
    low, high = min(c[2] for c in terrain.bound_box), max(c[2] for c in terrain.bound_box)  # local, as the ring
    floor = low - max(0.1 * (high - low), 1e-3)
    bottom = ring.copy()
    bottom[:, 2] = floor
    n = len(ring)
    i = np.arange(n, dtype=np.int32)
    faces = np.stack([i, (i + 1) % n, n + (i + 1) % n, n + i], axis=1)  # top edge, then down to the floor
    mesh = new_mesh(f"{terrain.name} Base", np.concatenate([ring, bottom]).astype(np.float32), faces)
    material = bpy.data.materials.new(f"{terrain.name} Base")
    material.diffuse_color = (*color, 1.0)
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    bsdf = next(n for n in material.node_tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    bsdf.inputs["Base Color"].default_value = (*color, 1.0)
    bsdf.inputs["Roughness"].default_value = 0.9
    mesh.materials.append(material)
    base = bpy.data.objects.new(f"{terrain.name} Base", mesh)
    base.matrix_world = terrain.matrix_world.copy()
    scene.collection.objects.link(base)
    return base


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
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = False
    scene.cycles.use_adaptive_sampling = False
    scene.render.resolution_x, scene.render.resolution_y = resolution
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.render.film_transparent = False
    # No stamp metadata (date, time, file name, frame, camera) in the PNG. Cycles still records its
    # render times, so two renders of one scene have the same pixels but not always the same bytes.
    scene.render.use_stamp = False
    for name in dir(scene.render):
        if name.startswith("use_stamp_") and isinstance(getattr(scene.render, name), bool):
            setattr(scene.render, name, False)


def render_still(scene: bpy.types.Scene, filepath: str) -> None:
    """Render the scene's camera view and write it to ``filepath`` (on Blender 4.x, with Cycles' Experimental
    feature set when a terrain carries Orogen's render displacement: :func:`.displacement.use_experimental_cycles`)."""
    use_experimental_cycles(scene)
    scene.render.filepath = filepath
    bpy.ops.render.render(write_still=True, scene=scene.name)
