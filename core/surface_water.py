"""Rivers and lakes: water where it gathers, and the Rivers and Lakes filter that makes it.

:func:`surface_water` finds the standing and running water of a heightmap in metres:

* **Lakes.** Every closed depression holds water to its spill level, the surface priority-flood filling
  gives (Barnes, Lehman & Mulla 2014); ``lake_depth`` is that surface less the ground, so its water plane is
  flat and meets the shore where the ground rises through it.
* **Rivers.** Water routes over the filled surface (D8, flats drained towards lower ground,
  :func:`.erosion.flow.route_flow`), so every river runs through its lakes and leaves the map or reaches the
  sea. A cell is a river where its drainage area passes ``river_area`` m² outside lakes and the sea. Its
  discharge ``Q = runoff x A`` (m³/s, ``runoff`` the mean annual runoff in metres a year) sets the channel by
  the downstream hydraulic geometry of Leopold & Maddock (1953), "The hydraulic geometry of stream channels
  and some physiographic implications" (USGS Professional Paper 252): width ``w = a Q^b`` and depth
  ``d = c Q^f`` with their exponents ``b = 0.5`` and ``f = 0.4``.
* **Carving.** The river bed is cut ``d`` below the ground, so the water surface lies where the ground was.
  Along a river the ground never rises downstream (the filled surface does not) and ``d`` never falls (the
  drainage area grows), so the bed never rises either: the water flows downhill without steps and the
  carving opens no new depression.

:func:`water_mesh` turns the maps back into geometry for a renderer: a flat quad over each grid cell a lake
reaches, at its spill level, and along each river a ribbon from every cell to its receiver, as wide as the
channel at each end, at the water surface.

The Rivers and Lakes filter (``rivers``) runs :func:`surface_water` on the whole heightmap and gives back the
carved heights (normalised), with the ``lake_depth``, ``river_width`` and ``river_depth`` maps (metres) and
the ``drainage_area`` and ``flow_direction`` of its own routing in place of any earlier filter's.
Invariants: heights and depths in metres; nothing is raised but puddles shallower than :data:`LAKE_DEPTH`
(filled: ground, not lake); a heightmap with no depression and no cell past
``river_area`` comes back unchanged; same input, same output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .drain import add_height_change, sea_in_metres, sea_params
from .erosion.depressions import drain_depressions
from .erosion.flow import NEIGHBOR_OFFSETS, drainage_area, flow_direction, route_flow
from .heightmap import as_heightmap, check_number
from .params import Filter, Param, register_filter

__all__ = ["SECONDS_PER_YEAR", "SurfaceWater", "surface_water", "water_mesh"]

#: Seconds in a Julian year: runoff in metres a year to metres a second.
SECONDS_PER_YEAR = 365.25 * 86400.0
#: Leopold & Maddock's (1953) downstream exponents of width and depth on discharge.
WIDTH_EXPONENT, DEPTH_EXPONENT = 0.5, 0.4
#: Metres: water shallower than this is no lake (a flat the filling raised by float64 steps, a lake's very rim).
LAKE_DEPTH = 1.0e-3
_WHOLE_WORLD = 1 << 30
_OFFSETS = np.asarray(NEIGHBOR_OFFSETS, dtype=np.int64)


@dataclass(frozen=True)
class SurfaceWater:
    """What :func:`surface_water` found; every array ``(rows, cols)``, row 0 north.

    Attributes
    ----------
    heights : ndarray of float64
        The ground with the river beds carved (and puddles under :data:`LAKE_DEPTH` filled), metres.
    lake_depth : ndarray of float32
        Depth of standing water over the ground, metres (0: no lake; at least :data:`LAKE_DEPTH` in one); ground
        + depth is the lake's spill level.
    river_width, river_depth : ndarray of float32
        The channel's width and depth, metres (0 off the rivers); the water surface is the carved bed + depth.
    drainage_area : ndarray of float32
        Area draining through each cell over the filled surface, m².
    discharge : ndarray of float32
        Mean annual discharge ``runoff x drainage_area``, m³/s.
    direction : ndarray of int8
        D8 code of each cell's receiver (index into :data:`.erosion.flow.NEIGHBOR_OFFSETS`, -1 at outlets).
    """

    heights: npt.NDArray[np.float64]
    lake_depth: npt.NDArray[np.float32]
    river_width: npt.NDArray[np.float32]
    river_depth: npt.NDArray[np.float32]
    drainage_area: npt.NDArray[np.float32]
    discharge: npt.NDArray[np.float32]
    direction: npt.NDArray[np.int8]


def surface_water(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    river_area: float = 1.0e6,
    runoff: float = 0.5,
    width_coefficient: float = 4.0,
    depth_coefficient: float = 0.3,
    carve: bool = True,
    open_edges: str = "nesw",
    sea_level: float | None = None,
) -> SurfaceWater:
    """Lakes at their spill level and rivers with hydraulic geometry (the module docstring says how).

    Parameters
    ----------
    heights_m : array_like, shape (rows, cols)
        Finite heights in metres, row 0 north.
    cell_size : float
        Metres between grid points, in ``(0, 1e6]``.
    river_area : float
        Drainage area at which a river begins, m², ``> 0`` (about a square kilometre for perennial streams).
    runoff : float
        Mean annual runoff (precipitation less evaporation), metres a year, ``[0, 100]``.
    width_coefficient, depth_coefficient : float
        ``a`` and ``c`` of ``w = a Q^0.5`` and ``d = c Q^0.4`` (metres at 1 m³/s), ``>= 0``.
    carve : bool
        Cut each river's bed ``d`` below the ground (else the ground stays and the water stands ``d`` above it).
    open_edges : str
        Letters of ``"nesw"``: the map edges water leaves through.
    sea_level : float, optional
        Cells below it (metres) are sea: base level, neither lake nor river.

    Returns
    -------
    SurfaceWater

    Raises
    ------
    TypeError, ValueError
        For bad heights or cell size, a parameter out of its range (named), bad edges, or no base level.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    cs = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)
    river_area = check_number(river_area, "river_area", low=0.0, low_open=True)
    runoff = check_number(runoff, "runoff", low=0.0, high=100.0)
    a = check_number(width_coefficient, "width_coefficient", low=0.0, high=1.0e4)
    c = check_number(depth_coefficient, "depth_coefficient", low=0.0, high=1.0e3)
    filled = drain_depressions(z, cs, mode="fill", open_edges=open_edges, sea_level=sea_level)
    lake = filled - z
    is_lake = lake >= LAKE_DEPTH
    lake = np.where(is_lake, lake, 0.0)
    # Shallower than that (the filling's float64 steps across a flat, a puddle under a millimetre) is ground: the
    # filled surface, so along every flow path the ground never rises.
    z = np.where(is_lake, z, filled)
    routing = route_flow(filled, cs, open_edges=open_edges, sea_level=sea_level)
    area = drainage_area(routing)
    q = area * (runoff / SECONDS_PER_YEAR)
    river = (area >= river_area) & (lake <= 0.0)
    if sea_level is not None:
        river &= z >= sea_level
    width = np.where(river, a * q**WIDTH_EXPONENT, 0.0)
    depth = np.where(river, c * q**DEPTH_EXPONENT, 0.0)
    carved = z - depth if carve else z.copy()
    return SurfaceWater(
        heights=carved,
        lake_depth=lake.astype(np.float32),
        river_width=width.astype(np.float32),
        river_depth=depth.astype(np.float32),
        drainage_area=area.astype(np.float32),
        discharge=q.astype(np.float32),
        direction=flow_direction(routing),
    )


def _grid_xy(rows: int, cols: int, cell: float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Mesh X and Y (metres, centred on the origin, row 0 at +Y) of every grid point, ``(rows, cols)`` each."""
    x = (np.arange(cols, dtype=np.float64) - (cols - 1) / 2.0) * cell
    y = ((rows - 1) / 2.0 - np.arange(rows, dtype=np.float64)) * cell
    return np.broadcast_to(x[None, :], (rows, cols)), np.broadcast_to(y[:, None], (rows, cols))


def water_mesh(
    ground: npt.ArrayLike,
    cell_size: float,
    *,
    lake_depth: npt.ArrayLike,
    river_width: npt.ArrayLike,
    river_depth: npt.ArrayLike,
    direction: npt.ArrayLike,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int32]]:
    """The lakes' and rivers' water surfaces as quads, in the coordinates of an Orogen grid mesh.

    Parameters
    ----------
    ground : array_like, shape (rows, cols)
        The terrain's Z in metres (the carved ground), row 0 north.
    cell_size : float
        Metres between grid points, ``> 0``.
    lake_depth, river_width, river_depth : array_like, shape (rows, cols)
        Metres, ``>= 0`` (as :func:`surface_water` gives them).
    direction : array_like, shape (rows, cols)
        D8 codes, integers in ``[-1, 7]`` (floats are rounded, as a mesh attribute holds them).

    Returns
    -------
    vertices : ndarray of float32, shape (n, 3)
        X and Y centred on the origin with row 0 at ``+Y`` (:func:`addon.mesh.grid_coordinates`'s frame), Z
        the water surface in metres.
    quads : ndarray of int32, shape (n // 4, 4)
        Counter-clockwise seen from above (normals up). Lakes first: one flat quad over each grid cell that has
        a lake corner, at the highest spill level among its lake corners, unless a corner that is not lake lies
        more than :data:`LAKE_DEPTH` below that level (the overflow over a sill: no water plane hangs over lower
        ground). Then one ribbon
        quad per river point with a receiver, from the point (moved back half its width, so bends close) to the
        receiver, as wide as the channel at each end (the upstream width where the receiver is no river), its
        Z the water surface at each end (a lake's level where the receiver is in a lake).

    Raises
    ------
    TypeError, ValueError
        For maps that are not finite 2-D arrays of one shape, negative depths or widths, codes out of range or
        pointing off the grid from a river point, or a bad cell size, naming them.
    """
    z = as_heightmap(ground, "ground", dtype=np.float64)
    cs = check_number(cell_size, "cell_size", low=0.0, low_open=True)
    maps = {}
    for name, values in (("lake_depth", lake_depth), ("river_width", river_width), ("river_depth", river_depth)):
        v = as_heightmap(values, name, dtype=np.float64)
        if v.shape != z.shape:
            raise ValueError(f"{name} must have the ground's shape {z.shape}, got {v.shape}")
        if (v < 0.0).any():
            raise ValueError(f"{name} must be >= 0 (metres)")
        maps[name] = v
    code = np.rint(as_heightmap(direction, "direction", dtype=np.float64))
    if code.shape != z.shape:
        raise ValueError(f"direction must have the ground's shape {z.shape}, got {code.shape}")
    if ((code < -1) | (code > 7)).any():
        raise ValueError("direction must hold D8 codes in [-1, 7]")
    code = code.astype(np.int64)
    rows, cols = z.shape
    x, y = _grid_xy(rows, cols, cs)
    depth_l, width, depth_r = maps["lake_depth"], maps["river_width"], maps["river_depth"]
    lake = depth_l > 0.0
    level = np.where(lake, z + depth_l, -np.inf)
    parts: list[npt.NDArray[np.float64]] = []
    if rows > 1 and cols > 1 and lake.any():
        # each grid cell's corners counter-clockwise from above: SW (r+1, c), SE (r+1, c+1), NE (r, c+1), NW (r, c)
        head, tail = slice(None, -1), slice(1, None)
        corners: tuple[tuple[slice, slice], ...] = ((tail, head), (tail, tail), (head, tail), (head, head))
        face_level = np.max([level[s] for s in corners], axis=0)
        face = np.isfinite(face_level)
        for s in corners:
            face &= lake[s] | (z[s] >= face_level - LAKE_DEPTH)
        quads = np.empty((int(face.sum()), 4, 3))
        for k, s in enumerate(corners):
            quads[:, k, 0] = x[s][face]
            quads[:, k, 1] = y[s][face]
            quads[:, k, 2] = face_level[face]
        parts.append(quads)
    river = (width > 0.0) & (code >= 0)
    if river.any():
        r, c = np.nonzero(river)
        dr = _OFFSETS[code[r, c], 0]
        dc = _OFFSETS[code[r, c], 1]
        rr, cc = r + dr, c + dc
        if ((rr < 0) | (rr >= rows) | (cc < 0) | (cc >= cols)).any():
            raise ValueError("direction points off the grid at a river point")
        surface = z + depth_r  # the water surface of a river point; a lake's level where it is lake
        surface = np.where(lake, z + depth_l, surface)
        w0 = width[r, c]
        w1 = np.where(width[rr, cc] > 0.0, width[rr, cc], w0)
        x0, y0, x1, y1 = x[r, c], y[r, c], x[rr, cc], y[rr, cc]
        length = np.hypot(x1 - x0, y1 - y0)
        ux, uy = (x1 - x0) / length, (y1 - y0) / length
        nx, ny = -uy, ux  # to the left of the flow
        bx, by = x0 - ux * 0.5 * w0, y0 - uy * 0.5 * w0  # moved back half the width: the bend closes
        z0, z1 = surface[r, c], surface[rr, cc]
        quads = np.empty((r.size, 4, 3))
        # right bank upstream, right downstream, left downstream, left upstream: counter-clockwise from above
        quads[:, 0] = np.stack([bx - nx * 0.5 * w0, by - ny * 0.5 * w0, z0], axis=-1)
        quads[:, 1] = np.stack([x1 - nx * 0.5 * w1, y1 - ny * 0.5 * w1, z1], axis=-1)
        quads[:, 2] = np.stack([x1 + nx * 0.5 * w1, y1 + ny * 0.5 * w1, z1], axis=-1)
        quads[:, 3] = np.stack([bx + nx * 0.5 * w0, by + ny * 0.5 * w0, z0], axis=-1)
        parts.append(quads)
    if not parts:
        return np.zeros((0, 3), dtype=np.float32), np.zeros((0, 4), dtype=np.int32)
    allq = np.concatenate(parts)
    vertices = allq.reshape(-1, 3).astype(np.float32)
    return vertices, np.arange(vertices.shape[0], dtype=np.int32).reshape(-1, 4)


# --- the filter ---------------------------------------------------------------------------------------------


def _rivers(
    heightmap: Any,
    *,
    cell_size: float,
    height: float,
    river_area: float,
    runoff: float,
    width_coefficient: float,
    depth_coefficient: float,
    carve: bool,
    use_sea_level: bool,
    sea_level: float,
    maps: dict[str, Any] | None = None,
    callback: Any = None,
) -> Any:
    """The Rivers and Lakes filter on a normalised heightmap at the terrain's scale, back to normalised units."""
    scale = max(float(height), 1e-6)
    metres = np.asarray(heightmap, dtype=np.float64) * scale
    sea = sea_in_metres(metres, sea_level) if use_sea_level else None
    water = surface_water(
        metres,
        cell_size,
        river_area=river_area,
        runoff=runoff,
        width_coefficient=width_coefficient,
        depth_coefficient=depth_coefficient,
        carve=carve,
        sea_level=sea,
    )
    add_height_change(maps, metres, water.heights)
    if maps is not None:
        maps["lake_depth"] = water.lake_depth
        maps["river_width"] = water.river_width
        maps["river_depth"] = water.river_depth
        maps["drainage_area"] = water.drainage_area
        maps["flow_direction"] = water.direction.astype(np.float32)
    return (water.heights / scale).astype(np.float32)


register_filter(
    Filter(
        "rivers",
        "Rivers and Lakes",
        "Water where it gathers: lakes at the spill level of closed depressions, rivers along the channels as "
        "wide and deep as their discharge, their beds carved",
        _rivers,
        (
            Param(
                "river_area",
                "float",
                1.0e6,
                hard=(1.0e-6, 1.0e12),
                soft=(1.0e3, 1.0e8),
                unit="m2",
                label="River Area",
                description="Drainage area at which a river begins (perennial streams: about 1 km², 1e6 m²; "
                "a terrain smaller than this has lakes but no rivers)",
            ),
            Param(
                "runoff",
                "float",
                0.5,
                hard=(0.0, 100.0),
                soft=(0.0, 5.0),
                unit="m/yr",
                label="Runoff",
                description="Mean annual runoff, precipitation less evaporation (deserts 0.01, temperate 0.3-0.6, "
                "wet mountains 1-3): discharge is runoff x drainage area",
            ),
            Param(
                "width_coefficient",
                "float",
                4.0,
                hard=(0.0, 1.0e4),
                soft=(0.0, 50.0),
                unit="m",
                label="Width at 1 m³/s",
                description="Channel width at a discharge of 1 m³/s; width grows as the square root of discharge "
                "(Leopold & Maddock 1953)",
            ),
            Param(
                "depth_coefficient",
                "float",
                0.3,
                hard=(0.0, 1.0e3),
                soft=(0.0, 5.0),
                unit="m",
                label="Depth at 1 m³/s",
                description="Channel depth at a discharge of 1 m³/s; depth grows as discharge to the 0.4",
            ),
            Param(
                "carve",
                "bool",
                True,
                label="Carve Beds",
                description="Cut each river's bed its depth below the ground, so the water lies where the "
                "ground was (off: the water stands on the ground)",
            ),
            *sea_params("Cells under the sea level are sea (base level), neither lake nor river"),
        ),
        source="Leopold & Maddock 1953; Barnes, Lehman & Mulla 2014",
        margin=lambda _p: _WHOLE_WORLD,
        passes=lambda _p: 12,
        uses_scale=True,
        makes_maps=True,
    )
)
