"""Cast shadows: which cells see the sun past the terrain between them and it.

Rays run toward the sun (azimuth clockwise from north, row 0 north; altitude
above the horizon) over the heights in metres; a soft sun of ``softness``
degrees gives a penumbra from several altitudes (:data:`SHADOW_SAMPLES`).
Rays are anchored at the world's line 0, so a window of a larger world
(``origin``) read over a margin of :func:`shadow_reach` cells toward the sun
(:func:`shadow_margins`) casts the whole world's shadows on its cells. Work
above :data:`.gradient.MAX_LIGHT_WORK` is refused up front.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..elementary import sincos, tangent
from ..heightmap import check_count, check_number
from .gradient import BLOCK_CELLS, F32, MAX_HEIGHT, check_light_work, prepare_heights

__all__ = [
    "SHADOW_SAMPLES",
    "shadow_work",
    "cast_shadows",
    "check_origin",
    "shadow_reach",
    "shadow_margins",
    "shadow_parameters",
    "trace_shadows",
]


# --- cast shadows: an exact sweep toward the sun --------------------------------------------
#: Sample altitudes across the sun's disc: the penumbra has this many steps by default.
SHADOW_SAMPLES = 8


def _sun_frame(
    h: F32, azimuth: float, origin: tuple[int, int] = (0, 0)
) -> tuple[F32, Callable[[F32], F32], float, int]:
    """A view of ``h`` in which the sun lies toward row 0 and drifts toward higher columns.

    Returns ``(v, back, drift, base)``: rows of ``v`` are lines across the sun's
    direction ordered from the sun; going one row toward the sun moves
    ``drift`` in ``[0, 1]`` columns to the right; ``back`` maps an array in
    ``v``'s frame to ``h``'s; row ``i`` of ``v`` is line ``i + base`` of the
    world's frame (``origin`` is the world row and column of ``h[0, 0]``), so
    the rays, anchored at the world's line 0, are the same in every window.
    """
    az = math.radians(azimuth)
    d_col, d_row = sincos(az)
    d_row = -d_row  # one unit step toward the sun, array axes
    transpose = abs(d_col) > abs(d_row)
    major, minor = (d_col, d_row) if transpose else (d_row, d_col)
    flip_major, flip_minor = major > 0, minor < 0
    v: F32 = np.ascontiguousarray(h.T) if transpose else h
    if flip_major:
        v = v[::-1]
    if flip_minor:
        v = v[:, ::-1]
    drift = abs(minor) / abs(major)
    first = int(origin[1] if transpose else origin[0])  # world index of h's first line along the major axis
    base = -(first + v.shape[0] - 1) if flip_major else first

    def back(a: F32) -> F32:
        if flip_minor:
            a = a[:, ::-1]
        if flip_major:
            a = a[::-1]
        out: F32 = np.ascontiguousarray(a.T) if transpose else np.ascontiguousarray(a)
        return out

    return v, back, drift, base


def _disc_altitudes(altitude: float, softness: float, samples: int) -> list[float]:
    """Altitudes (degrees) at the centres of ``samples`` equal bands across the sun's disc."""
    return [altitude - softness / 2.0 + softness * (j + 0.5) / samples for j in range(samples)]


def shadow_work(shape: tuple[int, int], samples: int = SHADOW_SAMPLES, max_distance: int | None = None) -> int:
    """Work of :func:`cast_shadows` on a ``(rows, cols)`` map, in cell samples.

    ``rows x cols x samples``, times ``2 + log2(max_distance)`` when a
    ``max_distance`` shorter than the map bounds the rays (a windowed maximum
    instead of a running one).
    """
    rows, cols = shape
    work = rows * cols * samples
    if max_distance is not None and max_distance < max(rows, cols):
        work *= 2 + max(1, int(max_distance)).bit_length()
    return work


def cast_shadows(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    *,
    azimuth: float = 315.0,
    altitude: float = 45.0,
    z_factor: float = 1.0,
    softness: float = 2.0,
    max_distance: int | None = None,
    samples: int = SHADOW_SAMPLES,
    origin: tuple[int, int] = (0, 0),
) -> F32:
    """Cast shadows: the share of the sun's disc each cell sees, 1 lit, 0 in shadow.

    **Rays.** Each cell's ray toward the sun is the digital line through it
    parallel to the sun's azimuth: one cell per row (or per column, whichever
    the sun's direction crosses faster), all rays being translates of one line
    anchored at the *world's* line 0 (``origin`` places the map in its world),
    each within one cell of the exact ray. Every cell of the ray is visited,
    up to the map's edge (cells beyond the map do not occlude) or
    ``max_distance`` cells: no occluder is skipped, however thin.

    **Windows.** Because the rays and the sweep's arithmetic depend on world
    coordinates only, a window of a world (a tile) grown toward the sun by
    :func:`shadow_reach` cells (:func:`shadow_margins`) and cropped gives
    every cell exactly the shadow the whole world gives it.

    **Sweep.** A cell ``x`` is lit from altitude ``a`` when no cell ``p`` of
    its ray rises above the line of slope ``tan(a)`` through it:
    ``h(p) + tan(a) * d(p) <= h(x) + tan(a) * d(x)``, with ``d`` the distance
    along the rays from the map's sunward side. So one pass from that side,
    keeping the running maximum of ``h + tan(a) * d`` along every ray, decides
    every cell exactly (a windowed maximum when ``max_distance`` is given).

    **Penumbra.** The sun is a disc ``softness`` degrees wide; the result is
    the share of ``samples`` altitudes, at the centres of equal bands across
    the disc, from which the cell sees the sun (so the penumbra has
    ``samples`` steps; sample altitudes below 0 count as hidden by flat
    ground, above 90 as lit). With an exact horizon angle ``H`` this is the
    ``clip((altitude - H) / softness + 0.5, 0, 1)`` of a uniform disc,
    rounded to the samples.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Heights in metres.
    cell_size, azimuth, altitude, z_factor : float
        As :func:`hillshade`.
    softness : float
        Width of the sun's disc (the penumbra) in degrees, ``[0.01, 45]``.
    max_distance : int, optional
        Longest ray in cells, ``[1, 2**20]`` (default: to the map's edge).
    samples : int
        Altitudes sampled across the disc, ``[1, 64]``.
    origin : (int, int)
        World row and column of ``heightmap[0, 0]``, each in ``[0, 2**20]``
        (default: the map is the world, or starts at its north-west corner).

    Returns
    -------
    ndarray of float32, shape (rows, cols), in ``[0, 1]`` (multiples of ``1 / samples``).

    Raises
    ------
    TypeError, ValueError
        For bad parameters, naming the parameter and its range, or work above
        :data:`MAX_LIGHT_WORK` (see :func:`shadow_work`).
    """
    h, cell, z = prepare_heights(heightmap, cell_size, z_factor)
    alt_deg, soft, k, reach = shadow_parameters(
        h.shape, azimuth, altitude, softness=softness, max_distance=max_distance, samples=samples
    )
    return trace_shadows(
        h,
        cell,
        z,
        azimuth=float(azimuth) % 360.0,
        alt_deg=alt_deg,
        soft=soft,
        k=k,
        reach=reach,
        origin=check_origin(origin),
    )


def check_origin(origin: object) -> tuple[int, int]:
    """A checked ``(row, col)`` world origin of a window, each in ``[0, 2**20]``."""
    if not isinstance(origin, (tuple, list)) or len(origin) != 2:
        raise TypeError(f"origin must be a (row, col) pair of integers, got {origin!r}")
    return check_count(origin[0], "origin row", low=0, high=1 << 20), check_count(
        origin[1], "origin col", low=0, high=1 << 20
    )


def shadow_reach(
    relief: float, cell_size: float, altitude: float, *, softness: float = 2.0, samples: int = SHADOW_SAMPLES
) -> int | None:
    """Cells toward the sun beyond which nothing can shadow a cell: ``ceil(relief / (tan(a) * cell_size)) + 1``.

    ``a`` is the lowest of the ``samples`` altitudes across the sun's disc
    (:func:`cast_shadows`' penumbra). A cell ``k`` steps along a ray lies at
    least ``k * cell_size`` metres away, so it shadows only if it rises
    ``tan(a) * k * cell_size`` above the cell: with no point more than
    ``relief`` metres above another, no cell farther than ``relief / (tan(a) *
    cell_size)`` steps does; the extra cell keeps the float32 sweep's
    comparisons (heights plus ``tan(a)`` times the world distance, rounded
    alike in every window) clear of that bound.

    Parameters
    ----------
    relief : float
        Metres, ``[0, 1e12]``: how far any point rises above another (a
        normalised world: its height range times the z-factor).
    cell_size : float
        Metres per cell, ``[1e-9, 1e9]``.
    altitude, softness : float
        The sun's altitude ``[0, 90]`` and disc width ``[0.01, 45]``, degrees.
    samples : int
        Altitudes across the disc, ``[1, 64]``.

    Returns
    -------
    int or None
        ``0`` when the whole disc is at or above 90 degrees (no shadows);
        ``None`` (unbounded) when its lowest sample is at or below the horizon.
    """
    relief = check_number(relief, "relief", low=0.0, high=MAX_HEIGHT)
    cell = check_number(cell_size, "cell_size", low=1e-9, high=1e9)
    alt = check_number(altitude, "altitude", low=0.0, high=90.0)
    soft = check_number(softness, "softness", low=0.01, high=45.0)
    lowest = min(_disc_altitudes(alt, soft, check_count(samples, "samples", low=1, high=64)))
    if lowest >= 90.0:
        return 0
    if lowest <= 0.0:
        return None
    return math.ceil(relief / (tangent(math.radians(lowest)) * cell)) + 1


def shadow_margins(azimuth: float, reach: int) -> tuple[int, int, int, int]:
    """Cells a window must grow by on its ``(north, south, west, east)`` sides for exact shadows.

    Only the sides toward the sun: :func:`cast_shadows`' ray from a cell
    moves at most ``reach`` lines along the sun's major axis and at most as
    many across it. ``reach`` from :func:`shadow_reach`, ``[0, 2**20]``.
    """
    az = math.radians(check_number(azimuth, "azimuth") % 360.0)
    n = check_count(reach, "reach", low=0, high=1 << 20)
    d_col, d_row = sincos(az)
    d_row = -d_row  # toward the sun
    eps = 1e-12  # cos(90 degrees) is 6e-17: its drift moves no ray across a world of 2**20 cells
    return (n if d_row < -eps else 0, n if d_row > eps else 0, n if d_col < -eps else 0, n if d_col > eps else 0)


def shadow_parameters(
    shape: tuple[int, ...], azimuth: float, altitude: float, *, softness: float, max_distance: int | None, samples: int
) -> tuple[float, float, int, int | None]:
    """Checked ``(altitude, softness, samples, max_distance)`` of :func:`cast_shadows`, its work bounded."""
    check_number(azimuth, "azimuth")
    alt_deg = check_number(altitude, "altitude", low=0.0, high=90.0)
    soft = check_number(softness, "softness", low=0.01, high=45.0)
    k = check_count(samples, "samples", low=1, high=64)
    reach = None if max_distance is None else check_count(max_distance, "max_distance", low=1, high=1 << 20)
    check_light_work(
        shadow_work((shape[0], shape[1]), k, reach), f"cast_shadows: {k} samples over {shape[0]} x {shape[1]} cells"
    )
    return alt_deg, soft, k, reach


def trace_shadows(
    h: F32,
    cell: float,
    z: float,
    *,
    azimuth: float,
    alt_deg: float,
    soft: float,
    k: int,
    reach: int | None,
    origin: tuple[int, int] = (0, 0),
) -> F32:
    """:func:`cast_shadows` of checked float32 heights (not yet scaled by ``z``)."""
    if alt_deg >= 90.0:  # sun at the zenith: nothing casts a shadow
        return np.ones(h.shape, dtype=np.float32)
    v, back, drift, base = _sun_frame(h, azimuth, origin)
    step = math.sqrt(1.0 + drift * drift) * cell / z  # metres along the ray per row of v, in unscaled heights
    altitudes = _disc_altitudes(alt_deg, soft, k)
    always = sum(1 for a in altitudes if a >= 90.0)
    slopes = [tangent(math.radians(a)) * step for a in altitudes if a < 90.0]
    n = v.shape[0]
    steps = None if reach is None else max(1, int(math.floor(reach / math.sqrt(1.0 + drift * drift) + 1e-9)))
    if slopes and steps is not None and steps < n - 1:
        count = _windowed_sweep(v, drift, slopes, steps, base)
    elif slopes:
        count = _running_sweep(v, drift, slopes, base)
    else:
        count = np.zeros(v.shape, np.uint8)
    lit = count.astype(np.float32)
    lit += np.float32(always)
    lit *= np.float32(1.0 / k)
    return back(lit)


def _lines(n: int, base: int) -> npt.NDArray[np.float64]:
    """World line numbers ``base .. base + n - 1`` of the sun frame's rows (exact in float64)."""
    return np.arange(n, dtype=np.float64) + float(base)


def _lane_offsets(n: int, drift: float, base: int = 0) -> npt.NDArray[np.int64]:
    """Column offset of the rays in row ``i`` of the sun frame: ``round(drift * (i + base)) - round(drift * base)``.

    A ray through ``(i, w)`` passes ``(i - k, w + offset[i] - offset[i - k])``
    toward the sun: ray ``u = w + offset[i]`` is a column of the sheared map.
    Rounded at world line numbers, so every window of a world traces the same rays.
    """
    offsets: npt.NDArray[np.int64] = np.rint(_lines(n, base) * drift).astype(np.int64)
    offsets -= offsets[0]
    return offsets


def _running_sweep(v: F32, drift: float, slopes: list[float], base: int = 0) -> npt.NDArray[np.uint8]:
    """For each cell of ``v`` (sun frame), how many of the slopes it is lit at, rays to the map's edge.

    Keeps, for each slope, the running maximum of ``h + slope * row`` of the
    ray through each cell of the current row (indexed by column, so every
    operation is on contiguous rows); when the rays' offset grows by one
    between rows, the maxima move one column left and a new ray enters on
    the right.
    """
    n, width = v.shape
    offsets = _lane_offsets(n, drift, base)
    k = len(slopes)
    seen = np.full((k, width), -np.inf, np.float32)  # running max along the ray through (row, column)
    spare = np.empty_like(seen)
    # h + slope * world line, rounded the same in every window of the world
    ramp = (np.asarray(slopes, np.float64)[:, None] * _lines(n, base)[None, :]).astype(np.float32)
    g = np.empty((k, width), np.float32)
    lit = np.empty((k, width), np.bool_)
    count = np.empty((n, width), np.uint8)
    previous = 0
    for i in range(n):  # a loop over the rows of the sweep; each step is a whole-row operation
        if offsets[i] != previous:  # rays move one column: (i, w) continues the ray of (i - 1, w + 1)
            spare[:, :-1] = seen[:, 1:]
            spare[:, -1] = -np.inf
            seen, spare = spare, seen
            previous = int(offsets[i])
        np.add(v[i], ramp[:, i : i + 1], out=g)
        np.greater_equal(g, seen, out=lit)
        np.add.reduce(lit, axis=0, dtype=np.uint8, out=count[i])
        np.maximum(seen, g, out=seen)
    return count


def _windowed_sweep(v: F32, drift: float, slopes: list[float], steps: int, base: int = 0) -> npt.NDArray[np.uint8]:
    """As :func:`_running_sweep`, but only the ``steps`` rows of a ray nearest each cell can occlude it.

    The rays are sheared into the columns of an array; the maximum over the
    ``steps`` rows before each cell is a sparse-table maximum (windows of
    ``2**j`` rows doubled ``log2(steps)`` times, then two overlapping
    windows), computed on column blocks that stay in cache.
    """
    n, width = v.shape
    offsets = _lane_offsets(n, drift, base)
    lanes = width + int(offsets[-1])
    sheared = np.full((n, lanes), -np.inf, np.float32)
    for i in range(n):
        s = int(offsets[i])
        sheared[i, s : s + width] = v[i]
    count = np.empty((n, lanes), np.uint8)
    rows = _lines(n, base)[:, None]
    level = steps.bit_length() - 1  # 2**level <= steps < 2**(level + 1)
    chunk = max(16, 4 * BLOCK_CELLS // n)
    for u0 in range(0, lanes, chunk):
        u1 = min(lanes, u0 + chunk)
        block = np.ascontiguousarray(sheared[:, u0:u1])  # contiguous operations are several times faster
        counted = np.zeros(block.shape, np.uint8)
        g = np.empty(block.shape, np.float32)
        win, other, blocked = np.empty_like(g), np.empty_like(g), np.empty_like(g)
        for slope in slopes:
            np.add(block, (rows * slope).astype(np.float32), out=g)
            win[:] = g
            for j in range(level):  # win[i] = max of g over rows (i - 2**(j+1), i]
                span = 1 << j
                other[:span] = win[:span]
                np.maximum(win[span:], win[:-span], out=other[span:])
                win, other = other, win
            # rows i - steps .. i - 1: the window ending at i - 1 and the one starting at i - steps.
            top = 1 << level
            blocked[0] = -np.inf
            blocked[1:] = win[:-1]
            if steps > top:
                shift = steps - top + 1
                np.maximum(blocked[shift:], win[: n - shift], out=blocked[shift:])
            counted += g >= blocked
        count[:, u0:u1] = counted
    out = np.empty((n, width), np.uint8)
    for i in range(n):
        s = int(offsets[i])
        out[i] = count[i, s : s + width]
    return out
