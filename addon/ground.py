"""The Lit terrain material's ground stage: the terrain's own maps tint the colour, detail below the grid varies it.

Between the height blend's colour map and the Principled BSDF (:func:`.nodes.build_tree`),
:func:`ground_stage` adds the nodes of the spec's ``material.map_tint``, ``detail`` and ``strata_spacing``:

* **tint**: channels (the ``drainage_area`` attribute, log-linear over :data:`CHANNEL_AREA`), wet hollows
  (``orogen_wetness``, the topographic wetness index over :data:`WET_INDEX`) and the shores of rivers and lakes
  (``river_width``, ``lake_depth``) darker by up to :data:`WET_DARKEN`; deposits (``deposited``, over
  :data:`DEPOSIT_DEPTH`) lighter by up to :data:`DEPOSIT_LIGHTEN`. A missing attribute reads 0 and tints
  nothing;
* **detail**: 3D noise on the object's coordinates in metres, so nothing stretches on a cliff as a projected
  texture would: colour patches of :data:`DETAIL_PATCHES` m, a bump at :data:`DETAIL_FINE` and
  :data:`DETAIL_COARSE` m, and on slopes steeper than :data:`STEEP` (read from the object-space normal) rock
  beds of the strata spacing and 2.7 times it, tilted and warped, in tone and bump;
* the base colour clamped to :data:`ALBEDO`.

Every node is a standard shader node, so Cycles and EEVEE render the same tree.
"""

from __future__ import annotations

import math
from typing import Any

#: The node-tree builder the stage adds to (:class:`.nodes.TreeBuilder`; not imported, which would be a cycle).
TreeBuilder = Any

#: ``(detail, strata_spacing, map_tint)`` with the ground stage off.
NO_GROUND = (0.0, 6.0, 0.0)
#: Base colours the ground stage keeps to (each channel): albedo of fresh snow about 0.9, of the darkest rock
#: and wet soil about 0.04.
ALBEDO = (0.04, 0.9)
#: Drainage area (m²) over which channels darken, log-linearly from the first to full at the second: about a
#: hectare, where channels begin on real hillslopes (Montgomery & Dietrich 1988), to a square kilometre.
CHANNEL_AREA = (1.0e4, 1.0e6)
#: Topographic wetness index ``ln(a / tan b)`` over which hollows darken (``orogen_wetness``; Beven & Kirkby 1979).
WET_INDEX = (8.0, 14.0)
#: Share by which fully wet ground is darker: moist soil reflects roughly two thirds of what dry soil does
#: (Lobell & Asner 2002, "Moisture effects on soil reflectance").
WET_DARKEN = 0.35
#: Deposit depth (m) over which deposits lighten, and by how much at most (fresh sediment, unweathered and dry).
DEPOSIT_DEPTH, DEPOSIT_LIGHTEN = (0.2, 3.0), 0.25
#: Slopes (degrees) over which rock beds appear, from none to full: cliffs only (on the 35-50 degree slopes of
#: a mountain range seen from afar, regular beds read as contour lines).
STEEP = (50.0, 65.0)
#: Metre scales of the ground's 3D noise: the fine and coarse bump and the colour patches.
DETAIL_FINE, DETAIL_COARSE, DETAIL_PATCHES = 2.5, 24.0, 180.0


def _noise3(b: TreeBuilder, coords, size: float, x: float, y: float, label: str, detail: float = 4.0):
    """A 3D Noise Texture of feature size ``size`` metres on object coordinates (its ``Fac``, mean about 0.5)."""
    tex = b.node("ShaderNodeTexNoise", x, y, noise_dimensions="3D", label=label)
    if hasattr(tex, "normalize"):
        tex.normalize = True
    b.link(coords, "Object", tex, "Vector")
    for name, value in (("Scale", 1.0 / size), ("Detail", detail), ("Roughness", 0.55), ("Distortion", 0.0)):
        b.socket(tex.inputs, name).default_value = value
    return tex


def _scale_color(b: TreeBuilder, color, color_out: str, factor, x: float, y: float, label: str) -> tuple:
    """``colour x factor`` (a Vector Math Scale; ``factor`` a node whose first output is the scalar)."""
    node = b.node("ShaderNodeVectorMath", x, y, operation="SCALE", label=label)
    b.tree.links.new(b.socket(color.outputs, color_out), node.inputs[0])
    b.tree.links.new(factor.outputs[0], b.socket(node.inputs, "Scale"))
    return node, "Vector"


def ground_stage(b: TreeBuilder, color, color_out: str, ground: tuple[float, float, float], x: float) -> tuple:
    """The Lit ground stage (module docstring): the colour tinted by the maps and varied by the detail, clamped
    to :data:`ALBEDO`, and the bump's normal (``None`` without detail). Returns ``(node, output, normal)``."""
    detail, strata, tint = (float(v) for v in ground)
    coords = b.node("ShaderNodeTexCoord", x, 6, label="Ground coordinates (metres)")
    normal_xyz = b.node("ShaderNodeSeparateXYZ", x + 1, 7, label="Object normal")
    b.link(coords, "Normal", normal_xyz, "Vector")
    # cos(slope) is the normal's Z: steep = 0 below STEEP[0], 1 above STEEP[1]
    cos_lo, cos_hi = (math.cos(math.radians(a)) for a in STEEP)
    steep = b.map_range((normal_xyz, "Z"), cos_lo, cos_hi, x + 2, 7, "Steep (rock beds)")
    col = x + 3
    if tint > 0.0:
        area = b.node(
            "ShaderNodeAttribute", x, 9, attribute_type="GEOMETRY", attribute_name="drainage_area", label="Drainage"
        )
        log_area = b.math("LOGARITHM", b.math("MAXIMUM", (area, "Fac"), 1.0, x + 1, 9), 10.0, x + 2, 9)
        channel = b.map_range((log_area, "Value"), *(math.log10(a) for a in CHANNEL_AREA), x + 3, 9, "Channel")
        wet_index = b.node(
            "ShaderNodeAttribute", x, 10, attribute_type="GEOMETRY", attribute_name="orogen_wetness", label="Wetness"
        )
        wet = b.map_range((wet_index, "Fac"), *WET_INDEX, x + 3, 10, "Wet hollow")
        wetness = b.math("MAXIMUM", channel, wet, x + 4, 9, "Channel or wet")
        for k, name in enumerate(("river_width", "lake_depth")):  # wet shores: the ground at a river or lake
            shore = b.node("ShaderNodeAttribute", x, 12 + k, attribute_type="GEOMETRY", attribute_name=name, label=name)
            at_water = b.map_range((shore, "Fac"), 0.0, 1.0e-3, x + 3, 12 + k, f"At {name.split('_')[0]}")
            wetness = b.math("MAXIMUM", wetness, at_water, x + 4, 10 + k, "Wet shore")
        darken = b.math("MULTIPLY_ADD", wetness, -WET_DARKEN * tint, x + 5, 9, "Wet darkening")
        b.socket(darken.inputs, "Value_002").default_value = 1.0
        color, color_out = _scale_color(b, color, color_out, darken, x + 6, 0, "Wet ground darker")
        deposit = b.node(
            "ShaderNodeAttribute", x, 11, attribute_type="GEOMETRY", attribute_name="deposited", label="Deposited"
        )
        fresh = b.map_range((deposit, "Fac"), *DEPOSIT_DEPTH, x + 3, 11, "Deposit")
        lighten = b.math("MULTIPLY_ADD", fresh, DEPOSIT_LIGHTEN * tint, x + 5, 11, "Deposit lightening")
        b.socket(lighten.inputs, "Value_002").default_value = 1.0
        color, color_out = _scale_color(b, color, color_out, lighten, x + 7, 0, "Deposits lighter")
        col = x + 8
    normal = None
    if detail > 0.0:
        patches = _noise3(b, coords, DETAIL_PATCHES, col, 13, "Colour patches", detail=3.0)
        vary = b.math("MULTIPLY_ADD", patches, 0.3 * detail, col + 1, 13, "Patch variation")
        b.socket(vary.inputs, "Value_002").default_value = 1.0 - 0.15 * detail
        color, color_out = _scale_color(b, color, color_out, vary, col + 2, 0, "Colour patches")
        tilt = b.node("ShaderNodeMapping", col, 15, vector_type="POINT", label="Tilted beds")
        b.link(coords, "Object", tilt, "Vector")
        b.socket(tilt.inputs, "Rotation").default_value = (math.radians(7.0), math.radians(4.0), 0.0)
        beds = []
        for k, (period, weight) in enumerate(((strata, 0.6), (2.7 * strata, 0.4))):
            wave = b.node(
                "ShaderNodeTexWave",
                col + 1,
                15 + k,
                wave_type="BANDS",
                bands_direction="Z",
                wave_profile="SIN",
                label=f"Rock beds {period:g} m",
            )
            b.link(tilt, "Vector", wave, "Vector")
            # Blender's Z bands are sin(20 z s): a period of 2 pi / (20 s) metres at Scale s
            for name, value in (("Scale", 2.0 * math.pi / (20.0 * period)), ("Distortion", 9.0), ("Detail", 3.0)):
                b.socket(wave.inputs, name).default_value = value
            beds.append(b.math("MULTIPLY", (wave, "Fac"), weight, col + 2, 15 + k))
        bands = b.math("ADD", beds[0], beds[1], col + 3, 15, "Both beds")
        centred = b.math("SUBTRACT", bands, 0.5, col + 4, 15)
        on_steep = b.math("MULTIPLY", centred, steep, col + 5, 15, "Beds on steep slopes")
        bed_tone = b.math("MULTIPLY_ADD", on_steep, 0.3 * detail, col + 6, 15, "Bed tone")
        b.socket(bed_tone.inputs, "Value_002").default_value = 1.0
        color, color_out = _scale_color(b, color, color_out, bed_tone, col + 7, 0, "Rock bed tone")
        fine = _noise3(b, coords, DETAIL_FINE, col, 18, "Fine bump")
        coarse = _noise3(b, coords, DETAIL_COARSE, col, 19, "Coarse bump")
        relief = b.math("MULTIPLY_ADD", fine, 0.35, col + 1, 18, "Bump height")
        b.tree.links.new(coarse.outputs[0], b.socket(relief.inputs, "Value_002"))
        with_beds = b.math("MULTIPLY_ADD", on_steep, 1.6, col + 2, 18, "Bump with beds")
        b.tree.links.new(relief.outputs[0], b.socket(with_beds.inputs, "Value_002"))
        relief = with_beds
        bump = b.node("ShaderNodeBump", col + 8, 4, label="Ground bump")
        b.socket(bump.inputs, "Strength").default_value = min(1.0, 0.5 * detail)
        b.socket(bump.inputs, "Distance").default_value = 1.0
        b.link(relief, "Value", bump, "Height")
        normal = bump
    low = b.node("ShaderNodeVectorMath", x + 11, 0, operation="MAXIMUM", label="Albedo at least")
    b.tree.links.new(b.socket(color.outputs, color_out), low.inputs[0])
    low.inputs[1].default_value = (ALBEDO[0],) * 3
    high = b.node("ShaderNodeVectorMath", x + 11.5, 0, operation="MINIMUM", label="Albedo at most")
    b.link(low, "Vector", high, "Vector")
    high.inputs[1].default_value = (ALBEDO[1],) * 3
    return high, "Vector", normal
