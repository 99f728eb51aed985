"""Terrain lighting and data maps: hillshade, cast shadows, ambient occlusion, normals, slope, curvature.

Heights and the cell size are in metres (a ``z_factor`` scales heights, as
GIS tools do). Directions follow the GIS convention used everywhere in
Orogen: azimuth in degrees clockwise from north (row 0 is north), altitude in
degrees above the horizon.

Gradients use Horn's 3 x 3 operator (Horn, "Hill shading and the reflectance
map", Proc. IEEE 69(1), 1981), the one ``gdaldem`` and most GIS tools use.
**Edges:** the map is extended by repeating its border cells, so edge cells
get a defined one-sided gradient (GDAL instead leaves them as no-data unless
asked to compute them); interior cells do not depend on this choice.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .heightmap import as_heightmap, check_count, check_number

__all__ = [
    "horn_gradient",
    "hillshade",
    "multidirectional_hillshade",
    "cast_shadows",
    "ambient_occlusion",
    "combined_lightmap",
    "normal_map",
    "slope_degrees",
    "curvature",
]

#: Largest height (metres, after the z-factor) the shading functions accept: far beyond any terrain,
#: and small enough that gradients and curvature stay finite in float32 at the smallest cell size.
MAX_HEIGHT = 1e12

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]


def _heights(heightmap: npt.ArrayLike, cell_size: float, z_factor: float) -> tuple[F64, float]:
    h: F64 = as_heightmap(heightmap, dtype=np.float64)
    cell = check_number(cell_size, "cell_size", 1e-9, 1e9)
    z = check_number(z_factor, "z_factor", 1e-9, 1e9)
    scaled = h * z if z != 1.0 else h
    if float(np.abs(scaled).max()) > MAX_HEIGHT:
        raise ValueError(f"heights x z_factor must stay within +-{MAX_HEIGHT:g} metres")
    return scaled, cell


def _sun(azimuth: float, altitude: float) -> tuple[float, float, float]:
    """(east, north, up) components of the unit vector toward the sun."""
    az = math.radians(check_number(azimuth, "azimuth") % 360.0)
    alt = math.radians(check_number(altitude, "altitude", 0.0, 90.0))
    return math.sin(az) * math.cos(alt), math.cos(az) * math.cos(alt), math.sin(alt)


def horn_gradient(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> tuple[F64, F64]:
    """Horn's gradient ``(dz/d east, dz/d north)``, ``float64 (rows, cols)`` each, dimensionless.

    ``dz/dx = ((c + 2f + i) - (a + 2d + g)) / (8 * cell)`` over the 3 x 3
    window ``a b c / d e f / g h i`` (row 0 north), likewise north minus
    south for ``dz/dy``. Border cells repeat (see the module docstring).
    """
    h, cell = _heights(heightmap, cell_size, z_factor)
    p = np.pad(h, 1, mode="edge")
    scale = 1.0 / (8.0 * cell)
    # Horn's operator is separable: a 1-2-1 smoothing across the direction, a difference along it.
    across_rows = p[:-2] + 2.0 * p[1:-1] + p[2:]  # (rows, cols + 2)
    dx = (across_rows[:, 2:] - across_rows[:, :-2]) * scale
    del across_rows
    across_cols = p[:, :-2] + 2.0 * p[:, 1:-1] + p[:, 2:]  # (rows + 2, cols)
    dy = (across_cols[:-2] - across_cols[2:]) * scale
    return dx, dy


def _lambert(dx: F64, dy: F64, sun: tuple[float, float, float]) -> F64:
    """Cosine between the surface normal ``(-dx, -dy, 1)/|.|`` and the sun, unclamped numerator/denominator."""
    e, n, u = sun
    cosine: F64 = (u - dx * e - dy * n) / np.sqrt(1.0 + dx * dx + dy * dy)
    return cosine


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
    ``gdaldem hillshade`` (whose 8-bit output is ``1 + 254 * hillshade``).

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
    dx, dy = horn_gradient(heightmap, cell_size, z_factor)
    out: F32 = np.clip(_lambert(dx, dy, _sun(azimuth, altitude)), 0.0, 1.0).astype(np.float32)
    return out


#: The four lights of the multidirectional hillshade (Mark, 1992).
MULTIDIRECTIONAL_AZIMUTHS = (225.0, 270.0, 315.0, 360.0)


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
    dx, dy = horn_gradient(heightmap, cell_size, z_factor)
    alt = math.radians(check_number(altitude, "altitude", 0.0, 90.0))
    g2 = dx * dx + dy * dy
    total = np.zeros_like(dx)
    for az_deg in MULTIDIRECTIONAL_AZIMUTHS:
        az = math.radians(az_deg)
        se, sn = math.sin(az), math.cos(az)
        along = dx * se + dy * sn
        total += along * along * np.maximum(math.sin(alt) - math.cos(alt) * along, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        shade = total / (2.0 * g2 * np.sqrt(1.0 + g2))
    shade = np.where(g2 == 0.0, math.sin(alt), shade)
    out: F32 = np.clip(shade, 0.0, 1.0).astype(np.float32)
    return out


def _march_distances(max_cells: float, growth: float) -> list[int]:
    """Step distances in cells: every cell up to 8, then growing by ``growth`` (distinct integers)."""
    d, out = 1.0, []
    while d <= max_cells:
        out.append(int(round(d)))
        d = d + 1.0 if d < 8 else d * growth
    return sorted(set(out))


def _horizon_tangent(h: F64, cell: float, east: float, north: float, distances: list[int]) -> F64:
    """Largest ``(h(x + d*dir) - h(x)) / (d * cell)`` over the distances, along direction (east, north).

    Samples the nearest cell to each point of the ray; cells beyond the map
    do not occlude. Starts at ``-inf`` (nothing in the way).
    """
    rows, cols = h.shape
    best = np.full(h.shape, -np.inf)
    for d in distances:
        dr, dc = int(round(-north * d)), int(round(east * d))
        if abs(dr) >= rows or abs(dc) >= cols or (dr == 0 and dc == 0):
            continue
        # Cells (r, c) whose sample (r + dr, c + dc) lies on the map.
        r0, r1 = max(0, -dr), min(rows, rows - dr)
        c0, c1 = max(0, -dc), min(cols, cols - dc)
        sample = h[r0 + dr : r1 + dr, c0 + dc : c1 + dc]
        rise = (sample - h[r0:r1, c0:c1]) * (1.0 / (math.hypot(dr, dc) * cell))
        np.maximum(best[r0:r1, c0:c1], rise, out=best[r0:r1, c0:c1])
    return best


def cast_shadows(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    azimuth: float = 315.0,
    altitude: float = 45.0,
    z_factor: float = 1.0,
    softness: float = 2.0,
    max_distance: int | None = None,
) -> F32:
    """Cast shadows by marching toward the sun: 1 lit, 0 in shadow, soft at the edge.

    From each cell the ray toward the sun is sampled at growing distances
    (every cell up to 8 cells, then 10 % further each step, up to where the
    ray clears the map's highest point or ``max_distance`` cells). The cell's
    horizon angle toward the sun is the steepest elevation angle of the
    terrain along the ray; the cell is lit by the part of a sun disc
    ``softness`` degrees wide that stands above it:
    ``clip((altitude - horizon) / softness + 0.5, 0, 1)``.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Heights in metres.
    cell_size, azimuth, altitude, z_factor : float
        As :func:`hillshade`.
    softness : float
        Width of the penumbra in degrees, ``[0.01, 45]``.
    max_distance : int, optional
        Longest ray in cells (default: no limit beyond the map).

    Returns
    -------
    ndarray of float32, shape (rows, cols), in ``[0, 1]``.
    """
    h, cell = _heights(heightmap, cell_size, z_factor)
    east, north, up = _sun(azimuth, altitude)
    soft = check_number(softness, "softness", 0.01, 45.0)
    alt_deg = math.degrees(math.asin(up))
    rows, cols = h.shape
    reach = float(max(rows, cols))
    lowest = math.radians(max(alt_deg - soft / 2.0, 0.01))
    span = float(h.max() - h.min())
    reach = min(reach, span / (cell * math.tan(lowest)) + 1.0)
    if max_distance is not None:
        reach = min(reach, float(check_count(max_distance, "max_distance", 1, 1 << 20)))
    horizontal = math.hypot(east, north)
    if horizontal == 0.0:  # sun at the zenith: nothing casts a shadow
        return np.ones(h.shape, dtype=np.float32)
    tangent = _horizon_tangent(h, cell, east / horizontal, north / horizontal, _march_distances(reach, 1.1))
    horizon = np.degrees(np.arctan(tangent))  # -90 where nothing lies on the map toward the sun
    out: F32 = np.clip((alt_deg - horizon) / soft + 0.5, 0.0, 1.0).astype(np.float32)
    return out


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
    steepest elevation angle of the terrain within ``radius`` cells (marched
    as in :func:`cast_shadows`); the cell sees ``1 - sin(max(h, 0))`` of the
    sky in that direction, averaged over the directions.

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
    """
    h, cell = _heights(heightmap, cell_size, z_factor)
    n_dir = check_count(directions, "directions", 4, 360)
    r = check_count(radius, "radius", 1, 100_000)
    distances = _march_distances(float(r), 1.25)
    sky = np.zeros(h.shape)
    for k in range(n_dir):
        az = 2.0 * math.pi * k / n_dir
        tangent = _horizon_tangent(h, cell, math.sin(az), math.cos(az), distances)
        t = np.maximum(tangent, 0.0)
        sky += 1.0 - t / np.sqrt(1.0 + t * t)  # sin(arctan(t))
    out: F32 = np.clip(sky / n_dir, 0.0, 1.0).astype(np.float32)
    return out


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
        light = multidirectional_hillshade(heightmap, cell_size, altitude, z_factor).astype(np.float64)
    else:
        light = hillshade(heightmap, cell_size, azimuth, altitude, z_factor).astype(np.float64)
    if shadows:
        light *= cast_shadows(heightmap, cell_size, azimuth, altitude, z_factor, shadow_softness)
    if ambient and strength > 0.0:
        ao = ambient_occlusion(heightmap, cell_size, z_factor, ambient_directions, ambient_radius)
        light *= np.power(ao.astype(np.float64), strength)
    out: F32 = np.clip(light, 0.0, 1.0).astype(np.float32)
    return out


def normal_map(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> F32:
    """Tangent-space normal map, OpenGL convention: ``float32 (rows, cols, 3)`` in ``[0, 1]``.

    The unit normal ``(-dz/dx, -dz/dy, 1) / |.|`` with X east (red) and Y
    north (green, "Y+" as OpenGL, Blender and Unity expect; flip green for
    DirectX/Unreal), mapped from ``[-1, 1]`` to ``[0, 1]``: flat ground is
    ``(0.5, 0.5, 1)``.
    """
    dx, dy = horn_gradient(heightmap, cell_size, z_factor)
    inv = 1.0 / np.sqrt(1.0 + dx * dx + dy * dy)
    n = np.stack([-dx * inv, -dy * inv, inv], axis=-1)
    out: F32 = ((n + 1.0) * 0.5).astype(np.float32)
    return out


def slope_degrees(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> F32:
    """Slope angle in degrees, ``[0, 90)``: ``atan(|grad|)`` with Horn's gradient (as ``gdaldem slope``)."""
    dx, dy = horn_gradient(heightmap, cell_size, z_factor)
    out: F32 = np.degrees(np.arctan(np.sqrt(dx * dx + dy * dy))).astype(np.float32)
    return out


def curvature(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> F32:
    """Curvature in 1/metres: minus the Laplacian of the heights, positive on ridges and peaks.

    ``-(d2z/dx2 + d2z/dy2)`` by central differences (Zevenbergen and Thorne,
    "Quantitative analysis of land surface topography", 1987, whose total
    curvature this is up to sign); border cells repeat. ``float32 (rows, cols)``.
    """
    h, cell = _heights(heightmap, cell_size, z_factor)
    p = np.pad(h, 1, mode="edge")
    lap = (p[1:-1, :-2] + p[1:-1, 2:] + p[:-2, 1:-1] + p[2:, 1:-1] - 4.0 * h) / (cell * cell)
    out: F32 = (-lap).astype(np.float32)
    return out
