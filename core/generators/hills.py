"""Circle-based hills.

The hill algorithm as described in the circle-hills terrain tutorials (Nystrom,
"Terrain Generation Tutorial: Hill Algorithm"; Polack, *Focus on 3D Terrain
Programming*, 2002): raise many paraboloids ``z = r**2 - d**2`` on circular
bases, ignore their negative parts, add overlapping hills, normalise, then
optionally flatten with an exponent. In island mode each hill's centre lies at
a random angle and distance from the map's centre so that the hills cluster
into one land mass.

Orogen differences from the tutorial code: each hill only touches the cells
its base covers (cost grows with the hills' area, not with ``count x rows x
cols``), and all random values come from the counter-based hash in
:mod:`.rng`, so hill ``i`` is the same whatever the other hills are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..elementary import cos, sin
from ..heightmap import check_count, check_number, check_world_shape, flatten, normalize
from ..rng import check_seed, uniform
from ..window import Window, check_window

__all__ = [
    "MAX_HILLS",
    "MAX_RADIUS",
    "MAX_HILL_WORK",
    "HillSet",
    "hill_parameters",
    "add_hill",
    "raw_hills",
    "circle_hills",
    "hills_raw",
]

#: Upper bound on the number of hills per call.
MAX_HILLS = 1_000_000
#: Upper bound on a hill's radius (cells).
MAX_RADIUS = 1e6
#: Upper bound on the cell updates of one call (sum over hills of the cells each covers): refuse
#: requests that would run for minutes instead of freezing the caller.
MAX_HILL_WORK = 4_000_000_000


@dataclass(frozen=True)
class HillSet:
    """Centres and radii of a set of hills, in cells.

    ``rows`` and ``cols`` are ``float64`` arrays of shape ``(count,)`` giving
    each centre in continuous cell coordinates (row 0 = north edge, col 0 =
    west edge); ``radii`` the radius of each circular base.
    """

    rows: npt.NDArray[np.float64]
    cols: npt.NDArray[np.float64]
    radii: npt.NDArray[np.float64]


def hill_parameters(
    shape: tuple[int, int],
    seed: int,
    count: int,
    *,
    radius_min: float,
    radius_max: float,
    island: bool = False,
) -> HillSet:
    """Place ``count`` hills on a map of ``shape`` cells.

    Parameters
    ----------
    shape : (int, int)
        Map shape ``(rows, cols)``.
    seed : int
        In ``[0, 2**64 - 1]``.
    count : int
        Number of hills, ``0 <= count <= MAX_HILLS``.
    radius_min, radius_max : float
        Radius range of the bases in cells, ``0 < radius_min <= radius_max
        <= MAX_RADIUS``. Each radius is uniform in the range.
    island : bool
        If false, centres are uniform over the map. If true, each hill lies at
        an angle uniform in ``[0, 2*pi)`` and a distance from the map's centre
        uniform in ``[0, size/2 - r]`` (``size`` the shorter side, ``r`` the
        hill's radius, the range clamped at 0), so hills no larger than the
        map stay inside it.

    Returns
    -------
    HillSet

    Raises
    ------
    TypeError, ValueError
        For a bad shape, seed, count or radius range; messages name the
        parameter and its valid range.
    """
    rows, cols = check_world_shape(shape, "shape")
    seed = check_seed(seed)
    count = check_count(count, "count", low=0, high=MAX_HILLS)
    rmin = check_number(radius_min, "radius_min", low=0.0, high=MAX_RADIUS, low_open=True)
    rmax = check_number(radius_max, "radius_max", low=0.0, high=MAX_RADIUS, low_open=True)
    if not isinstance(island, (bool, np.bool_)):
        raise TypeError(f"island must be a bool, got {type(island).__name__}")
    if rmin > rmax:
        raise ValueError(f"radius_min ({rmin}) must be <= radius_max ({rmax})")
    index = np.arange(count, dtype=np.int64)
    radii = rmin + uniform(seed, "hills/radius", index) * (rmax - rmin)
    if island:
        centre_row, centre_col = (rows - 1) / 2.0, (cols - 1) / 2.0
        half = (min(rows, cols) - 1) / 2.0
        angle = uniform(seed, "hills/angle", index) * (2.0 * math.pi)
        distance = uniform(seed, "hills/distance", index) * np.maximum(half - radii, 0.0)
        r = centre_row - distance * sin(angle)  # the same bits on every platform (numpy's sin is libm's)
        c = centre_col + distance * cos(angle)
    else:
        r = uniform(seed, "hills/row", index) * (rows - 1)
        c = uniform(seed, "hills/col", index) * (cols - 1)
    return HillSet(rows=r, cols=c, radii=radii)


def add_hill(
    heightmap: npt.NDArray[np.float64],
    row: float,
    col: float,
    *,
    radius: float,
    origin: tuple[int, int] = (0, 0),
    height: float | None = None,
) -> None:
    """Add one paraboloid hill (negative part ignored) in place.

    The profile is ``r**2 - d**2`` (squared cells; the centre is ``r**2``, so
    it does not depend on the map's size) or, with ``height``, that profile
    scaled to peak at ``height``: ``height * (1 - d**2 / r**2)`` (a negative
    ``height`` digs a pit). Only the cells within ``radius`` of the centre are
    touched.

    Parameters
    ----------
    heightmap : ndarray of float64, shape (rows, cols)
        Modified in place.
    row, col : float
        Centre in continuous world cell coordinates (may lie outside the map),
        in ``[-1e9, 1e9]``.
    radius : float
        Base radius in cells, in ``(0, MAX_RADIUS]``.
    origin : (int, int)
        World coordinates of ``heightmap[0, 0]`` (a window of a larger world).
    height : float, optional
        Peak height in ``[-1e12, 1e12]``; ``None`` for the unscaled ``r**2 - d**2``.

    Raises
    ------
    TypeError, ValueError
        For a heightmap that is not a 2-D float64 array, or bad numbers.
    """
    if not isinstance(heightmap, np.ndarray) or heightmap.ndim != 2 or heightmap.dtype != np.float64:
        raise TypeError("heightmap must be a 2-D float64 ndarray (it is modified in place)")
    row = check_number(row, "row", low=-1e9, high=1e9)
    col = check_number(col, "col", low=-1e9, high=1e9)
    radius = check_number(radius, "radius", low=0.0, high=MAX_RADIUS, low_open=True)
    if height is not None:
        height = check_number(height, "height", low=-1e12, high=1e12)
    n_rows, n_cols = heightmap.shape
    o_row, o_col = origin
    r0 = max(int(math.ceil(row - radius)), o_row)
    r1 = min(int(math.floor(row + radius)), o_row + n_rows - 1)
    c0 = max(int(math.ceil(col - radius)), o_col)
    c1 = min(int(math.floor(col + radius)), o_col + n_cols - 1)
    if r0 > r1 or c0 > c1:
        return
    dr = np.arange(r0, r1 + 1, dtype=np.float64) - row
    dc = np.arange(c0, c1 + 1, dtype=np.float64) - col
    z = np.maximum(radius * radius - (dr[:, None] * dr[:, None] + dc[None, :] * dc[None, :]), 0.0)
    if height is not None:
        z *= height / (radius * radius)
    heightmap[r0 - o_row : r1 - o_row + 1, c0 - o_col : c1 - o_col + 1] += z


def raw_hills(
    shape: tuple[int, int],
    hills: HillSet,
    *,
    window: Window | None = None,
    heights: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """Sum the hills of a :class:`HillSet` on a zero map, unnormalised.

    Parameters
    ----------
    shape : (int, int)
        The world's shape.
    hills : HillSet
        Centres and radii in world cells.
    window : Window, optional
        The part of the world to compute (default: all of it).
    heights : ndarray of float64, shape (count,), optional
        Peak height of each hill (see :func:`add_hill`); default unscaled.

    Returns
    -------
    ndarray of float64, shape ``window.shape``
        In squared cells when unscaled (a lone hill of radius ``r`` peaks at
        ``r**2``). Hills are added in index order, so every cell's value is
        bit-identical in any window.

    Raises
    ------
    TypeError, ValueError
        For malformed hills, or when the hills would update more than
        ``MAX_HILL_WORK`` cells (minutes of work).
    """
    win = check_window(shape, window)
    if not isinstance(hills, HillSet):
        raise TypeError(f"hills must be a HillSet, got {type(hills).__name__}")
    arrays = [np.asarray(a, dtype=np.float64) for a in (hills.rows, hills.cols, hills.radii)]
    if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1 or not all(np.isfinite(a).all() for a in arrays):
        raise ValueError("hills must hold finite rows, cols and radii of the same length")
    if (arrays[2] <= 0).any() or (arrays[2] > MAX_RADIUS).any():
        raise ValueError(f"hill radii must be in (0, {MAX_RADIUS}]")
    if heights is not None:
        heights = np.asarray(heights, dtype=np.float64)
        if heights.shape != arrays[0].shape or not np.isfinite(heights).all():
            raise ValueError("heights must be finite, one per hill")
    hills = HillSet(*arrays)
    # Refuse work that would take minutes: each hill updates at most its square or the window.
    work = float(np.minimum((2 * hills.radii + 1) ** 2, win.rows * win.cols).sum())
    if work > MAX_HILL_WORK:
        raise ValueError(
            f"count x hill area is {work:.3g} cell updates, more than {MAX_HILL_WORK:.0e}: "
            "use fewer hills or smaller radii (radius_max)"
        )
    out = np.zeros(win.shape, dtype=np.float64)
    # Only the hills whose base reaches the window.
    near = (
        (hills.rows + hills.radii > win.row - 1)
        & (hills.rows - hills.radii < win.row + win.rows)
        & (hills.cols + hills.radii > win.col - 1)
        & (hills.cols - hills.radii < win.col + win.cols)
    )
    origin = (win.row, win.col)
    for i in np.flatnonzero(near).tolist():
        h = None if heights is None else float(heights[i])
        add_hill(out, float(hills.rows[i]), float(hills.cols[i]), radius=float(hills.radii[i]), origin=origin, height=h)
    return out


def circle_hills(
    shape: tuple[int, int],
    seed: int = 0,
    *,
    count: int = 200,
    radius_min: float = 4.0,
    radius_max: float = 20.0,
    island: bool = False,
    flattening: float = 1.0,
) -> npt.NDArray[np.float32]:
    """Generate a heightmap of circle-based hills.

    Parameters
    ----------
    shape : (int, int)
        ``(rows, cols)``, each >= 1, at most ``MAX_CELLS`` cells.
    seed : int
        In ``[0, 2**64 - 1]``.
    count : int
        Number of hills, ``0 <= count <= MAX_HILLS``.
    radius_min, radius_max : float
        Base radius range in cells, ``0 < radius_min <= radius_max``.
    island : bool
        Cluster the hills around the centre (see :func:`hill_parameters`).
    flattening : float
        Exponent in ``(0, 64]`` applied after normalisation; 1 = none.

    Returns
    -------
    ndarray of float32, shape (rows, cols)
        Normalised to ``[0, 1]`` (zeros if no hill touches the map).

    Raises
    ------
    TypeError, ValueError
        For bad parameters (see :func:`hill_parameters`, :func:`.flatten`).
    """
    check_number(flattening, "flattening", low=0.0, high=64.0, low_open=True)
    hills = hill_parameters(shape, seed, count, radius_min=radius_min, radius_max=radius_max, island=island)
    return flatten(normalize(raw_hills(shape, hills)), flattening)


def hills_raw(
    world_shape: tuple[int, int],
    seed: int = 0,
    *,
    count: int = 200,
    radius_min: float = 4.0,
    radius_max: float = 20.0,
    island: bool = False,
    window: Window | None = None,
) -> npt.NDArray[np.float64]:
    """Unnormalised circle hills on a window of a world (see :func:`circle_hills`).

    Returns ``float64`` of ``window.shape`` in squared cells; hills are placed
    over the whole world, so tiles of it join seamlessly.
    """
    hills = hill_parameters(world_shape, seed, count, radius_min=radius_min, radius_max=radius_max, island=island)
    return raw_hills(world_shape, hills, window=window)
