"""The carve filter: a river bed or a road cut along a curve (a Blender curve object, :mod:`core.inputs`).

A curve is one or more polylines in terrain-local metres (:class:`core.inputs.CurveInput`; X east, Y north,
Z up, the origin at the centre of the terrain's grid and at its Z = 0, so a point's Z is a terrain height in
metres). Every cell finds the nearest point of the curve in plan (its distance ``d`` in metres and the arc
length ``t`` of that point along its spline), and its height becomes a function of ``d``, of the bed
elevation at ``t`` and of its own height:

- **river**: a channel ``width`` metres wide and ``depth`` metres deep below its banks, with a cross-section
  that is a parabola (``u``: ``z = bed + depth (2 d / width)**2``) or a trapezoid (a flat bed half the width,
  sides rising linearly to the banks); the bed descends downstream, from a spline's first point to its last:
  it is the running minimum of the terrain sampled along the curve, less ``depth`` (``bed: terrain``), or of
  the curve's own Z (``bed: curve``), so it never rises. Banks blend back into the terrain over ``bank``
  metres with a smoothstep. The river only lowers: ``min(terrain, channel)``.
- **road**: a level bed ``width`` metres wide at the curve's own Z (optionally smoothed along the curve by a
  Gaussian of ``smoothing`` metres), a level shoulder of ``shoulder`` metres each side, and beyond it, for
  ``e = d - width / 2 - shoulder`` up to ``reach`` metres, cells above ``bed + e tan(cut_angle)`` are cut down
  to it and cells below ``bed - e tan(fill_angle)`` filled up to it (the cut and fill slopes of road
  earthworks).

Where several splines are near, the nearest one carves a cell (ties: the first). The distance search goes
segment by segment over each segment's bounding box grown by the filter's reach, vectorised over the cells
of the box (no per-cell Python loops): a curve of ``n`` segments costs ``n`` small array passes.

Windows are exact. A road, and a river whose bed follows the curve's Z, read only the curve and each cell's
own height (margin 0); a river whose bed follows the terrain samples heights along the whole curve, so it is
a global filter (margin of the whole world). The filter takes its window's position (``uses_window``) to
place the cells (:func:`core.inputs.grid_xy`).

Sources: the channel cross-sections of river-engineering practice (parabolic and trapezoidal sections, e.g.
V. T. Chow, *Open-Channel Hydraulics*, McGraw-Hill 1959, ch. 2); cut and fill slopes at a set angle as road
earthworks are laid out (e.g. AASHTO, *A Policy on Geometric Design of Highways and Streets*, 2018, ch. 4,
side slopes), as Houdini's heightfield and Gaea's road tools flatten a bed and grade its sides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from . import inputs
from .elementary import exp, tangent
from .params import Filter, Param, When, register_filter
from .window import Window, check_window

__all__ = ["carve_curve", "nearest_on_curve", "bed_profile", "MAX_SAMPLES", "MAX_COORDINATE"]

F64 = npt.NDArray[np.float64]

#: Most points a spline's bed profile is sampled at (a curve far longer than the terrain is sampled coarser).
MAX_SAMPLES = 1 << 20
#: A global filter reads the whole world around any window (as the erosion filters declare).
WHOLE_WORLD = 1 << 30
#: Farthest a curve's point may lie from the terrain's centre, in metres (squares of its distances stay finite).
MAX_COORDINATE = inputs.MAX_COORDINATE  # (a CurveInput refuses farther points when it is made)
#: Largest length in metres a carve setting takes (any terrain's size).
LENGTH_MAX = 1.0e7
#: Cells of arc a curve is thinned to before the distance search (:func:`thin`): a quarter of a cell.
THIN = 0.25


def _polylines(curve: inputs.CurveInput, spacing: float = 0.0) -> list[F64]:
    """Each spline's points, ``float64 (k, 3)``, a cyclic one closed with its first point; with ``spacing``
    (metres, > 0) thinned to about one point per ``spacing`` of arc (:func:`thin`)."""
    lines = [np.vstack([s, s[:1]]) if c else s for s, c in zip(curve.splines, curve.cyclic, strict=True)]
    return [thin(points, spacing) for points in lines] if spacing > 0.0 else lines


def thin(points: F64, spacing: float) -> F64:
    """``points`` (``float64 (k, 3)``, a polyline) keeping its first and last point and the first point of each
    ``spacing`` metres of arc length in 3D (so a step in the curve's height is kept): a curve evaluated far finer
    than the grid (a Bezier at a high resolution: 10⁵ points) costs what one at a quarter of a cell does, and
    gives the same carve to within the curve's own sagitta over ``spacing``. Depends on the curve and
    ``spacing`` only, so windows stay exact."""
    if len(points) <= 2:
        return points
    step = np.sqrt(np.sum(np.diff(points, axis=0) ** 2, axis=1))
    bins = np.floor(np.concatenate([[0.0], np.cumsum(step)]) / spacing)
    keep = np.empty(len(points), dtype=bool)
    keep[0], keep[-1] = True, True
    keep[1:-1] = bins[1:-1] != bins[:-2]
    return points[keep] if not keep.all() else points


def _arc(points: F64) -> F64:
    """Arc length in plan (XY) at each point of a polyline, ``float64 (k,)`` from 0."""
    step = np.sqrt(np.sum(np.diff(points[:, :2], axis=0) ** 2, axis=1))
    return np.concatenate([[0.0], np.cumsum(step)])


def nearest_on_curve(
    x: F64, y: F64, curve: inputs.CurveInput, *, reach: float, spacing: float = 0.0
) -> tuple[F64, npt.NDArray[np.int32], F64]:
    """The nearest point of ``curve`` in plan to every cell of the grid ``x`` by ``y``, within ``reach`` metres.

    Parameters
    ----------
    x, y : ndarray of float64, shapes (cols,) and (rows,)
        Cell positions in terrain-local metres (:func:`core.inputs.grid_xy`): ``x`` ascending, ``y`` descending.
    curve : CurveInput
        The polylines.
    reach : float
        Metres beyond which cells are not searched.
    spacing : float
        Metres of arc the polylines are thinned to (:func:`thin`; 0: every point).

    Returns
    -------
    distance : ndarray of float64, shape (rows, cols)
        Plan distance to the curve in metres; ``inf`` for cells outside every segment's bounding box grown by
        ``reach`` (cells within ``reach`` of the curve always have their true distance).
    spline : ndarray of int32, shape (rows, cols)
        Index of the nearest spline (-1 where none was searched).
    along : ndarray of float64, shape (rows, cols)
        Arc length in plan of the nearest point along its spline, metres from the spline's first point.

    Each segment updates the cells of its box where it is strictly nearer, so of equally near segments the
    first wins (deterministic); squared distances are compared and the square root taken once at the end.
    """
    shape = (len(y), len(x))
    best = np.full(shape, np.inf)
    spline = np.full(shape, -1, dtype=np.int32)
    along = np.zeros(shape)
    neg_y = -y  # x ascends and y descends (row 0 north): a box's cells are a slice of each
    for si, points in enumerate(_polylines(curve, spacing)):
        arc = _arc(points)
        for k in range(len(points) - 1):
            a, b = points[k], points[k + 1]
            c0 = int(np.searchsorted(x, min(a[0], b[0]) - reach, "left"))
            c1 = int(np.searchsorted(x, max(a[0], b[0]) + reach, "right"))
            r0 = int(np.searchsorted(neg_y, -max(a[1], b[1]) - reach, "left"))
            r1 = int(np.searchsorted(neg_y, -min(a[1], b[1]) + reach, "right"))
            if c0 >= c1 or r0 >= r1:
                continue
            px = x[c0:c1][None, :] - a[0]
            py = y[r0:r1][:, None] - a[1]
            ex, ey = b[0] - a[0], b[1] - a[1]
            length2 = ex * ex + ey * ey
            if length2 > 0.0:
                u = px * (ex / length2) + py * (ey / length2)
                np.clip(u, 0.0, 1.0, out=u)
            else:
                u = np.zeros((r1 - r0, c1 - c0))
            d2 = (px - u * ex) ** 2
            d2 += (py - u * ey) ** 2
            view = best[r0:r1, c0:c1]  # views: updated in place
            nearer = d2 < view
            view[nearer] = d2[nearer]
            spline[r0:r1, c0:c1][nearer] = si
            along[r0:r1, c0:c1][nearer] = arc[k] + u[nearer] * (arc[k + 1] - arc[k])
    np.sqrt(best, out=best)
    return best, spline, along


def _samples(points: F64, cell_size: float) -> tuple[F64, F64, F64, F64]:
    """A polyline resampled every half cell or finer in plan (at most :data:`MAX_SAMPLES` points, every vertex
    kept): arc lengths, X, Y and Z, each ``float64 (n,)``."""
    arc = _arc(points)
    total = float(arc[-1])
    step = max(cell_size / 2.0, total / MAX_SAMPLES)
    n = int(np.ceil(total / step)) + 1 if total > 0.0 else 1
    t = np.union1d(np.linspace(0.0, total, n), arc)
    return t, np.interp(t, arc, points[:, 0]), np.interp(t, arc, points[:, 1]), np.interp(t, arc, points[:, 2])


def _bilinear(heights: F64, x: F64, y: F64, cell_size: float) -> F64:
    """Heights of the whole world's grid at plan points (terrain-local metres), bilinear, clamped to the grid."""
    rows, cols = heights.shape
    fc = np.clip(x / cell_size + (cols - 1) / 2.0, 0.0, cols - 1)
    fr = np.clip((rows - 1) / 2.0 - y / cell_size, 0.0, rows - 1)
    c0 = np.minimum(np.floor(fc).astype(np.int64), max(cols - 2, 0))
    r0 = np.minimum(np.floor(fr).astype(np.int64), max(rows - 2, 0))
    c1, r1 = np.minimum(c0 + 1, cols - 1), np.minimum(r0 + 1, rows - 1)
    tc, tr = fc - c0, fr - r0
    top = (1.0 - tc) * heights[r0, c0] + tc * heights[r0, c1]
    bottom = (1.0 - tc) * heights[r1, c0] + tc * heights[r1, c1]
    out: F64 = (1.0 - tr) * top + tr * bottom
    return out


def _smooth(t: F64, z: F64, sigma: float) -> F64:
    """``z`` along arc lengths ``t`` smoothed by a Gaussian of ``sigma`` metres (ends held: edge padding)."""
    if sigma <= 0.0 or len(t) < 2 or t[-1] <= 0.0:
        return z
    step = max(float(t[-1]) / (len(t) - 1), sigma / 32.0)  # at most 32 samples per sigma: 193 taps
    n = int(np.ceil(float(t[-1]) / step)) + 1
    u = np.linspace(0.0, float(t[-1]), n)
    zu = np.interp(u, t, z)
    half = int(np.ceil(3.0 * sigma / step))
    offsets = np.arange(-half, half + 1, dtype=np.float64) * step
    kernel = exp(-0.5 * (offsets / sigma) ** 2)
    kernel /= kernel.sum()
    padded = np.concatenate([np.full(half, zu[0]), zu, np.full(half, zu[-1])])
    smoothed = np.zeros(n)
    for k, weight in enumerate(kernel):  # tap by tap in a fixed order (np.convolve may sum through BLAS)
        smoothed += weight * padded[k : k + n]
    out: F64 = np.interp(t, u, smoothed)
    return out


def bed_profile(
    points: F64,
    *,
    cell_size: float,
    mode: str,
    bed: str = "terrain",
    depth: float = 0.0,
    smoothing: float = 0.0,
    heights: F64 | None = None,
) -> tuple[F64, F64]:
    """The bed elevation along one spline: ``(t, z)``, arc lengths and metres, each ``float64 (n,)``.

    River (``mode="river"``): the running minimum from the spline's first point of the terrain (``heights``,
    the whole world's grid in metres, bilinear at points every half cell) less ``depth`` (``bed="terrain"``),
    or of the curve's Z (``bed="curve"``): non-increasing along ``t``. Road: the curve's Z, smoothed by a
    Gaussian of ``smoothing`` metres along the curve.

    ``ValueError`` for a river on the terrain without ``heights``.
    """
    t, sx, sy, sz = _samples(points, cell_size)
    if mode == "road":
        return t, _smooth(t, sz, smoothing)
    if bed == "terrain":
        if heights is None:
            raise ValueError("carve.bed: a river bed on the terrain needs the whole world's heights")
        sz = _bilinear(heights, sx, sy, cell_size) - depth
    return t, np.minimum.accumulate(sz)


def _smoothstep(s: F64) -> F64:
    s = np.clip(s, 0.0, 1.0)
    out: F64 = s * s * (3.0 - 2.0 * s)
    return out


def carve_curve(
    heights: npt.ArrayLike,
    curve: inputs.CurveInput,
    *,
    cell_size: float,
    mode: str = "river",
    width: float = 8.0,
    depth: float = 2.0,
    profile: str = "u",
    bed: str = "terrain",
    bank: float = 6.0,
    shoulder: float = 1.0,
    cut_angle: float = 35.0,
    fill_angle: float = 35.0,
    reach: float = 30.0,
    smoothing: float = 0.0,
    window: Window | None = None,
    world_shape: tuple[int, int] | None = None,
) -> F64:
    """Carve a river or a road along ``curve`` into ``heights`` (metres), as the module docstring says.

    Parameters
    ----------
    heights : array_like of float, shape (rows, cols)
        Terrain heights in metres (terrain-local Z) of ``window`` of the world.
    curve : CurveInput
        The curve, terrain-local metres.
    cell_size : float
        Metres between cells.
    mode : {"river", "road"}
    width : float
        Channel width at the banks (river) or bed width (road), metres, > 0.
    depth : float
        River: the channel's depth below its banks, metres.
    profile : {"u", "trapezoid"}
        River: the cross-section.
    bed : {"terrain", "curve"}
        River: the bed follows the terrain along the curve (less ``depth``) or the curve's own Z.
    bank : float
        River: metres over which the banks blend into the terrain.
    shoulder, cut_angle, fill_angle, reach, smoothing : float
        Road: level shoulder each side (m); cut and fill slope angles (degrees, 0 to 89); metres beyond the
        shoulder the slopes reach; Gaussian smoothing of the curve's Z along it (m).
    window : Window, optional
        Which cells of the world ``heights`` are (default: the whole world, ``world_shape = heights.shape``).
    world_shape : (int, int), optional
        The world's shape (default ``heights.shape``).

    Returns
    -------
    ndarray of float64, shape (rows, cols)
        The carved heights in metres; equal to ``heights`` beyond the carve's reach.

    Raises
    ------
    ValueError
        Naming the setting (``carve.width``) for a non-positive width, a window outside the world, or a river
        on the terrain given a window smaller than the world (it reads the whole world). A curve reaching
        farther than :data:`MAX_COORDINATE` metres is refused when its :class:`core.inputs.CurveInput` is made.
    """
    h = np.asarray(heights, dtype=np.float64)
    if h.ndim != 2:
        raise ValueError(f"carve: heights must be (rows, cols), got shape {h.shape}")
    shape = tuple(world_shape) if world_shape is not None else h.shape
    win = check_window((int(shape[0]), int(shape[1])), window)
    if win.shape != h.shape:
        raise ValueError(f"carve: heights {h.shape} must be the window's {win.shape}")
    if not width > 0.0:
        raise ValueError(f"carve.width must be greater than 0 m, got {width:g}")
    if mode == "river" and bed == "terrain" and win.shape != shape:
        raise ValueError("carve: a river whose bed follows the terrain reads the whole world, not a window")
    half = width / 2.0
    extent = half + bank if mode == "river" else half + shoulder + reach
    x, y = inputs.grid_xy((int(shape[0]), int(shape[1])), cell_size, win)
    spacing = THIN * cell_size
    d, spline, along = nearest_on_curve(x, y, curve, reach=extent, spacing=spacing)
    near = np.flatnonzero(d <= extent)  # the arithmetic below runs on the cells within reach only
    out: F64 = h.copy()
    if not near.size:
        return out
    dn, hn, sn, an = d.ravel()[near], h.ravel()[near], spline.ravel()[near], along.ravel()[near]
    del d, spline, along
    bed_z = np.zeros_like(dn)
    for si, points in enumerate(_polylines(curve, spacing)):
        t, z = bed_profile(
            points,
            cell_size=cell_size,
            mode=mode,
            bed=bed,
            depth=depth,
            smoothing=smoothing,
            heights=h if mode == "river" and bed == "terrain" else None,
        )
        here = sn == si
        bed_z[here] = np.interp(an[here], t, z)
    if mode == "river":
        s = np.minimum(dn / half, 1.0)
        rise = np.clip(2.0 * s - 1.0, 0.0, 1.0) if profile == "trapezoid" else s * s
        inside = np.minimum(hn, bed_z + depth * rise)
        blend = _smoothstep((dn - half) / bank) if bank > 0.0 else (dn > half).astype(np.float64)
        carved = inside + (hn - inside) * blend
    else:
        e = np.maximum(dn - half - shoulder, 0.0)
        up = bed_z + e * tangent(np.deg2rad(cut_angle))
        down = bed_z - e * tangent(np.deg2rad(fill_angle))
        carved = np.minimum(np.maximum(hn, down), up)
    out.ravel()[near] = carved
    return out


def _carve(
    heightmap: Any,
    *,
    cell_size: float,
    height: float,
    curve: str,
    mode: str,
    width: float,
    depth: float,
    profile: str,
    bed: str,
    bank: float,
    shoulder: float,
    cut_angle: float,
    fill_angle: float,
    reach: float,
    smoothing: float,
    window: Window | None = None,
    world_shape: tuple[int, int] | None = None,
    maps: dict[str, Any] | None = None,
    callback: Any = None,
) -> Any:
    """The filter: heights in units of ``height`` metres carved along the curve named ``curve`` (its input in
    :mod:`core.inputs`), back in those units; ``removed``/``deposited`` (cut and fill, metres) added to ``maps``."""
    del callback
    given = inputs.get("curve", curve, "carve.curve")
    if not isinstance(given, inputs.CurveInput):  # what inputs.using checked; for the type checker
        raise TypeError(f"carve.curve: {curve!r} is not a curve")
    h = np.asarray(heightmap, dtype=np.float32)
    if height <= 0.0:  # a flat terrain of no height: there are no metres to carve
        return h.copy()
    metres = h.astype(np.float64) * height
    carved = carve_curve(
        metres,
        given,
        cell_size=cell_size,
        mode=mode,
        width=width,
        depth=depth,
        profile=profile,
        bed=bed,
        bank=bank,
        shoulder=shoulder,
        cut_angle=cut_angle,
        fill_angle=fill_angle,
        reach=reach,
        smoothing=smoothing,
        window=window,
        world_shape=world_shape,
    )
    result = (carved / height).astype(np.float32)
    if maps is not None:
        change = (result.astype(np.float64) - h) * height
        for name, values in (("deposited", np.maximum(change, 0.0)), ("removed", np.maximum(-change, 0.0))):
            previous = maps.get(name)
            v = values.astype(np.float32)
            maps[name] = v if previous is None else (previous + v).astype(np.float32)
    return result


def _margin(p: Mapping[str, Any]) -> int:
    """A river whose bed follows the terrain is global; otherwise each cell reads only itself and the curve."""
    return WHOLE_WORLD if p.get("mode", "river") == "river" and p.get("bed", "terrain") == "terrain" else 0


def _length(name: str, label: str, default: float, description: str, soft: tuple[float, float], **kw: Any) -> Param:
    return Param(
        name, "float", default, hard=(0.0, LENGTH_MAX), soft=soft, unit="m", label=label, description=description, **kw
    )


RIVER = When("mode", "river")
ROAD = When("mode", "road")

PARAMS: Sequence[Param] = (
    Param(
        "curve",
        "object",
        "",
        label="Curve",
        description="The curve object to carve along (Bezier, NURBS or poly; its points in world metres, a "
        "river flowing from each spline's first point to its last)",
        object_kind="curve",
    ),
    Param(
        "mode",
        "enum",
        "river",
        label="Mode",
        description="What the curve carves",
        items=(
            ("river", "River", "A channel descending downstream, its banks blended into the terrain"),
            ("road", "Road", "A level bed at the curve's height with a shoulder and cut and fill slopes"),
        ),
    ),
    Param(
        "width",
        "float",
        8.0,
        hard=(1.0e-3, LENGTH_MAX),
        soft=(0.5, 200.0),
        unit="m",
        label="Width",
        description="The river's width at its banks, or the road's bed width",
    ),
    _length("depth", "Depth", 2.0, "How deep the river's bed lies below its banks", (0.0, 50.0), active_when=RIVER),
    Param(
        "profile",
        "enum",
        "u",
        label="Profile",
        description="The river's cross-section",
        items=(
            ("u", "U", "A parabola: deepest at the centre, rising to the banks"),
            ("trapezoid", "Trapezoid", "A flat bed half the width, sides rising straight to the banks"),
        ),
        active_when=RIVER,
    ),
    Param(
        "bed",
        "enum",
        "terrain",
        label="Bed",
        description="What the river's bed follows (never rising downstream)",
        items=(
            ("terrain", "Terrain", "The terrain along the curve less the depth (reads the whole terrain)"),
            ("curve", "Curve", "The curve's own height"),
        ),
        active_when=RIVER,
    ),
    _length(
        "bank", "Bank Width", 6.0, "Width over which the banks blend into the terrain", (0.0, 100.0), active_when=RIVER
    ),
    _length("shoulder", "Shoulder", 1.0, "Level shoulder each side of the road's bed", (0.0, 20.0), active_when=ROAD),
    Param(
        "cut_angle",
        "float",
        35.0,
        hard=(0.0, 89.0),
        soft=(5.0, 80.0),
        unit="deg",
        label="Cut Angle",
        description="Slope of the cuts where the road runs below the terrain",
        active_when=ROAD,
    ),
    Param(
        "fill_angle",
        "float",
        35.0,
        hard=(0.0, 89.0),
        soft=(5.0, 80.0),
        unit="deg",
        label="Fill Angle",
        description="Slope of the fills where the road runs above the terrain",
        active_when=ROAD,
    ),
    _length(
        "reach",
        "Reach",
        30.0,
        "How far beyond the shoulder the cut and fill slopes reach",
        (0.0, 500.0),
        active_when=ROAD,
    ),
    _length(
        "smoothing",
        "Smoothing",
        0.0,
        "Smooths the road's height along the curve (a Gaussian)",
        (0.0, 200.0),
        active_when=ROAD,
    ),
)

#: The terrain the carve filter's declared lengths and depth suit (Orogen's default terrain, metres).
_FIT_WIDTH, _FIT_HEIGHT = 100.0, 20.0


def _fit(scale: Mapping[str, float]) -> dict[str, Any]:
    """The bed's lengths scaled with the terrain's width and its depth with Height (the declared values on the
    default 100 m x 20 m terrain), within their hard bounds (:func:`core.params.fitted_defaults`)."""
    out: dict[str, Any] = {}
    for p in PARAMS:
        if p.unit != "m" or not isinstance(p.default, float):
            continue
        ratio = scale["height"] / _FIT_HEIGHT if p.name == "depth" else scale["width"] / _FIT_WIDTH
        value = p.default * ratio
        if p.hard is not None:
            value = min(max(value, p.hard[0]), p.hard[1])
        out[p.name] = float(value)
    return out


register_filter(
    Filter(
        "carve",
        "Carve Along Curve",
        "Carve a river bed or a road along a curve object",
        _carve,
        tuple(PARAMS),
        source="Chow 1959 (channel sections); AASHTO 2018 (side slopes)",
        margin=_margin,
        passes=lambda _p: 2,
        uses_scale=True,
        uses_window=True,
        makes_maps=True,
        memory=lambda _p: 120,
        fit=_fit,
    )
)
