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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .heightmap import as_heightmap, check_number

__all__ = [
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
        If it is empty, a height is not finite or outside ``[-1e6, 1e6]``,
        ``minimum < optimal < maximum`` does not hold, or a colour channel is
        outside ``[0, 1]``.
    """
    if not isinstance(layers, (list, tuple)) or not all(isinstance(x, Layer) for x in layers):
        raise TypeError("layers must be a list or tuple of Layer")
    if not layers:
        raise ValueError("layers must hold at least one Layer")
    for i, layer in enumerate(layers):
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
    return tuple(layers)


def layer_presence(heights: npt.NDArray[np.float64], layer: Layer) -> npt.NDArray[np.float64]:
    """Presence of one layer: 1 at ``optimal``, linear to 0 at ``minimum`` and ``maximum``.

    ``heights`` is any float64 array; returns the same shape in ``[0, 1]``.
    """
    rising = np.clip((heights - layer.minimum) / (layer.optimal - layer.minimum), 0.0, 1.0)
    falling = np.clip((heights - layer.maximum) / (layer.optimal - layer.maximum), 0.0, 1.0)
    return np.minimum(rising, falling)


def layer_weights(heightmap: npt.ArrayLike, layers: tuple[Layer, ...] = DEFAULT_LAYERS) -> npt.NDArray[np.float32]:
    """Blend weights of the layers at every cell.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Normalised heights (finite; any value is accepted).
    layers : tuple of Layer
        At least one layer (see :func:`check_layers`).

    Returns
    -------
    ndarray of float32, shape (rows, cols, n_layers)
        Non-negative weights that sum to 1 at every cell (to float32 rounding).
    """
    layers = check_layers(layers)
    h: npt.NDArray[np.float64] = as_heightmap(heightmap, dtype=np.float64)
    # Beyond every layer's range the weights no longer change: clipping keeps the arithmetic finite.
    h = np.clip(h, min(lay.minimum for lay in layers) - 1.0, max(lay.maximum for lay in layers) + 1.0)
    distance = np.stack(
        [np.maximum(lay.minimum - h, 0.0) + np.maximum(h - lay.maximum, 0.0) for lay in layers], axis=-1
    )
    fallback = np.exp(-(distance - distance.min(axis=-1, keepdims=True)) / FALLBACK_SCALE)
    raw = np.stack([layer_presence(h, lay) for lay in layers], axis=-1) + FALLBACK_WEIGHT * fallback
    weights: npt.NDArray[np.float32] = (raw / _sum_layers(raw)[..., None]).astype(np.float32)
    return weights


def _sum_layers(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Sum over the last axis in layer order (a fixed order keeps results bit-identical)."""
    total = values[..., 0].copy()
    for i in range(1, values.shape[-1]):
        total += values[..., i]
    return total


def colormap(heightmap: npt.ArrayLike, layers: tuple[Layer, ...] = DEFAULT_LAYERS) -> npt.NDArray[np.float32]:
    """Height-blended colour map.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Normalised heights.
    layers : tuple of Layer
        Colour layers (linear RGB).

    Returns
    -------
    ndarray of float32, shape (rows, cols, 3)
        Linear RGB in ``[0, 1]``: ``sum_i weight_i * color_i``.

    Raises
    ------
    TypeError, ValueError
        For a bad heightmap or layers.
    """
    weights = layer_weights(heightmap, layers).astype(np.float64)
    colors = np.array([lay.color for lay in check_layers(layers)], dtype=np.float64)
    rgb: npt.NDArray[np.float32] = np.clip(_sum_layers(weights[..., None, :] * colors.T), 0.0, 1.0).astype(np.float32)
    return rgb
