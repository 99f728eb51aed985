"""Fluvial erosion by the stream-power law, with uplift and hillslope diffusion.

The landscape-evolution equation of the detachment-limited models
(Howard 1994; Whipple & Tucker 1999)::

    dz/dt = U - K A^m S^n + D ∇²z

``U`` uplift (m/yr), ``A`` drainage area (m²), ``S`` channel slope towards
the D8 receiver, ``K`` erodibility (1/yr · m^(1-2m) for ``n = 1``), ``D``
hillslope diffusivity (m²/yr). Each time step, as in fastscapelib's
"mountain" example:

1. uplift: ``z += U dt`` (base-level cells stay fixed);
2. flow routing (:func:`.flow.route_flow`: D8, closed depressions rerouted
   to their spill by the basin graph of Cordonnier et al. 2019) and the
   drainage area;
3. channel incision, solved implicitly in ``O(n)`` along the stack, outlets
   first (Braun & Willett, "A very efficient O(n), implicit and parallel
   method to solve the stream power equation governing fluvial incision and
   landscape evolution", Geomorphology 180-181, 2013):
   ``z_i' = (z_i + F z_r') / (1 + F)``, ``F = K dt A^m / d`` for ``n = 1``
   (``d`` the distance to the receiver ``r``); for ``n ≠ 1`` the same
   implicit equation ``δ + F δ^n = δ0`` (``δ = z_i' - z_r'``,
   ``F = K dt A^m / d^n``) is solved per cell by Newton iteration. Cells in a
   lake (not above their receiver's new height) are not incised, and no cell
   is incised below its receiver, so no new depressions are made;
   with ``lake_fill`` the incised material then travels down the receiver
   tree and fills the closed depressions it reaches from their floor up, to
   at most their spill level (:func:`fill_lakes`; Yuan et al. 2019);
4. linear hillslope diffusion, ``D ∇²z`` (:func:`.diffusion.hillslope_diffusion`):
   by default backward Euler split by direction (a step implicit along rows,
   then one along columns, each 1-D solve an M-matrix), monotone at any step:
   no new pits or peaks (spec version 4); ``diffusion_scheme=
   "peaceman_rachford"`` is version 3's alternating-direction implicit scheme,
   which rings once ``D dt / (2 dx²) > 1/2``. Open edges hold their heights
   (Dirichlet), closed edges pass no flux (Neumann);
5. with ``marine_diffusion`` and a sea level, the marine part of Yuan, Braun, Guerit, Rouby & Cordonnier
   2019: the sediment the rivers carry into the sea (the net volume each basin gives, accumulated down the D8
   routing to the sea cell it reaches) spreads over the sea floor by the marine diffusivity's kernel over
   the step (:mod:`.marine`), so deltas and shelves build out from the coast. The sea floor is raised at most
   to the sea level: a cell filled to it is land the next step and the river crosses it (the delta
   progrades); what would rise above it is carried on (leaves the map).

Flats (cells with no lower neighbour beside a draining cell of their height)
drain towards lower ground and away from higher ground and ties are broken
without a direction bias (``flats="towards_lower"``, Barnes, Lehman & Mulla
2014; :func:`.flow.route_flow`); ``flats="first"`` is version 3's routing.

With ``routing="mfd"`` steps 2 and 3 use multiple flow directions
(:func:`.flow.route_multiple_flow`: each cell's water shared among all its
lower neighbours by slope, Quinn et al. 1991 / Freeman 1991 / Holmgren
1994) and each cell's implicit equation sums over all its receivers
(``F_r = K dt (A w_r)^m / d_r``), as fastscapelib's ``SPLEroder`` does on
a ``MultiFlowRouter`` graph.

The levels of the stack (cells the same number of steps from their outlet)
are processed one after the other with whole-array operations, so the work
is ``O(cells)`` with a Python loop over levels only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..elementary import power
from ..filters import LINE_COST
from ..heightmap import as_heightmap, check_count, check_number
from ..progress import Cancelled, Progress, check_progress
from ..work import check_work_limit, limit_work
from .diffusion import adi_diffusion, check_diffusion_scheme
from .flow import (
    NEIGHBOR_OFFSETS,
    FlowRouting,
    MultipleFlowRouting,
    accumulate,
    accumulate_multiple,
    accumulate_stacked,
    base_level_mask,
    check_flat_routing,
    check_flow_exponent,
    check_open_edges,
    flow_direction,
    route_flow,
    route_multiple_prepared,
    route_prepared,
)
from .lakes import deposit_in_lakes
from .marine import marine_spread_cells, spread_on_sea

__all__ = [
    "STEP_COST",
    "ROUTINGS",
    "MAX_STEPS",
    "StreamPowerResult",
    "default_erodibility",
    "default_diffusivity",
    "map_diffusivity",
    "default_channel_width",
    "DIFFUSION_LENGTH_SHARE",
    "CHANNEL_WIDTH_SHARE",
    "stream_power_step",
    "stream_power_erosion",
    "step_work",
    "stream_power_passes",
    "check_stream_power_work",
    "STEP_BYTES",
    "MFD_STEP_BYTES",
    "DEPOSITION_ITERATIONS",
    "DEPOSITION_RANGE",
]

#: What one stream-power step costs per cell, in the filter work unit (cell passes, see
#: :func:`.filters.filter_work`): routing, the implicit solve and the diffusion are about forty
#: filter passes' worth. Work over the limit the user set (:mod:`core.work`) is refused.
STEP_COST = 40


#: The same with multiple-flow routing (``routing="mfd"``), measured about three times a D8 step.
MFD_STEP_COST = 120


#: Bytes per cell a run holds at its peak (tracemalloc, one step of a hills terrain at 129^2 to 513^2: 191
#: to 201 with D8, 276 to 280 with multiple flow and lakes at 257^2 and 513^2,
#: ``tests/core/test_memory_estimate.py``; the process's peak RSS growth in Blender at 1025^2 with multiple
#: flow, 322 with the 16 the spec holds, ``tests/blender/test_memory.py``), rounded up.
STEP_BYTES = 205
MFD_STEP_BYTES = 320


#: Upper bound on the number of time steps.
MAX_STEPS = 100_000


#: Newton iterations per cell for ``n != 1`` stop when the residual is below this (metres) ...
NEWTON_TOLERANCE = 1e-9


#: ... or after this many iterations.
NEWTON_MAX_ITERATIONS = 50


#: What one numpy call costs beyond its values, in the work unit (cell passes, about 16 ns each; see
#: :data:`.filters.LINE_COST`): about 1.5 microseconds. The Newton iterations run level by level, so on
#: the small arrays of a level this overhead, not the values, is most of their work ...
CALL_COST = 100


#: ... and a call over ``E`` values costs ``CALL_COST + E / VALUES_PER_UNIT`` (an element-wise numpy
#: operation is about 2 ns a value).
VALUES_PER_UNIT = 8


#: numpy calls in one Newton iteration over a level's cells, counted in the loop bodies of the D8
#: (:func:`_newton`, over ``cells`` values) and the multiple-flow solver (:func:`_newton_mfd`, over
#: ``8 x cells`` values, the receivers of each).
NEWTON_CALLS = 22
NEWTON_MFD_CALLS = 48


#: Newton iterations per cell and level for ``n != 1``, at most: counted on representative terrains
#: (hills, noise and diamond-square, 33^2 and 65^2, ``n`` 0.25 to 4, ``K`` 1e-6 to 1, ten steps: at most
#: 17 with D8 for ``n > 1``, 19 with multiple flow; ``tests/core/test_stream_power.py`` checks the
#: estimate against the count), with a margin. With multiple flow and ``n < 1`` the bracketed Newton
#: steps mostly bisect (150 to 177 counted): the estimate takes the solver's cap, ``4 x``
#: :data:`NEWTON_MAX_ITERATIONS`.
NEWTON_ITERATIONS = 20


#: With D8 and ``n < 1`` the iteration on ``u = δ^n`` converges in a few (at most 2.5 a level counted).
NEWTON_ITERATIONS_BELOW_1 = 6
NEWTON_MFD_ITERATIONS = 25


#: Levels of the stack (cells the same number of receivers from their outlet) per ``rows + cols``, at
#: most: counted on the same terrains (at most 1.11 with D8, 1.54 with multiple flow), with a margin. A
#: river winding far more than those (a spiral of one cell's width has ``rows x cols`` levels) costs more
#: than the estimate.
LEVELS_PER_SIDE = 1.25
MFD_LEVELS_PER_SIDE = 1.75


#: Cells per chunk of levels in the multiple-flow incision: what does not depend on the new heights (the
#: receivers, their factors) is gathered for a chunk at once, about 500 bytes a cell of temporaries, so a
#: chunk is a 64th of the grid (at least this many cells) and the step's peak memory barely moves.
CHUNK_CELLS = 4096
CHUNK_SHARE = 64


#: Work (cell passes) between two calls of the progress callback inside a step: about a tenth of a
#: second, so a cancelled job stops promptly even in a long step.
POLL_WORK = 5_000_000


_FloatArray = npt.NDArray[np.float64]
_BoolArray = npt.NDArray[np.bool_]


class _Tally:
    """The work a run has done, counted in cell passes as the solver does it, and the cancel poll.

    ``add(calls, values)`` counts ``calls`` numpy calls over ``values`` values each:
    ``calls x (CALL_COST + values / VALUES_PER_UNIT)``. Every :data:`POLL_WORK` of it, ``poll()`` runs (the progress
    callback), and its ``False`` stops the run inside the step (:class:`_Stopped`).
    """

    def __init__(self, poll: Callable[[], object] | None = None) -> None:
        self.work = 0
        self.newton_iterations = 0  # over all levels and steps
        self.newton_cells = 0  # cells x iterations
        self.levels = 0  # of the stack, the most of any step
        self.deposition_sweeps = 0  # over all steps
        self._poll = poll
        self._next = POLL_WORK

    def checkpoint(self, phase_work: int) -> None:
        """Between the phases of a step (routing, accumulation, incision, lakes, diffusion): poll when a phase
        is long, ``phase_work`` (its cell passes) at least :data:`POLL_WORK`."""
        if self._poll is not None and phase_work >= POLL_WORK and self._poll() is False:
            raise _Stopped

    def add(self, calls: int, values: int) -> None:
        self.work += calls * (CALL_COST + values // VALUES_PER_UNIT)
        if self._poll is not None and self.work >= self._next:
            self._next = self.work + POLL_WORK
            if self._poll() is False:
                raise _Stopped


class _Stopped(Exception):
    """The progress callback returned ``False`` inside a step."""


@dataclass(frozen=True)
class StreamPowerResult:
    """Heights after stream-power erosion, and the maps a material can use.

    Attributes
    ----------
    heights : ndarray of float32, shape (rows, cols)
        Heights in metres.
    drainage_area : ndarray of float32, shape (rows, cols)
        Drainage area in m² of the last step's routing (at least one cell's area).
    receivers : ndarray of int32, shape (rows, cols)
        Flat index (``row * cols + col``) of the cell each cell drains to
        (itself at outlets), from the last step's routing.
    direction : ndarray of int8, shape (rows, cols)
        D8 direction code (:data:`.flow.NEIGHBOR_OFFSETS` index, -1 outlet).
    eroded : ndarray of float32, shape (rows, cols)
        Material removed in metres over the whole run: channel incision plus
        hillslope loss (negative where diffusion deposited more than was
        removed). ``heights = start + uplift·time - eroded`` (base-level
        cells: 0).
    incision : ndarray of float32, shape (rows, cols)
        The channel (stream-power) part of ``eroded``, >= 0.
    work : int
        The run's work as the solver counted it, in cell passes (the estimate
        :func:`step_work` bounds it on the terrains it was calibrated on).
    """

    heights: npt.NDArray[np.float32]
    drainage_area: npt.NDArray[np.float32]
    receivers: npt.NDArray[np.int32]
    direction: npt.NDArray[np.int8]
    eroded: npt.NDArray[np.float32]
    incision: npt.NDArray[np.float32]
    work: int = 0


def default_erodibility(
    shape: tuple[int, int], cell_size: float, duration: float, *, m: float = 0.45, n: float = 1.0
) -> float:
    """An erodibility ``K`` that carves the whole map within ``duration`` years.

    Knickpoints of the stream-power law travel upstream at ``K A^m S^(n-1)``
    (m/yr); a trunk stream of length ``L`` (half the shorter side) with a
    drainage area of about ``L²`` at its mouth is crossed in about
    ``L / (K L^(2m))`` years. This returns the ``K`` for which that time is a
    quarter of ``duration``, so channels reach the divides and the relief
    approaches its steady state (``S = (U/K)^(1/n) A^(-m/n)``) during the run.
    Units: 1/yr · m^(1-2m) (for ``n = 1``).
    """
    length = 0.5 * min(shape) * cell_size
    return float(4.0 * power(length, 1.0 - 2.0 * m) / duration)


def default_diffusivity(cell_size: float, duration: float) -> float:
    """A hillslope diffusivity ``D`` (m²/yr) that smooths about one cell: ``sqrt(D · duration) = cell_size``.

    Depends on the cell size, so a coarser grid of the same map is smoothed over a longer distance: what
    :func:`stream_power_erosion` uses when ``diffusion`` is not given (spec version 2's automatic rate).
    :func:`map_diffusivity` is the resolution-independent choice.
    """
    return cell_size * cell_size / duration


#: :func:`map_diffusivity`'s diffusion length ``sqrt(D · duration)`` as a share of ``L`` (half the shorter side).
DIFFUSION_LENGTH_SHARE = 1.0 / 32.0


#: :func:`default_channel_width` as a share of ``L`` (half the shorter side): one cell of a 1025² map.
CHANNEL_WIDTH_SHARE = 1.0 / 512.0


def map_diffusivity(shape: tuple[int, int], cell_size: float, duration: float) -> float:
    """A hillslope diffusivity ``D`` (m²/yr) from the map's size, the same at every resolution.

    ``sqrt(D · duration) = L / 32`` with ``L`` half the shorter side in metres (as in
    :func:`default_erodibility`): 6.25 m on a 400 m map, four cells of its 257² preview and sixteen of its
    1025² terrain. Valley sides shaped over more than the coarser grid's cell are what a coarse and a fine
    grid can agree on (tests/core/test_spec_v3.py: L / 128 gives a preview correlation of 0.973, L / 32
    0.991); with :func:`default_diffusivity` each grid smooths its own cell, four times farther at 257² than
    at 1025². It smooths channels narrower than that length away: River Valleys (auto rates, 1.6 Myr) fails
    its concavity gate with it (θ 0.23 at 513²) and keeps the version-2 scale.
    """
    length = DIFFUSION_LENGTH_SHARE * 0.5 * (min(shape) - 1) * cell_size  # the side in metres: vertices - 1 cells
    return float(length * length / duration)


def default_channel_width(shape: tuple[int, int], cell_size: float) -> float:
    """A channel width (metres) from the map's size: ``L / 512``, one cell of a 1025² map.

    ``L`` is half the shorter side in metres, as in :func:`default_erodibility`: 0.39 m on a 400 m map,
    12.5 m on a 12.8 km one (rivers of 10-100 km² drainage are metres to tens of metres wide). See
    ``channel_width`` of :func:`stream_power_erosion`.
    """
    return float(CHANNEL_WIDTH_SHARE * 0.5 * (min(shape) - 1) * cell_size)


#: Drainage areas up to this many cells take ``A^m`` from a table (:func:`_area_power`).
AREA_TABLE_CELLS = 4096


def _area_power(area: _FloatArray, m: float, cell_area: float) -> _FloatArray:
    """``power(area, m)``, the same bits, faster: most cells drain a few cells, and an area that is exactly a
    whole number ``c <= AREA_TABLE_CELLS`` of cells (``c * cell_area``, as summed along the stack whenever the
    cell area is a binary fraction) takes ``power(c * cell_area, m)`` from a table; the others are computed."""
    if area.size <= 4 * AREA_TABLE_CELLS:
        small: _FloatArray = power(area, m)
        return small
    count = np.minimum(np.rint(area / cell_area), AREA_TABLE_CELLS).astype(np.int64)
    keys = np.arange(AREA_TABLE_CELLS + 1, dtype=np.float64) * cell_area
    hit = area == keys[count]
    out: _FloatArray = power(keys, m)[count]
    miss = ~hit
    if miss.any():
        out[miss] = power(area[miss], m)
    return out


def _incision_factor(
    routing: FlowRouting,
    area: _FloatArray,
    k: _FloatArray | float,
    m: float,
    n: float,
    dt: float,
    channel_area: float,
) -> _FloatArray:
    """``K dt A^m / d^n`` per cell (flat), 0 at outlets and, with ``channel_area``, below the channel-initiation
    area (hillslope cells: no stream power)."""
    dist = routing.distances
    has_rec = dist > 0.0
    factor = np.zeros(dist.size)
    kk = k if isinstance(k, float) else k[has_rec]
    cell_area = routing.cell_size * routing.cell_size
    factor[has_rec] = kk * dt * _area_power(area, m, cell_area)[has_rec] / power(dist[has_rec], n)
    if channel_area > 0.0:
        factor[area < channel_area] = 0.0
    return factor


def _incise(
    routing: FlowRouting,
    z: _FloatArray,
    area: _FloatArray,
    k: _FloatArray | float,
    m: float,
    n: float,
    dt: float,
    channel_area: float = 0.0,
    tally: _Tally | None = None,
) -> _FloatArray:
    """Braun & Willett's implicit stream-power incision along the stack; returns the new flat heights."""
    order, s = routing.order, routing.level_starts
    factor = _incision_factor(routing, area, k, m, n, dt, channel_area)
    linear = abs(n - 1.0) <= np.finfo(np.float64).eps
    # in stack order: a level is a slice, its receivers' heights a gather from the levels before it
    up = routing.receiver_positions
    zs, fs = z[order], factor[order]
    down = zs[up] <= zs  # towards a receiver not above the cell (on the uplifted heights)
    one_f = 1.0 + fs
    new_s = zs.copy()
    for lvl in range(1, len(s) - 1):
        a, b = int(s[lvl]), int(s[lvl + 1])
        zc, zr_new = zs[a:b], new_s[up[a:b]]
        # incised only above the receiver's new height, and only towards a receiver below it
        ok = (zc > zr_new) & down[a:b]
        if linear:
            updated = (zc + fs[a:b] * zr_new) / one_f[a:b]
        else:
            if not ok.any():
                continue
            updated = zc.copy()
            updated[ok] = zr_new[ok] + _newton(zc[ok] - zr_new[ok], fs[a:b][ok], n, tally)
        # never below the receiver: no new depressions (fastscapelib counts these as corrections)
        new_s[a:b] = np.where(ok, np.maximum(updated, zr_new), zc)
    new = np.empty_like(z)
    new[order] = new_s
    return new


#: At most this many fixed-point sweeps of the sediment-flux term per step with ``deposition > 0`` (Yuan et al.
#: 2019 iterate to convergence: the sweeps stop once no height moves more than :data:`DEPOSITION_TOLERANCE`) ...
DEPOSITION_ITERATIONS = 50


#: ... and the sweeps the work estimate counts per step (typical with ``G <= 2``; see :func:`step_work`).
DEPOSITION_SWEEPS = 18


#: Metres: the deposition sweeps stop when the largest change of a sweep is below this.
DEPOSITION_TOLERANCE = 1e-6


#: What one deposition sweep costs per cell, in cell passes (an accumulation along the stack and a solve).
DEPOSITION_SWEEP_COST = 10


#: Deposition coefficient ``G`` bounds (dimensionless): Yuan et al. 2019 explore ``G`` from 0 to a few.
DEPOSITION_RANGE = (0.0, 10.0)


def _incise_deposit(
    routing: FlowRouting,
    z: _FloatArray,
    area: _FloatArray,
    k: _FloatArray | float,
    m: float,
    n: float,
    dt: float,
    g: float,
    cell_area: float,
    channel_area: float = 0.0,
    tally: _Tally | None = None,
) -> _FloatArray:
    """Incision with transport-limited deposition (Yuan, Braun, Guerit, Rouby & Cordonnier 2019, JGR Earth
    Surface 124, "A new efficient method to solve the stream power law model taking into account sediment
    deposition"): ``dh/dt = U - K A^m S^n + (G / A) ∫_A (U - dh/dt) dA`` on the uplifted flat heights ``z``.

    Implicit along the stack as :func:`_incise`, the sediment flux from strictly upstream cells taken from the
    previous sweep (fixed-point iterations until converged, at most :data:`DEPOSITION_ITERATIONS`); the cell's own
    term is implicit, so at steady state under uniform uplift ``K A^m S^n = (1 + G) U`` exactly. Returns the new
    heights.
    """
    order, s = routing.order, routing.level_starts
    has_rec = routing.distances > 0.0
    factor = _incision_factor(routing, area, k, m, n, dt, channel_area)
    own = np.where(has_rec, g * cell_area / area, 0.0)  # the cell's own share of the integral, (G / A) a
    gain = np.where(has_rec, g / area, 0.0)
    linear = abs(n - 1.0) <= np.finfo(np.float64).eps
    first = _incise(routing, z, area, k, m, n, dt, channel_area, tally)  # the first guess: no deposition
    # in stack order (as in _incise): levels are slices
    up = routing.receiver_positions
    zs, fs, own_s, gain_s, new = z[order], factor[order], own[order], gain[order], first[order]
    c1_s = 1.0 + own_s
    down = zs[up] <= zs  # towards a receiver not above the cell (on the uplifted heights)
    fc_s = fs / c1_s
    one_f = 1.0 + fc_s
    for _ in range(DEPOSITION_ITERATIONS):
        flux = cell_area * (zs - new)  # net volume each cell gives this step (m³; negative where it gains)
        upstream = flux.copy()
        accumulate_stacked(routing, upstream)
        upstream -= flux  # from strictly upstream cells
        rhs = zs * c1_s + gain_s * upstream  # right-hand side without incision
        h0_s = rhs / c1_s  # the heights with deposition and no incision
        previous = new
        new = zs.copy()
        for lvl in range(1, len(s) - 1):
            a, b = int(s[lvl]), int(s[lvl + 1])
            h0, zr_new = h0_s[a:b], new[up[a:b]]
            ok = (h0 > zr_new) & down[a:b]
            if linear:
                delta = (h0 - zr_new) / one_f[a:b]
                new[a:b] = np.where(ok, np.maximum(zr_new + delta, zr_new), h0)
                continue
            out = h0
            if ok.any():
                out = h0.copy()
                d0 = h0[ok] - zr_new[ok]
                out[ok] = np.maximum(zr_new[ok] + _newton(d0, fc_s[a:b][ok], n, tally), zr_new[ok])
            new[a:b] = out
        if tally is not None:
            tally.work += z.size * DEPOSITION_SWEEP_COST
            tally.deposition_sweeps += 1
        if float(np.abs(new - previous).max()) < DEPOSITION_TOLERANCE:
            break
    result = np.empty_like(z)
    result[order] = new
    return result


def _incise_mfd(
    routing: MultipleFlowRouting,
    z: _FloatArray,
    area: _FloatArray,
    k: _FloatArray | float,
    m: float,
    n: float,
    dt: float,
    channel_area: float = 0.0,
    tally: _Tally | None = None,
) -> _FloatArray:
    """The implicit stream-power incision on a multiple-flow routing; returns the new flat heights.

    Each cell, after all its receivers (the routing's levels), solves
    ``z' = z - dt Σ_r K (A w_r)^m ((z' - z_r') / d_r)^n`` over the receivers
    ``r`` (weights ``w_r``, distances ``d_r``) not above it on the unfilled
    surface, as fastscapelib's ``SPLEroder`` does on a multiple-flow graph:
    for ``n = 1`` in closed form, ``z' = (z + Σ F_r z_r') / (1 + Σ F_r)``
    with ``F_r = K dt (A w_r)^m / d_r``. A cell not above its lowest
    receiver's new height (a lake) is not incised, and none goes below it.
    """
    offsets = np.array([dr * routing.shape[1] + dc for dr, dc in NEIGHBOR_OFFSETS], dtype=np.int64)
    order, s = routing.order, routing.level_starts
    new = z.copy()
    linear = abs(n - 1.0) <= np.finfo(np.float64).eps
    size = z.size
    dist_n = power(routing.distances, n)
    lvl, last = 1, len(s) - 1
    chunk_cells = max(CHUNK_CELLS, size // CHUNK_SHARE)
    while lvl < last:
        # a chunk of levels of about CHUNK_CELLS cells: what does not depend on the new heights, in one pass
        end = max(lvl + 1, int(np.searchsorted(s, s[lvl] + chunk_cells, side="right")) - 1)
        end = min(end, last)
        chunk = order[s[lvl] : s[end]]
        go = routing.receives[:, chunk]  # (8, cells)
        rec = np.clip(chunk[None, :] + offsets[:, None], 0, size - 1)
        zc = z[chunk]
        contributes = go & (z[rec] <= zc[None, :])
        kk = k if isinstance(k, float) else k[chunk]
        kdt = np.broadcast_to(kk * dt, zc.shape)
        # the power only where a receiver contributes (the others' factors are 0): the same bits, elementwise
        jj = np.nonzero(contributes)
        factor = np.zeros(contributes.shape)
        factor[jj] = kdt[jj[1]] * power(area[chunk[jj[1]]] * routing.weights[jj[0], chunk[jj[1]]], m)
        factor /= dist_n[:, None]
        channel = area[chunk] >= channel_area if channel_area > 0.0 else None
        den = np.ones_like(zc)
        if linear:
            for j in range(8):  # in direction order, as fastscapelib sums
                den += factor[j]
        for level in range(lvl, end):
            a, b = int(s[level] - s[lvl]), int(s[level + 1] - s[lvl])
            zr_now = new[rec[:, a:b]]
            zr_new = np.where(go[:, a:b], zr_now, np.inf)
            flooded = zr_new.min(axis=0)
            zl = zc[a:b]
            ok = zl > flooded
            if channel is not None:  # hillslope cells: no stream power below the channel-initiation area
                ok &= channel[a:b]
            if not ok.any():
                continue
            cl, fl, cb = contributes[:, a:b], factor[:, a:b], chunk[a:b]
            if linear:
                terms = np.zeros(fl.shape)  # F_r z_r' of the contributing receivers, 0 for the others
                np.multiply(fl, zr_now, out=terms, where=cl)
                num = zl + terms[0]
                for j in range(1, 8):  # in direction order, as fastscapelib sums
                    num += terms[j]
                updated = num / den[a:b]
                new[cb[ok]] = np.maximum(updated, flooded)[ok]
            else:
                lo = flooded[ok]
                updated = _newton_mfd(zl[ok], lo, np.where(cl, zr_now, 0.0)[:, ok], fl[:, ok], n, tally)
                new[cb[ok]] = np.maximum(updated, lo)
        lvl = end
    return new


def _newton_mfd(
    zc: _FloatArray, low: _FloatArray, zr: _FloatArray, f: _FloatArray, n: float, tally: _Tally | None = None
) -> _FloatArray:
    """Solve ``g(x) = x - zc + Σ_r f_r max(x - zr_r, 0)^n = 0`` for ``x`` in ``[low, zc]`` per cell.

    ``g`` increases with ``x``, ``g(zc) >= 0``, and every receiver with
    ``f_r > 0`` has ``zr_r >= low``, so ``g(low) <= 0``: the root is kept in
    a bracket that Newton steps shrink, with a bisection whenever a step
    leaves it (so ``n < 1``, where ``g`` is not convex, converges too).
    Stops at :data:`NEWTON_TOLERANCE` metres of residual.
    """
    lo, hi = low.copy(), zc.copy()
    x = zc.copy()
    todo = np.arange(zc.size)
    for _ in range(4 * NEWTON_MAX_ITERATIONS):
        if not todo.size:
            break
        if tally is not None:
            tally.newton_iterations += 1
            tally.newton_cells += int(todo.size)
            tally.add(NEWTON_MFD_CALLS, 8 * int(todo.size))
        xt, fk, zk = x[todo], f[:, todo], zr[:, todo]
        drop = np.maximum(xt[None, :] - zk, 0.0)
        powered = fk * power(drop, n)
        g = xt - zc[todo] + powered.sum(axis=0)
        deriv = 1.0 + (n * np.where(drop > 0.0, powered / np.where(drop > 0.0, drop, 1.0), 0.0)).sum(axis=0)
        done = np.abs(g) <= NEWTON_TOLERANCE
        above = g > 0.0
        hi[todo] = np.where(above, xt, hi[todo])
        lo[todo] = np.where(above, lo[todo], xt)
        step = xt - g / deriv
        inside = (step > lo[todo]) & (step < hi[todo])
        x[todo] = np.where(done, xt, np.where(inside, step, 0.5 * (lo[todo] + hi[todo])))
        todo = todo[~done & (hi[todo] - lo[todo] > 0.0)]
    return x


def _newton(delta0: _FloatArray, f: _FloatArray, n: float, tally: _Tally | None = None) -> _FloatArray:
    """Solve ``δ + f δ^n = δ0`` for ``0 < δ <= δ0`` per cell by Newton's method from the right.

    For ``n >= 1`` the residual is convex in ``δ``; for ``n < 1`` it is
    concave in ``δ`` but convex in ``u = δ^n``, so the iteration runs on
    ``u``. Either way Newton's method started at ``δ0`` decreases
    monotonically to the root (no overshoot below it). Stops when the
    residual is at most :data:`NEWTON_TOLERANCE` metres.
    """
    inverse = n < 1.0
    x = power(delta0, n) if inverse else delta0.copy()
    todo = np.flatnonzero(f > 0.0)
    for _ in range(NEWTON_MAX_ITERATIONS):
        if not todo.size:
            break
        if tally is not None:
            tally.newton_iterations += 1
            tally.newton_cells += int(todo.size)
            tally.add(NEWTON_CALLS, int(todo.size))
        xk, fk = x[todo], f[todo]
        if inverse:
            powered = power(xk, 1.0 / n)
            func = powered + fk * xk - delta0[todo]
            deriv = powered / (n * xk) + fk
        else:
            powered = fk * power(xk, n)
            func = xk + powered - delta0[todo]
            deriv = 1.0 + n * powered / xk
        go = func > NEWTON_TOLERANCE
        todo, xk, func, deriv = todo[go], xk[go], func[go], deriv[go]
        xk = xk - func / deriv
        positive = xk > 0.0
        x[todo] = np.where(positive, xk, 0.0)
        todo = todo[positive]
    return power(x, 1.0 / n) if inverse else x


@dataclass(frozen=True, kw_only=True)
class _Params:
    """The checked parameters of one run (see :func:`_params`), built by keyword only."""

    k: float | _FloatArray
    m: float
    n: float
    uplift: float | _FloatArray
    diffusion: float
    dt: float
    cell_size: float
    sea_level: float | None
    open_edges: str
    routing: str = "d8"
    flow_exponent: float = 1.0
    lake_fill: bool = False
    channel_width: float = 0.0
    channel_area: float = 0.0
    diffusion_scheme: str = "implicit"
    flats: str = "towards_lower"
    precipitation: _FloatArray | None = None
    deposition: float = 0.0
    marine_diffusion: float = 0.0


#: The flow routings of :func:`stream_power_erosion`: single (D8) or multiple flow direction.
ROUTINGS = ("d8", "mfd")


def _check_routing_name(routing: object) -> str:
    if not isinstance(routing, str) or routing not in ROUTINGS:
        raise ValueError(f"routing must be one of {', '.join(ROUTINGS)}, got {routing!r}")
    return routing


def _step(
    z: _FloatArray, p: _Params, tally: _Tally | None = None
) -> tuple[_FloatArray, FlowRouting | MultipleFlowRouting, _FloatArray, _FloatArray]:
    """One time step; returns the new heights, the routing, the drainage area and the incision (flat)."""
    shape = z.shape
    base = base_level_mask(z, p.open_edges, p.sea_level)
    uplifted = z + np.where(base, 0.0, p.uplift) * p.dt
    routing: FlowRouting | MultipleFlowRouting = route_prepared(uplifted, p.cell_size, base, flats=p.flats)
    base_work = z.size * (MFD_STEP_COST if p.routing == "mfd" else STEP_COST)
    phase = base_work // 4  # each phase, about a quarter of it
    if tally is not None:  # routing, accumulation, the n = 1 solve, lakes and diffusion: the measured base cost
        tally.work += base_work
        tally.checkpoint(phase)
    area = np.full(z.size, p.cell_size * p.cell_size)
    if p.precipitation is not None:  # the effective discharge: precipitation-weighted area (Braun & Willett 2013)
        area *= p.precipitation.ravel()
    flat = uplifted.ravel()
    k = p.k if isinstance(p.k, float) else p.k.ravel()
    if p.routing == "mfd":
        assert isinstance(routing, FlowRouting)
        routing = route_multiple_prepared(uplifted, p.cell_size, base, exponent=p.flow_exponent, single=routing)
        accumulate_multiple(routing, area)
        if tally is not None:
            tally.levels = max(tally.levels, len(routing.level_starts) - 2)
            tally.checkpoint(phase)
        incised = _incise_mfd(routing, flat, area, k, p.m, p.n, p.dt, p.channel_area, tally).reshape(shape)
    else:
        assert isinstance(routing, FlowRouting)
        accumulate(routing, area)
        if tally is not None:
            tally.levels = max(tally.levels, len(routing.level_starts) - 2)
            tally.checkpoint(phase)
        if p.deposition > 0.0:
            cell_area = p.cell_size * p.cell_size
            incised = _incise_deposit(
                routing, flat, area, k, p.m, p.n, p.dt, p.deposition, cell_area, p.channel_area, tally
            ).reshape(shape)
        else:
            incised = _incise(routing, flat, area, k, p.m, p.n, p.dt, p.channel_area, tally).reshape(shape)
    channel = uplifted - incised
    if tally is not None:
        tally.checkpoint(phase)
    if p.lake_fill:  # the eroded material fills the lakes it reaches (along the D8 routing, also under "mfd")
        single = routing.single if isinstance(routing, MultipleFlowRouting) else routing
        incised = deposit_in_lakes(single, incised.ravel(), channel.ravel()).heights.reshape(shape)
        if tally is not None:
            tally.checkpoint(phase)
    out = adi_diffusion(incised, p.cell_size, p.diffusion, dt=p.dt, open_edges=p.open_edges, scheme=p.diffusion_scheme)
    out[base] = z[base]  # base level (edges, sea) holds its height
    if p.marine_diffusion > 0.0 and p.sea_level is not None:
        single = routing.single if isinstance(routing, MultipleFlowRouting) else routing
        out = _marine_deposition(out, uplifted, incised, base, single, p)
    return out, routing, area.reshape(shape), channel


def _marine_deposition(
    out: _FloatArray, uplifted: _FloatArray, incised: _FloatArray, base: _BoolArray, routing: FlowRouting, p: _Params
) -> _FloatArray:
    """Step 5 of the module docstring (:mod:`.marine`): the sediment each basin gives the sea, accumulated down
    the D8 routing to the sea cell it reaches, spread over the sea by one step's diffusion kernel and laid on
    the sea floor, raised at most to the sea level."""
    assert p.sea_level is not None
    given = np.where(base, 0.0, uplifted - incised).ravel()  # metres each land cell gave (< 0: it kept some)
    accumulate(routing, given)  # at each outlet: what its basin gives
    sea = base & (uplifted < p.sea_level)
    supply = np.where(sea, np.maximum(given.reshape(sea.shape), 0.0), 0.0)
    laid = spread_on_sea(supply, sea, marine_spread_cells(p.marine_diffusion, p.dt, p.cell_size))
    result: _FloatArray = np.where(sea, np.minimum(out + laid, p.sea_level), out)
    return result


def _map_or_scalar(value: object, name: str, shape: tuple[int, int], low: float, high: float) -> float | _FloatArray:
    if isinstance(value, np.ndarray) or isinstance(value, (list, tuple)):
        arr = as_heightmap(value, name, dtype=np.float64)
        if arr.shape != shape:
            raise ValueError(f"{name} must be a number or a map of the heights' shape {shape}, got {arr.shape}")
        if arr.min() < low or arr.max() > high:
            raise ValueError(f"{name} must be in [{low}, {high}] everywhere, got [{arr.min():g}, {arr.max():g}]")
        return arr
    return check_number(value, name, low=low, high=high)


def _newton_terms(routing: str, n: float) -> tuple[float, float, float]:
    """``(calls, iterations, levels per side)`` of the Newton solve of one step; no calls for ``n = 1``."""
    if abs(n - 1.0) <= np.finfo(np.float64).eps:
        return 0.0, 0.0, 0.0
    if routing == "mfd":
        iterations = 4 * NEWTON_MAX_ITERATIONS if n < 1.0 else NEWTON_MFD_ITERATIONS
        return NEWTON_MFD_CALLS, iterations, MFD_LEVELS_PER_SIDE
    return NEWTON_CALLS, NEWTON_ITERATIONS_BELOW_1 if n < 1.0 else NEWTON_ITERATIONS, LEVELS_PER_SIDE


def step_work(shape: tuple[int, int], *, routing: str = "d8", n: float = 1.0, deposition: float = 0.0) -> int:
    """The estimated work of one stream-power step over ``shape``, in cell passes.

    ``cells x STEP_COST`` (``MFD_STEP_COST`` with ``routing="mfd"``: routing,
    accumulation, the solve for ``n = 1``, lakes and diffusion, measured) plus,
    for ``n != 1``, the Newton iterations: ``calls x iterations x (CALL_COST x
    levels + values / VALUES_PER_UNIT)`` with ``levels = LEVELS_PER_SIDE x (rows
    + cols)`` and ``values`` the cells (``8 x`` cells with multiple flow), from
    :data:`NEWTON_CALLS`, :data:`NEWTON_ITERATIONS` and their multiple-flow
    twins. With ``deposition > 0`` each of the :data:`DEPOSITION_SWEEPS`
    sweeps (typical; a run does up to :data:`DEPOSITION_ITERATIONS`) adds
    ``cells x DEPOSITION_SWEEP_COST`` and its Newton solve. What a run really
    does is counted the same way (:attr:`StreamPowerResult.work`).
    """
    rows, cols = shape
    cells = rows * cols
    base = cells * (MFD_STEP_COST if routing == "mfd" else STEP_COST)
    calls, iterations, per_side = _newton_terms(routing, n)
    values = 8 * cells if routing == "mfd" else cells
    newton = calls * iterations * (CALL_COST * per_side * (rows + cols) + values / VALUES_PER_UNIT)
    if deposition > 0.0:  # the sweeps of the sediment-flux term, each with its own Newton solve
        base += cells * DEPOSITION_SWEEPS * DEPOSITION_SWEEP_COST
        newton *= 1 + DEPOSITION_SWEEPS
    return int(base + math.ceil(newton))


def stream_power_passes(steps: int, *, routing: str = "d8", n: float = 1.0, deposition: float = 0.0) -> int:
    """The work of ``steps`` stream-power steps in filter passes (what a recipe's work estimate counts).

    ``filter_work(shape, passes)`` (``passes x (cells + LINE_COST x (rows +
    cols))``) is at least :func:`step_work` times ``steps`` for every shape:
    the Newton iterations' cost per level is charged to ``LINE_COST``'s lines,
    their values to the cells.
    """
    calls, iterations, per_side = _newton_terms(routing, n)
    width = 8 if routing == "mfd" else 1
    newton = calls * iterations * (CALL_COST * per_side / LINE_COST + width / VALUES_PER_UNIT)
    base = MFD_STEP_COST if routing == "mfd" else STEP_COST
    if deposition > 0.0:  # as in step_work
        base += DEPOSITION_SWEEPS * DEPOSITION_SWEEP_COST
        newton *= 1 + DEPOSITION_SWEEPS
    return int(steps) * (base + math.ceil(newton))


def check_stream_power_work(
    shape: tuple[int, int], steps: int, routing: str = "d8", *, n: float = 1.0, deposition: float = 0.0
) -> float:
    """Refuse a run whose :func:`step_work` times ``steps`` takes longer than the limit the user set
    (``OROGEN_WORK_LIMIT`` or the add-on's preference, :mod:`core.work`), naming ``steps``, the most this size
    allows and the setting; return the estimated seconds. With no limit set nothing is refused."""
    per_step = step_work(shape, routing=routing, n=n, deposition=deposition)
    most = limit_work(shape[0] * shape[1])
    kind = routing if n == 1.0 else f"{routing}, n = {n:g}"
    advice = "use fewer steps or a smaller heightmap"
    if most is not None and steps * per_step > most:
        advice = f"at this size steps must be in [0, {most // per_step}]: {advice}"
    what = f"steps: {steps} stream-power steps ({kind}) over {shape[0]} x {shape[1]} cells"
    return check_work_limit(steps * per_step, what, advice, cells=shape[0] * shape[1])


def stream_power_step(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    k: float | npt.ArrayLike,
    m: float = 0.45,
    n: float = 1.0,
    uplift: float | npt.ArrayLike = 1e-3,
    diffusion: float = 0.0,
    dt: float = 1e4,
    sea_level: float | None = None,
    open_edges: str = "nesw",
    routing: str = "d8",
    flow_exponent: float = 1.0,
    lake_fill: bool = False,
    channel_width: float = 0.0,
    channel_area: float = 0.0,
    diffusion_scheme: str = "implicit",
    flats: str = "towards_lower",
    deposition: float = 0.0,
    marine_diffusion: float = 0.0,
) -> tuple[_FloatArray, FlowRouting | MultipleFlowRouting, _FloatArray]:
    """One time step of :func:`stream_power_erosion` in float64 (for tests and custom loops).

    The parameters are :func:`stream_power_erosion`'s (``deposition`` the coefficient ``G``).

    Returns
    -------
    heights : ndarray of float64, shape (rows, cols)
    routing : FlowRouting or MultipleFlowRouting
        The routing of the uplifted surface the step used (multiple flow with ``routing="mfd"``).
    drainage_area : ndarray of float64, shape (rows, cols), m²
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    p = _params(
        (int(z.shape[0]), int(z.shape[1])),
        cell_size=cell_size,
        k=k,
        m=m,
        n=n,
        uplift=uplift,
        diffusion=diffusion,
        dt=dt,
        sea_level=sea_level,
        open_edges=open_edges,
        routing=routing,
        flow_exponent=flow_exponent,
        lake_fill=lake_fill,
        channel_width=channel_width,
        channel_area=channel_area,
        diffusion_scheme=diffusion_scheme,
        flats=flats,
        deposition=deposition,
        marine_diffusion=marine_diffusion,
    )
    out, used, area, _ = _step(z, p)
    return out, used, area


def _check_flag(value: object, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__}")
    return bool(value)


def _params(
    shape: tuple[int, int],
    *,
    cell_size: float,
    k: object,
    m: float,
    n: float,
    uplift: object,
    diffusion: float,
    dt: float,
    sea_level: float | None,
    open_edges: str,
    routing: str = "d8",
    flow_exponent: float = 1.0,
    lake_fill: bool = False,
    channel_width: float = 0.0,
    channel_area: float = 0.0,
    diffusion_scheme: str = "implicit",
    flats: str = "towards_lower",
    precipitation: object = None,
    deposition: float = 0.0,
    marine_diffusion: float = 0.0,
) -> _Params:
    cs = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)
    width = check_number(channel_width, "channel_width", low=0.0, high=1e6)
    kk = _map_or_scalar(k, "k", shape, 0.0, 1.0)
    if 0.0 < width < cs:  # a channel narrower than the cell lowers the cell's mean by width / cell of its bed
        kk = kk * (width / cs)
    return _Params(
        k=kk,
        m=check_number(m, "m", low=0.0, high=2.0),
        n=check_number(n, "n", low=0.25, high=4.0),
        uplift=_map_or_scalar(uplift, "uplift", shape, -1.0, 1.0),
        diffusion=check_number(diffusion, "diffusion", low=0.0, high=1e6),
        dt=check_number(dt, "dt", low=0.0, high=1e8, low_open=True),
        cell_size=cs,
        sea_level=None if sea_level is None else check_number(sea_level, "sea_level"),
        open_edges=check_open_edges(open_edges),
        routing=_check_routing_name(routing),
        flow_exponent=check_flow_exponent(flow_exponent),
        lake_fill=_check_flag(lake_fill, "lake_fill"),
        channel_width=width,
        channel_area=check_number(channel_area, "channel_area", low=0.0, high=1e12),
        diffusion_scheme=check_diffusion_scheme(diffusion_scheme),
        flats=check_flat_routing(flats),
        precipitation=_precipitation(precipitation, shape),
        deposition=_check_deposition(deposition, routing),
        marine_diffusion=check_number(marine_diffusion, "marine_diffusion", low=0.0, high=1e6),
    )


def _check_deposition(value: object, routing: object) -> float:
    """The deposition coefficient ``G`` checked: in :data:`DEPOSITION_RANGE`, and 0 with multiple flow."""
    g = check_number(value, "deposition", low=DEPOSITION_RANGE[0], high=DEPOSITION_RANGE[1])
    if g > 0.0 and routing == "mfd":
        raise ValueError(
            f"deposition (G = {g:g}) needs routing='d8': the transport-limited deposition of Yuan et al. 2019 is "
            "solved along the single-flow stack only; use deposition 0 with multiple flow"
        )
    return g


def _precipitation(value: object, shape: tuple[int, int]) -> _FloatArray | None:
    """A precipitation map (relative rate per cell, ``[0, 1e3]``) checked, or ``None``."""
    if value is None:
        return None
    arr = _map_or_scalar(np.asarray(value, dtype=np.float64), "precipitation", shape, 0.0, 1.0e3)
    assert isinstance(arr, np.ndarray)
    return arr


def stream_power_erosion(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    k: float | npt.ArrayLike | None = None,
    m: float = 0.45,
    n: float = 1.0,
    uplift: float | npt.ArrayLike = 1e-3,
    diffusion: float | None = None,
    dt: float = 2e4,
    steps: int = 50,
    sea_level: float | None = None,
    open_edges: str = "nesw",
    routing: str = "d8",
    flow_exponent: float = 1.0,
    lake_fill: bool = False,
    channel_width: float = 0.0,
    channel_area: float = 0.0,
    diffusion_scheme: str = "implicit",
    flats: str = "towards_lower",
    callback: Progress | None = None,
    precipitation: npt.ArrayLike | None = None,
    deposition: float = 0.0,
    marine_diffusion: float = 0.0,
) -> StreamPowerResult:
    """Erode a heightmap by the stream-power law with uplift and hillslope diffusion.

    ``dz/dt = U - K A^m S^n + D ∇²z`` over ``steps`` time steps of ``dt``
    years (see the module docstring for the schemes; Braun & Willett 2013,
    Cordonnier et al. 2019, Barnes et al. 2014, Yanenko 1971). With the defaults
    (1 mm/yr uplift for 1 Myr, ``K`` and ``D`` from the map's size) any
    starting heightmap becomes mountains cut by a dendritic valley network
    near its steady state; give ``uplift`` as a map (e.g. the starting
    terrain scaled to m/yr) to keep the terrain's large-scale shape.

    Parameters
    ----------
    heights_m : array_like, shape (rows, cols)
        Starting heights in metres (finite); at least 3 x 3.
    cell_size : float
        Metres, in ``(0, 1e6]``.
    k : float or array_like (rows, cols), optional
        Erodibility ``K`` in 1/yr · m^(1-2m) (for ``n = 1``), in ``[0, 1]``;
        a map for varying rock (hard rock: small ``K``; the implicit solve
        is per cell, so a spatially variable ``K`` enters each cell's factor
        ``K dt A^m / L^n`` as Braun & Willett 2013 write it). Default
        :func:`default_erodibility`.
    m : float
        Drainage-area exponent in ``[0, 2]`` (0.3–0.6 in nature; concavity
        ``θ = m / n``).
    n : float
        Slope exponent in ``[0.25, 4]``; ``n = 1`` is solved exactly,
        others by Newton iteration per cell.
    uplift : float or array_like (rows, cols)
        ``U`` in m/yr, in ``[-1, 1]``; base-level cells are not uplifted.
    diffusion : float, optional
        ``D`` in m²/yr, in ``[0, 1e6]``. Default :func:`default_diffusivity`.
    dt : float
        Time step in years, in ``(0, 1e8]``; the schemes are implicit
        (stable at any step), but routing is updated once a step.
    steps : int
        Number of steps, ``0 <= steps <= MAX_STEPS``, and
        the estimated time of ``steps x`` :func:`step_work` within the limit
        the user set, if any (``OROGEN_WORK_LIMIT``, :mod:`core.work`).
    sea_level : float, optional
        Cells below it (metres, re-evaluated every step) are base level:
        water leaves through them and they hold their height.
    open_edges : str
        Map edges that are base level (letters of ``"nesw"``, default all
        four); closed edges neither drain nor diffuse.
    routing : {"d8", "mfd"}
        ``"d8"``: all of a cell's water goes to its steepest lower neighbour
        (:func:`.flow.route_flow`). ``"mfd"``: it is shared among all lower
        neighbours by slope (:func:`.flow.route_multiple_flow`), the
        drainage area spreads over hillslopes and the incision of each cell
        is solved over all its receivers (as fastscapelib's ``SPLEroder`` on
        a ``MultiFlowRouter`` graph); about three times slower.
    flow_exponent : float
        The multiple-flow partition's slope exponent ``p`` in ``[0, 20]``
        (1: Quinn et al. 1991; 1.1: Freeman 1991; 4-8: Holmgren 1994).
        Unused with ``"d8"``.
    lake_fill : bool
        Each step, the material incised upstream of a closed depression (a
        lake of the routing's basin graph) is laid in it from its floor up,
        at most to its spill level, and only the excess goes on downstream
        (:func:`fill_lakes`; Yuan et al. 2019). Default ``False``: the
        eroded material leaves the map, and a basin whose floor stays below
        its spill (e.g. one barely uplifted, below the open edges) stays a
        lake.
    channel_width : float
        Width of the channels in metres, in ``[0, 1e6]``; ``0`` (default):
        one cell. A D8 channel is one cell wide, so a coarser grid's
        channels remove more rock per metre of their length; a cell wider
        than ``channel_width`` is lowered by ``channel_width / cell_size``
        of the bed's incision (``K`` scaled by it), so the volume incised
        per metre of channel is the same at every cell size coarser than
        the channel (Armitage 2019 on the grid dependence of a fixed
        one-cell flow width). No effect where the cell is narrower.
    diffusion_scheme : {"implicit", "peaceman_rachford"}
        The hillslope diffusion's time stepping: ``"implicit"`` (default)
        is monotone at any step; ``"peaceman_rachford"`` is spec version 3's
        (see :func:`.diffusion.hillslope_diffusion`).
    flats : {"towards_lower", "first"}
        How the routing crosses flats and breaks ties (default
        ``"towards_lower"``; ``"first"`` is spec version 3's; see
        :func:`.flow.route_flow`).
    callback : callable(step, steps) -> bool or None, optional
        Called after each step (``step`` from 1 to ``steps``). Returning
        ``False`` cancels: :class:`StreamPowerCancelled` is raised with the
        terrain after that step in its ``result``.
    precipitation : array_like (rows, cols), optional
        Relative precipitation per cell, ``[0, 1e3]`` (1 = the rate ``K``
        is calibrated for): the drainage area becomes the effective
        discharge, each cell's area times its precipitation accumulated
        downstream (Braun & Willett 2013's ``A`` as a discharge ``Q``).
        ``None`` (default): uniform, the plain drainage area.
    deposition : float
        The dimensionless deposition coefficient ``G`` of Yuan, Braun, Guerit,
        Rouby & Cordonnier 2019 (JGR Earth Surface 124), in ``[0, 10]``:
        ``dz/dt = U - K A^m S^n + (G / A) ∫_A (U - dz/dt) dA``, each cell
        keeping ``G / A`` of the sediment flux arriving from upstream, so
        rivers leaving the mountains build fans and floodplains where they
        slow down. ``0`` (default): detachment-limited, the run without it
        bit for bit; about ``1``: as much deposited as eroded where rivers
        slow down. At steady state under uniform uplift the channels steepen
        to ``K A^m S^n = (1 + G) U``. Solved implicitly along the stack with
        fixed-point sweeps of the flux term a step until no height moves more
        than :data:`DEPOSITION_TOLERANCE` (at most :data:`DEPOSITION_ITERATIONS`).
        D8 only: ``G > 0`` with ``routing="mfd"`` is refused.
    marine_diffusion : float
        Marine diffusivity in m²/yr, ``[0, 1e6]``, used with ``sea_level``: the sediment the rivers carry
        into the sea settles on the sea floor around each river's mouth, spread by the kernel of diffusion
        over the step, a Gaussian of ``sqrt(2 D dt)`` (step 5 of the module docstring; the marine part of
        Yuan, Braun, Guerit, Rouby & Cordonnier 2019), building deltas and shelves up to the sea level.
        ``0`` (default): it leaves the map, the run without it bit for bit.

    Returns
    -------
    StreamPowerResult
        ``heights`` (float32 metres), ``drainage_area`` (m², of the chosen
        routing), ``receivers`` and ``direction`` (always D8: with ``"mfd"``
        the steepest-descent routing it was built on), ``eroded`` and
        ``incision`` (metres).

    Raises
    ------
    TypeError, ValueError
        For a bad parameter (named, with its range), a map smaller than
        3 x 3, no base level, or more work than the limit the user set.
    StreamPowerCancelled
        When ``callback`` returns ``False``.
    """
    z0 = as_heightmap(heights_m, "heights_m", dtype=np.float64, float32_range=True)
    shape = (int(z0.shape[0]), int(z0.shape[1]))
    if min(shape) < 3:
        raise ValueError(f"heights_m must be at least 3 x 3 cells, got {shape[0]} x {shape[1]}")
    nsteps = check_count(steps, "steps", low=0, high=MAX_STEPS)
    g = _check_deposition(deposition, routing)
    cs = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)
    mm = check_number(m, "m", low=0.0, high=2.0)
    nn = check_number(n, "n", low=0.25, high=4.0)
    check_stream_power_work(shape, nsteps, _check_routing_name(routing), n=nn, deposition=g)
    tdt = check_number(dt, "dt", low=0.0, high=1e8, low_open=True)
    duration = tdt * max(nsteps, 1)
    if k is None:
        k = default_erodibility(shape, cs, duration, m=mm, n=nn)
    if diffusion is None:
        diffusion = default_diffusivity(cs, duration)
    callback = check_progress(callback, "callback")
    p = _params(
        shape,
        cell_size=cs,
        k=k,
        m=mm,
        n=nn,
        uplift=uplift,
        diffusion=diffusion,
        dt=tdt,
        sea_level=sea_level,
        open_edges=open_edges,
        routing=routing,
        flow_exponent=flow_exponent,
        lake_fill=lake_fill,
        channel_width=channel_width,
        channel_area=channel_area,
        diffusion_scheme=diffusion_scheme,
        flats=flats,
        precipitation=precipitation,
        deposition=g,
        marine_diffusion=marine_diffusion,
    )
    base_level_mask(z0, p.open_edges, p.sea_level)  # refuse a map with no outlet before any work

    z = z0.copy()
    incision = np.zeros(shape)
    uplifted_total = np.zeros(shape)
    last: FlowRouting | MultipleFlowRouting | None = None
    area = np.full(shape, cs * cs)

    def result() -> StreamPowerResult:
        r = last
        if r is None:
            r = route_flow(z, cs, open_edges=p.open_edges, sea_level=p.sea_level, flats=p.flats)
        if isinstance(r, MultipleFlowRouting):
            r = r.single
        return StreamPowerResult(
            heights=z.astype(np.float32),
            drainage_area=area.astype(np.float32),
            receivers=r.receivers.astype(np.int32).reshape(shape),
            direction=flow_direction(r),
            eroded=(z0 + uplifted_total - z).astype(np.float32),
            incision=incision.astype(np.float32),
            work=tally.work,
        )

    done = 0  # the steps completed; the callback is polled inside a step too, with that count
    tally = _Tally(None if callback is None else lambda: callback(done, nsteps))

    for step in range(1, nsteps + 1):
        base = base_level_mask(z, p.open_edges, p.sea_level)
        try:
            z_new, last_new, area_new, inc = _step(z, p, tally)
        except _Stopped:  # asked to stop inside this step: the terrain after the last completed one
            raise Cancelled(
                f"stream-power erosion cancelled after step {done} of {nsteps}",
                done=done,
                total=nsteps,
                result=result(),
            ) from None
        uplifted_total += np.where(base, 0.0, p.uplift) * p.dt
        z, last, area = z_new, last_new, area_new
        incision += inc
        done = step
        if callback is not None and callback(step, nsteps) is False:
            raise Cancelled(
                f"stream-power erosion cancelled after step {step} of {nsteps}",
                done=step,
                total=nsteps,
                result=result(),
            )
    if not math.isfinite(float(z.max())) or not math.isfinite(float(z.min())):  # pragma: no cover - defensive
        raise ValueError("stream-power erosion diverged: use a smaller dt")
    return result()
