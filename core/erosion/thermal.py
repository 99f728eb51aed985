"""Thermal erosion: material slides downhill until no slope is steeper than the talus angle.

Weathered rock loosens and falls; loose material (scree, talus) comes to rest
at its angle of repose, the *talus angle*. The grid model is Musgrave, Kolb &
Mace, "The synthesis and rendering of eroded fractal terrains" (SIGGRAPH
1989), in the form Olsen gives in "Realtime procedural terrain generation"
(2004): each step, a cell whose height difference ``Δ`` to a neighbour
exceeds the talus threshold ``T`` moves material to every such lower
neighbour, in proportion to the neighbour's excess ``Δ - T``.

Orogen's form, in real units: heights and the cell size in metres, the talus
angle in degrees, the 8-neighbourhood with true distances (``T = tan(talus) x
cell_size`` to the 4 edge neighbours, ``x sqrt(2)`` to the 4 diagonal ones).
A cell whose largest excess is ``e_max`` gives away ``rate x e_max / 2`` in
all, shared among its lower neighbours in proportion to their excesses: with
``rate = 1`` a cell and its steepest neighbour alone would end exactly at the
talus angle, so ``rate <= 1`` never pushes a lone pair past it (the stable
bound). All cells move at once from the same state (a Jacobi step, so the
result does not depend on any scan order), and every amount taken from a cell
is added to exactly one other cell: material is conserved to float64 rounding.

Edges are ``"closed"`` (nothing leaves the map) or ``"open"``: the map is
ringed by ghost cells and what slides onto them is gone, reported as
``lost_volume``. An open edge must not steepen what lies inside it, so by
default (``outside="extend"``, spec version 4) the ghost cells continue
each edge's own slope: every step a ghost is the linear extrapolation
``2 z_edge - z_inside`` along the line through the edge cell (the diagonal
at the corners), exact for a plane, so a plane no steeper than the talus
angle is left unchanged and an edge cell sheds only what a slope beyond the
talus angle towards the outside demands. ``outside="lowest"`` (spec version
3) holds the ghosts at the input's lowest height, a cliff beside every edge
higher than that, which wears the edges down.

This is a global filter: every cell can influence every other given enough
steps, so it takes a whole heightmap, not a window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..elementary import cos, sin, tangent
from ..heightmap import as_heightmap, check_count, check_number
from ..progress import Cancelled, Progress, check_progress
from ..work import check_work_limit, limit_work

__all__ = [
    "MAX_THERMAL_STEPS",
    "MAX_THERMAL_PASSES",
    "THERMAL_STEP_COST",
    "THERMAL_TIMES",
    "thermal_passes",
    "EDGES",
    "OUTSIDES",
    "ErosionResult",
    "MAX_EROSION_HEIGHT",
    "erosion_heights",
    "check_step_work",
    "check_edges",
    "thermal_erosion",
]

#: Upper bound on thermal steps, whatever the map's size.
MAX_THERMAL_STEPS = 100_000
#: Upper bound on the passes a thermal ``duration`` may need (:func:`thermal_passes`; 1000 years at 1 m²/yr over
#: 0.1 m cells are 1e5): the time they take is bounded by the user's Work Limit, if any.
MAX_THERMAL_PASSES = 10_000_000
#: Work of one thermal step per cell, in the cell passes of :func:`core.filters.filter_work` (what the time
#: estimates of :mod:`core.work` count; about 27 steps per second at 1025 x 1025, ``scripts/bench.py
#: --filters`` with its two cores loaded 6 deep).
THERMAL_STEP_COST = 5
#: Largest height (metres, either sign) the erosion filters accept: far beyond any terrain, and small
#: enough that height differences, gradients and fluxes stay finite in their float32 work arrays.
MAX_EROSION_HEIGHT = 1e9
#: How the thermal filter counts its time: ``"years"`` (spec version 5: ``duration`` years at ``diffusivity``
#: square metres a year, the passes following from the cell size) or ``"passes"`` (version 4: ``steps`` passes
#: over the grid).
THERMAL_TIMES = ("years", "passes")
#: Edge modes of the erosion filters.
EDGES = ("closed", "open")
#: What lies beyond an open edge of the thermal filter: the edge's slope continued (version 4) or a ring at
#: the input's lowest height (version 3).
OUTSIDES = ("extend", "lowest")

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]

#: Bytes of work arrays per strip of rows a thermal step works on at once (about a processor's L2 cache).
_STRIP_BYTES = 2 << 20

# The 8 neighbours as (row offset, col offset); row 0 is north.
_OFFSETS = ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


@dataclass(frozen=True)
class ErosionResult:
    """What an erosion filter returns.

    Attributes
    ----------
    heights : ndarray of float32, shape (rows, cols)
        The eroded heightmap, metres.
    deposited : ndarray of float32, shape (rows, cols)
        Where the result is higher than the input: ``max(heights - input, 0)``,
        metres (scree, sediment).
    removed : ndarray of float32, shape (rows, cols)
        Where it is lower: ``max(input - heights, 0)``, metres.
    lost_volume : float
        Material that left through open edges, cubic metres (0 with closed
        edges). ``removed.sum() x cell_size**2 = deposited.sum() x
        cell_size**2 + lost_volume`` (+ the suspended sediment's volume for
        hydraulic erosion run with ``settle=False``), to float rounding.
    steps_done : int
        Time steps run (the partial result of :class:`core.Cancelled` holds
        fewer than asked).
    water : ndarray of float32, shape (rows, cols), or None
        Hydraulic erosion only: water depth at the end, metres.
    sediment : ndarray of float32, shape (rows, cols), or None
        Hydraulic erosion only: sediment still suspended at the end, metres
        of material (zeros when ``settle=True`` dropped it into ``heights``).
    exchanged : float
        Hydraulic erosion only: metres of material taken up or laid down,
        summed over cells and steps (the gross exchange between terrain and
        water; the conservation balance holds to float64 rounding of this,
        which can exceed the net change when the two nearly cancel).
    """

    heights: F32
    deposited: F32
    removed: F32
    lost_volume: float
    steps_done: int
    water: F32 | None = None
    sediment: F32 | None = None
    exchanged: float = 0.0


def erosion_heights(heightmap: npt.ArrayLike) -> F64:
    """``heightmap`` validated (finite, 2-D, ``|h| <= MAX_EROSION_HEIGHT`` metres) as a new float64 array."""
    h: F64 = as_heightmap(heightmap, dtype=np.float64).copy()
    if float(np.abs(h).max()) > MAX_EROSION_HEIGHT:
        raise ValueError(
            f"heightmap must hold heights within +-{MAX_EROSION_HEIGHT:g} metres, got {float(np.abs(h).max()):.3g}"
        )
    return h


def check_step_work(shape: tuple[int, int], steps: int, cost: int, *, what: str, most: int) -> int:
    """Validate a count of erosion steps: within ``[0, most]``, and ``steps x rows x cols x cost`` cell passes'
    estimated time within the limit the user set, if any (``OROGEN_WORK_LIMIT`` or the add-on's preference,
    :mod:`core.work`). Returns ``steps``.

    Raises
    ------
    TypeError
        If ``steps`` is not an integer.
    ValueError
        Naming ``what``, the limit, the setting that set it and the largest count it allows at this size.
    """
    steps = check_count(steps, what, low=0, high=most)
    cells = shape[0] * shape[1]
    limit = limit_work(cells)
    advice = "use fewer steps or a smaller heightmap"
    if limit is not None and steps * cells * cost > limit:
        advice = f"{what} must be in [0, {min(most, limit // (cells * cost))}] at this size: {advice}"
    check_work_limit(steps * cells * cost, f"{what}: {steps} over {shape[0]} x {shape[1]} cells", advice, cells=cells)
    return steps


def check_edges(edges: object) -> str:
    """Validate an edge mode: ``"closed"`` or ``"open"`` (``ValueError`` otherwise)."""
    if edges not in EDGES:
        raise ValueError(f"edges must be one of {EDGES}, got {edges!r}")
    return str(edges)


def change_maps(before: F64, after: F64) -> tuple[F32, F32]:
    """``(deposited, removed)``: the positive and negative parts of ``after - before``, float32."""
    diff = after - before
    deposited: F32 = np.maximum(diff, 0.0).astype(np.float32)
    removed: F32 = np.maximum(-diff, 0.0).astype(np.float32)
    return deposited, removed


def _extrapolate_ring(padded: F64) -> None:
    """Set the ghost ring of ``padded`` (the map inside it) to each edge's slope continued outwards, in place.

    A ghost is ``2 z_edge - z_inside``, the linear extrapolation through the edge cell along the row, the
    column or (at the corners) the diagonal; a map one cell thick along an axis continues flat along it.
    """
    rows, cols = padded.shape[0] - 2, padded.shape[1] - 2
    i0, i1 = (2, -3) if rows > 1 else (1, -2)
    j0, j1 = (2, -3) if cols > 1 else (1, -2)
    padded[0, 1:-1] = 2.0 * padded[1, 1:-1] - padded[i0, 1:-1]
    padded[-1, 1:-1] = 2.0 * padded[-2, 1:-1] - padded[i1, 1:-1]
    padded[1:-1, 0] = 2.0 * padded[1:-1, 1] - padded[1:-1, j0]
    padded[1:-1, -1] = 2.0 * padded[1:-1, -2] - padded[1:-1, j1]
    padded[0, 0] = 2.0 * padded[1, 1] - padded[i0, j0]
    padded[0, -1] = 2.0 * padded[1, -2] - padded[i0, j1]
    padded[-1, 0] = 2.0 * padded[-2, 1] - padded[i1, j0]
    padded[-1, -1] = 2.0 * padded[-2, -2] - padded[i1, j1]


class _ThermalWork:
    """The heights and work arrays of :func:`thermal_erosion`'s steps, allocated once for a map of ``rows x cols``.

    The heights live in ``padded``, the map inside its ring of ghost cells, ``rows + 2`` rows of ``W = cols + 2``
    (in a flat buffer with one spare element at each end). Every neighbour is then a fixed offset in the flat
    buffer (``±1``, ``±W``, ``±W ± 1``), so each operation runs on whole contiguous runs of rows, ghost columns
    included (their values are never used: what the ghost columns would give is set to 0 before it is
    gathered, which leaves an inflow unchanged, as it starts at 0 and only gains amounts of at least 0, and
    the ghost columns are set back after the step). A step needs the height difference to each
    of the 8 neighbours; the difference from ``a`` to ``b`` is the negation of the one from ``b`` to ``a``
    (exactly, in float64 and rounded to float32 alike), so 4 arrays of differences between neighbouring pairs
    serve all 8 directions.

    The map is worked in strips of whole rows small enough that a strip's arrays stay in the processor's cache.
    A strip computes the excesses of its rows and of the row beside it on each side (the same operations on
    the same heights, so the same bits), so it finishes the inflow of its own rows (and of the ghost rows
    beside the map's first and last) alone, each cell adding its 8 inflows in the order of ``_OFFSETS``, as a
    whole-map pass does; its heights are updated once the next strip has read the old ones beside it. Every
    cell goes through the same operations in the same order as in one whole-map pass, so the bits are the same.
    """

    def __init__(
        self, rows: int, cols: int, ghost: float, thresholds: list[Any], strip_bytes: int | None = None
    ) -> None:
        width = cols + 2
        self.rows, self.cols, self.width, self.ghost = rows, cols, width, ghost
        self.flat = np.full((rows + 2) * width + 2, ghost)
        self.padded = self.flat[1:-1].reshape(rows + 2, width)
        self.inflow = np.zeros((rows + 2, width), np.float32)
        strip_bytes = _STRIP_BYTES if strip_bytes is None else strip_bytes
        # About 80 bytes of work arrays per cell of a strip; a map of at most 3 strips is one (fewer calls). At
        # least 2 rows, so a strip never reads the rows of the strip before the one before it.
        height = max(2, min(rows, strip_bytes // (80 * width)))
        if rows <= 3 * height:
            height = rows
        most = (min(rows, height + 2)) * width  # a strip's rows and the rows beside it
        f32 = np.float32
        self.pairs = tuple(np.empty(most + width + 1, f32) for _ in range(4))
        self.excess = np.empty((len(_OFFSETS), most), f32)
        self.share, self.total, self.flat_total = (np.empty(most, f32) for _ in range(3))
        self.zeros = np.zeros(most, f32)  # np.maximum against an array is much faster than against 0.0
        self.given = (np.empty(height * width, np.float64), np.empty(height * width, np.float64))
        # Thresholds: a float32 each, or float32 maps laid out as the padded rows (ghost columns 0).
        if isinstance(thresholds[0], np.ndarray):
            maps = []
            for t in thresholds:
                m = np.zeros((rows, width), f32)
                m[:, 1:-1] = t
                maps.append(m)
            self.thresholds: list[Any] = maps
            self.negative: list[Any] = [-m for m in maps]
        else:
            self.thresholds = list(thresholds)
            self.negative = [-t for t in thresholds]
        self.per_cell = isinstance(thresholds[0], np.ndarray)
        self.strips = [self._strip(r0, min(rows, r0 + height), i % 2) for i, r0 in enumerate(range(0, rows, height))]

    def _strip(self, r0: int, r1: int, parity: int) -> tuple[Any, ...]:
        """The views one strip of rows ``[r0, r1)`` works on."""
        rows, w, f = self.rows, self.width, self.flat
        s0, s1 = max(r0 - 1, 0), min(r1 + 1, rows)  # the rows whose excesses the strip computes
        n = (s1 - s0) * w
        base = (s0 + 1) * w  # flat index of the first of them in padded (f[x + 1] is padded's x)
        vertical, horizontal, south_east, south_west = self.pairs
        differences = (  # padded[x] - padded[x + offset] for the x each direction needs
            (f[base - w + 1 : base + n + 1], f[base + 1 : base + n + w + 1], vertical[: n + w]),  # south
            (f[base : base + n + 1], f[base + 1 : base + n + 2], horizontal[: n + 1]),  # east
            (f[base - w : base + n + 1], f[base + 1 : base + n + w + 2], south_east[: n + w + 1]),
            (f[base - w + 2 : base + n + 1], f[base + 1 : base + n + w], south_west[: n + w - 1]),
        )
        # Each direction of _OFFSETS: the pair differences' view, True where it is the negated difference.
        views = (
            (vertical[:n], True),  # north
            (vertical[w : w + n], False),  # south
            (horizontal[:n], True),  # west
            (horizontal[1 : n + 1], False),  # east
            (south_east[:n], True),  # north-west
            (south_west[:n], True),  # north-east
            (south_west[w - 1 : w - 1 + n], False),  # south-west
            (south_east[w + 1 : w + 1 + n], False),  # south-east
        )
        excess = self.excess[:, :n]
        by_rows = excess.view()
        by_rows.shape = (len(_OFFSETS), s1 - s0, w)  # a view (raises rather than copy)
        ghost_columns = by_rows[:, :, :: w - 1]
        if self.per_cell:  # each strip takes its rows of the threshold maps
            limits = tuple(
                (t[s0:s1].reshape(-1), nt[s0:s1].reshape(-1))
                for t, nt in zip(self.thresholds, self.negative, strict=True)
            )
        else:
            limits = tuple(zip(self.thresholds, self.negative, strict=True))
        own = slice((r0 - s0) * w, (r1 - s0) * w)
        # The inflow of padded rows [top, bottom): the strip's, and the ghost rows beside the map's first and last.
        top = r0 + 1 if r0 > 0 else 0
        bottom = r1 + 1 if r1 < rows else rows + 2
        inflow = self.inflow.reshape(-1)
        gather = []
        for k, (dr, dc) in enumerate(_OFFSETS):
            offset = dr * w + dc
            q0, q1 = max(top * w, base + offset), min(bottom * w, base + n + offset)
            if q1 > q0:
                gather.append((inflow[q0:q1], excess[k, q0 - offset - base : q1 - offset - base]))
        given = self.given[parity][: (r1 - r0) * w]
        update = (f[(r0 + 1) * w + 1 : (r1 + 1) * w + 1], given, inflow[(r0 + 1) * w : (r1 + 1) * w])
        return (
            differences,
            views,
            excess,
            ghost_columns,
            limits,
            own,
            inflow[top * w : bottom * w],
            tuple(gather),
            update,
            n,
        )

    def step(self, half_rate: np.float32) -> F32:
        """One Jacobi step on the heights in ``padded`` (its ghost ring set); returns the inflow.

        The same operations, in the same order for every cell, as the plain form: ``e_k = max(float32(h -
        neighbour_k) - T_k, 0)``; ``share = rate/2 x max_k e_k / sum_k e_k`` (float32, sums left to right);
        each ``e_k x share`` leaves the cell (its float64 sum left to right) and reaches neighbour ``k``.
        """
        share_all, total_all, flat_all, zeros_all = self.share, self.total, self.flat_total, self.zeros
        with np.errstate(invalid="ignore"):  # ghost columns and corners (inf - inf), never used
            pending: tuple[F64, F64, F32] | None = None
            for differences, views, excess, ghost_columns, limits, own, targets, gather, update, n in self.strips:
                for a, b, d in differences:
                    np.subtract(a, b, out=d, casting="same_kind")
                if pending is not None:  # the strip before this one: the old heights beside it are read now
                    h, given, inflow = pending
                    h -= given
                    h += inflow
                share, total, flat, zeros = share_all[:n], total_all[:n], flat_all[:n], zeros_all[:n]
                for k, (view, negated) in enumerate(views):
                    e = excess[k]
                    t, nt = limits[k]
                    if negated:  # (-T) - d is -d - T bit for bit: both round -(d + T)
                        np.subtract(nt, view, out=e)
                    else:
                        np.subtract(view, t, out=e)
                    np.maximum(e, zeros, out=e)
                np.maximum(excess[0], excess[1], out=share)
                np.add(excess[0], excess[1], out=total)
                for k in range(2, len(_OFFSETS)):
                    np.maximum(share, excess[k], out=share)
                    total += excess[k]
                # share / total where total > 0, else share (0): a total of 0 becomes 1, any other stays itself
                # (x + 0 is x), which a masked divide, several times slower, gives too
                np.equal(total, zeros, out=flat)
                total += flat
                np.divide(share, total, out=share)
                share *= half_rate
                excess *= share  # cells with no excess have all-zero rows, whatever share holds there
                ghost_columns[...] = 0.0  # nothing comes from the ghost columns
                given = update[1]
                part = excess[:, own]
                np.copyto(given, part[0])
                for k in range(1, len(_OFFSETS)):
                    given += part[k]
                targets.fill(0.0)
                for target, source in gather:
                    target += source
                pending = update
            if pending is not None:
                h, given, inflow = pending
                h -= given
                h += inflow
        self.padded[1:-1, 0] = self.ghost  # set back (an extended ring is set again before the next step)
        self.padded[1:-1, -1] = self.ghost
        return self.inflow


def thermal_passes(duration: float, diffusivity: float, cell_size: float) -> int:
    """Passes of :func:`thermal_erosion` that ``duration`` years at ``diffusivity`` take at ``cell_size``.

    A pass moves ``rate / 2`` of each cell's excess over the talus slope, ``cell_size x (S - tan(talus))``
    for a slope ``S``, across a cell face: a flux of about ``rate / 2 x cell_size² x (S - tan(talus))`` per
    pass and metre of face, the explicit step of a diffusion of the slope's excess over the talus slope.
    A fault scarp one cell wide spreads the same way (its slope is nearly all excess), by about
    ``sqrt(passes)`` cells. So a pass stands for ``cell_size² / diffusivity`` years, and ``duration`` years
    are ``ceil(duration x diffusivity / cell_size²)`` passes: four times as many at half the cell size, and
    the same spec relaxes a scarp to the same shape in metres at every size (measured on the preset Scree
    Slopes from 257² to 1025²; a count growing only with ``1 / cell_size`` leaves the finer grids steeper).
    Each pass moves material at most one cell.

    Parameters
    ----------
    duration : float
        Years, ``[0, 1e7]``.
    diffusivity : float
        Square metres a year: how fast loose material above the talus slope spreads, ``(0, 1e4]``.
    cell_size : float
        Metres, ``[1e-6, 1e6]``.

    Returns
    -------
    int
        The passes, ``>= 0`` (0 for a duration of 0). Deterministic: the quotient is rounded to 9 significant
        digits before the ceiling, so ``625 x 1 / 1.5625²`` is 256, not 257.

    Raises
    ------
    TypeError, ValueError
        For a parameter that is not a number or outside its range, naming it.
    """
    years = check_number(duration, "duration", low=0.0, high=1e7)
    kappa = check_number(diffusivity, "diffusivity", low=0.0, high=1e4, low_open=True)
    cell = check_number(cell_size, "cell_size", low=1e-6, high=1e6)
    quotient = years * kappa / (cell * cell)
    return math.ceil(float(f"{quotient:.9g}")) if quotient > 0.0 else 0


def _talus_map(value: object, shape: tuple[int, ...]) -> F64 | None:
    """A talus-angle map (degrees per cell, ``[0, 89]``) checked, or ``None`` for a single angle."""
    if not isinstance(value, np.ndarray):
        return None
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != tuple(shape):
        raise ValueError(f"talus_angle must be a number or a map of the heights' shape {tuple(shape)}, got {arr.shape}")
    if not np.isfinite(arr).all() or arr.min() < 0.0 or arr.max() > 89.0:
        raise ValueError("talus_angle must be in [0, 89] degrees everywhere")
    return arr


def thermal_erosion(
    heightmap: npt.ArrayLike,
    *,
    talus_angle: float | npt.NDArray[np.float64] = 35.0,
    cell_size: float = 1.0,
    steps: int = 50,
    rate: float = 0.5,
    edges: str = "closed",
    outside: str = "extend",
    duration: float | None = None,
    diffusivity: float = 1.0,
    callback: Progress | None = None,
) -> ErosionResult:
    """Thermal erosion: move material downhill until no slope exceeds the talus angle.

    Each step every cell compares itself with its 8 neighbours; where
    the drop ``Δ`` to a neighbour exceeds ``T = tan(talus_angle) x
    distance`` (distance ``cell_size`` or ``cell_size x sqrt(2)``), the
    excess is ``Δ - T``. A cell with largest excess ``e_max`` gives away
    ``rate x e_max / 2``, shared among those neighbours in proportion to
    their excesses (Musgrave, Kolb & Mace 1989; Olsen 2004). All cells move
    from the same state; heights accumulate in float64; the source and its
    differences from Olsen's are in the module docstring.

    Parameters (default; hard bounds; soft bounds; unit; label: description)
    -------------------------------------------------------------------------
    heightmap : array_like, shape (rows, cols)
        Finite heights, metres (scale a normalised map by the terrain's height
        first).
    talus_angle : float or ndarray (rows, cols)
        35; [0, 89]; [25, 45]; degrees; "Talus Angle": steepest slope loose
        material rests at (scree 30-40 degrees); 0 flattens everything. A
        map gives each cell its own angle (hard rock steep, scree gentle):
        material leaves a cell where the drop exceeds that cell's threshold
        (``tan`` as ``sin / cos`` of :mod:`core.elementary`, float32 per cell).
    cell_size : float
        1.0; [1e-6, 1e6]; [0.1, 100]; metres; "Cell Size": horizontal distance
        between neighbouring cells.
    steps : int
        50; [0, 100000] and the estimated time within the limit the user set,
        if any (``OROGEN_WORK_LIMIT``); [1, 300]; steps;
        "Steps": how many times material moves (passes over the grid; spec
        version 4's time, the same count at every cell size). Ignored when
        ``duration`` is given.
    rate : float
        0.5; (0, 1]; [0.1, 1]; share per step; "Rate": share of a cell's
        largest excess over the talus slope it sheds per step (``x 1/2``);
        1 is the stable bound, smaller is slower and smoother.
    edges : str
        "closed"; "closed" or "open"; -; -; "Edges": closed keeps all
        material; open lets material slide off the map (it is lost).
    outside : str
        "extend"; "extend" or "lowest"; -; -; "Outside": with open edges,
        what lies beyond them: "extend" continues each edge's own slope
        (a plane no steeper than the talus angle stays as it is), "lowest"
        is a ring held at the input's lowest height (spec version 3).
    duration : float or None
        None; [0, 1e7]; [1, 2000]; years; "Duration": time the material
        moves for (spec version 5). Given, the passes are
        :func:`thermal_passes` of it, ``diffusivity`` and ``cell_size`` (the
        same landform in metres at every cell size) and ``steps`` is ignored.
    diffusivity : float
        1.0; (0, 1e4]; [0.1, 10]; square metres per year; "Diffusivity":
        how fast loose material above the talus slope spreads (with
        ``duration``; a pass is ``cell_size² / diffusivity`` years).
    callback : callable or None
        None; -; -; -; -: called as ``callback(step, steps)`` after each step
        (1-based); returning ``False`` (exactly) cancels: :class:`core.Cancelled`
        is raised with the result after that step as its ``result``.

    Returns
    -------
    ErosionResult
        ``heights`` (float32, metres), ``deposited`` and ``removed`` (float32
        metres, the positive and negative parts of the change), ``lost_volume``
        (cubic metres through open edges) and ``steps_done``.

    Raises
    ------
    TypeError
        For a non-numeric heightmap or parameter, a non-integer
        ``steps`` or a callback that is not callable.
    ValueError
        For NaN/Inf heights, a parameter outside its range, a duration that
        needs more than ``MAX_THERMAL_PASSES`` passes, or steps (passes)
        whose estimated time is over the user's Work Limit (``OROGEN_WORK_LIMIT``; none by default), naming it.
    """
    h = erosion_heights(heightmap)
    talus_map = _talus_map(talus_angle, h.shape)
    talus = 0.0 if talus_map is not None else check_number(talus_angle, "talus_angle", low=0.0, high=89.0)
    cell = check_number(cell_size, "cell_size", low=1e-6, high=1e6)
    rate = check_number(rate, "rate", low=0.0, high=1.0, low_open=True)
    edges = check_edges(edges)
    if outside not in OUTSIDES:
        raise ValueError(f"outside must be one of {OUTSIDES}, got {outside!r:.40}")
    extend = edges == "open" and outside == "extend"
    callback = check_progress(callback, "callback")
    rows, cols = h.shape
    what = "steps"
    if duration is not None:
        steps, what = thermal_passes(duration, diffusivity, cell), f"passes for duration {duration:g} years"
        if steps > MAX_THERMAL_PASSES:
            raise ValueError(
                f"duration x diffusivity / cell_size² must be at most {MAX_THERMAL_PASSES} passes, got {steps} "
                f"({duration:g} years at {diffusivity:g} m²/year over {cell:g} m cells): use a shorter duration"
            )
    most = MAX_THERMAL_STEPS if duration is None else MAX_THERMAL_PASSES
    steps = check_step_work((rows, cols), steps, THERMAL_STEP_COST, what=what, most=most)

    before = h.copy()
    tan = tangent(math.radians(talus))  # core.elementary: the same bits on every platform
    # Float32 talus thresholds: the excesses are computed in float32 (speed); heights stay float64.
    thresholds: list[Any] = [np.float32(tan * cell * (math.sqrt(2.0) if dr and dc else 1.0)) for dr, dc in _OFFSETS]
    if talus_map is not None:  # per cell: the threshold of the cell material leaves
        radians = talus_map * (math.pi / 180.0)
        tan_map = sin(radians) / cos(radians)
        thresholds = [
            (tan_map * (cell * (math.sqrt(2.0) if dr and dc else 1.0))).astype(np.float32) for dr, dc in _OFFSETS
        ]
    # Heights with a ring of ghost cells: +inf (nothing flows there) for closed edges, the lowest input
    # height (material sliding there is lost) for open ones.
    ghost = math.inf if edges == "closed" else float(h.min())
    work = _ThermalWork(rows, cols, ghost, thresholds)
    padded = work.padded
    padded[1:-1, 1:-1] = h
    h = padded[1:-1, 1:-1]  # the heights, updated in place
    lost = 0.0
    done = 0
    for it in range(steps):
        if extend:
            _extrapolate_ring(padded)
        inflow = work.step(np.float32(rate / 2.0))
        if edges == "open":
            ring = (
                inflow[0].sum(dtype=np.float64)
                + inflow[-1].sum(dtype=np.float64)
                + inflow[1:-1, 0].sum(dtype=np.float64)
                + inflow[1:-1, -1].sum(dtype=np.float64)
            )
            lost += float(ring) * cell * cell
        done = it + 1
        if callback is not None and callback(done, steps) is False:
            break
    deposited, removed = change_maps(before, h)
    result = ErosionResult(h.astype(np.float32), deposited, removed, lost, done)
    if done < steps:  # the callback asked to stop
        raise Cancelled(
            f"thermal erosion cancelled after step {done} of {steps}", done=done, total=steps, result=result
        )
    return result
