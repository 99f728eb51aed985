"""Lake filling: the sediment eroded upstream laid into the closed depressions it reaches, floor up.

The sediment budget of Yuan et al. (2019) on the lakes of the basin graph
(Cordonnier, Bovy & Braun 2019) along a D8 :class:`.flow.FlowRouting`: a
lake keeps at most its volume below its spill level and passes the rest on
from its exit; the deposit makes a flat floor with one float64 step per cell
towards the exit, so the next routing crosses it. Mass is conserved: each
lake receives at most what was eroded upstream of it. Heights in metres,
flat indices into the ``(rows, cols)`` grid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .flow import FlowRouting

__all__ = ["LakeFill", "fill_lakes", "deposit_in_lakes"]

_FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class LakeFill:
    """What :func:`fill_lakes` did in one step (flat indices into the ``(rows, cols)`` grid).

    Attributes
    ----------
    heights : ndarray of float64, shape (rows * cols,)
        The heights after the deposition, metres.
    lake : ndarray of int64, shape (rows * cols,)
        Index of the lake each cell lies in (``-1``: not in a lake), into the per-lake arrays.
    exit : ndarray of int64, shape (lakes,)
        Each lake's exit: the first cell on its routing path that is not under its water, whose height is
        the lake's spill level.
    spill : ndarray of float64, shape (lakes,)
        Each lake's spill level (water surface), metres.
    capacity : ndarray of float64, shape (lakes,)
        Each lake's volume below its spill level, in metres times cells (m³ / cell area).
    inflow : ndarray of float64, shape (lakes,)
        Sediment that reached each lake this step, metres times cells.
    deposited : ndarray of float64, shape (lakes,)
        Sediment laid down in each lake, ``min(inflow, capacity)``, metres times cells; the rest went on
        downstream from its exit.
    """

    heights: _FloatArray
    lake: npt.NDArray[np.int64]
    exit: npt.NDArray[np.int64]
    spill: _FloatArray
    capacity: _FloatArray
    inflow: _FloatArray
    deposited: _FloatArray


def _level_of(routing: FlowRouting) -> npt.NDArray[np.int64]:
    """The stack level of every cell (its number of steps to its outlet)."""
    s = routing.level_starts
    level = np.empty(routing.order.size, dtype=np.int64)
    level[routing.order] = np.repeat(np.arange(len(s) - 1, dtype=np.int64), np.diff(s))
    return level


def fill_lakes(routing: FlowRouting, heights: npt.ArrayLike, sediment: npt.ArrayLike) -> LakeFill:
    """Lay the sediment eroded upstream into the closed depressions (lakes) it reaches, from the bottom up.

    The sediment budget of Yuan, Braun, Guerit et al. ("A new efficient
    method to solve the stream power law model taking into account sediment
    deposition", JGR Earth Surface 124, 2019) with the lakes of the basin
    graph (Cordonnier, Bovy & Braun 2019), as fastscape does: eroded
    material travels down the routing's receiver tree; a lake keeps what
    reaches it, up to its volume below its spill level, and passes the
    excess on from its exit. Unlike fastscape (which raises every lake cell
    by the same share of its depth) the deposit fills a lake from its floor
    up: the lowest cells first, to one flat level ``L`` with
    ``Σ max(L - z_i, 0) = deposited`` (cell area as unit), so lake floors
    become flat plains. A deposit floor gets a gradient of one float64 step
    per cell along the routing towards its lowest point (towards the exit
    once the lake is full), the epsilon of priority-flood filling (Barnes,
    Lehman & Mulla 2014), so the next routing crosses it without a pit per
    cell. Mass: each lake receives at most what was eroded upstream of it
    and keeps at most its volume; no cell is raised above its lake's spill
    level by more than those float64 steps.

    Lakes are found on ``heights`` along the routing: a cell is under water
    where the highest point of its path to the outlet is above it (the
    spill surface of priority-flood filling, which the basin graph's routes
    reach); cells whose paths leave the water at the same cell form one lake.

    Parameters
    ----------
    routing : FlowRouting
        A D8 routing with depressions resolved (:func:`.flow.route_flow`) of ``heights``.
    heights : array_like, shape (rows * cols,) or (rows, cols)
        Heights in metres.
    sediment : array_like, same size
        Material eroded from each cell this step, metres (>= 0; volume over the cell area).

    Returns
    -------
    LakeFill

    Raises
    ------
    TypeError, ValueError
        For a routing that is not a :class:`FlowRouting`, or arrays of another size than the routing's grid.
    """
    if not isinstance(routing, FlowRouting):
        raise TypeError(f"routing must be a FlowRouting (from route_flow), got {type(routing).__name__}")
    size = routing.shape[0] * routing.shape[1]
    z = np.asarray(heights, dtype=np.float64).ravel()
    sed = np.asarray(sediment, dtype=np.float64).ravel()
    if z.size != size or sed.size != size:
        raise ValueError(f"heights and sediment must have the routing's {size} cells, got {z.size} and {sed.size}")
    return deposit_in_lakes(routing, z, sed)


def deposit_in_lakes(routing: FlowRouting, z: _FloatArray, sed: _FloatArray) -> LakeFill:
    """:func:`fill_lakes` on checked input: flat ``float64`` heights and sediment of the routing's size."""
    rec, order, s = routing.receivers, routing.order, routing.level_starts
    exit_of = np.full(z.size, -1, dtype=np.int64)
    level = _level_of(routing)
    uphill = np.flatnonzero(z[rec] > z)  # a flooded cell's path climbs somewhere at or below its level
    if routing.depressions and uphill.size:
        # the spill surface along the routing (receivers first) and the exit cell of every flooded cell, in
        # stack order (a level a slice, its receivers a gather from the levels before it)
        up = routing.receiver_positions
        zs = z[order]
        rec_s = rec[order]
        spill_s = zs.copy()
        exit_s = np.full(z.size, -1, dtype=np.int64)
        for lvl in range(int(level[uphill].min()), len(s) - 1):
            a, b = int(s[lvl]), int(s[lvl + 1])
            r = up[a:b]
            sr = spill_s[r]
            low = zs[a:b] < sr
            spill_s[a:b] = np.maximum(zs[a:b], sr)  # the receiver's spill surface where it is higher
            er = exit_s[r]
            exit_s[a:b] = np.where(low, np.where(er >= 0, er, rec_s[a:b]), -1)
        exit_of[order] = exit_s
    flooded = np.flatnonzero(exit_of >= 0)
    empty = np.zeros(0)
    if not flooded.size:
        return LakeFill(
            z.copy(), np.full(z.size, -1, dtype=np.int64), np.zeros(0, dtype=np.int64), empty, empty, empty, empty
        )
    exits, lake_of_flooded = np.unique(exit_of[flooded], return_inverse=True)
    lake = np.full(z.size, -1, dtype=np.int64)
    lake[flooded] = lake_of_flooded
    n_lakes = exits.size
    spill = z[exits]
    capacity = np.bincount(lake_of_flooded, spill[lake_of_flooded] - z[flooded], minlength=n_lakes).astype(np.float64)

    # sediment down the receiver tree, top of the stack first; a lake's outflow cells (flooded, draining to
    # its exit) all lie one level above the exit, so when their level is reached all of its inflow is in them
    outflow = np.zeros(z.size, dtype=bool)
    outflow[flooded] = exit_of[rec[flooded]] < 0
    out_levels = set(np.unique(level[outflow]).tolist())
    lowest = min(out_levels)  # below the lowest outflow the flux reaches no lake: not needed
    flux = np.maximum(sed, 0.0)
    inflow = np.zeros(n_lakes)
    deposited = np.zeros(n_lakes)
    up = routing.receiver_positions
    flux_s = flux[order]  # in stack order, as accumulate_stacked
    outflow_s, lake_s = outflow[order], lake[order]
    for lvl in range(len(s) - 2, lowest - 1, -1):
        a, b = int(s[lvl]), int(s[lvl + 1])
        if lvl in out_levels:
            oc = a + np.flatnonzero(outflow_s[a:b])
            lk = lake_s[oc]
            tot = np.bincount(lk, flux_s[oc], minlength=n_lakes)
            here = np.unique(lk)
            inflow[here] = tot[here]
            deposited[here] = np.minimum(tot[here], capacity[here])
            keep = np.zeros(n_lakes)
            keep[here] = np.where(
                tot[here] > 0.0, (tot[here] - deposited[here]) / np.where(tot[here] > 0.0, tot[here], 1.0), 0.0
            )
            flux_s[oc] *= keep[lk]
        # the level's values copied first: a view of the array it adds into would make numpy copy all of it
        np.add.at(flux_s, up[a:b], flux_s[a:b].copy())

    # fill each lake from its floor up: cells sorted by lake, then height; the level L that holds the deposit
    new = z.copy()
    full = deposited >= capacity * (1.0 - 1e-12)
    srt = np.lexsort((z[flooded], lake_of_flooded))
    cells = flooded[srt]
    lk = lake_of_flooded[srt]
    floor = np.full(n_lakes, np.inf)
    np.minimum.at(floor, lk, z[cells])
    depth = z[cells] - floor[lk]  # height above the lake's lowest cell, >= 0
    starts = np.searchsorted(lk, np.arange(n_lakes))
    csum = np.cumsum(depth)
    before = np.where(starts > 0, csum[np.maximum(starts - 1, 0)], 0.0)
    local = csum - before[lk]  # sum of the depths of the cells up to this one
    rank = np.arange(cells.size) - starts[lk]
    need = (rank + 1) * depth - local  # deposit that fills the lake up to this cell's height
    count = np.bincount(lk[need <= deposited[lk]], minlength=n_lakes)  # a prefix of each lake, >= 1 cell
    last = starts + np.maximum(count, 1) - 1
    fill = floor + (deposited + local[last]) / np.maximum(count, 1)
    fill = np.where(full, spill, np.minimum(fill, spill))
    raised = (deposited[lk] > 0.0) & (z[cells] < fill[lk])
    new[cells[raised]] = fill[lk[raised]]

    # the deposit's gradient: one float64 step per cell along the routing, towards the deposit's lowest
    # point, or towards the exit of a full lake (whose floor is the exit's height)
    built = np.zeros(z.size, dtype=bool)
    built[cells[raised]] = True
    base_of = np.zeros(z.size, dtype=bool)  # receivers a deposit cell must rise above
    base_of[exits[full]] = True
    base_of |= built
    dcells = np.flatnonzero(built)
    dcells = dcells[np.argsort(level[dcells], kind="stable")]
    dlev = level[dcells]
    bounds = np.flatnonzero(np.diff(dlev)) + 1
    for group in np.split(dcells, bounds):
        r = rec[group]
        go = base_of[r]
        if go.any():
            g = group[go]
            new[g] = np.maximum(new[g], np.nextafter(new[r[go]], np.inf))
    return LakeFill(new, lake, exits, spill, capacity, inflow, deposited)
