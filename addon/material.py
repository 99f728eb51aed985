"""Terrain and water materials: the height blend's node tree (:mod:`.nodes`) built, cached as templates and
copied; a spec's colour layers checked and resolved; an Unlit terrain's colour baked into its mesh.

:func:`build_water_material` makes the water surface's material (see ``addon/water.py``).
"""

import hashlib
import math
import os
from dataclasses import replace

import bpy
import numpy as np

from ..core.colormap import Layer, check_layers
from ..core.lighting import bakes_occlusion, cell_size
from ..core.spec import TerrainSpec
from .mesh import (
    BAKED_COLOR_ATTRIBUTE,
    EROSION_ATTRIBUTES,
    HEIGHT_ATTRIBUTE,
    LIGHTMAP_ATTRIBUTE,
    SLOPE_ATTRIBUTE,
    grid_shape_of,
)
from .nodes import NO_GROUND, TreeBuilder, build_tree, check_layer_file, load_layer_image
from .specio import image_path

TEMPLATE_PREFIX = ".Orogen Template "
#: Custom property holding a template's key (layers, lightmap, shading and tree version).
TEMPLATE_KEY = "orogen_template_key"
#: Templates kept at most; the least recently made beyond this are removed when a new one is made.
MAX_TEMPLATES = 8
#: Bump when the node tree :func:`build_material` makes changes, so templates of an older tree are not reused.
_TREE_VERSION = 7
#: Custom property numbering the templates in the order they were made (oldest is pruned first).
TEMPLATE_ORDER = "orogen_template_order"


def build_material(
    name: str,
    layers: tuple[Layer, ...],
    use_lightmap: bool = True,
    shading: str = "LIT",
    *,
    cached: bool = True,
    cavity: float = 0.0,
    ground: tuple[float, float, float] = NO_GROUND,
) -> bpy.types.Material:
    """Create a new material whose colour is the height blend of ``layers``.

    Parameters
    ----------
    name : str
        Material name (Blender may add a numeric suffix).
    layers : tuple of core.colormap.Layer
        Validated layers (linear RGB colours).
    use_lightmap : bool
        Unlit only: multiply the colour by the ``Lightmap`` colour attribute.
        A Lit material never reads the lightmap (Blender lights it).
    shading : {'LIT', 'UNLIT'}
        Principled BSDF with the colour map as its base colour (shaded by the scene's
        lights and world), or Emission (colour x lightmap, unaffected by lights).
    cavity : float
        Lit only, ``[0, 1]``: darken the base colour by the baked ambient occlusion (the ``occlusion``
        attribute), ``colour x (1 - cavity + cavity x AO)``: a cavity term, an artistic darkening of crevices on
        top of Blender's own light (0: off, the attribute is not read).
    ground : (float, float, float)
        Lit only: ``(detail, strata_spacing, map_tint)`` of the ground stage (the spec's ``material.detail``,
        ``strata_spacing`` in metres and ``map_tint``; :func:`.nodes._ground`): the maps' tint and the detail
        below the grid. :data:`.nodes.NO_GROUND` (the default): none.
    cached : bool
        Copy a cached template for the same layers and options (``material.copy()``,
        about 0.3 ms) instead of building the tree node by node (about 10 ms).
        The template is an ordinary material named ``TEMPLATE_PREFIX`` + a hash,
        with no users and no fake user: hidden from Blender's menus, not saved
        with the file, found again by name on each call (so undo, reloading a
        file, or deleting or purging it only mean it is built again). Layers
        with image textures are never cached (the template would keep their
        images in use).

    Raises
    ------
    ValueError
        If ``shading`` is neither 'LIT' nor 'UNLIT'.
    """
    if shading not in {"LIT", "UNLIT"}:
        raise ValueError(f"shading must be 'LIT' or 'UNLIT', got {shading!r}")
    use_lightmap = bool(use_lightmap) and shading == "UNLIT"  # one template for Lit, lightmap baked or not
    cavity = float(cavity) if shading == "LIT" else 0.0
    ground = tuple(float(v) for v in ground) if shading == "LIT" else NO_GROUND
    if not cached or any(lay.kind == "IMAGE" for lay in layers):
        mat = bpy.data.materials.new(name)
        build_tree(mat, layers, use_lightmap, shading, cavity, ground)
        return mat
    template = _template(layers, use_lightmap, shading, cavity, ground)
    if template is None:  # someone else's material holds the template's name: build without the cache
        return build_material(name, layers, use_lightmap, shading, cached=False, cavity=cavity, ground=ground)
    mat = template.copy()
    for prop in (TEMPLATE_KEY, TEMPLATE_ORDER):
        del mat[prop]
    mat.name = name
    return mat


def _template(
    layers: tuple[Layer, ...],
    use_lightmap: bool,
    shading: str,
    cavity: float = 0.0,
    ground: tuple[float, float, float] = NO_GROUND,
) -> bpy.types.Material | None:
    """The cached template for these layers and options, made if missing or stale (``None``: its name is taken
    by a material that is not ours). At most ``MAX_TEMPLATES`` unused templates are kept, oldest dropped."""
    key = repr((_TREE_VERSION, tuple(layers), bool(use_lightmap), shading, cavity, tuple(ground)))
    template_name = TEMPLATE_PREFIX + hashlib.sha1(key.encode()).hexdigest()[:16]
    template = bpy.data.materials.get(template_name)
    if template is not None and (template.library is not None or template.get(TEMPLATE_KEY) != key):
        if not (template.library is None and TEMPLATE_KEY in template and template.users == 0):
            return None
        bpy.data.materials.remove(template)  # ours, but stale: make it again
        template = None
    if template is None:
        older = templates()
        template = bpy.data.materials.new(template_name)
        build_tree(template, layers, use_lightmap, shading, cavity, ground)
        template[TEMPLATE_KEY] = key
        template[TEMPLATE_ORDER] = max((m[TEMPLATE_ORDER] for m in older), default=-1) + 1
        unused = [m for m in older if m.users == 0]
        for old in unused[: max(len(unused) + 1 - MAX_TEMPLATES, 0)]:
            bpy.data.materials.remove(old)
    return template


def templates() -> list[bpy.types.Material]:
    """Orogen's cached template materials in this file, oldest first."""
    found = [
        m
        for m in bpy.data.materials
        if m.name.startswith(TEMPLATE_PREFIX)
        and m.library is None
        and TEMPLATE_KEY in m
        and isinstance(m.get(TEMPLATE_ORDER), int)
    ]
    return sorted(found, key=lambda m: m[TEMPLATE_ORDER])


#: Metres of water after which light has taken on the water's depth colour (its transmittance over this
#: distance is the depth colour, per channel): see :func:`water_absorption`.
WATER_COLOR_DEPTH = 3.0
#: Index of refraction of water.
WATER_IOR = 1.33
#: Scattering coefficient of the water's volume, per metre: clear lake and coastal water scatter about
#: 0.05-0.5 per metre, the open ocean about 0.03 (Mobley 1994, "Light and Water", chapter 3); the low end, so that
#: the red the scattering sends back from the first metre does not outweigh the blue-green of deep water.
WATER_SCATTERING = 0.02
#: Material custom property holding the depth colour a water material was built for.
WATER_KEY = "orogen_water_color"
#: Material custom property holding the version of the water's node tree (:data:`WATER_TREE_VERSION`).
WATER_VERSION_KEY = "orogen_water_version"
#: Bump when :func:`build_water_material` makes another tree, so a file's water gets it on the next update.
#: 2: one Principled Volume instead of a Volume Absorption and a Volume Scatter (no material marked is 1).
WATER_TREE_VERSION = 2


def water_absorption(depth_color, depth: float = WATER_COLOR_DEPTH) -> tuple[tuple[float, float, float], float]:
    """The Volume Absorption node's ``(colour, density)`` for water whose transmittance over ``depth`` metres
    is ``depth_color``.

    Cycles absorbs ``density * (1 - colour)`` per metre, per channel (Blender's Volume Absorption node);
    Beer-Lambert asks ``-ln(depth_color) / depth``. The density is the largest channel's coefficient and
    the colour the ratio that gives each channel its own. Channels are clamped to [1e-3, 0.999] (none
    fully opaque or clear).
    """
    sigma = [-math.log(min(max(float(c), 1e-3), 0.999)) / depth for c in depth_color[:3]]
    density = max(sigma)
    return (tuple(1.0 - s / density for s in sigma), density)  # type: ignore[return-value]


def water_volume(
    depth_color, scattering: float = WATER_SCATTERING, depth: float = WATER_COLOR_DEPTH
) -> tuple[tuple[float, float, float], float, tuple[float, float, float]]:
    """The Principled Volume node's ``(colour, density, absorption colour)`` for water that absorbs as
    :func:`water_absorption` says and scatters ``scattering`` per metre, white and evenly (anisotropy 0).

    The node scatters ``density * colour`` and absorbs ``density * (1 - colour) * (1 - sqrt(absorption
    colour))`` per metre, per channel (Cycles' ``svm_node_principled_volume``, EEVEE's
    ``node_volume_principled``). With the density the largest absorption plus the scattering, a grey colour of
    ``scattering / density`` and each channel's absorption colour the square of the Volume Absorption
    colour's, both coefficients are those of a Volume Absorption and a Volume Scatter side by side, in one
    volume closure instead of two (Cycles reserves 32 closures a volume node against its limit of 64).
    """
    color, absorption = water_absorption(depth_color, depth)
    density = absorption + scattering
    grey = scattering / density
    return (grey, grey, grey), density, tuple(c * c for c in color)  # type: ignore[return-value]


def build_water_material(name: str, depth_color) -> bpy.types.Material:
    """A water material: a Principled BSDF set up as water over an absorbing, scattering volume.

    The surface is a Principled BSDF with transmission 1, IOR 1.33 and low
    roughness, with faint ripples (a Noise texture into Bump, in metres);
    light reaching the sea floor is absorbed with depth by a Principled Volume
    in the material's volume output, so light that crosses
    :data:`WATER_COLOR_DEPTH` metres of water takes on ``depth_color``
    (linear RGB). Shadow rays see a Transparent BSDF instead of the refracting
    surface (Light Path ▸ Is Shadow Ray), so the sun lights the sea floor
    through the water, dimmed by the volume; without it, Cycles would leave
    everything under water in the surface's shadow. The volume also scatters
    (white, :data:`WATER_SCATTERING` per metre, the particles of natural
    water), so light comes back out of deep water tinted by what the
    absorption leaves: deep water is dark blue-green, not black. Absorption and
    scattering are one Principled Volume (:func:`water_volume`), not a Volume
    Absorption beside a Volume Scatter: Cycles reserves 32 closures for each
    volume node of a material and warns past 64 ("Maximum number of closures
    exceeded"), which the two nodes, the Principled BSDF (12) and the
    Transparent BSDF (1) did at 77; one volume node makes 45. The mesh must be
    closed around the water for the volume, or stand on the opaque terrain
    (``addon/water.py`` makes it so).
    """
    mat = bpy.data.materials.new(name)
    if bpy.app.version < (5, 0, 0):
        mat.use_nodes = True
    tree = mat.node_tree
    tree.nodes.clear()
    b = TreeBuilder(tree)
    coords = b.node("ShaderNodeTexCoord", 0, 0)
    noise = b.node("ShaderNodeTexNoise", 1, 0, label="Ripples")
    b.link(coords, "Object", noise, "Vector")
    b.socket(noise.inputs, "Scale").default_value = 0.8  # per metre: ripples about a metre across
    b.socket(noise.inputs, "Detail").default_value = 3.0
    bump = b.node("ShaderNodeBump", 2, 0)
    b.link(noise, "Fac", bump, "Height")
    b.socket(bump.inputs, "Strength").default_value = 0.08
    surface = b.node("ShaderNodeBsdfPrincipled", 3, 0, label="Water surface")
    for identifier, value in (
        ("Base Color", (1.0, 1.0, 1.0, 1.0)),
        ("Roughness", 0.05),
        ("IOR", WATER_IOR),
        ("Transmission Weight", 1.0),
    ):
        b.socket(surface.inputs, identifier).default_value = value
    b.link(bump, "Normal", surface, "Normal")
    path = b.node("ShaderNodeLightPath", 3, 2)
    clear = b.node("ShaderNodeBsdfTransparent", 3, 3, label="Shadow rays pass")
    mix = b.node("ShaderNodeMixShader", 4, 0)
    tree.links.new(path.outputs["Is Shadow Ray"], mix.inputs[0])
    tree.links.new(surface.outputs[0], mix.inputs[1])
    tree.links.new(clear.outputs[0], mix.inputs[2])
    color, density, absorption = water_volume(depth_color)
    volume = b.node(
        "ShaderNodeVolumePrincipled",
        4,
        2,
        label=f"Depth colour over {WATER_COLOR_DEPTH:g} m, scattering {WATER_SCATTERING:g} per metre",
    )
    for identifier, value in (
        ("Color", (*color, 1.0)),
        ("Density", density),
        ("Anisotropy", 0.0),
        ("Absorption Color", (*absorption, 1.0)),
        ("Density Attribute", ""),  # the water mesh has no volume grids: read no attribute
        ("Temperature Attribute", ""),
    ):
        b.socket(volume.inputs, identifier).default_value = value
    output = b.node("ShaderNodeOutputMaterial", 5, 0, target="ALL")
    b.link(mix, "Shader", output, "Surface")
    b.link(volume, "Volume", output, "Volume")
    mat[WATER_KEY] = [float(c) for c in depth_color[:3]]
    mat[WATER_VERSION_KEY] = WATER_TREE_VERSION
    return mat


def material_layers(spec: TerrainSpec) -> tuple:
    """The spec's layers with image paths resolved as Blender resolves ``//``."""
    return tuple(replace(lay, image=image_path(lay.image)) if lay.image else lay for lay in spec.layers)


def checked_files(spec: TerrainSpec) -> tuple:
    """The spec's colour layers (image paths resolved), every Image layer's file checked without decoding it.

    Each image must exist and pass :func:`nodes.check_layer_file` (a regular file, not a folder or a FIFO, a
    whole PNG, JPEG, TIFF or OpenEXR, at most 16384 pixels a side, its pixels within the memory available).
    Raises ``ValueError``/``TypeError`` naming the layer and the file; nothing is created.
    """
    layers = check_layers(material_layers(spec))
    for i, lay in enumerate(layers):
        if lay.kind != "IMAGE":
            continue
        if not os.path.lexists(lay.image):  # a folder or a FIFO exists: check_layer_file says what it is
            raise ValueError(f"layers[{i}] ({lay.name!r}): image file not found: {lay.image}")
        try:
            check_layer_file(lay.image)
        except ValueError as err:
            raise ValueError(f"layers[{i}] ({lay.name!r}): {err}") from None
    return layers


def refused_images(spec: TerrainSpec) -> list[str]:
    """A note for each Image colour layer of ``spec`` whose file :func:`checked_files` would refuse (missing,
    cut, too large: nothing is decoded), naming the layer and the file; empty when every image is fine.

    Rebuild Material refuses such a layer and the material keeps its last build; a Regenerate or an export,
    which go ahead without the image (the baked colours use the layer's colour), say so with these notes.
    """
    notes = []
    for i, lay in enumerate(material_layers(spec)):
        if lay.kind != "IMAGE" or not isinstance(lay.image, str) or not lay.image:
            continue
        try:
            if not os.path.isfile(lay.image):
                raise ValueError(f"image file not found: {lay.image}")
            check_layer_file(lay.image)
        except ValueError as err:
            notes.append(
                f"layers[{i}] ({lay.name!r}): its image {lay.image} was refused ({err}); the material does not "
                "show it (Rebuild Material once the file is fixed)"
            )
    return notes


def checked_layers(spec: TerrainSpec) -> tuple:
    """The spec's colour layers (image paths resolved), with every image layer's file readable as an image.

    :func:`checked_files` first (nothing is decoded before it), then Blender reads each image once to be
    sure it can. Raises ``ValueError``/``TypeError`` before anything is created (an image loaded only to
    be checked is removed again).
    """
    layers = checked_files(spec)
    for i, lay in enumerate(layers):
        if lay.kind != "IMAGE":
            continue
        known = {image.as_pointer() for image in bpy.data.images}
        try:
            image = load_layer_image(lay.image)
        except ValueError as err:
            raise ValueError(f"layers[{i}] ({lay.name!r}): {err}") from None
        readable = image.size[0] > 0 and image.size[1] > 0
        if image.as_pointer() not in known:
            bpy.data.images.remove(image)  # build_material loads it again
        if not readable:
            raise ValueError(f"layers[{i}] ({lay.name!r}): not an image Blender can read: {lay.image}")
    return layers


def ground_of(spec: TerrainSpec) -> tuple[float, float, float]:
    """``spec``'s ground stage ``(detail, strata_spacing, map_tint)`` for :func:`build_material` (Lit only)."""
    m = spec.material
    return (float(m["detail"]), float(m["strata_spacing"]), float(m["map_tint"]))


def new_material(name: str, spec: TerrainSpec) -> bpy.types.Material:
    """A material for ``spec``'s layers and options."""
    return build_material(
        name,
        material_layers(spec),
        spec.lighting["enabled"],
        spec.material["shading"].upper(),
        cavity=spec.material["cavity"] if bakes_occlusion(spec.lighting) else 0.0,
        ground=ground_of(spec),
    )


def bake_unlit_color(obj: bpy.types.Object, spec: TerrainSpec) -> None:
    """Bake an Unlit terrain's colour into its ``Color`` attribute (removed from other terrains).

    ``core.colormap`` of the mesh's ``height`` and ``slope`` times its
    ``Lightmap``, linear, one value per vertex: what the Unlit material's
    export output shows (see :func:`nodes._unlit_export_output`), so that
    glTF carries the terrain's colours as ``COLOR_0`` (texture layers
    contribute their colour, as in the exported colour map). It is the render
    colour attribute, and Orogen's: rewritten on every regeneration and layer
    edit.
    """
    from ..core import colormap

    mesh = obj.data
    existing = mesh.color_attributes.get(BAKED_COLOR_ATTRIBUTE)
    if not (spec.material["enabled"] and spec.material["shading"] == "unlit"):
        if existing is not None:
            mesh.color_attributes.remove(existing)
        return
    n = len(mesh.vertices)
    maps = {}
    for name in (HEIGHT_ATTRIBUTE, SLOPE_ATTRIBUTE):
        values = np.zeros(n, dtype=np.float32)
        if mesh.attributes.get(name) is not None:
            mesh.attributes[name].data.foreach_get("value", values)
        maps[name] = values
    erosion = {}
    for name in EROSION_ATTRIBUTES:
        if mesh.attributes.get(name) is not None:
            erosion[name] = np.zeros((1, n), dtype=np.float32)
            mesh.attributes[name].data.foreach_get("value", erosion[name].ravel())
    # On the grid (rows, cols), so that layers with noisy edges see their noise at the vertices' world positions.
    shape = grid_shape_of(mesh) or (1, n)
    rgba = np.ones((n, 4), dtype=np.float32)
    rgba[:, :3] = colormap(
        maps[HEIGHT_ATTRIBUTE].reshape(shape),
        check_layers(material_layers(spec)),
        maps[SLOPE_ATTRIBUTE].reshape(shape),
        maps={k: v.reshape(shape) for k, v in erosion.items()},
        height=spec.height,
        cell_size=cell_size(shape, spec.width),
        seed=spec.seed,
    ).reshape(n, 3)
    light = mesh.color_attributes.get(LIGHTMAP_ATTRIBUTE)
    if spec.lighting["enabled"] and light is not None:
        grey = np.empty(n * 4, dtype=np.float32)
        light.data.foreach_get("color", grey)
        rgba[:, :3] *= grey.reshape(n, 4)[:, :1]
    layer = existing or mesh.color_attributes.new(BAKED_COLOR_ATTRIBUTE, "FLOAT_COLOR", "POINT")
    layer.data.foreach_set("color", rgba.ravel())
    mesh.color_attributes.render_color_index = mesh.color_attributes.find(BAKED_COLOR_ATTRIBUTE)
