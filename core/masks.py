"""Masks: where a filter or a source acts, as weights in 0..1 from the terrain or from outside.

A mask is declared once, :data:`MASK_PARAMS`, and is plain data (a mapping of those names, JSON's ``mask``
object inside a filter's or a source's entry, see :mod:`core.spec`). :func:`mask_weights` turns it into weights
``float32 (rows, cols)`` in ``[0, 1]`` for a heightmap, a pure function of the mask, the heights, the scale,
the window and the seed. It does not know about filters: a filter's stack blends with it
(:meth:`core.recipe.Recipe.evaluate`), a source multiplies its weight by it (:func:`core.sources.source_mask`).

Sources (``source``), each in its own unit:

- ``height``: metres, ``heights * height`` (Z of the mesh above the generator's lowest point);
- ``slope``: degrees, ``atan(|grad|)`` of Horn's gradient (:func:`core.lighting.derivatives.slope_degrees`,
  the slope map core bakes; Horn, "Hill shading and the reflectance map", 1981);
- ``curvature``: 1/metres, minus the Laplacian (:func:`core.lighting.derivatives.curvature`, Zevenbergen and
  Thorne 1987): positive on ridges and peaks, negative in valleys;
- ``aspect``: degrees clockwise from north of the downhill direction, ``atan2(-dz/dx, -dz/dy)`` of Horn's
  gradient (:func:`core.lighting.gradient.horn_gradient`, as ``gdaldem aspect``): 0 faces north, 90 east;
  flat cells have no aspect and weight 0. The range is an arc: ``low = -45, high = 45`` is north-facing;
  ``high - low >= 360`` is every direction;
- ``drainage``: m², the D8 drainage area of the heights (:func:`core.erosion.flow.route_flow` with
  depressions resolved, all edges open, and :func:`core.erosion.flow.drainage_area`): an independent
  routing of the current heights, whatever the filter itself routes; it reads the whole world;
- ``noise``: fBm of :func:`core.noise.fractal.fractal_noise` (Perlin basis, 5 octaves) at ``noise_size``
  metres, seeded, ``0.5 + 0.5 * fbm`` clipped to ``[0, 1]``; a cell's value depends on its world position
  and the seed alone;
- ``image``: a greyscale file core reads without Blender (GeoTIFF or TIFF through
  :func:`core.io.read_elevation`, ``.npy`` through :func:`core.io.read_npy`, RAW ``.r16``/``.raw`` through
  :func:`core.io.read_raw`), its values scaled to ``[0, 1]`` by its own lowest and highest value (a constant
  image is 1), stretched over the world corner on corner and sampled bilinearly;
- ``weights``: a vertex group painted on the terrain (:class:`core.inputs.WeightsInput` named by ``group``,
  given by whoever evaluates, :mod:`core.inputs`), 0..1, resampled bilinearly when its grid is not the
  evaluation's (the live preview at 257² of a 1025² terrain); or a group painted on the terrain's source
  object (a :class:`core.inputs.MeshInput` with ``values``, the ``object`` generator's mesh), rasterised from
  above onto the grid with the object source's z-buffer (:func:`core.generators.sources.rasterise_values`:
  the weight of the topmost surface at each vertex, 0 where no face lies above it).

Then, in this order: the range ``[low, high]`` in the source's unit is weight 1, outside it the weight falls
to 0 over ``feather`` (same unit) as ``1 - smoothstep`` of the distance (``feather = 0``: a hard edge, the
range inclusive); for the sources that are weights already (noise, image, vertex group: 0..1) that ramp
multiplies the value, so a group painted at 0.5 is a half-strength filter (the default range takes every
value); a Gaussian blur of ``blur`` metres standard deviation (:func:`core.filters.gaussian_blur`);
``invert`` takes ``1 - w``; ``strength`` multiplies. ``source = "none"`` is no mask (weight 1 everywhere:
the filter as without a mask); ``strength = 0`` is a filter that changes nothing.

Windows: :func:`mask_margin` is how many cells around a window the mask reads (1 for the derivatives, the
blur's reach, the whole world for drainage), which a stack adds to its filter's margin.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from .elementary import atan2
from .erosion.flow import drainage_area, route_flow
from .filters import MAX_SIGMA, gaussian_blur, gaussian_margin
from .generators.sources import rasterise_values
from .heightmap import check_world_shape
from .inputs import MeshInput, WeightsInput, get, grid_xy
from .io.grey_images import IMAGE_SUFFIXES, read_grey_image
from .lighting.derivatives import curvature, slope_degrees
from .lighting.gradient import horn_gradient
from .noise.fractal import fractal_noise
from .params import Param, When, check_conditions, check_values
from .window import Window, check_window

__all__ = [
    "MASK_SOURCES",
    "MASK_PARAMS",
    "MASK_ORDERED",
    "WHOLE_WORLD",
    "IMAGE_SUFFIXES",
    "default_mask",
    "check_mask",
    "is_masked",
    "mask_margin",
    "mask_weights",
    "strata_phase",
    "feather_ramp",
    "aspect_degrees",
    "sample_grid",
    "WEIGHTED_MAPS",
    "blend_masked",
    "ParamMap",
    "param_map",
]

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

#: The sources a mask reads, with their unit (what ``low``, ``high`` and ``feather`` are in).
MASK_SOURCES: dict[str, tuple[str, str, str]] = {
    "none": ("None", "No mask: the filter acts everywhere", ""),
    "height": ("Height", "Height above the generator's lowest point", "m"),
    "slope": ("Slope", "Slope angle (Horn's gradient)", "deg"),
    "curvature": ("Curvature", "Minus the Laplacian: positive on ridges, negative in valleys", "1/m"),
    "aspect": ("Aspect", "Direction the slope faces, clockwise from north", "deg"),
    "drainage": ("Drainage", "D8 drainage area of the heights (rivers: large areas)", "m2"),
    "noise": ("Noise", "Seeded fBm noise, 0..1", "factor"),
    "strata": (
        "Strata",
        "Place in the cycle of rock beds of a set thickness, tilted: 0 at a bed's base, 1 at its top",
        "factor",
    ),
    "image": ("Image", "A greyscale file (TIFF, NPY, R16/RAW), 0..1 by its own range", "factor"),
    "weights": ("Vertex Group", "A vertex group painted on the terrain or its source object, 0..1", "factor"),
}
_ACTIVE = When("source", *[s for s in MASK_SOURCES if s != "none"])
#: The sources whose values are weights in 0..1 themselves (the range's ramp multiplies them).
_FACTOR_SOURCES = ("noise", "image", "weights")
#: A margin meaning "the whole world" (as the erosion filters declare).
WHOLE_WORLD = 1 << 30
#: Largest |value| of a mask's range and feather (drainage areas of large worlds are ~1e12 m²).
_LIMIT = 1.0e15

#: A mask: the declaration every filter's ``mask`` object (and any other masked part) takes.
MASK_PARAMS: tuple[Param, ...] = (
    Param(
        "source",
        "enum",
        "none",
        label="Mask",
        description="What the weights come from (None: the filter acts everywhere)",
        items=tuple((key, label, text) for key, (label, text, _unit) in MASK_SOURCES.items()),
    ),
    Param(
        "low",
        "float",
        0.0,
        hard=(-_LIMIT, _LIMIT),
        soft=(-1000.0, 10000.0),
        label="Low",
        description="Lowest value of full weight, in the source's unit (m, degrees, 1/m, m² or 0..1)",
        active_when=_ACTIVE,
    ),
    Param(
        "high",
        "float",
        1.0e9,
        hard=(-_LIMIT, _LIMIT),
        soft=(-1000.0, 10000.0),
        label="High",
        description="Highest value of full weight, in the source's unit (aspect: the arc low..high)",
        active_when=_ACTIVE,
    ),
    Param(
        "feather",
        "float",
        0.0,
        hard=(0.0, _LIMIT),
        soft=(0.0, 1000.0),
        label="Feather",
        description="Width of the smooth ramp to 0 outside Low..High, in the source's unit (0: a hard edge)",
        active_when=_ACTIVE,
    ),
    Param(
        "blur",
        "float",
        0.0,
        hard=(0.0, 1.0e5),
        soft=(0.0, 100.0),
        unit="m",
        label="Blur",
        description="Gaussian blur of the weights (standard deviation): soft edges in metres",
        active_when=_ACTIVE,
    ),
    Param(
        "strength",
        "float",
        1.0,
        hard=(0.0, 1.0),
        unit="factor",
        label="Strength",
        description="Weights times this: 0 leaves the terrain as before the filter",
        active_when=_ACTIVE,
    ),
    Param(
        "invert",
        "bool",
        False,
        label="Invert",
        description="Act outside the range instead (1 - weight, before Strength)",
        active_when=_ACTIVE,
    ),
    Param(
        "noise_size",
        "float",
        50.0,
        hard=(1.0e-3, 1.0e6),
        soft=(1.0, 2000.0),
        unit="m",
        label="Noise Size",
        description="Feature size of the noise (its largest patches)",
        active_when=When("source", "noise"),
    ),
    Param(
        "noise_seed",
        "int",
        0,
        hard=(0, 2**31 - 1),
        label="Noise Seed",
        description="Seed of the noise, mixed with the terrain's seed",
        active_when=When("source", "noise"),
    ),
    Param(
        "strata_thickness",
        "float",
        40.0,
        hard=(1.0e-3, 1.0e6),
        soft=(1.0, 500.0),
        unit="m",
        label="Bed Thickness",
        description="Thickness of one bed of the strata (a hard and a soft layer): the cycle repeats every this",
        active_when=When("source", "strata"),
    ),
    Param(
        "strata_dip",
        "float",
        0.0,
        hard=(0.0, 89.0),
        soft=(0.0, 30.0),
        unit="deg",
        label="Dip",
        description="Angle the beds are tilted from horizontal",
        active_when=When("source", "strata"),
    ),
    Param(
        "strata_dip_direction",
        "float",
        90.0,
        hard=(-360.0, 360.0),
        soft=(0.0, 360.0),
        unit="deg",
        label="Dip Direction",
        description="Direction the beds dip towards, clockwise from north (90: down towards the east)",
        active_when=When("source", "strata"),
    ),
    Param(
        "image",
        "path",
        "",
        label="Image",
        description="Greyscale file: TIFF/GeoTIFF, NPY or R16/RAW, stretched over the terrain",
        active_when=When("source", "image"),
    ),
    Param(
        "group",
        "object",
        "",
        label="Vertex Group",
        description="Name of a vertex group of the terrain, else of its source object (paint with Weight Paint)",
        active_when=When("source", "weights"),
        object_kind="weights",
    ),
)
check_conditions(MASK_PARAMS, "mask.")
#: Ordered pairs of a mask (``low <= high``).
MASK_ORDERED = (("low", "high"),)


def default_mask() -> dict[str, Any]:
    """Every mask setting at its default (``source = "none"``: no mask)."""
    return {p.name: p.default for p in MASK_PARAMS}


def check_mask(values: object, where: str = "mask.") -> dict[str, Any]:
    """A mask's values checked against :data:`MASK_PARAMS` (missing ones take defaults).

    Raises
    ------
    TypeError, ValueError
        Naming the setting by ``where`` + name (``filters[0].mask.low``) and its range; ``low > high``.
    """
    return check_values(MASK_PARAMS, values, where, ordered=MASK_ORDERED)


def is_masked(mask: Mapping[str, Any] | None) -> bool:
    """Whether ``mask`` changes anything: a source other than ``"none"``."""
    return mask is not None and mask.get("source", "none") != "none"


def mask_margin(mask: Mapping[str, Any] | None, cell_size: float) -> int:
    """Cells around a window that :func:`mask_weights` reads: 0 for no mask, height, noise, image and weights;
    1 for slope, curvature and aspect (a 3 x 3 stencil); :data:`WHOLE_WORLD` for drainage; plus the blur's
    reach (:func:`core.filters.gaussian_margin` of ``blur / cell_size`` cells)."""
    if not is_masked(mask):
        return 0
    assert mask is not None
    source = mask["source"]
    if source == "drainage":
        return WHOLE_WORLD
    margin = 1 if source in ("slope", "curvature", "aspect") else 0
    blur = float(mask.get("blur", 0.0))
    if blur > 0.0:
        margin += gaussian_margin(min(blur / cell_size, MAX_SIGMA))
    return margin


def feather_ramp(distance: npt.ArrayLike, feather: float) -> F32:
    """``1 - smoothstep(distance / feather)``: 1 at distance 0, 0 at ``feather`` and beyond, ``float32``.

    ``distance`` >= 0 is how far a value lies outside the range (0 inside); ``feather = 0`` gives 1 at
    distance 0 and 0 elsewhere. smoothstep is ``3 t² - 2 t³`` (the Hermite ramp of GLSL's ``smoothstep``).
    """
    d = np.asarray(distance, dtype=np.float64)
    if feather <= 0.0:
        return (d <= 0.0).astype(np.float32)
    t = np.clip(d / feather, 0.0, 1.0)
    return (1.0 - t * t * (3.0 - 2.0 * t)).astype(np.float32)


def aspect_degrees(heights_m: npt.ArrayLike, cell_size: float) -> F64:
    """Aspect, degrees clockwise from north in ``[0, 360)`` of the downhill direction, NaN where flat.

    ``atan2(-dz/dx, -dz/dy)`` of :func:`core.lighting.gradient.horn_gradient` (X east, Y north; as ``gdaldem
    aspect``), by :func:`core.elementary.atan2`. ``float64 (rows, cols)``; ``heights_m`` in metres.
    """
    dx, dy = horn_gradient(heights_m, cell_size)
    angle = atan2(-dx, -dy) * (180.0 / math.pi)
    angle = np.where(angle < 0.0, angle + 360.0, angle)
    angle = np.where(angle >= 360.0, angle - 360.0, angle)
    out: F64 = np.where((dx == 0.0) & (dy == 0.0), np.nan, angle)
    return out


def sample_grid(values: npt.ArrayLike, world_shape: tuple[int, int], window: Window) -> F32:
    """Bilinear samples of ``values`` (a grid stretched over the world corner on corner) at ``window``'s cells.

    The arithmetic of :func:`core.resample.resample_points` per cell, from world coordinates alone, so a window
    gives the whole's cells bit for bit; a grid of the world's shape is copied. ``float32 window.shape``.
    """
    grid = np.asarray(values, dtype=np.float32)
    if grid.shape == tuple(world_shape):
        return np.ascontiguousarray(grid[window.row : window.row + window.rows, window.col : window.col + window.cols])
    old, new = grid.shape, world_shape

    def axis(start: int, count: int, n_old: int, n_new: int) -> tuple[Any, Any, Any]:
        scale = (n_old - 1) / (n_new - 1) if n_new > 1 else 0.0
        coord = np.arange(start, start + count, dtype=np.float64) * scale
        i = np.clip(np.floor(coord).astype(np.intp), 0, max(n_old - 2, 0))
        return i, np.minimum(i + 1, n_old - 1), coord - i

    i, i1, fy = axis(window.row, window.rows, old[0], new[0])
    j, j1, fx = axis(window.col, window.cols, old[1], new[1])
    g = grid.astype(np.float64)
    fy, fx = fy[:, None], fx[None, :]
    top = g[i[:, None], j[None, :]] * (1 - fx) + g[i[:, None], j1[None, :]] * fx
    bottom = g[i1[:, None], j[None, :]] * (1 - fx) + g[i1[:, None], j1[None, :]] * fx
    result: F32 = np.clip(top * (1 - fy) + bottom * fy, 0.0, 1.0).astype(np.float32)
    return result


def _read_image(path: str, what: str) -> F32:
    """The image file's values scaled to [0, 1] by their own range, a constant image all ones
    (:func:`core.io.grey_images.read_grey_image`: at most 16384 pixels a side, checked before decoding;
    ``ValueError`` naming ``what``)."""
    v = read_grey_image(path, what)
    low, high = float(v.min()), float(v.max())
    if high <= low:
        return np.ones(v.shape, np.float32)
    return ((v - low) / (high - low)).astype(np.float32)


def strata_phase(
    heights_m: npt.ArrayLike,
    *,
    cell_size: float,
    thickness: float,
    dip: float = 0.0,
    dip_direction: float = 90.0,
    world_shape: tuple[int, int] | None = None,
    window: Window | None = None,
) -> F64:
    """Where each cell's surface lies in a stack of tilted rock beds: ``0`` at a bed's base, towards ``1`` at its top.

    Beds of ``thickness`` metres repeat upwards; tilted by ``dip`` degrees down towards ``dip_direction``
    (clockwise from north), a bed's base lies at ``z = k * thickness - tan(dip) * d`` where ``d`` is the
    horizontal distance in metres along the dip direction from the world's centre (X east, Y north,
    :func:`core.inputs.grid_xy`, so a window's cells are the whole's). The phase is
    ``frac((z + tan(dip) * d) / thickness)``: a mask range of ``0.7..1`` marks the top 30 % of every bed
    (a caprock over soft shale), the differential erosion of layered rock (as in the stepped canyon walls of
    the Colorado Plateau). ``heights_m``: metres, ``(rows, cols)``; returns ``float64 (rows, cols)`` in ``[0, 1)``.
    """
    z = np.asarray(heights_m, dtype=np.float64)
    shape = (z.shape[0], z.shape[1]) if world_shape is None else world_shape
    x, y = grid_xy(shape, cell_size, window)
    azimuth = math.radians(dip_direction)
    east, north = round(math.sin(azimuth), 15), round(math.cos(azimuth), 15)  # exact at the compass points
    along = east * x[None, :] + north * y[:, None]
    level = (z + math.tan(math.radians(dip)) * along) / thickness
    phase: F64 = level - np.floor(level)
    return phase


def _source_values(
    m: Mapping[str, Any],
    h: F32,
    *,
    cell_size: float,
    height: float,
    world_shape: tuple[int, int],
    window: Window,
    seed: int,
    where: str,
) -> F64:
    """The source's value per cell, in its unit (NaN: no value, weight 0)."""
    source = m["source"]
    z = max(float(height), 1.0e-9)
    if source == "height":
        return h.astype(np.float64) * float(height)
    if source == "slope":
        return slope_degrees(h, cell_size, z).astype(np.float64)
    if source == "curvature":
        return curvature(h, cell_size, z).astype(np.float64)
    if source == "aspect":
        return aspect_degrees(h.astype(np.float64) * float(height), cell_size)
    if source == "drainage":
        if window.shape != tuple(world_shape):
            raise ValueError(f"{where}source: a drainage mask reads the whole world, got a window {window}")
        routing = route_flow(h.astype(np.float64) * float(height), cell_size)
        return drainage_area(routing)
    if source == "noise":
        n = fractal_noise(world_shape, seed, window=window, cell_size=cell_size, feature_size=m["noise_size"])
        return np.clip(0.5 + 0.5 * n, 0.0, 1.0)
    if source == "strata":
        return strata_phase(
            h.astype(np.float64) * float(height),
            cell_size=cell_size,
            world_shape=world_shape,
            window=window,
            thickness=m["strata_thickness"],
            dip=m["strata_dip"],
            dip_direction=m["strata_dip_direction"],
        )
    if source == "image":
        grid = _read_image(m["image"], f"{where}image")
        return sample_grid(grid, world_shape, window).astype(np.float64)
    found = get("weights", m["group"], f"{where}group")
    if isinstance(found, MeshInput):  # painted on the source object: its topmost surface's weights, from above
        x, y = grid_xy(world_shape, cell_size, window)
        return rasterise_values(found, x, y, cell_size=cell_size)
    return sample_grid(cast(WeightsInput, found).weights, world_shape, window).astype(np.float64)


def mask_weights(
    mask: Mapping[str, Any],
    heights: npt.ArrayLike,
    *,
    cell_size: float,
    height: float,
    world_shape: tuple[int, int] | None = None,
    window: Window | None = None,
    seed: int = 0,
    where: str = "mask.",
    params: tuple[Param, ...] = MASK_PARAMS,
) -> F32:
    """The weights of ``mask`` over ``heights``: ``float32 (rows, cols)`` in ``[0, 1]`` (see the module docstring).

    Parameters
    ----------
    mask : mapping
        Values of :data:`MASK_PARAMS` (checked; missing ones take defaults).
    heights : array_like, shape (rows, cols)
        Heights in units of ``height`` metres (a recipe's filtered heights), finite.
    cell_size : float
        Metres per cell, > 0.
    height : float
        Metres per unit of ``heights`` (>= 0).
    world_shape : (int, int), optional
        The world the heights are a window of (default: ``heights.shape``).
    window : Window, optional
        Where ``heights`` lies in the world (default: the whole).
    seed : int
        Seed of the noise source (a recipe gives ``sub_seed(seed, "mask", noise_seed)``).
    where : str
        Prefix of messages: the mask's path (``filters[1].mask.``).
    params : tuple of Param
        The declarations ``mask`` is checked against: :data:`MASK_PARAMS`, or a :class:`ParamMap`'s (which
        adds ``map_min`` and ``map_max``, ignored here).

    Returns
    -------
    ndarray of float32, shape (rows, cols)
        In ``[0, 1]``; all ones for ``source = "none"``.

    Raises
    ------
    TypeError, ValueError
        For a bad mask value (named by ``where``), an unreadable image, a vertex group not given
        (:func:`core.inputs.get`), a blur too wide for the cell size, or heights that are not finite.
    """
    m = check_values(params, mask, where, ordered=MASK_ORDERED)
    h = np.asarray(heights, dtype=np.float32)
    if h.ndim != 2 or min(h.shape) < 1:
        raise ValueError(f"{where.rstrip('.')}: heights must be (rows, cols), got shape {h.shape}")
    if not np.isfinite(h).all():
        raise ValueError(f"{where.rstrip('.')}: heights contain NaN or Inf")
    shape = check_world_shape(tuple(world_shape) if world_shape is not None else (h.shape[0], h.shape[1]))
    win = check_window(shape, window)
    if win.shape != h.shape:
        raise ValueError(f"{where.rstrip('.')}: heights {h.shape} are not the window's {win.shape}")
    if m["source"] == "none":
        return np.ones(h.shape, np.float32)
    v = _source_values(m, h, cell_size=cell_size, height=height, world_shape=shape, window=win, seed=seed, where=where)
    low, high = m["low"], m["high"]
    if m["source"] == "aspect":
        arc = high - low
        if arc >= 360.0:
            d = np.where(np.isnan(v), np.inf, 0.0)
        else:
            t = np.mod(v - low, 360.0)
            d = np.where(t <= arc, 0.0, np.minimum(t - arc, 360.0 - t))
            d = np.where(np.isnan(v), np.inf, d)
    else:
        d = np.maximum(np.maximum(low - v, v - high), 0.0)
    w = feather_ramp(d, m["feather"])
    if m["source"] in _FACTOR_SOURCES:  # a painted (or noise, image) weight is the weight itself, in its range
        w = (w * v.astype(np.float32)).astype(np.float32)
    if m["blur"] > 0.0:
        sigma = m["blur"] / cell_size
        if sigma > MAX_SIGMA:
            raise ValueError(
                f"{where}blur: {m['blur']:g} m is {sigma:.0f} cells at {cell_size:g} m per cell; at most "
                f"{MAX_SIGMA:g} cells ({MAX_SIGMA * cell_size:g} m)"
            )
        w = np.clip(gaussian_blur(w, sigma), 0.0, 1.0).astype(np.float32)
    if m["invert"]:
        w = (np.float32(1.0) - w).astype(np.float32)
    if m["strength"] != 1.0:
        w = (w * np.float32(m["strength"])).astype(np.float32)
    return np.ascontiguousarray(w, dtype=np.float32)


#: Erosion maps a masked filter's weights scale (the others are the filter's routing, kept as it made them).
WEIGHTED_MAPS = ("deposited", "removed", "water_depth", "ice_thickness")


def blend_masked(
    before: npt.ArrayLike,
    after: npt.ArrayLike,
    weights: npt.ArrayLike,
    *,
    maps: dict[str, F32] | None = None,
    own: Mapping[str, F32] | None = None,
) -> F32:
    """A masked filter's result: ``before + w * (after - before)``, as ``after * w + before * (1 - w)``.

    That form is exact at both ends: ``w = 0`` gives ``before`` and ``w = 1`` gives ``after`` bit for bit
    (so a masked filter changes nothing outside its mask). ``float32`` of the common shape.

    ``own`` are the erosion maps the filter made on its own (:data:`core.catalog.MAP_NAMES`); they go into
    ``maps`` (the stack's, in place) as the truthful maps of the blended terrain: the blended heights are the
    same linear interpolation between "not eroded" (no material moved, no water left) and the filter's
    result, so ``deposited``, ``removed`` and ``water_depth`` are ``w`` times the filter's (:data:`WEIGHTED_MAPS`;
    ``deposited`` and ``removed`` are added to the stack's, as unmasked filters do, ``water_depth`` replaces
    it); ``drainage_area`` and ``flow_direction`` describe the filter's own routing and replace the stack's
    unweighted (a drainage area is not a quantity that interpolates).
    """
    b = np.asarray(before, dtype=np.float32)
    a = np.asarray(after, dtype=np.float32)
    w = np.asarray(weights, dtype=np.float32)
    out: F32 = (a * w + b * (np.float32(1.0) - w)).astype(np.float32)
    if maps is not None and own:
        for name, values in own.items():
            v = np.asarray(values, dtype=np.float32)
            if name in WEIGHTED_MAPS:
                v = (v * w).astype(np.float32)
                previous = maps.get(name)
                if name not in ("water_depth", "ice_thickness") and previous is not None:
                    v = (previous + v).astype(np.float32)
            maps[name] = v
    return out


# --- parameter maps: a mask mapped to a per-cell value of a filter's parameter ------------------------------
@dataclass(frozen=True)
class ParamMap:
    """A filter parameter given per cell by a mask: the mask's weight ``w`` (0..1, :func:`mask_weights`) becomes
    ``map_min + (map_max - map_min) * w`` (rock hardness as an erodibility factor, a talus angle ...).

    ``name`` is the filter's keyword (the function takes ``NAME_map``, the per-cell values, ``float64 (rows,
    cols)``, or nothing when the map's source is ``"none"``); the JSON key of its object in the filter's entry
    is :attr:`key`, its settings are :attr:`params` (:data:`MASK_PARAMS` and ``map_min``, ``map_max``).
    """

    name: str
    label: str
    description: str
    low: Param
    high: Param

    @property
    def key(self) -> str:
        """The JSON key and property name of the map's object: ``NAME_map``."""
        return f"{self.name}_map"

    @property
    def params(self) -> tuple[Param, ...]:
        """The map's settings: a mask's and the two values its weights 0 and 1 become."""
        return (*MASK_PARAMS, self.low, self.high)

    def check(self, values: object, where: str) -> dict[str, Any]:
        """The map's values checked (defaults filled in), messages naming ``where`` + name."""
        return check_values(self.params, values, where, ordered=MASK_ORDERED)

    def default(self) -> dict[str, Any]:
        """Every setting of the map at its default (source ``"none"``: no map)."""
        return {p.name: p.default for p in self.params}

    def values(self, weights: npt.ArrayLike, values: Mapping[str, Any]) -> F64:
        """Per-cell values of the parameter: ``map_min + (map_max - map_min) * weights``, ``float64``."""
        w = np.asarray(weights, dtype=np.float64)
        low, high = float(values["map_min"]), float(values["map_max"])
        out: F64 = low + (high - low) * w
        return out


def param_map(
    name: str,
    label: str,
    description: str,
    *,
    unit: str,
    hard: tuple[float, float],
    default: tuple[float, float],
    soft: tuple[float, float] | None = None,
) -> ParamMap:
    """A :class:`ParamMap` whose ``map_min`` and ``map_max`` are in ``unit`` within ``hard``."""
    active = When("source", *[s for s in MASK_SOURCES if s != "none"])
    return ParamMap(
        name,
        label,
        description,
        Param(
            "map_min",
            "float",
            default[0],
            hard=hard,
            soft=soft,
            unit=unit,
            label=f"{label} at 0",
            description=f"The {label.lower()} where the map's weight is 0",
            active_when=active,
        ),
        Param(
            "map_max",
            "float",
            default[1],
            hard=hard,
            soft=soft,
            unit=unit,
            label=f"{label} at 1",
            description=f"The {label.lower()} where the map's weight is 1",
            active_when=active,
        ),
    )
