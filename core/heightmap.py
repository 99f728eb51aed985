"""Heightmap conventions and the operations every generator shares.

Conventions (written down once, used everywhere in Orogen):

* A heightmap is a ``float32`` array of shape ``(rows, cols)`` = ``(y, x)``.
* Row 0 is the **north** edge of the terrain (+Y in Blender); column 0 is the
  **west** edge (-X). An image written from the array has row 0 as its top row.
* Values are normalised to ``[0, 1]`` unless a function says otherwise.
* Horizontal distances inside ``core`` are in cells unless a parameter says
  metres (``cell_size``).
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt

from .elementary import power

__all__ = [
    "float_heightmap",
    "MAX_CELLS",
    "check_shape",
    "MAX_WORLD_SIDE",
    "check_world_shape",
    "check_number",
    "check_count",
    "as_heightmap",
    "normalize",
    "flatten",
    "surface_heights",
]

#: Largest heightmap accepted (cells): 8193 x 8193, about 256 MiB as float32.
MAX_CELLS = 8193 * 8193
#: Largest world side (cells): a world is only ever evaluated in windows of at most ``MAX_CELLS``
#: cells (tiles), so its own size is bounded only by exact coordinates (2**20 + 1: 1.1e12 cells).
MAX_WORLD_SIDE = 2**20 + 1
_F32_MAX = float(np.finfo(np.float32).max)


def check_number(
    value: object,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Validate a finite real number inside an interval and return it as ``float``.

    Raises
    ------
    TypeError
        If ``value`` is not a real number (``bool`` is refused).
    ValueError
        If it is NaN/Inf or outside the interval; the message names ``name``
        and the valid range.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    lo_br, hi_br = ("(" if low_open else "["), (")" if high_open else "]")
    rng = f"{lo_br}{'-inf' if low is None else low}, {'inf' if high is None else high}{hi_br}"
    try:
        v = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be in {rng}, got an integer too large for a float") from None
    if not np.isfinite(v):
        where = "" if low is None and high is None else f" and in {rng}"
        raise ValueError(f"{name} must be finite{where}, got {v}")
    if low is not None and (v < low or (low_open and v == low)):
        raise ValueError(f"{name} must be in {rng}, got {v}")
    if high is not None and (v > high or (high_open and v == high)):
        raise ValueError(f"{name} must be in {rng}, got {v}")
    return v


def check_count(value: object, name: str, *, low: int = 0, high: int | None = None) -> int:
    """Validate an integer count in ``[low, high]`` and return it as ``int``.

    Raises ``TypeError`` for non-integers (``bool`` and floats included) and
    ``ValueError`` outside the range, naming ``name`` and the range.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    v = int(value)
    if v < low or (high is not None and v > high):
        raise ValueError(f"{name} must be in [{low}, {'inf' if high is None else high}], got {v}")
    return v


def check_shape(shape: object, name: str = "shape", min_side: int = 1) -> tuple[int, int]:
    """Validate a heightmap shape ``(rows, cols)``.

    Each side must be an integer ``>= min_side`` and ``rows * cols`` at most
    :data:`MAX_CELLS`, so an absurd request fails before any allocation.

    Raises
    ------
    TypeError
        If ``shape`` is not a pair of integers.
    ValueError
        If a side is too small or the map too large.
    """
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise TypeError(f"{name} must be a (rows, cols) pair of integers, got {shape!r}")
    rows = check_count(shape[0], f"{name}[0] (rows)", low=min_side)
    cols = check_count(shape[1], f"{name}[1] (cols)", low=min_side)
    if rows * cols > MAX_CELLS:
        raise ValueError(f"{name} {rows}x{cols} has {rows * cols} cells; at most {MAX_CELLS} (8193x8193) are allowed")
    return rows, cols


def check_world_shape(shape: object, name: str = "world_shape") -> tuple[int, int]:
    """Validate a world's shape ``(rows, cols)``: each side an integer in ``[1, MAX_WORLD_SIDE]``.

    A world is evaluated in windows (see :mod:`.window`), each at most
    :data:`MAX_CELLS` cells, so its own cell count is not bounded here.

    Raises
    ------
    TypeError
        If ``shape`` is not a pair of integers.
    ValueError
        If a side is outside ``[1, MAX_WORLD_SIDE]``.
    """
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise TypeError(f"{name} must be a (rows, cols) pair of integers, got {shape!r}")
    return (
        check_count(shape[0], f"{name}[0] (rows)", low=1, high=MAX_WORLD_SIDE),
        check_count(shape[1], f"{name}[1] (cols)", low=1, high=MAX_WORLD_SIDE),
    )


def _real(values: npt.ArrayLike, name: str, what: str) -> npt.NDArray[Any]:
    """``values`` as an array of real numbers, unconverted: no masked arrays, ragged lists, strings or complex."""
    if isinstance(values, np.ma.MaskedArray):
        raise TypeError(f"{name} must not be a masked array: fill the masked cells first (.filled())")
    try:
        arr = np.asarray(values)
    except ValueError as err:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular {what}: {err}") from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    return arr


def as_real_array(values: npt.ArrayLike, name: str) -> npt.NDArray[np.float64]:
    """Validate an array of finite real numbers of any shape and return it as ``float64``.

    Raises
    ------
    TypeError
        For a masked array or values that are not real numbers (strings,
        complex, objects).
    ValueError
        For a ragged array or NaN/Inf values.
    """
    out: npt.NDArray[np.float64] = _real(values, name, "array").astype(np.float64)
    if not np.isfinite(out).all():
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    return out


def as_heightmap(
    heightmap: npt.ArrayLike,
    name: str = "heightmap",
    *,
    dtype: type[np.floating[Any]] = np.float32,
    float32_range: bool = False,
) -> npt.NDArray[Any]:
    """Validate a 2-D finite real array and return it as ``dtype`` (no copy if already so).

    ``dtype`` is ``float32`` (the heightmap type) unless a caller needs
    ``float64`` intermediates; ``float32_range`` also refuses values a
    ``float32`` result could not hold (for functions that return the
    heights' own scale).

    Raises
    ------
    TypeError
        If the array is not real-valued numbers.
    ValueError
        If it is not 2-D, is empty, ragged, or holds NaN/Inf (also after
        conversion: values beyond float32's range).
    """
    arr = _real(heightmap, name, "2-D array")
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-D (rows, cols) array, got shape {arr.shape}")
    out = arr.astype(dtype, copy=False)
    if not np.isfinite(out).all():
        raise ValueError(f"{name} contains NaN or Inf")
    if float32_range and out.dtype != np.float32 and float(np.abs(out).max()) > _F32_MAX:
        raise ValueError(
            f"{name} holds values beyond float32's range (|h| <= {_F32_MAX:.3g}), which a float32 heightmap cannot hold"
        )
    return out


def normalize(
    heightmap: npt.ArrayLike,
    value_range: tuple[float, float] | None = None,
) -> npt.NDArray[np.float32]:
    """Scale a heightmap linearly to ``[0, 1]``.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Finite real values.
    value_range : (float, float), optional
        The ``(low, high)`` that map to 0 and 1. Defaults to the map's own
        minimum and maximum; pass a world's range to normalise a window of it
        consistently with the whole. Values outside the range are clipped to
        ``[0, 1]``.

    Returns
    -------
    ndarray of float32, shape (rows, cols)
        ``(h - low) / (high - low)``; the minimum maps to exactly 0 and the
        maximum to exactly 1. A constant map (``high == low``) gives zeros,
        without NaN or a warning.

    Raises
    ------
    ValueError
        For NaN/Inf input or a ``value_range`` with ``high < low``.
    """
    h = float_heightmap(heightmap)
    if value_range is None:
        low, high = float(h.min()), float(h.max())
        if not (math.isfinite(low) and math.isfinite(high)):  # NaN propagates to the minimum, Inf to either
            raise ValueError("heightmap contains NaN or Inf")
    else:
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise TypeError(f"value_range must be a (low, high) pair, got {value_range!r}")
        low = check_number(value_range[0], "value_range[0]")
        high = check_number(value_range[1], "value_range[1]")
        if high < low:
            raise ValueError(f"value_range must have low <= high, got {tuple(value_range)}")
    if high == low:
        if value_range is not None:
            _by_blocks(h.shape, lambda r0, r1, buf: _check_finite(h[r0:r1]))
        return np.zeros(h.shape, dtype=np.float32)
    halve = not math.isfinite(high - low)  # a span beyond float64's range: halve everything first (exact)
    span = high * 0.5 - low * 0.5 if halve else high - low
    out = np.empty(h.shape, np.float32)

    def work(r0: int, r1: int, buf: npt.NDArray[np.float64]) -> None:
        np.copyto(buf, h[r0:r1])
        if value_range is not None:  # (the map's own minimum and maximum are finite: so is every cell)
            _check_finite(buf)
        if halve:
            buf *= 0.5
            buf -= low * 0.5
        else:
            buf -= low
        buf /= span
        np.clip(buf, 0.0, 1.0, out=buf)
        np.copyto(out[r0:r1], buf, casting="same_kind")

    # In blocks of rows (float64 temporaries that stay in cache, no whole-map copies): per cell the same
    # float64 operations as ``clip((h - low) / (high - low), 0, 1)`` rounded to float32.
    _by_blocks(h.shape, work)
    return out


def flatten(heightmap: npt.ArrayLike, exponent: float) -> npt.NDArray[np.float32]:
    """Raise a normalised heightmap to a power: broad lowlands, sharper peaks.

    From the circle-hill terrain tutorial's "flattening" step: with heights in
    ``[0, 1]``, ``h ** exponent`` lowers the low values while keeping peaks at
    1 (exponent 1 = no change; below 1 it lifts lowlands instead).

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Heights, nominally in ``[0, 1]``; values slightly outside (rounding) are
        clipped to ``[0, 1]`` first, so the result is always finite.
    exponent : float
        In ``(0, 64]``. Whole exponents are computed by exact repeated
        multiplication; others with ``float64`` ``pow`` rounded to ``float32``.

    Returns
    -------
    ndarray of float32, shape (rows, cols)
        In ``[0, 1]``, monotonic non-decreasing in the input.

    Raises
    ------
    ValueError
        For NaN/Inf input or an exponent outside ``(0, 64]``.
    """
    e = check_number(exponent, "exponent", low=0.0, high=64.0, low_open=True)
    h = float_heightmap(heightmap)
    out = np.empty(h.shape, np.float32)

    def work(r0: int, r1: int, buf: npt.NDArray[np.float64]) -> None:
        np.copyto(buf, h[r0:r1])
        _check_finite(buf)
        np.clip(buf, 0.0, 1.0, out=buf)
        if e.is_integer():
            buf = _int_power(buf, int(e))
        else:
            # pow(+-0, e > 0) is +0 (C99, IEEE 754), and numpy's float64 pow is several times slower on 0
            # than elsewhere: most of a hills map is 0. Those cells take 0.5 through pow, then +0.
            zero = np.equal(buf, 0.0)
            np.copyto(buf, 0.5, where=zero)
            np.copyto(buf, power(buf, e))  # numpy's power differs between CPUs; this does not
            np.copyto(buf, 0.0, where=zero)
        np.copyto(out[r0:r1], buf, casting="same_kind")

    # In blocks of rows, with float64 temporaries that stay in cache: the same float64 steps per cell.
    _by_blocks(h.shape, work)
    return out


#: Cells per block of rows of :func:`normalize` and :func:`flatten`: a float64 block of 512 KiB.
_BLOCK_CELLS = 1 << 16


def float_heightmap(heightmap: npt.ArrayLike) -> npt.NDArray[Any]:
    """A 2-D real array as ``float32`` or ``float64`` without copying those (others become ``float64``).

    Finiteness is not checked here (see :func:`_check_finite`): converting
    ``float32`` to ``float64`` is exact, so either gives the same results.
    """
    arr = _real(heightmap, "heightmap", "2-D array")
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"heightmap must be a non-empty 2-D (rows, cols) array, got shape {arr.shape}")
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    return arr


def _check_finite(block: npt.NDArray[Any]) -> None:
    """Raise ValueError if a block of a heightmap holds NaN or Inf."""
    if not np.isfinite(block).all():
        raise ValueError("heightmap contains NaN or Inf")


def _by_blocks(shape: tuple[int, ...], work: Callable[[int, int, npt.NDArray[np.float64]], None]) -> None:
    """``work(r0, r1, buffer)`` for blocks of rows covering ``shape``, with a float64 buffer of each block's shape.

    Large maps are shared among up to four threads in runs of blocks (numpy releases the GIL inside each
    operation); each block's cells are computed the same way whatever the split.
    """
    rows, cols = shape[0], shape[1]
    block = max(1, _BLOCK_CELLS // cols)
    starts = list(range(0, rows, block))

    def run(mine: list[int]) -> None:
        buf = np.empty((min(block, rows), cols), np.float64)
        for r0 in mine:
            r1 = min(rows, r0 + block)
            work(r0, r1, buf[: r1 - r0])

    workers = 1 if rows * cols < _THREAD_CELLS else max(1, min(4, os.cpu_count() or 1))
    if workers == 1:
        run(starts)
        return
    runs = 4 * workers  # several runs per thread, so that a thread slowed by another job does not hold up the rest
    size = -(-len(starts) // runs)
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(run, [starts[i : i + size] for i in range(0, len(starts), size)]))


#: Cells from which :func:`normalize` and :func:`flatten` use threads.
_THREAD_CELLS = 1 << 20


def _int_power(base: npt.NDArray[np.float64], n: int) -> npt.NDArray[np.float64]:
    """``base ** n`` for whole ``n >= 1`` by binary exponentiation (fixed order, exact IEEE steps)."""
    result = np.ones_like(base)
    square = base.copy()
    while n:
        if n & 1:
            result *= square
        n >>= 1
        if n:
            square *= square
    return result


def surface_heights(
    z: npt.NDArray[np.float32], generated: npt.NDArray[np.float32], height: float
) -> tuple[npt.NDArray[np.float32], tuple[float, float], int]:
    """The heights of a terrain's surface as a heightmap: ``(normalised float32 (rows, cols), (low, high) m, edited)``.

    Parameters
    ----------
    z : ndarray of float32, shape (rows, cols)
        The surface's heights in metres (a mesh's vertex Z, hand edits included).
    generated : ndarray of float32, shape (rows, cols)
        The heights the terrain was generated with, in units of ``height``.
    height : float
        Metres per unit of ``generated`` (the terrain's Height).

    Returns
    -------
    When every ``z`` equals ``generated * height`` (``float32``): ``generated`` itself with the range
    ``(0, height)`` when it lies in [0, 1], else ``generated`` normalised over its own range (spec version 3:
    uplift may raise it above Height, a filter lower it below 0), that range in metres; ``edited`` is 0.
    Otherwise ``z`` normalised over its own range (zeros when flat), that range, and ``edited`` the count of
    cells whose ``z`` differs.
    """
    edited = int(np.count_nonzero(z != generated * np.float32(height)))
    if not edited:
        low, high = float(generated.min()), float(generated.max())
        if low >= 0.0 and high <= 1.0:
            return generated, (0.0, height), 0
        span = high - low
        h: npt.NDArray[np.float32] = ((generated.astype(np.float64) - low) / span).astype(np.float32)
        return h, (low * height, high * height), 0
    low, high = float(z.min()), float(z.max())
    span = high - low
    flat = np.zeros_like(z, dtype=np.float64)
    h = ((z.astype(np.float64) - low) / span if span > 0 else flat).astype(np.float32)
    return h, (low, high), edited
