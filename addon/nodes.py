"""Height-blended terrain materials: the node-tree twin of ``core.colormap``.

The tree reads the ``height`` attribute (and ``slope``, in degrees, when a
layer has a slope range) and computes, per layer, exactly what
``core.colormap.layer_weights`` computes:

* presence ``p = min(clamp((h - min) / (opt - min)), clamp((h - max) / (opt - max)))``
  (two clamped Map Range nodes and a Minimum), times the slope factor
  ``min(clamp((s - (smin - soft)) / soft), clamp(((smax + soft) - s) / soft))``,
  times, for a layer masked by an erosion map, 1 where the map's attribute is in
  ``[mask_min, mask_max]`` and 0 elsewhere (a missing attribute reads 0 < ``mask_min``);
* distance to the layer's range ``d = max(min - h, 0) + max(h - max, 0)``
  (plus the slope's distance from its range / 90, plus ``MASK_DISTANCE`` outside
  a mask) and the no-hole fallback
  ``FALLBACK_WEIGHT * exp(-(d - d_min) / FALLBACK_SCALE)``;
* raw weight ``W = p + fallback``.

A layer whose heights are in metres reads the mesh's Z in object space (a
Texture Coordinate node's Object output; Z is ``height * Height``, as core
computes it), so its snow line stays put when the terrain's Height changes
without the material being rebuilt, and its distance is counted in
``METRE_DISTANCE`` metres. A layer with edge noise or the noise mask reads a
2D Noise Texture (Detail ``NOISE_DETAIL``) on the object's coordinates, with
Scale ``1 / noise_size`` and an offset per layer, scaled to the noise field's
mean 0.5 and standard deviation ``NOISE_STD`` and clamped to [0, 1] (``core.colormap``'s own field
has the same statistics but another pattern), and shifts the height and
slope it sees by ``edge_noise`` and ``slope_noise`` times ``2 (U - 0.5)``. A layer with an
``aspect_shift`` adds it times the north component (+Y) of the Texture Coordinate node's Normal output (the
shading normal in object space) to the height it sees, as core adds it times Horn's normal: snow lower on
slopes facing north.

Colours are then mixed in sequence with Mix nodes (RGBA): step ``k`` blends
the running colour toward layer ``k`` by ``W_k / (W_0 + ... + W_k)``, which
equals ``sum_i W_i * colour_i / sum_i W_i``, the normalised blend.

*Lit* feeds that colour map to a Principled BSDF's base colour: Blender's
lights, sky and shadows shade the terrain, so nothing is shaded twice and
nothing goes stale when the sun turns. Between the two the *ground* stage
(:func:`.ground.ground_stage`, the spec's ``detail``, ``strata_spacing`` and ``map_tint``) tints
the colour by the terrain's own maps — channels, wet hollows and the shores of
rivers and lakes darker (the ``drainage_area``, ``orogen_wetness``,
``river_width`` and ``lake_depth`` attributes), deposits lighter
(``deposited``) — and adds detail below the grid from 3D noise on the object's
coordinates in metres (a bump at 2.5 m and 24 m, colour patches at 180 m, rock
beds of the strata spacing, tilted and warped, on slopes steeper than 50°), so
nothing stretches on a cliff as a projected texture would; the albedo is kept
within :data:`.ground.ALBEDO`. A missing map reads 0 and tints nothing. *Unlit* multiplies it by the baked
``Lightmap`` colour attribute (slope or hillshade, cast shadows, ambient
occlusion) into an Emission shader: the flat look of the classic tutorials,
and what the exported lightmap and colour maps hold.

:func:`build_tree` fills a material with that tree; :mod:`.material` caches and copies it.
"""

import os

import bpy

from ..core.colormap import (
    BLENDER_FAC_STD,
    FALLBACK_SCALE,
    FALLBACK_WEIGHT,
    MASK_DISTANCE,
    METRE_DISTANCE,
    NOISE_DETAIL,
    NOISE_STD,
    Layer,
)
from ..core.io.image_headers import check_file
from .ground import NO_GROUND, ground_stage
from .mesh import (
    BAKED_COLOR_ATTRIBUTE,
    HEIGHT_ATTRIBUTE,
    LIGHTMAP_ATTRIBUTE,
    OCCLUSION_ATTRIBUTE,
    SLOPE_ATTRIBUTE,
    UV_MAP,
)
from .terrain.compute import available_memory

_COLUMN = 220.0  # horizontal spacing of node columns in the editor

_ROW = 180.0


class TreeBuilder:
    """Small helper that adds nodes and links them by socket identifier."""

    def __init__(self, tree: bpy.types.NodeTree) -> None:
        self.tree = tree

    def node(self, kind: str, x: float, y: float, **attrs) -> bpy.types.Node:
        node = self.tree.nodes.new(kind)
        node.location = (x * _COLUMN, -y * _ROW)
        for key, value in attrs.items():
            setattr(node, key, value)
        return node

    @staticmethod
    def socket(sockets, identifier: str) -> bpy.types.NodeSocket:
        for s in sockets:
            if s.identifier == identifier:
                return s
        raise KeyError(f"no socket with identifier {identifier!r}")

    def link(self, src: bpy.types.Node, out_id: str, dst: bpy.types.Node, in_id: str) -> None:
        self.tree.links.new(self.socket(src.outputs, out_id), self.socket(dst.inputs, in_id))

    def math(self, op: str, a, b, x: float, y: float, label: str = "") -> bpy.types.Node:
        """A Math node; ``a``/``b`` are nodes (their first output is used) or constants."""
        node = self.node("ShaderNodeMath", x, y, operation=op, label=label)
        for value, identifier in ((a, "Value"), (b, "Value_001")):
            if isinstance(value, tuple):
                self.tree.links.new(self.socket(value[0].outputs, value[1]), self.socket(node.inputs, identifier))
            elif isinstance(value, bpy.types.Node):
                self.tree.links.new(value.outputs[0], self.socket(node.inputs, identifier))
            else:
                self.socket(node.inputs, identifier).default_value = value
        return node

    def map_range(self, source: tuple, from_min: float, from_max: float, x: float, y: float, label: str):
        """Clamped linear Map Range of a value ``(node, output identifier)`` from [from_min, from_max] to [0, 1]."""
        node = self.node(
            "ShaderNodeMapRange", x, y, data_type="FLOAT", interpolation_type="LINEAR", clamp=True, label=label
        )
        self.link(source[0], source[1], node, "Value")
        for identifier, value in (("From Min", from_min), ("From Max", from_max), ("To Min", 0.0), ("To Max", 1.0)):
            self.socket(node.inputs, identifier).default_value = value
        return node


#: Bytes Blender may hold per pixel of an image texture: four float channels (16-bit and float images; 8-bit
#: ones take four bytes), before its GPU copy.
IMAGE_BYTES_PER_PIXEL = 16


def _check_image_memory(rows: int, cols: int) -> None:
    """Refuse an image whose pixels would not fit in the memory available now (``ValueError``)."""
    need = rows * cols * IMAGE_BYTES_PER_PIXEL
    free = available_memory()
    if free is not None and need > free:
        raise ValueError(
            f"its {cols} x {rows} pixels need about {need / 2**30:.1f} GiB of memory and "
            f"{free / 2**30:.1f} GiB are available"
        )


def check_layer_file(path: str) -> None:
    """Check an Image colour layer's file without reading its pixels (``ValueError`` naming the file).

    :func:`core.io.image_headers.check_file`: a whole PNG, JPEG, TIFF or
    OpenEXR of at most :data:`core.io.image_headers.MAX_IMAGE_SIDE` pixels
    a side, whose pixels (16 bytes each at most, as Blender holds them) fit
    in the memory available.
    """
    check_file(path, _check_image_memory)


def load_layer_image(path: str) -> bpy.types.Image:
    """Blender's image for an Image colour layer's file, loaded only after :func:`core.io.image_headers.check_file`.

    The file must be a whole PNG, JPEG, TIFF or OpenEXR of at most
    :data:`core.io.image_headers.MAX_IMAGE_SIDE` pixels a side whose pixels
    fit in memory: a cut OpenEXR would crash Blender's loader, and a small
    PNG can declare gigabytes of pixels. Raises ``ValueError`` naming the
    file, before Blender reads any of it; an image already loaded from the
    same file is reused (``check_existing``), after the same check.
    """
    check_layer_file(path)
    try:
        return bpy.data.images.load(path, check_existing=True)
    except RuntimeError as err:
        raise ValueError(f"{os.path.basename(path)} is not an image Blender can read ({err})") from None


def _layer_texture(b: TreeBuilder, lay: Layer, x: float, y: float) -> tuple[bpy.types.Node, str] | None:
    """Nodes that paint a texture layer, as (node, output identifier); ``None`` for a plain colour.

    Image layers read the terrain's UV map with extension mode Extend (the
    image covers the terrain once, its border pixels continue past the
    edge); Noise and Voronoi layers run through a two-colour ramp.
    """
    if lay.kind == "COLOR":
        return None
    uv = b.node("ShaderNodeUVMap", x - 2, y, uv_map=UV_MAP, label=f"{lay.name} UV")
    if lay.kind == "IMAGE":
        tex = b.node("ShaderNodeTexImage", x - 1, y, label=lay.name, extension="EXTEND")
        tex.image = load_layer_image(lay.image)
        b.link(uv, "UV", tex, "Vector")
        return tex, "Color"
    kind, out = {"NOISE": ("ShaderNodeTexNoise", "Fac"), "VORONOI": ("ShaderNodeTexVoronoi", "Distance")}[lay.kind]
    tex = b.node(kind, x - 1, y, label=lay.name)
    b.link(uv, "UV", tex, "Vector")
    b.socket(tex.inputs, "Scale").default_value = lay.scale
    ramp = b.node("ShaderNodeValToRGB", x, y, label=f"{lay.name} colours")
    ramp.color_ramp.elements[0].color = (*lay.color, 1.0)
    ramp.color_ramp.elements[1].color = (*lay.color2, 1.0)
    b.link(tex, out, ramp, "Fac")
    return ramp, "Color"


#: Name prefix of Orogen's cached template materials (a leading dot hides an ID in Blender's menus).
def build_tree(
    mat: bpy.types.Material,
    layers: tuple[Layer, ...],
    use_lightmap: bool,
    shading: str,
    cavity: float = 0.0,
    ground: tuple[float, float, float] = NO_GROUND,
) -> None:
    """Fill ``mat``'s node tree with the height blend of ``layers`` (see the module docstring); ``ground`` is
    ``(detail, strata_spacing, map_tint)`` of the Lit ground stage (:func:`.ground.ground_stage`;
    :data:`.ground.NO_GROUND`: none)."""
    if bpy.app.version < (5, 0, 0):
        mat.use_nodes = True
    tree = mat.node_tree
    tree.nodes.clear()
    b = TreeBuilder(tree)
    h = b.node("ShaderNodeAttribute", 0, 0, attribute_type="GEOMETRY", attribute_name=HEIGHT_ATTRIBUTE, label="Height")
    slope = None
    if any(lay.has_slope_range for lay in layers):
        slope = b.node(
            "ShaderNodeAttribute",
            0,
            2,
            attribute_type="GEOMETRY",
            attribute_name=SLOPE_ATTRIBUTE,
            label="Slope (degrees)",
        )
    coords = metres = north = None
    if any(lay.in_metres or lay.uses_noise or lay.uses_aspect for lay in layers):
        coords = b.node("ShaderNodeTexCoord", -2, 1, label="Object coordinates (metres)")
    if any(lay.in_metres for lay in layers):
        metres = b.node("ShaderNodeSeparateXYZ", -1, 1, label="Z (metres)")
        b.link(coords, "Object", metres, "Vector")
    if any(lay.uses_aspect for lay in layers):  # the normal's north component (+Y in object space)
        north = b.node("ShaderNodeSeparateXYZ", -1, 2, label="Normal north component")
        b.link(coords, "Normal", north, "Vector")
    sources = {
        "height": (h, "Fac"),
        "slope": None if slope is None else (slope, "Fac"),
        "metres": None if metres is None else (metres, "Z"),
        "north": None if north is None else (north, "Y"),
        "coords": coords,
    }
    parts = [_presence_and_distance(b, sources, lay, i, i * 4) for i, lay in enumerate(layers)]
    weights = _weights(b, layers, [p for p, _ in parts], [d for _, d in parts])
    color, color_out = _blend(b, layers, weights)
    _output(b, color, color_out, use_lightmap, shading, cavity, ground)


def _noise(b: TreeBuilder, coords, lay: Layer, index: int, y: int) -> tuple:
    """The layer's noise field ``U`` and ``2 U - 1``: a 2D Noise Texture on object coordinates, scaled to mean 0.5
    and standard deviation ``NOISE_STD``, clamped to [0, 1] (as ``core.colormap.noise_field``)."""
    mapping = b.node("ShaderNodeMapping", -1, y + 3, vector_type="POINT", label=f"{lay.name} noise offset")
    b.link(coords, "Object", mapping, "Vector")
    step = 1000.0 * lay.noise_size  # a thousand features apart: another stretch of the noise per layer
    b.socket(mapping.inputs, "Location").default_value = (0.7371 * step * (index + 1), 0.3119 * step * (index + 1), 0.0)
    tex = b.node("ShaderNodeTexNoise", 0, y + 3, noise_dimensions="2D", label=f"{lay.name} noise")
    if hasattr(tex, "normalize"):
        tex.normalize = True
    b.link(mapping, "Vector", tex, "Vector")
    for name, value in (
        ("Scale", 1.0 / lay.noise_size),
        ("Detail", NOISE_DETAIL),
        ("Roughness", 0.5),
        ("Lacunarity", 2.0),
        ("Distortion", 0.0),
    ):
        b.socket(tex.inputs, name).default_value = value
    k = NOISE_STD / BLENDER_FAC_STD
    u = b.node("ShaderNodeMath", 1, y + 3, operation="MULTIPLY_ADD", use_clamp=True, label=f"{lay.name} noise U")
    b.link(tex, "Fac", u, "Value")
    u.inputs[1].default_value = k
    u.inputs[2].default_value = 0.5 - 0.5 * k
    shift = b.node("ShaderNodeMath", 2, y + 3, operation="MULTIPLY_ADD", label=f"{lay.name} noise 2U - 1")
    b.link(u, "Value", shift, "Value")
    shift.inputs[1].default_value = 2.0
    shift.inputs[2].default_value = -1.0
    return (u, "Value"), (shift, "Value")


def _presence_and_distance(b: TreeBuilder, sources: dict, lay: Layer, index: int, y: int) -> tuple:
    """A layer's presence (height ramps, times its slope window and mask) and its distance outside its ranges."""
    h = sources["metres"] if lay.in_metres else sources["height"]
    slope = sources["slope"]
    field, noise = _noise(b, sources["coords"], lay, index, y) if lay.uses_noise else (None, None)
    if noise is not None and lay.edge_noise > 0.0:
        h = b.node("ShaderNodeMath", 1, y + 2, operation="MULTIPLY_ADD", label=f"{lay.name} noisy height"), "Value"
        b.link(noise[0], noise[1], h[0], "Value")
        h[0].inputs[1].default_value = -lay.edge_noise
        b.link(*(sources["metres"] if lay.in_metres else sources["height"]), h[0], "Value_002")
    if lay.uses_aspect:  # the height the layer sees plus aspect_shift x the normal's north component
        seen = h
        h = b.node("ShaderNodeMath", 1, y + 5, operation="MULTIPLY_ADD", label=f"{lay.name} height by aspect"), "Value"
        b.link(*sources["north"], h[0], "Value")
        h[0].inputs[1].default_value = lay.aspect_shift
        b.link(seen[0], seen[1], h[0], "Value_002")
    if noise is not None and slope is not None and lay.slope_noise > 0.0:
        noisy = b.node("ShaderNodeMath", 1, y + 4, operation="MULTIPLY_ADD", label=f"{lay.name} noisy slope")
        b.link(noise[0], noise[1], noisy, "Value")
        noisy.inputs[1].default_value = -lay.slope_noise
        b.link(slope[0], slope[1], noisy, "Value_002")
        slope = (noisy, "Value")
    rising = b.map_range(h, lay.minimum, lay.optimal, 1, y, f"{lay.name} rising")
    falling = b.map_range(h, lay.maximum, lay.optimal, 1, y + 1, f"{lay.name} falling")
    presence = b.math("MINIMUM", rising, falling, 2, y, f"{lay.name} presence")
    below = b.math("MAXIMUM", b.math("SUBTRACT", lay.minimum, h, 2, y + 1), 0.0, 3, y + 1)
    above = b.math("MAXIMUM", b.math("SUBTRACT", h, lay.maximum, 2, y + 2), 0.0, 3, y + 2)
    distance = b.math("ADD", below, above, 4, y + 1, f"{lay.name} distance")
    if lay.in_metres:
        distance = b.math("DIVIDE", distance, METRE_DISTANCE, 4, y + 2, f"{lay.name} distance / {METRE_DISTANCE:g} m")
    if slope is not None and lay.has_slope_range:
        presence, distance = _slope_terms(b, slope, lay, y, presence, distance)
    if lay.mask == "noise":
        assert field is not None
        presence, distance = _mask_terms(b, lay, y, presence, distance, field)
    elif lay.mask_map is not None:
        value = b.node(
            "ShaderNodeAttribute",
            0,
            y + 3,
            attribute_type="GEOMETRY",
            attribute_name=lay.mask_map,
            label=f"{lay.name} mask ({lay.mask_map})",
        )
        presence, distance = _mask_terms(b, lay, y, presence, distance, (value, "Fac"))
    return presence, distance


def _mask_terms(b: TreeBuilder, lay: Layer, y: int, presence, distance, value: tuple) -> tuple:
    """A masked layer: presence times 1 inside ``[mask_min, mask_max]`` of its erosion map's attribute (or its
    noise field), 0 outside, distance plus ``MASK_DISTANCE`` outside (as :func:`core.colormap.layer_weights`). A
    mesh without the attribute reads 0 (Cycles and EEVEE), which ``mask_min > 0`` keeps outside: the layer is
    absent, as in core."""
    below = b.math("LESS_THAN", value, lay.mask_min, 1, y + 5)
    above = b.math("GREATER_THAN", value, lay.mask_max, 1, y + 6)
    outside = b.math("MAXIMUM", below, above, 2, y + 5)
    inside = b.math("SUBTRACT", 1.0, outside, 3, y + 5)
    factor = inside
    presence = b.math("MULTIPLY", presence, factor, 5, y + 5, f"{lay.name} presence x mask")
    away = b.math("MULTIPLY", b.math("SUBTRACT", 1.0, factor, 5, y + 6), MASK_DISTANCE, 6, y + 6)
    return presence, b.math("ADD", distance, away, 7, y + 6, f"{lay.name} distance")


def _slope_terms(b: TreeBuilder, slope: tuple, lay: Layer, y: int, presence, distance) -> tuple:
    """A layer's slope window times its presence, and its slope distance added to its distance."""
    soft = lay.slope_softness
    low = b.map_range(slope, lay.slope_min - soft, lay.slope_min, 1, y + 2, f"{lay.name} slope in")
    high = b.map_range(slope, lay.slope_max + soft, lay.slope_max, 1, y + 3, f"{lay.name} slope out")
    factor = b.math("MINIMUM", low, high, 2, y + 3, f"{lay.name} slope factor")
    presence = b.math("MULTIPLY", presence, factor, 3, y, f"{lay.name} presence x slope")
    s_below = b.math("MAXIMUM", b.math("SUBTRACT", lay.slope_min, slope, 2, y + 4), 0.0, 3, y + 3)
    s_above = b.math("MAXIMUM", b.math("SUBTRACT", slope, lay.slope_max, 2, y + 5), 0.0, 3, y + 4)
    s_dist = b.math("DIVIDE", b.math("ADD", s_below, s_above, 4, y + 3), 90.0, 4, y + 4)
    return presence, b.math("ADD", distance, s_dist, 4, y + 2, f"{lay.name} distance")


def _weights(b: TreeBuilder, layers: tuple[Layer, ...], presences: list, distances: list) -> list:
    """Each layer's weight: presence plus the no-hole fallback decaying with its distance beyond the nearest."""
    nearest = distances[0]
    for i, d in enumerate(distances[1:], start=1):
        nearest = b.math("MINIMUM", nearest, d, 5, i * 4 + 1, "nearest distance")
    weights = []
    for i, (lay, p, d) in enumerate(zip(layers, presences, distances, strict=True)):
        y = i * 4
        scaled = b.math("MULTIPLY", b.math("SUBTRACT", d, nearest, 6, y + 1), -1.0 / FALLBACK_SCALE, 7, y + 1)
        fallback = b.math("EXPONENT", scaled, 0.0, 8, y + 1, f"{lay.name} fallback")
        weight = b.node("ShaderNodeMath", 9, y, operation="MULTIPLY_ADD", label=f"{lay.name} weight")
        b.tree.links.new(fallback.outputs[0], weight.inputs[0])
        weight.inputs[1].default_value = FALLBACK_WEIGHT
        b.tree.links.new(p.outputs[0], weight.inputs[2])
        weights.append(weight)
    return weights


def _blend(b: TreeBuilder, layers: tuple[Layer, ...], weights: list) -> tuple:
    """The weighted mix of the layers' colours or textures: ``(node, output socket name)``."""
    color, color_out = None, ""
    total = weights[0]
    for i, (lay, w) in enumerate(zip(layers, weights, strict=True)):
        y = i * 4
        source = _layer_texture(b, lay, 10, y + 2)
        if color is None:
            if source is None:
                color = b.node("ShaderNodeRGB", 10, 0, label=lay.name)
                color.outputs[0].default_value = (*lay.color, 1.0)
                color_out = "Color"
            else:
                color, color_out = source
            continue
        total = b.math("ADD", total, w, 11, y, "weight sum")
        factor = b.math("DIVIDE", w, total, 12, y, f"{lay.name} share")
        mix = b.node(
            "ShaderNodeMix", 13, y, data_type="RGBA", blend_type="MIX", clamp_factor=True, label=f"blend {lay.name}"
        )
        b.link(factor, "Value", mix, "Factor_Float")
        b.link(color, color_out, mix, "A_Color")
        if source is None:
            b.socket(mix.inputs, "B_Color").default_value = (*lay.color, 1.0)
        else:
            b.link(source[0], source[1], mix, "B_Color")
        color, color_out = mix, "Result_Color"
    return color, color_out


def _output(
    b: TreeBuilder,
    color,
    color_out: str,
    use_lightmap: bool,
    shading: str,
    cavity: float = 0.0,
    ground: tuple[float, float, float] = NO_GROUND,
) -> None:
    """The colour map into a Principled BSDF (Lit), or colour x lightmap into an Emission shader (Unlit).

    Lit never multiplies the baked lightmap in: its slope or hillshade, shadows and ambient occlusion would
    be shaded a second time by the renderer (dark blotches) and would not follow a sun that moves.
    """
    x_out = 14
    if use_lightmap and shading == "UNLIT":
        lightmap = b.node("ShaderNodeVertexColor", x_out, 2, layer_name=LIGHTMAP_ATTRIBUTE, label="Lightmap")
        lit = b.node("ShaderNodeMix", x_out + 1, 0, data_type="RGBA", blend_type="MULTIPLY", label="x lightmap")
        b.socket(lit.inputs, "Factor_Float").default_value = 1.0
        b.link(color, color_out, lit, "A_Color")
        b.link(lightmap, "Color", lit, "B_Color")
        color, color_out = lit, "Result_Color"
        x_out += 2
    normal = None  # the ground stage first: the cavity term darkens past its albedo floor, as light would
    if shading == "LIT" and (ground[0] > 0.0 or ground[2] > 0.0):
        color, color_out, normal = ground_stage(b, color, color_out, ground, x_out)
        x_out += 12
    if shading == "LIT" and cavity > 0.0:  # the optional cavity term: colour x mix(1, AO, cavity)
        ao = b.node(
            "ShaderNodeAttribute",
            x_out,
            2,
            attribute_type="GEOMETRY",
            attribute_name=OCCLUSION_ATTRIBUTE,
            label="Occlusion",
        )
        dark = b.node("ShaderNodeMix", x_out + 1, 0, data_type="RGBA", blend_type="MULTIPLY", label="Cavity")
        b.socket(dark.inputs, "Factor_Float").default_value = cavity
        b.link(color, color_out, dark, "A_Color")
        b.link(ao, "Fac", dark, "B_Color")
        color, color_out = dark, "Result_Color"
        x_out += 2
    if shading == "LIT":
        shader = b.node("ShaderNodeBsdfPrincipled", x_out, 0)
        b.link(color, color_out, shader, "Base Color")
        b.socket(shader.inputs, "Roughness").default_value = 0.9
        if normal is not None:
            b.link(normal, "Normal", shader, "Normal")
        shader_out = "BSDF"
    else:
        shader = b.node("ShaderNodeEmission", x_out, 0)
        b.link(color, color_out, shader, "Color")
        b.socket(shader.inputs, "Strength").default_value = 1.0
        shader_out = "Emission"
        _unlit_export_output(b, x_out)
    for y, target in enumerate(("CYCLES", "EEVEE") if shading == "UNLIT" else ("ALL",)):
        output = b.node("ShaderNodeOutputMaterial", x_out + 1, y, target=target)
        b.link(shader, shader_out, output, "Surface")


def _unlit_export_output(b: TreeBuilder, x: float) -> None:
    """The Unlit material's output for exporters (active, target All): the baked ``Color`` attribute into an
    Emission behind Light Path ▸ Is Camera Ray, the pattern Blender's glTF exporter writes as an unlit material
    (``KHR_materials_unlit``) with that attribute as ``COLOR_0``.

    Cycles and EEVEE render their own outputs (an output for the engine wins over one for All), which take
    the colour the node tree computes per pixel; exporters, which read the active output, get the colour
    baked at the vertices (:func:`material.bake_unlit_color`).
    """
    baked = b.node("ShaderNodeVertexColor", x - 1, 4, layer_name=BAKED_COLOR_ATTRIBUTE, label="Baked colour")
    emission = b.node("ShaderNodeEmission", x, 4, label="Baked colour (exporters)")
    b.link(baked, "Color", emission, "Color")
    path = b.node("ShaderNodeLightPath", x, 5)
    mix = b.node("ShaderNodeMixShader", x + 1, 4, label="Unlit for exporters")
    b.tree.links.new(path.outputs["Is Camera Ray"], mix.inputs[0])
    b.tree.links.new(emission.outputs[0], mix.inputs[2])
    output = b.node("ShaderNodeOutputMaterial", x + 2, 4, target="ALL", label="Export (glTF)")
    b.link(mix, "Shader", output, "Surface")
    output.is_active_output = True
