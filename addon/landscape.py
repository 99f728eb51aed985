"""A landscape picture of a terrain: a camera inside it, the land continued to the horizon, haze in metres.

:func:`stage_view` sets up the camera a picture script asks for: ``'LANDSCAPE'``
(the default of ``scripts/render_terrain.py``: :func:`add_landscape_camera` at
drone height looking across the terrain, :func:`add_surround` and
:func:`add_haze`), ``'DIORAMA'`` (the block on its plinth from above, as
:func:`.render.add_camera` frames it; ``'OBLIQUE'`` is its old name) or
``'TOP'``. The vantage itself is chosen in core (:func:`core.viewpoint.landscape_viewpoint`).
"""

import math

import bpy
import numpy as np
from mathutils import Matrix, Vector

from ..core.viewpoint import Viewpoint, frame_top, landscape_viewpoint
from . import render
from .mesh import grid_shape_of, new_mesh
from .water import water_of

#: The views :func:`stage_view` knows; ``'OBLIQUE'`` is ``'DIORAMA'``'s old name.
VIEWS = ("LANDSCAPE", "DIORAMA", "OBLIQUE", "TOP")
#: The landscape camera's focal length in millimetres on a 36 mm sensor: a moderate wide angle.
LENS = 35.0
#: Fractions of the landscape frame's height: sky above the terrain's silhouette (or the horizon), and at least
#: this much land below eye level (the camera rises until the relief leaves that much).
SKY, GROUND_BELOW = 0.28, 0.35
#: Koschmieder's constant: the visual range ``V`` of a homogeneous atmosphere of extinction coefficient
#: ``sigma`` is ``3.912 / sigma`` (contrast threshold 2 %; Koschmieder 1924, WMO's meteorological optical range).
KOSCHMIEDER = 3.912
#: Rayleigh scattering coefficients of air at sea level for red, green and blue (680, 550 and 440 nm), per metre
#: (Bruneton and Neyret 2008, "Precomputed atmospheric scattering"): air alone sees about 300 km.
RAYLEIGH = (5.802e-6, 13.558e-6, 33.1e-6)
#: Radiance of the physical sky without its sun 2 degrees above the horizon, 80 degrees in azimuth from the sun,
#: linear RGB in Blender's units (W/m²/sr), by sun altitude in degrees, for each sky model
#: (:func:`.render.sky_type`): measured by rendering the sky alone (Blender 5.0.1 and 4.2.3, default atmosphere).
HORIZON_RADIANCE = {
    "MULTIPLE_SCATTERING": (
        (2.0, (2.62, 1.74, 1.19)),
        (5.0, (4.27, 3.68, 2.79)),
        (10.0, (6.12, 6.33, 5.8)),
        (20.0, (8.3, 9.34, 9.41)),
        (35.0, (10.43, 12.0, 12.47)),
        (60.0, (12.72, 14.72, 15.49)),
        (90.0, (13.6, 15.76, 16.64)),
    ),
    "NISHITA": (
        (2.0, (1.37, 0.87, 0.19)),
        (5.0, (2.25, 1.81, 0.71)),
        (10.0, (3.08, 2.86, 1.65)),
        (20.0, (3.8, 3.81, 2.77)),
        (35.0, (4.15, 4.31, 3.49)),
        (60.0, (4.25, 4.51, 3.87)),
        (90.0, (4.17, 4.47, 3.92)),
    ),
}
#: Colour of the ground beyond the continued terrain, linear RGB (an earth tone; a dark sea with water).
GROUND_COLOR, SEA_COLOR = (0.09, 0.085, 0.06), (0.02, 0.035, 0.045)


def grid_heights(terrain: bpy.types.Object) -> tuple[np.ndarray, float] | None:
    """The terrain mesh's heights ``float32 (rows, cols)`` in metres (local Z, row 0 north) and its cell size in
    metres, or ``None`` for a mesh that is not an Orogen grid."""
    shape = grid_shape_of(terrain.data)
    if shape is None:
        return None
    rows, cols = shape
    co = np.empty(rows * cols * 3, dtype=np.float32)
    terrain.data.vertices.foreach_get("co", co)
    co = co.reshape(rows, cols, 3)
    return np.ascontiguousarray(co[..., 2]), float(co[0, 1, 0] - co[0, 0, 0])


def add_landscape_camera(
    scene: bpy.types.Scene, terrain: bpy.types.Object, sun_azimuth: float, aspect: float = 16 / 9
) -> tuple[bpy.types.Object, Viewpoint]:
    """A level camera at drone height inside ``terrain`` (an Orogen grid), looking across it with the sun at
    ``sun_azimuth`` (degrees clockwise from north) to one side; it becomes the scene camera.

    The vantage is :func:`core.viewpoint.landscape_viewpoint`'s for this lens (:data:`LENS`) and ``aspect``;
    the frame is shifted (lens shift, verticals stay vertical) so the terrain's silhouette or the horizon has
    sky above it (:func:`core.viewpoint.frame_top`). Returns the camera and the viewpoint (terrain-local
    coordinates). Raises ``ValueError`` for a mesh that is not an Orogen grid.
    """
    grid = grid_heights(terrain)
    if grid is None:
        raise ValueError(f"{terrain.name!r} is not an Orogen terrain grid")
    heights, cell = grid
    data = bpy.data.cameras.new("Camera")
    data.lens = LENS
    data.sensor_fit = "AUTO"
    cam = bpy.data.objects.new("Camera", data)
    scene.collection.objects.link(cam)
    tan_x, tan_y = render._half_tangents(data, aspect)
    view = landscape_viewpoint(
        heights,
        cell,
        sun_azimuth=sun_azimuth,
        half_fov=math.degrees(math.atan(tan_x)),
        max_silhouette=2.0 * tan_y * (1.0 - SKY - GROUND_BELOW),
    )
    world = terrain.matrix_world
    cam.location = world @ Vector(view.position)
    direction = world.to_3x3() @ Vector(view.direction)
    direction.z = 0.0
    render._look_at(cam, direction.normalized())
    shift = frame_top(view.silhouette, tan_y, sky=SKY) - tan_y
    data.shift_y = shift / (2.0 * render._half_tangents(data, 1.0)[0])
    extent = max(heights.shape) * cell
    data.clip_start = 0.1
    data.clip_end = 100.0 * extent
    scene.camera = cam
    return cam, view


#: Copies of the terrain on each side of it in :func:`add_surround`, at least and at most: a block of
#: ``2 * rings + 1`` squared, as many as reach a quarter of the visual range.
RINGS = (2, 6)
#: The least default visual range of the haze, metres: a clear day's.
CLEAR_DAY = 30000.0


def _mirrors(wx: float, wy: float, rings: int) -> list[Matrix]:
    """The terrain-local transforms of the mirror images of a ``wx`` x ``wy`` metre grid that tile the block of
    ``rings`` round it (the terrain itself left out): the image ``i`` grids east and ``j`` north is
    mirrored in X when ``i`` is odd and in Y when ``j`` is odd, so each meets its neighbours edge to edge with
    the same heights."""
    out = []
    for j in range(rings, -rings - 1, -1):
        for i in range(-rings, rings + 1):
            if i or j:
                scale = Matrix.Diagonal((-1.0 if i % 2 else 1.0, -1.0 if j % 2 else 1.0, 1.0, 1.0))
                out.append(Matrix.Translation((i * wx, j * wy, 0.0)) @ scale)
    return out


def _plain_material(name: str, color, roughness: float) -> bpy.types.Material:
    material = bpy.data.materials.new(name)
    material.diffuse_color = (*color, 1.0)
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    bsdf = next(n for n in material.node_tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    bsdf.inputs["Base Color"].default_value = (*color, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    return material


def add_surround(
    scene: bpy.types.Scene, terrain: bpy.types.Object, reach: float, rings: int = RINGS[0]
) -> list[bpy.types.Object]:
    """Continue ``terrain`` (an Orogen grid) to the horizon: its mirror images across each edge and corner,
    ``rings`` deep (instances of its mesh, and of its water's, so heights, colours and sea meet the
    terrain's own at every edge), and beyond that block a flat ground out to ``reach`` metres from the
    centre, at the water level or the lowest edge height. Objects named "<terrain> Surround ..."; the
    terrain is not touched."""
    grid = grid_heights(terrain)
    if grid is None:
        raise ValueError(f"{terrain.name!r} is not an Orogen terrain grid")
    heights, cell = grid
    rows, cols = heights.shape
    world, water = terrain.matrix_world, water_of(terrain)
    made = []
    for n, mirror in enumerate(_mirrors((cols - 1) * cell, (rows - 1) * cell, rings)):
        copy = bpy.data.objects.new(f"{terrain.name} Surround {n + 1}", terrain.data)
        copy.matrix_world = world @ mirror
        made.append(copy)
        if water is not None:
            sea = bpy.data.objects.new(f"{terrain.name} Surround Water {n + 1}", water.data)
            sea.matrix_world = world @ mirror @ world.inverted() @ water.matrix_world
            made.append(sea)
    hx, hy = (rings + 0.5) * (cols - 1) * cell, (rings + 0.5) * (rows - 1) * cell
    edge = min(heights[0].min(), heights[-1].min(), heights[:, 0].min(), heights[:, -1].min())
    level = (world.inverted() @ water.matrix_world).translation.z if water is not None else float(edge)
    r = max(reach, 2 * hx, 2 * hy)
    corners = [(-hx, hy), (hx, hy), (hx, -hy), (-hx, -hy), (-r, r), (r, r), (r, -r), (-r, -r)]
    co = np.array([(x, y, level) for x, y in corners], dtype=np.float32)
    faces = np.array([[0, 4, 5, 1], [1, 5, 6, 2], [2, 6, 7, 3], [3, 7, 4, 0]], dtype=np.int32)  # facing up
    mesh = new_mesh(f"{terrain.name} Surround Ground", co, faces)
    if water is not None:
        mesh.materials.append(_plain_material(f"{terrain.name} Surround Sea", SEA_COLOR, 0.15))
    else:
        mesh.materials.append(_plain_material(f"{terrain.name} Surround Ground", GROUND_COLOR, 0.9))
    ground = bpy.data.objects.new(f"{terrain.name} Surround Ground", mesh)
    ground.matrix_world = world.copy()
    made.append(ground)
    for obj in made:
        scene.collection.objects.link(obj)
    return made


def horizon_radiance(altitude: float) -> tuple[float, float, float]:
    """The radiance of this Blender's physical sky (:func:`.render.set_sky`) just above the horizon, 80 degrees
    from the sun's azimuth, for a sun ``altitude`` degrees high: linear RGB in the sky's units
    (:data:`HORIZON_RADIANCE`, interpolated, clamped at its ends)."""
    return render._by_altitude(HORIZON_RADIANCE[render.sky_type()], altitude)


def add_haze(
    scene: bpy.types.Scene,
    terrain: bpy.types.Object,
    visibility: float,
    *,
    ceiling: float,
    reach: float,
    sun_altitude: float,
) -> bpy.types.Object:
    """Aerial perspective by Koschmieder's law: a homogeneous layer of haze of visual range ``visibility``
    metres, from below the terrain up to ``ceiling`` metres above its Z = 0, ``reach`` metres out from its
    centre each way.

    Land at distance ``d`` is seen as ``L0 * T + H * (1 - T)`` with ``T = exp(-sigma * d)``: its own light
    ``L0`` dimmed and the horizon sky's ``H`` put in its place (the light the haze scatters towards the eye,
    which an endless path of it shows as the sky at the horizon). ``sigma`` per colour is the extinction of
    aerosol haze, grey, that makes the visual range at 550 nm ``visibility`` (``KOSCHMIEDER / visibility`` per
    metre, Koschmieder 1924), plus air's Rayleigh scattering (:data:`RAYLEIGH`, blue the most: far slopes turn
    blue); ``H`` is :func:`horizon_radiance` for a sun ``sun_altitude`` degrees high. As a volume: absorption
    ``sigma`` and emission ``sigma * H``, which solve to exactly that, in a box object with no surface;
    constant, so Cycles integrates it in closed form and samples no light in it (the sun's light crossing it
    is dimmed too).
    Raises ``ValueError`` unless ``visibility`` is a positive finite number.
    """
    if not (math.isfinite(visibility) and visibility > 0):
        raise ValueError(f"visibility must be a positive number of metres, got {visibility!r}")
    aerosol = max(KOSCHMIEDER / visibility - RAYLEIGH[1], 0.0)
    sigma = tuple(aerosol + r for r in RAYLEIGH)
    top = max(sigma)
    horizon = horizon_radiance(sun_altitude)
    material = bpy.data.materials.new("Haze")
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    tree = material.node_tree
    tree.nodes.clear()
    emission = tree.nodes.new("ShaderNodeEmission")
    emission.label = "Horizon sky x extinction"
    emission.inputs["Color"].default_value = (*(h * s / top for h, s in zip(horizon, sigma, strict=True)), 1.0)
    emission.inputs["Strength"].default_value = top
    absorb = tree.nodes.new("ShaderNodeVolumeAbsorption")
    absorb.label = "Extinction"
    absorb.inputs["Color"].default_value = (*(1.0 - s / top for s in sigma), 1.0)
    absorb.inputs["Density"].default_value = top
    add = tree.nodes.new("ShaderNodeAddShader")
    output = tree.nodes.new("ShaderNodeOutputMaterial")
    emission.location, absorb.location, add.location, output.location = (-400, 100), (-400, -150), (-150, 0), (100, 0)
    tree.links.new(emission.outputs[0], add.inputs[0])
    tree.links.new(absorb.outputs[0], add.inputs[1])
    tree.links.new(add.outputs[0], output.inputs["Volume"])
    low = min(c[2] for c in terrain.bound_box) - 10.0
    square = ((-reach, -reach), (reach, -reach), (reach, reach), (-reach, reach))
    co = np.array([(x, y, z) for z in (low, ceiling) for x, y in square], dtype=np.float32)
    faces = np.array(
        [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]], dtype=np.int32
    )  # outward
    mesh = new_mesh("Haze", co, faces)
    mesh.materials.append(material)
    box = bpy.data.objects.new("Haze", mesh)
    box.matrix_world = Matrix.Translation(terrain.matrix_world.translation)
    scene.collection.objects.link(box)
    return box


def stage_view(
    scene: bpy.types.Scene,
    terrain: bpy.types.Object,
    view: str,
    *,
    aspect: float,
    sun_azimuth: float,
    sun_altitude: float = 35.0,
    visibility: float | None = None,
) -> bpy.types.Object:
    """Set up ``view`` (:data:`VIEWS`) of ``terrain`` for a picture; returns the camera.

    ``'LANDSCAPE'``: :func:`add_landscape_camera` with the sun at ``sun_azimuth`` degrees to one side, the
    terrain continued (:func:`add_surround`) and haze of visual range ``visibility`` metres up to the
    terrain's top or the camera (:func:`add_haze`, under a sun ``sun_altitude`` degrees high; default five
    times the distance from the camera to the terrain's far edge, so that edge keeps about half its contrast
    and the continued land fades out, and at least :data:`CLEAR_DAY`; the land continued by enough
    :data:`RINGS` of mirror images to reach a quarter of it). ``'DIORAMA'``/``'OBLIQUE'``: the block on its
    plinth from above (:func:`.render.add_camera` with a horizon, :func:`.render.add_base`). ``'TOP'``: straight down.
    Raises ``ValueError`` for another view or a bad ``visibility``.
    """
    if view == "LANDSCAPE":
        cam, vp = add_landscape_camera(scene, terrain, sun_azimuth, aspect)
        visibility = max(5.0 * vp.far, CLEAR_DAY) if visibility is None else visibility
        extent = max(terrain.dimensions.x, terrain.dimensions.y)
        reach = max(4.0 * visibility, 3.0 * extent)
        rings = min(max(math.ceil(0.25 * visibility / max(extent, 1e-6)), RINGS[0]), RINGS[1])
        add_surround(scene, terrain, reach, rings)
        top = max(c[2] for c in terrain.bound_box)
        ceiling = max(top, vp.position[2])
        add_haze(scene, terrain, visibility, ceiling=ceiling, reach=reach, sun_altitude=sun_altitude)
        cam.data.clip_end = 4.0 * reach
        return cam
    if view in ("DIORAMA", "OBLIQUE"):
        cam = render.add_camera(scene, terrain, view="OBLIQUE", aspect=aspect, horizon=0.22)
        render.add_base(scene, terrain)
        return cam
    if view == "TOP":
        return render.add_camera(scene, terrain, view="TOP", aspect=aspect)
    raise ValueError(f"view must be one of {', '.join(VIEWS)}, got {view!r}")
