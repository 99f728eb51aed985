"""Terrain lighting and data maps: hillshade, cast shadows, ambient occlusion, normals, slope, curvature.

Heights and the cell size are in metres (a ``z_factor`` scales heights, as
GIS tools do). Directions follow the GIS convention used everywhere in
Orogen: azimuth in degrees clockwise from north (row 0 is north), altitude in
degrees above the horizon.

Gradients use Horn's 3 x 3 operator (Horn, "Hill shading and the reflectance
map", Proc. IEEE 69(1), 1981), the one ``gdaldem`` and most GIS tools use.
**Edges:** as ``gdaldem -compute_edges``, the neighbours a border cell lacks
are extrapolated linearly from the two cells beside them (``2 * h[0] - h[1]``),
so a plane's gradient, slope, hillshade and normal are exact on every cell and
its curvature is 0 everywhere. At the four corners gdaldem repeats the
missing column instead of extrapolating it (which halves the gradient across
it); Orogen extrapolates there too, so planes stay exact in the corners.

The kernels work in ``float32`` on blocks of rows small enough to stay in the
processor's cache, differencing neighbours before summing them (a difference
of nearby float32 heights is exact), so one pass over the map computes each
output. :func:`core.bake.bake_maps` computes everything a terrain bake needs
from one Horn gradient per block.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .heightmap import _float_heightmap, as_heightmap, check_count, check_number

__all__ = [
    "MAX_HEIGHT",
    "MAX_LIGHT_WORK",
    "horn_gradient",
    "sun_vector",
    "hillshade",
    "multidirectional_hillshade",
    "cast_shadows",
    "shadow_reach",
    "shadow_margins",
    "shadow_work",
    "ambient_occlusion",
    "ambient_work",
    "check_light_work",
    "combined_lightmap",
    "normal_map",
    "slope_degrees",
    "curvature",
]

#: Largest height (metres, after the z-factor) the shading functions accept: far beyond any terrain,
#: and small enough that gradients and curvature stay finite at the smallest cell size.
MAX_HEIGHT = 1e12
#: Upper bound on the work of one cast-shadow or ambient-occlusion call, in cell samples
#: (see :func:`ambient_work` and :func:`shadow_work`): about a minute on two cores. Requests
#: above it are refused up front instead of freezing the caller.
MAX_LIGHT_WORK = 100_000_000_000

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]

#: Cells per block of rows: four float32 blocks of this size fit the 1-2 MiB second-level cache.
_BLOCK_CELLS = 1 << 16


# --- input checks (once per call) ------------------------------------------------------------
def _heights(heightmap: npt.ArrayLike, cell_size: float, z_factor: float) -> tuple[F32, float, float]:
    """Checked ``(heights as float32, cell_size, z_factor)``; heights are not yet scaled by ``z_factor``."""
    source = _float_heightmap(heightmap)
    cell = check_number(cell_size, "cell_size", 1e-9, 1e9)
    z = check_number(z_factor, "z_factor", 1e-9, 1e9)
    low, high = float(source.min()), float(source.max())
    if not (math.isfinite(low) and math.isfinite(high)):  # NaN propagates to both, Inf to one: one pass each
        raise ValueError("heightmap contains NaN or Inf")
    if max(abs(low), abs(high)) * z > MAX_HEIGHT:
        raise ValueError(f"heights x z_factor must stay within +-{MAX_HEIGHT:g} metres")
    h: F32 = source.astype(np.float32, copy=False)
    return h, cell, z


def sun_vector(azimuth: float, altitude: float) -> tuple[float, float, float]:
    """``(east, north, up)`` components of the unit vector toward the sun, Blender's ``(x, y, z)``.

    ``azimuth`` in degrees clockwise from north (+Y), ``altitude`` in degrees above the horizon
    ``[0, 90]``. Raises ``ValueError``/``TypeError`` for a non-finite azimuth or an altitude out of range.
    """
    az = math.radians(check_number(azimuth, "azimuth") % 360.0)
    alt = math.radians(check_number(altitude, "altitude", 0.0, 90.0))
    return math.sin(az) * math.cos(alt), math.cos(az) * math.cos(alt), math.sin(alt)


def _block_rows(cols: int) -> int:
    return max(1, _BLOCK_CELLS // max(cols, 1))


# --- Horn's gradient with linearly extrapolated edges ----------------------------------------
def _fill_extension(ext: npt.NDArray[Any], h: npt.NDArray[Any], r0: int, r1: int) -> None:
    """Fill ``ext`` (``(r1 - r0 + 2, cols + 2)``) with rows ``r0 - 1 .. r1`` of ``h`` and a column each side.

    Rows and columns beyond the map are extrapolated linearly, ``a + (a - b)``
    from the border cell ``a`` and its inner neighbour ``b`` (repeated when the
    map is a single row or column), corners from the extrapolated rows.
    """
    rows, cols = h.shape
    inner = ext[:, 1:-1]
    inner[1:-1] = h[r0:r1]
    for halo, edge, inside, beyond in ((0, 0, 1, r0 > 0), (-1, rows - 1, rows - 2, r1 < rows)):
        if beyond:
            inner[halo] = h[r0 - 1] if halo == 0 else h[r1]
        elif rows > 1:
            np.subtract(h[edge], h[inside], out=inner[halo])
            inner[halo] += h[edge]
        else:
            inner[halo] = h[edge]
    for halo, edge, inside in ((0, 1, 2), (-1, -2, -3)):
        if cols > 1:
            np.subtract(ext[:, edge], ext[:, inside], out=ext[:, halo])
            ext[:, halo] += ext[:, edge]
        else:
            ext[:, halo] = ext[:, edge]


class _Gradient:
    """Horn's gradient of ``h`` block by block: reusable float32 buffers, one Horn pass per cell."""

    def __init__(self, h: F32, cell: float, z: float, block_rows: int | None = None) -> None:
        self.h = h
        rows, cols = h.shape
        self.block = block_rows or _block_rows(cols)
        b = min(self.block, rows)
        self.ext = np.empty((b + 2, cols + 2), np.float32)
        self._across = np.empty((b + 2, cols), np.float32)
        self._along = np.empty((b, cols + 2), np.float32)
        self.dx_buf = np.empty((b, cols), np.float32)
        self.dy_buf = np.empty((b, cols), np.float32)
        self.scale = np.float32(z / (8.0 * cell))

    def blocks(self, start: int = 0, stop: int | None = None) -> Iterator[tuple[int, int, F32, F32, F32]]:
        """``(r0, r1, ext, dx, dy)`` for each block of rows from ``start`` to ``stop``; the arrays are reused.

        ``dx`` is dz/d(east) and ``dy`` dz/d(north), dimensionless, scaled by
        the z-factor; ``ext`` holds the block's heights with a cell of
        (extrapolated) border all round, unscaled.
        """
        rows = self.h.shape[0] if stop is None else stop
        for r0 in range(start, rows, self.block):
            r1 = min(rows, r0 + self.block)
            b = r1 - r0
            ext, across, along = self.ext[: b + 2], self._across[: b + 2], self._along[:b]
            dx, dy = self.dx_buf[:b], self.dy_buf[:b]
            _fill_extension(ext, self.h, r0, r1)
            # Horn: (c + 2f + i) - (a + 2d + g), summed as differences of neighbours (exact in float32).
            np.subtract(ext[:, 2:], ext[:, :-2], out=across)
            np.add(across[:-2], across[2:], out=dx)
            dx += across[1:-1]
            dx += across[1:-1]
            dx *= self.scale
            np.subtract(ext[:-2], ext[2:], out=along)  # north minus south: row 0 is north
            np.add(along[:, :-2], along[:, 2:], out=dy)
            dy += along[:, 1:-1]
            dy += along[:, 1:-1]
            dy *= self.scale
            yield r0, r1, ext, dx, dy


def horn_gradient(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> tuple[F64, F64]:
    """Horn's gradient ``(dz/d east, dz/d north)``, ``float64 (rows, cols)`` each, dimensionless.

    ``dz/dx = ((c + 2f + i) - (a + 2d + g)) / (8 * cell)`` over the 3 x 3
    window ``a b c / d e f / g h i`` (row 0 north), likewise north minus
    south for ``dz/dy``. Border cells extrapolate their missing neighbours
    linearly (see the module docstring): a plane's gradient is exact on every
    cell. Computed in ``float64`` from the heights as given.
    """
    arr = heightmap if isinstance(heightmap, np.ndarray) else np.asarray(heightmap)
    h: F64 = as_heightmap(arr, dtype=np.float64)
    cell = check_number(cell_size, "cell_size", 1e-9, 1e9)
    z = check_number(z_factor, "z_factor", 1e-9, 1e9)
    if float(np.abs(h).max()) * z > MAX_HEIGHT:
        raise ValueError(f"heights x z_factor must stay within +-{MAX_HEIGHT:g} metres")
    rows, cols = h.shape
    p = np.empty((rows + 2, cols + 2))
    _fill_extension(p, h, 0, rows)
    scale = z / (8.0 * cell)
    across = p[:, 2:] - p[:, :-2]
    dx = (across[:-2] + 2.0 * across[1:-1] + across[2:]) * scale
    along = p[:-2] - p[2:]
    dy = (along[:, :-2] + 2.0 * along[:, 1:-1] + along[:, 2:]) * scale
    return dx, dy


# --- per-block kernels (shared with core.bake) -------------------------------------------------
def _norm2(dx: F32, dy: F32, out: F32) -> F32:
    """``dx**2 + dy**2`` into ``out``."""
    np.multiply(dx, dx, out=out)
    out += dy * dy
    return out


def _hillshade_block(dx: F32, dy: F32, g2: F32, sun: tuple[float, float, float], out: F32, tmp: F32) -> None:
    """``clip((up - east*dx - north*dy) / sqrt(1 + g2), 0, 1)`` into ``out`` (``tmp`` is scratch)."""
    e, n, u = sun
    np.add(g2, np.float32(1.0), out=tmp)
    np.sqrt(tmp, out=tmp)
    np.multiply(dx, np.float32(-e), out=out)
    out -= np.float32(n) * dy
    out += np.float32(u)
    out /= tmp
    np.clip(out, 0.0, 1.0, out=out)


#: The four lights of the multidirectional hillshade (Mark, 1992).
MULTIDIRECTIONAL_AZIMUTHS = (225.0, 270.0, 315.0, 360.0)


def _multidirectional_block(dx: F32, dy: F32, g2: F32, altitude_deg: float, out: F32, tmp: F32, along: F32) -> None:
    """Mark's oblique-weighted hillshade into ``out`` (``tmp`` and ``along`` are scratch)."""
    alt = math.radians(altitude_deg)
    sin_alt, cos_alt = np.float32(math.sin(alt)), np.float32(math.cos(alt))
    out.fill(0.0)
    for az_deg in MULTIDIRECTIONAL_AZIMUTHS:
        az = math.radians(az_deg)
        np.multiply(dx, np.float32(math.sin(az)), out=along)
        along += np.float32(math.cos(az)) * dy
        np.multiply(along, -cos_alt, out=tmp)
        tmp += sin_alt
        np.maximum(tmp, 0.0, out=tmp)
        tmp *= along
        tmp *= along
        out += tmp
    # total / (2 g2 sqrt(1 + g2)); flat cells (g2 == 0) get sin(altitude).
    np.add(g2, np.float32(1.0), out=tmp)
    np.sqrt(tmp, out=tmp)
    tmp *= g2
    tmp *= np.float32(2.0)
    flat = g2 == 0.0
    np.copyto(tmp, np.float32(1.0), where=flat)
    out /= tmp
    np.copyto(out, sin_alt, where=flat)
    np.clip(out, 0.0, 1.0, out=out)


def _slope_block(g2: F32, out: F32) -> None:
    """Slope in degrees, ``atan(sqrt(g2))``, into ``out``."""
    np.sqrt(g2, out=out)
    np.arctan(out, out=out)
    out *= np.float32(180.0 / math.pi)


def _curvature_block(ext: F32, scale: float, out: F32, tmp: F32) -> None:
    """``-scale * laplacian`` of the heights in ``ext`` (the block with its border) into ``out``."""
    centre = ext[1:-1, 1:-1]
    np.subtract(ext[1:-1, :-2], centre, out=out)
    for other in (ext[1:-1, 2:], ext[:-2, 1:-1], ext[2:, 1:-1]):
        np.subtract(other, centre, out=tmp)
        out += tmp
    out *= np.float32(-scale)


def _normal_block(dx: F32, dy: F32, g2: F32, out: F32, tmp: F32, tmp2: F32) -> None:
    """OpenGL tangent-space normal ``(-dx, -dy, 1) / |.|`` mapped to ``[0, 1]`` into ``out`` (b, cols, 3)."""
    np.add(g2, np.float32(1.0), out=tmp)
    np.sqrt(tmp, out=tmp)
    np.divide(np.float32(-0.5), tmp, out=tmp)  # minus half the inverse length
    np.multiply(dx, tmp, out=tmp2)
    tmp2 += np.float32(0.5)
    out[..., 0] = tmp2
    np.multiply(dy, tmp, out=tmp2)
    tmp2 += np.float32(0.5)
    out[..., 1] = tmp2
    np.subtract(np.float32(0.5), tmp, out=tmp2)
    out[..., 2] = tmp2


def _per_block(
    heightmap: npt.ArrayLike,
    cell_size: float,
    z_factor: float,
    shape_tail: tuple[int, ...],
    kernel: Callable[[F32, F32, F32, F32, F32, F32, F32], None],
) -> F32:
    """Run ``kernel(ext, dx, dy, g2, out_block, tmp, tmp2)`` over the blocks of one Horn pass."""
    h, cell, z = _heights(heightmap, cell_size, z_factor)
    grad = _Gradient(h, cell, z)
    out = np.empty(h.shape + shape_tail, np.float32)
    g2_buf, tmp_buf, tmp2_buf = (np.empty_like(grad.dx_buf) for _ in range(3))
    for r0, r1, ext, dx, dy in grad.blocks():
        b = r1 - r0
        g2 = _norm2(dx, dy, g2_buf[:b])
        kernel(ext, dx, dy, g2, out[r0:r1], tmp_buf[:b], tmp2_buf[:b])
    return out


def hillshade(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    azimuth: float = 315.0,
    altitude: float = 45.0,
    z_factor: float = 1.0,
) -> F32:
    """Standard GIS hillshade: the cosine of the angle between the surface normal and the sun.

    ``max(0, (sin(alt) - cos(alt) * (dz/dx * sin(az) + dz/dy * cos(az))) /
    sqrt(1 + dz/dx**2 + dz/dy**2))`` with Horn's gradient; the same model as
    ``gdaldem hillshade -compute_edges`` (whose 8-bit output is ``1 + 254 *
    hillshade``), edges included (see the module docstring).

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Heights in metres.
    cell_size : float
        Cell size in metres, in ``[1e-9, 1e9]``.
    azimuth : float
        Sun azimuth in degrees clockwise from north (taken modulo 360).
    altitude : float
        Sun altitude in degrees, ``[0, 90]``.
    z_factor : float
        Vertical exaggeration, in ``[1e-9, 1e9]``.

    Returns
    -------
    ndarray of float32, shape (rows, cols), in ``[0, 1]``.
    """
    sun = sun_vector(azimuth, altitude)
    return _per_block(
        heightmap,
        cell_size,
        z_factor,
        (),
        lambda ext, dx, dy, g2, out, tmp, tmp2: _hillshade_block(dx, dy, g2, sun, out, tmp),
    )


def multidirectional_hillshade(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    altitude: float = 45.0,
    z_factor: float = 1.0,
) -> F32:
    """Multidirectional oblique-weighted hillshade (Mark, "Multidirectional, oblique-weighted,
    shaded-relief image of the Island of Hawaii", USGS OF 92-422, 1992), as ``gdaldem -multidirectional``.

    Four lights at azimuths 225, 270, 315 and 360 degrees; each light's
    hillshade (clamped at 0) is weighted by the square of the gradient's
    component along its direction, ``(grad . l)**2``, so a slope is lit most
    by the light it faces; the weights sum to ``2 |grad|**2`` and the result
    is their weighted mean. Flat cells get ``sin(altitude)``.

    Parameters and result as :func:`hillshade` (no azimuth).
    """
    alt = check_number(altitude, "altitude", 0.0, 90.0)
    return _per_block(
        heightmap,
        cell_size,
        z_factor,
        (),
        lambda ext, dx, dy, g2, out, tmp, tmp2: _multidirectional_block(dx, dy, g2, alt, out, tmp, tmp2),
    )


def normal_map(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> F32:
    """Tangent-space normal map, OpenGL convention: ``float32 (rows, cols, 3)`` in ``[0, 1]``.

    The unit normal ``(-dz/dx, -dz/dy, 1) / |.|`` with X east (red) and Y
    north (green, "Y+" as OpenGL, Blender and Unity expect; flip green for
    DirectX/Unreal), mapped from ``[-1, 1]`` to ``[0, 1]``: flat ground is
    ``(0.5, 0.5, 1)``. Horn's gradient, edges as the module docstring says.
    """
    return _per_block(
        heightmap,
        cell_size,
        z_factor,
        (3,),
        lambda ext, dx, dy, g2, out, tmp, tmp2: _normal_block(dx, dy, g2, out, tmp, tmp2),
    )


def slope_degrees(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> F32:
    """Slope angle in degrees, ``[0, 90)``: ``atan(|grad|)`` with Horn's gradient (as ``gdaldem slope
    -compute_edges``, edges as the module docstring says). ``float32 (rows, cols)``."""
    return _per_block(heightmap, cell_size, z_factor, (), lambda ext, dx, dy, g2, out, tmp, tmp2: _slope_block(g2, out))


def curvature(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> F32:
    """Curvature in 1/metres: minus the Laplacian of the heights, positive on ridges and peaks.

    ``-(d2z/dx2 + d2z/dy2)`` by central differences (Zevenbergen and Thorne,
    "Quantitative analysis of land surface topography", 1987, whose total
    curvature this is up to sign). Border cells extrapolate their missing
    neighbours linearly, as the gradient does: a plane's curvature is 0
    everywhere, and on an edge only the second difference along the edge
    remains. ``float32 (rows, cols)``.
    """
    h, cell, z = _heights(heightmap, cell_size, z_factor)
    scale = z / (cell * cell)
    rows, cols = h.shape
    block = _block_rows(cols)
    ext_buf = np.empty((min(block, rows) + 2, cols + 2), np.float32)
    tmp_buf = np.empty((min(block, rows), cols), np.float32)
    out = np.empty(h.shape, np.float32)
    for r0 in range(0, rows, block):
        r1 = min(rows, r0 + block)
        ext = ext_buf[: r1 - r0 + 2]
        _fill_extension(ext, h, r0, r1)
        _curvature_block(ext, scale, out[r0:r1], tmp_buf[: r1 - r0])
    return out


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
    d_col, d_row = math.sin(az), -math.cos(az)  # one unit step toward the sun, array axes
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


def check_light_work(work: int, what: str) -> None:
    """Refuse a shadow or ambient-occlusion request above :data:`MAX_LIGHT_WORK` cell samples,
    naming the parameters in ``what``."""
    if work > MAX_LIGHT_WORK:
        raise ValueError(
            f"{what}: {work:.3g} cell samples, more than {MAX_LIGHT_WORK:.2g} (about a minute): "
            "use fewer directions, a smaller radius or a smaller map"
        )


def cast_shadows(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    azimuth: float = 315.0,
    altitude: float = 45.0,
    z_factor: float = 1.0,
    softness: float = 2.0,
    max_distance: int | None = None,
    *,
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
    h, cell, z = _heights(heightmap, cell_size, z_factor)
    alt_deg, soft, k, reach = _shadow_parameters(h.shape, azimuth, altitude, softness, max_distance, samples)
    return _cast_shadows(h, cell, z, float(azimuth) % 360.0, alt_deg, soft, k, reach, check_origin(origin))


def check_origin(origin: object) -> tuple[int, int]:
    """A checked ``(row, col)`` world origin of a window, each in ``[0, 2**20]``."""
    if not isinstance(origin, (tuple, list)) or len(origin) != 2:
        raise TypeError(f"origin must be a (row, col) pair of integers, got {origin!r}")
    return check_count(origin[0], "origin row", 0, 1 << 20), check_count(origin[1], "origin col", 0, 1 << 20)


def shadow_reach(
    relief: float, cell_size: float, altitude: float, softness: float = 2.0, samples: int = SHADOW_SAMPLES
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
    relief = check_number(relief, "relief", 0.0, MAX_HEIGHT)
    cell = check_number(cell_size, "cell_size", 1e-9, 1e9)
    alt = check_number(altitude, "altitude", 0.0, 90.0)
    soft = check_number(softness, "softness", 0.01, 45.0)
    lowest = min(_disc_altitudes(alt, soft, check_count(samples, "samples", 1, 64)))
    if lowest >= 90.0:
        return 0
    if lowest <= 0.0:
        return None
    return math.ceil(relief / (math.tan(math.radians(lowest)) * cell)) + 1


def shadow_margins(azimuth: float, reach: int) -> tuple[int, int, int, int]:
    """Cells a window must grow by on its ``(north, south, west, east)`` sides for exact shadows.

    Only the sides toward the sun: :func:`cast_shadows`' ray from a cell
    moves at most ``reach`` lines along the sun's major axis and at most as
    many across it. ``reach`` from :func:`shadow_reach`, ``[0, 2**20]``.
    """
    az = math.radians(check_number(azimuth, "azimuth") % 360.0)
    n = check_count(reach, "reach", 0, 1 << 20)
    d_col, d_row = math.sin(az), -math.cos(az)  # toward the sun
    eps = 1e-12  # cos(90 degrees) is 6e-17: its drift moves no ray across a world of 2**20 cells
    return (n if d_row < -eps else 0, n if d_row > eps else 0, n if d_col < -eps else 0, n if d_col > eps else 0)


def _shadow_parameters(
    shape: tuple[int, ...], azimuth: float, altitude: float, softness: float, max_distance: int | None, samples: int
) -> tuple[float, float, int, int | None]:
    """Checked ``(altitude, softness, samples, max_distance)`` of :func:`cast_shadows`, its work bounded."""
    check_number(azimuth, "azimuth")
    alt_deg = check_number(altitude, "altitude", 0.0, 90.0)
    soft = check_number(softness, "softness", 0.01, 45.0)
    k = check_count(samples, "samples", 1, 64)
    reach = None if max_distance is None else check_count(max_distance, "max_distance", 1, 1 << 20)
    check_light_work(
        shadow_work((shape[0], shape[1]), k, reach), f"cast_shadows: {k} samples over {shape[0]} x {shape[1]} cells"
    )
    return alt_deg, soft, k, reach


def _cast_shadows(
    h: F32,
    cell: float,
    z: float,
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
    step = math.hypot(1.0, drift) * cell / z  # metres along the ray per row of v, in unscaled heights
    altitudes = _disc_altitudes(alt_deg, soft, k)
    always = sum(1 for a in altitudes if a >= 90.0)
    slopes = [math.tan(math.radians(a)) * step for a in altitudes if a < 90.0]
    n = v.shape[0]
    steps = None if reach is None else max(1, int(math.floor(reach / math.hypot(1.0, drift) + 1e-9)))
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
    chunk = max(16, 4 * _BLOCK_CELLS // n)
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


# --- ambient occlusion ------------------------------------------------------------------------
def _march_distances(max_cells: float, growth: float) -> list[int]:
    """Step distances in cells: every cell up to 8, then growing by ``growth`` (distinct integers)."""
    d, out = 1.0, []
    while d <= max_cells:
        out.append(int(round(d)))
        d = d + 1.0 if d < 8 else d * growth
    return sorted(set(out))


def _ambient_plan(shape: tuple[int, int], directions: int, radius: int) -> list[list[tuple[int, int, float]]]:
    """Per direction, the ``(d_row, d_col, 1 / length in cells)`` of each sample inside the map."""
    rows, cols = shape
    distances = _march_distances(float(radius), 1.25)
    plan = []
    for k in range(directions):
        az = 2.0 * math.pi * k / directions
        east, north = math.sin(az), math.cos(az)
        steps = []
        for d in distances:
            dr, dc = int(round(-north * d)), int(round(east * d))
            if abs(dr) >= rows or abs(dc) >= cols or (dr == 0 and dc == 0):
                continue
            steps.append((dr, dc, 1.0 / math.hypot(dr, dc)))
        plan.append(steps)
    return plan


def ambient_work(shape: tuple[int, int], directions: int = 16, radius: int = 64) -> int:
    """Work of :func:`ambient_occlusion` on a ``(rows, cols)`` map, in cell samples.

    ``rows x cols x`` the number of samples (directions x distances) that
    fall inside the map.
    """
    rows, cols = shape
    return rows * cols * sum(len(s) for s in _ambient_plan(shape, directions, radius))


def _workers(cells: int) -> int:
    """Threads for a kernel over ``cells`` cells: numpy releases the GIL inside each block's operations."""
    return 1 if cells < (1 << 18) else max(1, min(4, os.cpu_count() or 1))


def ambient_occlusion(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    z_factor: float = 1.0,
    directions: int = 16,
    radius: int = 64,
) -> F32:
    """Ambient occlusion from horizon angles: the share of the sky a cell sees.

    In the manner of horizon-based sky-view factors (Zakšek, Oštir and
    Kokalj, "Sky-view factor as a relief visualization technique", Remote
    Sensing 3, 2011; also RVT and the heightmap AO of terrain tools): in each
    of ``directions`` evenly spaced azimuths the horizon angle ``h`` is the
    steepest elevation angle of the terrain sampled within ``radius`` cells
    (at the nearest cell every cell out to 8 cells, then 25 % further each
    sample; cells beyond the map do not occlude); the cell sees
    ``1 - sin(max(h, 0))`` of the sky in that direction, averaged over the
    directions.

    **Speed.** Opposite directions are marched together: the rise
    ``h[i + dr, j + dc] - h[i, j]`` one samples at a cell is, negated, the
    rise the other samples at the far cell, so one subtraction and one
    multiplication serve two samples (with ``directions`` even; the horizons
    are exactly those of marching each direction alone). The map is padded
    with its lowest height so that a block of rows and each sample of it are
    contiguous runs of memory; blocks of rows small enough to stay in the
    processor's cache are marched southwards in ``float32``, in bands of rows
    on up to four threads. The values equal a whole-map ``float64`` march
    within about ``1e-5`` (float32 rounding), at every sample of the full
    resolution (no coarser level).

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Heights in metres.
    cell_size, z_factor : float
        As :func:`hillshade`.
    directions : int
        ``4 <= directions <= 360``.
    radius : int
        Search radius in cells, ``1 <= radius <= 100000``.

    Returns
    -------
    ndarray of float32, shape (rows, cols), in ``[0, 1]`` (1 = open sky).

    Raises
    ------
    TypeError, ValueError
        For bad parameters, naming the parameter and its range, or work above
        :data:`MAX_LIGHT_WORK` (see :func:`ambient_work`).
    """
    h, cell, z = _heights(heightmap, cell_size, z_factor)
    plan = _ambient_parameters(h.shape, directions, radius)
    return _ambient_occlusion(h, cell, z, plan)


def _ambient_parameters(shape: tuple[int, ...], directions: int, radius: int) -> list[list[tuple[int, int, float]]]:
    """The checked sampling plan of :func:`ambient_occlusion`, its work bounded."""
    n_dir = check_count(directions, "directions", 4, 360)
    r = check_count(radius, "radius", 1, 100_000)
    rows, cols = shape[0], shape[1]
    plan = _ambient_plan((rows, cols), n_dir, r)
    check_light_work(
        rows * cols * sum(len(s) for s in plan),
        f"ambient_occlusion: {n_dir} directions x radius {r} over {rows} x {cols} cells",
    )
    return plan


def _ambient_occlusion(h: F32, cell: float, z: float, plan: list[list[tuple[int, int, float]]]) -> F32:
    """:func:`ambient_occlusion` of checked float32 heights (not yet scaled by ``z``) with a checked plan."""
    rows, cols = h.shape
    scaled = [[(dr, dc, np.float32(inv * z / cell)) for dr, dc, inv in steps] for steps in plan]
    jobs = _ambient_jobs(scaled)
    reach = max((dr for samples, _ in jobs for dr, *_ in samples), default=0)
    # The map is laid out with ``pad`` columns each side holding its lowest height (no occluder: a rise
    # to it is never positive, a rise from it never negative) and ``pad`` more cells before and after, so
    # that a block of rows and any sample of it within the padding are each one contiguous run of memory.
    pad = min(_AO_PAD, max((abs(dc) for samples, _ in jobs for _, dc, *_ in samples), default=0))
    width = cols + 2 * pad
    flat = np.full(rows * width + 2 * pad, h.min(), np.float32)
    flat[pad : pad + rows * width].reshape(rows, width)[:, pad : pad + cols] = h
    sky = np.zeros(rows * width, np.float32)
    layout = _Layout(rows, cols, pad, width)
    block = max(1, _AO_BLOCK_CELLS // width)
    # Bands of whole blocks, several per thread, so that a thread slowed by another job does not hold up
    # the rest; a band carries its opposite directions' horizons from block to block.
    workers = _workers(rows * cols)
    band = rows if workers == 1 else max(block, -(-rows // (workers * _AO_BANDS_PER_WORKER * block)) * block)
    bands = [(r0, min(rows, r0 + band)) for r0 in range(0, rows, band)]
    local = threading.local()

    def run(rng: tuple[int, int]) -> None:
        if not hasattr(local, "buffers"):
            b = min(block, rows)
            local.buffers = (
                np.empty(b * width, np.float32),
                np.empty((2, b * width), np.float32),
                np.empty((2, (_AO_AHEAD_BLOCKS * b + reach) * width + 2 * pad), np.float32),
            )
        for samples, members in jobs:
            _ambient_band(flat, layout, rng[0], rng[1], block, samples, members, sky, local.buffers)

    if len(bands) > 1:
        with ThreadPoolExecutor(min(workers, len(bands))) as pool:
            list(pool.map(run, bands))
    else:
        run(bands[0])
    del flat
    out = np.empty(h.shape, np.float32)
    np.multiply(sky.reshape(rows, width)[:, pad : pad + cols], np.float32(-1.0 / len(plan)), out=out)
    out += np.float32(1.0)
    np.clip(out, 0.0, 1.0, out=out)
    return out


#: Cells per block of rows of ambient occlusion: its working set is a few blocks and the rows they sample;
#: measured fastest on two cores with a 1 MiB second-level cache each.
_AO_BLOCK_CELLS = 1 << 18
#: Columns of padding beside the map for ambient occlusion's samples (farther ones are clipped, slower).
_AO_PAD = 256
#: Blocks of rows the opposite directions' buffer holds beyond the reach (it moves up once per so many).
_AO_AHEAD_BLOCKS = 4
#: Bands of rows per thread (a band is one thread's unit of work; more bands balance a shared machine).
_AO_BANDS_PER_WORKER = 4


class _Layout(NamedTuple):
    """The padded map of :func:`_ambient_occlusion`: ``rows x cols`` cells, ``pad`` columns each side."""

    rows: int
    cols: int
    pad: int
    width: int


Job = tuple[list[tuple[int, int, np.float32, int, int]], int]


def _ambient_jobs(plan: list[list[tuple[int, int, np.float32]]]) -> list[Job]:
    """Opposite directions paired into jobs of samples ``(d_row, d_col, scale, forward, back)``, ``d_row >= 0``.

    The rise ``h[i + dr, j + dc] - h[i, j]`` that one direction samples at
    cell ``(i, j)`` is, negated, the rise its opposite samples at
    ``(i + dr, j + dc)``: one subtraction and one multiplication serve both.
    Every sample is turned to point south (or east along a row); ``forward``
    is the member of the job (0 or 1) that samples it as it is, at the cell
    itself, ``back`` the member that samples it negated, at the far cell
    (-1 for none). The second item is the number of directions in the job.
    """
    n = len(plan)
    half = n // 2 if n % 2 == 0 else 0
    jobs: list[Job] = []
    for k in range(half or n):
        members = [k, k + half] if half else [k]
        samples: dict[tuple[int, int], list[Any]] = {}
        for m, direction in enumerate(members):
            for dr, dc, inv in plan[direction]:
                south = dr > 0 or (dr == 0 and dc > 0)
                key = (dr, dc) if south else (-dr, -dc)
                entry = samples.setdefault(key, [key[0], key[1], inv, -1, -1])
                entry[3 if south else 4] = m
        jobs.append(([(e[0], e[1], e[2], e[3], e[4]) for _, e in sorted(samples.items())], len(members)))
    return jobs


def _ambient_band(
    flat: F32,
    layout: _Layout,
    t0: int,
    t1: int,
    block: int,
    samples: list[tuple[int, int, np.float32, int, int]],
    members: int,
    sky: F32,
    buffers: tuple[F32, F32, F32],
) -> None:
    """Add one job's ``sin(horizon)`` of rows ``t0 .. t1 - 1`` to ``sky``, marching blocks of rows southwards.

    ``best[m]`` holds member ``m``'s steepest rise found at the cell itself
    for the current block; ``ahead[m]`` the steepest found through negated
    rises, negated (a running minimum), for the rows from the current block
    to ``reach`` rows past it (after ``pad`` cells of margin).
    """
    rows, _, pad, width = layout
    tmp, best, ahead = buffers
    reach = max((dr for dr, *_ in samples), default=0)
    forwards = {forward for *_, forward, _ in samples if forward >= 0}
    backs = {back for *_, back in samples if back >= 0}
    lines = (ahead.shape[1] - 2 * pad) // width  # rows base .. base + lines - 1 of the map
    base = t0
    ahead[:members].fill(0.0)
    # Rises from the rows above the band reach into it.
    for dr, dc, inv, _, back in samples:
        for a0 in range(max(0, t0 - dr), min(t0, rows - dr), block) if back >= 0 else ():
            _ambient_sample(
                flat, layout, a0, min(t0, rows - dr, a0 + block), t0, base, dr, dc, inv, -1, back, tmp, best, ahead
            )
    for r0 in range(t0, t1, block):
        r1 = min(t1, r0 + block)
        size = (r1 - r0) * width
        if r0 + block + reach > base + lines:  # the rows still to come move to the top; the rest start from 0
            kept = (base + lines - r0) * width
            for m in backs:
                ahead[m, pad : pad + kept] = ahead[m, pad + (r0 - base) * width : pad + lines * width]
                ahead[m, pad + kept :].fill(0.0)
            base = r0
        at = pad + (r0 - base) * width
        for m in forwards:
            best[m, :size].fill(0.0)  # horizons below 0 count as 0
        for dr, dc, inv, forward, back in samples:
            _ambient_sample(
                flat, layout, r0, min(r1, rows - dr), r0, base, dr, dc, inv, forward, back, tmp, best, ahead
            )
        t = tmp[:size]
        for m in sorted(forwards | backs):  # a direction without samples adds sin(0) = 0
            negated = m not in forwards  # sin(atan(t)) is odd: work on the negated horizon and subtract
            if negated:
                horizon = ahead[m, at : at + size]
            else:
                horizon = best[m, :size]
                if m in backs:
                    np.negative(ahead[m, at : at + size], out=t)
                    np.maximum(horizon, t, out=horizon)
            # sin(atan(t)) = t / sqrt(1 + t * t)
            np.multiply(horizon, horizon, out=t)
            t += np.float32(1.0)
            np.sqrt(t, out=t)
            np.divide(horizon, t, out=t)
            if negated:
                sky[r0 * width : r1 * width] -= t
            else:
                sky[r0 * width : r1 * width] += t


def _ambient_sample(
    flat: F32,
    layout: _Layout,
    a0: int,
    a1: int,
    r0: int,
    base: int,
    dr: int,
    dc: int,
    inv: np.float32,
    forward: int,
    back: int,
    tmp: F32,
    best: F32,
    ahead: F32,
) -> None:
    """One shared sample ``(dr, dc)`` of rows ``a0 .. a1 - 1``; ``best`` starts at row ``r0``, ``ahead`` at ``base``."""
    rows, cols, pad, width = layout
    if a0 >= a1:
        return
    if abs(dc) <= pad:  # whole padded rows: contiguous runs (the padding's values change nothing)
        size = (a1 - a0) * width
        at, shift = pad + a0 * width, dr * width + dc
        t = tmp[:size]
        np.subtract(flat[at + shift : at + shift + size], flat[at : at + size], out=t)
        t *= inv
        at = (a0 - r0) * width
        if forward >= 0:
            view = best[forward, at : at + size]
            np.maximum(view, t, out=view)
        if back >= 0:
            at = (a0 - base) * width
            view = ahead[back, pad + at + shift : pad + at + shift + size]
            np.minimum(view, t, out=view)
        return
    c0, c1 = pad + max(0, -dc), pad + min(cols, cols - dc)  # columns whose sample lies on the map
    if c0 >= c1:
        return
    grid = flat[pad : pad + rows * width].reshape(rows, width)
    t2 = tmp[: (a1 - a0) * width].reshape(a1 - a0, width)[:, c0:c1]
    np.subtract(grid[a0 + dr : a1 + dr, c0 + dc : c1 + dc], grid[a0:a1, c0:c1], out=t2)
    t2 *= inv
    if forward >= 0:
        view2 = best[forward, : (a1 - r0) * width].reshape(a1 - r0, width)[a0 - r0 :, c0:c1]
        np.maximum(view2, t2, out=view2)
    if back >= 0:
        lines = (ahead.shape[1] - 2 * pad) // width
        view2 = ahead[back, pad : pad + lines * width].reshape(lines, width)[
            a0 + dr - base : a1 + dr - base, c0 + dc : c1 + dc
        ]
        np.minimum(view2, t2, out=view2)


def combined_lightmap(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    azimuth: float = 315.0,
    altitude: float = 45.0,
    z_factor: float = 1.0,
    multidirectional: bool = False,
    shadows: bool = True,
    shadow_softness: float = 2.0,
    ambient: bool = True,
    ambient_strength: float = 1.0,
    ambient_directions: int = 16,
    ambient_radius: int = 64,
) -> F32:
    """``hillshade x shadow x AO**strength``, each part switchable; ``float32`` in ``[0, 1]``.

    Parameters are those of :func:`hillshade` (or
    :func:`multidirectional_hillshade`), :func:`cast_shadows` and
    :func:`ambient_occlusion`; ``ambient_strength`` is in ``[0, 10]``.
    """
    strength = check_number(ambient_strength, "ambient_strength", 0.0, 10.0)
    if multidirectional:
        light = multidirectional_hillshade(heightmap, cell_size, altitude, z_factor)
    else:
        light = hillshade(heightmap, cell_size, azimuth, altitude, z_factor)
    if shadows:
        light *= cast_shadows(heightmap, cell_size, azimuth, altitude, z_factor, shadow_softness)
    if ambient and strength > 0.0:
        light *= _ambient_power(
            ambient_occlusion(heightmap, cell_size, z_factor, ambient_directions, ambient_radius), strength
        )
    np.clip(light, 0.0, 1.0, out=light)
    return light


def _ambient_power(ao: F32, strength: float) -> F32:
    """``ao ** strength`` in place, as ``exp(strength * log(ao))`` (vectorised float32 exp and log)."""
    if strength != 1.0:
        with np.errstate(divide="ignore"):  # log(0) = -inf, and exp(-inf) = 0 as it should
            np.log(ao, out=ao)
        ao *= np.float32(strength)
        np.exp(ao, out=ao)
    return ao
