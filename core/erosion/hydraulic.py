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
    s = np.zeros((rows, cols), np.float64)  # suspended sediment, metres of material
    # Outflow fluxes to the west, east, north (row - 1) and south (row + 1) neighbours, m³/s.
    fw = np.zeros((rows, cols), np.float32)
    fe = np.zeros((rows, cols), np.float32)
    fn = np.zeros((rows, cols), np.float32)
    fs = np.zeros((rows, cols), np.float32)
    out = np.empty((rows, cols), np.float32)
    tmp = np.empty((rows, cols), np.float32)
    spare = np.empty((rows, cols), np.float32)
    d_mean = np.empty((rows, cols), np.float32)
    ux = np.empty((rows, cols), np.float32)  # displacement over a step, cells (east +)
    uy = np.empty((rows, cols), np.float32)  # displacement over a step, cells (south +)
    gx = np.empty((rows, cols), np.float32)
    gy = np.empty((rows, cols), np.float32)
    # The drop to the east; its last column (in the flat runs along the rows: the drop to the next row's first
    # cell) is set to -0.0 or 0.0, which leaves what it is added to or subtracted from unchanged.
    dhx = np.zeros((rows, cols), np.float32)
    dhy = np.empty((max(rows - 1, 0), cols), np.float32)
    surface = np.empty((rows, cols), np.float64)
    change = np.empty((rows, cols), np.float64)
    work = _AdvectWork(rows, cols)
    edge = np.empty(min(rows, _FLOW_ROWS), np.float32)  # a column of a strip, kept aside
    # Flat views: a strip's rows as one contiguous run (several times faster than strided 2-D views).
    surface_f, dhx_f, fe_f, fw_f = surface.reshape(-1), dhx.reshape(-1), fe.reshape(-1), fw.reshape(-1)
    tmp_f, spare_f, ux_f, b_f, gx_f = tmp.reshape(-1), spare.reshape(-1), ux.reshape(-1), b.reshape(-1), gx.reshape(-1)
    east_of, west_of = min(1, cols - 1), max(cols - 2, 0)  # the columns beside the first and the last
    # Constant arrays: numpy's maximum, minimum and fmin against an array run several times faster than
    # against a scalar, with the same result.
    zeros = np.zeros((rows, cols), np.float32)
    ones = np.ones((rows, cols), np.float32)
    minus_ones = np.full((rows, cols), -1.0, np.float32)
    dry = np.full((rows, cols), _DRY, np.float32)
    least_sine = np.full((rows, cols), sin_min, np.float32)
    lost = 0.0
    exchanged = 0.0
    done = 0
    for step in range(steps):
        # 1. Rain.
        d += water_in
        # 2. Flow: fluxes from the drop in the water surface, scaled so no cell drains below zero. Steps 2 and 3
        # go through the map in strips of rows (each cell's operations in the whole-map order, so the same bits);
        # a pass ends where the next needs its neighbours' results.
        np.add(b, d, out=surface)
        for r0, r1 in work.flow_bounds:
            rs = np.s_[r0:r1]
            lo, hi = r0 * cols, r1 * cols  # the strip in the flat views
            np.subtract(surface_f[lo : hi - 1], surface_f[lo + 1 : hi], out=dhx_f[lo : hi - 1], casting="same_kind")
            dhx_f[lo:hi] *= pipe
            dhx[rs, -1] = -0.0
            fe_f[lo:hi] += dhx_f[lo:hi]  # fe[:, :-1] += drop
            dhx[rs, -1] = 0.0
            fw_f[lo + 1 : hi] -= dhx_f[lo : hi - 1]  # fw[:, 1:] -= drop
            # the drops to the south from this strip's rows (the row above's came with the strip before)
            y0, y1 = r0, min(r1, rows - 1)
            if y1 > y0:
                np.subtract(surface[y0:y1], surface[y0 + 1 : y1 + 1], out=dhy[y0:y1], casting="same_kind")
                dhy[y0:y1] *= pipe
            if min(r1, rows - 1) > r0:
                fs[r0 : min(r1, rows - 1)] += dhy[r0 : min(r1, rows - 1)]
            if r1 > max(r0, 1):
                fn[max(r0, 1) : r1] -= dhy[max(r0, 1) - 1 : r1 - 1]
            if open_edges:  # dry ghost cells at the border cells' terrain height: the drop is the depth
                fw[rs, 0] += pipe * d[rs, 0]
                fe[rs, -1] += pipe * d[rs, -1]
                if r0 == 0:
                    fn[0] += pipe * d[0]
                if r1 == rows:
                    fs[-1] += pipe * d[-1]
            z = zeros[rs]
            for f in (fw[rs], fe[rs], fn[rs], fs[rs]):
                np.maximum(f, z, out=f)
            o, t = out[rs], tmp[rs]
            np.add(fw[rs], fe[rs], out=o)
            o += fn[rs]
            o += fs[rs]
            # K = min(1, d x cell² / (out x Δt)), written as d / (out x Δt / cell²): where out x Δt / cell² > d
            # the quotient is below 1; elsewhere at least 1, +inf (d > 0 = out) or NaN (0 / 0): fmin takes 1.
            np.multiply(o, per_depth, out=t)
            with np.errstate(divide="ignore", invalid="ignore"):
                np.divide(d[rs], t, out=t)
            np.fmin(t, ones[rs], out=t)
            for f in (fw[rs], fe[rs], fn[rs], fs[rs]):
                f *= t
            o *= t
        for r0, r1 in work.flow_bounds:
            rs = np.s_[r0:r1]
            # Depth after the flow; the mean depth over the step carries the velocity.
            t, sp, dm = tmp[rs], spare[rs], d_mean[rs]
            np.copyto(dm, d[rs])
            np.multiply(out[rs], -per_depth, out=t)
            lo, hi = r0 * cols, r1 * cols
            t_f, sp_f = tmp_f[lo:hi], spare_f[lo:hi]
            np.multiply(fe_f[lo:hi], per_depth, out=sp_f)
            sp[:, -1] = -0.0
            t_f[1:] += sp_f[:-1]  # t[:, 1:] += fe[:, :-1] x per_depth
            np.multiply(fw_f[lo:hi], per_depth, out=sp_f)
            sp[:, 0] = -0.0
            t_f[:-1] += sp_f[1:]  # t[:, :-1] += fw[:, 1:] x per_depth
            n0 = max(r0, 1)  # rows with a north neighbour, whose flux to the south arrives here
            np.multiply(fs[n0 - 1 : r1 - 1], per_depth, out=spare[n0:r1])
            tmp[n0:r1] += spare[n0:r1]
            s1 = min(r1, rows - 1)  # rows with a south neighbour
            np.multiply(fn[r0 + 1 : s1 + 1], per_depth, out=spare[r0:s1])
            tmp[r0:s1] += spare[r0:s1]
            dr = d[rs]
            dr += t
            np.maximum(dr, zeros[rs], out=dr)
            dm += dr
            dm *= f32(0.5)
            # Displacements in cells over the step: ΔW x Δt / (cell² x d_mean), ΔW the mean flux through the cell.
            x, y = ux[rs], uy[rs]
            np.subtract(fe[rs], fw[rs], out=x)
            x_f, e = ux_f[lo:hi], edge[: r1 - r0]
            np.copyto(e, x[:, 0])
            x_f[1:] += fe_f[lo : hi - 1]  # x[:, 1:] += fe[:, :-1]
            x[:, 0] = e
            np.copyto(e, x[:, -1])
            x_f[:-1] -= fw_f[lo + 1 : hi]  # x[:, :-1] -= fw[:, 1:]
            x[:, -1] = e
            np.subtract(fs[rs], fn[rs], out=y)
            uy[n0:r1] += fs[n0 - 1 : r1 - 1]
            uy[r0:s1] -= fn[r0 + 1 : s1 + 1]
            np.maximum(dm, dry[rs], out=t)
            np.divide(f32(0.5) * per_depth, t, out=t)
            x *= t
            y *= t
            for u in (x, y):  # the flux scaling bounds them already; this guards rounding (np.clip's result)
                np.maximum(u, minus_ones[rs], out=u)
                np.minimum(u, ones[rs], out=u)
            if not open_edges:  # nothing is carried over a closed border
                np.maximum(x[:, 0], 0.0, out=x[:, 0])
                np.minimum(x[:, -1], 0.0, out=x[:, -1])
                if r0 == 0:
                    np.maximum(uy[0], 0.0, out=uy[0])
                if r1 == rows:
                    np.minimum(uy[-1], 0.0, out=uy[-1])
        # 3. Erosion and deposition against the capacity Kc x sin(tilt) x |v|.
        # Central differences (float32) of the terrain, each edge cell's missing neighbour itself.
        for r0, r1 in work.flow_bounds:
            rs = np.s_[r0:r1]
            t, sp, x, y = tmp[rs], spare[rs], gx[rs], gy[rs]
            lo, hi = r0 * cols, r1 * cols
            # b[:, j + 1] - b[:, j - 1] along the rows as one run; the first and last columns set after
            np.subtract(b_f[lo + 2 : hi], b_f[lo : hi - 2], out=gx_f[lo + 1 : hi - 1], dtype=f32, casting="same_kind")
            np.subtract(b[rs, east_of], b[rs, 0], out=x[:, 0], dtype=f32, casting="same_kind")
            np.subtract(b[rs, -1], b[rs, west_of], out=x[:, -1], dtype=f32, casting="same_kind")
            i0, i1 = max(r0, 1), min(r1, rows - 1)  # rows with both neighbours
            if i1 > i0:
                np.subtract(b[i0 + 1 : i1 + 1], b[i0 - 1 : i1 - 1], out=gy[i0:i1], dtype=f32, casting="same_kind")
            if r0 == 0:
                np.subtract(b[min(1, rows - 1)], b[0], out=gy[0], dtype=f32, casting="same_kind")
            if r1 == rows:
                np.subtract(b[-1], b[max(rows - 2, 0)], out=gy[-1], dtype=f32, casting="same_kind")
            x *= f32(0.5 / cell)
            y *= f32(0.5 / cell)
            x *= x
            y *= y
            x += y  # |grad|²
            # sin(tilt) = |grad| / sqrt(1 + |grad|²) = sqrt(g² / (1 + g²)), at least sin(min_tilt)
            np.add(x, 1.0, out=t)
            x /= t
            np.sqrt(x, out=x)
            np.maximum(x, least_sine[rs], out=x)
            # |v| = cell / Δt x |displacement|
            np.multiply(ux[rs], ux[rs], out=t)
            np.multiply(uy[rs], uy[rs], out=sp)
            t += sp
            np.sqrt(t, out=t)
            t *= x
            t *= f32(kc * cell / dt)  # capacity, metres of sediment
            if depth_scale > 0.0:
                np.multiply(d[rs], f32(1.0 / depth_scale), out=sp)
                np.minimum(sp, ones[rs], out=sp)
                t *= sp
            c = change[rs]
            np.subtract(t, s[rs], out=c)  # float64: C - s
            if ks == kd:
                c *= ks
            else:
                c *= np.where(c > 0.0, ks, kd)
            if bounded:  # never below the lowest edge neighbour, never above the highest
                work.bound_exchange(change, b, r0, r1)
        exchanged += float(np.abs(change, out=work.total).sum())
        b -= change
        s += change
        # 4. Transport: forward semi-Lagrangian, each cell's sediment split bilinearly where it lands.
        moved = work.advect(s, ux, uy)
        if open_edges:
            lost += float(moved[0].sum() + moved[-1].sum() + moved[1:-1, 0].sum() + moved[1:-1, -1].sum()) * area
        # 5. Evaporation.
        d *= f32(keep)
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
#: cache: fewer calls, and a strip's arrays mostly stay in the caches through all their operations; 2, 4 and
#: 8 MiB measured 17.2, 12.4 and 11.8 ms a transport at 1025 x 1025 with the parts laid out as wide rows).
_STRIP_BYTES = 8 << 20
#: Rows per strip of the flow's and the erosion's float32 passes (fewer, larger strips: more operations each).
_FLOW_ROWS = 128


class _AdvectWork:
    """The float64 work arrays of :func:`hydraulic_erosion`'s exchange bound and sediment transport, allocated
    once for a map of ``rows x cols``, and the strips of rows a step works in (``bounds`` the transport's,
    ``flow_bounds`` those of the flow, the erosion and the exchange bound).

    Every cell goes through the same operations in the same order as in one whole-map pass (the transport's
    parts are computed for a strip and the rows beside it, and each cell of the strip adds the parts that reach
    it in the whole-map order), so the bits are the same whatever the strips.
    """

    def __init__(self, rows: int, cols: int, strip_bytes: int | None = None) -> None:
        strip_bytes = _STRIP_BYTES if strip_bytes is None else strip_bytes
        f64 = np.float64
        # 16 float64 arrays of a strip and the two rows beside it.
        height = max(1, min(rows, strip_bytes // (16 * 8 * max(cols, 1)) - 2))
        self.rows, self.cols = rows, cols
        self.bounds = [(r0, min(rows, r0 + height)) for r0 in range(0, rows, height)]
        flow = max(1, min(rows, _FLOW_ROWS))
        self.flow_bounds = [(r0, min(rows, r0 + flow)) for r0 in range(0, rows, flow)]
        bound = (flow, cols)  # the exchange bound runs in the flow's strips
        self.low, self.high, self.scratch = np.empty(bound, f64), np.empty(bound, f64), np.empty(bound, f64)
        self.edge_low, self.edge_high = np.empty(flow, f64), np.empty(flow, f64)
        # The transport's parts, in rows of cols + 2 (ghost columns 0)
        self.wide = [np.zeros(min(rows, height + 2) * (cols + 2), f64) for _ in range(14)]
        self.total = np.empty((rows, cols), f64)
        self.moved = np.zeros((rows + 2, cols + 2), f64)

    def bound_exchange(self, change: F64, b: F64, r0: int, r1: int) -> None:
        """Clip ``change`` (terrain dissolved, > 0, or deposited, < 0, metres) in place so that ``b - change``
        stays between the lowest and the highest of each cell's edge neighbours (its own height where that is
        above or below them all): material is never dissolved below the ground water flows to, nor laid above
        the ground it comes from. Every new height then lies within the old heights' range, step after step.
        Rows ``[r0, r1)`` only (at most a strip's rows): ``b`` is read beside them."""
        rows = self.rows
        m = r1 - r0
        low, high, scratch = self.low[:m], self.high[:m], self.scratch[:m]
        here = b[r0:r1]
        np.copyto(low, here)
        np.copyto(high, here)
        i0 = 1 if r0 == 0 else 0  # rows with a north neighbour
        i1 = m - 1 if r1 == rows else m  # rows with a south one
        # north, west, south, east: the order of a whole-map pass. West and east run on the rows as one flat
        # run (contiguous, several times faster than the strided 2-D views); the first (west) or last (east)
        # column, which that compares with the row before or after, is kept aside and put back.
        flat_low, flat_high, flat_here = low.reshape(-1), high.reshape(-1), here.reshape(-1)
        edge_low, edge_high = self.edge_low[:m], self.edge_high[:m]
        for a, n in (
            (np.s_[i0:], b[r0 - 1 + i0 : r1 - 1]),
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
        part = change[r0:r1]
        np.minimum(part, np.subtract(here, low, out=scratch), out=part)
        np.maximum(part, np.subtract(here, high, out=scratch), out=part)

    def advect(self, s: F64, ux: F32, uy: F32) -> F64:
        """Move ``s`` in place by ``(ux, uy)`` cells (each in [-1, 1]), splitting bilinearly; exactly conservative.

        A parcel displaced by ``(ax, ay) = (|ux|, |uy|)`` lands across four cells:
        its own with weight ``(1 - ax)(1 - ay)``, the east or west neighbour with
        ``ax (1 - ay)``, the south or north one with ``(1 - ax) ay``, the diagonal
        with ``ax ay``. The part staying is ``s`` minus the parts leaving, so the
        parts sum to ``s`` to rounding. Returns the map of shape ``(rows + 2, cols +
        2)`` holding the result, its ghost ring holding what left the map.

        The parts are computed in rows as wide as the result's, ghost columns included (0 there), so each
        operation and each part's move runs on contiguous runs of rows, every neighbour a fixed offset; the
        ghost columns' parts are set to -0.0, which added to anything leaves it unchanged.
        """
        rows, w = self.rows, self.cols + 2
        moved = self.moved
        flat = moved.reshape(-1)
        moved[0] = 0.0
        moved[-1] = 0.0
        for r0, r1 in self.bounds:
            src0, src1 = max(r0 - 1, 0), min(r1 + 1, rows)  # the strip and the rows beside it
            m = src1 - src0
            n = m * w
            here, ax, ay, east, south, side, diag, vert, inner, to_e, to_s, d_e, to_se, to_sw = (
                x[:n] for x in self.wide
            )
            np.copyto(here.reshape(m, w)[:, 1:-1], s[src0:src1])  # the ghost columns stay 0
            np.abs(ux[src0:src1], out=ax.reshape(m, w)[:, 1:-1])  # float32 magnitudes, exactly widened
            np.abs(uy[src0:src1], out=ay.reshape(m, w)[:, 1:-1])
            np.greater(ux[src0:src1], 0.0, out=east.reshape(m, w)[:, 1:-1])  # 1.0 or 0.0
            np.greater(uy[src0:src1], 0.0, out=south.reshape(m, w)[:, 1:-1])
            np.multiply(here, ax, out=side)
            np.multiply(side, ay, out=diag)  # s ax ay
            side -= diag  # s ax (1 - ay): east or west
            np.multiply(here, ay, out=vert)
            vert -= diag  # s (1 - ax) ay: south or north
            np.subtract(here, side, out=inner)
            inner -= vert
            inner -= diag
            np.multiply(side, east, out=to_e)
            side -= to_e  # to the west
            np.multiply(vert, south, out=to_s)
            vert -= to_s  # to the north
            np.multiply(diag, east, out=d_e)
            diag -= d_e  # the western diagonal parts
            np.multiply(d_e, south, out=to_se)
            d_e -= to_se  # north-east
            np.multiply(diag, south, out=to_sw)
            diag -= to_sw  # north-west
            base = (src0 + 1) * w  # where the strip's first row is in the flat result
            flat[(r0 + 1) * w : (r1 + 1) * w] = inner[(r0 - src0) * w : (r1 - src0) * w]  # ghost columns 0
            # The padded rows this strip finishes: its own, and the ghost rows beside the map's first and last.
            top = (r0 + 1 if r0 > 0 else 0) * w
            bottom = (r1 + 1 if r1 < rows else rows + 2) * w
            for part, dr, dc in (
                (to_e, 0, 1),
                (side, 0, -1),
                (to_s, 1, 0),
                (vert, -1, 0),
                (to_se, 1, 1),
                (d_e, -1, 1),
                (to_sw, 1, -1),
                (diag, -1, -1),
            ):
                part.reshape(m, w)[:, :: w - 1] = -0.0  # nothing comes from the ghost columns
                offset = dr * w + dc
                q0, q1 = max(top, base + offset), min(bottom, base + n + offset)
                if q1 > q0:
                    flat[q0:q1] += part[q0 - offset - base : q1 - offset - base]
        s[:] = moved[1:-1, 1:-1]
        return moved
