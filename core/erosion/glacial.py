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

Because the ice's clock runs behind the bed's, a step never lowers any cell by more than
:data:`EROSION_STEP` metres: a step whose erosion would do so erodes for a shorter time, with the same
pattern (reported as ``erosion_years``); faster, a pit deepens before ice can flow into it and the erosion
runs away.

Everything is float64, vectorised numpy, in a fixed order: the same input gives the same bits.

Sources: Mahaffy 1976 (J. Geophys. Res. 81); Hutter 1983 (Theoretical Glaciology); Hallet 1979 (J. Glaciol.
23); Kamb & Echelmeyer 1986 (J. Glaciol. 32); Harbor 1992 (GSA Bull. 104); Braun, Zwartz & Tomkin 1999 (Ann.
Glaciol. 28); Herman & Braun 2008 (J. Geophys. Res. 113); Egholm et al. 2009 (Nature 460) and 2011 (J.
Geophys. Res. 116); Cuffey & Paterson 2010 (The Physics of Glaciers, 4th ed.: A = 2.4e-24 Pa^-3 s^-1 for
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
    "GlacialResult",
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
        Ice thickness at the end, metres, >= 0.
    eroded : ndarray of float32, shape (rows, cols)
        Bed lowered by the ice, metres, >= 0 (the input minus ``heights``).
    sliding_speed : ndarray of float32, shape (rows, cols)
        The last step's basal sliding speed after the stress coupling, m/yr (what eroded).
    accumulated, melted, lost_volume : float
        Ice gained by the mass balance, melted, and flowed over the map's edges, over the run, cubic metres:
        ``accumulated - melted - lost_volume`` equals the final ice volume (``ice_thickness.sum() x
        cell_size**2``, before rounding to float32) to float64 rounding.
    ice_years : float
        Years the ice lived through (``steps x dt`` unless ``max_substeps`` cut steps short).
    erosion_years : float
        Years of erosion (``steps x dt`` unless steps were shortened to lower no cell by more than
        :data:`EROSION_STEP` metres).
    substeps : int
        Ice sub-steps taken in all.
    steps_done : int
        Steps run (fewer in the partial result of :class:`core.Cancelled`).
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


def glacial_passes(steps: int, max_substeps: int) -> int:
    """Upper bound on the cell passes of a run (every step taking all its sub-steps)."""
    return max(int(steps), 0) * (max(int(max_substeps), 1) * GLACIAL_SUBSTEP_COST + 20)


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
    callback: Progress | None = None,
) -> GlacialResult:
    """Glacial erosion of a heightmap in metres: ice from snow above the ELA flows (shallow ice) and erodes.

    The model, scheme and sources are in the module docstring: mass balance ``b = min(beta (s - ELA),
    b_max)``, shallow-ice flow with sliding ``u_s`` proportional to the deformation speed, erosion
    ``K_g |u_s|`` with ``u_s`` averaged over ``coupling_length``. Each step runs the ice for up to ``dt`` years
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
    check_step_work((rows, cols), steps, glacial_passes(1, max_sub), what="steps", most=MAX_GLACIAL_STEPS)

    rg3 = (RHO_ICE * GRAVITY) ** _N
    gamma = 2.0 * a * rg3 * (1.0 / (_N + 2) + f_s / (_N + 1))  # D = gamma H^5 |grad s|^2
    radius = int(length / cell + 0.5)
    area = cell * cell
    start = bed.copy()
    ice = np.zeros_like(bed)
    speed = np.zeros_like(bed)
    accumulated = melted = lost = ice_years = erosion_years = 0.0
    substeps = done = 0
    inv = 1.0 / cell
    sp = np.zeros((rows + 2, cols + 2))  # the surface with its ghosts
    hd = np.zeros((rows + 2, cols + 2))  # the ice with its ghosts, for the diffusivity
    scale = np.ones((rows + 2, cols + 2))  # the outflow scale of each cell, 1 on the ghosts
    share = (f_s / (_N + 1)) / (1.0 / (_N + 2) + f_s / (_N + 1))  # sliding's share of the ice flux
    for step in range(steps):
        left = dt
        moved_x = np.zeros((rows, cols + 1))
        moved_y = np.zeros((rows + 1, cols))
        for _ in range(max_sub):
            if left <= 0.0:
                break
            s = bed + ice
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
            qx = (moved_x[:, :-1] + moved_x[:, 1:]) * (0.5 * cell / years)
            qy = (moved_y[:-1, :] + moved_y[1:, :]) * (0.5 * cell / years)
            moving = (ice >= MIN_THICKNESS).astype(np.float64)
            q = _box_mean(np.sqrt(qx * qx + qy * qy) * moving, radius)
            thick = _box_mean(ice * moving, radius)
            speed = np.where(moving > 0.0, share * q / np.maximum(thick, MIN_THICKNESS), 0.0)
        else:
            speed = np.zeros_like(bed)
        lowering = k_g * dt * speed
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
        ice.astype(np.float32),
        np.maximum(start - bed, 0.0).astype(np.float32),
        speed.astype(np.float32),
        accumulated,
        melted,
        lost,
        ice_years,
        erosion_years,
        substeps,
        done,
    )
    if done < steps:
        message = f"glacial erosion cancelled after step {done} of {steps}"
        raise Cancelled(message, done=done, total=steps, result=result)
    return result
