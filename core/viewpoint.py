"""A landscape camera's viewpoint, chosen from the relief: where a drone hovers and which way it looks.

A picture of a landscape is taken from inside it: from a little above the
ground near one side of the terrain, level, looking across it towards its
larger relief, with the sun to one side (side light models the slopes; light
from behind the relief leaves every slope that faces the camera in shadow).
:func:`landscape_viewpoint` chooses that vantage from a heightmap in metres by
sampling the terrain along a fan of rays in each candidate direction, as a
photographer scouting the place would look around; :func:`frame_top` says how
much of a level camera's frame the terrain and the sky above it need.

Coordinates are the terrain mesh's (``addon/mesh.py``): metres, X east and Y
north from the grid's centre, Z the height as given; azimuths in degrees
clockwise from north, as the sun's (:func:`core.sun_vector`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .heightmap import as_heightmap, check_number

#: Angles between the view and the sun's azimuth the camera may take, in degrees, on either side: light from
#: the side, neither from behind the camera (flat) nor from behind the relief (the near slopes in shadow).
SIDE_ANGLES = (80.0, 70.0, 90.0, 60.0, 100.0)
#: Where along the terrain's side each candidate direction's camera may stand: shifted across the view by these
#: shares of the half-size from the line through the centre (the centre line first), so a camera can find low
#: ground (a valley, a canyon floor) off that line instead of standing on a plateau.
LATERAL = (0.0, -0.45, 0.45)
#: Rays of the fan sampled in each candidate direction, and samples along each ray.
FAN_RAYS, RAY_SAMPLES = 9, 96


@dataclass(frozen=True)
class Viewpoint:
    """A landscape camera: where it is and which way it looks (see the module's coordinates).

    ``position``: ``(x, y, z)`` in metres, inside the terrain's bounds, ``z`` above the ground under it.
    ``azimuth``: the horizontal view direction in degrees clockwise from north, in ``[0, 360)``.
    ``ground``: the terrain's height under the camera, metres. ``far``: the horizontal distance in metres
    from the camera to the terrain's edge straight ahead. ``silhouette``: the tangent of the highest elevation
    angle at which the camera sees terrain inside the fan (negative when all of it lies below eye level).
    """

    position: tuple[float, float, float]
    azimuth: float
    ground: float
    far: float
    silhouette: float

    @property
    def direction(self) -> tuple[float, float, float]:
        """The unit view direction ``(x, y, z)``: level, along :attr:`azimuth`."""
        a = math.radians(self.azimuth)
        return (math.sin(a), math.cos(a), 0.0)


_F64 = npt.NDArray[np.float64]


def _sample(heights: npt.NDArray[np.float32], cell: float, x: _F64, y: _F64) -> _F64:
    """Bilinear heights at mesh coordinates ``x``, ``y`` (metres, any shape, clamped to the grid), float64."""
    rows, cols = heights.shape
    c = np.clip(x / cell + (cols - 1) / 2.0, 0.0, cols - 1.0)
    r = np.clip((rows - 1) / 2.0 - y / cell, 0.0, rows - 1.0)
    c0 = np.minimum(np.floor(c).astype(np.intp), max(cols - 2, 0))
    r0 = np.minimum(np.floor(r).astype(np.intp), max(rows - 2, 0))
    c1, r1 = np.minimum(c0 + 1, cols - 1), np.minimum(r0 + 1, rows - 1)
    fc, fr = c - c0, r - r0
    h = heights.astype(np.float64, copy=False)
    top = h[r0, c0] * (1 - fc) + h[r0, c1] * fc
    bottom = h[r1, c0] * (1 - fc) + h[r1, c1] * fc
    out: _F64 = top * (1 - fr) + bottom * fr
    return out


def _exit(px: float, py: float, ux: _F64, uy: _F64, hx: float, hy: float) -> _F64:
    """Distance from ``(px, py)`` inside the box ``|x| <= hx, |y| <= hy`` along unit ``(ux, uy)`` to its edge."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tx = np.where(np.abs(ux) > 1e-12, (np.copysign(hx, ux) - px) / ux, np.inf)
        ty = np.where(np.abs(uy) > 1e-12, (np.copysign(hy, uy) - py) / uy, np.inf)
    return np.maximum(np.minimum(tx, ty), 0.0)


def landscape_viewpoint(
    heights: npt.NDArray[np.float32],
    cell_size: float,
    *,
    sun_azimuth: float,
    half_fov: float = 32.0,
    drone: float | None = None,
    max_silhouette: float = 0.18,
) -> Viewpoint:
    """The vantage of a landscape picture of ``heights``: a level camera at drone height near one edge.

    ``heights``: ``float32 (rows, cols)``, metres, row 0 north (the mesh's Z); ``cell_size``: metres between
    vertices; ``sun_azimuth``: degrees clockwise from north; ``half_fov``: the camera's horizontal half field of
    view in degrees ``(0, 90)``; ``drone``: the camera's height above the ground under it in metres (default a
    fifth of the relief or 3 % of the terrain's width, the larger, clamped to 15-400 m, as a drone flies: low
    hills are seen from high enough to show their pattern); ``max_silhouette``: the tangent of the
    highest elevation angle at which the camera may see terrain (``>= 0``; a camera lower than that would
    look up at a wall).

    Each candidate direction lies :data:`SIDE_ANGLES` from the sun's azimuth (either side, so the sun lights
    the view from the side). Its camera stands where the line back from the terrain's centre (or from a point
    :data:`LATERAL` shares of the half-size across the view from it) meets the edge,
    moved in by 4 % of the half-size (at least two cells); the fan of :data:`FAN_RAYS` rays across the field
    of view, :data:`RAY_SAMPLES` bilinear samples each out to the far edge, scores the direction: the mean
    plus the standard deviation of the heights past the first quarter of the way (the relief the picture
    looks at), less the height under the camera. The camera stands at the drone height above the ground,
    higher where it must be to clear every sample of the fan's first fifth by half the drone height (no near
    hill fills the frame, the camera is never under the terrain) and to see no terrain above
    ``max_silhouette``; what it had to rise counts against the direction. The best wins (the first on a tie).

    Deterministic (fixed candidate order, float64 sums in a fixed order). Raises ``ValueError`` for a
    heightmap that is not 2-D, has fewer than 2 rows or columns or non-finite heights, a ``cell_size`` or
    ``drone`` that is not positive and finite, or ``half_fov`` or ``max_silhouette`` out of range;
    ``TypeError`` for a non-numeric argument.
    """
    heights = as_heightmap(heights, "heights")
    rows, cols = heights.shape
    if rows < 2 or cols < 2:
        raise ValueError(f"heights must have at least 2 rows and 2 columns, got shape {heights.shape}")
    cell_size = check_number(cell_size, "cell_size", low=0.0, low_open=True)
    sun_azimuth = check_number(sun_azimuth, "sun_azimuth")
    half_fov = check_number(half_fov, "half_fov", low=0.0, high=90.0, low_open=True, high_open=True)
    if drone is not None:
        drone = check_number(drone, "drone", low=0.0, low_open=True)
    max_silhouette = check_number(max_silhouette, "max_silhouette", low=0.0)
    cell = float(cell_size)
    hx, hy = (cols - 1) * cell / 2.0, (rows - 1) * cell / 2.0
    low, high = float(heights.min()), float(heights.max())
    relief = high - low
    if drone is None:
        drone = min(max(0.2 * relief, 0.03 * 2.0 * max(hx, hy), 15.0), 400.0)
    inset_x, inset_y = max(0.04 * hx, 2 * cell), max(0.04 * hy, 2 * cell)
    fan = np.radians(np.linspace(-half_fov, half_fov, FAN_RAYS))
    steps = (np.arange(RAY_SAMPLES, dtype=np.float64) + 0.5) / RAY_SAMPLES  # fractions of each ray's length
    best: tuple[float, Viewpoint] | None = None
    candidates = [(offset, side, lateral) for lateral in LATERAL for offset in SIDE_ANGLES for side in (1.0, -1.0)]
    for offset, side, lateral in candidates:
        azimuth = (float(sun_azimuth) + side * offset) % 360.0
        a = math.radians(azimuth)
        dx, dy = math.sin(a), math.cos(a)
        cx = float(np.clip(lateral * dy * hx, -(hx - inset_x), hx - inset_x))  # across the view: (dy, -dx)
        cy = float(np.clip(-lateral * dx * hy, -(hy - inset_y), hy - inset_y))
        back = float(_exit(cx, cy, np.array([-dx]), np.array([-dy]), hx - inset_x, hy - inset_y)[0])
        px, py = cx - dx * back, cy - dy * back
        ux, uy = np.sin(a + fan), np.cos(a + fan)
        length = _exit(px, py, ux, uy, hx, hy)  # (FAN_RAYS,)
        dist = length[:, None] * steps[None, :]  # (FAN_RAYS, RAY_SAMPLES), metres
        h = _sample(heights, cell, px + ux[:, None] * dist, py + uy[:, None] * dist)
        ground = float(_sample(heights, cell, np.array(px), np.array(py)))
        ahead = h[:, steps > 0.25]
        score = float(ahead.mean() + ahead.std() - ground)
        near = h[:, steps <= 0.2]
        z = max(ground + drone, float(near.max()) + 0.5 * drone, float((h - max_silhouette * dist).max()))
        score -= z - (ground + drone)  # a camera lifted over near or towering relief sees it less well
        silhouette = float(((h - z) / dist).max())
        far = float(_exit(px, py, np.array([dx]), np.array([dy]), hx, hy)[0])
        view = Viewpoint((px, py, z), azimuth, ground, far, silhouette)
        if best is None or score > best[0]:
            best = (score, view)
    assert best is not None
    return best[1]


def frame_top(silhouette: float, tan_half_height: float, sky: float = 0.28) -> float:
    """The tangent of the top edge of a level camera's frame that shows the terrain with sky above it.

    ``silhouette``: :attr:`Viewpoint.silhouette`; ``tan_half_height``: the tangent of the frame's vertical half
    field of view (positive); ``sky``: the fraction of the frame's height, in ``[0, 1)``, left above the higher
    of the silhouette and the horizon. The vertical lens shift that puts the frame there is
    ``frame_top(...) - tan_half_height`` in the same units. Raises ``ValueError`` out of range.
    """
    tan_half_height = check_number(tan_half_height, "tan_half_height", low=0.0, low_open=True)
    sky = check_number(sky, "sky", low=0.0, high=1.0, high_open=True)
    silhouette = check_number(silhouette, "silhouette")
    return max(silhouette, 0.0) + sky * 2.0 * tan_half_height
