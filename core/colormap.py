"""Height-blended colour maps.

The procedural texturing of the circle-hill terrain tutorial (after Polack,
*Focus on 3D Terrain Programming*, 2002): each layer has a minimum, an optimal
and a maximum height. Its *presence* is 100 % at the optimal height and falls
linearly to 0 % at the minimum and at the maximum. Each cell's colour is the
mix of the layers weighted by their presence.

Orogen adds one rule so that no height is left without a colour: every layer
also gets a tiny fallback weight ``FALLBACK_WEIGHT * exp(-(d - d_min) /
FALLBACK_SCALE)``, where ``d`` is the distance from the height to the layer's
``[minimum, maximum]`` range and ``d_min`` the smallest such distance among
the layers. Where some layer is present the fallback changes the weights by
less than ``FALLBACK_WEIGHT``; in a gap between layers it hands the colour
smoothly to the nearest layers. The weights are then normalised to sum to 1,
so they are continuous in the height and never leave a hole. The material
node tree built by the add-on computes exactly these formulas.

A layer can be masked by an erosion map (:data:`MASKS`: drainage area,
material deposited or removed, water depth, see
:meth:`core.recipe.Recipe.evaluate_with_maps`): its presence is multiplied by
1 where the map's value lies in ``[mask_min, mask_max]`` and 0 elsewhere, and
its fallback distance grows by :data:`MASK_DISTANCE` outside the range. A
terrain without that map has mask 0 everywhere: the layer is absent (a river
layer on an uneroded terrain paints nothing); ``mask_min`` is at least
:data:`MASK_MIN` > 0, so the material, where a missing attribute reads 0,
agrees.

**Heights in metres.** A layer's ``heights`` says whether its minimum,
optimal and maximum are normalised heights (the default: the heightmap, in units
of the terrain's Height) or metres (``height * terrain height``, the mesh's Z): a snow
line at 1800 m stays at 1800 m when the terrain's Height changes. A metres
layer's distance for the fallback is counted in units of
:data:`METRE_DISTANCE` metres (the fallback only matters in gaps between
layers; a fixed unit lets the material compute it without knowing the
terrain's Height).

**Noisy edges.** So that a layer's edges are not contour lines, each layer
can shift the height and slope it sees by a deterministic noise ``N`` of the
world position: the layer is evaluated at ``h - edge_noise * N`` and
``s - slope_noise * N`` (so its height and slope bounds move by up to about
``edge_noise`` and ``slope_noise``). ``N = 2 * (U - 0.5)`` where ``U`` is the
layer's *noise field* (:func:`noise_field`): a 4-octave fBm of Orogen's
gradient noise with feature size ``noise_size`` metres in world coordinates,
seeded by the terrain's seed and the layer's index, scaled so that ``U`` has
mean 0.5 and standard deviation :data:`NOISE_STD`, and clipped to ``[0, 1]``
(about 5 % of the cells): a layer's edges move by at most ``edge_noise``
and ``slope_noise``, so a snow layer whose minimum is ``edge_noise`` above a
snow line never shows below that line. The same field is the ``noise`` mask (``mask_min`` ≤ ``U`` ≤
``mask_max``): patches of a layer. The material computes ``U`` with Blender's
Noise Texture on the object's coordinates, scaled to the same mean and
standard deviation: the same statistics, not the same pattern (Blender's
noise hash is not Orogen's), so a noisy layer's edges in a render and in the
exported colour map are alike but not equal; layers without noise agree
exactly.

**Aspect.** Snow lies lower on slopes facing away from the sun. A layer with ``aspect_shift`` sees its height
raised by ``aspect_shift * n_north`` (the layer's height units), where ``n_north`` in ``[-1, 1]`` is the north
component of the ground's unit normal, ``sin(slope) cos(aspect)``: on a slope facing north the layer's bounds
come down by up to ``aspect_shift``, on one facing south they go up (the northern hemisphere; a negative shift
for the southern one). Core computes ``n_north`` from Horn's gradient of the heights in metres
(:func:`aspect_north`), the material from the mesh's own normal in object space (+Y is north): the same
quantity, within the difference of the two normals (on a window's border cells the gradient extrapolates).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from .elementary import exp
from .heightmap import as_heightmap, as_real_array, check_number
from .lighting.gradient import horn_gradient
from .noise.fractal import fractal_noise
from .rng import check_seed, sub_seed
from .window import Window

__all__ = [
    "LAYER_KINDS",
    "HEIGHT_UNITS",
    "METRE_DISTANCE",
    "NOISE_STD",
    "NOISE_DETAIL",
    "noise_field",
    "MASKS",
    "MASK_DISTANCE",
    "MASK_MIN",
    "mask_factor",
    "MAX_LAYERS",
    "splat_maps",
    "FALLBACK_WEIGHT",
    "FALLBACK_SCALE",
    "Layer",
    "DEFAULT_LAYERS",
    "check_layers",
    "layer_presence",
    "layer_weights",
    "aspect_north",
    "colormap",
]

#: Weight of the no-hole fallback relative to full presence (1).
FALLBACK_WEIGHT = 1e-6
#: Height distance (normalised units) over which the fallback decays by 1/e.
FALLBACK_SCALE = 0.05
#: Layer masks: the mask's name and the erosion map it reads (``None``: not masked).
MASKS: dict[str, str | None] = {
    "none": None,
    "drainage": "drainage_area",
    "deposited": "deposited",
    "removed": "removed",
    "water": "water_depth",
    "noise": None,
}
#: Smallest ``mask_min``: a mask range never holds 0, the value a mesh without the map reads in the material.
MASK_MIN = 1.0e-6
#: Fallback distance (normalised height units) added to a masked layer outside its mask range.
MASK_DISTANCE = 1.0
#: Units of a layer's ``heights``: normalised (shares of Height: the heightmap, 0 at Z = 0, 1 at Z = Height, which
#: version 3's filters may pass) or metres (Z, ``heightmap * height``).
HEIGHT_UNITS = ("normalised", "metres")
#: Metres per fallback distance unit of a metres layer (see the module docstring).
METRE_DISTANCE = 1000.0
#: Standard deviation of a layer's noise field ``U`` (mean 0.5): ``N = 2 (U - 0.5)`` has 0.5.
NOISE_STD = 0.25
#: Octaves beyond the first of the edge noise (core's fBm and the material's Noise Texture Detail).
NOISE_DETAIL = 3.0
#: Standard deviation of core's fBm (gradient noise, detail 3, roughness 0.5, lacunarity 2), measured on
#: four 1025² maps of 51 features across (0.1873); dividing by it gives the field unit variance.
CORE_FBM_STD = 0.1873
#: Standard deviation of the Fac of Blender's 2D Noise Texture (detail 3, roughness 0.5, lacunarity 2,
#: normalised), measured on a 1001² grid of 50 features across in Blender 4.2 and 5.0 (0.0985).
BLENDER_FAC_STD = 0.0985


@dataclass(frozen=True)
class Layer:
    """One colour layer of a height-blended colour map.

    ``color`` is linear RGB, each channel in ``[0, 1]`` (the values Blender's
    colour sockets hold). Heights are normalised heights, with
    ``minimum < optimal < maximum``; minimum and maximum may lie outside
    ``[0, 1]`` so that a layer fades in or out beyond the map's range.
    """

    name: str
    color: tuple[float, float, float]
    minimum: float
    optimal: float
    maximum: float
    #: Slope range in degrees where the layer appears (0 to 90: everywhere), e.g. rock above 35 degrees.
    slope_min: float = 0.0
    slope_max: float = 90.0
    #: Width in degrees over which the layer fades out beyond its slope range.
    slope_softness: float = 5.0
    #: How the material paints the layer: 'COLOR', 'IMAGE' (``image`` file), 'NOISE' or 'VORONOI'
    #: (Blender textures from ``color`` to ``color2`` at ``scale``). The colour map uses ``color``.
    kind: str = "COLOR"
    image: str = ""
    color2: tuple[float, float, float] = (0.0, 0.0, 0.0)
    scale: float = 5.0
    #: Erosion map the layer is limited to (a key of :data:`MASKS`) and the range of its values it covers
    #: (m² for drainage area, metres for the others).
    mask: str = "none"
    mask_min: float = 1.0e-6
    mask_max: float = 1.0e15
    #: Unit of minimum, optimal and maximum (and ``edge_noise``): a key of :data:`HEIGHT_UNITS`.
    heights: str = "normalised"
    #: Noise on the height the layer sees (its height units) and on the slope (degrees): noisy edges.
    edge_noise: float = 0.0
    slope_noise: float = 0.0
    #: Feature size of the layer's noise field in metres (edge noise and the ``noise`` mask).
    noise_size: float = 50.0
    #: Height (the layer's height units) the layer's bounds come down on a slope facing north: ``aspect_shift``
    #: times the north component of the ground's unit normal is added to the height it sees (see the module).
    aspect_shift: float = 0.0

    @property
    def mask_map(self) -> str | None:
        """Name of the erosion map the layer is masked by, or ``None``."""
        return MASKS.get(self.mask)

    @property
    def in_metres(self) -> bool:
        """True when the layer's heights are metres."""
        return self.heights == "metres"

    @property
    def uses_noise(self) -> bool:
        """True when the layer reads its noise field (edge noise or the ``noise`` mask)."""
        return self.edge_noise > 0.0 or self.slope_noise > 0.0 or self.mask == "noise"

    @property
    def uses_aspect(self) -> bool:
        """True when the layer's height follows the ground's aspect."""
        return self.aspect_shift != 0.0

    @property
    def has_slope_range(self) -> bool:
        """True when the slope range excludes some slopes."""
        return self.slope_min > 0.0 or self.slope_max < 90.0


#: Layer kinds (how the material paints a layer).
LAYER_KINDS = ("COLOR", "IMAGE", "NOISE", "VORONOI")
#: At most this many layers (two RGBA splat maps).
MAX_LAYERS = 8


#: Three layers: lowland grass, mid-slope rock, snow on the peaks.
DEFAULT_LAYERS: tuple[Layer, ...] = (
    Layer("low", (0.046, 0.12, 0.024), -1.0, 0.15, 0.5),
    Layer("mid", (0.16, 0.125, 0.09), 0.25, 0.55, 0.85),
    Layer("high", (0.8, 0.82, 0.85), 0.6, 0.95, 2.0),
)


def check_layers(layers: object) -> tuple[Layer, ...]:
    """Validate a sequence of :class:`Layer` and return it as a tuple.

    Raises
    ------
    TypeError
        If it is not a sequence of ``Layer``.
    ValueError
        If it holds no or more than ``MAX_LAYERS`` layers, a height is not
        finite or outside ``[-1e6, 1e6]``, ``minimum < optimal < maximum``
        does not hold, a colour channel is outside ``[0, 1]``, a slope range
        is outside ``[0, 90]`` or reversed, a kind, mask or height unit is
        unknown, or a noise amplitude or size is out of range.
    """
    if not isinstance(layers, (list, tuple)) or not all(isinstance(x, Layer) for x in layers):
        raise TypeError("layers must be a list or tuple of Layer")
    if not 1 <= len(layers) <= MAX_LAYERS:
        raise ValueError(f"layers must hold 1 to {MAX_LAYERS} Layer, got {len(layers)}")
    for i, layer in enumerate(layers):
        if not isinstance(layer.name, str):
            raise TypeError(f"layers[{i}].name must be a str, got {type(layer.name).__name__}")
        lo = check_number(layer.minimum, f"layers[{i}].minimum", low=-1e6, high=1e6)
        opt = check_number(layer.optimal, f"layers[{i}].optimal", low=-1e6, high=1e6)
        hi = check_number(layer.maximum, f"layers[{i}].maximum", low=-1e6, high=1e6)
        if not lo < opt < hi:
            raise ValueError(f"layers[{i}] ({layer.name!r}) needs minimum < optimal < maximum, got {lo}, {opt}, {hi}")
        if not isinstance(layer.color, (tuple, list)) or len(layer.color) != 3:
            raise TypeError(f"layers[{i}].color must be an (r, g, b) tuple, got {layer.color!r}")
        for c, v in zip("rgb", layer.color, strict=True):
            check_number(v, f"layers[{i}].color.{c}", low=0.0, high=1.0)
        s_lo = check_number(layer.slope_min, f"layers[{i}].slope_min", low=0.0, high=90.0)
        s_hi = check_number(layer.slope_max, f"layers[{i}].slope_max", low=0.0, high=90.0)
        if s_lo > s_hi:
            raise ValueError(f"layers[{i}] ({layer.name!r}) needs slope_min <= slope_max, got {s_lo}, {s_hi}")
        check_number(layer.slope_softness, f"layers[{i}].slope_softness", low=0.01, high=90.0)
        if not isinstance(layer.kind, str) or layer.kind not in LAYER_KINDS:
            raise ValueError(f"layers[{i}].kind must be one of {LAYER_KINDS}, got {layer.kind!r}")
        if not isinstance(layer.color2, (tuple, list)) or len(layer.color2) != 3:
            raise TypeError(f"layers[{i}].color2 must be an (r, g, b) tuple, got {layer.color2!r}")
        for c, v in zip("rgb", layer.color2, strict=True):
            check_number(v, f"layers[{i}].color2.{c}", low=0.0, high=1.0)
        check_number(layer.scale, f"layers[{i}].scale", low=1e-3, high=1e4)
        if not isinstance(layer.image, str):
            raise TypeError(f"layers[{i}].image must be a file path (str), got {type(layer.image).__name__}")
        if layer.kind == "IMAGE" and not layer.image:
            raise ValueError(f"layers[{i}] ({layer.name!r}) is an IMAGE layer without an image path")
        if not isinstance(layer.mask, str) or layer.mask not in MASKS:
            raise ValueError(f"layers[{i}].mask must be one of {tuple(MASKS)}, got {layer.mask!r:.40}")
        m_lo = check_number(layer.mask_min, f"layers[{i}].mask_min", low=MASK_MIN, high=1e15)
        m_hi = check_number(layer.mask_max, f"layers[{i}].mask_max", low=MASK_MIN, high=1e15)
        if m_lo > m_hi:
            raise ValueError(f"layers[{i}] ({layer.name!r}) needs mask_min <= mask_max, got {m_lo}, {m_hi}")
        if not isinstance(layer.heights, str) or layer.heights not in HEIGHT_UNITS:
            raise ValueError(f"layers[{i}].heights must be one of {HEIGHT_UNITS}, got {layer.heights!r:.40}")
        check_number(layer.edge_noise, f"layers[{i}].edge_noise", low=0.0, high=1e6)
        check_number(layer.slope_noise, f"layers[{i}].slope_noise", low=0.0, high=90.0)
        check_number(layer.noise_size, f"layers[{i}].noise_size", low=1e-3, high=1e6)
        check_number(layer.aspect_shift, f"layers[{i}].aspect_shift", low=-1e6, high=1e6)
    # The numbers as floats (a Fraction or numpy scalar must not turn the weights into object arrays).
    return tuple(
        replace(
            layer,
            minimum=float(layer.minimum),
            optimal=float(layer.optimal),
            maximum=float(layer.maximum),
            color=(float(layer.color[0]), float(layer.color[1]), float(layer.color[2])),
            color2=(float(layer.color2[0]), float(layer.color2[1]), float(layer.color2[2])),
            slope_min=float(layer.slope_min),
            slope_max=float(layer.slope_max),
            slope_softness=float(layer.slope_softness),
            scale=float(layer.scale),
            mask_min=float(layer.mask_min),
            mask_max=float(layer.mask_max),
            edge_noise=float(layer.edge_noise),
            slope_noise=float(layer.slope_noise),
            noise_size=float(layer.noise_size),
            aspect_shift=float(layer.aspect_shift),
        )
        for layer in layers
    )


def layer_presence(
    heights: npt.ArrayLike, layer: Layer, slopes: npt.ArrayLike | None = None
) -> npt.NDArray[np.float64]:
    """Presence of one layer: 1 at ``optimal``, linear to 0 at ``minimum`` and ``maximum``.

    The height term of the height-blended colour map (Orogen's own reading of
    the tutorial's layer ranges): before :func:`layer_weights` normalises the
    layers against each other.

    Parameters
    ----------
    heights : array_like, any shape
        Normalised heights (finite).
    layer : Layer
        A valid layer (see :func:`check_layers`).
    slopes : array_like, same shape as ``heights``, optional
        Slope in degrees (finite; clipped to ``[0, 90]``). With a slope range
        on the layer, the presence is multiplied by the slope factor: 1 inside
        ``[slope_min, slope_max]``, falling linearly to 0 over
        ``slope_softness`` degrees outside it. Without ``slopes`` the slope
        range is ignored.

    Returns
    -------
    ndarray of float64, the shape of ``heights``
        Presence in ``[0, 1]``.

    Raises
    ------
    TypeError
        If ``layer`` is not a valid :class:`Layer`, or ``heights`` or
        ``slopes`` are not real numbers (strings, complex, masked arrays).
    ValueError
        If ``heights`` or ``slopes`` holds NaN or infinity, the shapes differ,
        or the layer's values are out of range.
    """
    (layer,) = check_layers([layer])
    h = as_real_array(heights, "heights")
    s = None
    if slopes is not None:
        s = as_real_array(slopes, "slopes")
        if s.shape != h.shape:
            raise ValueError(f"slopes must have the shape of heights {h.shape}, got {s.shape}")
        s = np.clip(s, 0.0, 90.0)
    return _presence(h, layer, s)


def _presence(
    heights: npt.NDArray[np.float64], layer: Layer, slopes: npt.NDArray[np.float64] | None
) -> npt.NDArray[np.float64]:
    """:func:`layer_presence` on inputs already checked."""
    rising = np.clip((heights - layer.minimum) / (layer.optimal - layer.minimum), 0.0, 1.0)
    falling = np.clip((heights - layer.maximum) / (layer.optimal - layer.maximum), 0.0, 1.0)
    presence: npt.NDArray[np.float64] = np.minimum(rising, falling)
    if slopes is not None and layer.has_slope_range:
        presence = presence * _slope_factor(slopes, layer)
    return presence


def _slope_factor(slopes: npt.NDArray[np.float64], layer: Layer) -> npt.NDArray[np.float64]:
    soft = layer.slope_softness
    low = np.clip((slopes - (layer.slope_min - soft)) / soft, 0.0, 1.0)
    high = np.clip(((layer.slope_max + soft) - slopes) / soft, 0.0, 1.0)
    factor: npt.NDArray[np.float64] = np.minimum(low, high)
    return factor


def _slope_distance(slopes: npt.NDArray[np.float64], layer: Layer) -> npt.NDArray[np.float64]:
    """Distance of a slope from the layer's slope range, in degrees / 90 (so comparable with heights)."""
    d: npt.NDArray[np.float64] = (
        np.maximum(layer.slope_min - slopes, 0.0) + np.maximum(slopes - layer.slope_max, 0.0)
    ) / 90.0
    return d


def noise_field(
    shape: tuple[int, int],
    index: int,
    noise_size: float,
    *,
    cell_size: float,
    seed: int = 0,
    origin: tuple[int, int] = (0, 0),
) -> npt.NDArray[np.float64]:
    """Layer ``index``'s noise field ``U`` on a grid: mean 0.5, standard deviation about :data:`NOISE_STD`.

    ``clip(0.5 + NOISE_STD * F / CORE_FBM_STD, 0, 1)`` where ``F`` is the fBm of Orogen's
    gradient noise (:func:`core.noise.fractal.fractal_noise`, ``NOISE_DETAIL`` octaves
    beyond the first, roughness 0.5, lacunarity 2) with feature size
    ``noise_size`` in world coordinates (metres), seeded by
    ``sub_seed(seed, "layer_noise", index)``. A cell's value depends only on
    its world position, so a tile at ``origin`` equals the same cells of the
    whole map bit for bit, and a coarser grid samples the same field.

    Parameters
    ----------
    shape : (int, int)
        ``(rows, cols)`` of the grid.
    index : int
        The layer's index (each layer has its own field).
    noise_size : float
        Feature size in metres, ``[1e-3, 1e6]``.
    cell_size : float
        Metres between neighbouring cells, ``(0, 1e6]``.
    seed : int
        The terrain's seed, ``[0, 2**64 - 1]``.
    origin : (int, int)
        World ``(row, col)`` of the grid's first cell (a tile's offset), non-negative.

    Returns
    -------
    ndarray of float64, shape ``shape``
        Values in ``[0, 1]`` (about 5 % of them clipped to 0 or 1).

    Raises
    ------
    TypeError, ValueError
        For a bad argument, naming it.
    """
    rows, cols = shape
    r0, c0 = origin
    if min(r0, c0) < 0:
        raise ValueError(f"origin must be non-negative (row, col), got {origin}")
    size = check_number(noise_size, "noise_size", low=1e-3, high=1e6)
    world = (r0 + rows, c0 + cols)
    f = fractal_noise(
        world,
        sub_seed(check_seed(seed), "layer_noise", index),
        window=Window(r0, c0, rows, cols),
        cell_size=cell_size,
        feature_size=size,
        detail=NOISE_DETAIL,
    )
    f *= NOISE_STD / CORE_FBM_STD
    f += 0.5
    np.clip(f, 0.0, 1.0, out=f)
    return f


def mask_factor(
    layer: Layer,
    maps: Mapping[str, npt.ArrayLike] | None,
    shape: tuple[int, ...],
    *,
    noise: npt.ArrayLike | None = None,
) -> npt.NDArray[np.float64] | None:
    """A layer's mask: 1 where its map's value is in ``[mask_min, mask_max]``, else 0; ``None`` if unmasked.

    Values are compared in float32 (as the material's node tree compares its
    float attributes). Without the map in ``maps`` the mask is 0 everywhere.

    Parameters
    ----------
    layer : Layer
        A checked layer.
    maps : mapping of str to array_like, or None
        Erosion maps by name (:data:`core.recipe.MAP_NAMES`), each of ``shape``.
    shape : tuple of int
        The heightmap's shape.
    noise : array_like of ``shape``, optional
        The layer's noise field (:func:`noise_field`), for the ``noise`` mask.

    Raises
    ------
    ValueError
        If the map's shape is not ``shape`` or it holds NaN or infinity, or
        the layer has the ``noise`` mask and ``noise`` is missing.
    """
    if layer.mask == "noise":
        if noise is None:
            raise ValueError(f"layer {layer.name!r} has the noise mask: its noise field is required")
        v = np.asarray(noise, dtype=np.float32)
    else:
        name = layer.mask_map
        if name is None:
            return None
        if maps is None or maps.get(name) is None:
            return np.zeros(shape)
        v = np.asarray(as_real_array(maps[name], name), dtype=np.float32)
    if v.shape != shape:
        raise ValueError(f"the mask of layer {layer.name!r} must have the heightmap's shape {shape}, got {v.shape}")
    inside = (v >= np.float32(layer.mask_min)) & (v <= np.float32(layer.mask_max))
    return inside.astype(np.float64)


def _normalised_bounds(layer: Layer, height: float | None) -> tuple[float, float]:
    """A layer's minimum and maximum in normalised units (metres divided by the terrain's height)."""
    if not layer.in_metres:
        return layer.minimum, layer.maximum
    scale = max(height or 0.0, 1e-6)
    return layer.minimum / scale, layer.maximum / scale


def aspect_north(heights_m: npt.ArrayLike, cell_size: float) -> npt.NDArray[np.float64]:
    """The north component of the ground's unit normal, ``-dz/dy / sqrt(1 + |grad z|²)`` with Horn's gradient
    (:func:`core.lighting.gradient.horn_gradient`, ``y`` north): ``sin(slope) cos(aspect)``, in ``[-1, 1]``,
    positive on slopes facing north, 0 on flat ground.

    ``heights_m``: finite heights in metres, ``(rows, cols)``; ``cell_size`` metres ``[1e-9, 1e9]``. Returns
    float64 ``(rows, cols)``. Raises ``TypeError`` or ``ValueError`` for bad input, naming it.
    """
    dx, dy = horn_gradient(heights_m, cell_size)
    out: npt.NDArray[np.float64] = -dy / np.sqrt(1.0 + dx * dx + dy * dy)
    return out


def layer_weights(
    heightmap: npt.ArrayLike,
    layers: tuple[Layer, ...] = DEFAULT_LAYERS,
    slope: npt.ArrayLike | None = None,
    *,
    maps: Mapping[str, npt.ArrayLike] | None = None,
    height: float | None = None,
    cell_size: float | None = None,
    seed: int = 0,
    origin: tuple[int, int] = (0, 0),
) -> npt.NDArray[np.float32]:
    """Blend weights of the layers at every cell.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Normalised heights (finite; any value is accepted).
    layers : tuple of Layer
        1 to ``MAX_LAYERS`` layers (see :func:`check_layers`).
    slope : array_like, shape (rows, cols), optional
        Slope in degrees (:func:`core.lighting.derivatives.slope_degrees`); required when a
        layer has a slope range. The fallback distance then adds the slope's
        distance from each layer's slope range (in units of 90 degrees).
    maps : mapping of str to array_like (rows, cols), optional
        Erosion maps for masked layers (:func:`mask_factor`); a masked
        layer whose map is missing has weight 0 (up to the fallback).
    height : float, optional
        The terrain's height range in metres (metres = ``heightmap * height``
        in float32, the mesh's Z); required when a layer's heights are metres.
    cell_size : float, optional
        Metres per cell; required when a layer uses its noise field or its aspect.
    seed : int
        The terrain's seed (the noise fields').
    origin : (int, int)
        World ``(row, col)`` of the first cell (a tile's offset, for the noise fields).

    Returns
    -------
    ndarray of float32, shape (rows, cols, n_layers)
        Non-negative weights that sum to 1 at every cell (to float32 rounding).

    Raises
    ------
    TypeError, ValueError
        For bad input, or a missing ``slope``, ``height`` or ``cell_size`` that a layer needs (a layer with an
        ``aspect_shift`` needs both ``height`` and ``cell_size``: the ground's normal is of the heights in metres).
    """
    layers = check_layers(layers)
    h: npt.NDArray[np.float64] = as_heightmap(heightmap, dtype=np.float64)
    if any(lay.in_metres for lay in layers):
        if height is None:
            raise ValueError("height (metres) is required: a layer's heights are in metres")
        height = check_number(height, "height", low=0.0, high=1e6)
    if any(lay.uses_noise for lay in layers) and cell_size is None:
        raise ValueError("cell_size (metres) is required: a layer uses its noise field")
    north = None
    if any(lay.uses_aspect for lay in layers):
        if height is None or cell_size is None:
            raise ValueError("height and cell_size (metres) are required: a layer follows the aspect")
        north = aspect_north(h * check_number(height, "height", low=0.0, high=1e6), cell_size)
    # Beyond every layer's range the weights no longer change: clipping keeps the arithmetic finite.
    bounds = [_normalised_bounds(lay, height) for lay in layers]
    h = np.clip(h, min(b[0] for b in bounds) - 1.0, max(b[1] for b in bounds) + 1.0)
    s: npt.NDArray[np.float64] | None = None
    if slope is not None:
        s = np.clip(as_heightmap(slope, "slope", dtype=np.float64), 0.0, 90.0)
        if s.shape != h.shape:
            raise ValueError(f"slope must have the heightmap's shape {h.shape}, got {s.shape}")
    elif any(lay.has_slope_range for lay in layers):
        raise ValueError("slope (degrees) is required: a layer has a slope range")
    metres: npt.NDArray[np.float64] | None = None
    if height is not None and any(lay.in_metres for lay in layers):
        metres = (h.astype(np.float32) * np.float32(height)).astype(np.float64)  # the mesh's Z
    distances = []
    presences = []
    for i, lay in enumerate(layers):
        hl = metres if lay.in_metres and metres is not None else h
        sl = s
        noise = None
        if lay.uses_noise:
            assert cell_size is not None
            noise = noise_field(
                (h.shape[0], h.shape[1]), i, lay.noise_size, cell_size=cell_size, seed=seed, origin=origin
            )
            shift = 2.0 * (noise - 0.5)
            if lay.edge_noise > 0.0:
                hl = hl - lay.edge_noise * shift
            if sl is not None and lay.slope_noise > 0.0:
                sl = sl - lay.slope_noise * shift
        if north is not None and lay.uses_aspect:
            hl = hl + lay.aspect_shift * north
        d = np.maximum(lay.minimum - hl, 0.0) + np.maximum(hl - lay.maximum, 0.0)
        if lay.in_metres:
            d = d / METRE_DISTANCE
        if sl is not None and lay.has_slope_range:
            d = d + _slope_distance(sl, lay)
        p = _presence(hl, lay, sl)
        mask = mask_factor(lay, maps, h.shape, noise=noise)
        if mask is not None:
            d = d + (1.0 - mask) * MASK_DISTANCE
            p = p * mask
        distances.append(d)
        presences.append(p)
    distance = np.stack(distances, axis=-1)
    fallback = exp(-(distance - distance.min(axis=-1, keepdims=True)) / FALLBACK_SCALE)  # the same bits on any CPU
    raw = np.stack(presences, axis=-1) + FALLBACK_WEIGHT * fallback
    weights: npt.NDArray[np.float32] = (raw / _sum_layers(raw)[..., None]).astype(np.float32)
    return weights


def _sum_layers(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Sum over the last axis in layer order (a fixed order keeps results bit-identical)."""
    total = values[..., 0].copy()
    for i in range(1, values.shape[-1]):
        total += values[..., i]
    return total


def colormap(
    heightmap: npt.ArrayLike,
    layers: tuple[Layer, ...] = DEFAULT_LAYERS,
    slope: npt.ArrayLike | None = None,
    *,
    maps: Mapping[str, npt.ArrayLike] | None = None,
    height: float | None = None,
    cell_size: float | None = None,
    seed: int = 0,
    origin: tuple[int, int] = (0, 0),
) -> npt.NDArray[np.float32]:
    """Height-blended colour map.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Normalised heights.
    layers : tuple of Layer
        Colour layers (linear RGB; texture layers contribute their ``color``).
    slope : array_like, shape (rows, cols), optional
        Slope in degrees, for layers with a slope range.
    maps : mapping of str to array_like (rows, cols), optional
        Erosion maps, for masked layers (see :func:`layer_weights`).
    height, cell_size, seed, origin
        The terrain's height range and cell size in metres, its seed and the
        grid's world offset, for layers in metres and with noise (see
        :func:`layer_weights`).

    Returns
    -------
    ndarray of float32, shape (rows, cols, 3)
        Linear RGB in ``[0, 1]``: ``sum_i weight_i * color_i``.

    Raises
    ------
    TypeError, ValueError
        For a bad heightmap or layers.
    """
    weights = layer_weights(
        heightmap, layers, slope, maps=maps, height=height, cell_size=cell_size, seed=seed, origin=origin
    ).astype(np.float64)
    colors = np.array([lay.color for lay in check_layers(layers)], dtype=np.float64)
    rgb: npt.NDArray[np.float32] = np.clip(_sum_layers(weights[..., None, :] * colors.T), 0.0, 1.0).astype(np.float32)
    return rgb


def splat_maps(weights: npt.ArrayLike) -> list[npt.NDArray[np.uint8]]:
    """Pack layer weights into 8-bit RGBA splat maps, four layers per map, as game engines read them.

    Parameters
    ----------
    weights : array_like, shape (rows, cols, n_layers)
        Non-negative weights summing to 1 per cell (:func:`layer_weights`).

    Returns
    -------
    list of ndarray of uint8, shape (rows, cols, 4)
        ``ceil(n_layers / 4)`` maps; layer ``i`` is channel ``i % 4`` of map
        ``i // 4``; unused channels are 0. Each cell's channels over all maps
        sum to exactly 255 (largest-remainder rounding), so engines that
        assume normalised splats see no seams.
    """
    w = as_real_array(weights, "weights")
    if w.ndim != 3 or w.shape[-1] < 1 or (w < 0).any():
        raise ValueError("weights must be a finite, non-negative (rows, cols, n_layers) array")
    peak = w.max(axis=-1, keepdims=True)
    w = w / np.where(peak > 0, peak, 1.0)  # scale into [0, 1] first: huge weights cannot overflow the sum
    total = w.sum(axis=-1, keepdims=True)
    scaled = np.where(total > 0, w / np.where(total > 0, total, 1.0), 1.0 / w.shape[-1]) * 255.0
    base = np.floor(scaled)
    short = (255 - base.sum(axis=-1)).astype(np.int64)  # levels still to hand out, 0 .. n_layers
    order = np.argsort(-(scaled - base), axis=-1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(w.shape[-1])[None, None, :], axis=-1)
    levels = (base + (rank < short[..., None])).astype(np.uint8)
    maps = []
    for start in range(0, w.shape[-1], 4):
        rgba = np.zeros(w.shape[:2] + (4,), dtype=np.uint8)
        chunk = levels[..., start : start + 4]
        rgba[..., : chunk.shape[-1]] = chunk
        maps.append(rgba)
    return maps
