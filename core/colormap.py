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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from .heightmap import as_heightmap, as_real_array, check_number

__all__ = [
    "LAYER_KINDS",
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
    "colormap",
]

#: Weight of the no-hole fallback relative to full presence (1).
FALLBACK_WEIGHT = 1e-6
#: Height distance (normalised units) over which the fallback decays by 1/e.
FALLBACK_SCALE = 0.05
#: Layer masks: the mask's name and the erosion map it reads (``None``: not masked).
MASKS: dict[str, str | None] = {"none": None, "drainage": "drainage_area", "deposited": "deposited",
                                "removed": "removed", "water": "water_depth"}
#: Smallest ``mask_min``: a mask range never holds 0, the value a mesh without the map reads in the material.
MASK_MIN = 1.0e-6
#: Fallback distance (normalised height units) added to a masked layer outside its mask range.
MASK_DISTANCE = 1.0


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

    @property
    def mask_map(self) -> str | None:
        """Name of the erosion map the layer is masked by, or ``None``."""
        return MASKS.get(self.mask)

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
        is outside ``[0, 90]`` or reversed, or a kind is unknown.
    """
    if not isinstance(layers, (list, tuple)) or not all(isinstance(x, Layer) for x in layers):
        raise TypeError("layers must be a list or tuple of Layer")
    if not 1 <= len(layers) <= MAX_LAYERS:
        raise ValueError(f"layers must hold 1 to {MAX_LAYERS} Layer, got {len(layers)}")
    for i, layer in enumerate(layers):
        if not isinstance(layer.name, str):
            raise TypeError(f"layers[{i}].name must be a str, got {type(layer.name).__name__}")
        lo = check_number(layer.minimum, f"layers[{i}].minimum", -1e6, 1e6)
        opt = check_number(layer.optimal, f"layers[{i}].optimal", -1e6, 1e6)
        hi = check_number(layer.maximum, f"layers[{i}].maximum", -1e6, 1e6)
        if not lo < opt < hi:
            raise ValueError(
                f"layers[{i}] ({layer.name!r}) needs minimum < optimal < maximum, got {lo}, {opt}, {hi}"
            )
        if not isinstance(layer.color, (tuple, list)) or len(layer.color) != 3:
            raise TypeError(f"layers[{i}].color must be an (r, g, b) tuple, got {layer.color!r}")
        for c, v in zip("rgb", layer.color, strict=True):
            check_number(v, f"layers[{i}].color.{c}", 0.0, 1.0)
        s_lo = check_number(layer.slope_min, f"layers[{i}].slope_min", 0.0, 90.0)
        s_hi = check_number(layer.slope_max, f"layers[{i}].slope_max", 0.0, 90.0)
        if s_lo > s_hi:
            raise ValueError(f"layers[{i}] ({layer.name!r}) needs slope_min <= slope_max, got {s_lo}, {s_hi}")
        check_number(layer.slope_softness, f"layers[{i}].slope_softness", 0.01, 90.0)
        if not isinstance(layer.kind, str) or layer.kind not in LAYER_KINDS:
            raise ValueError(f"layers[{i}].kind must be one of {LAYER_KINDS}, got {layer.kind!r}")
        if not isinstance(layer.color2, (tuple, list)) or len(layer.color2) != 3:
            raise TypeError(f"layers[{i}].color2 must be an (r, g, b) tuple, got {layer.color2!r}")
        for c, v in zip("rgb", layer.color2, strict=True):
            check_number(v, f"layers[{i}].color2.{c}", 0.0, 1.0)
        check_number(layer.scale, f"layers[{i}].scale", 1e-3, 1e4)
        if not isinstance(layer.image, str):
            raise TypeError(f"layers[{i}].image must be a file path (str), got {type(layer.image).__name__}")
        if layer.kind == "IMAGE" and not layer.image:
            raise ValueError(f"layers[{i}] ({layer.name!r}) is an IMAGE layer without an image path")
        if not isinstance(layer.mask, str) or layer.mask not in MASKS:
            raise ValueError(f"layers[{i}].mask must be one of {tuple(MASKS)}, got {layer.mask!r:.40}")
        m_lo = check_number(layer.mask_min, f"layers[{i}].mask_min", MASK_MIN, 1e15)
        m_hi = check_number(layer.mask_max, f"layers[{i}].mask_max", MASK_MIN, 1e15)
        if m_lo > m_hi:
            raise ValueError(f"layers[{i}] ({layer.name!r}) needs mask_min <= mask_max, got {m_lo}, {m_hi}")
    # The numbers as floats (a Fraction or numpy scalar must not turn the weights into object arrays).
    return tuple(
        replace(layer, minimum=float(layer.minimum), optimal=float(layer.optimal), maximum=float(layer.maximum),
                color=(float(layer.color[0]), float(layer.color[1]), float(layer.color[2])),
                color2=(float(layer.color2[0]), float(layer.color2[1]), float(layer.color2[2])),
                slope_min=float(layer.slope_min), slope_max=float(layer.slope_max),
                slope_softness=float(layer.slope_softness), scale=float(layer.scale),
                mask_min=float(layer.mask_min), mask_max=float(layer.mask_max))
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
    d: npt.NDArray[np.float64] = (np.maximum(layer.slope_min - slopes, 0.0)
                                  + np.maximum(slopes - layer.slope_max, 0.0)) / 90.0
    return d


def mask_factor(layer: Layer, maps: Mapping[str, npt.ArrayLike] | None,
                shape: tuple[int, ...]) -> npt.NDArray[np.float64] | None:
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

    Raises
    ------
    ValueError
        If the map's shape is not ``shape`` or it holds NaN or infinity.
    """
    name = layer.mask_map
    if name is None:
        return None
    if maps is None or maps.get(name) is None:
        return np.zeros(shape)
    v = np.asarray(as_real_array(maps[name], name), dtype=np.float32)
    if v.shape != shape:
        raise ValueError(f"maps[{name!r}] must have the heightmap's shape {shape}, got {v.shape}")
    inside = (v >= np.float32(layer.mask_min)) & (v <= np.float32(layer.mask_max))
    return inside.astype(np.float64)


def layer_weights(
    heightmap: npt.ArrayLike,
    layers: tuple[Layer, ...] = DEFAULT_LAYERS,
    slope: npt.ArrayLike | None = None,
    maps: Mapping[str, npt.ArrayLike] | None = None,
) -> npt.NDArray[np.float32]:
    """Blend weights of the layers at every cell.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Normalised heights (finite; any value is accepted).
    layers : tuple of Layer
        1 to ``MAX_LAYERS`` layers (see :func:`check_layers`).
    slope : array_like, shape (rows, cols), optional
        Slope in degrees (:func:`.shading.slope_degrees`); required when a
        layer has a slope range. The fallback distance then adds the slope's
        distance from each layer's slope range (in units of 90 degrees).
    maps : mapping of str to array_like (rows, cols), optional
        Erosion maps for masked layers (:func:`mask_factor`); a masked
        layer whose map is missing has weight 0 (up to the fallback).

    Returns
    -------
    ndarray of float32, shape (rows, cols, n_layers)
        Non-negative weights that sum to 1 at every cell (to float32 rounding).
    """
    layers = check_layers(layers)
    h: npt.NDArray[np.float64] = as_heightmap(heightmap, dtype=np.float64)
    # Beyond every layer's range the weights no longer change: clipping keeps the arithmetic finite.
    h = np.clip(h, min(lay.minimum for lay in layers) - 1.0, max(lay.maximum for lay in layers) + 1.0)
    s: npt.NDArray[np.float64] | None = None
    if slope is not None:
        s = np.clip(as_heightmap(slope, "slope", dtype=np.float64), 0.0, 90.0)
        if s.shape != h.shape:
            raise ValueError(f"slope must have the heightmap's shape {h.shape}, got {s.shape}")
    elif any(lay.has_slope_range for lay in layers):
        raise ValueError("slope (degrees) is required: a layer has a slope range")
    distances = []
    presences = []
    for lay in layers:
        d = np.maximum(lay.minimum - h, 0.0) + np.maximum(h - lay.maximum, 0.0)
        if s is not None and lay.has_slope_range:
            d = d + _slope_distance(s, lay)
        p = _presence(h, lay, s)
        mask = mask_factor(lay, maps, h.shape)
        if mask is not None:
            d = d + (1.0 - mask) * MASK_DISTANCE
            p = p * mask
        distances.append(d)
        presences.append(p)
    distance = np.stack(distances, axis=-1)
    fallback = np.exp(-(distance - distance.min(axis=-1, keepdims=True)) / FALLBACK_SCALE)
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
    maps: Mapping[str, npt.ArrayLike] | None = None,
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

    Returns
    -------
    ndarray of float32, shape (rows, cols, 3)
        Linear RGB in ``[0, 1]``: ``sum_i weight_i * color_i``.

    Raises
    ------
    TypeError, ValueError
        For a bad heightmap or layers.
    """
    weights = layer_weights(heightmap, layers, slope, maps).astype(np.float64)
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
