"""Glacial erosion: ice from snow above the equilibrium-line altitude flows downhill and scours its bed.

Ice grows where the surface mass balance is positive and melts where it is negative,
``b = min(beta (s - ELA), b_max)`` metres of ice per year (``s`` the ice surface, ``beta`` the mass-balance
gradient, ``b_max`` the largest accumulation), and flows by the shallow-ice approximation (SIA, Hutter
1983; Mahaffy 1976's finite-volume form), Glen's law with ``n = 3``:

``q = -D grad s``, ``D = 2 A (rho g)^3 H^5 |grad s|^2 (1 / (n + 2) + f_s / (n + 1))``

where ``H`` is the ice thickness, ``A`` Glen's flow factor (Pa^-3 yr^-1), and the basal sliding speed is
taken proportional to the deformation speed at the surface, ``u_s = f_s 2 A / (n + 1) (rho g H |grad s|)^3 H``
(the sliding factor ``f_s``, as Braun, Zwartz & Tomkin 1999 tie sliding to the basal shear stress). The ice
thickness changes as ``dH/dt = -div q + b``.

The scheme is explicit and flux-conservative on the staggered grid: each face's diffusivity from the two
cells beside it and the surface slope across it (the cross gradient from the four cells around it, Mahaffy
1976); each step of ``dt`` years is split into sub-steps no longer than the diffusive stability limit
``dx^2 / (4 max D)`` and short enough that the mass balance changes no cell by more than
:data:`BALANCE_STEP` metres. At most ``max_substeps`` sub-steps are taken per step: when the limit would need
more (thick, fast ice on a fine grid), the ice lives through less than ``dt`` years in that step (its clock
runs behind the erosion's, reported as ``ice_years``); the erosion still acts for ``dt`` years with the ice
it has. A cell never sends out more ice in a sub-step than it holds (its outgoing fluxes are scaled down), so
the thickness stays non-negative and ice is conserved exactly; melt takes at most what a cell holds. Edges are
open: beyond them the ice surface continues its slope at the edge (ghost cells ``2 s_edge - s_inside``) and
ice flowing over them is lost; none flows in.

The bed erodes at ``K_g |u_s|`` metres per year (Hallet 1979; Harbor 1992 with exponent 1; Herman &
Braun 2008; Egholm et al. 2009). The sliding speed is the share ``(f_s / (n + 1)) / (1 / (n + 2) + f_s /
(n + 1))`` of the ice's depth-averaged speed ``|q| / H``, with ``q`` the step's mean flux at the cell centres.
The SIA leaves out the stresses that spread the ice's motion over a few ice thicknesses (Kamb & Echelmeyer
1986's longitudinal stress coupling, and lateral drag), which concentrates sliding in a valley's centre and
would cut a slot where a glacier carves a trough (Egholm et al. 2011): ``|q|`` and ``H`` are therefore both
averaged over the square of cells within ``coupling_length`` metres before they are divided (ice-free cells
and ice thinner than :data:`MIN_THICKNESS` count as zero, which slows the ice near its margins as side drag
does), and the speed is zero where there is no such ice. Erosion under the whole width of a glacier widens
and flattens a valley's floor (towards a U-shaped trough), deepens the heads of glaciers, and leaves
tributaries, whose thinner ice erodes less, hanging above their trunk.

The ice may flow on a coarser grid than the bed (``ice_cell`` metres, :class:`IceGrid`): ice is smooth over
several ice thicknesses, hundreds of metres (Kamb & Echelmeyer 1986's longitudinal coupling), and glacial
landscape models run it on grids of 100s of m (Herman & Braun 2008; iSOSIA, Egholm et al. 2011) while the bed
keeps its detail. Each step averages the bed onto the ice grid (area-weighted), runs the ice there, and brings
the sliding speed back to the terrain's grid bilinearly, where the bed erodes; the ice thickness comes back the
same way. The explicit stability limit grows with the square of the ice cell and the cells are fewer (a grid
twice as coarse is about 16 times faster), and the same landscape at different sizes gets the same ice grid,
so the same glaciers.

Because the ice's clock runs behind the bed's, a step never lowers any cell by more than
:data:`EROSION_STEP` metres: a step whose erosion would do so erodes for a shorter time, with the same
pattern (reported as ``erosion_years``); faster, a pit deepens before ice can flow into it and the erosion
runs away.

Everything is float64, vectorised numpy, in a fixed order: the same input gives the same bits.

Sources: Mahaffy 1976 (J. Geophys. Res. 81); Hutter 1983 (Theoretical Glaciology); Hallet 1979 (J. Glaciol.
23); Kamb & Echelmeyer 1986 (J. Glaciol. 32); Harbor 1992 (GSA Bull. 104); Braun, Zwartz & Tomkin 1999 (Ann.
Glaciol. 28); Herman & Braun 2008 (J. Geophys. Res. 113); Egholm et al. 2009 (Nature 460) and 2011 (J.
Geophys. Res. 116, iSOSIA); Cuffey & Paterson 2010 (The Physics of Glaciers, 4th ed.: A = 2.4e-24 Pa^-3 s^-1 for
temperate ice).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..heightmap import check_count, check_number
from ..progress import Cancelled, Progress, check_progress
from .thermal import check_step_work, erosion_heights

__all__ = [
    "RHO_ICE",
    "GRAVITY",
    "GLEN_A",
    "STABILITY",
    "BALANCE_STEP",
    "MIN_THICKNESS",
    "EROSION_STEP",
    "MAX_GLACIAL_STEPS",
    "MAX_SUBSTEPS",
    "GLACIAL_SUBSTEP_COST",
    "ICE_GRID_SPEEDUP",
    "GlacialResult",
    "IceGrid",
    "glacial_passes",
    "glacial_erosion",
]

#: Density of ice, kg/m³.
RHO_ICE = 910.0
#: Gravitational acceleration, m/s².
GRAVITY = 9.81
#: Glen's flow factor of temperate ice, Pa^-3 yr^-1 (2.4e-24 Pa^-3 s^-1, Cuffey & Paterson 2010).
GLEN_A = 2.4e-24 * 365.25 * 86400.0
#: Share of the diffusive stability limit ``dx^2 / (4 max D)`` a sub-step takes (the thickness's own
#: nonlinearity, ``D`` growing as ``H^5``, makes the full limit unstable).
STABILITY = 0.5
#: Most metres of ice the mass balance adds or melts in one sub-step.
BALANCE_STEP = 10.0
#: Thinnest ice, metres, that slides and erodes (thinner ice at a glacier's margin moves too little to count).
MIN_THICKNESS = 1.0
#: Most metres of bed one step lowers: a step whose erosion would lower a cell more erodes for a shorter time
#: (the same pattern, ``erosion_years`` reports the time), so the ice, whose clock runs behind the bed's
#: (``max_substeps``), keeps up with the bed it flows on; faster, a pit deepens before ice flows in and the
#: erosion runs away.
EROSION_STEP = 5.0
#: Upper bound on glacial steps.
MAX_GLACIAL_STEPS = 100_000
#: Upper bound on sub-steps per step.
MAX_SUBSTEPS = 100_000
#: Cell passes of one ice sub-step (the work estimates of :mod:`core.work`).
GLACIAL_SUBSTEP_COST = 40
#: How much faster an ice grid coarser than the terrain's runs a sub-step per ice cell than the terrain's grid:
#: its arrays are small and stay in cache (measured: Alpine Faults' and Alpine Ridges' glacial runs, 300 m ice
#: cells, at 257² and 513², took a tenth to a fifteenth of the estimate without it).
ICE_GRID_SPEEDUP = 8

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]

#: Glen's exponent n (fixed: the powers are products, the same bits everywhere).
_N = 3


@dataclass(frozen=True)
class GlacialResult:
    """What :func:`glacial_erosion` returns.

    Attributes
    ----------
    heights : ndarray of float32, shape (rows, cols)
        The eroded bed, metres (the ice is not part of it).
    ice_thickness : ndarray of float32, shape (rows, cols)
        Ice thickness at the end, metres, >= 0 (from the ice grid, bilinearly).
    eroded : ndarray of float32, shape (rows, cols)
        Bed lowered by the ice, metres, >= 0 (the input minus ``heights``).
    sliding_speed : ndarray of float32, shape (rows, cols)
        The last step's basal sliding speed after the stress coupling, m/yr (what eroded).
    accumulated, melted, lost_volume : float
        Ice gained by the mass balance, melted, and flowed over the map's edges, over the run, cubic metres:
        ``accumulated - melted - lost_volume`` equals ``ice_volume`` to float64 rounding.
    ice_years : float
        Years the ice lived through (``steps x dt`` unless ``max_substeps`` cut steps short).
    erosion_years : float
        Years of erosion (``steps x dt`` unless steps were shortened to lower no cell by more than
        :data:`EROSION_STEP` metres).
    substeps : int
        Ice sub-steps taken in all.
    steps_done : int
        Steps run (fewer in the partial result of :class:`core.Cancelled`).
    ice_cell : float
        The ice grid's cell, metres (``cell_size`` when the ice flows on the terrain's grid).
    ice_shape : tuple of int
        The ice grid's (rows, cols) (``(rows, cols)`` on the terrain's grid).
    ice_volume : float
        The final ice volume on the ice grid, cubic metres (float64; on the terrain's grid
        ``ice_thickness.sum() x cell_size**2`` before rounding to float32).
    """

    heights: F32
    ice_thickness: F32
    eroded: F32
    sliding_speed: F32
    accumulated: float
    melted: float
    lost_volume: float
    ice_years: float
    erosion_years: float
    substeps: int
    steps_done: int
    ice_cell: float
    ice_shape: tuple[int, int]
    ice_volume: float


def glacial_passes(steps: int, max_substeps: int, *, cell_size: float = 0.0, ice_cell: float = 0.0) -> int:
    """The cell passes of a run per terrain cell (every step taking all its sub-steps): an upper bound on the
    terrain's grid (``ice_cell`` at most ``cell_size``, or either unknown); on an ice grid the ice's sub-steps count
    its share of the cells, ``(cell_size / ice_cell)²`` (its overhang at the edges and the cap to 3 ice cells
    aside), at :data:`ICE_GRID_SPEEDUP` times the speed, and the step's work on the terrain's grid (the resampling
    and the erosion) 1 pass (measured at 1025², Alpine Faults' start on 300 m ice cells)."""
    sub = max(int(max_substeps), 1) * GLACIAL_SUBSTEP_COST
    if cell_size > 0.0 and ice_cell > cell_size:
        ratio = cell_size / ice_cell
        return max(int(steps), 0) * (int(np.ceil(sub * ratio * ratio / ICE_GRID_SPEEDUP)) + 1)
    return max(int(steps), 0) * (sub + 20)


def _cover(n: int, cell: float, big: float) -> tuple[int, float]:
    """The count of ``big``-metre ice cells covering ``n`` terrain cells of ``cell`` metres, centred on them, and
    the ice grid's origin (its west or north edge, metres, <= 0: it overhangs both edges alike)."""
    m = max(int(np.ceil(n * cell / big - 1e-9)), 1)
    return m, 0.5 * (n * cell - m * big)


def _block_weights(n: int, cell: float, big: float) -> tuple[npt.NDArray[np.intp], F64]:
    """For each of the ice cells over ``n`` terrain cells: the terrain cells it overlaps, shape (m, span), and
    the share of the overlap each covers (rows summing to 1; the length outside the map counts for nothing)."""
    m, origin = _cover(n, cell, big)
    span = int(np.ceil(big / cell)) + 1
    lo = origin + np.arange(m) * big
    first = np.clip(np.floor(lo / cell).astype(np.intp), 0, n - 1)
    idx = first[:, None] + np.arange(span)[None, :]
    overlap = np.minimum(lo[:, None] + big, (idx + 1) * cell) - np.maximum(lo[:, None], idx * cell)
    overlap = np.where(idx < n, np.maximum(overlap, 0.0), 0.0)
    weights: F64 = overlap / overlap.sum(axis=1, keepdims=True)
    return np.minimum(idx, n - 1), weights


def _linear_weights(n: int, cell: float, big: float) -> tuple[npt.NDArray[np.intp], F64]:
    """For each of ``n`` terrain cells: the ice cell whose centre is at or before its centre (the first or the
    second last at the edges) and the share of the next one, in [0, 1] (constant beyond the outer centres)."""
    m, origin = _cover(n, cell, big)
    u = ((np.arange(n) + 0.5) * cell - origin) / big - 0.5
    k = np.clip(np.floor(u).astype(np.intp), 0, max(m - 2, 0))
    frac: F64 = np.clip(u - k, 0.0, 1.0) if m > 1 else np.zeros(n)
    return k, frac


@dataclass(frozen=True)
class IceGrid:
    """The grid the ice flows on: square cells of ``cell`` metres over a terrain of ``terrain`` cells.

    Ice is smooth over several ice thicknesses (its longitudinal stresses couple its motion over a few times its
    thickness, Kamb & Echelmeyer 1986), hundreds of metres for a valley glacier, so models of glacial landscapes
    run it on grids of 100s of m (Braun, Zwartz & Tomkin 1999; Herman & Braun 2008; iSOSIA, Egholm et al.
    2011) whatever the detail of the bed. Here the ice grid has a fixed physical cell: the bed is averaged into
    it (each ice cell the area-weighted mean of the terrain cells it overlaps, exact for any ratio of the cell
    sizes; the grid overhangs the terrain's edges alike by less than a cell, and what lies outside counts for
    nothing) and the sliding speed and ice thickness come back bilinearly (between the ice cells' centres,
    constant beyond the outer ones). The explicit stability limit ``dx² / (4 D)`` grows with the square of the
    cell and the cells are fewer, so a grid twice as coarse runs about 16 times faster, and terrains of one
    landscape at different sizes get the same ice.

    ``cell`` equal to the terrain's cell (``coarse`` False) is the terrain's own grid: :meth:`down` and
    :meth:`up` return their input.
    """

    terrain: tuple[int, int]
    terrain_cell: float
    cell: float
    shape: tuple[int, int]
    coarse: bool

    @staticmethod
    def fit(terrain: tuple[int, int], terrain_cell: float, ice_cell: float) -> IceGrid:
        """The ice grid of cells ``ice_cell`` metres (never finer than the terrain's, and coarse enough to leave
        at least 3 cells across the terrain's narrower side)."""
        rows, cols = terrain
        big = min(max(float(ice_cell), terrain_cell), min(rows, cols) * terrain_cell / 3.0)
        if big <= terrain_cell:
            return IceGrid(terrain, terrain_cell, terrain_cell, terrain, False)
        shape = (_cover(rows, terrain_cell, big)[0], _cover(cols, terrain_cell, big)[0])
        return IceGrid(terrain, terrain_cell, big, shape, True)

    def passes(self, max_substeps: int) -> int:
        """One step's cell passes per terrain cell, as :func:`glacial_passes` counts them (the ice's share of the
        cells from the grids' shapes)."""
        if not self.coarse:
            return glacial_passes(1, max_substeps)
        share = (self.shape[0] * self.shape[1]) / (self.terrain[0] * self.terrain[1])
        return int(np.ceil(max(int(max_substeps), 1) * GLACIAL_SUBSTEP_COST * share / ICE_GRID_SPEEDUP)) + 1

    def down(self, values: F64) -> F64:
        """``values`` on the terrain's grid, shape ``terrain``, averaged onto the ice grid, shape ``shape``."""
        if not self.coarse:
            return values
        out = values
        for axis, n in ((0, self.terrain[0]), (1, self.terrain[1])):
            idx, w = _block_weights(n, self.terrain_cell, self.cell)
            acc = None
            for t in range(idx.shape[1]):  # a fixed order of the sums
                if axis == 0:
                    term = w[:, t, None] * out[idx[:, t], :]
                else:
                    term = w[None, :, t] * out[:, idx[:, t]]
                acc = term if acc is None else acc + term
            assert acc is not None
            out = acc
        return out

    def up(self, values: F64) -> F64:
        """``values`` on the ice grid, shape ``shape``, bilinearly on the terrain's grid, shape ``terrain``."""
        if not self.coarse:
            return values
        out = values
        for axis, n in ((0, self.terrain[0]), (1, self.terrain[1])):
            k, f = _linear_weights(n, self.terrain_cell, self.cell)
            m = out.shape[axis]
            k1 = np.minimum(k + 1, m - 1)
            g = 1.0 - f
            if axis == 0:
                out = np.add(g[:, None] * out[k, :], f[:, None] * out[k1, :])
            else:
                out = np.add(g[None, :] * out[:, k], f[None, :] * out[:, k1])
        return out


def _box_mean(values: F64, radius: int) -> F64:
    """Mean of ``values`` over the square of cells within ``radius`` cells (the cells on the map: clipped at its
    edges). Cumulative sums along each axis."""
    if radius <= 0:
        return values
    num, den = values, np.ones_like(values)
    for axis in (0, 1):
        n = num.shape[axis]
        lo = np.clip(np.arange(n) - radius, 0, n)
        hi = np.clip(np.arange(n) + radius + 1, 0, n)
        out = []
        for a in (num, den):
            c = np.concatenate([np.zeros_like(np.take(a, [0], axis=axis)), np.cumsum(a, axis=axis)], axis=axis)
            out.append(np.take(c, hi, axis=axis) - np.take(c, lo, axis=axis))
        num, den = out
    mean: F64 = num / den
    return mean


def glacial_erosion(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    ela: float,
    steps: int = 100,
    dt: float = 3000.0,
    balance_gradient: float = 0.007,
    max_accumulation: float = 2.0,
    flow_factor: float = GLEN_A,
    sliding: float = 1.0,
    erosion_constant: float = 1.0e-4,
    coupling_length: float = 600.0,
    max_substeps: int = 30,
    ice_cell: float = 0.0,
    callback: Progress | None = None,
) -> GlacialResult:
    """Glacial erosion of a heightmap in metres: ice from snow above the ELA flows (shallow ice) and erodes.

    The model, scheme and sources are in the module docstring: mass balance ``b = min(beta (s - ELA),
    b_max)``, shallow-ice flow with sliding ``u_s`` proportional to the deformation speed, erosion
    ``K_g |u_s|`` with ``u_s`` averaged over ``coupling_length``; the ice on a grid of ``ice_cell`` metres.
    Each step runs the ice for up to ``dt`` years
    in at most ``max_substeps`` sub-steps, then lowers the bed by ``K_g |u_s| dt`` (at most
    :data:`EROSION_STEP` metres anywhere, the step shortened). Edges are open: ice flowing over them is lost.

    Parameters (default; hard bounds; unit: description)
    ----------------------------------------------------
    heights_m : array_like, shape (rows, cols)
        Finite bed heights, metres.
    cell_size : float
        (1e-3, 1e6]; metres: distance between neighbouring cells.
    ela : float
        [-1e5, 1e5]; metres: equilibrium-line altitude, a height of ``heights_m``.
    steps : int
        100; [0, 100000]; steps.
    dt : float
        3000; (0, 1e7]; years per step.
    balance_gradient : float
        0.007; (0, 1]; 1/yr: metres of ice per year per metre of surface above the ELA (beta).
    max_accumulation : float
        2.0; [0, 100]; m/yr: the largest accumulation (ice equivalent).
    flow_factor : float
        :data:`GLEN_A` (7.6e-17); [0, 1e-10]; Pa^-3 yr^-1: Glen's A.
    sliding : float
        1.0; [0, 1000]; factor: basal sliding speed over the deformation speed at the surface (f_s).
    erosion_constant : float
        1e-4; [0, 1]; 1: metres of bed eroded per metre of sliding (K_g).
    coupling_length : float
        600; [0, 1e6]; metres: radius over which the sliding speed is averaged (0: none).
    max_substeps : int
        30; [1, 100000]: most ice sub-steps per step.
    ice_cell : float
        0; [0, 1e6]; metres: the cell of the grid the ice flows on (:class:`IceGrid`); at most the terrain's
        cell (the default 0 among them) is the terrain's own grid, bit for bit; coarser is capped to leave 3
        ice cells across the narrower side.
    callback : callable or None
        Called as ``callback(step, steps)`` after each step; returning ``False`` cancels
        (:class:`core.Cancelled` with the result so far as its ``result``).

    Returns
    -------
    GlacialResult

    Raises
    ------
    TypeError
        For a non-numeric input, a non-integer count or a callback that is not callable.
    ValueError
        For NaN/Inf heights, a map smaller than 3 x 3, a parameter outside its range (naming it), or a run whose
        estimated time is over the user's Work Limit (``OROGEN_WORK_LIMIT``).
    """
    bed = erosion_heights(heights_m)
    rows, cols = bed.shape
    if min(rows, cols) < 3:
        raise ValueError(f"heights_m must be at least 3 x 3 cells, got {rows} x {cols}")
    cell = check_number(cell_size, "cell_size", low=1e-3, high=1e6)
    ela = check_number(ela, "ela", low=-1e5, high=1e5)
    dt = check_number(dt, "dt", low=0.0, high=1e7, low_open=True)
    beta = check_number(balance_gradient, "balance_gradient", low=0.0, high=1.0, low_open=True)
    b_max = check_number(max_accumulation, "max_accumulation", low=0.0, high=100.0)
    a = check_number(flow_factor, "flow_factor", low=0.0, high=1e-10)
    f_s = check_number(sliding, "sliding", low=0.0, high=1000.0)
    k_g = check_number(erosion_constant, "erosion_constant", low=0.0, high=1.0)
    length = check_number(coupling_length, "coupling_length", low=0.0, high=1e6)
    max_sub = check_count(max_substeps, "max_substeps", low=1, high=MAX_SUBSTEPS)
    callback = check_progress(callback, "callback")
    steps = check_count(steps, "steps", low=0, high=MAX_GLACIAL_STEPS)
    ice_m = check_number(ice_cell, "ice_cell", low=0.0, high=1e6)

    grid = IceGrid.fit((rows, cols), cell, ice_m)
    big = grid.cell
    irows, icols = grid.shape
    check_step_work((rows, cols), steps, grid.passes(max_sub), what="steps", most=MAX_GLACIAL_STEPS)

    rg3 = (RHO_ICE * GRAVITY) ** _N
    gamma = 2.0 * a * rg3 * (1.0 / (_N + 2) + f_s / (_N + 1))  # D = gamma H^5 |grad s|^2
    radius = int(length / big + 0.5)
    area = big * big
    start = bed.copy()
    ice = np.zeros(grid.shape)
    speed = np.zeros(grid.shape)
    accumulated = melted = lost = ice_years = erosion_years = 0.0
    substeps = done = 0
    inv = 1.0 / big
    sp = np.zeros((irows + 2, icols + 2))  # the surface with its ghosts
    hd = np.zeros((irows + 2, icols + 2))  # the ice with its ghosts, for the diffusivity
    scale = np.ones((irows + 2, icols + 2))  # the outflow scale of each cell, 1 on the ghosts
    share = (f_s / (_N + 1)) / (1.0 / (_N + 2) + f_s / (_N + 1))  # sliding's share of the ice flux
    for step in range(steps):
        left = dt
        moved_x = np.zeros((irows, icols + 1))
        moved_y = np.zeros((irows + 1, icols))
        bed_i = grid.down(bed)  # the bed on the ice grid (the bed itself when the grids are one)
        for _ in range(max_sub):
            if left <= 0.0:
                break
            s = bed_i + ice
            # ghosts beyond the edges: the surface's edge slope continued (2 s_edge - s_inside), the edge's ice
            # for the diffusivity (they send none)
            sp[1:-1, 1:-1] = s
            sp[0, 1:-1] = 2.0 * s[0] - s[1]
            sp[-1, 1:-1] = 2.0 * s[-1] - s[-2]
            sp[:, 0] = 2.0 * sp[:, 1] - sp[:, 2]
            sp[:, -1] = 2.0 * sp[:, -2] - sp[:, -3]
            hd[1:-1, 1:-1] = ice
            hd[0, 1:-1], hd[-1, 1:-1] = ice[0], ice[-1]
            hd[:, 0], hd[:, -1] = hd[:, 1], hd[:, -2]
            # x faces (rows, cols + 1), the west ghost's face first; y faces (rows + 1, cols)
            dsx = (sp[1:-1, 1:] - sp[1:-1, :-1]) * inv
            cy = (sp[2:, 1:] + sp[2:, :-1] - sp[:-2, 1:] - sp[:-2, :-1]) * (0.25 * inv)
            hx = (hd[1:-1, 1:] + hd[1:-1, :-1]) * 0.5
            hx2 = hx * hx
            dx_ = gamma * hx2 * hx2 * hx * (dsx * dsx + cy * cy)
            dsy = (sp[1:, 1:-1] - sp[:-1, 1:-1]) * inv
            cx = (sp[1:, 2:] + sp[:-1, 2:] - sp[1:, :-2] - sp[:-1, :-2]) * (0.25 * inv)
            hy = (hd[1:, 1:-1] + hd[:-1, 1:-1]) * 0.5
            hy2 = hy * hy
            dy_ = gamma * hy2 * hy2 * hy * (dsy * dsy + cx * cx)
            balance = np.minimum(beta * (s - ela), b_max)
            d_max = max(float(dx_.max()), float(dy_.max()))
            tau = left
            if d_max > 0.0:
                tau = min(tau, STABILITY * area / (4.0 * d_max))
            b_abs = max(float(balance.max()), -float(balance.min(where=ice > 0.0, initial=0.0)))
            if b_abs > 0.0:
                tau = min(tau, BALANCE_STEP / b_abs)
            fx = dx_ * dsx * (-tau * inv)  # metres of ice moved across each face in tau (q tau / dx), east
            fy = dy_ * dsy * (-tau * inv)  # and south
            # nothing flows in from the ghosts
            np.minimum(fx[:, 0], 0.0, out=fx[:, 0])
            np.maximum(fx[:, -1], 0.0, out=fx[:, -1])
            np.minimum(fy[0], 0.0, out=fy[0])
            np.maximum(fy[-1], 0.0, out=fy[-1])
            # each cell sends out at most what it holds: its outgoing fluxes scaled down
            out = np.maximum(fx[:, 1:], 0.0) - np.minimum(fx[:, :-1], 0.0)
            out += np.maximum(fy[1:], 0.0) - np.minimum(fy[:-1], 0.0)
            scale[1:-1, 1:-1] = np.where(out > ice, ice / np.maximum(out, 1e-300), 1.0)
            fx *= np.where(fx > 0.0, scale[1:-1, :-1], scale[1:-1, 1:])
            fy *= np.where(fy > 0.0, scale[:-1, 1:-1], scale[1:, 1:-1])
            lost += (
                float(fx[:, -1].sum()) - float(fx[:, 0].sum()) + float(fy[-1, :].sum()) - float(fy[0, :].sum())
            ) * area
            ice = ice + (fx[:, :-1] - fx[:, 1:]) + (fy[:-1, :] - fy[1:, :])
            moved_x += fx
            moved_y += fy
            ice = np.maximum(ice, 0.0)  # rounding only: the fluxes never take more than a cell holds
            gain = balance * tau
            new = np.maximum(ice + gain, 0.0)
            change = new - ice
            accumulated += float(np.maximum(change, 0.0).sum()) * area
            melted += float(np.maximum(-change, 0.0).sum()) * area
            ice = new
            left -= tau
            ice_years += tau
            substeps += 1
        # the step's mean ice flux at the cell centres (m²/yr) and the sliding speed it carries, m/yr
        years = dt - left
        if years > 0.0:
            qx = (moved_x[:, :-1] + moved_x[:, 1:]) * (0.5 * big / years)
            qy = (moved_y[:-1, :] + moved_y[1:, :]) * (0.5 * big / years)
            moving = (ice >= MIN_THICKNESS).astype(np.float64)
            q = _box_mean(np.sqrt(qx * qx + qy * qy) * moving, radius)
            thick = _box_mean(ice * moving, radius)
            speed = np.where(moving > 0.0, share * q / np.maximum(thick, MIN_THICKNESS), 0.0)
        else:
            speed = np.zeros(grid.shape)
        lowering = k_g * dt * grid.up(speed)
        deepest = float(lowering.max())
        if deepest > EROSION_STEP:  # a shorter erosion step, the same pattern
            lowering *= EROSION_STEP / deepest
        erosion_years += dt * min(1.0, EROSION_STEP / deepest) if deepest > 0.0 else dt
        bed = bed - lowering
        done = step + 1
        if callback is not None and callback(done, steps) is False:
            break
    result = GlacialResult(
        bed.astype(np.float32),
        grid.up(ice).astype(np.float32),
        np.maximum(start - bed, 0.0).astype(np.float32),
        grid.up(speed).astype(np.float32),
        accumulated,
        melted,
        lost,
        ice_years,
        erosion_years,
        substeps,
        done,
        big,
        grid.shape,
        float(ice.sum()) * area,
    )
    if done < steps:
        message = f"glacial erosion cancelled after step {done} of {steps}"
        raise Cancelled(message, done=done, total=steps, result=result)
    return result
