"""Closed depressions drained: filled to their spill level, or breached through their sill.

Every cell of a real landscape drains to the sea or off the map, apart from a few lakes and karst;
a generator's noise or an interrupted erosion run leaves closed depressions (pits) instead, the tell of
a synthetic terrain. Both ways here route the heights with depressions resolved through the basin
graph (:func:`.flow.route_flow`, Cordonnier, Bovy & Braun 2019), so every cell's path leads to base level
over the lowest pass out of each depression:

* **fill** raises each depression to its spill level, the surface of priority-flood filling (Barnes,
  Lehman & Mulla 2014): a flat floor, as a lake silted up, with one float64 step per cell towards the exit
  (:func:`.lakes.fill_lakes` given sediment enough to fill every lake);
* **breach** lowers the cells of the path from each depression's floor over its sill to the floor's height
  (carving, Soille 2004; the breaching that Lindsay 2016 compares with filling): a channel cut through the
  sill, the depression keeps its shape.

Invariants: heights in metres, float64; fill never lowers a cell and breach never raises one; the result
drains (no cell below the highest point of its flow path); nothing changes on a terrain that already drains.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..heightmap import as_heightmap, check_number
from .flow import route_flow
from .lakes import fill_lakes

__all__ = ["DRAIN_MODES", "drain_depressions"]

#: How :func:`drain_depressions` drains a depression.
DRAIN_MODES = ("fill", "breach")


def drain_depressions(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    mode: str = "fill",
    open_edges: str = "nesw",
    sea_level: float | None = None,
) -> npt.NDArray[np.float64]:
    """Every closed depression of a heightmap drained, by filling it or breaching its sill.

    Parameters
    ----------
    heights_m : array_like, shape (rows, cols)
        Finite heights in metres, row 0 north.
    cell_size : float
        Cell size in metres, in ``(0, 1e6]``.
    mode : {"fill", "breach"}
        ``"fill"``: each depression is raised to its spill level (a flat floor). ``"breach"``: the path
        from its floor over its lowest pass is lowered to the floor's height (a channel through the sill).
    open_edges : str
        The open map edges (letters of ``"nesw"``): water leaves the map through them.
    sea_level : float, optional
        Cells below it (metres) are base level too: a sea, not depressions.

    Returns
    -------
    ndarray of float64, shape (rows, cols)
        The drained heights in metres.

    Raises
    ------
    TypeError, ValueError
        For bad heights, cell size, mode or edges, or no base level, naming them.

    Notes
    -----
    Fill: Barnes, Lehman & Mulla (2014), "Priority-flood: an optimal depression-filling and
    watershed-labeling algorithm for digital elevation models", Computers & Geosciences 62. Breach: Soille
    (2004), "Optimal removal of spurious pits in grid digital elevation models", Water Resources Research 40;
    Lindsay (2016), "Efficient hybrid breaching-filling sink removal methods for flow path enforcement in
    digital elevation models", Hydrological Processes 30.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    cs = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)
    if mode not in DRAIN_MODES:
        raise ValueError(f"mode must be one of {', '.join(DRAIN_MODES)}, got {mode!r:.20}")
    routing = route_flow(z, cs, open_edges=open_edges, sea_level=sea_level)
    if not routing.depressions:
        return z.copy()
    flat = z.ravel()
    if mode == "fill":
        # sediment enough for every lake: each lake keeps at most its volume below its spill level
        sediment = np.full(flat.size, float(flat.max() - flat.min()) + 1.0)
        return fill_lakes(routing, flat, sediment).heights.reshape(z.shape)
    # breach: down the receiver tree (top of the stack first) no cell stays above the lowest of its donors
    new = flat.copy()
    rec, order, s = routing.receivers, routing.order, routing.level_starts
    for lvl in range(len(s) - 2, 0, -1):
        cells = order[s[lvl] : s[lvl + 1]]
        np.minimum.at(new, rec[cells], new[cells])
    return new.reshape(z.shape)
