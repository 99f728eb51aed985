"""Flow routing on a regular grid: D8 receivers, closed depressions, drainage area.

Water on each cell flows to its steepest-descent neighbour among the eight
(D8; O'Callaghan & Mark, "The extraction of drainage networks from digital
elevation data", 1984): slope ``(z_i - z_j) / d_ij`` with ``d_ij`` the cell
size, or ``sqrt(2)`` times it on a diagonal. A cell with no lower neighbour
is a *pit*; a *base-level* cell (an open map edge, or a cell under the sea
level) is an outlet that water leaves the map through.

Closed depressions are resolved by the basin-graph method of Cordonnier,
Bovy & Braun ("A versatile, linear complexity algorithm for flow routing in
topographies with depressions", Earth Surface Dynamics 7, 2019), the method
fastscapelib calls ``MSTSinkResolver`` (basins: Kruskal-equivalent minimum
spanning tree; routes: "carve"):

1. every cell gets the basin of the outlet or pit it drains to;
2. adjacent basins are joined by their *pass*: of all pairs of neighbouring
   cells across the two basins, the one with the lowest ``max(z_i, z_j)``;
   all base-level basins are merged into one root;
3. a minimum spanning tree of that basin graph (weights: pass heights)
   tells each closed basin which basin it overflows into;
4. the flow path from the pass cell down to the basin's pit is reversed and
   the pass cell drains across the pass, so the lake drains out through its
   spill point and every cell reaches an outlet.

Everything is vectorised: the spanning tree is Borůvka's algorithm with one
round of whole-array operations per halving of the number of components, and
the receiver tree is walked one *level* (cells the same number of steps from
their outlet) at a time, so Python loops run over levels, never over cells.

Distances are in metres, drainage areas in m². Cell indices are flat
``row * cols + col`` indices into a ``(rows, cols)`` heightmap, row 0 north.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from ..elementary import power
from ..heightmap import as_heightmap, check_number

__all__ = [
    "NEIGHBOR_OFFSETS",
    "FLAT_ROUTINGS",
    "check_flat_routing",
    "FlowRouting",
    "MultipleFlowRouting",
    "base_level_mask",
    "route_flow",
    "route_multiple_flow",
    "drainage_area",
    "flow_length",
    "flow_direction",
]

#: The eight neighbours as ``(row, col)`` offsets, in row-major order: NW, N, NE, W, E, SW, S, SE.
#: :func:`flow_direction` codes are indices into this tuple. (Ties in steepness: see :data:`FLAT_ROUTINGS`.)
NEIGHBOR_OFFSETS: tuple[tuple[int, int], ...] = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))

_IntArray = npt.NDArray[np.int64]
_FloatArray = npt.NDArray[np.float64]
_BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class FlowRouting:
    """A single-flow-direction routing of a ``(rows, cols)`` grid.

    Attributes
    ----------
    shape : (int, int)
        ``(rows, cols)`` of the grid.
    cell_size : float
        Cell size in metres.
    receivers : ndarray of int64, shape (rows * cols,)
        Flat index of the cell each cell drains to; an outlet is its own
        receiver. After depression handling every receiver is one of the
        cell's eight neighbours, but inside a resolved depression it can be
        *higher* than the cell (the flow path was reversed towards the spill).
    distances : ndarray of float64, shape (rows * cols,)
        Distance to the receiver in metres (0 at outlets).
    order : ndarray of int64, shape (rows * cols,)
        The *stack*: every cell once, each after its receiver (outlets
        first, then cells 1 step away, ...).
    level_starts : ndarray of int64, shape (levels + 1,)
        ``order[level_starts[k]:level_starts[k + 1]]`` are the cells exactly
        ``k`` steps upstream of their outlet.
    base_level : ndarray of bool, shape (rows, cols)
        The outlets water leaves the map through.
    depressions : int
        How many closed depressions (pits) were rerouted.
    flats : int
        How many cells of drainable flats were routed across their flat (``flats="towards_lower"``; their
        receivers are as high as they are).
    """

    shape: tuple[int, int]
    cell_size: float
    receivers: _IntArray
    distances: _FloatArray
    order: _IntArray
    level_starts: _IntArray
    base_level: _BoolArray
    depressions: int
    flats: int = 0

    def levels(self) -> list[_IntArray]:
        """The cells of each level (views of :attr:`order`), outlets first."""
        return split_levels(self.order, self.level_starts)

    @cached_property
    def receiver_positions(self) -> _IntArray:
        """Per stack position ``i``, the stack position of ``order[i]``'s receiver (int64, ``(rows * cols,)``).

        With values kept in stack order, a level is a slice and its receivers' values a gather from the levels
        before it: the walks along the stack touch neighbouring memory. Computed once per routing.
        """
        position = np.empty(self.order.size, dtype=np.int64)
        position[self.order] = np.arange(self.order.size, dtype=np.int64)
        out: _IntArray = position[self.receivers[self.order]]
        return out


def split_levels(order: _IntArray, level_starts: _IntArray) -> list[_IntArray]:
    """``order`` cut at ``level_starts`` (``order[level_starts[i]:level_starts[i + 1]]``, views): the cells of
    each level of a routing, outlets first."""
    return [order[level_starts[i] : level_starts[i + 1]] for i in range(len(level_starts) - 1)]


def check_open_edges(open_edges: str) -> str:
    """``open_edges`` lower-cased, checked to be letters of ``"nesw"``; raises ``TypeError`` or ``ValueError``."""
    if not isinstance(open_edges, str):
        raise TypeError(f"open_edges must be a string of the letters n, e, s, w, got {type(open_edges).__name__}")
    edges = open_edges.lower()
    if any(ch not in "nesw" for ch in edges):
        raise ValueError(f"open_edges must hold only the letters n, e, s, w (the open map edges), got {open_edges!r}")
    return edges


def base_level_mask(
    heights_m: npt.ArrayLike,
    open_edges: str = "nesw",
    sea_level: float | None = None,
) -> _BoolArray:
    """The base-level cells: the open map edges and, if given, cells below ``sea_level``.

    Parameters
    ----------
    heights_m : array_like, shape (rows, cols)
        Heights in metres.
    open_edges : str
        Which map edges are open (water leaves through them): any of the
        letters ``n``, ``e``, ``s``, ``w``; ``""`` closes them all.
    sea_level : float, optional
        Cells strictly below it (metres) are base level too.

    Returns
    -------
    ndarray of bool, shape (rows, cols)

    Raises
    ------
    ValueError
        For an unknown edge letter, or if no cell is base level (water could
        not leave the map).
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    edges = check_open_edges(open_edges)
    mask = np.zeros(z.shape, dtype=bool)
    if "n" in edges:
        mask[0, :] = True
    if "s" in edges:
        mask[-1, :] = True
    if "w" in edges:
        mask[:, 0] = True
    if "e" in edges:
        mask[:, -1] = True
    if sea_level is not None:
        mask |= z < check_number(sea_level, "sea_level")
    if not mask.any():
        raise ValueError("no base level: open at least one edge (open_edges) or give a sea_level above some cells")
    return mask


def _padded_offsets(cols: int) -> _IntArray:
    """Flat offsets of the eight neighbours in a grid padded by one cell (``cols + 2`` wide)."""
    w = cols + 2
    return np.array([dr * w + dc for dr, dc in NEIGHBOR_OFFSETS], dtype=np.int64)


def _neighbor_distances(cell_size: float) -> _FloatArray:
    """Distances to the eight neighbours: ``sqrt(dr² + dc²)`` cell sizes, computed as ``sqrt(dy² + dx²)``."""
    return np.array(
        [math.sqrt((cell_size if dr else 0.0) ** 2 + (cell_size if dc else 0.0) ** 2) for dr, dc in NEIGHBOR_OFFSETS]
    )


#: How :func:`route_flow` treats flats and equally steep neighbours. ``"towards_lower"`` (spec version 4): a
#: flat drains towards lower ground and away from higher ground (Barnes, Lehman & Mulla 2014) and ties go to
#: a neighbour picked by a hash of the cell and the direction (no direction is favoured); ``"first"`` (spec
#: version 3): a cell of a flat is a pit of its own and ties go to the first of :data:`NEIGHBOR_OFFSETS`.
FLAT_ROUTINGS = ("towards_lower", "first")


def check_flat_routing(flats: object) -> str:
    """``flats`` checked to be one of :data:`FLAT_ROUTINGS` (``ValueError`` naming them otherwise)."""
    if not isinstance(flats, str) or flats not in FLAT_ROUTINGS:
        raise ValueError(f"flats must be one of {', '.join(FLAT_ROUTINGS)}, got {flats!r:.40}")
    return flats


def _tie_key(cells: _IntArray, k: int) -> npt.NDArray[np.uint64]:
    """A hash of (cell, direction) (splitmix64's finaliser): the order in which ties are broken, unbiased."""
    x = cells.astype(np.uint64) * np.uint64(8) + np.uint64(k) + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    out: npt.NDArray[np.uint64] = x ^ (x >> np.uint64(31))
    return out


#: Bytes of one float64 work array of :func:`_d8`'s strips of rows.
_D8_STRIP_BYTES = 1 << 18


def _d8(z: _FloatArray, base: _BoolArray, cell_size: float, flats: str = "first") -> tuple[_IntArray, _FloatArray, int]:
    """Steepest-descent receivers (padded flat indices, -1 on the padding), their distances, and the number of
    flat cells given a receiver (``flats="towards_lower"``; see :data:`FLAT_ROUTINGS`)."""
    rows, cols = z.shape
    w = cols + 2
    zp = np.full((rows + 2, w), np.inf)
    zp[1:-1, 1:-1] = z
    tiny = np.finfo(np.float64).tiny
    best = np.full(z.shape, tiny)  # a receiver needs a slope above the smallest normal
    code = np.full(z.shape, -1, dtype=np.int64)
    dists = _neighbor_distances(cell_size)
    towards = flats == "towards_lower"
    ties = np.zeros(z.shape, dtype=np.int8)  # the directions as steep as the steepest so far
    # in strips of rows whose work arrays stay in the processor's cache (elementwise: the same bits)
    strip = max(1, min(rows, _D8_STRIP_BYTES // (8 * cols)))
    slope_all = np.empty((strip, cols))
    steeper_all = np.empty((strip, cols), dtype=bool)
    equal_all = np.empty((strip, cols), dtype=bool)
    for r0 in range(0, rows, strip):
        r1 = min(rows, r0 + strip)
        zs, bs, cs_, ts = z[r0:r1], best[r0:r1], code[r0:r1], ties[r0:r1]
        slope, steeper, equal = slope_all[: r1 - r0], steeper_all[: r1 - r0], equal_all[: r1 - r0]
        for k, (dr, dc) in enumerate(NEIGHBOR_OFFSETS):
            np.subtract(zs, zp[1 + r0 + dr : 1 + r1 + dr, 1 + dc : cols + 1 + dc], out=slope)
            slope /= dists[k]
            np.greater(slope, bs, out=steeper)
            if towards:
                np.equal(slope, bs, out=equal)
                ts += equal
                np.copyto(ts, 1, where=steeper)
            np.maximum(bs, slope, out=bs)  # slopes are finite or -inf and best > 0: the steeper one, same bits
            np.copyto(cs_, k, where=steeper)
    n_flat = 0
    if towards:
        # equally steep neighbours: the one whose (cell, direction) hash is largest, so no direction is favoured;
        # only cells with two or more equally steep receivers can change (one: it is already the code). Their
        # slopes are computed again, the same operations on those cells only.
        multi = (ties.ravel() >= 2) & (code.ravel() >= 0)
        if multi.any():
            flat_code = code.reshape(-1)
            cells = np.flatnonzero(multi)
            r, c = np.divmod(cells, cols)
            zc, steepest = z.ravel()[cells], best.ravel()[cells]
            top = np.zeros(cells.size, dtype=np.uint64)
            sub = np.full(cells.size, -1, dtype=np.int64)
            for k, (dr, dc) in enumerate(NEIGHBOR_OFFSETS):
                pos = np.flatnonzero((zc - zp[1 + r + dr, 1 + c + dc]) / dists[k] == steepest)
                if not pos.size:
                    continue
                key = _tie_key(cells[pos], k)
                better = key >= top[pos]
                top[pos[better]] = key[better]
                sub[pos[better]] = k
            flat_code[cells] = sub
    code[base] = -1
    offsets = _padded_offsets(cols)
    rec = np.full((rows + 2) * w, -1, dtype=np.int64)
    dist = np.zeros((rows + 2) * w)
    idx = np.arange((rows + 2) * w, dtype=np.int64).reshape(rows + 2, w)[1:-1, 1:-1]
    has = code >= 0
    safe = np.maximum(code, 0)
    rec.reshape(rows + 2, w)[1:-1, 1:-1] = np.where(has, idx + offsets[safe], idx)
    dist.reshape(rows + 2, w)[1:-1, 1:-1] = np.where(has, dists[safe], 0.0)
    if flats == "towards_lower":
        n_flat = _route_flats(zp.ravel(), rec, dist, base, idx, offsets, dists)
    return rec, dist, n_flat


def _bfs(start: _IntArray, allowed: _BoolArray, zp: _FloatArray, offsets: _IntArray) -> _IntArray:
    """Breadth-first steps from ``start`` (padded indices) through ``allowed`` cells of the same height
    (8-neighbourhood): 0 at the start cells, -1 where never reached. One whole-array round per step."""
    steps = np.full(zp.size, -1, dtype=np.int64)
    steps[start] = 0
    frontier = start
    d = 0
    while frontier.size:
        d += 1
        cand = (frontier[:, None] + offsets[None, :]).ravel()
        src = np.repeat(frontier, offsets.size)
        ok = allowed[cand] & (steps[cand] < 0) & (zp[cand] == zp[src])
        frontier = np.unique(cand[ok])
        steps[frontier] = d
    return steps


def _route_flats(
    zp: _FloatArray,
    rec: _IntArray,
    dist: _FloatArray,
    base: _BoolArray,
    idx: npt.NDArray[np.int64],
    offsets: _IntArray,
    dists: _FloatArray,
) -> int:
    """Give the cells of drainable flats receivers in place (``rec``, ``dist``: padded), returning their number.

    Barnes, Lehman & Mulla, "An efficient assignment of drainage direction over flat surfaces in raster
    digital elevation models" (Computers & Geosciences 62, 2014): a *flat* cell has no lower neighbour
    and is no outlet; its flat drains where a cell of the same height does drain (a *low edge*). Two
    breadth-first distances through the flat, ``towards`` (steps from the nearest low edge) and ``away``
    (steps from the nearest flat cell beside higher ground), make the mask ``2 towards - away`` (Barnes'
    ``2 towards + (max away - away)`` less a constant per flat), which falls by at least 1 towards the
    low edge at every step, so water crosses a flat towards lower ground and away from higher ground
    instead of along one line. Each flat cell drains to the same-height neighbour of the steepest fall of
    the mask (true diagonal distances; a low edge beside it first), ties by :func:`_tie_key`. The mask
    falls strictly along every route, so the routing stays acyclic. Flats with no low edge (the floors of
    closed depressions) are left as pits for the depression resolver.
    """
    n_pad = zp.size
    base_p = np.zeros(n_pad, dtype=bool)
    base_p[idx.ravel()] = base.ravel()
    pad_idx = np.arange(n_pad, dtype=np.int64)
    flat_p = (rec == pad_idx) & ~base_p
    flat = np.flatnonzero(flat_p)
    if not flat.size:
        return 0
    cand = (flat[:, None] + offsets[None, :]).ravel()
    src = np.repeat(flat, offsets.size)
    same = zp[cand] == zp[src]  # padding is +inf: never the same as a finite height
    drains = ~flat_p & (rec >= 0)  # a cell with a receiver (or an outlet), not padding
    low_p = np.zeros(n_pad, dtype=bool)
    low_p[cand[same & drains[cand]]] = True
    towards = _bfs(np.flatnonzero(low_p), flat_p, zp, offsets)
    drainable = flat_p & (towards > 0)
    if not drainable.any():
        return 0
    high_p = np.zeros(n_pad, dtype=bool)
    high_p[src[(zp[cand] > zp[src]) & np.isfinite(zp[cand])]] = True
    away = np.maximum(_bfs(np.flatnonzero(high_p & drainable), drainable, zp, offsets), 0)
    mask = (2 * towards - away).astype(np.float64)
    cells = np.flatnonzero(drainable)
    cell_ids = (cells // (idx.shape[1] + 2) - 1) * idx.shape[1] + (cells % (idx.shape[1] + 2) - 1)
    best = np.zeros(cells.size)
    top = np.zeros(cells.size, dtype=np.uint64)
    code = np.full(cells.size, -1, dtype=np.int64)
    for k in range(offsets.size):
        n = cells + offsets[k]
        level = zp[n] == zp[cells]
        fall = np.where(low_p[n], 3.5, mask[cells] - mask[n])  # a flat neighbour falls by 3 at most
        ok = level & (low_p[n] | drainable[n]) & (fall > 0.0)
        score = np.where(ok, fall / dists[k], 0.0)
        key = _tie_key(cell_ids, k)
        better = ok & ((score > best) | ((score == best) & (key > top)))
        best[better] = score[better]
        top[better] = key[better]
        code[better] = k
    if (code < 0).any():  # pragma: no cover - every drainable flat cell has a neighbour nearer its low edge
        raise RuntimeError("flat routing found no way down")
    rec[cells] = cells + offsets[code]
    dist[cells] = dists[code]
    return int(cells.size)


def _levels(rec: _IntArray, roots: _IntArray, offsets: _IntArray) -> tuple[list[_IntArray], _IntArray]:
    """Breadth-first levels of the receiver tree from ``roots`` (padded indices), and each cell's root.

    A cell's donors are among its eight neighbours, so each level is found by
    testing the neighbours of the previous one: ``O(cells)`` work, a few
    whole-array operations per level.
    """
    label = np.full(rec.shape, -1, dtype=np.int64)
    label[roots] = roots
    levels = [roots]
    frontier = roots
    while frontier.size:
        cand = offsets[:, None] + frontier[None, :]  # (8, frontier): direction-major when flattened
        hit = rec[cand] == frontier[None, :]
        frontier = cand[hit]
        if frontier.size:
            label[frontier] = label[rec[frontier]]  # the parent's root
            levels.append(frontier)
    return levels, label


def _basin_roots(rec: _IntArray) -> _IntArray:
    """Each cell's root (outlet or pit) on the receiver tree (padded indices; -1 on the padding), by pointer
    jumping: ``log2`` of the deepest path rounds of one whole-array gather each (the label :func:`_levels` gives,
    without walking the levels)."""
    pad = rec < 0
    label = np.where(pad, np.arange(rec.size, dtype=np.int64), rec)
    while True:
        jumped = label[label]
        if np.array_equal(jumped, label):
            break
        label = jumped
    label[pad] = -1
    return label


def _scan_order(
    rec: _IntArray, levels: list[_IntArray], label: _IntArray, is_pit: _BoolArray, offsets: _IntArray
) -> _IntArray:
    """The order in which a depth-first listing of each closed basin meets its cells, as a rank per cell.

    The basin graph takes, among equally low passes between two basins, the
    first one met in this order (then in :data:`NEIGHBOR_OFFSETS` order),
    which is the order fastscapelib's flow graph lists a basin's cells in:
    the outlet, then, each time a cell is taken off a stack, its donors in
    index order (pushed on the stack). So both pick the same pass.

    Without sorting: a cell's donors are among its neighbours, in index
    order = :data:`NEIGHBOR_OFFSETS` order, and the cells listed before a
    cell follow from subtree sizes, one whole-array operation per level.
    Computed for the cells of closed basins only (the others never scan).
    """
    inner_levels = [lv[is_pit[label[lv]]] for lv in levels]
    inner = np.concatenate(inner_levels)
    size = np.zeros(rec.size, dtype=np.int64)
    size[inner] = 1
    for lv in inner_levels[:0:-1]:
        np.add.at(size, rec[lv], size[lv])
    # per cell: its donors by direction; siblings popped before a donor are those of higher index. Each donor
    # ``c`` of ``p`` is ``p + offsets[k]`` for one direction ``k``; the donors grouped by ``k`` (a stable sort of
    # small integers), each group's parents distinct, so a running total per parent counts the later siblings
    # (the donors in index order: neighbouring cells' values lie close together in memory)
    reached = label >= 0
    in_closed = np.zeros(rec.size, dtype=bool)
    in_closed[reached] = is_pit[label[reached]]
    donors = np.flatnonzero(in_closed & (rec != np.arange(rec.size, dtype=np.int64)))
    parents = rec[donors]
    w1 = int(offsets.max())  # the largest offset, cols + 3 on the padded grid
    lut = np.full(2 * w1 + 1, -1, dtype=np.int8)
    lut[offsets + w1] = np.arange(offsets.size, dtype=np.int8)
    direction = lut[donors - parents + w1]
    by_k = np.argsort(direction, kind="stable")
    bounds = np.searchsorted(direction[by_k], np.arange(offsets.size + 1))
    later_size = np.zeros(donors.size, dtype=np.int64)  # per donor (position in donors)
    later_count = np.zeros(donors.size, dtype=np.int64)
    run_size = np.zeros(rec.size, dtype=np.int64)
    run_count = np.zeros(rec.size, dtype=np.int64)
    for k in range(offsets.size - 1, -1, -1):
        sel = by_k[bounds[k] : bounds[k + 1]]
        pk = parents[sel]
        later_size[sel] = run_size[pk]
        later_count[sel] = run_count[pk]
        run_size[pk] += size[donors[sel]]
        run_count[pk] += 1
    ndonors = run_count[parents]
    # cells listed before a cell's donors: those of every subtree popped earlier (size - 1 donors each): the
    # parent's count plus this cell's step, and its rank the parent's count plus 1 + its earlier siblings
    step_before = np.zeros(rec.size, dtype=np.int64)
    step_before[donors] = ndonors + later_size - later_count
    step_rank = np.zeros(rec.size, dtype=np.int64)
    step_rank[donors] = ndonors - later_count  # 1 + the siblings met before it
    before = np.zeros(rec.size, dtype=np.int64)
    rank = np.arange(rec.size, dtype=np.int64)
    rank[inner_levels[0]] = 0
    for lv in inner_levels[1:]:
        bp = before[rec[lv]]
        before[lv] = bp + step_before[lv]
        rank[lv] = bp + step_rank[lv]
    return rank


#: Tie-breaking by pairwise comparison (:func:`_tie_ranks`) handles tie groups of at most this many comparisons
#: per cell of the grid (and at least 16384 in all); more, and the whole scanning order is computed instead.
TIE_PAIRS_PER_CELL = 1 / 64


def _depths(rec: _IntArray, cells: _IntArray) -> _IntArray:
    """Steps from each of ``cells`` (padded indices) to the root of its receiver tree (0 at a root)."""
    depth = np.zeros(cells.size, dtype=np.int64)
    cur = cells.copy()
    active = np.flatnonzero(rec[cur] != cur)
    while active.size:
        depth[active] += 1
        cur[active] = rec[cur[active]]
        active = active[rec[cur[active]] != cur[active]]
    return depth


def _popped_before(rec: _IntArray, a: _IntArray, b: _IntArray) -> _BoolArray:
    """Whether each ``a`` is taken off the scanning stack before ``b`` (distinct cells of one receiver tree).

    The stack of :func:`_scan_order` takes cells off in depth-first preorder, a cell's donors in descending
    index order: an ancestor first; otherwise, below the two cells' lowest common ancestor, the branch of the
    higher index. Found by climbing the receivers, one whole-array step per level, on these cells only.
    """
    a, b = a.copy(), b.copy()
    da, db = _depths(rec, a), _depths(rec, b)
    out = np.zeros(a.size, dtype=bool)
    done = np.zeros(a.size, dtype=bool)
    for x, dx, y, dy, y_first in ((a, da, b, db, False), (b, db, a, da, True)):
        # the deeper cell climbs to one step below the other's depth; the other may be its ancestor
        active = np.flatnonzero(dx > dy + 1)
        while active.size:
            x[active] = rec[x[active]]
            dx[active] -= 1
            active = active[dx[active] > dy[active] + 1]
        below = np.flatnonzero((dx == dy + 1) & ~done)
        ancestor = rec[x[below]] == y[below]
        out[below[ancestor]] = y_first
        done[below[ancestor]] = True
        up = below[~ancestor]
        x[up] = rec[x[up]]
        dx[up] -= 1
    active = np.flatnonzero(~done)  # the same depth, neither an ancestor of the other: climb to the fork
    while active.size:
        fork = rec[a[active]] == rec[b[active]]
        out[active[fork]] = a[active[fork]] > b[active[fork]]
        active = active[~fork]
        a[active] = rec[a[active]]
        b[active] = rec[b[active]]
    return out


def _listed_before(rec: _IntArray, u: _IntArray, v: _IntArray) -> _BoolArray:
    """Whether each cell ``u`` comes before ``v`` in :func:`_scan_order`'s listing of their (one) closed basin.

    A cell is listed when its receiver is taken off the stack (the pit first, donors of one receiver in index
    order), so the comparison is that of the receivers' turns (:func:`_popped_before`). False where ``u == v``.
    """
    out = np.zeros(u.size, dtype=bool)
    u_root, v_root = rec[u] == u, rec[v] == v
    out[u_root & ~v_root] = True
    rest = np.flatnonzero(~u_root & ~v_root & (u != v))
    pu, pv = rec[u[rest]], rec[v[rest]]
    siblings = pu == pv
    out[rest[siblings]] = u[rest[siblings]] < v[rest[siblings]]
    out[rest[~siblings]] = _popped_before(rec, pu[~siblings], pv[~siblings])
    return out


def _tie_ranks(rec: _IntArray, group: _IntArray, cells: _IntArray, budget: int) -> _IntArray | None:
    """Per entry, how many distinct cells of its group come before its cell in :func:`_scan_order`'s listing.

    ``group`` (any integers) holds entries whose earlier sort keys are equal; each group's cells lie in one
    closed basin. Within a group the result sorts as the scanning ranks do, so it can stand in for them in a
    sort whose earlier keys are the group's. Only groups with two or more distinct cells are compared, pair
    by pair; ``None`` if that is more than ``budget`` comparisons (the caller computes the whole order).
    """
    ranks = np.zeros(group.size, dtype=np.int64)
    if group.size < 2:
        return ranks
    srt = np.lexsort((cells, group))
    g, c = group[srt], cells[srt]
    new_group = np.ones(g.size, dtype=bool)
    new_group[1:] = g[1:] != g[:-1]
    new_cell = new_group.copy()
    new_cell[1:] |= c[1:] != c[:-1]
    gid = np.cumsum(new_group) - 1
    distinct = np.bincount(gid, weights=new_cell).astype(np.int64)
    tied = distinct[gid] >= 2
    if not tied.any():
        return ranks
    pos = np.flatnonzero(tied)
    starts = np.flatnonzero(new_group)
    sizes = np.diff(np.append(starts, g.size))
    size = sizes[gid[pos]]
    if int(size.sum()) > budget:
        return None
    i = np.repeat(pos, size)  # every ordered pair (i, j) of one group
    j = np.repeat(starts[gid[pos]] - np.cumsum(size) + size, size) + np.arange(int(size.sum()))
    before = _listed_before(rec, c[j], c[i])
    ranks[srt[pos]] = np.bincount(i, weights=before, minlength=g.size)[pos].astype(np.int64)
    return ranks


def _mst_boruvka(n_nodes: int, eu: _IntArray, ev: _IntArray) -> _BoolArray:
    """Minimum spanning forest of edges already sorted by weight (index = rank), by Borůvka's algorithm.

    Each round every component picks its lowest-ranked outgoing edge (a strict
    total order, so the tree is the one Kruskal's algorithm gives) and the
    components are merged by pointer jumping. ``O(log n_nodes)`` rounds.
    """
    in_tree = np.zeros(eu.size, dtype=bool)
    comp = np.arange(n_nodes, dtype=np.int64)
    nodes = np.arange(n_nodes, dtype=np.int64)
    edge_ids = np.arange(eu.size, dtype=np.int64)
    while edge_ids.size:
        cu, cv = comp[eu[edge_ids]], comp[ev[edge_ids]]
        live = cu != cv
        edge_ids, cu, cv = edge_ids[live], cu[live], cv[live]
        if not edge_ids.size:
            break
        best = np.full(n_nodes, eu.size, dtype=np.int64)
        np.minimum.at(best, cu, edge_ids)
        np.minimum.at(best, cv, edge_ids)
        picked = np.flatnonzero(best < eu.size)
        chosen = best[picked]
        in_tree[chosen] = True
        a, b = comp[eu[chosen]], comp[ev[chosen]]
        parent = nodes.copy()
        parent[picked] = np.where(a == picked, b, a)
        # two components that picked the same edge point at each other: the smaller becomes the root
        mutual = (parent[parent] == nodes) & (parent != nodes) & (nodes < parent)
        parent[mutual] = nodes[mutual]
        while True:
            nxt = parent[parent]
            if np.array_equal(nxt, parent):
                break
            parent = nxt
        comp = parent[comp]
    return in_tree


def _resolve_depressions(
    z: _FloatArray,
    rec: _IntArray,
    dist: _FloatArray,
    base: _BoolArray,
    cell_size: float,
    label: _IntArray,
    is_pit: _BoolArray,
    roots: _IntArray,
) -> int:
    """Reroute closed depressions in place (``rec``, ``dist`` on padded indices): basin graph, MST, carve.

    Equally low passes are taken in :func:`_scan_order`'s order; that order is compared pair by pair for the
    few tied cells (:func:`_tie_ranks`), and computed whole only when ties are too many for that.
    """
    rows, cols = z.shape
    w = cols + 2
    n_pad = rec.size
    zp = np.full(n_pad, np.inf)
    zp.reshape(rows + 2, w)[1:-1, 1:-1] = z
    pits = np.flatnonzero(is_pit)
    # basin-graph nodes: 0 for all base-level basins together, 1.. for the pits in index order
    node_of_root = np.zeros(n_pad, dtype=np.int64)
    node_of_root[pits] = np.arange(1, pits.size + 1)
    lab_node = np.where(label >= 0, node_of_root[np.maximum(label, 0)], -1)
    offsets = _padded_offsets(cols)
    dists = _neighbor_distances(cell_size)
    # links across basins, one direction per pair of neighbours (E, SW, S, SE), at least one end inner
    parts_i, parts_j, parts_k = [], [], []
    # basins as int32 while scanning (half the memory to read)
    lab2: npt.NDArray[np.signedinteger[Any]] = lab_node.astype(np.int32 if pits.size < 2**31 - 1 else np.int64)
    lab2 = lab2.reshape(rows + 2, w)
    lab_c = lab2[1:-1, 1:-1]
    inner_mask = lab_c > 0
    ok = np.empty((rows, cols), dtype=bool)
    for k in (4, 5, 6, 7):
        dr, dc = NEIGHBOR_OFFSETS[k]
        for sign in (1, -1):
            # the neighbours' basins as a shifted view (row-major, as the cells' indices ascend): no gathers
            lj = lab2[1 + sign * dr : rows + 1 + sign * dr, 1 + sign * dc : cols + 1 + sign * dc]
            np.not_equal(lj, lab_c, out=ok)
            ok &= inner_mask
            ok &= lj >= 0 if sign > 0 else lj == 0  # an inner-inner link is found from its lower-index end once
            at = np.flatnonzero(ok)
            a = at + 2 * (at // cols) + w + 1  # the padded index of each
            parts_i.append(a)
            parts_j.append(a + sign * offsets[k])
            parts_k.append(np.full(a.size, k if sign > 0 else 7 - k, dtype=np.int64))
    li, lj_cells, lk = np.concatenate(parts_i), np.concatenate(parts_j), np.concatenate(parts_k)
    bi, bj = lab_node[li], lab_node[lj_cells]
    weight = np.maximum(zp[li], zp[lj_cells])
    lo, hi = np.minimum(bi, bj), np.maximum(bi, bj)
    pair = lo * (pits.size + 1) + hi
    # the link as seen from the basin that scans it (the lower inner basin, or the inner one)
    from_i = (bj == 0) | (bi < bj)
    scan_cell = np.where(from_i, li, lj_cells)
    scan_k = np.where(from_i, lk, 7 - lk)
    # per basin pair the lowest pass (ties: the first in scanning order): only the links as low as their pair's
    # lowest can be first, so those few are sorted (the same links first as sorting all of them)
    # (the links grouped by pair with a stable sort: they come in cell order, so long runs are sorted already)
    by_pair = np.argsort(pair, kind="stable")
    pair_sorted, weight_sorted = pair[by_pair], weight[by_pair]
    head = np.ones(pair_sorted.size, dtype=bool)
    head[1:] = pair_sorted[1:] != pair_sorted[:-1]
    lowest = np.minimum.reduceat(weight_sorted, np.flatnonzero(head)) if head.size else weight_sorted
    low = by_pair[weight_sorted == lowest[np.cumsum(head) - 1]]
    budget = max(16384, int(rows * cols * TIE_PAIRS_PER_CELL))

    def whole_order() -> _IntArray:  # too many ties to compare pair by pair: every cell's scanning rank
        return _scan_order(rec, _levels(rec, roots, offsets)[0], label, is_pit, offsets)

    scan_rank: _IntArray | None = None
    tie = _tie_ranks(rec, pair[low], scan_cell[low], budget)
    if tie is None:
        scan_rank = whole_order()
        tie = scan_rank[scan_cell[low]]
    srt = low[np.lexsort((scan_k[low], tie, weight[low], pair[low]))]
    first = np.ones(srt.size, dtype=bool)
    first[1:] = pair[srt[1:]] != pair[srt[:-1]]
    e = srt[first]
    # edges ranked by pass height (ties: the same order), then the spanning tree
    scan_basin = lab_node[scan_cell]
    if scan_rank is None:
        _, height_id = np.unique(weight[e], return_inverse=True)
        tie = _tie_ranks(rec, height_id.ravel() * (pits.size + 1) + scan_basin[e], scan_cell[e], budget)
        if tie is None:
            scan_rank = whole_order()
    if scan_rank is not None:
        tie = scan_rank[scan_cell[e]]
    assert tie is not None  # pairwise ranks, or the whole order's
    e = e[np.lexsort((scan_k[e], tie, scan_basin[e], weight[e]))]
    eu, ev = lo[e], hi[e]
    tree = e[_mst_boruvka(pits.size + 1, eu, ev)]
    # orient the tree away from node 0: breadth-first over its edges
    n_nodes = pits.size + 1
    ends = np.concatenate([lo[tree], hi[tree]])
    other = np.concatenate([hi[tree], lo[tree]])
    link = np.concatenate([tree, tree])
    srt = np.argsort(ends, kind="stable")
    ends, other, link = ends[srt], other[srt], link[srt]
    start = np.searchsorted(ends, np.arange(n_nodes + 1))
    parent_link = np.full(n_nodes, -1, dtype=np.int64)
    seen = np.zeros(n_nodes, dtype=bool)
    seen[0] = True
    frontier = np.zeros(1, dtype=np.int64)
    while frontier.size:
        counts = start[frontier + 1] - start[frontier]
        pos = np.repeat(start[frontier] - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
        child, via = other[pos], link[pos]
        new = ~seen[child]
        child, via = child[new], via[new]
        seen[child] = True
        parent_link[child] = via
        frontier = child
    # carve: the pass cell in the child basin drains across the pass; its path to the pit is reversed
    via = parent_link[1:]
    child_is_i = bi[via] == np.arange(1, n_nodes)
    p = np.where(child_is_i, li[via], lj_cells[via])
    q = np.where(child_is_i, lj_cells[via], li[via])
    prev, cur = p, rec[p]
    carry = dist[p].copy()
    rec[p] = q
    dist[p] = dists[lk[via]]
    active = cur != prev
    prev, cur, carry = prev[active], cur[active], carry[active]
    while cur.size:
        nxt = rec[cur].copy()
        old = dist[cur].copy()
        rec[cur] = prev
        dist[cur] = carry
        go = nxt != cur
        prev, cur, carry = cur[go], nxt[go], old[go]
    return int(pits.size)


def route_flow(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    open_edges: str = "nesw",
    sea_level: float | None = None,
    resolve_depressions: bool = True,
    flats: str = "towards_lower",
) -> FlowRouting:
    """D8 flow routing with flats drained and closed depressions rerouted to their spill points.

    Parameters
    ----------
    heights_m : array_like, shape (rows, cols)
        Finite heights in metres.
    cell_size : float
        Cell size in metres, in ``(0, 1e6]``.
    open_edges : str
        The open map edges (letters of ``"nesw"``): their cells are outlets.
    sea_level : float, optional
        Cells below it (metres) are outlets too.
    resolve_depressions : bool
        Reroute closed depressions (Cordonnier et al. 2019, see the module
        docstring). ``False`` leaves pits as outlets of their own.
    flats : {"towards_lower", "first"}
        ``"towards_lower"`` (default, spec version 4): a flat that borders
        a draining cell of its height drains across itself towards lower
        ground and away from higher ground (Barnes, Lehman & Mulla 2014),
        and equally steep neighbours are chosen by a hash of the cell and
        the direction, so no direction is favoured. ``"first"`` (spec
        version 3): every cell of a flat is a pit of its own (resolved as a
        depression) and ties go to the first of :data:`NEIGHBOR_OFFSETS`.

    Returns
    -------
    FlowRouting
        Receivers, distances, the stack and its levels. With depressions
        resolved every cell drains to a base-level cell.

    Raises
    ------
    ValueError, TypeError
        For bad heights, cell size, edges, or no base level at all.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    cs = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)
    base = base_level_mask(z, open_edges, sea_level)
    return route_prepared(z, cs, base, resolve=bool(resolve_depressions), flats=check_flat_routing(flats))


def route_prepared(
    z: _FloatArray, cs: float, base: _BoolArray, *, resolve: bool = True, flats: str = "towards_lower"
) -> FlowRouting:
    """:func:`route_flow` on checked input with a given base-level mask."""
    rows, cols = z.shape
    w = cols + 2
    rec, dist, n_flat = _d8(z, base, cs, flats)
    offsets = _padded_offsets(cols)
    idx = np.arange(rec.size, dtype=np.int64)
    roots = np.flatnonzero(rec == idx)
    base_p = np.zeros(rec.size, dtype=bool)
    base_p.reshape(rows + 2, w)[1:-1, 1:-1] = base
    is_pit = np.zeros(rec.size, dtype=bool)
    is_pit[roots] = ~base_p[roots]
    n_dep = 0
    if resolve and is_pit.any():
        label = _basin_roots(rec)
        n_dep = _resolve_depressions(z, rec, dist, base, cs, label, is_pit, roots)
        roots = np.flatnonzero(rec == idx)
    levels, _ = _levels(rec, roots, offsets)
    order_p = np.concatenate(levels)
    sizes = np.array([lv.size for lv in levels], dtype=np.int64)
    level_starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    def unpad(p: _IntArray) -> _IntArray:
        out: _IntArray = (p // w - 1) * cols + (p % w - 1)
        return out

    inner = idx.reshape(rows + 2, w)[1:-1, 1:-1].ravel()
    return FlowRouting(
        shape=(rows, cols),
        cell_size=cs,
        receivers=unpad(rec[inner]),
        distances=dist[inner].copy(),
        order=unpad(order_p),
        level_starts=level_starts,
        base_level=base,
        depressions=n_dep,
        flats=n_flat,
    )


def _check_routing(routing: object) -> FlowRouting:
    if not isinstance(routing, FlowRouting):
        raise TypeError(
            f"routing must be a FlowRouting (from route_flow; drainage_area also takes a "
            f"MultipleFlowRouting from route_multiple_flow), got {type(routing).__name__}"
        )
    return routing


def drainage_area(routing: FlowRouting | MultipleFlowRouting, runoff: npt.ArrayLike | None = None) -> _FloatArray:
    """Drainage area: the area (m²) of the cells that drain through each cell, the cell included.

    With a :class:`MultipleFlowRouting` each cell passes its area on to its
    receivers in proportion to their weights (the cells are taken a level at
    a time, each after all its donors), so a cell's area counts the shares of
    the upslope cells that reach it.

    Parameters
    ----------
    routing : FlowRouting or MultipleFlowRouting
        From :func:`route_flow` (D8) or :func:`route_multiple_flow` (MFD).
    runoff : array_like, shape (rows, cols), optional
        A weight per cell (e.g. precipitation relative to a reference); the
        result is then the weighted area. Default 1 everywhere.

    Returns
    -------
    ndarray of float64, shape (rows, cols)
        At least ``cell_size²`` everywhere (with unit runoff); the outlets'
        values sum to the grid's area.
    """
    r: FlowRouting | MultipleFlowRouting = (
        routing if isinstance(routing, MultipleFlowRouting) else _check_routing(routing)
    )
    area = np.full(r.shape[0] * r.shape[1], r.cell_size * r.cell_size)
    if runoff is not None:
        weights = as_heightmap(runoff, "runoff", dtype=np.float64)
        if weights.shape != r.shape:
            raise ValueError(f"runoff must have the routing's shape {r.shape}, got {weights.shape}")
        area *= weights.ravel()
    if isinstance(r, MultipleFlowRouting):
        accumulate_multiple(r, area)
    else:
        accumulate(r, area)
    return area.reshape(r.shape)


def accumulate(r: FlowRouting, values: _FloatArray) -> None:
    """In place: add each cell's value to its receiver's, from the top of the stack down (in stack order, so
    each receiver sums its donors in the same order on every run)."""
    stacked = values[r.order]
    accumulate_stacked(r, stacked)
    values[r.order] = stacked


def accumulate_stacked(r: FlowRouting, stacked: _FloatArray) -> None:
    """:func:`accumulate` on values already in stack order (``values[r.order]``), in place."""
    s, up = r.level_starts, r.receiver_positions
    for k in range(len(s) - 2, 0, -1):
        # the level's values copied first: a view of the array it adds into would make numpy copy all of it
        np.add.at(stacked, up[s[k] : s[k + 1]], stacked[s[k] : s[k + 1]].copy())


def flow_length(routing: FlowRouting) -> _FloatArray:
    """Upstream flow length: the longest flow path (m) from a divide down to each cell.

    The length used in Hack's law (``L ∝ A^h``; Hack 1957). 0 on cells no
    other cell drains into.

    Returns
    -------
    ndarray of float64, shape (rows, cols)
    """
    r = _check_routing(routing)
    length = np.zeros(r.shape[0] * r.shape[1])
    s, order, rec = r.level_starts, r.order, r.receivers
    for k in range(len(s) - 2, 0, -1):
        cells = order[s[k] : s[k + 1]]
        np.maximum.at(length, rec[cells], length[cells] + r.distances[cells])
    return length.reshape(r.shape)


def flow_direction(routing: FlowRouting) -> npt.NDArray[np.int8]:
    """The D8 direction of each cell: an index into :data:`NEIGHBOR_OFFSETS`, ``-1`` for outlets.

    Returns
    -------
    ndarray of int8, shape (rows, cols)
        0 NW, 1 N, 2 NE, 3 W, 4 E, 5 SW, 6 S, 7 SE; -1 where the cell is its
        own receiver.
    """
    r = _check_routing(routing)
    rows, cols = r.shape
    cells = np.arange(rows * cols, dtype=np.int64)
    dr = r.receivers // cols - cells // cols
    dc = r.receivers % cols - cells % cols
    code = np.full(rows * cols, -1, dtype=np.int8)
    for k, (a, b) in enumerate(NEIGHBOR_OFFSETS):
        code[(dr == a) & (dc == b)] = k
    return code.reshape(rows, cols)


# --- multiple flow direction (MFD) routing ----------------------------------------------------------------
@dataclass(frozen=True)
class MultipleFlowRouting:
    """A multiple-flow-direction routing: each cell shares its water among all its lower neighbours.

    Attributes
    ----------
    shape : (int, int)
        ``(rows, cols)`` of the grid.
    cell_size : float
        Cell size in metres.
    exponent : float
        The slope exponent ``p`` of the partition (1: Quinn et al. 1991;
        1.1: Freeman 1991; 4-8: Holmgren 1994, close to D8).
    receives : ndarray of bool, shape (8, rows * cols)
        ``receives[k, i]``: the neighbour of cell ``i`` in direction ``k``
        (:data:`NEIGHBOR_OFFSETS`) is one of its receivers, i.e. lower than
        it on :attr:`filled`. All ``False`` at outlets.
    weights : ndarray of float64, shape (8, rows * cols)
        Share of a cell's water sent to each receiver: ``S_k^p / Σ S_j^p``
        (``S`` the slope on :attr:`filled`, m/m; equal shares if every
        ``S^p`` underflows to 0); each column sums to 1 (to rounding) except
        at outlets, where it is all 0.
    distances : ndarray of float64, shape (8,)
        Distance in metres to the neighbour in each direction.
    order : ndarray of int64, shape (rows * cols,)
        Every cell once, each after *all* its receivers (outlets first).
    level_starts : ndarray of int64, shape (levels + 1,)
        ``order[level_starts[k]:level_starts[k + 1]]``: the cells whose
        longest path to an outlet has ``k`` steps.
    base_level : ndarray of bool, shape (rows, cols)
        The outlets water leaves the map through.
    filled : ndarray of float64, shape (rows, cols)
        The surface the partition is computed on, metres: the heights with
        each closed depression filled to its spill point with the smallest
        representable rise (one float64 step) per cell along the D8 routing,
        so every cell but an outlet has a lower neighbour.
    single : FlowRouting
        The D8 routing (depressions rerouted) the filling followed.
    """

    shape: tuple[int, int]
    cell_size: float
    exponent: float
    receives: _BoolArray
    weights: _FloatArray
    distances: _FloatArray
    order: _IntArray
    level_starts: _IntArray
    base_level: _BoolArray
    filled: _FloatArray
    single: FlowRouting

    def levels(self) -> list[_IntArray]:
        """The cells of each level (views of :attr:`order`), outlets first."""
        return split_levels(self.order, self.level_starts)


def _flat_offsets(cols: int) -> _IntArray:
    """Flat offsets of the eight neighbours in an unpadded grid ``cols`` wide."""
    return np.array([dr * cols + dc for dr, dc in NEIGHBOR_OFFSETS], dtype=np.int64)


def _fill_along(single: FlowRouting, z: _FloatArray) -> _FloatArray:
    """Raise each cell not above its receiver to one float64 step above it, receivers first (flat, float64)."""
    zf = z.ravel().copy()
    if single.depressions == 0 and single.flats == 0:
        return zf  # every D8 receiver is strictly lower already
    s, order, rec = single.level_starts, single.order, single.receivers
    for k in range(1, len(s) - 1):
        cells = order[s[k] : s[k + 1]]
        zr = zf[rec[cells]]
        low = zf[cells] <= zr
        if low.any():
            zf[cells[low]] = np.nextafter(zr[low], np.inf)
    return zf


def _mfd_partition(
    zf: _FloatArray, base: _BoolArray, cell_size: float, exponent: float
) -> tuple[_BoolArray, _FloatArray, _FloatArray]:
    """Receivers (all strictly lower neighbours), weights ``S^p / Σ S^p`` and the eight distances."""
    rows, cols = base.shape
    z = zf.reshape(rows, cols)
    zp = np.full((rows + 2, cols + 2), np.inf)
    zp[1:-1, 1:-1] = z
    dists = _neighbor_distances(cell_size)
    receives = np.zeros((8, rows * cols), dtype=bool)
    weights = np.zeros((8, rows * cols))
    total = np.zeros(rows * cols)
    inner = ~base.ravel()
    for k, (dr, dc) in enumerate(NEIGHBOR_OFFSETS):
        zn = zp[1 + dr : rows + 1 + dr, 1 + dc : cols + 1 + dc].ravel()
        lower = receives[k]
        np.greater(zf, zn, out=lower)
        lower &= inner
        with np.errstate(invalid="ignore"):  # zf - inf on the padding: not lower, replaced by 0
            slope = np.where(lower, zf - zn, 0.0) / dists[k]
        w = power(slope, exponent)  # the same bits on every CPU (numpy's ** is not)
        np.copyto(weights[k], w, where=lower)
        total += weights[k]  # summed in direction order, as a per-cell loop would
    has = total > 0.0
    np.divide(weights, total, out=weights, where=has)
    # all slopes underflowed (a rise of one float64 step above 0, or S^p below the smallest float): equal shares
    tiny = ~has & receives.any(axis=0)
    if tiny.any():
        weights[:, tiny] = receives[:, tiny] / receives[:, tiny].sum(axis=0)
    return receives, weights, dists


def _topological_levels(receives: _BoolArray, shape: tuple[int, int]) -> tuple[_IntArray, _IntArray]:
    """Levels of a multiple-flow graph (Kahn's algorithm, one whole-array round per level).

    A cell joins level ``k + 1`` once all its receivers are in levels up to
    ``k``: level = length of the longest path to an outlet.
    """
    rows, cols = shape
    size = rows * cols
    offsets = _flat_offsets(cols)
    # bit k of gives[c]: the cell whose direction-k neighbour is c drains (in part) to c
    gives = np.zeros(size, dtype=np.uint8)
    for k in range(8):
        off, bit = int(offsets[k]), np.uint8(1 << k)
        if off > 0:
            gives[off:] |= receives[k, : size - off].view(np.uint8) * bit
        else:
            gives[: size + off] |= receives[k, -off:].view(np.uint8) * bit
    waiting = receives.sum(axis=0).astype(np.int64)
    frontier = np.flatnonzero(waiting == 0)
    levels = [frontier]
    done = frontier.size
    while frontier.size and done < size:
        kk, jj = np.nonzero(np.unpackbits(gives[frontier][None, :], axis=0, bitorder="little"))
        donors = frontier[jj] - offsets[kk]
        np.subtract.at(waiting, donors, 1)
        frontier = np.unique(donors[waiting[donors] == 0])  # sorted: the same order on every platform
        levels.append(frontier)
        done += frontier.size
    if done != size:  # pragma: no cover - the filled surface has no cycles
        raise RuntimeError("multiple-flow graph has a cycle")
    order = np.concatenate(levels)
    sizes = np.array([lv.size for lv in levels], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return order, starts


def check_flow_exponent(exponent: float) -> float:
    """The MFD partition exponent ``p`` checked to lie in ``[0, 20]`` (0: equal shares; 20: almost D8)."""
    return check_number(exponent, "flow_exponent", low=0.0, high=20.0)


def route_multiple_flow(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    exponent: float = 1.0,
    open_edges: str = "nesw",
    sea_level: float | None = None,
    flats: str = "towards_lower",
) -> MultipleFlowRouting:
    """Multiple-flow-direction routing: water shared among all lower neighbours by slope.

    Each cell sends the share ``S_k^p / Σ_j S_j^p`` of its water to each
    lower neighbour ``k`` (``S`` the slope in m/m to that neighbour, true
    diagonal distances): Quinn, Beven, Chevallier & Planchon 1991 with
    ``p = 1``, Freeman 1991 with ``p = 1.1``, Holmgren 1994 with ``p``
    between 4 and 8. Closed depressions are first routed by D8 with the basin
    graph (:func:`route_flow`) and filled along those routes to their spill
    point by one float64 step per cell, so every cell drains (the scheme
    fastscapelib uses for ``MultiFlowRouter`` after ``MSTSinkResolver``).

    Parameters
    ----------
    heights_m : array_like, shape (rows, cols)
        Finite heights in metres.
    cell_size : float
        Metres, in ``(0, 1e6]``.
    exponent : float
        The partition's slope exponent ``p``, in ``[0, 20]`` (0: equal shares
        among the lower neighbours).
    open_edges, sea_level
        The base level, as for :func:`route_flow`.
    flats : {"towards_lower", "first"}
        How the D8 routing the filling follows treats flats and ties (as for
        :func:`route_flow`); the partition itself gives equally steep
        receivers equal shares.

    Returns
    -------
    MultipleFlowRouting

    Raises
    ------
    ValueError, TypeError
        For bad heights, cell size, exponent, edges, or no base level.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    cs = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)
    p = check_flow_exponent(exponent)
    base = base_level_mask(z, open_edges, sea_level)
    return route_multiple_prepared(z, cs, base, exponent=p, flats=check_flat_routing(flats))


def route_multiple_prepared(
    z: _FloatArray,
    cs: float,
    base: _BoolArray,
    *,
    exponent: float,
    single: FlowRouting | None = None,
    flats: str = "towards_lower",
) -> MultipleFlowRouting:
    """:func:`route_multiple_flow` on checked input (``single``: the D8 routing of ``z``, if already made)."""
    d8 = single if single is not None else route_prepared(z, cs, base, flats=flats)
    zf = _fill_along(d8, z)
    receives, weights, dists = _mfd_partition(zf, base, cs, exponent)
    order, starts = _topological_levels(receives, d8.shape)
    return MultipleFlowRouting(
        shape=d8.shape,
        cell_size=cs,
        exponent=exponent,
        receives=receives,
        weights=weights,
        distances=dists,
        order=order,
        level_starts=starts,
        base_level=base,
        filled=zf.reshape(z.shape),
        single=d8,
    )


def accumulate_multiple(r: MultipleFlowRouting, values: _FloatArray) -> None:
    """In place: pass each cell's value on to its receivers by weight, from the top level down."""
    s, order = r.level_starts, r.order
    offsets = _flat_offsets(r.shape[1])
    for lvl in range(len(s) - 2, 0, -1):
        cells = order[s[lvl] : s[lvl + 1]]
        kk, jj = np.nonzero(r.receives[:, cells])  # direction-major: each receiver gets its shares in direction order
        donors = cells[jj]
        np.add.at(values, donors + offsets[kk], values[donors] * r.weights[kk, donors])
