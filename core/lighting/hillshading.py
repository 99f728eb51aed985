"""Hillshade: the sun's light on a slope (Horn's gradient), from one sun or from Mark's four.

Directions follow the GIS convention used everywhere in Orogen: azimuth in
degrees clockwise from north (row 0 is north), altitude in degrees above the
horizon. Outputs are ``float32`` in ``[0, 1]`` of the heightmap's shape, from
one pass of :class:`.gradient.HornGradient` (edges extrapolated linearly, so a
plane is lit exactly on every cell).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..elementary import sincos
from ..heightmap import check_number
from .gradient import F32, per_block

__all__ = [
    "sun_vector",
    "hillshade_block",
    "MULTIDIRECTIONAL_AZIMUTHS",
    "multidirectional_block",
    "hillshade",
    "multidirectional_hillshade",
]


def sun_vector(azimuth: float, altitude: float) -> tuple[float, float, float]:
    """``(east, north, up)`` components of the unit vector toward the sun, Blender's ``(x, y, z)``.

    ``azimuth`` in degrees clockwise from north (+Y), ``altitude`` in degrees above the horizon
    ``[0, 90]``. Raises ``ValueError``/``TypeError`` for a non-finite azimuth or an altitude out of range.
    """
    az = math.radians(check_number(azimuth, "azimuth") % 360.0)
    alt = math.radians(check_number(altitude, "altitude", low=0.0, high=90.0))
    sin_az, cos_az, sin_alt, cos_alt = (float(v) for v in (*sincos(az), *sincos(alt)))
    return sin_az * cos_alt, cos_az * cos_alt, sin_alt


def hillshade_block(dx: F32, dy: F32, g2: F32, *, sun: tuple[float, float, float], out: F32, tmp: F32) -> None:
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


def multidirectional_block(dx: F32, dy: F32, g2: F32, *, altitude_deg: float, out: F32, tmp: F32, along: F32) -> None:
    """Mark's oblique-weighted hillshade into ``out`` (``tmp`` and ``along`` are scratch)."""
    alt = math.radians(altitude_deg)
    sin_alt, cos_alt = (np.float32(v) for v in sincos(alt))
    out.fill(0.0)
    for az_deg in MULTIDIRECTIONAL_AZIMUTHS:
        az = math.radians(az_deg)
        sin_az, cos_az = sincos(az)
        np.multiply(dx, np.float32(sin_az), out=along)
        along += np.float32(cos_az) * dy
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


def hillshade(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    *,
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
    return per_block(
        heightmap,
        cell_size,
        z_factor,
        shape_tail=(),
        kernel=lambda ext, dx, dy, g2, out, tmp, tmp2: hillshade_block(dx, dy, g2, sun=sun, out=out, tmp=tmp),
    )


def multidirectional_hillshade(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    *,
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
    alt = check_number(altitude, "altitude", low=0.0, high=90.0)
    return per_block(
        heightmap,
        cell_size,
        z_factor,
        shape_tail=(),
        kernel=lambda ext, dx, dy, g2, out, tmp, tmp2: multidirectional_block(
            dx, dy, g2, altitude_deg=alt, out=out, tmp=tmp, along=tmp2
        ),
    )
