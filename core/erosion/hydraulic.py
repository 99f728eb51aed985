"""Hydraulic erosion: rain, shallow water on virtual pipes, sediment picked up, carried and dropped.

The model of Mei, Decaudin & Hu, "Fast Hydraulic Erosion Simulation and
Visualization on GPU" (Pacific Graphics 2007), with the minimum tilt of
Šťava, Beneš, Brisbin & Křivánek, "Interactive terrain modeling using
hydraulic erosion" (SCA 2008). Each time step ``Δt``:

1. **Rain** adds ``rain_rate x Δt`` of water to every cell.
2. **Flow.** Each cell has four outflow fluxes (m³/s) through *virtual
   pipes* to its edge neighbours. A pipe's flux grows with the drop in the
   water surface ``Δh`` (terrain + water) across it, ``f <- max(0, f + Δt x
   A x g x Δh / l)``, pipe length ``l = cell_size`` and cross-section ``A =
   cell_size²``. If a cell's total outflow would drain more than the water it
   holds in one step, all four are scaled by ``K = min(1, d x cell_size² /
   (Σf x Δt))``, which keeps water depth non-negative. The depth changes by
   ``Δt x (inflow - outflow) / cell_size²``; the velocity is the mean flux
   through the cell divided by the cross-section of water, ``u = ΔW_x /
   (cell_size x d_mean)``.
3. **Erosion and deposition.** The water's sediment transport capacity is
   ``C = Kc x sin(α) x |v|`` with the local tilt ``α`` of the terrain (never
   below ``min_tilt``, so still water on flats carries some sediment, as
   Šťava et al. do). Where the suspended sediment ``s`` is below ``C`` the
   water dissolves ``ks x (C - s)`` of terrain, where above it deposits
   ``kd x (s - C)``. Orogen multiplies ``C`` by ``min(1, d / depth_scale)``
   (an addition, off with ``depth_scale = 0``): without it the thin sheet of
   rain on every slope, which the frictionless pipe model accelerates to the
   fastest speed the grid allows, scours all slopes alike and pocks them
   with single-cell pits; with it erosion gathers where water gathers, in
   rills and gullies.
4. **Transport.** Suspended sediment moves with the water.
5. **Evaporation** removes a share of the water.

Orogen's choices, in real units (heights, depths and the cell size in
metres, time in seconds, gravity 9.81 m/s²):

* The dissolving, deposition and evaporation constants are rates per second;
  a step applies ``1 - exp(-rate x Δt)`` (the exact solution over ``Δt`` of
  ``ds/dt = rate x (C - s)`` at fixed ``C``), where Mei et al. apply
  ``rate x Δt`` and need ``rate x Δt <= 1``. Halving ``Δt`` and doubling the
  steps then gives nearly the same terrain.
* **Sediment advection is conservative by construction** (no mass
  correction afterwards): a forward semi-Lagrangian step. Mei et al. fetch
  ``s(x - u Δt)`` backwards with bilinear interpolation, which neither
  conserves nor keeps the total; here each cell's sediment travels ``(u, v)
  x Δt`` and is split bilinearly among the up to four cells round where it
  lands, with weights summing to one, so what leaves one cell arrives in
  others. The flux scaling bounds the displacement to one cell per axis
  (``|u| + |v| <= cell_size / Δt``; proof in :func:`hydraulic_erosion`'s
  notes), so a landing point is always in the 3 x 3 neighbourhood and the
  split is done with whole-array shifts.
* Terrain and suspended sediment are float64 (so a dissolved micrometre on
  a 1000 m summit is not rounded away, and terrain + sediment is conserved
  to float64 rounding); water, fluxes and velocities float32.
* Rain is uniform; nothing is random, so no seed.
* Edges are ``"closed"`` (no water or sediment crosses them; the model
  paper's boundary) or ``"open"``: a ring of dry ghost cells at each border
  cell's own terrain height drains water over the border, and sediment
  carried over it is lost (``lost_volume``).

This is a global filter (water can travel across the whole map), so it takes
a whole heightmap, not a window.
"""

from __future__ import annotations

import math
import warnings
from functools import partial

import numpy as np
import numpy.typing as npt

from ..elementary import exp, expm1, sincos
from ..heightmap import check_number
from ..progress import Cancelled, Progress, check_progress
from .thermal import ErosionResult, change_maps, check_edges, check_step_work, erosion_heights

__all__ = [
    "MAX_HYDRAULIC_STEPS",
    "HYDRAULIC_STEP_COST",
    "HYDRAULIC_TIMES",
    "PiledSedimentWarning",
    "max_time_step",
    "hydraulic_steps",
    "hydraulic_erosion",
]

#: How the hydraulic filter counts its time: ``"seconds"`` (spec version 5: ``duration`` seconds of simulated
#: flow, the steps following from the stable time step at the cell size) or ``"steps"`` (version 4: ``steps``
#: time steps of half :func:`max_time_step`, a shorter time at a smaller cell size).
HYDRAULIC_TIMES = ("seconds", "steps")

#: Upper bound on hydraulic time steps, whatever the map's size.
MAX_HYDRAULIC_STEPS = 100_000
#: Work of one hydraulic time step per cell, in the cell passes of :func:`core.filters.filter_work` (what the
#: time estimates of :mod:`core.work` count; about 10 steps per second at 1025 x 1025, ``scripts/bench.py
#: --filters`` with its two cores loaded 6 deep).
HYDRAULIC_STEP_COST = 6

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]

# Below this mean depth (metres) a cell is dry: velocity 0 (its fluxes are then ~0 too).
_DRY = 1e-9


def max_time_step(cell_size: float = 1.0, gravity: float = 9.81) -> float:
    """The largest ``time_step`` accepted, seconds: ``0.5 x sqrt(cell_size / gravity)``.

    The explicit pipe model rings (then blows up, were it not for the flux
    scaling) beyond ``Δt = sqrt(cell / (2 g))``, where the oscillation of the
    water between a cell and its 4 neighbours, about ``sqrt(8 g / cell)``
    rad/s, is no longer resolved; this bound keeps a margin of 1.4. 0.16 s at
    1 m cells, 0.05 s at 0.1 m.
    """
    cell = check_number(cell_size, "cell_size", low=0.01, high=1e4)
    g = check_number(gravity, "gravity", low=0.1, high=100.0)
    return 0.5 * math.sqrt(cell / g)


def hydraulic_steps(duration: float, cell_size: float = 1.0, gravity: float = 9.81) -> tuple[int, float]:
    """The time steps that simulate ``duration`` seconds of flow: ``(steps, time_step)``.

    ``steps = ceil(duration / (max_time_step(cell_size) / 2))`` (the quotient rounded to 9 significant digits
    first, so the count is the same on every platform) and ``time_step = duration / steps`` seconds, at most
    half :func:`max_time_step`, the default step of :func:`hydraulic_erosion`: the same simulated time at every
    cell size, in more steps on a finer grid (``sqrt(2)`` times as many at half the cell size).

    Parameters
    ----------
    duration : float
        Seconds of simulated flow, ``[0, 1e6]``.
    cell_size : float
        Metres, ``[0.01, 1e4]``.
    gravity : float
        m/s², ``[0.1, 100]``.

    Returns
    -------
    tuple of (int, float)
        The steps (``>= 0``) and the time step in seconds (half :func:`max_time_step` when ``steps`` is 0).

    Raises
    ------
    TypeError, ValueError
        For a parameter that is not a number or outside its range, naming it.
    """
    seconds = check_number(duration, "duration", low=0.0, high=1e6)
    dt = 0.5 * max_time_step(cell_size, gravity)
    steps = math.ceil(float(f"{seconds / dt:.9g}"))
    return steps, (seconds / steps if steps else dt)


def hydraulic_erosion(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    *,
    steps: int = 200,
    time_step: float | None = None,
    rain_rate: float = 0.02,
    capacity: float = 0.02,
    dissolve_rate: float = 2.0,
    deposit_rate: float = 2.0,
    evaporation_rate: float = 0.2,
    min_tilt: float = 1.0,
    gravity: float = 9.81,
    depth_scale: float = 0.2,
    edges: str = "closed",
    settle: bool = True,
    bounded: bool = True,
    duration: float | None = None,
    callback: Progress | None = None,
) -> ErosionResult:
    """Hydraulic erosion with the virtual-pipe shallow-water model (Mei et al. 2007; Šťava et al. 2008).

    Rain falls, water flows through virtual pipes to the 4 edge neighbours,
    dissolves terrain where it can carry more sediment than it holds
    (capacity ``Kc x sin(tilt) x |v| x min(1, depth / depth_scale)``), deposits it where it can carry less,
    carries it along and evaporates. The model, its sources and Orogen's
    choices (rates per second, conservative forward semi-Lagrangian
    advection, float64 terrain and sediment) are in the module docstring.

    Parameters (default; hard bounds; soft bounds; unit; label: description)
    -------------------------------------------------------------------------
    heightmap : array_like, shape (rows, cols)
        Finite heights, metres (scale a normalised map by the terrain's
        height first).
    cell_size : float
        1.0; [0.01, 1e4]; [0.1, 100]; metres; "Cell Size": horizontal distance
        between neighbouring cells (also the pipe length; pipe cross-section
        ``cell_size²``).
    steps : int
        200; [0, 100000] and the estimated time within the limit the user set,
        if any (``OROGEN_WORK_LIMIT``); [10, 400]; steps; "Steps":
        time steps simulated.
    time_step : float or None
        None (half of :func:`max_time_step`: 0.08 s at 1 m cells, 0.025 s at
        0.1 m); (0, ``max_time_step(cell_size, gravity)``] (0.16 s at 1 m
        cells); [0.2, 1] x that bound; seconds; "Time Step": simulated time
        per step; shorter is more accurate and needs more steps.
    duration : float or None
        None; [0, 1e6]; [1, 100]; seconds; "Duration": simulated time of
        flow (spec version 5). Given, the steps and the time step are
        :func:`hydraulic_steps` of it (the same simulated time at every cell
        size) and ``steps`` and ``time_step`` are ignored.
    rain_rate : float
        0.02; [0, 10]; [0.001, 0.1]; metres of water per second; "Rain":
        uniform rainfall (storm-strength: real rain is about 1e-5 m/s,
        compressed here into a few simulated seconds).
    capacity : float
        0.02; [0, 100]; [0.002, 0.2]; seconds (metres of sediment per m/s of
        flow speed); "Capacity": ``Kc``, sediment the water can carry per unit
        speed and sine of the tilt.
    dissolve_rate : float
        2; [0, 1e4]; [0.1, 20]; 1/s; "Dissolving": ``Ks``, how fast water
        takes up terrain below its capacity (each step ``1 - exp(-Ks Δt)`` of
        the shortfall).
    deposit_rate : float
        2; [0, 1e4]; [0.1, 20]; 1/s; "Deposition": ``Kd``, how fast sediment
        above the capacity settles (each step ``1 - exp(-Kd Δt)`` of the
        surplus).
    evaporation_rate : float
        0.2; [0, 1e4]; [0.01, 2]; 1/s; "Evaporation": ``Ke``, share of the
        water lost per second (each step ``1 - exp(-Ke Δt)``).
    min_tilt : float
        1.0; [0, 90]; [0.5, 10]; degrees; "Minimum Tilt": the tilt below which
        the capacity stops falling (Šťava et al.), so flats still erode a
        little under flowing water.
    gravity : float
        9.81; [0.1, 100]; [9.81, 9.81]; m/s²; "Gravity": drives the flow (and
        bounds ``time_step``).
    depth_scale : float
        0.2; [0, 1e4]; [0.02, 1]; metres; "Depth Scale": water depth at which
        the capacity reaches its full value; shallower water carries
        proportionally less, so erosion gathers in channels rather than
        in the sheet of rain on every slope. 0 turns it off (Mei et al.'s
        capacity, which scours the sheet evenly). Orogen's addition.
    edges : str
        "closed"; "closed" or "open"; -; -; "Edges": closed keeps water and
        material in the map; open drains water over the border and loses the
        sediment it carries out.
    settle : bool
        True; -; -; -; "Settle": drop the sediment still suspended at the end
        where it is, as the water dries (else it is returned in ``sediment``
        and not in ``heights``).
    bounded : bool
        True; -; -; -; "Bounded": each step a cell is dissolved at most down
        to its lowest edge neighbour and raised by deposition at most up to
        its highest (its share of the exchange is scaled down to fit), so no
        setting within its bounds digs pits or builds spikes that feed on
        themselves: the terrain stays within the input's lowest and highest
        heights (plus the suspended sediment ``settle`` drops at the end).
        False is spec version 3's unlimited exchange, which at the bounds of
        the rates turned a 20 m terrain into -21 km ... +131 km.
    callback : callable or None
        None; -; -; -; -: called as ``callback(step, steps)`` after each step
        (1-based); returning ``False`` (exactly) cancels: :class:`core.Cancelled`
        is raised with the result after that step (sediment settled as
        ``settle`` says) as its ``result``.

    Returns
    -------
    ErosionResult
        ``heights`` (float32 metres), ``deposited`` and ``removed`` (float32
        metres, the positive and negative parts of ``heights - input``),
        ``lost_volume`` (m³ carried out through open edges), ``steps_done``,
        ``water`` (float32 depth in metres) and ``sediment`` (float32 metres
        still suspended; zeros when ``settle``). Conservation:
        ``(removed.sum() - deposited.sum() - sediment.sum()) x cell_size² =
        lost_volume`` to float rounding.

    Raises
    ------
    TypeError
        For a non-numeric heightmap or parameter, non-integer ``steps``, a
        non-bool ``settle`` or a callback that is not callable.
    ValueError
        For NaN/Inf heights, a parameter outside its range (``time_step``
        against the bound for the given ``cell_size`` and ``gravity``) or
        steps whose estimated time is over the user's Work Limit (``OROGEN_WORK_LIMIT``; none by default), naming it.

    Warns
    -----
    PiledSedimentWarning
        When the result leaves the starting height range by more than a
        tenth of the relief: the sediment the water carried settled in piles
        (a high ``capacity`` with little deposition or fast evaporation).

    Notes
    -----
    Why a sediment parcel moves at most one cell per axis: with outflows
    scaled so that ``out x Δt <= d1 x cell²`` (``d1`` the depth after rain),
    inflow x Δt = ``(d2 - d1) x cell² + out x Δt``, so half the fluxes
    through a cell, ``(in + out) x Δt / 2``, is at most ``(d1 + d2) / 2 x
    cell²``; ``|ΔW_x| + |ΔW_y|`` is at most that half, hence ``(|u| + |v|) x
    Δt <= cell``.
    """
    b = erosion_heights(heightmap)
    cell = check_number(cell_size, "cell_size", low=0.01, high=1e4)
    g = check_number(gravity, "gravity", low=0.1, high=100.0)
    dt_max = max_time_step(cell, g)
    dt = (
        0.5 * dt_max if time_step is None else check_number(time_step, "time_step", low=0.0, high=dt_max, low_open=True)
    )
    what = "steps"
    if duration is not None:
        steps, dt = hydraulic_steps(duration, cell, g)
        what = f"steps for duration {duration:g} s"
        if steps > MAX_HYDRAULIC_STEPS:
            raise ValueError(
                f"duration must need at most {MAX_HYDRAULIC_STEPS} time steps of {dt:.3g} s at this cell size, "
                f"got {steps} ({duration:g} s over {cell:g} m cells): use a shorter duration"
            )
    rain = check_number(rain_rate, "rain_rate", low=0.0, high=10.0)
    kc = check_number(capacity, "capacity", low=0.0, high=100.0)
    # core.elementary, not the C library: the same bits on every platform
    ks = -float(expm1(-check_number(dissolve_rate, "dissolve_rate", low=0.0, high=1e4) * dt))
    kd = -float(expm1(-check_number(deposit_rate, "deposit_rate", low=0.0, high=1e4) * dt))
    keep = float(exp(-check_number(evaporation_rate, "evaporation_rate", low=0.0, high=1e4) * dt))
    sin_min = sincos(math.radians(check_number(min_tilt, "min_tilt", low=0.0, high=90.0)))[0]
    depth_scale = check_number(depth_scale, "depth_scale", low=0.0, high=1e4)
    edges = check_edges(edges)
    if not isinstance(settle, (bool, np.bool_)):
        raise TypeError(f"settle must be a bool, got {type(settle).__name__}")
    if not isinstance(bounded, (bool, np.bool_)):
        raise TypeError(f"bounded must be a bool, got {type(bounded).__name__}")
    callback = check_progress(callback, "callback")
    rows, cols = b.shape
    steps = check_step_work((rows, cols), steps, HYDRAULIC_STEP_COST, what=what, most=MAX_HYDRAULIC_STEPS)

    before = b.copy()
    area = cell * cell
    f32 = np.float32
    water_in = f32(rain * dt)
    pipe = f32(dt * g * cell)  # Δt x A x g / l with A = cell², l = cell
    per_depth = f32(dt / area)  # flux (m³/s) x this = depth change (m) over a step
    open_edges = edges == "open"

    d = np.zeros((rows, cols), np.float32)  # water depth
    # Outflow fluxes to the west, east, north (row - 1) and south (row + 1) neighbours, m³/s, stacked: a strip's
    # four in one operation where they are treated alike.
    flux = np.zeros((4, rows, cols), np.float32)
    fw, fe, fn, fs = flux
    ux = np.empty((rows, cols), np.float32)  # displacement over a step, cells (east +)
    uy = np.empty((rows, cols), np.float32)  # displacement over a step, cells (south +)
    work = _AdvectWork(rows, cols)
    s = work.sediment  # suspended sediment, metres of material
    # A strip's work arrays (float32 unless said): the strips' passes run one after the other while their
    # arrays are in the caches.
    h = work.flow_rows
    outs = (np.empty((h, cols), f32), np.empty((h, cols), f32))  # a strip's outflow, kept for its next pass
    # A strip's terrain dissolved (+) or deposited (-) over the step, metres, kept until the next strip's erosion
    # no longer reads the terrain beside it
    changes = (np.empty((h, cols), np.float64), np.empty((h, cols), np.float64))
    tmp, spare, d_mean, gx, gy = (np.empty((h, cols), f32) for _ in range(5))
    # The drop to the east; its last column (in the flat runs along the rows: the drop to the next row's first
    # cell) is set to -0.0 or 0.0, which leaves what it is added to or subtracted from unchanged.
    dhx = np.zeros((h, cols), f32)
    dhy = np.zeros((h + 1, cols), f32)  # the drops to the south from the row above the strip (row 0) on
    surface = np.empty((h + 1, cols), np.float64)  # terrain + water of the strip and the row below
    b32 = np.empty((h + 2, cols), f32)  # the terrain of the strip and the rows beside it
    edge = np.empty(h, f32)  # a column of a strip, kept aside
    # Flat views: a strip's rows as one contiguous run (several times faster than strided 2-D views).
    fe_f, fw_f, ux_f = fe.reshape(-1), fw.reshape(-1), ux.reshape(-1)
    east_of, west_of = min(1, cols - 1), max(cols - 2, 0)  # the columns beside the first and the last
    # Constant arrays of a strip: numpy's maximum, minimum and fmin against an array run several times faster
    # than against a scalar, with the same result.
    zeros = np.zeros((h, cols), f32)
    ones = np.ones((h, cols), f32)
    minus_ones = np.full((h, cols), -1.0, f32)
    dry = np.full((h, cols), _DRY, f32)
    least_sine = np.full((h, cols), sin_min, f32)

    def flow(r0: int, r1: int, o: F32) -> None:
        """Rain on rows ``[r0, r1)`` and the row below, and their outflows ``o`` (the strip's, m³/s) scaled so
        that no cell drains below zero."""
        m, lo, hi = r1 - r0, r0 * cols, r1 * cols  # the strip's rows, and where they are in the flat views
        below = min(r1 + 1, rows)
        d[r0 + (r0 > 0) : below] += water_in  # row r0 rained with the strip before
        np.add(b[r0:below], d[r0:below], out=surface[: below - r0])
        n = m * cols
        sf, dxf = surface.reshape(-1)[:n], dhx.reshape(-1)[:n]
        np.subtract(sf[:-1], sf[1:], out=dxf[:-1], casting="same_kind")
        dxf *= pipe
        dhx[:m, -1] = -0.0
        fe_f[lo:hi] += dxf  # fe[:, :-1] += drop
        dhx[:m, -1] = 0.0
        fw_f[lo + 1 : hi] -= dxf[:-1]  # fw[:, 1:] -= drop
        # dhy[i]: the drop from row r0 - 1 + i to the next; row 0's came with the strip before
        y1 = min(r1, rows - 1)  # rows with a south neighbour
        if y1 > r0:
            south = dhy[1 : y1 - r0 + 1]
            np.subtract(surface[: y1 - r0], surface[1 : y1 - r0 + 1], out=south, casting="same_kind")
            south *= pipe
            fs[r0:y1] += south
        n0 = max(r0, 1)  # rows with a north neighbour
        if r1 > n0:
            fn[n0:r1] -= dhy[n0 - r0 : m]
        if y1 == r1:
            dhy[0] = dhy[m]
        if open_edges:  # dry ghost cells at the border cells' terrain height: the drop is the depth
            fw[r0:r1, 0] += pipe * d[r0:r1, 0]
            fe[r0:r1, -1] += pipe * d[r0:r1, -1]
            if r0 == 0:
                fn[0] += pipe * d[0]
            if r1 == rows:
                fs[-1] += pipe * d[-1]
        f = flux[:, r0:r1]
        np.maximum(f, zeros[:m], out=f)
        o, t = o[:m], tmp[:m]
        np.add(fw[r0:r1], fe[r0:r1], out=o)
        o += fn[r0:r1]
        o += fs[r0:r1]
        # K = min(1, d x cell² / (out x Δt)), written as d / (out x Δt / cell²): where out x Δt / cell² > d
        # the quotient is below 1; elsewhere at least 1, +inf (d > 0 = out) or NaN (0 / 0): fmin takes 1.
        np.multiply(o, per_depth, out=t)
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(d[r0:r1], t, out=t)
        np.fmin(t, ones[:m], out=t)
        np.multiply(f, t, out=f)
        o *= t

    def velocity(r0: int, r1: int, o: F32) -> None:
        """Rows ``[r0, r1)``'s depth after the flow (``o`` their outflow; the fluxes of the rows beside final)
        and displacements ``ux``, ``uy`` over the step."""
        m, lo, hi = r1 - r0, r0 * cols, r1 * cols
        # The mean depth over the step carries the velocity.
        t, sp, dm = tmp[:m], spare[:m], d_mean[:m]
        np.copyto(dm, d[r0:r1])
        np.multiply(o[:m], -per_depth, out=t)
        t_f, sp_f = t.reshape(-1), sp.reshape(-1)
        np.multiply(fe_f[lo:hi], per_depth, out=sp_f)
        sp[:, -1] = -0.0
        t_f[1:] += sp_f[:-1]  # t[:, 1:] += fe[:, :-1] x per_depth
        np.multiply(fw_f[lo:hi], per_depth, out=sp_f)
        sp[:, 0] = -0.0
        t_f[:-1] += sp_f[1:]  # t[:, :-1] += fw[:, 1:] x per_depth
        n0 = max(r0, 1)  # rows with a north neighbour, whose flux to the south arrives here
        np.multiply(fs[n0 - 1 : r1 - 1], per_depth, out=sp[n0 - r0 :])
        t[n0 - r0 :] += sp[n0 - r0 :]
        s1 = min(r1, rows - 1)  # rows with a south neighbour
        np.multiply(fn[r0 + 1 : s1 + 1], per_depth, out=sp[: s1 - r0])
        t[: s1 - r0] += sp[: s1 - r0]
        dr = d[r0:r1]
        dr += t
        np.maximum(dr, zeros[:m], out=dr)
        dm += dr
        dm *= f32(0.5)
        # Displacements in cells over the step: ΔW x Δt / (cell² x d_mean), ΔW the mean flux through the cell.
        x, y = ux[r0:r1], uy[r0:r1]
        np.subtract(fe[r0:r1], fw[r0:r1], out=x)
        x_f, e = ux_f[lo:hi], edge[:m]
        np.copyto(e, x[:, 0])
        x_f[1:] += fe_f[lo : hi - 1]  # x[:, 1:] += fe[:, :-1]
        x[:, 0] = e
        np.copyto(e, x[:, -1])
        x_f[:-1] -= fw_f[lo + 1 : hi]  # x[:, :-1] -= fw[:, 1:]
        x[:, -1] = e
        np.subtract(fs[r0:r1], fn[r0:r1], out=y)
        uy[n0:r1] += fs[n0 - 1 : r1 - 1]
        uy[r0:s1] -= fn[r0 + 1 : s1 + 1]
        np.maximum(dm, dry[:m], out=t)
        np.divide(f32(0.5) * per_depth, t, out=t)
        x *= t
        y *= t
        for u in (x, y):  # the flux scaling bounds them already; this guards rounding (np.clip's result)
            np.maximum(u, minus_ones[:m], out=u)
            np.minimum(u, ones[:m], out=u)
        if not open_edges:  # nothing is carried over a closed border
            np.maximum(x[:, 0], 0.0, out=x[:, 0])
            np.minimum(x[:, -1], 0.0, out=x[:, -1])
            if r0 == 0:
                np.maximum(uy[0], 0.0, out=uy[0])
            if r1 == rows:
                np.minimum(uy[-1], 0.0, out=uy[-1])

    def erode(r0: int, r1: int, c: F64) -> None:
        """Rows ``[r0, r1)``'s exchange ``c`` (bounded if asked; the terrain beside them not yet changed), its
        magnitude in ``work.total`` and the sediment after it; then their evaporation."""
        m, n = r1 - r0, (r1 - r0) * cols
        # Central differences (float32) of the terrain, each edge cell's missing neighbour itself.
        t, sp, x, y = tmp[:m], spare[:m], gx[:m], gy[:m]
        a0 = max(r0 - 1, 0)  # b32[i]: row a0 + i in float32
        np.copyto(b32[: min(r1 + 1, rows) - a0], b[a0 : r1 + 1], casting="same_kind")
        here = b32[r0 - a0 : r1 - a0]
        b_f = here.reshape(-1)
        # b[:, j + 1] - b[:, j - 1] along the rows as one run; the first and last columns set after
        np.subtract(b_f[2:], b_f[:-2], out=x.reshape(-1)[1 : n - 1])
        np.subtract(here[:, east_of], here[:, 0], out=x[:, 0])
        np.subtract(here[:, -1], here[:, west_of], out=x[:, -1])
        i0, i1 = max(r0, 1), min(r1, rows - 1)  # rows with both neighbours
        if i1 > i0:
            np.subtract(b32[i0 + 1 - a0 : i1 + 1 - a0], b32[i0 - 1 - a0 : i1 - 1 - a0], out=y[i0 - r0 : i1 - r0])
        if r0 == 0:
            np.subtract(b32[min(1, rows - 1)], b32[0], out=y[0])
        if r1 == rows:
            np.subtract(b32[rows - 1 - a0], b32[max(rows - 2, 0) - a0], out=y[-1])
        x *= f32(0.5 / cell)
        y *= f32(0.5 / cell)
        x *= x
        y *= y
        x += y  # |grad|²
        # sin(tilt) = |grad| / sqrt(1 + |grad|²) = sqrt(g² / (1 + g²)), at least sin(min_tilt)
        np.add(x, 1.0, out=t)
        x /= t
        np.sqrt(x, out=x)
        np.maximum(x, least_sine[:m], out=x)
        # |v| = cell / Δt x |displacement|
        np.multiply(ux[r0:r1], ux[r0:r1], out=t)
        np.multiply(uy[r0:r1], uy[r0:r1], out=sp)
        t += sp
        np.sqrt(t, out=t)
        t *= x
        t *= f32(kc * cell / dt)  # capacity, metres of sediment
        if depth_scale > 0.0:
            np.multiply(d[r0:r1], f32(1.0 / depth_scale), out=sp)
            np.minimum(sp, ones[:m], out=sp)
            t *= sp
        c = c[:m]
        np.copyto(c, t)  # exactly widened (faster than a mixed-type subtraction)
        c -= s[r0:r1]  # float64: C - s
        if ks == kd:
            c *= ks
        else:
            c *= np.where(c > 0.0, ks, kd)
        if bounded:  # never below the lowest edge neighbour, never above the highest
            work.bound_exchange(c, b, r0, r1)
        np.abs(c, out=work.total[r0:r1])
        s[r0:r1] += c
        d[r0:r1] *= f32(keep)  # 5. Evaporation (the transport does not need the water).

    lost = 0.0
    exchanged = 0.0
    done = 0
    strips = work.flow_bounds
    for step in range(steps):
        # A step goes through the map in strips of rows, stage by stage, each cell's operations in the order of a
        # whole-map pass (so the same bits whatever the strips): 1. rain and 2. the flow, fluxes from the drop in
        # the water surface scaled so no cell drains below zero (strip k), then the depths after the flow and the
        # velocities (strip k - 1, whose neighbours' fluxes are final); 3. erosion and deposition against the
        # capacity Kc x sin(tilt) x |v|, and 5. evaporation; 4. the terrain changed and the suspended sediment
        # moved with the water, forward semi-Lagrangian, each cell's sediment split bilinearly where it lands.
        # (A stage a pass of its own is faster than the stages of a strip one after the other.)
        for k in range(len(strips)):
            flow(*strips[k], outs[k % 2])
            if k:
                velocity(*strips[k - 1], outs[(k - 1) % 2])
        velocity(*strips[-1], outs[(len(strips) - 1) % 2])
        for k, (r0, r1) in enumerate(strips):
            erode(r0, r1, changes[k % 2])
            if k:  # the terrain of the strip before, no longer read
                b[strips[k - 1][0] : r0] -= changes[(k - 1) % 2][: r0 - strips[k - 1][0]]
        b[strips[-1][0] :] -= changes[(len(strips) - 1) % 2][: rows - strips[-1][0]]
        for r0, r1 in work.bounds:
            work.advect(ux, uy, r0, r1)
        exchanged += float(work.total.sum())
        moved = work.moved
        if open_edges:
            lost += float(moved[0].sum() + moved[-1].sum() + moved[1:-1, 0].sum() + moved[1:-1, -1].sum()) * area
        done = step + 1
        if callback is not None and callback(done, steps) is False:
            break
    if settle:
        b += s
        s[:] = 0.0
    _warn_if_piled(before, b, capacity=kc, deposit_rate=deposit_rate, evaporation_rate=evaporation_rate)
    deposited, removed = change_maps(before, b)
    result = ErosionResult(
        b.astype(np.float32),
        deposited,
        removed,
        lost,
        done,
        water=d.copy(),
        sediment=s.astype(np.float32),
        exchanged=exchanged,
    )
    if done < steps:  # the callback asked to stop
        raise Cancelled(
            f"hydraulic erosion cancelled after step {done} of {steps}", done=done, total=steps, result=result
        )
    return result


class PiledSedimentWarning(RuntimeWarning):
    """Hydraulic erosion left the terrain well outside its starting range: sediment piled up where its water went."""


def _warn_if_piled(before: F64, after: F64, *, capacity: float, deposit_rate: float, evaporation_rate: float) -> None:
    """Warn (:class:`PiledSedimentWarning`) when ``after`` leaves ``before``'s height range by more than a tenth of its
    relief. The exchange of each step is bounded by the neighbours' heights, but sediment the water carries
    converges where the water goes and settles there: with a high ``capacity`` and little deposition (or water
    that evaporates before it can drop its load) that can be a pile far above any starting height."""
    low, high = float(before.min()), float(before.max())
    margin = 0.1 * max(high - low, 1e-6)
    new_low, new_high = float(after.min()), float(after.max())
    if new_low >= low - margin and new_high <= high + margin:
        return
    warnings.warn(
        PiledSedimentWarning(
            f"hydraulic erosion took the terrain from {low:.4g} .. {high:.4g} m to {new_low:.4g} .. {new_high:.4g} m: "
            f"the sediment its water carried settled in piles (capacity {capacity:g}, deposit_rate {deposit_rate:g}, "
            f"evaporation_rate {evaporation_rate:g}); lower capacity or raise deposit_rate"
        ),
        stacklevel=3,
    )


#: Bytes of float64 work arrays per strip of rows the transport works on at once (a few times a processor's L2
#: cache: fewer calls, and a strip's arrays mostly stay in the caches through all their operations; 2, 4, 8
#: and 16 MiB measured 30.3, 31.2, 31.7 and 29.7 steps a second at 1025 x 1025, its 9 arrays laid out as wide rows).
_STRIP_BYTES = 8 << 20
#: Rows per strip of the flow's and the erosion's float32 passes (fewer, larger strips: more operations each).
_FLOW_ROWS = 128


class _AdvectWork:
    """The float64 work arrays of :func:`hydraulic_erosion`'s exchange bound and sediment transport, allocated
    once for a map of ``rows x cols``, and the strips of rows a step works in (``flow_bounds``, ``flow_rows``
    high at most, those of the flow, the erosion and the exchange bound; ``bounds``, ``height`` rows at most,
    the transport's).

    The transport moves ``sediment`` into the padded map ``moved`` and copies each row back once the strip
    after it has read the row's old value.

    Every cell goes through the same operations in the same order as in one whole-map pass (the transport's
    parts are computed for a strip and the rows beside it, and each cell of the strip adds the parts that reach
    it in the whole-map order), so the bits are the same whatever the strips.
    """

    def __init__(self, rows: int, cols: int, strip_bytes: int | None = None) -> None:
        strip_bytes = _STRIP_BYTES if strip_bytes is None else strip_bytes
        f64 = np.float64
        self.rows, self.cols = rows, cols
        flow = max(1, min(rows, _FLOW_ROWS))
        self.flow_rows = flow
        self.flow_bounds = [(r0, min(rows, r0 + flow)) for r0 in range(0, rows, flow)]
        # The transport's 9 float64 arrays of a strip and the two rows beside it
        self.height = height = max(1, min(rows, strip_bytes // (9 * 8 * (cols + 2)) - 2))
        self.bounds = [(r0, min(rows, r0 + height)) for r0 in range(0, rows, height)]
        bound = (flow, cols)  # the exchange bound runs in the flow's strips
        self.low, self.high, self.scratch = np.empty(bound, f64), np.empty(bound, f64), np.empty(bound, f64)
        self.edge_low, self.edge_high = np.empty(flow, f64), np.empty(flow, f64)
        # The transport's inputs and parts, in rows of cols + 2 (ghost columns 0)
        self.wide = [np.zeros(min(rows, height + 2) * (cols + 2), f64) for _ in range(9)]
        self.mask = np.empty(min(rows, height + 2) * cols, np.bool_)
        self.total = np.empty((rows, cols), f64)
        self.sediment = np.zeros((rows, cols), f64)
        self.moved = np.zeros((rows + 2, cols + 2), f64)

    def bound_exchange(self, part: F64, b: F64, r0: int, r1: int) -> None:
        """Clip ``part`` (rows ``[r0, r1)``'s terrain dissolved, > 0, or deposited, < 0, metres; at most a strip's
        rows) in place so that ``b - part`` stays between the lowest and the highest of each cell's edge
        neighbours (its own height where that is above or below them all): material is never dissolved below the
        ground water flows to, nor laid above the ground it comes from. Every new height then lies within the old
        heights' range, step after step. ``b`` is read beside the rows."""
        rows = self.rows
        m = r1 - r0
        low, high, scratch = self.low[:m], self.high[:m], self.scratch[:m]
        here = b[r0:r1]
        i0 = 1 if r0 == 0 else 0  # rows with a north neighbour
        i1 = m - 1 if r1 == rows else m  # rows with a south one
        # north, west, south, east: the order of a whole-map pass. The first row's low and high are its own
        # heights where it has no north neighbour.
        if i0:
            np.copyto(low[0], here[0])
            np.copyto(high[0], here[0])
        np.minimum(here[i0:], b[r0 - 1 + i0 : r1 - 1], out=low[i0:])
        np.maximum(here[i0:], b[r0 - 1 + i0 : r1 - 1], out=high[i0:])
        # West and east run on the rows as one flat run (contiguous, several times faster than the strided 2-D
        # views); the first (west) or last (east) column, which that compares with the row before or after, is
        # kept aside and put back.
        flat_low, flat_high, flat_here = low.reshape(-1), high.reshape(-1), here.reshape(-1)
        edge_low, edge_high = self.edge_low[:m], self.edge_high[:m]
        for a, n in (
            (0, None),
            (np.s_[:i1], b[r0 + 1 : r0 + 1 + i1]),
            (-1, None),
        ):
            if n is not None:
                np.minimum(low[a], n, out=low[a])
                np.maximum(high[a], n, out=high[a])
                continue
            np.copyto(edge_low, low[:, a])
            np.copyto(edge_high, high[:, a])
            if a == 0:  # west: each cell against the one before it
                lo, hi, n = flat_low[1:], flat_high[1:], flat_here[:-1]
            else:  # east: against the one after it
                lo, hi, n = flat_low[:-1], flat_high[:-1], flat_here[1:]
            np.minimum(lo, n, out=lo)
            np.maximum(hi, n, out=hi)
            low[:, a] = edge_low
            high[:, a] = edge_high
        np.minimum(part, np.subtract(here, low, out=scratch), out=part)
        np.maximum(part, np.subtract(here, high, out=scratch), out=part)

    def advect(self, ux: F32, uy: F32, r0: int, r1: int) -> None:
        """Move ``sediment`` of rows ``[r0, r1)`` (one of ``bounds``) by ``(ux, uy)`` cells (each in
        [-1, 1]) through the padded map ``moved``, splitting bilinearly; exactly conservative. Called for every
        strip of ``bounds`` in order: the first clears the ghost rows, and after the last ``sediment`` holds the
        moved sediment and ``moved``'s ghost ring what left the map.

        A parcel displaced by ``(ax, ay) = (|ux|, |uy|)`` lands across four cells:
        its own with weight ``(1 - ax)(1 - ay)``, the east or west neighbour with
        ``ax (1 - ay)``, the south or north one with ``(1 - ax) ay``, the diagonal
        with ``ax ay``. The part staying is ``s`` minus the parts leaving, so the
        parts sum to ``s`` to rounding. The other map's ghost ring receives what
        leaves the map.

        The parts are computed in rows as wide as the result's, ghost columns included (0 there), so each
        operation and each part's move runs on contiguous runs of rows, every neighbour a fixed offset; the
        ghost columns' parts are set to -0.0, which added to anything leaves it unchanged.
        """
        rows, w = self.rows, self.cols + 2
        moved, s = self.moved, self.sediment
        flat = moved.reshape(-1)
        if r0 == 0:
            moved[0] = 0.0
            moved[-1] = 0.0
        src0, src1 = max(r0 - 1, 0), min(r1 + 1, rows)  # the strip and the rows beside it
        m = src1 - src0
        n = m * w
        here, ax, ay, east, south, side, diag, vert, spare = (x[:n] for x in self.wide)
        for x in (here, ax, ay):  # their ghost columns were parts' (-0.0) in the strip before
            x.reshape(m, w)[:, :: w - 1] = 0.0
        np.copyto(here.reshape(m, w)[:, 1:-1], s[src0:src1])  # the ghost columns stay 0
        if r0 > 0:  # the strip before's last row, read now
            np.copyto(s[r0 - 1], moved[r0, 1:-1])
        np.abs(ux[src0:src1], out=ax.reshape(m, w)[:, 1:-1])  # float32 magnitudes, exactly widened
        np.abs(uy[src0:src1], out=ay.reshape(m, w)[:, 1:-1])
        # 1.0 or 0.0 (through bools: faster than a comparison with float64 results)
        mask = self.mask[: m * self.cols].reshape(m, self.cols)
        np.greater(ux[src0:src1], 0.0, out=mask)
        np.copyto(east.reshape(m, w)[:, 1:-1], mask)
        np.greater(uy[src0:src1], 0.0, out=mask)
        np.copyto(south.reshape(m, w)[:, 1:-1], mask)
        np.multiply(here, ax, out=side)
        np.multiply(side, ay, out=diag)  # s ax ay
        side -= diag  # s ax (1 - ay): east or west
        np.multiply(here, ay, out=vert)
        vert -= diag  # s (1 - ax) ay: south or north
        # What stays, straight into the strip's rows of the result (ghost columns 0)
        own = np.s_[(r0 - src0) * w : (r1 - src0) * w]
        stay = flat[(r0 + 1) * w : (r1 + 1) * w]
        np.subtract(here[own], side[own], out=stay)
        stay -= vert[own]
        stay -= diag[own]
        # The padded rows this strip finishes: its own, and the ghost rows beside the map's first and last.
        top = (r0 + 1 if r0 > 0 else 0) * w
        bottom = (r1 + 1 if r1 < rows else rows + 2) * w
        put = partial(_put, flat, m, w, (src0 + 1) * w, top, bottom)
        # Each split as soon as its parts are known, into arrays done with; the adds in the order of a whole-map
        # pass: east, west, south, north, south-east, north-east, south-west, north-west.
        to_e = here
        np.multiply(side, east, out=to_e)
        side -= to_e  # to the west
        put(to_e, 0, 1)
        put(side, 0, -1)
        to_s = ax
        np.multiply(vert, south, out=to_s)
        vert -= to_s  # to the north
        put(to_s, 1, 0)
        put(vert, -1, 0)
        d_e = ay
        np.multiply(diag, east, out=d_e)
        diag -= d_e  # the western diagonal parts
        to_se = spare
        np.multiply(d_e, south, out=to_se)
        d_e -= to_se  # north-east
        to_sw = east
        np.multiply(diag, south, out=to_sw)
        diag -= to_sw  # north-west
        put(to_se, 1, 1)
        put(d_e, -1, 1)
        put(to_sw, 1, -1)
        put(diag, -1, -1)
        # The strip's rows are final; the last waits for the next strip to read its old value.
        last = r1 if r1 == rows else r1 - 1
        np.copyto(s[r0:last], moved[r0 + 1 : last + 1, 1:-1])


def _put(flat: F64, m: int, w: int, base: int, top: int, bottom: int, part: F64, dr: int, dc: int) -> None:
    """Add ``part`` (``m`` rows of ``w``, the first at ``base`` in ``flat``) to ``flat`` moved ``dr`` rows and
    ``dc`` columns, within ``[top, bottom)``: :meth:`_AdvectWork.advect`'s move of a part."""
    part.reshape(m, w)[:, :: w - 1] = -0.0  # nothing comes from the ghost columns
    offset = dr * w + dc
    p0, p1 = max(top, base + offset), min(bottom, base + m * w + offset)
    if p1 > p0:
        flat[p0:p1] += part[p0 - offset - base : p1 - offset - base]
