"""Sources: a stack of generators and stamps blended onto the base generator, before the filters.

A terrain's heightmap starts from its generator (normalised to ``[0, 1]``,
times Height metres). Each entry of a spec's ``sources`` list (JSON key
``sources``; ``layers`` are the colour layers) then adds one more shape, in
order, as Gaea's Combine node or Unreal's edit layers do:

- ``type``: a registered generator key (:data:`core.params.GENERATORS`) or a
  stamp key (:data:`STAMPS`: ``crater``, ``cone``, ``mesa``, ``ridge``,
  ``image``), with that part's declared parameters beside the entry's;
- the entry's own settings, declared once in :data:`SOURCE_PARAMS`:
  ``enabled``, ``blend`` (:data:`BLENDS`), ``opacity`` (0..1), ``height``
  (metres the source's normalised shape spans; a generator in metres, the
  ``file`` and ``object`` sources, keeps its own metres), and its placement
  ``offset_x``, ``offset_y`` (metres, terrain-local: X east, Y north, the
  grid centred on the origin as :func:`core.inputs.grid_xy` places it),
  ``scale`` (factor) and ``rotation`` (degrees counter-clockwise about +Z,
  seen from above).

**Blending is in metres**: base heights x Height, then each enabled source
``i`` in order: ``out = base x (1 - w) + blended x w`` with ``w = opacity x
coverage`` (coverage 1 where the source is defined: inside its placed grid
or its stamp's footprint, else 0) and ``blended`` by its mode
(:func:`blend`), then back to units of Height. Each source has its own seed,
:func:`source_seed` (``core.rng.sub_seed(seed, "source", i)``, ``i`` its
index in the list, disabled entries counted, so hiding one does not reseed
the others).

**Placement.** A terrain cell at local ``p`` (metres) reads the source at
``R(-rotation) (p - offset) / scale``. A *generator* source is evaluated on
its own grid (the terrain's shape and cell size, centred on the origin) and
sampled bilinearly; only the window of that grid covering the preimage of
the evaluated window, plus one cell for the interpolation, is computed, so
a window equals the same cells of the whole bit for bit. Its normalisation
needs the raw range of its whole grid (like the base generator's):
:func:`source_range`, which :meth:`core.recipe.Recipe.world_ranges` returns
as the third element of its ranges when the recipe has generator sources
(and which is computed, in bands of at most :data:`core.heightmap.MAX_CELLS`
cells, and cached, when ranges without it are given). With the identity
placement the sampling reads the grid's cells exactly. A *stamp* is
analytic in the stamp's frame (``u`` along its direction, ``v`` across,
metres): a smooth shape vectorised over the window.

**Masks.** An entry may hold a ``mask`` object, the filter masks'
declaration (:data:`core.masks.MASK_PARAMS`, JSON ``{"type": "crater", ...,
"mask": {"source": "slope", ...}}``, written only when not the default). It
is computed by :func:`core.masks.mask_weights` on the heights so far (the
base and the earlier sources, in units of Height) over the evaluated
window, and multiplies the source's weight (``w = opacity x coverage x
mask``), see :func:`source_mask`. Its noise is seeded as a filter mask's,
``core.rng.sub_seed(seed, "mask", noise_seed)``. A mask reads neighbours
(:func:`core.masks.mask_margin`), so a window's sources are blended over
the window grown by :func:`sources_margin` cells and cropped before the
filters (:meth:`core.recipe.Recipe.evaluate`): windows still equal the whole.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from .elementary import cos, sin
from .heightmap import MAX_CELLS, normalize
from .io.grey_images import read_grey_image
from .masks import MASK_PARAMS, check_mask, default_mask, is_masked, mask_margin, mask_weights
from .params import GENERATORS, Param, Part, When, check_values, short_list
from .rng import sub_seed
from .window import Window, check_window

__all__ = [
    "BLENDS",
    "MAX_SOURCES",
    "SOURCE_PARAMS",
    "STAMPS",
    "Stamp",
    "Source",
    "register_stamp",
    "source_part",
    "source_seed",
    "source_range",
    "source_mask",
    "sources_margin",
    "blend",
    "apply_sources",
    "check_sources",
    "cos_sin_degrees",
]

F64 = npt.NDArray[np.float64]

#: Most entries a sources stack holds.
MAX_SOURCES = 32

#: The blend modes (``out`` before opacity, base ``b`` and source ``s`` in metres, ``H`` the terrain's Height).
BLENDS: tuple[tuple[str, str, str], ...] = (
    ("add", "Add", "b + s: the source raises the terrain"),
    ("subtract", "Subtract", "b - s: the source digs into the terrain"),
    ("multiply", "Multiply", "b x s / Height: the product of the two in units of Height (a mask-like scaling)"),
    ("max", "Max", "max(b, s): the higher of the two"),
    ("min", "Min", "min(b, s): the lower of the two"),
    ("replace", "Replace", "s: the source replaces the terrain where it covers it"),
)

#: One source entry's own settings (items of a spec's ``sources`` list beside ``type`` and the part's parameters).
SOURCE_PARAMS: tuple[Param, ...] = (
    Param("enabled", "bool", True, label="Enabled", description="Apply this source (hidden sources are kept)"),
    Param(
        "blend",
        "enum",
        "add",
        label="Blend",
        description="How the source combines with the terrain below it",
        items=BLENDS,
    ),
    Param(
        "opacity",
        "float",
        1.0,
        hard=(0.0, 1.0),
        unit="factor",
        label="Opacity",
        description="Share of the blended result taken (0 = no change, 1 = the blend itself)",
    ),
    Param(
        "height",
        "float",
        10.0,
        hard=(-1.0e5, 1.0e5),
        soft=(0.0, 1000.0),
        unit="m",
        label="Height",
        description="Metres the source's normalised shape spans (a stamp's or generator's 1 is this high; a file "
        "or object source keeps its own metres and ignores it)",
    ),
    Param(
        "offset_x",
        "float",
        0.0,
        hard=(-1.0e7, 1.0e7),
        soft=(-1000.0, 1000.0),
        unit="m",
        label="Offset X",
        description="East of the terrain's centre where the source's centre is",
    ),
    Param(
        "offset_y",
        "float",
        0.0,
        hard=(-1.0e7, 1.0e7),
        soft=(-1000.0, 1000.0),
        unit="m",
        label="Offset Y",
        description="North of the terrain's centre where the source's centre is",
    ),
    Param(
        "scale",
        "float",
        1.0,
        hard=(1.0e-3, 1.0e3),
        soft=(0.05, 10.0),
        unit="factor",
        label="Scale",
        description="Horizontal size factor of the source about its centre",
    ),
    Param(
        "rotation",
        "float",
        0.0,
        hard=(-3600.0, 3600.0),
        soft=(-180.0, 180.0),
        unit="deg",
        label="Rotation",
        description="Turn of the source about its centre, counter-clockwise seen from above",
    ),
)
_ENTRY = {p.name: p for p in SOURCE_PARAMS}


@dataclass(frozen=True)
class Stamp(Part):
    """A stamp: ``function(u, v, **params)`` -> ``(shape, coverage)``, float64 arrays of ``u``'s shape.

    ``u`` and ``v`` are metres in the stamp's frame (``u`` along its
    direction, ``v`` to its left, the placement's scale and rotation undone);
    ``shape`` is normalised (``0..1``, the crater ``-1..rim``) and multiplied
    by the entry's ``height``; ``coverage`` (0 or 1) is where the stamp is
    defined, outside which it changes nothing whatever its blend.
    """


#: Stamps by key, in registration order.
STAMPS: dict[str, Stamp] = {}


def register_stamp(stamp: Stamp) -> Stamp:
    """Add ``stamp`` to :data:`STAMPS`; ``ValueError`` if its key is a generator's or taken, or a parameter is
    named like an entry setting (:data:`SOURCE_PARAMS`). Returns it."""
    if not stamp.key.isidentifier() or stamp.key in GENERATORS or stamp.key in STAMPS:
        raise ValueError(f"stamp key {stamp.key!r} is not an identifier or is already a generator's or a stamp's")
    clash = {p.name for p in stamp.params} & ({"type"} | set(_ENTRY))
    if clash:
        raise ValueError(f"{stamp.key}: parameters may not be named {sorted(clash)} (the entry's own settings)")
    STAMPS[stamp.key] = stamp
    return stamp


def source_part(key: object, where: str = "sources[0].") -> Part:
    """The declaration of source type ``key``: a stamp or a generator (``ValueError`` naming ``where``)."""
    if isinstance(key, str) and key in STAMPS:
        return STAMPS[key]
    if isinstance(key, str) and key in GENERATORS:
        return GENERATORS[key]
    kinds = short_list([*GENERATORS, *STAMPS], 20)
    raise ValueError(f"{where}type must be one of {kinds}, got {key!r:.40}")


def check_sources(sources: object, where: str = "sources") -> tuple[tuple[str, dict[str, Any]], ...]:
    """Validated ``(type, settings)`` pairs: ``settings`` are the entry's (:data:`SOURCE_PARAMS`) and its part's
    parameters, every default filled in.

    Parameters
    ----------
    sources : sequence of (str, mapping) pairs
        At most :data:`MAX_SOURCES`. A ``mask`` mapping beside the settings (:data:`core.masks.MASK_PARAMS`)
        is checked as ``sources[i].mask.NAME`` and kept, every default filled in, only when it acts
        (:func:`core.masks.is_masked`).
    where : str
        The path errors name (``sources[2].opacity``).

    Raises
    ------
    TypeError, ValueError
        Naming the entry and setting by path, with its range.
    """
    if not isinstance(sources, (tuple, list)):
        raise TypeError(f"{where} must be a list of sources, got {type(sources).__name__}")
    if len(sources) > MAX_SOURCES:
        raise ValueError(f"{where} holds at most {MAX_SOURCES} sources, got {len(sources)}")
    out = []
    for i, entry in enumerate(sources):
        at = f"{where}[{i}]."
        if not isinstance(entry, (tuple, list)) or len(entry) != 2 or not isinstance(entry[1], Mapping):
            raise TypeError(f"{where}[{i}] must be a (type, settings) pair, got {entry!r:.60}")
        key, values = entry
        part = source_part(key, at)
        own = {k: v for k, v in values.items() if k in _ENTRY}
        rest = {k: v for k, v in values.items() if k not in _ENTRY and k != "mask"}
        checked = check_values(SOURCE_PARAMS, own, at)
        checked.update(check_values(part.params, rest, at, ordered=part.ordered))
        if "mask" in values:  # kept only when it acts: an unmasked entry is the entry it was before masks
            mask = check_mask(values["mask"], f"{at}mask.")
            if is_masked(mask):
                checked["mask"] = mask
        out.append((cast(str, key), checked))
    return tuple(out)


def source_seed(seed: int, index: int) -> int:
    """The seed of source ``index`` of a terrain whose seed is ``seed`` (``core.rng.sub_seed(seed, "source",
    index)``: counter-based, so each source's noise is independent of the others and of the base)."""
    return sub_seed(seed, "source", index)


def source_mask(
    settings: Mapping[str, Any],
    heights: npt.ArrayLike,
    *,
    shape: tuple[int, int],
    window: Window,
    cell_size: float,
    height: float,
    seed: int,
    where: str = "sources[0].",
) -> npt.NDArray[np.float32] | None:
    """The mask a source's weight is multiplied by over ``window``, ``float32 window.shape`` in ``[0, 1]``, or
    ``None`` (the entry holds no mask that acts).

    :func:`core.masks.mask_weights` of the entry's ``mask`` on ``heights`` (the heights so far, base and earlier
    sources, ``window.shape`` in units of ``height`` metres) of world ``shape``; its noise seeded by
    ``core.rng.sub_seed(seed, "mask", noise_seed)`` (``seed`` the terrain's), as a filter mask's. Errors (a bad
    value, an unreadable image, a vertex group not given) name ``where + "mask."``.
    """
    mask = settings.get("mask")
    if not is_masked(mask):
        return None
    assert mask is not None
    return mask_weights(
        mask,
        heights,
        cell_size=cell_size,
        height=height,
        world_shape=shape,
        window=window,
        seed=sub_seed(seed, "mask", int(mask["noise_seed"])),
        where=f"{where}mask.",
    )


def sources_margin(sources: Sequence[tuple[str, Mapping[str, Any]]], cell_size: float) -> int:
    """Cells around a window the enabled sources' masks read, summed (:func:`core.masks.mask_margin` each: a
    mask reads the heights the earlier sources made, so the reaches add up); 0 without masks, and at least the
    world's longer side (:data:`core.masks.WHOLE_WORLD`) with a drainage mask."""
    return sum(mask_margin(s.get("mask"), cell_size) for _, s in sources if s["enabled"])


def cos_sin_degrees(degrees: float) -> tuple[float, float]:
    """``(cos, sin)`` of an angle in degrees, exact at multiples of 90 (so a quarter turn moves cells exactly);
    otherwise :func:`core.elementary.cos`/:func:`sin` of the radians."""
    turn = math.fmod(float(degrees), 360.0)
    turn += 360.0 if turn < 0 else 0.0
    exact = {0.0: (1.0, 0.0), 90.0: (0.0, 1.0), 180.0: (-1.0, 0.0), 270.0: (0.0, -1.0), 360.0: (1.0, 0.0)}
    if turn in exact:
        return exact[turn]
    radians = turn * (math.pi / 180.0)
    return float(cos(radians)), float(sin(radians))


def blend(
    base: npt.ArrayLike,
    layer: npt.ArrayLike,
    mode: str,
    *,
    weight: npt.ArrayLike = 1.0,
    height: float = 1.0,
) -> F64:
    """Blend ``layer`` onto ``base`` (metres) with ``mode`` and ``weight``, ``float64`` of the broadcast shape.

    ``out = base x (1 - weight) + blended x weight`` with ``blended`` per :data:`BLENDS` (``multiply`` is
    ``base x layer / height``); weight 0 gives ``base`` and weight 1 ``blended`` exactly.

    Raises
    ------
    ValueError
        For an unknown ``mode`` or a ``height`` that is not positive.
    """
    b = np.asarray(base, dtype=np.float64)
    s = np.asarray(layer, dtype=np.float64)
    w = np.asarray(weight, dtype=np.float64)
    if mode == "add":
        r = b + s
    elif mode == "subtract":
        r = b - s
    elif mode == "multiply":
        if not height > 0:
            raise ValueError(f"blend height must be positive for multiply, got {height!r}")
        r = b * s / height
    elif mode == "max":
        r = np.maximum(b, s)
    elif mode == "min":
        r = np.minimum(b, s)
    elif mode == "replace":
        r = np.broadcast_to(s, np.broadcast_shapes(b.shape, s.shape)).astype(np.float64)
    else:
        raise ValueError(f"blend must be one of {[k for k, _, _ in BLENDS]}, got {mode!r:.40}")
    return cast(F64, b * (1.0 - w) + r * w)


# --- placement -------------------------------------------------------------------------------------------------
def _frame(shape: tuple[int, int], window: Window, cell_size: float, settings: Mapping[str, Any]) -> tuple[F64, F64]:
    """``(u, v)`` in cells of the source's own frame for every cell of ``window``, ``float64 window.shape``.

    In cells so that the identity placement gives every cell's own offset from the centre exactly."""
    rows, cols = shape
    mr, mc = (rows - 1) / 2.0, (cols - 1) / 2.0
    dx = (np.arange(window.col, window.col + window.cols, dtype=np.float64) - mc) - settings["offset_x"] / cell_size
    dy = (mr - np.arange(window.row, window.row + window.rows, dtype=np.float64)) - settings["offset_y"] / cell_size
    c, s = cos_sin_degrees(settings["rotation"])
    scale = float(settings["scale"])
    u = (c * dx[None, :] + s * dy[:, None]) / scale
    v = (-s * dx[None, :] + c * dy[:, None]) / scale
    return u, v


@functools.lru_cache(maxsize=32)
def _range_cached(
    key: str, params_json: str, shape: tuple[int, int], seed: int, cell_size: float
) -> tuple[float, float]:
    generator = GENERATORS[key]
    params = json.loads(params_json)
    extra = {"cell_size": cell_size} if generator.uses_cell_size else {}
    band = max(1, MAX_CELLS // shape[1])
    low, high = math.inf, -math.inf
    for row in range(0, shape[0], band):
        win = Window(row, 0, min(band, shape[0] - row), shape[1])
        raw = np.asarray(generator.function(shape, seed, window=win, **extra, **params), dtype=np.float64)
        low, high = min(low, float(raw.min())), max(high, float(raw.max()))
    return low, high


def source_range(
    key: str, params: Mapping[str, Any], *, shape: tuple[int, int], seed: int, cell_size: float
) -> tuple[float, float]:
    """The raw range of generator source ``key`` over its whole grid (``shape`` cells of ``cell_size`` metres,
    seed ``seed``): what it is normalised by, so every window shares one scale. Evaluated in bands of at most
    :data:`core.heightmap.MAX_CELLS` cells and cached per arguments."""
    text = json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}, sort_keys=True)
    return _range_cached(key, text, tuple(shape), int(seed), float(cell_size))


def _bilinear(grid: F64, fr: F64, fc: F64) -> F64:
    """Bilinear samples of ``grid`` at fractional rows ``fr`` and columns ``fc`` (inside it)."""
    r0 = np.clip(np.floor(fr), 0, grid.shape[0] - 1).astype(np.intp)
    c0 = np.clip(np.floor(fc), 0, grid.shape[1] - 1).astype(np.intp)
    wr, wc = fr - r0, fc - c0
    r1 = np.minimum(r0 + 1, grid.shape[0] - 1)
    c1 = np.minimum(c0 + 1, grid.shape[1] - 1)
    top = grid[r0, c0] * (1.0 - wc) + grid[r0, c1] * wc
    bottom = grid[r1, c0] * (1.0 - wc) + grid[r1, c1] * wc
    return cast(F64, top * (1.0 - wr) + bottom * wr)


def _generator_shape(
    key: str,
    settings: Mapping[str, Any],
    *,
    shape: tuple[int, int],
    window: Window,
    cell_size: float,
    seed: int,
    value_range: tuple[float, float] | None,
    height: float = 1.0,
) -> tuple[F64, F64]:
    """A generator source's normalised shape and coverage over ``window`` (see the module docstring); for a
    generator in metres (:attr:`core.params.Generator.metres`: a file, a mesh; ``value_range`` ``None``) its
    metres, given the terrain's ``height``, not normalised."""
    generator = GENERATORS[key]
    params = {p.name: settings[p.name] for p in generator.params}
    rows, cols = shape
    u, v = _frame(shape, window, cell_size, settings)
    fc = u + (cols - 1) / 2.0
    fr = (rows - 1) / 2.0 - v
    inside = (fr >= 0) & (fr <= rows - 1) & (fc >= 0) & (fc <= cols - 1)
    out = np.zeros(window.shape, dtype=np.float64)
    if not inside.any():
        return out, inside.astype(np.float64)
    r_lo, r_hi = int(np.floor(fr[inside].min())), min(int(np.floor(fr[inside].max())) + 1, rows - 1)
    c_lo, c_hi = int(np.floor(fc[inside].min())), min(int(np.floor(fc[inside].max())) + 1, cols - 1)
    sub = check_window(shape, Window(r_lo, c_lo, r_hi - r_lo + 1, c_hi - c_lo + 1))
    extra: dict[str, Any] = {"cell_size": cell_size} if generator.uses_cell_size else {}
    if generator.metres:
        extra["height"] = height
    raw = np.asarray(generator.function(shape, seed, window=sub, **extra, **params), dtype=np.float64)
    grid = raw if value_range is None else normalize(raw, value_range).astype(np.float64)
    out[inside] = _bilinear(grid, fr[inside] - r_lo, fc[inside] - c_lo)
    return out, inside.astype(np.float64)


def apply_sources(
    heights: npt.NDArray[np.float32],
    sources: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    shape: tuple[int, int],
    window: Window,
    cell_size: float,
    height: float,
    seed: int,
    ranges: Sequence[tuple[float, float] | None],
) -> npt.NDArray[np.float32]:
    """The heights of ``window`` with every enabled source blended on, ``float32 window.shape`` in units of Height.

    Parameters
    ----------
    heights : ndarray of float32, shape window.shape
        The base generator's normalised heights of ``window`` of the world ``shape``.
    sources : sequence of (str, mapping)
        Checked entries (:func:`check_sources`), in order.
    cell_size, height : float
        Metres per cell and the terrain's Height in metres (> 0).
    seed : int
        The terrain's seed (each source's is :func:`source_seed`).
    ranges : sequence of (float, float) or None
        Per entry, a generator source's whole-grid raw range (:func:`source_range`); ``None`` for stamps.

    An entry with a ``mask`` (:func:`check_sources` keeps one only when it acts) has its weight multiplied by
    :func:`source_mask` on the heights so far; its cells are exact only at least :func:`sources_margin` cells
    inside ``window`` (or everywhere when ``window`` is the whole world), which is why a recipe grows its window.

    Raises
    ------
    TypeError, ValueError
        From a mask (an unreadable image, a vertex group not given, a blur too wide), naming
        ``sources[i].mask.NAME``.

    Returns
    -------
    ndarray of float32
        ``heights`` unchanged (the same array) when no source is enabled.
    """
    if not any(s["enabled"] for _, s in sources):
        return heights
    metres = heights.astype(np.float64) * height
    for i, (key, settings) in enumerate(sources):
        if not settings["enabled"]:
            continue
        if key in STAMPS:
            shape_, coverage = _stamp_shape(key, settings, shape=shape, window=window, cell_size=cell_size)
        else:
            value_range = ranges[i]
            in_metres = GENERATORS[key].metres
            assert in_metres or value_range is not None, f"sources[{i}] needs its range"
            shape_, coverage = _generator_shape(
                key,
                settings,
                shape=shape,
                window=window,
                cell_size=cell_size,
                seed=source_seed(seed, i),
                value_range=None if in_metres else value_range,
                height=height,
            )
        weight = coverage * settings["opacity"]
        if "mask" in settings:
            mask = source_mask(
                settings,
                (metres / height).astype(np.float32),
                shape=shape,
                window=window,
                cell_size=cell_size,
                height=height,
                seed=seed,
                where=f"sources[{i}].",
            )
            if mask is not None:
                weight = weight * mask.astype(np.float64)
        layer = shape_ if key not in STAMPS and GENERATORS[key].metres else shape_ * settings["height"]
        metres = blend(metres, layer, settings["blend"], weight=weight, height=height)
    return (metres / height).astype(np.float32)


# --- stamps ------------------------------------------------------------------------------------------------------
def _stamp_shape(
    key: str, settings: Mapping[str, Any], *, shape: tuple[int, int], window: Window, cell_size: float
) -> tuple[F64, F64]:
    stamp = STAMPS[key]
    u, v = _frame(shape, window, cell_size, settings)
    params = {p.name: settings[p.name] for p in stamp.params}
    out = stamp.function(u * cell_size, v * cell_size, **params)
    return cast(tuple[F64, F64], out)


def _bump(x: F64) -> F64:
    """``(1 - x²)²`` for ``|x| < 1``, else 0: a smooth (C¹) bump of height 1 and half-width 1."""
    t = 1.0 - np.minimum(x * x, 1.0)
    return cast(F64, t * t)


def _smoothstep(t: F64) -> F64:
    t = np.clip(t, 0.0, 1.0)
    return cast(F64, t * t * (3.0 - 2.0 * t))


#: Ejecta of a crater reach this many rim radii (the continuous ejecta blanket, about 2 to 3 radii).
EJECTA_REACH = 3.0


def crater(u: F64, v: F64, *, radius: float = 50.0, rim: float = 0.225) -> tuple[F64, F64]:
    """A fresh simple impact crater: a paraboloidal bowl with a raised rim and an ejecta apron.

    ``r = sqrt(u² + v²) / radius`` (``radius`` metres to the rim crest). Normalised so that the floor is -1, the
    surrounding plain 0 and the rim crest ``rim``: ``-1 + (1 + rim) r²`` inside, ``rim (r⁻³ - 3⁻³) / (1 - 3⁻³)``
    from the rim to :data:`EJECTA_REACH` radii (ejecta thickness falls off as ``r⁻³``), 0 beyond; coverage is
    ``r <= 3``. Source: Pike (1977), "Size-dependence in the shape of fresh impact craters on the Moon": depth
    (rim to floor) ≈ 0.196 D and rim height ≈ 0.036 D, so the floor lies 0.16 D below the plain and ``rim`` =
    0.036 / 0.16 = 0.225; with ``height`` = 0.32 x ``radius`` metres (0.16 D) the crater has those proportions.
    McGetchin, Settle & Head (1973) for the ``r⁻³`` ejecta. ``float64`` arrays of ``u``'s shape.
    """
    r = np.sqrt(u * u + v * v) / radius
    bowl = -1.0 + (1.0 + rim) * r * r
    far = 1.0 / EJECTA_REACH**3
    apron = rim * (1.0 / np.maximum(r, 1.0) ** 3 - far) / (1.0 - far)
    shape = np.where(r <= 1.0, bowl, np.where(r <= EJECTA_REACH, apron, 0.0))
    return shape, (r <= EJECTA_REACH).astype(np.float64)


def cone(u: F64, v: F64, *, radius: float = 50.0, crater: float = 0.4, crater_depth: float = 0.3) -> tuple[F64, F64]:
    """A volcanic (cinder) cone of basal radius ``radius`` metres with an optional summit crater.

    The flank falls straight from the rim (1) at ``crater x radius`` to the base (0) at ``radius``; inside the
    crater the floor dips to ``1 - crater_depth`` as a paraboloid; ``crater`` = 0 gives a plain cone with its
    apex at 1. Coverage is the base disc. Source: Wood (1980), "Morphometric evolution of cinder cones": fresh
    cones have crater width ≈ 0.4 x basal width and height ≈ 0.18 x basal width (``height`` ≈ 0.36 x
    ``radius`` metres). ``float64`` arrays of ``u``'s shape.
    """
    r = np.sqrt(u * u + v * v) / radius
    flank = np.clip((1.0 - r) / (1.0 - crater), 0.0, 1.0)
    if crater > 0:
        q = r / crater
        pit = 1.0 - crater_depth * (1.0 - q * q)
        flank = np.where(r < crater, pit, flank)
    return flank, (r <= 1.0).astype(np.float64)


def mesa(u: F64, v: F64, *, radius: float = 50.0, side: float = 0.5, cliff: float = 0.6) -> tuple[F64, F64]:
    """A mesa: a flat top of radius ``radius`` metres, a steep cliff, then a talus slope to the plain.

    ``t = (d - radius) / (side x radius)`` across the sides (``d`` the distance from the centre): 1 on the top;
    the cliff drops ``cliff`` of the height over the first fifth of the sides (a smoothstep), the talus the rest
    over the other four fifths, concave as scree aprons are (a smoothstep's lower half); 0 beyond. Coverage is
    ``t <= 1``. After the cap-rock and talus profile of mesas and buttes (Schumm & Chorley 1966, "Talus weathering
    and scarp recession in the Colorado Plateaus"). ``float64`` arrays of ``u``'s shape.
    """
    t = (np.sqrt(u * u + v * v) - radius) / (side * radius)
    a = 0.2
    top = 1.0 - cliff * _smoothstep(t / a)
    talus = (1.0 - cliff) * (1.0 - _smoothstep((t - a) / (1.0 - a)))
    shape = np.where(t <= 0.0, 1.0, np.where(t <= a, top, np.where(t <= 1.0, talus, 0.0)))
    return shape, (t <= 1.0).astype(np.float64)


def ridge(u: F64, v: F64, *, radius: float = 30.0, length: float = 200.0) -> tuple[F64, F64]:
    """An elongated ridge along the source's direction (``u``, east at rotation 0): crest ``length`` metres long,
    half-width ``radius`` metres.

    ``bump(v / radius) x bump(max(|u| - length / 2, 0) / radius)`` with ``bump(x) = (1 - x²)²`` (smooth, C¹):
    a rounded cross-section of height 1 along the crest, its ends rounded off over ``radius``. Symmetric in ``u``
    and ``v``. Coverage is where it is above 0. ``float64`` arrays of ``u``'s shape.
    """
    along = np.maximum(np.abs(u) - length / 2.0, 0.0) / radius
    shape = _bump(v / radius) * _bump(along)
    return shape, (shape > 0).astype(np.float64)


def read_stamp_image(path: str) -> npt.NDArray[np.float64]:
    """A greyscale image for the image stamp, ``float64 (rows, cols)`` normalised to ``[0, 1]`` by its own range
    (row 0 north; a constant image gives zeros), read by :func:`core.io.grey_images.read_grey_image` (``.npy``,
    ``.r16``/``.raw``, single-band TIFF; at most :data:`core.io.grey_images.IMAGE_MAX_SIDE` pixels a side, checked
    before decoding).

    Raises
    ------
    ValueError
        Naming ``image.image`` for an empty path, another format, a missing, irregular or unreadable file, or one
        over :data:`core.io.grey_images.IMAGE_MAX_SIDE` pixels a side.
    """
    return normalize(read_grey_image(path, "image.image")).astype(np.float64)


def image(u: F64, v: F64, *, image: str = "", radius: float = 50.0) -> tuple[F64, F64]:
    """A greyscale image (:func:`read_stamp_image`) placed as a stamp: its longer side spans ``2 x radius``
    metres, its aspect kept, row 0 to the north (``+v``) and column 0 to the west (``-u``); sampled bilinearly,
    coverage the image's rectangle. ``float64`` arrays of ``u``'s shape."""
    grid = read_stamp_image(image)
    rows, cols = grid.shape
    pixel = 2.0 * radius / max(rows - 1, cols - 1, 1)
    fc = u / pixel + (cols - 1) / 2.0
    fr = (rows - 1) / 2.0 - v / pixel
    inside = (fr >= 0) & (fr <= rows - 1) & (fc >= 0) & (fc <= cols - 1)
    out = np.zeros(u.shape, dtype=np.float64)
    out[inside] = _bilinear(grid, fr[inside], fc[inside])
    return out, inside.astype(np.float64)


def _radius(description: str, default: float = 50.0) -> Param:
    return Param(
        "radius",
        "float",
        default,
        hard=(1.0e-3, 1.0e6),
        soft=(0.1, 5000.0),
        unit="m",
        label="Radius",
        description=description,
    )


register_stamp(
    Stamp(
        "crater",
        "Crater",
        "A simple impact crater: a bowl with a raised rim and ejecta (floor -1, plain 0, rim crest Rim)",
        crater,
        (
            _radius("Distance from the centre to the rim crest", 50.0),
            Param(
                "rim",
                "float",
                0.225,
                hard=(0.0, 10.0),
                soft=(0.0, 1.0),
                unit="factor",
                label="Rim",
                description="Rim crest height as a share of the floor's depth below the plain (Pike 1977: 0.225)",
            ),
        ),
        source="Pike (1977); McGetchin, Settle & Head (1973)",
    )
)
register_stamp(
    Stamp(
        "cone",
        "Cone",
        "A volcanic cone with an optional summit crater",
        cone,
        (
            _radius("Radius of the cone's base", 50.0),
            Param(
                "crater",
                "float",
                0.4,
                hard=(0.0, 0.95),
                unit="factor",
                label="Crater",
                description="Summit crater radius as a share of the base radius (Wood 1980: 0.4); 0 = a plain cone",
            ),
            Param(
                "crater_depth",
                "float",
                0.3,
                hard=(0.0, 1.0),
                unit="factor",
                label="Crater Depth",
                description="Depth of the summit crater as a share of the cone's height",
                active_when=When("crater", above=0),
            ),
        ),
        source="Wood (1980)",
    )
)
register_stamp(
    Stamp(
        "mesa",
        "Mesa",
        "A flat-topped hill with a steep cliff and a talus slope",
        mesa,
        (
            _radius("Radius of the flat top", 50.0),
            Param(
                "side",
                "float",
                0.5,
                hard=(0.01, 10.0),
                soft=(0.05, 2.0),
                unit="factor",
                label="Side",
                description="Horizontal extent of the cliff and talus as a share of the radius",
            ),
            Param(
                "cliff",
                "float",
                0.6,
                hard=(0.0, 1.0),
                unit="factor",
                label="Cliff",
                description="Share of the height in the steep cliff (the rest is the talus slope)",
            ),
        ),
        source="Schumm & Chorley (1966)",
    )
)
register_stamp(
    Stamp(
        "ridge",
        "Ridge",
        "An elongated ridge along the source's direction (east at rotation 0)",
        ridge,
        (
            _radius("Half-width of the ridge across its crest", 30.0),
            Param(
                "length",
                "float",
                200.0,
                hard=(0.0, 1.0e7),
                soft=(0.0, 5000.0),
                unit="m",
                label="Length",
                description="Length of the level crest (the ends round off over the radius beyond it)",
            ),
        ),
    )
)
register_stamp(
    Stamp(
        "image",
        "Image",
        "A greyscale image file placed as a stamp (NPY, 16-bit RAW or TIFF), normalised by its own range",
        image,
        (
            Param(
                "image",
                "path",
                "",
                label="Image",
                description="Greyscale image: .npy, .r16/.raw (16-bit) or single-band .tif/.tiff",
            ),
            _radius("Half the image's longer side", 50.0),
        ),
    )
)


@dataclass(frozen=True)
class Source:
    """One entry of a spec's sources stack: its type (a generator or stamp key), the part's parameters, the
    entry's own settings (:data:`SOURCE_PARAMS`) and its mask (:data:`core.masks.MASK_PARAMS`, every value
    filled in; source ``"none"``: unmasked). Checked on construction (``ValueError`` naming the key)."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)
    mask: Mapping[str, Any] = field(default_factory=default_mask)

    def __post_init__(self) -> None:
        part = source_part(self.key, f"{self.key}.")
        object.__setattr__(self, "params", check_values(part.params, self.params, f"{self.key}.", ordered=part.ordered))
        object.__setattr__(self, "settings", check_values(SOURCE_PARAMS, self.settings, f"{self.key}."))
        object.__setattr__(self, "mask", check_mask(self.mask, f"{self.key}.mask."))

    @property
    def enabled(self) -> bool:
        """Whether the source is applied."""
        return bool(self.settings["enabled"])

    @property
    def masked(self) -> bool:
        """Whether the mask changes anything (a source other than ``"none"``)."""
        return is_masked(self.mask)

    def mask_entry(self) -> dict[str, Any]:
        """``{"mask": {...}}`` in the entry's JSON when the mask differs from the defaults, else ``{}``: a spec
        without source masks writes the JSON it wrote before they existed (as :meth:`core.spec.Step.mask_entry`)."""
        if dict(self.mask) == default_mask():
            return {}
        return {"mask": {p.name: p.to_plain(self.mask[p.name]) for p in MASK_PARAMS}}

    def values(self) -> dict[str, Any]:
        """The entry's settings and the part's parameters in one mapping (the recipe's and JSON's form), with
        ``mask`` (a mapping) when the mask is not the default."""
        return {**self.settings, **self.params, **self.mask_entry()}

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"type": key, <entry settings>, <part parameters>}`` and ``"mask"`` when not the
        default."""
        part = source_part(self.key)
        return {
            "type": self.key,
            **{p.name: p.to_plain(self.settings[p.name]) for p in SOURCE_PARAMS},
            **{p.name: p.to_plain(self.params[p.name]) for p in part.params},
            **self.mask_entry(),
        }

    @classmethod
    def from_values(cls, key: str, values: Mapping[str, Any], where: str = "sources[0].") -> Source:
        """A source from its flat settings (JSON form without ``type``; ``mask`` a mapping); errors name
        ``where`` (``sources[0].mask.low``)."""
        part = source_part(key, where)
        unknown = set(values) - set(_ENTRY) - {p.name for p in part.params} - {"mask"}
        if unknown:
            raise ValueError(f"{where.rstrip('.')}: unknown settings {short_list(sorted(unknown))} for type {key!r}")
        try:
            return cls(
                key,
                {k: v for k, v in values.items() if k not in _ENTRY and k != "mask"},
                {k: v for k, v in values.items() if k in _ENTRY},
                values.get("mask", {}),
            )
        except (TypeError, ValueError) as err:
            message = str(err)
            prefix = f"{key}."
            named = re.sub(rf"(?<![\w.\]]){re.escape(prefix)}", where, message)  # each path (low > high names two)
            raise type(err)(named if message.startswith(prefix) else f"{where} {message}") from None


def sources_from_data(data: object, where: str = "sources") -> tuple[Source, ...]:
    """Sources from JSON data: a list of objects each with a ``type``; missing settings take their defaults.

    Raises ``TypeError``/``ValueError`` naming the entry and key (``sources[1].opacity``).
    """
    if not isinstance(data, list):
        raise TypeError(f"{where} must be a JSON list of source objects, got {type(data).__name__}")
    if len(data) > MAX_SOURCES:
        raise ValueError(f"{where} holds at most {MAX_SOURCES} sources, got {len(data)}")
    out = []
    for i, d in enumerate(data):
        if not isinstance(d, Mapping) or "type" not in d:
            raise ValueError(f"{where}[{i}] must be an object with a 'type', got {d!r:.60}")
        out.append(Source.from_values(d["type"], {k: v for k, v in d.items() if k != "type"}, f"{where}[{i}]."))
    return tuple(out)
