"""Everything a terrain bake needs, from one Horn gradient: slope, curvature, lightmap, normals.

:func:`bake_maps` checks its input once, then walks the heightmap in blocks
of rows small enough to stay in the processor's cache, computing Horn's
gradient once per block (float32, differences of neighbours, edges
extrapolated as ``gdaldem -compute_edges``; see :mod:`.gradient`) and from it
the slope, the curvature, the hillshade (or the multidirectional hillshade,
or the classic slope lightmap) and optionally the normal map; cast shadows
and ambient occlusion, which need the whole map, multiply the hillshade
after. Each output equals the matching public function of :mod:`.hillshading`,
:mod:`.derivatives`, :mod:`.shadows` and :mod:`.occlusion`
(and :func:`.slope_light.slope_lightmap` within float32 rounding).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..heightmap import check_number
from .derivatives import curvature_block, normal_block, slope_block
from .gradient import F32, HornGradient, gradient_norm2, prepare_heights, rows_per_block, worker_count
from .hillshading import hillshade, hillshade_block, multidirectional_block, multidirectional_hillshade, sun_vector
from .occlusion import ambient_occlusion, ambient_parameters, occlusion_power, trace_occlusion
from .shadows import cast_shadows, check_origin, shadow_parameters, trace_shadows
from .slope_light import SlopeLight

__all__ = ["LIGHTINGS", "BakedMaps", "bake_maps", "combined_lightmap"]

#: The lightmaps :func:`bake_maps` can bake (``None`` bakes none).
LIGHTINGS = ("slope", "hillshade", "multidirectional")


@dataclass(frozen=True)
class BakedMaps:
    """The maps of one bake, each ``float32`` with the heightmap's ``(rows, cols)``.

    ``slope`` in degrees ``[0, 90)``; ``curvature`` in 1/m (positive on
    ridges); ``lightmap`` brightness in ``[min_brightness, max_brightness]``,
    or ``None`` when no lighting was asked for; ``normal`` the OpenGL
    tangent-space normal map ``(rows, cols, 3)`` in ``[0, 1]``, or ``None``.
    """

    slope: F32
    curvature: F32
    lightmap: F32 | None
    normal: F32 | None
    #: The ambient-occlusion factor multiplied into the lightmap (``AO^strength`` in ``[0, 1]``), ``None`` when off.
    occlusion: F32 | None = None


def bake_maps(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    lighting: str | None = "hillshade",
    azimuth: float = 315.0,
    altitude: float = 45.0,
    z_factor: float = 1.0,
    light_softness: float = 1.0,
    min_brightness: float = 0.0,
    max_brightness: float = 1.0,
    shadows: bool = False,
    shadow_softness: float = 2.0,
    ambient: bool = False,
    ambient_strength: float = 1.0,
    ambient_directions: int = 16,
    ambient_radius: int = 64,
    normals: bool = False,
    origin: tuple[int, int] = (0, 0),
) -> BakedMaps:
    """Slope, curvature, lightmap and (optionally) normal map of a heightmap in metres, in one pass.

    Parameters
    ----------
    heights_m : array_like, shape (rows, cols)
        Heights in metres (float32 is used as is; other types are converted once).
    cell_size : float
        Cell size in metres, ``[1e-9, 1e9]``.
    lighting : {"slope", "hillshade", "multidirectional"} or None
        The lightmap (case-insensitive): ``"slope"`` is
        :func:`.slope_light.slope_lightmap` (the classic tutorials' lighting:
        ``clip(1 - rise / light_softness, min_brightness, max_brightness)``
        toward ``azimuth``; ``altitude``, shadows and ambient occlusion do not
        apply); ``"hillshade"`` and ``"multidirectional"`` are
        :func:`.combined_lightmap` ``hillshade x shadow x
        AO**ambient_strength`` mapped to ``min_brightness + (max_brightness -
        min_brightness) * light``; ``None`` bakes no lightmap.
    azimuth, altitude : float
        The sun, degrees clockwise from north and above the horizon ``[0, 90]``.
    z_factor : float
        Vertical exaggeration ``[1e-9, 1e9]``, applied to every map.
    light_softness : float
        The slope lighting's softness, rise over run ``[1e-9, 1e9]``.
    min_brightness, max_brightness : float
        ``0 <= min_brightness <= max_brightness <= 1``.
    shadows, shadow_softness :
        Cast shadows (:func:`.cast_shadows`), penumbra in degrees ``[0.01, 45]``.
    ambient, ambient_strength, ambient_directions, ambient_radius :
        Ambient occlusion (:func:`.ambient_occlusion`), its exponent ``[0, 10]``.
    normals : bool
        Also bake the normal map.
    origin : (int, int)
        World row and column of ``heights_m[0, 0]`` when the heightmap is a
        window of a larger world (a tile grown by its margin), ``[0, 2**20]``
        each: cast shadows trace the world's rays (:func:`.cast_shadows`),
        so a cell's maps are the same in every window that holds its margin.

    Returns
    -------
    BakedMaps

    Raises
    ------
    TypeError, ValueError
        For bad input or parameters, naming the parameter and its range,
        before any work; also for shadows or ambient occlusion that would run
        for minutes (:data:`.MAX_LIGHT_WORK`).
    """
    h, cell, z = prepare_heights(heights_m, cell_size, z_factor)
    mode = _check_lighting(lighting)
    where = check_origin(origin)
    lo = check_number(min_brightness, "min_brightness", low=0.0, high=1.0)
    hi = check_number(max_brightness, "max_brightness", low=0.0, high=1.0)
    if lo > hi:
        raise ValueError(f"min_brightness ({lo}) must be <= max_brightness ({hi})")
    soft = check_number(light_softness, "light_softness", low=1e-9, high=1e9)
    sun = sun_vector(azimuth, altitude)
    alt_deg = check_number(altitude, "altitude", low=0.0, high=90.0)
    strength = check_number(ambient_strength, "ambient_strength", low=0.0, high=10.0)
    shade = mode in ("hillshade", "multidirectional")
    shadow_args = (
        shadow_parameters(h.shape, azimuth, altitude, softness=shadow_softness, max_distance=None, samples=8)
        if shade and shadows
        else None
    )
    plan = (
        ambient_parameters(h.shape, ambient_directions, ambient_radius) if shade and ambient and strength > 0 else None
    )

    rows, cols = h.shape
    slope = np.empty((rows, cols), np.float32)
    curv = np.empty((rows, cols), np.float32)
    light = np.empty((rows, cols), np.float32) if mode else None
    normal = np.empty((rows, cols, 3), np.float32) if normals else None
    scale = z / (cell * cell)

    def run(starts: list[int]) -> None:
        """The blocks of rows from ``starts[0]`` to the end of the block at ``starts[-1]``, own buffers."""
        grad = HornGradient(h, cell, z)
        g2_buf, tmp_buf, tmp2_buf = (np.empty_like(grad.dx_buf) for _ in range(3))
        slope_light = SlopeLight(h, cell / z, float(azimuth), soft, lo, hi, grad.ext.shape) if mode == "slope" else None
        for r0, r1, ext, dx, dy in grad.blocks(starts[0], min(rows, starts[-1] + grad.block)):
            b = r1 - r0
            g2, tmp, tmp2 = gradient_norm2(dx, dy, g2_buf[:b]), tmp_buf[:b], tmp2_buf[:b]
            slope_block(g2, slope[r0:r1])
            curvature_block(ext, scale, curv[r0:r1], tmp=tmp)
            if light is not None:
                if slope_light is not None:
                    slope_light.block(r0, r1, light[r0:r1], tmp)
                elif mode == "hillshade":
                    hillshade_block(dx, dy, g2, sun=sun, out=light[r0:r1], tmp=tmp)
                else:
                    multidirectional_block(dx, dy, g2, altitude_deg=alt_deg, out=light[r0:r1], tmp=tmp, along=tmp2)
            if normal is not None:
                normal_block(dx, dy, g2, out=normal[r0:r1], tmp=tmp, tmp2=tmp2)

    # Blocks of rows are independent (each reads its own rows and one beside them): runs of them go to
    # up to four threads, several runs per thread so that one slowed by another job holds up nothing.
    block = rows_per_block(cols)
    starts = list(range(0, rows, block))
    workers = worker_count(rows * cols)
    if workers > 1:
        size = -(-len(starts) // (4 * workers))
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(run, [starts[i : i + size] for i in range(0, len(starts), size)]))
    else:
        run(starts)
    occlusion = None
    if light is not None and shade:
        if shadow_args is not None:
            alt, penumbra, samples, _ = shadow_args
            light *= trace_shadows(
                h,
                cell,
                z,
                azimuth=float(azimuth) % 360.0,
                alt_deg=alt,
                soft=penumbra,
                k=samples,
                reach=None,
                origin=where,
            )
        if plan is not None:
            occlusion = occlusion_power(trace_occlusion(h, cell, z, plan=plan), strength)
            light *= occlusion
        np.clip(light, 0.0, 1.0, out=light)
        if (lo, hi) != (0.0, 1.0):
            light *= np.float32(hi - lo)
            light += np.float32(lo)
    return BakedMaps(slope, curv, light, normal, occlusion)


def _check_lighting(lighting: object) -> str | None:
    if lighting is None:
        return None
    if not isinstance(lighting, str) or lighting.lower() not in LIGHTINGS:
        raise ValueError(f"lighting must be one of {', '.join(LIGHTINGS)} or None, got {lighting!r}")
    return lighting.lower()


def combined_lightmap(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    *,
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
    strength = check_number(ambient_strength, "ambient_strength", low=0.0, high=10.0)
    if multidirectional:
        light = multidirectional_hillshade(heightmap, cell_size, altitude=altitude, z_factor=z_factor)
    else:
        light = hillshade(heightmap, cell_size, azimuth=azimuth, altitude=altitude, z_factor=z_factor)
    if shadows:
        light *= cast_shadows(
            heightmap, cell_size, azimuth=azimuth, altitude=altitude, z_factor=z_factor, softness=shadow_softness
        )
    if ambient and strength > 0.0:
        light *= occlusion_power(
            ambient_occlusion(
                heightmap, cell_size, z_factor=z_factor, directions=ambient_directions, radius=ambient_radius
            ),
            strength,
        )
    np.clip(light, 0.0, 1.0, out=light)
    return light
